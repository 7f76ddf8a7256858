/* SPDX-License-Identifier: BSD-3-Clause */
/* Time-based loss detection: RACK and the tail-loss probe (RFC 8985),
 * in packets; see cc.h for the rules. */
#include <rte_common.h>

#include "hypercomm.h"
#include "hct.h"
#include "hct_internal.h"

/* RFC 8985 section 6.2 step 4: reo_wnd_persist, and a cap on the
 * multiplier (reo_wnd is at most SRTT anyway). The multiplier doubles
 * where the RFC adds 1: on tap, where a thread moving between CPUs
 * reorders by milliseconds while min_rtt is tens of µs, +1 per SRTT
 * never catches up. */
#define HCT_REO_PERSIST 16
#define HCT_REO_MULT_MAX 4096

/* RFC 8985 section 6.2: RACK.xmit_ts, RACK.end_seq, RACK.rtt from a
 * packet just delivered (cumulatively or by SACK). */
void
hct_rack_delivered(struct hct *t, struct hct_flow *f, uint32_t psn,
		   uint64_t ts_echo, uint64_t now)
{
	const struct hct_slot *s = &f->slots[psn & t->mask];
	struct hct_cc *cc = &f->cc;
	uint64_t rtt = now - s->sent_ns;

	/* Eifel (RFC 3522): the ACK was caused by a DATA packet sent before
	 * this retransmission, so the original arrived. */
	if (s->xmits > 1 && ts_echo != 0 && ts_echo < s->sent_ns) {
		f->stats.spurious_retx++;
		cc->reo_persist = HCT_REO_PERSIST;
		if (cc->last_spurious_ns == 0 ||
		    now - cc->last_spurious_ns >= f->srtt_ns) {
			cc->last_spurious_ns = now;
			cc->reo_mult = RTE_MIN(cc->reo_mult * 2,
					       (uint32_t)HCT_REO_MULT_MAX);
		}
	}

	/* The probe (or the original it repeats) arrived: the TLP episode
	 * is over either way (RFC 8985 section 7.4). */
	if (cc->tlp_out && psn == cc->tlp_psn)
		cc->tlp_out = 0;
	/* An ACK faster than min_rtt after a retransmission may be the
	 * original's: no information on the retransmission's fate. */
	if (s->xmits > 1 && cc->min_rtt_ns != 0 && rtt < cc->min_rtt_ns)
		return;
	if (s->sent_ns > cc->rack_xmit_ns ||
	    (s->sent_ns == cc->rack_xmit_ns &&
	     hct_psn_lt(cc->rack_psn, psn))) {
		cc->rack_xmit_ns = s->sent_ns;
		cc->rack_psn = psn;
		cc->rack_rtt_ns = rtt;
	}
}

static uint64_t
reo_wnd(const struct hct *t, const struct hct_flow *f)
{
	uint64_t base = t->conf.cc.reo_wnd_ns != 0 ? t->conf.cc.reo_wnd_ns
						   : f->cc.min_rtt_ns / 4;
	uint64_t w = base * RTE_MAX(f->cc.reo_mult, 1u);

	return f->cc.reo_mult > 1 && f->srtt_ns != 0 ? RTE_MIN(w, f->srtt_ns)
						     : w;
}

/* RFC 8985 section 6.2 step 5 (RACK_detect_loss): retransmit every packet
 * sent before the RACK packet that has been out for rack_rtt + reo_wnd;
 * arm the RACK timer for the first that will be. The walk goes through
 * the held packets oldest transmission first (f->tsent) and stops at the
 * first one sent after the RACK packet or not yet due, as Linux's
 * tcp_rack_detect_loss() (net/ipv4/tcp_recovery.c) does: every later one
 * is sent later still, so neither lost nor due sooner. Without loss that
 * is the first packet looked at, instead of the whole window per ACK.
 * @return retransmitted. */
uint32_t
hct_rack_detect(struct hct *t, struct hct_flow *f, uint64_t now)
{
	struct hct_cc *cc = &f->cc;
	uint64_t wait = cc->rack_rtt_ns + reo_wnd(t, f), first = 0;
	struct hct_slot *s, *next, *last;
	uint32_t sent = 0;

	cc->rack_deadline_ns = 0;
	if (cc->rack_xmit_ns == 0)
		return 0;
	/* Retransmissions move to the tail: stop at today's tail. */
	last = TAILQ_LAST(&f->tsent, hct_slot_list);
	for (s = TAILQ_FIRST(&f->tsent); s != NULL; s = next) {
		uint64_t due = s->sent_ns + wait;
		uint32_t psn = s->psn;

		next = s == last ? NULL : TAILQ_NEXT(s, tlink);
		if (s->sent_ns > cc->rack_xmit_ns)
			break;
		/* Sent at the same time as the delivered one: ties go by
		 * PSN, except that a retransmission counts as later than any
		 * first copy sent at the same time. Such ties are not in
		 * PSN order in the list: look at each. */
		if (s->sent_ns == cc->rack_xmit_ns &&
		    (s->xmits > 1 || !hct_psn_lt(psn, cc->rack_psn)))
			continue;
		if (now < due) {
			first = due; /* the earliest: due grows along the list */
			break;
		}
		if (hct_retransmit(t, f, psn, now) == 0) {
			f->stats.retransmits_rack++;
			sent++;
		}
	}
	cc->rack_deadline_ns = first;
	if (sent != 0) {
		hct_cc_on_loss(t, f, 0, now);
		if (cc->reo_persist != 0 && --cc->reo_persist == 0)
			cc->reo_mult = 1;
	}
	return sent;
}

/* RFC 8985 section 7.2: PTO = 2 * SRTT + WCDelAckT, at least tlp_min; the
 * timer runs from the last new transmission, at least one SRTT from now,
 * and only while data is out, no probe is, and it beats the RTO. */
void
hct_tlp_arm(struct hct *t, struct hct_flow *f, uint64_t now)
{
	const struct hct_cc_conf *c = &t->conf.cc;
	struct hct_cc *cc = &f->cc;
	uint64_t pto, due, rtt;

	cc->tlp_deadline_ns = 0;
	if (cc->recovery && !hct_psn_lt(f->snd_una, cc->recovery_end))
		cc->recovery = 0;
	/* A probe acknowledged cumulatively is over too. */
	if (cc->tlp_out && hct_psn_lt(cc->tlp_psn, f->snd_una))
		cc->tlp_out = 0;
	if (f->snd_una == f->snd_nxt || cc->tlp_out || cc->recovery ||
	    f->srtt_ns == 0)
		return;
	/* A tail that ends a message is acknowledged at once (rx.c; held
	 * at most a quarter fabric RTT when it said HCT_F2_TX_IDLE): its
	 * ACK is due one fabric RTT (the RTT minus the receiver's echoed
	 * host delay, smoothed) after it left, with no delayed-ACK
	 * allowance (WCDelAckT); the probe waits 1.5 of those, half an RTT
	 * of margin for queueing (a needless probe costs one packet). Other
	 * tails wait RFC 8985's 2 SRTT + WCDelAckT. */
	if (cc->tail_last && cc->fabric_srtt_ns != 0) {
		rtt = cc->fabric_srtt_ns;
		pto = 3 * rtt / 2;
	} else {
		rtt = f->srtt_ns;
		pto = 2 * rtt + c->tlp_ack_delay_ns;
	}
	pto = RTE_MAX(pto, c->tlp_min_ns);
	due = RTE_MAX(cc->last_new_ns + pto, now + rtt);
	if (f->rto_deadline_ns != 0 && due >= f->rto_deadline_ns)
		return;
	cc->tlp_deadline_ns = due;
}

/* RFC 8985 section 7.3: send the probe, the highest unacknowledged
 * packet again (new data, when there is any the window allows, went out
 * through hct_tx() already), and restart the RTO. @return 1 if sent. */
static uint32_t
tlp_fire(struct hct *t, struct hct_flow *f, uint64_t now)
{
	struct hct_cc *cc = &f->cc;
	uint32_t psn;

	cc->tlp_deadline_ns = 0;
	for (psn = f->snd_nxt; psn != f->snd_una;) {
		const struct hct_slot *s = &f->slots[--psn & t->mask];

		if (s->m == NULL || s->sacked)
			continue;
		f->stats.tlps++;
		if (hct_retransmit(t, f, psn, now) != 0)
			return 0;
		f->stats.retransmits_tlp++;
		cc->tlp_out = 1;
		cc->tlp_psn = psn;
		f->rto_deadline_ns = now + f->rto_ns;
		return 1;
	}
	return 0;
}

uint32_t
hct_loss_tick(struct hct *t, struct hct_flow *f, uint64_t now)
{
	struct hct_cc *cc = &f->cc;
	uint32_t sent = 0;

	if (cc->rack_deadline_ns != 0 && now >= cc->rack_deadline_ns)
		sent += hct_rack_detect(t, f, now);
	if (cc->tlp_deadline_ns != 0 && now >= cc->tlp_deadline_ns)
		sent += tlp_fire(t, f, now);
	return sent;
}
