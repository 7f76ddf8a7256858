/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw HCT transfers between simulated ranks (xfer.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hypercomm.h"
#include "xfer.h"

/* comm_id of harness traffic (the collective engine never sees it). */
#define XFER_COMM_ID 0x58464552u

struct xfer_msg {
	struct hct_msg m;
	struct xfer_flow *f;
	uint32_t seq;
	int busy;                 /**< submitted, not fully received */
	uint64_t submit_ns;
	uint64_t got;             /**< payload bytes received */
};

/* The upcall context of one rank. */
struct xfer_ep {
	struct xfer *x;
	uint32_t rank;
};

static uint8_t *src_buf;     /* what every message sends (zeros) */
static uint64_t src_cap;

uint64_t
xfer_ser_ns(uint64_t bytes, double gbps)
{
	return (uint64_t)ceil((double)bytes * 8.0 / gbps);
}

uint64_t
xfer_base_rtt_ns(const struct hc_sim_link_conf *l, uint32_t mtu)
{
	return 4 * l->prop_ns + 2 * xfer_ser_ns(mtu + 14, l->rate_gbps) +
	       2 * xfer_ser_ns(XFER_PKT_OVERHEAD, l->rate_gbps);
}

double
xfer_jain(const double *v, uint32_t n)
{
	double s = 0, s2 = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		s += v[i];
		s2 += v[i] * v[i];
	}
	return s2 == 0 ? 1.0 : s * s / (n * s2);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
xfer_lat_pct(const struct xfer_flow *f, double p)
{
	uint64_t *v, r;
	uint64_t n = f->done_msgs < XFER_TRACK * 64 ? f->done_msgs
						    : XFER_TRACK * 64;
	uint64_t k;

	if (n == 0)
		return 0;
	v = malloc(n * sizeof(*v));
	if (v == NULL)
		return 0;
	memcpy(v, f->lat_ns, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u64);
	k = (uint64_t)ceil(p / 100.0 * (double)n);
	r = v[k == 0 ? 0 : k - 1];
	free(v);
	return r;
}

static enum hct_rx_verdict
up_data(void *ctx, uint32_t src, const struct hct_data_desc *d,
	const uint8_t *payload, struct rte_mbuf *m)
{
	struct xfer_ep *ep = ctx;
	struct xfer *x = ep->x;
	struct xfer_flow *f;
	struct xfer_msg *msg;
	uint64_t now = hc_simrun_now(x->run), w;

	(void)payload;
	(void)m;
	if (d->comm_id != XFER_COMM_ID || d->coll_seq >= x->nflows) {
		x->bad++;
		return HCT_RX_CONSUMED;
	}
	f = &x->flows[d->coll_seq];
	msg = &f->msgs[d->sig % XFER_TRACK];
	if (f->src != src || f->dst != ep->rank || !msg->busy ||
	    msg->seq != d->sig || msg->got + d->length > f->msg_bytes) {
		x->bad++;
		return HCT_RX_CONSUMED;
	}
	msg->got += d->length;
	f->rx_bytes += d->length;
	w = (now - x->t0) / x->window_ns;
	if (w < x->windows)
		f->win_bytes[w] += d->length + XFER_PKT_OVERHEAD;
	if (msg->got == f->msg_bytes) {
		if (f->done_msgs < XFER_TRACK * 64)
			f->lat_ns[f->done_msgs] = now - msg->submit_ns;
		if (f->done_msgs == 0)
			f->first_done_ns = now;
		f->done_msgs++;
		f->last_done_ns = now;
		msg->busy = 0;
	}
	return HCT_RX_CONSUMED;
}

static void
up_msg_sent(void *ctx, struct hct_msg *m)
{
	struct xfer_msg *msg = m->owner;

	(void)ctx;
	msg->f->queued--;
}

static void
up_peer_lost(void *ctx, uint32_t rank, int err)
{
	struct xfer_ep *ep = ctx;

	(void)rank;
	(void)err;
	ep->x->lost++;
}

/* Submit the next message of f. @return 0, or -1 when it cannot now. */
static int
submit(struct xfer *x, struct xfer_flow *f, uint64_t now)
{
	struct xfer_msg *msg = &f->msgs[f->sent_msgs % XFER_TRACK];
	struct hc_ctx *ctx = x->run->ctx[f->src];

	if (msg->busy)
		return -1;
	memset(msg, 0, sizeof(*msg));
	msg->f = f;
	msg->seq = (uint32_t)f->sent_msgs;
	msg->busy = 1;
	msg->submit_ns = now;
	msg->m.src = src_buf;
	msg->m.len = f->msg_bytes;
	msg->m.owner = msg;
	msg->m.desc.comm_id = XFER_COMM_ID;
	msg->m.desc.coll_seq = f->id;
	msg->m.desc.sig = msg->seq;
	msg->m.desc.length = (uint32_t)RTE_MIN(f->msg_bytes, UINT32_MAX);
	msg->m.cls = f->cls;
	if (hct_send(&ctx->hct, f->dst, &msg->m) != 0) {
		msg->busy = 0;
		return -1;
	}
	f->sent_msgs++;
	f->queued++;
	return 0;
}

/* The runner's predicate: submit what is due; true when done. */
static int
tick(void *arg)
{
	struct xfer *x = arg;
	uint64_t now = hc_simrun_now(x->run);
	uint32_t i, bounded = 0, finished = 0;

	for (i = 0; i < x->nflows; i++) {
		struct xfer_flow *f = &x->flows[i];
		int more;

		if (f->msgs_max != 0) {
			bounded++;
			finished += f->done_msgs == f->msgs_max;
		}
		if (now < f->start_ns)
			continue;
		for (;;) {
			more = f->msgs_max != 0 ? f->sent_msgs < f->msgs_max
						: now < x->stop_ns;
			if (!more)
				break;
			if (f->interval_ns != 0) {
				if (f->next_ns == 0)
					f->next_ns = f->start_ns;
				if (now < f->next_ns)
					break;
				f->next_ns += f->interval_ns;
			} else if (f->queued >= f->depth) {
				break;
			}
			if (submit(x, f, now) != 0)
				break;
		}
	}
	return bounded > 0 && finished == bounded;
}

int
xfer_create(const struct xfer_conf *conf, struct xfer **out)
{
	struct xfer *x = calloc(1, sizeof(*x));
	struct xfer_ep *eps;
	uint32_t r;
	int rc;

	*out = NULL;
	if (x == NULL)
		return -HC_ERR_NOMEM;
	rc = hc_simrun_create(&conf->run, &x->run);
	if (rc != 0) {
		free(x);
		return rc;
	}
	eps = calloc(x->run->ranks, sizeof(*eps));
	if (eps == NULL) {
		xfer_destroy(x);
		return -HC_ERR_NOMEM;
	}
	for (r = 0; r < x->run->ranks; r++) {
		struct hct *t = &x->run->ctx[r]->hct;

		eps[r].x = x;
		eps[r].rank = r;
		t->up.data = up_data;
		t->up.msg_sent = up_msg_sent;
		t->up.peer_lost = up_peer_lost;
		t->up_ctx = &eps[r];
	}
	x->t0 = hc_simrun_now(x->run);
	x->window_ns = conf->window_ns != 0 ? conf->window_ns
					    : 10 * HC_NS_PER_US;
	x->windows = (uint32_t)(conf->horizon_ns / x->window_ns + 1);
	x->stop_ns = UINT64_MAX;
	x->ep_mem = eps;
	*out = x;
	return 0;
}

void
xfer_destroy(struct xfer *x)
{
	uint32_t i;

	if (x == NULL)
		return;
	hc_simrun_destroy(x->run);
	for (i = 0; i < x->nflows; i++) {
		free(x->flows[i].msgs);
		free(x->flows[i].lat_ns);
		free(x->flows[i].win_bytes);
	}
	free(x->flows);
	free(x->ep_mem);
	free(x);
}

int
xfer_add(struct xfer *x, const struct xfer_flow *conf)
{
	struct xfer_flow *fl, *f;
	uint32_t i, j;

	if (conf->src >= x->run->ranks || conf->dst >= x->run->ranks ||
	    conf->src == conf->dst || conf->msg_bytes == 0 ||
	    (conf->interval_ns == 0 && conf->depth == 0))
		return -HC_ERR_INVAL;
	if (conf->msg_bytes > src_cap) {
		uint8_t *b = realloc(src_buf, conf->msg_bytes);

		if (b == NULL)
			return -HC_ERR_NOMEM;
		memset(b, 0x5a, conf->msg_bytes);
		src_buf = b;
		src_cap = conf->msg_bytes;
	}
	fl = realloc(x->flows, (x->nflows + 1) * sizeof(*fl));
	if (fl == NULL)
		return -HC_ERR_NOMEM;
	x->flows = fl;
	f = &fl[x->nflows];
	memset(f, 0, sizeof(*f));
	f->src = conf->src;
	f->dst = conf->dst;
	f->cls = conf->cls;
	f->msg_bytes = conf->msg_bytes;
	f->msgs_max = conf->msgs_max;
	f->interval_ns = conf->interval_ns;
	f->depth = conf->depth;
	f->start_ns = conf->start_ns;
	f->x = x;
	f->id = x->nflows;
	f->msgs = calloc(XFER_TRACK, sizeof(*f->msgs));
	f->lat_ns = calloc(XFER_TRACK * 64, sizeof(*f->lat_ns));
	f->win_bytes = calloc(x->windows, sizeof(*f->win_bytes));
	if (f->msgs == NULL || f->lat_ns == NULL || f->win_bytes == NULL) {
		free(f->msgs);
		free(f->lat_ns);
		free(f->win_bytes);
		return -HC_ERR_NOMEM;
	}
	/* flows[] may have moved: re-point the messages' flow */
	for (i = 0; i < x->nflows; i++)
		for (j = 0; j < XFER_TRACK; j++)
			x->flows[i].msgs[j].f = &x->flows[i];
	return (int)x->nflows++;
}

int
xfer_run(struct xfer *x, uint64_t until_ns)
{
	uint64_t now = hc_simrun_now(x->run);

	if (until_ns <= now)
		return -HC_ERR_TIMEOUT;
	x->stop_ns = until_ns;
	return hc_simrun_until(x->run, tick, x, until_ns - now);
}

const struct hct_flow *
xfer_hct_flow(const struct xfer *x, uint32_t src, uint32_t dst)
{
	return hct_flow(&x->run->ctx[src]->hct, dst);
}
