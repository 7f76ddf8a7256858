/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_simcoll: the collective matrix of issue 4 on simulated ranks
 * (stack/sim/simrun.h), every result checked element by element on every
 * rank against the patterns of shared/cases/CASES.md (apps/hc-perf/
 * pattern.h; simcoll.h builds the expected buffers from them).
 *
 * The matrix: every collective of the table `colls` in simcoll.h
 * (all-reduce, reduce-scatter, all-gather, broadcast, reduce,
 * reduce-scatterv, all-gatherv, send/recv as a ring shift) x algorithm (the
 * all-reduce's ring, tree, hd, hier, rd; the others have one) x n in
 * {1, 2, 3, 4, 5, 7, 8} x count x dtype (10) x op (5, for the collectives
 * that reduce) x placement (in place, out of place) x root (rooted
 * collectives: every root for n <= 4, roots 0, 1 and n-1 above).
 * The reduction that keeps the wall time near a minute on 2 cores:
 *   counts {0, 1, n-1, n+1} (duplicates dropped) run the full cross
 *   product above;
 *   count 1000003 runs once per (collective, algorithm, n, dtype), with
 *   op sum (no op for all-gather and broadcast), out of place, root n-1.
 * The v-variants' blocks: rank q holds count + q elements, none when
 * q % 3 == 1 (sc_vcount). Send/recv: out of place only, n > 1.
 * Barrier: per n, no rank completes while one rank has not entered it
 * (1 ms of virtual time), then all complete.
 * Hier runs on a two-tier network whose leaves are its groups: n = 4 in
 * groups of 2, n = 8 in groups of 4; for n = 2, 3, 5, 7 only groups of
 * one rank (hier is then halving-doubling) or one group of n (one direct
 * reduce-scatter and all-gather step) are equal: both run; for n = 3, 5,
 * 7 groups of 2 with a smaller last one are refused at submission with
 * -HC_ERR_UNSUPPORTED on every rank.
 *
 * Adding a collective is one line in `colls` (simcoll.h) and its submit
 * function.
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

#include "simcoll.h"

#define COUNT_BIG 1000003

static const enum hc_algo_id algos[] = {
	HC_ALGO_RING, HC_ALGO_TREE, HC_ALGO_HD, HC_ALGO_HIER, HC_ALGO_RD,
};

/* Groups of hier for n ranks, as world()'s g, 0-terminated: equal groups
 * of more than one rank where n allows (4: 2 groups of 2, 8: 2 of 4);
 * else groups of one rank (hier is halving-doubling) and one group of n
 * (hier is one direct reduce-scatter and all-gather step). */
static const uint32_t *
hier_groups(uint32_t n)
{
	static const uint32_t g4[] = { 2, UINT32_MAX }, g8[] = { 4, UINT32_MAX };
	static const uint32_t g1[] = { 0, UINT32_MAX }, other[] = { 1, 0,
								  UINT32_MAX };

	return n == 4 ? g4 : n == 8 ? g8 : n == 1 ? g1 : other;
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

/* Every collective of the table that runs under algo, on n ranks in
 * groups of g (world()). */
static void
matrix(uint32_t n, enum hc_algo_id algo, uint32_t g)
{
	struct hc_simrun *run = world(n, algo, g);
	uint64_t counts[4];
	uint32_t nc = small_counts(n, counts), ki, c, di, oi, pl;
	int root;

	for (ki = 0; ki < RTE_DIM(colls); ki++) {
		const struct coll_kind *k = &colls[ki];

		if ((algo != HC_ALGO_RING && !k->all_algos) ||
		    (k->p2p && n < 2))
			continue;
		for (root = 0; root < (k->rooted ? (int)n : 1); root++) {
			if (k->rooted && !is_root_tested(n, (uint32_t)root))
				continue;
			for (c = 0; c < nc; c++)
				for (di = 0; di < RTE_DIM(dtypes); di++)
					for (oi = 0; oi < (k->reduces ?
						RTE_DIM(ops) : 1); oi++)
						for (pl = 0; pl < (k->p2p ? 1 : 2);
						     pl++) {
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
	const uint32_t *g;
	uint32_t a;

	if (only != NULL && (uint32_t)atoi(only) != n)
		return;
	for (a = 0; a < RTE_DIM(algos); a++)
		if (algos[a] != HC_ALGO_HIER)
			matrix(n, algos[a], 0);
	for (g = hier_groups(n); *g != UINT32_MAX; g++)
		matrix(n, HC_ALGO_HIER, *g);
	if (n % 2 == 1 && n > 1)
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
	{ "n=2 (hier: groups of 1, one group of 2)", test_n2 },
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

static void
report(double wall_s)
{
	sc_report("matrix", wall_s);
}

const struct cunit_bin cunit_bin = {
	.prog = "test_simcoll",
	.mem_mb = "1536",
	.stem = "hcsimcoll",
	.hc_log_level = RTE_LOG_WARNING,
	.suites = suites,
	.report = report,
};
