/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction kernels dst[i] = src[i] OP dst[i] for every dtype and op, on
 * vectors with known results: negative numbers, integer wrap-around,
 * float rounding, the documented NaN behaviour of MIN/MAX. src and dst
 * always sit one byte into a char buffer (unaligned), with guard bytes
 * around dst that must stay untouched.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "reduce.h"
#include "suites.h"

#define MAXN 8		/* elements per vector at most */
#define GUARD 0xa5	/* bytes around dst */

/*
 * Run the (dtype, op) kernel on n elements of elem bytes: src and dst are
 * copied to odd addresses, the kernel runs there, the result is copied to
 * out. Returns 0, or -1 when the kernel is missing or wrote outside dst.
 */
static int
run_kernel(enum hc_dtype dtype, enum hc_op op, size_t elem, const void *src,
	   const void *dst, void *out, unsigned int n)
{
	static char sbuf[1 + MAXN * 8];
	static char dbuf[1 + MAXN * 8 + 8];
	hc_reduce_fn fn = hc_reduce_get(dtype, op);
	size_t bytes = n * elem, i;

	CU_ASSERT_PTR_NOT_NULL(fn);
	if (fn == NULL)
		return -1;
	memset(sbuf, 0x5a, sizeof(sbuf));
	memset(dbuf, GUARD, sizeof(dbuf));
	memcpy(sbuf + 1, src, bytes);
	memcpy(dbuf + 1, dst, bytes);
	fn(dbuf + 1, sbuf + 1, n);
	memcpy(out, dbuf + 1, bytes);
	if ((unsigned char)dbuf[0] != GUARD)
		return -1;
	for (i = 1 + bytes; i < sizeof(dbuf); i++)
		if ((unsigned char)dbuf[i] != GUARD)
			return -1;
	/* src is read only */
	return memcmp(sbuf + 1, src, bytes) == 0 ? 0 : -1;
}

/* Typed runners: check every element against expect[]. */
#define DEFINE_RUN(name, T, dtype, fmt)                                      \
static void                                                                  \
name(enum hc_op op, const T *src, const T *dst, const T *expect,             \
     unsigned int n)                                                         \
{                                                                            \
	T out[MAXN];                                                         \
	unsigned int i;                                                      \
                                                                             \
	CU_ASSERT_EQUAL(run_kernel(dtype, op, sizeof(T), src, dst, out, n), \
			0);                                                  \
	for (i = 0; i < n; i++) {                                            \
		CU_ASSERT_EQUAL(out[i], expect[i]);                          \
		if (out[i] != expect[i])                                     \
			fprintf(stderr, "\n  %s op %d [%u]: got " fmt        \
				", want " fmt "\n", #T, (int)op, i, out[i],  \
				expect[i]);                                  \
	}                                                                    \
}

DEFINE_RUN(run_i32, int32_t, HC_DTYPE_INT32, "%" PRId32)
DEFINE_RUN(run_i64, int64_t, HC_DTYPE_INT64, "%" PRId64)
DEFINE_RUN(run_f32, float, HC_DTYPE_FLOAT32, "%a")
DEFINE_RUN(run_f64, double, HC_DTYPE_FLOAT64, "%a")

static void
test_int32(void)
{
	static const int32_t sum_s[] = { 1, -5, INT32_MAX, INT32_MIN, -1, 100 };
	static const int32_t sum_d[] = { 2, 3, 1, -1, -1, -300 };
	static const int32_t sum_e[] = { 3, -2, INT32_MIN, INT32_MAX, -2,
					 -200 };
	static const int32_t prod_s[] = { 3, -4, INT32_MAX, 65536, -1, 0 };
	static const int32_t prod_d[] = { 7, 5, 2, 65536, INT32_MIN, 9 };
	static const int32_t prod_e[] = { 21, -20, -2, 0, INT32_MIN, 0 };
	static const int32_t mm_s[] = { 1, -5, INT32_MIN, 7, 0 };
	static const int32_t mm_d[] = { 2, -6, INT32_MAX, 7, -1 };
	static const int32_t min_e[] = { 1, -6, INT32_MIN, 7, -1 };
	static const int32_t max_e[] = { 2, -5, INT32_MAX, 7, 0 };

	run_i32(HC_OP_SUM, sum_s, sum_d, sum_e, 6);
	run_i32(HC_OP_PROD, prod_s, prod_d, prod_e, 6);
	run_i32(HC_OP_MIN, mm_s, mm_d, min_e, 5);
	run_i32(HC_OP_MAX, mm_s, mm_d, max_e, 5);
}

static void
test_int64(void)
{
	static const int64_t sum_s[] = { 1, -5, INT64_MAX, 0x100000000LL, -1,
					 0xffffffffLL };
	static const int64_t sum_d[] = { 2, 3, 1, 0x100000000LL, INT64_MIN,
					 1 };
	static const int64_t sum_e[] = { 3, -2, INT64_MIN, 0x200000000LL,
					 INT64_MAX, 0x100000000LL };
	static const int64_t prod_s[] = { 3, -4, 0x100000000LL, INT64_MAX,
					  0x100000001LL, -1 };
	static const int64_t prod_d[] = { 7, 5, 0x100000000LL, 2, 3,
					  INT64_MIN };
	static const int64_t prod_e[] = { 21, -20, 0, -2, 0x300000003LL,
					  INT64_MIN };
	static const int64_t mm_s[] = { -0x100000000LL, INT64_MAX, 5,
					INT64_MIN };
	static const int64_t mm_d[] = { -1, 0x100000000LL, -5, 0 };
	static const int64_t min_e[] = { -0x100000000LL, 0x100000000LL, -5,
					 INT64_MIN };
	static const int64_t max_e[] = { -1, INT64_MAX, 5, 0 };

	run_i64(HC_OP_SUM, sum_s, sum_d, sum_e, 6);
	run_i64(HC_OP_PROD, prod_s, prod_d, prod_e, 6);
	run_i64(HC_OP_MIN, mm_s, mm_d, min_e, 4);
	run_i64(HC_OP_MAX, mm_s, mm_d, max_e, 4);
}

/* Float32 accumulates in float: 2^24 + 1 rounds back to 2^24. */
static void
test_float32(void)
{
	static const float sum_s[] = { 1.5f, -2.25f, 1024.0f, 0.5f,
				       16777216.0f };
	static const float sum_d[] = { 2.0f, 0.25f, 1024.0f, -0.5f, 1.0f };
	static const float sum_e[] = { 3.5f, -2.0f, 2048.0f, 0.0f,
				       16777216.0f };
	static const float prod_s[] = { 1.5f, -2.0f, 0.5f, -3.0f, 0x1p100f };
	static const float prod_d[] = { 4.0f, 3.5f, 0.25f, -0.5f, 0x1p100f };
	static const float prod_e[] = { 6.0f, -7.0f, 0.125f, 1.5f, INFINITY };
	static const float mm_s[] = { 1.5f, -2.0f, 3.0f, -7.25f, -INFINITY };
	static const float mm_d[] = { 2.5f, -3.0f, 3.0f, 1.0f, 0.0f };
	static const float min_e[] = { 1.5f, -3.0f, 3.0f, -7.25f, -INFINITY };
	static const float max_e[] = { 2.5f, -2.0f, 3.0f, 1.0f, 0.0f };

	run_f32(HC_OP_SUM, sum_s, sum_d, sum_e, 5);
	run_f32(HC_OP_PROD, prod_s, prod_d, prod_e, 5);
	run_f32(HC_OP_MIN, mm_s, mm_d, min_e, 5);
	run_f32(HC_OP_MAX, mm_s, mm_d, max_e, 5);
}

/* Float64 keeps 2^24 + 1 exact; 2^53 + 1 rounds back to 2^53. */
static void
test_float64(void)
{
	static const double sum_s[] = { 1.5, -2.25, 0x1p53, 16777216.0, -0.5 };
	static const double sum_d[] = { 2.0, 0.25, 1.0, 1.0, -1e300 };
	static const double sum_e[] = { 3.5, -2.0, 0x1p53, 16777217.0,
					-1e300 };
	static const double prod_s[] = { 1.5, -2.0, 0.5, 0x1p600, 0x1p100 };
	static const double prod_d[] = { 4.0, 3.5, 0.25, 0x1p600, 0x1p100 };
	static const double prod_e[] = { 6.0, -7.0, 0.125, INFINITY,
					 0x1p200 };
	static const double mm_s[] = { 1.5, -2.0, 3.0, -7.25, 1e-300 };
	static const double mm_d[] = { 2.5, -3.0, 3.0, 1.0, -1e-300 };
	static const double min_e[] = { 1.5, -3.0, 3.0, -7.25, -1e-300 };
	static const double max_e[] = { 2.5, -2.0, 3.0, 1.0, 1e-300 };

	run_f64(HC_OP_SUM, sum_s, sum_d, sum_e, 5);
	run_f64(HC_OP_PROD, prod_s, prod_d, prod_e, 5);
	run_f64(HC_OP_MIN, mm_s, mm_d, min_e, 5);
	run_f64(HC_OP_MAX, mm_s, mm_d, max_e, 5);
}

/* MIN/MAX are `src < dst ? src : dst` (resp. >): with a NaN on either
 * side the comparison is false and dst is kept. */
static void
test_float_nan(void)
{
	const float fs[] = { NAN, 1.0f }, fd[] = { 1.0f, NAN };
	const double ds[] = { NAN, 1.0 }, dd[] = { 1.0, NAN };
	float fo[2];
	double dout[2];
	enum hc_op op;

	/* The contract (hypercomm.h): MIN and MAX propagate a NaN from
	 * either operand. */
	for (op = HC_OP_MIN; op <= HC_OP_MAX; op++) {
		CU_ASSERT_EQUAL(run_kernel(HC_DTYPE_FLOAT32, op, sizeof(float),
					   fs, fd, fo, 2), 0);
		CU_ASSERT_TRUE(isnan(fo[0]));
		CU_ASSERT_TRUE(isnan(fo[1]));
		CU_ASSERT_EQUAL(run_kernel(HC_DTYPE_FLOAT64, op,
					   sizeof(double), ds, dd, dout, 2), 0);
		CU_ASSERT_TRUE(isnan(dout[0]));
		CU_ASSERT_TRUE(isnan(dout[1]));
	}
	/* SUM propagates a NaN from either side */
	CU_ASSERT_EQUAL(run_kernel(HC_DTYPE_FLOAT64, HC_OP_SUM, sizeof(double),
				   ds, dd, dout, 2), 0);
	CU_ASSERT_TRUE(isnan(dout[0]));
	CU_ASSERT_TRUE(isnan(dout[1]));
}

/* n = 0 writes nothing: every byte of dst stays a guard byte. */
static void
test_empty(void)
{
	static const int64_t s[] = { 5 }, d[] = { 7 };
	int64_t out[1];

	CU_ASSERT_EQUAL(run_kernel(HC_DTYPE_INT64, HC_OP_SUM, 8, s, d, out, 0),
			0);
	CU_ASSERT_EQUAL(run_kernel(HC_DTYPE_FLOAT32, HC_OP_MAX, 4, s, d, out,
				   0), 0);
}

static void
test_get_range(void)
{
	enum hc_dtype t;
	enum hc_op op;

	/* 16-bit floats are never accumulation types: no kernels. */
	for (t = 0; t < HC_DTYPE__MAX; t++)
		for (op = 0; op < HC_OP__MAX; op++)
			if (t == HC_DTYPE_FLOAT16 || t == HC_DTYPE_BFLOAT16) {
				CU_ASSERT_PTR_NULL(hc_reduce_get(t, op));
			} else {
				CU_ASSERT_PTR_NOT_NULL(hc_reduce_get(t, op));
			}
	CU_ASSERT_PTR_NULL(hc_reduce_get(HC_DTYPE__MAX, HC_OP_SUM));
	CU_ASSERT_PTR_NULL(hc_reduce_get((enum hc_dtype)100, HC_OP_SUM));
	CU_ASSERT_PTR_NULL(hc_reduce_get((enum hc_dtype)-1, HC_OP_SUM));
	CU_ASSERT_PTR_NULL(hc_reduce_get(HC_DTYPE_INT32, HC_OP__MAX));
	CU_ASSERT_PTR_NULL(hc_reduce_get(HC_DTYPE_FLOAT64, (enum hc_op)-1));
	CU_ASSERT_PTR_NULL(hc_reduce_get(HC_DTYPE__MAX, HC_OP__MAX));
	/* distinct kernels for distinct pairs */
	CU_ASSERT_PTR_NOT_EQUAL(hc_reduce_get(HC_DTYPE_INT32, HC_OP_SUM),
				hc_reduce_get(HC_DTYPE_INT64, HC_OP_SUM));
	CU_ASSERT_PTR_NOT_EQUAL(hc_reduce_get(HC_DTYPE_FLOAT32, HC_OP_MIN),
				hc_reduce_get(HC_DTYPE_FLOAT32, HC_OP_MAX));
}

static const CU_TestInfo reduce_tests[] = {
	{ "int32 sum/prod/min/max, wrap-around", test_int32 },
	{ "int64 sum/prod/min/max, wrap-around", test_int64 },
	{ "float32 sum/prod/min/max", test_float32 },
	{ "float64 sum/prod/min/max", test_float64 },
	{ "float min/max propagate NaN", test_float_nan },
	{ "n = 0 writes nothing", test_empty },
	{ "hc_reduce_get: NULL out of range", test_get_range },
	CU_TEST_INFO_NULL,
};

void
add_reduce_suite(void)
{
	unit_add_suite("reduce", NULL, NULL, reduce_tests);
}
