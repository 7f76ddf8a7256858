#!/usr/bin/env bash
# c36.sh: field case C36 (shared/cases/CASES.md) over hc-launch on tap:
# every rank that is started fails hc_init with an error naming the
# problem, within the init timeout (5 s here):
#   rank_ge   2 ranks; the second runs as rank 2 (HC_RANK >= world_size):
#             it says "rank 2 is not below world_size 2", rank 0 names
#             rank 1 as never answering
#   bigger    2 ranks started, world_size 3 in the file: both name rank 2
#             as never answering ("were they all started?")
#   disagree  2 ranks; rank 1's file says world_size 3: both say "the
#             ranks disagree on the world size" (HELLO carries it)
#   dup       3 ranks started, the third as rank 1 again (its file puts
#             [rank.1] on tap hct2): rank 0 sees two nonces of rank 1
#             ("two processes run as rank 1"), each twin sees the other's
#             ARP with its own IP ("duplicate rank id 1"); rank 0
#             starts 1 s after the twins, who wait for it
#   c36.sh [CASE...]   (default: all four); exit 0 when all pass.
# Run by hc-launch as the rank program, with C36_MODE set, the script
# rewrites the rank's config (in the launcher's temp dir) and execs
# hc-check.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$root/build/bin

# ---- rank role: HC_RANK, HC_CONFIG from hc-launch; args: EAL -- hc-check
if [[ -n ${C36_MODE:-} ]]; then
	r=$HC_RANK
	cfg=$(dirname "$HC_CONFIG")/c36-$r.ini
	cp -- "$HC_CONFIG" "$cfg"
	add_rank2() {
		sed -i 's/^world_size = .*/world_size = 3/' "$cfg"
		printf '[rank.2]\nip = 198.18.0.3\nmac = 02:00:c6:12:00:03\n' >>"$cfg"
		printf 'port = net_tap0,iface=hct2\n' >>"$cfg"
	}
	case $C36_MODE in
	rank_ge) ((r == 1)) && export HC_RANK=2 ;;
	bigger) add_rank2 ;;
	disagree) ((r == 1)) && add_rank2 ;;
	dup)
		# Rank 0 starts 1 s late, after the twins have met each other
		# (the race a CI run lost): they must still be there to say
		# HELLO, so that rank 0 names the duplicate, not a timeout.
		((r == 0)) && sleep 1
		if ((r == 2)); then
			export HC_RANK=1
			awk '/^\[/ { sec = $0 }
			     sec == "[rank.1]" && /^port = / { $0 = "port = net_tap0,iface=hct2" }
			     { print }' "$HC_CONFIG" >"$cfg"
		fi
		;;
	esac
	export HC_CONFIG=$cfg
	# The edited cluster file says the world size: hc-launch's
	# HC_WORLD_SIZE (its own count) would contradict it, which the
	# bootstrap refuses before the ranks meet (HC_ERR_WORLD_SIZE).
	unset HC_WORLD_SIZE
	exec "$bin/hc-check" "$@"
fi

# ---- driver
extra=$(mktemp /tmp/hc-c36.XXXXXX)
out=$(mktemp /tmp/hc-c36-out.XXXXXX)
trap 'rm -f "$extra" "$out"' EXIT
printf '[engine]\ninit_timeout_ms = 5000\n' >"$extra"
bad=0

# run_case MODE N: hc-launch -n N under C36_MODE; output in $out.
run_case() {
	local t0=$SECONDS
	C36_MODE=$1 HC_LAUNCH_CONFIG_EXTRA=$extra HC_LAUNCH_TIMEOUT=60 \
		HC_LAUNCH_GRACE=10 "$bin/hc-launch" -n "$2" "$root/tests/integration/c36.sh" \
		-s quick >"$out" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
}

# expect R TEXT: rank R's lines (prefix "[R] ") contain TEXT.
expect() {
	if grep -F -- "[$1] " "$out" | grep -qF -- "$2"; then
		echo "ok   $mode: rank $1 says '$2'"
	else
		echo "FAIL $mode: rank $1 does not say '$2'"
		bad=1
	fi
}

# finish: the launch failed (hc_init failed everywhere) within the time.
finish() {
	if ((rc == 0 || rc == 124)); then
		echo "FAIL $mode: hc-launch exited $rc"
		bad=1
	fi
	if ((secs > 30)); then
		echo "FAIL $mode: took $secs s (init timeout 5 s)"
		bad=1
	fi
	if ((bad)); then
		sed 's/^/    /' "$out" | tail -30
	fi
	echo "     $mode: exit $rc after $secs s"
}

cases=("$@")
((${#cases[@]})) || cases=(rank_ge bigger disagree dup)
for mode in "${cases[@]}"; do
	case $mode in
	rank_ge)
		run_case rank_ge 2
		expect 1 "rank 2 (HC_RANK) is not below world_size 2"
		expect 0 "no answer within 5000 ms from rank(s) 1"
		;;
	bigger)
		run_case bigger 2
		expect 0 "no answer within 5000 ms from rank(s) 2"
		expect 0 "world_size is 3: were all 3 ranks started?"
		expect 1 "no answer within 5000 ms from rank(s) 2"
		expect 1 "world_size is 3: were all 3 ranks started?"
		;;
	disagree)
		run_case disagree 2
		expect 0 "world_size 2 here, 3 at rank 1: the ranks disagree"
		expect 1 "world_size 3 here, 2 at rank 0: the ranks disagree"
		;;
	dup)
		run_case dup 3
		expect 0 "two processes run as rank 1: duplicate rank id"
		expect 1 "duplicate rank id 1"
		expect 2 "duplicate rank id 1"
		;;
	*) echo "c36.sh: unknown case '$mode'"; exit 2 ;;
	esac
	finish
done
exit "$bad"
