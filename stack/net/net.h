/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The minimal network layer: Ethernet II, ARP (arp.h), IPv4 without options
 * on TX and without fragments (RFC 791; fragments are dropped and counted:
 * HCT never sends a datagram above the MTU and sets DF), ICMP echo reply
 * (RFC 792), and UDP (RFC 768) on one or more ports. It never looks inside
 * the UDP payload.
 *
 * Ports and routes: a rank has one IPv4 address and up to HC_NET_PORTS_MAX
 * ports (one per NIC rail or per shared-memory link). Which port a
 * datagram leaves by is the route of its destination: an entry per peer,
 * resolved once at bring-up (hc_net_route_add), naming the port and the
 * next hop whose MAC ARP resolves (the peer itself on its own segment, a
 * gateway for a peer on another subnet). A destination without an entry
 * leaves by port 0, direct: a one-port rank needs no routes at all.
 * Frames are received on every port; ARP requests are answered and ICMP
 * echo replied to on the port they came in on.
 *
 * Checksums: RFC 1071 via rte_net helpers, in software unless the port
 * offers the offload.
 */
#ifndef HC_NET_NET_H
#define HC_NET_NET_H

#include <stdint.h>
#include <string.h>

#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_mbuf.h>

#include "arp.h"
#include "clock.h"
#include "port.h"

/** Bytes of headers below the UDP payload: IPv4 (20) + UDP (8). */
#define HC_NET_IP_UDP_HLEN (sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr))

/** Time to live of the packets we send. */
#define HC_NET_TTL 64

/** Most ports of one rank: 16 covers a full mesh of 17 ranks on one
 *  host (n - 1 shared-memory links each) or a few NIC rails. */
#define HC_NET_PORTS_MAX 16

/** Why a received frame was dropped. */
enum hc_net_drop {
	HC_NET_DROP_MALFORMED = 0, /**< too short, bad version/IHL/lengths */
	HC_NET_DROP_CKSUM,         /**< IPv4 or UDP checksum wrong */
	HC_NET_DROP_FRAGMENT,      /**< MF set or offset non-zero */
	HC_NET_DROP_NOT_OURS,      /**< MAC, IP or UDP port not ours */
	HC_NET_DROP_PROTO,         /**< EtherType or IP protocol not served */
	HC_NET_DROP__MAX
};

struct hc_net_stats {
	uint64_t rx_drops[HC_NET_DROP__MAX];
	uint64_t arp_requests;      /**< requests sent */
	uint64_t arp_replies;       /**< replies sent */
	uint64_t icmp_echo_replies; /**< echo replies sent */
	uint64_t tx_unresolved;     /**< datagrams dropped: no MAC yet */
	uint64_t rx_port[HC_NET_PORTS_MAX]; /**< frames received per port */
	uint64_t ip_conflicts;      /**< ARP packets from another station
	                             *   with our IP as sender address */
};

/** IPv4 TOS byte: DSCP in the upper 6 bits, ECN in the lower 2
 *  (RFC 2474, RFC 3168). */
#define HC_IPV4_ECN_MASK 0x03
#define HC_IPV4_ECN_NOT_ECT 0x00 /**< not ECN-capable */
#define HC_IPV4_ECT1 0x01        /**< ECN-capable transport (1) */
#define HC_IPV4_ECT0 0x02        /**< ECN-capable transport (0) */
#define HC_IPV4_ECN_CE 0x03      /**< congestion experienced */
/** TOS byte of a DSCP and an ECN codepoint. */
#define HC_IPV4_TOS(dscp, ecn) ((uint8_t)(((dscp) << 2) | ((ecn) & 3)))

/** Upcall for UDP datagrams to our port. The callee owns m; payload points
 *  into it. src_ip in host byte order; tos is the IPv4 TOS byte as
 *  received (DSCP and ECN: a CE mark set by a switch shows here). */
typedef void (*hc_net_udp_input_t)(void *ctx, uint32_t src_ip, uint8_t tos,
				   struct rte_mbuf *m, const uint8_t *payload,
				   uint16_t len);

/** The route to one destination (resolved once; the per-peer state a
 *  TX header template can later sit next to). */
struct hc_net_route {
	uint32_t dst;        /**< destination IPv4, host order; 0: free slot */
	uint32_t next_hop;   /**< whose MAC the frame goes to: dst, or a
	                      *   gateway; host order */
	uint8_t port;        /**< index into hc_net.ports */
};

/** Bytes of the headers the network layer puts before a UDP payload:
 *  Ethernet (14) + IPv4 (20) + UDP (8). */
#define HC_NET_HDR_LEN (RTE_ETHER_HDR_LEN + HC_NET_IP_UDP_HLEN)

/**
 * A TX header template for one destination: its Ethernet, IPv4 and UDP
 * headers written once, when the route and the next hop's MAC are known,
 * and patched per datagram (hc_net_tmpl_patch: TOS, IPv4 total length,
 * identification and header checksum, UDP length) instead of built field
 * by field with a route and ARP lookup each time. The caller (the
 * transport, one per flow) owns the storage; only this layer writes it.
 *
 * Rebuilt (hc_net_tmpl_resolve) when the ARP cache's or the route table's
 * generation moved since it was built (an ARP reply learnt, a route
 * added) or when the time passes valid_until_ns (the ARP entry expires:
 * the lookup then sends its refresh request, as it did per packet).
 *
 * The IPv4 checksum is recomputed per packet from ip_sum, the
 * one's-complement sum (RFC 1071) of the header's constant 16-bit words
 * (addresses, TTL/protocol, DF), plus the three words that change:
 * version/IHL+TOS, total length, identification. That is the full
 * RFC 1071 sum over the 20 bytes, done with 3 additions.
 */
struct hc_net_tmpl {
	uint8_t hdr[HC_NET_HDR_LEN]; /**< the frame's first bytes */
	uint8_t port;            /**< index into hc_net.ports */
	uint8_t valid;           /**< hdr holds the next hop's MAC */
	uint32_t dst_ip;         /**< host order */
	uint32_t ip_sum;         /**< partial RFC 1071 sum, see above */
	uint32_t arp_gen;        /**< hc_arp_cache.gen when built */
	uint32_t route_gen;      /**< hc_net.route_gen when built */
	uint64_t valid_until_ns; /**< hc_arp_valid_until() when built */
};

struct hc_net {
	struct hc_port *port;         /**< port 0: its pool and MTU serve
	                               *   every port (one MTU per rank) */
	struct hc_port *ports[HC_NET_PORTS_MAX]; /**< ports[0] == port */
	uint32_t nports;
	struct hc_net_route *routes;  /**< open addressing, linear probing
	                               *   (as the ARP cache); NULL: none */
	uint32_t route_mask;          /**< capacity - 1 */
	uint32_t nroutes;
	uint32_t route_gen;           /**< bumped by hc_net_route_add() */
	int tx_chains;                /**< every port takes chained mbufs
	                               *   (hc_port.tx_multi_seg) */
	const struct hc_clock *clk;
	uint32_t ip;                  /**< ours, host byte order */
	uint16_t udp_port;            /**< ours, host byte order */
	uint16_t ip_id;               /**< next IPv4 identification */
	int udp_cksum_zero;           /**< send UDP checksum 0 (RFC 768: none
	                               *   computed): the payload carries its
	                               *   own integrity check (set by the
	                               *   transport, hct_hdr.h says why) */
	struct hc_arp_cache arp;
	hc_net_udp_input_t udp_input;
	void *udp_ctx;
	struct hc_net_stats stats;
};

struct hc_net_conf {
	uint32_t ip;             /**< host byte order */
	uint16_t udp_port;       /**< [net] udp_port */
	uint32_t arp_capacity;   /**< peers expected */
	uint64_t arp_timeout_ns; /**< [net] arp_timeout_ms: entry lifetime */
	uint64_t arp_retry_ns;   /**< [net] arp_retry_ms: request interval */
};

/** The cluster-file keys of struct hc_net_conf (net_cfg.c); ip and
 *  arp_capacity are the caller's. */
extern const struct hc_cfg_table hc_net_cfg_table;

/** @return 0, -HC_ERR_INVAL or -HC_ERR_NOMEM. */
int hc_net_init(struct hc_net *net, struct hc_port *port,
		const struct hc_clock *clk, const struct hc_net_conf *conf,
		hc_net_udp_input_t udp_input, void *udp_ctx);
void hc_net_free(struct hc_net *net);

/**
 * Add a further port (all share port 0's MTU; its MAC may differ).
 * @return the port's index (1..HC_NET_PORTS_MAX-1), -HC_ERR_INVAL (NULL,
 *         or its MTU differs from port 0's) or -HC_ERR_NOMEM (no room).
 */
int hc_net_port_add(struct hc_net *net, struct hc_port *port);

/**
 * Route datagrams for dst (host order) out of port index `port` to the
 * MAC of next_hop (dst itself when on the same segment, else a gateway).
 * Sized for `capacity` destinations on the first call. Replaces an
 * earlier route of dst.
 * @return 0, -HC_ERR_INVAL (dst or next_hop 0, port not added) or
 *         -HC_ERR_NOMEM.
 */
int hc_net_route_add(struct hc_net *net, uint32_t dst, uint32_t next_hop,
		     uint32_t port, uint32_t capacity);

/** The route of dst: its entry, or port 0 direct (written to *tmp). */
static inline const struct hc_net_route *
hc_net_route_get(const struct hc_net *net, uint32_t dst,
		 struct hc_net_route *tmp)
{
	uint32_t i;

	if (net->routes != NULL)
		/* CRC32C hash, as the ARP cache; the table is at most half
		 * full, so the probe ends at a free slot. */
		for (i = rte_hash_crc_4byte(dst, 0) & net->route_mask;;
		     i = (i + 1) & net->route_mask) {
			if (net->routes[i].dst == dst)
				return &net->routes[i];
			if (net->routes[i].dst == 0)
				break;
		}
	tmp->dst = dst;
	tmp->next_hop = dst;
	tmp->port = 0;
	return tmp;
}

/**
 * 1 when the route of dst (host order) leaves by a port whose frames of
 * direction dir only the program itself can change: a shared-memory
 * link without a corrupting or truncating fault injector on dir
 * (hc_port_bytes_trusted()). For the transport's CRC coverage (hct_hdr.h,
 * "CRC coverage"): with HC_FAULT_TX, what this rank sends to dst; with
 * HC_FAULT_RX, what it receives from dst, which arrives on the same port
 * (a memif link is point to point, and the routes of a mesh name it at
 * both ends).
 */
static inline int
hc_net_route_trusted(const struct hc_net *net, uint32_t dst,
		     enum hc_fault_dir dir)
{
	struct hc_net_route tmp;
	const struct hc_net_route *r = hc_net_route_get(net, dst, &tmp);

	return r->port < net->nports &&
	       hc_port_bytes_trusted(net->ports[r->port], dir);
}

/**
 * 1 when the route of dst (host order) leaves by a port whose TX reads a
 * frame's bytes by their address in this process (port.h tx_any_memory:
 * net_memif, hc_shm), so a frame may point at any memory of the program
 * (the transport's zero-copy TX, hct_zc_ok()).
 */
static inline int
hc_net_route_any_memory(const struct hc_net *net, uint32_t dst)
{
	struct hc_net_route tmp;
	const struct hc_net_route *r = hc_net_route_get(net, dst, &tmp);

	return r->port < net->nports && net->ports[r->port]->tx_any_memory;
}

/**
 * 1 when the route of dst (host order) leaves by a port that reports its
 * link down right now (hc_port_link_down(): a wire, not a shared-memory
 * link). For the transport when it declares a peer lost: HC_ERR_LINK_DOWN
 * then names this rank's link as the cause (C31). One link query of the
 * port (net_tap: an ioctl), so not for the per-packet path.
 */
static inline int
hc_net_route_link_down(const struct hc_net *net, uint32_t dst)
{
	struct hc_net_route tmp;
	const struct hc_net_route *r = hc_net_route_get(net, dst, &tmp);

	return r->port < net->nports && hc_port_link_down(net->ports[r->port]);
}

/** Process one frame received on port 0; consumes m. */
void hc_net_input(struct hc_net *net, struct rte_mbuf *m);

/** Process one frame received on port index port_idx; consumes m. */
void hc_net_input_port(struct hc_net *net, uint32_t port_idx,
		       struct rte_mbuf *m);

/**
 * Send m, whose data is a UDP payload, from our port to dst_ip:udp_port.
 * Prepends UDP, IPv4 (DF, TOS byte tos: DSCP and ECN, e.g.
 * HC_IPV4_TOS(0, HC_IPV4_ECT0)) and Ethernet headers; m must have
 * RTE_ETHER_HDR_LEN + HC_NET_IP_UDP_HLEN bytes of headroom. Consumes m.
 * @return 0 (queued on the port), -HC_ERR_NOMEM (queue full) or
 *         -HC_ERR_PEER_LOST (no MAC for dst_ip yet; a request went out).
 */
int hc_net_udp_send(struct hc_net *net, uint32_t dst_ip, uint8_t tos,
		    struct rte_mbuf *m);

/** Start a template for dst_ip (host order): not resolved yet. */
void hc_net_tmpl_init(struct hc_net_tmpl *t, uint32_t dst_ip);

/**
 * (Re)build t: route of t->dst_ip, ARP lookup of its next hop at now
 * (sending a request or refresh as hc_net_udp_send did per packet), then
 * the headers with the port's MAC, ours and the next hop's.
 * @return 0, or -HC_ERR_PEER_LOST (no MAC yet; t->valid is 0).
 */
int hc_net_tmpl_resolve(struct hc_net *net, struct hc_net_tmpl *t,
			uint64_t now);

/** 1 when t may be used at now as built (no rebuild needed). */
static inline int
hc_net_tmpl_fresh(const struct hc_net *net, const struct hc_net_tmpl *t,
		  uint64_t now)
{
	return t->valid && t->arp_gen == net->arp.gen &&
	       t->route_gen == net->route_gen && now < t->valid_until_ns;
}

/**
 * Write t's headers, patched for one datagram, to frame (HC_NET_HDR_LEN
 * bytes, any alignment): TOS byte tos, a UDP payload of udp_payload_len
 * bytes, IPv4 identification id, the IPv4 header checksum when ip_cksum
 * is set (else 0, for the offload), UDP checksum 0. Pure: the packet
 * equals the one hc_ipv4_build() and a field-by-field Ethernet/UDP build
 * make (tests/unit/test_hdr.c checks it byte for byte).
 */
static inline void
hc_net_tmpl_patch(const struct hc_net_tmpl *t, uint8_t *frame, uint8_t tos,
		  uint16_t udp_payload_len, uint16_t id, int ip_cksum)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame +
							 RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t tl = rte_cpu_to_be_16(HC_NET_IP_UDP_HLEN + udp_payload_len);
	uint16_t ul = rte_cpu_to_be_16(sizeof(*udp) + udp_payload_len);
	uint16_t idb = rte_cpu_to_be_16(id), w0;
	uint32_t s;

	memcpy(frame, t->hdr, HC_NET_HDR_LEN);
	ip->type_of_service = tos;
	ip->total_length = tl;
	ip->packet_id = idb;
	udp->dgram_len = ul;
	if (ip_cksum) {
		memcpy(&w0, ip, sizeof(w0)); /* version/IHL and TOS */
		s = t->ip_sum + w0 + tl + idb;
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ip->hdr_checksum = (uint16_t)~s;
	}
}

/**
 * Send m, whose data is a UDP payload (one segment or a chain: the
 * headers go into the first segment's headroom), to t's destination with
 * TOS byte tos; now is the caller's clock read (one per burst). Rebuilds
 * t first when it is not fresh. Consumes m.
 * @return as hc_net_udp_send().
 */
int hc_net_tmpl_send(struct hc_net *net, struct hc_net_tmpl *t, uint8_t tos,
		     struct rte_mbuf *m, uint64_t now);

/** Largest UDP payload for the port's MTU, bytes. */
static inline uint32_t
hc_net_udp_payload_max(const struct hc_net *net)
{
	return net->port->mtu - HC_NET_IP_UDP_HLEN;
}

/** Send an ARP request for the next hop of ip's route, out of the
 *  route's port, now (init-time resolution). */
void hc_net_arp_request(struct hc_net *net, uint32_t ip);

/**
 * Announce our address on every port: a gratuitous ARP request (sender
 * and target address ours; RFC 5227 section 2.3's ARP Announcement).
 * Another station holding our IP (a second process with our rank id:
 * C36) answers it, or announces itself; either reaches arp_input with
 * our IP as the sender address, which counts in stats.ip_conflicts and
 * is logged once with the other station's MAC. A station never sees its
 * own frames on these ports (a bridge does not send a frame back out of
 * the port it came in on; memif is point to point).
 */
void hc_net_announce(struct hc_net *net);

/**
 * Check an IPv4 header of a frame of len bytes from the IP header on.
 * Pure, for the input path and unit tests.
 * @param verify_cksum  compute the header checksum (0 when the PMD did).
 * @return -1 when fine, else the enum hc_net_drop reason.
 */
int hc_ipv4_check(const struct rte_ipv4_hdr *ip, uint32_t len,
		  int verify_cksum);

/** Fill a 20-byte IPv4 header (DF, TOS byte tos, TTL 64) with its
 *  checksum when cksum is set (else 0, for offload). Addresses in host
 *  order. */
void hc_ipv4_build(struct rte_ipv4_hdr *ip, uint32_t src, uint32_t dst,
		   uint8_t proto, uint8_t tos, uint16_t payload_len,
		   uint16_t id, int cksum);

#endif /* HC_NET_NET_H */
