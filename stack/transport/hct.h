/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * HCT v1, the reliable collective transport.
 *
 * One flow per peer rank. Sender: PSNs
 * from 0 per incarnation, at most window_pkts unacknowledged packets (the
 * slot ring), each kept (mbuf reference) until cumulatively or selectively
 * acknowledged; within that, the congestion window and pacing of cc.h
 * (cc = fixed: window_pkts, no pacing) and the peer's receiver credit.
 * Retransmission on timeout with RTO per RFC 6298 (SRTT, RTTVAR, K = 4,
 * alpha 1/8, beta 1/4; RTT samples from the echoed timestamp, so
 * retransmissions give valid samples), a configured minimum and maximum,
 * exponential backoff and a retry budget; a SACK-driven fast retransmit of
 * a hole once 3 later packets are SACKed (RFC 6675's DupThresh); RACK
 * time-based loss detection and a tail-loss probe (RFC 8985, loss.c).
 * Receiver: cumulative ACK + 128-bit SACK bitmap, one ACK per
 * flow per RX burst (or every ack_every DATA packets, or at once on a
 * hole or a duplicate; the end of a message whose sender said it had
 * nothing more queued, HCT_F2_TX_IDLE, is held up to the smaller of
 * ack_delay_ns and a quarter of the fabric RTT for DATA of ours to carry
 * its ACK); duplicates are re-acknowledged and dropped, so the
 * layer above sees every DATA packet exactly once.
 *
 * Membership: every rank draws a random nonce per incarnation. HELLO /
 * HELLO_ACK exchange the nonces; DATA and ACK packets must carry the
 * right pair, packets of another job, run or rank are dropped and counted.
 *
 * The transport knows nothing of collectives: a message is a byte range of
 * a buffer with a descriptor (comm, sequence, signature, step, offset);
 * it is cut into MSS-sized DATA packets, each saying where its payload
 * belongs, and delivered upward packet by packet in any order.
 *
 * Priority classes (enum hct_class: control > critical > normal > bulk):
 * still one flow per peer, so one PSN space, one window and one RTO per
 * peer, with one message queue per class in the flow (a flow per class
 * would add up one window per class toward the same receiver and split
 * the loss signal that SACK and the RTO read). Every message
 * carries its class (struct hct_msg cls); each of its DATA packets
 * carries it in the header's prio byte and as the IPv4 DSCP (hct_tos()),
 * so that switches can queue by class too. The receiver places DATA by
 * offset and needs no order between messages, so classes may overtake
 * each other inside a flow. ACKs, HELLOs and probes go out at once as
 * before; the TX scheduler (sched.c) then cuts DATA: strictly by class,
 * except that bulk gets at least [transport] bulk_min_share_pct of the
 * DATA bytes while it has sendable data (a deficit counter), and within
 * a class round-robin across peers, one packet at a time. It cuts DATA
 * only while the bytes handed to the port and not yet on the wire are
 * under tx_ring_max_bytes: the rest waits in the class queues, where a
 * later critical message can still overtake it.
 *
 * Receiver credits (fan-in): a receiver grants its active senders (new
 * DATA received within rto_min: a sender silent that long has drained
 * its window or waits for an RTO) together rx_credit_bdp_pct % of bdp_bytes, in
 * full-size packets, split evenly, at least 1 each (hct_credit_grant());
 * bdp_bytes is configured (link rate x base RTT) rather than taken from
 * an SRTT, because an SRTT grows with the queueing delay that incast
 * itself causes, and the grant would then grow with the congestion;
 * the grant rides in the credit field of every packet that acknowledges
 * (ACK, and DATA going back), and HELLOs carry a first grant that
 * assumes every peer sends at once (hct_credit_initial()). A sender that heard a credit keeps at most
 * min(window_pkts, credit) packets in flight. The credit is a window, not
 * a count of tokens, and never below 1, so it cannot deadlock: a sender
 * limited to 1 packet whose packet or ACK is lost gets it through again
 * by the RTO, once per RTO.
 *
 * Driven by three inputs: hct_input() (a received packet), hct_tick()
 * (the clock) and hct_send() (a request); sends go through stack/net only.
 * DATA leaves ECT(0); CE marks on arriving DATA are echoed in ACKs
 * (HCT_F_ECE, ecn_ce) for cc = dctcp.
 */
#ifndef HC_TRANSPORT_HCT_H
#define HC_TRANSPORT_HCT_H

#include <stdint.h>
#include <sys/queue.h>

#include <rte_mbuf.h>

#include "cc.h"
#include "clock.h"
#include "hct_hdr.h"
#include "net.h"

/** Where a DATA payload belongs. */
struct hct_data_desc {
	uint32_t comm_id;
	uint32_t coll_seq;
	uint32_t sig;
	uint16_t step;
	uint64_t offset; /**< bytes into the destination buffer */
	uint32_t length; /**< payload bytes */
};

/** A message queued by hct_send(): len bytes at src, destined for
 *  desc.offset .. desc.offset + len of the peer's buffer. Owned by the
 *  caller; must stay valid until msg_sent() is called for it, or until
 *  it is dropped (hct_cancel_owner(), hct_cancel_msgs(), a lost peer).
 *
 *  Zero-copy TX (zc non-NULL, the caller's opt-in; README "Zero-copy
 *  TX"): where the flow allows it (hct_zc_ok(): [transport]
 *  zero_copy_tx auto, a shared-memory link with header-only CRC both
 *  ends agreed on, chained mbufs on every port, no authentication tag)
 *  a DATA packet of at least HCT_ZC_MIN_BYTES payload is a header mbuf
 *  chained to an mbuf attached to src itself
 *  (rte_pktmbuf_attach_extbuf), not a copy. The transport then counts
 *  references in zc->refcnt: one from hct_send() until the message is
 *  cut (msg_sent) or dropped (hct_cancel_owner, a lost peer, hct_free),
 *  and one per mbuf that points into src (the saved packet, the one the
 *  port holds, retransmissions). zc->free_cb(NULL or the buffer,
 *  zc->fcb_opaque) runs each time the count falls to 0: only then may
 *  the memory at src go away. Its bytes must not change while the peer
 *  may still lack a packet that points at them, because a retransmission
 *  reads them again and on such links no CRC covers them; once the peer
 *  holds those packets they may (a retransmission then carries a PSN the
 *  peer has, and its receiver drops it unread as a duplicate: the
 *  collectives overwrite what they sent only with data that needed it at
 *  the peer first, ring.c). The caller sets refcnt (0), free_cb and
 *  fcb_opaque; one zc may serve many messages. */
struct hct_msg {
	TAILQ_ENTRY(hct_msg) link;
	const uint8_t *src;
	uint64_t len;           /**< bytes */
	uint64_t done;          /**< bytes already cut into packets */
	struct hct_data_desc desc; /**< offset and length of the whole msg */
	void *owner;            /**< for the caller */
	struct rte_mbuf_ext_shared_info *zc; /**< NULL: always copied; else
	                         *   zero copy allowed (above) */
	uint8_t cls;            /**< enum hct_class, set by the caller */
};
TAILQ_HEAD(hct_msg_list, hct_msg);

/** What the data upcall did with a packet. */
enum hct_rx_verdict {
	HCT_RX_CONSUMED, /**< used; the transport frees the mbuf */
	HCT_RX_HELD,     /**< the upper layer keeps the mbuf and frees it */
	HCT_RX_REJECT,   /**< no room now: not acknowledged, will come again */
};

struct hct_upcalls {
	/** A new DATA packet from rank src; payload points into m. */
	enum hct_rx_verdict (*data)(void *ctx, uint32_t src,
				    const struct hct_data_desc *d,
				    const uint8_t *payload, struct rte_mbuf *m);
	/** msg is cut into packets entirely; its source may change now. */
	void (*msg_sent)(void *ctx, struct hct_msg *msg);
	/** Peer rank stopped answering (retry budget spent, peer timeout)
	 *  or restarted. err: -HC_ERR_LINK_DOWN when the port of the
	 *  peer's route reported its link down as the peer was declared
	 *  lost (hc_net_route_link_down()), else -HC_ERR_PEER_LOST. */
	void (*peer_lost)(void *ctx, uint32_t rank, int err);
};

/** [transport] zero_copy_tx: DATA of messages that allow it (struct
 *  hct_msg zc) sent from the caller's memory on links where that is
 *  safe (hct_zc_ok()). */
enum hct_zc_tx {
	HCT_ZC_TX_OFF = 0,  /**< every payload copied into the mbuf */
	HCT_ZC_TX_AUTO = 1, /**< zero copy where hct_zc_ok() */
};

/** Payload bytes below which a DATA packet is copied even when zero copy
 *  is allowed: a copy of a few hundred bytes costs less than the second
 *  mbuf and its attachment. */
#define HCT_ZC_MIN_BYTES 1024

/** Largest window_pkts: the most packets a flow has in flight (its slot
 *  ring), and the bound of every window-sized key (cwnd_*, pace_burst). */
#define HCT_WINDOW_MAX 4096
/** Largest bulk_min_share_pct: bulk never gets more than half by right. */
#define HCT_BULK_SHARE_MAX_PCT 50

/** [transport] shm_crc: what a DATA packet's CRC32C covers on a link both
 *  ends agreed is trusted shared memory (hct_hdr.h, "CRC coverage"). */
enum hct_shm_crc {
	HCT_SHM_CRC_PAYLOAD = 0, /**< header and payload, as on any link */
	HCT_SHM_CRC_HEADER = 1,  /**< the header only (the cluster file's
	                          *   default) */
};

/**
 * What hct_init() needs. The fields the cluster file sets are listed, with
 * their keys, units and ranges, in hct_cfg.c (hct_cfg_table); job_id,
 * rank, world_size, peer_ip, nonce, always_on and initial_psn are the
 * caller's.
 */
struct hct_conf {
	uint32_t job_id;
	uint32_t rank;
	uint32_t world_size;
	const uint32_t *peer_ip;  /**< world_size addresses, host order */
	uint32_t window_pkts;     /**< packets in flight per flow at most
	                           *   (the slot ring; cc = fixed: the
	                           *   window) */
	uint64_t rto_init_ns;
	uint64_t rto_min_ns;
	uint64_t rto_max_ns;
	uint32_t retry_max;       /**< consecutive RTOs before peer lost */
	uint32_t ack_every;       /**< DATA packets per ACK at most */
	uint64_t ack_delay_ns;    /**< [transport] ack_delay_us: how long a
	                           *   receiver may hold the ACK of a
	                           *   message's end whose sender said
	                           *   HCT_F2_TX_IDLE, for its own DATA to
	                           *   carry it, and at most a quarter of its
	                           *   fabric RTT (rx.c ack_hold_ns), so the
	                           *   sender's 1.5-RTT tail-loss probe needs
	                           *   no allowance. 0: at once */
	uint64_t hello_interval_ns;
	uint32_t nonce;           /**< this incarnation, non-zero */
	uint64_t start_ns;        /**< wall-clock start of this incarnation
	                           *   (CLOCK_REALTIME ns), sent in HELLOs;
	                           *   0: none (simulation) */
	int auth;                 /**< authenticated mode: every packet
	                           *   tagged with auth_key (hct_hdr.h) */
	uint8_t auth_key[32];     /**< the job's key (never logged); wiped
	                           *   by hct_free() */
	uint64_t stale_window_ns; /**< a HELLO whose start_ns is more than
	                           *   this before ours is of an earlier run
	                           *   (replayed): dropped as stale */
	uint64_t keepalive_ns;    /**< probe a silent peer after this; 0: never */
	uint64_t peer_timeout_ns; /**< a peer silent this long is lost, if it
	                           *   advertised always-on progress; 0: off */
	int always_on;            /**< we progress between API calls (an
	                           *   engine lcore): peers may time us out */
	uint32_t initial_psn;     /**< first PSN of every flow, both ways;
	                           *   0 in the stack, set by tests to
	                           *   exercise wrap-around */
	uint32_t critical_extra_pkts; /**< critical packets a flow may have in
	                               *   flight beyond its window and the
	                               *   peer's credit */
	uint32_t bulk_min_share_pct; /**< percent of DATA bytes bulk gets at
	                              *   least while it has data, 0..50 */
	uint64_t tx_ring_max_bytes; /**< bytes handed to the port and not on
	                             *   the wire (hc_port_tx_pending_bytes)
	                             *   above which no DATA is cut; 0: no
	                             *   bound */
	uint32_t rx_credit_bdp_pct; /**< total receiver credit, percent of
	                             *   bdp_bytes; 0: no credits */
	uint64_t bdp_bytes;       /**< this rank's link rate x base RTT */
	int shm_crc;              /**< enum hct_shm_crc; 0 (payload) in a
	                           *   zeroed struct, header by the cluster
	                           *   file's default */
	int zero_copy_tx;         /**< enum hct_zc_tx; 0 (off) in a zeroed
	                           *   struct, the cluster file's default
	                           *   otherwise */
	struct hct_cc_conf cc;    /**< congestion control, RACK, TLP; all
	                           *   zero: cc = fixed, reo_wnd min_rtt/4,
	                           *   PTO 2 SRTT */
};

/** The cluster-file keys of struct hct_conf (hct_cfg.c). */
extern const struct hc_cfg_table hct_cfg_table;

struct hct_slot {
	struct rte_mbuf *m;  /**< saved packet, NULL once acknowledged */
	/** On the flow's time-ordered list (struct hct_flow tsent) while m
	 *  is held: RACK walks it oldest transmission first and stops at
	 *  the first packet too recent to be lost. */
	TAILQ_ENTRY(hct_slot) tlink;
	uint32_t psn;        /**< of the packet held */
	uint64_t sent_ns;    /**< last transmission */
	uint32_t xmits;      /**< transmissions so far */
	uint32_t len;        /**< bytes of the HCT packet (header + payload) */
	uint8_t sacked;
};

/** Per-flow counters (hc_flow_stats_get() publishes them). */
struct hct_flow_stats {
	uint64_t data_tx;          /**< DATA packets, first transmissions */
	uint64_t data_rx;          /**< DATA packets accepted (not dups) */
	uint64_t bytes_tx;         /**< payload bytes, first transmissions */
	uint64_t bytes_rx;         /**< payload bytes accepted */
	uint64_t retransmits_rto;  /**< DATA sent again on an RTO */
	uint64_t retransmits_sack; /**< ... by SACK DupThresh */
	uint64_t retransmits_rack; /**< ... by RACK */
	uint64_t retransmits_tlp;  /**< ... as a tail-loss probe */
	uint64_t retx_by_clone;    /**< retransmissions sent as a header
	                            *   mbuf + a clone of the payload */
	uint64_t rtos;             /**< retransmission timeouts */
	uint64_t tlps;             /**< tail-loss probes */
	uint64_t dup_rx;           /**< duplicate DATA dropped */
	uint64_t acks_tx;          /**< pure ACKs sent */
	uint64_t ecn_ce_rx;        /**< CE-marked DATA received */
	uint64_t ecn_echoed;       /**< CE marks echoed in our ACKs */
	uint64_t ecn_ece_rx;       /**< CE marks the peer echoed to us */
	uint64_t cwnd_decreases;   /**< window cuts (delay, ECN, loss) */
	uint64_t spurious_retx;    /**< retransmissions found needless: the
	                            *   original was acknowledged (Eifel) */
	uint64_t stray_rx;         /**< from the peer, dropped: beyond the
	                            *   window, or of its old incarnation */
	uint64_t rejected_rx;      /**< DATA refused by the upper layer */
	uint64_t data_tx_cls[HCT_CLASS__MAX];    /**< DATA packets, first
	                                          *   copies, per class */
	uint64_t data_bytes_cls[HCT_CLASS__MAX]; /**< their HCT bytes
	                                          *   (header + payload) */
	uint64_t credit_limited;  /**< times the peer's credit, not our
	                           *   window, stopped queued DATA */
	uint64_t rtos_spurious;   /**< of rtos, found needless: the first
	                           *   ACK after it echoed the timestamp of
	                           *   a packet sent before it (Eifel, RFC
	                           *   3522); the window cut is undone */
	uint64_t rtos_deferred;   /**< RTOs re-armed instead of fired: the
	                           *   timer ran late by more than rto_min /
	                           *   2, so this process was not running
	                           *   and the ACKs may be waiting unread */
	uint64_t data_tx_hdr_cov; /**< of data_tx, with HCT_COV_HDR */
	uint64_t data_rx_hdr_cov; /**< of data_rx, with HCT_COV_HDR */
	uint64_t data_tx_zc;      /**< of data_tx, sent zero copy: a header
	                           *   mbuf chained to the caller's memory
	                           *   (struct hct_msg zc) */
};

TAILQ_HEAD(hct_slot_list, hct_slot);

/** DATA mbufs one bulk allocation takes (rte_pktmbuf_alloc_bulk).
 *  Those not used yet stay with the transport for the next packets
 *  (hct_unused_mbufs(); hct_free() gives them back): giving a partly
 *  used bulk back at the end of every hct_tx() call cost more than the
 *  bulk saved in the sim, where a call often sends 1-2 packets
 *  (callgrind, README "Per-packet TX path"). */
#define HCT_TX_BULK 32

/** Not in the timer heap (struct hct_flow heap_idx). */
#define HCT_HEAP_NONE UINT32_MAX

enum hct_flow_state {
	HCT_FLOW_INIT,        /**< no nonce exchange yet */
	HCT_FLOW_ESTABLISHED, /**< both nonces known and confirmed */
	HCT_FLOW_LOST,        /**< retry budget spent or peer restarted */
};

struct hct_flow {
	uint32_t peer;
	uint32_t peer_ip;
	uint32_t peer_nonce;     /**< 0 until learnt */
	uint64_t peer_start_ns;  /**< start_ns of that incarnation (its
	                          *   HELLO's), 0: unknown */
	int peer_always_on;      /**< its HELLO said it always progresses */
	/** CRC coverage (hct_hdr.h): cov_tx_ok, our route to the peer is
	 *  trusted shared memory on TX and shm_crc is header; cov_rx_ok, the
	 *  same on RX: we accept HCT_COV_HDR from the peer and say so in our
	 *  HELLOs (cov_accept); peer_cov_accept, its last HELLO or HELLO_ACK
	 *  said it accepts HCT_COV_HDR from us. Our DATA to it has
	 *  HCT_COV_HDR when cov_tx_ok and peer_cov_accept. */
	uint8_t cov_tx_ok;
	uint8_t cov_rx_ok;
	uint8_t peer_cov_accept;
	/** The route to the peer leaves by a port whose TX reads any memory
	 *  of the program (port.h tx_any_memory): zero-copy TX may point an
	 *  mbuf at user memory (hct_zc_ok()). */
	uint8_t zc_port_ok;
	uint64_t last_rx_ns;     /**< last valid packet from the peer */
	uint64_t last_probe_ns;  /**< last keepalive probe we sent */
	int hello_acked;         /**< the peer confirmed our nonce */
	enum hct_flow_state state;
	uint64_t next_hello_ns;
	/* sender */
	uint32_t snd_una;        /**< oldest unacknowledged PSN */
	uint32_t snd_nxt;        /**< next new PSN */
	struct hct_slot *slots;  /**< window, indexed psn & mask */
	uint64_t srtt_ns;        /**< 0 until the first sample */
	uint64_t rttvar_ns;
	uint64_t rto_ns;         /**< current, with backoff */
	uint64_t rto_deadline_ns; /**< 0: timer off */
	uint32_t rto_retries;    /**< consecutive RTOs without progress */
	/** Spurious-RTO state: rto_deferred, one deferral per episode
	 *  (cleared by progress); rto_undo, an RTO whose first ACK is
	 *  still to be judged (Eifel), with when it fired and the windows
	 *  it cut. */
	uint8_t rto_deferred;
	uint8_t rto_undo;
	uint64_t rto_fired_ns;
	double rto_undo_fcwnd, rto_undo_ecwnd;
	uint32_t n_sacked;       /**< slots in [snd_una, snd_nxt) SACKed */
	uint32_t sack_end;       /**< 1 + the highest PSN SACKed so far:
	                          *   no hole above it to recover */
	struct hct_cc cc;        /**< window, pacing, RACK, TLP */
	/** Held packets, oldest transmission first (a retransmission goes
	 *  to the tail), as Linux's tsorted_sent_queue. */
	struct hct_slot_list tsent;
	uint32_t heap_idx;       /**< in t->heap, HCT_HEAP_NONE: no timer */
	uint64_t timer_key;      /**< earliest of the RTO, RACK and TLP
	                          *   deadlines while in the heap, ns */
	struct hct_msg_list msgs[HCT_CLASS__MAX]; /**< queued, per class */
	uint32_t in_txlist;      /**< bit c: on t->txlist[c] */
	TAILQ_ENTRY(hct_flow) txlink[HCT_CLASS__MAX];
	uint16_t peer_credit;    /**< the peer's last grant, packets; 0:
	                          *   none heard (window_pkts alone) */
	int credit_blocked;      /**< the credit stops us now */
	/* receiver */
	uint32_t rcv_nxt;        /**< every PSN before it was received */
	uint64_t *rcv_bits;      /**< window bitmap, indexed psn & mask */
	uint32_t rx_unacked;     /**< DATA received since our last ACK */
	int ack_now;
	uint64_t ack_due_ns;     /**< a held ACK (HCT_F2_TX_IDLE, ack_delay)
	                          *   goes no later than this; 0: none held */
	int rnr;                 /**< we refused DATA: say so in the next ACK */
	uint64_t echo_ts_ns;     /**< ts_ns of the last DATA received */
	uint64_t echo_arrival_ns;
	uint64_t data_rx_ns;     /**< last new DATA from the peer; 0: never */
	uint16_t credit_granted; /**< our last grant to the peer, packets */
	TAILQ_ENTRY(hct_flow) acklink; /**< on t->acklist */
	int in_acklist;
	TAILQ_ENTRY(hct_flow) rxlink;  /**< on t->rxactive */
	int rx_active;           /**< on t->rxactive: new DATA within
	                          *   rto_min (hct_credit_grant()) */
	/* TX header templates (hct_hdr.h, net.h): written once per flow,
	 * patched per packet. */
	struct hc_net_tmpl ntmpl; /**< Ethernet/IPv4/UDP, the net layer's */
	uint8_t htmpl[HCT_HDR_LEN]; /**< HCT, for tmpl_nonce */
	uint32_t tmpl_nonce;     /**< peer_nonce that htmpl carries */
	int tmpl_ok;             /**< htmpl built */
	struct hct_flow_stats stats;
};
TAILQ_HEAD(hct_flow_list, hct_flow);

struct hct_stats {
	uint64_t stray_rx;    /**< wrong job, nonce, rank, window; malformed
	                       *   (the sum of every cause; those below are
	                       *   some of them, counted apart) */
	uint64_t other_job_rx; /**< a well-formed HCT header of another
	                        *   [job] id */
	uint64_t stale_rx;    /**< this job and rank, but a nonce of no
	                       *   incarnation we know (an earlier run of the
	                       *   job, or a restarted peer's old packets) */
	uint64_t malformed_rx; /**< on our UDP port, but no HCT header: short,
	                        *   other version or type, length wrong */
	uint64_t bad_tag_rx;  /**< authenticated mode: no tag, or a wrong one */
	uint64_t misaddr_rx;  /**< this job, but for another rank, from a
	                       *   rank outside the world, or from an IP
	                       *   that is not the source rank's */
	uint64_t rejected_rx; /**< DATA refused by the upper layer */
	uint64_t crc_rx;      /**< packets whose CRC32C is wrong: corrupted
	                       *   in a way the UDP checksum missed */
	uint64_t cov_refused_rx; /**< of crc_rx, packets with HCT_COV_HDR from
	                          *   a peer we did not accept it from */
};

/** TX scheduler state (sched.c), readable by benchmarks. */
struct hct_sched {
	uint64_t picks[HCT_CLASS__MAX]; /**< DATA packets cut per class */
	uint64_t bulk_forced;   /**< of picks[BULK], those taken from a
	                         *   higher class by the minimum share */
	int64_t bulk_deficit;   /**< bytes x 100: > 0 means bulk is owed a
	                         *   packet (see sched.c) */
	uint64_t ring_full;     /**< hct_tx() calls stopped by
	                         *   tx_ring_max_bytes with DATA waiting */
	uint64_t ring_max_seen; /**< most pending port bytes seen right
	                         *   after a DATA packet was cut */
};

struct hct {
	struct hc_net *net;
	const struct hc_clock *clk;
	/** The arrival time (ns of clk) of the RX burst being handed to
	 *  hct_input(), set by hct_rx_time(); 0: none, hct_input() reads
	 *  clk itself. */
	uint64_t rx_now_ns;
	struct hct_conf conf;
	uint32_t mask;        /**< window slots - 1 */
	uint32_t mss;         /**< DATA payload bytes per packet, multiple of 8 */
	struct hct_flow *flows; /**< world_size; our own entry unused */
	/** Per class, the flows with queued messages of that class, in
	 *  round-robin order. */
	struct hct_flow_list txlist[HCT_CLASS__MAX];
	/* What replaces per-poll scans of every flow (timer.c): */
	/** Binary min-heap of the flows with an RTO, RACK or TLP timer,
	 *  keyed by timer_key: hct_tick() and hct_next_timer() look at the
	 *  flows whose timers are due, not at every flow. */
	struct hct_flow **heap;
	uint32_t heap_n;
	struct hct_flow **due; /**< hct_tick()'s scratch, world_size */
	/** Flows owing an ACK (rx_unacked or ack_now), for hct_flush_acks(). */
	struct hct_flow_list acklist;
	/** Flows with new DATA within rto_min, oldest data_rx_ns first, and
	 *  their number: the credit grant's active senders. */
	struct hct_flow_list rxactive;
	uint32_t n_rxactive;
	uint32_t n_init;      /**< flows in HCT_FLOW_INIT (HELLOs to send);
	                       *   recounted by every HELLO pass */
	uint64_t live_next_ns; /**< no keepalive or peer timeout is due
	                        *   before this; 0: look at once */
	struct hct_sched sched;
	/** DATA mbufs taken from the pool in bulk (rte_pktmbuf_alloc_bulk):
	 *  txm[txm_i..txm_n) are not used yet (at most HCT_TX_BULK - 1
	 *  between calls), freed by hct_free(). */
	struct rte_mbuf *txm[HCT_TX_BULK];
	uint16_t txm_i, txm_n;
	struct hct_upcalls up;
	void *up_ctx;
	struct hct_stats stats;
	/** A peer's HELLO told another [net] mtu than ours (C26): that
	 *  peer's rank + 1 (0: none) and its MTU. Every rank of a job needs
	 *  one MTU (frames above the smaller one would be lost at its port
	 *  or a bridge, and ranks would time out instead of failing with a
	 *  reason): hc_init fails with HC_ERR_CONFIG naming both MTUs. */
	uint32_t mtu_bad_rank1;
	uint32_t mtu_bad_peer_mtu;
	/* Set-up checks (C36), read by the engine while it meets the peers;
	 * each is logged once when first seen. */
	int meeting;          /**< 1 until every flow was established once
	                       *   (or hct_meeting_done()): a second nonce
	                       *   of a peer then means two processes claim
	                       *   its rank, not a restart */
	uint32_t ws_peer;     /**< a rank whose HELLO said another world
	                       *   size (ws_theirs != 0) */
	uint32_t ws_theirs;   /**< that world size; 0: none seen */
	uint32_t dup_rank;    /**< a rank seen with two nonces while meeting
	                       *   (dup_seen != 0) */
	int dup_seen;
};

/** DATA mbufs the transport holds unused (its allocation bulk), for
 *  tests that count a pool's mbufs in use. */
static inline uint32_t
hct_unused_mbufs(const struct hct *t)
{
	return (uint32_t)(t->txm_n - t->txm_i);
}

/** @return 0, -HC_ERR_INVAL (window, MTU too small), -HC_ERR_NOMEM. */
int hct_init(struct hct *t, struct hc_net *net, const struct hc_clock *clk,
	     const struct hct_conf *conf, const struct hct_upcalls *up,
	     void *up_ctx);
void hct_free(struct hct *t);

/** UDP upcall of stack/net: one HCT packet; consumes m. */
void hct_input(void *t, uint32_t src_ip, uint8_t tos, struct rte_mbuf *m,
	       const uint8_t *payload, uint16_t len);

/** Queue msg for peer in the queue of its class msg->cls.
 *  @return 0, -HC_ERR_INVAL (peer, msg, len 0 or cls >= HCT_CLASS__MAX),
 *          -HC_ERR_PEER_LOST. */
int hct_send(struct hct *t, uint32_t peer, struct hct_msg *msg);

/** Cut queued messages into packets while windows, credits and the
 *  TX ring budget allow, in the scheduler's order (sched.c).
 *  @return packets sent. */
uint32_t hct_tx(struct hct *t);

/** Send the ACKs that received DATA asks for. @return ACKs sent. */
uint32_t hct_flush_acks(struct hct *t);

/** Timers: RTOs, RACK, TLPs, HELLOs. @return packets sent. */
uint32_t hct_tick(struct hct *t);

/** The send side of one engine poll at one clock read, now (ns of t's
 *  clock): hct_flush_acks(), hct_tick() and hct_tx() in that order, as
 *  if each read the clock at now. Each of them alone reads the clock:
 *  one read instead of three per poll (a TSC read and its scaling cost
 *  about 11 ns on this host's VM; tsc_now_ns was the stack's hottest
 *  function in a perf profile of a memif all-reduce, most of it from
 *  these three reads in every poll). @return packets sent. */
uint32_t hct_poll_tx(struct hct *t, uint64_t now);

/** The arrival time of the packets about to be handed to hct_input():
 *  now (ns of t's clock, read when the PMD's RX burst returned), used by
 *  every packet of the burst instead of a clock read each; 0 after the
 *  burst (hct_input() then reads the clock again). Like a NIC's RX
 *  timestamp, it leaves the time the stack spends on the burst's earlier
 *  packets out of RTT samples and puts it into the echoed host delay. */
static inline void
hct_rx_time(struct hct *t, uint64_t now)
{
	t->rx_now_ns = now;
}

/** Earliest clock value (ns) at which hct_tick(), hct_tx() or
 *  hct_flush_acks() has data-path work: an RTO, RACK or TLP timer, a
 *  paced packet that may go, or a held ACK's end; 0 when
 *  a queued packet may go now; UINT64_MAX when none (HELLO and keepalive
 *  timers are not included). For virtual-time drivers. */
uint64_t hct_next_timer(const struct hct *t);

/** Peers with which the HELLO exchange is complete. */
uint32_t hct_established(const struct hct *t);

/** Every peer met: from now on a new nonce of a peer is its restart
 *  (the flow is lost), no longer a duplicate rank id. */
void hct_meeting_done(struct hct *t);

/** 1 when nothing is queued or unacknowledged on any flow. */
int hct_drained(const struct hct *t);

/** Forget the queued messages whose owner is owner, on every flow (after
 *  the owner failed: their source buffers go back to the application);
 *  packets already sent keep being retransmitted until acknowledged. */
void hct_cancel_owner(struct hct *t, const void *owner);

/** Forget the queued messages among msgs[0..n-1] (an array the caller is
 *  about to free, such as a communicator's ABORT broadcast), on every
 *  flow: a message must not stay queued past its memory (struct hct_msg),
 *  and hct_free() reads what is still queued. */
void hct_cancel_msgs(struct hct *t, const struct hct_msg *msgs, uint32_t n);

/**
 * The credit this receiver grants f's peer now, in packets: 0 when
 * credits are off (rx_credit_bdp_pct 0), else max(1, floor(min(65535,
 * T) / n)) with T = floor(rx_credit_bdp_pct * bdp_bytes / (100 * mss))
 * the total grant and n the peers whose last new DATA arrived at most
 * rto_min_ns ago, f's peer counted in any case.
 */
uint16_t hct_credit_grant(struct hct *t, const struct hct_flow *f,
			  uint64_t now);

/**
 * The credit a receiver grants in its HELLO and HELLO_ACK, before any
 * DATA: every peer may start sending at once (an incast), so each gets
 * max(1, floor(min(65535, T) / (world_size - 1))); 0 when credits are off
 * or alone. A sender uses it until the first ACK brings a fresh grant.
 */
uint16_t hct_credit_initial(const struct hct *t);

/** Packets f may have in flight: window_pkts, or the peer's credit when
 *  it granted less. */
uint32_t hct_flow_window(const struct hct *t, const struct hct_flow *f);

/** 1 when a DATA packet to peer of a message with zc set goes zero copy
 *  now (its payload HCT_ZC_MIN_BYTES or more): zero_copy_tx auto, every
 *  port takes chained mbufs, no authentication tag, the flow sends
 *  header-only CRC (a trusted shared-memory link whose TX injector
 *  alters no byte, accepted by the peer) and its port's TX reads any
 *  memory of the program (net_memif, hc_shm; not net_virtio_user). */
int hct_zc_ok(const struct hct *t, uint32_t peer);

/** Drop one reference of a zero-copy message's shared info (struct
 *  hct_msg zc): free_cb runs when it was the last. */
void hct_zc_put(struct rte_mbuf_ext_shared_info *zc);

/** The flow of a peer, or NULL. */
static inline struct hct_flow *
hct_flow(struct hct *t, uint32_t peer)
{
	return peer < t->conf.world_size && peer != t->conf.rank ?
	       &t->flows[peer] : NULL;
}

#endif /* HC_TRANSPORT_HCT_H */
