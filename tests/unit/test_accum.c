/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The accumulation contract of reduce.h and the 16-bit float conversions
 * of half.h: field cases C10 (fp16 overflow), C11 (bf16 small addends),
 * C12 (integer AVG) at the kernel level, and the 8-bit kernels.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "half.h"
#include "reduce.h"
#include "suites.h"

static void
test_f16_vectors(void)
{
	CU_ASSERT_EQUAL(hc_f32_to_f16(1.0f), 0x3c00);
	CU_ASSERT_EQUAL(hc_f32_to_f16(-2.0f), 0xc000);
	CU_ASSERT_EQUAL(hc_f32_to_f16(65504.0f), 0x7bff);       /* max */
	CU_ASSERT_EQUAL(hc_f32_to_f16(65519.0f), 0x7bff);       /* below tie */
	CU_ASSERT_EQUAL(hc_f32_to_f16(65520.0f), 0x7c00);       /* tie -> inf */
	CU_ASSERT_EQUAL(hc_f32_to_f16(144000.0f), 0x7c00);
	CU_ASSERT_EQUAL(hc_f32_to_f16(0x1p-24f), 0x0001);       /* min subnormal */
	CU_ASSERT_EQUAL(hc_f32_to_f16(0x1p-25f), 0x0000);       /* tie -> even 0 */
	CU_ASSERT_EQUAL(hc_f32_to_f16(0x1.8p-24f), 0x0002);     /* tie -> even 2 */
	CU_ASSERT_EQUAL(hc_f32_to_f16(0x1p-14f), 0x0400);       /* min normal */
	CU_ASSERT_EQUAL(hc_f32_to_f16(1.0f + 0x1p-11f), 0x3c00); /* tie -> even */
	CU_ASSERT_EQUAL(hc_f32_to_f16(1.0f + 0x3p-11f), 0x3c02); /* tie -> even */
	CU_ASSERT_EQUAL(hc_f32_to_f16(24000.0f), 0x75dc);
	CU_ASSERT_EQUAL(hc_f16_to_f32(0x75dc), 24000.0f);
	CU_ASSERT_EQUAL(hc_f16_to_f32(0x0001), 0x1p-24f);
	CU_ASSERT_EQUAL(hc_f16_to_f32(0xfc00), -INFINITY);
	CU_ASSERT_TRUE(isnan(hc_f16_to_f32(hc_f32_to_f16(NAN))));
}

/* Every binary16 value converts to float32 and back unchanged. */
static void
test_f16_round_trip(void)
{
	uint32_t h, bad = 0;

	for (h = 0; h < 0x10000; h++) {
		float f = hc_f16_to_f32((uint16_t)h);

		if (isnan(f))
			bad += !isnan(hc_f16_to_f32(hc_f32_to_f16(f)));
		else
			bad += hc_f32_to_f16(f) != h;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_bf16_vectors(void)
{
	CU_ASSERT_EQUAL(hc_f32_to_bf16(1.0f), 0x3f80);
	CU_ASSERT_EQUAL(hc_f32_to_bf16(256.0f), 0x4380);
	CU_ASSERT_EQUAL(hc_f32_to_bf16(257.0f), 0x4380);        /* tie -> even */
	CU_ASSERT_EQUAL(hc_f32_to_bf16(259.0f), 0x4382);        /* tie -> even */
	CU_ASSERT_EQUAL(hc_f32_to_bf16(263.0f), 0x4384);        /* 264 */
	CU_ASSERT_EQUAL(hc_bf16_to_f32(0x4384), 264.0f);
	CU_ASSERT_TRUE(isnan(hc_bf16_to_f32(hc_f32_to_bf16(NAN))));
	CU_ASSERT_EQUAL(hc_f32_to_bf16(INFINITY), 0x7f80);
}

static void
test_acc_dtypes(void)
{
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_FLOAT16, HC_OP_SUM),
			HC_DTYPE_FLOAT32);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_BFLOAT16, HC_OP_MAX),
			HC_DTYPE_FLOAT32);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_INT32, HC_OP_AVG),
			HC_DTYPE_INT64);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_INT8, HC_OP_AVG),
			HC_DTYPE_INT64);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_UINT8, HC_OP_AVG),
			HC_DTYPE_UINT64);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_INT32, HC_OP_SUM),
			HC_DTYPE_INT32);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_FLOAT32, HC_OP_AVG),
			HC_DTYPE_FLOAT32);
	CU_ASSERT_EQUAL(hc_reduce_acc_dtype(HC_DTYPE_UINT64, HC_OP_AVG),
			HC_DTYPE_UINT64);
}

/* Reduce one element per rank the way the ring does: widen, accumulate
 * with the kernel, round back once. */
static void
fold(const void *vals, int n, enum hc_dtype t, enum hc_op op, void *out)
{
	enum hc_dtype acc = hc_reduce_acc_dtype(t, op);
	size_t es = hc_dtype_size(t);
	uint8_t a[8], b[8];
	int r;

	hc_reduce_to_acc(a, vals, 1, t, acc);
	for (r = 1; r < n; r++) {
		hc_reduce_to_acc(b, (const uint8_t *)vals + r * es, 1, t, acc);
		hc_reduce_get(acc, op)(a, b, 1);
	}
	hc_reduce_from_acc(out, a, 1, t, acc, op == HC_OP_AVG ? n : 1);
}

/* C10: fp16 SUM of +24000 on 6 ranks is 144000, not representable: +Inf;
 * alternating +-24000 is 0 (no intermediate overflow in float32). */
static void
test_c10_fp16(void)
{
	uint16_t v[6], out;
	int r;

	for (r = 0; r < 6; r++)
		v[r] = hc_f32_to_f16(24000.0f);
	fold(v, 6, HC_DTYPE_FLOAT16, HC_OP_SUM, &out);
	CU_ASSERT_EQUAL(out, 0x7c00);
	for (r = 0; r < 6; r++)
		v[r] = hc_f32_to_f16(r % 2 ? -24000.0f : 24000.0f);
	/* an order in which 16-bit partial sums would overflow: +,+,+,-,-,- */
	v[0] = v[1] = v[2] = hc_f32_to_f16(24000.0f);
	v[3] = v[4] = v[5] = hc_f32_to_f16(-24000.0f);
	fold(v, 6, HC_DTYPE_FLOAT16, HC_OP_SUM, &out);
	CU_ASSERT_EQUAL(hc_f16_to_f32(out), 0.0f);
}

/* C11: bf16 SUM, rank 0 holds 256, ranks 1..7 hold 1.0: 264 (correctly
 * rounded 263), in either order; 256 would mean the 1s were lost. */
static void
test_c11_bf16(void)
{
	uint16_t v[8], out;
	int r;

	for (r = 0; r < 8; r++)
		v[r] = hc_f32_to_bf16(r == 0 ? 256.0f : 1.0f);
	fold(v, 8, HC_DTYPE_BFLOAT16, HC_OP_SUM, &out);
	CU_ASSERT_EQUAL(hc_bf16_to_f32(out), 264.0f);
	v[0] = hc_f32_to_bf16(1.0f);
	v[7] = hc_f32_to_bf16(256.0f);
	fold(v, 8, HC_DTYPE_BFLOAT16, HC_OP_SUM, &out);
	CU_ASSERT_EQUAL(hc_bf16_to_f32(out), 264.0f);
}

/* C12: integer AVG on 3 ranks: the 64-bit sum truncated toward zero. */
static void
test_c12_int_avg(void)
{
	const int32_t a[] = { 7, 8, 10 }, b[] = { -7, -8, -10 }, c[] = { 1, 1, 1 },
		      d[] = { INT32_MAX, INT32_MAX, INT32_MAX };
	const uint8_t e[] = { 255, 255, 254 };
	const int8_t f[] = { -128, -128, -127 };
	int32_t out;
	uint8_t u8;
	int8_t i8;

	fold(a, 3, HC_DTYPE_INT32, HC_OP_AVG, &out);
	CU_ASSERT_EQUAL(out, 8);
	fold(b, 3, HC_DTYPE_INT32, HC_OP_AVG, &out);
	CU_ASSERT_EQUAL(out, -8);
	fold(c, 3, HC_DTYPE_INT32, HC_OP_AVG, &out);
	CU_ASSERT_EQUAL(out, 1);
	fold(d, 3, HC_DTYPE_INT32, HC_OP_AVG, &out);
	CU_ASSERT_EQUAL(out, INT32_MAX);
	fold(e, 3, HC_DTYPE_UINT8, HC_OP_AVG, &u8);
	CU_ASSERT_EQUAL(u8, 254);
	fold(f, 3, HC_DTYPE_INT8, HC_OP_AVG, &i8);
	CU_ASSERT_EQUAL(i8, -127);
}

static void
test_float_avg(void)
{
	const float a[] = { 1.0f, 2.0f, 4.0f, 8.0f };
	const uint16_t h[] = { 0x3c00, 0x4000 }; /* 1, 2 */
	float out;
	uint16_t hout;

	fold(a, 4, HC_DTYPE_FLOAT32, HC_OP_AVG, &out);
	CU_ASSERT_EQUAL(out, 3.75f);
	fold(h, 2, HC_DTYPE_FLOAT16, HC_OP_AVG, &hout);
	CU_ASSERT_EQUAL(hc_f16_to_f32(hout), 1.5f);
}

/* 8-bit kernels: wrap-around, and signed vs unsigned order. */
static void
test_8bit(void)
{
	int8_t i[2] = { 127, -56 }, j[2] = { 1, 100 };
	uint8_t u[2] = { 255, 200 }, v[2] = { 1, 100 };

	hc_reduce_get(HC_DTYPE_INT8, HC_OP_SUM)(j, i, 2);
	CU_ASSERT_EQUAL(j[0], -128);
	CU_ASSERT_EQUAL(j[1], 44);
	hc_reduce_get(HC_DTYPE_UINT8, HC_OP_SUM)(v, u, 2);
	CU_ASSERT_EQUAL(v[0], 0);
	CU_ASSERT_EQUAL(v[1], 44);
	j[0] = 1;
	j[1] = 100;
	hc_reduce_get(HC_DTYPE_INT8, HC_OP_MIN)(j, i, 2);
	CU_ASSERT_EQUAL(j[0], 1);
	CU_ASSERT_EQUAL(j[1], -56);
	v[0] = 1;
	v[1] = 100;
	hc_reduce_get(HC_DTYPE_UINT8, HC_OP_MAX)(v, u, 2);
	CU_ASSERT_EQUAL(v[0], 255);
	CU_ASSERT_EQUAL(v[1], 200);
}

static const CU_TestInfo accum_tests[] = {
	{ "float16 conversion vectors (RNE, subnormals, inf, NaN)",
	  test_f16_vectors },
	{ "float16 -> float32 -> float16 is exact for all 65536 values",
	  test_f16_round_trip },
	{ "bfloat16 conversion vectors", test_bf16_vectors },
	{ "accumulation dtypes", test_acc_dtypes },
	{ "C10 fp16 sum overflows to +Inf, alternating sum is 0",
	  test_c10_fp16 },
	{ "C11 bf16 sum of 256 and seven 1s is 264", test_c11_bf16 },
	{ "C12 integer avg truncates the 64-bit sum", test_c12_int_avg },
	{ "float avg", test_float_avg },
	{ "int8/uint8 kernels wrap and order by signedness", test_8bit },
	CU_TEST_INFO_NULL,
};

void
add_accum_suite(void)
{
	unit_add_suite("accum", NULL, NULL, accum_tests);
}
