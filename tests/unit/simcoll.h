/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives on simulated ranks, checked: the table of collectives, one
 * collective submitted on every rank and checked on every rank against
 * apps/hc-perf/pattern.h (sc_submit, sc_finish, run_one), a simulated
 * world, and the line of totals each prints at its end (sc_report; the
 * main is cunit_main.c). Shared by test_simcoll (the matrix), test_soak
 * (C20) and test_simcases; each includes it once.
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
#include <rte_log.h>

#include "hypercomm.h"
#include "engine.h"
#include "pattern.h"
#include "sim.h"
#include "simrun.h"
#include "cunit_main.h"
#include "tune.h"

#define MAX_FAIL_LINES 20
/* Virtual time one collective may take (the biggest: all-gather of
 * 8 x 1000003 doubles, about 10 ms at 100 Gbit/s). */
#define COLL_LIMIT_NS (20 * HC_NS_PER_S)

/* ---- the table of collectives -------------------------------------- */

/* One rank's call: what a submit function of the table needs. */
struct sc_call {
	struct hc_comm *comm;
	const void *send;
	void *recv;
	uint64_t count;            /* the matrix's count */
	const uint64_t *counts;    /* blk(q) of every rank (v-variants) */
	enum hc_dtype d;
	enum hc_op op;
	int root;
	uint32_t rank, n;
	struct hc_request **req;   /* the request to complete */
	struct hc_request **req2;  /* a second one (send/recv: the send) */
};

typedef int (*submit_fn)(const struct sc_call *c);

static int
sub_allreduce(const struct sc_call *c)
{
	return hc_iallreduce(c->comm, c->send, c->recv, c->count, c->d, c->op,
			     NULL, c->req);
}

static int
sub_reduce_scatter(const struct sc_call *c)
{
	return hc_ireduce_scatter(c->comm, c->send, c->recv, c->count, c->d,
				  c->op, NULL, c->req);
}

static int
sub_allgather(const struct sc_call *c)
{
	return hc_iallgather(c->comm, c->send, c->recv, c->count, c->d, NULL,
			     c->req);
}

static int
sub_broadcast(const struct sc_call *c)
{
	return hc_ibroadcast(c->comm, c->send, c->recv, c->count, c->d,
			     c->root, NULL, c->req);
}

static int
sub_reduce(const struct sc_call *c)
{
	return hc_ireduce(c->comm, c->send, c->recv, c->count, c->d, c->op,
			  c->root, NULL, c->req);
}

static int
sub_reduce_scatterv(const struct sc_call *c)
{
	return hc_ireduce_scatterv(c->comm, c->send, c->recv, c->counts, c->d,
				   c->op, NULL, c->req);
}

static int
sub_allgatherv(const struct sc_call *c)
{
	return hc_iallgatherv(c->comm, c->send, c->recv, c->counts, NULL, c->d,
			      NULL, c->req);
}

/* A ring shift: the receive from rank - 1 is the request checked, the
 * send to rank + 1 the second one. */
static int
sub_sendrecv(const struct sc_call *c)
{
	int rc = hc_irecv(c->comm, c->recv, c->count, c->d,
			  (int)((c->rank + c->n - 1) % c->n), NULL, c->req);

	if (rc != 0)
		return rc;
	return hc_isend(c->comm, c->send, c->count, c->d,
			(int)((c->rank + 1) % c->n), NULL, c->req2);
}

/* One collective of the matrix. Rank q's block holds blk(q) elements:
 * count, or for the v-variants the profile sc_vcount(count, q). send
 * holds every block (send_n) or this rank's; recv likewise (recv_n); in
 * place one buffer holds both, this rank's block at its offset in the
 * packed blocks when the sizes differ, else both at its start. */
struct coll_kind {
	const char *name;
	enum hc_pattern_coll pat;  /* what the result must be */
	submit_fn submit;
	int reduces;           /* takes an op: 5 ops, else op sum's pattern */
	int rooted;            /* runs for several roots */
	int all_algos;         /* runs under every all-reduce algorithm */
	int send_n, recv_n;    /* 0: this rank's block, 1: every block */
	int v;                 /* blocks of per-rank sizes */
	int p2p;               /* send/recv: the result is the left
	                        * neighbour's pattern; out of place, n > 1 */
};

static const struct coll_kind colls[] = {
	/* name           pattern kind    submit  op root algos s r v p2p */
	{ "allreduce", HC_PATTERN_ALLREDUCE, sub_allreduce,
	  1, 0, 1, 0, 0, 0, 0 },
	{ "reducescatter", HC_PATTERN_REDUCE_SCATTER, sub_reduce_scatter,
	  1, 0, 0, 1, 0, 0, 0 },
	{ "allgather", HC_PATTERN_ALLGATHER, sub_allgather,
	  0, 0, 0, 0, 1, 0, 0 },
	{ "broadcast", HC_PATTERN_BROADCAST, sub_broadcast,
	  0, 1, 0, 0, 0, 0, 0 },
	{ "reduce", HC_PATTERN_REDUCE, sub_reduce,
	  1, 1, 0, 0, 0, 0, 0 },
	{ "reducescatterv", HC_PATTERN_REDUCE_SCATTER, sub_reduce_scatterv,
	  1, 0, 0, 1, 0, 1, 0 },
	{ "allgatherv", HC_PATTERN_ALLGATHER, sub_allgatherv,
	  0, 0, 0, 0, 1, 1, 0 },
	{ "sendrecv", HC_PATTERN_BROADCAST, sub_sendrecv,
	  0, 0, 0, 0, 0, 0, 1 },
};

/* Block size of rank q in the v-variants for the matrix's count c:
 * every third rank (q % 3 == 1) none, the others c + q; all 0 for c = 0. */
static inline uint64_t
sc_vcount(uint64_t c, uint32_t q)
{
	return c == 0 || q % 3 == 1 ? 0 : c + q;
}

/* The entry of colls for pattern kind k (every kind has one). */
static inline const struct coll_kind *
coll_of(enum hc_pattern_coll k)
{
	size_t i;

	for (i = 0; i < RTE_DIM(colls) && (colls[i].pat != k || colls[i].v ||
					   colls[i].p2p); i++)
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

static inline double
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

/* Rank r's send pattern for a collective of kind k: PGATH for the
 * all-gathers of the dtypes that hold it (hc_pattern_gather; it has no
 * period, so it is filled whole), else sc_fill's. */
static void
sc_fill_send(const struct coll_kind *k, void *buf, enum hc_dtype d,
	     enum hc_op op, uint64_t count, int r)
{
	if (k->pat == HC_PATTERN_ALLGATHER && hc_pattern_gather_unique(d))
		hc_pattern_fill_gather(buf, d, count, r);
	else
		sc_fill(buf, d, op, count, r);
}

/* One collective in flight on every rank: its buffers and requests. */
struct sc_job {
	struct one o;
	uint32_t n;
	uint64_t *blk, *off;   /* block of rank q: off[q], blk[q] elements */
	uint64_t total;        /* every block, packed */
	uint8_t **sbuf, **rbuf;
	void **res;            /* where each rank's result lands */
	struct hc_request **req, **req2;
	int *status, *status2;
	uint64_t t0;           /* submission, virtual ns */
};

/* Rank r's send and receive elements. */
static inline uint64_t
sc_send_len(const struct sc_job *j, uint32_t r)
{
	return j->o.k->send_n ? j->total : j->blk[r];
}

static inline uint64_t
sc_recv_len(const struct sc_job *j, uint32_t r)
{
	return j->o.k->recv_n ? j->total : j->blk[r];
}

/* What j's collective leaves, built from pattern.h as
 * hc_pattern_result_wrong defines it: the whole reduction of the packed
 * blocks for (v-)reduce-scatter (rank r's result is its block), every
 * block for (v-)all-gather, count elements otherwise; send/recv: rank r's
 * left neighbour's pattern. @return the buffer (malloc) or NULL. */
static uint8_t *
sc_expected(const struct sc_job *j, uint32_t r)
{
	const struct one *o = &j->o;
	size_t es = hc_dtype_size(o->d);
	uint64_t len = RTE_MAX(j->total, o->count), i;
	uint8_t *e = malloc(len * es + 1);
	uint32_t q;

	if (e == NULL)
		return NULL;
	if (o->k->p2p) {
		sc_fill(e, o->d, HC_OP_SUM, o->count,
			(int)((r + j->n - 1) % j->n));
		return e;
	}
	switch (o->k->pat) {
	case HC_PATTERN_ALLGATHER:
		for (q = 0; q < j->n; q++)
			sc_fill_send(o->k, e + j->off[q] * es, o->d,
				     HC_OP_SUM, j->blk[q], (int)q);
		break;
	case HC_PATTERN_BROADCAST:
		sc_fill(e, o->d, HC_OP_SUM, o->count, o->root);
		break;
	default:
		for (i = 0; i < RTE_MIN(len, (uint64_t)SC_PERIOD); i++)
			hc_pattern_store(e, o->d, i, hc_pattern_expected(o->d,
					 o->op, i, (int)j->n));
		sc_replicate(e, es, SC_PERIOD, len);
		break;
	}
	return e;
}

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
	j->blk = calloc(n, sizeof(*j->blk));
	j->off = calloc(n, sizeof(*j->off));
	j->sbuf = calloc(n, sizeof(*j->sbuf));
	j->rbuf = calloc(n, sizeof(*j->rbuf));
	j->res = calloc(n, sizeof(*j->res));
	j->req = calloc(n, sizeof(*j->req));
	j->req2 = calloc(n, sizeof(*j->req2));
	j->status = calloc(n, sizeof(*j->status));
	j->status2 = calloc(n, sizeof(*j->status2));
	j->t0 = hc_simrun_now(run);
	CU_ASSERT_FATAL(j->blk && j->off && j->sbuf && j->rbuf && j->res &&
			j->req && j->req2 && j->status && j->status2);
	j->total = 0;
	for (r = 0; r < n; r++) {
		j->blk[r] = o->k->v ? sc_vcount(o->count, r) : o->count;
		j->off[r] = j->total;
		j->total += j->blk[r];
	}
	for (r = 0; r < n; r++) {
		uint64_t sn = sc_send_len(j, r), rn = sc_recv_len(j, r);
		uint64_t big = RTE_MAX(sn, rn), off = j->off[r] * es;
		struct sc_call c = { .comm = hc_comm_world(
					hc_simrun_ctx(run, r)),
			.count = o->count, .counts = j->blk, .d = o->d,
			.op = o->op, .root = o->root, .rank = r, .n = n,
			.req = &j->req[r], .req2 = &j->req2[r] };
		uint8_t *sb, *rb;
		int sub;

		/* +1: malloc(0) may return NULL, which is fine for count 0
		 * but not for the in-place pointer arithmetic. */
		sb = j->sbuf[r] = malloc(o->in_place ? 1 : big * es + 1);
		rb = j->rbuf[r] = malloc(big * es + 1);
		CU_ASSERT_FATAL(sb != NULL && rb != NULL);
		memset(rb, 0xa5, big * es);
		if (o->in_place && sn > rn) {          /* reduce-scatter */
			sc_fill_send(o->k, rb, o->d, fill_op, sn, (int)r);
			c.send = rb;
			c.recv = rb + off;
		} else if (o->in_place && rn > sn) {   /* all-gather */
			sc_fill_send(o->k, rb + off, o->d, fill_op, sn, (int)r);
			c.send = rb + off;
			c.recv = rb;
		} else if (o->in_place) {
			sc_fill_send(o->k, rb, o->d, fill_op, sn, (int)r);
			c.send = rb;
			c.recv = rb;
		} else {
			sc_fill_send(o->k, sb, o->d, fill_op, sn, (int)r);
			c.send = sb;
			c.recv = rb;
		}
		j->res[r] = c.recv;
		sub = o->k->submit(&c);
		if (sub != 0)
			j->status[r] = sub;
	}
}

/* Step until j completed on every rank, check every rank's result, count
 * and print what is wrong, free j's buffers. @return 0 when exact on every
 * rank, else -1. */
static int
sc_finish(struct hc_simrun *run, struct sc_job *j)
{
	const struct one *o = &j->o;
	size_t es = hc_dtype_size(o->d);
	uint8_t *want = o->k->p2p ? NULL : sc_expected(j, 0);
	uint64_t wrong = 0;
	uint32_t r;
	int rc, rc2, bad = 0;

	CU_ASSERT_FATAL(want != NULL || o->k->p2p);
	rc = hc_simrun_wait(run, j->req, j->status, NULL, COLL_LIMIT_NS);
	rc2 = hc_simrun_wait(run, j->req2, j->status2, NULL, COLL_LIMIT_NS);
	rc = rc != 0 ? rc : rc2;
	for (r = 0; r < j->n; r++) {
		int rs = o->k->pat == HC_PATTERN_REDUCE_SCATTER;
		uint64_t off = rs ? j->off[r] : 0;
		uint64_t len = o->k->pat == HC_PATTERN_ALLGATHER ? j->total :
			       rs ? j->blk[r] : o->count, i;
		const uint8_t *w;

		if (j->status[r] != 0 || j->req[r] != NULL ||
		    j->status2[r] != 0 || j->req2[r] != NULL) {
			bad++;
			continue;
		}
		if (o->k->pat == HC_PATTERN_REDUCE && (int)r != o->root)
			continue; /* no result there */
		if (o->k->p2p) {
			free(want);
			want = sc_expected(j, r);
			CU_ASSERT_FATAL(want != NULL);
		}
		/* Equal bytes are equal values: the patterns hold no NaN
		 * and no -0; on a difference, count elements by value. */
		w = want + off * es;
		if (memcmp(j->res[r], w, len * es) != 0)
			for (i = 0; i < len; i++)
				wrong += hc_pattern_load(j->res[r], o->d, i) !=
					 hc_pattern_load(w, o->d, i);
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
	free(j->blk);
	free(j->off);
	free(j->sbuf);
	free(j->rbuf);
	free(j->res);
	free(j->req);
	free(j->req2);
	free(j->status);
	free(j->status2);
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
 * two-tier network with leaves of g hosts when 1 < g < n divides n;
 * [net] mtu mtu (0: the default, 1500); [coll] precision prec (negative:
 * the default, fp32). */
static struct hc_simrun *
world_conf(uint32_t n, enum hc_algo_id algo, uint32_t g, uint32_t mtu,
	   int prec)
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
	cfg.port.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	cfg.coll.algo = algo;
	if (mtu != 0)
		cfg.port.mtu = mtu;
	if (prec >= 0)
		cfg.coll.precision = (enum hc_precision)prec;
	for (r = 0; g != 0 && r < n; r++)
		cfg.ranks[r].group = r / g;
	rc.cfg = &cfg;
	e = hc_simrun_create(&rc, &run);
	hc_config_free(&cfg);
	CU_ASSERT_FATAL(e == 0);
	return run;
}

/* world_conf at the default precision. */
static inline struct hc_simrun *
world_mtu(uint32_t n, enum hc_algo_id algo, uint32_t g, uint32_t mtu)
{
	return world_conf(n, algo, g, mtu, -1);
}

/* world_mtu at the default MTU. */
static inline struct hc_simrun *
world(uint32_t n, enum hc_algo_id algo, uint32_t g)
{
	return world_mtu(n, algo, g, 0);
}

/* The report of a binary of collectives on simulated ranks (its
 * cunit_bin.report): one line `what: totals`, with the process's wall time
 * (s). */
static inline void
sc_report(const char *what, double wall_s)
{
	printf("\n%s: %" PRIu64 " collectives, %" PRIu64 " result elements "
	       "checked, %" PRIu64 " failed; wall %.1f s\n", what, totals.runs,
	       totals.checked, totals.failed, wall_s);
}

#endif /* HC_TESTS_UNIT_SIMCOLL_H */
