/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-check suites of requests in flight, communicators and application
 * threads: async, async2, split.
 * main and its table of suites are in hc-check.c; check.h holds what
 * the files share.
 */
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "pattern.h"
#include "check.h"

/* 64 all-reduces in flight at once, of different sizes and types and
 * of every priority class in turn (so classes overtake each other inside
 * each flow), then waited for together; each exact. */
void
suite_async(void)
{
	enum { NREQ = 64 };
	static const enum hc_priority prio[4] = { HC_PRIO_DEFAULT,
		HC_PRIO_CRITICAL, HC_PRIO_NORMAL, HC_PRIO_BULK };
	struct hc_request *req[NREQ];
	struct hc_op_opts opts = { HC_PRIO_DEFAULT, 0 };
	struct hc_stats s0, s1;
	void *buf[NREQ];
	uint64_t count[NREQ];
	int st[NREQ], i, bad = 0, rc;
	char why[160] = "";

	hc_stats_get(ctx, &s0);
	for (i = 0; i < NREQ; i++) {
		enum hc_dtype d = (enum hc_dtype)(i % HC_DTYPE__MAX);

		count[i] = 1 + (uint64_t)i * 977;
		buf[i] = malloc(count[i] * hc_dtype_size(d));
		hc_pattern_fill(buf[i], d, HC_OP_SUM, count[i], rank);
		opts.priority = prio[i % 4];
		rc = hc_iallreduce(comm, buf[i], buf[i], count[i], d, HC_OP_SUM,
				   &opts, &req[i]);
		if (rc != 0) {
			snprintf(why, sizeof(why), "hc_iallreduce %d: %s", i,
				 hc_strerror(rc));
			verdict("async: 64 requests submitted", 0, why);
			exit(1);
		}
	}
	rc = hc_wait_all(req, NREQ, st);
	for (i = 0; i < NREQ; i++) {
		enum hc_dtype d = (enum hc_dtype)(i % HC_DTYPE__MAX);

		if (st[i] != 0 || hc_pattern_wrong(buf[i], d, HC_OP_SUM,
						   count[i], nranks) != 0) {
			bad++;
			snprintf(why, sizeof(why), "request %d (%s, %" PRIu64
				 " elements): %s", i, hc_dtype_name(d), count[i],
				 st[i] != 0 ? hc_strerror(st[i]) : "wrong data");
		}
		free(buf[i]);
	}
	verdict("async: 64 all-reduces in flight, hc_wait_all, all exact",
		rc == 0 && bad == 0, why);
	verdict("async: hc_wait_all set every request to NULL",
		req[0] == NULL && req[NREQ - 1] == NULL, "request left");
	hc_stats_get(ctx, &s1);
	snprintf(why, sizeof(why), "DATA sent critical %" PRIu64 " normal %"
		 PRIu64 " bulk %" PRIu64,
		 s1.hct_data_tx_class[HC_PRIO_CRITICAL] -
		 s0.hct_data_tx_class[HC_PRIO_CRITICAL],
		 s1.hct_data_tx_class[HC_PRIO_NORMAL] -
		 s0.hct_data_tx_class[HC_PRIO_NORMAL],
		 s1.hct_data_tx_class[HC_PRIO_BULK] -
		 s0.hct_data_tx_class[HC_PRIO_BULK]);
	verdict("async: DATA of the critical, normal and bulk classes sent",
		s1.hct_data_tx_class[HC_PRIO_CRITICAL] >
		s0.hct_data_tx_class[HC_PRIO_CRITICAL] &&
		s1.hct_data_tx_class[HC_PRIO_NORMAL] >
		s0.hct_data_tx_class[HC_PRIO_NORMAL] &&
		s1.hct_data_tx_class[HC_PRIO_BULK] >
		s0.hct_data_tx_class[HC_PRIO_BULK], why);
}

/* Sum over sub-communicator members of a known value: exact check. */
static int
check_sum_on(struct hc_comm *c, int64_t mine, int64_t want, char *why,
	     size_t wlen)
{
	int64_t x[1000];
	int i, rc;

	for (i = 0; i < 1000; i++)
		x[i] = mine + i;
	rc = hc_allreduce(c, x, x, 1000, HC_DTYPE_INT64, HC_OP_SUM);
	for (i = 0; i < 1000 && rc == 0; i++)
		if (x[i] != want + (int64_t)hc_comm_size(c) * i) {
			snprintf(why, wlen, "element %d: %" PRId64 ", want %" PRId64,
				 i, x[i], want + (int64_t)hc_comm_size(c) * i);
			return 0;
		}
	if (rc != 0)
		snprintf(why, wlen, "%s", hc_strerror(rc));
	return rc == 0;
}

struct thread_arg {
	struct hc_comm *comm;
	int ok;
	char why[160];
};

static void *
thread_main(void *p)
{
	struct thread_arg *a = p;
	int i;

	a->ok = 1;
	for (i = 0; i < 16 && a->ok; i++)
		a->ok = check_sum_on(a->comm, rank, (int64_t)nranks *
				     (nranks - 1) / 2, a->why, sizeof(a->why));
	return NULL;
}

/* hc_comm_split: parity split with reversed keys, NONE, 64 requests in
 * flight over two communicators, and 4 application threads at once,
 * each on its own communicator. */
void
suite_split(void)
{
	struct hc_comm *half = NULL, *none = NULL, *dup = NULL, *tc[4];
	struct hc_request *req[64];
	struct thread_arg ta[4];
	pthread_t th[4];
	int64_t want = 0, bufs[64][100];
	int rc, q, i, ok, st[64];
	char why[160] = "";

	rc = hc_comm_split(comm, rank % 2, -rank, &half);
	ok = rc == 0 && half != NULL &&
	     hc_comm_size(half) == (nranks + (rank % 2 == 0)) / 2;
	/* keys reversed: the highest world rank of a parity is rank 0 */
	for (q = rank + 2, i = 0; q < nranks; q += 2)
		i++;
	ok = ok && hc_comm_rank(half) == i;
	snprintf(why, sizeof(why), "rc %s, size %d rank %d", hc_strerror(rc),
		 half != NULL ? hc_comm_size(half) : -1,
		 half != NULL ? hc_comm_rank(half) : -1);
	if (!verdict("split: parity, reversed keys: sizes and ranks", ok, why))
		return;
	for (q = rank % 2; q < nranks; q += 2)
		want += q;
	verdict("split: all-reduce on each half is the sum of its members",
		check_sum_on(half, rank, want, why, sizeof(why)), why);
	rc = hc_comm_split(comm, rank == 0 ? HC_COMM_SPLIT_NONE : 7, 0, &none);
	verdict("split: HC_COMM_SPLIT_NONE gives NULL, the others a comm",
		rc == 0 && (rank == 0 ? none == NULL : none != NULL &&
			    hc_comm_size(none) == nranks - 1), hc_strerror(rc));
	rc = hc_comm_split(comm, 0, rank, &dup);
	if (!verdict("split: a duplicate of the world", rc == 0 && dup != NULL &&
		     hc_comm_rank(dup) == rank, hc_strerror(rc)))
		return;
	for (i = 0; i < 64; i++) {
		for (q = 0; q < 100; q++)
			bufs[i][q] = rank + q + i;
		rc = hc_iallreduce(i % 2 ? dup : comm, bufs[i], bufs[i], 100,
				   HC_DTYPE_INT64, HC_OP_SUM, NULL, &req[i]);
		if (rc != 0)
			break;
	}
	ok = rc == 0 && hc_wait_all(req, 64, st) == 0;
	for (i = 0; i < 64 && ok; i++)
		for (q = 0; q < 100; q++)
			ok = ok && bufs[i][q] == (int64_t)nranks * (nranks - 1) / 2 +
			     (int64_t)nranks * (q + i);
	verdict("async: 64 requests over 2 communicators, exact", ok,
		hc_strerror(rc));
	for (i = 0; i < 4; i++) {
		rc = hc_comm_split(comm, 0, rank, &tc[i]);
		if (rc != 0)
			break;
	}
	if (!verdict("split: 4 more communicators", rc == 0, hc_strerror(rc)))
		return;
	for (i = 0; i < 4; i++) {
		ta[i].comm = tc[i];
		ta[i].why[0] = '\0';
		pthread_create(&th[i], NULL, thread_main, &ta[i]);
	}
	for (i = 0, ok = 1; i < 4; i++) {
		pthread_join(th[i], NULL);
		if (!ta[i].ok) {
			ok = 0;
			snprintf(why, sizeof(why), "thread %d: %s", i, ta[i].why);
		}
	}
	verdict("async: 4 application threads, each 16 all-reduces on its own "
		"communicator, at once", ok, why);
}

/* One request of the mixed async suites: kind k of 7 on communicator c,
 * variant i; its buffers, and what to expect. */
struct aslot {
	int kind, i, n, me;
	int64_t *a, *b;        /* send (or in-place) and receive buffers */
	uint64_t counts[64];
	uint64_t len;          /* elements to check in b (or a) */
};

enum { AS_ALLREDUCE, AS_RSV, AS_AGV, AS_BCAST, AS_REDUCE, AS_P2P, AS__MAX };

/* Expected element j of slot s's result at this rank; -1: unchecked. */
static int64_t
aslot_want(const struct aslot *s, uint64_t j)
{
	int64_t n = s->n, tri = n * (n - 1) / 2;
	uint64_t off = 0, q = 0;

	switch (s->kind) {
	case AS_ALLREDUCE:
		return tri + n * (int64_t)(j + s->i);
	case AS_RSV:
		for (q = 0; q < (uint64_t)s->me; q++)
			off += s->counts[q];
		return tri + n * (int64_t)(off + j);
	case AS_AGV:
		while (j >= s->counts[q])
			j -= s->counts[q++];
		return (int64_t)q * 1000 + (int64_t)j;
	case AS_BCAST:
		return (s->i % n) * 7 + (int64_t)j + s->i;
	case AS_REDUCE:
		return s->me == s->i % n ? tri + n * (int64_t)(j + s->i) : -1;
	default: /* p2p from the left */
		return ((s->me + n - 1) % n) * 100 + (int64_t)j + s->i;
	}
}

/* Submit slot s (kind, i already set) on c: one request, two for p2p. */
static int
aslot_submit(struct hc_comm *c, struct aslot *s, struct hc_request **req,
	     int *nreq)
{
	uint64_t j, total = 0, base = 200 + (uint64_t)s->i * 37;
	int q, n = s->n = hc_comm_size(c), me = s->me = hc_comm_rank(c);
	int rc;

	for (q = 0; q < n && q < 64; q++) {
		s->counts[q] = (uint64_t)(q + s->i) % 5 == 0 ? 0 :
			       base + (uint64_t)q * 11;
		total += s->counts[q];
	}
	s->len = s->kind == AS_RSV ? s->counts[me] :
		 s->kind == AS_AGV ? total : base;
	s->a = calloc(total + base + 1, sizeof(int64_t));
	s->b = calloc(total + base + 1, sizeof(int64_t));
	for (j = 0; j < total + base; j++)
		s->a[j] = s->kind == AS_RSV ? me + (int64_t)j :
			  s->kind == AS_AGV ? me * 1000 + (int64_t)j :
			  s->kind == AS_BCAST ? (me == s->i % n ?
				me * 7 + (int64_t)j + s->i : 0) :
			  s->kind == AS_P2P ? me * 100 + (int64_t)j + s->i :
			  me + (int64_t)j + s->i;
	switch (s->kind) {
	case AS_ALLREDUCE:
		rc = hc_iallreduce(c, s->a, s->b, base, HC_DTYPE_INT64,
				   HC_OP_SUM, NULL, &req[(*nreq)++]);
		break;
	case AS_RSV:
		rc = hc_ireduce_scatterv(c, s->a, s->b, s->counts,
					 HC_DTYPE_INT64, HC_OP_SUM, NULL,
					 &req[(*nreq)++]);
		break;
	case AS_AGV:
		rc = hc_iallgatherv(c, s->a, s->b, s->counts, NULL,
				    HC_DTYPE_INT64, NULL, &req[(*nreq)++]);
		break;
	case AS_BCAST:
		rc = hc_ibroadcast(c, s->a, s->b, base, HC_DTYPE_INT64,
				   s->i % n, NULL, &req[(*nreq)++]);
		break;
	case AS_REDUCE:
		rc = hc_ireduce(c, s->a, s->b, base, HC_DTYPE_INT64, HC_OP_SUM,
				s->i % n, NULL, &req[(*nreq)++]);
		break;
	default:
		if (n == 1) /* no peer: an all-reduce stands in */
			return hc_iallreduce(c, s->a, s->b, 0, HC_DTYPE_INT64,
					     HC_OP_SUM, NULL, &req[(*nreq)++]);
		rc = hc_irecv(c, s->b, base, HC_DTYPE_INT64, (me + n - 1) % n,
			      NULL, &req[(*nreq)++]);
		if (rc == 0)
			rc = hc_isend(c, s->a, base, HC_DTYPE_INT64,
				      (me + 1) % n, NULL, &req[(*nreq)++]);
		break;
	}
	return rc;
}

/* Check slot s's result and free its buffers. @return wrong elements. */
static uint64_t
aslot_check(struct aslot *s)
{
	uint64_t j, wrong = 0;

	for (j = 0; j < s->len && !(s->kind == AS_P2P && s->n == 1); j++) {
		int64_t want = aslot_want(s, j);

		wrong += want >= 0 && s->b[j] != want;
	}
	free(s->a);
	free(s->b);
	return wrong;
}

/* async2: 64 requests of six kinds (all-reduce, reduce-scatterv,
 * all-gatherv, broadcast, reduce, send/receive) in flight at once over
 * two communicators, then waited for together; and 4 application threads
 * at once, each driving its own communicator through 24 requests of all
 * kinds, 8 in flight at a time. Every result exact. */
struct athread {
	struct hc_comm *c;
	uint64_t wrong;
	int rc;
};

static void *
athread_main(void *p)
{
	struct athread *t = p;
	struct aslot sl[8];
	struct hc_request *req[16];
	int round, k, nreq, rc;

	t->wrong = 0;
	t->rc = 0;
	for (round = 0; round < 3 && t->rc == 0; round++) {
		nreq = 0;
		for (k = 0, rc = 0; k < 8 && rc == 0; k++) {
			sl[k].kind = (k + round) % AS__MAX;
			sl[k].i = round * 8 + k;
			rc = aslot_submit(t->c, &sl[k], req, &nreq);
		}
		if (rc == 0)
			rc = hc_wait_all(req, nreq, NULL);
		for (nreq = 0; nreq < k; nreq++)
			t->wrong += aslot_check(&sl[nreq]);
		t->rc = rc;
	}
	return NULL;
}

void
suite_async2(void)
{
	enum { NSLOT = 54 }; /* 9 of 6 kinds; p2p takes 2: 63 requests */
	struct aslot sl[NSLOT];
	struct hc_request *req[2 * NSLOT];
	struct hc_comm *dup = NULL, *tc[4];
	struct athread ta[4];
	pthread_t th[4];
	uint64_t wrong = 0;
	int k, nreq = 0, rc, ok;
	char why[160] = "";

	rc = hc_comm_split(comm, 0, rank, &dup);
	if (!verdict("async2: a second communicator", rc == 0,
		     hc_strerror(rc)))
		return;
	for (k = 0, rc = 0; k < NSLOT && rc == 0; k++) {
		sl[k].kind = k % AS__MAX;
		sl[k].i = k;
		rc = aslot_submit(k % 2 ? dup : comm, &sl[k], req, &nreq);
	}
	/* one more all-reduce: 64 in flight */
	{
		int64_t one[4] = { rank, rank, rank, rank };

		if (rc == 0)
			rc = hc_iallreduce(dup, one, one, 4, HC_DTYPE_INT64,
					   HC_OP_SUM, NULL, &req[nreq++]);
		if (rc == 0)
			rc = hc_wait_all(req, nreq, NULL);
		for (int q = 0; q < k; q++)
			wrong += aslot_check(&sl[q]);
		wrong += rc == 0 && one[3] != (int64_t)nranks * (nranks - 1) / 2;
	}
	snprintf(why, sizeof(why), "%s, %" PRIu64 " wrong elements",
		 hc_strerror(rc), wrong);
	verdict("async2: 64 requests of 6 kinds over 2 communicators in "
		"flight, exact", rc == 0 && wrong == 0 &&
		nreq == 64 - (nranks == 1 ? NSLOT / AS__MAX : 0), why);
	for (k = 0, rc = 0; k < 4 && rc == 0; k++)
		rc = hc_comm_split(comm, 0, rank, &tc[k]);
	if (!verdict("async2: 4 more communicators", rc == 0, hc_strerror(rc)))
		return;
	for (k = 0; k < 4; k++) {
		ta[k].c = tc[k];
		pthread_create(&th[k], NULL, athread_main, &ta[k]);
	}
	for (k = 0, ok = 1; k < 4; k++) {
		pthread_join(th[k], NULL);
		if (ta[k].rc != 0 || ta[k].wrong != 0) {
			ok = 0;
			snprintf(why, sizeof(why), "thread %d: %s, %" PRIu64
				 " wrong", k, hc_strerror(ta[k].rc),
				 ta[k].wrong);
		}
	}
	verdict("async2: 4 application threads at once, 24 requests of 6 "
		"kinds each on its own communicator, exact", ok, why);
}
