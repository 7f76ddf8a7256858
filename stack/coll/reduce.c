/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "half.h"
#include "reduce.h"

/* Loads and stores through memcpy: legal for any alignment, and compiled
 * to plain (vectorisable) moves on x86-64 and arm64. Integer sum and
 * product go through the unsigned type so that wrap-around is defined. */
#define HC_SUM(a, b) ((a) + (b))
#define HC_PROD(a, b) ((a) * (b))
#define HC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HC_MAX(a, b) ((a) > (b) ? (a) : (b))
/* NaN-propagating: a != a only for NaN. */
#define HC_FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define HC_FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))

#define HC_KERNEL(name, T, U, OP)                                            \
	static void name(void *dst, const void *src, uint64_t n)             \
	{                                                                    \
		uint8_t *d = dst;                                            \
		const uint8_t *s = src;                                      \
		uint64_t i;                                                  \
		for (i = 0; i < n; i++) {                                    \
			T a, b, r;                                           \
			memcpy(&a, s + i * sizeof(T), sizeof(T));            \
			memcpy(&b, d + i * sizeof(T), sizeof(T));            \
			r = (T)OP((U)a, (U)b);                               \
			memcpy(d + i * sizeof(T), &r, sizeof(T));            \
		}                                                            \
	}

/* Integers: SUM/PROD through the unsigned type, MIN/MAX in T itself. */
#define HC_INT_KERNELS(t, T, U)                                              \
	HC_KERNEL(sum_##t, T, U, HC_SUM)                                     \
	HC_KERNEL(prod_##t, T, U, HC_PROD)                                   \
	HC_KERNEL(min_##t, T, T, HC_MIN)                                     \
	HC_KERNEL(max_##t, T, T, HC_MAX)
#define HC_FLOAT_KERNELS(t, T)                                               \
	HC_KERNEL(sum_##t, T, T, HC_SUM)                                     \
	HC_KERNEL(prod_##t, T, T, HC_PROD)                                   \
	HC_KERNEL(min_##t, T, T, HC_FMIN)                                    \
	HC_KERNEL(max_##t, T, T, HC_FMAX)

HC_INT_KERNELS(i8, int8_t, uint8_t)
HC_INT_KERNELS(u8, uint8_t, uint8_t)
HC_INT_KERNELS(i32, int32_t, uint32_t)
HC_INT_KERNELS(u32, uint32_t, uint32_t)
HC_INT_KERNELS(i64, int64_t, uint64_t)
HC_INT_KERNELS(u64, uint64_t, uint64_t)
HC_FLOAT_KERNELS(f32, float)
HC_FLOAT_KERNELS(f64, double)

/* Columns: SUM, PROD, MIN, MAX, AVG (= SUM in the accumulation type). */
#define ROW(t) { sum_##t, prod_##t, min_##t, max_##t, sum_##t }
static const hc_reduce_fn kernels[HC_DTYPE__MAX][HC_OP__MAX] = {
	[HC_DTYPE_INT8] = ROW(i8),
	[HC_DTYPE_UINT8] = ROW(u8),
	[HC_DTYPE_INT32] = ROW(i32),
	[HC_DTYPE_UINT32] = ROW(u32),
	[HC_DTYPE_INT64] = ROW(i64),
	[HC_DTYPE_UINT64] = ROW(u64),
	[HC_DTYPE_FLOAT32] = ROW(f32),
	[HC_DTYPE_FLOAT64] = ROW(f64),
};
#undef ROW

hc_reduce_fn
hc_reduce_get(enum hc_dtype acc, enum hc_op op)
{
	if ((unsigned int)acc >= HC_DTYPE__MAX || (unsigned int)op >= HC_OP__MAX)
		return NULL;
	return kernels[acc][op];
}

enum hc_dtype
hc_reduce_acc_dtype(enum hc_dtype dtype, enum hc_op op)
{
	switch (dtype) {
	case HC_DTYPE_FLOAT16:
	case HC_DTYPE_BFLOAT16:
		return HC_DTYPE_FLOAT32;
	case HC_DTYPE_INT8:
	case HC_DTYPE_INT32:
		return op == HC_OP_AVG ? HC_DTYPE_INT64 : dtype;
	case HC_DTYPE_UINT8:
	case HC_DTYPE_UINT32:
		return op == HC_OP_AVG ? HC_DTYPE_UINT64 : dtype;
	default:
		return dtype;
	}
}

/* Element i of a buffer of dtype, widened: integers to int64/uint64 by
 * their signedness, floats to float (16-bit, 32-bit) or double. */
union hc_wide {
	int64_t i;
	uint64_t u;
	float f;
	double d;
};

static union hc_wide
load(const uint8_t *p, enum hc_dtype t, uint64_t i)
{
	union hc_wide w;
	int8_t i8; uint8_t u8; int32_t i32; uint32_t u32; uint16_t h;

	switch (t) {
	case HC_DTYPE_INT8: memcpy(&i8, p + i, 1); w.i = i8; break;
	case HC_DTYPE_UINT8: memcpy(&u8, p + i, 1); w.u = u8; break;
	case HC_DTYPE_INT32: memcpy(&i32, p + 4 * i, 4); w.i = i32; break;
	case HC_DTYPE_UINT32: memcpy(&u32, p + 4 * i, 4); w.u = u32; break;
	case HC_DTYPE_INT64: memcpy(&w.i, p + 8 * i, 8); break;
	case HC_DTYPE_UINT64: memcpy(&w.u, p + 8 * i, 8); break;
	case HC_DTYPE_FLOAT16: memcpy(&h, p + 2 * i, 2); w.f = hc_f16_to_f32(h); break;
	case HC_DTYPE_BFLOAT16: memcpy(&h, p + 2 * i, 2); w.f = hc_bf16_to_f32(h); break;
	case HC_DTYPE_FLOAT32: memcpy(&w.f, p + 4 * i, 4); break;
	default: memcpy(&w.d, p + 8 * i, 8); break;
	}
	return w;
}

static void
store(uint8_t *p, enum hc_dtype t, uint64_t i, union hc_wide w)
{
	int8_t i8; uint8_t u8; int32_t i32; uint32_t u32; uint16_t h;

	switch (t) {
	case HC_DTYPE_INT8: i8 = (int8_t)w.i; memcpy(p + i, &i8, 1); break;
	case HC_DTYPE_UINT8: u8 = (uint8_t)w.u; memcpy(p + i, &u8, 1); break;
	case HC_DTYPE_INT32: i32 = (int32_t)w.i; memcpy(p + 4 * i, &i32, 4); break;
	case HC_DTYPE_UINT32: u32 = (uint32_t)w.u; memcpy(p + 4 * i, &u32, 4); break;
	case HC_DTYPE_INT64: memcpy(p + 8 * i, &w.i, 8); break;
	case HC_DTYPE_UINT64: memcpy(p + 8 * i, &w.u, 8); break;
	case HC_DTYPE_FLOAT16: h = hc_f32_to_f16(w.f); memcpy(p + 2 * i, &h, 2); break;
	case HC_DTYPE_BFLOAT16: h = hc_f32_to_bf16(w.f); memcpy(p + 2 * i, &h, 2); break;
	case HC_DTYPE_FLOAT32: memcpy(p + 4 * i, &w.f, 4); break;
	default: memcpy(p + 8 * i, &w.d, 8); break;
	}
}

void
hc_reduce_to_acc(void *dst, const void *src, uint64_t n, enum hc_dtype dtype,
		 enum hc_dtype acc)
{
	uint64_t i;

	/* Widening keeps the value: the union member that load() fills is
	 * the one store() reads for the accumulation type. */
	for (i = 0; i < n; i++)
		store(dst, acc, i, load(src, dtype, i));
}

void
hc_reduce_from_acc(void *dst, const void *src, uint64_t n, enum hc_dtype dtype,
		   enum hc_dtype acc, uint32_t divisor)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		union hc_wide w = load(src, acc, i);

		if (divisor > 1) {
			switch (acc) {
			case HC_DTYPE_FLOAT32: w.f /= (float)divisor; break;
			case HC_DTYPE_FLOAT64: w.d /= divisor; break;
			case HC_DTYPE_UINT8: case HC_DTYPE_UINT32:
			case HC_DTYPE_UINT64: w.u /= divisor; break;
			default: w.i /= (int64_t)divisor; break; /* toward 0 */
			}
		}
		store(dst, dtype, i, w);
	}
}
