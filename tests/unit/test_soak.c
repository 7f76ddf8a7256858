/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_soak: field case C20 on simulated ranks. For n in {3, 5, 7, 8},
 * 10 000 collectives drawn with a fixed seed: collective (every one of the
 * table in simcoll.h), dtype, op, placement and root uniform; size
 * log-uniform from 4 B to 4 MiB per rank, the larger of the send and
 * receive buffers as nccl-tests counts (count = size / element size, / n
 * for all-gather and reduce-scatter, at least 1); submitted in batches of 1 to 4 outstanding collectives on
 * every rank. The all-reduce algorithm is the tuner's (auto, alpha and beta
 * measured by hc_simrun_create); n = 8 runs in two groups of 4 on a
 * two-tier network, so hier is among the picks; the others one group per
 * rank; MTU 9000 (SOAK_MTU). No stall (every collective completes within
 * 20 s of virtual time), every element of every rank's result exact.
 * Prints the wall and virtual time per n.
 *
 * HC_SOAK_COLLS=<k> runs k collectives per n instead of 10 000.
 */
#define _GNU_SOURCE
#include <CUnit/Basic.h>

#include "simcoll.h"

#define SOAK_COLLS 10000
#define SOAK_BATCH_MAX 4
#define SOAK_SEED 20u
/* Jumbo frames: the wall time of a simulation follows its packet count;
 * at 9000 bytes it is 6 x lower than at 1500, so the full case fits the
 * 600 s tests/run allows a unit binary. */
#define SOAK_MTU 9000

/* SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): the workload's own
 * generator, apart from the stack's rte_rand(). */
static uint64_t
next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
uniform(uint64_t *s, uint32_t k)
{
	return (uint32_t)(next_u64(s) % k);
}

static void
soak(uint32_t n, uint32_t g)
{
	const char *env = getenv("HC_SOAK_COLLS");
	uint32_t colls_n = env != NULL ? (uint32_t)atoi(env) : SOAK_COLLS;
	struct hc_simrun *run = world_mtu(n, HC_ALGO_AUTO, g, SOAK_MTU);
	struct matrix_stats before = totals;
	struct sc_job jobs[SOAK_BATCH_MAX];
	uint64_t seed = SOAK_SEED + n, bytes = 0, bad = 0;
	uint32_t done = 0, b, k;
	double w0 = clock_s();
	uint64_t t0 = hc_simrun_now(run);
	char info[256];

	hc_comm_tuner_info(hc_comm_world(hc_simrun_ctx(run, 0)), info,
			   sizeof(info));
	printf("\n    n=%u tuner: %s", n, info);
	while (done < colls_n) {
		k = 1 + uniform(&seed, SOAK_BATCH_MAX);
		k = RTE_MIN(k, colls_n - done);
		for (b = 0; b < k; b++) {
			struct one *o = &jobs[b].o;
			/* 2^(2 + 20 u) bytes, u uniform in [0, 1] */
			double u = (double)(next_u64(&seed) >> 11) / (1ull << 53);
			uint64_t size = (uint64_t)(4.0 * exp2(20.0 * u));

			memset(&jobs[b], 0, sizeof(jobs[b]));
			o->k = &colls[uniform(&seed, RTE_DIM(colls))];
			o->algo = HC_ALGO_AUTO;
			o->d = dtypes[uniform(&seed, RTE_DIM(dtypes))];
			o->op = ops[uniform(&seed, RTE_DIM(ops))];
			o->in_place = (int)uniform(&seed, 2) && !o->k->p2p;
			o->root = (int)uniform(&seed, n);
			/* size is the larger buffer, as nccl-tests counts
			 * all-gather and reduce-scatter */
			o->count = RTE_MAX(size / hc_dtype_size(o->d) /
					   (o->k->send_n || o->k->recv_n ? n : 1),
					   (uint64_t)1);
			bytes += o->count * hc_dtype_size(o->d) *
				 (o->k->send_n || o->k->recv_n ? n : 1);
			sc_submit(run, &jobs[b]);
		}
		for (b = 0; b < k; b++)
			bad += sc_finish(run, &jobs[b]) != 0;
		done += k;
	}
	printf("\n    n=%u: %u collectives (%.1f MiB per rank), %" PRIu64
	       " elements checked, %" PRIu64 " failed; virtual %.1f ms, "
	       "wall %.1f s", n, done, bytes / 1048576.0,
	       totals.checked - before.checked, bad,
	       (hc_simrun_now(run) - t0) / 1e6, clock_s() - w0);
	CU_ASSERT(bad == 0);
	CU_ASSERT(totals.runs - before.runs == colls_n);
	hc_simrun_destroy(run);
}

static void test_soak_3(void) { soak(3, 1); }
static void test_soak_5(void) { soak(5, 1); }
static void test_soak_7(void) { soak(7, 1); }
static void test_soak_8(void) { soak(8, 4); }

static CU_TestInfo soak_tests[] = {
	{ "C20 n=3: 10 000 mixed collectives, 4 B..4 MiB, exact",
	  test_soak_3 },
	{ "C20 n=5", test_soak_5 },
	{ "C20 n=7", test_soak_7 },
	{ "C20 n=8 (two groups of 4, two-tier)", test_soak_8 },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "soak on sim (C20)", NULL, NULL, NULL, NULL, soak_tests },
	CU_SUITE_INFO_NULL,
};

static void
report(double wall_s)
{
	sc_report("soak", wall_s);
}

const struct cunit_bin cunit_bin = {
	.prog = "test_soak",
	.mem_mb = "1536",
	.stem = "hcsoak",
	.hc_log_level = RTE_LOG_WARNING,
	.suites = suites,
	.report = report,
};
