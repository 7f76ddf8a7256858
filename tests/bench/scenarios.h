/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The transport scenarios of issue 3, in virtual time: each runs the real
 * stack on the sim network (xfer.h) and returns its figures. The benchmark
 * (tests/bench/transport.c) prints them with their targets; the tests
 * (tests/unit/test_simxport.c) assert the same targets.
 *
 * The network unless a scenario says otherwise: a star, every link
 * SCN_GBPS Gbit/s with SCN_PROP_NS propagation delay, switch egress
 * queues of SCN_QUEUE bytes. "Link rate" figures count DATA wire bytes
 * (payload + XFER_PKT_OVERHEAD) against the bottleneck link's rate.
 */
#ifndef HC_TESTS_SCENARIOS_H
#define HC_TESTS_SCENARIOS_H

#include <stdint.h>

#define SCN_GBPS 25.0              /**< link rate, Gbit/s */
#define SCN_PROP_NS 1000           /**< propagation delay per link, ns */
#define SCN_QUEUE (1024 * 1024)    /**< switch egress queue, bytes */
/** Slack allowed for pacing in the mid-message recovery target, RTTs:
 *  the retransmission waits behind at most a quarter RTT of paced data. */
#define SCN_PACING_SLACK 0.25

/** Goodput of one transfer under random DATA loss. */
struct scn_goodput {
	double loss;              /**< probability on the sender's uplink */
	uint64_t bytes;           /**< transfer size */
	uint32_t seeds;           /**< runs averaged */
	double time_lossless_ns;  /**< mean completion time without loss */
	double time_ns;           /**< mean completion time with loss */
	double ratio;             /**< mean of lossless / lossy time */
	uint64_t rtos;            /**< RTOs, all runs */
	uint64_t retransmits;     /**< retransmitted DATA, all runs */
	int exact;                /**< every byte arrived exactly once */
};
int scn_goodput(struct scn_goodput *g);

/** Recovery of one lost DATA packet: which one (mid-message or the
 *  last), and what it cost. */
struct scn_recovery {
	int last;                 /**< 0: a mid-message packet; 1: the last */
	uint64_t bytes;           /**< message size */
	uint64_t rtt_ns;          /**< the flow's smoothed fabric RTT at the
	                           *   end of the lossless run: the RTT the
	                           *   transport measures (RTT minus the
	                           *   receiver's host delay, EWMA 1/8) */
	uint64_t min_rtt_ns;      /**< the least RTT sample (no queueing) */
	uint64_t extra_ns;        /**< completion time minus lossless */
	uint64_t rtos;            /**< RTOs of the lossy run */
	uint64_t dropped;         /**< packets the filter dropped (1) */
};
int scn_recovery(struct scn_recovery *r);

/** N senders to one receiver through one switch. */
struct scn_incast {
	uint32_t senders;
	uint64_t rtt_ns;          /**< nominal base RTT */
	uint32_t windows;         /**< 100-RTT windows measured */
	double utilisation;       /**< bottleneck busy fraction, measured
	                           *   interval (after warm-up) */
	double jain_min;          /**< lowest Jain index over the windows */
	uint64_t rtos;
	uint64_t data_tx;         /**< DATA packets sent, first copies, all
	                           *   senders */
	uint64_t retransmits;     /**< DATA sent again (RTO, SACK, RACK,
	                           *   TLP), all senders */
	uint64_t drops;           /**< switch tail drops */
	uint64_t max_queue;       /**< bottleneck queue high-water, bytes */
};
int scn_incast(struct scn_incast *c);

/** One flow, no loss, for `rtts` RTTs. */
struct scn_steady {
	uint32_t rtts;
	uint64_t rtt_ns;
	double min_window_rate;   /**< lowest 100-RTT window, fraction of
	                           *   the link rate (first window excluded:
	                           *   start-up) */
	double mean_rate;
	uint64_t rtos;
};
int scn_steady(struct scn_steady *s);

/** Critical 4 KiB messages with and without bulk saturating the
 *  bottleneck. */
struct scn_priority {
	uint64_t p99_alone_ns;    /**< critical p99, no bulk */
	uint64_t p99_loaded_ns;   /**< critical p99 under bulk */
	double bulk_ratio;        /**< bulk goodput with critical / alone */
	uint32_t bulk_empty_windows; /**< 100-RTT windows without bulk */
	uint64_t probes;          /**< critical messages measured */
};
int scn_priority(struct scn_priority *p);

#endif /* HC_TESTS_SCENARIOS_H */
