/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recursive halving-doubling all-reduce (Rabenseifner's algorithm; Thakur,
 * Rabenseifner, Gropp, "Optimization of collective communication
 * operations in MPICH", IJHPCA 19(1), 2005, section 4.4): reduce-scatter
 * by recursive halving (log2 p steps, distance p/2 down to 1, each rank
 * keeping the half of its range on its side of the partner), then
 * all-gather by recursive doubling (distance 1 up to p/2). With m not a
 * power of two, the first 2(m - p) participants pair up: the even one of
 * each pair sends its whole vector to the odd one (pre-step), which takes
 * part in its place and sends it the result at the end (post-step).
 *
 * Participant i of the p that take part owns block i (of p balanced
 * blocks) after the halving, computes its final value there once and the
 * doubling copies it to the others.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"
#include "plan.h"
#include "plan_run.h"

void
hc_hd_plan_sub(struct hc_plan *p, const uint32_t *ranks, uint32_t m,
	       uint32_t me, uint64_t first, uint64_t len, uint16_t tag0)
{
	uint32_t pw = 1, logp = 0, rem, nr, dist, lo, hi, k;
	uint16_t post;

	while (pw * 2 <= m) {
		pw *= 2;
		logp++;
	}
	rem = m - pw;
	post = (uint16_t)(tag0 + 1 + 2 * logp);
	if (me < 2 * rem && me % 2 == 0) {
		/* Folds into me + 1. */
		hc_plan_add(p, HC_STEP_SEND, 0, ranks[me + 1], tag0, first,
			    len);
		hc_plan_add(p, HC_STEP_RECV_COPY, 1, ranks[me + 1], post,
			    first, len);
		return;
	}
	if (me < 2 * rem)
		hc_plan_add(p, HC_STEP_RECV_RED, 0, ranks[me - 1], tag0, first,
			    len);
	nr = me < 2 * rem ? me / 2 : me - rem;
#define REAL(q) ranks[(q) < rem ? 2 * (q) + 1 : (q) + rem]
#define AT(b) (first + hc_plan_part(len, pw, (b)))
	/* Reduce-scatter: [lo, hi) are the blocks still ours. */
	lo = 0;
	hi = pw;
	for (k = 0, dist = pw / 2; dist >= 1; k++, dist /= 2) {
		uint32_t partner = nr ^ dist, mid = lo + dist;
		uint16_t tag = (uint16_t)(tag0 + 1 + k);

		if (nr & dist) {
			hc_plan_add(p, HC_STEP_SEND, 0, REAL(partner), tag,
				    AT(lo), AT(mid) - AT(lo));
			hc_plan_add(p, HC_STEP_RECV_RED, 0, REAL(partner), tag,
				    AT(mid), AT(hi) - AT(mid));
			lo = mid;
		} else {
			hc_plan_add(p, HC_STEP_SEND, 0, REAL(partner), tag,
				    AT(mid), AT(hi) - AT(mid));
			hc_plan_add(p, HC_STEP_RECV_RED, 0, REAL(partner), tag,
				    AT(lo), AT(mid) - AT(lo));
			hi = mid;
		}
	}
	hc_plan_add(p, HC_STEP_FINISH, 0, 0, 0, AT(nr), AT(nr + 1) - AT(nr));
	/* All-gather: our range doubles every step. */
	for (k = 0, dist = 1; dist < pw; k++, dist *= 2) {
		uint32_t partner = nr ^ dist, base = nr & ~(dist - 1);
		uint32_t pbase = partner & ~(dist - 1);
		uint16_t tag = (uint16_t)(tag0 + 1 + logp + k);

		hc_plan_add(p, HC_STEP_SEND, 1, REAL(partner), tag, AT(base),
			    AT(base + dist) - AT(base));
		hc_plan_add(p, HC_STEP_RECV_COPY, 1, REAL(partner), tag,
			    AT(pbase), AT(pbase + dist) - AT(pbase));
	}
	if (me < 2 * rem)
		hc_plan_add(p, HC_STEP_SEND, 1, ranks[me - 1], post, first,
			    len);
#undef REAL
#undef AT
}

void
hc_hd_plan(struct hc_plan *p, uint32_t n, uint32_t r, uint64_t count)
{
	uint32_t *ranks = malloc(n * sizeof(*ranks)), i;

	if (ranks == NULL) {
		p->err = -HC_ERR_NOMEM;
		return;
	}
	for (i = 0; i < n; i++)
		ranks[i] = i;
	hc_hd_plan_sub(p, ranks, n, r, 0, count, 0);
	free(ranks);
}

static int
hd_start(struct hc_coll_op *op)
{
	struct hc_plan p;

	if (hc_plan_run_reuse(op))
		return 0;
	hc_plan_init(&p);
	hc_hd_plan(&p, op->comm->size, op->comm->rank, op->total);
	return hc_plan_run_start(op, &p);
}

const struct hc_algo hc_algo_hd = {
	.name = "hd",
	.start = hd_start,
	HC_PLAN_RUN_OPS,
};
