#!/usr/bin/env bash
# app_help.sh: hc-check and hc-vswitch print their own usage for -h
# (hc-vswitch also --help) given alone or after "--", exit 0, and do so
# without starting DPDK's EAL, so no runtime folder /var/run/dpdk/rte is
# left behind (checked when none was there before). EAL arguments before
# "--" with no -h after it still reach the EAL: an unknown EAL option is
# refused with a non-zero exit.
#   app_help.sh   exit 0 when every check passes.
set -uo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=$root/build/bin
rte=/var/run/dpdk/rte
failed=0
rte_before=0
[[ -e $rte ]] && rte_before=1

# expect NAME WANT_RC PATTERN CMD...: CMD exits WANT_RC and its stdout
# matches the extended regex PATTERN.
expect() {
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>/dev/null)
	rc=$?
	if [[ $rc -ne $want ]] || ! grep -qE -- "$pat" <<<"$out"; then
		echo "FAIL $name: exit $rc (want $want), stdout:"
		head -5 <<<"$out"
		failed=$((failed + 1))
	else
		echo "PASS $name"
	fi
}

expect check-h 0 '^  c26 +C26' "$bin/hc-check" -h
expect check-dash-h 0 '^suites:' "$bin/hc-check" --no-huge -- -h
expect vswitch-help 0 '--idle-polls' "$bin/hc-vswitch" --help
expect vswitch-h 0 '--stats-file' "$bin/hc-vswitch" --no-huge --no-pci -- -h
# Not help: the EAL gets its arguments and refuses a bogus one.
expect check-eal-bad 2 '' "$bin/hc-check" --hc-no-such-eal-option -- -s quick
if ((!rte_before)) && [[ -e $rte ]]; then
	echo "FAIL rte: $rte left behind"
	rmdir "$rte" 2>/dev/null
	failed=$((failed + 1))
fi
exit $((failed != 0))
