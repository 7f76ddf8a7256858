/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "reduce.h"

/* Loads and stores through memcpy: legal for any alignment, and compiled
 * to plain (vectorisable) moves on x86-64 and arm64. Integer sum and
 * product go through the unsigned type so that wrap-around is defined. */
#define HC_SUM(a, b) ((a) + (b))
#define HC_PROD(a, b) ((a) * (b))
#define HC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HC_MAX(a, b) ((a) > (b) ? (a) : (b))

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

/* Integer MIN/MAX compare in the signed type itself (U = T). */
HC_KERNEL(sum_i32, int32_t, uint32_t, HC_SUM)
HC_KERNEL(prod_i32, int32_t, uint32_t, HC_PROD)
HC_KERNEL(min_i32, int32_t, int32_t, HC_MIN)
HC_KERNEL(max_i32, int32_t, int32_t, HC_MAX)
HC_KERNEL(sum_i64, int64_t, uint64_t, HC_SUM)
HC_KERNEL(prod_i64, int64_t, uint64_t, HC_PROD)
HC_KERNEL(min_i64, int64_t, int64_t, HC_MIN)
HC_KERNEL(max_i64, int64_t, int64_t, HC_MAX)
HC_KERNEL(sum_f32, float, float, HC_SUM)
HC_KERNEL(prod_f32, float, float, HC_PROD)
HC_KERNEL(min_f32, float, float, HC_MIN)
HC_KERNEL(max_f32, float, float, HC_MAX)
HC_KERNEL(sum_f64, double, double, HC_SUM)
HC_KERNEL(prod_f64, double, double, HC_PROD)
HC_KERNEL(min_f64, double, double, HC_MIN)
HC_KERNEL(max_f64, double, double, HC_MAX)

static const hc_reduce_fn kernels[HC_DTYPE__MAX][HC_OP__MAX] = {
	[HC_DTYPE_INT32] = { sum_i32, prod_i32, min_i32, max_i32 },
	[HC_DTYPE_INT64] = { sum_i64, prod_i64, min_i64, max_i64 },
	[HC_DTYPE_FLOAT32] = { sum_f32, prod_f32, min_f32, max_f32 },
	[HC_DTYPE_FLOAT64] = { sum_f64, prod_f64, min_f64, max_f64 },
};

hc_reduce_fn
hc_reduce_get(enum hc_dtype dtype, enum hc_op op)
{
	if ((unsigned int)dtype >= HC_DTYPE__MAX || (unsigned int)op >= HC_OP__MAX)
		return NULL;
	return kernels[dtype][op];
}
