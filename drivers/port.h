/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Ports: where frames enter and leave the stack. A port is a backend (an
 * ops table: DPDK ethdev today, the virtual-time `sim` network later) plus
 * what every backend shares: a short TX queue that retries partial bursts,
 * the seeded fault injector, and counters.
 */
#ifndef HC_DRIVERS_PORT_H
#define HC_DRIVERS_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "cfgkey.h"
#include "clock.h"
#include "fault.h"

struct hc_port;

/** What a backend implements. Burst functions return a count. */
struct hc_port_ops {
	uint16_t (*rx_burst)(struct hc_port *port, struct rte_mbuf **pkts,
			     uint16_t n);
	/** Takes ownership of the first frames it accepts (the count
	 *  returned); the rest stay with the caller. */
	uint16_t (*tx_burst)(struct hc_port *port, struct rte_mbuf **pkts,
			     uint16_t n);
	void (*close)(struct hc_port *port);
	/** Optional: bytes (whole frames, Ethernet header included) the
	 *  backend accepted from tx_burst but has not put on the wire yet,
	 *  i.e. what sits in the NIC's TX ring (the sim network implements
	 *  it). NULL: the backend does not know (the DPDK ethdev backend:
	 *  ethdev offers rte_eth_tx_descriptor_status() per descriptor, not a
	 *  byte count, and net_tap writes every frame to the kernel within
	 *  tx_burst), so only the port's own TX queue is counted. */
	uint64_t (*tx_queued_bytes)(const struct hc_port *port);
	/** Optional: the link's state now, without waiting: 1 up, 0 down,
	 *  -1 not known. Asked only when a peer is lost (hc_port_link_down),
	 *  never per packet. NULL: not known (hc_shm, the sim network). */
	int (*link_status)(const struct hc_port *port);
};

/** TX queue length in packets; partial bursts stay queued and are retried.
 *  Also the largest [port] burst (C27 runs bursts up to 1024). */
#define HC_PORT_TXQ 1024

struct hc_port_stats {
	uint64_t rx_pkts;     /**< frames received from the backend */
	uint64_t tx_pkts;     /**< frames the backend accepted */
	uint64_t tx_drops;    /**< frames dropped because the TX queue was full */
	uint64_t fault_drops; /**< frames dropped by the fault injector */
	uint64_t rx_drops;    /**< frames dropped: the RX queue of the fault
	                       *   injector was full */
	uint64_t tx_partial;  /**< TX bursts the backend took only in part;
	                       *   the rest stayed queued */
};

struct hc_port {
	const struct hc_port_ops *ops;
	char name[64];               /**< backend device name, for logs */
	struct rte_mempool *pool;    /**< mbufs for everything we send */
	bool pool_shared;            /**< pool belongs to a struct
	                              *   hc_port_pools (conf->pools), which
	                              *   frees it; hc_port_close() does not */
	struct rte_ether_addr mac;   /**< our MAC */
	uint32_t mtu;                /**< bytes of IPv4 packet */
	uint16_t burst;              /**< packets per rx/tx call */
	bool tx_ip_cksum;            /**< PMD fills IPv4 header checksums */
	bool tx_udp_cksum;           /**< PMD fills UDP checksums */
	bool rx_cksum;               /**< PMD checks IPv4/UDP checksums */
	bool tx_multi_seg;           /**< the backend takes chained mbufs
	                              *   (a header mbuf + a clone of the
	                              *   payload: retransmission by clone) */
	bool shm;                    /**< a shared-memory link to another
	                              *   process of this host (net_memif,
	                              *   hc_shm, net_virtio_user over a
	                              *   vhost-user socket): frames are
	                              *   copied by the CPU from one
	                              *   process's memory into the other's,
	                              *   no wire, NIC or kernel on the way
	                              *   (hct_hdr.h, "CRC coverage") */
	bool tx_any_memory;          /**< TX reads a frame's bytes through
	                              *   their virtual address in this
	                              *   process before tx_burst returns
	                              *   (net_memif and hc_shm copy them
	                              *   into the link's ring), so an mbuf
	                              *   may point at any memory of the
	                              *   program: zero-copy TX from user
	                              *   memory (hct_zc_ok()). Not
	                              *   net_virtio_user: its vhost-user
	                              *   backend reads the frame later, by
	                              *   address, in the DPDK memory it
	                              *   mapped, which user memory is not */
	uint16_t port_id;            /**< DPDK backend: ethdev port */
	bool memif;                  /**< DPDK backend: the device is a
	                              *   net_memif (its name, read once at
	                              *   open): close order, link wait,
	                              *   prefault and error text differ */
	bool close_after_peer;       /**< DPDK backend: a memif server, which
	                              *   closes only once its client has
	                              *   (see hc_port_close) */
	uint32_t close_wait_ms;      /**< ... waiting at most this long */
	uint16_t tx_held_max;        /**< DPDK backend: mbufs the PMD may keep
	                              *   after it sent them (net_virtio_user
	                              *   frees sent mbufs only once its TX
	                              *   ring is nearly full: the ring's
	                              *   size); 0: freed at once */
	void *backend;               /**< other backends' state (sim: the
	                              *   simulated host) */
	struct hc_fault fault;       /**< injector applied on TX and RX */
	const struct hc_clock *clk;  /**< time of delayed/reordered frames;
	                              *   NULL: time stands at 0 */
	struct hc_port_stats stats;
	uint16_t txq_len;
	uint16_t rxq_len;
	uint64_t txq_bytes;          /**< bytes of the frames in txq */
	uint32_t txq_segs;           /**< mbufs the frames in txq keep
	                              *   (hc_frame_mbufs: a retransmission by
	                              *   clone is a chain of 2 and pins the
	                              *   saved packet); read by
	                              *   hc_mbuf_stats_get */
	struct rte_mbuf *txq[HC_PORT_TXQ];
	/** Frames the RX injector passed (duplicates, released frames) and
	 *  hc_port_rx() did not hand out yet. */
	struct rte_mbuf *rxq[HC_PORT_TXQ];
};

/**
 * Largest MTU, bytes of IPv4 packet. A frame (MTU + 18 bytes of Ethernet
 * header and VLAN tag) lives in one mbuf, whose buf_len (uint16_t) also
 * holds the 128-byte headroom: MTU <= 65389; IPv4's total length and
 * net_memif's bsize (uint16_t) allow that too. Only ports that carry such
 * frames take it (net_memif, whose ring slots are bsize bytes, and the
 * sim; net_af_packet too, whose PACKET_MMAP slots are framesz bytes); a
 * DPDK PMD's own max_mtu is checked at open, and hc-launch keeps tap and
 * virtio at 9000.
 */
#define HC_PORT_MTU_MAX 65000

/** The pool's bytes of data room when [port] pool_mbufs is 0 (auto):
 *  16383 mbufs of a 9000-byte MTU frame (the default before MTUs above
 *  9000) with 64 bytes to spare for what a PMD adds beside the frame
 *  (net_virtio_user's 12-byte header). */
#define HC_PORT_POOL_AUTO_BYTES (16383ull * (9000 + 18 + 64))

/** Most pools one struct hc_port_pools holds: one per distinct frame,
 *  and a rank has at most 16 ports (HC_RANK_PORTS_MAX). */
#define HC_PORT_POOLS_MAX 16

/**
 * The mbuf pools of one rank's ports, shared by the ports whose pools
 * would be alike (the same data room and number of mbufs) and whose
 * backend parks no mbufs (hc_port_pool_create's share): a rank's full
 * mesh of n - 1 memif or shm links takes one pool, not n - 1. Those pools
 * were what made a mesh slow to start and end: measured 2026-12-07, 4 shm
 * ranks (hc-perf -b 8 -e 8 -n 1), 7.9 s per job, most of its CPU in DPDK
 * populating three 149 MB pools per rank (first-touch page faults, mbuf
 * init) and zeroing them again as rte_mempool_free gave them back. One
 * pool is enough: the transport takes every mbuf it sends from port 0's
 * pool already, and the other ports' pools held only what they received.
 * Zero-initialize; the caller frees the set with hc_port_pools_free()
 * after closing every port that used it (hc_port_close() leaves a shared
 * pool alone, so no port's close frees mbufs another port still holds).
 */
struct hc_port_pools {
	uint32_t n; /**< entries of pool[] in use */
	struct rte_mempool *pool[HC_PORT_POOLS_MAX];
};

/**
 * Free every pool of pools (rte_mempool_free) and empty the set. Call once
 * every port that took a pool from it is closed. NULL is a no-op.
 */
void hc_port_pools_free(struct hc_port_pools *pools);

/** What hc_port_open_dpdk() needs besides the devargs. */
struct hc_port_conf {
	uint32_t mtu;          /**< bytes of IPv4 packet, 68..HC_PORT_MTU_MAX */
	uint32_t pool_mbufs;   /**< mbufs in the pool; 0: auto, see
	                        *   hc_port_pool_mbufs() */
	uint16_t rx_desc;      /**< RX ring size, descriptors */
	uint16_t tx_desc;      /**< TX ring size, descriptors; a DPDK port
	                        *   cuts it to a quarter of its pool's mbufs
	                        *   (the ring keeps what it sent until the
	                        *   PMD reclaims it) */
	uint16_t burst;        /**< packets per rx/tx call, <= HC_PORT_TXQ */
	uint32_t link_wait_ms; /**< how long to wait for link up */
	const struct rte_ether_addr *mac; /**< port MAC, NULL: the PMD's */
	const char *pool_name; /**< unique within the process */
	struct hc_port_pools *pools; /**< NULL: the port creates its own pool
	                              *   and hc_port_close() frees it; else
	                              *   it takes this set's pool of its data
	                              *   room and size, creating it there
	                              *   (named pool_name) if there is none */
};

/** The cluster-file keys of struct hc_port_conf (port_cfg.c); mac and
 *  pool_name are the caller's. */
extern const struct hc_cfg_table hc_port_cfg_table;

/**
 * Probe a DPDK vdev from its devargs ("net_tap0,iface=hct0"), create its
 * mbuf pool (pool_mbufs of MTU + Ethernet header + headroom bytes each),
 * configure one RX and one TX queue, request IPv4/UDP checksum offloads
 * only where rte_eth_dev_info offers them (software checksums otherwise),
 * start it and wait for link up.
 *
 * For net_tap, the kernel side of the tap gets the port's MAC with bit 0x04
 * of the first byte flipped: DPDK gives both sides the same MAC, and a
 * Linux bridge treats a port's own MAC as local, keeping frames for that
 * MAC instead of forwarding them to the port. The tap must also be this
 * process's alone: net_tap attaches to an existing multi-queue tap by
 * name, so a second process given the same iface= starts as well and the
 * two share its frames (C32); more queues attached to the tap than the
 * port's one queue pair (/sys/class/net/<tap>/queues, read again for up
 * to 1 s) fail the open, and the tap, which closing the port set down,
 * is set up again for the process that holds it. The count is skipped
 * where /sys shows another network namespace than the tap's (its
 * address there is not the kernel-side MAC just set).
 *
 * For net_af_packet, whose PACKET_MMAP slots are the devargs' framesz
 * bytes (default 2048), the mbufs get room for a whole slot, and a slot
 * too small for a [net] mtu frame (framesz < mtu + 80: the kernel writes
 * a frame at offset 66 of its slot and would cut it) fails the open.
 *
 * @return 0, -HC_ERR_INVAL, -HC_ERR_NOMEM, -HC_ERR_PORT (probe, configure,
 *         queue setup or start failed; logged with the DPDK error),
 *         -HC_ERR_CONFIG (net_af_packet: framesz below mtu + 80, above
 *         65439 (an mbuf holds 65407 bytes beside its headroom, and the
 *         PMD wants framesz - 32) or not a number; logged),
 *         -HC_ERR_LINK_DOWN, -HC_ERR_ADDR_IN_USE (net_tap: another
 *         process holds queues of the same tap; logged naming it).
 */
int hc_port_open_dpdk(struct hc_port *port, const char *devargs,
		      const struct hc_port_conf *conf);

/** hc_shm slots per direction: default, least and most (powers of 2). A
 *  slot holds one frame: [net] mtu + 18 bytes plus 128 of headroom,
 *  rounded up to 64; at MTU 9000 the default makes 2.3 MB of shared
 *  memory per link. 128 rather than more: the frames in flight then stay
 *  in the L3 cache; 2 ranks, 4..64 MiB, busbw 1.3-1.6x that of 1024
 *  slots here (figures in apps/hc-launch/hc-launch, "Ring sizes"). */
#define HC_SHM_SLOTS_DEFAULT 128
#define HC_SHM_SLOTS_MIN 64
#define HC_SHM_SLOTS_MAX 16384

/**
 * Open an hc_shm port, hypercomm's own shared-memory link to one other
 * process of this host (drivers/port_shm.c). devargs:
 * "hc_shmN,path=FILE,role=server|client[,slots=N][,mac=MAC]". The server
 * creates the link's memory (a memfd, 2 x slots frames) and a Unix socket
 * at FILE, and returns at once; it hands the memory to the client (and
 * removes FILE) from a later rx poll. The client waits up to
 * conf->link_wait_ms for FILE, connects and maps the memory. TX copies a
 * frame (every segment) into a free slot; RX lends the slot to an mbuf as
 * an external buffer until it is freed, or copies once more than half
 * the slots are lent. No MAC given: a random one.
 * @return 0; -HC_ERR_INVAL (devargs or conf; logged naming the key);
 *         -HC_ERR_NOMEM (pool, memfd or mapping); -HC_ERR_PORT (the
 *         socket, or a server with other slots or MTU);
 *         -HC_ERR_LINK_DOWN (client: no server answered on FILE in time,
 *         or another client took the link).
 */
int hc_port_open_shm(struct hc_port *port, const char *devargs,
		     const struct hc_port_conf *conf);

/** Open the port devargs names: hc_port_open_shm() for "hc_shm...",
 *  hc_port_open_dpdk() for anything else. Returns what they return. */
int hc_port_open(struct hc_port *port, const char *devargs,
		 const struct hc_port_conf *conf);

/**
 * Mbufs in the pool for conf: conf->pool_mbufs, or when that is 0 (auto)
 * 16383 up to MTU 9000 and above it the largest 2^k - 1 (at least 1023)
 * whose data rooms (the MTU's frame + a VLAN tag + extra_room) fit in
 * HC_PORT_POOL_AUTO_BYTES (MTU 16000: 8191, 32000: 4095, 65000: 2047),
 * so that the pool's memory stays about 149 MB however large the frames.
 * @param extra_room bytes the PMD needs beside the frame, as for
 *        hc_port_pool_create() (net_af_packet: its slot's, so MTU 9000 in
 *        65280-byte slots gets 2047 mbufs, as MTU 65000 does).
 */
static inline uint32_t
hc_port_pool_mbufs(const struct hc_port_conf *conf, uint32_t extra_room)
{
	uint64_t frame = (uint64_t)conf->mtu + 18 + extra_room, n = 16383;

	if (conf->pool_mbufs != 0)
		return conf->pool_mbufs;
	while (n > 1023 && n * frame > HC_PORT_POOL_AUTO_BYTES)
		n >>= 1;
	return (uint32_t)n;
}

/**
 * What every backend's open does first: zero port, check conf (burst
 * 1..HC_PORT_TXQ, a pool name), name the port after the devargs up to the
 * first comma, take conf's MTU and burst, set up an idle fault injector.
 * @return 0, -HC_ERR_INVAL (devargs or conf NULL, bad burst, no pool
 *         name), -HC_ERR_PORT (no device name, or one of 64 bytes or
 *         more; logged).
 */
int hc_port_init(struct hc_port *port, const char *devargs,
		 const struct hc_port_conf *conf);

/**
 * Create port->pool for conf: hc_port_pool_mbufs(conf, extra_room) mbufs of one frame each
 * (MTU + Ethernet header + a VLAN tag + extra_room bytes, at least
 * RTE_MBUF_DEFAULT_DATAROOM, plus headroom), named conf->pool_name.
 * Shared by every backend. With conf->pools and share, a pool of that set
 * with the same data room and number of mbufs is taken instead of creating
 * one, and a pool created is added to the set (port->pool_shared either
 * way); a full set (HC_PORT_POOLS_MAX distinct pools) leaves the port its
 * own.
 * @param extra_room bytes a PMD needs in the data room beside the frame:
 *        net_virtio_user's RX takes a buffer only if its room holds the
 *        frame plus the 12-byte virtio-net header (struct
 *        virtio_net_hdr_mrg_rxbuf; DPDK 22.11 virtio_rx_check_scatter);
 *        0 for the others (net_memif's fast paths need bsize == room).
 * @param share the backend keeps no mbufs of the pool in rings of its own
 *        (net_memif in copy mode allocates on RX and frees on TX at once;
 *        hc_shm lends its slots), so ports may share a pool without one
 *        port's rings taking the mbufs another needs. false for PMDs that
 *        fill RX rings from the pool or keep sent mbufs (net_tap,
 *        net_af_packet, net_virtio_user, NICs: rx_desc + tx_desc each).
 * @return 0, -HC_ERR_ADDR_IN_USE (a pool of conf->pool_name exists in
 *         this DPDK instance, another port's; logged naming it, C32), or
 *         -HC_ERR_NOMEM
 *         (logged with the DPDK error).
 */
int hc_port_pool_create(struct hc_port *port, const struct hc_port_conf *conf,
			uint32_t extra_room, bool share);

/** Bytes the backend holds for TX and has not sent (see
 *  hc_port_ops.tx_queued_bytes); 0 when the backend cannot tell. */
static inline uint64_t
hc_port_tx_queued_bytes(const struct hc_port *port)
{
	return port->ops->tx_queued_bytes != NULL ?
	       port->ops->tx_queued_bytes(port) : 0;
}

/**
 * Stop and close the backend, free queued and held frames and the pool
 * (not a pool of a struct hc_port_pools: hc_port_pools_free() frees it).
 * A memif server port (close_after_peer) first waits, up to close_wait_ms,
 * for its client to disconnect. A net_memif port is stopped and closed on
 * EAL's interrupt thread (an alarm callback, waited for up to 5 s): DPDK
 * 22.11's net_memif runs a peer's disconnect on that thread, and a local
 * close on another thread at the same time frees the regions and control
 * channel twice (seen as a SIGSEGV in eal-intr-thread when every rank of
 * a mesh finalizes at once). Close client ports first
 * (the server of each link is the lower rank, so the chain ends at the
 * highest rank, which has only clients).
 */
void hc_port_close(struct hc_port *port);

/**
 * Receive up to n frames (n <= HC_PORT_TXQ). With RX faults set, frames
 * from the backend pass the injector first; frames it holds are released
 * by later calls.
 */
uint16_t hc_port_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n);

/**
 * Queue one frame for TX; it is sent by hc_port_flush() or when the queue
 * holds a burst. The fault injector may drop it here. The port owns m in
 * every case.
 * @return 0 when queued (or dropped by the injector), -HC_ERR_NOMEM when
 *         the queue was full and m was dropped.
 */
int hc_port_tx(struct hc_port *port, struct rte_mbuf *m);

/** Hand queued frames to the backend (first the TX frames the injector
 *  held whose time came); what it refuses stays queued.
 *  @return frames still queued. */
uint16_t hc_port_flush(struct hc_port *port);

/**
 * Bytes handed to the port but not on the wire yet: the frames in the
 * port's own TX queue plus, when the backend implements
 * tx_queued_bytes, what it holds. The transport keeps this under
 * [transport] tx_ring_max_bytes before it cuts more DATA.
 */
static inline uint64_t
hc_port_tx_pending_bytes(const struct hc_port *port)
{
	return port->txq_bytes + hc_port_tx_queued_bytes(port);
}

/**
 * 1 when frames of direction dir on port can change only where the
 * program itself changes memory: a shared-memory backend (port->shm) and
 * a fault injector that neither corrupts nor truncates that direction
 * (hc_fault_alters_bytes()). The injector's rules are those set when the
 * caller asks (the stack asks at hct_init, after [fault] set them).
 */
static inline bool
hc_port_bytes_trusted(const struct hc_port *port, enum hc_fault_dir dir)
{
	return port->shm && !hc_fault_alters_bytes(&port->fault, dir);
}

/**
 * true when port is a wire (not a shared-memory link, port->shm) whose
 * backend reports its link down right now (the link_status op). C31: a
 * rank whose own tap was set down says HC_ERR_LINK_DOWN, not
 * HC_ERR_PEER_LOST. false when the link is up, when the backend cannot
 * tell (net_af_packet of DPDK 22.11 always says up), and on a
 * shared-memory link: net_memif's and hc_shm's link goes down when the
 * peer's process ends, which is a lost peer, not a lost link; the other
 * end of net_virtio_user's is hc-vswitch, whose link query may reconnect
 * the socket (not for the engine's thread).
 */
static inline bool
hc_port_link_down(const struct hc_port *port)
{
	return !port->shm && port->ops->link_status != NULL &&
	       port->ops->link_status(port) == 0;
}

/** A fresh mbuf from the port's pool, or NULL. */
static inline struct rte_mbuf *
hc_port_alloc(struct hc_port *port)
{
	return rte_pktmbuf_alloc(port->pool);
}

#endif /* HC_DRIVERS_PORT_H */
