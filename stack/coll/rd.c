/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recursive-doubling all-reduce for short messages (Thakur, Rabenseifner,
 * Gropp, "Optimization of collective communication operations in MPICH",
 * IJHPCA 19(1), 2005, section 4.4): with p the largest power of two <= n,
 * log2 p steps; in step k participant v exchanges its whole current
 * vector with v XOR 2^k and reduces what it gets into it. At n = 2 that
 * is one one-way trip where the ring and halving-doubling take two
 * (reduce-scatter, then all-gather), at the price of log2 p times the
 * bytes: the tuner (tune.h) picks it for small messages only. With n not
 * a power of two the first 2(n - p) ranks pair up as in hd.c: the even
 * one sends its vector to the odd one, which takes part in its place and
 * sends it the result at the end.
 *
 * Same bits on every rank: both partners of a step reduce the same two
 * operands, and both put the lower participant's partial sums on the left
 * (own_left in plan.h), so the result is the same even where OP is not
 * commutative bit for bit (float MAX of +0 and -0 picks by order, a SUM
 * of two NaNs keeps one operand's payload, reduce.h). By induction every
 * member of a group of 2^(k+1) participants holds the same bits after step
 * k. fp16/bf16 accumulate in float32 (or natively, [coll] precision) and
 * are rounded (and divided, AVG) once, by the FINISH step, on every rank
 * from the same float32 bits.
 *
 * The send and the reduction of a step touch the same range of op->work:
 * the step's SEND is a snap SEND (plan.h), the range copied when it is
 * issued, and the step's RECV_RED waits for it. Why a copy and not an
 * executor rule that holds the reduction until the transport has cut the
 * message: a copy of a short message costs less than holding the
 * reduction (the peer's data would then be staged, copied and reduced
 * later, plan_run.c), and it keeps our own transmission (which the
 * congestion window may delay) off the critical path of the reduction.
 * Forced on large buffers (HC_ALGO=rd) it stays correct, at one extra
 * copy of the buffer per step and log2 p + 1 copies held.
 */
#include "coll.h"
#include "coll_sched.h"
#include "plan.h"
#include "plan_run.h"

void
hc_rd_plan(struct hc_plan *p, uint32_t n, uint32_t r, uint64_t count)
{
	uint32_t pw = 1, logp = 0, rem, nr, k;
	uint16_t post;

	while (pw * 2 <= n) {
		pw *= 2;
		logp++;
	}
	rem = n - pw;
	post = (uint16_t)(1 + logp);
	if (r < 2 * rem && r % 2 == 0) {
		/* Folds into r + 1. */
		hc_plan_add(p, HC_STEP_SEND, 0, r + 1, 0, 0, count);
		hc_plan_add(p, HC_STEP_RECV_COPY, 1, r + 1, post, 0, count);
		return;
	}
	if (r < 2 * rem)
		hc_plan_add(p, HC_STEP_RECV_RED, 0, r - 1, 0, 0, count);
	nr = r < 2 * rem ? r / 2 : r - rem;
#define REAL(q) ((q) < rem ? 2 * (q) + 1 : (q) + rem)
	for (k = 0; k < logp; k++) {
		uint32_t partner = nr ^ (1u << k);
		uint16_t tag = (uint16_t)(1 + k);

		hc_plan_add_x(p, HC_STEP_SEND, 0, 1, 0, REAL(partner), tag, 0,
			      count);
		hc_plan_add_x(p, HC_STEP_RECV_RED, 0, 0, nr < partner,
			      REAL(partner), tag, 0, count);
	}
#undef REAL
	hc_plan_add(p, HC_STEP_FINISH, 0, 0, 0, 0, count);
	if (r < 2 * rem)
		hc_plan_add(p, HC_STEP_SEND, 1, r - 1, post, 0, count);
}

static int
rd_start(struct hc_coll_op *op)
{
	struct hc_plan p;

	if (hc_plan_run_reuse(op))
		return 0;
	hc_plan_init(&p);
	hc_rd_plan(&p, op->comm->size, op->comm->rank, op->total);
	return hc_plan_run_start(op, &p);
}

const struct hc_algo hc_algo_rd = {
	.name = "rd",
	.start = rd_start,
	HC_PLAN_RUN_OPS,
};
