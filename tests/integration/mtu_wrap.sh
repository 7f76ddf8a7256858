#!/usr/bin/env bash
# mtu_wrap.sh: a rank program for hc-launch (tests/run's C26 MTU case).
# The last rank runs $HC_MTU_WRAP_PROG with a copy of the cluster file
# whose [net] mtu is 1500 (HC_MTU_WRAP_MTU), every other rank with the file
# as generated: ranks that disagree on the MTU. The copy lives next to the
# generated file, in hc-launch's temporary folder, which it removes.
set -euo pipefail
if [[ $HC_RANK == $((HC_WORLD_SIZE - 1)) ]]; then
	cfg=$HC_CONFIG.mtu$HC_RANK
	sed -E "s/^mtu = [0-9]+$/mtu = ${HC_MTU_WRAP_MTU:-1500}/" "$HC_CONFIG" >"$cfg"
	grep -q "^mtu = ${HC_MTU_WRAP_MTU:-1500}$" "$cfg"
	export HC_CONFIG=$cfg
fi
exec "$HC_MTU_WRAP_PROG" "$@"
