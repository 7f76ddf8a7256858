#!/usr/bin/env bash
# launch_selftest.sh - self-test of apps/hc-launch/hc-launch.
#
# Usage: tests/integration/launch_selftest.sh [CASE...]     (as root)
#   Runs every case (or only the named ones), prints "PASS name",
#   "FAIL name" (then the reason, indented) or "SKIP name: why" per case
#   and a closing "N passed, N failed, N skipped" line; exits 0 only if
#   no case failed. Takes about 25 s.
#   HC_LAUNCH=path tests another copy of the launcher.
#
# Design:
# * The rank programs are small bash scripts written into a private work
#   dir, run with HC_LAUNCH_NO_EAL=1; one case (dpdk_testpmd) starts the
#   real dpdk-testpmd through the launcher's EAL arguments and checks that
#   it attaches to the pre-created tap hct<r>, a port of hcbr0.
# * Each case runs in a subshell with `set -e`, so an unexpected error
#   fails that case only. Every hc-launch is started in the background
#   (with SIGINT reset to default: bash starts background jobs with it
#   ignored, and the launcher could not trap it), its PID is appended to
#   $work/launchers, and it is waited for with a time limit: nothing can
#   hang, and a launcher over its limit is killed by PID.
# * After every launch the case checks that what the launcher made under
#   its PID is gone: netns hcl-<pid>, /var/run/dpdk/hc<pid>r*, the
#   hc-launch.<pid>.* temp dir. The final EXIT trap removes whatever a
#   failed case left of these (by the same names, for our launchers only)
#   and the work dir.
# * Rank processes are identified by the PID they report plus their
#   HC_NETNS in /proc/PID/environ, so a recycled PID is never mistaken for
#   a rank.

set -euo pipefail

here=$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")
repo=$(cd -- "$here/../.." && pwd)
LAUNCH=${HC_LAUNCH:-$repo/apps/hc-launch/hc-launch}
work=$(mktemp -d "${TMPDIR:-/tmp}/hcl-selftest.XXXXXX")
mkdir "$work/tmp"
: >"$work/launchers"
export TMPDIR=$work/tmp	# the launchers' temp dirs land here
case_pid=""	# the subshell running the current case

# ---------------------------------------------------------------- cleanup
final_cleanup() {
	local rc=$? p path ns left i
	set +e
	trap '' INT TERM
	if [[ -n $case_pid ]]; then
		kill -TERM "$case_pid" 2>/dev/null
		wait "$case_pid" 2>/dev/null
	fi
	while read -r p path; do
		[[ -n $p ]] || continue
		if launcher_running "$p" "$path"; then
			kill -TERM "$p" 2>/dev/null
			for ((i = 0; i < 100; i++)); do
				launcher_running "$p" "$path" || break
				sleep 0.1
			done
			launcher_running "$p" "$path" && kill -KILL "$p" 2>/dev/null
		fi
		ns=hcl-$p
		if [[ -e /run/netns/$ns ]]; then
			left=$(ip netns pids "$ns" 2>/dev/null)
			# shellcheck disable=SC2086 # one PID per word
			[[ -n $left ]] && kill -KILL $left 2>/dev/null
			ip netns del "$ns" 2>/dev/null
		fi
		rm -rf /var/run/dpdk/hc"$p"r*
	done <"$work/launchers"
	rm -rf -- "$work"
	exit "$rc"
}
trap final_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# launcher_running PID PATH: PID is still the hc-launch we started as PATH
# (its command line names PATH: a recycled PID is not taken for it).
launcher_running() {
	[[ -r /proc/$1/cmdline ]] &&
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# ---------------------------------------------------------------- helpers
# fail WHY: ends the current case (a subshell) as failed.
fail() {
	printf '    %s\n' "$*" >&2
	exit 1
}

# run_launch NAME LIMIT ARGS...: runs hc-launch ARGS in the background,
# output in $work/NAME.out and .err, for at most LIMIT seconds. Sets LPID
# and LRC (255 when it had to be killed) and checks it cleaned up.
run_launch() {
	local name=$1 limit=$2
	shift 2
	start_launch "$name" "$@"
	wait_launch "$limit"
	check_clean "$LPID"
}

start_launch() {
	local name=$1
	shift
	env --default-signal=INT "$LAUNCH" "$@" \
		>"$work/$name.out" 2>"$work/$name.err" </dev/null &
	LPID=$!
	echo "$LPID $LAUNCH" >>"$work/launchers"
	START=$EPOCHREALTIME
}

# wait_launch LIMIT: waits for launcher $LPID; sets LRC and ELAPSED (s).
wait_launch() {
	local limit=$1 timer who=""
	LRC=0
	sleep "$limit" &
	timer=$!
	wait -n -p who "$LPID" "$timer" 2>/dev/null || LRC=$?
	if [[ $who != "$LPID" ]] && ! launcher_running "$LPID" "$LAUNCH"; then
		# It died of a signal and bash dropped it from its job table
		# before `wait -n` looked; `wait PID` still has its status.
		LRC=0
		wait "$LPID" 2>/dev/null || LRC=$?
		who=$LPID
	fi
	if [[ $who != "$LPID" ]]; then
		if launcher_running "$LPID" "$LAUNCH"; then
			kill -TERM "$LPID"
			sleep 3
			if launcher_running "$LPID" "$LAUNCH"; then
				kill -KILL "$LPID"
			fi
		fi
		wait "$LPID" 2>/dev/null || true
		LRC=255
		fail "hc-launch (pid $LPID) still running after ${limit} s"
	fi
	kill "$timer" 2>/dev/null || true
	wait "$timer" 2>/dev/null || true
	ELAPSED=$(awk -v a="$START" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }')
}

# check_clean PID: nothing hc-launch PID made is left.
check_clean() {
	local p=$1 d
	if [[ -e /run/netns/hcl-$p ]]; then
		fail "netns hcl-$p left behind"
	fi
	for d in /var/run/dpdk/hc"$p"r* "$TMPDIR"/hc-launch."$p".*; do
		if [[ -e $d ]]; then
			fail "$d left behind"
		fi
	done
}

# expect_rc WANT: the last launcher exited with WANT.
expect_rc() {
	if [[ $LRC != "$1" ]]; then
		fail "exit status $LRC, want $1; stderr: $(tail -5 "$work/$NAME.err")"
	fi
}

# expect_line FILE LINE: FILE has LINE (fixed string, whole line).
expect_line() {
	if ! grep -qxF -- "$2" "$1"; then
		fail "no line '$2' in $(basename "$1"): $(head -c 600 "$1")"
	fi
}

# expect_usage WANT ARGS...: hc-launch ARGS is a usage error (exit 2)
# whose message holds WANT (fixed string).
expect_usage() {
	local want=$1
	shift
	run_launch usage 10 "$@"
	expect_rc 2
	grep -qF -- "$want" "$work/usage.err" ||
		fail "no '$want' in: $(head -c 600 "$work/usage.err")"
}

# rank_alive PID NS: PID is still a process of job netns NS.
rank_alive() {
	[[ -r /proc/$1/environ ]] &&
		tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null |
		grep -qxF "HC_NETNS=$2"
}

# wait_files N PATTERN LIMIT: waits until N files match PATTERN.
wait_files() {
	local n=$1 pat=$2 limit=$3 i f c
	for ((i = 0; i < limit * 10; i++)); do
		c=0
		for f in $pat; do
			[[ -s $f ]] && c=$((c + 1))
		done
		((c >= n)) && return 0
		sleep 0.1
	done
	fail "only $c of $n ranks reported within ${limit} s"
}

# prog NAME: writes stdin to an executable $work/NAME, prints its path.
prog() {
	cat >"$work/$1"
	chmod +x "$work/$1"
	printf '%s' "$work/$1"
}

# ini_get FILE SECTION KEY: value of KEY in [SECTION].
ini_get() {
	awk -v s="[$2]" -v k="$3" '
		/^[ \t]*;/ { next }
		/^\[/ { sec = $0; next }
		sec == s {
			i = index($0, "=")
			key = substr($0, 1, i - 1)
			gsub(/[ \t]/, "", key)
			if (i && key == k) {
				v = substr($0, i + 1)
				sub(/^[ \t]+/, "", v); sub(/[ \t]+$/, "", v)
				print v; exit
			}
		}' "$1"
}

# check_config FILE N MTU: the generated config is right for N ranks.
check_config() {
	local f=$1 n=$2 mtu=$3 r id
	id=$(ini_get "$f" job id)
	if ! [[ $id =~ ^[0-9]+$ ]] || ((id < 1 || id > 2147483647)); then
		fail "config: [job] id '$id'"
	fi
	# The exact text, rank sections in the documented address scheme.
	{
		printf '; generated by hc-launch\n[job]\nid = %s\n' "$id"
		printf 'world_size = %d\n[net]\nmtu = %d\n' "$n" "$mtu"
		for ((r = 0; r < n; r++)); do
			printf '[rank.%d]\nip = 198.18.%d.%d\n' "$r" \
				$((r / 250)) $((r % 250 + 1))
			# hc_addr_of_rank: 02:00 and the four bytes of the IP
			printf 'mac = 02:00:c6:12:%02x:%02x\n' $((r / 250)) \
				$((r % 250 + 1))
			printf 'port = net_tap0,iface=hct%d\n' "$r"
		done
	} >"$f.want"
	if ! head -n $((6 + 4 * n)) "$f" | cmp -s - "$f.want"; then
		fail "config differs: $(head -n $((6 + 4 * n)) "$f" |
			diff "$f.want" - | head -5)"
	fi
	[[ $(grep -c '^\[rank\.[0-9]*\]$' "$f") == "$n" ]] ||
		fail "config: $(grep -c '^\[rank\.' "$f") rank sections, want $n"
	[[ $(grep '^ip = ' "$f" | sort -u | wc -l) == "$n" ]] ||
		fail "config: ip lines not $n unique"
	[[ $(grep '^mac = ' "$f" | sort -u | wc -l) == "$n" ]] ||
		fail "config: mac lines not $n unique"
}

# ---------------------------------------------------------------- cases
case_help() {
	NAME=help
	run_launch help 10 --help
	expect_rc 0
	local v
	# (the HC_LAUNCH_* ones: every one the script reads, below)
	for v in HC_RANK HC_WORLD_SIZE HC_CONFIG HC_NETNS --config-only --mtu; do
		grep -qF -- "$v" "$work/help.out" || fail "--help lacks $v"
	done
	# Every HC_LAUNCH_* variable the launcher reads ("${HC_LAUNCH_X")
	# is listed under "Environment:" in --help.
	local read_vars
	read_vars=$(grep -o '\${HC_LAUNCH_[A-Z_]*' "$LAUNCH" | cut -c3- | sort -u)
	[[ -n $read_vars ]] || fail "found no \${HC_LAUNCH_ in $LAUNCH"
	for v in $read_vars; do
		grep -qE -- "^  $v( |=|\$)" "$work/help.out" ||
			fail "--help's Environment list lacks $v, which hc-launch reads"
	done
}

case_usage_errors() {
	NAME=usage
	run_launch usage 10 -n 0 true
	expect_rc 2
	run_launch usage 10 -n 2 --mtu 100 true
	expect_rc 2
	# af_packet is a PMD now (issue 11); an unknown name stays an error,
	# and so does an MTU above what one mbuf holds (HC_PORT_MTU_MAX).
	run_launch usage 10 -n 2 --pmd no_such_pmd true
	expect_rc 2
	run_launch usage 10 -n 2 --pmd af_packet --mtu 65001 true
	expect_rc 2
	run_launch usage 10 -n 2 --pmd tap --mtu 9001 true
	expect_rc 2
	run_launch usage 10 -n 2
	expect_rc 2
	run_launch usage 10 true
	expect_rc 2
	HC_LAUNCH_NO_EAL=1 run_launch usage 10 -n 2 hcl-no-such-program-xyz
	expect_rc 127
	grep -q "not found" "$work/usage.err" || fail "no 'not found' message"
	# Numbers past bash's 64-bit arithmetic, each 2^64 + a value that
	# would pass (it wrapped to that: -n 2^64 + 1 ran one rank), and a
	# group size that wrapped to 0 (bash's own "division by 0" before):
	# usage errors naming the option and the value.
	local c=$work/usage-cfg
	expect_usage "-n: '18446744073709551617' is not a rank count" \
		-n 18446744073709551617 --config-only "$c"
	expect_usage "--mtu: '18446744073709553116' is not an MTU" \
		-n 2 --mtu 18446744073709553116 --config-only "$c"
	HC_LAUNCH_GROUP_SIZE=18446744073709551616 expect_usage \
		"HC_LAUNCH_GROUP_SIZE: '18446744073709551616' is not a group size" \
		-n 2 --config-only "$c"
	HC_LAUNCH_ADDR_BASE=18446744073709551616 expect_usage \
		"HC_LAUNCH_ADDR_BASE: '18446744073709551616' is not an index" \
		-n 2 --config-only "$c"
	HC_LAUNCH_FLAP=18446744073709551617:1:1 expect_usage \
		"HC_LAUNCH_FLAP: '18446744073709551617:1:1' is not RANK" \
		-n 2 --config-only "$c"
	HC_LAUNCH_NFT_DROP_PCT=18446744073709551626 expect_usage \
		"HC_LAUNCH_NFT_DROP_PCT: '18446744073709551626' is not a percent" \
		-n 2 --config-only "$c"
	HC_LAUNCH_JOB_ID=18446744073709551617 expect_usage \
		"HC_LAUNCH_JOB_ID: '18446744073709551617' is not a job id" \
		-n 2 --config-only "$c"
	HC_LAUNCH_SHM_SLOTS=18446744073709551744 expect_usage \
		"HC_LAUNCH_SHM_SLOTS: '18446744073709551744' is not a power of 2" \
		-n 2 --pmd shm --config-only "$c"
	HC_LAUNCH_MEMIF_RSIZE=18446744073709551623 expect_usage \
		"HC_LAUNCH_MEMIF_RSIZE: '18446744073709551623' is not 1..14" \
		-n 2 --pmd memif --config-only "$c"
	HC_LAUNCH_NO_EAL=1 HC_LAUNCH_MEM_MB=18446744073709551616 expect_usage \
		"HC_LAUNCH_MEM_MB: '18446744073709551616' is not a size in MB" \
		-n 1 true
	# HC_LAUNCH_PIN is 0, 1 or unset: "yes" is no third mode.
	HC_LAUNCH_PIN=yes expect_usage "HC_LAUNCH_PIN: 'yes' is not 0 or 1" \
		-n 2 --pmd memif --config-only "$c"
	# So are the other switches: a typo is not read as the default.
	HC_LAUNCH_NO_EAL=yes expect_usage "HC_LAUNCH_NO_EAL: 'yes' is not 0 or 1" \
		-n 1 true
	HC_LAUNCH_HOSTFILE=true expect_usage \
		"HC_LAUNCH_HOSTFILE: 'true' is not 0 or 1" -n 2 --config-only "$c"
	HC_LAUNCH_LINEBUF=off expect_usage "HC_LAUNCH_LINEBUF: 'off' is not 0 or 1" \
		-n 2 --config-only "$c"
	HC_LAUNCH_AFP_KERNEL_RX=2 expect_usage \
		"HC_LAUNCH_AFP_KERNEL_RX: '2' is not 0 or 1" \
		-n 2 --pmd af_packet --config-only "$c"
	HC_LAUNCH_AUTH=yes expect_usage "HC_LAUNCH_AUTH: 'yes' is not 0 or 1" \
		-n 2 --auth --config-only "$c"
	# Leading zeros are decimal, however many: 010 is ten, not octal 8.
	HC_LAUNCH_GROUP_SIZE=010 run_launch usage 10 \
		-n 0000000000000000000012 --config-only "$c"
	expect_rc 0
	[[ $(ini_get "$c/hc.ini" job world_size) == 12 &&
		$(ini_get "$c/hc.ini" rank.9 group) == 0 &&
		$(ini_get "$c/hc.ini" rank.10 group) == 1 ]] ||
		fail "-n 00...012, HC_LAUNCH_GROUP_SIZE=010: $(grep -E \
			'world_size|group' "$c/hc.ini" | tr '\n' ' ')"
}

case_config_only() {
	NAME=cfg
	local f=$work/cfg-extra.ini
	printf '[transport]\nwindow_pkts = 64\n[fault]\nseed = 7\n' >"$f"
	HC_LAUNCH_CONFIG_EXTRA=$f run_launch cfg 20 -n 300 --mtu 9000 \
		--config-only "$work/cfgdir"
	expect_rc 0
	check_config "$work/cfgdir/hc.ini" 300 9000
	[[ $(tail -4 "$work/cfgdir/hc.ini") == "$(cat "$f")" ]] ||
		fail "HC_LAUNCH_CONFIG_EXTRA not appended at the end"
	expect_line "$work/cfgdir/hc.ini" "ip = 198.18.1.1"	# rank 250
	expect_line "$work/cfgdir/hc.ini" "mac = 02:00:c6:12:01:32" # rank 299
	# Default MTU, and a job id that differs between runs.
	run_launch cfg 10 -n 1 --config-only "$work/cfgdir2"
	expect_rc 0
	check_config "$work/cfgdir2/hc.ini" 1 1500
	HC_LAUNCH_CONFIG_EXTRA=$work/none run_launch cfg 10 -n 1 \
		--config-only "$work/cfgdir3"
	expect_rc 2
}

# --pmd virtio: the launcher's [transport] bdp_bytes (launch_transport_keys)
# merged into the extra config's [transport] section, a section of its own
# without one, and the extra config's own value kept; none on tap; memif
# and shm with more ranks than CPUs: ring slots x MTU / 3 within
# 100000..400000, none with a CPU per rank.
case_fabric_keys() {
	NAME=fabric
	local f=$work/fabric-extra.ini g=$work/fabric-own.ini c n
	printf '[engine]\nidle = yield\n[transport]\nwindow_pkts = 64\n[fault]\nseed = 7\n' >"$f"
	printf '[transport]\nbdp_bytes = 250000\n' >"$g"
	HC_LAUNCH_CONFIG_EXTRA=$f run_launch fabric 20 -n 2 --pmd virtio \
		--config-only "$work/fab1"
	expect_rc 0
	c=$work/fab1/hc.ini
	[[ $(ini_get "$c" transport bdp_bytes) == 1000000 ]] ||
		fail "virtio: bdp_bytes '$(ini_get "$c" transport bdp_bytes)', want 1000000"
	[[ $(ini_get "$c" transport window_pkts) == 64 ]] || fail "window_pkts lost"
	[[ $(ini_get "$c" fault seed) == 7 ]] || fail "[fault] seed lost"
	n=$(grep -c '^\[transport\]$' "$c")
	((n == 1)) || fail "$n [transport] sections"
	HC_LAUNCH_CONFIG_EXTRA=$g run_launch fabric 20 -n 2 --pmd virtio \
		--config-only "$work/fab2"
	expect_rc 0
	[[ $(ini_get "$work/fab2/hc.ini" transport bdp_bytes) == 250000 ]] ||
		fail "virtio: the extra config's bdp_bytes 250000 not kept"
	[[ $(grep -c '^bdp_bytes' "$work/fab2/hc.ini") == 1 ]] ||
		fail "bdp_bytes given twice"
	run_launch fabric 20 -n 2 --pmd virtio --config-only "$work/fab3"
	expect_rc 0
	[[ $(ini_get "$work/fab3/hc.ini" transport bdp_bytes) == 1000000 ]] ||
		fail "virtio without extra config: no [transport] bdp_bytes"
	run_launch fabric 20 -n 2 --pmd tap --config-only "$work/fab4"
	expect_rc 0
	! grep -q '^\[transport\]' "$work/fab4/hc.ini" ||
		fail "tap: a [transport] section the user did not give"
	# memif and shm with more ranks than CPUs: bdp_bytes = ring slots x
	# MTU / 3, within 100000..400000; none with a CPU per rank.
	local over=$(($(nproc) + 1)) want got
	fabric_bdp() {	# WANT PMD-ARGS...: the generated bdp_bytes is WANT
		want=$1
		shift
		rm -rf "$work/fab5"
		run_launch fabric 20 "$@" --config-only "$work/fab5"
		expect_rc 0
		got=$(ini_get "$work/fab5/hc.ini" transport bdp_bytes)
		[[ $got == "$want" ]] ||
			fail "$*: bdp_bytes '$got', want '$want'"
	}
	fabric_bdp 384000 -n $over --pmd memif
	fabric_bdp 384000 -n $over --pmd shm
	fabric_bdp 100000 -n $over --pmd memif --mtu 1500
	fabric_bdp 400000 -n $over --pmd memif --mtu 16000
	HC_LAUNCH_SHM_SLOTS=64 fabric_bdp 192000 -n $over --pmd shm
	HC_LAUNCH_MEMIF_RSIZE=5 fabric_bdp 100000 -n $over --pmd memif
	fabric_bdp "" -n 1 --pmd memif
	# af_packet: 1000000 at every MTU, an extra config's own value kept.
	fabric_bdp 1000000 -n 2 --pmd af_packet
	fabric_bdp 1000000 -n 2 --pmd af_packet --mtu 1500
	HC_LAUNCH_CONFIG_EXTRA=$g fabric_bdp 250000 -n 2 --pmd af_packet
	HC_LAUNCH_CONFIG_EXTRA=$g fabric_bdp 250000 -n $over --pmd memif
}

# af_packet's PACKET_MMAP rings by MTU (hc-launch's header, "af_packet"):
# the PMD's defaults up to MTU 1968, above it slots of MTU + 80 bytes
# rounded up to 256 (the kernel writes a frame at offset 66 of its slot),
# 16 slots per block, about 8 MiB of slots; the default MTU is 65000.
case_afp_rings() {
	NAME=afp
	afp_port() {	# WANT-MTU WANT-RINGS ARGS...
		local want_mtu=$1 want=$2 c
		shift 2
		rm -rf "$work/afp"
		run_launch afp 20 -n 2 --pmd af_packet "$@" --config-only "$work/afp"
		expect_rc 0
		c=$work/afp/hc.ini
		[[ $(ini_get "$c" net mtu) == "$want_mtu" ]] ||
			fail "af_packet $*: mtu '$(ini_get "$c" net mtu)', want $want_mtu"
		[[ $(ini_get "$c" rank.1 port) == "net_af_packet0,iface=hcp1,qpairs=1,qdisc_bypass=1,$want" ]] ||
			fail "af_packet $*: port '$(ini_get "$c" rank.1 port)', want ...,$want"
	}
	afp_port 65000 blocksz=1044480,framesz=65280,framecnt=128
	afp_port 1500 blocksz=4096,framesz=2048,framecnt=2048 --mtu 1500
	afp_port 1968 blocksz=4096,framesz=2048,framecnt=2048 --mtu 1968
	afp_port 1969 blocksz=36864,framesz=2304,framecnt=3648 --mtu 1969
	afp_port 9000 blocksz=147456,framesz=9216,framecnt=912 --mtu 9000
}

case_prefix() {
	NAME=prefix
	local p r
	p=$(prog prefix.sh <<'EOF'
#!/bin/bash
echo "out one $HC_RANK"
echo "err one $HC_RANK" >&2
printf 'out two %s\nout three %s\n' "$HC_RANK" "$HC_RANK"
EOF
	)
	HC_LAUNCH_NO_EAL=1 run_launch prefix 30 -n 3 "$p"
	expect_rc 0
	for r in 0 1 2; do
		expect_line "$work/prefix.out" "[$r] out one $r"
		expect_line "$work/prefix.out" "[$r] out two $r"
		expect_line "$work/prefix.out" "[$r] out three $r"
		expect_line "$work/prefix.err" "[$r] err one $r"
	done
	[[ $(wc -l <"$work/prefix.out") == 9 ]] ||
		fail "stdout has $(wc -l <"$work/prefix.out") lines, want 9"
	if grep -qv '^\[[0-2]\] ' "$work/prefix.out"; then
		fail "unprefixed stdout line"
	fi
}

case_env_config() {
	NAME="env"
	local p r ns f
	p=$(prog env.sh <<'EOF'
#!/bin/bash
set -e
o=$OUT/rank$HC_RANK
{
	echo "rank=$HC_RANK size=$HC_WORLD_SIZE local=$HC_LOCAL_RANK"
	echo "netns=$HC_NETNS"
	echo "config=$HC_CONFIG"
	echo "links=$(ls /sys/class/net | tr '\n' ' ')"
	echo "ports=$(ip -o link show master hcbr0 | awk '{print $2}' | tr -d ':' | sort | tr '\n' ' ')"
	echo "bridge=$(ip -o -4 addr show dev hcbr0 | awk '{print $4}')"
	echo "brmtu=$(cat /sys/class/net/hcbr0/mtu)"
	echo "tapmtu=$(cat /sys/class/net/hct$HC_RANK/mtu)"
	echo "route=$(ip -o route get 198.18.0.2 | awk '{print $3}')"
	ip -d link show "hct$HC_RANK" | grep -o 'tun type tap.*persist on' | sed 's/^/tap=/'
	echo "args=$*"
} >"$o.env"
cp "$HC_CONFIG" "$o.ini"
EOF
	)
	mkdir "$work/env"
	OUT=$work/env HC_LAUNCH_NO_EAL=1 run_launch env 30 -n 4 --mtu 9000 \
		"$p" x -- y
	expect_rc 0
	ns=hcl-$LPID
	for r in 0 1 2 3; do
		f=$work/env/rank$r.env
		[[ -s $f ]] || fail "rank $r wrote nothing"
		expect_line "$f" "rank=$r size=4 local=$r"
		expect_line "$f" "netns=$ns"
		expect_line "$f" "links=hcbr0 hct0 hct1 hct2 hct3 lo "
		expect_line "$f" "ports=hct0 hct1 hct2 hct3 "
		expect_line "$f" "bridge=198.19.255.254/15"
		expect_line "$f" "brmtu=9000"
		expect_line "$f" "tapmtu=9000"
		expect_line "$f" "route=hcbr0"
		expect_line "$f" "args=x -- y"
		grep -q '^tap=tun type tap .*multi_queue.*persist on$' "$f" ||
			fail "hct$r is not a persistent multi_queue tap: $(cat "$f")"
		cmp -s "$work/env/rank$r.ini" "$work/env/rank0.ini" ||
			fail "rank $r saw another config"
	done
	[[ $(grep -h '^config=' "$work"/env/rank*.env | sort -u | wc -l) == 1 ]] ||
		fail "ranks got different HC_CONFIG paths"
	grep -q "^config=$TMPDIR/hc-launch\.$LPID\..*/hc\.ini\$" \
		"$work/env/rank0.env" || fail "HC_CONFIG not in a private temp dir"
	check_config "$work/env/rank0.ini" 4 9000
}

case_eal_args() {
	NAME=eal
	local p r
	p=$(prog args.sh <<'EOF'
#!/bin/bash
printf 'ARGS'
printf ' <%s>' "$@"
echo
EOF
	)
	HC_LAUNCH_MEM_MB=128 HC_LAUNCH_LOG_LEVEL=debug \
		run_launch eal 30 -n 2 "$p" a b
	expect_rc 0
	for r in 0 1; do
		expect_line "$work/eal.out" "[$r] ARGS <--no-huge> <-m> <128> <--no-pci> <--file-prefix> <hc${LPID}r$r> <--lcores> <0@(0-1),1@(0-1)> <--log-level=debug> <--no-telemetry> <--> <a> <b>"
	done
	run_launch eal 30 -n 2 "$p" --vdev=net_null0 -- a -- b
	expect_rc 0
	for r in 0 1; do
		expect_line "$work/eal.out" "[$r] ARGS <--no-huge> <-m> <256> <--no-pci> <--file-prefix> <hc${LPID}r$r> <--lcores> <0@(0-1),1@(0-1)> <--log-level=warning> <--no-telemetry> <--vdev=net_null0> <--> <a> <--> <b>"
	done
	HC_LAUNCH_NO_EAL=1 run_launch eal 30 -n 1 "$p" a -- b
	expect_rc 0
	expect_line "$work/eal.out" "[0] ARGS <a> <--> <b>"
}

# memif with more ranks than CPUs: HC_LAUNCH_PIN=1 puts rank r on CPU r
# mod nproc (r alone when n <= nproc), 0 lets them float; unset, the
# launcher samples /proc/stat and pins only when the CPUs are idle, so a
# CPU hog (a busy loop of ours, ended by PID) makes the ranks float.
case_memif_pin() {
	NAME=pin
	local p r ncpu n hog want busy
	ncpu=$(nproc)
	n=$((ncpu + 1))
	p=$(prog args.sh <<'EOF'
#!/bin/bash
printf 'ARGS'
printf ' <%s>' "$@"
echo
EOF
	)
	HC_LAUNCH_PIN=1 run_launch pin 30 -v --pmd memif -n "$n" "$p"
	expect_rc 0
	expect_line "$work/pin.err" "hc-launch: memif: pin ranks to CPUs: 2"
	for ((r = 0; r < n; r++)); do
		grep -F "[$r] ARGS " "$work/pin.out" |
			grep -qF "<--lcores> <0@$((r % ncpu))>" ||
			fail "rank $r not on CPU $((r % ncpu)): $(grep -F "[$r] ARGS" "$work/pin.out")"
	done
	HC_LAUNCH_PIN=0 run_launch pin 30 -v --pmd memif -n "$n" "$p"
	expect_rc 0
	expect_line "$work/pin.err" "hc-launch: memif: pin ranks to CPUs: 0"
	grep -qF "<--lcores> <0@(0-$((ncpu - 1)))>" "$work/pin.out" ||
		fail "HC_LAUNCH_PIN=0: ranks not floating"
	# unset, idle or not: the choice follows the sample it prints
	run_launch pin 30 -v --pmd memif -n "$n" "$p"
	expect_rc 0
	busy=$(sed -nE 's/^hc-launch: memif: CPUs busy over 0.2 s: ([0-9]+) % of one CPU$/\1/p' "$work/pin.err")
	[[ -n $busy ]] || fail "no CPU sample in: $(head -c 600 "$work/pin.err")"
	want=$((busy < 25 ? 2 : 0))
	expect_line "$work/pin.err" "hc-launch: memif: pin ranks to CPUs: $want"
	# a busy CPU: float
	sh -c 'while :; do :; done' &
	hog=$!
	run_launch pin 30 -v --pmd memif -n "$n" "$p"
	kill "$hog"
	wait "$hog" 2>/dev/null || true
	expect_rc 0
	expect_line "$work/pin.err" "hc-launch: memif: pin ranks to CPUs: 0"
}

case_exit_status() {
	NAME="exit"
	local p
	p=$(prog exit.sh <<'EOF'
#!/bin/bash
case "$MODE:$HC_RANK" in
one:2) exit 3 ;;
order:1) sleep 3; exit 5 ;;  # 3 s: rank 3 must end first even under load
order:3) exit 7 ;;
segv:1) kill -SEGV $$ ;;
esac
exit 0
EOF
	)
	export HC_LAUNCH_NO_EAL=1
	MODE=one run_launch exit 30 -n 4 "$p"
	expect_rc 3
	grep -q 'rank 2 .*status 3' "$work/exit.err" ||
		fail "no 'rank 2 ... status 3' on stderr: $(cat "$work/exit.err")"
	MODE=order run_launch exit 30 -n 4 "$p"
	expect_rc 7
	MODE=segv run_launch exit 30 -n 2 "$p"
	expect_rc 139
	MODE=none run_launch exit 30 -n 4 "$p"
	expect_rc 0
	[[ ! -s $work/exit.err ]] || fail "stderr on success: $(cat "$work/exit.err")"
}

case_grace_kill() {
	NAME=grace
	local p f pid ns
	p=$(prog grace.sh <<'EOF'
#!/bin/bash
echo "$$" >"$OUT/pid.$HC_RANK"
case $HC_RANK in
0) while [[ ! -s $OUT/pid.1 || ! -s $OUT/pid.2 ]]; do sleep 0.05; done
   exit 4 ;;
1) exec sleep 300 ;;
2) trap '' TERM; while :; do sleep 0.1; done ;;
esac
EOF
	)
	mkdir "$work/grace"
	OUT=$work/grace HC_LAUNCH_NO_EAL=1 HC_LAUNCH_GRACE=1 \
		run_launch grace 30 -n 3 "$p"
	expect_rc 4
	ns=hcl-$LPID
	# 1 s grace, SIGTERM, SIGKILL 2 s later (rank 2 ignores SIGTERM).
	awk -v e="$ELAPSED" 'BEGIN { exit !(e >= 2.5 && e < 20) }' ||
		fail "took $ELAPSED s, want about 3"
	grep -q 'rank 0 .*status 4' "$work/grace.err" ||
		fail "no 'rank 0 ... status 4' on stderr: $(cat "$work/grace.err")"
	for f in "$work"/grace/pid.*; do
		pid=$(<"$f")
		if rank_alive "$pid" "$ns"; then
			fail "rank pid $pid still running"
		fi
	done
}

# signal_case NAME SIG WANT_RC: SIG to hc-launch mid-run ends everything.
signal_case() {
	NAME=$1
	local sig=$2 want=$3 p f pid ns cfg r
	p=$(prog sig.sh <<'EOF'
#!/bin/bash
trap 'echo "got INT"; exit 7' INT
trap 'echo "got TERM"; exit 8' TERM
echo "$$ $HC_NETNS $HC_CONFIG" >"$OUT/pid.$HC_RANK"
while :; do sleep 0.1; done
EOF
	)
	mkdir "$work/$NAME"
	OUT=$work/$NAME HC_LAUNCH_NO_EAL=1 HC_LAUNCH_TIMEOUT=60 \
		start_launch "$NAME" -n 3 "$p"
	wait_files 3 "$work/$NAME/pid.*" 20
	read -r pid ns cfg <"$work/$NAME/pid.0"
	[[ $ns == "hcl-$LPID" && -e /run/netns/$ns ]] ||
		fail "netns $ns not there while running"
	[[ -f $cfg ]] || fail "config $cfg not there while running"
	kill -s "$sig" "$LPID"
	wait_launch 20
	expect_rc "$want"
	check_clean "$LPID"
	if ip netns list | grep -qw "$ns"; then
		fail "ip netns list still shows $ns"
	fi
	[[ ! -e $(dirname "$cfg") ]] || fail "temp dir $(dirname "$cfg") left"
	for f in "$work/$NAME"/pid.*; do
		read -r pid ns cfg <"$f"
		if rank_alive "$pid" "$ns"; then
			fail "rank pid $pid still running"
		fi
	done
	for r in 0 1 2; do
		expect_line "$work/$NAME.out" "[$r] got $sig"
	done
}
case_sigint() { signal_case sigint INT 130; }
case_sigterm() { signal_case sigterm TERM 143; }

# A SIGKILLed launcher (no trap can run) still takes its ranks with it
# (parent-death signal); its namespace and temp dir are removed here.
case_sigkill() {
	NAME=sigkill
	local p f pid ns i
	p=$(prog kill.sh <<'EOF'
#!/bin/bash
echo "$$ $HC_NETNS" >"$OUT/pid.$HC_RANK"
exec sleep 300
EOF
	)
	mkdir "$work/sigkill"
	OUT=$work/sigkill HC_LAUNCH_NO_EAL=1 HC_LAUNCH_TIMEOUT=60 \
		start_launch sigkill -n 2 "$p"
	wait_files 2 "$work/sigkill/pid.*" 20
	kill -KILL "$LPID"
	wait "$LPID" 2>/dev/null || true
	for f in "$work"/sigkill/pid.*; do
		read -r pid ns <"$f"
		for ((i = 0; i < 50; i++)); do
			rank_alive "$pid" "$ns" || break
			sleep 0.1
		done
		if rank_alive "$pid" "$ns"; then
			fail "rank pid $pid outlived its SIGKILLed launcher"
		fi
	done
	ip netns del "hcl-$LPID" 2>/dev/null || true
	rm -rf /var/run/dpdk/hc"$LPID"r* "$TMPDIR"/hc-launch."$LPID".*
}

# Rank 0 reads the launcher's stdin, the others /dev/null; a closed stdin
# is no error.
case_stdin() {
	NAME=stdin
	local p
	p=$(prog stdin.sh <<'EOF'
#!/bin/bash
read -r l || l=EOF
echo "in=$l"
EOF
	)
	env --default-signal=INT HC_LAUNCH_NO_EAL=1 "$LAUNCH" -n 2 "$p" \
		>"$work/stdin.out" 2>"$work/stdin.err" <<<"hello" &
	LPID=$!
	echo "$LPID $LAUNCH" >>"$work/launchers"
	START=$EPOCHREALTIME
	wait_launch 30
	check_clean "$LPID"
	expect_rc 0
	expect_line "$work/stdin.out" "[0] in=hello"
	expect_line "$work/stdin.out" "[1] in=EOF"
	env --default-signal=INT HC_LAUNCH_NO_EAL=1 "$LAUNCH" -n 2 "$p" \
		>"$work/stdin.out" 2>"$work/stdin.err" <&- &
	LPID=$!
	echo "$LPID $LAUNCH" >>"$work/launchers"
	START=$EPOCHREALTIME
	wait_launch 30
	check_clean "$LPID"
	expect_rc 0
	expect_line "$work/stdin.out" "[0] in=EOF"
}

case_timeout() {
	NAME=timeout
	HC_LAUNCH_NO_EAL=1 HC_LAUNCH_TIMEOUT=2 run_launch timeout 30 -n 2 \
		sleep 300
	expect_rc 124
	awk -v e="$ELAPSED" 'BEGIN { exit !(e >= 1.5 && e < 20) }' ||
		fail "took $ELAPSED s, want about 2"
}

# A launcher reached through a symlink finds programs in <repo>/build/bin
# of the repo it really lives in.
case_build_bin() {
	NAME=buildbin
	local fake=$work/fakerepo
	mkdir -p "$fake/apps/hc-launch" "$fake/build/bin" "$work/bin"
	cp "$LAUNCH" "$fake/apps/hc-launch/hc-launch"
	ln -s "$fake/apps/hc-launch/hc-launch" "$work/bin/hcl-link"
	# shellcheck disable=SC2016 # $HC_RANK is for the rank's shell
	printf '#!/bin/bash\necho "found $HC_RANK"\n' >"$fake/build/bin/hcl-prog"
	chmod +x "$fake/build/bin/hcl-prog"
	local LAUNCH=$work/bin/hcl-link
	HC_LAUNCH_NO_EAL=1 run_launch buildbin 30 -n 2 hcl-prog
	expect_rc 0
	expect_line "$work/buildbin.out" "[0] found 0"
	expect_line "$work/buildbin.out" "[1] found 1"
}

# Real DPDK: dpdk-testpmd started with the launcher's EAL args attaches to
# the pre-created tap hct<r>, which is a forwarding port of hcbr0.
case_dpdk_testpmd() {
	NAME=testpmd
	if ! command -v dpdk-testpmd >/dev/null; then
		echo "SKIP"
		return 0
	fi
	local p r
	p=$(prog testpmd.sh <<'EOF'
#!/bin/bash
# Rank program: dpdk-testpmd on hct$HC_RANK with the launcher's EAL args
# (testpmd needs a second lcore for forwarding: the --lcores value is
# widened). It waits for "enter" on stdin, which we send once the tap
# checks are done.
set -u
r=$HC_RANK
args=() prev="" prefix=""
for a in "$@"; do
	[[ $prev == --lcores ]] && a='0@(0-1),1@(0-1)'
	[[ $prev == --file-prefix ]] && prefix=$a
	args+=("$a")
	prev=$a
done
d=$(mktemp -d)
mkfifo "$d/in"
dpdk-testpmd "--vdev=net_tap0,iface=hct$r" "${args[@]}" <"$d/in" &
tp=$!
exec 5>"$d/in"
ok=0
for ((i = 0; i < 300; i++)); do
	if [[ $(cat "/sys/class/net/hct$r/carrier" 2>/dev/null) == 1 &&
		$(cat "/sys/class/net/hct$r/brport/state" 2>/dev/null) == 3 ]]; then
		ok=1
		break
	fi
	kill -0 "$tp" 2>/dev/null || break
	sleep 0.1
done
master=$(basename "$(readlink "/sys/class/net/hct$r/master")")
attached=$(ip tuntap show | grep -c "^hct$r: .*multi_queue")
rt=no
[[ -d /var/run/dpdk/$prefix ]] && rt=yes
echo "CHECK hct$r carrier_forwarding=$ok master=$master rtdir=$rt"
echo >&5
exec 5>&-
wait "$tp"
st=$?
rm -rf "$d"
((ok)) || exit 99
exit "$st"
EOF
	)
	HC_LAUNCH_TIMEOUT=90 run_launch testpmd 120 -n 2 "$p" \
		--total-num-mbufs=2048
	expect_rc 0
	for r in 0 1; do
		expect_line "$work/testpmd.out" \
			"[$r] CHECK hct$r carrier_forwarding=1 master=hcbr0 rtdir=yes"
		grep -qxF "[$r] Bye..." "$work/testpmd.out" ||
			fail "rank $r testpmd did not exit cleanly"
	done
}

# ---------------------------------------------------------------- main
all=(help usage_errors config_only fabric_keys afp_rings prefix env_config eal_args memif_pin exit_status
	grace_kill sigint sigterm sigkill stdin timeout build_bin dpdk_testpmd)
if (($#)); then
	cases=("$@")
else
	cases=("${all[@]}")
fi
if (($(id -u) != 0)); then
	echo "launch_selftest: needs root" >&2
	exit 1
fi
[[ -x $LAUNCH ]] || { echo "launch_selftest: no $LAUNCH" >&2; exit 1; }

npass=0
nfail=0
nskip=0
for c in "${cases[@]}"; do
	if ! declare -F "case_$c" >/dev/null; then
		echo "launch_selftest: no case '$c' (cases: ${all[*]})" >&2
		exit 2
	fi
	# A file, not $( ): a background process left by a failed case must not
	# keep us waiting for the end of a pipe.
	# In the background, so that a signal to us is acted on at once (bash
	# runs a trap only once the foreground command is over).
	set +e
	(
		# Killed: end our launchers and timers (they clean up after
		# themselves on SIGTERM).
		trap 'kill $(jobs -p) 2>/dev/null; exit 143' TERM
		set -e
		"case_$c"
	) >"$work/case.log" 2>&1 &
	case_pid=$!
	wait "$case_pid"
	rc=$?
	case_pid=""
	set -e
	if ((rc == 0)) && [[ $(head -c 4 "$work/case.log") == SKIP ]]; then
		echo "SKIP $c: dpdk-testpmd not installed"
		nskip=$((nskip + 1))
	elif ((rc == 0)); then
		echo "PASS $c"
		npass=$((npass + 1))
	else
		echo "FAIL $c"
		sed 's/^/    /' "$work/case.log"
		nfail=$((nfail + 1))
	fi
done
echo "$npass passed, $nfail failed, $nskip skipped"
((nfail == 0))
