/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scalar kernel set: the reference semantics of reduce.h in plain C,
 * one element at a time (the compiler may vectorise the simple loops; the
 * result is the same). Every other kernel set is tested bit for bit
 * against this one.
 */
#include "reduce_impl.h"

#define K3(name, T)                                                          \
	static void                                                          \
	k3_##name(void *dst, const void *a, const void *b, uint64_t n)       \
	{                                                                    \
		uint8_t *d = dst;                                            \
		const uint8_t *x = a, *y = b;                                \
		uint64_t i;                                                  \
									     \
		for (i = 0; i < n; i++)                                      \
			HC_E3(name, T, d, x, y, i);                          \
	}                                                                    \
	static __attribute__((unused)) void                                  \
	k2_##name(void *dst, const void *src, uint64_t n)                    \
	{                                                                    \
		k3_##name(dst, src, dst, n);                                 \
	}
#define K3_ROW(t, T)                                                         \
	K3(sum_##t, T) K3(prod_##t, T) K3(min_##t, T) K3(max_##t, T)

K3_ROW(i8, int8_t)
K3_ROW(u8, uint8_t)
K3_ROW(i32, int32_t)
K3_ROW(u32, uint32_t)
K3_ROW(i64, int64_t)
K3_ROW(u64, uint64_t)
K3_ROW(f32, float)
K3_ROW(f64, double)
K3_ROW(f16, uint16_t)
K3_ROW(bf16, uint16_t)

static void
f16_to_f32(float *dst, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	uint64_t i;
	uint16_t h;
	float f;

	for (i = 0; i < n; i++) {
		memcpy(&h, s + 2 * i, 2);
		f = hc_f16_to_f32(h);
		memcpy((uint8_t *)dst + 4 * i, &f, 4);
	}
}

static void
bf16_to_f32(float *dst, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	uint64_t i;
	uint16_t h;
	float f;

	for (i = 0; i < n; i++) {
		memcpy(&h, s + 2 * i, 2);
		f = hc_bf16_to_f32(h);
		memcpy((uint8_t *)dst + 4 * i, &f, 4);
	}
}

/* src may be unaligned as well (callers pass byte pointers): memcpy. */
static void
f32_to_f16(void *dst, const float *src, uint64_t n, uint32_t divisor)
{
	uint8_t *d = dst;
	const uint8_t *s = (const uint8_t *)src;
	uint64_t i;
	uint16_t h;
	float f;

	for (i = 0; i < n; i++) {
		memcpy(&f, s + 4 * i, 4);
		h = hc_f32_to_f16(hc_e_div_f32(f, divisor));
		memcpy(d + 2 * i, &h, 2);
	}
}

static void
f32_to_bf16(void *dst, const float *src, uint64_t n, uint32_t divisor)
{
	uint8_t *d = dst;
	const uint8_t *s = (const uint8_t *)src;
	uint64_t i;
	uint16_t h;
	float f;

	for (i = 0; i < n; i++) {
		memcpy(&f, s + 4 * i, 4);
		h = hc_f32_to_bf16(hc_e_div_f32(f, divisor));
		memcpy(d + 2 * i, &h, 2);
	}
}

static void
f32_div(void *dst, const float *src, uint64_t n, uint32_t divisor)
{
	uint8_t *d = dst;
	const uint8_t *s = (const uint8_t *)src;
	uint64_t i;
	float f;

	for (i = 0; i < n; i++) {
		memcpy(&f, s + 4 * i, 4);
		f = hc_e_div_f32(f, divisor);
		memcpy(d + 4 * i, &f, 4);
	}
}

/* Columns: SUM, PROD, MIN, MAX, AVG (= SUM in the accumulation type). */
#define ROW(k, t) { k##_sum_##t, k##_prod_##t, k##_min_##t, k##_max_##t,     \
		    k##_sum_##t }
#define ROWS(k) \
	[HC_DTYPE_INT8] = ROW(k, i8),                                        \
	[HC_DTYPE_UINT8] = ROW(k, u8),                                       \
	[HC_DTYPE_INT32] = ROW(k, i32),                                      \
	[HC_DTYPE_UINT32] = ROW(k, u32),                                     \
	[HC_DTYPE_INT64] = ROW(k, i64),                                      \
	[HC_DTYPE_UINT64] = ROW(k, u64),                                     \
	[HC_DTYPE_FLOAT32] = ROW(k, f32),                                    \
	[HC_DTYPE_FLOAT64] = ROW(k, f64)

const struct hc_reduce_ops hc_reduce_scalar_ops = {
	.name = "scalar",
	.k2 = { ROWS(k2) },
	.k3 = { ROWS(k3),
		[HC_DTYPE_FLOAT16] = ROW(k3, f16),
		[HC_DTYPE_BFLOAT16] = ROW(k3, bf16) },
	.f16_to_f32 = f16_to_f32,
	.bf16_to_f32 = bf16_to_f32,
	.f32_to_f16 = f32_to_f16,
	.f32_to_bf16 = f32_to_bf16,
	.f32_div = f32_div,
};
