/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipelined ring all-reduce: reduce-scatter then all-gather, n-1 steps
 * each, every chunk cut into slices that move through the steps
 * independently (ring_plan.h has the schedule). Patarasuk and Yuan,
 * "Bandwidth optimal all-reduce algorithms for clusters of workstations",
 * JPDC 69(2), 2009: each rank sends and receives 2(n-1)/n of the buffer.
 *
 * Payload is reduced (reduce-scatter) or copied (all-gather) straight into
 * the receive buffer at the offset each packet carries. Why no buffer
 * region is overwritten while a queued message still reads it: the value
 * rank r receives for chunk c in all-gather includes what r itself sent
 * for c in reduce-scatter, so it cannot arrive before that message was cut
 * into packets (copied into mbufs); and each chunk is received once per
 * phase.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "log.h"

struct ring {
	struct hc_ring_plan plan;
	uint32_t steps;      /**< 2(n-1) */
	uint32_t left;       /**< world rank we receive from */
	uint32_t right;      /**< world rank we send to */
	uint64_t *got;       /**< [step][slice] bytes received */
	struct hct_msg *msgs; /**< [step][slice] */
	uint64_t recv_left;  /**< (step, slice) pairs not complete */
	uint64_t send_left;  /**< messages not yet cut into packets */
};

static inline uint64_t
idx(const struct ring *g, uint32_t step, uint32_t slice)
{
	return (uint64_t)step * g->plan.nslices + slice;
}

static void
maybe_done(struct hc_coll_op *op)
{
	struct ring *g = op->algo_state;

	if (g->recv_left == 0 && g->send_left == 0)
		op->done = 1;
}

/* Queue the message of (step, slice); empty ones count as sent. */
static void
send_step(struct hc_coll_op *op, uint32_t step, uint32_t slice)
{
	struct ring *g = op->algo_state;
	struct hct_msg *msg = &g->msgs[idx(g, step, slice)];
	uint32_t c = hc_ring_send_chunk(g->plan.n, op->comm->rank, step);
	uint64_t first, len;
	int rc;

	uint32_t es = step < g->plan.n - 1 ? op->acc_size : op->elem_size;
	uint8_t *buf = step < g->plan.n - 1 ? op->work : op->recv;

	hc_ring_span(&g->plan, c, slice, &first, &len);
	if (len == 0) {
		g->send_left--;
		return;
	}
	msg->src = buf + first * es;
	msg->len = len * es;
	msg->owner = op;
	msg->desc.comm_id = op->comm->id;
	msg->desc.coll_seq = op->seq;
	msg->desc.sig = op->sig;
	msg->desc.step = (uint16_t)step;
	msg->desc.offset = first * es;
	msg->desc.length = (uint32_t)RTE_MIN(msg->len, (uint64_t)UINT32_MAX);
	rc = hct_send(op->comm->coll->hct, g->right, msg);
	if (rc != 0)
		hc_coll_op_fail(op, rc);
}

/* After the last reduce-scatter step this rank owns chunk r+1 reduced
 * over all ranks, in the accumulation type: round it into the receive
 * buffer once (and divide for AVG), before all-gather copies it out. */
static void
finish_owned(struct hc_coll_op *op, uint32_t slice)
{
	struct ring *g = op->algo_state;
	uint32_t c = (op->comm->rank + 1) % g->plan.n;
	uint32_t div = op->op == HC_OP_AVG ? g->plan.n : 1;
	uint64_t first, len;

	if (op->work == op->recv && div == 1)
		return;
	hc_ring_span(&g->plan, c, slice, &first, &len);
	hc_reduce_from_acc(op->recv + first * op->elem_size,
			   op->work + first * op->acc_size, len, op->dtype,
			   op->acc, div);
}

/* (step, slice) fully received: the slice moves on. */
static void
step_complete(struct hc_coll_op *op, uint32_t step, uint32_t slice)
{
	struct ring *g = op->algo_state;

	g->recv_left--;
	if (step == g->plan.n - 2)
		finish_owned(op, slice);
	if (step + 1 < g->steps)
		send_step(op, step + 1, slice);
}

static int
ring_start(struct hc_coll_op *op)
{
	uint32_t n = op->comm->size, r = op->comm->rank, j, k;
	struct ring *g;

	if (op->comm->size - 1 > UINT16_MAX / 2) {
		HC_LOG(ERR, COLL, "ring: %u ranks exceed the 16-bit step field",
		       n);
		return -HC_ERR_UNSUPPORTED;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -HC_ERR_NOMEM;
	hc_ring_plan_init(&g->plan, op->count, n, op->elem_size,
			  op->comm->coll->slice_bytes);
	g->steps = hc_ring_steps(n);
	g->left = op->comm->world[(r + n - 1) % n];
	g->right = op->comm->world[(r + 1) % n];
	g->got = calloc((uint64_t)g->steps * g->plan.nslices, sizeof(*g->got));
	g->msgs = calloc((uint64_t)g->steps * g->plan.nslices, sizeof(*g->msgs));
	if (g->got == NULL || g->msgs == NULL) {
		free(g->got);
		free(g->msgs);
		free(g);
		return -HC_ERR_NOMEM;
	}
	op->algo_state = g;
	g->recv_left = (uint64_t)g->steps * g->plan.nslices;
	g->send_left = g->recv_left;
	for (k = 0; k < g->plan.nslices && op->status == 0; k++)
		send_step(op, 0, k);
	/* Slices with nothing to receive at a step (count < n, or tiny
	 * chunks) are complete from the start. */
	for (j = 0; j < g->steps && op->status == 0; j++)
		for (k = 0; k < g->plan.nslices; k++) {
			uint64_t first, len;

			hc_ring_span(&g->plan, hc_ring_recv_chunk(n, r, j), k,
				     &first, &len);
			if (len == 0)
				step_complete(op, j, k);
		}
	maybe_done(op);
	return 0;
}

static enum hct_rx_verdict
ring_data(struct hc_coll_op *op, uint32_t src, const struct hct_data_desc *d,
	  const uint8_t *payload)
{
	struct ring *g = op->algo_state;
	struct hc_coll_stats *st = &op->comm->coll->stats;
	uint32_t n = g->plan.n, c, k;
	uint32_t es = d->step < n - 1 ? op->acc_size : op->elem_size;
	uint64_t first, len, e, *got;

	if (src != (op->comm->rank + n - 1) % n || d->step >= g->steps ||
	    d->length == 0 || d->offset % es != 0 || d->length % es != 0) {
		st->bad_data++;
		return HCT_RX_CONSUMED;
	}
	c = hc_ring_recv_chunk(n, op->comm->rank, d->step);
	e = d->offset / es;
	hc_ring_span(&g->plan, c, 0, &first, &len);
	if (e < first) {
		st->bad_data++;
		return HCT_RX_CONSUMED;
	}
	k = hc_ring_slice_of(&g->plan, c, e);
	if (k >= g->plan.nslices) {
		st->bad_data++;
		return HCT_RX_CONSUMED;
	}
	hc_ring_span(&g->plan, c, k, &first, &len);
	got = &g->got[idx(g, d->step, k)];
	if (e < first || e + d->length / es > first + len ||
	    *got + d->length > len * es) {
		st->bad_data++;
		return HCT_RX_CONSUMED;
	}
	if (d->step < n - 1)
		op->reduce(op->work + d->offset, payload, d->length / es);
	else
		memcpy(op->recv + d->offset, payload, d->length);
	*got += d->length;
	if (*got == len * es) {
		step_complete(op, d->step, k);
		maybe_done(op);
	}
	return HCT_RX_CONSUMED;
}

static void
ring_sent(struct hc_coll_op *op, struct hct_msg *msg)
{
	struct ring *g = op->algo_state;

	(void)msg;
	g->send_left--;
	maybe_done(op);
}

static void
ring_fini(struct hc_coll_op *op)
{
	struct ring *g = op->algo_state;

	free(g->got);
	free(g->msgs);
	free(g);
}

const struct hc_algo hc_algo_ring = {
	.name = "ring",
	.start = ring_start,
	.data = ring_data,
	.sent = ring_sent,
	.fini = ring_fini,
};
