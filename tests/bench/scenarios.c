/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport scenarios of issue 3 in virtual time (scenarios.h). */
#include <string.h>

#include <rte_byteorder.h>

#include "engine.h"
#include "hct_hdr.h"
#include "hypercomm.h"
#include "scenarios.h"
#include "xfer.h"

/* Offset of the HCT header in a frame: Ethernet, IPv4 without options,
 * UDP. */
#define HCT_AT (14 + 20 + 8)

static const struct hc_sim_link_conf scn_link = {
	.rate_gbps = SCN_GBPS,
	.prop_ns = SCN_PROP_NS,
	.queue_bytes = SCN_QUEUE,
};

/* Every run's cluster config: the defaults with a small per-rank pool and
 * an RTO floor for a datacenter RTT of microseconds (RFC 6298's
 * RTO.min is a configuration choice; 200 us here). */
static int
scn_config(struct hc_config *cfg, uint32_t hosts)
{
	int rc = hc_config_defaults(cfg, hosts);

	if (rc != 0)
		return rc;
	cfg->port.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	cfg->hct.rto_min_ns = 200 * HC_NS_PER_US;
	cfg->hct.rto_init_ns = 1000 * HC_NS_PER_US;
	return 0;
}

/* Create a star of hosts at seed; window and horizon in ns. */
static int
scn_create(struct xfer **x, uint32_t hosts, uint64_t seed,
	   uint64_t window_ns, uint64_t horizon_ns)
{
	struct hc_config cfg;
	struct xfer_conf xc;
	int rc;

	rc = scn_config(&cfg, hosts);
	if (rc != 0)
		return rc;
	memset(&xc, 0, sizeof(xc));
	xc.run.net.topo = HC_SIM_TOPO_STAR;
	xc.run.net.hosts = hosts;
	xc.run.net.host_link = scn_link;
	xc.run.cfg = &cfg;
	xc.run.seed = seed;
	xc.run.no_tune = 1;	/* HCT only: no collectives */
	xc.window_ns = window_ns;
	xc.horizon_ns = horizon_ns;
	rc = xfer_create(&xc, x);
	hc_config_free(&cfg);
	return rc;
}

/* DATA retransmissions of a flow, every cause. */
static uint64_t
retransmits(const struct hct_flow *f)
{
	return f->stats.retransmits_rto + f->stats.retransmits_sack;
}

/* The RTT the transport measures for a flow, ns: its smoothed fabric RTT
 * (RTT minus the receiver's echoed host delay, EWMA 1/8), at the end of
 * the lossless run. */
static uint64_t
flow_rtt_ns(const struct hct_flow *f)
{
	return f->cc.fabric_srtt_ns;
}

/* A link's counters. */
static void
link_stats(struct xfer *x, enum hc_sim_link_kind kind, uint32_t idx,
	   struct hc_sim_link_stats *st)
{
	hc_sim_link_stats(x->run->sim, hc_sim_link_id(x->run->sim, kind, idx),
			  st);
}

/* What one transfer gives. */
struct one_out {
	uint64_t t_ns;            /* completion time */
	struct hct_flow fs;       /* the sender's flow at the end */
	uint32_t mss;             /* DATA payload bytes per packet */
	int exact;                /* every byte once, nothing stray */
};

/* One message of `bytes` from rank 0 to rank 1. Loss on rank 0's uplink;
 * a filter on it when drop != NULL. */
static int
one_transfer(uint64_t seed, uint64_t bytes, double loss,
	     int (*drop)(const struct rte_mbuf *, void *), void *drop_arg,
	     struct one_out *o)
{
	struct xfer_flow fl = {
		.src = 0, .dst = 1, .cls = HCT_CLASS_NORMAL,
		.msg_bytes = bytes, .msgs_max = 1, .depth = 1,
	};
	struct hc_sim_link_conf lc = scn_link;
	struct xfer *x;
	uint64_t t0;
	int rc, link;

	rc = scn_create(&x, 2, seed, 0, 0);
	if (rc != 0)
		return rc;
	link = hc_sim_link_id(x->run->sim, HC_SIM_LINK_HOST_UP, 0);
	lc.loss = loss;
	hc_sim_link_set(x->run->sim, link, &lc);
	if (drop != NULL)
		hc_sim_link_filter(x->run->sim, link, drop, drop_arg);
	t0 = hc_simrun_now(x->run);
	fl.start_ns = t0;
	rc = xfer_add(x, &fl);
	if (rc >= 0)
		rc = xfer_run(x, t0 + 10 * HC_NS_PER_S);
	if (rc == 0) {
		o->t_ns = x->flows[0].last_done_ns - t0;
		o->fs = *xfer_hct_flow(x, 0, 1);
		o->mss = x->run->ctx[0]->hct.mss;
		o->exact = x->flows[0].rx_bytes == bytes && x->bad == 0 &&
			   x->lost == 0;
	}
	xfer_destroy(x);
	return rc;
}

int
scn_goodput(struct scn_goodput *g)
{
	double t0_sum = 0, t_sum = 0, r_sum = 0;
	struct one_out o0, o;
	uint32_t s;
	int rc;

	g->rtos = 0;
	g->retransmits = 0;
	g->exact = 1;
	for (s = 1; s <= g->seeds; s++) {
		rc = one_transfer(s, g->bytes, 0, NULL, NULL, &o0);
		if (rc == 0)
			rc = one_transfer(s, g->bytes, g->loss, NULL, NULL, &o);
		if (rc != 0)
			return rc;
		g->exact &= o0.exact && o.exact;
		g->rtos += o.fs.stats.rtos;
		g->retransmits += retransmits(&o.fs);
		t0_sum += (double)o0.t_ns;
		t_sum += (double)o.t_ns;
		r_sum += (double)o0.t_ns / (double)o.t_ns;
	}
	g->time_lossless_ns = t0_sum / g->seeds;
	g->time_ns = t_sum / g->seeds;
	g->ratio = r_sum / g->seeds;
	return 0;
}

/* Filter: drop the first transmission of the DATA packet at byte
 * `offset` (mid-message), or of the one flagged last. */
struct drop_one {
	int last;
	uint64_t offset;
	uint64_t dropped;
};

static int
drop_one(const struct rte_mbuf *m, void *arg)
{
	struct drop_one *d = arg;
	const uint8_t *h;
	rte_be64_t off;

	if (m->data_len < HCT_AT + HCT_HDR_LEN)
		return 0;
	h = rte_pktmbuf_mtod_offset(m, const uint8_t *, HCT_AT);
	if (h[1] != HCT_TYPE_DATA || (h[2] & HCT_F_RETX) != 0 ||
	    d->dropped != 0)
		return 0;
	memcpy(&off, h + offsetof(struct hct_wire_hdr, offset), sizeof(off));
	if (d->last ? (h[2] & HCT_F_LAST) == 0
		    : rte_be_to_cpu_64(off) != d->offset)
		return 0;
	d->dropped++;
	return 1;
}

int
scn_recovery(struct scn_recovery *r)
{
	struct drop_one d = { .last = r->last };
	struct one_out o0, o;
	int rc;

	rc = one_transfer(1, r->bytes, 0, NULL, NULL, &o0);
	if (rc != 0)
		return rc;
	r->rtt_ns = flow_rtt_ns(&o0.fs);
	r->min_rtt_ns = o0.fs.cc.min_rtt_ns;
	/* A packet boundary in the middle: packets are cut MSS by MSS from
	 * offset 0. */
	d.offset = r->bytes / 2 / o0.mss * o0.mss;
	rc = one_transfer(1, r->bytes, 0, drop_one, &d, &o);
	if (rc != 0)
		return rc;
	r->extra_ns = o.t_ns > o0.t_ns ? o.t_ns - o0.t_ns : 0;
	r->rtos = o.fs.stats.rtos;
	r->dropped = d.dropped;
	return o.exact && o0.exact ? 0 : -HC_ERR_INTERNAL;
}

/* Continuous flows from ranks 1..senders to rank 0 (or from 0 to 1 with
 * senders 1 and steady): shared by incast and steady. */
static int
fan_in(uint32_t senders, uint64_t window_ns, uint32_t windows,
       struct xfer **out)
{
	struct xfer_flow fl = {
		.dst = 0, .cls = HCT_CLASS_NORMAL,
		.msg_bytes = 256 * 1024, .depth = 2,
	};
	uint64_t horizon = window_ns * (windows + 1);
	struct xfer *x;
	uint32_t i;
	int rc;

	rc = scn_create(&x, senders + 1, 1, window_ns, horizon);
	if (rc != 0)
		return rc;
	fl.start_ns = hc_simrun_now(x->run);
	for (i = 1; i <= senders && rc >= 0; i++) {
		fl.src = i;
		rc = xfer_add(x, &fl);
	}
	if (rc >= 0)
		rc = xfer_run(x, fl.start_ns + horizon);
	if (rc == -HC_ERR_TIMEOUT)
		rc = 0;	/* unbounded flows: the horizon ends the run */
	if (rc != 0) {
		xfer_destroy(x);
		return rc;
	}
	*out = x;
	return 0;
}

/* Window w's DATA wire bytes over the link rate. */
static double
window_rate(uint64_t bytes, uint64_t window_ns)
{
	return (double)bytes * 8.0 / ((double)window_ns * SCN_GBPS);
}

int
scn_incast(struct scn_incast *c)
{
	struct hc_sim_link_stats down;
	struct xfer *x;
	double v[64], sum = 0;
	uint64_t window;
	uint32_t w, i;
	int rc;

	if (c->senders == 0 || c->senders > RTE_DIM(v))
		return -HC_ERR_INVAL;
	c->rtt_ns = xfer_base_rtt_ns(&scn_link, 1500);
	window = 100 * c->rtt_ns;
	c->windows = 10;
	rc = fan_in(c->senders, window, c->windows, &x);
	if (rc != 0)
		return rc;
	c->jain_min = 1.0;
	for (w = 1; w <= c->windows; w++) {
		uint64_t tot = 0;

		for (i = 0; i < c->senders; i++) {
			v[i] = (double)x->flows[i].win_bytes[w];
			tot += x->flows[i].win_bytes[w];
		}
		sum += window_rate(tot, window);
		if (xfer_jain(v, c->senders) < c->jain_min)
			c->jain_min = xfer_jain(v, c->senders);
	}
	c->utilisation = sum / c->windows;
	c->rtos = c->data_tx = c->retransmits = 0;
	for (i = 1; i <= c->senders; i++) {
		const struct hct_flow_stats *st = &xfer_hct_flow(x, i, 0)->stats;

		c->rtos += st->rtos;
		c->data_tx += st->data_tx;
		c->retransmits += st->retransmits_rto + st->retransmits_sack +
				  st->retransmits_rack + st->retransmits_tlp;
	}
	link_stats(x, HC_SIM_LINK_HOST_DOWN, 0, &down);
	c->drops = down.total.tail_drops;
	c->max_queue = down.max_queue_bytes;
	xfer_destroy(x);
	return 0;
}

int
scn_steady(struct scn_steady *s)
{
	struct xfer *x;
	uint32_t w, windows;
	uint64_t window;
	double sum = 0;
	int rc;

	s->rtt_ns = xfer_base_rtt_ns(&scn_link, 1500);
	window = 100 * s->rtt_ns;
	windows = s->rtts / 100;
	rc = fan_in(1, window, windows, &x);
	if (rc != 0)
		return rc;
	s->min_window_rate = 1e9;
	for (w = 1; w < windows; w++) {
		double r = window_rate(x->flows[0].win_bytes[w], window);

		sum += r;
		if (r < s->min_window_rate)
			s->min_window_rate = r;
	}
	s->mean_rate = sum / (windows - 1);
	s->rtos = xfer_hct_flow(x, 1, 0)->stats.rtos;
	xfer_destroy(x);
	return 0;
}

/* Critical probes 1 -> 0 (4 KiB every 100 us) with, when bulk, bulk
 * flows 1 -> 0 and 2 -> 0. */
static int
prio_run(int probes, int bulk, uint64_t dur_ns, uint64_t window_ns,
	 uint64_t *p99, uint64_t *bulk_bytes, uint32_t *empty)
{
	struct xfer_flow crit = {
		.src = 1, .dst = 0, .cls = HCT_CLASS_CRITICAL,
		.msg_bytes = 4096, .interval_ns = 100 * HC_NS_PER_US,
	};
	struct xfer_flow bk = {
		.dst = 0, .cls = HCT_CLASS_BULK, .msg_bytes = 256 * 1024,
		.depth = 2,
	};
	uint32_t windows = (uint32_t)(dur_ns / window_ns), w, i;
	struct xfer *x;
	int rc = 0, cf = -1, b0 = -1;

	rc = scn_create(&x, 3, 1, window_ns, dur_ns);
	if (rc != 0)
		return rc;
	crit.start_ns = bk.start_ns = hc_simrun_now(x->run);
	if (probes)
		cf = rc = xfer_add(x, &crit);
	if (bulk && rc >= 0) {
		bk.src = 1;
		b0 = rc = xfer_add(x, &bk);
		bk.src = 2;
		if (rc >= 0)
			rc = xfer_add(x, &bk);
	}
	if (rc >= 0)
		rc = xfer_run(x, crit.start_ns + dur_ns);
	if (rc == -HC_ERR_TIMEOUT)
		rc = 0;
	if (rc == 0 && cf >= 0)
		*p99 = xfer_lat_pct(&x->flows[cf], 99.0);
	if (rc == 0 && b0 >= 0) {
		*bulk_bytes = x->flows[b0].rx_bytes + x->flows[b0 + 1].rx_bytes;
		*empty = 0;
		for (w = 1; w + 1 < windows; w++)
			for (i = 0; i < 2; i++)
				*empty += x->flows[b0 + i].win_bytes[w] == 0;
	}
	if (rc == 0 && cf >= 0 && probes)
		rc = x->flows[cf].done_msgs > 0 ? 0 : -HC_ERR_INTERNAL;
	xfer_destroy(x);
	return rc;
}

int
scn_priority(struct scn_priority *p)
{
	uint64_t dur = 20 * HC_NS_PER_MS;
	uint64_t window = 100 * xfer_base_rtt_ns(&scn_link, 1500);
	uint64_t bulk_alone = 0, bulk_loaded = 0, unused;
	uint32_t empty_unused;
	int rc;

	rc = prio_run(1, 0, dur, window, &p->p99_alone_ns, &unused,
		      &empty_unused);
	if (rc == 0)
		rc = prio_run(0, 1, dur, window, &unused, &bulk_alone,
			      &empty_unused);
	if (rc == 0)
		rc = prio_run(1, 1, dur, window, &p->p99_loaded_ns,
			      &bulk_loaded, &p->bulk_empty_windows);
	if (rc != 0)
		return rc;
	p->bulk_ratio = bulk_alone == 0 ? 0
			: (double)bulk_loaded / (double)bulk_alone;
	p->probes = dur / (100 * HC_NS_PER_US);
	return 0;
}
