/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives on the caller's (application) thread: what runs before
 * the engine sees an op or a communicator. hc_coll_prepare and
 * hc_coll_prepare_v check the arguments and the buffers' overlap, pick the
 * all-reduce algorithm and fill the op in, touching no engine state but
 * the communicator's atomic sequence counter and logged-size bits.
 * hc_comm_init builds a communicator for hc_init or hc_comm_split (the
 * engine registers it: hc_coll_add_comm, comm_engine.c); hc_coll_init,
 * hc_coll_free, hc_coll_set_groups and hc_comm_fini run at bring-up and
 * teardown, while the engine does not poll (hc_comm_fini also for a split
 * communicator the engine never registered).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "coll.h"
#include "log.h"
#include "plan_run.h"

int
hc_coll_init(struct hc_coll *c, struct hct *hct, uint32_t world_rank,
	     const struct hc_coll_conf *conf)
{
	memset(c, 0, sizeof(*c));
	c->hct = hct;
	c->world_rank = world_rank;
	c->slice_bytes = conf->slice_bytes;
	c->unexp_max = conf->unexpected_max;
	c->algo = conf->algo;
	c->precision = conf->precision;
	TAILQ_INIT(&c->comms);
	c->unexp = calloc(conf->unexpected_max, sizeof(*c->unexp));
	return c->unexp == NULL ? -HC_ERR_NOMEM : 0;
}

void
hc_coll_free(struct hc_coll *c)
{
	uint32_t i;

	for (i = 0; i < c->unexp_len; i++)
		rte_pktmbuf_free(c->unexp[i].m);
	free(c->group_of);
	c->group_of = NULL;
	free(c->unexp);
	c->unexp = NULL;
	free(c->cmap);
	c->cmap = NULL;
	c->unexp_len = 0;
}

/* Groups of comm: how many, and their common size (0 if they differ). */
static void
comm_shape(struct hc_comm *comm)
{
	uint32_t i, j, m = 0, g = 0;

	comm->shape.n = comm->size;
	for (i = 0; i < comm->size; i++) {
		uint32_t size = 0;

		for (j = 0; j < i && comm->group[j] != comm->group[i]; j++)
			;
		if (j < i)
			continue; /* not the group's first member */
		m++;
		for (j = i; j < comm->size; j++)
			size += comm->group[j] == comm->group[i];
		g = m == 1 ? size : g == size ? g : 0;
	}
	comm->shape.groups = m;
	comm->shape.gsize = g;
}

int
hc_coll_set_groups(struct hc_coll *c, const uint32_t *group_of,
		   uint32_t world_size)
{
	uint32_t *g = malloc(world_size * sizeof(*g));

	if (g == NULL)
		return -HC_ERR_NOMEM;
	memcpy(g, group_of, world_size * sizeof(*g));
	free(c->group_of);
	c->group_of = g;
	return 0;
}

const struct hc_algo *
hc_algo_get(enum hc_algo_id a)
{
	switch (a) {
	case HC_ALGO_RING:
		return &hc_algo_ring;
	case HC_ALGO_TREE:
		return &hc_algo_tree;
	case HC_ALGO_HD:
		return &hc_algo_hd;
	case HC_ALGO_HIER:
		return &hc_algo_hier;
	case HC_ALGO_RD:
		return &hc_algo_rd;
	default:
		return NULL;
	}
}

int
hc_comm_init(struct hc_comm *comm, struct hc_coll *c, void *owner,
	     uint32_t id, uint32_t rank, uint32_t size, const uint32_t *world,
	     uint32_t world_size)
{
	uint32_t i;

	memset(comm, 0, sizeof(*comm));
	comm->world = calloc(size, sizeof(*comm->world));
	comm->of_world = malloc(world_size * sizeof(*comm->of_world));
	comm->abort_msgs = calloc(size, sizeof(*comm->abort_msgs));
	comm->group = calloc(size, sizeof(*comm->group));
	comm->p2p_tx_seq = calloc(size, sizeof(*comm->p2p_tx_seq));
	comm->p2p_rx_seq = calloc(size, sizeof(*comm->p2p_rx_seq));
	comm->p2p_rx_posted = calloc(size, sizeof(*comm->p2p_rx_posted));
	if (comm->world == NULL || comm->of_world == NULL ||
	    comm->abort_msgs == NULL || comm->group == NULL ||
	    comm->p2p_tx_seq == NULL || comm->p2p_rx_seq == NULL ||
	    comm->p2p_rx_posted == NULL) {
		hc_comm_fini(comm);
		return -HC_ERR_NOMEM;
	}
	for (i = 0; i < world_size; i++)
		comm->of_world[i] = UINT32_MAX;
	for (i = 0; i < size; i++) {
		comm->world[i] = world[i];
		comm->of_world[world[i]] = i;
		comm->group[i] = c->group_of != NULL ? c->group_of[world[i]]
						      : world[i];
	}
	comm->tune = c->tune;
	comm->algo = c->algo;
	comm->coll = c;
	comm->owner = owner;
	TAILQ_INIT(&comm->pending);
	TAILQ_INIT(&comm->active);
	TAILQ_INIT(&comm->p2p);
	comm->id = id;
	comm->rank = rank;
	comm->size = size;
	comm->world_size = world_size;
	comm_shape(comm);
	return 0;
}

/* comm's all-reduce algorithm is forced ([coll] algo) and cannot run on
 * its shape (hier over groups of unequal size). */
static bool
forced_algo_unusable(const struct hc_comm *comm)
{
	return comm->algo != HC_ALGO_AUTO &&
	       !hc_tune_can_run(comm->algo, &comm->shape);
}

/* Field case C02: an algorithm that cannot serve this communicator says
 * so when the communicator is created; its all-reduces are then refused
 * (choose_algo), the other collectives run. */
void
hc_comm_check_algo(const struct hc_comm *comm)
{
	if (forced_algo_unusable(comm))
		HC_LOG(WARNING, COLL, "comm %08x: [coll] algo %s cannot run "
		       "on this communicator (%u ranks in %u groups of "
		       "unequal size): its all-reduces will fail with "
		       "HC_ERR_UNSUPPORTED", comm->id,
		       hc_algo_id_name(comm->algo), comm->size,
		       comm->shape.groups);
}

int
hc_comm_init_world(struct hc_comm *comm, struct hc_coll *c, void *owner,
		   uint32_t rank, uint32_t size)
{
	uint32_t *ranks = malloc(size * sizeof(*ranks)), i;
	int rc;

	if (ranks == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < size; i++)
		ranks[i] = i;
	rc = hc_comm_init(comm, c, owner, 0, rank, size, ranks, size);
	free(ranks);
	if (rc == 0) {
		hc_comm_check_algo(comm);
		hc_coll_add_comm(c, comm);
	}
	return rc;
}

void
hc_comm_fini(struct hc_comm *comm)
{
	if (comm->registered)
		hc_coll_remove_comm(comm->coll, comm);
	hc_plan_run_cache_free(comm);
	free(comm->work_cache);
	comm->work_cache = NULL;
	comm->work_cache_bytes = 0;
	/* An ABORT broadcast may still be queued (a peer that never took
	 * it): out of the transport's queues before its memory goes. */
	if (comm->aborted && comm->abort_msgs != NULL && comm->coll != NULL &&
	    comm->coll->hct != NULL)
		hct_cancel_msgs(comm->coll->hct, comm->abort_msgs, comm->size);
	free(comm->world);
	free(comm->of_world);
	free(comm->abort_msgs);
	free(comm->group);
	comm->group = NULL;
	free(comm->p2p_tx_seq);
	free(comm->p2p_rx_seq);
	free(comm->p2p_rx_posted);
	comm->p2p_tx_seq = NULL;
	comm->p2p_rx_seq = NULL;
	comm->p2p_rx_posted = NULL;
	comm->world = NULL;
	comm->of_world = NULL;
	comm->abort_msgs = NULL;
}

uint32_t
hc_comm_split_id(const struct hc_comm *parent, uint32_t split, int color)
{
	uint32_t words[3] = { parent->id, split, (uint32_t)color };
	const uint8_t *b = (const uint8_t *)words;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(words); i++)
		h = (h ^ b[i]) * 16777619u;
	return h != 0 ? h : 1;
}

/* FNV-1a (Fowler, Noll, Vo) over the arguments every rank must agree on. */
uint32_t
hc_coll_signature(enum hc_coll_kind kind, enum hc_dtype dtype, enum hc_op op,
		  uint64_t count, uint32_t root, enum hc_algo_id algo)
{
	/* The ring's (and every other collective's) is as before the
	 * algorithm entered it. */
	uint64_t words[6] = { kind, dtype, op, count, root, algo };
	const uint8_t *b = (const uint8_t *)words;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < (algo > HC_ALGO_RING ? 6 : 5) * sizeof(words[0]); i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* The all-reduce algorithm of comm for bytes bytes: the forced one, or
 * the tuner's pick, logged once per (comm, power-of-two size class).
 * @return the id, or -HC_ERR_UNSUPPORTED when the forced one cannot run
 * this communicator. */
static int
choose_algo(struct hc_comm *comm, uint64_t bytes)
{
	uint32_t cls = bytes > 0 ? 63 - (uint32_t)__builtin_clzll(bytes) : 0;
	uint64_t bit = (uint64_t)1 << cls;
	enum hc_algo_id a = comm->algo;

	if (a != HC_ALGO_AUTO) {
		if (forced_algo_unusable(comm)) {
			HC_LOG(ERR, COLL, "all-reduce: algorithm %s cannot run "
			       "on this communicator (%u ranks in %u groups "
			       "of unequal size)", hc_algo_id_name(a),
			       comm->size, comm->shape.groups);
			return -HC_ERR_UNSUPPORTED;
		}
		return a;
	}
	if (bytes == 0)
		return HC_ALGO_RING; /* no data: no algorithm runs */
	a = hc_tune_pick(&comm->shape, &comm->tune, (double)bytes);
	if (!(__atomic_fetch_or(&comm->logged, bit, __ATOMIC_RELAXED) & bit))
		HC_LOG(INFO, COLL, "comm %08x all-reduce of %" PRIu64 "+ bytes: "
		       "%s (predicted us: ring %.1f tree %.1f hd %.1f hier %.1f "
		       "rd %.1f;"
		       " alpha %.1f us, beta %.3f ns/B)", comm->id, bit,
		       hc_algo_id_name(a),
		       hc_tune_cost(HC_ALGO_RING, &comm->shape, &comm->tune,
				    (double)bytes) / 1e3,
		       hc_tune_cost(HC_ALGO_TREE, &comm->shape, &comm->tune,
				    (double)bytes) / 1e3,
		       hc_tune_cost(HC_ALGO_HD, &comm->shape, &comm->tune,
				    (double)bytes) / 1e3,
		       hc_tune_cost(HC_ALGO_HIER, &comm->shape, &comm->tune,
				    (double)bytes) / 1e3,
		       hc_tune_cost(HC_ALGO_RD, &comm->shape, &comm->tune,
				    (double)bytes) / 1e3,
		       comm->tune.alpha_ns / 1e3, comm->tune.beta_ns);
	return a;
}

static const char *const kind_names[] = {
	[HC_COLL_ALLREDUCE] = "all-reduce",
	[HC_COLL_REDUCE_SCATTER] = "reduce-scatter",
	[HC_COLL_ALLGATHER] = "all-gather",
	[HC_COLL_BARRIER] = "barrier",
	[HC_COLL_BROADCAST] = "broadcast",
	[HC_COLL_REDUCE] = "reduce",
	[HC_COLL_REDUCE_SCATTERV] = "reduce-scatterv",
	[HC_COLL_ALLGATHERV] = "all-gatherv",
};

/* Fill what every prepared collective has: takes the next sequence
 * number of comm. */
static void
op_fill(struct hc_coll_op *op, struct hc_comm *comm, enum hc_coll_kind kind,
	uint32_t sig, enum hc_dtype dtype, enum hc_op rop, const void *sendbuf,
	void *recvbuf)
{
	int gathers = kind == HC_COLL_ALLGATHER ||
		      kind == HC_COLL_ALLGATHERV || kind == HC_COLL_BROADCAST;

	op->comm = comm;
	op->kind = kind;
	op->seq = __atomic_fetch_add(&comm->next_seq, 1, __ATOMIC_RELAXED);
	op->sig = sig;
	op->dtype = dtype;
	op->op = rop;
	op->elem_size = (uint32_t)hc_dtype_size(dtype);
	op->send = sendbuf;
	op->recv = recvbuf;
	op->acc = gathers ? dtype : hc_reduce_acc_dtype(dtype, rop);
	if (!gathers && comm->coll->precision == HC_PRECISION_NATIVE &&
	    (dtype == HC_DTYPE_FLOAT16 || dtype == HC_DTYPE_BFLOAT16)) {
		/* [coll] precision = native: 16-bit partial sums, AVG as a
		 * pre-scaled sum; the signature tells the ranks apart from
		 * fp32 ones, whose wire format differs */
		op->acc = dtype;
		op->prescale = rop == HC_OP_AVG;
		op->sig = (op->sig ^ 0x6e) * 16777619u;
	}
	op->acc_size = (uint32_t)hc_dtype_size(op->acc);
	op->reduce = hc_reduce_get(op->acc, rop);
	op->reduce3 = hc_reduce3_get(op->acc, rop);
	op->cls = HCT_CLASS_NORMAL; /* request.c sets the caller's class */
}

int
hc_coll_prepare(struct hc_comm *comm, struct hc_coll_op *op,
		enum hc_coll_kind kind, const void *sendbuf, void *recvbuf,
		uint64_t count, enum hc_dtype dtype, enum hc_op rop,
		uint32_t root)
{
	const char *name = kind_names[kind];
	int rooted = kind == HC_COLL_BROADCAST || kind == HC_COLL_REDUCE;
	size_t es = hc_dtype_size(dtype);
	uint64_t n, sbytes, rbytes, place;

	memset(op, 0, sizeof(*op));
	if (kind == HC_COLL_BARRIER) {
		dtype = HC_DTYPE_INT8;
		rop = HC_OP_SUM;
		es = 1;
		count = 0;
	}
	if (kind == HC_COLL_ALLGATHER || kind == HC_COLL_BROADCAST)
		rop = HC_OP_SUM; /* no reduction; fixed for the signature */
	if (!rooted)
		root = 0;
	if (comm != NULL && root >= comm->size) {
		HC_LOG(ERR, COLL, "%s: root %u is not a rank of %u", name, root,
		       comm->size);
		return -HC_ERR_INVAL;
	}
	/* A rooted collective reads sendbuf or writes recvbuf at the root
	 * only: elsewhere the other one may be NULL. */
	if (comm != NULL && kind == HC_COLL_BROADCAST && comm->rank != root &&
	    sendbuf == NULL)
		sendbuf = recvbuf;
	if (comm != NULL && kind == HC_COLL_REDUCE && comm->rank != root &&
	    recvbuf == NULL)
		recvbuf = (void *)(uintptr_t)sendbuf;
	if (comm == NULL || es == 0 || (unsigned int)rop >= HC_OP__MAX) {
		HC_LOG(ERR, COLL, "%s: %s", name, comm == NULL ?
		       "no communicator" : es == 0 ? "unknown dtype" :
		       "unknown op");
		return -HC_ERR_INVAL;
	}
	n = kind == HC_COLL_REDUCE_SCATTER || kind == HC_COLL_ALLGATHER ?
	    comm->size : 1;
	if (count > UINT64_MAX / 8 / n) {
		HC_LOG(ERR, COLL, "%s: count %" PRIu64 " too large", name,
		       count);
		return -HC_ERR_INVAL;
	}
	if (count > 0 && (sendbuf == NULL || recvbuf == NULL)) {
		HC_LOG(ERR, COLL, "%s: NULL buffer for %" PRIu64 " elements",
		       name, count);
		return -HC_ERR_INVAL;
	}
	sbytes = count * es * (kind == HC_COLL_REDUCE_SCATTER ? n : 1);
	rbytes = count * es * (kind == HC_COLL_ALLGATHER ? n : 1);
	place = count * es * comm->rank;
	if (count > 0 && !((kind == HC_COLL_ALLREDUCE || rooted) &&
			   sendbuf == recvbuf) &&
	    !(kind == HC_COLL_REDUCE_SCATTER &&
	      (const uint8_t *)recvbuf == (const uint8_t *)sendbuf + place) &&
	    !(kind == HC_COLL_ALLGATHER &&
	      (const uint8_t *)sendbuf == (const uint8_t *)recvbuf + place) &&
	    (const uint8_t *)sendbuf < (const uint8_t *)recvbuf + rbytes &&
	    (const uint8_t *)recvbuf < (const uint8_t *)sendbuf + sbytes) {
		HC_LOG(ERR, COLL, "%s: send and receive buffers overlap "
		       "without being the in-place layout", name);
		return -HC_ERR_INVAL;
	}
	op->algo_id = HC_ALGO_RING;
	if (kind == HC_COLL_ALLREDUCE && comm->size > 1) {
		int a = choose_algo(comm, count * es);

		if (a < 0)
			return a;
		op->algo_id = (enum hc_algo_id)a;
	}
	op_fill(op, comm, kind, hc_coll_signature(kind, dtype, rop, count,
						  root, op->algo_id),
		dtype, rop, sendbuf, recvbuf);
	op->root = root;
	op->count = count;
	op->total = count * n;
	op->out_base = kind == HC_COLL_REDUCE_SCATTER ? count * comm->rank : 0;
	op->algo = rooted ? &hc_algo_chain : hc_algo_get(op->algo_id);
	return 0;
}

/* FNV-1a 64 of the counts array: the v-variants' signature covers every
 * rank's count, so ranks that disagree on any of them get MISMATCH. */
static uint64_t
counts_hash(const uint64_t *counts, uint32_t n)
{
	const uint8_t *b = (const uint8_t *)counts;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n * sizeof(*counts); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

struct vblock {
	uint64_t first, len; /* bytes */
};

static int
vblock_cmp(const void *a, const void *b)
{
	const struct vblock *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Whether two of the n receive blocks (displs, counts, in elements of es
 * bytes) overlap; empty blocks overlap nothing. */
static int
vblocks_overlap(const uint64_t *displs, const uint64_t *counts, uint32_t n,
		size_t es, int *err)
{
	struct vblock *v = malloc(n * sizeof(*v));
	uint32_t i, m = 0;
	int bad = 0;

	*err = 0;
	if (v == NULL) {
		*err = -HC_ERR_NOMEM;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (counts[i] > 0)
			v[m++] = (struct vblock){ displs[i] * es, counts[i] * es };
	qsort(v, m, sizeof(*v), vblock_cmp);
	for (i = 1; i < m && !bad; i++)
		bad = v[i].first < v[i - 1].first + v[i - 1].len;
	free(v);
	return bad;
}

int
hc_coll_prepare_v(struct hc_comm *comm, struct hc_coll_op *op,
		  enum hc_coll_kind kind, const void *sendbuf, void *recvbuf,
		  const uint64_t *counts, const uint64_t *displs,
		  enum hc_dtype dtype, enum hc_op rop)
{
	const char *name = kind_names[kind];
	size_t es = hc_dtype_size(dtype);
	int ag = kind == HC_COLL_ALLGATHERV, err;
	const uint8_t *s = sendbuf, *r = recvbuf, *own;
	uint64_t *b, total = 0, lim;
	uint32_t n, q, me;

	memset(op, 0, sizeof(*op));
	if (ag)
		rop = HC_OP_SUM; /* no reduction; fixed for the signature */
	if (comm == NULL || counts == NULL || es == 0 ||
	    (unsigned int)rop >= HC_OP__MAX) {
		HC_LOG(ERR, COLL, "%s: %s", name, comm == NULL ?
		       "no communicator" : counts == NULL ? "no counts" :
		       es == 0 ? "unknown dtype" : "unknown op");
		return -HC_ERR_INVAL;
	}
	n = comm->size;
	me = comm->rank;
	lim = UINT64_MAX / 8 / n;
	for (q = 0; q < n; q++) {
		if (counts[q] > lim || total > lim ||
		    (displs != NULL && displs[q] > lim)) {
			HC_LOG(ERR, COLL, "%s: count or displacement of rank %u "
			       "too large", name, q);
			return -HC_ERR_INVAL;
		}
		total += counts[q];
	}
	if (total > lim) {
		HC_LOG(ERR, COLL, "%s: %" PRIu64 " elements in all: too many",
		       name, total);
		return -HC_ERR_INVAL;
	}
	if (!ag)
		displs = NULL; /* reduce-scatterv: blocks packed in sendbuf */
	/* Elements each side holds: all-gatherv sends counts[me] and
	 * receives the blocks; reduce-scatterv sends total, receives
	 * counts[me]. */
	if (((ag ? counts[me] : total) > 0 && s == NULL) ||
	    ((ag ? total : counts[me]) > 0 && r == NULL)) {
		HC_LOG(ERR, COLL, "%s: NULL buffer", name);
		return -HC_ERR_INVAL;
	}
	b = malloc((2 * (size_t)n + 1) * sizeof(*b));
	if (b == NULL)
		return -HC_ERR_NOMEM;
	b[0] = 0;
	for (q = 0; q < n; q++) {
		b[q + 1] = b[q] + counts[q];
		b[n + 1 + q] = displs != NULL ? displs[q] : b[q];
	}
	if (ag && total > 0) {
		/* receive blocks disjoint; sendbuf is block me itself (in
		 * place) or outside every block */
		if (vblocks_overlap(b + n + 1, counts, n, es, &err) ||
		    err != 0) {
			free(b);
			if (err != 0)
				return err;
			HC_LOG(ERR, COLL, "%s: receive blocks overlap", name);
			return -HC_ERR_INVAL;
		}
		own = r + b[n + 1 + me] * es;
		for (q = 0; q < n && s != own && counts[me] > 0; q++) {
			const uint8_t *blk = r + b[n + 1 + q] * es;

			if (counts[q] > 0 && s < blk + counts[q] * es &&
			    blk < s + counts[me] * es) {
				free(b);
				HC_LOG(ERR, COLL, "%s: send buffer overlaps "
				       "receive block %u", name, q);
				return -HC_ERR_INVAL;
			}
		}
	} else if (!ag && counts[me] > 0 && r != s + b[me] * es &&
		   r < s + total * es && s < r + counts[me] * es) {
		free(b);
		HC_LOG(ERR, COLL, "%s: send and receive buffers overlap "
		       "without being the in-place layout", name);
		return -HC_ERR_INVAL;
	}
	op_fill(op, comm, kind, hc_coll_signature(kind, dtype, rop,
						  counts_hash(counts, n), 0,
						  HC_ALGO_RING),
		dtype, rop, sendbuf, recvbuf);
	op->count = counts[me];
	op->total = total;
	op->out_base = b[me];
	op->vbounds = b;
	op->vdispls = displs != NULL ? b + n + 1 : NULL;
	op->algo = &hc_algo_ring;
	return 0;
}
