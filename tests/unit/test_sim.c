/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sim: the virtual-time network (stack/sim/sim.h) and the real stack
 * on it (stack/sim/simrun.h).
 *
 * Network tests send hand-made Ethernet/IPv4 frames through sim ports and
 * check arrival times to the ns, tail drops, ECN marks, strict priority
 * and seeded loss. Stack tests run the existing ring all-reduce on 1..64
 * simulated ranks, with and without link loss, and check every element on
 * every rank against apps/hc-perf/pattern.h, and that a seed fixes a run.
 *
 * HC_SIM_TEST="<test name>" runs that one test only (profiling; the main
 * is cunit_main.c, shared by the sim binaries).
 *
 * The EAL is needed for mbuf pools only: --no-huge -m 1536, --no-pci, its
 * own --file-prefix hcsim<pid>, whose runtime directory is removed at exit.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "hypercomm.h"
#include "engine.h"
#include "pattern.h"
#include "sim.h"
#include "simrun.h"
#include "cunit_main.h"

#define T0 HC_SIM_DEF_START_NS
#define RATE 10.0          /* Gbit/s: 1000-byte frame = 800 ns */
#define PROP_NS 1000
#define FRAME 1000         /* bytes */
#define SER_NS 800         /* FRAME at RATE */
#define NET_POOL 8191

/* ---- network tests: hand-made frames through sim ports -------------- */

struct net {
	struct hc_sim *sim;
	struct hc_port port[4];
	uint32_t hosts;
};

static unsigned int pool_seq;

static struct rte_ether_addr
host_mac(uint32_t h)
{
	return (struct rte_ether_addr){ .addr_bytes = { 0x02, 0, 0, 0, 0,
						        (uint8_t)(h + 1) } };
}

static struct hc_sim_link_conf
link_conf(void)
{
	return (struct hc_sim_link_conf){ .rate_gbps = RATE,
		.prop_ns = PROP_NS, .queue_bytes = 1 << 20 };
}

/* The network of sc with every host's port open. */
static int
net_open(struct net *n, const struct hc_sim_conf *sc)
{
	uint32_t h;

	memset(n, 0, sizeof(*n));
	n->hosts = sc->hosts;
	if (sc->hosts > RTE_DIM(n->port) || hc_sim_create(sc, &n->sim) != 0)
		return -1;
	for (h = 0; h < sc->hosts; h++) {
		struct rte_ether_addr mac = host_mac(h);
		struct hc_port_conf pc = { .mtu = 1500, .pool_mbufs = 2047,
			.rx_desc = 4096, .burst = 32, .mac = &mac };
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "tsim%u", pool_seq++);
		pc.pool_name = name;
		if (hc_port_open_sim(&n->port[h], n->sim, h, &pc) != 0)
			return -1;
	}
	return 0;
}

/* A star of `hosts` hosts, every port open. */
static int
net_up(struct net *n, uint32_t hosts, uint64_t seed)
{
	struct hc_sim_conf sc = { .topo = HC_SIM_TOPO_STAR, .hosts = hosts,
		.host_link = link_conf(), .pool_mbufs = NET_POOL,
		.seed = seed };

	return net_open(n, &sc);
}

static void
net_down(struct net *n)
{
	uint32_t h;

	for (h = 0; h < n->hosts; h++)
		hc_port_close(&n->port[h]);
	hc_sim_destroy(n->sim);
	n->sim = NULL;
}

/* An IPv4 frame of `len` bytes from host src to host dst with TOS tos and
 * IP id id, valid header checksum. */
static struct rte_mbuf *
frame(struct net *n, uint32_t src, uint32_t dst, uint16_t len, uint8_t tos,
      uint16_t id)
{
	struct rte_mbuf *m = hc_port_alloc(&n->port[src]);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;

	if (m == NULL || rte_pktmbuf_append(m, len) == NULL)
		return NULL;
	memset(rte_pktmbuf_mtod(m, void *), 0xa5, len);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	eth->dst_addr = host_mac(dst);
	eth->src_addr = host_mac(src);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(len - RTE_ETHER_HDR_LEN);
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	ip->src_addr = rte_cpu_to_be_32(0xc6120001u + src);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120001u + dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static int
send_frame(struct net *n, uint32_t src, uint32_t dst, uint16_t len,
	   uint8_t tos, uint16_t id)
{
	struct rte_mbuf *m = frame(n, src, dst, len, tos, id);

	if (m == NULL || hc_port_tx(&n->port[src], m) != 0)
		return -1;
	hc_port_flush(&n->port[src]);
	return 0;
}

static const struct rte_ipv4_hdr *
ipv4_of(const struct rte_mbuf *m)
{
	return (const struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(m,
		const struct rte_ether_hdr *) + 1);
}

/* Receive everything host h has; ids[] gets the IP ids in order. */
static uint32_t
drain(struct net *n, uint32_t h, uint16_t *ids, uint32_t max)
{
	struct rte_mbuf *pkts[64];
	uint32_t got = 0;
	uint16_t k, i;

	while ((k = hc_port_rx(&n->port[h], pkts, 64)) > 0)
		for (i = 0; i < k; i++) {
			if (ids != NULL && got < max)
				ids[got] = rte_be_to_cpu_16(
					ipv4_of(pkts[i])->packet_id);
			got++;
			rte_pktmbuf_free(pkts[i]);
		}
	return got;
}

/* Frames at host h visible at exactly time t: none at t - 1 ns. */
static uint32_t
arrivals_at(struct net *n, uint32_t h, uint64_t t)
{
	hc_sim_advance(n->sim, t - 1);
	if (drain(n, h, NULL, 0) != 0)
		return UINT32_MAX;
	hc_sim_advance(n->sim, t);
	return drain(n, h, NULL, 0);
}

/* One frame: serialization + propagation on each of the two hops; the
 * receiver gets a copy, the sender's mbuf is back to one reference. */
static void
test_single_arrival(void)
{
	struct net n;
	struct rte_mbuf *m, *got[2];
	uint64_t t;

	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	m = frame(&n, 0, 1, FRAME, 0x02, 7);
	CU_ASSERT_FATAL(m != NULL);
	rte_mbuf_refcnt_update(m, 1);	/* keep it, as HCT does */
	CU_ASSERT(hc_port_tx(&n.port[0], m) == 0);
	CU_ASSERT(hc_port_flush(&n.port[0]) == 0);
	CU_ASSERT(rte_mbuf_refcnt_read(m) == 1);
	CU_ASSERT(hc_port_tx_queued_bytes(&n.port[0]) == FRAME);
	t = T0 + 2 * (SER_NS + PROP_NS);
	CU_ASSERT(arrivals_at(&n, 1, t - 1) == 0);
	hc_sim_advance(n.sim, t - 1);
	CU_ASSERT(hc_port_rx(&n.port[1], got, 2) == 0);
	hc_sim_advance(n.sim, t);
	CU_ASSERT_FATAL(hc_port_rx(&n.port[1], got, 2) == 1);
	CU_ASSERT(got[0] != m);
	CU_ASSERT(got[0]->pool != m->pool);
	CU_ASSERT(got[0]->pkt_len == FRAME);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(got[0], void *),
			 rte_pktmbuf_mtod(m, void *), FRAME) == 0);
	CU_ASSERT(hc_port_tx_queued_bytes(&n.port[0]) == 0);
	CU_ASSERT(hc_sim_next_event(n.sim, &t) == 0);
	rte_pktmbuf_free(got[0]);
	rte_pktmbuf_free(m);
	net_down(&n);
}

/* A back-to-back burst of 5: frame k (1-based) leaves the NIC at
 * k * SER_NS and, pipelined through the switch, arrives SER + 2 PROP
 * later, one per SER_NS. */
static void
test_burst_arrival(void)
{
	struct net n;
	uint32_t k;

	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	for (k = 1; k <= 5; k++)
		CU_ASSERT(send_frame(&n, 0, 1, FRAME, 0x02, k) == 0);
	CU_ASSERT(hc_port_tx_queued_bytes(&n.port[0]) == 5 * FRAME);
	for (k = 1; k <= 5; k++)
		CU_ASSERT(arrivals_at(&n, 1, T0 + k * SER_NS + SER_NS +
					     2 * PROP_NS) == 1);
	net_down(&n);
}

/* Two-tier, groups of 2, fabric at 40 Gbit/s and 500 ns: host 0 -> host
 * 2 crosses host link, leaf up, spine down, host link; host 0 -> host 1
 * stays in its leaf. A broadcast from host 0 reaches hosts 1, 2 and 3 once
 * each (flooded, never back to its sender). */
static void
test_two_tier(void)
{
	struct hc_sim_conf sc = { .topo = HC_SIM_TOPO_TWO_TIER, .hosts = 4,
		.group = 2, .host_link = link_conf(),
		.fabric_link = { .rate_gbps = 40, .prop_ns = 500,
				 .queue_bytes = 1 << 20 },
		.pool_mbufs = NET_POOL, .seed = 1 };
	struct hc_sim_link_stats st;
	struct rte_mbuf *m;
	struct net n;
	uint32_t h;

	CU_ASSERT_FATAL(net_open(&n, &sc) == 0);
	CU_ASSERT(send_frame(&n, 0, 2, FRAME, 0x02, 1) == 0);
	CU_ASSERT(arrivals_at(&n, 2, T0 + 2 * (SER_NS + PROP_NS) +
				     2 * (200 + 500)) == 1);
	CU_ASSERT(send_frame(&n, 0, 1, FRAME, 0x02, 2) == 0);
	CU_ASSERT(arrivals_at(&n, 1, hc_sim_now(n.sim) +
				     2 * (SER_NS + PROP_NS)) == 1);
	m = frame(&n, 0, 1, 60, 0, 3);
	CU_ASSERT_FATAL(m != NULL);
	memset(rte_pktmbuf_mtod(m, void *), 0xff, RTE_ETHER_ADDR_LEN);
	CU_ASSERT(hc_port_tx(&n.port[0], m) == 0);
	hc_port_flush(&n.port[0]);
	hc_sim_advance(n.sim, hc_sim_now(n.sim) + HC_NS_PER_MS);
	CU_ASSERT(drain(&n, 0, NULL, 0) == 0);
	for (h = 1; h < 4; h++)
		CU_ASSERT(drain(&n, h, NULL, 0) == 1);
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_LEAF_UP, 0), &st) == 0);
	CU_ASSERT(st.total.pkts == 2);	/* frame 1 and the broadcast */
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_LEAF_UP, 1), &st) == 0);
	CU_ASSERT(st.total.pkts == 0);
	net_down(&n);
}

/* A NIC egress of 3000 bytes takes 3 frames of 1000; the port keeps the
 * other 2 and hands them over once the NIC has sent some. */
static void
test_nic_full(void)
{
	struct hc_sim_conf sc = { .topo = HC_SIM_TOPO_STAR, .hosts = 2,
		.host_link = link_conf(), .nic_queue_bytes = 3 * FRAME,
		.pool_mbufs = NET_POOL, .seed = 1 };
	struct hc_sim_stats ss;
	struct net n;
	uint32_t k;

	CU_ASSERT_FATAL(net_open(&n, &sc) == 0);
	for (k = 1; k <= 5; k++) {
		struct rte_mbuf *m = frame(&n, 0, 1, FRAME, 0x02, k);

		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT(hc_port_tx(&n.port[0], m) == 0);
	}
	CU_ASSERT(hc_port_flush(&n.port[0]) == 2);
	CU_ASSERT(hc_port_tx_queued_bytes(&n.port[0]) == 3 * FRAME);
	CU_ASSERT(n.port[0].stats.tx_pkts == 3);
	hc_sim_stats(n.sim, &ss);
	CU_ASSERT(ss.tx_refused == 2);
	/* frame 1 has left the NIC after one serialization time */
	hc_sim_advance(n.sim, T0 + SER_NS);
	CU_ASSERT(hc_port_flush(&n.port[0]) == 1);
	hc_sim_advance(n.sim, T0 + 2 * SER_NS);
	CU_ASSERT(hc_port_flush(&n.port[0]) == 0);
	CU_ASSERT(n.port[0].stats.tx_pkts == 5);
	hc_sim_advance(n.sim, T0 + HC_NS_PER_MS);
	CU_ASSERT(drain(&n, 1, NULL, 0) == 5);
	CU_ASSERT(n.port[0].stats.tx_drops == 0);
	net_down(&n);
}

/* Rates of the receiver's link (1 Gbit/s: 8000 ns a frame) and of the
 * switch egress towards it. */
static void
slow_down_link(struct net *n, uint32_t h, uint32_t queue, uint32_t ecn)
{
	struct hc_sim_link_conf lc = link_conf();
	int id = hc_sim_link_id(n->sim, HC_SIM_LINK_HOST_DOWN, h);

	lc.rate_gbps = 1.0;
	lc.queue_bytes = queue;
	lc.ecn_bytes = ecn;
	CU_ASSERT_FATAL(hc_sim_link_set(n->sim, id, &lc) == 0);
}

/* 10 frames at 10 Gbit/s into a 1 Gbit/s egress of 5000 bytes: all 10
 * reach the switch within 8000 ns, before the first has left it, so 5
 * fit and 5 are dropped at the tail. */
static void
test_tail_drop(void)
{
	struct hc_sim_link_stats st;
	struct net n;
	uint16_t ids[16];
	uint32_t k;

	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	slow_down_link(&n, 1, 5 * FRAME, 0);
	for (k = 1; k <= 10; k++)
		CU_ASSERT(send_frame(&n, 0, 1, FRAME, 0x02, k) == 0);
	hc_sim_advance(n.sim, T0 + HC_NS_PER_MS);
	CU_ASSERT(drain(&n, 1, ids, 16) == 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT(ids[k] == k + 1);
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_HOST_DOWN, 1), &st) == 0);
	CU_ASSERT(st.total.tail_drops == 5);
	CU_ASSERT(st.queue[2].tail_drops == 5);
	CU_ASSERT(st.total.pkts == 5);
	CU_ASSERT(st.total.bytes == 5 * FRAME);
	CU_ASSERT(st.max_queue_bytes == 5 * FRAME);
	CU_ASSERT(st.total.ecn_marks == 0 && st.total.loss_drops == 0);
	net_down(&n);
}

/* ECN threshold 2500 bytes: frame k meets (k - 1) * 1000 bytes, so frames
 * 4..10 of the ECT(0) burst are marked CE, with a valid IPv4 checksum;
 * a Not-ECT frame (TOS 0) behind them is not marked. */
static void
test_ecn_mark(void)
{
	struct rte_mbuf *pkts[16];
	struct hc_sim_link_stats st;
	struct net n;
	uint16_t k, got;

	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	slow_down_link(&n, 1, 1 << 20, 2500);
	for (k = 1; k <= 10; k++)
		CU_ASSERT(send_frame(&n, 0, 1, FRAME, 0x02, k) == 0);
	CU_ASSERT(send_frame(&n, 0, 1, FRAME, 0x00, 11) == 0);
	hc_sim_advance(n.sim, T0 + HC_NS_PER_MS);
	got = hc_port_rx(&n.port[1], pkts, 16);
	CU_ASSERT_FATAL(got == 11);
	for (k = 0; k < got; k++) {
		const struct rte_ipv4_hdr *ip = ipv4_of(pkts[k]);
		uint8_t want = k < 3 ? 0x02 : k < 10 ? 0x03 : 0x00;

		CU_ASSERT(rte_be_to_cpu_16(ip->packet_id) == k + 1);
		CU_ASSERT(ip->type_of_service == want);
		CU_ASSERT(rte_ipv4_cksum(ip) == 0);
		rte_pktmbuf_free(pkts[k]);
	}
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_HOST_DOWN, 1), &st) == 0);
	CU_ASSERT(st.total.ecn_marks == 7);
	CU_ASSERT(st.total.tail_drops == 0);
	net_down(&n);
}

/* Strict priority at the switch: 4 bulk (CS1, queue 3) frames, then one
 * control (CS6, queue 0) frame. Bulk 1 is on the slow wire when control
 * arrives; control leaves next, ahead of bulk 2..4. */
static void
test_strict_priority(void)
{
	static const uint16_t order[] = { 1, 5, 2, 3, 4 };
	struct hc_sim_link_stats st;
	struct net n;
	uint16_t ids[8];
	uint32_t k;

	CU_ASSERT(hc_sim_dscp_queue(48) == 0 && hc_sim_dscp_queue(56) == 0);
	CU_ASSERT(hc_sim_dscp_queue(46) == 1 && hc_sim_dscp_queue(8) == 3);
	CU_ASSERT(hc_sim_dscp_queue(0) == 2 && hc_sim_dscp_queue(10) == 2);
	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	slow_down_link(&n, 1, 1 << 20, 0);
	for (k = 1; k <= 4; k++)
		CU_ASSERT(send_frame(&n, 0, 1, FRAME, 8 << 2, k) == 0);
	CU_ASSERT(send_frame(&n, 0, 1, FRAME, 48 << 2, 5) == 0);
	hc_sim_advance(n.sim, T0 + HC_NS_PER_MS);
	CU_ASSERT_FATAL(drain(&n, 1, ids, 8) == 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT(ids[k] == order[k]);
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_HOST_DOWN, 1), &st) == 0);
	CU_ASSERT(st.queue[0].pkts == 1 && st.queue[3].pkts == 4);
	CU_ASSERT(st.queue[1].pkts == 0 && st.queue[2].pkts == 0);
	net_down(&n);
}

#define LOSS_N 10000
#define LOSS_P 0.1

/* LOSS_N small frames through a NIC link with loss 0.1 (the only lossy
 * link); the ids that got through, as a bitmap. */
static uint32_t
lossy_run(uint64_t seed, uint8_t *seen)
{
	struct hc_sim_link_conf lc = link_conf();
	struct hc_sim_link_stats st;
	uint16_t ids[64];
	struct net n;
	uint32_t k, got = 0, i, r;

	if (net_up(&n, 2, seed) != 0)
		return 0;
	lc.loss = LOSS_P;
	CU_ASSERT(hc_sim_link_set(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_HOST_UP, 0), &lc) == 0);
	memset(seen, 0, LOSS_N);
	for (k = 0; k < LOSS_N; k += 32) {
		for (i = k; i < k + 32 && i < LOSS_N; i++)
			CU_ASSERT(send_frame(&n, 0, 1, 100, 0x02, i) == 0);
		hc_sim_advance(n.sim, hc_sim_now(n.sim) + 10 * HC_NS_PER_US);
		while ((r = drain(&n, 1, ids, 64)) > 0) {
			for (i = 0; i < r && i < 64; i++)
				seen[ids[i]] = 1;
			got += r;
		}
	}
	CU_ASSERT(hc_sim_link_stats(n.sim, hc_sim_link_id(n.sim,
		  HC_SIM_LINK_HOST_UP, 0), &st) == 0);
	CU_ASSERT(st.total.loss_drops + got == LOSS_N);
	CU_ASSERT(st.total.pkts == got);	/* forwarded = not lost */
	net_down(&n);
	return got;
}

/* Loss within 4 standard deviations of the binomial mean; one seed drops
 * the same frames twice, another seed other frames. */
static void
test_loss(void)
{
	static uint8_t a[LOSS_N], b[LOSS_N], c[LOSS_N];
	double mean = LOSS_N * (1 - LOSS_P);
	double sd = sqrt(LOSS_N * LOSS_P * (1 - LOSS_P));
	uint32_t ga = lossy_run(42, a), gb = lossy_run(42, b);
	uint32_t gc = lossy_run(43, c);

	CU_ASSERT(fabs(ga - mean) <= 4 * sd);
	CU_ASSERT(fabs(gc - mean) <= 4 * sd);
	CU_ASSERT(ga == gb);
	CU_ASSERT(memcmp(a, b, LOSS_N) == 0);
	CU_ASSERT(memcmp(a, c, LOSS_N) != 0);
}

/* Bad arguments get errors, not crashes. */
static void
test_bad_args(void)
{
	struct hc_sim_conf sc = { .topo = HC_SIM_TOPO_STAR, .hosts = 2,
		.host_link = link_conf(), .pool_mbufs = 1023 };
	struct hc_simrun_conf rc = { .net = sc };
	struct hc_config cfg;
	struct hc_simrun *run;
	struct hc_ctx *ctx;
	struct hc_sim *sim;
	struct net n;

	CU_ASSERT(hc_sim_create(NULL, &sim) == -HC_ERR_INVAL);
	sc.hosts = 0;
	CU_ASSERT(hc_sim_create(&sc, &sim) == -HC_ERR_INVAL);
	sc.hosts = 2;
	sc.host_link.rate_gbps = 0;
	CU_ASSERT(hc_sim_create(&sc, &sim) == -HC_ERR_INVAL);
	sc.host_link = link_conf();
	sc.host_link.loss = 1.5;
	CU_ASSERT(hc_sim_create(&sc, &sim) == -HC_ERR_INVAL);
	sc.host_link = link_conf();
	sc.topo = HC_SIM_TOPO_TWO_TIER;
	CU_ASSERT(hc_sim_create(&sc, &sim) == -HC_ERR_INVAL);	/* group 0 */
	CU_ASSERT_FATAL(net_up(&n, 2, 1) == 0);
	CU_ASSERT(hc_sim_link_id(n.sim, HC_SIM_LINK_HOST_UP, 2) ==
		  -HC_ERR_INVAL);
	CU_ASSERT(hc_sim_link_id(n.sim, HC_SIM_LINK_LEAF_UP, 0) ==
		  -HC_ERR_INVAL);
	CU_ASSERT(hc_config_defaults(&cfg, 0) == -HC_ERR_INVAL);
	CU_ASSERT_FATAL(hc_config_defaults(&cfg, 3) == 0);
	CU_ASSERT(hc_sim_ctx_create(&cfg, 2, n.sim, &ctx) == -HC_ERR_INVAL);
	CU_ASSERT(ctx == NULL);
	/* host 0's port is open already */
	CU_ASSERT(hc_sim_ctx_create(&cfg, 0, n.sim, &ctx) == -HC_ERR_INVAL);
	CU_ASSERT(ctx == NULL);
	net_down(&n);
	rc.cfg = &cfg;	/* world 3 on 2 hosts */
	CU_ASSERT(hc_simrun_create(&rc, &run) == -HC_ERR_INVAL);
	hc_config_free(&cfg);
}

/* hc_config_defaults: the table's defaults and the sim addressing. */
static void
test_config_defaults(void)
{
	struct hc_config cfg;

	CU_ASSERT_FATAL(hc_config_defaults(&cfg, 300) == 0);
	CU_ASSERT(cfg.world_size == 300 && cfg.job_id == 1);
	CU_ASSERT(cfg.port.mtu == 1500 && cfg.hct.window_pkts == 256);
	CU_ASSERT(cfg.hct.rto_min_ns == 2000 * HC_NS_PER_US &&
		  cfg.port.pool_mbufs == 0);
	CU_ASSERT(cfg.net.udp_port == 51966 && cfg.idle == HC_IDLE_SLEEP);
	CU_ASSERT(cfg.ranks[0].ip == 0xc6120001u);	/* 198.18.0.1 */
	CU_ASSERT(cfg.ranks[259].ip == 0xc612010au);	/* 198.18.1.10 */
	CU_ASSERT(cfg.ranks[259].has_mac);
	/* hc_addr_of_rank: 02:00 and the IPv4 address, 02:00:c6:12:01:0a,
	 * as hc-launch writes it. */
	CU_ASSERT(cfg.ranks[259].mac.addr_bytes[0] == 0x02 &&
		  cfg.ranks[259].mac.addr_bytes[1] == 0x00 &&
		  cfg.ranks[259].mac.addr_bytes[2] == 0xc6 &&
		  cfg.ranks[259].mac.addr_bytes[3] == 0x12 &&
		  cfg.ranks[259].mac.addr_bytes[4] == 0x01 &&
		  cfg.ranks[259].mac.addr_bytes[5] == 0x0a);
	CU_ASSERT(strcmp(cfg.ranks[7].port, "sim") == 0);
	hc_config_free(&cfg);
}

/* ---- the stack on the sim ------------------------------------------- */

struct ar {
	struct hc_simrun *run;
	uint32_t n;
	uint64_t count;
	float **send;
	float **recv;
	struct hc_request **req;
	int *status;
	uint32_t pending;
	uint64_t t0;           /* submission, virtual ns */
	uint64_t *lost_ns;     /* latest PEER_LOST from t0, or NULL */
};

static int
ar_done(void *arg)
{
	struct ar *a = arg;
	uint32_t r;

	for (r = 0; r < a->n; r++) {
		int done = 0, rc;

		if (a->req[r] == NULL)
			continue;
		rc = hc_test(a->req[r], &done);
		if (done || rc != 0) {
			if (rc == -HC_ERR_PEER_LOST && a->lost_ns != NULL)
				*a->lost_ns = hc_simrun_now(a->run) - a->t0;
			a->status[r] = rc;
			a->req[r] = NULL;
			a->pending--;
		}
	}
	return a->pending == 0;
}

struct ar_result {
	int rc;                /* hc_simrun_until */
	int status_bad;        /* ranks whose request failed */
	uint64_t wrong;        /* wrong elements over every rank */
	uint64_t vtime_ns;     /* virtual time from submit to the last done */
	double wall_s;
	double cpu_s;          /* this process's CPU time over the run */
	struct hc_sim_link_stats links;
	struct hc_sim_stats net;
	uint64_t retransmits;
	uint64_t rtos;
	uint64_t data_tx;      /* DATA first copies, every rank */
	uint64_t dup_rx;       /* duplicate DATA discarded */
	uint64_t net_drops;    /* frames stack/net refused (checksum...) */
	uint64_t lost_ns_max;  /* latest PEER_LOST, from submission */
	uint32_t peer_lost;    /* ranks whose request got PEER_LOST */
	uint64_t tlps;         /* tail-loss probes, every flow */
	uint64_t retx_rack;    /* RACK retransmissions, every flow */
};

/* How run_allreduce() perturbs the network. */
struct ar_opts {
	double loss;           /* every link, from the start */
	uint64_t seed;
	const char *rules;     /* [fault] rules of every rank, or NULL */
	int drop_last_once;    /* [fault] drop_last_once */
	hc_sim_filter_fn filter; /* on rank 0's uplink, or NULL */
	void *filter_arg;
	int cut_after_setup;   /* every link loses everything once every
	                        * rank is up (C22) */
};

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Add every rank's transport counters to res: retransmits, RTOs, DATA,
 * duplicates, net drops, TLPs, RACK retransmissions. */
static void
add_counters(struct hc_simrun *run, struct ar_result *res)
{
	uint32_t r, i;

	for (r = 0; r < run->ranks; r++) {
		struct hc_stats s;

		hc_stats_get(hc_simrun_ctx(run, r), &s);
		res->retransmits += s.hct_retransmits;
		res->rtos += s.hct_rtos;
		res->data_tx += s.hct_data_tx;
		res->dup_rx += s.hct_dup_rx;
		res->net_drops += s.net_rx_drops;
		for (i = 0; i < run->ranks; i++) {
			struct hc_flow_stats fs;

			if (i == r || hc_flow_stats_get(hc_simrun_ctx(run, r),
							i, &fs) != 0)
				continue;
			res->tlps += fs.tlps;
			res->retx_rack += fs.retransmits_rack;
		}
	}
}

/* The ring all-reduce of count float32 (P32 pattern, sum) on n ranks of a
 * star at 100 Gbit/s, 1 us, 1 MiB switch queues, perturbed as o says. */
static void
run_allreduce_opts(uint32_t n, uint64_t count, const struct ar_opts *o,
		   struct ar_result *res)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = n,
			 .host_link = { .rate_gbps = 100, .prop_ns = 1000,
					.queue_bytes = 1 << 20,
					.loss = o->loss } },
		.seed = o->seed,
	};
	struct ar a = { .n = n, .count = count };
	struct ar_result base;
	struct hc_config cfg;
	uint64_t t0;
	uint32_t r;
	double w0, c0;

	memset(res, 0, sizeof(*res));
	a.send = calloc(n, sizeof(*a.send));
	a.recv = calloc(n, sizeof(*a.recv));
	a.req = calloc(n, sizeof(*a.req));
	a.status = calloc(n, sizeof(*a.status));
	CU_ASSERT_FATAL(a.send && a.recv && a.req && a.status);
	CU_ASSERT_FATAL(hc_config_defaults(&cfg, n) == 0);
	cfg.port.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	cfg.coll.algo = HC_ALGO_RING;	/* the tuner measured: not auto */
	if (o->rules != NULL)
		snprintf(cfg.fault.rules, sizeof(cfg.fault.rules), "%s",
			 o->rules);
	cfg.fault.drop_last_once = o->drop_last_once;
	rc.cfg = &cfg;
	res->rc = hc_simrun_create(&rc, &a.run);
	hc_config_free(&cfg);
	CU_ASSERT_FATAL(res->rc == 0);
	if (o->filter != NULL)
		hc_sim_link_filter(a.run->sim, hc_sim_link_id(a.run->sim,
			HC_SIM_LINK_HOST_UP, 0), o->filter, o->filter_arg);
	for (r = 0; o->cut_after_setup && r < n; r++) {
		struct hc_sim_link_conf lc = rc.net.host_link;

		lc.loss = 1.0;
		hc_sim_link_set(a.run->sim, hc_sim_link_id(a.run->sim,
				HC_SIM_LINK_HOST_UP, r), &lc);
		hc_sim_link_set(a.run->sim, hc_sim_link_id(a.run->sim,
				HC_SIM_LINK_HOST_DOWN, r), &lc);
	}
	/* The tuner's probes ran in hc_simrun_create: count from here. */
	memset(&base, 0, sizeof(base));
	add_counters(a.run, &base);
	hc_sim_link_stats_total(a.run->sim, &base.links);
	hc_sim_stats(a.run->sim, &base.net);
	t0 = hc_simrun_now(a.run);
	for (r = 0; r < n; r++) {
		a.send[r] = malloc(count * sizeof(float));
		a.recv[r] = malloc(count * sizeof(float));
		CU_ASSERT_FATAL(a.send[r] != NULL && a.recv[r] != NULL);
		hc_pattern_fill(a.send[r], HC_DTYPE_FLOAT32, HC_OP_SUM, count,
				(int)r);
		memset(a.recv[r], 0xff, count * sizeof(float));
		CU_ASSERT(hc_iallreduce(hc_comm_world(hc_simrun_ctx(a.run, r)),
					a.send[r], a.recv[r], count,
					HC_DTYPE_FLOAT32, HC_OP_SUM, NULL,
					&a.req[r]) == 0);
	}
	a.pending = n;
	a.t0 = t0;
	a.lost_ns = &res->lost_ns_max;
	w0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	res->rc = hc_simrun_until(a.run, ar_done, &a, 60 * HC_NS_PER_S);
	res->vtime_ns = hc_simrun_now(a.run) - t0;
	res->wall_s = clock_s(CLOCK_MONOTONIC) - w0;
	res->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	hc_sim_link_stats_total(a.run->sim, &res->links);
	hc_sim_stats(a.run->sim, &res->net);
	add_counters(a.run, res);
	res->retransmits -= base.retransmits;
	res->rtos -= base.rtos;
	res->data_tx -= base.data_tx;
	res->dup_rx -= base.dup_rx;
	res->net_drops -= base.net_drops;
	res->tlps -= base.tlps;
	res->retx_rack -= base.retx_rack;
	res->links.total.pkts -= base.links.total.pkts;
	res->links.total.loss_drops -= base.links.total.loss_drops;
	res->links.total.tail_drops -= base.links.total.tail_drops;
	res->net.tx_refused -= base.net.tx_refused;
	for (r = 0; r < n; r++) {
		res->peer_lost += a.status[r] == -HC_ERR_PEER_LOST;
		if (a.status[r] != 0 || a.req[r] != NULL)
			res->status_bad++;
		res->wrong += hc_pattern_wrong(a.recv[r], HC_DTYPE_FLOAT32,
					       HC_OP_SUM, count, (int)n);
		free(a.send[r]);
		free(a.recv[r]);
	}
	hc_simrun_destroy(a.run);
	free(a.send);
	free(a.recv);
	free(a.req);
	free(a.status);
}

static void
run_allreduce(uint32_t n, uint64_t count, double loss, uint64_t seed,
	      struct ar_result *res)
{
	struct ar_opts o = { .loss = loss, .seed = seed };

	run_allreduce_opts(n, count, &o, res);
}

static void
print_result(const char *what, uint32_t n, uint64_t count, double loss,
	     const struct ar_result *r)
{
	printf("\n    %s n=%u count=%" PRIu64 " loss=%g%%: rc %d, bad %d, "
	       "wrong %" PRIu64 ", virtual %.3f ms, wall %.2f s, pkts %"
	       PRIu64 ", lost %" PRIu64 ", retx %" PRIu64 ", rto %" PRIu64
	       ", NIC refusals %" PRIu64 ", tail drops %" PRIu64,
	       what, n, count, loss * 100, r->rc, r->status_bad, r->wrong,
	       r->vtime_ns / 1e6, r->wall_s, r->links.total.pkts,
	       r->links.total.loss_drops, r->retransmits, r->rtos,
	       r->net.tx_refused, r->links.total.tail_drops);
}

static void
check_exact(uint32_t n, uint64_t count, double loss, uint64_t seed)
{
	struct ar_result r;

	run_allreduce(n, count, loss, seed, &r);
	print_result("allreduce", n, count, loss, &r);
	/* Virtual against wall time, printed, not asserted: wall time
	 * depends on the machine's load. */
	printf("\n    %u ranks: virtual %.3f ms in wall %.3f s, CPU %.3f s "
	       "(%.3g x real time by CPU), %.2f us CPU per packet forwarded",
	       n, r.vtime_ns / 1e6, r.wall_s, r.cpu_s,
	       r.vtime_ns / 1e9 / r.cpu_s,
	       r.cpu_s * 1e6 / (double)(r.links.total.pkts + 1));
	CU_ASSERT(r.rc == 0);
	CU_ASSERT(r.status_bad == 0);
	CU_ASSERT(r.wrong == 0);
	if (loss == 0) {
		CU_ASSERT(r.links.total.loss_drops == 0);
		CU_ASSERT(r.retransmits == 0);
	} else {
		CU_ASSERT(r.links.total.loss_drops > 0);
		/* Retransmissions once DATA was lost: queue 0 (CS6) carries
		 * the control class (ACK, HELLO), whose losses need none (n=2
		 * at 0.1 %, seed 1 since the delayed ACK: 3 lost, all ACKs). */
		if (r.links.total.loss_drops > r.links.queue[0].loss_drops)
			CU_ASSERT(r.retransmits > 0);
	}
}

#define COUNT_BIG 1000003
#define COUNT_64 100003

static void test_ar_1(void) { check_exact(1, COUNT_BIG, 0, 1); }
static void test_ar_2(void) { check_exact(2, COUNT_BIG, 0, 1); }
static void test_ar_3(void) { check_exact(3, COUNT_BIG, 0, 1); }
static void test_ar_4(void) { check_exact(4, COUNT_BIG, 0, 1); }
static void test_ar_5(void) { check_exact(5, COUNT_BIG, 0, 1); }
static void test_ar_7(void) { check_exact(7, COUNT_BIG, 0, 1); }
static void test_ar_8(void) { check_exact(8, COUNT_BIG, 0, 1); }
static void test_ar_16(void) { check_exact(16, COUNT_BIG, 0, 1); }

static void test_ar_64(void) { check_exact(64, COUNT_64, 0, 1); }

#define COUNT_LOSS 200003

/* Every rank count of the matrix under one loss rate (every link). */
static void
check_loss(double loss)
{
	static const uint32_t ns[] = { 2, 3, 4, 5, 7, 8, 16, 64 };
	size_t i;

	for (i = 0; i < RTE_DIM(ns); i++)
		check_exact(ns[i], ns[i] == 64 ? COUNT_64 : COUNT_LOSS, loss,
			    1);
}

static void test_loss_01(void) { check_loss(0.001); }
static void test_loss_1(void) { check_loss(0.01); }
static void test_loss_5(void) { check_loss(0.05); }
static void test_loss_10(void) { check_loss(0.10); }
static void test_loss_20(void) { check_loss(0.20); }

/* ---- faults of issue 3 and field cases C22-C25, in virtual time ------ */

/* A 4-rank all-reduce under o: exact on every rank. */
static void
check_fault(const char *what, const struct ar_opts *o, struct ar_result *r)
{
	run_allreduce_opts(4, COUNT_LOSS, o, r);
	print_result(what, 4, COUNT_LOSS, o->loss, r);
	printf(", DATA %" PRIu64 ", dups %" PRIu64 ", net drops %" PRIu64
	       ", TLPs %" PRIu64 ", RACK %" PRIu64, r->data_tx, r->dup_rx,
	       r->net_drops, r->tlps, r->retx_rack);
	CU_ASSERT(r->rc == 0);
	CU_ASSERT(r->status_bad == 0);
	CU_ASSERT(r->wrong == 0);
}

/* Burst loss: 16 frames in a row lost on rank 0's uplink, every 400. */
static int
burst_filter(const struct rte_mbuf *m, void *arg)
{
	uint64_t *seen = arg;

	RTE_SET_USED(m);
	return (*seen)++ % 400 >= 384;
}

static void
test_fault_burst(void)
{
	uint64_t seen = 0;
	struct ar_opts o = { .seed = 1, .filter = burst_filter,
			     .filter_arg = &seen };
	struct ar_result r;

	check_fault("burst loss 16/400", &o, &r);
	CU_ASSERT(r.links.total.loss_drops >= 16);
	CU_ASSERT(r.retransmits >= r.links.total.loss_drops / 2);
}

static void
test_fault_reorder(void)
{
	struct ar_opts o = { .seed = 1,
		.rules = "dir=tx,class=data,reorder=10,reorder_window=8" };
	struct ar_result r;

	check_fault("reorder 10% window 8", &o, &r);
}

/* 2 % duplication of DATA and ACKs: duplicates re-acknowledged and
 * dropped, the layer above sees each DATA packet once. */
static void
test_fault_dup(void)
{
	struct ar_opts o = { .seed = 1, .rules = "dir=tx,dup=2" };
	struct ar_result r;

	check_fault("dup 2%", &o, &r);
	CU_ASSERT(r.dup_rx > 0);
}

/* 1 % of frames corrupted: the checksums catch them, none delivered.
 * (It was 0.1 %: about 7000 frames after bring-up made 2-3 corrupted
 * ones, and when the tuner's probes grew from 2 all-gathers to 20 on
 * 2026-12-04 the same seed drew none in the measured window, so the test
 * asserted luck; at 1 % about 70 frames are corrupted, and the assertions
 * are unchanged.) */
static void
test_fault_corrupt(void)
{
	struct ar_opts o = { .seed = 1, .rules = "dir=tx,corrupt=1" };
	struct ar_result r;

	check_fault("corrupt 1%", &o, &r);
	CU_ASSERT(r.net_drops > 0);
	CU_ASSERT(r.retransmits > 0);
}

/* C24: 20 % of ACKs lost: exact, and retransmits stay under 5 % of DATA
 * (no retransmission storm: later ACKs cover the lost ones). */
static void
test_fault_ack_loss(void)
{
	struct ar_opts o = { .seed = 1, .rules = "dir=tx,class=ack,drop=20" };
	struct ar_result r;

	check_fault("C24 ACK loss 20%", &o, &r);
	printf(", retransmits %.2f%% of DATA",
	       100.0 * r.retransmits / (r.data_tx + 1));
	CU_ASSERT(r.data_tx > 0);
	CU_ASSERT(r.retransmits * 20 < r.data_tx);
}

/* C25: the last packet of every message dropped once: recovered by the
 * tail-loss probe, never by an RTO. */
static void
test_fault_tail(void)
{
	struct ar_opts o = { .seed = 1, .drop_last_once = 1 };
	struct ar_result r;

	check_fault("C25 last packet of each message dropped once", &o, &r);
	CU_ASSERT(r.retransmits > 0);
	CU_ASSERT(r.rtos == 0);
}

/* C23: 5 % loss, reordering and 2 % duplication at once. */
static void
test_fault_c23(void)
{
	struct ar_opts o = { .seed = 1,
		.rules = "dir=tx,drop=5,dup=2,reorder=5,reorder_window=8" };
	struct ar_result r;

	check_fault("C23 drop 5% + dup 2% + reorder", &o, &r);
	CU_ASSERT(r.dup_rx > 0);
}

/* C22: every link loses everything once the ranks are up: bounded
 * retransmissions with backoff, then HC_ERR_PEER_LOST on every rank,
 * within the retry budget's worst case: the sum over retry_max + 1 RTOs
 * of min(rto_max, rto_init * 2^i) (RFC 6298 backoff), plus one idle
 * quantum per RTO. */
static void
test_c22_total_loss(void)
{
	struct ar_opts o = { .seed = 1, .cut_after_setup = 1 };
	struct hc_config cfg;
	uint64_t bound = 0, rto;
	struct ar_result r;
	uint32_t i;

	CU_ASSERT_FATAL(hc_config_defaults(&cfg, 4) == 0);
	rto = RTE_MAX(cfg.hct.rto_init_ns, cfg.hct.rto_min_ns);
	for (i = 0; i <= cfg.hct.retry_max; i++) {
		bound += RTE_MIN(rto, cfg.hct.rto_max_ns) +
			 HC_SIMRUN_IDLE_QUANTUM_NS;
		rto *= 2;
	}
	hc_config_free(&cfg);
	run_allreduce_opts(4, COUNT_LOSS, &o, &r);
	printf("\n    C22: %u of 4 ranks PEER_LOST, the last after %.1f ms "
	       "(bound %.1f ms), %" PRIu64 " RTOs", r.peer_lost,
	       r.lost_ns_max / 1e6, bound / 1e6, r.rtos);
	CU_ASSERT(r.rc == 0);
	CU_ASSERT(r.peer_lost == 4);
	CU_ASSERT(r.lost_ns_max > 0 && r.lost_ns_max <= bound);
	CU_ASSERT(r.rtos > 0);
}

/* One seed: the same virtual completion time and the same counters;
 * another seed under loss: a different run. */
static void
test_determinism(void)
{
	struct ar_result a, b, c;

	run_allreduce(5, COUNT_LOSS, 0.05, 7, &a);
	run_allreduce(5, COUNT_LOSS, 0.05, 7, &b);
	run_allreduce(5, COUNT_LOSS, 0.05, 8, &c);
	print_result("seed 7", 5, COUNT_LOSS, 0.05, &a);
	print_result("seed 7", 5, COUNT_LOSS, 0.05, &b);
	print_result("seed 8", 5, COUNT_LOSS, 0.05, &c);
	CU_ASSERT(a.rc == 0 && b.rc == 0 && c.rc == 0);
	CU_ASSERT(a.wrong == 0 && b.wrong == 0 && c.wrong == 0);
	CU_ASSERT(a.vtime_ns == b.vtime_ns);
	CU_ASSERT(memcmp(&a.links, &b.links, sizeof(a.links)) == 0);
	CU_ASSERT(memcmp(&a.net, &b.net, sizeof(a.net)) == 0);
	CU_ASSERT(a.retransmits == b.retransmits && a.rtos == b.rtos);
	CU_ASSERT(a.vtime_ns != c.vtime_ns ||
		  a.links.total.loss_drops != c.links.total.loss_drops);
}

/* hc_wait and blocking calls refuse on a simulated rank; hc_test still
 * completes the request. */
static void
test_no_wait(void)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_TWO_TIER, .hosts = 3, .group = 2,
			 .host_link = link_conf(), .fabric_link = link_conf() },
		.seed = 3,
	};
	struct hc_request *req[3];
	struct ar a = { .n = 3, .req = req };
	int status[3];
	int32_t in[3][4], out[3][4];
	struct hc_simrun *run;
	uint32_t r, i;

	CU_ASSERT_FATAL(hc_simrun_create(&rc, &run) == 0);
	a.run = run;
	a.status = status;
	a.pending = 3;
	CU_ASSERT(hc_allreduce(hc_comm_world(run->ctx[0]), in[0], out[0], 4,
			       HC_DTYPE_INT32, HC_OP_SUM) == -HC_ERR_INVAL);
	for (r = 0; r < 3; r++) {
		for (i = 0; i < 4; i++)
			in[r][i] = (int32_t)(r * 10 + i);
		CU_ASSERT(hc_iallreduce(hc_comm_world(run->ctx[r]), in[r],
					out[r], 4, HC_DTYPE_INT32, HC_OP_SUM,
					NULL, &req[r]) == 0);
	}
	CU_ASSERT(hc_wait(req[0]) == -HC_ERR_INVAL);
	CU_ASSERT(hc_simrun_until(run, ar_done, &a, HC_NS_PER_S) == 0);
	for (r = 0; r < 3; r++) {
		CU_ASSERT(status[r] == 0);
		for (i = 0; i < 4; i++)
			CU_ASSERT(out[r][i] == (int32_t)(30 + 3 * i));
	}
	hc_simrun_destroy(run);
}

/* hc_reduce_scatterv, hc_allgatherv, hc_send and hc_recv refuse on a
 * simulated rank like every blocking call, before anything is queued:
 * no request left in the submission queue or in flight, no sequence
 * number taken (issue 8: they used to queue the request and return with
 * it in flight, leaked). The world and the point-to-point channel 0 -> 1
 * then still work: a 2-rank all-reduce and a send/receive through the
 * hc_i* forms come out right. */
static void
test_no_wait_v_p2p(void)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = 2,
			 .host_link = link_conf() },
		.seed = 5,
	};
	const uint64_t counts[2] = { 2, 2 }, displs[2] = { 0, 2 };
	int32_t in[2][4], out[2][4], msg[4] = { 7, 8, 9, 10 }, got[4] = { 0 };
	struct hc_request *req[2];
	int status[2] = { -1, -1 };
	struct hc_simrun *run;
	struct hc_comm *w0;
	struct hc_ctx *c0;
	uint32_t r, i;

	CU_ASSERT_FATAL(hc_simrun_create(&rc, &run) == 0);
	c0 = run->ctx[0];
	w0 = hc_comm_world(c0);
	for (r = 0; r < 2; r++)
		for (i = 0; i < 4; i++)
			in[r][i] = (int32_t)(r * 10 + i);
	CU_ASSERT(hc_reduce_scatterv(w0, in[0], out[0], counts,
				     HC_DTYPE_INT32, HC_OP_SUM) ==
		  -HC_ERR_INVAL);
	CU_ASSERT(cds_wfcq_empty(&c0->qhead, &c0->qtail));
	CU_ASSERT(hc_allgatherv(w0, in[0], out[0], counts, displs,
				HC_DTYPE_INT32) == -HC_ERR_INVAL);
	CU_ASSERT(cds_wfcq_empty(&c0->qhead, &c0->qtail));
	CU_ASSERT(hc_send(w0, msg, 4, HC_DTYPE_INT32, 1) == -HC_ERR_INVAL);
	CU_ASSERT(cds_wfcq_empty(&c0->qhead, &c0->qtail));
	CU_ASSERT(hc_recv(w0, got, 4, HC_DTYPE_INT32, 1) == -HC_ERR_INVAL);
	CU_ASSERT(cds_wfcq_empty(&c0->qhead, &c0->qtail));
	CU_ASSERT(w0->next_seq == 0);
	for (r = 0; r < 2; r++)
		CU_ASSERT(hc_iallreduce(hc_comm_world(run->ctx[r]), in[r],
					out[r], 4, HC_DTYPE_INT32, HC_OP_SUM,
					NULL, &req[r]) == 0);
	CU_ASSERT(hc_simrun_wait(run, req, status, NULL, HC_NS_PER_S) == 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT(out[0][i] == (int32_t)(10 + 2 * i) &&
			  out[1][i] == (int32_t)(10 + 2 * i));
	status[0] = status[1] = -1;
	CU_ASSERT(hc_isend(w0, msg, 4, HC_DTYPE_INT32, 1, NULL, &req[0]) == 0);
	CU_ASSERT(hc_irecv(hc_comm_world(run->ctx[1]), got, 4, HC_DTYPE_INT32,
			   0, NULL, &req[1]) == 0);
	CU_ASSERT(hc_simrun_wait(run, req, status, NULL, HC_NS_PER_S) == 0);
	CU_ASSERT(memcmp(got, msg, sizeof(msg)) == 0);
	CU_ASSERT(TAILQ_EMPTY(&c0->inflight));
	hc_simrun_destroy(run);
}

/* Arguments the public API refuses on a live communicator: a bucketer
 * whose gradients' bytes sum beyond 2^64 (they wrapped to one bucket of
 * 0 bytes and its copy crashed), and hc_comm_tuner_info into a NULL
 * buffer of non-zero length; hc_comm_tuner_info(comm, NULL, 0) gives the
 * length, as snprintf. */
static void
test_api_bad_args(void)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = 2,
			 .host_link = link_conf() },
		.seed = 7,
	};
	double g[2][4];
	void *bufs[2] = { g[0], g[1] };
	uint64_t counts[2] = { 1ull << 60, 1ull << 60 };
	struct hc_bucketer *b = (struct hc_bucketer *)&rc;
	struct hc_simrun *run;
	struct hc_comm *w0;
	char info[200];
	int len;

	CU_ASSERT_FATAL(hc_simrun_create(&rc, &run) == 0);
	w0 = hc_comm_world(run->ctx[0]);
	/* 2^63 + 2^63 bytes of float64 */
	CU_ASSERT_EQUAL(hc_bucketer_create(w0, 2, bufs, counts,
					   HC_DTYPE_FLOAT64, 0, &b),
			-HC_ERR_INVAL);
	CU_ASSERT_PTR_NULL(b);
	/* one gradient of 2^64 bytes */
	counts[0] = 1ull << 61;
	CU_ASSERT_EQUAL(hc_bucketer_create(w0, 1, bufs, counts,
					   HC_DTYPE_FLOAT64, 0, &b),
			-HC_ERR_INVAL);
	/* the largest sum that fits: refused by malloc, not wrapped */
	counts[0] = UINT64_MAX / 8 - 4;
	counts[1] = 4;
	CU_ASSERT_EQUAL(hc_bucketer_create(w0, 2, bufs, counts,
					   HC_DTYPE_FLOAT64, 0, &b),
			-HC_ERR_NOMEM);
	counts[0] = counts[1] = 4;
	CU_ASSERT_EQUAL_FATAL(hc_bucketer_create(w0, 2, bufs, counts,
						 HC_DTYPE_FLOAT64, 0, &b), 0);
	CU_ASSERT_EQUAL(hc_bucketer_bucket_count(b), 1);
	hc_bucketer_free(b);
	CU_ASSERT_EQUAL(hc_comm_tuner_info(w0, NULL, 64), -HC_ERR_INVAL);
	len = hc_comm_tuner_info(w0, NULL, 0);
	CU_ASSERT(len > 0);
	CU_ASSERT_EQUAL(hc_comm_tuner_info(w0, info, sizeof(info)), len);
	CU_ASSERT_EQUAL((int)strlen(info), len);
	hc_simrun_destroy(run);
}

/* ---- main ------------------------------------------------------------- */

static CU_TestInfo fault_tests[] = {
	{ "burst loss: exact", test_fault_burst },
	{ "reorder: exact", test_fault_reorder },
	{ "2% duplication: exact, duplicates discarded", test_fault_dup },
	{ "1% corruption: caught by checksums, exact", test_fault_corrupt },
	{ "C22 100% loss after set-up: PEER_LOST on every rank in bound",
	  test_c22_total_loss },
	{ "C23 5% drop + 2% dup + reorder: exact", test_fault_c23 },
	{ "C24 20% ACK loss: exact, retransmits < 5% of DATA",
	  test_fault_ack_loss },
	{ "C25 tail drop once per message: exact, no RTO", test_fault_tail },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo net_tests[] = {
	{ "one frame: 2 x (serialization + propagation)", test_single_arrival },
	{ "burst of 5: one arrival per serialization time", test_burst_arrival },
	{ "two-tier: 4 hops across the spine, 2 inside a leaf, flooding",
	  test_two_tier },
	{ "full NIC egress refuses, the port retries", test_nic_full },
	{ "tail drop at the egress limit", test_tail_drop },
	{ "ECN CE above the threshold, checksum valid", test_ecn_mark },
	{ "strict priority: control overtakes queued bulk",
	  test_strict_priority },
	{ "loss 10%: binomial, same seed same drops", test_loss },
	{ "bad arguments", test_bad_args },
	{ "hc_config_defaults", test_config_defaults },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo stack_tests[] = {
	{ "ring all-reduce n=1", test_ar_1 },
	{ "ring all-reduce n=2", test_ar_2 },
	{ "ring all-reduce n=3", test_ar_3 },
	{ "ring all-reduce n=4", test_ar_4 },
	{ "ring all-reduce n=5", test_ar_5 },
	{ "ring all-reduce n=7", test_ar_7 },
	{ "ring all-reduce n=8", test_ar_8 },
	{ "ring all-reduce n=16", test_ar_16 },
	{ "ring all-reduce n=64", test_ar_64 },
	{ "n=2..64 loss 0.1%", test_loss_01 },
	{ "n=2..64 loss 1%", test_loss_1 },
	{ "n=2..64 loss 5%", test_loss_5 },
	{ "n=2..64 loss 10%", test_loss_10 },
	{ "n=2..64 loss 20%", test_loss_20 },
	{ "determinism: one seed, one run", test_determinism },
	{ "hc_wait refuses, hc_test completes (two-tier)", test_no_wait },
	{ "blocking v-variants, send and receive refuse, nothing in flight",
	  test_no_wait_v_p2p },
	{ "bucketer bytes beyond 2^64, tuner info into NULL: INVAL",
	  test_api_bad_args },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "sim network", NULL, NULL, NULL, NULL, net_tests },
	{ "stack on sim", NULL, NULL, NULL, NULL, stack_tests },
	{ "faults on sim (issue 3, C22-C25)", NULL, NULL, NULL, NULL,
	  fault_tests },
	CU_SUITE_INFO_NULL,
};

const struct cunit_bin cunit_bin = {
	.prog = "test_sim",
	.mem_mb = "1536",
	.stem = "hcsim",
	.hc_log_level = RTE_LOG_WARNING,
	.suites = suites,
};
