/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_transport: protocol tests of HCT that drive the real stack/net and
 * stack/transport code packet by packet, without a NIC (the eRPC style).
 *
 * Two endpoints, rank 0 and rank 1, each own a manual clock, a fake port
 * whose backend is an in-memory FIFO (wire.h), a struct hc_net and a struct
 * hct. Their ports are joined by a "wire" the tests control: every frame a
 * port transmits is classified (other, HCT DATA, ACK, control: the HCT type
 * byte at offset 14 + 20 + 8 + 1) and then delivered, dropped, duplicated,
 * held back behind the next frame (reordering) or captured for the test to
 * inspect or release later. Delivery copies the frame into the receiver's
 * pool (as a NIC DMAs it), frees the original and makes the copy visible
 * LINK_NS of virtual time later (plus delay_ns for a delayed frame, which
 * later frames overtake). A held frame with no frame after it goes out
 * when both endpoints are idle.
 *
 * HCT_TEST_SEED=<n> in the environment replaces the fixed seed of the
 * random-loss tests (4, 4b), to explore other loss patterns.
 *
 * Time is virtual: both clocks read the same value, which only the harness
 * moves, to the next frame's arrival or by STEP_NS. pump() polls both
 * endpoints as hc_engine_poll() does (rx burst -> hc_net_input,
 * hct_flush_acks, hct_tick, hct_tx, hc_port_flush) until nothing moves.
 *
 * Every test builds a fresh pair of endpoints and, at its end, frees what
 * the harness holds, calls hct_free() and hc_net_free() and checks that no
 * mbuf of either pool is still in use.
 *
 * The EAL is needed for the mbuf pools only: --no-huge, --no-pci, its own
 * --file-prefix hctt<pid>, whose runtime directory is removed at exit.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <limits.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <rte_cycles.h>

#include <CUnit/Basic.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "clock.h"
#include "fault.h"
#include "hct.h"
#include "hct_hdr.h"
#include "hct_internal.h"
#include "net.h"
#include "port.h"
#include "psn.h"
#include "suites.h"
#include "test_eal.h"
#include "wire.h"

unsigned int unit_register_errors; /* add_sched_suite() counts here */

#define IP0 0xc6120001u		/* 198.18.0.1, rank 0 */
#define IP1 0xc6120002u		/* 198.18.0.2, rank 1 */
#define IP_OTHER 0xc6120003u	/* 198.18.0.3, a host that is no rank */
#define UDP_PORT TW_UDP_PORT
#define JOB_ID 0x4a4f4231u
#define NONCE0 0x1111u
#define NONCE1 0x2222u
#define NONCE1_NEW 0x3333u	/* rank 1 after its restart */

#define T_START HC_NS_PER_S	/* virtual time at the start of a test */
#define LINK_NS (5 * HC_NS_PER_US)	/* one-way wire latency */
#define STEP_NS (10 * HC_NS_PER_US)	/* largest clock step of the harness */

#define MTU 1500
#define MSS_EXPECTED 1368	/* (1500 - 20 - 8 - 104) rounded down to 8 */
#define POOL_MBUFS 4096
#define CAPTURE_MAX 256		/* captured frames per endpoint */
#define BUF_MAX 320000		/* destination buffer of each endpoint */
#define PUMP_MAX 100000		/* polls of both endpoints in one pump() */
#define DATA_LOG 1024		/* DATA send times recorded */
#define HIST_MAX 4096		/* window changes recorded */

/* Descriptor of every message the tests send: the data upcall checks it. */
#define MSG_COMM 7u
#define MSG_SEQ 3u
#define MSG_SIG 0xabcd1234u
#define MSG_STEP 2u

#define CLS_OTHER HC_FAULT_CLASS_OTHER
#define CLS_DATA HC_FAULT_CLASS_DATA
#define CLS_ACK HC_FAULT_CLASS_ACK
#define CLS_CTRL HC_FAULT_CLASS_CONTROL
#define CLS_N HC_FAULT_CLASS__MAX

static const uint32_t rank_ip[2] = { IP0, IP1 };
static const struct rte_ether_addr rank_mac[2] = {
	{ .addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } },
	{ .addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } },
};
static const struct rte_ether_addr other_mac = {
	.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x33 } };

/* ---- harness ------------------------------------------------------- */

struct ep {
	uint32_t rank;
	struct hc_clock clk;
	struct tw_port tw;	/* port, and the FIFO towards it */
	struct hc_net net;
	struct hct hct;
	int net_up;
	int hct_up;
	/* what the upcalls saw */
	uint8_t *dst;		/* DATA payloads, placed at desc.offset */
	uint8_t *cnt;		/* deliveries of each byte of dst */
	uint64_t data_calls;
	uint64_t data_bytes;
	uint64_t bad_desc;	/* wrong desc, src rank or payload bounds */
	uint32_t msg_sent;
	struct hct_msg *last_msg;
	uint32_t lost[2];	/* peer_lost upcalls per rank */
	uint64_t expect;	/* bytes of the message under test */
	uint64_t t_complete;	/* clock when data_bytes reached expect */
	uint32_t lost_calls;
	int lost_err;		/* err of the last peer_lost upcall */
	/* refuse the first arrival of every reject_every-th packet */
	uint32_t reject_every;
	uint64_t rejects;
	uint8_t rejected[BUF_MAX / 64];	/* per packet index: refused once */
};

struct wire {
	double drop_p[CLS_N];	/* random drop probability per class */
	double hold_p;		/* probability to hold a frame behind the next */
	double delay_p[CLS_N];	/* probability to delay a frame by delay_ns */
	uint64_t delay_ns;	/* extra latency of a delayed frame */
	int drop_all;		/* lose every frame, both ways */
	int dup[CLS_N];		/* deliver every frame of the class twice */
	int drop_psn_on;	/* drop the DATA frame with drop_psn this
				 * many times */
	uint32_t drop_psn;
	uint64_t drop_psn_at;	/* clock at the last such drop */
	int ce[CLS_N];		/* mark every frame of the class CE */
	uint64_t extra_ns[CLS_N]; /* added to every frame's latency */
	int capture[2];		/* keep rank i's frames in cap[i] */
	struct hc_fault rng;	/* the injector's seeded PRNG, reused */
	struct rte_mbuf *held[2];
	struct rte_mbuf *cap[2][CAPTURE_MAX];
	uint32_t ncap[2];
	/* counters per sending rank and class */
	uint64_t sent[2][CLS_N];
	uint64_t dropped[2][CLS_N];
	uint64_t duped[2][CLS_N];
	uint64_t held_n[2];
	uint64_t delayed[2][CLS_N];
	uint64_t marked[2][CLS_N];
	uint64_t data_at[DATA_LOG]; /* clock at rank 0's DATA frames */
	uint32_t ndata;
	uint64_t overflow;	/* frames lost to a full FIFO or pool */
	uint32_t max_inflight_credit; /* rank 0's most DATA packets in flight
				       * to rank 1 once it heard a credit */
	/* DATA frames per sending rank by CRC coverage (hct_hdr.h cov),
	 * and of them the retransmissions (HCT_F_RETX) */
	uint64_t cov_data[2][HCT_COV__MAX + 1];
	uint64_t cov_retx[2][HCT_COV__MAX + 1];
	/* DATA frames per sending rank whose payload is an mbuf attached to
	 * external memory (zero copy), and of them the retransmissions */
	uint64_t ext_data[2];
	uint64_t ext_retx[2];
	const uint8_t *ext_lo, *ext_hi; /* where such payloads must point */
	uint64_t ext_outside;  /* ... frames whose payload pointed elsewhere */
};

static struct {
	struct ep ep[2];
	struct wire wire;
	uint64_t now;
	uint32_t stuck;		/* pump() hit PUMP_MAX */
	int paused[2];		/* endpoint i is not polled: a process the
				 * scheduler took off its CPU (its clock
				 * runs, its RX FIFO fills) */
	void (*watch)(void);	/* called after every pump() */
} g;

/* Congestion control of the endpoints env_create() builds next. */
static struct hct_cc_conf cc_conf;
/* [transport] ack_delay_us of those endpoints, ns (0: none, as before
 * the key existed). */
static uint64_t ack_delay_conf;

/* CRC coverage set-up of the endpoints env_create() builds next (hct_hdr.h
 * "CRC coverage"): whose port is a shared-memory link, the shm_crc key,
 * and fault probabilities set on each port's injector before hct_init. */
static struct {
	int shm[2];
	int no_any_memory[2];    /* a shm port whose TX does not read any
	                          * memory (port.h tx_any_memory: as
	                          * net_virtio_user's) */
	int shm_crc;             /* enum hct_shm_crc */
	int zero_copy_tx;        /* enum hct_zc_tx */
	double corrupt_tx[2];    /* HC_FAULT_CORRUPT on TX, every class */
	double corrupt_rx[2];    /* ... on RX */
	double truncate_rx[2];   /* HC_FAULT_TRUNCATE on RX */
} shm_conf;

static void
set_now(uint64_t t)
{
	g.now = t;
	g.ep[0].clk.manual_ns = t;
	g.ep[1].clk.manual_ns = t;
}

static double
wire_uniform(struct wire *w)
{
	return hc_fault_uniform(&w->rng);
}

static void
wire_seed(struct wire *w, uint64_t seed)
{
	hc_fault_init(&w->rng, seed);
}

/* Kind of a frame, and the PSN of an HCT packet. */
static enum hc_fault_class
wire_classify(const struct rte_mbuf *m, uint32_t *psn)
{
	uint32_t len;
	const uint8_t *h = tw_frame_hct_hdr(m, &len);
	rte_be32_t be;

	if (h == NULL)
		return CLS_OTHER;
	*psn = 0;
	if (len >= offsetof(struct hct_wire_hdr, psn) + 4) {
		memcpy(&be, h + offsetof(struct hct_wire_hdr, psn), 4);
		*psn = rte_be_to_cpu_32(be);
	}
	switch (h[1]) {
	case HCT_TYPE_DATA:
		return CLS_DATA;
	case HCT_TYPE_ACK:
		return CLS_ACK;
	default:
		return CLS_CTRL;
	}
}

/* Put a copy of m (in the receiver's pool, without TX offload flags) on
 * the wire towards rank to, visible from due on. Frees m when consume. */
static void
deliver_at(uint32_t to, struct rte_mbuf *m, uint64_t due, int consume)
{
	if (tw_deliver(&g.ep[to].tw, m, due, consume) != 0)
		g.wire.overflow++;
}

static void
deliver(uint32_t to, struct rte_mbuf *m, int consume)
{
	uint32_t psn;

	deliver_at(to, m, g.now + LINK_NS +
		   g.wire.extra_ns[wire_classify(m, &psn)], consume);
}

/* Set CE in the IPv4 header of frame m, as a congested switch does. */
static void
mark_ce(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));

	ip->type_of_service |= HC_IPV4_ECN_CE;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* One frame transmitted by rank from. */
static void
wire_xmit(uint32_t from, struct rte_mbuf *m)
{
	struct wire *w = &g.wire;
	uint32_t to = 1 - from, psn = 0;
	enum hc_fault_class c = wire_classify(m, &psn);
	int target;

	w->sent[from][c]++;
	if (c == CLS_DATA) {
		uint32_t hl;
		const uint8_t *h = tw_frame_hct_hdr(m, &hl);

		if (h != NULL && hl >= HCT_HDR_LEN) {
			uint8_t cv = RTE_MIN(hct_cov_of(h),
					     (uint8_t)HCT_COV__MAX);

			w->cov_data[from][cv]++;
			if (h[HCT_OFF(flags)] & HCT_F_RETX)
				w->cov_retx[from][cv]++;
		}
		if (m->nb_segs == 2 && RTE_MBUF_HAS_EXTBUF(m->next)) {
			const uint8_t *pl = rte_pktmbuf_mtod(m->next,
							     const uint8_t *);

			w->ext_data[from]++;
			if (h != NULL && (h[HCT_OFF(flags)] & HCT_F_RETX))
				w->ext_retx[from]++;
			if (pl < w->ext_lo ||
			    pl + m->next->data_len > w->ext_hi)
				w->ext_outside++;
		}
	}
	if (from == 0 && c == CLS_DATA &&
	    g.ep[0].hct.flows[1].peer_credit != 0) {
		const struct hct_flow *f = &g.ep[0].hct.flows[1];

		w->max_inflight_credit = RTE_MAX(w->max_inflight_credit,
						 f->snd_nxt - f->snd_una);
	}
	if (from == 0 && c == CLS_DATA && w->ndata < DATA_LOG)
		w->data_at[w->ndata++] = g.now;
	if (w->capture[from]) {
		if (w->ncap[from] < CAPTURE_MAX) {
			w->cap[from][w->ncap[from]++] = m;
		} else {
			w->overflow++;
			rte_pktmbuf_free(m);
		}
		return;
	}
	target = c == CLS_DATA && w->drop_psn_on && psn == w->drop_psn;
	if (target) {
		w->drop_psn_on--;
		w->drop_psn_at = g.now;
	}
	if (w->drop_all || target ||
	    (w->drop_p[c] > 0 && wire_uniform(w) < w->drop_p[c])) {
		w->dropped[from][c]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (w->ce[c]) {
		w->marked[from][c]++;
		mark_ce(m);
	}
	if (w->dup[c]) {
		w->duped[from][c]++;
		deliver(to, m, 0);
	}
	if (w->hold_p > 0 && w->held[from] == NULL &&
	    wire_uniform(w) < w->hold_p) {
		w->held[from] = m;
		w->held_n[from]++;
		return;
	}
	if (w->delay_p[c] > 0 && wire_uniform(w) < w->delay_p[c]) {
		w->delayed[from][c]++;
		deliver_at(to, m, g.now + LINK_NS + w->delay_ns, 1);
	} else {
		deliver(to, m, 1);
	}
	if (w->held[from] != NULL) {
		deliver(to, w->held[from], 1);
		w->held[from] = NULL;
	}
}

/* Frames held back with no frame after them go out now. */
static uint32_t
wire_release_held(void)
{
	uint32_t i, n = 0;

	for (i = 0; i < 2; i++) {
		if (g.wire.held[i] != NULL) {
			deliver(1 - i, g.wire.held[i], 1);
			g.wire.held[i] = NULL;
			n++;
		}
	}
	return n;
}

/* Hand rank from's captured frames to its peer now, except DATA with PSN
 * skip_psn when skip is set (freed: lost on the wire). Capturing goes on
 * until the caller clears capture[from]. @return frames delivered. */
static uint32_t
cap_release(uint32_t from, int skip, uint32_t skip_psn)
{
	struct wire *w = &g.wire;
	uint32_t i, n = 0, psn = 0;

	for (i = 0; i < w->ncap[from]; i++) {
		struct rte_mbuf *m = w->cap[from][i];

		if (skip && wire_classify(m, &psn) == CLS_DATA &&
		    psn == skip_psn) {
			rte_pktmbuf_free(m);
			continue;
		}
		deliver_at(1 - from, m, g.now, 1);
		n++;
	}
	w->ncap[from] = 0;
	return n;
}

static void
cap_clear(uint32_t from)
{
	uint32_t i;

	for (i = 0; i < g.wire.ncap[from]; i++)
		rte_pktmbuf_free(g.wire.cap[from][i]);
	g.wire.ncap[from] = 0;
}

/* Inject a frame into the RX FIFO of e, visible now. Consumes m. */
static void
inject(struct ep *e, struct rte_mbuf *m)
{
	if (tw_fifo_push(&e->tw.rxq, m, g.now) != 0) {
		g.wire.overflow++;
		rte_pktmbuf_free(m);
	}
}

/* ---- memory port backend -------------------------------------------- */

/* tx_burst of rank's port (wire.h): every frame onto the wire. */
static void
mem_xmit(struct tw_port *tp, struct rte_mbuf *m)
{
	const struct ep *e = tp->ctx;

	wire_xmit(e->rank, m);
}

/* ---- upcalls --------------------------------------------------------- */

static enum hct_rx_verdict
up_data(void *ctx, uint32_t src, const struct hct_data_desc *d,
	const uint8_t *payload, struct rte_mbuf *m)
{
	struct ep *e = ctx;
	const uint8_t *end = rte_pktmbuf_mtod(m, const uint8_t *) + m->data_len;
	uint32_t i, k;

	if (e->reject_every != 0) {
		k = (uint32_t)(d->offset / MSS_EXPECTED);
		if (k % e->reject_every == 0 && k < sizeof(e->rejected) &&
		    !e->rejected[k]) {
			e->rejected[k] = 1;
			e->rejects++;
			return HCT_RX_REJECT;
		}
	}
	e->data_calls++;
	if (src != 1 - e->rank || d->comm_id != MSG_COMM ||
	    d->coll_seq != MSG_SEQ || d->sig != MSG_SIG ||
	    d->step != MSG_STEP || d->length == 0 ||
	    d->offset + d->length > BUF_MAX || payload + d->length > end) {
		e->bad_desc++;
		return HCT_RX_CONSUMED;
	}
	memcpy(e->dst + d->offset, payload, d->length);
	for (i = 0; i < d->length; i++)
		if (e->cnt[d->offset + i] < UINT8_MAX)
			e->cnt[d->offset + i]++;
	e->data_bytes += d->length;
	if (e->expect != 0 && e->data_bytes == e->expect)
		e->t_complete = g.now;
	return HCT_RX_CONSUMED;
}

static void
up_msg_sent(void *ctx, struct hct_msg *msg)
{
	struct ep *e = ctx;

	e->msg_sent++;
	e->last_msg = msg;
}

static void
up_peer_lost(void *ctx, uint32_t rank, int err)
{
	struct ep *e = ctx;

	e->lost_calls++;
	e->lost_err = err;
	if (rank < 2)
		e->lost[rank]++;
}

/* ---- endpoints --------------------------------------------------------- */

static int
ep_port_open(struct ep *e, uint32_t rank)
{
	char name[16];

	e->rank = rank;
	snprintf(name, sizeof(name), "mem%u", rank);
	if (tw_port_open(&e->tw, name, POOL_MBUFS, &rank_mac[rank], MTU,
			 &g.now, mem_xmit, NULL, e) != 0)
		return -1;
	e->dst = calloc(1, BUF_MAX);
	e->cnt = calloc(1, BUF_MAX);
	return e->dst == NULL || e->cnt == NULL ? -1 : 0;
}

static int
ep_stack_init(struct ep *e, uint32_t nonce, uint32_t initial_psn)
{
	struct hc_net_conf nc = {
		.ip = rank_ip[e->rank],
		.udp_port = UDP_PORT,
		.arp_capacity = 4,
		.arp_timeout_ns = 60 * HC_NS_PER_S,
		.arp_retry_ns = HC_NS_PER_MS,
	};
	struct hct_conf tc = {
		.job_id = JOB_ID,
		.rank = e->rank,
		.world_size = 2,
		.peer_ip = rank_ip,
		.window_pkts = 64,
		.rto_init_ns = HC_NS_PER_MS,
		.rto_min_ns = 200 * HC_NS_PER_US,
		.rto_max_ns = 50 * HC_NS_PER_MS,
		.retry_max = 5,
		.ack_every = 4,
		.ack_delay_ns = ack_delay_conf,
		.hello_interval_ns = HC_NS_PER_MS,
		/* Keepalive probes after 100 ms of silence (the config
		 * default), longer than any quiet phase of a test; no peer
		 * timeout: loss is detected by the retry budget alone. */
		.keepalive_ns = 100 * HC_NS_PER_MS,
		.peer_timeout_ns = 0,
		.always_on = 0,
		.nonce = nonce,
		.initial_psn = initial_psn,
		.shm_crc = shm_conf.shm_crc,
		.zero_copy_tx = shm_conf.zero_copy_tx,
		.cc = cc_conf,
	};
	struct hct_upcalls up = {
		.data = up_data,
		.msg_sent = up_msg_sent,
		.peer_lost = up_peer_lost,
	};

	unsigned int c;

	e->tw.port.shm = shm_conf.shm[e->rank] != 0;
	/* The test wire copies every frame's bytes as it is sent. */
	e->tw.port.tx_any_memory = e->tw.port.shm &&
				   !shm_conf.no_any_memory[e->rank];
	for (c = 0; c < CLS_N; c++) {
		hc_fault_set(&e->tw.port.fault, HC_FAULT_TX, c,
			     HC_FAULT_CORRUPT, shm_conf.corrupt_tx[e->rank]);
		hc_fault_set(&e->tw.port.fault, HC_FAULT_RX, c,
			     HC_FAULT_CORRUPT, shm_conf.corrupt_rx[e->rank]);
		hc_fault_set(&e->tw.port.fault, HC_FAULT_RX, c,
			     HC_FAULT_TRUNCATE, shm_conf.truncate_rx[e->rank]);
	}
	hc_clock_init_manual(&e->clk, g.now);
	if (hc_net_init(&e->net, &e->tw.port, &e->clk, &nc, hct_input,
			&e->hct) != 0)
		return -1;
	e->net_up = 1;
	if (hct_init(&e->hct, &e->net, &e->clk, &tc, &up, e) != 0)
		return -1;
	e->hct_up = 1;
	return 0;
}

static void
ep_stack_free(struct ep *e)
{
	if (e->hct_up)
		hct_free(&e->hct);
	if (e->net_up)
		hc_net_free(&e->net);
	e->hct_up = 0;
	e->net_up = 0;
}

/* A fresh pair of endpoints at T_START, wire without faults. */
static int
env_create(uint32_t initial_psn)
{
	static const uint32_t nonce[2] = { NONCE0, NONCE1 };
	uint32_t i;

	memset(&g, 0, sizeof(g));
	g.now = T_START;
	wire_seed(&g.wire, 1);
	for (i = 0; i < 2; i++)
		if (ep_port_open(&g.ep[i], i) != 0 ||
		    ep_stack_init(&g.ep[i], nonce[i], initial_psn) != 0) {
			CU_FAIL("endpoint set-up failed");
			return -1;
		}
	return 0;
}

/* Free everything; every mbuf must be back in its pool. */
static void
env_destroy(void)
{
	uint32_t i;

	for (i = 0; i < 2; i++) {
		struct ep *e = &g.ep[i];

		ep_stack_free(e);
		tw_port_drain(&e->tw);
		rte_pktmbuf_free(g.wire.held[i]);
		g.wire.held[i] = NULL;
		cap_clear(i);
	}
	for (i = 0; i < 2; i++)
		tw_port_close(&g.ep[i].tw);
	for (i = 0; i < 2; i++) {
		free(g.ep[i].dst);
		free(g.ep[i].cnt);
	}
	CU_ASSERT_EQUAL(g.wire.overflow, 0);
	CU_ASSERT_EQUAL(g.stuck, 0);
	memset(&cc_conf, 0, sizeof(cc_conf));
	memset(&shm_conf, 0, sizeof(shm_conf));
	ack_delay_conf = 0;
}

/* ---- driving ------------------------------------------------------------- */

/* hc_engine_poll() of one endpoint. @return work done. */
static uint32_t
ep_poll(struct ep *e)
{
	struct rte_mbuf *pkts[64];
	uint64_t tx_before = e->tw.port.stats.tx_pkts;
	uint16_t n, i;
	uint32_t work;

	if (g.paused[e->rank])
		return 0;
	n = hc_port_rx(&e->tw.port, pkts, e->tw.port.burst);
	for (i = 0; i < n; i++)
		hc_net_input(&e->net, pkts[i]);
	work = n;
	work += hct_flush_acks(&e->hct);
	work += hct_tick(&e->hct);
	work += hct_tx(&e->hct);
	hc_port_flush(&e->tw.port);
	work += (uint32_t)(e->tw.port.stats.tx_pkts - tx_before);
	return work;
}

/* Poll both endpoints until nothing moves at the current time. */
static void
pump(void)
{
	uint32_t i, w;

	for (i = 0; i < PUMP_MAX; i++) {
		w = ep_poll(&g.ep[0]) + ep_poll(&g.ep[1]);
		if (w == 0 && wire_release_held() == 0)
			break;
	}
	if (i == PUMP_MAX)
		g.stuck++;
	if (g.watch != NULL)
		g.watch();
}

/* Move the clock to the next frame arrival or transport timer
 * (hct_next_timer()), by STEP_NS at most, not past limit. */
static void
advance(uint64_t limit)
{
	uint64_t next = g.now + STEP_NS;
	uint32_t i;

	for (i = 0; i < 2; i++) {
		const struct tw_fifo *q = &g.ep[i].tw.rxq;
		uint64_t timer = g.ep[i].hct_up ?
				 hct_next_timer(&g.ep[i].hct) : UINT64_MAX;

		if (q->len > 0 && q->f[q->head].due_ns > g.now &&
		    q->f[q->head].due_ns < next)
			next = q->f[q->head].due_ns;
		if (timer > g.now && timer < next)
			next = timer;
	}
	if (next > limit)
		next = limit;
	if (next <= g.now)
		next = g.now + 1;
	set_now(next);
}

/* Pump and advance the clock until pred() holds or limit_ns passed.
 * @return 1 when pred() held. */
static int
run_until(int (*pred)(void), uint64_t limit_ns)
{
	uint64_t end = g.now + limit_ns;

	pump();
	while (!pred()) {
		if (g.now >= end || g.stuck != 0)
			return 0;
		advance(end);
		pump();
	}
	return 1;
}

/* Pump with the clock running until now + ns. */
static void
run_for(uint64_t ns)
{
	uint64_t end = g.now + ns;

	pump();
	while (g.now < end && g.stuck == 0) {
		advance(end);
		pump();
	}
}

static int
wire_idle(void)
{
	return g.ep[0].tw.rxq.len == 0 && g.ep[1].tw.rxq.len == 0 &&
	       g.wire.held[0] == NULL && g.wire.held[1] == NULL;
}

static int
a_lost_peer(void)
{
	return g.ep[0].lost_calls > 0;
}

static int
established_idle(void)
{
	return hct_established(&g.ep[0].hct) == 1 &&
	       hct_established(&g.ep[1].hct) == 1 && wire_idle();
}

static int
drained_idle(void)
{
	return hct_drained(&g.ep[0].hct) && hct_drained(&g.ep[1].hct) &&
	       wire_idle();
}

/* HELLO / HELLO_ACK, ARP through the wire. @return 1 when established. */
static int
establish(void)
{
	int ok = run_until(established_idle, 100 * HC_NS_PER_MS);

	CU_ASSERT_TRUE(ok);
	if (ok) {
		CU_ASSERT_EQUAL(g.ep[0].hct.flows[1].state,
				HCT_FLOW_ESTABLISHED);
		CU_ASSERT_EQUAL(g.ep[1].hct.flows[0].state,
				HCT_FLOW_ESTABLISHED);
		CU_ASSERT_EQUAL(g.ep[0].hct.flows[1].peer_nonce, NONCE1);
		CU_ASSERT_EQUAL(g.ep[1].hct.flows[0].peer_nonce, NONCE0);
	}
	return ok;
}

/* ---- messages and checks ------------------------------------------------- */

static void
fill_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)(x >> 24);
	}
}

static void
msg_init(struct hct_msg *msg, const uint8_t *src, uint64_t len)
{
	memset(msg, 0, sizeof(*msg));
	msg->src = src;
	msg->len = len;
	msg->desc.comm_id = MSG_COMM;
	msg->desc.coll_seq = MSG_SEQ;
	msg->desc.sig = MSG_SIG;
	msg->desc.step = MSG_STEP;
	msg->desc.offset = 0;
	msg->desc.length = (uint32_t)len;
}

/* Bytes of e's destination buffer that are wrong: not equal to src, not
 * delivered exactly once, or delivered beyond len. */
static uint64_t
check_exact(const struct ep *e, const uint8_t *src, uint64_t len)
{
	uint64_t i, bad = 0, first = UINT64_MAX;

	for (i = 0; i < BUF_MAX; i++) {
		int ok = i < len ? e->cnt[i] == 1 && e->dst[i] == src[i]
				 : e->cnt[i] == 0;

		if (!ok) {
			bad++;
			if (first == UINT64_MAX)
				first = i;
		}
	}
	if (bad != 0)
		printf("\n    rank %u: %" PRIu64 " bad bytes, first at %" PRIu64
		       " (delivered %u times)\n", e->rank, bad, first,
		       e->cnt[first]);
	return bad;
}

static uint32_t
npkts_of(uint64_t len)
{
	return (uint32_t)((len + g.ep[0].hct.mss - 1) / g.ep[0].hct.mss);
}

/* DATA retransmissions of every cause. */
static uint64_t
retx_total(const struct hct_flow *f)
{
	return f->stats.retransmits_rto + f->stats.retransmits_sack +
	       f->stats.retransmits_rack + f->stats.retransmits_tlp;
}

static void
print_flow(const char *what, const struct hct_flow *f)
{
	printf("\n    %s: data_tx %" PRIu64 " data_rx %" PRIu64
	       " retx rto/sack/rack/tlp %" PRIu64 "/%" PRIu64 "/%" PRIu64
	       "/%" PRIu64 " rtos %" PRIu64 " dup_rx %" PRIu64 " acks_tx %"
	       PRIu64 " una %u nxt %u rcv %u cwnd %.3f srtt %" PRIu64,
	       what, f->stats.data_tx, f->stats.data_rx,
	       f->stats.retransmits_rto, f->stats.retransmits_sack,
	       f->stats.retransmits_rack, f->stats.retransmits_tlp,
	       f->stats.rtos, f->stats.dup_rx, f->stats.acks_tx, f->snd_una,
	       f->snd_nxt, f->rcv_nxt, f->cc.cwnd, f->srtt_ns);
}

/* ---- one message, the shared shape of most protocol tests --------------- */

static uint8_t src_buf[BUF_MAX];

/* One message of len bytes from rank 0 to rank 1. */
struct one {
	struct hct_msg msg;
	struct ep *a, *b;	/* sender, receiver */
	struct hct_flow *fa, *fb; /* their flows to each other */
	uint64_t len;
	uint32_t npkts;
	uint64_t t_sent;	/* clock at hct_send() */
	int done;		/* drained within the limit */
};

/* Fresh endpoints (congestion control cc, NULL: fixed window), HELLO
 * exchange, src_buf filled with pattern seed. The test then sets the wire
 * faults and calls one_send(). @return 0, or -1 (failure asserted). */
static int
one_begin(struct one *r, uint64_t len, uint64_t seed,
	  const struct hct_cc_conf *cc)
{
	memset(r, 0, sizeof(*r));
	if (cc != NULL)
		cc_conf = *cc;
	if (env_create(0) != 0 || !establish())
		return -1;
	r->a = &g.ep[0];
	r->b = &g.ep[1];
	r->fa = &r->a->hct.flows[1];
	r->fb = &r->b->hct.flows[0];
	r->len = len;
	r->npkts = npkts_of(len);
	r->b->expect = len;
	fill_pattern(src_buf, len, seed);
	msg_init(&r->msg, src_buf, len);
	return 0;
}

/* Send the message and pump until both sides are drained (limit_ns of
 * virtual time at most); then check what every such test checks: the
 * bytes arrived exactly once, each packet was delivered upward once, the
 * windows closed, no peer was lost. */
static void
one_send(struct one *r, uint64_t limit_ns)
{
	r->t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&r->a->hct, 1, &r->msg), 0);
	r->done = run_until(drained_idle, limit_ns);
	CU_ASSERT_TRUE(r->done);
	CU_ASSERT_EQUAL(check_exact(r->b, src_buf, r->len), 0);
	CU_ASSERT_EQUAL(r->b->data_calls, r->npkts);
	CU_ASSERT_EQUAL(r->b->bad_desc, 0);
	CU_ASSERT_EQUAL(r->fb->stats.data_rx, r->npkts);
	CU_ASSERT_EQUAL(r->fa->snd_una, r->fa->snd_nxt);
	CU_ASSERT_EQUAL(r->fb->rcv_nxt, r->fa->snd_nxt);
	CU_ASSERT_EQUAL(r->a->msg_sent, 1);
	CU_ASSERT_EQUAL(r->a->lost_calls + r->b->lost_calls, 0);
	if (!r->done) {
		print_flow("sender", r->fa);
		print_flow("receiver", r->fb);
	}
}

/* 100 000 bytes of pattern seed from rank 0 to rank 1 (74 packets, PSN
 * 0..73) with the DATA packet of PSN psn lost times times, under cc. */
#define LOSE_LEN 100000
static int
one_lose(struct one *r, uint64_t seed, const struct hct_cc_conf *cc,
	 uint32_t psn, int times)
{
	if (one_begin(r, LOSE_LEN, seed, cc) != 0)
		return -1;
	g.wire.drop_psn_on = times;
	g.wire.drop_psn = psn;
	one_send(r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(g.wire.drop_psn_on, 0);
	CU_ASSERT_EQUAL(g.wire.dropped[0][CLS_DATA], (uint64_t)times);
	CU_ASSERT_EQUAL(r->npkts, 74);
	return 0;
}

/* ---- frames built by the tests ---------------------------------------- */

/* Ethernet + IPv4 (checksummed, fragment field frag) + l4 bytes. */
static struct rte_mbuf *
frame_ip(struct rte_mempool *mp, const struct rte_ether_addr *smac,
	 const struct rte_ether_addr *dmac, uint32_t sip, uint32_t dip,
	 uint8_t proto, const void *l4, uint16_t l4_len, uint16_t frag)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eth) + sizeof(*ip) + l4_len);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth->dst_addr = *dmac;
	eth->src_addr = *smac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	hc_ipv4_build(ip, sip, dip, proto, HC_IPV4_ECT0, l4_len, 77, 0);
	ip->fragment_offset = rte_cpu_to_be_16(frag);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memcpy(ip + 1, l4, l4_len);
	return m;
}

/* A UDP datagram to our port with a correct checksum. */
static struct rte_mbuf *
frame_udp(struct rte_mempool *mp, const struct rte_ether_addr *smac,
	  const struct rte_ether_addr *dmac, uint32_t sip, uint32_t dip,
	  const void *payload, uint16_t len, uint16_t frag)
{
	uint8_t l4[MTU];
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)l4;
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ip;

	udp->src_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(sizeof(*udp) + len);
	udp->dgram_cksum = 0;
	memcpy(udp + 1, payload, len);
	m = frame_ip(mp, smac, dmac, sip, dip, IPPROTO_UDP, l4,
		     sizeof(*udp) + len, frag);
	if (m == NULL)
		return NULL;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return m;
}

/* An HCT DATA packet from rank 0 to rank 1 that rank 1 accepts as the
 * next one (unless a test changes a field). */
static void
forge_data(struct hct_pkt *p, uint32_t psn, uint32_t len)
{
	memset(p, 0, sizeof(*p));
	p->type = HCT_TYPE_DATA;
	p->job_id = JOB_ID;
	p->src_nonce = NONCE0;
	p->dst_nonce = NONCE1;
	p->src_rank = 0;
	p->dst_rank = 1;
	p->psn = psn;
	p->ts_ns = g.now;
	p->comm_id = MSG_COMM;
	p->coll_seq = MSG_SEQ;
	p->sig = MSG_SIG;
	p->step = MSG_STEP;
	p->offset = 0;
	p->length = len;
}

/* Encode p and payload (only the first hdr_len bytes of the header) into
 * buf. @return bytes. */
static uint32_t
hct_image(uint8_t *buf, const struct hct_pkt *p, uint32_t hdr_len,
	  const uint8_t *payload, uint32_t len)
{
	uint8_t h[HCT_HDR_LEN];

	hct_hdr_encode(p, h);
	memcpy(buf, h, hdr_len);
	if (len != 0) /* payload may be NULL then (memcpy's is nonnull) */
		memcpy(buf + hdr_len, payload, len);
	if (hdr_len == HCT_HDR_LEN) /* a whole header: sealed as the stack
				     * would (a short one is refused) */
		hct_crc_seal(buf, hdr_len + len);
	return hdr_len + len;
}

/* Send an HCT image through from's real UDP send path. */
static int
net_send_image(struct ep *from, uint32_t dst_ip, const uint8_t *img,
	       uint32_t len)
{
	struct rte_mbuf *m = hc_port_alloc(&from->tw.port);
	void *d;

	if (m == NULL)
		return -1;
	d = rte_pktmbuf_append(m, len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(d, img, len);
	return hc_net_udp_send(&from->net, dst_ip, HC_IPV4_ECT0, m);
}

/* ---- tests ---------------------------------------------------------------- */

/* 1. 100 000 bytes from rank 0 to rank 1, a clean wire. */
static void
test_message_100k(void)
{
	struct one r;

	if (one_begin(&r, 100000, 1, NULL) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.a->hct.mss, MSS_EXPECTED);
	CU_ASSERT_EQUAL(r.npkts, 74);
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.b->data_bytes, r.len);
	CU_ASSERT_PTR_EQUAL(r.a->last_msg, &r.msg);
	CU_ASSERT_EQUAL(r.msg.done, r.len);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx, r.npkts);
	CU_ASSERT_EQUAL(r.fa->stats.bytes_tx, r.len);
	CU_ASSERT_EQUAL(r.fb->stats.bytes_rx, r.len);
	CU_ASSERT_EQUAL(g.wire.sent[0][CLS_DATA], r.npkts);
	CU_ASSERT_EQUAL(r.fa->snd_nxt, r.npkts);
	CU_ASSERT_TRUE(hct_drained(&r.a->hct));
	CU_ASSERT_TRUE(hct_drained(&r.b->hct));
	CU_ASSERT_EQUAL(retx_total(r.fa), 0);
	CU_ASSERT_EQUAL(r.fa->stats.rtos + r.fa->stats.tlps, 0);
	CU_ASSERT_EQUAL(r.fb->stats.dup_rx, 0);
	CU_ASSERT_EQUAL(r.a->hct.stats.stray_rx, 0);
	CU_ASSERT_EQUAL(r.b->hct.stats.stray_rx, 0);
	/* The sender saw RTT samples: the RTO left its initial value for
	 * the datacenter minimum (the wire RTT is 10 us). */
	CU_ASSERT_EQUAL(r.fa->srtt_ns, 2 * LINK_NS);
	CU_ASSERT_EQUAL(r.fa->cc.min_rtt_ns, 2 * LINK_NS);
	CU_ASSERT_EQUAL(r.fa->rto_ns, 200 * HC_NS_PER_US);
	/* cc = fixed: the window is window_pkts, untouched. */
	CU_ASSERT_EQUAL(r.fa->cc.cwnd, 64.0);
out:
	env_destroy();
}

/* 1b. Messages both ways at once: ACKs ride on DATA. */
static void
test_both_ways(void)
{
	static uint8_t src1[BUF_MAX];
	const uint64_t len0 = 150000, len1 = 90001;
	struct hct_msg m0, m1;
	struct ep *a = &g.ep[0], *b = &g.ep[1];

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fill_pattern(src_buf, len0, 2);
	fill_pattern(src1, len1, 3);
	msg_init(&m0, src_buf, len0);
	msg_init(&m1, src1, len1);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &m0), 0);
	CU_ASSERT_EQUAL(hct_send(&b->hct, 0, &m1), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len0), 0);
	CU_ASSERT_EQUAL(check_exact(a, src1, len1), 0);
	CU_ASSERT_EQUAL(a->msg_sent, 1);
	CU_ASSERT_EQUAL(b->msg_sent, 1);
	CU_ASSERT_EQUAL(a->hct.flows[1].snd_nxt, npkts_of(len0));
	CU_ASSERT_EQUAL(b->hct.flows[0].snd_nxt, npkts_of(len1));
	CU_ASSERT_EQUAL(a->hct.flows[1].rcv_nxt, npkts_of(len1));
	CU_ASSERT_EQUAL(b->hct.flows[0].rcv_nxt, npkts_of(len0));
	CU_ASSERT_EQUAL(a->bad_desc + b->bad_desc, 0);
	CU_ASSERT_EQUAL(a->lost_calls + b->lost_calls, 0);
out:
	env_destroy();
}

/* 2. Every DATA frame duplicated on the wire. */
static void
test_duplicates(void)
{
	struct one r;

	if (one_begin(&r, 100000, 4, NULL) != 0)
		goto out;
	g.wire.dup[CLS_DATA] = 1;
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(g.wire.duped[0][CLS_DATA], g.wire.sent[0][CLS_DATA]);
	CU_ASSERT(g.wire.duped[0][CLS_DATA] >= r.npkts);
	CU_ASSERT_EQUAL(r.fb->stats.dup_rx, g.wire.duped[0][CLS_DATA]);
	CU_ASSERT_TRUE(hct_drained(&r.a->hct));
	CU_ASSERT_EQUAL(r.b->hct.stats.stray_rx, 0);
out:
	env_destroy();
}

/* 2b. Field case C23's "duplicates acknowledged and discarded", one
 * duplicate at a time: a copy of the first DATA packet arrives again
 * after the message was delivered and acknowledged. The receiver drops it
 * (nothing delivered twice, the bytes unchanged) and answers it with one
 * pure ACK at once (rx.c: the ACK that would have stopped its sender may
 * have been lost); the sender, drained, does nothing with that ACK. */
static void
test_duplicate_acked(void)
{
	struct one r;
	struct rte_mbuf *copy;
	uint64_t acks0, dup0, calls0, data0;
	uint32_t psn = UINT32_MAX;

	if (one_begin(&r, 100000, 6, NULL) != 0)
		goto out;
	g.wire.capture[0] = 1;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	pump();
	CU_ASSERT_FATAL(g.wire.ncap[0] > 0);
	CU_ASSERT_EQUAL_FATAL(wire_classify(g.wire.cap[0][0], &psn), CLS_DATA);
	CU_ASSERT_EQUAL(psn, 0);
	copy = rte_pktmbuf_copy(g.wire.cap[0][0], r.b->tw.port.pool, 0,
				UINT32_MAX);
	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	g.wire.capture[0] = 0;
	cap_release(0, 0, 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(r.b->data_calls, r.npkts);
	acks0 = g.wire.sent[1][CLS_ACK];
	dup0 = r.fb->stats.dup_rx;
	calls0 = r.b->data_calls;
	data0 = g.wire.sent[0][CLS_DATA];
	inject(r.b, copy);
	pump();
	CU_ASSERT_EQUAL(r.fb->stats.dup_rx, dup0 + 1);
	CU_ASSERT_EQUAL(r.b->data_calls, calls0);
	CU_ASSERT_EQUAL(g.wire.sent[1][CLS_ACK], acks0 + 1);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(g.wire.sent[0][CLS_DATA], data0);
	CU_ASSERT_EQUAL(r.fa->snd_una, r.fa->snd_nxt);
	CU_ASSERT_EQUAL(r.a->msg_sent, 1);
	CU_ASSERT_EQUAL(r.a->lost_calls + r.b->lost_calls, 0);
out:
	env_destroy();
}

/* 3a. The 3rd DATA packet lost once, RACK's reordering window widened to
 * 1 ms: SACK fast retransmit (DupThresh 3) repairs it, no RTO. */
static void
test_drop_third(void)
{
	const struct hct_cc_conf cc = { .reo_wnd_ns = HC_NS_PER_MS };
	struct one r;

	if (one_lose(&r, 5, &cc, 2, 1) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_sack, 1);
	CU_ASSERT_EQUAL(retx_total(r.fa), 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 0);
	CU_ASSERT_EQUAL(r.fa->snd_una, r.npkts);
	if (r.fa->stats.retransmits_sack != 1 || r.fa->stats.rtos != 0)
		print_flow("sender", r.fa);
out:
	env_destroy();
}

/* 3b. The last DATA packet lost once: the tail-loss probe (RFC 8985)
 * repairs it, no RTO. The probe leaves PTO = 2 SRTT (the tests configure
 * no ACK delay) after the lost packet, which the receiver gets one link
 * latency later: the loss costs exactly 2 RTT. */
static void
test_tlp(void)
{
	struct one r;

	if (one_lose(&r, 6, NULL, 73, 1) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.fa->srtt_ns, 2 * LINK_NS);
	CU_ASSERT_EQUAL(r.b->t_complete,
			g.wire.drop_psn_at + 2 * r.fa->srtt_ns + LINK_NS);
	CU_ASSERT_EQUAL(r.fa->stats.tlps, 1);
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_tlp, 1);
	CU_ASSERT_EQUAL(retx_total(r.fa), 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 0);
	CU_ASSERT_EQUAL(r.fb->stats.dup_rx, 0);
	printf("\n    last packet lost at +%.1f us, message complete at "
	       "+%.1f us (RTT %.1f us)",
	       (double)(g.wire.drop_psn_at - r.t_sent) / HC_NS_PER_US,
	       (double)(r.b->t_complete - r.t_sent) / HC_NS_PER_US,
	       (double)r.fa->srtt_ns / HC_NS_PER_US);
out:
	env_destroy();
}

/* 3c. The last DATA packet and its probe lost: the RTO (RFC 6298),
 * restarted when the probe went out, repairs it. */
static void
test_tlp_lost(void)
{
	struct one r;

	if (one_lose(&r, 6, NULL, 73, 2) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.fa->stats.tlps, 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 1);
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_rto, 1);
	CU_ASSERT_EQUAL(retx_total(r.fa), 2);
	/* The second drop is the probe; the RTO of rto_min follows it. */
	CU_ASSERT_EQUAL(r.b->t_complete,
			g.wire.drop_psn_at + 200 * HC_NS_PER_US + LINK_NS);
out:
	env_destroy();
}

/* 3d. One DATA packet lost with only 2 packets after it, so DupThresh
 * (3) cannot fire: RACK (RFC 8985) sees the later packets delivered and
 * retransmits it once it has been out for RACK.rtt + reo_wnd (min_rtt /
 * 4): the loss costs 1.25 RTT, no probe, no RTO. */
static void
test_rack(void)
{
	struct one r;

	if (one_lose(&r, 17, NULL, 71, 1) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_rack, 1);
	CU_ASSERT_EQUAL(retx_total(r.fa), 1);
	CU_ASSERT_EQUAL(r.fa->stats.tlps + r.fa->stats.rtos, 0);
	CU_ASSERT_EQUAL(r.fa->cc.min_rtt_ns, 2 * LINK_NS);
	CU_ASSERT_EQUAL(r.b->t_complete, g.wire.drop_psn_at + 2 * LINK_NS +
			2 * LINK_NS / 4 + LINK_NS);
out:
	env_destroy();
}

/* ---- congestion control ----------------------------------------------- */

/* Changes of the sender's (rank 0 -> 1) windows, recorded by watch_cc()
 * after every pump(). */
static struct {
	uint32_t n;
	struct {
		uint64_t t;
		double fcwnd, ecwnd;
		double alpha;
		uint64_t fabric;	/* delay sample behind the change */
		uint64_t srtt;
	} h[HIST_MAX];
} hist;

static void
watch_cc(void)
{
	const struct hct_flow *f = &g.ep[0].hct.flows[1];
	uint32_t n = hist.n;

	if (n > 0 && hist.h[n - 1].fcwnd == f->cc.fcwnd &&
	    hist.h[n - 1].ecwnd == f->cc.ecwnd &&
	    hist.h[n - 1].alpha == f->cc.alpha)
		return;
	if (n == HIST_MAX)
		return;
	hist.h[n].t = g.now;
	hist.h[n].fcwnd = f->cc.fcwnd;
	hist.h[n].ecwnd = f->cc.ecwnd;
	hist.h[n].alpha = f->cc.alpha;
	hist.h[n].fabric = f->cc.last_fabric_ns;
	hist.h[n].srtt = f->srtt_ns;
	hist.n++;
}

static void
hist_start(void)
{
	memset(&hist, 0, sizeof(hist));
	g.watch = watch_cc;
	watch_cc();
}

/* The law of the tests below: targets 30 us fabric, 1 ms endpoint (the
 * harness acknowledges at once: host delay 0), beta 0.8, max_mdf 0.5,
 * ai 1 packet per RTT. */
static const struct hct_cc_conf swift_conf = {
	.algo = HCT_CC_SWIFT,
	.init_cwnd = 16,
	.min_cwnd = 0.25,
	.ai = 1.0,
	.beta = 0.8,
	.max_mdf = 0.5,
	.base_target_ns = 20 * HC_NS_PER_US,
	.hop_scale_ns = 5 * HC_NS_PER_US,
	.hops = 2,
	.endpoint_target_ns = HC_NS_PER_MS,
	.pace_burst = 1,
};

/* 12. Swift, fabric delay above the target: DATA takes 45 us more, so
 * every ACK reports a fabric delay of 55 us against the 30 us target. The
 * fabric window is cut at most once per SRTT, each time by
 * max(1 - beta * (55 - 30) / 55, 1 - max_mdf) = 0.636..., never below
 * min_cwnd, never by more than max_mdf; it never grows. Once the window
 * is below 1 the packets go out paced, SRTT / cwnd apart. */
static void
test_swift_decrease(void)
{
	const uint64_t delay = 2 * LINK_NS + 45 * HC_NS_PER_US;
	const double factor = 1.0 - 0.8 * 25.0 / 55.0;
	struct one r;
	uint32_t i, cuts = 0, paced = 0;
	uint64_t gap, last_cut = 0;

	if (one_begin(&r, 300000, 18, &swift_conf) != 0)
		goto out;
	CU_ASSERT_EQUAL(hct_cc_fabric_target_ns(&r.a->hct, r.fa),
			30 * HC_NS_PER_US);
	g.wire.extra_ns[CLS_DATA] = 45 * HC_NS_PER_US;
	hist_start();
	one_send(&r, 200 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.fa->srtt_ns, delay);
	CU_ASSERT_EQUAL(r.fa->stats.rtos + retx_total(r.fa), 0);
	for (i = 1; i < hist.n; i++) {
		double prev = hist.h[i - 1].fcwnd, now = hist.h[i].fcwnd;

		CU_ASSERT(now >= swift_conf.min_cwnd);
		CU_ASSERT(now <= prev);
		if (now == prev)
			continue;
		cuts++;
		CU_ASSERT_EQUAL(hist.h[i].fabric, delay);
		CU_ASSERT(now >= prev * (1 - swift_conf.max_mdf));
		if (prev * factor >= swift_conf.min_cwnd) {
			CU_ASSERT_DOUBLE_EQUAL(now, prev * factor, 1e-9);
		} else {
			CU_ASSERT_EQUAL(now, swift_conf.min_cwnd);
		}
		if (last_cut != 0)
			CU_ASSERT(hist.h[i].t - last_cut >= hist.h[i].srtt);
		last_cut = hist.h[i].t;
	}
	/* 16 * 0.636^k < 0.25 first for k = 10: nine cuts by the factor,
	 * the tenth to the floor. */
	CU_ASSERT_EQUAL(cuts, 10);
	CU_ASSERT_EQUAL(r.fa->cc.fcwnd, swift_conf.min_cwnd);
	CU_ASSERT_EQUAL(r.fa->cc.cwnd, swift_conf.min_cwnd);
	CU_ASSERT_EQUAL(r.fa->stats.cwnd_decreases, cuts);
	/* At cwnd 0.25 with SRTT 55 us: one packet every 220 us. */
	gap = (uint64_t)((double)delay / swift_conf.min_cwnd);
	CU_ASSERT_EQUAL(gap, 220 * HC_NS_PER_US);
	for (i = 1; i < g.wire.ndata; i++)
		if (g.wire.data_at[i - 1] > last_cut) {
			CU_ASSERT_EQUAL(g.wire.data_at[i] - g.wire.data_at[i - 1],
					gap);
			paced++;
		}
	CU_ASSERT(paced > 100);
	printf("\n    %u cuts, then %u packets paced %.0f us apart; %.3f ms",
	       cuts, paced, (double)gap / HC_NS_PER_US,
	       (double)(g.now - r.t_sent) / HC_NS_PER_MS);
out:
	env_destroy();
}

/* 13. Swift below the target (a clean 10 us wire): both windows grow by
 * ai / cwnd per packet acknowledged, so ai per RTT; never shrink. Without
 * pacing the window goes out as one flight per RTT and comes back in one
 * ACK: exactly ai per RTT, flights of 4, 5, ..., 20 packets (204), then
 * the last 16 in a window of 21 add 16 / 21. */
static void
test_swift_increase(void)
{
	struct hct_cc_conf cc = swift_conf;
	struct one r;
	uint32_t i;

	cc.init_cwnd = 4;
	cc.pace_burst = 0; /* no pacing: ACK-clocked flights */
	if (one_begin(&r, 300000, 19, &cc) != 0)
		goto out;
	hist_start();
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.npkts, 220);
	CU_ASSERT_EQUAL(r.fa->stats.cwnd_decreases, 0);
	CU_ASSERT_EQUAL_FATAL(hist.n, 19);
	for (i = 1; i < hist.n; i++) {
		double d = hist.h[i].fcwnd - hist.h[i - 1].fcwnd;

		CU_ASSERT_DOUBLE_EQUAL(d, i < 18 ? cc.ai : 16.0 / 21, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(hist.h[i].ecwnd - hist.h[i - 1].ecwnd,
				       d, 1e-9);
		if (i > 1)
			CU_ASSERT_EQUAL(hist.h[i].t - hist.h[i - 1].t,
					2 * LINK_NS);
	}
	CU_ASSERT_DOUBLE_EQUAL(r.fa->cc.cwnd, 21 + 16.0 / 21, 1e-9);
out:
	env_destroy();
}

/* 13b. Swift under loss, delay below the target: a RACK retransmission
 * (fast recovery) cuts both windows by max_mdf once; a lost probe ends in
 * an RTO, which sets them to min_cwnd. Nothing else ever shrinks them. */
static void
test_swift_loss(void)
{
	struct hct_cc_conf cc = swift_conf;
	struct one r;
	uint32_t i, cuts;
	int rto;

	for (rto = 0; rto < 2; rto++) {
		cc.pace_burst = 0;
		if (one_begin(&r, LOSE_LEN, 22, &cc) != 0) {
			env_destroy();
			break;
		}
		hist_start();
		g.wire.drop_psn_on = rto ? 2 : 1;
		g.wire.drop_psn = rto ? 73 : 71;
		one_send(&r, 100 * HC_NS_PER_MS);
		CU_ASSERT_EQUAL(r.fa->stats.rtos, (uint64_t)rto);
		CU_ASSERT_EQUAL(r.fa->stats.retransmits_rack, rto ? 0 : 1);
		for (i = 1, cuts = 0; i < hist.n; i++) {
			double prev = hist.h[i - 1].fcwnd;

			if (hist.h[i].fcwnd >= prev)
				continue;
			cuts++;
			CU_ASSERT_EQUAL(hist.h[i].fcwnd, rto ? cc.min_cwnd :
					prev * (1 - cc.max_mdf));
			CU_ASSERT_EQUAL(hist.h[i].ecwnd, hist.h[i].fcwnd);
		}
		CU_ASSERT_EQUAL(cuts, 1);
		CU_ASSERT_EQUAL(r.fa->stats.cwnd_decreases, 1);
		env_destroy();
	}
}

static const struct hct_cc_conf dctcp_conf = {
	.algo = HCT_CC_DCTCP,
	.init_cwnd = 32,
	.min_cwnd = 1,
	.ai = 1.0,
	.max_mdf = 0.5,
	.dctcp_g = 1.0 / 16,
};

/* 14. DCTCP, every DATA packet CE-marked: the receiver echoes every mark,
 * alpha stays at 1 (it starts there, RFC 8257), the window halves once
 * per RTT down to min_cwnd. */
static void
test_dctcp_marked(void)
{
	struct one r;
	uint32_t i, cuts = 0;
	uint64_t last_cut = 0;

	if (one_begin(&r, 100000, 20, &dctcp_conf) != 0)
		goto out;
	g.wire.ce[CLS_DATA] = 1;
	hist_start();
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(g.wire.marked[0][CLS_DATA], r.npkts);
	CU_ASSERT_EQUAL(r.fb->stats.ecn_ce_rx, r.npkts);
	CU_ASSERT_EQUAL(r.fb->stats.ecn_echoed, r.npkts);
	CU_ASSERT_EQUAL(r.fa->stats.ecn_ece_rx, r.npkts);
	CU_ASSERT_EQUAL(r.fa->cc.alpha, 1.0);
	for (i = 1; i < hist.n; i++) {
		double prev = hist.h[i - 1].fcwnd, now = hist.h[i].fcwnd;

		CU_ASSERT(now < prev);
		if (now >= prev)
			continue;
		cuts++;
		CU_ASSERT_EQUAL(now, RTE_MAX(prev / 2, dctcp_conf.min_cwnd));
		if (last_cut != 0)
			CU_ASSERT(hist.h[i].t - last_cut >= hist.h[i].srtt);
		last_cut = hist.h[i].t;
	}
	/* 32 -> 16 -> 8 -> 4 -> 2 -> 1 */
	CU_ASSERT_EQUAL(cuts, 5);
	CU_ASSERT_EQUAL(r.fa->cc.cwnd, 1.0);
out:
	env_destroy();
}

/* 15. DCTCP without marks: once per window of data alpha decays by
 * (1 - g); the window only grows. Unpaced, each flight is one window:
 * 32, 33, ..., 37 packets (207), then the last 13. */
static void
test_dctcp_unmarked(void)
{
	struct one r;
	uint32_t i, updates = 0;
	double alpha = 1.0;

	if (one_begin(&r, 300000, 21, &dctcp_conf) != 0)
		goto out;
	hist_start();
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.fb->stats.ecn_ce_rx + r.fa->stats.ecn_ece_rx, 0);
	CU_ASSERT_EQUAL(r.fa->stats.cwnd_decreases, 0);
	for (i = 1; i < hist.n; i++) {
		CU_ASSERT(hist.h[i].fcwnd >= hist.h[i - 1].fcwnd);
		if (hist.h[i].alpha == hist.h[i - 1].alpha)
			continue;
		updates++;
		alpha *= 1 - dctcp_conf.dctcp_g;
		CU_ASSERT_EQUAL(hist.h[i].alpha, alpha);
	}
	CU_ASSERT_EQUAL(updates, 7);
	CU_ASSERT_EQUAL(r.fa->cc.alpha, alpha);
	printf("\n    alpha 1 -> %.4f after %u windows", alpha, updates);
out:
	env_destroy();
}

/* One message of len bytes (pattern fill) from rank 0 to rank 1 over a
 * wire whose faults faults() sets, after the HELLO exchange, with seed 3
 * or HCT_TEST_SEED: it must arrive whole and exactly once, the window
 * must close on both sides, and no peer may be lost. *seeded: the seed
 * came from HCT_TEST_SEED (the fault counts of seed 3 do not hold then).
 * @return 0 with *fa, *fb set, or -1 when set-up failed. The caller
 * asserts its own figures, then calls env_destroy(). */
static int
lossy_transfer(uint64_t len, int fill, void (*faults)(void), int *seeded,
	       struct hct_flow **fa, struct hct_flow **fb)
{
	static struct hct_msg msg;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	const char *seed_env;
	uint32_t npkts;

	if (env_create(0) != 0 || !establish())
		return -1;
	*fa = &a->hct.flows[1];
	*fb = &b->hct.flows[0];
	npkts = npkts_of(len);
	/* HCT_TEST_SEED overrides the seed, to explore other loss patterns.
	 * With retry_max 5, a few seeds in a thousand end in peer_lost: the
	 * head packet or its ACKs are lost in 6 RTO rounds in a row (the
	 * budget counts RTOs since the last cumulative ACK, as TCP does). */
	seed_env = getenv("HCT_TEST_SEED");
	*seeded = seed_env != NULL;
	wire_seed(&g.wire, seed_env != NULL ? strtoull(seed_env, NULL, 0) : 3);
	faults();
	fill_pattern(src_buf, len, fill);
	msg_init(&msg, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 10 * HC_NS_PER_S));
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len), 0);
	CU_ASSERT_EQUAL(b->data_calls, npkts);
	CU_ASSERT_EQUAL((*fb)->stats.data_rx, npkts);
	CU_ASSERT_EQUAL(a->msg_sent, 1);
	CU_ASSERT_EQUAL((*fa)->snd_una, npkts);
	CU_ASSERT_EQUAL((*fb)->rcv_nxt, npkts);
	CU_ASSERT_EQUAL(a->lost_calls + b->lost_calls, 0);
	CU_ASSERT_EQUAL(b->bad_desc, 0);
	return 0;
}

static void
faults_lossy_reorder(void)
{
	g.wire.drop_p[CLS_DATA] = 0.2;
	g.wire.drop_p[CLS_ACK] = 0.2;
	g.wire.hold_p = 0.1;
}

/* 4. 20 % of DATA and of ACKs lost, frames reordered, fixed seed. */
static void
test_lossy_reorder(void)
{
	struct hct_flow *fa, *fb;
	int seeded;

	if (lossy_transfer(300000, 7, faults_lossy_reorder, &seeded, &fa,
			   &fb) != 0)
		goto out;
	/* The faults did happen (with the fixed seed: 57 DATA and 9 ACKs
	 * lost, 20 frames held; another seed may lose no ACK of the 20). */
	if (!seeded) {
		CU_ASSERT(g.wire.dropped[0][CLS_DATA] >= 40);
		CU_ASSERT(g.wire.dropped[1][CLS_ACK] >= 3);
		CU_ASSERT(g.wire.held_n[0] + g.wire.held_n[1] >= 10);
	}
	CU_ASSERT(retx_total(fa) >= g.wire.dropped[0][CLS_DATA]);
	printf("\n    %" PRIu64 " DATA and %" PRIu64 " ACK frames dropped, %"
	       PRIu64 " held; %.3f ms of virtual time",
	       g.wire.dropped[0][CLS_DATA], g.wire.dropped[1][CLS_ACK],
	       g.wire.held_n[0] + g.wire.held_n[1],
	       (double)(g.now - T_START) / HC_NS_PER_MS);
	print_flow("sender", fa);
	print_flow("receiver", fb);
	printf("\n");
out:
	env_destroy();
}

static void
faults_delayed_acks(void)
{
	g.wire.drop_p[CLS_DATA] = 0.1;
	g.wire.delay_p[CLS_ACK] = 0.2;
	g.wire.delay_ns = 200 * HC_NS_PER_US;
}

/* 4b. ACKs delayed by up to a window's worth of time (ECMP reordering,
 * switch queues): a delayed ACK arrives after newer ones moved the window
 * on. 10 % DATA loss, 20 % of ACKs 200 us late, fixed seed. */
static void
test_delayed_acks(void)
{
	struct hct_flow *fa, *fb;
	int seeded;

	if (lossy_transfer(300000, 16, faults_delayed_acks, &seeded, &fa,
			   &fb) != 0)
		goto out;
	if (!seeded)
		CU_ASSERT(g.wire.delayed[1][CLS_ACK] > 0);
	printf("\n    %" PRIu64 " DATA frames dropped, %" PRIu64
	       " ACKs delayed; %.3f ms of virtual time",
	       g.wire.dropped[0][CLS_DATA], g.wire.delayed[1][CLS_ACK],
	       (double)(g.now - T_START) / HC_NS_PER_MS);
	print_flow("sender", fa);
	printf("\n");
out:
	env_destroy();
}

/* 5. PSNs wrap around 2^32 in the middle of a message; the packet just
 * before the wrap is lost once, so SACK recovery works across it. */
static void
test_psn_wrap(void)
{
	const uint32_t init = 0xffffffffu - 10;
	uint64_t len;
	struct hct_msg msg;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa, *fb;
	uint32_t npkts;

	if (env_create(init) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	fb = &b->hct.flows[0];
	CU_ASSERT_EQUAL(fa->snd_nxt, init);
	CU_ASSERT_EQUAL(fb->rcv_nxt, init);
	len = 59ull * a->hct.mss + 1000;
	npkts = npkts_of(len);
	CU_ASSERT_EQUAL(npkts, 60);
	g.wire.drop_psn_on = 1;
	g.wire.drop_psn = 0xffffffffu;
	fill_pattern(src_buf, len, 8);
	msg_init(&msg, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(g.wire.dropped[0][CLS_DATA], 1);
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len), 0);
	CU_ASSERT_EQUAL(b->data_calls, npkts);
	CU_ASSERT_EQUAL(fa->snd_nxt, (uint32_t)(init + npkts));
	CU_ASSERT_EQUAL(fa->snd_nxt, 49);
	CU_ASSERT(fa->snd_nxt < init);
	CU_ASSERT_EQUAL(fa->snd_una, fa->snd_nxt);
	CU_ASSERT_EQUAL(fb->rcv_nxt, fa->snd_nxt);
	CU_ASSERT(retx_total(fa) >= 1);
	CU_ASSERT_EQUAL(b->hct.stats.stray_rx, 0);
	CU_ASSERT_EQUAL(a->hct.stats.stray_rx, 0);
	CU_ASSERT_EQUAL(a->lost_calls, 0);
out:
	env_destroy();
}

/* 6b. Spurious timeouts (issue 11): a receiver descheduled for 500 us
 * (2.5 x rto_min: one RTO, not two, as a 2-5 ms time slice against the
 * 2 ms rto_min of a real run) in the middle of a 300 000-byte message,
 * its RX FIFO filling. The sender times out while it sleeps: the
 * timeout sends one packet (not the window: no storm), and the first
 * ACK after the wake-up
 * echoes an original's timestamp, so the timeout is judged spurious
 * (Eifel) and Swift's cut to min_cwnd is undone. */
static void
test_desched_receiver(void)
{
	struct one r;
	double before;
	uint64_t sleep_ns = 500 * HC_NS_PER_US;

	if (one_begin(&r, 300000, 41, &swift_conf) != 0)
		goto out;
	r.t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	run_for(30 * HC_NS_PER_US); /* the window is out */
	before = r.fa->cc.fcwnd;
	g.paused[1] = 1;
	run_for(sleep_ns);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 1);
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_rto, 1);
	CU_ASSERT_EQUAL(r.fa->cc.fcwnd, swift_conf.min_cwnd); /* cut */
	g.paused[1] = 0;
	r.done = run_until(drained_idle, 200 * HC_NS_PER_MS);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(r.b->data_calls, r.npkts);
	CU_ASSERT_EQUAL(r.fa->stats.rtos_spurious, 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos_deferred, 0);
	/* the retransmissions: the RTO's single packet and the one
	 * tail-loss probe before it, no RACK or SACK storm after the
	 * wake-up */
	CU_ASSERT(r.fa->stats.tlps <= 1);
	CU_ASSERT_EQUAL(retx_total(r.fa), r.fa->stats.retransmits_rto +
			r.fa->stats.retransmits_tlp);
	/* the cut is undone; Swift may still cut once per RTT for the
	 * 500 us delay sample, by at most max_mdf */
	CU_ASSERT(r.fa->cc.fcwnd >= before * (1 - swift_conf.max_mdf) - 1e-9);
	CU_ASSERT(r.fa->cc.fcwnd > swift_conf.min_cwnd);
	CU_ASSERT_EQUAL(r.a->lost_calls + r.b->lost_calls, 0);
	printf("\n    receiver asleep %.0f us: %" PRIu64 " RTOs, %" PRIu64
	       " retransmissions (rto/sack/rack/tlp %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 "/%" PRIu64 "), %" PRIu64 " spurious; fcwnd %.2f "
	       "-> %.2f", (double)sleep_ns / HC_NS_PER_US, r.fa->stats.rtos,
	       retx_total(r.fa), r.fa->stats.retransmits_rto,
	       r.fa->stats.retransmits_sack, r.fa->stats.retransmits_rack,
	       r.fa->stats.retransmits_tlp, r.fa->stats.rtos_spurious, before,
	       r.fa->cc.fcwnd);
out:
	g.paused[1] = 0;
	env_destroy();
}

/* 6c. Sender and receiver descheduled for 10 ms with the window out,
 * the receiver waking 100 us after the sender: the sender's RTO is
 * overdue by far more than rto_min / 2 with no ACK to read yet; it is
 * re-armed once instead of fired, and the receiver's ACKs come within
 * it: no timeout, no probe, no retransmission. */
static void
test_desched_sender(void)
{
	struct one r;
	double before;

	if (one_begin(&r, 300000, 42, &swift_conf) != 0)
		goto out;
	r.t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	run_for(2 * HC_NS_PER_US); /* DATA out, no ACK back yet */
	before = r.fa->cc.fcwnd;
	CU_ASSERT(r.fa->snd_una != r.fa->snd_nxt);
	g.paused[0] = g.paused[1] = 1;
	run_for(10 * HC_NS_PER_MS);
	g.paused[0] = 0;
	run_for(100 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(r.fa->stats.rtos_deferred, 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 0);
	g.paused[1] = 0;
	r.done = run_until(drained_idle, 200 * HC_NS_PER_MS);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 0);
	CU_ASSERT_EQUAL(retx_total(r.fa), 0);
	CU_ASSERT_EQUAL(r.fa->stats.rtos_deferred, 1);
	CU_ASSERT(r.fa->cc.fcwnd >= before * (1 - swift_conf.max_mdf) - 1e-9);
	CU_ASSERT_EQUAL(r.a->lost_calls + r.b->lost_calls, 0);
out:
	g.paused[0] = g.paused[1] = 0;
	env_destroy();
}

/* 6d. A real loss is still repaired: the whole window dropped once
 * (every DATA frame for 100 us, then the wire heals). The first RTO
 * sends one packet; its ACK is not spurious (it echoes the
 * retransmission), RACK then repairs the rest; exact, one RTO. */
static void
test_rto_real_loss(void)
{
	struct one r;

	if (one_begin(&r, 30000, 43, NULL) != 0)
		goto out;
	g.wire.drop_p[CLS_DATA] = 1.0;
	r.t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	run_for(100 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(g.wire.dropped[0][CLS_DATA], r.npkts);
	g.wire.drop_p[CLS_DATA] = 0;
	r.done = run_until(drained_idle, 200 * HC_NS_PER_MS);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(r.b->data_calls, r.npkts);
	CU_ASSERT_EQUAL(r.fa->stats.rtos, 1);
	CU_ASSERT_EQUAL(r.fa->stats.retransmits_rto, 1);
	CU_ASSERT_EQUAL(r.fa->stats.rtos_spurious, 0);
	CU_ASSERT_EQUAL(retx_total(r.fa), r.npkts);
	CU_ASSERT_EQUAL(r.fb->stats.dup_rx, 0);
	printf("\n    window of %u packets lost: %" PRIu64 " RTO, %" PRIu64
	       " retransmissions (rto/sack/rack/tlp %" PRIu64 "/%" PRIu64
	       "/%" PRIu64 "/%" PRIu64 "), complete at +%.0f us", r.npkts,
	       r.fa->stats.rtos, retx_total(r.fa),
	       r.fa->stats.retransmits_rto, r.fa->stats.retransmits_sack,
	       r.fa->stats.retransmits_rack, r.fa->stats.retransmits_tlp,
	       (double)(r.b->t_complete - r.t_sent) / HC_NS_PER_US);
out:
	env_destroy();
}

/* 6. Every frame lost after establishment: the retry budget runs out after
 * exactly the backed-off RTOs, the peer is lost once, with
 * HC_ERR_PEER_LOST; with a's own link reported down as well (C31: a tap
 * set down), with HC_ERR_LINK_DOWN. */
static void
peer_lost_case(int link_down)
{
	const uint64_t len = 10000;
	struct hct_msg msg, msg2;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa;
	uint64_t t_sent, total = 0, rto;
	uint32_t i;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	/* RTO per RFC 6298: rto_init (no RTT sample yet), doubled after
	 * every timeout up to rto_max; the (retry_max + 1)-th timeout
	 * declares the peer lost. */
	for (i = 0, rto = a->hct.conf.rto_init_ns;
	     i <= a->hct.conf.retry_max; i++) {
		total += rto;
		rto = RTE_MIN(rto * 2, a->hct.conf.rto_max_ns);
	}
	CU_ASSERT_EQUAL(total, 63 * HC_NS_PER_MS);
	g.wire.drop_all = 1;
	a->tw.link_down = link_down;
	fill_pattern(src_buf, len, 9);
	msg_init(&msg, src_buf, len);
	t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), 0);
	run_for(total - STEP_NS);
	CU_ASSERT_EQUAL(a->lost_calls, 0);
	CU_ASSERT_EQUAL(fa->state, HCT_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(fa->stats.rtos, a->hct.conf.retry_max);
	run_for(t_sent + total - g.now);
	CU_ASSERT_EQUAL(a->lost[1], 1);
	CU_ASSERT_EQUAL(a->lost_calls, 1);
	CU_ASSERT_EQUAL(a->lost_err,
			link_down ? -HC_ERR_LINK_DOWN : -HC_ERR_PEER_LOST);
	if (link_down) {
		/* A shared-memory link goes down when its other end's
		 * process ends: a lost peer, not a lost link. */
		CU_ASSERT(hc_port_link_down(&a->tw.port));
		a->tw.port.shm = true;
		CU_ASSERT(!hc_port_link_down(&a->tw.port));
		a->tw.port.shm = false;
	}
	CU_ASSERT_EQUAL(fa->state, HCT_FLOW_LOST);
	CU_ASSERT_EQUAL(fa->stats.rtos, a->hct.conf.retry_max + 1);
	/* The first timeout sends the first packet only (F-RTO), the
	 * later ones every packet of the window. */
	CU_ASSERT_EQUAL(fa->stats.retransmits_rto, 1 +
			(uint64_t)(a->hct.conf.retry_max - 1) * npkts_of(len));
	/* Nothing more happens, however long we wait. */
	run_for(500 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(a->lost_calls, 1);
	CU_ASSERT_EQUAL(b->lost_calls, 0);
	CU_ASSERT_EQUAL(hct_established(&a->hct), 0);
	msg_init(&msg2, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg2), -HC_ERR_PEER_LOST);
	CU_ASSERT_EQUAL(b->data_calls, 0);
out:
	env_destroy();
}

static void test_peer_lost(void) { peer_lost_case(0); }
static void test_peer_lost_link_down(void) { peer_lost_case(1); }

/* 7. Strays: another job, a wrong dst_nonce, a src_rank whose IP does not
 * match, a truncated header. Then the same packet made right is
 * delivered, which shows the strays differed only in the tested field. */
static void
test_strays(void)
{
	uint8_t payload[64], img[MTU];
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fb;
	struct hct_pkt p;
	struct rte_mbuf *m;
	uint64_t stray0, crc0;
	uint32_t n, psn;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fb = &b->hct.flows[0];
	psn = fb->rcv_nxt;
	stray0 = b->hct.stats.stray_rx;
	fill_pattern(payload, sizeof(payload), 10);

	forge_data(&p, psn, sizeof(payload));
	p.job_id = JOB_ID + 1;
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);

	forge_data(&p, psn, sizeof(payload));
	p.dst_nonce = NONCE1 + 1;
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);

	forge_data(&p, psn, sizeof(payload));
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	m = frame_udp(b->tw.port.pool, &other_mac, &rank_mac[1], IP_OTHER, IP1,
		      img, (uint16_t)n, 0);
	CU_ASSERT_PTR_NOT_NULL(m);
	if (m != NULL)
		inject(b, m);

	forge_data(&p, psn, sizeof(payload));
	n = hct_image(img, &p, 50, NULL, 0);
	CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);

	/* Two bit errors the UDP checksum cannot see (bit 0 set in one
	 * 16-bit word, cleared in the next: the one's-complement sum is the
	 * same; the send path checksums the changed bytes anyway): the
	 * CRC32C sealed over the original catches them. */
	forge_data(&p, psn, sizeof(payload));
	payload[0] = 0x10;
	payload[2] = 0x11;
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	img[HCT_HDR_LEN] ^= 0x01;
	img[HCT_HDR_LEN + 2] ^= 0x01;
	crc0 = b->hct.stats.crc_rx;
	CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);

	CU_ASSERT_TRUE(run_until(wire_idle, 10 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(b->hct.stats.stray_rx - stray0, 4);
	CU_ASSERT_EQUAL(b->hct.stats.crc_rx - crc0, 1);
	CU_ASSERT_EQUAL(b->data_calls, 0);
	CU_ASSERT_EQUAL(fb->stats.data_rx, 0);
	CU_ASSERT_EQUAL(fb->stats.dup_rx, 0);
	CU_ASSERT_EQUAL(fb->rcv_nxt, psn);
	CU_ASSERT_EQUAL(fb->state, HCT_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(b->lost_calls, 0);
	CU_ASSERT_EQUAL(b->net.stats.rx_drops[HC_NET_DROP_CKSUM], 0);
	CU_ASSERT_EQUAL(b->net.stats.rx_drops[HC_NET_DROP_MALFORMED], 0);

	/* The control: the same DATA packet, untouched, from rank 0. */
	forge_data(&p, psn, sizeof(payload));
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);
	pump();
	run_for(20 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(b->hct.stats.stray_rx - stray0, 4);
	CU_ASSERT_EQUAL(b->data_calls, 1);
	CU_ASSERT_EQUAL(b->bad_desc, 0);
	CU_ASSERT_EQUAL(fb->stats.data_rx, 1);
	CU_ASSERT_EQUAL(fb->rcv_nxt, psn + 1);
	CU_ASSERT_EQUAL(memcmp(b->dst, payload, sizeof(payload)), 0);
out:
	env_destroy();
}

/* ---- CRC coverage on shared-memory links (hct_hdr.h) ---------------- */

/* Ports marked shared memory on both ranks, shm_crc header: the HELLO
 * exchange says cov_accept both ways and every DATA packet, first
 * transmissions and (with PSN 5 lost once) the retransmission too,
 * carries HCT_COV_HDR; the receiver accepts each; the bytes are exact. */
static void
test_shm_hdr_cov(void)
{
	struct one r;
	uint64_t retx;

	shm_conf.shm[0] = shm_conf.shm[1] = 1;
	shm_conf.shm_crc = HCT_SHM_CRC_HEADER;
	if (one_lose(&r, 31, NULL, 5, 1) != 0)
		goto out;
	CU_ASSERT_EQUAL(r.fa->cov_tx_ok, 1);
	CU_ASSERT_EQUAL(r.fa->cov_rx_ok, 1);
	CU_ASSERT_EQUAL(r.fa->peer_cov_accept, 1);
	CU_ASSERT_EQUAL(r.fb->peer_cov_accept, 1);
	retx = retx_total(r.fa);
	CU_ASSERT(retx >= 1);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_hdr_cov, r.npkts);
	CU_ASSERT_EQUAL(r.fb->stats.data_rx_hdr_cov, r.npkts);
	CU_ASSERT_EQUAL(g.wire.cov_data[0][HCT_COV_HDR], r.npkts + retx);
	CU_ASSERT_EQUAL(g.wire.cov_data[0][HCT_COV_FULL], 0);
	CU_ASSERT_EQUAL(g.wire.cov_retx[0][HCT_COV_HDR], retx);
	CU_ASSERT_EQUAL(r.b->hct.stats.crc_rx, 0);
out:
	env_destroy();
}

/* Coverage is negotiated, never assumed: full coverage on every DATA
 * packet when (case) 0: the key says payload; 1: only rank 0's port is
 * shared memory (rank 1 does not accept); 2: rank 0's TX injector
 * corrupts (rank 0 does not send header-only although rank 1 accepts);
 * 3: rank 1's RX injector corrupts; 4: ... truncates (rank 1 does not
 * accept). With the injectors changing 10 % of frames, the CRC32C over
 * the payload catches them (crc_rx) and the bytes are exact. */
static void
shm_full_case(int which)
{
	struct one r;

	shm_conf.shm[0] = shm_conf.shm[1] = 1;
	shm_conf.shm_crc = HCT_SHM_CRC_HEADER;
	switch (which) {
	case 0:
		shm_conf.shm_crc = HCT_SHM_CRC_PAYLOAD;
		break;
	case 1:
		shm_conf.shm[1] = 0;
		break;
	case 2:
		shm_conf.corrupt_tx[0] = 0.1;
		break;
	case 3:
		shm_conf.corrupt_rx[1] = 0.1;
		break;
	default:
		shm_conf.truncate_rx[1] = 0.1;
		break;
	}
	if (one_begin(&r, LOSE_LEN, 40 + which, NULL) != 0)
		goto out;
	one_send(&r, 200 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.fa->cov_tx_ok && r.fa->peer_cov_accept, 0);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_hdr_cov, 0);
	CU_ASSERT_EQUAL(r.fb->stats.data_rx_hdr_cov, 0);
	CU_ASSERT_EQUAL(g.wire.cov_data[0][HCT_COV_HDR], 0);
	CU_ASSERT(g.wire.cov_data[0][HCT_COV_FULL] >= r.npkts);
	CU_ASSERT_EQUAL(r.b->hct.stats.cov_refused_rx, 0);
	if (which >= 2) { /* the injector changed DATA, and it was caught */
		const struct hc_fault_stats *fs = which == 2 ?
			&r.a->tw.port.fault.stats : &r.b->tw.port.fault.stats;
		enum hc_fault_dir d = which == 2 ? HC_FAULT_TX : HC_FAULT_RX;
		enum hc_fault_kind k = which == 4 ? HC_FAULT_TRUNCATE
						  : HC_FAULT_CORRUPT;

		uint64_t changed = 0;
		unsigned int c;

		/* the harness's ports have no classifier: every frame
		 * counts as OTHER; sum the classes */
		for (c = 0; c < CLS_N; c++)
			changed += fs->count[d][c][k];
		CU_ASSERT(changed > 0);
		CU_ASSERT(r.b->hct.stats.crc_rx +
			  r.b->net.stats.rx_drops[HC_NET_DROP_CKSUM] +
			  r.b->net.stats.rx_drops[HC_NET_DROP_MALFORMED] +
			  r.b->net.stats.rx_drops[HC_NET_DROP_NOT_OURS] > 0);
	}
	/* what each side says in its HELLOs */
	CU_ASSERT_EQUAL(r.fb->cov_rx_ok, which == 2);
	CU_ASSERT_EQUAL(r.fa->peer_cov_accept, r.fb->cov_rx_ok);
out:
	env_destroy();
}

static void test_shm_full_key(void) { shm_full_case(0); }
static void test_shm_full_one_side(void) { shm_full_case(1); }
static void test_shm_full_tx_corrupt(void) { shm_full_case(2); }
static void test_shm_full_rx_corrupt(void) { shm_full_case(3); }
static void test_shm_full_rx_truncate(void) { shm_full_case(4); }

/* A header-only DATA packet (sealed over its header, right in every
 * other way) to a receiver that did not say cov_accept (its port is not
 * shared memory): counted as corrupt (crc_rx, cov_refused_rx), dropped,
 * nothing delivered. The same packet to a receiver that accepts: placed.
 * A header-only packet whose payload was changed on the way is placed as
 * it arrived there (the payload is not covered, by design), while one
 * whose header changed is dropped. */
static void
test_shm_refused(void)
{
	uint8_t payload[64], img[MTU];
	struct ep *a, *b;
	struct hct_flow *fb;
	struct hct_pkt p;
	uint32_t n, psn;
	int accept;

	for (accept = 0; accept < 2; accept++) {
		shm_conf.shm[0] = shm_conf.shm[1] = accept;
		shm_conf.shm_crc = HCT_SHM_CRC_HEADER;
		if (env_create(0) != 0 || !establish())
			goto out;
		a = &g.ep[0];
		b = &g.ep[1];
		fb = &b->hct.flows[0];
		CU_ASSERT_EQUAL(fb->cov_rx_ok, accept);
		psn = fb->rcv_nxt;
		fill_pattern(payload, sizeof(payload), 12);
		forge_data(&p, psn, sizeof(payload));
		p.cov = HCT_COV_HDR;
		n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
		CU_ASSERT_TRUE(hct_crc_ok(img, n, 1));
		if (accept) {
			/* a changed header fails even so */
			img[HCT_OFF(offset) + 7] ^= 0x08;
			CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);
			CU_ASSERT_TRUE(run_until(wire_idle,
						 10 * HC_NS_PER_MS));
			CU_ASSERT_EQUAL(b->hct.stats.crc_rx, 1);
			CU_ASSERT_EQUAL(b->hct.stats.cov_refused_rx, 0);
			img[HCT_OFF(offset) + 7] ^= 0x08;
			img[HCT_HDR_LEN + 3] ^= 0x40; /* payload: not covered */
		}
		CU_ASSERT_EQUAL(net_send_image(a, IP1, img, n), 0);
		CU_ASSERT_TRUE(run_until(wire_idle, 10 * HC_NS_PER_MS));
		if (!accept) {
			CU_ASSERT_EQUAL(b->hct.stats.crc_rx, 1);
			CU_ASSERT_EQUAL(b->hct.stats.cov_refused_rx, 1);
			CU_ASSERT_EQUAL(b->data_calls, 0);
			CU_ASSERT_EQUAL(fb->stats.data_rx, 0);
			CU_ASSERT_EQUAL(fb->rcv_nxt, psn);
		} else {
			payload[3] ^= 0x40;
			CU_ASSERT_EQUAL(b->hct.stats.crc_rx, 1);
			CU_ASSERT_EQUAL(b->data_calls, 1);
			CU_ASSERT_EQUAL(fb->stats.data_rx, 1);
			CU_ASSERT_EQUAL(fb->stats.data_rx_hdr_cov, 1);
			CU_ASSERT_EQUAL(fb->rcv_nxt, psn + 1);
			CU_ASSERT_EQUAL(memcmp(b->dst, payload,
					       sizeof(payload)), 0);
		}
		CU_ASSERT_EQUAL(fb->state, HCT_FLOW_ESTABLISHED);
		env_destroy();
	}
	return;
out:
	env_destroy();
}

/* 8. Rank 1 restarts with a new nonce: rank 0 declares the old peer lost
 * and the new incarnation's DATA never enters the old flow. */
static void
test_restart(void)
{
	const uint64_t len = 20000;
	struct hct_msg msg;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa;
	uint64_t stray0, data0;
	uint32_t rcv0;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	rcv0 = fa->rcv_nxt;
	stray0 = a->hct.stats.stray_rx;
	ep_stack_free(b);
	tw_fifo_clear(&b->tw.rxq);
	if (ep_stack_init(b, NONCE1_NEW, 0) != 0) {
		CU_FAIL("restart of rank 1 failed");
		goto out;
	}
	b->lost_calls = 0;
	b->lost[0] = b->lost[1] = 0;
	/* Its ARP request and then its HELLO reach rank 0. */
	CU_ASSERT_TRUE(run_until(a_lost_peer, 20 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(a->lost[1], 1);
	CU_ASSERT_EQUAL(a->lost_calls, 1);
	CU_ASSERT_EQUAL(fa->state, HCT_FLOW_LOST);
	CU_ASSERT_EQUAL(fa->peer_nonce, NONCE1);
	CU_ASSERT(g.wire.sent[1][CLS_CTRL] >= 1);

	/* Let the new rank 1 know rank 0's nonce, as if it had learnt it:
	 * its DATA then differs from the old flow's only in src_nonce. */
	b->hct.flows[0].peer_nonce = NONCE0;
	data0 = g.wire.sent[1][CLS_DATA];
	fill_pattern(src_buf, len, 11);
	msg_init(&msg, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&b->hct, 0, &msg), 0);
	run_for(5 * HC_NS_PER_MS);
	CU_ASSERT(g.wire.sent[1][CLS_DATA] - data0 >= npkts_of(len));
	CU_ASSERT_EQUAL(a->data_calls, 0);
	CU_ASSERT_EQUAL(fa->stats.data_rx, 0);
	CU_ASSERT_EQUAL(fa->rcv_nxt, rcv0);
	CU_ASSERT(a->hct.stats.stray_rx - stray0 >=
		  g.wire.sent[1][CLS_DATA] - data0);
	CU_ASSERT_EQUAL(a->lost_calls, 1);
	CU_ASSERT_EQUAL(fa->state, HCT_FLOW_LOST);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), -HC_ERR_PEER_LOST);
out:
	env_destroy();
}

/* 9. The net layer through the same harness: ARP, ICMP echo, fragments. */
static void
test_net_layer(void)
{
	uint8_t icmp_buf[sizeof(struct rte_icmp_hdr) + 57];
	uint8_t img[MTU], payload[64];
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)icmp_buf;
	struct ep *b = &g.ep[1];
	struct hct_pkt p;
	struct rte_mbuf *m;
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_ipv4_hdr *ip;
	const struct hc_arp_entry *ent;
	uint64_t replies0, echo0, frag0, cksum0, stray0;
	uint32_t ilen, n;
	uint16_t ck;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	g.wire.capture[1] = 1;

	/* ARP request for rank 1's IP from a stranger. */
	replies0 = b->net.stats.arp_replies;
	m = rte_pktmbuf_alloc(b->tw.port.pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eth) + sizeof(*arp));
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eth->src_addr = other_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp = (struct rte_arp_hdr *)(eth + 1);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = other_mac;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(IP_OTHER);
	memset(&arp->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	arp->arp_data.arp_tip = rte_cpu_to_be_32(IP1);
	inject(b, m);
	pump();
	CU_ASSERT_EQUAL(b->net.stats.arp_replies - replies0, 1);
	CU_ASSERT_EQUAL_FATAL(g.wire.ncap[1], 1);
	m = g.wire.cap[1][0];
	CU_ASSERT_EQUAL(m->pkt_len, sizeof(*eth) + sizeof(*arp));
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&eth->dst_addr, &other_mac));
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&eth->src_addr, &rank_mac[1]));
	CU_ASSERT_EQUAL(eth->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP));
	CU_ASSERT_EQUAL(arp->arp_opcode, rte_cpu_to_be_16(RTE_ARP_OP_REPLY));
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&arp->arp_data.arp_sha,
					      &rank_mac[1]));
	CU_ASSERT_EQUAL(arp->arp_data.arp_sip, rte_cpu_to_be_32(IP1));
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&arp->arp_data.arp_tha,
					      &other_mac));
	CU_ASSERT_EQUAL(arp->arp_data.arp_tip, rte_cpu_to_be_32(IP_OTHER));
	cap_clear(1);
	/* The request for our address taught us the sender. */
	ent = hc_arp_find(&b->net.arp, IP_OTHER);
	CU_ASSERT_PTR_NOT_NULL(ent);
	if (ent != NULL) {
		CU_ASSERT_EQUAL(ent->state, HC_ARP_REACHABLE);
		CU_ASSERT_TRUE(rte_is_same_ether_addr(&ent->mac, &other_mac));
	}

	/* ICMP echo request with an odd payload length. */
	echo0 = b->net.stats.icmp_echo_replies;
	memset(icmp_buf, 0, sizeof(icmp_buf));
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	icmp->icmp_code = 0;
	icmp->icmp_ident = rte_cpu_to_be_16(0x1234);
	icmp->icmp_seq_nb = rte_cpu_to_be_16(7);
	fill_pattern(icmp_buf + sizeof(*icmp), 57, 12);
	ck = rte_raw_cksum(icmp_buf, sizeof(icmp_buf));
	icmp->icmp_cksum = (ck == 0xffff) ? ck : (uint16_t)~ck;
	CU_ASSERT_EQUAL(rte_raw_cksum(icmp_buf, sizeof(icmp_buf)), 0xffff);
	m = frame_ip(b->tw.port.pool, &other_mac, &rank_mac[1], IP_OTHER, IP1,
		     IPPROTO_ICMP, icmp_buf, sizeof(icmp_buf), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	inject(b, m);
	pump();
	CU_ASSERT_EQUAL(b->net.stats.icmp_echo_replies - echo0, 1);
	CU_ASSERT_EQUAL_FATAL(g.wire.ncap[1], 1);
	m = g.wire.cap[1][0];
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	CU_ASSERT_EQUAL(m->pkt_len, sizeof(*eth) + sizeof(*ip) +
			sizeof(icmp_buf));
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&eth->dst_addr, &other_mac));
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&eth->src_addr, &rank_mac[1]));
	CU_ASSERT_EQUAL(ip->version_ihl, RTE_IPV4_VHL_DEF);
	CU_ASSERT_EQUAL(ip->next_proto_id, IPPROTO_ICMP);
	CU_ASSERT_EQUAL(ip->src_addr, rte_cpu_to_be_32(IP1));
	CU_ASSERT_EQUAL(ip->dst_addr, rte_cpu_to_be_32(IP_OTHER));
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(ip->total_length),
			sizeof(*ip) + sizeof(icmp_buf));
	CU_ASSERT_EQUAL(rte_raw_cksum(ip, sizeof(*ip)), 0xffff);
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	ilen = sizeof(icmp_buf);
	CU_ASSERT_EQUAL(icmp->icmp_type, RTE_IP_ICMP_ECHO_REPLY);
	CU_ASSERT_EQUAL(icmp->icmp_code, 0);
	CU_ASSERT_EQUAL(icmp->icmp_ident, rte_cpu_to_be_16(0x1234));
	CU_ASSERT_EQUAL(icmp->icmp_seq_nb, rte_cpu_to_be_16(7));
	CU_ASSERT_EQUAL(rte_raw_cksum(icmp, ilen), 0xffff);
	CU_ASSERT_EQUAL(memcmp(icmp + 1, icmp_buf + sizeof(*icmp), 57), 0);
	cap_clear(1);

	/* The same request with a wrong checksum: dropped, no reply. */
	cksum0 = b->net.stats.rx_drops[HC_NET_DROP_CKSUM];
	icmp = (struct rte_icmp_hdr *)icmp_buf;
	icmp->icmp_cksum ^= 0x0100;
	m = frame_ip(b->tw.port.pool, &other_mac, &rank_mac[1], IP_OTHER, IP1,
		     IPPROTO_ICMP, icmp_buf, sizeof(icmp_buf), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	inject(b, m);
	pump();
	CU_ASSERT_EQUAL(b->net.stats.rx_drops[HC_NET_DROP_CKSUM] - cksum0, 1);
	CU_ASSERT_EQUAL(b->net.stats.icmp_echo_replies - echo0, 1);
	CU_ASSERT_EQUAL(g.wire.ncap[1], 0);

	/* Fragments of an otherwise acceptable HCT DATA datagram from
	 * rank 0: MF set, then a non-zero offset. */
	frag0 = b->net.stats.rx_drops[HC_NET_DROP_FRAGMENT];
	stray0 = b->hct.stats.stray_rx;
	fill_pattern(payload, sizeof(payload), 13);
	forge_data(&p, b->hct.flows[0].rcv_nxt, sizeof(payload));
	n = hct_image(img, &p, HCT_HDR_LEN, payload, sizeof(payload));
	m = frame_udp(b->tw.port.pool, &rank_mac[0], &rank_mac[1], IP0, IP1, img,
		      (uint16_t)n, RTE_IPV4_HDR_MF_FLAG);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	inject(b, m);
	m = frame_udp(b->tw.port.pool, &rank_mac[0], &rank_mac[1], IP0, IP1, img,
		      (uint16_t)n, 185);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	inject(b, m);
	pump();
	CU_ASSERT_EQUAL(b->net.stats.rx_drops[HC_NET_DROP_FRAGMENT] - frag0, 2);
	CU_ASSERT_EQUAL(b->hct.stats.stray_rx, stray0);
	CU_ASSERT_EQUAL(b->data_calls, 0);
	CU_ASSERT_EQUAL(g.wire.ncap[1], 0);

	/* The control: the same datagram unfragmented is delivered. */
	m = frame_udp(b->tw.port.pool, &rank_mac[0], &rank_mac[1], IP0, IP1, img,
		      (uint16_t)n, RTE_IPV4_HDR_DF_FLAG);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	inject(b, m);
	pump();
	CU_ASSERT_EQUAL(b->data_calls, 1);
	CU_ASSERT_EQUAL(b->net.stats.rx_drops[HC_NET_DROP_FRAGMENT] - frag0, 2);
	cap_clear(1);
out:
	env_destroy();
}

/* 10. A stale ACK (an old cumulative ACK with SACK bits, delayed in the
 * network) arrives after the window moved on. Its SACK bits name PSNs
 * below snd_una; the sender must not take them for the in-flight PSNs that
 * share their window slots (psn + window). Driven frame by frame with
 * captures, so every step is deterministic. */
static void
test_stale_ack(void)
{
	const uint32_t win = 64, lost_new = 70;
	const uint64_t len = 200ull * MSS_EXPECTED;
	struct hct_msg msg;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa, *fb;
	struct rte_mbuf *stale = NULL;
	struct hct_pkt p;
	uint32_t psn, bad, i, nsack;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	fb = &b->hct.flows[0];
	fill_pattern(src_buf, len, 14);
	msg_init(&msg, src_buf, len);
	g.wire.capture[0] = 1;
	g.wire.capture[1] = 1;
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), 0);
	pump();
	/* The first window, PSN 0..63, is captured; PSN 0 is lost. */
	CU_ASSERT_EQUAL_FATAL(g.wire.ncap[0], win);
	CU_ASSERT_EQUAL(cap_release(0, 1, 0), win - 1);
	pump();
	CU_ASSERT_EQUAL(fb->rcv_nxt, 0);
	CU_ASSERT_EQUAL(fb->stats.data_rx, win - 1);
	/* Rank 1's last ACK says: ack 0, SACK 1..63. Keep a copy of it. */
	CU_ASSERT_FATAL(g.wire.ncap[1] >= 1);
	stale = rte_pktmbuf_copy(g.wire.cap[1][g.wire.ncap[1] - 1],
				 b->tw.port.pool, 0, UINT32_MAX);
	CU_ASSERT_PTR_NOT_NULL_FATAL(stale);
	CU_ASSERT_EQUAL_FATAL(tw_frame_hct_decode(stale, &p), 0);
	CU_ASSERT_EQUAL(p.type, HCT_TYPE_ACK);
	CU_ASSERT_EQUAL(p.ack_psn, 0);
	for (psn = 1, nsack = 0; psn < win; psn++)
		nsack += hct_sack_has(p.sack, 0, psn);
	CU_ASSERT_EQUAL(nsack, win - 1);
	cap_release(1, 0, 0);
	pump();
	CU_ASSERT_EQUAL(fa->snd_una, 0);
	/* PSN 0 goes again (SACK recovery or RTO): deliver it, and the
	 * cumulative ACK of the whole window back. */
	for (i = 0; i < 400 && g.wire.ncap[0] == 0; i++) {
		advance(g.now + STEP_NS);
		pump();
	}
	CU_ASSERT_EQUAL_FATAL(g.wire.ncap[0], 1);
	cap_release(0, 0, 0);
	pump();
	CU_ASSERT_EQUAL(fb->rcv_nxt, win);
	cap_release(1, 0, 0);
	pump();
	CU_ASSERT_EQUAL(fa->snd_una, win);
	/* The second window, PSN 64..127, is in flight (captured). */
	CU_ASSERT_EQUAL(fa->snd_nxt, 2 * win);
	CU_ASSERT_EQUAL(g.wire.ncap[0], win);
	/* Now the stale ACK arrives. */
	deliver_at(0, stale, g.now, 1);
	stale = NULL;
	pump();
	for (psn = fa->snd_una, bad = 0; psn != fa->snd_nxt; psn++) {
		const struct hct_slot *s = &fa->slots[psn & a->hct.mask];

		if (s->m == NULL || s->sacked)
			bad++;
	}
	if (bad != 0)
		printf("\n    a stale ACK (ack 0, SACK 1..63) released %u "
		       "in-flight packets of PSN 64..127", bad);
	CU_ASSERT_EQUAL(bad, 0);
	/* PSN 70 of the second window is lost: it must still be repaired. */
	g.wire.capture[0] = 0;
	g.wire.capture[1] = 0;
	cap_release(0, 1, lost_new);
	CU_ASSERT_TRUE(run_until(drained_idle, 200 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(a->lost_calls, 0);
	CU_ASSERT_EQUAL(fa->state, HCT_FLOW_ESTABLISHED);
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len), 0);
	CU_ASSERT_EQUAL(fb->rcv_nxt, 200);
out:
	rte_pktmbuf_free(stale);
	env_destroy();
}

/* 11. The upper layer refuses packets (HCT_RX_REJECT, "no room now"):
 * they are not acknowledged, come again, and are delivered once. */
static void
test_reject(void)
{
	const uint64_t len = 100000;
	struct hct_msg msg;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa, *fb;
	uint32_t npkts;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	fb = &b->hct.flows[0];
	npkts = npkts_of(len);
	b->reject_every = 5;
	fill_pattern(src_buf, len, 15);
	msg_init(&msg, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &msg), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(b->rejects, (npkts + 4) / 5);
	CU_ASSERT_EQUAL(b->hct.stats.rejected_rx, b->rejects);
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len), 0);
	CU_ASSERT_EQUAL(b->data_calls, npkts);
	CU_ASSERT_EQUAL(fb->stats.data_rx, npkts);
	CU_ASSERT_EQUAL(fb->rcv_nxt, npkts);
	CU_ASSERT_EQUAL(fa->snd_una, npkts);
	CU_ASSERT(retx_total(fa) >= b->rejects);
	CU_ASSERT_EQUAL(a->lost_calls, 0);
out:
	env_destroy();
}

/* 12. Receiver credit: rank 1 grants 4 packets (100 % of a BDP of 4
 * MSS, one active sender) in the DATA it sends first; rank 0 then keeps
 * exactly 4 packets of its 100 000 bytes in flight at most, and all
 * arrive. */
static void
test_credit_loop(void)
{
	static uint8_t src1[4096];
	const uint64_t len = 100000;
	struct hct_msg m0, m1;
	struct ep *a = &g.ep[0], *b = &g.ep[1];
	struct hct_flow *fa;

	if (env_create(0) != 0)
		goto out;
	if (!establish())
		goto out;
	fa = &a->hct.flows[1];
	b->hct.conf.rx_credit_bdp_pct = 100;
	b->hct.conf.bdp_bytes = 4 * MSS_EXPECTED;
	fill_pattern(src1, sizeof(src1), 16);
	msg_init(&m1, src1, sizeof(src1));
	CU_ASSERT_EQUAL(hct_send(&b->hct, 0, &m1), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(fa->peer_credit, 4);
	CU_ASSERT_EQUAL(hct_flow_window(&a->hct, fa), 4);
	fill_pattern(src_buf, len, 17);
	msg_init(&m0, src_buf, len);
	CU_ASSERT_EQUAL(hct_send(&a->hct, 1, &m0), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT_EQUAL(check_exact(b, src_buf, len), 0);
	CU_ASSERT_EQUAL(check_exact(a, src1, sizeof(src1)), 0);
	CU_ASSERT_EQUAL(g.wire.max_inflight_credit, 4);
	CU_ASSERT(fa->stats.credit_limited > 0);
	CU_ASSERT_EQUAL(b->hct.flows[0].credit_granted, 4);
	CU_ASSERT_EQUAL(fa->stats.retransmits_rto + fa->stats.retransmits_sack,
			0);
out:
	env_destroy();
}

/* ---- zero-copy TX (struct hct_msg zc) ------------------------------------ */

/* The free callback of the tests' shared info: its calls, and the
 * clock at the last one. */
static struct {
	struct rte_mbuf_ext_shared_info sh;
	uint32_t calls;
	uint64_t at;
} zcs;

static void
zc_cb(void *addr, void *opaque)
{
	(void)addr;
	CU_ASSERT_PTR_EQUAL(opaque, &zcs);
	zcs.calls++;
	zcs.at = g.now;
}

static void
zc_arm(struct hct_msg *msg)
{
	memset(&zcs, 0, sizeof(zcs));
	zcs.sh.free_cb = zc_cb;
	zcs.sh.fcb_opaque = &zcs;
	rte_mbuf_ext_refcnt_set(&zcs.sh, 0);
	msg->zc = &zcs.sh;
	g.wire.ext_lo = src_buf;
	g.wire.ext_hi = src_buf + sizeof(src_buf);
}

/* Packets of a message of len bytes whose payload is HCT_ZC_MIN_BYTES or
 * more (those zero copy may send). */
static uint32_t
zc_pkts_of(uint64_t len)
{
	uint32_t mss = g.ep[0].hct.mss;

	return (uint32_t)(len / mss) + (len % mss >= HCT_ZC_MIN_BYTES);
}

/* Both ports shared memory, header-only CRC, zero_copy_tx auto (each
 * test then changes what it is about). */
static void
zc_conf(void)
{
	shm_conf.shm[0] = shm_conf.shm[1] = 1;
	shm_conf.shm_crc = HCT_SHM_CRC_HEADER;
	shm_conf.zero_copy_tx = HCT_ZC_TX_AUTO;
}

/* 18: a flagged message over a shm link goes zero copy: every DATA frame
 * of a full-size payload is a header mbuf chained to an mbuf attached to
 * src_buf itself (the wire sees it), the bytes arrive exact; PSN 5 lost
 * once is retransmitted from the same memory (a clone of the attached
 * segment) with the original bytes; the release callback has not run
 * while packets were unacknowledged, runs exactly once when the last one
 * was, with the count at 0; every mbuf is back in its pool
 * (env_destroy). */
static void
test_zc_send(void)
{
	struct one r;
	uint32_t zp;

	zc_conf();
	if (one_begin(&r, LOSE_LEN, 61, NULL) != 0)
		goto out;
	zc_arm(&r.msg);
	CU_ASSERT_EQUAL(hct_zc_ok(&r.a->hct, 1), 1);
	zp = zc_pkts_of(LOSE_LEN);
	CU_ASSERT(zp >= r.npkts - 1 && zp > 0);
	g.wire.drop_psn_on = 1;
	g.wire.drop_psn = 5;
	/* the sender alone: packets out, no ACK yet, nothing released */
	r.t_sent = g.now;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	ep_poll(r.a);
	CU_ASSERT(r.fa->snd_nxt != r.fa->snd_una);
	CU_ASSERT_EQUAL(zcs.calls, 0);
	CU_ASSERT(rte_mbuf_ext_refcnt_read(&zcs.sh) > 0);
	r.done = run_until(drained_idle, 100 * HC_NS_PER_MS);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(check_exact(r.b, src_buf, r.len), 0);
	CU_ASSERT_EQUAL(r.fb->stats.data_rx, r.npkts);
	CU_ASSERT_EQUAL(r.a->msg_sent, 1);
	CU_ASSERT_EQUAL(g.wire.dropped[0][CLS_DATA], 1);
	CU_ASSERT(retx_total(r.fa) >= 1);
	CU_ASSERT(r.fa->stats.retx_by_clone >= 1);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_zc, zp);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_hdr_cov, r.npkts);
	CU_ASSERT_EQUAL(g.wire.ext_data[0], zp + g.wire.ext_retx[0]);
	CU_ASSERT(g.wire.ext_retx[0] >= 1);
	CU_ASSERT_EQUAL(g.wire.ext_outside, 0);
	CU_ASSERT_EQUAL(g.wire.ext_data[1], 0);
	/* released once, after the last ACK, count 0 */
	CU_ASSERT_EQUAL(zcs.calls, 1);
	CU_ASSERT(zcs.at > r.t_sent);
	CU_ASSERT_EQUAL(rte_mbuf_ext_refcnt_read(&zcs.sh), 0);
	CU_ASSERT_EQUAL(r.b->hct.stats.crc_rx, 0);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(r.a->tw.port.pool),
			hct_unused_mbufs(&r.a->hct));
out:
	env_destroy();
}

/* 18b: copied, not zero copy, in every case one condition fails: (0) the
 * message is not flagged; (1) zero_copy_tx off; (2) rank 0's port is not
 * shared memory (full CRC); (3) rank 0's TX injector may corrupt; (4)
 * the peer does not accept header-only (its port not shm); (5) rank 0's
 * port is shared memory whose TX does not read any memory of the program
 * (port.h tx_any_memory false, as net_virtio_user's): header-only CRC,
 * but copied. The bytes are
 * exact, no frame carries external memory, and a flagged message's
 * callback still runs once, when it is cut (its queued reference). */
static void
zc_copy_case(int which)
{
	struct one r;

	zc_conf();
	if (which == 1)
		shm_conf.zero_copy_tx = HCT_ZC_TX_OFF;
	if (which == 2)
		shm_conf.shm[0] = 0;
	if (which == 3)
		shm_conf.corrupt_tx[0] = 1e-9;
	if (which == 4)
		shm_conf.shm[1] = 0;
	if (which == 5)
		shm_conf.no_any_memory[0] = 1;
	if (one_begin(&r, LOSE_LEN, 70 + which, NULL) != 0)
		goto out;
	if (which != 0)
		zc_arm(&r.msg);
	CU_ASSERT_EQUAL(hct_zc_ok(&r.a->hct, 1), which == 0);
	one_send(&r, 100 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_zc, 0);
	CU_ASSERT_EQUAL(g.wire.ext_data[0], 0);
	CU_ASSERT_EQUAL(r.fa->stats.data_tx_hdr_cov,
			which <= 1 || which == 5 ? r.npkts : 0);
	if (which != 0) {
		CU_ASSERT_EQUAL(zcs.calls, 1);
		CU_ASSERT_EQUAL(rte_mbuf_ext_refcnt_read(&zcs.sh), 0);
	}
out:
	env_destroy();
}

static void test_zc_unflagged(void) { zc_copy_case(0); }
static void test_zc_off(void) { zc_copy_case(1); }
static void test_zc_not_shm(void) { zc_copy_case(2); }
static void test_zc_tx_fault(void) { zc_copy_case(3); }
static void test_zc_peer_full(void) { zc_copy_case(4); }
static void test_zc_not_any_memory(void) { zc_copy_case(5); }

/* 19: the delayed ACK of an idle sender's message end (HCT_F2_TX_IDLE,
 * ack_delay_ns; rx.c ack_hold_ns). A first message measures the RTT;
 * then a one-packet message from rank 0 with nothing queued behind it:
 * (which 0) rank 1 sends no ACK for a quarter of its fabric RTT, and a
 * message of its own sent within that carries the ACK (rank 0's snd_una
 * moves with no ACK frame); (1) rank 1 has nothing to send: the ACK
 * leaves when the hold is over, before rank 0's tail-loss probe (no
 * probe); (2) ack_delay 0: no hold, the ACK leaves in the same poll; (3)
 * a second message queued behind the first at rank 0: its first
 * message's end does not say idle, acknowledged at once. */
static uint8_t reply_buf[64];

static void
delack_case(int which)
{
	struct one r;
	struct hct_msg m2, m3;
	uint64_t acks0, hold, t0;

	ack_delay_conf = which == 2 ? 0 : 20 * HC_NS_PER_US;
	if (one_begin(&r, 1000, 90 + which, NULL) != 0)
		goto out;
	one_send(&r, 100 * HC_NS_PER_MS); /* rank 0's RTT to rank 1 */
	/* rank 1 learns its fabric RTT from DATA of its own */
	memset(reply_buf, 0x5a, sizeof(reply_buf));
	msg_init(&m2, reply_buf, sizeof(reply_buf));
	r.a->expect = 0;
	CU_ASSERT_EQUAL(hct_send(&r.b->hct, 0, &m2), 0);
	CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	CU_ASSERT(r.fb->cc.fabric_srtt_ns >= 2 * LINK_NS);
	hold = which == 2 ? 0 : RTE_MIN(ack_delay_conf,
					 r.fb->cc.fabric_srtt_ns / 4);
	CU_ASSERT(which == 2 || hold > 0);
	/* the message under test: one packet */
	msg_init(&r.msg, src_buf, 500);
	if (which == 3) {
		msg_init(&m3, src_buf + 500, 400);
		m3.desc.offset = 500;
	}
	acks0 = r.fb->stats.acks_tx;
	t0 = g.now;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	if (which == 3)
		CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &m3), 0);
	run_for(LINK_NS + 1); /* the first packet arrives, rank 1 polls */
	if (which >= 2) {
		CU_ASSERT(r.fb->stats.acks_tx > acks0);
		CU_ASSERT_EQUAL(r.fb->ack_due_ns, 0);
	} else {
		CU_ASSERT_EQUAL(r.fb->stats.acks_tx, acks0);
		CU_ASSERT(r.fb->ack_due_ns > g.now);
		CU_ASSERT(r.fb->ack_due_ns <= t0 + LINK_NS + 1 + hold);
	}
	if (which == 0) {
		/* a reply within the hold carries the ACK */
		CU_ASSERT_EQUAL(hct_send(&r.b->hct, 0, &m2), 0);
		ep_poll(r.b);
		CU_ASSERT_EQUAL(r.fb->ack_due_ns, 0);
		CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
		CU_ASSERT_EQUAL(r.fb->stats.acks_tx, acks0);
	} else {
		CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	}
	if (which == 1)
		CU_ASSERT_EQUAL(r.fb->stats.acks_tx, acks0 + 1);
	CU_ASSERT_EQUAL(r.fa->snd_una, r.fa->snd_nxt);
	CU_ASSERT_EQUAL(r.fa->stats.tlps + r.fa->stats.rtos, 0);
	CU_ASSERT_EQUAL(retx_total(r.fa), 0);
out:
	env_destroy();
}

static void test_delack_reply(void) { delack_case(0); }
static void test_delack_timeout(void) { delack_case(1); }
static void test_delack_off(void) { delack_case(2); }
static void test_delack_busy(void) { delack_case(3); }

/* 18c: the references of a message dropped before it was cut: (0)
 * cancelled (hct_cancel_owner) while packets are in flight: released
 * once those are acknowledged; (1) the peer lost (every frame lost):
 * released once the flow gave its packets back; (2) cancelled by its
 * address (hct_cancel_msgs, as hc_comm_fini does for its ABORTs). */
static void
zc_drop_case(int which)
{
	struct one r;

	zc_conf();
	if (one_begin(&r, 300000, 80 + which, NULL) != 0)
		goto out;
	zc_arm(&r.msg);
	r.msg.owner = &r;
	if (which == 1)
		g.wire.drop_all = 1;
	CU_ASSERT_EQUAL(hct_send(&r.a->hct, 1, &r.msg), 0);
	ep_poll(r.a);
	CU_ASSERT(r.msg.done > 0 && r.msg.done < r.msg.len);
	CU_ASSERT(r.fa->stats.data_tx_zc > 0);
	if (which == 0 || which == 2) {
		if (which == 0) {
			hct_cancel_owner(&r.a->hct, &r);
		} else {
			/* a range that does not hold it: still queued */
			hct_cancel_msgs(&r.a->hct, &r.msg + 1, 1);
			CU_ASSERT_PTR_EQUAL(TAILQ_FIRST(&r.fa->msgs[r.msg.cls]),
					    &r.msg);
			hct_cancel_msgs(&r.a->hct, &r.msg, 1);
			CU_ASSERT_PTR_NULL(TAILQ_FIRST(&r.fa->msgs[r.msg.cls]));
		}
		CU_ASSERT_EQUAL(zcs.calls, 0);
		CU_ASSERT_TRUE(run_until(drained_idle, 100 * HC_NS_PER_MS));
	} else {
		CU_ASSERT_TRUE(run_until(a_lost_peer, 10 * HC_NS_PER_S));
		CU_ASSERT_EQUAL(r.fa->state, HCT_FLOW_LOST);
		CU_ASSERT_EQUAL(hct_zc_ok(&r.a->hct, 1), 0);
	}
	CU_ASSERT_EQUAL(r.a->msg_sent, 0);
	CU_ASSERT_EQUAL(zcs.calls, 1);
	CU_ASSERT_EQUAL(rte_mbuf_ext_refcnt_read(&zcs.sh), 0);
	if (which == 1)
		g.wire.drop_all = 0;
out:
	env_destroy();
}

static void test_zc_cancel(void) { zc_drop_case(0); }
static void test_zc_peer_lost(void) { zc_drop_case(1); }
static void test_zc_cancel_msgs(void) { zc_drop_case(2); }

/* ---- the TSC clock ----------------------------------------------------------- */

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * HC_NS_PER_S + ts.tv_nsec;
}

/* The stack's TSC clock keeps CLOCK_MONOTONIC's pace: over 200 ms of
 * wall time it reads 200 ms within 0.03 % (60 µs). DPDK's rounded
 * rte_get_tsc_hz() was 0.18 % off on an AMD EPYC here (2690 MHz for
 * 2694.88), which made a 200 ms per-op timeout fire after 199.6 ms
 * (field case C17). Of 3 tries, the best: a preemption between the paired
 * reads adds its length to one try. */
static void
test_tsc_clock_rate(void)
{
	struct hc_clock clk;
	struct timespec gap = { 0, 200 * (long)HC_NS_PER_MS };
	double best = 1.0, err;
	uint64_t c0, m0, c1, m1;
	int i;

	hc_clock_init_tsc(&clk);
	CU_ASSERT(hc_clock_tsc_hz() > 0);
	for (i = 0; i < 3; i++) {
		m0 = mono_ns();
		c0 = hc_clock_now(&clk);
		nanosleep(&gap, NULL);
		m1 = mono_ns();
		c1 = hc_clock_now(&clk);
		err = ((double)(c1 - c0) - (double)(m1 - m0)) / (m1 - m0);
		if (err < 0)
			err = -err;
		if (err < best)
			best = err;
	}
	printf("\n  TSC clock vs CLOCK_MONOTONIC over 200 ms: %.1f ppm "
	       "(hc_clock_tsc_hz %" PRIu64 ", rte_get_tsc_hz %" PRIu64 ")\n",
	       best * 1e6, hc_clock_tsc_hz(), rte_get_tsc_hz());
	CU_ASSERT(best < 3e-4);
}

/* ---- main ------------------------------------------------------------------- */

static CU_TestInfo transport_tests[] = {
	{ "1 message of 100000 bytes, rank 0 -> 1", test_message_100k },
	{ "1b messages both ways at once", test_both_ways },
	{ "2 every DATA frame duplicated", test_duplicates },
	{ "2b a late duplicate discarded and acknowledged (C23)",
	  test_duplicate_acked },
	{ "3a 3rd DATA lost: SACK fast retransmit", test_drop_third },
	{ "3b last DATA lost: tail-loss probe", test_tlp },
	{ "3c last DATA and its probe lost: RTO", test_tlp_lost },
	{ "3d DATA lost, 2 packets after it: RACK", test_rack },
	{ "4 20% DATA/ACK loss + reorder, 300000 bytes", test_lossy_reorder },
	{ "4b 10% DATA loss, 20% of ACKs 200 us late", test_delayed_acks },
	{ "5 PSN wrap-around", test_psn_wrap },
	{ "6 100% loss: peer lost after the backoff", test_peer_lost },
	{ "6a 100% loss, own link down: HC_ERR_LINK_DOWN (C31)",
	  test_peer_lost_link_down },
	{ "6b descheduled receiver: one packet on the RTO, spurious, undone",
	  test_desched_receiver },
	{ "6c descheduled sender: the overdue RTO re-armed, not fired",
	  test_desched_sender },
	{ "6d whole window lost once: one RTO, RACK repairs the rest",
	  test_rto_real_loss },
	{ "7 strays dropped and counted", test_strays },
	{ "8 restarted peer", test_restart },
	{ "9 net layer: ARP, ICMP echo, fragments", test_net_layer },
	{ "10 stale ACK after the window moved", test_stale_ack },
	{ "12 swift: above target, cut once per RTT, paced below 1",
	  test_swift_decrease },
	{ "13 swift: below target, ai per RTT", test_swift_increase },
	{ "13b swift: RACK cuts by max_mdf, RTO to min_cwnd", test_swift_loss },
	{ "14 dctcp: every DATA marked, halved per RTT", test_dctcp_marked },
	{ "15 dctcp: no marks, alpha decays", test_dctcp_unmarked },
	{ "11 upper layer rejects: not acknowledged, sent again",
	  test_reject },
	{ "16 receiver credit of 4 packets obeyed end to end",
	  test_credit_loop },
	{ "17 shm links: header-only CRC both ways, retransmission too",
	  test_shm_hdr_cov },
	{ "17b shm_crc = payload: full CRC", test_shm_full_key },
	{ "17c one end not shm: full CRC (not accepted)",
	  test_shm_full_one_side },
	{ "17d TX injector corrupts: full CRC, exact", test_shm_full_tx_corrupt },
	{ "17e RX injector corrupts: full CRC, exact", test_shm_full_rx_corrupt },
	{ "17f RX injector truncates: full CRC, exact",
	  test_shm_full_rx_truncate },
	{ "17g header-only DATA refused unless accepted, counted",
	  test_shm_refused },
	{ "18 zero copy: from src, retransmitted from it, released once",
	  test_zc_send },
	{ "18b unflagged message copied", test_zc_unflagged },
	{ "18c zero_copy_tx off: copied", test_zc_off },
	{ "18d sender port not shm: copied", test_zc_not_shm },
	{ "18e TX injector may corrupt: copied", test_zc_tx_fault },
	{ "18f peer does not accept header-only: copied", test_zc_peer_full },
	{ "18f2 shm port whose TX reads only DPDK memory (virtio_user): "
	  "header-only CRC, copied", test_zc_not_any_memory },
	{ "19 delayed ACK: an idle sender's message end, a reply carries it",
	  test_delack_reply },
	{ "19b delayed ACK: no reply, sent after the hold, no probe",
	  test_delack_timeout },
	{ "19c ack_delay 0: acknowledged at once", test_delack_off },
	{ "19d sender not idle: acknowledged at once", test_delack_busy },
	{ "18g cancelled while in flight: released after the ACKs",
	  test_zc_cancel },
	{ "18h peer lost: released", test_zc_peer_lost },
	{ "18i cancelled by address (hct_cancel_msgs): released",
	  test_zc_cancel_msgs },
	{ "20 TSC clock keeps CLOCK_MONOTONIC's pace within 0.03 %",
	  test_tsc_clock_rate },
	CU_TEST_INFO_NULL,
};

int
main(void)
{
	unsigned int failures = 0, suites_failed = 0, reg_errors = 0;
	CU_ErrorCode run = CUE_SUCCESS;
	const CU_TestInfo *t;
	CU_pSuite s;

	if (test_eal_init("test_transport", "128", "hctt") != 0)
		return EXIT_FAILURE;
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "test_transport: %s\n", CU_get_error_msg());
		test_eal_fini();
		return EXIT_FAILURE;
	}
	s = CU_add_suite("transport", NULL, NULL);
	if (s == NULL)
		reg_errors++;
	for (t = transport_tests; s != NULL && t->pName != NULL; t++)
		if (CU_add_test(s, t->pName, t->pTestFunc) == NULL)
			reg_errors++;
	add_sched_suite();
	reg_errors += unit_register_errors;
	if (reg_errors == 0) {
		CU_basic_set_mode(CU_BRM_VERBOSE);
		run = CU_basic_run_tests();
		if (run != CUE_SUCCESS)
			fprintf(stderr, "test_transport: %s\n",
				CU_get_error_msg());
		failures = CU_get_number_of_failures();
		suites_failed = CU_get_number_of_suites_failed();
		printf("\ntest_transport: %u asserts, %u failed; %u suites "
		       "failed to initialise or clean up\n",
		       CU_get_number_of_asserts(), failures, suites_failed);
	} else {
		fprintf(stderr, "test_transport: %u tests not registered: "
			"%s\n", reg_errors, CU_get_error_msg());
	}
	CU_cleanup_registry();
	test_eal_fini();
	if (reg_errors != 0 || run != CUE_SUCCESS || failures != 0 ||
	    suites_failed != 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}
