/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The memory an hc_shm link shares (drivers/port_shm.c): what both ends
 * of a link, possibly of different builds, must agree on, so it carries a
 * version. Offsets are bytes from the start of the memfd:
 *
 *   0                      struct hc_shm_hdr
 *   hc_shm_rings_off(s, d) direction d's descriptor ring (s x struct
 *                          hc_shm_desc), then its free ring (s x uint32_t
 *                          slot numbers); d = 0 server -> client, 1 back
 *   hc_shm_slots_off(s, b, d)  direction d's s slots of b bytes each; a
 *                          frame starts HC_SHM_HEADROOM bytes into its slot
 *   hc_shm_map_bytes(s, b) the memfd's size
 *
 * Ring positions are free-running uint32_t counters (index = counter &
 * (slots - 1)); the producer of direction d publishes descriptors up to
 * dir[d].head, its consumer gives slots back up to dir[d].fhead (which
 * starts at slots: every slot free). Both stores are release stores and
 * both loads acquire loads.
 */
#ifndef HC_DRIVERS_PORT_SHM_H
#define HC_DRIVERS_PORT_SHM_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf_core.h>

#define HC_SHM_MAGIC 0x6873636bu /**< hdr.magic once the server set up */
#define HC_SHM_VERSION 1u       /**< of this layout */
/** Bytes before the frame in a slot, as in a mempool mbuf: an RX mbuf
 *  lent the slot has the usual headroom. */
#define HC_SHM_HEADROOM RTE_PKTMBUF_HEADROOM

/** One published frame. */
struct hc_shm_desc {
	uint32_t slot; /**< 0..slots-1 */
	uint32_t len;  /**< bytes of frame, <= slot_bytes - HC_SHM_HEADROOM */
};

/** The two counters of a direction, a cache line each. */
struct hc_shm_dir {
	alignas(64) uint32_t head;  /**< descriptors published (producer) */
	alignas(64) uint32_t fhead; /**< slots given back (consumer) */
	alignas(64) uint8_t end[0];
};

struct hc_shm_hdr {
	uint32_t magic;      /**< HC_SHM_MAGIC, stored last by the server */
	uint32_t version;    /**< HC_SHM_VERSION */
	uint32_t slots;      /**< per direction, a power of 2 */
	uint32_t slot_bytes; /**< hc_shm_slot_bytes([net] mtu) */
	uint32_t attached;   /**< 1 once the client mapped it */
	alignas(64) struct hc_shm_dir dir[2];
};

static inline size_t
hc_shm_align(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/** Bytes of a slot for MTU mtu: headroom, the frame with a VLAN tag,
 *  rounded up to a cache line. */
static inline uint32_t
hc_shm_slot_bytes(uint32_t mtu)
{
	return (uint32_t)hc_shm_align(HC_SHM_HEADROOM + mtu +
				      RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN, 64);
}

static inline size_t
hc_shm_rings_off(uint32_t slots, int d)
{
	return hc_shm_align(sizeof(struct hc_shm_hdr), 64) +
	       (size_t)d * hc_shm_align(slots * (sizeof(struct hc_shm_desc) +
						 sizeof(uint32_t)), 64);
}

static inline size_t
hc_shm_slots_off(uint32_t slots, uint32_t slot_bytes, int d)
{
	return hc_shm_align(hc_shm_rings_off(slots, 2), 4096) +
	       (size_t)d * slots * slot_bytes;
}

static inline size_t
hc_shm_map_bytes(uint32_t slots, uint32_t slot_bytes)
{
	return hc_shm_align(hc_shm_slots_off(slots, slot_bytes, 2), 4096);
}

#endif /* HC_DRIVERS_PORT_SHM_H */
