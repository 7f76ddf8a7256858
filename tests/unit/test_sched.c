/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sched: the TX scheduler (stack/transport/sched.c), the TX ring
 * budget and receiver credits, plus hc_op_opts.priority from the API to
 * the wire. Linked into test_transport (which owns the EAL and main).
 *
 * One rank (0) of a world of 4 owns a manual clock, a struct hc_port, a
 * struct hc_net and a struct hct. Its port (the fake port of wire.h, with
 * nothing ever on its RX wire) decodes and logs
 * every frame it accepts (HCT type, destination rank, prio byte, IPv4 TOS,
 * PSN, credit) and frees it. With ring_on it also implements
 * tx_queued_bytes: accepted frames stay "in the ring" until the test
 * drains bytes from it, as a link would put them on the wire. Packets from
 * the peers are made by the test and handed to hct_input() directly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "clock.h"
#include "coll.h"
#include "engine.h"
#include "hct.h"
#include "hct_hdr.h"
#include "hct_internal.h"
#include "net.h"
#include "port.h"
#include "suites.h"
#include "wire.h"

#define NRANK 4
#define S_JOB 0x5343484du
#define S_NONCE 0x51u
#define S_T0 HC_NS_PER_S
#define S_MTU 1500
#define S_MSS 1368                   /* (1500 - 20 - 8 - 104) & ~7 */
#define S_HCT_LEN (HCT_HDR_LEN + S_MSS) /* a full DATA packet, HCT bytes */
#define S_FRAME (14 + 20 + 8 + S_HCT_LEN) /* ... and its frame: 1514 */
#define S_LOG_MAX 4096
#define S_BUF (600 * S_MSS)

static const uint32_t s_ip[NRANK] = {
	0xc6120001u, 0xc6120002u, 0xc6120003u, 0xc6120004u };

/* TOS bytes of the classes: DSCP << 2 | ECT(0). */
#define TOS_CRITICAL ((46 << 2) | 2)
#define TOS_NORMAL ((0 << 2) | 2)
#define TOS_BULK ((8 << 2) | 2)

struct rec {
	uint8_t type;
	uint8_t prio;
	uint8_t tos;
	uint8_t flags;
	uint16_t dst;
	uint16_t credit;
	uint32_t psn;
	uint32_t len;   /* HCT payload bytes */
};

static struct {
	struct hc_clock clk;
	struct tw_port tw;
	struct hc_net net;
	struct hct hct;
	int net_up, hct_up;
	struct rec log[S_LOG_MAX];
	uint32_t nlog;
	uint32_t bad_frames;
	int ring_on;
	uint64_t ring_bytes;    /* accepted, "not on the wire yet" */
	uint64_t ring_max;      /* most ring_bytes after a tx_burst */
	uint32_t msg_sent;
	int hold_retx;          /* keep retransmitted frames in held[] */
	struct rte_mbuf *held[8];
	uint32_t nheld;
	uint64_t data_rx;
	uint8_t *buf;           /* source of every message */
	uint64_t now;           /* the clock, for the port's (empty) RX */
} s;

/* ---- backend --------------------------------------------------------- */

static void
log_frame(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	struct hct_pkt p;
	struct rec *r;

	if (tw_frame_hct_decode(m, &p) != 0 || s.nlog == S_LOG_MAX) {
		s.bad_frames++;
		return;
	}
	r = &s.log[s.nlog++];
	r->type = p.type;
	r->prio = p.prio;
	r->tos = d[RTE_ETHER_HDR_LEN + 1];
	r->flags = p.flags;
	r->dst = p.dst_rank;
	r->credit = p.credit;
	r->psn = p.psn;
	r->len = p.length;
}

/* tx_burst of the port (wire.h): log the frame, count it in the ring. */
static void
log_xmit(struct tw_port *tp, struct rte_mbuf *m)
{
	RTE_SET_USED(tp);
	log_frame(m);
	if (s.ring_on)
		s.ring_bytes += m->pkt_len;
	s.ring_max = RTE_MAX(s.ring_max, s.ring_bytes);
	if (s.hold_retx && s.nlog > 0 && (s.log[s.nlog - 1].flags & HCT_F_RETX)
	    && s.nheld < RTE_DIM(s.held)) {
		s.held[s.nheld++] = m;
		return;
	}
	rte_pktmbuf_free(m);
}

static uint64_t
log_queued_bytes(const struct tw_port *tp)
{
	RTE_SET_USED(tp);
	return s.ring_bytes;
}

/* The link puts bytes of the ring on the wire. */
static void
ring_drain(uint64_t bytes)
{
	s.ring_bytes -= RTE_MIN(bytes, s.ring_bytes);
}

/* ---- upcalls --------------------------------------------------------- */

static enum hct_rx_verdict
s_up_data(void *ctx, uint32_t src, const struct hct_data_desc *d,
	  const uint8_t *payload, struct rte_mbuf *m)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(src);
	RTE_SET_USED(d);
	RTE_SET_USED(payload);
	RTE_SET_USED(m);
	s.data_rx++;
	return HCT_RX_CONSUMED;
}

static void
s_up_msg_sent(void *ctx, struct hct_msg *msg)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(msg);
	s.msg_sent++;
}

static void
s_up_peer_lost(void *ctx, uint32_t rank, int err)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(rank);
	RTE_SET_USED(err);
}

static const struct hct_upcalls s_up = {
	.data = s_up_data,
	.msg_sent = s_up_msg_sent,
	.peer_lost = s_up_peer_lost,
};

/* ---- set-up ------------------------------------------------------------ */

static void s_destroy(void);

/* Rank 0 with conf adjusted by the test (tc), upcalls up with ctx. */
static int
s_setup(const struct hct_conf *tc, int ring_on,
	 const struct hct_upcalls *up, void *up_ctx)
{
	struct hc_net_conf nc = {
		.ip = s_ip[0],
		.udp_port = TW_UDP_PORT,
		.arp_capacity = NRANK,
		.arp_timeout_ns = 60 * HC_NS_PER_S,
		.arp_retry_ns = HC_NS_PER_MS,
	};
	struct rte_ether_addr mac = {
		.addr_bytes = { 0x02, 0, 0, 0, 0, 0x10 } };
	uint32_t i;

	memset(&s, 0, sizeof(s));
	s.buf = calloc(1, S_BUF);
	s.now = S_T0;
	if (s.buf == NULL ||
	    tw_port_open(&s.tw, "log0", 4095, &mac, S_MTU, &s.now, log_xmit,
			 ring_on ? log_queued_bytes : NULL, NULL) != 0)
		return -1;
	s.ring_on = ring_on;
	hc_clock_init_manual(&s.clk, S_T0);
	if (hc_net_init(&s.net, &s.tw.port, &s.clk, &nc, hct_input, &s.hct) != 0)
		return -1;
	s.net_up = 1;
	for (i = 1; i < NRANK; i++) {
		mac.addr_bytes[5] = (uint8_t)(0x10 + i);
		if (hc_arp_add_permanent(&s.net.arp, s_ip[i], &mac) != 0)
			return -1;
	}
	if (hct_init(&s.hct, &s.net, &s.clk, tc, up, up_ctx) != 0)
		return -1;
	s.hct_up = 1;
	/* Every peer met (as after the HELLO exchange): no HELLOs. */
	for (i = 1; i < NRANK; i++) {
		struct hct_flow *f = &s.hct.flows[i];

		f->peer_nonce = 0x100 + i;
		f->hello_acked = 1;
		f->state = HCT_FLOW_ESTABLISHED;
		f->last_rx_ns = S_T0;
	}
	return 0;
}

/* s_setup(), or a failed test with everything freed. @return 0 or -1. */
static int
s_create(const struct hct_conf *tc, int ring_on,
	 const struct hct_upcalls *up, void *up_ctx)
{
	if (s_setup(tc, ring_on, up, up_ctx) == 0)
		return 0;
	CU_FAIL("set-up");
	s_destroy();
	return -1;
}

/* The configuration every test starts from: no credits, no TX ring
 * bound, no bulk share, a window large enough for every test. */
static struct hct_conf
s_conf(void)
{
	struct hct_conf tc = {
		.job_id = S_JOB,
		.rank = 0,
		.world_size = NRANK,
		.peer_ip = s_ip,
		.window_pkts = 4096,
		.rto_init_ns = HC_NS_PER_MS,
		.rto_min_ns = 200 * HC_NS_PER_US,
		.rto_max_ns = 50 * HC_NS_PER_MS,
		.retry_max = 5,
		.ack_every = 1,
		.hello_interval_ns = HC_NS_PER_MS,
		.keepalive_ns = 100 * HC_NS_PER_MS,
		.nonce = S_NONCE,
	};

	return tc;
}

static void
s_destroy(void)
{
	if (s.hct_up)
		hct_free(&s.hct);
	if (s.net_up)
		hc_net_free(&s.net);
	tw_port_drain(&s.tw);
	tw_port_close(&s.tw);
	CU_ASSERT_EQUAL(s.bad_frames, 0);
	free(s.buf);
	s.buf = NULL;
}

static void
s_set_now(uint64_t t)
{
	s.now = t;
	s.clk.manual_ns = t;
}

/* hc_engine_poll() without RX. @return work done. */
static uint32_t
s_poll(void)
{
	uint32_t w = hct_flush_acks(&s.hct);

	w += hct_tick(&s.hct);
	w += hct_tx(&s.hct);
	hc_port_flush(&s.tw.port);
	return w;
}

static void
s_msg(struct hct_msg *m, uint8_t cls, uint32_t pkts)
{
	memset(m, 0, sizeof(*m));
	m->src = s.buf;
	m->len = (uint64_t)pkts * S_MSS;
	m->desc.length = (uint32_t)m->len;
	m->cls = cls;
}

/* A packet from peer src as its stack would make it. */
static void
s_inject(uint32_t src, uint8_t type, uint32_t psn, uint32_t ack_psn,
	 uint16_t credit, uint32_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(s.tw.port.pool);
	struct hct_pkt p;
	uint8_t *h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h = (uint8_t *)rte_pktmbuf_append(m, HCT_HDR_LEN + payload);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	memset(&p, 0, sizeof(p));
	p.type = type;
	p.flags = HCT_F_ACK_VALID;
	p.prio = type == HCT_TYPE_DATA ? HCT_CLASS_NORMAL : HCT_CLASS_CONTROL;
	p.job_id = S_JOB;
	p.src_nonce = 0x100 + src;
	p.dst_nonce = S_NONCE;
	p.src_rank = (uint16_t)src;
	p.dst_rank = 0;
	p.psn = psn;
	p.ack_psn = ack_psn;
	p.credit = credit;
	p.length = payload;
	p.ts_ns = 1;
	hct_hdr_encode(&p, h);
	memset(h + HCT_HDR_LEN, 0, payload);
	hct_crc_seal(h, HCT_HDR_LEN + payload);
	hct_input(&s.hct, s_ip[src], 0, m, h, HCT_HDR_LEN + payload);
}

/* ---- tests ------------------------------------------------------------- */

/* Bulk queued first and already partly cut; a critical message submitted
 * later goes out before the rest of the bulk, an ACK before both. */
static void
test_critical_overtakes_bulk(void)
{
	struct hct_conf tc = s_conf();
	struct hct_msg bulk, crit;
	uint32_t i, k, n_before;

	tc.bulk_min_share_pct = 5;
	tc.tx_ring_max_bytes = 4000; /* 3 frames: 0, 1514, 3028 < 4000 */
	if (s_create(&tc, 1, &s_up, NULL) != 0)
		return;
	s_msg(&bulk, HCT_CLASS_BULK, 50);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &bulk), 0);
	s_poll();
	/* The ring budget stopped the bulk after 3 frames. */
	CU_ASSERT_EQUAL(s.nlog, 3);
	CU_ASSERT_EQUAL(s.hct.sched.ring_full, 1);
	for (i = 0; i < s.nlog; i++) {
		CU_ASSERT_EQUAL(s.log[i].type, HCT_TYPE_DATA);
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_BULK);
		CU_ASSERT_EQUAL(s.log[i].tos, TOS_BULK);
	}
	n_before = s.nlog;
	/* DATA from rank 2 asks for an ACK; then the critical message. */
	s_inject(2, HCT_TYPE_DATA, 0, 0, 0, 64);
	s_msg(&crit, HCT_CLASS_CRITICAL, 3);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &crit), 0);
	for (k = 0; k < 1000 && s.msg_sent < 2; k++) {
		ring_drain(S_FRAME);
		s_poll();
	}
	CU_ASSERT_EQUAL(s.msg_sent, 2);
	CU_ASSERT_EQUAL_FATAL(s.nlog, n_before + 1 + 3 + 47);
	/* The ACK is not held back by the ring budget. */
	CU_ASSERT_EQUAL(s.log[n_before].type, HCT_TYPE_ACK);
	CU_ASSERT_EQUAL(s.log[n_before].dst, 2);
	CU_ASSERT_EQUAL(s.log[n_before].tos, (48 << 2) | 2);
	for (i = n_before + 1; i < n_before + 4; i++) {
		CU_ASSERT_EQUAL(s.log[i].type, HCT_TYPE_DATA);
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_CRITICAL);
		CU_ASSERT_EQUAL(s.log[i].tos, TOS_CRITICAL);
		CU_ASSERT_EQUAL(s.log[i].psn, i - 1); /* one PSN space */
	}
	for (; i < s.nlog; i++)
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_BULK);
	CU_ASSERT_EQUAL(s.hct.flows[1].stats.data_tx_cls[HCT_CLASS_BULK], 50);
	CU_ASSERT_EQUAL(s.hct.flows[1].stats.data_tx_cls[HCT_CLASS_CRITICAL],
			3);
	CU_ASSERT_EQUAL(s.hct.flows[1].stats.data_bytes_cls[HCT_CLASS_CRITICAL],
			3 * S_HCT_LEN);
	CU_ASSERT_EQUAL(s.hct.sched.picks[HCT_CLASS_CRITICAL], 3);
	CU_ASSERT_EQUAL(s.hct.sched.bulk_forced, 0);
	s_destroy();
}

/* Critical saturates, bulk waits: bulk gets exactly 1 packet in 20 of
 * the same size, 5 % of the bytes, at the positions the deficit counter
 * gives (1, 21, 41, ...); after the critical message, bulk alone. With a
 * share of 0, bulk waits until critical is done. */
static void
run_share(uint32_t pct)
{
	struct hct_conf tc = s_conf();
	struct hct_msg bulk, crit;
	uint32_t i, k, nb = 0, last_c = 0;
	uint64_t bytes_b = 0, bytes_all = 0;

	tc.bulk_min_share_pct = pct;
	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	s_msg(&bulk, HCT_CLASS_BULK, 100);
	s_msg(&crit, HCT_CLASS_CRITICAL, 380);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 2, &bulk), 0);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &crit), 0);
	for (k = 0; k < 100 && s.msg_sent < 2; k++)
		s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 480);
	for (i = 0; i < s.nlog; i++)
		if (s.log[i].prio == HCT_CLASS_CRITICAL)
			last_c = i;
	for (i = 0; i <= last_c; i++) {
		int is_bulk = s.log[i].prio == HCT_CLASS_BULK;

		CU_ASSERT_EQUAL(s.log[i].len, S_MSS);
		CU_ASSERT_EQUAL(is_bulk, pct == 5 && i % 20 == 1);
		nb += is_bulk;
		bytes_b += is_bulk ? S_HCT_LEN : 0;
		bytes_all += S_HCT_LEN;
	}
	if (pct == 5) {
		CU_ASSERT_EQUAL(last_c, 399);
		CU_ASSERT_EQUAL(nb, 20);
		CU_ASSERT_EQUAL(bytes_b * 100, bytes_all * 5);
		CU_ASSERT_EQUAL(s.hct.sched.bulk_forced, 20);
	} else {
		CU_ASSERT_EQUAL(last_c, 379);
		CU_ASSERT_EQUAL(nb, 0);
		CU_ASSERT_EQUAL(s.hct.sched.bulk_forced, 0);
	}
	CU_ASSERT_EQUAL(s.hct.sched.picks[HCT_CLASS_BULK], 100);
	CU_ASSERT_EQUAL(s.hct.sched.picks[HCT_CLASS_CRITICAL], 380);
	CU_ASSERT_EQUAL(s.hct.sched.bulk_deficit, 0); /* bulk is done */
	s_destroy();
}

static void
test_bulk_share(void)
{
	run_share(5);
	run_share(0);
}

/* Normal messages for ranks 1, 2, 3 (4, 4 and 2 packets): one packet per
 * peer in turn. */
static void
test_round_robin(void)
{
	static const uint16_t want[] = { 1, 2, 3, 1, 2, 3, 1, 2, 1, 2 };
	struct hct_conf tc = s_conf();
	struct hct_msg m[3];
	uint32_t i;

	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	s_msg(&m[0], HCT_CLASS_NORMAL, 4);
	s_msg(&m[1], HCT_CLASS_NORMAL, 4);
	s_msg(&m[2], HCT_CLASS_NORMAL, 2);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(hct_send(&s.hct, i + 1, &m[i]), 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, RTE_DIM(want));
	for (i = 0; i < RTE_DIM(want); i++) {
		CU_ASSERT_EQUAL(s.log[i].dst, want[i]);
		CU_ASSERT_EQUAL(s.log[i].tos, TOS_NORMAL);
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_NORMAL);
	}
	CU_ASSERT_EQUAL(s.msg_sent, 3);
	CU_ASSERT_EQUAL(s.hct.sched.picks[HCT_CLASS_NORMAL], 10);
	s_destroy();
}

/* A backend that reports its queued bytes never holds more than
 * tx_ring_max_bytes plus one frame, though the budget is used up to it. */
static void
test_tx_budget(void)
{
	struct hct_conf tc = s_conf();
	struct hct_msg m[6];
	uint32_t i, k;

	tc.bulk_min_share_pct = 5;
	tc.tx_ring_max_bytes = 10000;
	if (s_create(&tc, 1, &s_up, NULL) != 0)
		return;
	for (i = 0; i < 3; i++) {
		s_msg(&m[i], HCT_CLASS_BULK, 100);
		s_msg(&m[3 + i], HCT_CLASS_CRITICAL, 100);
		CU_ASSERT_EQUAL(hct_send(&s.hct, i + 1, &m[i]), 0);
		CU_ASSERT_EQUAL(hct_send(&s.hct, i + 1, &m[3 + i]), 0);
	}
	/* The link drains 3000 bytes (about 2 frames) between polls. */
	for (k = 0; k < 10000 && s.msg_sent < 6; k++) {
		s_poll();
		ring_drain(3000);
	}
	CU_ASSERT_EQUAL(s.msg_sent, 6);
	CU_ASSERT_EQUAL(s.nlog, 600);
	CU_ASSERT(s.ring_max <= 10000 + S_FRAME);
	CU_ASSERT(s.ring_max > 10000);
	CU_ASSERT_EQUAL(s.hct.sched.ring_max_seen, s.ring_max);
	CU_ASSERT(s.hct.sched.ring_full > 0);
	s_destroy();
}

/* Receiver side. T = floor(150 * 100000 / (100 * 1368)) = 109 packets:
 * one active sender gets 109, three get floor(109 / 3) = 36 each; a
 * sender silent for longer than rto_min no longer counts; a total below
 * the number of senders still grants 1 each. */
static void
test_credit_grant(void)
{
	struct hct_conf tc = s_conf();
	uint64_t now = S_T0;
	uint32_t i, from;

	tc.rx_credit_bdp_pct = 150;
	tc.bdp_bytes = 100000;
	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	s_inject(1, HCT_TYPE_DATA, 0, 0, 0, 64);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 1);
	CU_ASSERT_EQUAL(s.log[0].type, HCT_TYPE_ACK);
	CU_ASSERT_EQUAL(s.log[0].dst, 1);
	CU_ASSERT_EQUAL(s.log[0].credit, 109);
	CU_ASSERT_EQUAL(s.hct.flows[1].credit_granted, 109);

	now += 10 * HC_NS_PER_US;
	s_set_now(now);
	for (i = 1; i < NRANK; i++)
		s_inject(i, HCT_TYPE_DATA, i == 1 ? 1 : 0, 0, 0, 64);
	from = s.nlog;
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, from + 3);
	for (i = from; i < s.nlog; i++) {
		CU_ASSERT_EQUAL(s.log[i].type, HCT_TYPE_ACK);
		CU_ASSERT_EQUAL(s.log[i].credit, 36);
	}
	/* Ranks 2 and 3 fall silent for rto_min + 1 ns. */
	now += tc.rto_min_ns + 1;
	s_set_now(now);
	s_inject(1, HCT_TYPE_DATA, 2, 0, 0, 64);
	from = s.nlog;
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, from + 1);
	CU_ASSERT_EQUAL(s.log[from].credit, 109);
	/* Exactly rto_min after its last DATA a sender still counts. */
	s_set_now(now + tc.rto_min_ns);
	CU_ASSERT_EQUAL(hct_credit_grant(&s.hct, &s.hct.flows[2], now +
					 tc.rto_min_ns), 54); /* 109 / 2 */
	/* T = floor(150 * 2000 / 136800) = 2 for 3 senders: 1 each. */
	s.hct.conf.bdp_bytes = 2000;
	s_set_now(now);
	s_inject(2, HCT_TYPE_DATA, 1, 0, 0, 64);
	s_inject(3, HCT_TYPE_DATA, 1, 0, 0, 64);
	CU_ASSERT_EQUAL(hct_credit_grant(&s.hct, &s.hct.flows[1], now), 1);
	/* Credits off: 0, "none advertised". */
	s.hct.conf.rx_credit_bdp_pct = 0;
	CU_ASSERT_EQUAL(hct_credit_grant(&s.hct, &s.hct.flows[1], now), 0);
	s_destroy();
}

/* Sender side: the window is min(window_pkts, credit) once a credit was
 * heard; a credit of 0 (none advertised) keeps the last one; with a
 * credit of 1 and every ACK lost, the RTO still gets a packet through
 * once per RTO. */
static void
test_credit_obeyed(void)
{
	struct hct_conf tc = s_conf();
	struct hct_msg m;
	struct hct_flow *f;
	uint64_t now = S_T0;
	uint32_t from;

	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	f = &s.hct.flows[1];
	s_inject(1, HCT_TYPE_ACK, 0, 0, 5, 0);
	CU_ASSERT_EQUAL(f->peer_credit, 5);
	CU_ASSERT_EQUAL(hct_flow_window(&s.hct, f), 5);
	s_msg(&m, HCT_CLASS_NORMAL, 50);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &m), 0);
	s_poll();
	CU_ASSERT_EQUAL(s.nlog, 5);
	CU_ASSERT_EQUAL(f->stats.credit_limited, 1);
	s_poll();
	CU_ASSERT_EQUAL(s.nlog, 5);
	CU_ASSERT_EQUAL(f->stats.credit_limited, 1); /* one event */
	/* 3 acknowledged, credit still 5: 3 more. */
	s_inject(1, HCT_TYPE_ACK, 0, 3, 5, 0);
	s_poll();
	CU_ASSERT_EQUAL(s.nlog, 8);
	CU_ASSERT_EQUAL(f->stats.credit_limited, 2);
	/* All 8 acknowledged, credit 2: 2 more. */
	s_inject(1, HCT_TYPE_ACK, 0, 8, 2, 0);
	s_poll();
	CU_ASSERT_EQUAL(s.nlog, 10);
	/* Credit 0 means none advertised: the last one (2) stays. */
	s_inject(1, HCT_TYPE_ACK, 0, 10, 0, 0);
	CU_ASSERT_EQUAL(f->peer_credit, 2);
	s_poll();
	CU_ASSERT_EQUAL(s.nlog, 12);
	/* Credit 1, then nothing comes back: the RTO retransmits the one
	 * packet in flight, again after each backed-off RTO. */
	s_inject(1, HCT_TYPE_ACK, 0, 12, 1, 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 13);
	CU_ASSERT_EQUAL(s.log[12].psn, 12);
	from = s.nlog;
	now += f->rto_ns;
	s_set_now(now);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, from + 1);
	CU_ASSERT_EQUAL(s.log[from].psn, 12);
	CU_ASSERT(s.log[from].flags & HCT_F_RETX);
	/* The ACK of the retransmission moves it on by one. */
	s_inject(1, HCT_TYPE_ACK, 0, 13, 1, 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, from + 2);
	CU_ASSERT_EQUAL(s.log[from + 1].psn, 13);
	CU_ASSERT_FALSE(s.log[from + 1].flags & HCT_F_RETX);
	hct_cancel_owner(&s.hct, NULL);
	s_destroy();
}

/* critical_extra_pkts: with the peer's credit used up by bulk, exactly
 * that many critical packets still leave at once (a critical message
 * does not wait for bulk's ACKs); bulk waits for the window. */
static void
test_critical_extra(void)
{
	struct hct_conf tc = s_conf();
	struct hct_msg b, c;
	uint32_t i;

	tc.critical_extra_pkts = 4;
	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	s_inject(1, HCT_TYPE_ACK, 0, 0, 5, 0);
	s_msg(&b, HCT_CLASS_BULK, 50);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &b), 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 5);
	s_msg(&c, HCT_CLASS_CRITICAL, 10);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &c), 0);
	s_poll();
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 9);
	for (i = 5; i < 9; i++)
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_CRITICAL);
	/* All 9 acknowledged: the other 6 critical packets (credit 5 + 4
	 * extra), then nothing: bulk has no room in the credit. */
	s_inject(1, HCT_TYPE_ACK, 0, 9, 5, 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 15);
	for (i = 9; i < 15; i++)
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_CRITICAL);
	/* All 15 acknowledged: bulk again, 5 packets. */
	s_inject(1, HCT_TYPE_ACK, 0, 15, 5, 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 20);
	for (i = 15; i < 20; i++)
		CU_ASSERT_EQUAL(s.log[i].prio, HCT_CLASS_BULK);
	hct_cancel_owner(&s.hct, NULL);
	s_destroy();
}

/* hc_op_opts.priority: values outside enum hc_priority are refused with
 * nothing queued; valid ones reach the wire as the prio byte and DSCP of
 * the collective's DATA, in class order whatever the submission order. */
static void
test_api_priority(void)
{
	static const struct {
		int prio;
		uint8_t cls;
		uint8_t tos;
	} want[3] = {
		{ HC_PRIO_CRITICAL, HCT_CLASS_CRITICAL, TOS_CRITICAL },
		{ HC_PRIO_DEFAULT, HCT_CLASS_NORMAL, TOS_NORMAL },
		{ HC_PRIO_BULK, HCT_CLASS_BULK, TOS_BULK },
	};
	static const int order[3] = { 2, 0, 1 }; /* bulk, critical, default */
	struct hct_conf tc = s_conf();
	struct hct_upcalls up = {
		.data = hc_coll_data,
		.msg_sent = hc_coll_msg_sent,
		.peer_lost = hc_coll_peer_lost,
	};
	struct hc_request *req[3] = { NULL, NULL, NULL }, *bad;
	struct hc_op_opts opts = { HC_PRIO_NORMAL, 0 };
	struct cds_wfcq_node *node;
	struct hc_ctx *ctx = calloc(1, sizeof(*ctx));
	float *buf[3];
	uint32_t i, j;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	ctx->cfg.op_timeout_ms = 1000;
	__cds_wfcq_init(&ctx->qhead, &ctx->qtail);
	if (s_create(&tc, 0, &up, &ctx->coll) != 0) {
		free(ctx);
		return;
	}
	/* The API reads the context's clock (the step metrics stamp every
	 * submission): the rank's manual clock. */
	hc_clock_init_manual(&ctx->clk, S_T0);
	CU_ASSERT_EQUAL_FATAL(hc_coll_init(&ctx->coll, &s.hct, 0,
		&(struct hc_coll_conf){ .slice_bytes = 1u << 20,
					.unexpected_max = 64 }), 0);
	CU_ASSERT_EQUAL_FATAL(hc_comm_init_world(&ctx->world, &ctx->coll, ctx,
						 0, NRANK), 0);
	for (i = 0; i < 3; i++) {
		buf[i] = calloc(1024, sizeof(float));
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf[i]);
	}
	/* Refused: the stack's control class is internal, 4 is no class. */
	opts.priority = (enum hc_priority)4;
	bad = (struct hc_request *)&opts;
	rc = hc_iallreduce(&ctx->world, buf[0], buf[0], 1024, HC_DTYPE_FLOAT32,
			   HC_OP_SUM, &opts, &bad);
	CU_ASSERT_EQUAL(rc, -HC_ERR_INVAL);
	CU_ASSERT_PTR_NULL(bad);
	opts.priority = (enum hc_priority)-1;
	CU_ASSERT_EQUAL(hc_ibarrier(&ctx->world, &opts, &bad), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(ctx->world.next_seq, 0); /* no sequence number */
	CU_ASSERT_PTR_NULL(__cds_wfcq_dequeue_nonblocking(&ctx->qhead,
							  &ctx->qtail));

	for (i = 0; i < 3; i++) {
		j = (uint32_t)order[i];
		opts.priority = (enum hc_priority)want[j].prio;
		rc = hc_iallreduce(&ctx->world, buf[j], buf[j], 1024,
				   HC_DTYPE_FLOAT32, HC_OP_SUM, &opts, &req[j]);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL(req[j]->op.cls, want[j].cls);
	}
	/* The engine's part: dequeue and start them, cut the packets. */
	for (i = 0; i < 3; i++) {
		node = __cds_wfcq_dequeue_nonblocking(&ctx->qhead, &ctx->qtail);
		CU_ASSERT_FATAL(node != NULL && node != CDS_WFCQ_WOULDBLOCK);
		hc_coll_submit(&caa_container_of(node, struct hc_request,
						 qnode)->op);
	}
	s_poll();
	/* Each sends its signature (4 bytes) and step 0 of the ring (1024
	 * bytes) to rank 1, in its class: critical first, then normal, then
	 * bulk (bulk_min_share_pct is 0 here). */
	CU_ASSERT_EQUAL_FATAL(s.nlog, 6);
	for (i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(s.log[i].type, HCT_TYPE_DATA);
		CU_ASSERT_EQUAL(s.log[i].dst, 1);
		CU_ASSERT_EQUAL(s.log[i].prio, want[i / 2].cls);
		CU_ASSERT_EQUAL(s.log[i].tos, want[i / 2].tos);
		CU_ASSERT_EQUAL(s.log[i].len, i % 2 == 0 ? 4 : 1024);
	}
	for (i = 0; i < 3; i++) {
		hc_coll_op_fail(&req[i]->op, -HC_ERR_ABORTED);
		hc_coll_op_end(&req[i]->op);
		free(req[i]);
		free(buf[i]);
	}
	hc_comm_fini(&ctx->world);
	hc_coll_free(&ctx->coll);
	s_destroy();
	free(ctx);
}

/* The SACK bitmap hct_fill_common() builds a word at a time equals the
 * one built bit by bit (bit i: PSN rcv_nxt + 1 + i received, for i below
 * 128 and below the ring's size - 1), for windows below a word, of one
 * word, below 128 and large, at random ring positions (wrap-around) and
 * random receive bitmaps. */
static void
test_sack_words(void)
{
	static const uint32_t win[] = { 16, 64, 100, 128, 4096 };
	uint64_t rnd = 0x9E3779B97F4A7C15ull;
	uint32_t w, trial, i, words;

	for (w = 0; w < RTE_DIM(win); w++) {
		struct hct_conf tc = s_conf();
		struct hct_flow *f;

		tc.window_pkts = win[w];
		if (s_create(&tc, 0, &s_up, NULL) != 0)
			return;
		f = &s.hct.flows[1];
		words = (s.hct.mask + 64) / 64;
		for (trial = 0; trial < 200; trial++) {
			uint64_t ref[2] = { 0, 0 };
			struct hct_pkt p;

			for (i = 0; i < words; i++) {
				rnd ^= rnd << 13; /* xorshift64 */
				rnd ^= rnd >> 7;
				rnd ^= rnd << 17;
				f->rcv_bits[i] = trial & 1 ? rnd : rnd & (rnd >> 3);
			}
			if (s.hct.mask < 63)
				f->rcv_bits[0] &= (1ull << (s.hct.mask + 1)) - 1;
			f->rcv_nxt = (uint32_t)(rnd >> 20) - trial;
			for (i = 1; i <= HCT_SACK_BITS && i <= s.hct.mask; i++)
				if (hct_rx_bit(&s.hct, f, f->rcv_nxt + i))
					hct_sack_set(ref, f->rcv_nxt,
						     f->rcv_nxt + i);
			hct_fill_common(&s.hct, f, &p, HCT_TYPE_ACK, S_T0);
			CU_ASSERT_EQUAL(p.sack[0], ref[0]);
			CU_ASSERT_EQUAL(p.sack[1], ref[1]);
		}
		memset(f->rcv_bits, 0, words * sizeof(uint64_t));
		f->rcv_nxt = tc.initial_psn;
		s_destroy();
	}
}

/* Retransmission by clone: the frame is a fresh header mbuf chained to
 * an indirect mbuf on the saved packet's payload, sealed right (CRC32C
 * over the chain, RETX flag, new timestamp); the saved packet stays byte
 * for byte as it was, its refcnt counts the clone while the PMD holds it,
 * and after the ACK every mbuf is back in the pool, each freed once (the
 * pool's in-use count equals its count before the message). With a port
 * that takes no chains, the copy path. */
static void
test_retx_clone(void)
{
	struct hct_conf tc = s_conf();
	struct hct_msg m;
	struct hct_flow *f;
	struct rte_mbuf *om[3];
	uint8_t *snap[3];
	uint32_t snap_len[3], i, k, in_use0, chains;
	uint64_t now = S_T0;

	if (s_create(&tc, 0, &s_up, NULL) != 0)
		return;
	f = &s.hct.flows[1];
	CU_ASSERT_TRUE(s.net.tx_chains); /* tw ports take chains */
	for (i = 0; i < S_BUF; i++)
		s.buf[i] = (uint8_t)(i * 7 + 3);
	in_use0 = rte_mempool_in_use_count(s.tw.port.pool) -
		  hct_unused_mbufs(&s.hct);
	s_msg(&m, HCT_CLASS_NORMAL, 3);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &m), 0);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nlog, 3);
	for (i = 0; i < 3; i++) {
		om[i] = f->slots[(f->snd_una + i) & s.hct.mask].m;
		CU_ASSERT_PTR_NOT_NULL_FATAL(om[i]);
		/* The PMD (log_xmit) let go: the slot's reference alone. */
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(om[i]), 1);
		snap_len[i] = om[i]->pkt_len;
		snap[i] = malloc(snap_len[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(snap[i]);
		memcpy(snap[i], rte_pktmbuf_mtod(om[i], void *), snap_len[i]);
	}
	/* The first RTO of the episode sends the first unacknowledged
	 * packet again (tx.c: F-RTO's probe), the second, without progress,
	 * the whole window; the "PMD" holds them all. */
	s.hold_retx = 1;
	now += f->rto_ns;
	s_set_now(now);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nheld, 1);
	now += f->rto_ns; /* backed off */
	s_set_now(now);
	s_poll();
	CU_ASSERT_FATAL(s.nheld >= 3 && s.nheld <= 4);
	CU_ASSERT_EQUAL(f->stats.retx_by_clone, s.nheld);
	for (k = 0; k < s.nheld; k++) {
		struct rte_mbuf *h = s.held[k], *pay = h->next, *lin;
		const uint8_t *hct;
		uint32_t len;
		struct hct_pkt p;

		/* Which saved packet: the PSN of the frame. */
		lin = rte_pktmbuf_copy(h, s.tw.port.pool, 0, UINT32_MAX);
		CU_ASSERT_PTR_NOT_NULL_FATAL(lin);
		hct = tw_frame_hct_hdr(lin, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hct);
		CU_ASSERT_EQUAL_FATAL(hct_hdr_decode(hct, len, &p), 0);
		i = p.psn - f->snd_una;
		CU_ASSERT_FATAL(i < 3);
		/* the first RTO's copy carries its own time, the rest now */
		CU_ASSERT(k == 0 ? p.ts_ns < now : p.ts_ns == now);
		rte_pktmbuf_free(lin);
		CU_ASSERT_EQUAL_FATAL(h->nb_segs, 2);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pay);
		CU_ASSERT_TRUE(RTE_MBUF_DIRECT(h));
		CU_ASSERT_TRUE(RTE_MBUF_CLONED(pay) != 0); /* a 64-bit flag */
		CU_ASSERT_PTR_EQUAL(rte_mbuf_from_indirect(pay), om[i]);
		CU_ASSERT_EQUAL(pay->data_len, S_MSS);
		CU_ASSERT_EQUAL(h->pkt_len, snap_len[i]);
		/* The saved packet's reference + the clones' (packet 0 may
		 * be held twice: by both RTOs). */
		CU_ASSERT(rte_mbuf_refcnt_read(om[i]) >= 2);
		/* What the receiver gets: one frame, sealed, the payload. */
		lin = rte_pktmbuf_copy(h, s.tw.port.pool, 0, UINT32_MAX);
		CU_ASSERT_PTR_NOT_NULL_FATAL(lin);
		CU_ASSERT_EQUAL(lin->nb_segs, 1);
		hct = tw_frame_hct_hdr(lin, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(hct);
		CU_ASSERT_EQUAL(len, HCT_HDR_LEN + S_MSS);
		CU_ASSERT_TRUE(hct_crc_ok(hct, len, 0));
		CU_ASSERT_EQUAL(hct_hdr_decode(hct, len, &p), 0);
		CU_ASSERT_EQUAL(p.psn, f->snd_una + i);
		CU_ASSERT(p.flags & HCT_F_RETX);
		CU_ASSERT_EQUAL(memcmp(hct + HCT_HDR_LEN, s.buf + i * S_MSS,
				       S_MSS), 0);
		rte_pktmbuf_free(lin);
		/* The saved packet is untouched: headers, flags, ts, CRC,
		 * payload. */
		CU_ASSERT_EQUAL(om[i]->pkt_len, snap_len[i]);
		CU_ASSERT_EQUAL(om[i]->nb_segs, 1);
		CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(om[i], void *),
				       snap[i], snap_len[i]), 0);
	}
	/* The PMD sends and frees them: the clones' references go. */
	for (i = 0; i < s.nheld; i++)
		rte_pktmbuf_free(s.held[i]);
	s.nheld = 0;
	s.hold_retx = 0;
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(om[i]), 1);
	/* All acknowledged: each saved packet freed once, the pool whole. */
	s_inject(1, HCT_TYPE_ACK, 0, f->snd_nxt, 0, 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_PTR_NULL(f->slots[i & s.hct.mask].m);
	CU_ASSERT_EQUAL(f->snd_una, f->snd_nxt);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(s.tw.port.pool) -
			hct_unused_mbufs(&s.hct), in_use0);
	/* A port without chains: the retransmission is a copy. */
	s.net.tx_chains = 0;
	chains = (uint32_t)f->stats.retx_by_clone;
	s_msg(&m, HCT_CLASS_NORMAL, 1);
	CU_ASSERT_EQUAL(hct_send(&s.hct, 1, &m), 0);
	s_poll();
	s.hold_retx = 1;
	now += f->rto_ns;
	s_set_now(now);
	s_poll();
	CU_ASSERT_EQUAL_FATAL(s.nheld, 1);
	CU_ASSERT_EQUAL(s.held[0]->nb_segs, 1);
	CU_ASSERT_TRUE(RTE_MBUF_DIRECT(s.held[0]));
	CU_ASSERT_EQUAL(f->stats.retx_by_clone, chains);
	rte_pktmbuf_free(s.held[0]);
	s.nheld = 0;
	s.hold_retx = 0;
	s_inject(1, HCT_TYPE_ACK, 0, f->snd_nxt, 0, 0);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(s.tw.port.pool) -
			hct_unused_mbufs(&s.hct), in_use0);
	for (i = 0; i < 3; i++)
		free(snap[i]);
	s_destroy();
}

static CU_TestInfo sched_tests[] = {
	{ "S10 retransmission by clone: original untouched, freed once",
	  test_retx_clone },
	{ "S9 SACK bitmap a word at a time = bit by bit", test_sack_words },
	{ "S1 critical overtakes queued bulk; ACK first",
	  test_critical_overtakes_bulk },
	{ "S2 bulk minimum share: exactly 5 % (and 0 %)", test_bulk_share },
	{ "S3 round-robin across peers within a class", test_round_robin },
	{ "S4 TX ring budget: at most tx_ring_max_bytes + 1 frame",
	  test_tx_budget },
	{ "S5 receiver credit: 1, N senders, idle, floor 1",
	  test_credit_grant },
	{ "S6 sender obeys the credit; credit 1 + lost ACKs: RTO probe",
	  test_credit_obeyed },
	{ "S8 critical packets go critical_extra_pkts beyond the credit",
	  test_critical_extra },
	{ "S7 hc_op_opts.priority: validated, carried to the wire",
	  test_api_priority },
	CU_TEST_INFO_NULL,
};

void
add_sched_suite(void)
{
	unit_add_suite("sched", NULL, NULL, sched_tests);
}
