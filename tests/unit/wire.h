/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The in-memory wire and fake port of the HCT protocol tests
 * (test_transport.c, test_sched.c; linked into test_transport).
 *
 * A struct tw_port is a struct hc_port without a NIC: every frame its
 * tx_burst accepts goes to the test's xmit hook (which owns it from then
 * on); its rx_burst returns the frames of its FIFO whose due time the
 * test's virtual clock has reached. tw_deliver() puts a frame on the wire
 * towards a port as a NIC would receive it: copied into the receiver's
 * pool, without TX offload flags.
 */
#ifndef HC_TESTS_UNIT_WIRE_H
#define HC_TESTS_UNIT_WIRE_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "hct_hdr.h"
#include "port.h"

/** Frames one FIFO holds (towards one port). */
#define TW_FIFO_CAP 4096
/** The UDP port of every endpoint of the tests. */
#define TW_UDP_PORT 51966

/** A frame on the wire. */
struct tw_frame {
	struct rte_mbuf *m;
	uint64_t due_ns;	/**< visible to rx_burst from then on (ns) */
};

/** Frames on their way to one port, in order of due time. */
struct tw_fifo {
	struct tw_frame f[TW_FIFO_CAP];
	uint32_t head;
	uint32_t len;		/**< frames queued */
};

struct tw_port;

/** Hook of tx_burst: one accepted frame, owned by the hook. */
typedef void (*tw_xmit_fn)(struct tw_port *tp, struct rte_mbuf *m);
/** Hook of tx_queued_bytes (bytes accepted, not on the wire yet). */
typedef uint64_t (*tw_queued_fn)(const struct tw_port *tp);

/** A fake port: port is what the stack under test gets. */
struct tw_port {
	struct hc_port port;
	struct tw_fifo rxq;	/**< frames towards this port */
	const uint64_t *now;	/**< the test's virtual clock (ns) */
	tw_xmit_fn xmit;
	tw_queued_fn queued;	/**< NULL: the port reports no TX ring */
	void *ctx;		/**< the test's, for its hooks */
	int up;			/**< opened, not closed yet */
	int link_down;		/**< nonzero: link_status reports the link
				 *   down (0), else up (1) */
};

/**
 * Open tp: a pool of n_mbufs mbufs (its name made unique from name), MTU
 * mtu (bytes), burst 32, no checksum offloads, a fault injector without
 * rules (seed 1).
 * @param queued NULL: no tx_queued_bytes.
 * @return 0, or -1 when the pool cannot be created.
 */
int tw_port_open(struct tw_port *tp, const char *name, unsigned int n_mbufs,
		 const struct rte_ether_addr *mac, uint16_t mtu,
		 const uint64_t *now, tw_xmit_fn xmit, tw_queued_fn queued,
		 void *ctx);

/** Free the frames of tp's FIFO and of its TX queue (not yet flushed). */
void tw_port_drain(struct tw_port *tp);

/**
 * Close tp (when open): asserts (CUnit) that every mbuf of its pool is
 * back, printing the count otherwise, then frees the pool.
 */
void tw_port_close(struct tw_port *tp);

/**
 * Queue m on q, due at due (ns), behind every frame due no later (a
 * delayed frame lets later ones overtake it).
 * @return 0, or -1 when q is full (m not queued).
 */
int tw_fifo_push(struct tw_fifo *q, struct rte_mbuf *m, uint64_t due);

/** Free every frame of q. */
void tw_fifo_clear(struct tw_fifo *q);

/**
 * A copy of m (in to's pool, without TX offload flags) on the wire towards
 * to, visible from due (ns) on. Frees m when consume.
 * @return 0, or -1 when the copy failed or to's FIFO is full (lost).
 */
int tw_deliver(struct tw_port *to, struct rte_mbuf *m, uint64_t due,
	       int consume);

/**
 * The HCT header of an IPv4/UDP frame to TW_UDP_PORT, with the HCT
 * packet's length (bytes, to the end of the frame, over every segment;
 * the header itself is in the first) in *hct_len when not NULL.
 * @return the header, or NULL for any other frame.
 */
const uint8_t *tw_frame_hct_hdr(const struct rte_mbuf *m, uint32_t *hct_len);

/**
 * Decode the HCT header of frame m into p.
 * @return 0, or -1 (not an HCT frame, or hct_hdr_decode() refused it).
 */
int tw_frame_hct_decode(const struct rte_mbuf *m, struct hct_pkt *p);

#endif /* HC_TESTS_UNIT_WIRE_H */
