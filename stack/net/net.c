/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "log.h"
#include "net.h"

int
hc_net_init(struct hc_net *net, struct hc_port *port,
	    const struct hc_clock *clk, const struct hc_net_conf *conf,
	    hc_net_udp_input_t udp_input, void *udp_ctx)
{
	memset(net, 0, sizeof(*net));
	if (port == NULL || clk == NULL || conf == NULL || udp_input == NULL)
		return -HC_ERR_INVAL;
	net->port = port;
	net->ports[0] = port;
	net->nports = 1;
	net->tx_chains = port->tx_multi_seg;
	net->clk = clk;
	net->ip = conf->ip;
	net->udp_port = conf->udp_port;
	net->udp_input = udp_input;
	net->udp_ctx = udp_ctx;
	/* 3 unanswered refreshes of a STALE entry drop its MAC (Linux's
	 * default ucast_solicit). */
	return hc_arp_init(&net->arp, conf->arp_capacity, conf->arp_timeout_ns,
			   conf->arp_retry_ns, 3);
}

void
hc_net_free(struct hc_net *net)
{
	hc_arp_free(&net->arp);
	free(net->routes);
	net->routes = NULL;
}

int
hc_net_port_add(struct hc_net *net, struct hc_port *port)
{
	if (port == NULL || port->mtu != net->port->mtu)
		return -HC_ERR_INVAL;
	if (net->nports == HC_NET_PORTS_MAX)
		return -HC_ERR_NOMEM;
	net->ports[net->nports] = port;
	net->tx_chains = net->tx_chains && port->tx_multi_seg;
	return (int)net->nports++;
}

int
hc_net_route_add(struct hc_net *net, uint32_t dst, uint32_t next_hop,
		 uint32_t port, uint32_t capacity)
{
	struct hc_net_route *r;
	uint32_t i, size;

	if (dst == 0 || next_hop == 0 || port >= net->nports)
		return -HC_ERR_INVAL;
	if (net->routes == NULL) {
		if (capacity == 0 || capacity > (1u << 24))
			return -HC_ERR_INVAL;
		/* At most half full: a lookup's probe is short and ends. */
		size = rte_align32pow2(capacity) * 2;
		net->routes = calloc(size, sizeof(*net->routes));
		if (net->routes == NULL)
			return -HC_ERR_NOMEM;
		net->route_mask = size - 1;
	}
	for (i = rte_hash_crc_4byte(dst, 0) & net->route_mask;;
	     i = (i + 1) & net->route_mask) {
		r = &net->routes[i];
		if (r->dst == dst)
			break;
		if (r->dst == 0) {
			if ((net->nroutes + 1) * 2 > net->route_mask + 1)
				return -HC_ERR_NOMEM;
			net->nroutes++;
			break;
		}
	}
	r->dst = dst;
	r->next_hop = next_hop;
	r->port = (uint8_t)port;
	net->route_gen++;
	return 0;
}

static void
drop(struct hc_net *net, struct rte_mbuf *m, enum hc_net_drop why)
{
	net->stats.rx_drops[why]++;
	rte_pktmbuf_free(m);
}

/* Fill an ARP packet (Ethernet + ARP) into m. */
static void
arp_build(struct hc_net *net, struct hc_port *port, struct rte_mbuf *m,
	  uint16_t op,
	  const struct rte_ether_addr *dst_mac, uint32_t dst_ip)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);

	m->data_len = m->pkt_len = sizeof(*eth) + sizeof(*arp);
	eth->src_addr = port->mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	arp->arp_data.arp_sha = port->mac;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(net->ip);
	arp->arp_data.arp_tip = rte_cpu_to_be_32(dst_ip);
	if (op == RTE_ARP_OP_REQUEST) {
		memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
		memset(&arp->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	} else {
		eth->dst_addr = *dst_mac;
		arp->arp_data.arp_tha = *dst_mac;
	}
}

/* Request the MAC of next_hop out of port. */
static void
arp_request(struct hc_net *net, struct hc_port *port, uint32_t next_hop)
{
	struct rte_mbuf *m = hc_port_alloc(net->port);

	if (m == NULL)
		return;
	arp_build(net, port, m, RTE_ARP_OP_REQUEST, NULL, next_hop);
	net->stats.arp_requests++;
	hc_port_tx(port, m);
}

void
hc_net_arp_request(struct hc_net *net, uint32_t ip)
{
	struct hc_net_route tmp;
	const struct hc_net_route *r = hc_net_route_get(net, ip, &tmp);

	arp_request(net, net->ports[r->port], r->next_hop);
}

void
hc_net_announce(struct hc_net *net)
{
	uint32_t i;

	for (i = 0; i < net->nports; i++) {
		struct rte_mbuf *m = hc_port_alloc(net->ports[i]);

		if (m == NULL)
			continue;
		arp_build(net, net->ports[i], m, RTE_ARP_OP_REQUEST, NULL,
			  net->ip);
		net->stats.arp_requests++;
		hc_port_tx(net->ports[i], m);
	}
}

static void
arp_input(struct hc_net *net, struct hc_port *in, struct rte_mbuf *m,
	  uint32_t off)
{
	struct rte_arp_hdr *arp;
	struct rte_ether_addr sha;
	uint32_t sip, tip;
	uint16_t op;

	if (m->data_len < off + sizeof(*arp))
		return drop(net, m, HC_NET_DROP_MALFORMED);
	arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, off);
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4)
		return drop(net, m, HC_NET_DROP_MALFORMED);
	op = rte_be_to_cpu_16(arp->arp_opcode);
	sip = rte_be_to_cpu_32(arp->arp_data.arp_sip);
	tip = rte_be_to_cpu_32(arp->arp_data.arp_tip);
	sha = arp->arp_data.arp_sha;
	if (!rte_is_valid_assigned_ether_addr(&sha) || sip == 0)
		return drop(net, m, HC_NET_DROP_MALFORMED);
	if (sip == net->ip) {
		/* Someone else speaks with our address (hc_net_announce). */
		if (net->stats.ip_conflicts++ == 0)
			HC_LOG(ERR, NET, "another station (MAC " RTE_ETHER_ADDR_PRT_FMT
			       ") uses our IP %u.%u.%u.%u: a second process "
			       "with this rank id, or a duplicate address",
			       RTE_ETHER_ADDR_BYTES(&sha), sip >> 24,
			       (sip >> 16) & 0xff, (sip >> 8) & 0xff, sip & 0xff);
		rte_pktmbuf_free(m);
		return;
	}
	/* RFC 826: update a known sender; add it when the packet is for us. */
	hc_arp_update(&net->arp, sip, &sha, hc_clock_now(net->clk),
		      tip == net->ip);
	if (tip != net->ip || op != RTE_ARP_OP_REQUEST) {
		/* A request for another station (a peer of another job on
		 * this segment resolving its own peers, every arp_retry_ms
		 * until they start: C38) and an announcement (RFC 5227 2.3:
		 * sender = target IP, as hc_net_announce sends them every
		 * 200 ms while a rank meets its peers) are a broadcast
		 * segment's normal traffic, read for the cache above
		 * (RFC 826's merge): not drops, so that drop counts say what
		 * was garbage. A reply for another station reached us only
		 * by a flood or a forgery: counted. */
		if (op != RTE_ARP_OP_REQUEST && tip != net->ip)
			net->stats.rx_drops[HC_NET_DROP_NOT_OURS]++;
		rte_pktmbuf_free(m);
		return;
	}
	/* Answer in the same mbuf, on the port it came in on. */
	arp_build(net, in, m, RTE_ARP_OP_REPLY, &sha, sip);
	net->stats.arp_replies++;
	hc_port_tx(in, m);
}

/* Echo reply (RFC 792) in the same mbuf: swap addresses, type 0. */
static void
icmp_input(struct hc_net *net, struct hc_port *in, struct rte_mbuf *m,
	   struct rte_ipv4_hdr *ip, uint32_t hlen)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint32_t ilen = rte_be_to_cpu_16(ip->total_length) - hlen;
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + hlen);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	uint16_t ck;

	if (ilen < sizeof(*icmp))
		return drop(net, m, HC_NET_DROP_MALFORMED);
	if (rte_raw_cksum(icmp, ilen) != 0xffff)
		return drop(net, m, HC_NET_DROP_CKSUM);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0)
		return drop(net, m, HC_NET_DROP_PROTO);
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	ck = rte_raw_cksum(icmp, ilen);
	icmp->icmp_cksum = (ck == 0xffff) ? ck : (uint16_t)~ck;
	/* Reply without the request's IP options. */
	if (hlen != sizeof(*ip)) {
		memmove((uint8_t *)ip + sizeof(*ip), icmp, ilen);
		hlen = sizeof(*ip);
	}
	rte_pktmbuf_trim(m, m->pkt_len - (sizeof(*eth) + hlen + ilen));
	hc_ipv4_build(ip, net->ip, src, IPPROTO_ICMP, 0, ilen, net->ip_id++, 1);
	eth->dst_addr = eth->src_addr;
	eth->src_addr = in->mac;
	m->ol_flags = 0;
	net->stats.icmp_echo_replies++;
	hc_port_tx(in, m);
}

/* RFC 768: the one's complement sum over pseudo-header, UDP header and
 * data, checksum field included, is 0xffff when the datagram is intact. */
static int
hc_udp_cksum_ok(const struct rte_ipv4_hdr *ip, const struct rte_udp_hdr *udp,
		uint32_t ulen)
{
	uint32_t s = rte_raw_cksum(udp, ulen);

	s += rte_ipv4_phdr_cksum(ip, 0);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

static void
udp_input(struct hc_net *net, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	  uint32_t hlen)
{
	uint32_t ulen = rte_be_to_cpu_16(ip->total_length) - hlen;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)ip + hlen);
	uint64_t ckf = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

	if (ulen < sizeof(*udp) || rte_be_to_cpu_16(udp->dgram_len) != ulen)
		return drop(net, m, HC_NET_DROP_MALFORMED);
	if (rte_be_to_cpu_16(udp->dst_port) != net->udp_port)
		return drop(net, m, HC_NET_DROP_NOT_OURS);
	if (ckf == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
	    (ckf != RTE_MBUF_F_RX_L4_CKSUM_GOOD && udp->dgram_cksum != 0 &&
	     !hc_udp_cksum_ok(ip, udp, ulen)))
		return drop(net, m, HC_NET_DROP_CKSUM);
	net->udp_input(net->udp_ctx, rte_be_to_cpu_32(ip->src_addr),
		       ip->type_of_service, m,
		       (const uint8_t *)(udp + 1), ulen - sizeof(*udp));
}

static void
ipv4_input(struct hc_net *net, struct hc_port *in, struct rte_mbuf *m,
	   uint32_t off)
{
	struct rte_ipv4_hdr *ip;
	uint64_t ckf = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	int why;

	if (m->data_len < off + sizeof(*ip))
		return drop(net, m, HC_NET_DROP_MALFORMED);
	if (ckf == RTE_MBUF_F_RX_IP_CKSUM_BAD)
		return drop(net, m, HC_NET_DROP_CKSUM);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, off);
	why = hc_ipv4_check(ip, m->data_len - off,
			    ckf != RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	if (why >= 0)
		return drop(net, m, why);
	if (rte_be_to_cpu_32(ip->dst_addr) != net->ip)
		return drop(net, m, HC_NET_DROP_NOT_OURS);
	switch (ip->next_proto_id) {
	case IPPROTO_UDP:
		return udp_input(net, m, ip, (ip->version_ihl & 0x0f) * 4u);
	case IPPROTO_ICMP:
		return icmp_input(net, in, m, ip,
				  (ip->version_ihl & 0x0f) * 4u);
	default:
		return drop(net, m, HC_NET_DROP_PROTO);
	}
}

void
hc_net_input(struct hc_net *net, struct rte_mbuf *m)
{
	hc_net_input_port(net, 0, m);
}

void
hc_net_input_port(struct hc_net *net, uint32_t port_idx, struct rte_mbuf *m)
{
	struct hc_port *in = net->ports[port_idx];
	struct rte_ether_hdr *eth;

	net->stats.rx_port[port_idx]++;

	/* One segment per frame: the pool's mbufs hold a whole MTU-sized
	 * frame, so a chained mbuf comes from a PMD configured otherwise. */
	if (m->nb_segs != 1 || m->data_len < sizeof(*eth))
		return drop(net, m, HC_NET_DROP_MALFORMED);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (!rte_is_same_ether_addr(&eth->dst_addr, &in->mac) &&
	    !rte_is_broadcast_ether_addr(&eth->dst_addr))
		return drop(net, m, HC_NET_DROP_NOT_OURS);
	switch (rte_be_to_cpu_16(eth->ether_type)) {
	case RTE_ETHER_TYPE_IPV4:
		return ipv4_input(net, in, m, sizeof(*eth));
	case RTE_ETHER_TYPE_ARP:
		return arp_input(net, in, m, sizeof(*eth));
	default:
		return drop(net, m, HC_NET_DROP_PROTO);
	}
}

/* RFC 768 checksum in software over a datagram in one segment or a
 * chain (a retransmission: header mbuf + the payload's clone). */
static uint16_t
udp_cksum_sw(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
	     const struct rte_udp_hdr *udp)
{
	uint16_t raw, ck;
	uint32_t s;

	if (m->nb_segs == 1)
		return rte_ipv4_udptcp_cksum(ip, udp);
	if (rte_raw_cksum_mbuf(m, HC_NET_HDR_LEN - sizeof(*udp),
			       m->pkt_len - (HC_NET_HDR_LEN - sizeof(*udp)),
			       &raw) != 0)
		return 0;
	s = raw + rte_ipv4_phdr_cksum(ip, 0);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	ck = (uint16_t)~s;
	return ck == 0 ? 0xffff : ck;
}

void
hc_net_tmpl_init(struct hc_net_tmpl *t, uint32_t dst_ip)
{
	memset(t, 0, sizeof(*t));
	t->dst_ip = dst_ip;
}

int
hc_net_tmpl_resolve(struct hc_net *net, struct hc_net_tmpl *t, uint64_t now)
{
	struct rte_ether_addr dmac;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct hc_net_route tmp;
	const struct hc_net_route *r = hc_net_route_get(net, t->dst_ip, &tmp);
	struct hc_port *port = net->ports[r->port];

	t->valid = 0;
	switch (hc_arp_lookup(&net->arp, r->next_hop, now, &dmac)) {
	case HC_ARP_HIT:
		break;
	case HC_ARP_HIT_REFRESH:
		arp_request(net, port, r->next_hop);
		break;
	case HC_ARP_MISS_REQUEST:
		arp_request(net, port, r->next_hop);
		/* fall through */
	default:
		return -HC_ERR_PEER_LOST;
	}
	eth->dst_addr = dmac;
	eth->src_addr = port->mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	/* The constant words: TOS, lengths, id and checksum 0 here. */
	hc_ipv4_build(ip, net->ip, t->dst_ip, IPPROTO_UDP, 0, 0, 0, 0);
	ip->version_ihl = 0;
	ip->total_length = 0;
	t->ip_sum = rte_raw_cksum(ip, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	udp->src_port = rte_cpu_to_be_16(net->udp_port);
	udp->dst_port = rte_cpu_to_be_16(net->udp_port);
	udp->dgram_len = 0;
	udp->dgram_cksum = 0;
	t->port = r->port;
	t->arp_gen = net->arp.gen;
	t->route_gen = net->route_gen;
	t->valid_until_ns = hc_arp_valid_until(&net->arp, r->next_hop);
	t->valid = 1;
	return 0;
}

int
hc_net_tmpl_send(struct hc_net *net, struct hc_net_tmpl *t, uint8_t tos,
		 struct rte_mbuf *m, uint64_t now)
{
	struct hc_port *port;
	uint32_t plen = m->pkt_len;
	uint8_t *frame;

	if (unlikely(!hc_net_tmpl_fresh(net, t, now)) &&
	    hc_net_tmpl_resolve(net, t, now) != 0) {
		net->stats.tx_unresolved++;
		rte_pktmbuf_free(m);
		return -HC_ERR_PEER_LOST;
	}
	port = net->ports[t->port];
	frame = (uint8_t *)rte_pktmbuf_prepend(m, HC_NET_HDR_LEN);
	if (unlikely(frame == NULL || plen > UINT16_MAX - HC_NET_IP_UDP_HLEN)) {
		rte_pktmbuf_free(m);
		return -HC_ERR_NOMEM;
	}
	hc_net_tmpl_patch(t, frame, tos, (uint16_t)plen, net->ip_id++,
			  !port->tx_ip_cksum);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->ol_flags = RTE_MBUF_F_TX_IPV4;
	if (port->tx_ip_cksum)
		m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
	if (!net->udp_cksum_zero) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)
					  (frame + RTE_ETHER_HDR_LEN);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

		if (port->tx_udp_cksum) {
			m->ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM;
			udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
		} else {
			udp->dgram_cksum = udp_cksum_sw(m, ip, udp);
		}
	}
	return hc_port_tx(port, m);
}

/* One datagram without a template of the caller's: a template for this
 * send alone. */
int
hc_net_udp_send(struct hc_net *net, uint32_t dst_ip, uint8_t tos,
		struct rte_mbuf *m)
{
	struct hc_net_tmpl t;

	hc_net_tmpl_init(&t, dst_ip);
	return hc_net_tmpl_send(net, &t, tos, m, hc_clock_now(net->clk));
}
