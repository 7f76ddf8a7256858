/* SPDX-License-Identifier: BSD-3-Clause */
/* The alpha-beta cost model and the pick (tune.h). */
#include <string.h>

#include <rte_common.h>

#include "tune.h"

static const char *const names[HC_ALGO__MAX] = {
	[HC_ALGO_AUTO] = "auto",
	[HC_ALGO_RING] = "ring",
	[HC_ALGO_TREE] = "tree",
	[HC_ALGO_HD] = "hd",
	[HC_ALGO_HIER] = "hier",
	[HC_ALGO_RD] = "rd",
};

const char *
hc_algo_id_name(enum hc_algo_id a)
{
	return (unsigned int)a < HC_ALGO__MAX ? names[a] : "?";
}

int
hc_algo_id_parse(const char *name)
{
	int a;

	for (a = 0; name != NULL && a < HC_ALGO__MAX; a++)
		if (strcmp(name, names[a]) == 0)
			return a;
	return -1;
}

int
hc_tune_can_run(enum hc_algo_id a, const struct hc_tune_shape *sh)
{
	if (a == HC_ALGO_HIER)
		return sh->gsize != 0;
	return (unsigned int)a < HC_ALGO__MAX;
}

static uint32_t
log2_floor(uint32_t n)
{
	return n > 1 ? 31 - (uint32_t)__builtin_clz(n) : 0;
}

static uint32_t
log2_ceil(uint32_t n)
{
	return n > 1 ? log2_floor(n - 1) + 1 : 0;
}

/* Steps and bandwidth factor of halving-doubling among n. */
static void
hd_model(uint32_t n, double *steps, double *factor)
{
	uint32_t p = 1u << log2_floor(n);

	*steps = 2.0 * log2_floor(n);
	*factor = 2.0 * (p - 1) / p;
	if (n != p) {
		*steps += 2;
		*factor += 2;
	}
}

double
hc_tune_cost(enum hc_algo_id a, const struct hc_tune_shape *sh,
	     const struct hc_tune *t, double bytes)
{
	double n = sh->n, steps, factor;

	if (!hc_tune_can_run(a, sh) || a == HC_ALGO_AUTO)
		return -1;
	if (sh->n <= 1)
		return 0;
	switch (a) {
	case HC_ALGO_RING:
		steps = 2 * (n - 1);
		factor = 2 * (n - 1) / n;
		break;
	case HC_ALGO_TREE:
		steps = 2.0 * log2_ceil(sh->n);
		factor = 2;
		break;
	case HC_ALGO_HD:
		hd_model(sh->n, &steps, &factor);
		break;
	case HC_ALGO_RD:
		steps = log2_floor(sh->n);
		factor = 2 * steps; /* sent and snapshot-copied (tune.h) */
		if (sh->n != 1u << log2_floor(sh->n)) {
			steps += 2;
			factor += 2;
		}
		break;
	default: {
		double g = sh->gsize;

		hd_model(sh->groups, &steps, &factor);
		steps += g > 1 ? 2 : 0;
		factor = 2 * (g - 1) / g + factor / g;
		break;
	}
	}
	return steps * t->alpha_ns + bytes * t->beta_ns * factor;
}

enum hc_algo_id
hc_tune_pick(const struct hc_tune_shape *sh, const struct hc_tune *t,
	     double bytes)
{
	enum hc_algo_id best = HC_ALGO_RING, a;
	double best_cost = hc_tune_cost(HC_ALGO_RING, sh, t, bytes);

	for (a = HC_ALGO_TREE; a < HC_ALGO__MAX; a++) {
		double c = hc_tune_cost(a, sh, t, bytes);

		if (c >= 0 && c < best_cost) {
			best = a;
			best_cost = c;
		}
	}
	return best;
}

void
hc_tune_fit(uint32_t n, uint64_t small_ns, uint64_t small_bytes,
	    uint64_t big_ns, uint64_t big_bytes, struct hc_tune *out)
{
	double small_step, big_step;

	out->alpha_ns = out->beta_ns = 0;
	if (n < 2 || big_bytes <= small_bytes)
		return;
	small_step = (double)small_ns / (n - 1);
	big_step = (double)big_ns / (n - 1);
	out->beta_ns = (big_step - small_step) /
		       (double)(big_bytes - small_bytes);
	if (out->beta_ns <= 0) { /* noise: see tune.h */
		out->beta_ns = big_step / (double)big_bytes;
		out->alpha_ns = RTE_MIN(small_step, big_step);
		return;
	}
	out->alpha_ns = small_step - (double)small_bytes * out->beta_ns;
	if (out->alpha_ns < 0)
		out->alpha_ns = 0;
}

uint32_t
hc_tune_switches(const struct hc_tune_shape *sh, const struct hc_tune *t,
		 uint64_t *out, enum hc_algo_id *from, enum hc_algo_id *to,
		 uint32_t max)
{
	const uint64_t top = (uint64_t)1 << 40;
	enum hc_algo_id prev = hc_tune_pick(sh, t, 1);
	uint64_t pos = 1;
	uint32_t k = 0;

	/* The costs are lines in bytes: the pick is their lower envelope,
	 * each algorithm one interval, so the next change is found by
	 * doubling from the last one and bisecting. */
	while (pos < top) {
		uint64_t a = pos, b = pos * 2;

		while (b < top && hc_tune_pick(sh, t, (double)b) == prev) {
			a = b;
			b *= 2;
		}
		if (hc_tune_pick(sh, t, (double)b) == prev)
			break;
		while (b - a > 1) {
			uint64_t mid = a + (b - a) / 2;

			if (hc_tune_pick(sh, t, (double)mid) == prev)
				a = mid;
			else
				b = mid;
		}
		if (k < max) {
			out[k] = b;
			from[k] = prev;
			to[k] = hc_tune_pick(sh, t, (double)b);
		}
		k++;
		prev = hc_tune_pick(sh, t, (double)b);
		pos = b;
	}
	return k;
}

double
hc_tune_crossover(enum hc_algo_id a, enum hc_algo_id b,
		  const struct hc_tune_shape *sh, const struct hc_tune *t)
{
	const double probe = 1 << 20;
	double a0 = hc_tune_cost(a, sh, t, 0), b0 = hc_tune_cost(b, sh, t, 0);
	double as, bs, x;

	if (a0 < 0 || b0 < 0)
		return 0;
	as = (hc_tune_cost(a, sh, t, probe) - a0) / probe;
	bs = (hc_tune_cost(b, sh, t, probe) - b0) / probe;
	if (as == bs)
		return 0;
	x = (b0 - a0) / (as - bs);
	return x > 0 ? (double)(uint64_t)x : 0;
}
