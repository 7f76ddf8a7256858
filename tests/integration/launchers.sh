#!/usr/bin/env bash
# launchers.sh: ranks started by other launchers, bootstrapped from their
# environment and a host file (README "Launchers"). `hc-launch -n 4
# --setup-only` makes the namespace, bridge and taps and the host file
# ([local.0..3]); then, each inside that namespace:
#   mpirun-n4     Open MPI's mpirun -n 4 hc-perf -c 1 (OMPI_COMM_WORLD_*,
#                 rendezvous at the default 127.0.0.1:29501)
#   torchrun-n4   python3 -m torch.distributed.run --no-python
#                 --nproc-per-node 4 hc-perf -c 1 (RANK, WORLD_SIZE,
#                 LOCAL_RANK, MASTER_ADDR 127.0.0.1, MASTER_PORT + 1)
# and the error cases, under mpirun with [engine] init_timeout_ms = 4000,
# each asserting the named error (hc_strerror's text) from every rank
# started:
#   missing       3 ranks started, HC_WORLD_SIZE=4: "peers missing at init"
#   world-size    rank 3 with HC_WORLD_SIZE=5: "ranks disagree on the world size"
#   addr-clash    rank 2 with HC_LOCAL_RANK=1 (rank 1's IP and MAC): "address in use"
#   port-clash    another program listens on the rendezvous port: "address in use"
# and last the teardown: namespace, set-up folder and the ranks' EAL
# runtime folder (/var/run/dpdk/hcs<pid>) gone.
# Prints PASS/FAIL per case; exit 0 only when all passed. The EXIT trap
# ends the squatter by PID and runs hc-launch --teardown (if the last
# case has not).
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$root/build/bin
log=$(mktemp -d /tmp/hc-launchers.XXXXXX)
fails=0
squat_pid=""
HC_TEARDOWN=""
cleanup() {
	[ -n "$squat_pid" ] && kill "$squat_pid" 2>/dev/null && wait "$squat_pid" 2>/dev/null
	[ -n "$HC_TEARDOWN" ] && $HC_TEARDOWN
	if [ -n "${HC_TEST_KEEP_LOGS:-}" ]; then echo "logs kept in $log"; else rm -rf -- "$log"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT	# so that cleanup runs
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if ! "$bin/hc-launch" -n 4 --setup-only >"$log/setup" 2>"$log/setup.err"; then
	cat "$log/setup.err"
	echo "FAIL launchers: hc-launch --setup-only"
	exit 1
fi
eval "$(grep -v '^#' "$log/setup")"
for v in HC_SETUP_DIR HC_NETNS HC_CONFIG HC_EAL_ARGS HC_TEARDOWN; do
	[ -n "${!v:-}" ] || { fail "setup-only printed no $v"; exit 1; }
done
ip netns list | grep -q "^$HC_NETNS\b" && [ -f "$HC_CONFIG" ] &&
	grep -q '^\[local.3\]' "$HC_CONFIG" && ! grep -q '^\[rank\.' "$HC_CONFIG" &&
	pass "setup-only: $HC_NETNS, host file with [local.0..3]" ||
	fail "setup-only: namespace or host file missing"
# A host file with a short init timeout for the error cases.
short=$HC_SETUP_DIR/hosts-short.ini
{ cat "$HC_CONFIG"; printf '[engine]\ninit_timeout_ms = 4000\n'; } >"$short"

# shellcheck disable=SC2206 # the EAL args are words
eal=($HC_EAL_ARGS)
perf_args=(-b 8 -e 1M -f 8 -c 1 -n 3 -w 1)
mpirun=(mpirun --allow-run-as-root --oversubscribe --tag-output
	--mca btl self --mca pml ^ucx)
nsx() { ip netns exec "$HC_NETNS" "$@"; }

# check_perf NAME OUT RC: rank 0's nccl-tests table, #wrong 0 everywhere.
check_perf() {
	local name=$1 out=$2 rc=$3 rows bad
	rows=$(grep -cE '^ +[0-9]+ +[0-9]+ ' "$out")
	bad=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$out" | awk '$9 != "0" || $13 != "0"' | wc -l)
	if [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] &&
		grep -q '# Avg bus bandwidth' "$out"; then
		pass "$name ($rows sizes, #wrong 0)"
	else
		tail -25 "$out"
		fail "$name: exit $rc, $rows rows, $bad with #wrong != 0"
	fi
}

# mpirun -n 4 hc-perf
out=$log/mpirun.txt
nsx timeout 300 "${mpirun[@]}" -n 4 -x HC_CONFIG="$HC_CONFIG" "$bin/hc-perf" "${eal[@]}" -- \
	"${perf_args[@]}" >"$out.raw" 2>&1
rc=$?
grep '^\[1,0\]<stdout>:' "$out.raw" | sed 's/^\[1,0\]<stdout>://' >"$out"
[ "$rc" -eq 0 ] || tail -20 "$out.raw"
check_perf mpirun-n4 "$out" "$rc"

# torchrun --nproc-per-node 4 hc-perf (MASTER_PORT 29500 is torchrun's own
# store; the rendezvous is at MASTER_PORT + 1). Debian's torch 1.13 spells
# the options with underscores (--no_python; --no-python came in 2.0).
# Its default --redirects 0 / --tee 0 crash under Python 3.11 (Std.from_str
# finds no Std member 0 when iterating the IntFlag: "'NoneType' object has
# no attribute 'get'"), so stderr goes to --log_dir files and stdout is
# teed, each line prefixed "[default<local rank>]:".
out=$log/torchrun.txt
mkdir -p "$log/torch"
nsx env HC_CONFIG="$HC_CONFIG" timeout 300 /usr/bin/python3 -m torch.distributed.run \
	--no_python --nproc_per_node 4 --master_addr 127.0.0.1 \
	--master_port 29500 --redirects 2 --tee 1 --log_dir "$log/torch" \
	"$bin/hc-perf" "${eal[@]}" -- "${perf_args[@]}" >"$out.raw" 2>&1
rc=$?
grep '^\[default0\]:' "$out.raw" | sed 's/^\[default0\]://' >"$out"
if [ "$rc" -ne 0 ]; then
	tail -20 "$out.raw"
	find "$log/torch" -name 'stderr.log' -exec tail -5 {} \;
fi
check_perf torchrun-n4 "$out" "$rc"

# err_case NAME NP WANT [mpirun args...] -- WRAPPER-SH: NP ranks of
# hc-check under mpirun with the short host file; the wrapper sh snippet
# may change a rank's environment (OMPI_COMM_WORLD_RANK tells which). Every
# rank started must print "hc-check: hc_init: WANT" and exit 2 (the
# wrapper prints "rank-exit N" and exits 0, so mpirun ends no rank early).
err_case() {
	local name=$1 np=$2 want=$3 snippet out n ex t0 t1
	shift 3
	snippet=$1
	shift
	out=$log/$name.txt
	t0=$(date +%s.%N)
	nsx timeout 120 "${mpirun[@]}" -n "$np" -x HC_CONFIG="$short" "$@" \
		sh -c "$snippet"'; "$0" "$@"; echo "rank-exit $?"; exit 0' \
		"$bin/hc-check" "${eal[@]}" -- -s basic >"$out" 2>&1
	t1=$(date +%s.%N)
	n=$(grep -F "<stderr>:hc-check: hc_init: $want" "$out" |
		sed -E 's/^\[1,([0-9]+)\].*/\1/' | sort -u | wc -l)
	ex=$(grep -cE '<stdout>:rank-exit 2$' "$out")
	if [ "$n" -eq "$np" ] && [ "$ex" -eq "$np" ]; then
		pass "$name: all $np ranks: '$want' (exit 2) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	else
		grep -E 'hc_init|rendezvous|rank-exit' "$out" | head -20
		fail "$name: $n of $np ranks said '$want', $ex exited 2"
	fi
}
err_case missing-n3of4 3 "peers missing at init" 'export HC_WORLD_SIZE=4'
err_case world-size-n4 4 "ranks disagree on the world size" \
	'[ "$OMPI_COMM_WORLD_RANK" = 3 ] && export HC_WORLD_SIZE=5'
err_case world-size-low-n4 4 "ranks disagree on the world size" \
	'[ "$OMPI_COMM_WORLD_RANK" = 3 ] && export HC_WORLD_SIZE=3'
err_case addr-clash-n4 4 "address in use" \
	'[ "$OMPI_COMM_WORLD_RANK" = 2 ] && export HC_LOCAL_RANK=1'
# Another program holds the rendezvous port (a listener that never speaks).
nsx /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 29701)); s.listen(16)
print("listening", flush=True); time.sleep(120)' >"$log/squat" 2>&1 &
squat_pid=$!
for _ in $(seq 100); do grep -qs listening "$log/squat" && break; sleep 0.1; done
err_case port-clash-n4 4 "address in use" 'export HC_MASTER_PORT=29701'
kill "$squat_pid" 2>/dev/null; wait "$squat_pid" 2>/dev/null; squat_pid=""

# teardown: the ranks' EAL runtime folder goes with the namespace. The
# set-up gives every rank --file-prefix hcs<pid>; before it did, the EAL
# used its default prefix and /var/run/dpdk/rte stayed behind.
prefix=$(grep -oE -- '--file-prefix [^ ]+' <<<"$HC_EAL_ARGS" | cut -d' ' -f2)
had_rt=no
[ -n "$prefix" ] && [ -d "/var/run/dpdk/$prefix" ] && had_rt=yes
$HC_TEARDOWN
HC_TEARDOWN=""
if [[ $prefix == hcs[0-9]* ]] && [ "$had_rt" = yes ] &&
	[ ! -e "/var/run/dpdk/$prefix" ] && ! ip netns list | grep -q "^$HC_NETNS\b" &&
	[ ! -e "$HC_SETUP_DIR" ]; then
	pass "teardown: netns $HC_NETNS, $HC_SETUP_DIR and /var/run/dpdk/$prefix removed"
else
	left=$(ls -d ${prefix:+"/var/run/dpdk/$prefix"} /var/run/dpdk/rte "$HC_SETUP_DIR" 2>/dev/null)
	fail "teardown: prefix '$prefix' (runtime folder there before: $had_rt), left: $left $(ip netns list | grep "^$HC_NETNS\b")"
fi

echo "launchers: $fails failed"
[ "$fails" -eq 0 ]
