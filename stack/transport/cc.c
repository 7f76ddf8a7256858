/* SPDX-License-Identifier: BSD-3-Clause */
/* Congestion control: the window law of cc.h, pacing, ECN echo. */
#include <math.h>

#include <rte_common.h>

#include "hypercomm.h"
#include "hct.h"
#include "hct_internal.h"

static double
clamp_cwnd(const struct hct_cc_conf *c, double w)
{
	return RTE_MAX(c->min_cwnd, RTE_MIN(w, c->max_cwnd));
}

static void
set_effective(struct hct *t, struct hct_flow *f)
{
	struct hct_cc *cc = &f->cc;

	cc->fcwnd = clamp_cwnd(&t->conf.cc, cc->fcwnd);
	cc->ecwnd = clamp_cwnd(&t->conf.cc, cc->ecwnd);
	cc->cwnd = RTE_MIN(cc->fcwnd, cc->ecwnd);
}

void
hct_cc_flow_init(struct hct *t, struct hct_flow *f)
{
	const struct hct_cc_conf *c = &t->conf.cc;
	struct hct_cc *cc = &f->cc;

	cc->fcwnd = c->init_cwnd;
	cc->ecwnd = t->conf.cc.algo == HCT_CC_SWIFT ? c->init_cwnd
						    : c->max_cwnd;
	cc->alpha = 1.0;
	cc->reo_mult = 1;
	set_effective(t, f);
}

/* The window a flow may use, in packets, and the pacing bucket depth. */
static double
window(const struct hct *t, const struct hct_flow *f)
{
	return t->conf.cc.algo == HCT_CC_FIXED ? t->conf.window_pkts
					       : f->cc.cwnd;
}

static uint32_t
burst(const struct hct *t, const struct hct_flow *f)
{
	uint32_t b = (uint32_t)f->cc.cwnd;

	return RTE_MAX(1u, RTE_MIN(b, t->conf.cc.pace_burst));
}

static double
pace_gap_ns(const struct hct_flow *f)
{
	return (double)f->srtt_ns / f->cc.cwnd;
}

static int
paced(const struct hct *t, const struct hct_flow *f)
{
	return t->conf.cc.algo != HCT_CC_FIXED && f->srtt_ns != 0 &&
	       t->conf.cc.pace_burst != 0;
}

int
hct_cc_can_send(const struct hct *t, const struct hct_flow *f, uint64_t now,
		uint32_t extra)
{
	uint32_t out = f->snd_nxt - f->snd_una;
	uint32_t inflight = out - f->n_sacked;

	if (out >= t->conf.window_pkts) /* no free slot */
		return 0;
	if (inflight != 0 && (double)inflight >= window(t, f) + extra)
		return 0;
	return extra != 0 || !paced(t, f) || now >= f->cc.pace_next_ns;
}

uint64_t
hct_cc_next_send(const struct hct *t, const struct hct_flow *f)
{
	uint32_t out = f->snd_nxt - f->snd_una;
	uint32_t inflight = out - f->n_sacked;

	if (f->in_txlist == 0 || out >= t->conf.window_pkts ||
	    (inflight != 0 && (double)inflight >= window(t, f)))
		return UINT64_MAX; /* an ACK must come first */
	return paced(t, f) ? f->cc.pace_next_ns : 0;
}

void
hct_cc_on_send(struct hct *t, struct hct_flow *f, uint64_t now)
{
	struct hct_cc *cc = &f->cc;
	double gap;
	uint64_t floor;

	cc->last_new_ns = now;
	if (!paced(t, f))
		return;
	gap = pace_gap_ns(f);
	floor = now - (uint64_t)((burst(t, f) - 1) * gap);
	cc->pace_next_ns = RTE_MAX(cc->pace_next_ns, floor) + (uint64_t)gap;
}

static int
can_decrease(const struct hct_flow *f, uint64_t now)
{
	return f->cc.last_decrease_ns == 0 ||
	       now - f->cc.last_decrease_ns >= f->srtt_ns;
}

/* A cut happened (fabric and endpoint windows were f0, e0 before it):
 * clamp, and count it if it changed a window. */
static void
decreased(struct hct *t, struct hct_flow *f, double f0, double e0,
	  uint64_t now)
{
	f->cc.last_decrease_ns = now;
	set_effective(t, f);
	if (f->cc.fcwnd < f0 || f->cc.ecwnd < e0)
		f->stats.cwnd_decreases++;
}

/* Swift's flow-scaling term (section 3.5): more target delay for a
 * smaller window, so that many flows sharing a bottleneck converge. */
static double
fs_delay_ns(const struct hct_cc_conf *c, double w)
{
	double a, b, d;

	if (c->fs_range_ns == 0 || c->fs_min_cwnd >= c->fs_max_cwnd)
		return 0;
	a = (double)c->fs_range_ns /
	    (1.0 / sqrt(c->fs_min_cwnd) - 1.0 / sqrt(c->fs_max_cwnd));
	b = -a / sqrt(c->fs_max_cwnd);
	d = a / sqrt(w) + b;
	return RTE_MAX(0.0, RTE_MIN(d, (double)c->fs_range_ns));
}

uint64_t
hct_cc_fabric_target_ns(const struct hct *t, const struct hct_flow *f)
{
	const struct hct_cc_conf *c = &t->conf.cc;

	return c->base_target_ns + c->hops * c->hop_scale_ns +
	       (uint64_t)fs_delay_ns(c, f->cc.fcwnd);
}

/* One window of Swift's Algorithm 1 on an ACK. @return 1 on a cut. */
static int
swift_window(const struct hct_cc_conf *c, double *w, uint64_t delay,
	     uint64_t target, uint32_t num_acked, int may_cut)
{
	if (delay < target) {
		*w += *w >= 1 ? c->ai / *w * num_acked : c->ai * num_acked;
		return 0;
	}
	if (!may_cut)
		return 0;
	*w *= RTE_MAX(1.0 - c->beta * (double)(delay - target) / delay,
		      1.0 - c->max_mdf);
	return 1;
}

static void
dctcp_ack(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
	  uint32_t num_acked, uint64_t now)
{
	const struct hct_cc_conf *c = &t->conf.cc;
	struct hct_cc *cc = &f->cc;
	uint32_t marked = p->flags & HCT_F_ECE ? p->ecn_ce : 0;
	double f0 = cc->fcwnd;

	/* RFC 8257 section 3.3: alpha once per window of data. */
	if (!cc->alpha_started) {
		cc->alpha_started = 1;
		cc->alpha_end_psn = f->snd_nxt;
	}
	cc->win_acked += num_acked;
	cc->win_marked += RTE_MIN(marked, num_acked);
	if (!hct_psn_lt(f->snd_una, cc->alpha_end_psn) &&
	    cc->win_acked != 0) {
		double frac = (double)cc->win_marked / cc->win_acked;

		cc->alpha = (1 - c->dctcp_g) * cc->alpha + c->dctcp_g * frac;
		cc->win_acked = cc->win_marked = 0;
		/* The next window: what is in flight at its first ACK (when
		 * nothing is now, the next flight is not sent yet). */
		cc->alpha_end_psn = f->snd_nxt;
		cc->alpha_started = f->snd_una != f->snd_nxt;
	}
	if (marked != 0) {
		if (can_decrease(f, now)) {
			cc->fcwnd *= 1 - cc->alpha / 2;
			decreased(t, f, f0, cc->ecwnd, now);
		}
		return;
	}
	cc->fcwnd += cc->fcwnd >= 1 ? c->ai / cc->fcwnd * num_acked
				    : c->ai * num_acked;
	set_effective(t, f);
}

void
hct_cc_on_ack(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
	      uint32_t num_acked, uint64_t now)
{
	const struct hct_cc_conf *c = &t->conf.cc;
	struct hct_cc *cc = &f->cc;
	uint64_t rtt, fabric;
	double f0 = cc->fcwnd, e0 = cc->ecwnd;
	int may_cut, cut;

	if (p->flags & HCT_F_ECE)
		f->stats.ecn_ece_rx += p->ecn_ce;
	if (num_acked == 0 || p->ts_echo_ns == 0 || p->ts_echo_ns > now)
		return;
	rtt = now - p->ts_echo_ns;
	fabric = rtt > p->host_delay_ns ? rtt - p->host_delay_ns : 0;
	cc->last_fabric_ns = fabric;
	cc->fabric_srtt_ns = cc->fabric_srtt_ns == 0 ? fabric :
			     (7 * cc->fabric_srtt_ns + fabric) / 8;
	cc->last_endpoint_ns = p->host_delay_ns;
	if (cc->min_rtt_ns == 0 || fabric < cc->min_rtt_ns)
		cc->min_rtt_ns = fabric;
	switch (c->algo) {
	case HCT_CC_SWIFT:
		may_cut = can_decrease(f, now);
		cut = swift_window(c, &cc->fcwnd, fabric,
				   hct_cc_fabric_target_ns(t, f), num_acked,
				   may_cut);
		cut |= swift_window(c, &cc->ecwnd, p->host_delay_ns,
				    c->endpoint_target_ns, num_acked, may_cut);
		if (cut)
			decreased(t, f, f0, e0, now);
		else
			set_effective(t, f);
		break;
	case HCT_CC_DCTCP:
		dctcp_ack(t, f, p, num_acked, now);
		break;
	default:
		break;
	}
}

void
hct_cc_on_loss(struct hct *t, struct hct_flow *f, int rto, uint64_t now)
{
	const struct hct_cc_conf *c = &t->conf.cc;
	struct hct_cc *cc = &f->cc;
	double f0 = cc->fcwnd, e0 = cc->ecwnd;

	if (!rto) {
		/* Fast recovery: no probe until it is over (loss.c). */
		cc->recovery = 1;
		cc->recovery_end = f->snd_nxt;
		cc->tlp_deadline_ns = 0;
	}
	if (c->algo == HCT_CC_FIXED)
		return;
	if (rto) {
		cc->fcwnd = c->min_cwnd;
		if (c->algo == HCT_CC_SWIFT)
			cc->ecwnd = c->min_cwnd;
		decreased(t, f, f0, e0, now);
		return;
	}
	if (!can_decrease(f, now))
		return;
	cc->fcwnd *= 1 - c->max_mdf;
	if (c->algo == HCT_CC_SWIFT)
		cc->ecwnd *= 1 - c->max_mdf;
	decreased(t, f, f0, e0, now);
}

void
hct_cc_rx_data(struct hct_flow *f, uint8_t tos)
{
	if ((tos & HC_IPV4_ECN_MASK) == HC_IPV4_ECN_CE) {
		f->cc.rx_ce++;
		f->stats.ecn_ce_rx++;
	}
}

void
hct_cc_fill_echo(struct hct_flow *f, struct hct_pkt *p)
{
	if (f->cc.rx_ce == 0)
		return;
	p->flags |= HCT_F_ECE;
	p->ecn_ce = (uint16_t)RTE_MIN(f->cc.rx_ce, (uint32_t)UINT16_MAX);
	f->stats.ecn_echoed += p->ecn_ce;
	f->cc.rx_ce -= p->ecn_ce;
}
