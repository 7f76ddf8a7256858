/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * hypercomm's test-facing API: the seeded fault injector's packet classes,
 * faults and counters. The injector is part of the product (a cluster
 * file's [fault] rules or HC_FAULT configure it, see config/example.ini),
 * but only test and diagnosis programs read its counters, so they are
 * kept out of the application-facing hypercomm.h.
 */
#ifndef HYPERCOMM_FAULT_H
#define HYPERCOMM_FAULT_H

#include <stdint.h>

#include "hypercomm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a frame at the port, for the fault injector. */
enum hc_fault_dir {
	HC_FAULT_TX = 0, /**< frames this rank sends */
	HC_FAULT_RX,     /**< frames the port received, before the stack */
	HC_FAULT_DIR__MAX
};

/** Packet classes the fault injector targets. */
enum hc_fault_class {
	HC_FAULT_CLASS_OTHER = 0, /**< ARP, ICMP, anything not HCT */
	HC_FAULT_CLASS_DATA,      /**< HCT DATA */
	HC_FAULT_CLASS_ACK,       /**< HCT ACK */
	HC_FAULT_CLASS_CONTROL,   /**< other HCT types (HELLO, ABORT, ...) */
	HC_FAULT_CLASS__MAX
};

/** Faults the injector applies; see config/example.ini [fault]. */
enum hc_fault_kind {
	HC_FAULT_DROP = 0,  /**< frame discarded */
	HC_FAULT_DUP,       /**< a copy sent right after the frame */
	HC_FAULT_REORDER,   /**< held until up to reorder_window later frames
	                     *   of its direction passed (or hold_max_us) */
	HC_FAULT_DELAY,     /**< held for delay_us */
	HC_FAULT_CORRUPT,   /**< one bit flipped after the Ethernet header */
	HC_FAULT_TRUNCATE,  /**< cut to a random shorter length, not below
	                     *   the 14-byte Ethernet header */
	HC_FAULT_DROP_LAST, /**< drop_last_once: first transmission of a
	                     *   message's last DATA packet discarded */
	HC_FAULT_KIND__MAX
};

/** Fault injector counters: frames each fault was applied to. */
struct hc_fault_stats {
	uint64_t count[HC_FAULT_DIR__MAX][HC_FAULT_CLASS__MAX]
		      [HC_FAULT_KIND__MAX];
};

/**
 * Read this rank's fault injector counters (all zero when [fault] rules,
 * drop_data_pct and drop_last_once are unset).
 * @return 0, or -HC_ERR_INVAL if ctx or stats is NULL.
 */
int hc_fault_stats_get(struct hc_ctx *ctx, struct hc_fault_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HYPERCOMM_FAULT_H */
