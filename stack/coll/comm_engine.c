/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives on the engine thread: the registry of communicators,
 * an op's start (in sequence order), failure and end, the signature and
 * ABORT messages, held (unexpected) packets, and the transport upcalls
 * dispatched to the op a packet belongs to. Ops and communicators come
 * here prepared by comm_api.c (through the request queue); nothing here
 * runs on an application thread.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "coll.h"
#include "data.h"
#include "log.h"
#include "psn.h"

void
hc_coll_set_tune(struct hc_coll *c, const struct hc_tune *t)
{
	struct hc_comm *comm;

	c->tune = *t;
	TAILQ_FOREACH(comm, &c->comms, link)
		comm->tune = *t;
}

/* Spread of a comm id over the table (ids are FNV-1a hashes, but the
 * world's is 0 and small ids are legal): a multiplicative hash (Knuth,
 * TAOCP vol. 3, 6.4, the golden-ratio constant). */
static inline uint32_t
comm_hash(uint32_t id)
{
	return id * 2654435761u;
}

/* Put comm in c's id table (which has room). */
static void
cmap_put(struct hc_coll *c, struct hc_comm *comm)
{
	uint32_t i = comm_hash(comm->id) & c->cmap_mask;

	while (c->cmap[i] != NULL)
		i = (i + 1) & c->cmap_mask;
	c->cmap[i] = comm;
}

/* Rebuild c's id table from its list with at least 2 x ncomms slots;
 * without memory the table goes and lookups scan the list. */
static void
cmap_rebuild(struct hc_coll *c)
{
	uint32_t size = 16;
	struct hc_comm *comm;

	while (size < 2 * c->ncomms + 2)
		size *= 2;
	free(c->cmap);
	c->cmap = calloc(size, sizeof(*c->cmap));
	c->cmap_mask = size - 1;
	if (c->cmap == NULL)
		return;
	TAILQ_FOREACH(comm, &c->comms, link)
		cmap_put(c, comm);
}

void
hc_coll_add_comm(struct hc_coll *c, struct hc_comm *comm)
{
	TAILQ_INSERT_TAIL(&c->comms, comm, link);
	comm->registered = 1;
	c->ncomms++;
	if (c->cmap == NULL || 2 * c->ncomms + 2 > c->cmap_mask + 1)
		cmap_rebuild(c);
	else
		cmap_put(c, comm);
}

void
hc_coll_remove_comm(struct hc_coll *c, struct hc_comm *comm)
{
	TAILQ_REMOVE(&c->comms, comm, link);
	comm->registered = 0;
	c->ncomms--;
	cmap_rebuild(c);
}

struct hc_comm *
hc_coll_find_comm(struct hc_coll *c, uint32_t id)
{
	struct hc_comm *comm;
	uint32_t i;

	if (c->cmap != NULL) {
		for (i = comm_hash(id) & c->cmap_mask; c->cmap[i] != NULL;
		     i = (i + 1) & c->cmap_mask)
			if (c->cmap[i]->id == id)
				return c->cmap[i];
		return NULL;
	}
	TAILQ_FOREACH(comm, &c->comms, link)
		if (comm->id == id)
			return comm;
	return NULL;
}

static struct hc_comm *
find_comm(struct hc_coll *c, uint32_t id)
{
	return hc_coll_find_comm(c, id);
}

/* op goes on comm's active list and into its demux slot. */
void
hc_comm_active_add(struct hc_comm *comm, struct hc_coll_op *op)
{
	struct hc_coll_op **slot = &comm->opmap[op->seq % HC_COMM_OPMAP];

	TAILQ_INSERT_TAIL(&comm->active, op, link);
	if (*slot == NULL)
		*slot = op;
	else
		comm->unmapped++;
}

/* op leaves comm's active list and its demux slot; an unmapped op of
 * that slot takes it. */
void
hc_comm_active_remove(struct hc_comm *comm, struct hc_coll_op *op)
{
	uint32_t k = op->seq % HC_COMM_OPMAP;
	struct hc_coll_op *p;

	TAILQ_REMOVE(&comm->active, op, link);
	if (comm->opmap[k] != op) {
		comm->unmapped--;
		return;
	}
	comm->opmap[k] = NULL;
	if (comm->unmapped == 0)
		return;
	TAILQ_FOREACH(p, &comm->active, link)
		if (p->seq % HC_COMM_OPMAP == k) {
			comm->opmap[k] = p;
			comm->unmapped--;
			return;
		}
}

struct hc_coll_op *
hc_comm_find_op(struct hc_comm *comm, uint32_t seq)
{
	struct hc_coll_op *op = comm->opmap[seq % HC_COMM_OPMAP];

	if (op != NULL && op->seq == seq)
		return op;
	if (comm->unmapped == 0)
		return NULL;
	TAILQ_FOREACH(op, &comm->active, link)
		if (op->seq == seq)
			return op;
	return NULL;
}

uint32_t
hc_comm_rank_of(const struct hc_comm *comm, uint32_t world_rank)
{
	return world_rank < comm->world_size ? comm->of_world[world_rank]
					     : UINT32_MAX;
}

/* Deliver held packets of op's collective, in arrival order. */
static void
drain_unexpected(struct hc_coll *c, struct hc_coll_op *op)
{
	uint32_t i, kept = 0;

	for (i = 0; i < c->unexp_len; i++) {
		struct hc_unexpected *u = &c->unexp[i];

		/* A done op still takes signatures and ABORTs (rooted
		 * collectives: the data part may finish first). */
		if (u->d.comm_id != op->comm->id || u->d.coll_seq != op->seq ||
		    hc_coll_step_p2p(u->d.step) || op->status != 0 ||
		    (op->done && u->d.step != HC_STEP_SIG &&
		     u->d.step != HC_STEP_ABORT)) {
			c->unexp[kept++] = *u;
			continue;
		}
		hc_coll_data(c, u->src, &u->d, u->payload, NULL);
		rte_pktmbuf_free(u->m);
	}
	c->unexp_len = kept;
}

/* Element (of the packed buffer) where this rank's block starts. */
static uint64_t
own_first(const struct hc_coll_op *op)
{
	return op->vbounds != NULL ? op->vbounds[op->comm->rank]
				   : op->count * op->comm->rank;
}

/* dst = src / n, element by element (n elements of a 16-bit float
 * dtype): widened exactly, divided in float32, rounded to nearest-even;
 * dst may equal src. The pre-scaling of native-precision AVG. */
static void
prescale16(uint8_t *dst, const uint8_t *src, uint64_t count,
	   enum hc_dtype dtype, uint32_t n)
{
	float tmp[2048];
	uint64_t i, k;

	for (i = 0; i < count; i += k) {
		k = RTE_MIN(count - i, (uint64_t)RTE_DIM(tmp));
		hc_reduce_to_acc(tmp, src + 2 * i, k, dtype, HC_DTYPE_FLOAT32);
		hc_reduce_from_acc(dst + 2 * i, tmp, k, dtype, HC_DTYPE_FLOAT32,
				   n);
	}
}

uint8_t *
hc_comm_buf_get(struct hc_comm *comm, size_t bytes, size_t *cap)
{
	uint8_t *w = comm->work_cache;

	if (w != NULL && comm->work_cache_bytes >= bytes) {
		*cap = comm->work_cache_bytes;
		comm->work_cache = NULL;
		comm->work_cache_bytes = 0;
		return w;
	}
	*cap = bytes;
	return malloc(bytes);
}

void
hc_comm_buf_put(struct hc_comm *comm, uint8_t *w, size_t cap)
{
	if (w == NULL)
		return;
	if (comm->work_cache == NULL || comm->work_cache_bytes < cap) {
		free(comm->work_cache);
		comm->work_cache = w;
		comm->work_cache_bytes = cap;
	} else {
		free(w);
	}
}

/* Fill op->work, the buffer the reduce-scatter phase accumulates in, and
 * say where this rank's own contribution is read (op->own).
 *
 * The ring and the chain read it straight from the send buffer: the first
 * reduction of each region computes work = incoming OP send (data.h), and
 * what a rank sends before it reduced anything comes from the send buffer
 * too (or, accumulating wider than dtype, from that region alone widened
 * into work), so an out-of-place collective copies nothing up front and
 * never writes the send buffer; in place, work is the send buffer and the
 * same kernels reduce into it. Halving-doubling does the same where it
 * accumulates in dtype: its reduce-scatter halves ranges, so the steps of
 * its plan that first read or first reduce a range are known (plan_run.c,
 * mark_fresh); measured at 4 ranks on 2 CPUs, the 8 MiB pre-copy was the
 * whole gap between out-of-place and in-place. The other plan algorithms
 * (tree, hier, rd), whose concurrent RECVs of one range leave no "first"
 * reduction to name, hd accumulating wider than dtype, and native AVG,
 * whose contributions are pre-scaled, still fill work first. */
static int
prepare_buffers(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	size_t es = op->elem_size;
	/* Halving-doubling: only where work is recv (acc == dtype); its
	 * executor marks the steps that read or first reduce the own
	 * contribution (plan_run.c, mark_fresh). */
	int lazy = (op->algo == &hc_algo_ring || op->algo == &hc_algo_chain ||
		    (op->algo == &hc_algo_hd && op->acc == op->dtype)) &&
		   !op->prescale;

	op->own = NULL;
	switch (op->kind) {
	case HC_COLL_BROADCAST:
		if (comm->rank == op->root && op->send != op->recv)
			memcpy(op->recv, op->send, op->count * es);
		op->work = op->recv; /* no reduction */
		return 0;
	case HC_COLL_REDUCE:
		if (comm->size == 1) {
			if (op->send != op->recv)
				memcpy(op->recv, op->send, op->count * es);
			return 0;
		}
		/* The root reduces into recv itself when it can. */
		if (lazy && comm->rank == op->root && op->acc == op->dtype) {
			op->work = op->recv;
			op->own = op->send;
			return 0;
		}
		break; /* a work buffer: the send buffer stays untouched */
	case HC_COLL_ALLGATHER:
	case HC_COLL_ALLGATHERV: {
		uint8_t *own = hc_coll_gather_ptr(op, comm->rank,
						  own_first(op));

		if (op->count > 0 && op->send != own)
			memcpy(own, op->send, op->count * es);
		op->work = op->recv; /* no reduction */
		return 0;
	}
	case HC_COLL_REDUCE_SCATTER:
	case HC_COLL_REDUCE_SCATTERV:
		if (comm->size == 1) {
			if (op->count > 0 && op->send != op->recv)
				memcpy(op->recv, op->send, op->count * es);
			return 0;
		}
		break; /* a work buffer: the send buffer stays untouched */
	default:
		/* One rank: the reduction of one value is the value (AVG
		 * divides by 1, 16-bit floats convert exactly). */
		if (comm->size == 1 || (op->acc == op->dtype && !op->prescale)) {
			if (lazy && comm->size > 1)
				op->own = op->send;
			else if (op->send != op->recv)
				memcpy(op->recv, op->send, op->total * es);
			op->work = op->recv;
			return 0;
		}
		if (op->acc == op->dtype) { /* native AVG */
			prescale16(op->recv, op->send, op->total, op->dtype,
				   comm->size);
			op->work = op->recv;
			return 0;
		}
		break;
	}
	op->work = hc_comm_buf_get(comm, op->total * op->acc_size,
				   &op->work_bytes);
	if (op->work == NULL)
		return -HC_ERR_NOMEM;
	if (lazy)
		op->own = op->send;
	else if (op->prescale)
		prescale16(op->work, op->send, op->total, op->dtype,
			   comm->size);
	else if (op->acc == op->dtype)
		memcpy(op->work, op->send, op->total * es);
	else
		hc_reduce_to_acc(op->work, op->send, op->total, op->dtype,
				 op->acc);
	return 0;
}

/* Queue op's signature to its right neighbour, or to every other rank
 * when all is set (then all must answer before op is done). */
static int
send_signatures(struct hc_coll_op *op, int all)
{
	struct hc_comm *comm = op->comm;
	uint32_t n = comm->size, k, i = 0;
	int rc;

	op->ctl = calloc(all ? n - 1 : 1, sizeof(*op->ctl));
	if (op->ctl == NULL)
		return -HC_ERR_NOMEM;
	op->sig_wire = op->sig;
	op->sig_wanted = all ? n - 1 : 0;
	for (k = 1; k < n; k++) {
		struct hct_msg *msg = &op->ctl[i++];

		hc_data_fill(msg, op, HC_STEP_SIG,
			     (const uint8_t *)&op->sig_wire,
			     sizeof(op->sig_wire), 0);
		op->ctl_left++;
		rc = hct_send(comm->coll->hct, comm->world[(comm->rank + k) % n],
			      msg);
		if (rc != 0) {
			op->ctl_left--;
			return rc;
		}
		if (!all)
			break;
	}
	return 0;
}

/* Tell every other rank that collective op failed with err, once per
 * communicator (it accepts no work after a failure). */
static void
broadcast_abort(struct hc_coll_op *op, int err)
{
	struct hc_comm *comm = op->comm;
	uint32_t k;

	if (comm->aborted)
		return;
	comm->aborted = 1;
	comm->abort_wire = rte_cpu_to_be_32((uint32_t)err);
	for (k = 0; k < comm->size; k++) {
		struct hct_msg *msg = &comm->abort_msgs[k];

		if (k == comm->rank)
			continue;
		hc_data_fill(msg, op, HC_STEP_ABORT,
			     (const uint8_t *)&comm->abort_wire,
			     sizeof(comm->abort_wire), 0);
		/* The communicator's, not op's: it outlives op, and
		 * goes ahead of all queued data. No signature: the
		 * receiver reads none on an ABORT. */
		msg->owner = NULL;
		msg->cls = HCT_CLASS_CONTROL;
		msg->desc.sig = 0;
		hct_send(comm->coll->hct, comm->world[k], msg);
	}
}

static void comm_fail(struct hc_comm *comm, int err, uint32_t lost);

int
hc_coll_op_valid(const struct hc_coll_op *op)
{
	int reduces = op->kind == HC_COLL_ALLREDUCE ||
		      op->kind == HC_COLL_REDUCE_SCATTER ||
		      op->kind == HC_COLL_REDUCE_SCATTERV ||
		      op->kind == HC_COLL_REDUCE;

	return (unsigned int)op->dtype < HC_DTYPE__MAX &&
	       (unsigned int)op->op < HC_OP__MAX &&
	       op->elem_size == hc_dtype_size(op->dtype) &&
	       (unsigned int)op->acc < HC_DTYPE__MAX &&
	       op->acc_size == hc_dtype_size(op->acc) &&
	       (!reduces || op->total == 0 || op->reduce3 != NULL) &&
	       op->root < op->comm->size && op->algo != NULL;
}

/* Start op (its turn in sequence order has come). */
static void
op_start(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	int rc;

	comm->start_seq++;
	if (comm->error != 0) {
		op->status = -HC_ERR_ABORTED;
		return;
	}
	if (!hc_coll_op_valid(op)) {
		/* The peers cannot complete it without us: they learn at
		 * once instead of at their timeout (C19). */
		HC_LOG(ERR, COLL, "collective %u: invalid on the engine "
		       "(kind %d, dtype %d, op %d, root %u)", op->seq, op->kind,
		       op->dtype, op->op, op->root);
		op->status = -HC_ERR_INTERNAL;
		comm_fail(comm, op->status, UINT32_MAX);
		broadcast_abort(op, op->status);
		return;
	}
	if (op->total == 0 && comm->size == 1) {
		op->done = 1;
		return;
	}
	if (op->total == 0) {
		/* No data to carry the signature: tell every rank, and finish
		 * only when every rank said the same (C05, C13). */
		hc_comm_active_add(comm, op);
		op->started = 1;
		rc = send_signatures(op, 1);
		if (rc != 0)
			hc_coll_op_fail(op, rc);
		else
			drain_unexpected(comm->coll, op);
		return;
	}
	rc = prepare_buffers(op);
	if (rc != 0) {
		op->status = rc;
		return;
	}
	if (comm->size == 1) {
		op->done = 1;
		return;
	}
	hc_comm_active_add(comm, op);
	op->started = 1;
	/* The signature goes first to the right neighbour: should our data
	 * never reach it (we have less to send than it expects), it still
	 * learns that we disagree. A rooted collective's chain has ranks
	 * that only send (the broadcast root, the head of a reduce) and
	 * ranks whose downstream may never join: there every rank tells
	 * every rank, and an op completes only when all n - 1 signatures
	 * arrived (C05, C17). Until then it can still fail: a timeout, a
	 * mismatch or an ABORT reach an op whose data part is done.
	 *
	 * Recursive doubling sends none: its DATA, which carries the
	 * signature like every DATA packet, is the signature. Every rank
	 * sends its vector at start (to its step-0 partner, or the even
	 * rank of a folded pair to the odd one), except the odd rank of a
	 * pair, which waits for the even one only: if that one disagrees,
	 * its DATA (or, running another algorithm, its signature to its
	 * right neighbour, which the odd rank is) tells the odd rank. And
	 * with the same plan on every rank, no rank completes without
	 * data that went through every other rank, so a disagreement is
	 * met by a packet no rank accepts: the first one is sent by a rank
	 * that heard only from ranks that agree with it. At n = 2 the
	 * step's DATA goes where the signature went, the right neighbour,
	 * at once. One packet per rank and op fewer (README "Short-message
	 * latency"). */
	rc = op->algo == &hc_algo_rd ? 0
				     : send_signatures(op, op->algo ==
						       &hc_algo_chain);
	if (rc == 0)
		rc = op->algo->start(op);
	if (rc != 0) {
		hc_coll_op_fail(op, rc);
		return;
	}
	drain_unexpected(comm->coll, op);
}

void
hc_coll_submit(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	struct hc_coll_op *p;

	if (hc_coll_kind_p2p(op->kind)) {
		hc_p2p_start(op);
		return;
	}
	/* Keep pending sorted by sequence number (wrap-safe). */
	TAILQ_FOREACH(p, &comm->pending, link)
		if (hct_psn_lt(op->seq, p->seq))
			break;
	if (p != NULL)
		TAILQ_INSERT_BEFORE(p, op, link);
	else
		TAILQ_INSERT_TAIL(&comm->pending, op, link);
	op->pending = 1;
	while ((p = TAILQ_FIRST(&comm->pending)) != NULL &&
	       p->seq == comm->start_seq) {
		TAILQ_REMOVE(&comm->pending, p, link);
		p->pending = 0;
		op_start(p);
	}
}

/* The communicator failed with err: it accepts no new work, and its
 * sends and receives in flight end (with err when the lost peer is
 * theirs, else HC_ERR_ABORTED). lost: the comm rank of a lost peer, or
 * UINT32_MAX. */
static void
comm_fail(struct hc_comm *comm, int err, uint32_t lost)
{
	struct hc_coll_op *op, *next;

	comm->error = err;
	for (op = TAILQ_FIRST(&comm->p2p); op != NULL; op = next) {
		next = TAILQ_NEXT(op, link);
		hc_coll_op_fail(op, op->root == lost ? err : -HC_ERR_ABORTED);
	}
}

void
hc_coll_op_fail(struct hc_coll_op *op, int err)
{
	if (op->status != 0 || hc_coll_op_complete(op))
		return;
	op->status = err;
	/* A failed send or receive fails itself only: the streams stay
	 * matched by their sequence numbers. */
	if (!hc_coll_kind_p2p(op->kind) && op->comm->error == 0)
		comm_fail(op->comm, err, UINT32_MAX);
	/* Queued messages point into op's buffers, which the caller gets
	 * back now. */
	hct_cancel_owner(op->comm->coll->hct, op);
}

/* rte_mbuf_ext_shared_info free_cb of op->zc: its count fell to 0. */
static void
zc_released(void *addr, void *opaque)
{
	struct hc_coll_zc *z = opaque;

	(void)addr;
	z->releases++;
	if (z->orphan)
		free(z);
}

int
hc_coll_zc_init(struct hc_coll_op *op)
{
	struct hc_coll_zc *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return -HC_ERR_NOMEM;
	z->shinfo.free_cb = zc_released;
	z->shinfo.fcb_opaque = z;
	rte_mbuf_ext_refcnt_set(&z->shinfo, 0);
	op->zc = z;
	return 0;
}

void
hc_coll_op_end(struct hc_coll_op *op)
{
	/* First, while op->zc still says whether packets point into the
	 * algorithm's buffers (plan_run.c keeps a released snapshot). */
	if (op->algo != NULL && op->algo->fini != NULL && op->algo_state != NULL)
		op->algo->fini(op);
	op->algo_state = NULL;
	if (op->zc != NULL) {
		/* Ended with packets still pointing into its buffers only
		 * when forced (hc_finalize, a probe's end): the last
		 * release frees it. */
		if (hc_coll_zc_released(op->zc))
			free(op->zc);
		else
			op->zc->orphan = 1;
		op->zc = NULL;
	}
	if (op->started) {
		if (hc_coll_kind_p2p(op->kind))
			TAILQ_REMOVE(&op->comm->p2p, op, link);
		else
			hc_comm_active_remove(op->comm, op);
		op->started = 0;
	}
	if (op->pending) {
		TAILQ_REMOVE(&op->comm->pending, op, link);
		op->pending = 0;
	}
	free(op->ctl);
	op->ctl = NULL;
	free(op->vbounds);
	op->vbounds = NULL;
	op->vdispls = NULL;
	if (op->work != NULL && op->work != op->recv)
		hc_comm_buf_put(op->comm, op->work, op->work_bytes);
	op->work = NULL;
	op->work_bytes = 0;
}

enum hct_rx_verdict
hc_coll_hold(struct hc_coll *c, uint32_t src, const struct hct_data_desc *d,
	     const uint8_t *payload, struct rte_mbuf *m)
{
	if (c->unexp_len == c->unexp_max) {
		c->stats.unexpected_refused++;
		return HCT_RX_REJECT;
	}
	c->unexp[c->unexp_len++] = (struct hc_unexpected){
		.m = m, .src = src, .d = *d, .payload = payload };
	c->stats.unexpected_held++;
	if (c->unexp_len > c->stats.unexpected_held_max)
		c->stats.unexpected_held_max = c->unexp_len;
	return HCT_RX_HELD;
}

enum hct_rx_verdict
hc_coll_data(void *ctx, uint32_t src, const struct hct_data_desc *d,
	     const uint8_t *payload, struct rte_mbuf *m)
{
	struct hc_coll *c = ctx;
	struct hc_comm *comm = find_comm(c, d->comm_id);
	struct hc_coll_op *op = NULL;
	uint32_t csrc;

	if (comm != NULL && comm->error != 0) {
		c->stats.stale_rx++;
		return HCT_RX_CONSUMED;
	}
	if (comm != NULL && hc_coll_step_p2p(d->step))
		return hc_p2p_data(c, comm, src, d, payload, m);
	if (comm != NULL)
		op = hc_comm_find_op(comm, d->coll_seq);
	/* Not started here yet, or of a communicator this rank has not
	 * made yet (a split finishes at different times on different
	 * ranks): hold it. */
	if (op == NULL && comm != NULL && d->step == HC_STEP_ABORT &&
	    hct_psn_lt(d->coll_seq, comm->start_seq)) {
		/* Aborted elsewhere after it finished here: whatever this
		 * rank does next on comm cannot match the others. */
		HC_LOG(ERR, COLL, "collective %u: rank %u aborted it after it "
		       "completed here; communicator aborted", d->coll_seq,
		       src);
		TAILQ_FOREACH(op, &comm->active, link)
			hc_coll_op_fail(op, -HC_ERR_ABORTED);
		comm_fail(comm, -HC_ERR_ABORTED, UINT32_MAX);
		return HCT_RX_CONSUMED;
	}
	if (op == NULL) {
		if (m == NULL || (comm != NULL &&
				  hct_psn_lt(d->coll_seq, comm->start_seq))) {
			c->stats.stale_rx++; /* a finished collective's */
			return HCT_RX_CONSUMED;
		}
		return hc_coll_hold(c, src, d, payload, m);
	}
	/* A done op still counts signatures: its data part may finish
	 * before every rank's signature arrived. */
	if (op->status != 0 || (op->done && d->step != HC_STEP_SIG &&
				d->step != HC_STEP_ABORT)) {
		c->stats.stale_rx++;
		return HCT_RX_CONSUMED;
	}
	if (d->step == HC_STEP_ABORT) {
		rte_be32_t wire;
		int err;

		if (d->length != sizeof(wire)) {
			c->stats.bad_data++;
			return HCT_RX_CONSUMED;
		}
		memcpy(&wire, payload, sizeof(wire));
		err = (int32_t)rte_be_to_cpu_32(wire);
		if (err >= 0 || err <= -HC_ERR__MAX)
			err = -HC_ERR_ABORTED;
		HC_LOG(ERR, COLL, "collective %u: rank %u aborted it: %s",
		       op->seq, src, hc_strerror(err));
		hc_coll_op_fail(op, err);
		return HCT_RX_CONSUMED;
	}
	if (d->sig != op->sig) {
		c->stats.mismatches++;
		HC_LOG(ERR, COLL, "collective %u: rank %u called it with other "
		       "arguments (signature %08x, ours %08x)", op->seq, src,
		       d->sig, op->sig);
		hc_coll_op_fail(op, -HC_ERR_MISMATCH);
		broadcast_abort(op, -HC_ERR_MISMATCH);
		return HCT_RX_CONSUMED;
	}
	if (d->step == HC_STEP_SIG) {
		HC_LOG(DEBUG, COLL, "collective %u: signature from rank %u "
		       "(%u of %u)", op->seq, src, op->sig_got + 1,
		       op->sig_wanted);
		if (++op->sig_got >= op->sig_wanted && op->total == 0)
			op->done = 1;
		return HCT_RX_CONSUMED;
	}
	csrc = hc_comm_rank_of(comm, src);
	if (csrc == UINT32_MAX) {
		c->stats.bad_data++;
		return HCT_RX_CONSUMED;
	}
	return op->algo->data(op, csrc, d, payload);
}

void
hc_coll_msg_sent(void *ctx, struct hct_msg *msg)
{
	struct hc_coll_op *op = msg->owner;

	(void)ctx;
	if (op == NULL)
		return; /* an abort broadcast */
	if (msg->desc.step == HC_STEP_SIG)
		op->ctl_left--;
	else if (op->status == 0 && !op->done)
		op->algo->sent(op, msg);
}

void
hc_coll_peer_lost(void *ctx, uint32_t rank, int err)
{
	struct hc_coll *c = ctx;
	struct hc_comm *comm;

	TAILQ_FOREACH(comm, &c->comms, link) {
		struct hc_coll_op *op;

		if (hc_comm_rank_of(comm, rank) == UINT32_MAX)
			continue;
		comm_fail(comm, err, hc_comm_rank_of(comm, rank));
		TAILQ_FOREACH(op, &comm->active, link)
			hc_coll_op_fail(op, err);
	}
}
