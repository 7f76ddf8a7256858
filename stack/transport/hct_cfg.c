/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport's cluster-file keys ([transport], and [engine]
 * hello_interval_ms, whose HELLOs the transport sends), cfgkey.h. The file
 * gives times in ms or µs; struct hct_conf holds ns. */
#include <inttypes.h>
#include <stdio.h>

#include <rte_common.h>

#include "hct.h"

static const char *const shm_crc_names[] = {
	[HCT_SHM_CRC_PAYLOAD] = "payload", [HCT_SHM_CRC_HEADER] = "header" };

static const char *const zc_names[] = {
	[HCT_ZC_TX_OFF] = "off", [HCT_ZC_TX_AUTO] = "auto" };

static const char *const cc_names[] = {
	[HCT_CC_FIXED] = "fixed", [HCT_CC_SWIFT] = "swift",
	[HCT_CC_DCTCP] = "dctcp" };

_Static_assert(sizeof(enum hct_cc_algo) == sizeof(int),
	       "HC_CFG_ENUM fields are int-sized");

#define F(field) offsetof(struct hct_conf, field)
#define US HC_NS_PER_US
#define MS HC_NS_PER_MS
static const struct hc_cfg_key keys[] = {
	{ "transport", "window_pkts", HC_CFG_U32, "packets", F(window_pkts),
	  .def = 256, .min = 1, .max = HCT_WINDOW_MAX },
	{ "transport", "rto_init_us", HC_CFG_U64, "us", F(rto_init_ns),
	  .def = 20000, .min = 10, .max = 10000000, .mul = US },
	{ "transport", "rto_min_us", HC_CFG_U64, "us", F(rto_min_ns),
	  .def = 2000, .min = 10, .max = 10000000, .mul = US },
	{ "transport", "rto_max_us", HC_CFG_U64, "us", F(rto_max_ns),
	  .def = 500000, .min = 10, .max = 60000000, .mul = US },
	{ "transport", "retry_max", HC_CFG_U32, "RTOs", F(retry_max),
	  .def = 12, .min = 1, .max = 100 },
	{ "transport", "ack_every", HC_CFG_U32, "packets", F(ack_every),
	  .def = 16, .min = 1, .max = 1024 },
	{ "transport", "ack_delay_us", HC_CFG_U64, "us", F(ack_delay_ns),
	  .def = 20, .min = 0, .max = 1000, .mul = US },
	{ "transport", "keepalive_ms", HC_CFG_U64, "ms", F(keepalive_ns),
	  .def = 100, .min = 1, .max = 600000, .mul = MS },
	{ "transport", "peer_timeout_ms", HC_CFG_U64, "ms", F(peer_timeout_ns),
	  .def = 3000, .min = 0, .max = 3600000, .mul = MS },
	{ "transport", "bulk_min_share_pct", HC_CFG_U32, "%",
	  F(bulk_min_share_pct), .def = 5, .min = 0,
	  .max = HCT_BULK_SHARE_MAX_PCT },
	{ "transport", "critical_extra_pkts", HC_CFG_U32, "packets",
	  F(critical_extra_pkts), .def = 4, .min = 0, .max = 256 },
	{ "transport", "tx_ring_max_bytes", HC_CFG_U64, "bytes",
	  F(tx_ring_max_bytes), .def = 16384, .min = 0, .max = 1u << 26 },
	{ "transport", "rx_credit_bdp_pct", HC_CFG_U32, "%",
	  F(rx_credit_bdp_pct), .def = 150, .min = 0, .max = 10000 },
	{ "transport", "bdp_bytes", HC_CFG_U64, "bytes", F(bdp_bytes),
	  .def = 100000, .min = 1500, .max = 1u << 30 },
	{ "transport", "reo_wnd_us", HC_CFG_U64, "us", F(cc.reo_wnd_ns),
	  .def = 0, .min = 0, .max = 10000000, .mul = US },
	{ "transport", "tlp_min_us", HC_CFG_U64, "us", F(cc.tlp_min_ns),
	  .def = 5, .min = 0, .max = 10000000, .mul = US },
	{ "transport", "tlp_ack_delay_us", HC_CFG_U64, "us",
	  F(cc.tlp_ack_delay_ns), .def = 25, .min = 0, .max = 10000000,
	  .mul = US },
	{ "transport", "cc", HC_CFG_ENUM, "", F(cc.algo), .def = HCT_CC_FIXED,
	  .names = cc_names, .n_names = RTE_DIM(cc_names) },
	{ "transport", "cwnd_init", HC_CFG_DOUBLE, "packets", F(cc.init_cwnd),
	  .ddef = 16, .dmin = 0, .dmax = HCT_WINDOW_MAX, .min_open = true },
	{ "transport", "cwnd_min", HC_CFG_DOUBLE, "packets", F(cc.min_cwnd),
	  .ddef = 0.25, .dmin = 0, .dmax = HCT_WINDOW_MAX, .min_open = true },
	{ "transport", "cc_ai", HC_CFG_DOUBLE, "packets per RTT", F(cc.ai),
	  .ddef = 1, .dmin = 0, .dmax = HCT_WINDOW_MAX },
	{ "transport", "cc_max_mdf", HC_CFG_DOUBLE, "", F(cc.max_mdf),
	  .ddef = 0.5, .dmin = 0, .dmax = 0.99 },
	{ "transport", "swift_beta", HC_CFG_DOUBLE, "", F(cc.beta),
	  .ddef = 0.8, .dmin = 0, .dmax = 10 },
	{ "transport", "swift_base_target_us", HC_CFG_U64, "us",
	  F(cc.base_target_ns), .def = 25, .min = 1, .max = 10000000,
	  .mul = US },
	{ "transport", "swift_hop_scale_ns", HC_CFG_U64, "ns",
	  F(cc.hop_scale_ns), .def = 1000, .min = 0, .max = 10000000 },
	{ "transport", "swift_hops", HC_CFG_U32, "hops", F(cc.hops), .def = 1,
	  .min = 0, .max = 64 },
	{ "transport", "swift_fs_range_us", HC_CFG_U64, "us",
	  F(cc.fs_range_ns), .def = 100, .min = 0, .max = 10000000,
	  .mul = US },
	{ "transport", "swift_fs_min_cwnd", HC_CFG_DOUBLE, "packets",
	  F(cc.fs_min_cwnd), .ddef = 0.1, .dmin = 0, .dmax = HCT_WINDOW_MAX,
	  .min_open = true },
	{ "transport", "swift_fs_max_cwnd", HC_CFG_DOUBLE, "packets",
	  F(cc.fs_max_cwnd), .ddef = 100, .dmin = 0, .dmax = HCT_WINDOW_MAX,
	  .min_open = true },
	{ "transport", "swift_endpoint_target_us", HC_CFG_U64, "us",
	  F(cc.endpoint_target_ns), .def = 100, .min = 1, .max = 10000000,
	  .mul = US },
	{ "transport", "dctcp_g", HC_CFG_DOUBLE, "", F(cc.dctcp_g),
	  .ddef = 0.0625, .dmin = 0, .dmax = 1, .min_open = true },
	{ "transport", "pace_burst", HC_CFG_U32, "packets", F(cc.pace_burst),
	  .def = 8, .min = 0, .max = HCT_WINDOW_MAX },
	/* header: no payload CRC on shared-memory links both ends trust
	 * (hct_hdr.h "CRC coverage" says why and when); payload: CRC32C over
	 * the payload everywhere. HC_SHM_CRC: the same, from the
	 * environment. */
	{ "transport", "shm_crc", HC_CFG_ENUM, "", F(shm_crc),
	  .def = HCT_SHM_CRC_HEADER, .names = shm_crc_names,
	  .n_names = RTE_DIM(shm_crc_names), .env = "HC_SHM_CRC",
	  .env_at_key = true },
	/* auto: DATA of the messages the collectives mark (the ring's
	 * final chunks and its out-of-place first sends) goes from their
	 * memory, not copied, where hct_zc_ok() (README "Zero-copy TX");
	 * off: always copied. HC_ZERO_COPY_TX: the same, from the
	 * environment. */
	{ "transport", "zero_copy_tx", HC_CFG_ENUM, "", F(zero_copy_tx),
	  .def = HCT_ZC_TX_AUTO, .names = zc_names,
	  .n_names = RTE_DIM(zc_names), .env = "HC_ZERO_COPY_TX",
	  .env_at_key = true },
	{ "engine", "hello_interval_ms", HC_CFG_U64, "ms",
	  F(hello_interval_ns), .def = 20, .min = 1, .max = 10000, .mul = MS },
};
#undef MS
#undef US
#undef F

/* The rules between keys (config/example.ini states them). */
static int
check(const void *conf, const struct hc_cfg_key **key, char *err,
      size_t errlen)
{
	const struct hct_conf *c = conf;

	if (c->rto_min_ns > c->rto_max_ns) {
		*key = hc_cfg_find(&hct_cfg_table, "transport",
				   "rto_min_us");
		snprintf(err, errlen, "%" PRIu64 " > rto_max_us %" PRIu64,
			 (uint64_t)(c->rto_min_ns / HC_NS_PER_US),
			 (uint64_t)(c->rto_max_ns / HC_NS_PER_US));
		return -1;
	}
	if (c->cc.min_cwnd > c->window_pkts) {
		*key = hc_cfg_find(&hct_cfg_table, "transport", "cwnd_min");
		snprintf(err, errlen, "%g > window_pkts %u", c->cc.min_cwnd,
			 c->window_pkts);
		return -1;
	}
	if (c->cc.fs_min_cwnd >= c->cc.fs_max_cwnd) {
		*key = hc_cfg_find(&hct_cfg_table, "transport",
				   "swift_fs_min_cwnd");
		snprintf(err, errlen, "%g >= swift_fs_max_cwnd %g",
			 c->cc.fs_min_cwnd, c->cc.fs_max_cwnd);
		return -1;
	}
	return 0;
}

const struct hc_cfg_table hct_cfg_table = { keys, RTE_DIM(keys), check };
