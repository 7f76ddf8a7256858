/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive path: demultiplex, DATA acceptance, ACK/SACK processing. */
#include <inttypes.h>

#include <rte_common.h>

#include "hypercomm.h"
#include "hct.h"
#include "cpustat.h"
#include "hct_internal.h"
#include "log.h"

/* How long the ACK of a message's end that said HCT_F2_TX_IDLE may wait
 * for DATA of ours to carry it: ack_delay, and at most a quarter of our
 * fabric RTT to the peer (the smoothed RTT minus the receiver's echoed
 * delay of our own DATA), so that the ACK still arrives well before the
 * sender's tail-loss probe, 1.5 fabric RTTs after the tail left (loss.c):
 * no needless probe, and a lost tail is repaired as fast as before
 * (test_simxport "last packet lost"). 0 (at once) until an RTT was
 * measured. Over memif at 2 ranks a quarter RTT is enough for the next
 * all-reduce's DATA to carry the ACK: the 8-byte p50 went from 4.1-4.3
 * to 1.9-2.0 us (2026-12-04, hc-perf -b 8 -e 8 -n 10000 -P, alternating
 * ack_delay_us 0 and 20 twice). */
static inline uint64_t
ack_hold_ns(const struct hct *t, const struct hct_flow *f)
{
	return RTE_MIN(t->conf.ack_delay_ns, f->cc.fabric_srtt_ns / 4);
}

/* RFC 6298 section 2: SRTT, RTTVAR and RTO from one RTT sample. */
static void
rtt_sample(struct hct *t, struct hct_flow *f, uint64_t rtt)
{
	if (f->srtt_ns == 0) {
		f->srtt_ns = rtt;
		f->rttvar_ns = rtt / 2;
	} else {
		uint64_t err = rtt > f->srtt_ns ? rtt - f->srtt_ns
						: f->srtt_ns - rtt;

		f->rttvar_ns = (3 * f->rttvar_ns + err) / 4; /* beta 1/4 */
		f->srtt_ns = (7 * f->srtt_ns + rtt) / 8;      /* alpha 1/8 */
	}
	f->rto_ns = RTE_MAX(f->srtt_ns + 4 * f->rttvar_ns, t->conf.rto_min_ns);
	f->rto_ns = RTE_MIN(f->rto_ns, t->conf.rto_max_ns);
}

/* PSNs ahead at which a cumulative ACK prefetches the mbufs it will free
 * (hct_on_ack()). */
#define HCT_ACK_PREFETCH 4

static void
release(struct hct_flow *f, struct hct_slot *s)
{
	if (s->m == NULL)
		return;
	TAILQ_REMOVE(&f->tsent, s, tlink);
	rte_pktmbuf_free(s->m);
	s->m = NULL;
}

/* Retransmit holes below the highest SACKed PSN that have at least
 * DUPTHRESH SACKed packets above them and were not sent within the
 * last SRTT (RFC 6675 section 5, simplified to one pass per ACK). The
 * pass starts at the highest SACKed PSN (f->sack_end), not at snd_nxt:
 * above it no packet has a SACKed one above it. */
#define HCT_DUPTHRESH 3

static void
sack_recovery(struct hct *t, struct hct_flow *f, uint64_t now)
{
	uint32_t psn, above = 0, sent = 0;
	uint64_t guard = f->srtt_ns != 0 ? f->srtt_ns : t->conf.rto_min_ns;
	uint32_t start = hct_psn_lt(f->snd_una, f->sack_end) ? f->sack_end
							       : f->snd_una;

	for (psn = start; psn != f->snd_una;) {
		struct hct_slot *s;

		psn--;
		s = &f->slots[psn & t->mask];
		if (s->sacked) {
			above++;
			continue;
		}
		if (above >= HCT_DUPTHRESH && s->m != NULL &&
		    now - s->sent_ns > guard &&
		    hct_retransmit(t, f, psn, now) == 0) {
			f->stats.retransmits_sack++;
			sent++;
		}
	}
	if (sent != 0)
		hct_cc_on_loss(t, f, 0, now);
}

/* A packet of f leaves the flight: delivered, its mbuf released. */
static void
delivered(struct hct *t, struct hct_flow *f, uint32_t psn,
	  const struct hct_pkt *p, uint64_t now)
{
	struct hct_slot *s = &f->slots[psn & t->mask];

	hct_rack_delivered(t, f, psn, p->ts_echo_ns, now);
	release(f, s);
}

/* The SACK bits of p (bit i: PSN ack_psn + 1 + i received), a word at
 * a time: only the set bits within [snd_una, snd_nxt) are visited, in
 * PSN order, so an ACK without SACK bits (no loss, the common case)
 * costs nothing here. Bit by bit over every PSN in flight it cost a slot
 * read per packet in flight on every ACK (each DATA packet carries one).
 * SACK bits of an ACK older than snd_una describe PSNs whose slots now
 * hold newer packets still in flight: they are masked off. Needs
 * ack_psn < snd_nxt. Returns the packets newly SACKed. */
static uint32_t
sack_input(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
	   uint64_t now, int *sacked_any)
{
	uint32_t base = p->ack_psn + 1, lo, hi, w, n = 0;

	lo = hct_psn_lt(p->ack_psn, f->snd_una) ? f->snd_una - base : 0;
	hi = RTE_MIN(f->snd_nxt - base, (uint32_t)HCT_SACK_BITS);
	for (w = 0; w < HCT_SACK_BITS / 64; w++) {
		uint32_t b0 = w * 64;
		uint64_t bits = p->sack[w];

		if (lo > b0)
			bits &= lo - b0 >= 64 ? 0 : ~0ULL << (lo - b0);
		if (hi < b0 + 64)
			bits &= hi <= b0 ? 0 : (1ULL << (hi - b0)) - 1;
		while (bits != 0) {
			uint32_t psn = base + b0 + (uint32_t)__builtin_ctzll(bits);
			struct hct_slot *s = &f->slots[psn & t->mask];

			bits &= bits - 1;
			if (s->sacked)
				continue;
			s->sacked = 1;
			f->n_sacked++;
			if (hct_psn_lt(f->sack_end, psn + 1))
				f->sack_end = psn + 1;
			delivered(t, f, psn, p, now);
			n++;
			*sacked_any = 1;
		}
	}
	return n;
}

void
hct_on_ack(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
	   uint64_t now)
{
	uint32_t ack = p->ack_psn, psn, num_acked = 0;
	int sacked_any = 0;

	if (!(p->flags & HCT_F_ACK_VALID))
		return;
	if (p->credit != 0)
		f->peer_credit = p->credit;
	/* Refused for lack of room is not lost: the retry budget counts
	 * only timeouts that hear nothing from the peer. */
	if (p->flags & HCT_F_RNR)
		f->rto_retries = 0;
	if (hct_psn_lt(f->snd_nxt, ack)) {
		t->stats.stray_rx++; /* acknowledges what we never sent */
		f->stats.stray_rx++;
		return;
	}
	if (p->ts_echo_ns != 0 && p->ts_echo_ns <= now) {
		uint64_t rtt = now - p->ts_echo_ns;

		rtt = rtt > p->host_delay_ns ? rtt - p->host_delay_ns : rtt;
		if (hct_psn_lt(f->snd_una, ack))
			rtt_sample(t, f, rtt);
	}
	if (hct_psn_lt(f->snd_una, ack)) {
		for (psn = f->snd_una; psn != ack; psn++) {
			struct hct_slot *s = &f->slots[psn & t->mask];

			/* The mbufs an ACK frees were sent a window ago and
			 * are cold: fetch those a few PSNs ahead, both cache
			 * lines rte_pktmbuf_free() reads (refcnt; next,
			 * pool), so the misses overlap. */
			if (ack - psn > HCT_ACK_PREFETCH) {
				struct rte_mbuf *ahead = f->slots[
					(psn + HCT_ACK_PREFETCH) & t->mask].m;

				if (ahead != NULL) {
					rte_prefetch0(ahead);
					rte_prefetch0(&ahead->cacheline1);
				}
			}

			if (s->sacked) {
				f->n_sacked--;
				s->sacked = 0;
			} else {
				delivered(t, f, psn, p, now);
				num_acked++;
			}
		}
		f->snd_una = ack;
		f->rto_deferred = 0;
		if (f->rto_undo) {
			/* The first ACK of new data after an RTO: caused by a
			 * packet sent before the RTO fired, the timeout was
			 * spurious (Eifel, RFC 3522); undo its window cut
			 * (RFC 4015). The backoff goes with the RTT sample
			 * taken above. */
			f->rto_undo = 0;
			if (p->ts_echo_ns != 0 &&
			    p->ts_echo_ns < f->rto_fired_ns) {
				f->stats.rtos_spurious++;
				f->cc.fcwnd = RTE_MAX(f->cc.fcwnd,
						      f->rto_undo_fcwnd);
				f->cc.ecwnd = RTE_MAX(f->cc.ecwnd,
						      f->rto_undo_ecwnd);
			}
		}
		/* Kept within [snd_una, snd_nxt] so that PSN comparisons
		 * with it never wrap. */
		if (hct_psn_lt(f->sack_end, ack))
			f->sack_end = ack;
		f->rto_retries = 0;
		/* RFC 6298 5.3: restart the timer on new data acknowledged. */
		f->rto_deadline_ns = f->snd_una == f->snd_nxt ? 0
							     : now + f->rto_ns;
	}
	if (hct_psn_lt(ack, f->snd_nxt) && (p->sack[0] | p->sack[1]) != 0)
		num_acked += sack_input(t, f, p, now, &sacked_any);
	hct_cc_on_ack(t, f, p, num_acked, now);
	if (sacked_any) {
		/* The peer is receiving: only silence spends the budget. */
		f->rto_retries = 0;
		sack_recovery(t, f, now);
	}
	if (num_acked != 0) {
		hct_rack_detect(t, f, now);
		hct_tlp_arm(t, f, now);
	}
	hct_timer_update(t, f);
}

static void
data_input(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
	   const uint8_t *payload, struct rte_mbuf *m, uint8_t tos,
	   uint64_t now)
{
	struct hct_data_desc d;
	enum hct_rx_verdict v;
	uint32_t psn = p->psn;
	uint64_t hold;

	if (hct_psn_lt(psn, f->rcv_nxt) || hct_rx_bit(t, f, psn)) {
		f->stats.dup_rx++;
		f->ack_now = 1; /* the ACK that would have stopped it was lost */
		hct_ack_pending(t, f);
		rte_pktmbuf_free(m);
		return;
	}
	if (psn - f->rcv_nxt > t->mask) {
		t->stats.stray_rx++; /* beyond any window the peer may use */
		f->stats.stray_rx++;
		rte_pktmbuf_free(m);
		return;
	}
	d.comm_id = p->comm_id;
	d.coll_seq = p->coll_seq;
	d.sig = p->sig;
	d.step = p->step;
	d.offset = p->offset;
	d.length = p->length;
	v = t->up.data(t->up_ctx, f->peer, &d, payload, m);
	if (v == HCT_RX_REJECT) {
		t->stats.rejected_rx++;
		f->stats.rejected_rx++;
		f->rnr = 1;
		f->ack_now = 1;
		hct_ack_pending(t, f);
		rte_pktmbuf_free(m);
		return;
	}
	if (v == HCT_RX_CONSUMED)
		rte_pktmbuf_free(m);
	f->stats.data_rx++;
	f->stats.data_rx_hdr_cov += p->cov == HCT_COV_HDR;
	hct_credit_rx(t, f, now);
	f->stats.bytes_rx += p->length;
	hct_cc_rx_data(f, tos);
	hold = (p->flags & HCT_F_LAST) && (p->flags2 & HCT_F2_TX_IDLE) ?
	       ack_hold_ns(t, f) : 0;
	if (psn != f->rcv_nxt || (p->flags & HCT_F_RETX)) {
		f->ack_now = 1; /* a hole, or a retransmission: at once */
	} else if (hold != 0) {
		/* The end of a message whose sender has nothing more queued
		 * for us: hold the ACK a little for DATA of ours to carry it
		 * (a back-to-back collective's next step). */
		if (f->ack_due_ns == 0)
			f->ack_due_ns = now + hold;
	} else {
		f->ack_due_ns = 0; /* the sender is busy: no holding */
		if (p->flags & HCT_F_LAST)
			f->ack_now = 1; /* a message's end (the sender's
					 * tail-loss probe counts on it) */
	}
	hct_rx_bit_set(t, f, psn, 1);
	while (hct_rx_bit(t, f, f->rcv_nxt)) {
		hct_rx_bit_set(t, f, f->rcv_nxt, 0);
		f->rcv_nxt++;
	}
	f->echo_ts_ns = p->ts_ns;
	f->echo_arrival_ns = now;
	if (++f->rx_unacked >= t->conf.ack_every)
		f->ack_now = 1;
	hct_ack_pending(t, f);
}

/* A HELLO of our job whose world size (its offset field, hct_hdr.h) is
 * not ours: the ranks' cluster files disagree (C36). Logged once. */
static void
world_size_differs(struct hct *t, const struct hct_pkt *p)
{
	if (t->ws_theirs == 0)
		HC_LOG(ERR, TRANSPORT, "rank %u: rank %u runs with world_size %"
		       PRIu64 ", this rank with %u: the ranks disagree on the "
		       "world size", t->conf.rank, p->src_rank, p->offset,
		       t->conf.world_size);
	t->ws_peer = p->src_rank;
	t->ws_theirs = (uint32_t)RTE_MIN(p->offset, (uint64_t)UINT32_MAX);
	/* Tell it ours, so that it fails naming the sizes too, even when
	 * our HELLOs went out before it listened. */
	if (p->type == HCT_TYPE_HELLO && p->src_rank < t->conf.world_size &&
	    p->src_rank != t->conf.rank)
		hct_send_ctrl(t, &t->flows[p->src_rank], HCT_TYPE_HELLO,
			      hc_clock_now(t->clk));
}

void
hct_input(void *arg, uint32_t src_ip, uint8_t tos, struct rte_mbuf *m,
	  const uint8_t *payload, uint16_t len)
{
	struct hct *t = arg;
	struct hct_flow *f;
	struct hct_pkt p;
	uint64_t now, c0;
	int crc_ok, hdr_cov, accept_hdr = 0;

	/* Authenticated mode: the tag first, before anything reads the
	 * packet; from here on len excludes it. */
	if (t->conf.auth) {
		if (!hct_auth_ok(t, payload, len)) {
			t->stats.bad_tag_rx++;
			t->stats.stray_rx++;
			rte_pktmbuf_free(m);
			return;
		}
		len -= HCT_TAG_LEN;
	}
	/* Header-only coverage (hct_hdr.h "CRC coverage") only from a peer
	 * we said cov_accept 1 to: its rank read raw here, the CRC check of
	 * the header then vouches for it. */
	hdr_cov = len >= HCT_HDR_LEN && hct_cov_of(payload) == HCT_COV_HDR;
	if (hdr_cov) {
		const struct hct_flow *fa = hct_flow(t,
			(uint32_t)payload[HCT_OFF(src_rank)] << 8 |
			payload[HCT_OFF(src_rank) + 1]);

		accept_hdr = fa != NULL && fa->cov_rx_ok;
	}
	c0 = hc_cpustat_begin(); /* payload: the CRC32C pass */
	crc_ok = len >= HCT_HDR_LEN && hct_crc_ok(payload, len, accept_hdr);

	hc_cpustat_end(c0);
	if (len >= HCT_HDR_LEN && !crc_ok) {
		t->stats.crc_rx++; /* corrupted past the UDP checksum */
		t->stats.cov_refused_rx += hdr_cov && !accept_hdr;
		rte_pktmbuf_free(m);
		return;
	}
	if (hct_hdr_decode(payload, len, &p) != 0) {
		t->stats.malformed_rx++;
		goto stray;
	}
	if (p.job_id != t->conf.job_id) {
		t->stats.other_job_rx++;
		goto stray;
	}
	if ((p.type == HCT_TYPE_HELLO || p.type == HCT_TYPE_HELLO_ACK) &&
	    p.offset != 0 && p.offset != t->conf.world_size) {
		world_size_differs(t, &p);
		goto stray;
	}
	if (p.dst_rank != t->conf.rank ||
	    (f = hct_flow(t, p.src_rank)) == NULL || f->peer_ip != src_ip) {
		t->stats.misaddr_rx++;
		goto stray;
	}
	if (!hct_membership(t, f, &p))
		goto stray;
	now = t->rx_now_ns != 0 ? t->rx_now_ns : hc_clock_now(t->clk);
	f->last_rx_ns = now;
	if (p.flags & HCT_F_PROBE) {
		f->ack_now = 1;
		hct_ack_pending(t, f);
	}
	switch (p.type) {
	case HCT_TYPE_DATA:
		hct_on_ack(t, f, &p, now);
		data_input(t, f, &p, payload + HCT_HDR_LEN, m, tos, now);
		return;
	case HCT_TYPE_ACK:
		hct_on_ack(t, f, &p, now);
		break;
	default:
		break;
	}
	rte_pktmbuf_free(m);
	return;
stray:
	t->stats.stray_rx++;
	rte_pktmbuf_free(m);
}
