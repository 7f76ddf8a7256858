/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * HCT congestion control and loss detection: the window law, pacing,
 * RACK and the tail-loss probe. Not part of the transport's interface to
 * the layers above; the constants come from [transport] of the INI file
 * (stack/engine/config.c, config/example.ini).
 *
 * Windows are in packets, as doubles: a window below 1 is allowed and
 * means pacing (one packet per SRTT / cwnd).
 *
 * ## cc = swift (Kumar et al., "Swift: Delay is Simple and Effective for
 * Congestion Control in the Datacenter", SIGCOMM 2020, Algorithm 1)
 *
 * Every ACK that delivers num_acked packets (cumulatively or by SACK)
 * carries two delays: the endpoint delay = the host_delay_ns the receiver
 * echoes (time from the DATA's arrival to the ACK's departure), and the
 * fabric delay = now - ts_echo_ns - host_delay_ns. Two windows react to
 * them, each with the same law against its own target:
 *
 *   fabric target   = base_target + hops * hop_scale + fs(fcwnd), where
 *                     fs(w) = clamp(a / sqrt(w) + b, 0, fs_range),
 *                     a = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)),
 *                     b = -a / sqrt(fs_max_cwnd)   (section 3.5: flow scaling)
 *   endpoint target = endpoint_target
 *
 *   delay < target:  w += ai / w * num_acked    (w >= 1)
 *                    w += ai * num_acked        (w < 1)
 *                    i.e. ai packets per RTT
 *   delay >= target, and no decrease in the last SRTT:
 *                    w *= max(1 - beta * (delay - target) / delay,
 *                             1 - max_mdf)
 *   fast recovery (a SACK or RACK retransmission), no decrease in the
 *   last SRTT:       w *= 1 - max_mdf
 *   RTO:             w = min_cwnd
 *   w = clamp(w, min_cwnd, max_cwnd);  cwnd = min(fcwnd, ecwnd).
 *
 * The "once per RTT" rule uses SRTT (the paper's rtt), and one timestamp
 * for both windows (t_last_decrease).
 *
 * ## cc = dctcp (Alizadeh et al., "Data Center TCP", SIGCOMM 2010;
 * RFC 8257)
 *
 * DATA leaves ECT(0); the receiver counts CE-marked DATA and echoes the
 * count in its next ACK (HCT_F_ECE, ecn_ce). Per window of data (from a
 * PSN until it is acknowledged, RFC 8257 section 3.3) the sender computes
 * F = marked / acknowledged packets and alpha = (1 - g) * alpha + g * F
 * (alpha starts at 1, RFC 8257 section 3.3 step 1). An ACK reporting
 * marks cuts the window, at most once per SRTT: cwnd *= 1 - alpha / 2.
 * Without marks the window grows by ai packets per RTT (as Reno's
 * congestion avoidance); fast recovery and RTO as for swift. Only one
 * window (cwnd = fcwnd; ecwnd unused, = max_cwnd).
 *
 * ## cc = fixed
 *
 * window_pkts packets in flight, no pacing, no reaction: the transport of
 * HCT v1.
 *
 * ## Pacing (swift, dctcp)
 *
 * A token bucket per flow: rate = cwnd / SRTT packets per ns, depth
 * pace_burst packets (at most ceil(cwnd), at least 1). So a window of
 * w >= pace_burst packets goes out in bursts of pace_burst, evenly spread
 * over the RTT, and a window below 1 sends one packet every SRTT / cwnd.
 * Without an RTT sample there is no pacing. Retransmissions are not
 * paced (they replace lost packets; RFC 8985 sends them at once).
 *
 * ## Loss detection (RFC 8985, RACK-TLP, in packets)
 *
 * RACK: the sender remembers the send time (rack_xmit_ns) and PSN of the
 * most recently sent packet that was delivered, and that packet's RTT
 * (rack_rtt_ns). A packet still unacknowledged and sent before it (earlier,
 * or at the same time with a lower PSN) is lost once it has been out for
 * rack_rtt + reo_wnd; reo_wnd = reo_mult * (reo_wnd_ns, or min_rtt / 4
 * when 0), at most SRTT. reo_mult adapts as RFC 8985 section 6.2 step 4
 * does, with timestamps in place of DSACK: an ACK that covers a
 * retransmitted packet but echoes a DATA timestamp older than that
 * retransmission was caused by the original (RFC 3522's Eifel test), so
 * the retransmission was spurious: reo_mult doubles (the RFC adds 1),
 * at most once per SRTT, up to 4096; after 16 RACK recoveries without a
 * spurious one it is 1 again. A
 * retransmission whose ACK came faster than min_rtt is ignored (it may
 * acknowledge the original, RFC 8985 section 6.2 step 2). Packets not
 * lost yet arm the RACK timer for the moment they would be.
 *
 * TLP: after new data is sent, or an ACK delivers something while data is
 * outstanding, the probe timer is set to the last new send +
 * PTO, PTO = max(2 * SRTT + ack_delay, tlp_min) (RFC 8985 section 7.2;
 * ack_delay is the peer's worst-case ACK delay, WCDelAckT) and never
 * later than the RTO, and not in fast recovery (from a SACK or RACK
 * retransmission until snd_una passes the snd_nxt of that moment, RFC
 * 8985 section 7.2: "not in loss recovery"). When it fires, one new packet is sent (if queued)
 * or else the highest-PSN unacknowledged packet again; no second probe
 * until that one is acknowledged. Its ACK carries a SACK for RACK.
 */
#ifndef HC_TRANSPORT_CC_H
#define HC_TRANSPORT_CC_H

#include <stdint.h>

/** [transport] cc */
enum hct_cc_algo {
	HCT_CC_FIXED = 0, /**< window_pkts, no pacing */
	HCT_CC_SWIFT = 1, /**< delay targets, fabric + endpoint windows */
	HCT_CC_DCTCP = 2, /**< ECN marks (RFC 8257) */
};

/** Constants of the law; [transport] keys in brackets. */
struct hct_cc_conf {
	enum hct_cc_algo algo;       /**< [cc] */
	double init_cwnd;            /**< [cwnd_init], packets */
	double min_cwnd;             /**< [cwnd_min], packets, > 0 */
	double max_cwnd;             /**< window_pkts, packets */
	double ai;                   /**< [cc_ai], packets per RTT */
	double beta;                 /**< [swift_beta], MD gain */
	double max_mdf;              /**< [cc_max_mdf], largest cut, 0..1 */
	uint64_t base_target_ns;     /**< [swift_base_target_us] */
	uint64_t hop_scale_ns;       /**< [swift_hop_scale_us], per hop */
	uint32_t hops;               /**< [swift_hops] */
	uint64_t fs_range_ns;        /**< [swift_fs_range_us], 0: off */
	double fs_min_cwnd;          /**< [swift_fs_min_cwnd], packets */
	double fs_max_cwnd;          /**< [swift_fs_max_cwnd], packets */
	uint64_t endpoint_target_ns; /**< [swift_endpoint_target_us] */
	double dctcp_g;              /**< [dctcp_g], EWMA gain */
	uint32_t pace_burst;         /**< [pace_burst], packets */
	uint64_t reo_wnd_ns;         /**< [reo_wnd_us], 0: min_rtt / 4 */
	uint64_t tlp_min_ns;         /**< [tlp_min_us], PTO floor */
	uint64_t tlp_ack_delay_ns;   /**< [tlp_ack_delay_us], WCDelAckT */
};

/** Per-flow state of the law, pacing, RACK and TLP. */
struct hct_cc {
	double fcwnd;             /**< fabric window, packets */
	double ecwnd;             /**< endpoint window, packets */
	double cwnd;              /**< effective: min(fcwnd, ecwnd) */
	uint64_t last_decrease_ns; /**< 0: never */
	uint64_t pace_next_ns;    /**< bucket: earliest time of a full token */
	uint64_t min_rtt_ns;      /**< 0 until the first sample */
	uint64_t last_fabric_ns;  /**< last fabric delay sample */
	uint64_t fabric_srtt_ns;  /**< smoothed fabric delay (RTT minus the
	                           *   receiver's echoed host delay; EWMA
	                           *   gain 1/8 as RFC 6298's SRTT), ns */
	uint64_t last_endpoint_ns; /**< last endpoint delay sample */
	/* DCTCP */
	double alpha;
	uint32_t alpha_end_psn;   /**< the window of data ends here */
	uint32_t win_acked;       /**< packets acknowledged in the window */
	uint32_t win_marked;      /**< of which reported CE */
	int alpha_started;
	/* RACK */
	uint64_t rack_xmit_ns;    /**< 0: nothing delivered yet */
	uint32_t rack_psn;
	uint64_t rack_rtt_ns;
	uint64_t rack_deadline_ns; /**< 0: timer off */
	uint32_t reo_mult;        /**< reo_wnd multiplier, 1.. */
	uint32_t reo_persist;     /**< RACK recoveries until it resets */
	uint64_t last_spurious_ns; /**< last spurious retransmission seen */
	/* TLP */
	uint64_t last_new_ns;     /**< last transmission of new data */
	int tail_last;            /**< that packet ended a message: the
	                           *   receiver acknowledges it at once */
	uint64_t tlp_deadline_ns; /**< 0: timer off */
	int tlp_out;              /**< a probe is unacknowledged */
	int recovery;             /**< fast recovery (SACK, RACK) is on */
	uint32_t recovery_end;    /**< ... until snd_una reaches this PSN */
	uint32_t tlp_psn;         /**< its PSN */
	/* receiver */
	uint32_t rx_ce;           /**< CE-marked DATA since our last ACK */
};

#endif /* HC_TRANSPORT_CC_H */
