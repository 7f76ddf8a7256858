/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tuner's measurements at bring-up (engine.h, hc_probe_start), on a
 * communicator of its own so that the world's collective sequence starts
 * at 0 for the application: PROBE_BARRIERS barriers, whose signatures go
 * from every rank to every other one (flows up, ARP done, the first RTT
 * samples), then ring all-gathers, PROBE_SMALLS of PROBE_SMALL_BYTES per
 * rank and PROBE_GATHERS of PROBE_BYTES, back to back in runs of
 * PROBE_SMALL_RUN and PROBE_GATHER_RUN, each run timed from its first
 * op's submission to the step that finds its last one over; the quickest
 * run of each kind, per op, gives alpha and beta (hc_tune_fit, tune.h:
 * n-1 steps, each one block from the left neighbour). Runs, not single
 * ops: a rank that submits an op after its peers finds their blocks
 * there already and times it near 0 (measured over virtio, 2 ranks, the
 * best of 8 single 8-byte all-gathers: alpha 1.1-1.5 us in 11 runs of 20,
 * where an 8-byte all-reduce takes 17-25 us); in a run each op waits for
 * the peers' previous one, so the skew counts once per run. Until
 * 2026-12-04 alpha was half the flows' SRTT after the barriers; a rank
 * descheduled while the flows came up inflated it past the big
 * all-gather's time, beta came out 0 and recursive doubling won at every
 * size (tune.h has the figures).
 * (PROBE_* are HC_TUNE_PROBE_* of engine.h.) Every rank then all-gathers
 * its (alpha, beta) and all take the medians of the gathered values:
 * identical inputs, identical results, so every rank's tuner picks
 * alike. About 10 ms on tap.
 *
 * One state machine for DPDK and simulated ranks, stepped by the engine
 * (hc_engine_step -> hc_probe_step): BARRIERS -> SMALLS -> GATHERS ->
 * AGREE -> DONE, one collective in flight, submitted straight to the
 * collectives layer on the engine thread (no request, no waiting call).
 * hc_init polls the engine until it is done; the sim's runner starts it on every rank and
 * steps the network until all are (simrun.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "engine.h"
#include "log.h"

enum hc_probe_state {
	HC_PROBE_BARRIERS, /**< HC_TUNE_PROBE_BARRIERS barriers */
	HC_PROBE_SMALLS,   /**< HC_TUNE_PROBE_SMALLS all-gathers of
	                    *   HC_TUNE_PROBE_SMALL_BYTES per rank, timed
	                    *   in runs of HC_TUNE_PROBE_SMALL_RUN */
	HC_PROBE_GATHERS,  /**< HC_TUNE_PROBE_GATHERS all-gathers of
	                    *   HC_TUNE_PROBE_BYTES per rank, timed in runs
	                    *   of HC_TUNE_PROBE_GATHER_RUN */
	HC_PROBE_AGREE,    /**< the all-gather of every rank's (alpha, beta) */
	HC_PROBE_DONE,
};

struct hc_probe {
	enum hc_probe_state state;
	uint32_t ended;         /**< collectives over in this state */
	int live;               /**< op submitted, not yet ended */
	int status;             /**< DONE: 0 or the -HC_ERR_* */
	struct hc_coll_op op;   /**< the collective in flight */
	uint64_t t0_ns;         /**< hc_probe_start, for the log */
	uint64_t op_ns;         /**< op's submission */
	uint64_t run_ns;        /**< submission of the run's first op */
	uint64_t best_small_ns; /**< small probe all-gather, ns: the
	                         *   quickest run's time per op */
	uint64_t best_ns;       /**< big probe all-gather, likewise */
	double mine[2];         /**< this rank's (alpha ns, beta ns/B) */
	double *all;            /**< every rank's, 2 x n */
	uint8_t *buf;           /**< the probe all-gathers': n + 1 blocks */
	uint8_t *own;           /**< buf if allocated here, else NULL */
};

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n-1] (sorts v); 0 for n == 0. */
static double
median(double *v, uint32_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ops per timed run in state st: the back-to-back all-gathers timed as
 * one (engine.h); 1 for the states that are not timed. */
static uint32_t
probe_run_len(enum hc_probe_state st)
{
	return st == HC_PROBE_SMALLS ? HC_TUNE_PROBE_SMALL_RUN :
	       st == HC_PROBE_GATHERS ? HC_TUNE_PROBE_GATHER_RUN : 1;
}

/* Agree: mine = this rank's (alpha ns, beta ns/B), all = every tuner
 * rank's, gathered (2 x n doubles); the medians become the tune of every
 * communicator of ctx (hc_coll_set_tune), logged at INFO with
 * elapsed_ns. @return 0 or -HC_ERR_NOMEM. */
static int
tune_agree(struct hc_ctx *ctx, const double *mine, const double *all,
	   uint64_t elapsed_ns)
{
	uint32_t n = ctx->tuner.size, i;
	struct hc_tune agreed;
	double *v = calloc(2 * (size_t)n, sizeof(*v));

	if (v == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		v[i] = all[2 * i];
		v[n + i] = all[2 * i + 1];
	}
	agreed.alpha_ns = median(v, n);
	agreed.beta_ns = median(v + n, n);
	free(v);
	hc_coll_set_tune(&ctx->coll, &agreed);
	HC_LOG(INFO, CORE, "rank %u: tuner alpha %.1f us, beta %.3f ns/B "
	       "(measured here: alpha %.1f us, beta %.3f ns/B; %.1f ms)",
	       ctx->rank, agreed.alpha_ns / 1e3, agreed.beta_ns,
	       mine[0] / 1e3, mine[1], elapsed_ns / 1e6);
	return 0;
}

/* The probes are over with rc (logged unless 0). */
static void
probe_finish(struct hc_ctx *ctx, struct hc_probe *p, int rc)
{
	if (rc != 0)
		HC_LOG(ERR, CORE, "rank %u: tuner probes failed: %s", ctx->rank,
		       hc_strerror(rc));
	p->status = rc;
	p->state = HC_PROBE_DONE;
}

/* The collective of p's state (a barrier, a timed all-gather, or the
 * agreement's all-gather), submitted at now with the op timeout. */
static void
probe_submit(struct hc_ctx *ctx, struct hc_probe *p, uint64_t now)
{
	struct hc_comm *comm = &ctx->tuner;
	struct hc_coll_op *op = &p->op;
	int rc;

	if (p->state == HC_PROBE_BARRIERS)
		rc = hc_coll_prepare(comm, op, HC_COLL_BARRIER, NULL, NULL, 0,
				     HC_DTYPE_INT8, HC_OP_SUM, 0);
	else if (p->state == HC_PROBE_SMALLS || p->state == HC_PROBE_GATHERS)
		rc = hc_coll_prepare(comm, op, HC_COLL_ALLGATHER,
				     p->buf + (uint64_t)comm->size *
				     HC_TUNE_PROBE_BYTES, p->buf,
				     p->state == HC_PROBE_SMALLS ?
				     HC_TUNE_PROBE_SMALL_BYTES :
				     HC_TUNE_PROBE_BYTES, HC_DTYPE_UINT8,
				     HC_OP_SUM, 0);
	else
		rc = hc_coll_prepare(comm, op, HC_COLL_ALLGATHER, p->mine,
				     p->all, 2, HC_DTYPE_FLOAT64, HC_OP_SUM, 0);
	if (rc != 0) {
		probe_finish(ctx, p, rc);
		return;
	}
	/* What request.c and hc_engine_step give a request without
	 * options: the normal class, the op timeout from submission. */
	op->cls = (uint8_t)HCT_CLASS_NORMAL;
	op->deadline_ns = now + ctx->cfg.op_timeout_ms * HC_NS_PER_MS;
	p->op_ns = now;
	if (p->ended % probe_run_len(p->state) == 0)
		p->run_ns = now;
	p->live = 1;
	hc_coll_submit(op);
}

/* p's collective, over at now with 0: count it and move on. */
static void
probe_advance(struct hc_ctx *ctx, struct hc_probe *p, uint64_t now)
{
	uint64_t t;

	p->ended++;
	switch (p->state) {
	case HC_PROBE_BARRIERS:
		if (p->ended < HC_TUNE_PROBE_BARRIERS)
			return;
		break;
	case HC_PROBE_SMALLS:
	case HC_PROBE_GATHERS: {
		uint64_t *best = p->state == HC_PROBE_SMALLS ?
					 &p->best_small_ns : &p->best_ns;
		uint32_t run = probe_run_len(p->state);
		struct hc_tune here;

		if (p->ended % run == 0) {
			t = (now - p->run_ns) / run;
			*best = RTE_MIN(t, *best);
		}
		if (p->ended < (p->state == HC_PROBE_SMALLS ?
				HC_TUNE_PROBE_SMALLS : HC_TUNE_PROBE_GATHERS))
			return;
		if (p->state == HC_PROBE_SMALLS)
			break;
		hc_tune_fit(ctx->tuner.size, p->best_small_ns,
			    HC_TUNE_PROBE_SMALL_BYTES, p->best_ns,
			    HC_TUNE_PROBE_BYTES, &here);
		p->mine[0] = here.alpha_ns;
		p->mine[1] = here.beta_ns;
		break;
	}
	case HC_PROBE_AGREE:
		probe_finish(ctx, p, tune_agree(ctx, p->mine, p->all,
						now - p->t0_ns));
		return;
	case HC_PROBE_DONE:
		return;
	}
	p->state++;
	p->ended = 0;
}

int
hc_probe_start(struct hc_ctx *ctx, void *scratch)
{
	uint32_t n = ctx->tuner.size;
	struct hc_probe *p;

	if (ctx->probe != NULL)
		return -HC_ERR_INVAL;
	p = calloc(1, sizeof(*p));
	if (p != NULL && n > 1) {
		p->all = calloc(2 * (size_t)n, sizeof(*p->all));
		p->buf = scratch;
		if (p->buf == NULL)
			p->buf = p->own = calloc(n + 1, HC_TUNE_PROBE_BYTES);
	}
	if (p == NULL || (n > 1 && (p->all == NULL || p->buf == NULL))) {
		HC_LOG(ERR, CORE, "rank %u: tuner probes failed: %s", ctx->rank,
		       hc_strerror(-HC_ERR_NOMEM));
		if (p != NULL) {
			free(p->all);
			free(p->own);
		}
		free(p);
		return -HC_ERR_NOMEM;
	}
	/* One rank has no links: every cost is 0, the pick is the ring. */
	p->state = n > 1 ? HC_PROBE_BARRIERS : HC_PROBE_DONE;
	p->t0_ns = hc_clock_now(&ctx->clk);
	p->best_small_ns = p->best_ns = UINT64_MAX;
	ctx->probe = p;
	return 0;
}

uint32_t
hc_probe_step(struct hc_ctx *ctx)
{
	struct hc_probe *p = ctx->probe;
	uint32_t work = 0;
	uint64_t now;
	int rc;

	if (p == NULL || p->state == HC_PROBE_DONE)
		return 0;
	now = hc_clock_now(&ctx->clk);
	if (p->live) {
		hc_op_check_deadline(ctx, &p->op, ctx->cfg.op_timeout_ms, now);
		if (!hc_coll_op_over(&p->op))
			return 0;
		rc = p->op.status;
		hc_coll_op_end(&p->op);
		p->live = 0;
		work++;
		if (rc != 0)
			probe_finish(ctx, p, rc);
		else
			probe_advance(ctx, p, now);
	}
	if (p->state != HC_PROBE_DONE) {
		probe_submit(ctx, p, now);
		work++;
	}
	return work;
}

int
hc_probe_done(const struct hc_ctx *ctx, int *status)
{
	if (ctx->probe == NULL) {
		*status = -HC_ERR_INVAL;
		return 1;
	}
	if (ctx->probe->state != HC_PROBE_DONE)
		return 0;
	*status = ctx->probe->status;
	return 1;
}

void
hc_probe_end(struct hc_ctx *ctx)
{
	struct hc_probe *p = ctx->probe;

	if (p == NULL)
		return;
	if (p->live) {
		if (p->op.status == 0 && !hc_coll_op_complete(&p->op))
			hc_coll_op_fail(&p->op, -HC_ERR_ABORTED);
		hc_coll_op_end(&p->op);
	}
	free(p->all);
	free(p->own);
	free(p);
	ctx->probe = NULL;
}

int
hc_comm_tuner_info(const struct hc_comm *comm, char *buf, size_t len)
{
	uint64_t at[8];
	enum hc_algo_id from[8], to[8];
	uint32_t k, i, eq = 0;
	int w;

	if (comm == NULL || (buf == NULL && len > 0))
		return -HC_ERR_INVAL;
	w = snprintf(buf, len, "alpha %.1f us, beta %.3f ns/B, algo %s",
		     comm->tune.alpha_ns / 1e3, comm->tune.beta_ns,
		     hc_algo_id_name(comm->algo));
#define REST(w) ((size_t)(w) < len ? buf + (w) : NULL), \
		((size_t)(w) < len ? len - (size_t)(w) : 0)
	if (comm->algo != HC_ALGO_AUTO || comm->size == 1)
		return w;
	k = hc_tune_switches(&comm->shape, &comm->tune, at, from, to, 8);
	if (k > 8)
		k = 8;
	w += snprintf(REST(w), ": %s 1..", hc_algo_id_name(k > 0 ? from[0] :
				   hc_tune_pick(&comm->shape, &comm->tune, 1)));
	for (i = 0; i < k; i++)
		w += snprintf(REST(w), "%" PRIu64 " B, %s %" PRIu64 "..",
			      at[i] - 1, hc_algo_id_name(to[i]), at[i]);
	w += snprintf(REST(w), " B");
	for (i = HC_ALGO_RING; i < HC_ALGO__MAX; i++) {
		enum hc_algo_id j;

		for (j = i + 1; j < HC_ALGO__MAX; j++) {
			double x = hc_tune_crossover(i, j, &comm->shape,
						     &comm->tune);

			if (x > 0)
				w += snprintf(REST(w), "%s %s/%s %.0f B",
					      eq++ == 0 ? "; equal cost at" : "",
					      hc_algo_id_name(i),
					      hc_algo_id_name(j), x);
		}
	}
#undef REST
	return w;
}
