/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * HCT wire header, version 1: the first bytes of every UDP payload on
 * [net] udp_port (default 51966). Defined once here; every multi-byte field
 * is in network byte order on the wire. Code never reads the wire struct
 * directly: hct_hdr_encode()/hct_hdr_decode() convert to and from the
 * host-order struct hct_pkt.
 *
 * Layout (104 bytes, no padding; offsets in bytes):
 *   0 version(1) type(1) flags(1) prio(1)
 *   4 job_id(4)           8 src_nonce(4)       12 dst_nonce(4)
 *  16 src_rank(2) dst_rank(2)                  20 flow_id(2) ecn_ce(2)
 *  24 psn(4)             28 ack_psn(4)         32 sack[2](16)
 *  48 ts_ns(8)           56 ts_echo_ns(8)      64 host_delay_ns(4)
 *  68 comm_id(4)         72 coll_seq(4)        76 sig(4)
 *  80 step(2) credit(2)  84 length(4)          88 offset(8)
 *  96 crc(4)            100 cov(1) cov_accept(1) flags2(1) rsvd(1)
 * A DATA packet's payload (length bytes) follows the header.
 * cov (CRC coverage, enum hct_cov): what the crc covers, HCT_COV_FULL
 * (0: header and payload, every packet of HCT v1 before the field) or
 * HCT_COV_HDR (1: the header only, DATA over a shared-memory link both
 * ends agreed on, see "CRC coverage" below); other values: the packet
 * fails the CRC check. cov_accept (HELLO and HELLO_ACK): 1 when the
 * sender accepts HCT_COV_HDR DATA from the receiver of the HELLO, else
 * 0. Both lie before the end of the header and so inside the CRC: a
 * flipped cov or cov_accept fails the check like any other header bit.
 * flags2: more flags (HCT_F2_*), 0 before they existed; unknown bits
 * are ignored on RX. rsvd: 0 on TX, ignored on RX.
 * HELLO and HELLO_ACK carry the sender's world size in offset (0: not
 * said); a receiver of the same job with another world size drops it and
 * fails its set-up naming both sizes (C36: the ranks disagree). They
 * also carry in sack[0] the wall-clock start of the sender's incarnation
 * (CLOCK_REALTIME ns, 0: not said): a HELLO with a new nonce is a restart
 * only when that start is later than the known incarnation's, and a
 * HELLO that started long before the receiver (hct_conf stale_window_ns)
 * is a replay of an earlier run; both are dropped as stale.
 */
#ifndef HC_TRANSPORT_HCT_HDR_H
#define HC_TRANSPORT_HCT_HDR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#define HCT_VERSION 1

/** Packet types. */
enum hct_type {
	HCT_TYPE_DATA = 1,      /**< payload for a collective step */
	HCT_TYPE_ACK = 2,       /**< cumulative ACK + SACK, no payload */
	HCT_TYPE_NACK = 3,      /**< reserved for receiver-driven loss reports */
	HCT_TYPE_HELLO = 4,     /**< "I am rank src with nonce src_nonce" */
	HCT_TYPE_HELLO_ACK = 5, /**< answer to HELLO, dst_nonce = its nonce */
	HCT_TYPE_ABORT = 6,     /**< reserved: communicator aborted */
	HCT_TYPE__MAX
};

/** flags */
#define HCT_F_ACK_VALID 0x01 /**< ack_psn/sack/ts_echo carry information */
#define HCT_F_ALWAYS_ON 0x02 /**< HELLO: the sender progresses between API
                              *   calls, so its silence means it is gone */
#define HCT_F_PROBE     0x04 /**< ACK: answer with an ACK at once */
#define HCT_F_RNR       0x08 /**< ACK: receiver not ready (as InfiniBand's
                              *   RNR NAK): DATA was refused for lack of
                              *   room; the peer is alive, retry later */
#define HCT_F_LAST      0x10 /**< DATA: the last packet of its message */
/** flags2, DATA with HCT_F_LAST: when it was cut, the sender had no other
 *  DATA queued for this flow, so no window or credit of its waits for the
 *  ACK: the receiver may hold that ACK up to [transport] ack_delay_us for
 *  DATA of its own to carry it (a delayed ACK, RFC 1122 4.2.3.2, at µs
 *  scale). Without it the receiver acknowledges a message's end at once,
 *  as before the bit existed. */
#define HCT_F2_TX_IDLE  0x01
#define HCT_F_RETX      0x20 /**< DATA: a retransmission */
#define HCT_F_ECE       0x40 /**< ACK: ecn_ce counts CE-marked DATA
                              *   (RFC 3168's ECN-Echo, with a count as
                              *   in DCTCP's accurate feedback) */
#define HCT_F_AUTH      0x80 /**< any type: HCT_TAG_LEN bytes of keyed tag
                              *   follow the packet (authenticated mode) */

/**
 * Authenticated mode ([job] key_file): every packet has HCT_F_AUTH set
 * and a trailer of HCT_TAG_LEN bytes after the header and payload (so a
 * DATA packet is HCT_HDR_LEN + length + HCT_TAG_LEN bytes of UDP payload;
 * length itself does not count the tag). The tag is keyed BLAKE2b-128
 * (libsodium crypto_generichash, stack/transport/auth.c) of every byte
 * before it: the header (job id, ranks, nonces, PSN, CRC included) and the
 * payload. The CRC32C covers what the header's cov says (header and
 * payload, or the header only) as without the mode, the tag not. A receiver in the mode drops (hc_stats hct_bad_tag_rx) any
 * packet without the flag, shorter than header + tag, or whose tag is
 * wrong, before any other check; a receiver not in the mode sees a length
 * that disagrees with the header (malformed).
 */
#define HCT_TAG_LEN 16

/**
 * CRC coverage (the header's cov byte).
 *
 * The CRC32C protects packets against corruption on a wire, a NIC, a
 * switch or a kernel path that the UDP checksum (sent as 0) would not
 * catch (hct_crc_seal()). A shared-memory link (net_memif, hc_shm,
 * net_virtio_user over a vhost-user socket: drivers/port.h shm) has none
 * of these: a frame is copied from one process's memory into a ring and
 * out of it into the other's (or by the vhost-user switch from one
 * process's mapped memory into the other's), by the CPU, as any other
 * memory copy of the program; NCCL's and Open MPI's shared-memory transports carry no
 * checksum either. On such a link the payload's two CRC passes (one per
 * end, ~0.39 us each per 8.9 KB packet here) buy nothing, so a DATA
 * packet covers only its header there (HCT_COV_HDR): the 104 bytes with
 * every field that routes, orders and places the payload (ranks, nonces,
 * PSN, offset, length, cov itself) stay checked, so a corrupted header
 * is still detected; the payload bytes are not.
 *
 * Negotiated, never assumed: a rank sends HCT_COV_HDR to a peer only when
 * (a) its own route to the peer leaves by a shared-memory port whose
 * fault injector neither corrupts nor truncates TX frames
 * (hc_net_route_trusted()), (b) the peer's HELLO or HELLO_ACK said
 * cov_accept 1, and (c) [transport] shm_crc is header. A rank says
 * cov_accept 1 to a peer only when its route to that peer is such a port
 * on RX (no corrupting or truncating RX rule) and shm_crc is header; a
 * HCT_COV_HDR packet from a peer it did not say so to fails the check
 * (hct_stats crc_rx, and cov_refused_rx) and is dropped. Every
 * transmission of a packet keeps its first one's coverage (a
 * retransmission copies the header with its cov byte; the seal functions
 * read it).
 */
enum hct_cov {
	HCT_COV_FULL = 0, /**< CRC over header and payload */
	HCT_COV_HDR = 1,  /**< CRC over the header only (shm links) */
	HCT_COV__MAX
};

/** Priority classes, highest first (DESIGN.md, "Priority classes"). The
 *  class travels in the header's prio byte and, for switches, in the IPv4
 *  DSCP (hct_class_dscp()). */
enum hct_class {
	HCT_CLASS_CONTROL = 0,  /**< ACK, HELLO, ABORT: always first */
	HCT_CLASS_CRITICAL = 1, /**< critical-path collectives */
	HCT_CLASS_NORMAL = 2,   /**< the default */
	HCT_CLASS_BULK = 3,     /**< bulk gradients: a minimum share only */
	HCT_CLASS__MAX
};

/** DSCP of a class (RFC 4594's service classes): control CS6 (48),
 *  critical EF (46), normal default CS0 (0), bulk CS1 (8, "low-priority
 *  data", RFC 4594 section 4.10). Unknown classes map to CS0. */
static inline uint8_t
hct_class_dscp(unsigned int cls)
{
	static const uint8_t dscp[HCT_CLASS__MAX] = { 48, 46, 0, 8 };

	return cls < HCT_CLASS__MAX ? dscp[cls] : 0;
}

/** SACK bitmap width: bit i (word i / 64, bit i % 64) = PSN ack_psn+1+i. */
#define HCT_SACK_BITS 128

/** Wire image. Only for sizeof and offsetof; use encode/decode. */
struct hct_wire_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t flags;
	uint8_t prio;
	rte_be32_t job_id;
	rte_be32_t src_nonce;
	rte_be32_t dst_nonce;
	rte_be16_t src_rank;
	rte_be16_t dst_rank;
	rte_be16_t flow_id;
	rte_be16_t ecn_ce;
	rte_be32_t psn;
	rte_be32_t ack_psn;
	rte_be64_t sack[2];
	rte_be64_t ts_ns;
	rte_be64_t ts_echo_ns;
	rte_be32_t host_delay_ns;
	rte_be32_t comm_id;
	rte_be32_t coll_seq;
	rte_be32_t sig;
	rte_be16_t step;
	rte_be16_t credit;
	rte_be32_t length;
	rte_be64_t offset;
	rte_be32_t crc;
	uint8_t cov;
	uint8_t cov_accept;
	uint8_t flags2;
	uint8_t rsvd2;
} __rte_packed;

#define HCT_HDR_LEN 104
_Static_assert(sizeof(struct hct_wire_hdr) == HCT_HDR_LEN,
	       "HCT header must be 104 bytes");
_Static_assert(offsetof(struct hct_wire_hdr, psn) == 24, "psn at 24");
_Static_assert(offsetof(struct hct_wire_hdr, ts_ns) == 48, "ts at 48");
_Static_assert(offsetof(struct hct_wire_hdr, comm_id) == 68, "comm at 68");
_Static_assert(offsetof(struct hct_wire_hdr, offset) == 88, "offset at 88");
_Static_assert(offsetof(struct hct_wire_hdr, crc) == 96, "crc at 96");
_Static_assert(offsetof(struct hct_wire_hdr, flags) == 2, "flags at 2");
_Static_assert(offsetof(struct hct_wire_hdr, cov) == 100, "cov at 100");
_Static_assert(offsetof(struct hct_wire_hdr, flags2) == 102, "flags2 at 102");
_Static_assert(offsetof(struct hct_wire_hdr, cov_accept) == 101,
	       "cov_accept at 101");
_Static_assert(HCT_TAG_LEN == 16 && HCT_TAG_LEN % 8 == 0,
	       "a 16-byte tag keeps the MSS a multiple of 8");

/** Host-order view of a header. */
struct hct_pkt {
	uint8_t type;
	uint8_t flags;
	uint8_t prio;
	uint32_t job_id;
	uint32_t src_nonce;
	uint32_t dst_nonce;
	uint16_t src_rank;
	uint16_t dst_rank;
	uint16_t flow_id;
	uint16_t ecn_ce;        /**< ACK with HCT_F_ECE: CE-marked DATA
	                         *   packets received since the last ACK */
	uint32_t psn;
	uint32_t ack_psn;
	uint64_t sack[2];
	uint64_t ts_ns;         /**< sender's clock at transmission, ns */
	uint64_t ts_echo_ns;    /**< ts_ns of the packet being acknowledged */
	uint32_t host_delay_ns; /**< receiver's delay from that packet's
	                         *   arrival to this packet's send, ns */
	uint32_t comm_id;
	uint32_t coll_seq;      /**< collective sequence number in comm */
	uint32_t sig;           /**< signature of the collective's arguments */
	uint16_t step;          /**< algorithm step */
	uint16_t credit;        /**< ACK: receiver credit, packets (0: none
	                         *   advertised) */
	uint32_t length;        /**< payload bytes (DATA); HELLO and
	                         *   HELLO_ACK: the sender's [net] mtu, bytes
	                         *   (0: not told), checked by the receiver */
	uint64_t offset;        /**< byte offset of the payload in the
	                         *   destination buffer (DATA) */
	uint8_t cov;            /**< enum hct_cov: what crc covers */
	uint8_t cov_accept;     /**< HELLO, HELLO_ACK: 1 when the sender
	                         *   accepts HCT_COV_HDR DATA from us */
	uint8_t flags2;         /**< HCT_F2_* */
};

/** Write p as a wire header into buf (HCT_HDR_LEN bytes, any alignment).
 *  The field-by-field encoder: the reference of the template below (the
 *  TX path uses the template). */
void hct_hdr_encode(const struct hct_pkt *p, void *buf);

/**
 * A flow's header template: the wire header with the fields every packet
 * of the flow carries unchanged (version, job_id, src_nonce, dst_nonce,
 * src_rank, dst_rank, flow_id 0, rsvd 0) written once, the others 0.
 * Rebuilt when one of them changes (the peer's nonce is learnt or
 * changes). HCT_HDR_LEN bytes at tmpl.
 */
void hct_tmpl_build(uint8_t *tmpl, uint32_t job_id, uint32_t src_nonce,
		    uint32_t dst_nonce, uint16_t src_rank, uint16_t dst_rank);

/* Big-endian stores at any alignment. */
static inline void
hct_put16(uint8_t *h, size_t off, uint16_t v)
{
	rte_be16_t b = rte_cpu_to_be_16(v);

	memcpy(h + off, &b, sizeof(b));
}

static inline void
hct_put32(uint8_t *h, size_t off, uint32_t v)
{
	rte_be32_t b = rte_cpu_to_be_32(v);

	memcpy(h + off, &b, sizeof(b));
}

static inline void
hct_put64(uint8_t *h, size_t off, uint64_t v)
{
	rte_be64_t b = rte_cpu_to_be_64(v);

	memcpy(h + off, &b, sizeof(b));
}

#define HCT_OFF(field) offsetof(struct hct_wire_hdr, field)

/**
 * Write a packet's header to h (HCT_HDR_LEN bytes, any alignment): the
 * template tmpl copied, then p's per-packet fields (type, flags, prio,
 * ecn_ce, psn, ack_psn, sack, ts_ns, ts_echo_ns, host_delay_ns, comm_id,
 * coll_seq, sig, step, credit, length, offset, cov, cov_accept, flags2) stored
 * over it; p's
 * flow-constant fields are not read, and crc is left 0 for
 * hct_crc_seal(). Equals hct_hdr_encode() of the whole packet
 * (tests/unit/test_hdr.c checks it byte for byte).
 */
static inline void
hct_tmpl_patch(uint8_t *h, const uint8_t *tmpl, const struct hct_pkt *p)
{
	memcpy(h, tmpl, HCT_HDR_LEN);
	h[HCT_OFF(type)] = p->type;
	h[HCT_OFF(flags)] = p->flags;
	h[HCT_OFF(prio)] = p->prio;
	hct_put16(h, HCT_OFF(ecn_ce), p->ecn_ce);
	hct_put32(h, HCT_OFF(psn), p->psn);
	hct_put32(h, HCT_OFF(ack_psn), p->ack_psn);
	hct_put64(h, HCT_OFF(sack), p->sack[0]);
	hct_put64(h, HCT_OFF(sack) + 8, p->sack[1]);
	hct_put64(h, HCT_OFF(ts_ns), p->ts_ns);
	hct_put64(h, HCT_OFF(ts_echo_ns), p->ts_echo_ns);
	hct_put32(h, HCT_OFF(host_delay_ns), p->host_delay_ns);
	hct_put32(h, HCT_OFF(comm_id), p->comm_id);
	hct_put32(h, HCT_OFF(coll_seq), p->coll_seq);
	hct_put32(h, HCT_OFF(sig), p->sig);
	hct_put16(h, HCT_OFF(step), p->step);
	hct_put16(h, HCT_OFF(credit), p->credit);
	hct_put32(h, HCT_OFF(length), p->length);
	hct_put64(h, HCT_OFF(offset), p->offset);
	h[HCT_OFF(cov)] = p->cov;
	h[HCT_OFF(cov_accept)] = p->cov_accept;
	h[HCT_OFF(flags2)] = p->flags2;
}

/** The coverage byte of a packet's header (HCT_HDR_LEN bytes at pkt). */
static inline uint8_t
hct_cov_of(const void *pkt)
{
	return ((const uint8_t *)pkt)[HCT_OFF(cov)];
}

/**
 * End-to-end integrity of an HCT packet (header and payload, len bytes):
 * write the CRC32C of the packet, computed with the crc field read as 0,
 * into the crc field: of all len bytes when the header's cov byte is
 * HCT_COV_FULL, of the HCT_HDR_LEN header bytes only when it is
 * HCT_COV_HDR (enum hct_cov; set cov before sealing). Called on every
 * transmission, after the last change to the packet (a retransmission
 * changes ts_ns and flags, and keeps cov).
 *
 * Why beside the UDP checksum: the one's-complement Internet checksum
 * (RFC 1071) misses two bit errors that cancel (a 0->1 and a 1->0 flip in
 * the same bit of two 16-bit words), which corrupts a reduction silently
 * (seen with the fault injector corrupting both directions). CRC32C
 * (Castagnoli; RFC 3720's iSCSI CRC, rte_hash_crc() with SSE4.2) detects
 * every error of up to 3 bits in a packet of this size.
 *
 * UDP checksum: 0 ("none computed", RFC 768; allowed over IPv4). The
 * CRC32C covers the whole HCT packet and catches everything the UDP
 * checksum would, so computing both is one more read of every byte on
 * each end (a software pass on ports without the offload: net_tap,
 * memif, af_packet). What the UDP checksum covers beyond the HCT packet,
 * the addresses of the pseudo-header, the receiver checks itself: the
 * IPv4 header checksum covers them and hct_input() matches the source
 * address and the ranks against the flow. Offload where a port has it
 * would cost no CPU on TX, but the receiving port may lack the RX
 * offload and would then pay the pass; 0 costs no end anything.
 */
void hct_crc_seal(void *pkt, uint32_t len);

/**
 * Copy a DATA payload of len bytes from src behind the header at pkt (the
 * header already encoded, HCT_HDR_LEN bytes) and seal the packet: one
 * pass over the payload that copies it and feeds the CRC32C (8 bytes at
 * a time, the SSE4.2 crc32 instruction, in three interleaved chains
 * joined by PCLMULQDQ from 384 bytes on where the CPU has both:
 * hct_crc32c()) instead of a copy and a second read. The result equals
 * memcpy() then hct_crc_seal(pkt, HCT_HDR_LEN + len): with the header's
 * cov HCT_COV_HDR, a plain copy and the header's CRC.
 */
void hct_crc_copy_seal(uint8_t *pkt, const void *src, uint32_t len);

/**
 * Seal a packet whose header (HCT_HDR_LEN bytes at hdr) and payload (len
 * bytes at payload) are apart, as in a retransmission by clone (a fresh
 * header mbuf chained to the original's payload): one read of the
 * payload, nothing written to it (none with cov HCT_COV_HDR). Equals
 * hct_crc_seal() of the two contiguous.
 */
void hct_crc_seal_split(uint8_t *hdr, const void *payload, uint32_t len);

/**
 * CRC32C register of len bytes at p (any alignment) from register c, no
 * init or final xor applied: rte_hash_crc(p, len, c)'s value. From 384
 * bytes on, on a CPU with PCLMULQDQ and SSE4.2, three crc32 chains over
 * the buffer's thirds run interleaved and are joined by carry-less
 * multiplication (Intel white paper 323405, "Fast CRC Computation for
 * iSCSI Polynomial Using CRC32 Instruction"): one chain is bound by the
 * instruction's 3-cycle latency, three by its 1-per-cycle throughput.
 * Measured: tests/bench/crc_copy.
 */
uint32_t hct_crc32c(const void *p, uint32_t len, uint32_t c);

/**
 * Check the CRC32C of pkt (len bytes) under the coverage its cov byte
 * names.
 * @param accept_hdr  1: HCT_COV_HDR is acceptable from this packet's
 *                    sender (we said cov_accept 1 to it); 0: such a
 *                    packet fails.
 * @return 1 when len >= HCT_HDR_LEN, cov is HCT_COV_FULL (CRC over all
 *         len bytes right) or HCT_COV_HDR with accept_hdr (CRC over the
 *         header right); else 0 (an unknown cov value included).
 */
int hct_crc_ok(const void *pkt, uint32_t len, int accept_hdr);

/**
 * Parse a header from buf of len bytes (header plus payload). cov and
 * cov_accept are copied as they are (hct_crc_ok() judges cov).
 * @return 0, or -1 when short, of another version, of an unknown type, or
 *         when a DATA length disagrees with len.
 */
int hct_hdr_decode(const void *buf, uint32_t len, struct hct_pkt *p);

#endif /* HC_TRANSPORT_HCT_HDR_H */
