/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Raw HCT transfers between simulated ranks: the measurement harness of
 * the transport benchmark (tests/bench/transport.c) and of the transport
 * tests in virtual time (tests/unit/test_simxport.c). Private to tests.
 *
 * Every rank of an hc_simrun (stack/sim/simrun.h) keeps its whole stack,
 * but its transport's upcalls are taken over: DATA goes to the harness,
 * which counts it, not to the collective engine. A flow is a sequence of
 * messages from one rank to another, in one priority class, either back
 * to back (a bulk flow that keeps `depth` messages queued) or one message
 * every `interval_ns` (latency probes). The receiver notes each message's
 * completion (the virtual time its last byte arrived) and the DATA wire
 * bytes per flow per measurement window.
 *
 * Wire bytes of a DATA packet: its payload plus XFER_PKT_OVERHEAD
 * (Ethernet 14 + IPv4 20 + UDP 8 + HCT 104), what the sim serializes.
 */
#ifndef HC_TESTS_XFER_H
#define HC_TESTS_XFER_H

#include <stdint.h>

#include "simrun.h"

/** Bytes a DATA packet adds to its payload on the wire. */
#define XFER_PKT_OVERHEAD (14 + 20 + 8 + 104)
/** Messages per flow whose completion is tracked at once. */
#define XFER_TRACK 4096

struct xfer;

/** One flow. */
struct xfer_flow {
	uint32_t src, dst;        /**< ranks */
	unsigned int cls;         /**< enum hct_class of its DATA */
	uint64_t msg_bytes;       /**< bytes per message */
	uint64_t msgs_max;        /**< messages to send; 0: until stopped */
	uint64_t interval_ns;     /**< 0: back to back; else one message per
	                           *   interval (latency probe) */
	uint32_t depth;           /**< back to back: messages kept queued */
	uint64_t start_ns;        /**< virtual time of the first message */
	/* results */
	uint64_t sent_msgs;       /**< messages handed to the transport */
	uint64_t done_msgs;       /**< messages fully received */
	uint64_t rx_bytes;        /**< payload bytes received */
	uint64_t first_done_ns;   /**< completion of message 0 */
	uint64_t last_done_ns;    /**< completion of the latest message */
	uint64_t *lat_ns;         /**< per completed message: completion -
	                           *   submission, ns (done_msgs entries) */
	uint64_t *win_bytes;      /**< DATA wire bytes per window */
	/* state */
	struct xfer *x;
	uint32_t id;
	uint64_t next_ns;         /**< next probe submission */
	uint32_t queued;          /**< messages queued, not cut yet */
	struct xfer_msg *msgs;    /**< XFER_TRACK */
};

struct xfer_conf {
	struct hc_simrun_conf run; /**< network, config, seed */
	uint64_t window_ns;       /**< measurement window; 0: 10 us */
	uint64_t horizon_ns;      /**< longest run, sizes win_bytes */
};

struct xfer {
	struct hc_simrun *run;
	uint64_t t0;              /**< virtual time at creation */
	uint64_t window_ns;
	uint32_t windows;
	uint32_t nflows;
	struct xfer_flow *flows;
	uint64_t stop_ns;         /**< flows send nothing new after it */
	uint32_t lost;            /**< peer-lost upcalls */
	uint32_t bad;             /**< DATA that fits no flow or message */
	void *ep_mem;             /**< the ranks' upcall contexts */
};

/** Create the run (every rank met) and take over its transports.
 *  @return 0 or a negative HC_ERR_*. */
int xfer_create(const struct xfer_conf *conf, struct xfer **out);
void xfer_destroy(struct xfer *x);

/** Add a flow (copied from f's parameters; results zeroed).
 *  @return its index, or a negative HC_ERR_*. */
int xfer_add(struct xfer *x, const struct xfer_flow *f);

/** Run until every flow with msgs_max sent and received them all, or
 *  until virtual time `until_ns` (absolute). Flows without msgs_max stop
 *  sending at until_ns.
 *  @return 0 when every bounded flow finished, -HC_ERR_TIMEOUT at
 *          until_ns, another negative HC_ERR_* on a runner error. */
int xfer_run(struct xfer *x, uint64_t until_ns);

/** Flow stats of the transport for (src -> dst), in the sender's HCT. */
const struct hct_flow *xfer_hct_flow(const struct xfer *x, uint32_t src,
				     uint32_t dst);

/** p-th percentile (0..100, nearest rank) of a flow's latencies, ns. */
uint64_t xfer_lat_pct(const struct xfer_flow *f, double p);

/** Jain's fairness index (sum x)^2 / (n sum x^2) of n values; 1 when all
 *  are 0. (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984.) */
double xfer_jain(const double *v, uint32_t n);

/** Nominal round-trip time of a star: 4 propagation delays plus the
 *  serialization of one MTU frame and one ACK at each of 2 hops, ns. */
uint64_t xfer_base_rtt_ns(const struct hc_sim_link_conf *l, uint32_t mtu);

/** Serialization time of bytes at gbps, ns (rounded up). */
uint64_t xfer_ser_ns(uint64_t bytes, double gbps);

#endif /* HC_TESTS_XFER_H */
