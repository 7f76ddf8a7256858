/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_simcases: field cases of shared/cases/CASES.md on simulated ranks
 * under every all-reduce algorithm forced in turn:
 *   C02  n in {3, 5, 6, 7, 12} (controls 2, 4, 8), ring, tree, hd and hier
 *        forced in turn (hier in two-tier groups of 3 for n = 6, 4 for
 *        n = 8 and 12, 2 for n = 4, else groups of one rank): all-gather
 *        int32 sendcount {1, 1000, 65537}; all-reduce int32 and float32
 *        sum, count 1000003 (P32; n = 7: 28 (i % 1024) + 21);
 *        reduce-scatter float32 sum recvcount 4097. (On tap, hc-check
 *        c02 runs n = 3, 5, 6, 7 with the tuner's pick; here every
 *        algorithm is forced, and n = 8, 12 too.)
 *   C10  float16 sum on 6 ranks: +24000 everywhere is +Inf on every rank
 *        (144000 does not fit); +24000/-24000 on alternating ranks is 0.
 *   C11  bfloat16 sum on 8 ranks: 256 on rank 0, 1.0 on ranks 1..7: 264
 *        on every rank.
 *   C12  int32 avg on 3 ranks: {7, 8, 10} -> 8, {-7, -8, -10} -> -8,
 *        {1, 1, 1} -> 1, three INT32_MAX -> INT32_MAX.
 *   Signed zeros and NaN payloads: float MAX of +0/-0 and SUM of NaNs
 *        of different payloads, whose bits depend on operand order: the
 *        same bits on every rank, n = 2..8, every algorithm.
 *   Reproducible float sums: float32 all-reduce whose sums depend on
 *        the order of the additions, under tree, hd, hier and rd, on links
 *        of per-host delays drawn from several seeds (so packets of
 *        different peers arrive in different orders): every rank and
 *        every delay profile gets the same bits (plan.h's order).
 *   C05, C14  the last rank disagrees (count + 1, count 0, dtype, op, or
 *        an all-gather where the others all-reduce), n = 2..5, every
 *        algorithm, 2 and 4097 elements: HC_ERR_MISMATCH on every rank,
 *        then HC_ERR_ABORTED (rd sends no signature packet: its DATA
 *        must tell).
 * And the tuner's probes on simulated ranks (hc_simrun_create).
 * (C10-C12 are also unit tests of the reduction kernels, test_accum.c,
 * and hc-check c10 on tap with the tuner's pick; here they go through
 * every algorithm's reduction order, and every rank's result must be the
 * same bits.)
 */
#define _GNU_SOURCE
#include <math.h>

#include <CUnit/Basic.h>

#include "simcoll.h"
#include "coll.h"
#include "half.h"
#include "ring_plan.h"

static const enum hc_algo_id algos[] = {
	HC_ALGO_RING, HC_ALGO_TREE, HC_ALGO_HD, HC_ALGO_HIER, HC_ALGO_RD,
};

/* Groups for hier on n ranks (world()'s g): equal groups of more than
 * one rank on two-tier where n allows, else one rank each. */
static uint32_t
hier_g(uint32_t n)
{
	return n == 4 ? 2 : n == 6 ? 3 : n == 8 || n == 12 ? 4 : 1;
}

/* ---- C02 -------------------------------------------------------------- */

static void
c02(uint32_t n)
{
	static const uint64_t gather[] = { 1, 1000, 65537 };
	uint32_t a, i;

	for (a = 0; a < RTE_DIM(algos); a++) {
		struct hc_simrun *run = world(n, algos[a],
			algos[a] == HC_ALGO_HIER ? hier_g(n) : 0);
		struct one o = { .algo = algos[a], .op = HC_OP_SUM };

		o.k = coll_of(HC_PATTERN_ALLGATHER);
		o.d = HC_DTYPE_INT32;
		for (i = 0; i < RTE_DIM(gather); i++) {
			o.count = gather[i];
			run_one(run, &o);
		}
		o.k = coll_of(HC_PATTERN_ALLREDUCE);
		o.count = 1000003;
		run_one(run, &o);
		o.d = HC_DTYPE_FLOAT32;
		run_one(run, &o);
		o.k = coll_of(HC_PATTERN_REDUCE_SCATTER);
		o.count = 4097;
		run_one(run, &o);
		hc_simrun_destroy(run);
	}
}

/* The all-gather's check sees a slice of a block written at another
 * offset of the same or another block (PGATH), where P32, which repeats
 * every 1024 elements, saw no difference within a block. */
static void
test_c02_pgath(void)
{
	enum { N = 3, COUNT = 65537 };
	int32_t *all = malloc((size_t)N * COUNT * sizeof(*all));
	uint64_t q, i;

	CU_ASSERT_FATAL(all != NULL);
	for (q = 0; q < N; q++)
		hc_pattern_fill_gather(all + q * COUNT, HC_DTYPE_INT32, COUNT,
				       (int)q);
	CU_ASSERT_EQUAL(hc_pattern_result_wrong(HC_PATTERN_ALLGATHER, all,
			HC_DTYPE_INT32, HC_OP_SUM, COUNT, N, 0, 0), 0);
	CU_ASSERT_EQUAL(all[COUNT + 1000], 1000000 + 1000);
	/* block 1's elements 0..1023 written again at 1024..2047 */
	memcpy(all + COUNT + 1024, all + COUNT, 1024 * sizeof(*all));
	CU_ASSERT_EQUAL(hc_pattern_result_wrong(HC_PATTERN_ALLGATHER, all,
			HC_DTYPE_INT32, HC_OP_SUM, COUNT, N, 0, 0), 1024);
	/* put back; then block 2's last 7 elements written over block 1's
	 * (a neighbour's tail at the wrong offset) */
	hc_pattern_fill_gather(all + COUNT, HC_DTYPE_INT32, COUNT, 1);
	CU_ASSERT_EQUAL(hc_pattern_result_wrong(HC_PATTERN_ALLGATHER, all,
			HC_DTYPE_INT32, HC_OP_SUM, COUNT, N, 0, 0), 0);
	memcpy(all + 2 * COUNT - 7, all + 3 * COUNT - 7, 7 * sizeof(*all));
	CU_ASSERT_EQUAL(hc_pattern_result_wrong(HC_PATTERN_ALLGATHER, all,
			HC_DTYPE_INT32, HC_OP_SUM, COUNT, N, 0, 0), 7);
	/* int64 holds PGATH too: one element off by one block */
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(hc_pattern_gather(HC_DTYPE_INT64, i, 3) -
				hc_pattern_gather(HC_DTYPE_INT64, i, 2),
				1000000.0);
	free(all);
}

static void test_c02_2(void) { c02(2); }
static void test_c02_3(void) { c02(3); }
static void test_c02_4(void) { c02(4); }
static void test_c02_5(void) { c02(5); }
static void test_c02_6(void) { c02(6); }
static void test_c02_7(void) { c02(7); }
static void test_c02_8(void) { c02(8); }
static void test_c02_12(void) { c02(12); }

/* ---- C10-C12: given inputs, one expected result ----------------------- */

#define VALS_MAX 16

/* in[r][i]: rank r's element i (as float or int64 by dtype); want[i]. */
struct vals {
	uint32_t n, count;
	enum hc_dtype d;
	enum hc_op op;
	double in[12][VALS_MAX];
	double want[VALS_MAX];
};

/* Every algorithm: every rank's result equals want (stored through the
 * dtype, so +Inf and rounding compare exactly), bit for bit. */
static void
run_vals(const struct vals *v)
{
	size_t es = hc_dtype_size(v->d);
	uint8_t want[VALS_MAX * 8];
	uint32_t a, r, i;

	for (i = 0; i < v->count; i++)
		hc_pattern_store(want, v->d, i, v->want[i]);
	for (a = 0; a < RTE_DIM(algos); a++) {
		struct hc_simrun *run = world(v->n, algos[a],
			algos[a] == HC_ALGO_HIER ? hier_g(v->n) : 0);
		uint8_t in[12][VALS_MAX * 8], out[12][VALS_MAX * 8];
		struct hc_request *req[12] = { NULL };
		int status[12] = { 0 };

		for (r = 0; r < v->n; r++) {
			for (i = 0; i < v->count; i++)
				hc_pattern_store(in[r], v->d, i, v->in[r][i]);
			memset(out[r], 0xa5, sizeof(out[r]));
			CU_ASSERT(hc_iallreduce(hc_comm_world(
				hc_simrun_ctx(run, r)), in[r], out[r],
				v->count, v->d, v->op, NULL, &req[r]) == 0);
		}
		CU_ASSERT(hc_simrun_wait(run, req, status, NULL,
					 HC_NS_PER_S) == 0);
		for (r = 0; r < v->n; r++) {
			int same = memcmp(out[r], want, v->count * es) == 0;

			if (!same)
				printf("\n    %s rank %u: element 0 is %g, want "
				       "%g", hc_algo_id_name(algos[a]), r,
				       hc_pattern_load(out[r], v->d, 0),
				       v->want[0]);
			CU_ASSERT(same);
		}
		hc_simrun_destroy(run);
	}
}

/* C10: 6 ranks, float16 sum. Element 0: +24000 on every rank -> +Inf;
 * element 1: +24000 on even ranks, -24000 on odd ones -> 0. */
static void
test_c10(void)
{
	struct vals v = { .n = 6, .count = 2, .d = HC_DTYPE_FLOAT16,
			  .op = HC_OP_SUM };
	uint32_t r;

	for (r = 0; r < v.n; r++) {
		v.in[r][0] = 24000;
		v.in[r][1] = r % 2 ? -24000 : 24000;
	}
	v.want[0] = INFINITY;
	v.want[1] = 0;
	run_vals(&v);
}

/* C11: 8 ranks, bfloat16 sum: 256 + 7 x 1.0 = 263, which bf16 (8 bits of
 * significand) rounds to 264; 256 would mean the addends were lost. */
static void
test_c11(void)
{
	struct vals v = { .n = 8, .count = 1, .d = HC_DTYPE_BFLOAT16,
			  .op = HC_OP_SUM };
	uint32_t r;

	for (r = 0; r < v.n; r++)
		v.in[r][0] = r == 0 ? 256 : 1;
	v.want[0] = 264;
	run_vals(&v);
}

/* C12: 3 ranks, int32 avg: the 64-bit sum truncated toward zero. */
static void
test_c12(void)
{
	static const double cases[4][3] = {
		{ 7, 8, 10 }, { -7, -8, -10 }, { 1, 1, 1 },
		{ INT32_MAX, INT32_MAX, INT32_MAX },
	};
	static const double want[4] = { 8, -8, 1, INT32_MAX };
	struct vals v = { .n = 3, .count = 4, .d = HC_DTYPE_INT32,
			  .op = HC_OP_AVG };
	uint32_t r, i;

	for (i = 0; i < 4; i++) {
		for (r = 0; r < 3; r++)
			v.in[r][i] = cases[i][r];
		v.want[i] = want[i];
	}
	run_vals(&v);
}

/* ---- [coll] precision = native (fp16/bf16) ---------------------------- */

/* n ranks on the star of world(), algorithm algo, [coll] precision prec. */
static struct hc_simrun *
world_prec(uint32_t n, enum hc_algo_id algo, enum hc_precision prec)
{
	return world_conf(n, algo, 0, 0, (int)prec);
}

/* Payload bytes every rank of run sent so far, all flows. */
static uint64_t
bytes_sent(struct hc_simrun *run)
{
	uint64_t sum = 0;
	uint32_t r, p;

	for (r = 0; r < run->ranks; r++)
		for (p = 0; p < run->ranks; p++) {
			struct hc_flow_stats fs;

			if (p != r && hc_flow_stats_get(hc_simrun_ctx(run, r),
							p, &fs) == 0)
				sum += fs.bytes_tx;
		}
	return sum;
}

static float
f16_round(float x)
{
	return hc_f16_to_f32(hc_f32_to_f16(x));
}

/* The documented per-hop reference of native fp16 ring all-reduce SUM
 * (ring.c): chunk c starts at rank c and travels c+1, ..., c+n-1, each
 * hop adding its own value and rounding to fp16; the other ranks get the
 * owner's bits. In fp32 mode the sum is rounded once. Inputs 2048, 1, 1,
 * 1 (4 ranks) tell them apart: a chunk that meets 2048 before its 1s
 * (chunks 0 and 3) stays 2048, since 2049 rounds to even at every hop;
 * one that adds its 1s first (chunks 1 and 2) reaches 2050 or 2051 and
 * ends at 2052; fp32 mode sums 2051 exactly and gives 2052 everywhere. */
static void
test_native_ring_reference(void)
{
	enum { N = 4, COUNT = 4 * 37 };
	static const float v[N] = { 2048, 1, 1, 1 };
	int m;

	for (m = 0; m < 2; m++) {
		enum hc_precision prec = m ? HC_PRECISION_NATIVE
					   : HC_PRECISION_FP32;
		struct hc_simrun *run = world_prec(N, HC_ALGO_RING, prec);
		struct hc_request *req[N] = { NULL };
		static uint16_t in[N][COUNT], out[N][COUNT];
		int status[N] = { 0 };
		struct hc_ring_plan plan;
		uint32_t r, c, k, bad = 0;
		uint64_t i, first, len;

		for (r = 0; r < N; r++) {
			for (i = 0; i < COUNT; i++)
				in[r][i] = hc_f32_to_f16(v[r]);
			CU_ASSERT(hc_iallreduce(hc_comm_world(
				hc_simrun_ctx(run, r)), in[r], out[r], COUNT,
				HC_DTYPE_FLOAT16, HC_OP_SUM, NULL,
				&req[r]) == 0);
		}
		CU_ASSERT_FATAL(hc_simrun_wait(run, req, status, NULL,
					       HC_NS_PER_S) == 0);
		/* the ring's chunks as ring.c cuts them (fp16 on the wire
		 * in native mode, fp32 else: the slices differ, the blocks
		 * do not) */
		hc_ring_plan_init(&plan, COUNT, N, m ? 2 : 4, 262144);
		for (c = 0; c < N; c++)
			for (k = 0; k < plan.nslices; k++) {
				float acc = v[c], want;
				uint32_t h;

				hc_ring_span(&plan, c, k, &first, &len);
				for (h = 1; h < N; h++)
					acc = m ? f16_round(v[(c + h) % N] + acc)
						: v[(c + h) % N] + acc;
				want = f16_round(acc);
				CU_ASSERT(want == (m && (c == 0 || c == 3) ?
						   2048 : 2052));
				for (r = 0; r < N; r++)
					for (i = first; i < first + len; i++)
						bad += out[r][i] !=
						       hc_f32_to_f16(want);
			}
		CU_ASSERT_EQUAL(bad, 0);
		if (bad)
			printf("\n    %s: %u elements differ from the "
			       "reference", m ? "native" : "fp32", bad);
		hc_simrun_destroy(run);
	}
}

/* Native AVG is a pre-scaled sum: 4 ranks x 16384 in fp16 average to
 * 16384 on every algorithm, where 4 x 16384 = 65536 is above fp16's
 * largest finite value (65504); bf16 likewise; fp32 mode too. */
static void
test_native_avg(void)
{
	enum { N = 4, COUNT = 5 };
	static const enum hc_dtype dts[2] = { HC_DTYPE_FLOAT16,
					      HC_DTYPE_BFLOAT16 };
	uint32_t a, r, i, d, m;

	for (m = 0; m < 2; m++)
		for (a = 0; a < RTE_DIM(algos); a++) {
			struct hc_simrun *run = world_prec(N, algos[a],
				m ? HC_PRECISION_NATIVE : HC_PRECISION_FP32);

			for (d = 0; d < 2; d++) {
				uint8_t in[N][COUNT * 2], out[N][COUNT * 2];
				struct hc_request *req[N] = { NULL };
				int status[N] = { 0 };

				for (r = 0; r < N; r++) {
					for (i = 0; i < COUNT; i++)
						hc_pattern_store(in[r], dts[d],
								 i, 16384);
					memset(out[r], 0xa5, sizeof(out[r]));
					CU_ASSERT(hc_iallreduce(hc_comm_world(
						hc_simrun_ctx(run, r)), in[r],
						out[r], COUNT, dts[d],
						HC_OP_AVG, NULL,
						&req[r]) == 0);
				}
				CU_ASSERT_FATAL(hc_simrun_wait(run, req,
					status, NULL, HC_NS_PER_S) == 0);
				for (r = 0; r < N; r++)
					for (i = 0; i < COUNT; i++)
						CU_ASSERT_EQUAL(hc_pattern_load(
							out[r], dts[d], i),
							16384);
			}
			hc_simrun_destroy(run);
		}
}

/* Native fp16 reduce-scatter puts 2 bytes per element on the wire, fp32
 * mode 4: n (n - 1) recvcount elements travel in all, plus one 4-byte
 * signature message per rank (to its right neighbour). The result (4 x
 * 1.5 = 6) is exact either way; the send buffer stays untouched (C08). */
static void
test_native_wire_bytes(void)
{
	enum { N = 4, RC = 6000 };
	uint64_t bytes[2];
	int m;

	for (m = 0; m < 2; m++) {
		struct hc_simrun *run = world_prec(N, HC_ALGO_RING, m ?
			HC_PRECISION_NATIVE : HC_PRECISION_FP32);
		static uint16_t in[N][N * RC], out[N][RC];
		struct hc_request *req[N] = { NULL };
		int status[N] = { 0 };
		uint64_t before = bytes_sent(run);
		uint32_t r, bad = 0;
		uint64_t i;

		for (r = 0; r < N; r++) {
			for (i = 0; i < N * RC; i++)
				in[r][i] = hc_f32_to_f16(1.5f);
			CU_ASSERT(hc_ireduce_scatter(hc_comm_world(
				hc_simrun_ctx(run, r)), in[r], out[r], RC,
				HC_DTYPE_FLOAT16, HC_OP_SUM, NULL,
				&req[r]) == 0);
		}
		CU_ASSERT_FATAL(hc_simrun_wait(run, req, status, NULL,
					       HC_NS_PER_S) == 0);
		bytes[m] = bytes_sent(run) - before;
		for (r = 0; r < N; r++) {
			for (i = 0; i < RC; i++)
				bad += out[r][i] != hc_f32_to_f16(6.0f);
			for (i = 0; i < N * RC; i++)
				bad += in[r][i] != hc_f32_to_f16(1.5f);
		}
		CU_ASSERT_EQUAL(bad, 0);
		hc_simrun_destroy(run);
	}
	printf("\n    reduce-scatter payload bytes: fp32 %" PRIu64
	       ", native %" PRIu64, bytes[0], bytes[1]);
	CU_ASSERT_EQUAL(bytes[0], (uint64_t)N * (N - 1) * RC * 4 + 4 * N);
	CU_ASSERT_EQUAL(bytes[1], (uint64_t)N * (N - 1) * RC * 2 + 4 * N);
}

/* The fp32-precision work buffer (coll.h, work_cache): an fp16 sum in
 * fp32 precision accumulates in a buffer of count x 4 bytes, which the
 * communicator keeps after the op; the next op of at most that size runs
 * in that same buffer, a larger one gets a new buffer, kept instead; an
 * fp32 sum (work is its output) leaves the kept one alone. Every result
 * exact: inputs r + 1 + i % 7 on rank r, sums 3 + 2 (i % 7). */
static void
test_work_cache(void)
{
	enum { N = 2, BIG = 60000 };
	static const uint64_t counts[] = { BIG / 2, BIG / 4, BIG, BIG };
	static uint16_t in[N][BIG], out[N][BIG];
	static float fin[N][BIG], fout[N][BIG];
	struct hc_simrun *run = world_prec(N, HC_ALGO_RING, HC_PRECISION_FP32);
	struct hc_comm *comm[N];
	uint8_t *kept[N] = { NULL };
	uint32_t r, k;

	for (r = 0; r < N; r++) {
		comm[r] = hc_comm_world(hc_simrun_ctx(run, r));
		CU_ASSERT_PTR_NULL(comm[r]->work_cache);
	}
	for (k = 0; k < RTE_DIM(counts); k++) {
		struct hc_request *req[N] = { NULL };
		int status[N] = { 0 }, f32 = k == 3;
		uint64_t count = counts[k], i, bad = 0;

		for (r = 0; r < N; r++)
			for (i = 0; i < count; i++) {
				in[r][i] = hc_f32_to_f16((float)(r + 1 + i % 7));
				fin[r][i] = (float)(r + 1 + i % 7);
				out[r][i] = 0xffff;
				fout[r][i] = -1;
			}
		for (r = 0; r < N; r++)
			CU_ASSERT(hc_iallreduce(comm[r], f32 ? (void *)fin[r] :
					(void *)in[r], f32 ? (void *)fout[r] :
					(void *)out[r], count, f32 ?
					HC_DTYPE_FLOAT32 : HC_DTYPE_FLOAT16,
					HC_OP_SUM, NULL, &req[r]) == 0);
		CU_ASSERT_FATAL(hc_simrun_wait(run, req, status, NULL,
					       HC_NS_PER_S) == 0);
		for (r = 0; r < N; r++) {
			CU_ASSERT_EQUAL(status[r], 0);
			for (i = 0; i < count; i++)
				bad += f32 ? fout[r][i] != (float)(3 + 2 * (i % 7)) :
					     out[r][i] != hc_f32_to_f16(
						     (float)(3 + 2 * (i % 7)));
			switch (k) {
			case 0: /* kept after the first op */
				CU_ASSERT_PTR_NOT_NULL(comm[r]->work_cache);
				CU_ASSERT_EQUAL(comm[r]->work_cache_bytes,
						count * sizeof(float));
				kept[r] = comm[r]->work_cache;
				break;
			case 1: /* a smaller op ran in it and gave it back */
				CU_ASSERT_PTR_EQUAL(comm[r]->work_cache, kept[r]);
				CU_ASSERT_EQUAL(comm[r]->work_cache_bytes,
						counts[0] * sizeof(float));
				break;
			default: /* the larger op's buffer, kept since */
				CU_ASSERT_PTR_NOT_NULL(comm[r]->work_cache);
				CU_ASSERT_EQUAL(comm[r]->work_cache_bytes,
						(uint64_t)BIG * sizeof(float));
				if (k == 2)
					kept[r] = comm[r]->work_cache;
				else
					CU_ASSERT_PTR_EQUAL(comm[r]->work_cache,
							    kept[r]);
				break;
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
	hc_simrun_destroy(run);
}

static CU_TestInfo precision_tests[] = {
	{ "native fp16 ring sum equals the per-hop-rounded reference; fp32 "
	  "rounds once", test_native_ring_reference },
	{ "native AVG 4 x 16384 (fp16, bf16) is 16384, every algorithm",
	  test_native_avg },
	{ "native reduce-scatter sends half the bytes of fp32",
	  test_native_wire_bytes },
	{ "fp32-precision work buffer kept by the communicator, reused",
	  test_work_cache },
	CU_TEST_INFO_NULL,
};

/* ---- reproducible float sums ---------------------------------------- */

#define REPRO_PROFILES 4

/* splitmix64: a fixed stream of numbers for the inputs and delays. */
static uint64_t
mix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Rank r's element i: mantissas of 10 bits times 2^-12..2^11, both signs,
 * so that a float32 sum of a few of them rounds differently in different
 * orders (checked below: the orders do differ for most elements). */
static float
repro_val(uint32_t r, uint64_t i)
{
	uint64_t x = (uint64_t)r << 40 | i, v = mix64(&x);

	return ldexpf((float)((int)(v % 2047) - 1023) + 0.5f,
		      (int)(v >> 11 & 31) % 24 - 12) / 3.0f;
}

/* Profile p of the links of n hosts: host h's link takes 1 + (0..39) us
 * each way, drawn from seed p; profile 0 is the uniform 1 us. */
static void
repro_links(struct hc_simrun *run, uint32_t n, uint32_t p)
{
	uint64_t x = p;
	uint32_t h, k;

	for (h = 0; h < n && p != 0; h++) {
		struct hc_sim_link_conf lc = { .rate_gbps = 100,
			.prop_ns = 1000 + mix64(&x) % 40 * 1000,
			.queue_bytes = 1 << 20 };

		for (k = 0; k < 2; k++)
			CU_ASSERT_FATAL(hc_sim_link_set(run->sim,
				hc_sim_link_id(run->sim, k == 0 ?
					       HC_SIM_LINK_HOST_UP :
					       HC_SIM_LINK_HOST_DOWN, h),
				&lc) == 0);
	}
}

static void
repro(uint32_t n, enum hc_algo_id algo, uint32_t g, uint64_t count)
{
	float *in[12], *out[12], *first = malloc(count * sizeof(float));
	double *exact = malloc(count * sizeof(double));
	double *mag = malloc(count * sizeof(double));
	uint64_t i, order_matters = 0, differ = 0;
	uint32_t p, r;

	CU_ASSERT_FATAL(n <= 12 && first != NULL && exact != NULL &&
			mag != NULL);
	for (r = 0; r < n; r++) {
		in[r] = malloc(count * sizeof(float));
		out[r] = malloc(count * sizeof(float));
		CU_ASSERT_FATAL(in[r] != NULL && out[r] != NULL);
		for (i = 0; i < count; i++)
			in[r][i] = repro_val(r, i);
	}
	/* The inputs are order-sensitive: the sum in rank order and in
	 * reverse rank order differ in many elements. */
	for (i = 0; i < count; i++) {
		float up = 0, down = 0;

		exact[i] = mag[i] = 0;
		for (r = 0; r < n; r++) {
			up += in[r][i];
			down += in[n - 1 - r][i];
			exact[i] += in[r][i];
			mag[i] += fabs(in[r][i]);
		}
		order_matters += up != down;
	}
	CU_ASSERT(order_matters > count / 10);
	for (p = 0; p < REPRO_PROFILES; p++) {
		struct hc_simrun *run = world(n, algo, g);
		struct hc_request *req[12] = { NULL };
		int status[12] = { 0 };

		repro_links(run, n, p);
		for (r = 0; r < n; r++) {
			memset(out[r], 0xa5, count * sizeof(float));
			CU_ASSERT(hc_iallreduce(hc_comm_world(
				hc_simrun_ctx(run, r)), in[r], out[r], count,
				HC_DTYPE_FLOAT32, HC_OP_SUM, NULL,
				&req[r]) == 0);
		}
		CU_ASSERT(hc_simrun_wait(run, req, status, NULL,
					 HC_NS_PER_S) == 0);
		if (p == 0) {
			memcpy(first, out[0], count * sizeof(float));
			/* a sum, not garbage: n - 1 float additions err by
			 * at most (n - 1) 2^-24 of the sum of magnitudes */
			for (i = 0; i < count; i++)
				if (fabs(first[i] - exact[i]) >
				    n * 0x1p-24 * mag[i])
					differ++;
			CU_ASSERT_EQUAL(differ, 0);
		}
		for (r = 0; r < n; r++) {
			uint64_t bad = 0;

			for (i = 0; i < count; i++)
				bad += memcmp(&out[r][i], &first[i],
					      sizeof(float)) != 0;
			if (bad != 0)
				printf("\n    %s n=%u profile %u rank %u: %"
				       PRIu64 " of %" PRIu64 " elements differ "
				       "from profile 0", hc_algo_id_name(algo),
				       n, p, r, bad, count);
			CU_ASSERT_EQUAL(bad, 0);
		}
		hc_simrun_destroy(run);
	}
	for (r = 0; r < n; r++) {
		free(in[r]);
		free(out[r]);
	}
	free(first);
	free(exact);
	free(mag);
}

/* Tree: a node's two children (n = 8: interior nodes of both trees),
 * pipelined in chunks. */
static void test_repro_tree(void) { repro(8, HC_ALGO_TREE, 0, 23370); }
/* Halving-doubling: 3 halving steps (n = 8) and with the fold (n = 6). */
static void test_repro_hd(void)
{
	repro(8, HC_ALGO_HD, 0, 23370);
	repro(6, HC_ALGO_HD, 0, 23370);
}
/* Two-level: the reduce-scatter in a group of 4 takes 3 peers' blocks. */
static void test_repro_hier(void) { repro(8, HC_ALGO_HIER, 4, 23370); }
/* Recursive doubling: 3 exchanges (n = 8) and with the fold (n = 6). */
static void test_repro_rd(void)
{
	repro(8, HC_ALGO_RD, 0, 23370);
	repro(6, HC_ALGO_RD, 0, 23370);
}

static CU_TestInfo repro_tests[] = {
	{ "tree fp32 sum: same bits under 4 delay profiles", test_repro_tree },
	{ "hd fp32 sum: same bits under 4 delay profiles", test_repro_hd },
	{ "hier fp32 sum: same bits under 4 delay profiles",
	  test_repro_hier },
	{ "rd fp32 sum: same bits under 4 delay profiles", test_repro_rd },
	CU_TEST_INFO_NULL,
};

/* ---- the tuner on simulated ranks ------------------------------------ */

/* hc_simrun_create measured alpha and beta on every rank and all agree:
 * on a star of 100 Gbit/s, 1 us links a small message's one-way time is
 * two hops of propagation and serialization, 2 us and a little; beta lies
 * between the link's 0.08 ns/B and 2.5 times it (64 KiB probes do not
 * reach line rate); n = 5 picks recursive doubling for 4 KiB (below
 * alpha / (2 beta), 5000..18750 B for these bounds), the tree for 40000 B
 * (up to 5 alpha / beta) and the ring for 1 MiB; no_tune leaves both 0
 * (auto: the ring). */
static void
test_tuner_sim(void)
{
	struct hc_simrun *run = world(5, HC_ALGO_AUTO, 1);
	const struct hc_comm *w0 = hc_comm_world(hc_simrun_ctx(run, 0));
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = 3,
			 .host_link = { .rate_gbps = 100, .prop_ns = 1000,
					.queue_bytes = 1 << 20 } },
		.seed = 1, .no_tune = 1,
	};
	uint32_t r;

	printf("\n    n=5: alpha %.3f us, beta %.4f ns/B", w0->tune.alpha_ns / 1e3,
	       w0->tune.beta_ns);
	CU_ASSERT(w0->tune.alpha_ns > 2000 && w0->tune.alpha_ns < 3000);
	CU_ASSERT(w0->tune.beta_ns > 0.08 && w0->tune.beta_ns < 0.2);
	for (r = 1; r < 5; r++) {
		const struct hc_comm *w = hc_comm_world(hc_simrun_ctx(run, r));

		CU_ASSERT(w->tune.alpha_ns == w0->tune.alpha_ns);
		CU_ASSERT(w->tune.beta_ns == w0->tune.beta_ns);
		CU_ASSERT(hc_simrun_ctx(run, r)->tuner.next_seq ==
			  hc_simrun_ctx(run, 0)->tuner.next_seq);
		CU_ASSERT(w->next_seq == 0);
	}
	CU_ASSERT(hc_tune_pick(&w0->shape, &w0->tune, 4096) == HC_ALGO_RD);
	CU_ASSERT(hc_tune_pick(&w0->shape, &w0->tune, 40000) ==
		  HC_ALGO_TREE);
	CU_ASSERT(hc_tune_pick(&w0->shape, &w0->tune, 1 << 20) ==
		  HC_ALGO_RING);
	hc_simrun_destroy(run);
	CU_ASSERT_FATAL(hc_simrun_create(&rc, &run) == 0);
	w0 = hc_comm_world(hc_simrun_ctx(run, 0));
	CU_ASSERT(w0->tune.alpha_ns == 0 && w0->tune.beta_ns == 0);
	hc_simrun_destroy(run);
}

static CU_TestInfo tuner_tests[] = {
	{ "alpha and beta measured on simulated ranks, agreed, picks",
	  test_tuner_sim },
	CU_TEST_INFO_NULL,
};

/* Kernels that are not commutative bit for bit (reduce.h): float MAX of
 * +0 and -0 picks by operand order, a SUM of two NaNs keeps one operand's
 * payload. Every algorithm must still give the same bits on every rank
 * (recursive doubling, where partners compute the result each, orders
 * the operands alike, plan.h own_left); the value is checked too: MAX is
 * a zero, SUM a NaN. n = 2..8, float32 and float64, 64 elements, rank r
 * element i: (r + i) % 2 ? -0 : +0 for MAX; a NaN with payload r + 1
 * where (r + i) % 3 != 0, else 1.0, for SUM. */
static void
signed_zero_nan(uint32_t n, enum hc_algo_id algo, enum hc_dtype d)
{
	enum { CNT = 64 };
	size_t es = hc_dtype_size(d);
	uint8_t in[8][CNT * 8], out[8][CNT * 8];
	uint32_t r, i, k;

	for (k = 0; k < 2; k++) {
		struct hc_simrun *run = world(n, algo,
			algo == HC_ALGO_HIER ? hier_g(n) : 0);
		struct hc_request *req[8] = { NULL };
		int status[8] = { 0 };
		enum hc_op op = k == 0 ? HC_OP_MAX : HC_OP_SUM;

		for (r = 0; r < n; r++) {
			for (i = 0; i < CNT; i++) {
				uint64_t nan64 = 0x7ff8000000000000ull | (r + 1);
				uint32_t nan32 = 0x7fc00000u | (r + 1);
				double z = (r + i) % 2 ? -0.0 : 0.0;

				if (k == 0)
					hc_pattern_store(in[r], d, i, z);
				else if ((r + i) % 3 == 0)
					hc_pattern_store(in[r], d, i, 1.0);
				else if (d == HC_DTYPE_FLOAT32)
					memcpy(in[r] + 4 * i, &nan32, 4);
				else
					memcpy(in[r] + 8 * i, &nan64, 8);
			}
			memset(out[r], 0xa5, sizeof(out[r]));
			CU_ASSERT(hc_iallreduce(hc_comm_world(
				hc_simrun_ctx(run, r)), in[r], out[r], CNT, d,
				op, NULL, &req[r]) == 0);
		}
		CU_ASSERT(hc_simrun_wait(run, req, status, NULL,
					 HC_NS_PER_S) == 0);
		for (r = 0; r < n; r++) {
			int same = memcmp(out[r], out[0], CNT * es) == 0;

			if (!same)
				printf("\n    %s n=%u %s rank %u: other bits "
				       "than rank 0", hc_algo_id_name(algo), n,
				       k == 0 ? "max" : "sum", r);
			CU_ASSERT(same);
			for (i = 0; i < CNT; i++) {
				double v = hc_pattern_load(out[r], d, i);

				CU_ASSERT(k == 0 ? v == 0 : isnan(v));
			}
		}
		hc_simrun_destroy(run);
	}
}

static void
test_signed_zero_nan(void)
{
	uint32_t n, a;

	for (n = 2; n <= 8; n++)
		for (a = 0; a < RTE_DIM(algos); a++) {
			signed_zero_nan(n, algos[a], HC_DTYPE_FLOAT32);
			signed_zero_nan(n, algos[a], HC_DTYPE_FLOAT64);
		}
}

/* ---- C05, C14: ranks that disagree ---------------------------------- */

enum disagree { DIS_COUNT, DIS_ZERO, DIS_DTYPE, DIS_OP, DIS_COLL };

static const char *const disagree_names[] = {
	"count + 1", "count 0", "int64", "max", "all-gather",
};

/* Every rank calls an int32 sum all-reduce of count elements under algo,
 * but the last rank disagrees in one way (C05: its count + 1, count 0,
 * dtype int64 or op max; C14: it calls an all-gather). Every rank's call
 * must end with HC_ERR_MISMATCH, in well under the per-op timeout (0.5 s
 * of virtual time: an ACK-less hang would only end at the timeout),
 * and the next all-reduce with HC_ERR_ABORTED. In recursive doubling no
 * signature packet goes ahead of the data (comm_engine.c op_start): the
 * DATA packets' signatures must tell every rank. */
static void
disagree(uint32_t n, enum hc_algo_id algo, enum disagree how,
	 uint64_t count)
{
	struct hc_simrun *run = world(n, algo,
				      algo == HC_ALGO_HIER ? hier_g(n) : 0);
	struct hc_request *req[8] = { NULL };
	int status[8] = { 0 };
	int64_t *buf[8];
	uint32_t r;
	int bad = 0;

	for (r = 0; r < n; r++) {
		struct hc_comm *c = hc_comm_world(hc_simrun_ctx(run, r));
		int odd = r == n - 1, rc;

		buf[r] = calloc(n * (count + 1), sizeof(int64_t));
		CU_ASSERT_FATAL(buf[r] != NULL);
		if (odd && how == DIS_COLL)
			rc = hc_iallgather(c, (int32_t *)buf[r] + r * count,
					   buf[r], count, HC_DTYPE_INT32, NULL,
					   &req[r]);
		else
			rc = hc_iallreduce(c, buf[r], buf[r],
				!odd ? count : how == DIS_COUNT ? count + 1 :
				how == DIS_ZERO ? 0 : count,
				odd && how == DIS_DTYPE ? HC_DTYPE_INT64 :
				HC_DTYPE_INT32,
				odd && how == DIS_OP ? HC_OP_MAX : HC_OP_SUM,
				NULL, &req[r]);
		CU_ASSERT_FATAL(rc == 0);
	}
	hc_simrun_wait(run, req, status, NULL, HC_NS_PER_S / 2);
	for (r = 0; r < n; r++)
		bad += req[r] != NULL || status[r] != -HC_ERR_MISMATCH;
	if (bad != 0) {
		printf("\n    %s n=%u count %" PRIu64 ", the last rank's %s:",
		       hc_algo_id_name(algo), n, count, disagree_names[how]);
		for (r = 0; r < n; r++)
			printf(" rank %u %s", r, req[r] != NULL ?
			       "not done" : hc_strerror(status[r]));
	}
	CU_ASSERT(bad == 0);
	if (bad == 0) {
		for (r = 0; r < n; r++)
			CU_ASSERT(hc_iallreduce(hc_comm_world(
				hc_simrun_ctx(run, r)), buf[r], buf[r], 1,
				HC_DTYPE_INT32, HC_OP_SUM, NULL, &req[r]) == 0);
		hc_simrun_wait(run, req, status, NULL, HC_NS_PER_S / 2);
		for (r = 0; r < n; r++)
			CU_ASSERT(req[r] == NULL &&
				  status[r] == -HC_ERR_ABORTED);
	}
	for (r = 0; r < n; r++)
		free(buf[r]);
	hc_simrun_destroy(run);
}

/* n = 2..5, every algorithm, every way of disagreeing, 2 elements (the
 * 8-byte all-reduce) and 4097 (several packets). The mismatch errors
 * are expected: the collective log is quiet meanwhile. */
static void
test_disagree(void)
{
	static const uint64_t counts[] = { 2, 4097 };
	uint32_t n, a, h, k;

	rte_log_set_level_pattern("hc.*", RTE_LOG_CRIT);
	for (n = 2; n <= 5; n++)
		for (a = 0; a < RTE_DIM(algos); a++)
			for (h = DIS_COUNT; h <= DIS_COLL; h++)
				for (k = 0; k < RTE_DIM(counts); k++)
					disagree(n, algos[a], (enum disagree)h,
						 counts[k]);
	rte_log_set_level_pattern("hc.*", cunit_bin.hc_log_level);
}

static CU_TestInfo disagree_tests[] = {
	{ "C05/C14 n=2..5, every algorithm: HC_ERR_MISMATCH on every rank, "
	  "then HC_ERR_ABORTED", test_disagree },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo c02_tests[] = {
	{ "C02 all-gather pattern PGATH shows a misplaced slice",
	  test_c02_pgath },
	{ "C02 n=2 (control), every algorithm forced", test_c02_2 },
	{ "C02 n=3", test_c02_3 },
	{ "C02 n=4 (control)", test_c02_4 },
	{ "C02 n=5", test_c02_5 },
	{ "C02 n=6 (hier: 2 groups of 3)", test_c02_6 },
	{ "C02 n=7", test_c02_7 },
	{ "C02 n=8 (control; hier: 2 groups of 4)", test_c02_8 },
	{ "C02 n=12 (hier: 3 groups of 4)", test_c02_12 },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo contract_tests[] = {
	{ "C10 fp16 sum on 6 ranks: +Inf, and 0 for alternating signs",
	  test_c10 },
	{ "C11 bf16 sum on 8 ranks: 256 + 7 x 1 is 264 everywhere", test_c11 },
	{ "C12 int32 avg on 3 ranks truncates the 64-bit sum", test_c12 },
	{ "max of +0/-0, sum of NaN payloads: same bits on every rank",
	  test_signed_zero_nan },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "tuner on sim", NULL, NULL, NULL, NULL, tuner_tests },
	{ "C02 on sim", NULL, NULL, NULL, NULL, c02_tests },
	{ "C10-C12 on sim, every algorithm", NULL, NULL, NULL, NULL,
	  contract_tests },
	{ "[coll] precision on sim", NULL, NULL, NULL, NULL,
	  precision_tests },
	{ "reproducible float sums on sim", NULL, NULL, NULL, NULL,
	  repro_tests },
	{ "C05/C14 mismatches on sim", NULL, NULL, NULL, NULL,
	  disagree_tests },
	CU_SUITE_INFO_NULL,
};

static void
report(double wall_s)
{
	sc_report("simcases", wall_s);
}

const struct cunit_bin cunit_bin = {
	.prog = "test_simcases",
	.mem_mb = "1536",
	.stem = "hcsimcases",
	.hc_log_level = RTE_LOG_WARNING,
	.suites = suites,
	.report = report,
};
