/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives on simulated ranks, checked: the table of collectives, one
 * collective submitted on every rank and checked on every rank against
 * apps/hc-perf/pattern.h (sc_submit, sc_finish, run_one), a simulated
 * world. Shared by test_simcoll (the matrix) and test_soak (C20); each
 * includes it once.
 */
#ifndef HC_TESTS_UNIT_SIMCOLL_H
#define HC_TESTS_UNIT_SIMCOLL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>

#include "hypercomm.h"
#include "engine.h"
#include "pattern.h"
#include "sim.h"
#include "simrun.h"
#include "tune.h"

#define MAX_FAIL_LINES 20
/* Virtual time one collective may take (the biggest: all-gather of
 * 8 x 1000003 doubles, about 10 ms at 100 Gbit/s). */
#define COLL_LIMIT_NS (20 * HC_NS_PER_S)

/* ---- the table of collectives -------------------------------------- */

typedef int (*submit_fn)(struct hc_comm *c, const void *s, void *r,
			 uint64_t count, enum hc_dtype d, enum hc_op op,
			 int root, struct hc_request **req);

static int
sub_allreduce(struct hc_comm *c, const void *s, void *r, uint64_t count,
	      enum hc_dtype d, enum hc_op op, int root,
	      struct hc_request **req)
{
	(void)root;
	return hc_iallreduce(c, s, r, count, d, op, NULL, req);
}

static int
sub_reduce_scatter(struct hc_comm *c, const void *s, void *r, uint64_t count,
		   enum hc_dtype d, enum hc_op op, int root,
		   struct hc_request **req)
{
	(void)root;
	return hc_ireduce_scatter(c, s, r, count, d, op, NULL, req);
}

static int
sub_allgather(struct hc_comm *c, const void *s, void *r, uint64_t count,
	      enum hc_dtype d, enum hc_op op, int root,
	      struct hc_request **req)
{
	(void)op;
	(void)root;
	return hc_iallgather(c, s, r, count, d, NULL, req);
}

static int
sub_broadcast(struct hc_comm *c, const void *s, void *r, uint64_t count,
	      enum hc_dtype d, enum hc_op op, int root,
	      struct hc_request **req)
{
	(void)op;
	return hc_ibroadcast(c, s, r, count, d, root, NULL, req);
}

static int
sub_reduce(struct hc_comm *c, const void *s, void *r, uint64_t count,
	   enum hc_dtype d, enum hc_op op, int root, struct hc_request **req)
{
	return hc_ireduce(c, s, r, count, d, op, root, NULL, req);
}

/* One collective of the matrix. Buffers, for count elements per rank:
 * send holds send_n (1 or n) x count elements, recv recv_n x count; in
 * place one buffer of the larger size, the smaller part at block `rank`
 * when the sizes differ, else both at its start. */
struct coll_kind {
	const char *name;
	enum hc_pattern_coll pat;
	submit_fn submit;
	int reduces;           /* takes an op: 5 ops, else op sum's pattern */
	int rooted;            /* runs for several roots */
	int all_algos;         /* runs under every all-reduce algorithm */
	int send_n, recv_n;    /* 0: 1 block, 1: n blocks */
};

static const struct coll_kind colls[] = {
	{ "allreduce", HC_PATTERN_ALLREDUCE, sub_allreduce, 1, 0, 1, 0, 0 },
	{ "reducescatter", HC_PATTERN_REDUCE_SCATTER, sub_reduce_scatter,
	  1, 0, 0, 1, 0 },
	{ "allgather", HC_PATTERN_ALLGATHER, sub_allgather, 0, 0, 0, 0, 1 },
	{ "broadcast", HC_PATTERN_BROADCAST, sub_broadcast, 0, 1, 0, 0, 0 },
	{ "reduce", HC_PATTERN_REDUCE, sub_reduce, 1, 1, 0, 0, 0 },
};

/* The entry of colls for pattern kind k (every kind has one). */
static inline const struct coll_kind *
coll_of(enum hc_pattern_coll k)
{
	size_t i;

	for (i = 0; i < RTE_DIM(colls) && colls[i].pat != k; i++)
		;
	return &colls[i < RTE_DIM(colls) ? i : 0];
}

static const enum hc_dtype dtypes[] = {
	HC_DTYPE_INT8, HC_DTYPE_UINT8, HC_DTYPE_INT32, HC_DTYPE_UINT32,
	HC_DTYPE_INT64, HC_DTYPE_UINT64, HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16,
	HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT64,
};
static const enum hc_op ops[] = {
	HC_OP_SUM, HC_OP_PROD, HC_OP_MIN, HC_OP_MAX, HC_OP_AVG,
};

/* ---- running one collective on every rank --------------------------- */

struct matrix_stats {
	uint64_t runs;         /* collectives run on every rank */
	uint64_t checked;      /* result elements compared, every rank */
	uint64_t failed;       /* collectives with a wrong element or error */
	double wall_s;
	uint64_t vtime_ns;
};

static struct matrix_stats totals;

struct one {
	const struct coll_kind *k;
	enum hc_algo_id algo;
	uint64_t count;
	enum hc_dtype d;
	enum hc_op op;
	int in_place;
	int root;
};

static double
clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every pattern of pattern.h repeats with period 1024 in the element
 * index (P32: i % 1024, P16: i % 4, PPROD: i % 2). */
#define SC_PERIOD 1024

/* Repeat the first `have` elements of buf (es bytes each) up to count. */
static void
sc_replicate(uint8_t *buf, size_t es, uint64_t have, uint64_t count)
{
	while (have < count) {
		uint64_t k = RTE_MIN(have, count - have);

		memcpy(buf + have * es, buf, k * es);
		have += k;
	}
}

/* hc_pattern_fill, one period computed and the rest copied. */
static void
sc_fill(void *buf, enum hc_dtype d, enum hc_op op, uint64_t count, int r)
{
	hc_pattern_fill(buf, d, op, RTE_MIN(count, (uint64_t)SC_PERIOD), r);
	sc_replicate(buf, hc_dtype_size(d), SC_PERIOD, count);
}

/* What collective k leaves over n ranks, built from pattern.h as
 * hc_pattern_result_wrong defines it: the whole n * count reduction for
 * reduce-scatter (rank r's result is block r), n blocks for all-gather,
 * count elements otherwise. @return the buffer (malloc) or NULL. */
static uint8_t *
sc_expected(const struct one *o, uint32_t n, uint64_t len)
{
	size_t es = hc_dtype_size(o->d);
	uint8_t *e = malloc(len * es + 1);
	uint64_t i, q;

	if (e == NULL)
		return NULL;
	switch (o->k->pat) {
	case HC_PATTERN_ALLGATHER:
		for (q = 0; q < n; q++)
			sc_fill(e + q * o->count * es, o->d, HC_OP_SUM,
				o->count, (int)q);
		break;
	case HC_PATTERN_BROADCAST:
		sc_fill(e, o->d, HC_OP_SUM, len, o->root);
		break;
	default:
		for (i = 0; i < RTE_MIN(len, (uint64_t)SC_PERIOD); i++)
			hc_pattern_store(e, o->d, i, hc_pattern_expected(o->d,
					 o->op, i, (int)n));
		sc_replicate(e, es, SC_PERIOD, len);
		break;
	}
	return e;
}

/* One collective in flight on every rank: its buffers and requests. */
struct sc_job {
	struct one o;
	uint32_t n;
	uint64_t sn, rn;       /* send and receive elements per rank */
	uint8_t **sbuf, **rbuf;
	void **res;            /* where each rank's result lands */
	struct hc_request **req;
	int *status;
	uint64_t t0;           /* submission, virtual ns */
};

/* Fill every rank's buffers for j->o and submit it on every rank, in rank
 * order; a refused submission is stored as that rank's status. */
static void
sc_submit(struct hc_simrun *run, struct sc_job *j)
{
	const struct one *o = &j->o;
	uint32_t n = run->ranks, r;
	size_t es = hc_dtype_size(o->d);
	enum hc_op fill_op = o->k->reduces ? o->op : HC_OP_SUM;

	j->n = n;
	j->sn = o->count * (o->k->send_n ? n : 1);
	j->rn = o->count * (o->k->recv_n ? n : 1);
	j->sbuf = calloc(n, sizeof(*j->sbuf));
	j->rbuf = calloc(n, sizeof(*j->rbuf));
	j->res = calloc(n, sizeof(*j->res));
	j->req = calloc(n, sizeof(*j->req));
	j->status = calloc(n, sizeof(*j->status));
	j->t0 = hc_simrun_now(run);
	CU_ASSERT_FATAL(j->sbuf && j->rbuf && j->res && j->req && j->status);
	for (r = 0; r < n; r++) {
		uint64_t big = RTE_MAX(j->sn, j->rn);
		uint64_t off = (uint64_t)r * o->count * es;
		uint8_t *sb, *rb;
		const void *s;
		int sub;

		/* +1: malloc(0) may return NULL, which is fine for count 0
		 * but not for the in-place pointer arithmetic. */
		sb = j->sbuf[r] = malloc(o->in_place ? 1 : big * es + 1);
		rb = j->rbuf[r] = malloc(big * es + 1);
		CU_ASSERT_FATAL(sb != NULL && rb != NULL);
		memset(rb, 0xa5, big * es);
		if (o->in_place && j->sn > j->rn) {         /* reduce-scatter */
			sc_fill(rb, o->d, fill_op, j->sn, (int)r);
			s = rb;
			j->res[r] = rb + off;
		} else if (o->in_place && j->rn > j->sn) {  /* all-gather */
			sc_fill(rb + off, o->d, fill_op, o->count,
					(int)r);
			s = rb + off;
			j->res[r] = rb;
		} else if (o->in_place) {
			sc_fill(rb, o->d, fill_op, j->sn, (int)r);
			s = rb;
			j->res[r] = rb;
		} else {
			sc_fill(sb, o->d, fill_op, j->sn, (int)r);
			s = sb;
			j->res[r] = rb;
		}
		sub = o->k->submit(hc_comm_world(hc_simrun_ctx(run, r)), s,
				   j->res[r], o->count, o->d, o->op, o->root,
				   &j->req[r]);
		if (sub != 0) {
			j->status[r] = sub;
			j->req[r] = NULL;
		}
	}
}

/* Step until j completed on every rank, check every rank's result, count
 * and print what is wrong, free j's buffers. @return 0 when exact on every
 * rank, else -1. */
static int
sc_finish(struct hc_simrun *run, struct sc_job *j)
{
	const struct one *o = &j->o;
	uint8_t *want = sc_expected(o, j->n, RTE_MAX(j->sn, j->rn));
	size_t es = hc_dtype_size(o->d);
	uint64_t wrong = 0;
	uint32_t r;
	int rc, bad = 0;

	CU_ASSERT_FATAL(want != NULL);
	rc = hc_simrun_wait(run, j->req, j->status, NULL, COLL_LIMIT_NS);
	for (r = 0; r < j->n; r++) {
		uint64_t off = o->k->pat == HC_PATTERN_REDUCE_SCATTER ?
			       (uint64_t)r * o->count : 0;
		uint64_t len = o->k->pat == HC_PATTERN_ALLGATHER ? j->rn :
			       o->count;

		if (j->status[r] != 0 || j->req[r] != NULL) {
			bad++;
			continue;
		}
		if (o->k->pat == HC_PATTERN_REDUCE && (int)r != o->root)
			continue; /* no result there */
		/* Equal bytes are equal values: the patterns hold no NaN
		 * and no -0; on a difference, count elements by value. */
		if (memcmp(j->res[r], want + off * es, len * es) != 0)
			wrong += hc_pattern_result_wrong(o->k->pat, j->res[r],
				o->d, o->k->reduces ? o->op : HC_OP_SUM,
				o->count, (int)j->n, (int)r, o->root);
		totals.checked += len;
	}
	free(want);
	totals.runs++;
	totals.vtime_ns += hc_simrun_now(run) - j->t0;
	if ((rc != 0 || bad != 0 || wrong != 0) &&
	    totals.failed++ < MAX_FAIL_LINES)
		printf("\n    FAIL %s algo %s n=%u count=%" PRIu64 " dtype %d "
		       "op %d %s root %d: wait %d, %d ranks failed (rank 0: "
		       "%d), %" PRIu64 " wrong", o->k->name,
		       hc_algo_id_name(o->algo), j->n, o->count, o->d, o->op,
		       o->in_place ? "in place" : "out of place", o->root, rc,
		       bad, j->status[0], wrong);
	for (r = 0; r < j->n; r++) {
		free(j->sbuf[r]);
		free(j->rbuf[r]);
	}
	free(j->sbuf);
	free(j->rbuf);
	free(j->res);
	free(j->req);
	free(j->status);
	return rc == 0 && bad == 0 && wrong == 0 ? 0 : -1;
}

/* Run o on every rank of run and check it (CUnit assertion). */
static inline void
run_one(struct hc_simrun *run, const struct one *o)
{
	struct sc_job j = { .o = *o };

	sc_submit(run, &j);
	CU_ASSERT(sc_finish(run, &j) == 0);
}

/* ---- runs: one simulated world per (n, algorithm) ------------------- */

/* n ranks with all-reduce algorithm algo (HC_ALGO_AUTO: the tuner's pick)
 * in groups of g ranks (rank r in group r / g; 0: one group of all, as
 * hc_config_defaults), star at 100 Gbit/s and 1 us, 1 MiB queues; a
 * two-tier network with leaves of g hosts when 1 < g < n divides n. */
static struct hc_simrun *
world(uint32_t n, enum hc_algo_id algo, uint32_t g)
{
	struct hc_sim_link_conf link = { .rate_gbps = 100, .prop_ns = 1000,
					 .queue_bytes = 1 << 20 };
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = n,
			 .host_link = link },
		.seed = 1,
	};
	struct hc_simrun *run = NULL;
	struct hc_config cfg;
	uint32_t r;
	int e;

	if (g > 1 && n % g == 0 && g < n) {
		rc.net.topo = HC_SIM_TOPO_TWO_TIER;
		rc.net.group = g;
		rc.net.fabric_link = link;
	}
	CU_ASSERT_FATAL(hc_config_defaults(&cfg, n) == 0);
	cfg.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	cfg.algo = algo;
	for (r = 0; g != 0 && r < n; r++)
		cfg.ranks[r].group = r / g;
	rc.cfg = &cfg;
	e = hc_simrun_create(&rc, &run);
	hc_config_free(&cfg);
	CU_ASSERT_FATAL(e == 0);
	return run;
}

#endif /* HC_TESTS_UNIT_SIMCOLL_H */
