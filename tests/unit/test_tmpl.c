/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TX header templates (net.h's hc_net_tmpl, hct_hdr.h's hct_tmpl_*): a
 * template patched for a packet equals the packet built field by field,
 * byte for byte, for several peers (on the rank's segment and behind a
 * gateway on another port), UDP payload lengths, TOS bytes, IPv4 ids,
 * with and without the IPv4 checksum (offload), and PSNs; and a template
 * is rebuilt when the ARP cache or the routes change, or its ARP entry
 * expires.
 *
 * The reference builders here fill each header field from the RFCs'
 * layouts (RFC 894 Ethernet II, RFC 791 IPv4, RFC 768 UDP) and checksum
 * with rte_ipv4_cksum(); the HCT reference is hct_hdr_encode(), the
 * field-by-field encoder. No EAL: nothing here allocates an mbuf.
 */
#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "hct_hdr.h"
#include "net.h"
#include "suites.h"

#define OUR_IP 0xc6120001u    /* 198.18.0.1 */
#define UDP_PORT 51966
#define GW_IP 0xc6120101u     /* 198.18.1.1, gateway on port 1 */
#define FAR_IP 0xc6130005u    /* 198.19.0.5, behind the gateway */
#define T0 1000000000ull
#define ARP_TIMEOUT 5000000000ull
#define ARP_RETRY 1000000000ull

static const struct rte_ether_addr mac_port0 = {
	{ 0x02, 0x00, 0xc6, 0x12, 0x00, 0x01 } };
static const struct rte_ether_addr mac_port1 = {
	{ 0x02, 0x00, 0xc6, 0x12, 0x01, 0x01 } };

/* The peers: IP, whose MAC the frame goes to, and that MAC. */
struct peer {
	uint32_t ip;
	uint32_t next_hop;
	struct rte_ether_addr mac;
	unsigned int port;
};

static const struct peer peers[] = {
	{ 0xc6120002u, 0xc6120002u, { { 0x02, 0x00, 0xc6, 0x12, 0x00, 0x02 } },
	  0 },
	{ 0xc61200fau, 0xc61200fau, { { 0x02, 0x00, 0xc6, 0x12, 0x00, 0xfa } },
	  0 },
	{ FAR_IP, GW_IP, { { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee } }, 1 },
};

/* Ethernet, IPv4 and UDP of a datagram, one field at a time. */
static void
ref_build(uint8_t *frame, const struct rte_ether_addr *src_mac,
	  const struct peer *p, uint8_t tos, uint16_t plen, uint16_t id,
	  int cksum)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(frame, 0x5a, HC_NET_HDR_LEN); /* no byte left unwritten */
	eth->dst_addr = p->mac;
	eth->src_addr = *src_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = 0x45;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + plen);
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->fragment_offset = rte_cpu_to_be_16(0x4000); /* DF */
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	ip->hdr_checksum = 0;
	ip->src_addr = rte_cpu_to_be_32(OUR_IP);
	ip->dst_addr = rte_cpu_to_be_32(p->ip);
	if (cksum)
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(8 + plen);
	udp->dgram_cksum = 0;
}

struct fixture {
	struct hc_port port0, port1;
	struct hc_clock clk;
	struct hc_net net;
};

/* Never called: nothing is received here. */
static void
udp_in(void *ctx, uint32_t src_ip, uint8_t tos, struct rte_mbuf *m,
       const uint8_t *payload, uint16_t len)
{
	(void)ctx; (void)src_ip; (void)tos; (void)m; (void)payload; (void)len;
	CU_FAIL("udp_input called");
}

/* A net layer with two ports (no backend: nothing is sent), the peers'
 * MACs PERMANENT (no ARP request needed), the far peer routed via the
 * gateway on port 1. */
static int
fixture_init(struct fixture *fx)
{
	struct hc_net_conf nc = {
		.ip = OUR_IP, .udp_port = UDP_PORT, .arp_capacity = 8,
		.arp_timeout_ns = ARP_TIMEOUT, .arp_retry_ns = ARP_RETRY,
	};
	unsigned int i;

	memset(fx, 0, sizeof(*fx));
	fx->port0.mac = mac_port0;
	fx->port1.mac = mac_port1;
	fx->port0.mtu = fx->port1.mtu = 9000;
	hc_clock_init_manual(&fx->clk, T0);
	if (hc_net_init(&fx->net, &fx->port0, &fx->clk, &nc, udp_in, NULL) != 0)
		return -1;
	if (hc_net_port_add(&fx->net, &fx->port1) != 1)
		return -1;
	if (hc_net_route_add(&fx->net, FAR_IP, GW_IP, 1, 4) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(peers); i++)
		if (hc_arp_add_permanent(&fx->net.arp, peers[i].next_hop,
					 &peers[i].mac) != 0)
			return -1;
	return 0;
}

/* Every peer, length, TOS, id and checksum mode: patched == built. */
static void
test_net_tmpl_equals_build(void)
{
	static const uint16_t lens[] = { 0, 1, 7, 104, 105, 1472, 8000,
					 8972 };
	static const uint8_t tos[] = { 0x02, 0xc2, 0xba, 0x22, 0x03 };
	static const uint16_t ids[] = { 0, 1, 0x00ff, 0x8000, 0xfffe,
					0xffff };
	struct fixture fx;
	unsigned int p, l, t, i, ck, bad = 0, n = 0;

	CU_ASSERT_EQUAL_FATAL(fixture_init(&fx), 0);
	for (p = 0; p < RTE_DIM(peers); p++) {
		struct hc_net_tmpl tm;
		const struct rte_ether_addr *smac =
			peers[p].port == 1 ? &mac_port1 : &mac_port0;

		hc_net_tmpl_init(&tm, peers[p].ip);
		CU_ASSERT_FALSE(hc_net_tmpl_fresh(&fx.net, &tm, T0));
		CU_ASSERT_EQUAL(hc_net_tmpl_resolve(&fx.net, &tm, T0), 0);
		CU_ASSERT_TRUE(hc_net_tmpl_fresh(&fx.net, &tm, T0));
		CU_ASSERT_EQUAL(tm.port, peers[p].port);
		for (l = 0; l < RTE_DIM(lens); l++)
			for (t = 0; t < RTE_DIM(tos); t++)
				for (i = 0; i < RTE_DIM(ids); i++)
					for (ck = 0; ck < 2; ck++) {
						uint8_t a[HC_NET_HDR_LEN];
						uint8_t b[HC_NET_HDR_LEN];

						memset(a, 0xa5, sizeof(a));
						hc_net_tmpl_patch(&tm, a, tos[t],
								  lens[l],
								  ids[i], ck);
						ref_build(b, smac, &peers[p],
							  tos[t], lens[l],
							  ids[i], ck);
						n++;
						if (memcmp(a, b, sizeof(a)))
							bad++;
					}
	}
	CU_ASSERT_EQUAL(n, RTE_DIM(peers) * RTE_DIM(lens) * RTE_DIM(tos) *
			   RTE_DIM(ids) * 2);
	CU_ASSERT_EQUAL(bad, 0);
	hc_net_free(&fx.net);
}

/* A patched header with its checksum passes hc_ipv4_check() (the RX
 * path's verdict), and one flipped bit in it fails. */
static void
test_net_tmpl_cksum_valid(void)
{
	struct fixture fx;
	struct hc_net_tmpl tm;
	uint8_t a[HC_NET_HDR_LEN + 100];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(a + RTE_ETHER_HDR_LEN);
	uint32_t id;

	CU_ASSERT_EQUAL_FATAL(fixture_init(&fx), 0);
	hc_net_tmpl_init(&tm, peers[0].ip);
	CU_ASSERT_EQUAL_FATAL(hc_net_tmpl_resolve(&fx.net, &tm, T0), 0);
	for (id = 0; id <= 0xffff; id += 251) {
		/* A UDP payload of 92 bytes: 120 from the IP header on. */
		hc_net_tmpl_patch(&tm, a, (uint8_t)id, 92, (uint16_t)id, 1);
		CU_ASSERT_EQUAL(hc_ipv4_check(ip, 120, 1), -1);
		ip->src_addr ^= rte_cpu_to_be_32(1u << (id % 32));
		CU_ASSERT_EQUAL(hc_ipv4_check(ip, 120, 1), HC_NET_DROP_CKSUM);
	}
	hc_net_free(&fx.net);
}

/* The template follows the ARP cache and the routes: a new MAC learnt,
 * a route added, the ARP entry's expiry (and a STALE entry's retry).
 * Only lookups that send nothing are made (the ports have no pool). */
static void
test_net_tmpl_rebuild(void)
{
	static const struct rte_ether_addr mac2 = {
		{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };
	const uint32_t dyn = 0xc6120007u;
	struct fixture fx;
	struct hc_net_tmpl tm;
	struct rte_ether_addr got;
	struct peer ref = { dyn, dyn, mac2, 0 };
	uint8_t a[HC_NET_HDR_LEN], b[HC_NET_HDR_LEN];

	CU_ASSERT_EQUAL_FATAL(fixture_init(&fx), 0);
	hc_net_tmpl_init(&tm, dyn);
	CU_ASSERT_FALSE(tm.valid);
	/* Learnt from a request for us: REACHABLE until T0 + timeout. */
	hc_arp_update(&fx.net.arp, dyn, &peers[0].mac, T0, 1);
	CU_ASSERT_EQUAL(hc_net_tmpl_resolve(&fx.net, &tm, T0 + 1), 0);
	CU_ASSERT_EQUAL(tm.valid_until_ns, T0 + ARP_TIMEOUT);
	CU_ASSERT_TRUE(hc_net_tmpl_fresh(&fx.net, &tm, T0 + ARP_TIMEOUT - 1));
	CU_ASSERT_FALSE(hc_net_tmpl_fresh(&fx.net, &tm, T0 + ARP_TIMEOUT));
	/* Another MAC for it: not fresh until rebuilt, then the new MAC. */
	hc_arp_update(&fx.net.arp, dyn, &mac2, T0 + 2, 0);
	CU_ASSERT_FALSE(hc_net_tmpl_fresh(&fx.net, &tm, T0 + 3));
	CU_ASSERT_EQUAL(hc_net_tmpl_resolve(&fx.net, &tm, T0 + 3), 0);
	CU_ASSERT_TRUE(hc_net_tmpl_fresh(&fx.net, &tm, T0 + 3));
	hc_net_tmpl_patch(&tm, a, 0x02, 500, 77, 1);
	ref_build(b, &mac_port0, &ref, 0x02, 500, 77, 1);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	/* Expired and refreshed (the lookup a rebuild makes, STALE now):
	 * the MAC holds until the next retry. */
	CU_ASSERT_EQUAL(hc_arp_lookup(&fx.net.arp, dyn, T0 + 2 + ARP_TIMEOUT,
				      &got), HC_ARP_HIT_REFRESH);
	CU_ASSERT_EQUAL(hc_arp_valid_until(&fx.net.arp, dyn),
			T0 + 2 + ARP_TIMEOUT + ARP_RETRY);
	CU_ASSERT_EQUAL(hc_arp_valid_until(&fx.net.arp, GW_IP), UINT64_MAX);
	CU_ASSERT_EQUAL(hc_arp_valid_until(&fx.net.arp, 0xc61200ffu), 0);
	/* A route to it via port 1 and the gateway: rebuilt for port 1. */
	CU_ASSERT_EQUAL(hc_net_route_add(&fx.net, dyn, GW_IP, 1, 4), 0);
	CU_ASSERT_FALSE(hc_net_tmpl_fresh(&fx.net, &tm, T0 + 3));
	CU_ASSERT_EQUAL(hc_net_tmpl_resolve(&fx.net, &tm, T0 + 3), 0);
	CU_ASSERT_EQUAL(tm.port, 1);
	ref.mac = peers[2].mac; /* the gateway's */
	hc_net_tmpl_patch(&tm, a, 0x02, 500, 77, 0);
	ref_build(b, &mac_port1, &ref, 0x02, 500, 77, 0);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	hc_net_free(&fx.net);
}

/* A packet of every field distinct, as a flow's TX path fills it. */
static void
fill_pkt(struct hct_pkt *p, uint32_t seed, uint8_t type, uint32_t psn,
	 uint32_t len)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->flags = (uint8_t)(x >> 3);
	p->prio = (uint8_t)(seed & 3);
	p->ecn_ce = (uint16_t)(x >> 17);
	p->psn = psn;
	p->ack_psn = psn ^ (uint32_t)(x >> 29);
	p->sack[0] = x;
	p->sack[1] = ~x << 3;
	p->ts_ns = x * 3;
	p->ts_echo_ns = x * 5;
	p->host_delay_ns = (uint32_t)(x >> 7);
	p->comm_id = (uint32_t)(x >> 11);
	p->coll_seq = (uint32_t)(x >> 13);
	p->sig = (uint32_t)(x >> 19);
	p->step = (uint16_t)(x >> 23);
	p->credit = (uint16_t)(x >> 37);
	p->length = len;
	p->offset = x >> 1;
	p->cov = (uint8_t)(seed & 1);        /* both coverages */
	p->cov_accept = (uint8_t)(~seed & 1);
	p->flags2 = (uint8_t)(seed * 29u);
}

/* HCT header: template + patch == hct_hdr_encode(), for several peers
 * (ranks, nonces), PSNs (0, wrapping, top bit) and payload lengths. */
static void
test_hct_tmpl_equals_encode(void)
{
	static const uint32_t psns[] = { 0, 1, 0x7fffffff, 0x80000000,
					 0xfffffffe, 0xffffffff };
	static const uint32_t lens[] = { 0, 1, 8, 1368, 8856 };
	static const struct { uint16_t src, dst; uint32_t sn, dn; } fl[] = {
		{ 0, 1, 0x11111111, 0x22222222 },
		{ 5, 3, 0x80000001, 0xfffffffe },
		{ 299, 0, 0xdeadbeef, 0 }, /* peer nonce not learnt yet */
		{ 0xfffe, 0x8001, 1, 0x7fffffff },
	};
	const uint32_t job = 0xa1b2c3d4;
	unsigned int f, s, l, ty, bad = 0, n = 0;

	for (f = 0; f < RTE_DIM(fl); f++) {
		uint8_t tmpl[HCT_HDR_LEN];

		memset(tmpl, 0xee, sizeof(tmpl));
		hct_tmpl_build(tmpl, job, fl[f].sn, fl[f].dn, fl[f].src,
			       fl[f].dst);
		for (s = 0; s < RTE_DIM(psns); s++)
			for (l = 0; l < RTE_DIM(lens); l++)
				for (ty = HCT_TYPE_DATA; ty < HCT_TYPE__MAX;
				     ty++) {
					struct hct_pkt p;
					uint8_t a[HCT_HDR_LEN], b[HCT_HDR_LEN];

					fill_pkt(&p, f * 1000 + s * 10 + l,
						 (uint8_t)ty, psns[s],
						 lens[l]);
					memset(a, 0x33, sizeof(a));
					hct_tmpl_patch(a, tmpl, &p);
					/* The reference from every field. */
					p.job_id = job;
					p.src_nonce = fl[f].sn;
					p.dst_nonce = fl[f].dn;
					p.src_rank = fl[f].src;
					p.dst_rank = fl[f].dst;
					p.flow_id = 0;
					hct_hdr_encode(&p, b);
					n++;
					if (memcmp(a, b, sizeof(a)) != 0)
						bad++;
				}
	}
	CU_ASSERT_EQUAL(n, RTE_DIM(fl) * RTE_DIM(psns) * RTE_DIM(lens) *
			   (HCT_TYPE__MAX - HCT_TYPE_DATA));
	CU_ASSERT_EQUAL(bad, 0);
}

static const CU_TestInfo tmpl_tests[] = {
	{ "net template patched = Ethernet/IPv4/UDP built field by field",
	  test_net_tmpl_equals_build },
	{ "net template: IPv4 checksum verified by hc_ipv4_check",
	  test_net_tmpl_cksum_valid },
	{ "net template rebuilt on ARP change, expiry, route change",
	  test_net_tmpl_rebuild },
	{ "HCT template patched = hct_hdr_encode, byte for byte",
	  test_hct_tmpl_equals_encode },
	CU_TEST_INFO_NULL,
};

void
add_tmpl_suite(void)
{
	unit_add_suite("tx header templates", NULL, NULL, tmpl_tests);
}
