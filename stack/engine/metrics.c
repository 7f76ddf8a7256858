/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Training metrics (hypercomm.h, struct hc_metrics_interval): the
 * communication time as the union of the requests' lifetimes (submission
 * to completion), the time the application waited, the bus bytes of what
 * completed, and per step (hc_metrics_step_begin/end) the three figures
 * of the seeds' tuning decision tree. Submissions and waits happen on
 * application threads, completions on the engine: one spinlock per ctx,
 * taken once per request event, never in the poll loop itself.
 */
#include <stdint.h>
#include <string.h>

#include "hypercomm.h"
#include "engine.h"

void
hc_metrics_submitted(struct hc_ctx *ctx)
{
	struct hc_metrics_state *m = &ctx->metrics;
	uint64_t now = hc_clock_now(&ctx->clk);

	rte_spinlock_lock(&m->lock);
	if (m->inflight++ == 0)
		m->busy_since = now;
	rte_spinlock_unlock(&m->lock);
}

/* nccl-tests' bus bytes of op (its busbw formulas times the time). */
static double
bus_bytes(const struct hc_coll_op *op)
{
	double n = op->comm->size, bytes = (double)op->count * op->elem_size;

	if (op->status != 0 || op->comm->size < 2)
		return 0;
	switch (op->kind) {
	case HC_COLL_ALLREDUCE:
		return bytes * 2 * (n - 1) / n;
	case HC_COLL_REDUCE_SCATTER:
	case HC_COLL_ALLGATHER:
		return (double)op->total * op->elem_size * (n - 1) / n;
	case HC_COLL_REDUCE_SCATTERV:
	case HC_COLL_ALLGATHERV:
		return op->vbounds == NULL ? 0 :
		       (double)op->vbounds[op->comm->size] * op->elem_size *
		       (n - 1) / n;
	case HC_COLL_BROADCAST:
	case HC_COLL_REDUCE:
	case HC_COLL_SEND:
	case HC_COLL_RECV:
		return bytes;
	default:
		return 0;
	}
}

void
hc_metrics_completed(struct hc_ctx *ctx, const struct hc_coll_op *op)
{
	struct hc_metrics_state *m = &ctx->metrics;
	uint64_t now = hc_clock_now(&ctx->clk);
	double bb = bus_bytes(op);

	rte_spinlock_lock(&m->lock);
	if (m->inflight > 0 && --m->inflight == 0)
		m->busy_ns += now - m->busy_since;
	m->bus_bytes += bb;
	rte_spinlock_unlock(&m->lock);
}

void
hc_metrics_waited(struct hc_ctx *ctx, uint64_t ns)
{
	struct hc_metrics_state *m = &ctx->metrics;

	rte_spinlock_lock(&m->lock);
	m->wait_ns += ns;
	rte_spinlock_unlock(&m->lock);
}

/* Busy time up to now, the open interval included (lock held). */
static uint64_t
busy_now(const struct hc_metrics_state *m, uint64_t now)
{
	return m->busy_ns + (m->inflight > 0 ? now - m->busy_since : 0);
}

/* The derived figures of an interval whose raw sums are filled in. */
static void
derive(struct hc_metrics_interval *iv, double link_GBps)
{
	iv->compute_us = iv->step_us > iv->wait_us ? iv->step_us - iv->wait_us
						   : 0;
	iv->comm_compute_ratio = iv->compute_us > 0 ?
				 iv->comm_us / iv->compute_us : 0;
	/* B/us / 1000 = GB/s */
	iv->busbw_GBps = iv->comm_us > 0 ? iv->bus_bytes / iv->comm_us / 1e3
					 : 0;
	iv->utilization = link_GBps > 0 ? iv->busbw_GBps / link_GBps : 0;
	iv->bubble_rate = iv->step_us > 0 ? iv->wait_us / iv->step_us : 0;
}

static double
link_rate(const struct hc_ctx *ctx)
{
	double beta = ctx->world.tune.beta_ns; /* ns per byte */

	return beta > 0 ? 1.0 / beta : 0; /* B/ns = GB/s */
}

int
hc_metrics_step_begin(struct hc_ctx *ctx)
{
	struct hc_metrics_state *m;
	uint64_t now;

	if (ctx == NULL)
		return -HC_ERR_INVAL;
	m = &ctx->metrics;
	now = hc_clock_now(&ctx->clk);
	rte_spinlock_lock(&m->lock);
	m->in_step = 1;
	m->step_t0 = now;
	m->step_busy0 = busy_now(m, now);
	m->step_wait0 = m->wait_ns;
	m->step_bus0 = m->bus_bytes;
	rte_spinlock_unlock(&m->lock);
	return 0;
}

int
hc_metrics_step_end(struct hc_ctx *ctx)
{
	struct hc_metrics_state *m;
	struct hc_metrics_interval iv;
	double link;
	uint64_t now;

	if (ctx == NULL)
		return -HC_ERR_INVAL;
	m = &ctx->metrics;
	link = link_rate(ctx);
	now = hc_clock_now(&ctx->clk);
	rte_spinlock_lock(&m->lock);
	if (!m->in_step) {
		rte_spinlock_unlock(&m->lock);
		return -HC_ERR_INVAL;
	}
	memset(&iv, 0, sizeof(iv));
	iv.step_us = (double)(now - m->step_t0) / 1e3;
	iv.comm_us = (double)(busy_now(m, now) - m->step_busy0) / 1e3;
	iv.wait_us = (double)(m->wait_ns - m->step_wait0) / 1e3;
	iv.bus_bytes = m->bus_bytes - m->step_bus0;
	derive(&iv, link);
	m->last = iv;
	m->total.step_us += iv.step_us;
	m->total.comm_us += iv.comm_us;
	m->total.wait_us += iv.wait_us;
	m->total.bus_bytes += iv.bus_bytes;
	derive(&m->total, link);
	m->steps++;
	m->in_step = 0;
	rte_spinlock_unlock(&m->lock);
	return 0;
}

int
hc_metrics_get(struct hc_ctx *ctx, struct hc_metrics *out)
{
	struct hc_metrics_state *m;

	if (ctx == NULL || out == NULL)
		return -HC_ERR_INVAL;
	m = &ctx->metrics;
	rte_spinlock_lock(&m->lock);
	out->steps = m->steps;
	out->last = m->last;
	out->total = m->total;
	rte_spinlock_unlock(&m->lock);
	out->link_GBps = link_rate(ctx);
	return 0;
}
