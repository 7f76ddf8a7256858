/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUnit tests of the fault injector (drivers/fault.c) and of the port
 * layer that applies it (drivers/port.c): each fault at its rate for a
 * fixed seed, determinism, the reorder window, delay on a manual clock,
 * corruption and truncation caught by the net layer, drop_last_once and
 * the rule-string parser. Needs the EAL for mbufs (its own binary).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_arp.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "clock.h"
#include "fault.h"
#include "net.h"
#include "port.h"

#define N_FRAMES 20000
#define SEED 12345
#define MY_IP 0xc6120002u   /* 198.18.0.2 */
#define PEER_IP 0xc6120001u /* 198.18.0.1 */
#define UDP_PORT 51966

static struct rte_mempool *pool;

/* A frame whose UDP payload starts with a sequence number (4 bytes), a
 * class byte and a flags byte (read by test_classify), checksummed, from
 * PEER_IP to MY_IP:UDP_PORT. */
static struct rte_mbuf *
frame(uint32_t seq, uint8_t cls, uint8_t flags)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *pl;
	const uint16_t plen = 64;

	if (m == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + sizeof(*udp) +
			       plen) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eth, 0, m->data_len);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	eth->dst_addr.addr_bytes[0] = 0x02;
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(*udp) + plen);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(PEER_IP);
	ip->dst_addr = rte_cpu_to_be_32(MY_IP);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(sizeof(*udp) + plen);
	pl = (uint8_t *)(udp + 1);
	memcpy(pl, &seq, sizeof(seq));
	pl[4] = cls;
	pl[5] = flags;
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return m;
}

static const uint8_t *
payload(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, const uint8_t *,
				       sizeof(struct rte_ether_hdr) +
				       sizeof(struct rte_ipv4_hdr) +
				       sizeof(struct rte_udp_hdr));
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	uint32_t s;

	memcpy(&s, payload(m), sizeof(s));
	return s;
}

#define FL_LAST 0x10 /* as HCT_F_LAST */
#define FL_RETX 0x20 /* as HCT_F_RETX */

static enum hc_fault_class
test_classify(const struct rte_mbuf *m, const void *arg, bool *tail)
{
	const uint8_t *p = payload(m);

	RTE_SET_USED(arg);
	*tail = p[4] == HC_FAULT_CLASS_DATA &&
		(p[5] & (FL_LAST | FL_RETX)) == FL_LAST;
	return (enum hc_fault_class)p[4];
}

static void
free_all(struct rte_mbuf **out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free(out[i]);
}

/* Binomial tolerance: |x - np| <= 5 sigma for n trials at p. */
static int
within(uint64_t x, unsigned int n, double p)
{
	double mean = n * p, sd = sqrt(n * p * (1 - p));

	return fabs((double)x - mean) <= 5 * sd;
}

/* Every fault alone at 10% on TX DATA: its counter is binomial, the frames
 * out match it. */
static void
test_rates(void)
{
	static const enum hc_fault_kind kinds[] = {
		HC_FAULT_DROP, HC_FAULT_DUP, HC_FAULT_REORDER, HC_FAULT_DELAY,
		HC_FAULT_CORRUPT, HC_FAULT_TRUNCATE,
	};
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	unsigned int k, i, n;
	uint64_t emitted, x;

	for (k = 0; k < RTE_DIM(kinds); k++) {
		hc_fault_init(&f, SEED);
		f.classify = test_classify;
		hc_fault_set(&f, HC_FAULT_TX, HC_FAULT_CLASS_DATA, kinds[k], 0.1);
		emitted = 0;
		for (i = 0; i < N_FRAMES; i++) {
			/* 100 µs apart: a delayed frame (1 ms) is one of
			 * about 10 held, far from HC_FAULT_HOLD. */
			n = hc_fault_apply(&f, HC_FAULT_TX,
					   frame(i, HC_FAULT_CLASS_DATA, 0),
					   (uint64_t)i * 100000, out);
			emitted += n;
			free_all(out, n);
		}
		n = hc_fault_release(&f, HC_FAULT_TX, UINT64_MAX, out);
		emitted += n;
		free_all(out, n);
		x = f.stats.count[HC_FAULT_TX][HC_FAULT_CLASS_DATA][kinds[k]];
		if (!within(x, N_FRAMES, 0.1))
			printf("\n  fault %u: %" PRIu64 " of %d\n", k, x,
			       N_FRAMES);
		CU_ASSERT(within(x, N_FRAMES, 0.1));
		CU_ASSERT_EQUAL(emitted, kinds[k] == HC_FAULT_DROP ?
				N_FRAMES - x : kinds[k] == HC_FAULT_DUP ?
				N_FRAMES + x : N_FRAMES);
		/* Nothing else counted: other faults, classes, RX. */
		CU_ASSERT_EQUAL(f.stats.count[HC_FAULT_RX][HC_FAULT_CLASS_DATA]
					     [kinds[k]], 0);
		CU_ASSERT_EQUAL(f.stats.count[HC_FAULT_TX][HC_FAULT_CLASS_ACK]
					     [kinds[k]], 0);
		CU_ASSERT_EQUAL(f.nheld[HC_FAULT_TX], 0);
		CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
	}
}

/* A rule for one class leaves the others alone. */
static void
test_class_and_dir(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	char err[128];
	unsigned int i, n, c, passed[HC_FAULT_CLASS__MAX] = { 0 };

	hc_fault_init(&f, SEED);
	f.classify = test_classify;
	CU_ASSERT_EQUAL(hc_fault_parse(&f, "dir=rx,class=ack,drop=100", err,
				       sizeof(err)), 0);
	for (i = 0; i < 400; i++) {
		c = i % HC_FAULT_CLASS__MAX;
		n = hc_fault_apply(&f, i & 4 ? HC_FAULT_RX : HC_FAULT_TX,
				   frame(i, (uint8_t)c, 0), 0, out);
		passed[c] += n;
		free_all(out, n);
	}
	CU_ASSERT_EQUAL(passed[HC_FAULT_CLASS_ACK], 50); /* TX ones only */
	CU_ASSERT_EQUAL(passed[HC_FAULT_CLASS_DATA], 100);
	CU_ASSERT_EQUAL(passed[HC_FAULT_CLASS_OTHER], 100);
	CU_ASSERT_EQUAL(passed[HC_FAULT_CLASS_CONTROL], 100);
	CU_ASSERT_EQUAL(f.stats.count[HC_FAULT_RX][HC_FAULT_CLASS_ACK]
				     [HC_FAULT_DROP], 50);
}

/* The output sequence of seq numbers of one run with every fault on. */
static unsigned int
run_mix(uint64_t seed, uint32_t *seqs, unsigned int cap,
	struct hc_fault_stats *st)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	char err[128];
	unsigned int i, j, n, len = 0;

	hc_fault_init(&f, seed);
	f.classify = test_classify;
	f.drop_last_once = true;
	CU_ASSERT_EQUAL_FATAL(hc_fault_parse(&f, "drop=5,dup=5,reorder=5,"
		"delay=5,delay_us=3,corrupt=1,truncate=1", err, sizeof(err)), 0);
	for (i = 0; i < 5000; i++) {
		n = hc_fault_apply(&f, (enum hc_fault_dir)(i % 2),
				   frame(i, (uint8_t)(i % 4),
					 i % 7 == 0 ? FL_LAST : 0),
				   (uint64_t)i * 1000, out);
		for (j = 0; j < n; j++)
			if (len < cap) /* truncated: its length */
				seqs[len++] = out[j]->data_len < 46 ?
					      out[j]->data_len :
					      seq_of(out[j]) ^ (j << 24);
		free_all(out, n);
	}
	hc_fault_free_held(&f);
	*st = f.stats;
	return len;
}

static void
test_deterministic(void)
{
	static uint32_t a[12000], b[12000];
	struct hc_fault_stats sa, sb;
	unsigned int la, lb;

	la = run_mix(7, a, RTE_DIM(a), &sa);
	lb = run_mix(7, b, RTE_DIM(b), &sb);
	CU_ASSERT_EQUAL(la, lb);
	CU_ASSERT(la > 0 && memcmp(a, b, la * sizeof(a[0])) == 0);
	CU_ASSERT(memcmp(&sa, &sb, sizeof(sa)) == 0);
	lb = run_mix(8, b, RTE_DIM(b), &sb);
	CU_ASSERT(la != lb || memcmp(a, b, la * sizeof(a[0])) != 0);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* A reordered frame goes out after at most reorder_window later frames,
 * and every frame goes out once. */
static void
test_reorder_window(void)
{
	static uint32_t order[N_FRAMES];
	static uint8_t seen[N_FRAMES];
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	char err[128];
	unsigned int i, j, n, len = 0, late, worst = 0, moved = 0;

	hc_fault_init(&f, SEED);
	CU_ASSERT_EQUAL_FATAL(hc_fault_parse(&f, "dir=tx,reorder=30,"
		"reorder_window=4,hold_max_us=10000000", err, sizeof(err)), 0);
	for (i = 0; i < N_FRAMES; i++) {
		n = hc_fault_apply(&f, HC_FAULT_TX, frame(i, 0, 0), i, out);
		for (j = 0; j < n; j++)
			order[len++] = seq_of(out[j]);
		free_all(out, n);
	}
	n = hc_fault_release(&f, HC_FAULT_TX, UINT64_MAX, out);
	for (j = 0; j < n; j++)
		order[len++] = seq_of(out[j]);
	free_all(out, n);
	CU_ASSERT_EQUAL_FATAL(len, N_FRAMES);
	/* The frames sent before s that came after it (it was held while
	 * they passed): at most the window. */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < len; i++) {
		CU_ASSERT_FATAL(order[i] < N_FRAMES && !seen[order[i]]);
		seen[order[i]] = 1;
		late = 0;
		for (j = i > 8 ? i - 8 : 0; j < i; j++)
			late += order[j] > order[i];
		if (late > worst)
			worst = late;
		moved += late > 0;
	}
	CU_ASSERT(worst <= 4);
	CU_ASSERT_EQUAL(worst, 4); /* the window is used up to its end */
	CU_ASSERT(moved > N_FRAMES / 10);
	CU_ASSERT(within(f.stats.count[HC_FAULT_TX][0][HC_FAULT_REORDER],
			 N_FRAMES, 0.3));
}

/* A reordered frame with no later frames goes out at hold_max_us. */
static void
test_reorder_hold_max(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	char err[128];

	hc_fault_init(&f, SEED);
	CU_ASSERT_EQUAL(hc_fault_parse(&f, "reorder=100,hold_max_us=250", err,
				       sizeof(err)), 0);
	CU_ASSERT_EQUAL(hc_fault_apply(&f, HC_FAULT_RX, frame(1, 0, 0), 1000,
				       out), 0);
	CU_ASSERT_EQUAL(hc_fault_release(&f, HC_FAULT_RX, 250999, out), 0);
	CU_ASSERT_EQUAL(hc_fault_release(&f, HC_FAULT_RX, 251000, out), 1);
	free_all(out, 1);
}

/* ---- the port layer over a memory backend ----------------------------- */

static struct rte_mbuf *wire[4096];
static unsigned int wire_len;

static uint16_t
mem_tx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	RTE_SET_USED(port);
	for (i = 0; i < n; i++)
		wire[wire_len++] = pkts[i];
	return n;
}

/* RX returns the frames on the wire. */
static uint16_t
mem_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = wire_len < n ? (uint16_t)wire_len : n;

	RTE_SET_USED(port);
	memcpy(pkts, wire, got * sizeof(pkts[0]));
	memmove(wire, &wire[got], (wire_len - got) * sizeof(wire[0]));
	wire_len -= got;
	return got;
}

static void
mem_close(struct hc_port *port)
{
	RTE_SET_USED(port);
}

static const struct hc_port_ops mem_ops = { mem_rx, mem_tx, mem_close };

static void
port_setup(struct hc_port *port, struct hc_clock *clk)
{
	memset(port, 0, sizeof(*port));
	port->ops = &mem_ops;
	port->burst = 32;
	port->mtu = 1500;
	port->clk = clk;
	hc_fault_init(&port->fault, SEED);
	port->fault.classify = test_classify;
	wire_len = 0;
}

/* Delay: released by hc_port_flush exactly when the manual clock reaches
 * the frame's time + delay_us. */
static void
test_delay_manual_clock(void)
{
	struct hc_port port;
	struct hc_clock clk;
	char err[128];

	hc_clock_init_manual(&clk, 1000);
	port_setup(&port, &clk);
	CU_ASSERT_EQUAL(hc_fault_parse(&port.fault, "dir=tx,delay=100,"
				       "delay_us=500", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(hc_port_tx(&port, frame(1, 0, 0)), 0);
	hc_port_flush(&port);
	CU_ASSERT_EQUAL(wire_len, 0);
	clk.manual_ns = 1000 + 500000 - 1;
	hc_port_flush(&port);
	CU_ASSERT_EQUAL(wire_len, 0);
	clk.manual_ns = 1000 + 500000;
	hc_port_flush(&port);
	CU_ASSERT_EQUAL_FATAL(wire_len, 1);
	CU_ASSERT_EQUAL(seq_of(wire[0]), 1);
	free_all(wire, wire_len);
	wire_len = 0;
	/* Held frames are freed on close. */
	CU_ASSERT_EQUAL(hc_port_tx(&port, frame(2, 0, 0)), 0);
	CU_ASSERT_EQUAL(port.fault.nheld[HC_FAULT_TX], 1);
	hc_port_close(&port);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* RX duplicates: the port hands out 2 frames for each, in order, over
 * as many hc_port_rx calls as it takes; none lost. */
static void
test_port_rx_dup(void)
{
	struct rte_mbuf *pkts[32];
	struct hc_port port;
	struct hc_clock clk;
	unsigned int i, got = 0, calls = 0, bad = 0;
	uint16_t n, j;

	hc_clock_init_manual(&clk, 0);
	port_setup(&port, &clk);
	hc_fault_set(&port.fault, HC_FAULT_RX, HC_FAULT_CLASS_DATA,
		     HC_FAULT_DUP, 1.0);
	for (i = 0; i < 100; i++)
		wire[wire_len++] = frame(i, HC_FAULT_CLASS_DATA, 0);
	while ((n = hc_port_rx(&port, pkts, 32)) > 0) {
		calls++;
		for (j = 0; j < n; j++, got++)
			bad += seq_of(pkts[j]) != got / 2;
		free_all(pkts, n);
	}
	CU_ASSERT_EQUAL(got, 200);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(calls, 7); /* 200 frames, 32 a call */
	CU_ASSERT_EQUAL(port.stats.rx_pkts, 100);
	CU_ASSERT_EQUAL(port.stats.rx_drops, 0);
	CU_ASSERT_EQUAL(port.fault.stats.count[HC_FAULT_RX][HC_FAULT_CLASS_DATA]
					       [HC_FAULT_DUP], 100);
	hc_port_close(&port);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

static unsigned int delivered;

static void
udp_up(void *ctx, uint32_t src_ip, uint8_t tos, struct rte_mbuf *m,
       const uint8_t *pl, uint16_t len)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(src_ip);
	RTE_SET_USED(tos);
	RTE_SET_USED(pl);
	RTE_SET_USED(len);
	delivered++;
	rte_pktmbuf_free(m);
}

/* N frames through the RX injector with rule, then the net layer. */
static void
rx_through_net(const char *rule, unsigned int nframes, struct hc_net *net)
{
	struct hc_net_conf nc = { .ip = MY_IP, .udp_port = UDP_PORT,
				  .arp_capacity = 4,
				  .arp_timeout_ns = HC_NS_PER_S,
				  .arp_retry_ns = HC_NS_PER_MS };
	static struct hc_port port;
	static struct hc_clock clk;
	struct rte_mbuf *pkts[32];
	char err[128];
	unsigned int i;
	uint16_t n, j;

	hc_clock_init_manual(&clk, 0);
	port_setup(&port, &clk);
	port.mac.addr_bytes[0] = 0x02;
	CU_ASSERT_EQUAL_FATAL(hc_fault_parse(&port.fault, rule, err,
					     sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(hc_net_init(net, &port, &clk, &nc, udp_up, NULL),
			      0);
	delivered = 0;
	for (i = 0; i < nframes; i++) {
		wire[wire_len++] = frame(i, HC_FAULT_CLASS_DATA, 0);
		if (wire_len == 32 || i == nframes - 1)
			while ((n = hc_port_rx(&port, pkts, 32)) > 0)
				for (j = 0; j < n; j++)
					hc_net_input(net, pkts[j]);
	}
	hc_net_free(net);
	hc_port_close(&port);
}

static void
test_corrupt_caught(void)
{
	struct hc_net net;
	const uint64_t *d = net.stats.rx_drops;

	rx_through_net("dir=rx,corrupt=0", 1000, &net);
	CU_ASSERT_EQUAL(delivered, 1000); /* the control */
	rx_through_net("dir=rx,corrupt=100", 1000, &net);
	CU_ASSERT_EQUAL(delivered, 0);
	/* A flipped bit breaks the IPv4 or UDP checksum; only the bits the
	 * checks before the checksum read (IHL/version, lengths, UDP port)
	 * are dropped by those. */
	CU_ASSERT_EQUAL(d[HC_NET_DROP_CKSUM] + d[HC_NET_DROP_MALFORMED] +
			d[HC_NET_DROP_NOT_OURS] + d[HC_NET_DROP_PROTO], 1000);
	CU_ASSERT(d[HC_NET_DROP_CKSUM] >= 900);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

static void
test_truncate_malformed(void)
{
	struct hc_net net;

	rx_through_net("dir=rx,truncate=100", 1000, &net);
	CU_ASSERT_EQUAL(delivered, 0);
	CU_ASSERT_EQUAL(net.stats.rx_drops[HC_NET_DROP_MALFORMED], 1000);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* TX corruption with checksum offload requested: the injector fills the
 * checksums first, so the receiver still catches the flipped bit. */
static void
test_corrupt_tx_offload(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX], *m;
	struct rte_ipv4_hdr *ip;
	struct hc_net_conf nc = { .ip = MY_IP, .udp_port = UDP_PORT,
				  .arp_capacity = 4,
				  .arp_timeout_ns = HC_NS_PER_S,
				  .arp_retry_ns = HC_NS_PER_MS };
	struct hc_port port;
	struct hc_clock clk;
	struct hc_net net;
	struct hc_fault f;
	unsigned int i, n;

	hc_clock_init_manual(&clk, 0);
	port_setup(&port, &clk);
	port.mac.addr_bytes[0] = 0x02;
	CU_ASSERT_EQUAL_FATAL(hc_net_init(&net, &port, &clk, &nc, udp_up, NULL),
			      0);
	/* The control: the same frame with the checksum the PMD would fill
	 * is delivered. */
	delivered = 0;
	m = frame(0, 0, 0);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     RTE_ETHER_HDR_LEN);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	hc_net_input(&net, m);
	CU_ASSERT_EQUAL(delivered, 1);
	hc_fault_init(&f, SEED);
	hc_fault_set(&f, HC_FAULT_TX, HC_FAULT_CLASS_OTHER, HC_FAULT_CORRUPT,
		     1.0);
	delivered = 0;
	for (i = 0; i < 200; i++) {
		m = frame(i, 0, 0);
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					     RTE_ETHER_HDR_LEN);
		ip->hdr_checksum = 0; /* left to the "PMD" */
		m->l2_len = RTE_ETHER_HDR_LEN;
		m->l3_len = sizeof(*ip);
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		n = hc_fault_apply(&f, HC_FAULT_TX, m, 0, out);
		CU_ASSERT_EQUAL_FATAL(n, 1);
		CU_ASSERT_EQUAL(out[0]->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0);
		out[0]->ol_flags = 0;
		hc_net_input(&net, out[0]);
	}
	CU_ASSERT_EQUAL(delivered, 0);
	hc_net_free(&net);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* The transport keeps a reference to each DATA frame to retransmit from:
 * corrupt and truncate change a copy, never the frame it keeps. */
static void
test_shared_frame_intact(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX], *m;
	uint8_t before[256];
	struct hc_fault f;
	uint32_t len;
	unsigned int k, n;

	for (k = 0; k < 2; k++) {
		hc_fault_init(&f, SEED);
		hc_fault_set(&f, HC_FAULT_TX, HC_FAULT_CLASS_OTHER,
			     k == 0 ? HC_FAULT_CORRUPT : HC_FAULT_TRUNCATE, 1.0);
		m = frame(7, 0, 0);
		len = m->pkt_len;
		memcpy(before, rte_pktmbuf_mtod(m, void *), len);
		rte_mbuf_refcnt_update(m, 1); /* the transport's reference */
		n = hc_fault_apply(&f, HC_FAULT_TX, m, 0, out);
		CU_ASSERT_EQUAL_FATAL(n, 1);
		CU_ASSERT_PTR_NOT_EQUAL(out[0], m);
		CU_ASSERT_EQUAL(m->pkt_len, len);
		CU_ASSERT(memcmp(before, rte_pktmbuf_mtod(m, void *), len) == 0);
		CU_ASSERT(out[0]->pkt_len != len ||
			  memcmp(before, rte_pktmbuf_mtod(out[0], void *),
				 len) != 0);
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
		CU_ASSERT(out[0]->pkt_len >= RTE_ETHER_HDR_LEN);
		rte_pktmbuf_free(out[0]);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* A frame as a retransmission by clone makes it: a header mbuf with the
 * first hlen bytes of frame(seq), chained to a clone of that frame with
 * those bytes cut off. *orig gets the frame (refcnt: ours + the clone). */
static struct rte_mbuf *
chained(uint32_t seq, uint32_t hlen, struct rte_mbuf **orig)
{
	struct rte_mbuf *o = frame(seq, 0, 0), *h = rte_pktmbuf_alloc(pool);
	struct rte_mbuf *c = rte_pktmbuf_clone(o, pool);
	void *d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	d = rte_pktmbuf_append(h, (uint16_t)hlen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memcpy(d, rte_pktmbuf_mtod(o, void *), hlen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_adj(c, (uint16_t)hlen));
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_chain(h, c), 0);
	*orig = o;
	return h;
}

/* Corrupt, truncate and duplicate on a chained frame: the injector acts
 * on a one-segment copy of the whole frame (a flipped bit may land in
 * the chained part), and the frame the clone points at is unchanged. */
static void
test_chained_frame(void)
{
	static const enum hc_fault_kind kinds[] = {
		HC_FAULT_CORRUPT, HC_FAULT_TRUNCATE, HC_FAULT_DUP };
	const uint32_t hlen = RTE_ETHER_HDR_LEN + 20 + 8 + 4;
	struct rte_mbuf *out[HC_FAULT_OUT_MAX], *m, *o;
	uint8_t before[256], got[256];
	const uint8_t *g;
	unsigned int k, i, n, j, in_tail = 0;
	struct hc_fault f;
	uint32_t len;

	for (k = 0; k < RTE_DIM(kinds); k++) {
		hc_fault_init(&f, SEED + k);
		hc_fault_set(&f, HC_FAULT_TX, HC_FAULT_CLASS_OTHER, kinds[k],
			     1.0);
		for (i = 0; i < 100; i++) {
			m = chained(i, hlen, &o);
			len = o->pkt_len;
			CU_ASSERT_EQUAL_FATAL(m->pkt_len, len);
			memcpy(before, rte_pktmbuf_mtod(o, void *), len);
			n = hc_fault_apply(&f, HC_FAULT_TX, m, 0, out);
			CU_ASSERT_EQUAL_FATAL(n, kinds[k] == HC_FAULT_DUP ? 2 : 1);
			/* The clone's frame: as it was. */
			CU_ASSERT(memcmp(before, rte_pktmbuf_mtod(o, void *),
					 len) == 0);
			for (j = 0; j < n; j++) {
				CU_ASSERT_EQUAL(out[j]->nb_segs,
						kinds[k] == HC_FAULT_DUP && j == 0
						? 2 : 1);
				g = rte_pktmbuf_read(out[j], 0,
						     out[j]->pkt_len, got);
				CU_ASSERT_PTR_NOT_NULL_FATAL(g);
				if (kinds[k] == HC_FAULT_CORRUPT) {
					CU_ASSERT_EQUAL(out[j]->pkt_len, len);
					CU_ASSERT(memcmp(before, g, len) != 0);
					in_tail += memcmp(before + hlen,
							  g + hlen,
							  len - hlen) != 0;
				} else if (kinds[k] == HC_FAULT_TRUNCATE) {
					CU_ASSERT(out[j]->pkt_len < len);
				} else {
					CU_ASSERT_EQUAL(out[j]->pkt_len, len);
					CU_ASSERT(memcmp(before, g, len) ==
						  0);
				}
				rte_pktmbuf_free(out[j]);
			}
			/* Only our reference is left: the clone was freed
			 * (or copied and freed) by the injector's user. */
			CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(o), 1);
			rte_pktmbuf_free(o);
		}
	}
	/* Most of the frame is in the chained part: flips land there. */
	CU_ASSERT(in_tail > 50);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

/* drop_last_once drops exactly the first transmissions of LAST frames. */
static void
test_drop_last_once(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	unsigned int i, n, lasts = 0;
	uint8_t fl;

	hc_fault_init(&f, SEED);
	f.classify = test_classify;
	f.drop_last_once = true;
	hc_fault_set(&f, HC_FAULT_TX, HC_FAULT_CLASS_DATA, HC_FAULT_DROP, 0);
	for (i = 0; i < 1000; i++) {
		fl = (uint8_t)((i % 3 == 0 ? FL_LAST : 0) |
			       (i % 5 == 0 ? FL_RETX : 0));
		n = hc_fault_apply(&f, HC_FAULT_TX,
				   frame(i, HC_FAULT_CLASS_DATA, fl), 0, out);
		CU_ASSERT_EQUAL(n, fl == FL_LAST ? 0u : 1u);
		lasts += fl == FL_LAST;
		free_all(out, n);
		/* never on RX, never another class */
		n = hc_fault_apply(&f, HC_FAULT_RX,
				   frame(i, HC_FAULT_CLASS_DATA, fl), 0, out);
		CU_ASSERT_EQUAL(n, 1);
		free_all(out, n);
		n = hc_fault_apply(&f, HC_FAULT_TX,
				   frame(i, HC_FAULT_CLASS_ACK, fl), 0, out);
		CU_ASSERT_EQUAL(n, 1);
		free_all(out, n);
	}
	CU_ASSERT_EQUAL(lasts, 267);
	CU_ASSERT_EQUAL(f.stats.count[HC_FAULT_TX][HC_FAULT_CLASS_DATA]
				     [HC_FAULT_DROP_LAST], 267);
}

/* start_ms: inactive before the epoch and for start_ms after it. */
static void
test_start_ms(void)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	struct hc_fault f;
	char err[128];
	unsigned int n;

	hc_fault_init(&f, SEED);
	CU_ASSERT_EQUAL(hc_fault_parse(&f, "drop=100,start_ms=5", err,
				       sizeof(err)), 0);
	n = hc_fault_apply(&f, HC_FAULT_TX, frame(1, 0, 0), 10 * HC_NS_PER_MS,
			   out);
	CU_ASSERT_EQUAL(n, 1);
	free_all(out, n);
	hc_fault_set_epoch(&f, 20 * HC_NS_PER_MS);
	n = hc_fault_apply(&f, HC_FAULT_TX, frame(2, 0, 0), 25 * HC_NS_PER_MS - 1,
			   out);
	CU_ASSERT_EQUAL(n, 1);
	free_all(out, n);
	n = hc_fault_apply(&f, HC_FAULT_RX, frame(3, 0, 0), 25 * HC_NS_PER_MS,
			   out);
	CU_ASSERT_EQUAL(n, 0);
}

static void
test_parse(void)
{
	static const struct {
		const char *rules, *err;
	} bad[] = {
		{ "dir=tx,class=data,drpo=5", "rule 1: unknown key 'drpo'" },
		{ "dir=up", "rule 1: dir='up': not tx, rx or both" },
		{ "class=nack", "rule 1: class='nack': not data, ack, control, "
		  "other or all" },
		{ "drop=101", "rule 1: drop='101': not a percent 0..100" },
		{ "dup=-1", "rule 1: dup='-1': not a percent 0..100" },
		{ "drop=5x", "rule 1: drop='5x': not a percent 0..100" },
		{ "drop=5;reorder_window=0", "rule 2: reorder_window='0': not "
		  "an integer 1..64" },
		{ "delay_us=1e3", "rule 1: delay_us='1e3': not an integer "
		  "0..10000000" },
		{ "drop=", "rule 1: 'drop' has no value" },
		{ "drop=1, dup=2", "rule 1: 'drop=1, dup=2' contains a blank" },
	};
	struct hc_fault f, before;
	char err[160];
	size_t i;

	hc_fault_init(&f, 1);
	CU_ASSERT_EQUAL(hc_fault_parse(&f, "dir=tx,class=data,drop=5,dup=2,"
		"reorder=1,reorder_window=8 | dir=rx,class=ack,drop=20 ;"
		"class=control,delay=0.5,delay_us=300,start_ms=7", err,
		sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_DATA]
			       .p[HC_FAULT_DROP], 0.05, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_DATA]
			       .p[HC_FAULT_DUP], 0.02, 1e-12);
	CU_ASSERT_EQUAL(f.rule[HC_FAULT_RX][HC_FAULT_CLASS_DATA]
			.p[HC_FAULT_DROP], 0);
	CU_ASSERT_DOUBLE_EQUAL(f.rule[HC_FAULT_RX][HC_FAULT_CLASS_ACK]
			       .p[HC_FAULT_DROP], 0.2, 1e-12);
	CU_ASSERT_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_ACK]
			.p[HC_FAULT_DROP], 0);
	CU_ASSERT_DOUBLE_EQUAL(f.rule[HC_FAULT_RX][HC_FAULT_CLASS_CONTROL]
			       .p[HC_FAULT_DELAY], 0.005, 1e-12);
	CU_ASSERT_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_CONTROL].delay_ns,
			300000);
	CU_ASSERT_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_CONTROL].start_ns,
			(int64_t)(7 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(f.rule[HC_FAULT_TX][HC_FAULT_CLASS_DATA].start_ns, -1);
	CU_ASSERT(f.active[HC_FAULT_TX] && f.active[HC_FAULT_RX]);
	for (i = 0; i < RTE_DIM(bad); i++) {
		before = f;
		err[0] = '\0';
		CU_ASSERT_EQUAL(hc_fault_parse(&f, bad[i].rules, err,
					       sizeof(err)), -HC_ERR_CONFIG);
		if (strcmp(err, bad[i].err) != 0)
			printf("\n  '%s': got '%s'\n", bad[i].rules, err);
		CU_ASSERT_STRING_EQUAL(err, bad[i].err);
		CU_ASSERT(memcmp(&before, &f, sizeof(f)) == 0);
	}
}

/* ---- ports and routes in the net layer -------------------------------- */

static struct rte_mbuf *wire1[64];
static unsigned int wire1_len;

static uint16_t
mem1_tx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	RTE_SET_USED(port);
	for (i = 0; i < n && wire1_len < RTE_DIM(wire1); i++)
		wire1[wire1_len++] = pkts[i];
	return i;
}

static uint16_t
mem1_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(port);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
	return 0;
}

static const struct hc_port_ops mem1_ops = { mem1_rx, mem1_tx, mem_close };

/* An ARP packet of opcode op from sha/sip for tip, broadcast, in a
 * fresh mbuf. */
static struct rte_mbuf *
arp_frame_op(const struct rte_ether_addr *sha, uint32_t sip, uint32_t tip,
	     uint16_t op)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_append(m, sizeof(*eth) +
							   sizeof(*arp)));
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eth->src_addr = *sha;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	arp->arp_data.arp_sha = *sha;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	memset(&arp->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	arp->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	return m;
}

/* An ARP request from sha/sip for tip, broadcast, in a fresh mbuf. */
static struct rte_mbuf *
arp_frame(const struct rte_ether_addr *sha, uint32_t sip, uint32_t tip)
{
	return arp_frame_op(sha, sip, tip, RTE_ARP_OP_REQUEST);
}

/* A datagram to a routed peer leaves by the route's port, to the
 * gateway's MAC; one without a route by port 0, to its own MAC; an ARP
 * request that came in on port 1 is answered on port 1 with port 1's MAC;
 * a port of another MTU is refused. */
static void
test_net_routes(void)
{
	static const struct rte_ether_addr gw_mac = {
		.addr_bytes = { 0x02, 0, 0, 0, 0, 0xfe } };
	static const struct rte_ether_addr other_mac = {
		.addr_bytes = { 0x02, 0, 0, 0, 0, 0x03 } };
	const uint32_t gw_ip = 0xc61200feu, other_ip = 0xc6120003u;
	struct hc_net_conf nc = { .ip = MY_IP, .udp_port = UDP_PORT,
				  .arp_capacity = 4,
				  .arp_timeout_ns = HC_NS_PER_S,
				  .arp_retry_ns = HC_NS_PER_MS };
	struct hc_port p0, p1, p2;
	struct hc_clock clk;
	struct hc_net net;
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;
	unsigned int i;

	hc_clock_init_manual(&clk, 0);
	port_setup(&p0, &clk);
	p0.pool = pool;
	p0.mac.addr_bytes[0] = 0x02;
	p0.mac.addr_bytes[5] = 0x10;
	p1 = p0;
	p1.ops = &mem1_ops;
	p1.mac.addr_bytes[5] = 0x11;
	p2 = p0;
	p2.mtu = 9000;
	wire1_len = 0;
	CU_ASSERT_EQUAL_FATAL(hc_net_init(&net, &p0, &clk, &nc, udp_up, NULL),
			      0);
	CU_ASSERT_EQUAL(hc_net_port_add(&net, &p1), 1);
	CU_ASSERT_EQUAL(hc_net_port_add(&net, &p2), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_net_route_add(&net, PEER_IP, gw_ip, 2, 4),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_net_route_add(&net, PEER_IP, gw_ip, 1, 4), 0);
	CU_ASSERT_EQUAL(hc_arp_add_permanent(&net.arp, gw_ip, &gw_mac), 0);
	CU_ASSERT_EQUAL(hc_arp_add_permanent(&net.arp, other_ip, &other_mac),
			0);

	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_append(m, 100));
	CU_ASSERT_EQUAL(hc_net_udp_send(&net, PEER_IP, 0, m), 0);
	CU_ASSERT_EQUAL(p0.txq_len, 0);
	CU_ASSERT_EQUAL_FATAL(p1.txq_len, 1);
	eth = rte_pktmbuf_mtod(p1.txq[0], struct rte_ether_hdr *);
	CU_ASSERT(rte_is_same_ether_addr(&eth->dst_addr, &gw_mac));
	CU_ASSERT(rte_is_same_ether_addr(&eth->src_addr, &p1.mac));

	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_append(m, 100));
	CU_ASSERT_EQUAL(hc_net_udp_send(&net, other_ip, 0, m), 0);
	CU_ASSERT_EQUAL_FATAL(p0.txq_len, 1);
	CU_ASSERT_EQUAL(p1.txq_len, 1);
	eth = rte_pktmbuf_mtod(p0.txq[0], struct rte_ether_hdr *);
	CU_ASSERT(rte_is_same_ether_addr(&eth->dst_addr, &other_mac));
	CU_ASSERT(rte_is_same_ether_addr(&eth->src_addr, &p0.mac));

	/* An ARP request for us from the gateway, arriving on port 1. */
	hc_net_input_port(&net, 1, arp_frame(&gw_mac, gw_ip, MY_IP));
	CU_ASSERT_EQUAL(net.stats.arp_replies, 1);
	CU_ASSERT_EQUAL(net.stats.rx_port[1], 1);
	CU_ASSERT_EQUAL(p0.txq_len, 1);
	CU_ASSERT_EQUAL_FATAL(p1.txq_len, 2);
	eth = rte_pktmbuf_mtod(p1.txq[1], struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	CU_ASSERT(rte_is_same_ether_addr(&eth->src_addr, &p1.mac));
	CU_ASSERT(rte_is_same_ether_addr(&arp->arp_data.arp_sha, &p1.mac));
	CU_ASSERT(rte_is_same_ether_addr(&eth->dst_addr, &gw_mac));

	/* Another station's announcement (sender = target IP, RFC 5227) and
	 * its request for a third station are read, not counted as drops
	 * (a second job's ranks resolving each other on one segment, C38,
	 * are not garbage); a reply for a third station is not ours, and
	 * counted. */
	hc_net_input_port(&net, 0, arp_frame(&other_mac, other_ip, other_ip));
	CU_ASSERT_EQUAL(net.stats.rx_drops[HC_NET_DROP_NOT_OURS], 0);
	hc_net_input_port(&net, 0, arp_frame(&other_mac, other_ip, gw_ip));
	CU_ASSERT_EQUAL(net.stats.rx_drops[HC_NET_DROP_NOT_OURS], 0);
	hc_net_input_port(&net, 0, arp_frame_op(&other_mac, other_ip, gw_ip,
						RTE_ARP_OP_REPLY));
	CU_ASSERT_EQUAL(net.stats.rx_drops[HC_NET_DROP_NOT_OURS], 1);
	CU_ASSERT_EQUAL(net.stats.arp_replies, 1);
	CU_ASSERT_EQUAL(p0.txq_len, 1);

	hc_port_flush(&p1);
	CU_ASSERT_EQUAL(wire1_len, 2);
	for (i = 0; i < wire1_len; i++)
		rte_pktmbuf_free(wire1[i]);
	wire1_len = 0;
	for (i = 0; i < p0.txq_len; i++)
		rte_pktmbuf_free(p0.txq[i]);
	p0.txq_len = 0;
	hc_net_free(&net);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(pool), 0);
}

static CU_TestInfo fault_tests[] = {
	{ "corrupt/truncate/dup on a chained frame: copy, clone intact",
	  test_chained_frame },
	{ "net: routes pick port and next hop; ARP on the arrival port",
	  test_net_routes },
	{ "each fault at its rate", test_rates },
	{ "rules per class and direction", test_class_and_dir },
	{ "same seed, same faults", test_deterministic },
	{ "reorder within the window", test_reorder_window },
	{ "reorder bounded by hold_max_us", test_reorder_hold_max },
	{ "delay on a manual clock", test_delay_manual_clock },
	{ "port RX duplicates, none lost", test_port_rx_dup },
	{ "corrupt caught by the checksums", test_corrupt_caught },
	{ "corrupt on TX with checksum offload", test_corrupt_tx_offload },
	{ "truncate dropped as malformed", test_truncate_malformed },
	{ "corrupt/truncate leave a shared frame intact",
	  test_shared_frame_intact },
	{ "drop_last_once", test_drop_last_once },
	{ "start_ms counts from the epoch", test_start_ms },
	{ "rule strings", test_parse },
	CU_TEST_INFO_NULL,
};

int
main(void)
{
	char a0[] = "test_fault", a1[] = "--no-huge", a2[] = "-m";
	char a3[] = "64", a4[] = "--no-pci", a5[] = "--no-telemetry";
	char a6[] = "--no-shconf", a7[] = "--log-level=lib.*:error";
	char a8[] = "--file-prefix", a9[32];
	char *eal_argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL };
	CU_SuiteInfo suites[] = {
		{ "fault", NULL, NULL, NULL, NULL, fault_tests },
		CU_SUITE_INFO_NULL,
	};
	unsigned int failed;
	char rundir[4096];

	snprintf(a9, sizeof(a9), "hcft%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "test_fault: rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	pool = rte_pktmbuf_pool_create("test_fault", 8191, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL || CU_initialize_registry() != CUE_SUCCESS ||
	    CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "test_fault: set-up failed\n");
		return EXIT_FAILURE;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	rte_mempool_free(pool);
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	/* --no-shconf leaves the runtime directory empty: remove it. */
	if (strstr(rundir, a9) != NULL)
		rmdir(rundir);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
