/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gradient bucketing (hypercomm.h, hc_bucketer_create): PyTorch DDP's
 * Reducer (Li et al., VLDB 2020) over hypercomm's non-blocking
 * all-reduce. Built on the public API only: a bucket is a contiguous
 * buffer, its gradients are copied in when the last one is marked ready,
 * one in-place HC_OP_AVG all-reduce runs per bucket, and the wait copies
 * the averages back. Buckets launch strictly in bucket order, so every
 * rank submits the same sequence of collectives whatever order its
 * gradients are marked in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hypercomm.h"

struct bucket {
	size_t first;          /* in b->order */
	size_t ngrads;
	uint64_t count;        /* elements */
	size_t pending;        /* gradients not marked yet this step */
	enum hc_priority prio;
	uint8_t *flat;
	struct hc_request *req;
	int launched;
};

struct hc_bucketer {
	struct hc_comm *comm;
	size_t n;
	void **bufs;
	uint64_t *counts;
	enum hc_dtype dtype;
	size_t esize;
	uint64_t cap;
	size_t *order;         /* gradient indices, bucket by bucket */
	size_t *bucket_of;     /* gradient -> bucket */
	uint8_t *marked;       /* this step */
	size_t *seen;          /* first step: the order of marks */
	size_t nseen;
	struct bucket *buckets;
	size_t nbuckets;
	size_t next_launch;
	uint64_t steps;
	int rebuilt;
	int status;            /* first error of this step */
	int broken;            /* the rebuild's error: no buckets left */
};

static void
free_buckets(struct hc_bucketer *b)
{
	size_t k;

	for (k = 0; k < b->nbuckets; k++)
		free(b->buckets[k].flat);
	free(b->buckets);
	b->buckets = NULL;
	b->nbuckets = 0;
}

/* Cut b->order (filled) into buckets of at most b->cap bytes. */
static int
build(struct hc_bucketer *b)
{
	size_t i, k = 0;
	uint64_t bytes = 0;

	free_buckets(b);
	b->buckets = calloc(b->n, sizeof(*b->buckets));
	if (b->buckets == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < b->n; i++) {
		uint64_t gb = b->counts[b->order[i]] * b->esize;
		struct bucket *bk;

		if (i > 0 && bytes + gb > b->cap) {
			k++;
			bytes = 0;
		}
		bk = &b->buckets[k];
		if (bk->ngrads == 0)
			bk->first = i;
		bk->ngrads++;
		bk->count += b->counts[b->order[i]];
		bytes += gb;
		b->bucket_of[b->order[i]] = k;
	}
	b->nbuckets = k + 1;
	for (k = 0; k < b->nbuckets; k++) {
		struct bucket *bk = &b->buckets[k];

		bk->prio = b->bucket_of[0] == k ? HC_PRIO_CRITICAL
						: HC_PRIO_NORMAL;
		bk->pending = bk->ngrads;
		bk->flat = malloc(bk->count * b->esize);
		if (bk->flat == NULL) {
			free_buckets(b);
			return -HC_ERR_NOMEM;
		}
	}
	return 0;
}

int
hc_bucketer_create(struct hc_comm *comm, size_t n, void *const *bufs,
		   const uint64_t *counts, enum hc_dtype dtype,
		   uint64_t bucket_bytes, struct hc_bucketer **out)
{
	struct hc_bucketer *b;
	uint64_t total = 0, es;
	size_t i;
	int rc;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (comm == NULL || n == 0 || bufs == NULL || counts == NULL)
		return -HC_ERR_INVAL;
	if (dtype != HC_DTYPE_FLOAT16 && dtype != HC_DTYPE_BFLOAT16 &&
	    dtype != HC_DTYPE_FLOAT32 && dtype != HC_DTYPE_FLOAT64)
		return -HC_ERR_INVAL;
	es = hc_dtype_size(dtype);
	for (i = 0; i < n; i++) {
		if (bufs[i] == NULL || counts[i] == 0)
			return -HC_ERR_INVAL;
		/* every byte count (a gradient's, a bucket's, the sum) must
		 * fit in 64 bits, or the buckets' sizes wrap */
		if (counts[i] > (UINT64_MAX - total) / es)
			return -HC_ERR_INVAL;
		total += counts[i] * es;
	}
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -HC_ERR_NOMEM;
	b->comm = comm;
	b->n = n;
	b->dtype = dtype;
	b->esize = hc_dtype_size(dtype);
	b->cap = bucket_bytes != 0 ? bucket_bytes : HC_BUCKET_BYTES_DEFAULT;
	b->bufs = malloc(n * sizeof(*b->bufs));
	b->counts = malloc(n * sizeof(*b->counts));
	b->order = malloc(n * sizeof(*b->order));
	b->bucket_of = malloc(n * sizeof(*b->bucket_of));
	b->marked = calloc(n, 1);
	b->seen = malloc(n * sizeof(*b->seen));
	if (b->bufs == NULL || b->counts == NULL || b->order == NULL ||
	    b->bucket_of == NULL || b->marked == NULL || b->seen == NULL) {
		hc_bucketer_free(b);
		return -HC_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		b->bufs[i] = bufs[i];
		b->counts[i] = counts[i];
		b->order[i] = n - 1 - i; /* backward: last layer first */
	}
	rc = build(b);
	if (rc != 0) {
		hc_bucketer_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* Copy bucket k's gradients in and start its all-reduce. */
static int
launch(struct hc_bucketer *b, size_t k)
{
	struct bucket *bk = &b->buckets[k];
	struct hc_op_opts opts = { .priority = bk->prio };
	uint64_t off = 0;
	size_t j;

	for (j = 0; j < bk->ngrads; j++) {
		size_t g = b->order[bk->first + j];
		uint64_t len = b->counts[g] * b->esize;

		memcpy(bk->flat + off, b->bufs[g], len);
		off += len;
	}
	bk->launched = 1;
	return hc_iallreduce(b->comm, bk->flat, bk->flat, bk->count, b->dtype,
			     HC_OP_AVG, &opts, &bk->req);
}

/* Launch every complete bucket from next_launch on, in order. */
static int
launch_ready(struct hc_bucketer *b)
{
	int rc = 0;

	while (b->next_launch < b->nbuckets &&
	       b->buckets[b->next_launch].pending == 0) {
		rc = launch(b, b->next_launch++);
		if (rc != 0)
			break;
	}
	return rc;
}

int
hc_bucketer_mark_ready(struct hc_bucketer *b, size_t i)
{
	int rc;

	if (b == NULL || i >= b->n || b->marked[i])
		return -HC_ERR_INVAL;
	if (b->broken != 0)
		return b->broken;
	b->marked[i] = 1;
	if (b->steps == 0)
		b->seen[b->nseen++] = i;
	b->buckets[b->bucket_of[i]].pending--;
	rc = launch_ready(b);
	if (rc != 0 && b->status == 0)
		b->status = rc;
	return rc;
}

/* After the first step: rebuild in rank 0's order of marks if it is not
 * the expected one. Every rank takes part (one broadcast). */
static int
maybe_rebuild(struct hc_bucketer *b)
{
	uint64_t *ord;
	size_t i;
	int rc, differs = 0;

	ord = malloc(b->n * sizeof(*ord));
	if (ord == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < b->n; i++)
		ord[i] = b->seen[i];
	rc = hc_broadcast(b->comm, ord, ord, b->n, HC_DTYPE_UINT64, 0);
	if (rc == 0) {
		for (i = 0; i < b->n; i++) {
			if (ord[i] >= b->n) {
				rc = -HC_ERR_INTERNAL;
				break;
			}
			if (ord[i] != b->order[i])
				differs = 1;
		}
	}
	if (rc == 0 && differs) {
		for (i = 0; i < b->n; i++)
			b->order[i] = (size_t)ord[i];
		rc = build(b);
		b->rebuilt = rc == 0;
		if (rc != 0)
			b->broken = rc;
	}
	free(ord);
	return rc;
}

int
hc_bucketer_wait(struct hc_bucketer *b)
{
	size_t i, k;
	int rc;

	if (b == NULL)
		return -HC_ERR_INVAL;
	if (b->broken != 0)
		return b->broken;
	for (i = 0; i < b->n; i++)
		if (!b->marked[b->order[i]])
			hc_bucketer_mark_ready(b, b->order[i]);
	for (k = 0; k < b->nbuckets; k++) {
		struct bucket *bk = &b->buckets[k];
		uint64_t off = 0;
		size_t j;

		if (bk->req == NULL)
			continue;
		rc = hc_wait(bk->req);
		bk->req = NULL;
		if (rc != 0) {
			if (b->status == 0)
				b->status = rc;
			continue;
		}
		for (j = 0; j < bk->ngrads; j++) {
			size_t g = b->order[bk->first + j];
			uint64_t len = b->counts[g] * b->esize;

			memcpy(b->bufs[g], bk->flat + off, len);
			off += len;
		}
	}
	rc = b->status;
	if (rc == 0 && b->steps == 0)
		rc = maybe_rebuild(b);
	b->steps++;
	b->status = 0;
	b->next_launch = 0;
	memset(b->marked, 0, b->n);
	for (k = 0; k < b->nbuckets; k++) {
		b->buckets[k].pending = b->buckets[k].ngrads;
		b->buckets[k].launched = 0;
	}
	return rc;
}

int
hc_bucketer_bucket_count(const struct hc_bucketer *b)
{
	return b == NULL ? -HC_ERR_INVAL : (int)b->nbuckets;
}

int
hc_bucketer_bucket_info(const struct hc_bucketer *b, size_t k,
			struct hc_bucket_info *info)
{
	if (b == NULL || info == NULL || k >= b->nbuckets)
		return -HC_ERR_INVAL;
	info->first = b->buckets[k].first;
	info->ngrads = b->buckets[k].ngrads;
	info->bytes = b->buckets[k].count * b->esize;
	info->priority = b->buckets[k].prio;
	return 0;
}

int
hc_bucketer_order(const struct hc_bucketer *b, size_t *order, size_t n)
{
	if (b == NULL || order == NULL || n != b->n)
		return -HC_ERR_INVAL;
	memcpy(order, b->order, n * sizeof(*order));
	return 0;
}

int
hc_bucketer_rebuilt(const struct hc_bucketer *b)
{
	return b == NULL ? -HC_ERR_INVAL : b->rebuilt;
}

void
hc_bucketer_free(struct hc_bucketer *b)
{
	if (b == NULL)
		return;
	free_buckets(b);
	free(b->bufs);
	free(b->counts);
	free(b->order);
	free(b->bucket_of);
	free(b->marked);
	free(b->seen);
	free(b);
}
