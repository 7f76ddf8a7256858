#!/usr/bin/env bash
# c32.sh: field case C32 (shared/cases/CASES.md), several ranks on one
# host, run by tests/run. Needs root (hc-launch).
#  1. What hc-launch generates is distinct per rank: DPDK file prefixes
#     (from the EAL arguments the ranks get), tap names, IPs and MACs
#     (--config-only, tap), memif sockets (--config-only, memif: one socket
#     per pair of ranks, one server and one client on it), virtio's
#     vhost-user sockets and af_packet's veths (--config-only: one each per
#     rank). Pool names are
#     the stack's: hc_r<rank>_<pid>[_<port>] (stack/engine/engine.c), one
#     DPDK instance per rank, so they cannot meet across ranks; inside one
#     instance a name another port uses is refused naming it
#     (HC_ERR_ADDR_IN_USE, test_shm "C32: a pool name in use refused").
#  2. Collisions give a clear error naming the resource:
#     a. two ranks with one file prefix: the second's EAL refuses, naming
#        /var/run/dpdk/<prefix>/config;
#     b. two ranks given the same memif socket and id (rank 2 dials rank
#        0's link to rank 1): one client gets the link, and the port left
#        without its peer (the losing client on l0-1, or rank 1's server
#        on l1-2, whose client went elsewhere) logs its devargs, socket
#        path included, and that another process may hold the socket and
#        id; hc_init fails with HC_ERR_LINK_DOWN;
#     c. two ranks given one tap name (rank 1 gets rank 0's iface=):
#        net_tap attaches to the launcher's multi-queue tap either way, so
#        the driver counts the queues attached to the tap against its own,
#        and a rank that finds more fails hc_init naming the tap
#        (HC_ERR_ADDR_IN_USE);
#     d. two ranks given one vhost-user socket (rank 2 gets rank 1's
#        path=): net_vhost takes the second client and drops the first
#        without a word, so hc-vswitch counts the link-up events of each
#        port and hc-launch relays its line naming the socket;
#     e. two ranks given one af_packet veth (rank 2 gets rank 1's iface=):
#        the port counts the packet sockets with a TX ring on its
#        interface (packet sock_diag) and a rank that finds more than its
#        own fails hc_init naming the veth (HC_ERR_ADDR_IN_USE).
# Every hc-launch removes its namespace, folder and prefixes itself.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$root/build/bin
work=$(mktemp -d /tmp/hc-c32.XXXXXX)
trap 'rm -rf "$work"' EXIT
bad=0
ok() { echo "ok: $*"; }
no() { echo "FAIL: $*"; bad=1; }
# collide NAME PMD N REGEX: hc-launch -n N --pmd PMD runs hc-check -s quick
# through a wrapper whose body (stdin, before the exec) gives one rank
# another rank's resource; true when the job failed and its output
# ($work/NAME.out) matches REGEX. The job's status is left in crc.
collide() {
	local name=$1 pmd=$2 n=$3 re=$4
	{
		echo '#!/usr/bin/env bash'
		cat
		echo 'exec "$HC_C32_PROG" "$@"'
	} >"$work/$name.sh"
	chmod +x "$work/$name.sh"
	HC_C32_PROG=$bin/hc-check HC_LAUNCH_TIMEOUT=120 HC_LAUNCH_GRACE=5 \
		"$bin/hc-launch" -n "$n" --pmd "$pmd" "$work/$name.sh" -s quick \
		>"$work/$name.out" 2>&1
	crc=$?
	[ "$crc" -ne 0 ] && grep -qE "$re" "$work/$name.out"
}
# rank2_sed EXPR: a wrapper body for collide that runs rank 2 on its
# config rewritten by sed -E EXPR (given another rank's resource).
rank2_sed() {
	printf '%s\n' 'if [[ $HC_RANK == 2 ]]; then' \
		"	sed -E '$1' \"\$HC_CONFIG\" >\"\$HC_CONFIG.c32\"" \
		'	export HC_CONFIG=$HC_CONFIG.c32' 'fi'
}

# 1. generated names
"$bin/hc-launch" -n 4 --config-only "$work/tap" || no "config-only tap"
n=$(grep -oE 'iface=hct[0-9]+' "$work/tap/hc.ini" | sort -u | wc -l)
[ "$n" = 4 ] && ok "4 distinct tap names" || no "$n distinct tap names of 4"
for k in ip mac; do
	n=$(grep -E "^$k = " "$work/tap/hc.ini" | sort -u | wc -l)
	[ "$n" = 4 ] && ok "4 distinct ${k}s" || no "$n distinct ${k}s of 4"
done
"$bin/hc-launch" -n 4 --pmd memif --config-only "$work/memif" ||
	no "config-only memif"
socks=$(grep -oE 'socket=[^,]+' "$work/memif/hc.ini" | sort | uniq -c)
n=$(echo "$socks" | wc -l)
[ "$n" = 6 ] && ok "6 memif sockets for 6 links" || no "$n memif sockets, want 6"
echo "$socks" | awk '$1 != 2 { exit 1 }' && ok "every socket used by 2 ranks" ||
	no "a socket not used by exactly 2 ranks: $socks"
n=$(grep -oE 'role=server,id=0,socket=[^,]+' "$work/memif/hc.ini" | sort | uniq -d | wc -l)
[ "$n" = 0 ] && ok "one server per socket" || no "$n sockets with 2 servers"
# virtio: one vhost-user socket per rank (port r of hc-vswitch);
# af_packet: one veth per rank.
"$bin/hc-launch" -n 4 --pmd virtio --config-only "$work/virtio" ||
	no "config-only virtio"
n=$(grep -oE '^port = net_virtio_user0,path=[^,]+' "$work/virtio/hc.ini" | sort -u | wc -l)
[ "$n" = 4 ] && ok "4 distinct vhost-user sockets" || no "$n distinct vhost-user sockets of 4"
"$bin/hc-launch" -n 4 --pmd af_packet --config-only "$work/afp" ||
	no "config-only af_packet"
n=$(grep -oE '^port = net_af_packet0,iface=[^,]+' "$work/afp/hc.ini" | sort -u | wc -l)
[ "$n" = 4 ] && ok "4 distinct af_packet veths" || no "$n distinct af_packet veths of 4"
cat >"$work/args.sh" <<'EOS'
#!/bin/sh
echo "prefix $(echo "$@" | grep -oE -- '--file-prefix [^ ]+' | cut -d' ' -f2)"
EOS
chmod +x "$work/args.sh"
"$bin/hc-launch" -n 3 "$work/args.sh" >"$work/args.out" 2>&1 || no "args run"
n=$(grep -oE 'prefix hc[0-9]+r[0-9]+' "$work/args.out" | sort -u | wc -l)
[ "$n" = 3 ] && ok "3 distinct file prefixes" ||
	no "$n distinct file prefixes of 3: $(cat "$work/args.out")"

# 2a. one file prefix for two ranks: rank r gets rank 0's.
cat >"$work/prefix.sh" <<'EOS'
#!/usr/bin/env bash
a=()
for x in "$@"; do
	[[ $x =~ ^hc[0-9]+r[0-9]+$ ]] && x=${x%r*}r0
	a+=("$x")
done
[[ $HC_RANK != 0 ]] && sleep 2	# rank 0 holds the prefix first
exec "$HC_C32_PROG" "${a[@]}"
EOS
chmod +x "$work/prefix.sh"
HC_C32_PROG=$bin/hc-check HC_LAUNCH_TIMEOUT=120 HC_LAUNCH_GRACE=2 \
	"$bin/hc-launch" -n 2 "$work/prefix.sh" -s quick >"$work/prefix.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] &&
	grep -qE "^\[1\] .*Cannot create lock on '/var/run/dpdk/hc[0-9]+r0/config'" "$work/prefix.out"; then
	ok "a shared file prefix: the second rank's EAL names /var/run/dpdk/<prefix>/config"
else
	no "shared prefix: exit $rc: $(tail -5 "$work/prefix.out")"
fi

# 2b. ranks 1 and 2 on one memif socket and id: rank 2's port to rank 1
# names l0-1.sock (rank 0's link to rank 1) instead of l1-2.sock.
re="port 'net_memif[0-9],role=[a-z]+,id=0,socket=[^,]*/l(0-1|1-2)\.sock,.*another process holds the same socket and id"
if collide memif memif 3 "$re" < <(rank2_sed 's|/l1-2\.sock|/l0-1.sock|'); then
	ok "two clients on one memif socket and id: a port left without its peer names its socket: $(grep -oE "socket=[^,]*/l(0-1|1-2)\.sock" "$work/memif.out" | head -1)"
else
	no "shared memif socket: exit $crc: $(grep -v PASS "$work/memif.out" | tail -8)"
fi

# 2c. ranks 0 and 1 on one tap: rank 1's port names rank 0's iface=. No
# delay: whichever rank sets the tap's kernel-side MAC last sees both
# ranks' queues (drivers/port_dpdk.c, tap_exclusive). Once rank 1's
# hc-check has ended, rank 0's wrapper prints the tap's flags: closing a
# net_tap port sets its tap down, and the rank that gave up must set it up
# again for the one that holds it (IFF_UP, 0x1).
cat >"$work/tap.sh" <<'EOS'
#!/usr/bin/env bash
i0=$(sed -n '/^\[rank\.0\]/,/^\[/ s/.*iface=\(hct[0-9]*\).*/\1/p' "$HC_CONFIG")
if [[ $HC_RANK == 1 ]]; then
	sed "/^\[rank\.1\]/,/^\[/ s/iface=hct[0-9]*/iface=$i0/" "$HC_CONFIG" >"$HC_CONFIG.c32"
	HC_CONFIG=$HC_CONFIG.c32 "$HC_C32_PROG" "$@"
	rc=$?
	touch "$HC_C32_DIR/rank1.done"
	exit $rc
fi
"$HC_C32_PROG" "$@" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM INT	# hc-launch ends ranks by PID
for ((i = 0; i < 200; i++)); do
	[[ -e $HC_C32_DIR/rank1.done ]] && break
	sleep 0.05
done
[[ -e $HC_C32_DIR/rank1.done ]] &&
	echo "c32: $i0 flags $(cat "/sys/class/net/$i0/flags") after rank 1 ended"
rc=0
while kill -0 $pid 2>/dev/null; do
	wait $pid
	rc=$?
done
exit $rc
EOS
chmod +x "$work/tap.sh"
HC_C32_DIR=$work HC_C32_PROG=$bin/hc-check HC_LAUNCH_TIMEOUT=120 \
	HC_LAUNCH_GRACE=2 "$bin/hc-launch" -n 2 "$work/tap.sh" -s quick \
	>"$work/tap.out" 2>&1
rc=$?
msg="tap hct[0-9]+ has 2 queues attached, 1 of them this port's: another process holds it"
if [ "$rc" -ne 0 ] && grep -qE "^\[[01]\] .*$msg" "$work/tap.out"; then
	ok "two ranks on one tap: $(grep -oE "^\[[01]\] .*$msg" "$work/tap.out" | head -1)"
else
	no "shared tap: exit $rc: $(grep -v PASS "$work/tap.out" | tail -8)"
fi
# Both ranks give up when rank 0 counts after rank 1 attached: then no
# rank holds the tap, and its flags tell nothing.
flags=$(sed -n 's/^\[0\] c32: hct[0-9]* flags \(0x[0-9a-f]*\) after rank 1 ended$/\1/p' "$work/tap.out")
if grep -qE "^\[0\] .*$msg" "$work/tap.out"; then
	ok "both ranks gave up the shared tap: no flags to check"
elif [[ -n $flags ]] && (( flags & 1 )); then
	ok "the shared tap is up after rank 1 gave up (flags $flags)"
else
	no "shared tap after rank 1 gave up: flags '${flags}': $(grep -E '^\[0\] c32:|hc.driver' "$work/tap.out" | tail -4)"
fi

# 2d. ranks 1 and 2 on one vhost-user socket.
re="^hc-vswitch: port 1 \(iface=[^,]*/vhost1\.sock,[^)]*\): a second vhost-user client attached while one was"
if collide virtio virtio 3 "$re" < <(rank2_sed 's|/vhost2\.sock|/vhost1.sock|'); then
	ok "two ranks on one vhost-user socket: $(grep -oE "$re" "$work/virtio.out" | head -1)"
else
	no "shared vhost-user socket: exit $crc: $(grep -v PASS "$work/virtio.out" | tail -8)"
fi

# 2e. ranks 1 and 2 on one af_packet veth.
v1=$(sed -n '/^\[rank\.1\]/,/^\[/ s/.*iface=\([^,]*\).*/\1/p' "$work/afp/hc.ini")
re="^\[[12]\] .*net_af_packet0: interface ${v1:-hcp1} has 2 packet sockets with a TX ring, 1 of them this port's: another process holds it"
if collide afp af_packet 3 "$re" \
	< <(rank2_sed "/^\[rank\.2\]/,/^\[/ s/iface=[^,]*/iface=${v1:-hcp1}/") &&
	grep -qE "^\[[12]\] hc-check: hc_init: address in use" "$work/afp.out"; then
	ok "two ranks on one af_packet veth: $(grep -oE "$re" "$work/afp.out" | head -1)"
else
	no "shared af_packet veth: exit $crc: $(grep -v PASS "$work/afp.out" | tail -8)"
fi
exit $bad
