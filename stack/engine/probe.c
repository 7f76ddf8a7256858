/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tuner's measurements at bring-up (engine.h, hc_tune_measure), on a
 * communicator of its own so that the world's collective sequence starts
 * at 0 for the application:
 *   alpha, per peer: half the SRTT (RFC 6298 smoothing, transport) of the
 *     flow to it after PROBE_BARRIERS barriers, whose signatures go from
 *     every rank to every other one: a small-message round trip per peer;
 *   beta, per peer: a timed ring all-gather of PROBE_BYTES per rank, whose
 *     n-1 steps all come from the left neighbour: (T - (n-1) alpha) /
 *     ((n-1) PROBE_BYTES), the best of PROBE_GATHERS runs.
 * (PROBE_* are HC_TUNE_PROBE_* of engine.h.) Simulated ranks run the same
 * steps, submitted on every rank at once and stepped by the runner
 * (simrun.c); both share the three computations below.
 * Every rank then all-gathers its (median alpha over its peers, beta) and
 * all take the medians of the gathered values: identical inputs, identical
 * results, so every rank's tuner picks alike. About 10 ms on tap.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "log.h"

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

double
hc_tune_alpha_here(struct hc_ctx *ctx)
{
	struct hc_comm *comm = &ctx->tuner;
	double *v = calloc(comm->size, sizeof(*v)), alpha;
	uint32_t i, k = 0;

	if (v == NULL)
		return 0;
	for (i = 0; i < comm->size; i++) {
		uint64_t srtt = __atomic_load_n(&ctx->hct.flows[comm->world[i]]
						 .srtt_ns, __ATOMIC_RELAXED);

		if (i != comm->rank && srtt != 0)
			v[k++] = srtt / 2.0;
	}
	alpha = median(v, k);
	free(v);
	return alpha;
}

double
hc_tune_beta_here(uint32_t n, uint64_t best_ns, double alpha_ns)
{
	double beta;

	if (n < 2)
		return 0;
	beta = ((double)best_ns - (n - 1) * alpha_ns) /
	       ((double)(n - 1) * HC_TUNE_PROBE_BYTES);
	return beta < 0 ? 0 : beta;
}

int
hc_tune_agree(struct hc_ctx *ctx, const double *mine, const double *all,
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

int
hc_tune_measure(struct hc_ctx *ctx)
{
	struct hc_comm *comm = &ctx->tuner;
	uint32_t n = comm->size, i;
	uint64_t t0 = hc_clock_now(&ctx->clk), best = UINT64_MAX;
	double mine[2], *all = NULL;
	uint8_t *buf = NULL;
	int rc = 0;

	if (n == 1)
		return 0; /* no links: every cost is 0, the pick is the ring */
	all = calloc(2 * n, sizeof(*all));
	buf = calloc(n + 1, HC_TUNE_PROBE_BYTES);
	if (all == NULL || buf == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < HC_TUNE_PROBE_BARRIERS && rc == 0; i++)
		rc = hc_barrier(comm);
	mine[0] = hc_tune_alpha_here(ctx);
	for (i = 0; i < HC_TUNE_PROBE_GATHERS && rc == 0; i++) {
		uint64_t t = hc_clock_now(&ctx->clk);

		rc = hc_allgather(comm, buf + (uint64_t)n * HC_TUNE_PROBE_BYTES,
				  buf, HC_TUNE_PROBE_BYTES, HC_DTYPE_UINT8);
		t = hc_clock_now(&ctx->clk) - t;
		best = t < best ? t : best;
	}
	if (rc != 0)
		goto out;
	mine[1] = hc_tune_beta_here(n, best, mine[0]);
	rc = hc_allgather(comm, mine, all, 2, HC_DTYPE_FLOAT64);
	if (rc == 0)
		rc = hc_tune_agree(ctx, mine, all,
				   hc_clock_now(&ctx->clk) - t0);
out:
	if (rc != 0)
		HC_LOG(ERR, CORE, "rank %u: tuner probes failed: %s", ctx->rank,
		       hc_strerror(rc));
	free(all);
	free(buf);
	return rc;
}

int
hc_comm_tuner_info(const struct hc_comm *comm, char *buf, size_t len)
{
	uint64_t at[8];
	enum hc_algo_id from[8], to[8];
	uint32_t k, i, eq = 0;
	int w;

	if (comm == NULL)
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
