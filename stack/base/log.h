/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Logging through rte_log dynamic types, one per layer:
 * hc.core, hc.net, hc.transport, hc.coll, hc.driver. Levels are set with the
 * EAL option --log-level=hc.*:debug (or per type).
 */
#ifndef HC_BASE_LOG_H
#define HC_BASE_LOG_H

#include <rte_log.h>

enum hc_log_subsys {
	HC_LOG_CORE,
	HC_LOG_NET,
	HC_LOG_TRANSPORT,
	HC_LOG_COLL,
	HC_LOG_DRIVER,
	HC_LOG__MAX
};

/** rte_log type ids, registered by a constructor at load time. */
extern int hc_logtype[HC_LOG__MAX];

/** HC_LOG(ERR, CORE, "x=%d", x): one line, prefixed with the type name. */
#define HC_LOG(level, subsys, fmt, ...)                                      \
	rte_log(RTE_LOG_##level, hc_logtype[HC_LOG_##subsys],                \
		"hc.%s: " fmt "\n", hc_log_subsys_name[HC_LOG_##subsys],     \
		##__VA_ARGS__)

extern const char *const hc_log_subsys_name[HC_LOG__MAX];

#endif /* HC_BASE_LOG_H */
