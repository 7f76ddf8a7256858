#!/usr/bin/env bash
# strays.sh: job isolation on one segment (issue 10; field case C38 of
# shared/cases/CASES.md, and stale runs), over hc-launch on tap, with the
# frames of tests/integration/hct_inject.py (run as hc-launch's sidecar, in
# the launcher's namespace only, bounded in count and time):
#   garbage   2 ranks of hc-check -s strays (256 KiB all-reduces for 5 s)
#             alone, then again while 10 000 frames/s of garbage and stray
#             UDP (6 kinds, hct_inject.py DEFAULT_KINDS) reach them for 3 s: every
#             all-reduce exact, each kind counted at its rank in its drop
#             counter of hc_stats, no crash; prints the all-reduce rate of
#             both runs and their ratio (not asserted here: 2 shared CPUs
#             make it noisy; see tests/bench/strays for the 10% check)
#   twojobs   two jobs of 2 ranks each (random job ids) on one bridge: the
#             second hc-launch joins the first's namespace
#             (HC_LAUNCH_JOIN, HC_LAUNCH_ADDR_BASE=2) while the first's
#             sidecar sends garbage, including HCT headers of other jobs:
#             both jobs exact, other-job frames counted; B runs longer
#             than A, whose end must not end B's ranks
#   stale     a run of job J is captured (every HCT frame its ranks send,
#             for 6 s), then a new run of job J (secs + 4 s) gets those frames
#             replayed at 5 000/s for 3 s: exact, and the replayed frames counted
#             as stale at the rank they were addressed to (HELLOs of the
#             old run started more than init_timeout + 1 s = 7 s before
#             the new one: stale too)
#   forge     authenticated mode (hc-launch --auth): 2 ranks while the
#             sidecar sniffs their DATA and ACKs and sends forgeries of
#             them (job id, ranks, nonces and PSNs right, CRC32C right,
#             the tag random): exact, every forgery counted in
#             hct_bad_tag_rx at the rank it was sent to, hct_auth 1
#   strays.sh [CASE...] (default: all); exit 0 when all pass.
# A counter must show at least half of what its rank was sent and at most
# all of it (tap drops frames when its kernel queue overflows; a count
# above what was sent is a miscount).
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$root/build/bin
inj="python3 $root/tests/integration/hct_inject.py"
dir=$(mktemp -d /tmp/hc-strays.XXXXXX)
trap '[ -n "${HC_STRAYS_KEEP:-}" ] && echo "kept $dir" || rm -rf "$dir"' EXIT
printf '[engine]\ninit_timeout_ms = 6000\n' >"$dir/extra.ini"
bad=0
secs=${HC_STRAYS_SECONDS:-5}

fail() { echo "FAIL $*"; bad=1; }
ok() { echo "ok   $*"; }

# launch OUT ENV...: hc-launch -n 2 hc-check -s strays, output in OUT.
launch() {
	local out=$1
	shift
	env HC_LAUNCH_CONFIG_EXTRA="$dir/extra.ini" HC_LAUNCH_TIMEOUT=90 \
		HC_CHECK_SECONDS="$secs" "$@" "$bin/hc-launch" -n 2 \
		"$bin/hc-check" -s strays >"$out" 2>&1
	rc=$?
}

# field OUT RANK NAME: the value after NAME in rank RANK's strays line.
field() {
	awk -v r="$2" -v k="$3" '$2 == "strays:" && $4 == r {
		for (i = 5; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}
# sent OUT RANK KIND: frames of KIND the injector sent to rank RANK.
sent() {
	awk -v r="$2" -v k="$3" '$2 == "inject:" && $3 == "rank" && $4 == r {
		for (i = 5; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

# passed OUT WHAT: hc-check's verdict passed and hc-launch exited 0.
passed() {
	if [[ $rc -eq 0 ]] && grep -q '^\[0\] PASS strays' "$1" &&
		! grep -q '^\[0\] FAIL' "$1"; then
		ok "$2: every all-reduce exact ($(awk '$2 == "strays:" && $4 == 0 { print $6 }' "$1") all-reduces at rank 0)"
	else
		fail "$2: exit $rc"
		tail -30 "$1" | sed 's/^/    /'
	fi
}

# within WHAT GOT SENT: SENT/2 <= GOT <= SENT, SENT > 0.
within() {
	if [[ -z $2 || -z $3 ]]; then
		fail "$1: no figure (counted '${2}', sent '${3}')"
	elif ((${3} > 0 && 2 * ${2} >= ${3} && ${2} <= ${3})); then
		ok "$1: counted $2 of $3"
	else
		fail "$1: counted $2 of $3 (want $(( ${3} / 2 ))..$3)"
	fi
}

# flood_watch NS FILE: count, on the bridge of netns NS, the frames it
# forwards to the ports of job A's ranks (hct0, hct1) that are not
# addressed to them: a second job's unicast frames to a rank whose MAC the
# bridge has not learned yet are flooded to every port. hc-launch gives
# every rank its MAC in the cluster file, so B's first ranks say HELLO
# (every hello_interval_ms, 20) to peers that have not started yet, and
# those reach A as "MAC not ours" until B's last rank sends its first
# frame: how many depends on how far apart B's ranks start (1, 15 and 19
# frames in three runs on 2026-12-04; 22 made a CI run fail when this
# case allowed a fixed 20). Writes "RANK FRAMES" lines to FILE every
# 0.2 s while NS exists (A's launcher deletes it at its end).
flood_watch() {
	local ns=$1 file=$2
	ip netns exec "$ns" nft -f - <<-EOF || return 1
	table bridge hc_strays_floods {
	 chain floods {
	  type filter hook forward priority 0; policy accept;
	  oifname "hct0" ether daddr != { 02:00:c6:12:00:01, ff:ff:ff:ff:ff:ff } counter
	  oifname "hct1" ether daddr != { 02:00:c6:12:00:02, ff:ff:ff:ff:ff:ff } counter
	 }
	}
	EOF
	while ip netns exec "$ns" nft list chain bridge hc_strays_floods floods \
		>"$file.tmp" 2>/dev/null; do
		awk '/oifname "hct[0-9]+"/ { n = $2; gsub(/[^0-9]/, "", n)
			for (i = 1; i < NF; i++) if ($i == "packets") print n, $(i + 1) }' \
			"$file.tmp" >"$file.new" && mv "$file.new" "$file"
		sleep 0.2
	done
	rm -f "$file.tmp" "$file.new"
}

# check_garbage OUT JOB [FLOODS]: each rank's counters against what it
# was sent (and, in FLOODS, what flood_watch saw flooded to it).
check_garbage() {
	local out=$1 what=$2 floods=${3:-} r oj sh ve cr up et ic fl
	for r in 0 1; do
		oj=$(sent "$out" $r other_job)
		sh=$(sent "$out" $r short)
		ve=$(sent "$out" $r version)
		cr=$(sent "$out" $r crc)
		up=$(sent "$out" $r udp_port)
		et=$(sent "$out" $r ethertype)
		ic=$(sent "$out" $r ip_csum)
		within "$what rank $r other_job_rx" "$(field "$out" $r other_job)" "$oj"
		within "$what rank $r malformed_rx" "$(field "$out" $r malformed)" \
			"$((sh + ve))"
		within "$what rank $r crc_rx" "$(field "$out" $r crc)" "$cr"
		# net drops also count the frames of another job flooded to
		# this rank (flood_watch): within [half, sent + flooded]. ARP
		# requests and announcements of other stations are not drops.
		local nd
		nd=$(field "$out" $r net_drops)
		fl=0
		if [[ -n $floods ]]; then
			fl=$(awk -v r=$r '$1 == r { print $2 }' "$floods")
			if [[ -z $fl ]]; then
				fail "$what rank $r: no flood count in $floods"
				fl=0
			fi
		fi
		if [[ -n $nd ]] && ((2 * nd >= up + et + ic && nd <= up + et + ic + fl)); then
			ok "$what rank $r net_rx_drops: $nd for $((up + et + ic)) sent + $fl flooded"
		else
			fail "$what rank $r net_rx_drops: '$nd' for $((up + et + ic)) sent + $fl flooded"
		fi
	done
}

rate() { awk '$2 == "strays:" && $4 == 0 { printf "%.1f", $6 / $8 }' "$1"; }

cases=("$@")
((${#cases[@]})) || cases=(garbage twojobs stale forge)
for c in "${cases[@]}"; do
	case $c in
	garbage)
		launch "$dir/g0.txt"
		passed "$dir/g0.txt" "garbage (baseline, none sent)"
		launch "$dir/g1.txt" HC_LAUNCH_SIDECAR="$inj garbage --config \"\$HC_CONFIG\" --wait --rate 10000 --seconds ${HC_STRAYS_GARBAGE_SECONDS:-3}"
		passed "$dir/g1.txt" "garbage (10 000/s)"
		grep -E '\[s\] inject: [0-9]+ frames' "$dir/g1.txt" | sed 's/^/     /'
		check_garbage "$dir/g1.txt" garbage
		r0=$(rate "$dir/g0.txt")
		r1=$(rate "$dir/g1.txt")
		echo "     garbage: rank 0 all-reduces/s alone $r0, with garbage $r1," \
			"ratio $(awk -v a="$r1" -v b="$r0" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" \
			"(load $(cut -d' ' -f1 /proc/loadavg))"
		;;
	twojobs)
		env HC_LAUNCH_CONFIG_EXTRA="$dir/extra.ini" HC_LAUNCH_TIMEOUT=90 \
			HC_CHECK_SECONDS=$((secs + 3)) \
			HC_LAUNCH_SIDECAR="$inj garbage --config \"\$HC_CONFIG\" --wait --rate 10000 --seconds 4" \
			"$bin/hc-launch" -n 2 "$bin/hc-check" -s strays >"$dir/a.txt" 2>&1 &
		apid=$!	# env execs hc-launch: its namespace is hcl-$apid
		for ((t = 0; t < 100; t++)); do
			ip -n "hcl-$apid" link show hcbr0 >/dev/null 2>&1 && break
			sleep 0.1
		done
		flood_watch "hcl-$apid" "$dir/floods" &
		fpid=$!
		# B outlives A (secs + 6 s against secs + 3): A's launcher, at
		# its end, must leave B's ranks in its namespace alone (it once
		# killed every PID there: B's rank 0 SIGKILLed, exit 137).
		launch "$dir/b.txt" HC_LAUNCH_JOIN="hcl-$apid" HC_LAUNCH_ADDR_BASE=2 \
			HC_CHECK_SECONDS=$((secs + 6))
		brc=$rc
		wait "$apid"
		rc=$?
		wait "$fpid" || fail "twojobs: cannot count floods with nft"
		passed "$dir/a.txt" "twojobs job A (with garbage)"
		rc=$brc
		passed "$dir/b.txt" "twojobs job B (joined A's bridge)"
		check_garbage "$dir/a.txt" "twojobs A" "$dir/floods"
		if ip netns list | awk '{ print $1 }' | grep -qx "hcl-$apid"; then
			fail "twojobs: namespace hcl-$apid left behind"
		fi
		;;
	stale)
		job=$((SRANDOM % 2000000000 + 1))
		launch "$dir/s0.txt" HC_LAUNCH_JOB_ID=$job HC_CHECK_SECONDS=6 \
			HC_LAUNCH_SIDECAR="$inj capture --out $dir/cap --seconds 9 --max 20000"
		passed "$dir/s0.txt" "stale (first run, captured)"
		grep -E '\[s\] capture' "$dir/s0.txt" | sed 's/^/     /'
		# The replay (3 s) starts when both ranks answer a ping, which
		# can be seconds into their run on a busy host: the run lasts
		# secs + 4 s so that the replay ends before the ranks do.
		launch "$dir/s1.txt" HC_LAUNCH_JOB_ID=$job \
			HC_CHECK_SECONDS=$((secs + 4)) \
			HC_LAUNCH_SIDECAR="$inj replay --in $dir/cap --config \"\$HC_CONFIG\" --wait --rate 5000 --seconds 3"
		passed "$dir/s1.txt" "stale (second run, the first replayed)"
		grep -E '\[s\] (wait|replay: [0-9]+ frames)' "$dir/s1.txt" | sed 's/^/     /'
		for r in 0 1; do
			n=$(awk -v r=$r '$2 == "replay:" && $3 == "rank" && $4 == r { print $5 }' "$dir/s1.txt")
			within "stale rank $r stale_rx" "$(field "$dir/s1.txt" $r stale)" "$n"
		done
		;;
	forge)
		launch "$dir/f.txt" HC_LAUNCH_AUTH=1 \
			HC_LAUNCH_SIDECAR="$inj forge --config \"\$HC_CONFIG\" --wait --rate 5000 --seconds 3"
		passed "$dir/f.txt" "forge (authenticated mode)"
		grep -E '\[s\] forge: [0-9]+ frames' "$dir/f.txt" | sed 's/^/     /'
		for r in 0 1; do
			n=$(awk -v r=$r '$2 == "forge:" && $3 == "rank" && $4 == r { print $5 }' "$dir/f.txt")
			within "forge rank $r bad_tag_rx" "$(field "$dir/f.txt" $r bad_tag)" "$n"
			if [[ $(field "$dir/f.txt" $r auth) != 1 ]]; then
				fail "forge rank $r: hct_auth is not 1"
			fi
		done
		;;
	*) echo "strays.sh: unknown case '$c'"; exit 2 ;;
	esac
done
exit "$bad"
