/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipelined ring: all-reduce is reduce-scatter then all-gather, n-1 steps
 * each; reduce-scatter and all-gather run one half (with chunks renumbered
 * so that rank r ends up owning block r). Every chunk is cut into slices
 * that move through the steps independently (ring_plan.h has the
 * schedule). Reduction runs in the accumulation type (reduce.h) in
 * op->work; each owned slice is rounded into the output once. Patarasuk and Yuan,
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
 *
 * Zero copy (struct hct_msg zc, README "Zero-copy TX"): where the right
 * neighbour's flow allows it (hct_zc_ok()), the packets of every message
 * point into the op's buffers instead of copying them. The all-gather
 * sends read final values in op->recv, which the op never writes again
 * (a chunk is written once, when it arrives or is rounded, before it is
 * sent on, and no chunk arrives twice in a phase). The reduce-scatter
 * sends from step 1 on read partial sums in work, which the all-gather
 * does overwrite, but only with the chunk's final value, and that needed
 * every byte of ours to have arrived at the right neighbour (the
 * argument above, with "arrived" for "cut into packets"): a packet's
 * bytes change only once the peer holds it, and a retransmission of it
 * (a lost ACK, a spurious timeout) carries the new bytes under a PSN the
 * peer already has, which hct's receiver drops as a duplicate (rx.c
 * data_input). finish_owned() rounds in place only the
 * owned chunk, which no reduce-scatter send reads. The one exception: a
 * step-0 send straight from a send buffer that overlaps the output or
 * work is copied. In part, a reduction into the overlap may change bytes
 * before the peer has them; in place (op->own is op->recv), the step-0
 * chunk changes only with its final value, as above, but this rule has
 * not been relaxed for it (not measured). The op is not over until the
 * transport released every such packet (ACKed, out of the port),
 * hc_coll_op_over(): the caller gets its buffers back only then.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"
#include "data.h"
#include "log.h"

struct ring {
	struct hc_sched s;        /**< first: the shared bookkeeping */
	struct hc_ring_plan plan; /**< in block space: block b holds the
	                           *   elements of rank b's result share */
	uint32_t n;
	uint32_t j0, j1;     /**< steps run: [j0, j1) of 0..2(n-1) */
	uint32_t shift;      /**< block of ring chunk c: (c + n - shift) % n */
	uint32_t left;       /**< world rank we receive from */
	uint32_t right;      /**< world rank we send to */
	int zc_own;          /**< step 0 may send op->own zero copy (op->zc
	                      *   set, out of place, in its own type) */
};

static inline uint64_t
idx(const struct ring *g, uint32_t step, uint32_t slice)
{
	return (uint64_t)(step - g->j0) * g->plan.nslices + slice;
}

/* Elements of ring chunk c, slice k. */
static void
span(const struct ring *g, uint32_t c, uint32_t k, uint64_t *first,
     uint64_t *len)
{
	hc_ring_span(&g->plan, (c + g->n - g->shift) % g->n, k, first, len);
}

static int
reduce_phase(const struct ring *g, uint32_t step)
{
	return step < g->n - 1;
}

/* Whether step 0 reads this rank's contribution from the send buffer
 * itself (send_src): out of place, travelling in its own type. */
static int
own_src(const struct hc_coll_op *op)
{
	return op->own != NULL && op->acc == op->dtype;
}

/* Where the message of (step, slice) reads len elements from element
 * first of ring chunk c. Step 0 sends this rank's own contribution, not
 * reduced yet: straight from the send buffer (op->own) when it travels in
 * its own type, else widened into work (that slice only) first. */
static const uint8_t *
send_src(struct hc_coll_op *op, uint32_t step, uint32_t c, uint64_t first,
	 uint64_t len)
{
	struct ring *g = op->algo_state;

	if (!reduce_phase(g, step))
		return hc_coll_gather_ptr(op, (c + g->n - g->shift) % g->n,
					  first);
	if (step != 0 || op->own == NULL)
		return op->work + first * op->acc_size;
	if (own_src(op))
		return op->own + first * op->elem_size;
	hc_reduce_to_acc(op->work + first * op->acc_size,
			 op->own + first * op->elem_size, len, op->dtype,
			 op->acc);
	return op->work + first * op->acc_size;
}

/* Queue the message of (step, slice); empty ones count as sent. */
static void
send_step(struct hc_coll_op *op, uint32_t step, uint32_t slice)
{
	struct ring *g = op->algo_state;
	struct hct_msg *msg = &g->s.msgs[idx(g, step, slice)];
	uint32_t c = hc_ring_send_chunk(g->n, op->comm->rank, step);
	uint32_t es = reduce_phase(g, step) ? op->acc_size : op->elem_size;
	uint64_t first, len;
	int rc;

	span(g, c, slice, &first, &len);
	if (len == 0) {
		g->s.send_left--;
		return;
	}
	hc_data_fill(msg, op, (uint16_t)step,
		     send_src(op, step, c, first, len), len * es, first * es);
	/* Every message but a step-0 send from a send buffer that overlaps
	 * the output or work, in place included (zc_setup, the header). */
	if (op->zc != NULL && (step != 0 || !own_src(op) || g->zc_own))
		msg->zc = &op->zc->shinfo;
	rc = hct_send(op->comm->coll->hct, g->right, msg);
	if (rc != 0)
		hc_coll_op_fail(op, rc);
}

/* Whether the last reduce-scatter step reduces straight into the output
 * (the owned chunk needs no copy from work): when work is the output, or
 * the accumulation type is the element type (reduce-scatter's work is a
 * buffer of the whole vector, its output one block). */
static int
owned_direct(const struct hc_coll_op *op)
{
	return op->work == op->recv || op->acc == op->dtype;
}

/* After the last reduce-scatter step this rank owns chunk r+1 reduced
 * over all ranks, in the accumulation type: round it into the output
 * once (and divide for AVG), before all-gather copies it out. */
static void
finish_owned(struct hc_coll_op *op, uint32_t slice)
{
	struct ring *g = op->algo_state;
	uint32_t div = hc_coll_op_div(op);
	uint64_t first, len;
	uint8_t *out;

	if (owned_direct(op) && div == 1)
		return;
	span(g, (op->comm->rank + 1) % g->n, slice, &first, &len);
	out = op->recv + (first - op->out_base) * op->elem_size;
	hc_reduce_from_acc(out, owned_direct(op) ? out :
			   op->work + first * op->acc_size, len, op->dtype,
			   op->acc, div);
}

/* (step, slice) fully received: the slice moves on. */
static void
step_complete(struct hc_coll_op *op, uint32_t step, uint32_t slice)
{
	struct ring *g = op->algo_state;

	g->s.recv_left--;
	if (step == g->n - 2)
		finish_owned(op, slice);
	if (step + 1 < g->j1)
		send_step(op, step + 1, slice);
}

/* hc_rx_done_fn: unit idx(step, slice) got all its bytes. */
static void
unit_done(struct hc_coll_op *op, uint64_t unit)
{
	struct ring *g = op->algo_state;

	step_complete(op, g->j0 + (uint32_t)(unit / g->plan.nslices),
		      (uint32_t)(unit % g->plan.nslices));
	hc_sched_maybe_done(op);
}

/* Most messages an op may have queued at once for zero copy: the shared
 * info's reference count is 16 bits, and counts them (at most one per
 * step and slice) besides the mbufs in flight (a window, the port's
 * queue, their retransmissions: under 2^14 each). */
#define ZC_MSGS_MAX 16384

/* Zero copy where the right neighbour's flow allows it and a chunk is
 * long enough for packets to go so (HCT_ZC_MIN_BYTES); an allocation
 * failure only means copies. Step 0 from the send buffer only where it is
 * apart from the output and work (hc_coll_own_apart()). */
static void
zc_setup(struct hc_coll_op *op)
{
	struct ring *g = op->algo_state;
	uint64_t own = op->total * op->elem_size;

	if (own / g->n < HCT_ZC_MIN_BYTES ||
	    (uint64_t)(g->j1 - g->j0) * g->plan.nslices > ZC_MSGS_MAX ||
	    !hct_zc_ok(op->comm->coll->hct, g->right) ||
	    hc_coll_zc_init(op) != 0)
		return;
	g->zc_own = hc_coll_own_apart(op);
}

static int
ring_start(struct hc_coll_op *op)
{
	uint32_t n = op->comm->size, r = op->comm->rank, j, k;
	uint64_t steps;
	struct ring *g;

	if (op->comm->size - 1 > UINT16_MAX / 4) {
		HC_LOG(ERR, COLL, "ring: %u ranks exceed the 16-bit step field",
		       n);
		return -HC_ERR_UNSUPPORTED;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -HC_ERR_NOMEM;
	g->n = n;
	switch (op->kind) {
	case HC_COLL_REDUCE_SCATTER:
	case HC_COLL_REDUCE_SCATTERV:
		g->j0 = 0;
		g->j1 = n - 1;
		g->shift = 1;
		break;
	case HC_COLL_ALLGATHER:
	case HC_COLL_ALLGATHERV:
		g->j0 = n - 1;
		g->j1 = 2 * (n - 1);
		g->shift = 1;
		break;
	default:
		g->j0 = 0;
		g->j1 = hc_ring_steps(n);
		g->shift = 0;
		break;
	}
	/* Slices sized by the bytes that travel: the accumulation type
	 * while reducing, the element type while gathering. */
	if (op->vbounds != NULL)
		hc_ring_plan_init_v(&g->plan, op->vbounds, n,
				    g->j0 == 0 ? op->acc_size : op->elem_size,
				    op->comm->coll->slice_bytes);
	else
		hc_ring_plan_init(&g->plan, op->total, n,
				  g->j0 == 0 ? op->acc_size : op->elem_size,
				  op->comm->coll->slice_bytes);
	g->left = op->comm->world[(r + n - 1) % n];
	g->right = op->comm->world[(r + 1) % n];
	steps = (uint64_t)(g->j1 - g->j0) * g->plan.nslices;
	if (hc_sched_init(&g->s, steps, steps, steps) != 0) {
		free(g);
		return -HC_ERR_NOMEM;
	}
	op->algo_state = g;
	zc_setup(op);
	for (k = 0; k < g->plan.nslices && op->status == 0; k++)
		send_step(op, g->j0, k);
	/* Slices with nothing to receive at a step (few elements, uneven
	 * blocks) are complete from the start. */
	for (j = g->j0; j < g->j1 && op->status == 0; j++)
		for (k = 0; k < g->plan.nslices; k++) {
			uint64_t first, len;

			span(g, hc_ring_recv_chunk(n, r, j), k, &first, &len);
			if (len == 0)
				step_complete(op, j, k);
		}
	hc_sched_maybe_done(op);
	return 0;
}

/* The unit a DATA packet names: from the left neighbour, a step this
 * op runs, the slice of the step's chunk its first element falls in. */
static enum hct_rx_verdict
ring_data(struct hc_coll_op *op, uint32_t src, const struct hct_data_desc *d,
	  const uint8_t *payload)
{
	struct ring *g = op->algo_state;
	uint32_t n = g->n, b, k, step = d->step;
	uint64_t first, len, e;
	struct hc_rx_unit u;

	if (src != (op->comm->rank + n - 1) % n || step < g->j0 ||
	    step >= g->j1)
		return hc_data_accept(op, NULL, d, payload);
	u.es = reduce_phase(g, step) ? op->acc_size : op->elem_size;
	b = (hc_ring_recv_chunk(n, op->comm->rank, step) + n - g->shift) % n;
	e = d->offset / u.es;
	hc_ring_span(&g->plan, b, 0, &first, &len);
	if (e < first)
		return hc_data_accept(op, NULL, d, payload);
	k = hc_ring_slice_of(&g->plan, b, e);
	if (k >= g->plan.nslices)
		return hc_data_accept(op, NULL, d, payload);
	hc_ring_span(&g->plan, b, k, &first, &len);
	u.reduce = reduce_phase(g, step);
	/* Every chunk is reduced once per rank in the reduce-scatter phase
	 * (the chunks received at steps 0..n-2 differ, and differ from the
	 * one sent at step 0): always the first reduction of its region. */
	u.own = u.reduce && op->own != NULL ?
		op->own + first * op->elem_size : NULL;
	u.own_left = 0;
	if (!u.reduce)
		u.dst = hc_coll_gather_ptr(op, b, first);
	else if (step == n - 2 && owned_direct(op))
		u.dst = op->recv + (first - op->out_base) * u.es;
	else
		u.dst = op->work + first * u.es;
	u.first = first * u.es;
	u.len = len * u.es;
	u.id = idx(g, step, k);
	u.got = &g->s.got[u.id];
	u.done = unit_done;
	return hc_data_accept(op, &u, d, payload);
}

const struct hc_algo hc_algo_ring = {
	.name = "ring",
	.start = ring_start,
	.data = ring_data,
	.sent = hc_sched_sent,
	.fini = hc_sched_fini,
};
