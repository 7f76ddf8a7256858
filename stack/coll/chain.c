/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipelined chain, for rooted collectives. Ranks stand in a line by their
 * distance p = (r - root) mod n from the root; the buffer is cut into
 * slices that travel the line one after the other, so every link is busy
 * once the pipeline fills (time ~ (n - 2 + slices) * slice time):
 *   broadcast: root (p = 0) -> p = 1 -> ... -> p = n-1, each rank copying
 *              a slice into its buffer and passing it on;
 *   reduce:    p = n-1 -> ... -> p = 1 -> root, each rank reducing the
 *              incoming slice into its own contribution (in the
 *              accumulation type) before passing it on; the root rounds
 *              the result once.
 * Each slice is one message at step 0; the payload offset says which.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"
#include "data.h"
#include "log.h"

struct chain {
	struct hc_sched s;        /**< first: the shared bookkeeping */
	struct hc_ring_plan plan; /**< one "chunk" (n = 1), cut in slices */
	uint32_t pos;             /**< distance from the root */
	int sends, receives;      /**< this rank's roles */
	uint32_t next;            /**< world rank we send to */
	uint32_t prev;            /**< comm rank we receive from */
};

static int
is_bcast(const struct hc_coll_op *op)
{
	return op->kind == HC_COLL_BROADCAST;
}

/* Broadcast moves the buffer itself; reduce moves accumulators. */
static uint32_t
wire_size(const struct hc_coll_op *op)
{
	return is_bcast(op) ? op->elem_size : op->acc_size;
}

static uint8_t *
wire_buf(const struct hc_coll_op *op)
{
	return is_bcast(op) ? op->recv : op->work;
}

static void
send_slice(struct hc_coll_op *op, uint32_t k)
{
	struct chain *g = op->algo_state;
	struct hct_msg *msg = &g->s.msgs[k];
	uint32_t es = wire_size(op);
	uint64_t first, len;
	int rc;

	hc_ring_span(&g->plan, 0, k, &first, &len);
	if (len == 0) {
		g->s.send_left--;
		return;
	}
	if (!is_bcast(op) && !g->receives && op->own != NULL &&
	    op->acc == op->dtype) {
		/* the head of a reduce: its contribution straight from the
		 * send buffer */
		hc_data_fill(msg, op, 0, op->own + first * es, len * es,
			     first * es);
	} else {
		if (!is_bcast(op) && !g->receives && op->own != NULL)
			hc_reduce_to_acc(op->work + first * es,
					 op->own + first * op->elem_size, len,
					 op->dtype, op->acc);
		hc_data_fill(msg, op, 0, wire_buf(op) + first * es, len * es,
			     first * es);
	}
	rc = hct_send(op->comm->coll->hct, g->next, msg);
	if (rc != 0)
		hc_coll_op_fail(op, rc);
}

/* The root of a reduce owns the result of slice k: round it once. */
static void
finish_slice(struct hc_coll_op *op, uint32_t k)
{
	struct chain *g = op->algo_state;
	uint32_t div = hc_coll_op_div(op);
	uint64_t first, len;

	if (is_bcast(op) || g->pos != 0 || (op->work == op->recv && div == 1))
		return;
	hc_ring_span(&g->plan, 0, k, &first, &len);
	hc_reduce_from_acc(op->recv + first * op->elem_size,
			   op->work + first * op->acc_size, len, op->dtype,
			   op->acc, div);
}

static void
slice_arrived(struct hc_coll_op *op, uint32_t k)
{
	struct chain *g = op->algo_state;

	g->s.recv_left--;
	finish_slice(op, k);
	if (g->sends)
		send_slice(op, k);
}

/* hc_rx_done_fn: slice `unit` got all its bytes. */
static void
unit_done(struct hc_coll_op *op, uint64_t unit)
{
	slice_arrived(op, (uint32_t)unit);
	hc_sched_maybe_done(op);
}

static int
chain_start(struct hc_coll_op *op)
{
	uint32_t n = op->comm->size, r = op->comm->rank, k;
	struct chain *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return -HC_ERR_NOMEM;
	g->pos = (r + n - op->root) % n;
	if (is_bcast(op)) {
		g->sends = g->pos != n - 1;
		g->receives = g->pos != 0;
		g->next = op->comm->world[(r + 1) % n];
		g->prev = (r + n - 1) % n;
	} else {
		g->sends = g->pos != 0;
		g->receives = g->pos != n - 1;
		g->next = op->comm->world[(r + n - 1) % n];
		g->prev = (r + 1) % n;
	}
	hc_ring_plan_init(&g->plan, op->total, 1, wire_size(op),
			  op->comm->coll->slice_bytes);
	if (hc_sched_init(&g->s, g->plan.nslices,
			  g->receives ? g->plan.nslices : 0,
			  g->sends ? g->plan.nslices : 0) != 0) {
		free(g);
		return -HC_ERR_NOMEM;
	}
	op->algo_state = g;
	for (k = 0; k < g->plan.nslices && op->status == 0; k++) {
		uint64_t first, len;

		hc_ring_span(&g->plan, 0, k, &first, &len);
		if (!g->receives) {
			/* the head of the line: its own data goes first */
			finish_slice(op, k);
			if (g->sends)
				send_slice(op, k);
		} else if (len == 0) {
			slice_arrived(op, k);
		}
	}
	hc_sched_maybe_done(op);
	return 0;
}

/* The unit a DATA packet names: from the previous rank in the line, at
 * step 0, the slice its first element falls in. */
static enum hct_rx_verdict
chain_data(struct hc_coll_op *op, uint32_t src, const struct hct_data_desc *d,
	   const uint8_t *payload)
{
	struct chain *g = op->algo_state;
	uint64_t first, len;
	struct hc_rx_unit u;
	uint32_t k;

	u.es = wire_size(op);
	if (!g->receives || src != g->prev || d->step != 0 ||
	    d->offset / u.es >= op->total)
		return hc_data_accept(op, NULL, d, payload);
	k = hc_ring_slice_of(&g->plan, 0, d->offset / u.es);
	hc_ring_span(&g->plan, 0, k, &first, &len);
	u.dst = wire_buf(op) + first * u.es;
	u.first = first * u.es;
	u.len = len * u.es;
	u.got = &g->s.got[k];
	u.reduce = !is_bcast(op);
	/* each slice arrives once: the first reduction of its region */
	u.own = u.reduce && op->own != NULL ?
		op->own + first * op->elem_size : NULL;
	u.own_left = 0;
	u.done = unit_done;
	u.id = k;
	return hc_data_accept(op, &u, d, payload);
}

const struct hc_algo hc_algo_chain = {
	.name = "chain",
	.start = chain_start,
	.data = chain_data,
	.sent = hc_sched_sent,
	.fini = hc_sched_fini,
};
