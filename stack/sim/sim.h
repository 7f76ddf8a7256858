/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * sim: an in-process Ethernet network in virtual time, and a port backend
 * on it, so that many ranks of the real stack (net, transport, collectives)
 * run in one process (stack/sim/simrun.h runs them).
 *
 * Model (discrete events):
 * - Nodes are hosts (one NIC each) and switches. Topologies: star (every
 *   host on switch 0) and two-tier (hosts in groups of `group` on leaf
 *   switches, the leaves joined by one spine). Hosts are numbered
 *   0..hosts-1; host h sits on leaf h / group.
 * - Every cable is two links, one per direction. A link sends one frame
 *   at a time from its egress queue: serialization takes
 *   frame bytes * 8 / rate_gbps ns (frame bytes = the mbuf's pkt_len: no
 *   preamble, FCS or inter-frame gap), then the frame propagates for
 *   prop_ns and arrives whole at the other end (store and forward).
 * - Queue occupancy of a link is the bytes it accepted and has not finished
 *   serializing (the frame on the wire included). A frame that would take
 *   it above the limit is dropped at the tail (counted). When the
 *   occupancy before the enqueue is above ecn_bytes (> 0) and the frame is
 *   IPv4 ECT(0)/ECT(1), it is marked CE (RFC 3168 section 5) and its IPv4
 *   header checksum recomputed (counted). A frame that finished
 *   serializing is lost with probability loss (the link's own seeded
 *   PRNG; counted); it used the link's time all the same.
 * - Switch egress: 4 strict-priority queues per link, chosen by
 *   hc_sim_dscp_queue(), sharing the link's byte limit. Host NIC egress:
 *   one FIFO of nic_queue_bytes (the stack schedules its own traffic); a
 *   full NIC refuses frames in tx_burst, which the port's TX queue
 *   retries. ECN marking applies at switch egress only.
 * - Switches forward by destination MAC (hosts register theirs when their
 *   port opens); broadcast and multicast frames are flooded to every other
 *   port; frames to unknown MACs are dropped and counted.
 * - Frames are copied into the sim's own pool when they enter the network
 *   (the sender may keep its mbuf for retransmission); a receiver gets the
 *   copy.
 * - Time: events are kept in picoseconds (exact serialization at any
 *   rate), in a binary heap keyed by (time, insertion sequence), so events
 *   at one time run in a fixed order: a run is a function of its inputs
 *   and seed. The clock the stack reads (hc_sim_clock()) is in ns and
 *   moves only in hc_sim_advance(); a frame is visible to rx_burst from the
 *   first ns at or after its arrival.
 *
 * Not thread-safe: one thread drives a sim and every port on it.
 */
#ifndef HC_SIM_SIM_H
#define HC_SIM_SIM_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "clock.h"
#include "port.h"

/** Strict-priority queues per switch egress port. */
#define HC_SIM_QUEUES 4

/** Defaults of struct hc_sim_conf fields left 0. */
#define HC_SIM_DEF_POOL_MBUFS 65535  /**< mbufs in the sim's pool */
#define HC_SIM_DEF_MTU 1500          /**< bytes of IPv4 packet */
#define HC_SIM_DEF_NIC_QUEUE (256 * 1024) /**< NIC egress, bytes */
#define HC_SIM_DEF_START_NS HC_NS_PER_S   /**< virtual time at creation */

enum hc_sim_topo {
	HC_SIM_TOPO_STAR = 0,  /**< every host on one switch */
	HC_SIM_TOPO_TWO_TIER,  /**< leaves of `group` hosts under one spine */
};

/** One link direction's parameters (both directions of a cable get the
 *  same ones at creation; hc_sim_link_set() changes one). */
struct hc_sim_link_conf {
	double rate_gbps;     /**< Gbit/s (= bits per ns), > 0 */
	uint64_t prop_ns;     /**< propagation delay, ns */
	uint32_t queue_bytes; /**< switch egress limit, bytes, > 0 (the host
	                       *   NIC egress uses hc_sim_conf.nic_queue_bytes) */
	uint32_t ecn_bytes;   /**< CE-mark above this occupancy, bytes; 0: off */
	double loss;          /**< probability 0..1 that a frame is lost */
};

struct hc_sim_conf {
	enum hc_sim_topo topo;
	uint32_t hosts;       /**< 1..HC_SIM_MAX_HOSTS */
	uint32_t group;       /**< two-tier: hosts per leaf, >= 1 */
	struct hc_sim_link_conf host_link;   /**< host <-> its switch */
	struct hc_sim_link_conf fabric_link; /**< two-tier: leaf <-> spine */
	uint32_t nic_queue_bytes; /**< host NIC egress FIFO, bytes;
	                           *   0: HC_SIM_DEF_NIC_QUEUE */
	uint32_t mtu;         /**< largest IPv4 packet, bytes; 0: 1500 */
	uint32_t pool_mbufs;  /**< the sim's pool; 0: HC_SIM_DEF_POOL_MBUFS */
	uint64_t seed;        /**< seeds every link's loss PRNG */
	uint64_t start_ns;    /**< initial virtual time; 0: 1 s */
};

#define HC_SIM_MAX_HOSTS 65536

/** Counters of one priority class on one link. */
struct hc_sim_queue_stats {
	uint64_t pkts;        /**< frames forwarded (serialized, not lost) */
	uint64_t bytes;       /**< their bytes */
	uint64_t tail_drops;  /**< dropped at enqueue: queue full */
	uint64_t loss_drops;  /**< lost on the link (random loss) */
	uint64_t ecn_marks;   /**< marked CE at enqueue */
};

/** Counters of one link: totals, and per class (hc_sim_dscp_queue()),
 *  also for host NIC links, whose single FIFO ignores the class. */
struct hc_sim_link_stats {
	struct hc_sim_queue_stats total;
	struct hc_sim_queue_stats queue[HC_SIM_QUEUES];
	uint64_t max_queue_bytes; /**< largest occupancy seen, bytes */
};

/** Events that are no link's. */
struct hc_sim_stats {
	uint64_t unknown_dst; /**< unicast frames to a MAC no host has */
	uint64_t no_mbuf;     /**< copies that failed: sim pool empty */
	uint64_t rx_overflow; /**< frames dropped: a host's RX ring full */
	uint64_t tx_refused;  /**< frames a full NIC egress refused (a frame
	                       *   the port offers again counts again) */
	uint64_t events;      /**< events processed */
};

/** Which link: the four kinds and the index they take. */
enum hc_sim_link_kind {
	HC_SIM_LINK_HOST_UP = 0, /**< host i -> its switch (the NIC egress) */
	HC_SIM_LINK_HOST_DOWN,   /**< switch -> host i */
	HC_SIM_LINK_LEAF_UP,     /**< two-tier: leaf i -> spine */
	HC_SIM_LINK_LEAF_DOWN,   /**< two-tier: spine -> leaf i */
};

struct hc_sim;

/**
 * Create a network: hosts, switches, links, the pool
 * (conf->pool_mbufs frames of MTU + 18 bytes) and a manual clock at
 * conf->start_ns.
 * @return 0, -HC_ERR_INVAL (conf NULL, hosts 0 or above HC_SIM_MAX_HOSTS,
 *         group 0 in two-tier, a rate <= 0, a queue of 0 bytes, loss
 *         outside 0..1, MTU outside 68..HC_PORT_MTU_MAX), -HC_ERR_NOMEM.
 */
int hc_sim_create(const struct hc_sim_conf *conf, struct hc_sim **out);

/** Free the network and every frame it holds. Ports on it must be
 *  closed first (hc_port_close()); sim may be NULL. */
void hc_sim_destroy(struct hc_sim *sim);

/** The manual clock every host of the network reads (ns). */
const struct hc_clock *hc_sim_clock(const struct hc_sim *sim);

/** Current virtual time, ns. */
uint64_t hc_sim_now(const struct hc_sim *sim);

/** Time of the next pending event, ns (rounded up), in *t_ns.
 *  @return 1 if there is one, 0 if the network is empty. */
int hc_sim_next_event(const struct hc_sim *sim, uint64_t *t_ns);

/** Run every event due at or before t_ns in (time, sequence) order, then
 *  set the clock to t_ns. A t_ns in the past only runs what is due. */
void hc_sim_advance(struct hc_sim *sim, uint64_t t_ns);

/** Frames waiting in host's RX ring (0 for a bad host). */
uint32_t hc_sim_rx_pending(const struct hc_sim *sim, uint32_t host);

/** Whether host's NIC egress would take a frame of `bytes` now (0 for a
 *  bad host). */
int hc_sim_nic_room(const struct hc_sim *sim, uint32_t host, uint32_t bytes);

/** Number of hosts. */
uint32_t hc_sim_hosts(const struct hc_sim *sim);

/**
 * Id of a link, for hc_sim_link_stats()/hc_sim_link_set().
 * @param idx host for HOST_*, leaf for LEAF_*.
 * @return the id (>= 0), or -HC_ERR_INVAL (no such link: idx out of range,
 *         LEAF_* in a star).
 */
int hc_sim_link_id(const struct hc_sim *sim, enum hc_sim_link_kind kind,
		   uint32_t idx);

/** Copy one link's counters. @return 0, -HC_ERR_INVAL (bad link id). */
int hc_sim_link_stats(const struct hc_sim *sim, int link,
		      struct hc_sim_link_stats *st);

/** Sum of every link's counters (max_queue_bytes: the largest). */
void hc_sim_link_stats_total(const struct hc_sim *sim,
			     struct hc_sim_link_stats *st);

/** Copy the network-wide counters. */
void hc_sim_stats(const struct hc_sim *sim, struct hc_sim_stats *st);

/**
 * Change one link direction's parameters from now on (frames already
 * queued stay; a smaller limit drops nothing already accepted). For a
 * host's NIC egress (HOST_UP) queue_bytes sets the NIC FIFO limit.
 * @return 0, -HC_ERR_INVAL (bad id or parameters, as hc_sim_create).
 */
int hc_sim_link_set(struct hc_sim *sim, int link,
		    const struct hc_sim_link_conf *lc);

/** A loss filter: 1 drops frame m (counted as a loss drop). */
typedef int (*hc_sim_filter_fn)(const struct rte_mbuf *m, void *arg);

/**
 * Drop the frames fn chooses on one link, from now on, after their
 * serialization (as random loss; counted in loss_drops): how a test
 * loses exactly the packet it means to. fn NULL removes the filter.
 * @return 0, -HC_ERR_INVAL (sim NULL or bad link id).
 */
int hc_sim_link_filter(struct hc_sim *sim, int link, hc_sim_filter_fn fn,
		       void *arg);

/**
 * Switch egress queue of an IPv4 DSCP (TOS >> 2), highest priority 0:
 * 48 and 56 (CS6, CS7: network control, RFC 4594) -> 0; 46 (EF,
 * RFC 3246) -> 1; 8 (CS1, lower effort, RFC 8622 / RFC 4594) -> 3;
 * every other value -> 2.
 */
unsigned int hc_sim_dscp_queue(uint8_t dscp);

/** Queue of a frame: hc_sim_dscp_queue() of an untagged IPv4 frame; 0
 *  for anything else (ARP is network control). */
unsigned int hc_sim_frame_queue(const struct rte_mbuf *m);

/**
 * Open a port on host `host` of sim: its pool as hc_port_open_dpdk()
 * (conf->pool_mbufs, conf->pool_name), an RX ring of conf->rx_desc frames
 * (arrivals beyond it are dropped and counted in rx_overflow), MAC
 * *conf->mac (required) registered with the switches. No checksum
 * offloads: the stack computes and checks checksums itself. tx_burst
 * copies frames into the NIC egress FIFO and frees the originals; it
 * refuses frames once the FIFO is full or the sim's pool is empty.
 * ops->tx_queued_bytes reports the FIFO's occupancy.
 * @return 0, -HC_ERR_INVAL (NULL argument, host out of range or already
 *         open, MAC missing or another host's, burst 0 or above
 *         HC_PORT_TXQ, MTU above the sim's), -HC_ERR_NOMEM.
 */
int hc_port_open_sim(struct hc_port *port, struct hc_sim *sim, uint32_t host,
		     const struct hc_port_conf *conf);

#endif /* HC_SIM_SIM_H */
