/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_simcoll: the collective matrix of issue 4 on simulated ranks
 * (stack/core/simrun.h), every result checked element by element on every
 * rank against the patterns of shared/cases/CASES.md (apps/hc-perf/
 * pattern.h, hc_pattern_result_wrong).
 *
 * The matrix: every collective of the table `colls` x algorithm (the
 * all-reduce's ring, tree, hd, hier; the others have one) x n in
 * {1, 2, 3, 4, 5, 7, 8} x count x dtype (10) x op (5, for the collectives
 * that reduce) x placement (in place, out of place) x root (rooted
 * collectives: every root for n <= 4, roots 0, 1 and n-1 above).
 * The reduction that keeps the wall time near a minute on 2 cores:
 *   counts {0, 1, n-1, n+1} (duplicates dropped) run the full cross
 *   product above;
 *   count 1000003 runs once per (collective, algorithm, n, dtype), with
 *   op sum (no op for all-gather and broadcast), out of place, root n-1.
 * Barrier: per n, no rank completes while one rank has not entered it
 * (1 ms of virtual time), then all complete.
 * Hier runs on a two-tier network whose leaves are its groups: n = 4 in
 * groups of 2, n = 8 in groups of 4; for n = 1, 2, 3, 5, 7 only groups of
 * one rank each are equal (hier is then halving-doubling), and groups of
 * 2 with a smaller last one are refused at submission with
 * -HC_ERR_UNSUPPORTED on every rank.
 *
 * Adding a collective is one line in `colls` (and its pattern kind in
 * pattern.h).
 *
 * HC_SIMCOLL_N=<n> runs that rank count only (debugging). The EAL is needed
 * for mbuf pools only (test_eal.h).
 */
#define _GNU_SOURCE
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
#include "test_eal.h"
#include "tune.h"

#define COUNT_BIG 1000003
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

static const enum hc_dtype dtypes[] = {
	HC_DTYPE_INT8, HC_DTYPE_UINT8, HC_DTYPE_INT32, HC_DTYPE_UINT32,
	HC_DTYPE_INT64, HC_DTYPE_UINT64, HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16,
	HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT64,
};
static const enum hc_op ops[] = {
	HC_OP_SUM, HC_OP_PROD, HC_OP_MIN, HC_OP_MAX, HC_OP_AVG,
};
static const enum hc_algo_id algos[] = {
	HC_ALGO_RING, HC_ALGO_TREE, HC_ALGO_HD, HC_ALGO_HIER,
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

/* Run o on every rank of run; count and print what is wrong. */
static void
run_one(struct hc_simrun *run, const struct one *o)
{
	uint32_t n = run->ranks, r;
	size_t es = hc_dtype_size(o->d);
	uint64_t sn = o->count * (o->k->send_n ? n : 1);
	uint64_t rn = o->count * (o->k->recv_n ? n : 1);
	enum hc_op fill_op = o->k->reduces ? o->op : HC_OP_SUM;
	uint8_t **sbuf = calloc(n, sizeof(*sbuf));
	uint8_t **rbuf = calloc(n, sizeof(*rbuf));
	void **res = calloc(n, sizeof(*res));
	struct hc_request **req = calloc(n, sizeof(*req));
	int *status = calloc(n, sizeof(*status));
	uint64_t wrong = 0, t0 = hc_simrun_now(run);
	int rc = 0, bad = 0;

	CU_ASSERT_FATAL(sbuf && rbuf && res && req && status);
	for (r = 0; r < n; r++) {
		uint64_t big = sn > rn ? sn : rn, off = (uint64_t)r * o->count;
		const void *s;
		int sub;

		/* +1: malloc(0) may return NULL, which is fine for count 0
		 * but not for the in-place pointer arithmetic. */
		sbuf[r] = malloc(big * es + 1);
		rbuf[r] = malloc(big * es + 1);
		CU_ASSERT_FATAL(sbuf[r] != NULL && rbuf[r] != NULL);
		memset(rbuf[r], 0xa5, big * es);
		if (o->in_place && sn > rn) {         /* reduce-scatter */
			hc_pattern_fill(rbuf[r], o->d, fill_op, sn, (int)r);
			s = rbuf[r];
			res[r] = rbuf[r] + off * es;
		} else if (o->in_place && rn > sn) {  /* all-gather */
			hc_pattern_fill(rbuf[r] + off * es, o->d, fill_op,
					o->count, (int)r);
			s = rbuf[r] + off * es;
			res[r] = rbuf[r];
		} else if (o->in_place) {
			hc_pattern_fill(rbuf[r], o->d, fill_op, sn, (int)r);
			s = rbuf[r];
			res[r] = rbuf[r];
		} else {
			hc_pattern_fill(sbuf[r], o->d, fill_op, sn, (int)r);
			s = sbuf[r];
			res[r] = rbuf[r];
		}
		sub = o->k->submit(hc_comm_world(hc_simrun_ctx(run, r)), s,
				   res[r], o->count, o->d, o->op, o->root, &req[r]);
		if (sub != 0) {
			status[r] = sub;
			req[r] = NULL;
		}
	}
	rc = hc_simrun_wait(run, req, status, NULL, COLL_LIMIT_NS);
	for (r = 0; r < n; r++) {
		uint64_t w;

		if (status[r] != 0 || req[r] != NULL) {
			bad++;
			continue;
		}
		w = hc_pattern_result_wrong(o->k->pat, res[r], o->d,
					    o->k->reduces ? o->op : HC_OP_SUM,
					    o->count, (int)n, (int)r, o->root);
		wrong += w;
		totals.checked += o->k->pat == HC_PATTERN_REDUCE &&
				  (int)r != o->root ? 0 : rn;
	}
	totals.runs++;
	totals.vtime_ns += hc_simrun_now(run) - t0;
	if (rc != 0 || bad != 0 || wrong != 0) {
		if (totals.failed++ < MAX_FAIL_LINES)
			printf("\n    FAIL %s algo %s n=%u count=%" PRIu64
			       " dtype %d op %d %s root %d: until %d, %d ranks "
			       "failed (rank 0: %d), %" PRIu64 " wrong",
			       o->k->name, hc_algo_id_name(o->algo), n,
			       o->count, o->d, o->op,
			       o->in_place ? "in place" : "out of place",
			       o->root, rc, bad, status[0], wrong);
	}
	CU_ASSERT(rc == 0 && bad == 0 && wrong == 0);
	for (r = 0; r < n; r++) {
		free(sbuf[r]);
		free(rbuf[r]);
	}
	free(sbuf);
	free(rbuf);
	free(res);
	free(req);
	free(status);
}

/* ---- runs: one simulated world per (n, algorithm) ------------------- */

/* g: ranks per group (0: every rank its own group); a two-tier network
 * with leaves of g hosts when g > 1 and divides n, else a star. */
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

/* Groups of hier for n ranks: equal groups of more than one rank where
 * n allows (4: 2, 8: 4), else one rank each. */
static uint32_t
hier_group(uint32_t n)
{
	return n == 4 ? 2 : n == 8 ? 4 : 0;
}

static int
is_root_tested(uint32_t n, uint32_t root)
{
	return n <= 4 || root == 0 || root == 1 || root == n - 1;
}

/* The small counts of n, without duplicates. */
static uint32_t
small_counts(uint32_t n, uint64_t *out)
{
	uint64_t c[] = { 0, 1, n - 1, n + 1 };
	uint32_t k = 0, i, j;

	for (i = 0; i < RTE_DIM(c); i++) {
		for (j = 0; j < k && out[j] != c[i]; j++)
			;
		if (j == k)
			out[k++] = c[i];
	}
	return k;
}

/* Every collective of the table that runs under algo, on n ranks. */
static void
matrix(uint32_t n, enum hc_algo_id algo)
{
	struct hc_simrun *run = world(n, algo,
				      algo == HC_ALGO_HIER ? hier_group(n) : 0);
	uint64_t counts[4];
	uint32_t nc = small_counts(n, counts), ki, c, di, oi, pl;
	int root;

	for (ki = 0; ki < RTE_DIM(colls); ki++) {
		const struct coll_kind *k = &colls[ki];

		if (algo != HC_ALGO_RING && !k->all_algos)
			continue;
		for (root = 0; root < (k->rooted ? (int)n : 1); root++) {
			if (k->rooted && !is_root_tested(n, (uint32_t)root))
				continue;
			for (c = 0; c < nc; c++)
				for (di = 0; di < RTE_DIM(dtypes); di++)
					for (oi = 0; oi < (k->reduces ?
						RTE_DIM(ops) : 1); oi++)
						for (pl = 0; pl < 2; pl++) {
							struct one o = {
								k, algo,
								counts[c],
								dtypes[di],
								ops[oi], pl,
								root };

							run_one(run, &o);
						}
		}
		for (di = 0; di < RTE_DIM(dtypes); di++) {
			struct one o = { k, algo, COUNT_BIG, dtypes[di],
					 HC_OP_SUM, 0, (int)n - 1 };

			run_one(run, &o);
		}
	}
	hc_simrun_destroy(run);
}

/* Hier with unequal groups (2, 2, ..., 1) is refused at submission on
 * every rank, -HC_ERR_UNSUPPORTED, nothing queued. */
static void
hier_refused(uint32_t n)
{
	struct hc_simrun *run = world(n, HC_ALGO_HIER, 2);
	uint32_t r;
	float in = 1, out = 0;

	for (r = 0; r < n; r++) {
		struct hc_request *req = NULL;

		CU_ASSERT(hc_iallreduce(hc_comm_world(hc_simrun_ctx(run, r)),
					&in, &out, 1, HC_DTYPE_FLOAT32,
					HC_OP_SUM, NULL, &req) ==
			  -HC_ERR_UNSUPPORTED);
		CU_ASSERT(req == NULL);
	}
	hc_simrun_destroy(run);
}

/* Barrier: with rank n-1 absent for 1 ms of virtual time nobody leaves;
 * once it enters, everyone does. */
static void
barrier_check(uint32_t n)
{
	struct hc_simrun *run = world(n, HC_ALGO_RING, 0);
	struct hc_request **req = calloc(n, sizeof(*req));
	int *status = calloc(n, sizeof(*status));
	uint32_t r;

	CU_ASSERT_FATAL(req != NULL && status != NULL);
	for (r = 0; r + 1 < n; r++)
		CU_ASSERT(hc_ibarrier(hc_comm_world(hc_simrun_ctx(run, r)),
				      NULL, &req[r]) == 0);
	if (n > 1) {
		CU_ASSERT(hc_simrun_wait(run, req, status, NULL,
					 HC_NS_PER_MS) == -HC_ERR_TIMEOUT);
		for (r = 0; r + 1 < n; r++)
			CU_ASSERT(req[r] != NULL);
	}
	CU_ASSERT(hc_ibarrier(hc_comm_world(hc_simrun_ctx(run, n - 1)), NULL,
			      &req[n - 1]) == 0);
	CU_ASSERT(hc_simrun_wait(run, req, status, NULL, HC_NS_PER_S) == 0);
	for (r = 0; r < n; r++)
		CU_ASSERT(status[r] == 0);
	totals.runs++;
	free(req);
	free(status);
	hc_simrun_destroy(run);
}

/* ---- tests ----------------------------------------------------------- */

static void
test_n(uint32_t n)
{
	const char *only = getenv("HC_SIMCOLL_N");
	struct matrix_stats before = totals;
	double w0 = clock_s();
	uint32_t a;

	if (only != NULL && (uint32_t)atoi(only) != n)
		return;
	for (a = 0; a < RTE_DIM(algos); a++)
		matrix(n, algos[a]);
	if (n > 2 && hier_group(n) == 0)
		hier_refused(n);
	barrier_check(n);
	printf("\n    n=%u: %" PRIu64 " collectives, %" PRIu64 " elements "
	       "checked, %" PRIu64 " failed; virtual %.1f ms, wall %.1f s",
	       n, totals.runs - before.runs, totals.checked - before.checked,
	       totals.failed - before.failed,
	       (totals.vtime_ns - before.vtime_ns) / 1e6, clock_s() - w0);
}

static void test_n1(void) { test_n(1); }
static void test_n2(void) { test_n(2); }
static void test_n3(void) { test_n(3); }
static void test_n4(void) { test_n(4); }
static void test_n5(void) { test_n(5); }
static void test_n7(void) { test_n(7); }
static void test_n8(void) { test_n(8); }

static CU_TestInfo matrix_tests[] = {
	{ "n=1: every collective x algorithm x count x dtype x op", test_n1 },
	{ "n=2", test_n2 },
	{ "n=3 (hier with groups 2+1 refused)", test_n3 },
	{ "n=4 (hier: 2 groups of 2)", test_n4 },
	{ "n=5 (hier with groups 2+2+1 refused)", test_n5 },
	{ "n=7 (hier with groups 2+2+2+1 refused)", test_n7 },
	{ "n=8 (hier: 2 groups of 4)", test_n8 },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "collective matrix on sim (issue 4)", NULL, NULL, NULL, NULL,
	  matrix_tests },
	CU_SUITE_INFO_NULL,
};

int
main(void)
{
	unsigned int failures;
	CU_ErrorCode run;
	double w0 = clock_s();

	if (test_eal_init("test_simcoll", "1536", "hcsimcoll") != 0)
		return EXIT_FAILURE;
	rte_log_set_level_pattern("hc.*", RTE_LOG_WARNING);
	if (CU_initialize_registry() != CUE_SUCCESS ||
	    CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "test_simcoll: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		test_eal_fini();
		return EXIT_FAILURE;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	run = CU_basic_run_tests();
	printf("\nmatrix: %" PRIu64 " collectives, %" PRIu64 " result elements "
	       "checked, %" PRIu64 " failed; virtual %.1f ms, wall %.1f s\n",
	       totals.runs, totals.checked, totals.failed,
	       totals.vtime_ns / 1e6, clock_s() - w0);
	failures = CU_get_number_of_failures() +
		   CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	test_eal_fini();
	return run == CUE_SUCCESS && failures == 0 ? EXIT_SUCCESS
						   : EXIT_FAILURE;
}
