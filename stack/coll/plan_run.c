/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor of step plans (plan.h) behind the ops tables of tree.c,
 * hd.c and hier.c: a step runs when the steps it waits for completed;
 * DATA is reduced or copied straight into op->work / op->recv at the
 * offset it carries, after checking it against the RECV step its (source,
 * tag) names.
 *
 * Why no region is overwritten while a queued SEND still reads it: every
 * plan reduces into a region only before it sends that region on, and a
 * final value that lands in a region this rank sent partial sums from
 * includes those partial sums, so it cannot arrive before they were cut
 * into packets (the argument of ring.c). The exception, recursive
 * doubling (rd.c), sends a range and then reduces into it: its SENDs are
 * snap SENDs (plan.h), sent from a copy in x->snap taken when issued,
 * after which the RECV_REDs that wait for them are released.
 *
 * Zero copy (README "Zero-copy TX"): the packets of a SEND point into
 * the op's buffers instead of a copy where the links allow it (zc_setup),
 * and the op is over only once the transport released them. The snap
 * SENDs' point into x->snap, written once, when the SEND is issued; the
 * SENDs that read the send buffer out of place (op->own) into memory the
 * op never writes. The others read op->work or op->recv, which later
 * steps do write, but only with data that needed the SEND's bytes to have
 * arrived: the argument above, with "arrived at the peer" for "cut into
 * packets" (the final value of a range includes the partial sums this
 * rank sent of it, and a RECV step completes only with all its bytes).
 * So the bytes a packet points at change only once the peer holds that
 * packet, and a retransmission of it (a lost ACK, a spurious timeout)
 * carries the new bytes under a PSN the peer already has: hct's
 * receiver drops it as a duplicate (rx.c data_input) and uses nothing of
 * it. The one local write that could touch a sent range with no arrival
 * to order it is FINISH, which rounds or divides in place: to keep the
 * argument short, those SENDs go zero copy only where FINISH rewrites
 * nothing (the element type accumulates and there is no divisor:
 * zc_setup).
 *
 * Reduction order: a RECV_RED is reduced only after the RECV_REDs before
 * it in the plan that overlap it (plan.h). DATA of a RECV_RED that still
 * waits is copied into a buffer of its own (stage[step], allocated on its
 * first packet, freed once used) and reduced into op->work in one pass
 * when both its bytes are all there and what it waits for is complete.
 * Where it happens: the tree's second child arriving before the first, a
 * halving-doubling step's data before the previous step's (a partner
 * ahead of this rank's other partner). Without it the order of the float
 * additions followed arrival times and results differed run to run.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_sched.h"
#include "data.h"
#include "log.h"
#include "plan_run.h"

struct plan_run {
	struct hc_sched s;    /**< first: the shared bookkeeping */
	struct hc_plan plan;
	uint32_t *wait;       /**< [step] dependencies not yet complete */
	uint8_t **stage;      /**< [step] early DATA of a waiting RECV_RED */
	uint8_t *fresh;       /**< [step] SEND or RECV_RED whose range no
	                       *   earlier step wrote: with op->own set, the
	                       *   SEND reads this rank's contribution from
	                       *   op->own and the RECV_RED computes work =
	                       *   data OP own (no pre-copy, hc_plan_mark_fresh) */
	int own_ok;           /**< no step reads a range written before only
	                       *   in part (hc_plan_mark_fresh) */
	int zc_snap, zc_own;  /**< this op sends its snap SENDs / its SENDs
	                       *   from op->own zero copy (zc_setup) */
	int zc_work;          /**< ... and its other SENDs (from op->work or
	                       *   op->recv) */
	uint8_t *snap;        /**< copies of the snap SENDs' ranges, each
	                       *   taken at issue (in issue order) */
	uint64_t snap_used;   /**< bytes of snap handed out */
	uint64_t snap_size;   /**< bytes of snap (the plan's snap SENDs) */
	size_t snap_cap;      /**< bytes allocated at snap
	                       *   (hc_comm_buf_get: at least snap_size) */
	/* What the plan was made for (the communicator's cache, below):
	 * with the communicator's size, rank, groups and slice size, which
	 * do not change, these fix every algorithm's plan. */
	const struct hc_algo *algo;
	uint64_t total;
	uint32_t elem_size, acc_size;
	uint64_t recvs, sends; /**< the plan's RECV/FINISH and SEND steps */
};

static void issue(struct hc_coll_op *op, uint32_t i);

/* Whether SEND i reads this rank's contribution straight from the send
 * buffer (op->own): a fresh range, not reduced yet, neither final nor
 * snapshotted (hc_plan_mark_fresh). */
static inline int
send_reads_own(const struct hc_coll_op *op, const struct plan_run *x,
	       uint32_t i)
{
	const struct hc_step *st = &x->plan.s[i];

	return !st->final && !st->snap && x->fresh[i] && op->own != NULL;
}
static void complete(struct hc_coll_op *op, uint32_t i);

/* RECV_RED i no longer waits and its bytes are all staged: reduce them
 * into op->work, complete i. */
static void
flush_stage(struct hc_coll_op *op, uint32_t i)
{
	struct plan_run *x = op->algo_state;
	const struct hc_step *st = &x->plan.s[i];
	uint8_t *w = op->work + st->first * op->acc_size;

	/* The three-operand kernel, as hc_data_accept's: native fp16/bf16
	 * ([coll] precision) has no two-operand one. */
	if (st->own_left)
		op->reduce3(w, w, x->stage[i], st->len);
	else if (x->fresh[i] && op->own != NULL)
		op->reduce3(w, x->stage[i],
			    op->own + st->first * op->elem_size, st->len);
	else
		op->reduce3(w, x->stage[i], w, st->len);
	free(x->stage[i]);
	x->stage[i] = NULL;
	complete(op, i);
}

/* Step i's dependencies are complete: issue a SEND or FINISH; a RECV_RED
 * whose staged bytes are all there is reduced now (else its next packets
 * go on into the stage, or straight into op->work when none came yet). */
static void
release(struct hc_coll_op *op, uint32_t i)
{
	struct plan_run *x = op->algo_state;
	const struct hc_step *st = &x->plan.s[i];

	if (st->kind != HC_STEP_RECV_RED)
		issue(op, i);
	else if (x->stage[i] != NULL &&
		 x->s.got[i] == st->len * op->acc_size)
		flush_stage(op, i);
}

/* Release what waits for step i. */
static void
unblock(struct hc_coll_op *op, uint32_t i)
{
	struct plan_run *x = op->algo_state;
	uint32_t k;

	for (k = x->plan.out_first[i]; k < x->plan.out_first[i + 1]; k++)
		if (--x->wait[x->plan.out[k]] == 0 && op->status == 0)
			release(op, x->plan.out[k]);
}

/* Step i (a RECV or FINISH) is complete: release what waits for it. */
static void
complete(struct hc_coll_op *op, uint32_t i)
{
	struct plan_run *x = op->algo_state;

	x->s.recv_left--;
	unblock(op, i);
}

static void
issue(struct hc_coll_op *op, uint32_t i)
{
	struct plan_run *x = op->algo_state;
	const struct hc_step *st = &x->plan.s[i];
	struct hct_msg *msg = &x->s.msgs[i];
	uint32_t es;
	uint8_t *buf;
	int rc, own_src;

	if (st->kind == HC_STEP_FINISH) {
		uint32_t div = hc_coll_op_div(op);

		if (op->work != op->recv || div != 1)
			hc_reduce_from_acc(op->recv + st->first * op->elem_size,
					   op->work + st->first * op->acc_size,
					   st->len, op->dtype, op->acc, div);
		complete(op, i);
		return;
	}
	es = st->final ? op->elem_size : op->acc_size;
	buf = (st->final ? op->recv : op->work) + st->first * es;
	own_src = send_reads_own(op, x, i);
	if (own_src)
		buf = (uint8_t *)(uintptr_t)op->own + st->first * es;
	if (st->snap) {
		uint8_t *c = x->snap + x->snap_used;

		memcpy(c, buf, st->len * es);
		x->snap_used += st->len * es;
		buf = c;
	}
	hc_data_fill(msg, op, st->tag, buf, st->len * es, st->first * es);
	/* Zero copy (README "Zero-copy TX", the header): a snapshot is
	 * written once, here, and freed with the op; the send buffer is
	 * only read; work and recv change only where the peer holds the
	 * packets already. */
	if (op->zc != NULL && ((st->snap && x->zc_snap) ||
			       (own_src && x->zc_own) ||
			       (!st->snap && !own_src && x->zc_work)))
		msg->zc = &op->zc->shinfo;
	/* hc_data_fill gave it the op's class: the request's priority
	 * (hc_op_opts), as the ring's messages have. */
	rc = hct_send(op->comm->coll->hct, op->comm->world[st->peer], msg);
	if (rc != 0) {
		hc_coll_op_fail(op, rc);
		return;
	}
	if (st->snap)
		unblock(op, i); /* the copy is taken: its range may change */
}

/* hc_rx_done_fn: RECV step `unit` got all its bytes. */
static void
unit_done(struct hc_coll_op *op, uint64_t unit)
{
	complete(op, (uint32_t)unit);
	hc_sched_maybe_done(op);
}

/* hc_rx_done_fn of a staged RECV_RED: all its bytes are in the stage. */
static void
stage_done(struct hc_coll_op *op, uint64_t unit)
{
	struct plan_run *x = op->algo_state;

	if (x->wait[unit] == 0 && op->status == 0) {
		flush_stage(op, (uint32_t)unit);
		hc_sched_maybe_done(op);
	}
}

/* Where op->own is set but x's plan reads a range it never wrote before
 * only in part (hc_plan_mark_fresh), fill work from the send buffer as
 * before. */
static void
own_fallback(struct hc_coll_op *op, const struct plan_run *x)
{
	if (op->own == NULL || x->own_ok)
		return;
	if (op->work != op->own)
		memcpy(op->work, op->own, op->total * op->elem_size);
	op->own = NULL;
}

/* The kinds of SEND for zero copy (zc_setup): a snap SEND; one reading
 * this rank's contribution from op->own (send_reads_own); any other. */
enum zc_kind { ZC_SNAP, ZC_OWN, ZC_WORK, ZC__MAX };

/* One pass over x's plan: for each kind k, whether every SEND of that kind
 * goes to a peer whose flow allows zero copy (hct_zc_ok()), ok[k], and
 * their bytes, bytes[k]. */
static void
zc_scan(struct hc_coll_op *op, const struct plan_run *x, int ok[ZC__MAX],
	uint64_t bytes[ZC__MAX])
{
	uint32_t i;
	int k;

	for (k = 0; k < ZC__MAX; k++) {
		ok[k] = 1;
		bytes[k] = 0;
	}
	for (i = 0; i < x->plan.len; i++) {
		const struct hc_step *st = &x->plan.s[i];

		if (st->kind != HC_STEP_SEND)
			continue;
		k = st->snap ? ZC_SNAP :
		    send_reads_own(op, x, i) ? ZC_OWN : ZC_WORK;
		if (ok[k] &&
		    !hct_zc_ok(op->comm->coll->hct, op->comm->world[st->peer]))
			ok[k] = 0;
		bytes[k] += st->len * op->elem_size;
	}
}

/* Zero copy, where every peer the SENDs of a kind go to allows it
 * (hct_zc_ok()) and they carry enough bytes for packets to go so
 * (HCT_ZC_MIN_BYTES), for three kinds of SEND (the header says why each
 * is safe):
 * - the snap SENDs (recursive doubling, rd.c), from x->snap;
 * - the fresh SENDs reading the send buffer (op->own: halving-doubling's
 *   first step, a fold-in), when the send buffer shares no byte with
 *   recv or work (out of place), as the ring's step 0 (ring.c); a send
 *   buffer that overlaps them, in place included, is copied (in part, a
 *   RECV_RED into the overlap may change it before the peer has its
 *   bytes; in place, not relaxed);
 * - the others, from op->work or op->recv, when FINISH writes no range a
 *   SEND read: the element type accumulates (FINISH then rounds nothing:
 *   it is a no-op with work = recv, else it fills recv from work before
 *   any final SEND reads it) and there is no divisor (AVG's FINISH
 *   scales in place). fp16/bf16 with [coll] precision fp32, and AVG
 *   (but native fp16/bf16 AVG, pre-scaled, has no divisor), copy them. */
static void
zc_setup(struct hc_coll_op *op, uint64_t snap)
{
	struct plan_run *x = op->algo_state;
	uint64_t bytes[ZC__MAX];
	int ok[ZC__MAX];

	x->zc_snap = 0;
	x->zc_own = 0;
	x->zc_work = 0;
	if (x->plan.len > 16384)
		return;
	zc_scan(op, x, ok, bytes);
	x->zc_snap = snap >= HCT_ZC_MIN_BYTES && ok[ZC_SNAP];
	x->zc_own = hc_coll_own_apart(op) && ok[ZC_OWN] &&
		    bytes[ZC_OWN] >= HCT_ZC_MIN_BYTES;
	x->zc_work = op->acc == op->dtype && hc_coll_op_div(op) == 1 &&
		     ok[ZC_WORK] && bytes[ZC_WORK] >= HCT_ZC_MIN_BYTES;
	if ((x->zc_snap || x->zc_own || x->zc_work) &&
	    hc_coll_zc_init(op) != 0)
		x->zc_snap = x->zc_own = x->zc_work = 0; /* no memory: copies */
}

/* Issue the steps of x's plan that wait for nothing, x being op's fresh
 * or reset state. */
static void
run_first(struct hc_coll_op *op, struct plan_run *x)
{
	uint32_t i;

	op->algo_state = x;
	for (i = 0; i < x->plan.len && op->status == 0; i++)
		if (x->plan.ndeps[i] == 0 && !(x->plan.s[i].kind ==
					       HC_STEP_RECV_RED ||
					       x->plan.s[i].kind ==
					       HC_STEP_RECV_COPY))
			issue(op, i);
	hc_sched_maybe_done(op);
}

/* Free x and everything it holds (no op uses it); its snapshot buffer
 * goes back to comm (hc_comm_buf_put) when no packet reads it any more
 * (released), else it is freed. */
static void
state_free(struct hc_comm *comm, struct plan_run *x, int released)
{
	uint32_t i;

	for (i = 0; i < x->plan.len; i++)
		free(x->stage[i]);
	free(x->stage);
	free(x->fresh);
	if (released)
		hc_comm_buf_put(comm, x->snap, x->snap_cap);
	else
		free(x->snap);
	hc_plan_free(&x->plan);
	free(x->wait);
	free(x->s.got);
	free(x->s.msgs);
	free(x);
}

int
hc_plan_run_reuse(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	struct plan_run *x = comm->plan_cache;

	if (x == NULL || x->algo != op->algo || x->total != op->total ||
	    x->elem_size != op->elem_size || x->acc_size != op->acc_size)
		return 0;
	comm->plan_cache = NULL;
	/* As a fresh state: no byte received, every dependency open, the
	 * snapshot buffer empty. The stages were freed as they were used
	 * (a completed op used them all); the messages are filled anew by
	 * hc_data_fill before they are queued. */
	memset(x->s.got, 0, x->plan.len * sizeof(*x->s.got));
	x->s.recv_left = x->recvs;
	x->s.send_left = x->sends;
	memcpy(x->wait, x->plan.ndeps, x->plan.len * sizeof(*x->wait));
	x->snap_used = 0;
	op->algo_state = x;
	own_fallback(op, x);
	zc_setup(op, x->snap_size);
	run_first(op, x);
	return 1;
}

void
hc_plan_run_cache_free(struct hc_comm *comm)
{
	if (comm->plan_cache != NULL)
		state_free(comm, comm->plan_cache, 1);
	comm->plan_cache = NULL;
}

int
hc_plan_run_start(struct hc_coll_op *op, struct hc_plan *plan)
{
	struct plan_run *x;
	uint64_t sends = 0, waits = 0, snap = 0;
	uint32_t i;
	int rc;

	rc = hc_plan_link(plan);
	if (rc != 0) {
		hc_plan_free(plan);
		return rc;
	}
	x = calloc(1, sizeof(*x));
	if (x != NULL) {
		x->wait = malloc((plan->len + 1) * sizeof(*x->wait));
		x->stage = calloc(plan->len + 1, sizeof(*x->stage));
		x->fresh = calloc(plan->len + 1, sizeof(*x->fresh));
	}
	for (i = 0; i < plan->len; i++) {
		if (plan->s[i].kind == HC_STEP_SEND)
			sends++;
		else
			waits++;
		if (plan->s[i].kind == HC_STEP_SEND && plan->s[i].snap)
			snap += plan->s[i].len * (plan->s[i].final ?
						  op->elem_size : op->acc_size);
	}
	/* From the communicator's kept buffer: rd forced on 32 MiB or more
	 * took a fresh mapping and its page faults per op (coll.h). */
	if (x != NULL && snap > 0)
		x->snap = hc_comm_buf_get(op->comm, snap, &x->snap_cap);
	if (x == NULL || x->wait == NULL || x->stage == NULL ||
	    x->fresh == NULL ||
	    (snap > 0 && x->snap == NULL) ||
	    hc_sched_init(&x->s, plan->len, waits, sends) != 0) {
		if (x != NULL) {
			free(x->wait);
			free(x->stage);
			free(x->fresh);
			free(x->snap);
		}
		free(x);
		hc_plan_free(plan);
		return -HC_ERR_NOMEM;
	}
	x->plan = *plan;
	x->own_ok = hc_plan_mark_fresh(&x->plan, x->fresh);
	own_fallback(op, x);
	memcpy(x->wait, plan->ndeps, plan->len * sizeof(*x->wait));
	x->algo = op->algo;
	x->total = op->total;
	x->elem_size = op->elem_size;
	x->acc_size = op->acc_size;
	x->recvs = waits;
	x->sends = sends;
	x->snap_size = snap;
	op->algo_state = x;
	zc_setup(op, snap);
	run_first(op, x);
	return 0;
}

enum hct_rx_verdict
hc_plan_run_data(struct hc_coll_op *op, uint32_t src,
		 const struct hct_data_desc *d, const uint8_t *payload)
{
	struct plan_run *x = op->algo_state;
	uint32_t i = hc_plan_find_recv(&x->plan, src, d->step);
	const struct hc_step *s;
	struct hc_rx_unit u;

	if (i == UINT32_MAX)
		return hc_data_accept(op, NULL, d, payload);
	s = &x->plan.s[i];
	u.reduce = s->kind == HC_STEP_RECV_RED;
	u.es = u.reduce ? op->acc_size : op->elem_size;
	u.dst = (u.reduce ? op->work : op->recv) + s->first * u.es;
	u.first = s->first * u.es;
	u.len = s->len * u.es;
	/* A fresh RECV_RED with op->own set is its range's first reduction:
	 * work = data OP own (work was not filled); else work holds partial
	 * sums (or was filled before the plan ran). */
	u.own = u.reduce && x->fresh[i] && op->own != NULL && !s->own_left ?
			op->own + s->first * op->elem_size :
			NULL;
	u.own_left = s->own_left;
	u.got = &x->s.got[i];
	u.done = unit_done;
	u.id = i;
	if (u.reduce && (x->wait[i] != 0 || x->stage[i] != NULL)) {
		/* Earlier overlapping RECV_REDs not reduced yet: keep it. */
		if (x->stage[i] == NULL &&
		    (x->stage[i] = malloc(u.len)) == NULL) {
			hc_coll_op_fail(op, -HC_ERR_NOMEM);
			return HCT_RX_CONSUMED;
		}
		u.reduce = 0;
		u.dst = x->stage[i];
		u.done = stage_done;
	}
	return hc_data_accept(op, &u, d, payload);
}

void
hc_plan_run_fini(struct hc_coll_op *op)
{
	struct plan_run *x = op->algo_state;
	struct hc_comm *comm = op->comm;

	/* A completed op's state, small enough, waits in the communicator
	 * for the next op of the same shape (hc_plan_run_reuse): a loop of
	 * short all-reduces then allocates and links no plan per op. A
	 * failed op's does not (the communicator takes no more work). */
	if (hc_coll_op_complete(op) &&
	    x->snap_used <= HC_PLAN_RUN_CACHE_SNAP_MAX &&
	    x->plan.len <= HC_PLAN_RUN_CACHE_STEPS_MAX) {
		uint32_t i;

		for (i = 0; i < x->plan.len; i++) { /* all used: none left */
			free(x->stage[i]);
			x->stage[i] = NULL;
		}
		hc_plan_run_cache_free(comm);
		comm->plan_cache = x;
		return;
	}
	state_free(comm, x, hc_coll_op_complete(op) &&
			    hc_coll_zc_released(op->zc));
}
