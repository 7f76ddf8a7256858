/* SPDX-License-Identifier: BSD-3-Clause */
/* Flows: set-up, membership (HELLO), teardown. */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "hypercomm.h"
#include "hct.h"
#include "hct_internal.h"
#include "log.h"

/* Forget f's queued messages of class c (a lost peer, hct_free), giving
 * back the references of the zero-copy ones (struct hct_msg zc). */
static void
drop_msgs(struct hct_flow *f, unsigned int c)
{
	struct hct_msg *m;

	while ((m = TAILQ_FIRST(&f->msgs[c])) != NULL) {
		TAILQ_REMOVE(&f->msgs[c], m, link);
		if (m->zc != NULL)
			hct_zc_put(m->zc);
	}
}

int
hct_init(struct hct *t, struct hc_net *net, const struct hc_clock *clk,
	 const struct hct_conf *conf, const struct hct_upcalls *up,
	 void *up_ctx)
{
	uint32_t size, i, j, payload;

	memset(t, 0, sizeof(*t));
	if (net == NULL || conf == NULL || up == NULL || conf->nonce == 0 ||
	    conf->window_pkts == 0 || conf->window_pkts > HCT_WINDOW_MAX ||
	    conf->rank >= conf->world_size ||
	    conf->bulk_min_share_pct > HCT_BULK_SHARE_MAX_PCT)
		return -HC_ERR_INVAL;
	if (conf->cc.algo != HCT_CC_FIXED &&
	    (!(conf->cc.min_cwnd > 0) || conf->cc.min_cwnd > conf->window_pkts ||
	     !(conf->cc.max_mdf >= 0 && conf->cc.max_mdf < 1) ||
	     !(conf->cc.beta >= 0) || !(conf->cc.ai >= 0) ||
	     (conf->cc.algo == HCT_CC_DCTCP &&
	      !(conf->cc.dctcp_g > 0 && conf->cc.dctcp_g <= 1))))
		return -HC_ERR_INVAL;
	payload = hc_net_udp_payload_max(net);
	if (payload < HCT_HDR_LEN + 64) {
		HC_LOG(ERR, TRANSPORT, "MTU %u leaves no room for DATA",
		       net->port->mtu);
		return -HC_ERR_INVAL;
	}
	t->net = net;
	/* The CRC32C covers every HCT packet: no UDP checksum (hct_hdr.h). */
	net->udp_cksum_zero = 1;
	t->clk = clk;
	t->conf = *conf;
	t->up = *up;
	t->up_ctx = up_ctx;
	t->conf.cc.max_cwnd = conf->window_pkts;
	if (!(t->conf.cc.init_cwnd > 0) ||
	    t->conf.cc.init_cwnd > conf->window_pkts)
		t->conf.cc.init_cwnd = conf->window_pkts;
	/* A multiple of 8 so that every packet starts on an element of any
	 * dtype (at most 8 bytes) when the message does. */
	t->mss = (payload - HCT_HDR_LEN - hct_tag_len(t)) & ~7u;
	size = rte_align32pow2(conf->window_pkts);
	t->mask = size - 1;
	for (i = 0; i < HCT_CLASS__MAX; i++)
		TAILQ_INIT(&t->txlist[i]);
	TAILQ_INIT(&t->acklist);
	TAILQ_INIT(&t->rxactive);
	t->flows = calloc(conf->world_size, sizeof(*t->flows));
	t->heap = calloc(conf->world_size, sizeof(*t->heap));
	t->due = calloc(conf->world_size, sizeof(*t->due));
	if (t->flows == NULL || t->heap == NULL || t->due == NULL) {
		hct_free(t);
		return -HC_ERR_NOMEM;
	}
	t->meeting = 1;
	if (t->conf.auth && hct_auth_init() != 0)
		return -HC_ERR_INTERNAL;
	for (i = 0; i < conf->world_size; i++) {
		struct hct_flow *f = &t->flows[i];

		f->peer = i;
		f->peer_ip = conf->peer_ip[i];
		f->rto_ns = conf->rto_init_ns;
		f->snd_una = f->snd_nxt = f->rcv_nxt = conf->initial_psn;
		f->sack_end = conf->initial_psn;
		f->heap_idx = HCT_HEAP_NONE;
		hc_net_tmpl_init(&f->ntmpl, f->peer_ip);
		TAILQ_INIT(&f->tsent);
		for (j = 0; j < HCT_CLASS__MAX; j++)
			TAILQ_INIT(&f->msgs[j]);
		hct_cc_flow_init(t, f);
		if (i == conf->rank)
			continue;
		/* CRC coverage (hct_hdr.h): from the port the route to the
		 * peer names and its fault injector, as set up now. */
		if (conf->shm_crc == HCT_SHM_CRC_HEADER) {
			f->cov_tx_ok = hc_net_route_trusted(net, f->peer_ip,
							    HC_FAULT_TX);
			f->cov_rx_ok = hc_net_route_trusted(net, f->peer_ip,
							    HC_FAULT_RX);
		}
		f->zc_port_ok = hc_net_route_any_memory(net, f->peer_ip);
		t->n_init++;
		f->slots = calloc(size, sizeof(*f->slots));
		f->rcv_bits = calloc((size + 63) / 64, sizeof(uint64_t));
		if (f->slots == NULL || f->rcv_bits == NULL) {
			hct_free(t);
			return -HC_ERR_NOMEM;
		}
	}
	return 0;
}

void
hct_free(struct hct *t)
{
	uint32_t i, j;

	hct_auth_wipe(t);
	free(t->heap);
	free(t->due);
	t->heap = t->due = NULL;
	if (t->txm_i < t->txm_n)
		rte_pktmbuf_free_bulk(&t->txm[t->txm_i], t->txm_n - t->txm_i);
	t->txm_i = t->txm_n = 0;
	if (t->flows == NULL)
		return;
	for (i = 0; i < t->conf.world_size; i++) {
		struct hct_flow *f = &t->flows[i];

		for (j = 0; j < HCT_CLASS__MAX; j++)
			drop_msgs(f, j);
		if (f->slots != NULL)
			for (j = 0; j <= t->mask; j++)
				rte_pktmbuf_free(f->slots[j].m);
		free(f->slots);
		free(f->rcv_bits);
	}
	free(t->flows);
	t->flows = NULL;
}

void
hct_meeting_done(struct hct *t)
{
	t->meeting = 0;
}

uint32_t
hct_established(const struct hct *t)
{
	uint32_t i, n = 0;

	for (i = 0; i < t->conf.world_size; i++)
		n += t->flows[i].state == HCT_FLOW_ESTABLISHED;
	return n;
}

int
hct_drained(const struct hct *t)
{
	uint32_t i;

	for (i = 0; i < t->conf.world_size; i++) {
		const struct hct_flow *f = &t->flows[i];

		if (f->state == HCT_FLOW_LOST)
			continue;
		if (f->snd_una != f->snd_nxt || f->in_txlist != 0)
			return 0;
	}
	return 1;
}

/* Forget the queued messages of every flow for which match(m, arg) holds,
 * giving back the references of the zero-copy ones (drop_msgs). */
static void
cancel_where(struct hct *t, int (*match)(const struct hct_msg *, const void *),
	     const void *arg)
{
	uint32_t i;

	for (i = 0; i < t->conf.world_size; i++) {
		struct hct_flow *f = &t->flows[i];
		struct hct_msg *m, *next;
		unsigned int c;

		for (c = 0; c < HCT_CLASS__MAX; c++)
			for (m = TAILQ_FIRST(&f->msgs[c]); m != NULL; m = next) {
				next = TAILQ_NEXT(m, link);
				if (!match(m, arg))
					continue;
				TAILQ_REMOVE(&f->msgs[c], m, link);
				if (m->zc != NULL)
					hct_zc_put(m->zc);
			}
		hct_sched_prune(t, f);
	}
}

static int
owned_by(const struct hct_msg *m, const void *owner)
{
	return m->owner == owner;
}

void
hct_cancel_owner(struct hct *t, const void *owner)
{
	cancel_where(t, owned_by, owner);
}

/* [lo, hi) of the array hct_cancel_msgs was given. */
struct msg_range {
	uintptr_t lo, hi;
};

static int
in_range(const struct hct_msg *m, const void *arg)
{
	const struct msg_range *r = arg;

	return (uintptr_t)m >= r->lo && (uintptr_t)m < r->hi;
}

void
hct_cancel_msgs(struct hct *t, const struct hct_msg *msgs, uint32_t n)
{
	struct msg_range r = { (uintptr_t)msgs, (uintptr_t)(msgs + n) };

	cancel_where(t, in_range, &r);
}

/* 64 bits of the receive bitmap from ring position i on (wrapping);
 * the ring has t->mask + 1 >= 64 bits, a power of 2. */
static inline uint64_t
rx_bits64(const struct hct *t, const struct hct_flow *f, uint32_t i)
{
	uint32_t w = (i & t->mask) >> 6, sh = i & 63, words = (t->mask + 1) >> 6;
	uint64_t v = f->rcv_bits[w] >> sh;

	if (sh != 0)
		v |= f->rcv_bits[(w + 1) & (words - 1)] << (64 - sh);
	return v;
}

/* The SACK bitmap (bit i: PSN rcv_nxt + 1 + i received, i below
 * HCT_SACK_BITS and below the window) from the receive bitmap, a word at
 * a time. */
static void
sack_fill(const struct hct *t, const struct hct_flow *f, uint64_t sack[2])
{
	uint32_t i, start = f->rcv_nxt + 1;

	if (t->mask + 1 < 64) {
		/* A ring smaller than a word (test windows): bit by bit. */
		for (i = 1; i <= HCT_SACK_BITS && i <= t->mask; i++) {
			uint32_t psn = f->rcv_nxt + i;

			if (hct_rx_bit(t, f, psn))
				hct_sack_set(sack, f->rcv_nxt, psn);
		}
		return;
	}
	sack[0] = rx_bits64(t, f, start);
	sack[1] = rx_bits64(t, f, start + 64);
	/* Offsets t->mask and above alias PSNs at or below rcv_nxt. */
	if (t->mask < 64) {
		sack[0] &= (1ULL << t->mask) - 1;
		sack[1] = 0;
	} else if (t->mask < HCT_SACK_BITS) {
		sack[1] &= (1ULL << (t->mask - 64)) - 1;
	}
}

/* Fill the per-packet header fields of a packet to f's peer (every field
 * hct_tmpl_patch() stores; the flow-constant ones come from f's template
 * and are not set here), including the cumulative ACK and SACK of what
 * we received from it. Each field is assigned once, without a memset. */
void
hct_fill_common(struct hct *t, struct hct_flow *f, struct hct_pkt *p,
		uint8_t type, uint64_t now)
{
	p->type = type;
	p->ts_ns = now;
	p->prio = HCT_CLASS_CONTROL; /* DATA: the caller sets its class */
	p->psn = 0;
	p->comm_id = 0;
	p->coll_seq = 0;
	p->sig = 0;
	p->step = 0;
	p->length = 0;
	p->offset = 0;
	p->ecn_ce = 0;
	p->sack[0] = p->sack[1] = 0;
	p->host_delay_ns = 0;
	p->cov = HCT_COV_FULL; /* DATA: the caller sets its coverage */
	p->cov_accept = 0;
	p->flags2 = 0;
	if (type == HCT_TYPE_HELLO || type == HCT_TYPE_HELLO_ACK) {
		p->cov_accept = f->cov_rx_ok;
		p->flags = t->conf.always_on ? HCT_F_ALWAYS_ON : 0;
		p->credit = hct_credit_initial(t);
		p->length = t->net->port->mtu; /* checked by hct_membership */
		p->ack_psn = 0;
		p->ts_echo_ns = 0;
		p->offset = t->conf.world_size; /* hct_hdr.h: HELLO offset */
		p->sack[0] = t->conf.start_ns;  /* and start in sack[0] */
		if (t->conf.auth)
			p->flags |= HCT_F_AUTH;
		return;
	}
	p->flags = HCT_F_ACK_VALID | (t->conf.auth ? HCT_F_AUTH : 0);
	if (f->rnr) {
		p->flags |= HCT_F_RNR;
		f->rnr = 0;
	}
	p->ack_psn = f->rcv_nxt;
	p->credit = hct_credit_grant(t, f, now);
	f->credit_granted = p->credit;
	sack_fill(t, f, p->sack);
	hct_cc_fill_echo(f, p);
	p->ts_echo_ns = f->echo_ts_ns;
	if (f->echo_ts_ns != 0)
		p->host_delay_ns = (uint32_t)RTE_MIN(now - f->echo_arrival_ns,
						     (uint64_t)UINT32_MAX);
	f->rx_unacked = 0;
	f->ack_now = 0;
	f->ack_due_ns = 0;
}

/* Total credit of a receiver, full-size packets. */
static uint64_t
credit_total(const struct hct *t)
{
	return (uint64_t)t->conf.rx_credit_bdp_pct * t->conf.bdp_bytes /
	       (100 * (uint64_t)t->mss);
}

uint16_t
hct_credit_initial(const struct hct *t)
{
	uint64_t grant;

	if (t->conf.rx_credit_bdp_pct == 0 || t->conf.world_size < 2)
		return 0;
	grant = RTE_MIN(credit_total(t), (uint64_t)UINT16_MAX) /
		(t->conf.world_size - 1);
	return (uint16_t)RTE_MAX(grant, (uint64_t)1);
}

void
hct_credit_rx(struct hct *t, struct hct_flow *f, uint64_t now)
{
	f->data_rx_ns = now;
	if (f->rx_active)
		TAILQ_REMOVE(&t->rxactive, f, rxlink);
	else
		t->n_rxactive++;
	TAILQ_INSERT_TAIL(&t->rxactive, f, rxlink);
	f->rx_active = 1;
}

/* The active senders are kept in order of their last new DATA: the ones
 * that fell silent for longer than rto_min leave from the head, each
 * once, so a grant costs O(1) amortized instead of a scan of every
 * flow. */
uint16_t
hct_credit_grant(struct hct *t, const struct hct_flow *f, uint64_t now)
{
	struct hct_flow *o;
	uint64_t total, grant;
	uint32_t n;

	if (t->conf.rx_credit_bdp_pct == 0)
		return 0;
	while ((o = TAILQ_FIRST(&t->rxactive)) != NULL &&
	       now - o->data_rx_ns > t->conf.rto_min_ns) {
		TAILQ_REMOVE(&t->rxactive, o, rxlink);
		o->rx_active = 0;
		t->n_rxactive--;
	}
	n = t->n_rxactive + !f->rx_active;
	total = credit_total(t);
	grant = RTE_MIN(total, (uint64_t)UINT16_MAX) / n;
	return (uint16_t)RTE_MAX(grant, (uint64_t)1);
}

/* Send a header-only packet at now (the caller's clock read), with
 * extra flags (HCT_F_PROBE). */
static int
send_hdr_only(struct hct *t, struct hct_flow *f, uint8_t type,
	      uint8_t flags, uint64_t now)
{
	struct rte_mbuf *m = hc_port_alloc(t->net->port);
	struct hct_pkt p;
	uint8_t *h;

	if (m == NULL)
		return -HC_ERR_NOMEM;
	hct_fill_common(t, f, &p, type, now);
	p.flags |= flags;
	h = (uint8_t *)rte_pktmbuf_append(m, HCT_HDR_LEN + hct_tag_len(t));
	hct_tmpl_patch(h, hct_flow_tmpl(t, f), &p);
	hct_crc_seal(h, HCT_HDR_LEN);
	return hct_xmit(t, f, hct_tos(HCT_CLASS_CONTROL), m, now);
}

int
hct_send_ctrl(struct hct *t, struct hct_flow *f, uint8_t type, uint64_t now)
{
	return send_hdr_only(t, f, type, 0, now);
}

/* An ACK with HCT_F_PROBE: the peer answers with an ACK at once. */
int
hct_send_probe(struct hct *t, struct hct_flow *f, uint64_t now)
{
	return send_hdr_only(t, f, HCT_TYPE_ACK, HCT_F_PROBE, now);
}

static void
flow_lost(struct hct *t, struct hct_flow *f, const char *why)
{
	struct hct_slot *s;
	unsigned int c;
	int err = -HC_ERR_PEER_LOST;

	if (f->state == HCT_FLOW_LOST)
		return;
	/* C31: our own link to the peer down (a tap set down) is the cause
	 * to report, not the peer. */
	if (hc_net_route_link_down(t->net, f->peer_ip)) {
		err = -HC_ERR_LINK_DOWN;
		HC_LOG(ERR, TRANSPORT, "peer rank %u lost: %s; this rank's "
		       "link to it is down", f->peer, why);
	} else {
		HC_LOG(ERR, TRANSPORT, "peer rank %u lost: %s", f->peer, why);
	}
	if (f->state == HCT_FLOW_INIT && t->n_init > 0)
		t->n_init--;
	f->state = HCT_FLOW_LOST;
	hct_timer_update(t, f);
	for (c = 0; c < HCT_CLASS__MAX; c++)
		drop_msgs(f, c);
	/* Nothing goes to a lost peer again: give its unacknowledged
	 * packets back to the pool now, not at hct_free (an application
	 * that carries on without the peer would otherwise hold up to a
	 * window of mbufs per lost peer until hc_finalize). */
	while ((s = TAILQ_FIRST(&f->tsent)) != NULL) {
		TAILQ_REMOVE(&f->tsent, s, tlink);
		rte_pktmbuf_free(s->m);
		s->m = NULL;
	}
	hct_sched_prune(t, f);
	t->up.peer_lost(t->up_ctx, f->peer, err);
}

void
hct_flow_lost(struct hct *t, struct hct_flow *f, const char *why)
{
	flow_lost(t, f, why);
}

/* Membership packets and the nonce check of every other packet.
 * @return 1 when p may be processed further. */
int
hct_membership(struct hct *t, struct hct_flow *f, const struct hct_pkt *p)
{
	if (p->type == HCT_TYPE_HELLO || p->type == HCT_TYPE_HELLO_ACK) {
		uint64_t start = p->sack[0];

		/* Replays of an earlier run (deliverable 4 of issue 10): an
		 * incarnation that started long before ours is not a peer. */
		if (start != 0 && t->conf.start_ns != 0 &&
		    start + t->conf.stale_window_ns < t->conf.start_ns) {
			t->stats.stale_rx++;
			return 0;
		}
		if (f->peer_nonce != 0 && f->peer_nonce != p->src_nonce &&
		    t->meeting && start != 0 && f->peer_start_ns != 0 &&
		    RTE_MAX(start, f->peer_start_ns) -
		    RTE_MIN(start, f->peer_start_ns) <
		    t->conf.stale_window_ns / 2) {
			/* Two nonces of one rank before every peer is met,
			 * the second started before or after the first (a
			 * twin that started first may be heard second),
			 * of incarnations that started within half the stale
			 * window (init timeout + 1 s) of each other: two
			 * processes run with that rank id (C36). A start
			 * that much later is a restart (C18: a rank whose hc_init timed
			 * out tries again), and so is a nonce whose start we
			 * do not know (learnt from a DATA or ACK, or a
			 * simulated rank without a wall clock). */
			if (!t->dup_seen)
				HC_LOG(ERR, TRANSPORT, "rank %u: rank %u says "
				       "HELLO with nonce %08x and with %08x: two "
				       "processes run as rank %u (duplicate rank "
				       "id)", t->conf.rank, f->peer,
				       f->peer_nonce, p->src_nonce, f->peer);
			t->dup_seen = 1;
			t->dup_rank = f->peer;
			t->stats.stale_rx++;
			return 0;
		}
		/* An incarnation that started before the one of that rank we
		 * know (and not within half the window of it: not a twin) is
		 * an old one, replayed or late: not a restart. */
		if (f->peer_nonce != 0 && f->peer_nonce != p->src_nonce &&
		    start != 0 && start < f->peer_start_ns) {
			t->stats.stale_rx++;
			return 0;
		}
		if (f->peer_nonce != 0 && f->peer_nonce != p->src_nonce &&
		    t->meeting && f->snd_nxt == t->conf.initial_psn &&
		    f->rcv_nxt == t->conf.initial_psn) {
			/* Restarted while we still meet the peers (C18: its
			 * hc_init timed out before ours and it tries again),
			 * and nothing but HELLOs exchanged: meet the new
			 * incarnation instead of the old. */
			if (f->state == HCT_FLOW_ESTABLISHED)
				t->n_init++;
			f->state = HCT_FLOW_INIT;
			f->hello_acked = 0;
			f->peer_nonce = 0;
			f->next_hello_ns = 0;
		}
		if (f->peer_nonce != 0 && f->peer_nonce != p->src_nonce) {
			/* A new incarnation of that rank: what we had with
			 * the old one cannot continue. */
			flow_lost(t, f, "it restarted (new nonce)");
			return 0;
		}
		if (p->length != 0 && p->length != t->net->port->mtu) {
			/* Answer first, so that the peer learns it too, then
			 * refuse to establish the flow (hc_init fails). */
			if (t->mtu_bad_rank1 == 0)
				HC_LOG(ERR, TRANSPORT, "rank %u has [net] mtu "
				       "%u, this rank (%u) %u: every rank of "
				       "a job needs the same MTU", f->peer,
				       p->length, t->conf.rank,
				       t->net->port->mtu);
			t->mtu_bad_rank1 = f->peer + 1;
			t->mtu_bad_peer_mtu = p->length;
			if (p->type == HCT_TYPE_HELLO)
				hct_send_ctrl(t, f, HCT_TYPE_HELLO_ACK,
					      hc_clock_now(t->clk));
			return 0;
		}
		f->peer_nonce = p->src_nonce;
		f->peer_start_ns = start;
		f->peer_always_on = (p->flags & HCT_F_ALWAYS_ON) != 0;
		f->peer_cov_accept = p->cov_accept == 1;
		t->live_next_ns = 0; /* its peer timeout may apply now */
		/* Its first grant, until its ACKs say more. */
		if (f->peer_credit == 0)
			f->peer_credit = p->credit;
		if (p->type == HCT_TYPE_HELLO)
			hct_send_ctrl(t, f, HCT_TYPE_HELLO_ACK,
				      hc_clock_now(t->clk));
		else if (p->dst_nonce == t->conf.nonce)
			f->hello_acked = 1;
	} else {
		/* Anything else must name both incarnations; a peer that
		 * sends it has seen our HELLO, which acknowledges it. */
		if (p->dst_nonce != t->conf.nonce ||
		    (f->peer_nonce != 0 && p->src_nonce != f->peer_nonce)) {
			t->stats.stale_rx++; /* another run's, or a peer's
					      * old incarnation's */
			return 0;
		}
		f->peer_nonce = p->src_nonce;
		f->hello_acked = 1;
	}
	if (f->state == HCT_FLOW_INIT && f->hello_acked && f->peer_nonce != 0) {
		f->state = HCT_FLOW_ESTABLISHED;
		f->last_rx_ns = hc_clock_now(t->clk);
		if (t->n_init > 0)
			t->n_init--;
		if (t->n_init == 0)
			t->meeting = 0; /* every peer met once */
		t->live_next_ns = 0;
	}
	return f->state != HCT_FLOW_LOST;
}

/* Keepalive: a peer we have not heard from for keepalive_ns gets a probe
 * (an ACK asking for an ACK); one that advertised always-on progress and
 * stays silent for peer_timeout_ns is lost. Without always-on progress a
 * silent peer may just be computing between two calls. */
static uint32_t
liveness(struct hct *t, struct hct_flow *f, uint64_t now)
{
	uint64_t quiet = now - f->last_rx_ns;

	if (t->conf.peer_timeout_ns != 0 && f->peer_always_on &&
	    quiet > t->conf.peer_timeout_ns) {
		flow_lost(t, f, "silent for longer than the peer timeout");
		return 0;
	}
	if (t->conf.keepalive_ns == 0 || quiet < t->conf.keepalive_ns ||
	    now - f->last_probe_ns < t->conf.keepalive_ns)
		return 0;
	f->last_probe_ns = now;
	return hct_send_probe(t, f, now) == 0;
}

/* The earliest time at which liveness() may act on an established f:
 * its peer timeout passed, or a keepalive probe is due. */
static uint64_t
liveness_due(const struct hct *t, const struct hct_flow *f)
{
	uint64_t due = UINT64_MAX;

	if (f->state != HCT_FLOW_ESTABLISHED)
		return due;
	if (t->conf.peer_timeout_ns != 0 && f->peer_always_on)
		due = f->last_rx_ns + t->conf.peer_timeout_ns + 1;
	if (t->conf.keepalive_ns != 0)
		due = RTE_MIN(due, RTE_MAX(f->last_rx_ns, f->last_probe_ns) +
				   t->conf.keepalive_ns);
	return due;
}

/* HELLOs go over the flows only while some are in HCT_FLOW_INIT; the
 * liveness pass runs only once its earliest deadline has come. That
 * deadline is computed by the pass itself; the packets that arrive
 * meanwhile only move the flows' deadlines later (last_rx_ns grows),
 * so it errs early, never late, and a flow that becomes established or
 * changes its always-on flag resets it. */
uint32_t
hct_hello_tick(struct hct *t, uint64_t now)
{
	uint32_t i, sent = 0, n_init = 0;
	uint64_t next = UINT64_MAX;

	if (t->n_init != 0) {
		for (i = 0; i < t->conf.world_size; i++) {
			struct hct_flow *f = &t->flows[i];

			if (i == t->conf.rank ||
			    f->state != HCT_FLOW_INIT)
				continue;
			n_init++;
			if (f->hello_acked || now < f->next_hello_ns)
				continue;
			f->next_hello_ns = now + t->conf.hello_interval_ns;
			if (hct_send_ctrl(t, f, HCT_TYPE_HELLO, now) == 0)
				sent++;
		}
		t->n_init = n_init;
	}
	if (now < t->live_next_ns)
		return sent;
	for (i = 0; i < t->conf.world_size; i++) {
		struct hct_flow *f = &t->flows[i];

		if (i == t->conf.rank || f->state != HCT_FLOW_ESTABLISHED)
			continue;
		sent += liveness(t, f, now);
		next = RTE_MIN(next, liveness_due(t, f));
	}
	t->live_next_ns = next;
	return sent;
}
