/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request API: application threads validate and queue collectives,
 * the engine (its lcore, or the waiting caller) runs them, completion is
 * published through the request's state (release/acquire).
 */
#include <stdint.h>
#include <stdlib.h>

#include <rte_spinlock.h>

#include "hypercomm.h"
#include "engine.h"
#include "log.h"

/* Caller progress: one thread at a time runs the engine. */
static uint32_t
caller_progress(struct hc_ctx *ctx)
{
	uint32_t work;

	if (!rte_spinlock_trylock(&ctx->progress_lock))
		return 0;
	work = hc_engine_step(ctx);
	rte_spinlock_unlock(&ctx->progress_lock);
	return work;
}

static int
is_done(const struct hc_request *req)
{
	return __atomic_load_n(&req->state, __ATOMIC_ACQUIRE) == HC_REQ_DONE;
}

/* A simulated rank cannot wait: its virtual time moves only when the
 * runner steps every rank (simrun.h), so a wait would spin forever. */
static int
sim_cannot_wait(struct hc_ctx *ctx)
{
	if (ctx->sim == NULL)
		return 0;
	HC_LOG(ERR, CORE, "rank %u is simulated: use hc_test with the "
	       "runner, not a waiting call", ctx->rank);
	return 1;
}

/* How a request is made: handed back (the hc_i* forms) or waited for in
 * the call (the blocking forms). Every form goes through request_new and
 * request_queue, so no blocking one can skip the simulated-rank check. */
enum req_mode {
	REQ_ASYNC,
	REQ_BLOCKING,
};

/* A new request for comm, after the checks every kind shares; a blocking
 * one on a simulated rank is refused before anything is prepared (its
 * sequence number taken) or queued: it could never be waited for. */
static int
request_new(struct hc_comm *comm, const struct hc_op_opts *opts,
	    enum req_mode mode, struct hc_request **out,
	    struct hc_request **req)
{
	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (comm == NULL || (opts != NULL &&
			     (unsigned int)opts->priority > HC_PRIO_BULK))
		return -HC_ERR_INVAL;
	if (mode == REQ_BLOCKING && sim_cannot_wait(hc_comm_ctx(comm)))
		return -HC_ERR_INVAL;
	*req = calloc(1, sizeof(**req));
	return *req == NULL ? -HC_ERR_NOMEM : 0;
}

/* Queue a prepared request to the engine, or free it if rc says the
 * preparation failed; a blocking one is then waited for (and freed),
 * *out staying NULL. */
static int
request_queue(struct hc_comm *comm, struct hc_request *req, int rc,
	      const struct hc_op_opts *opts, enum req_mode mode,
	      struct hc_request **out)
{
	struct hc_ctx *ctx = hc_comm_ctx(comm);

	if (rc != 0) {
		free(req);
		return rc;
	}
	req->ctx = ctx;
	req->timeout_ms = opts != NULL && opts->timeout_ms != 0 ?
			  opts->timeout_ms : ctx->cfg.op_timeout_ms;
	req->priority = opts != NULL && opts->priority != HC_PRIO_DEFAULT ?
			(int)opts->priority : HC_PRIO_NORMAL;
	/* enum hc_priority's values 1..3 are enum hct_class's. */
	req->op.cls = (uint8_t)req->priority;
	req->state = HC_REQ_QUEUED;
	hc_metrics_submitted(ctx);
	cds_wfcq_node_init(&req->qnode);
	cds_wfcq_enqueue(&ctx->qhead, &ctx->qtail, &req->qnode);
	if (mode == REQ_BLOCKING)
		return hc_wait(req);
	*out = req;
	return 0;
}

/* Validate, fill and queue one collective to the engine. */
static int
submit(struct hc_comm *comm, enum hc_coll_kind kind, const void *sendbuf,
       void *recvbuf, uint64_t count, enum hc_dtype dtype, enum hc_op op,
       int root, const struct hc_op_opts *opts, enum req_mode mode,
       struct hc_request **out)
{
	struct hc_request *req;
	int rc = request_new(comm, opts, mode, out, &req);

	if (rc != 0)
		return rc;
	if (root < 0)
		rc = -HC_ERR_INVAL;
	else
		rc = hc_coll_prepare(comm, &req->op, kind, sendbuf, recvbuf,
				     count, dtype, op, (uint32_t)root);
	return request_queue(comm, req, rc, opts, mode, out);
}

/* submit() for the v-variants. */
static int
submit_v(struct hc_comm *comm, enum hc_coll_kind kind, const void *sendbuf,
	 void *recvbuf, const uint64_t *counts, const uint64_t *displs,
	 enum hc_dtype dtype, enum hc_op op, const struct hc_op_opts *opts,
	 enum req_mode mode, struct hc_request **out)
{
	struct hc_request *req;
	int rc = request_new(comm, opts, mode, out, &req);

	if (rc != 0)
		return rc;
	rc = hc_coll_prepare_v(comm, &req->op, kind, sendbuf, recvbuf, counts,
			       displs, dtype, op);
	return request_queue(comm, req, rc, opts, mode, out);
}

/* Queue a send or receive. */
static int
submit_p2p(struct hc_comm *comm, enum hc_coll_kind kind, void *buf,
	   uint64_t count, enum hc_dtype dtype, int peer,
	   const struct hc_op_opts *opts, enum req_mode mode,
	   struct hc_request **out)
{
	struct hc_request *req;
	int rc = request_new(comm, opts, mode, out, &req);

	if (rc != 0)
		return rc;
	rc = hc_p2p_prepare(comm, &req->op, kind, buf, count, dtype, peer);
	return request_queue(comm, req, rc, opts, mode, out);
}

int
hc_isend(struct hc_comm *comm, const void *buf, uint64_t count,
	 enum hc_dtype dtype, int peer, const struct hc_op_opts *opts,
	 struct hc_request **req)
{
	return submit_p2p(comm, HC_COLL_SEND, (void *)(uintptr_t)buf, count,
			  dtype, peer, opts, REQ_ASYNC, req);
}

int
hc_irecv(struct hc_comm *comm, void *buf, uint64_t count, enum hc_dtype dtype,
	 int peer, const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit_p2p(comm, HC_COLL_RECV, buf, count, dtype, peer, opts,
			  REQ_ASYNC, req);
}

int
hc_ireduce_scatterv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		    const uint64_t *recvcounts, enum hc_dtype dtype,
		    enum hc_op op, const struct hc_op_opts *opts,
		    struct hc_request **req)
{
	return submit_v(comm, HC_COLL_REDUCE_SCATTERV, sendbuf, recvbuf,
			recvcounts, NULL, dtype, op, opts, REQ_ASYNC, req);
}

int
hc_iallgatherv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	       const uint64_t *recvcounts, const uint64_t *displs,
	       enum hc_dtype dtype, const struct hc_op_opts *opts,
	       struct hc_request **req)
{
	return submit_v(comm, HC_COLL_ALLGATHERV, sendbuf, recvbuf, recvcounts,
			displs, dtype, HC_OP_SUM, opts, REQ_ASYNC, req);
}

int
hc_iallreduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	      uint64_t count, enum hc_dtype dtype, enum hc_op op,
	      const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit(comm, HC_COLL_ALLREDUCE, sendbuf, recvbuf, count, dtype,
		      op, 0, opts, REQ_ASYNC, req);
}

int
hc_ireduce_scatter(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		   uint64_t recvcount, enum hc_dtype dtype, enum hc_op op,
		   const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit(comm, HC_COLL_REDUCE_SCATTER, sendbuf, recvbuf,
		      recvcount, dtype, op, 0, opts, REQ_ASYNC, req);
}

int
hc_iallgather(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	      uint64_t sendcount, enum hc_dtype dtype,
	      const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit(comm, HC_COLL_ALLGATHER, sendbuf, recvbuf, sendcount,
		      dtype, HC_OP_SUM, 0, opts, REQ_ASYNC, req);
}

int
hc_ibarrier(struct hc_comm *comm, const struct hc_op_opts *opts,
	    struct hc_request **req)
{
	return submit(comm, HC_COLL_BARRIER, NULL, NULL, 0, HC_DTYPE_INT8,
		      HC_OP_SUM, 0, opts, REQ_ASYNC, req);
}

int
hc_ibroadcast(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	      uint64_t count, enum hc_dtype dtype, int root,
	      const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit(comm, HC_COLL_BROADCAST, sendbuf, recvbuf, count, dtype,
		      HC_OP_SUM, root, opts, REQ_ASYNC, req);
}

int
hc_ireduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	   uint64_t count, enum hc_dtype dtype, enum hc_op op, int root,
	   const struct hc_op_opts *opts, struct hc_request **req)
{
	return submit(comm, HC_COLL_REDUCE, sendbuf, recvbuf, count, dtype, op,
		      root, opts, REQ_ASYNC, req);
}

int
hc_test(struct hc_request *req, int *done)
{
	int rc;

	if (req == NULL || done == NULL)
		return -HC_ERR_INVAL;
	/* A simulated rank progresses only in the runner's steps. */
	if (!is_done(req) && req->ctx->engine_lcore == RTE_MAX_LCORE &&
	    req->ctx->sim == NULL)
		caller_progress(req->ctx);
	if (!is_done(req)) {
		*done = 0;
		return 0;
	}
	*done = 1;
	rc = req->status;
	free(req);
	return rc;
}

int
hc_wait(struct hc_request *req)
{
	struct hc_backoff b = { 0, 0 };
	struct hc_ctx *ctx;
	uint64_t t0;
	int rc;

	if (req == NULL)
		return -HC_ERR_INVAL;
	ctx = req->ctx;
	if (!is_done(req) && sim_cannot_wait(ctx))
		return -HC_ERR_INVAL;
	t0 = is_done(req) ? 0 : hc_clock_now(&ctx->clk);
	while (!is_done(req)) {
		uint32_t work = 0;

		if (ctx->engine_lcore == RTE_MAX_LCORE) {
			work = caller_progress(ctx);
			if (work != 0)
				b.polls = 0;
			else if (!is_done(req))
				hc_backoff(ctx, &b);
		} else if (!is_done(req)) {
			hc_wait_backoff(ctx, &b);
		}
	}
	if (t0 != 0 && req->op.kind != HC_COLL_COMM_ADD)
		hc_metrics_waited(ctx, hc_clock_now(&ctx->clk) - t0);
	rc = req->status;
	free(req);
	return rc;
}

int
hc_wait_all(struct hc_request **reqs, size_t n, int *statuses)
{
	int first = 0, rc;
	size_t i;

	if (reqs == NULL && n > 0)
		return -HC_ERR_INVAL;
	for (i = 0; i < n; i++) {
		rc = hc_wait(reqs[i]);
		reqs[i] = NULL;
		if (statuses != NULL)
			statuses[i] = rc;
		if (rc != 0 && first == 0)
			first = rc;
	}
	return first;
}

/* The blocking forms: the hc_i* form's request, made with REQ_BLOCKING
 * (refused on a simulated rank, waited for otherwise). */
int
hc_allreduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	     uint64_t count, enum hc_dtype dtype, enum hc_op op)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_ALLREDUCE, sendbuf, recvbuf, count, dtype,
		      op, 0, NULL, REQ_BLOCKING, &req);
}

int
hc_reduce_scatter(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		  uint64_t recvcount, enum hc_dtype dtype, enum hc_op op)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_REDUCE_SCATTER, sendbuf, recvbuf,
		      recvcount, dtype, op, 0, NULL, REQ_BLOCKING, &req);
}

int
hc_allgather(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	     uint64_t sendcount, enum hc_dtype dtype)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_ALLGATHER, sendbuf, recvbuf, sendcount,
		      dtype, HC_OP_SUM, 0, NULL, REQ_BLOCKING, &req);
}

int
hc_reduce_scatterv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		   const uint64_t *recvcounts, enum hc_dtype dtype,
		   enum hc_op op)
{
	struct hc_request *req;

	return submit_v(comm, HC_COLL_REDUCE_SCATTERV, sendbuf, recvbuf,
			recvcounts, NULL, dtype, op, NULL, REQ_BLOCKING, &req);
}

int
hc_allgatherv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	      const uint64_t *recvcounts, const uint64_t *displs,
	      enum hc_dtype dtype)
{
	struct hc_request *req;

	return submit_v(comm, HC_COLL_ALLGATHERV, sendbuf, recvbuf, recvcounts,
			displs, dtype, HC_OP_SUM, NULL, REQ_BLOCKING, &req);
}

int
hc_send(struct hc_comm *comm, const void *buf, uint64_t count,
	enum hc_dtype dtype, int peer)
{
	struct hc_request *req;

	return submit_p2p(comm, HC_COLL_SEND, (void *)(uintptr_t)buf, count,
			  dtype, peer, NULL, REQ_BLOCKING, &req);
}

int
hc_recv(struct hc_comm *comm, void *buf, uint64_t count, enum hc_dtype dtype,
	int peer)
{
	struct hc_request *req;

	return submit_p2p(comm, HC_COLL_RECV, buf, count, dtype, peer, NULL,
			  REQ_BLOCKING, &req);
}

int
hc_barrier(struct hc_comm *comm)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_BARRIER, NULL, NULL, 0, HC_DTYPE_INT8,
		      HC_OP_SUM, 0, NULL, REQ_BLOCKING, &req);
}

int
hc_broadcast(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	     uint64_t count, enum hc_dtype dtype, int root)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_BROADCAST, sendbuf, recvbuf, count, dtype,
		      HC_OP_SUM, root, NULL, REQ_BLOCKING, &req);
}

int
hc_reduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	  uint64_t count, enum hc_dtype dtype, enum hc_op op, int root)
{
	struct hc_request *req;

	return submit(comm, HC_COLL_REDUCE, sendbuf, recvbuf, count, dtype, op,
		      root, NULL, REQ_BLOCKING, &req);
}

/* Members of color in parent, ordered by (key, parent rank), as MPI. */
struct split_entry {
	int64_t key;
	uint32_t prank;
};

static int
split_cmp(const void *a, const void *b)
{
	const struct split_entry *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->prank < y->prank ? -1 : x->prank > y->prank;
}

int
hc_comm_split(struct hc_comm *parent, int color, int key,
	      struct hc_comm **out)
{
	struct split_entry *members = NULL;
	struct hc_request *req;
	struct hc_comm *comm = NULL;
	uint32_t n, q, size = 0, me = 0, split, *world = NULL;
	int64_t mine[2] = { color, key }, *all = NULL;
	struct hc_ctx *ctx;
	int rc;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (parent == NULL || (color < 0 && color != HC_COMM_SPLIT_NONE))
		return -HC_ERR_INVAL;
	ctx = hc_comm_ctx(parent);
	n = parent->size;
	split = parent->splits++;
	all = malloc(2 * n * sizeof(*all));
	members = malloc(n * sizeof(*members));
	world = malloc(n * sizeof(*world));
	if (all == NULL || members == NULL || world == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	/* Every rank learns every rank's (color, key): an all-gather on
	 * the parent, so a rank that is missing or disagrees fails it. */
	rc = hc_allgather(parent, mine, all, 2, HC_DTYPE_INT64);
	if (rc != 0 || color == HC_COMM_SPLIT_NONE)
		goto out;
	for (q = 0; q < n; q++)
		if (all[2 * q] == color)
			members[size++] = (struct split_entry){ all[2 * q + 1], q };
	qsort(members, size, sizeof(*members), split_cmp);
	for (q = 0; q < size; q++) {
		world[q] = parent->world[members[q].prank];
		if (members[q].prank == parent->rank)
			me = q;
	}
	comm = malloc(sizeof(*comm));
	if (comm == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	rc = hc_comm_init(comm, parent->coll, ctx,
			  hc_comm_split_id(parent, split, color), me, size,
			  world, parent->world_size);
	if (rc != 0) {
		free(comm);
		comm = NULL;
		goto out;
	}
	/* The engine owns the list of communicators: it registers this
	 * one, like a collective, through the request queue. */
	req = calloc(1, sizeof(*req));
	if (req == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	req->ctx = ctx;
	req->op.kind = HC_COLL_COMM_ADD;
	req->op.comm = comm;
	cds_wfcq_node_init(&req->qnode);
	cds_wfcq_enqueue(&ctx->qhead, &ctx->qtail, &req->qnode);
	rc = hc_wait(req);
	if (rc == 0) {
		hc_comm_check_algo(comm);
		*out = comm;
		comm = NULL;
	}
out:
	if (comm != NULL) {
		hc_comm_fini(comm);
		free(comm);
	}
	free(all);
	free(members);
	free(world);
	return rc;
}
