/* SPDX-License-Identifier: BSD-3-Clause */
#include "log.h"

int hc_logtype[HC_LOG__MAX];

const char *const hc_log_subsys_name[HC_LOG__MAX] = {
	[HC_LOG_CORE] = "core",
	[HC_LOG_NET] = "net",
	[HC_LOG_TRANSPORT] = "transport",
	[HC_LOG_COLL] = "coll",
	[HC_LOG_DRIVER] = "driver",
};

/* Registered before main() so that --log-level=hc.*:debug, parsed by
 * rte_eal_init(), applies to them (DPDK's RTE_LOG_REGISTER does the same). */
RTE_INIT(hc_log_register)
{
	char name[32];
	int i;

	for (i = 0; i < HC_LOG__MAX; i++) {
		snprintf(name, sizeof(name), "hc.%s", hc_log_subsys_name[i]);
		hc_logtype[i] = rte_log_register_type_and_pick_level(name,
								     RTE_LOG_NOTICE);
		if (hc_logtype[i] < 0)
			hc_logtype[i] = RTE_LOGTYPE_USER1;
	}
}
