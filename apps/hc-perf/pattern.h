/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Test patterns of shared/cases/CASES.md, shared by hc-perf and the tests:
 *   P32  (sum, min, max): rank r, element i holds (r+1)*(i%1024) + r;
 *   PPROD (prod):         1 + ((r+i)%2).
 * Every partial result is an integer below 2^24 for n <= 64 (P32) and
 * n <= 24 (PPROD), so results are exact in every dtype and compare bit
 * for bit whatever the reduction order.
 */
#ifndef HC_APPS_PATTERN_H
#define HC_APPS_PATTERN_H

#include <stdint.h>

#include "hypercomm.h"

/** Value of element i on rank r for op. */
static inline double
hc_pattern_value(enum hc_op op, uint64_t i, int r)
{
	if (op == HC_OP_PROD)
		return 1 + (double)((r + i) % 2);
	return (double)(r + 1) * (double)(i % 1024) + r;
}

/** Expected all-reduce result at element i over n ranks. */
static inline double
hc_pattern_expected(enum hc_op op, uint64_t i, int n)
{
	double k = (double)(i % 1024);

	switch (op) {
	case HC_OP_SUM:
		return k * n * (n + 1) / 2 + (double)n * (n - 1) / 2;
	case HC_OP_MIN:
		return k;
	case HC_OP_MAX:
		return (double)n * k + n - 1;
	default: /* PROD: 2^floor(n/2) for even i, 2^ceil(n/2) for odd */
		return (double)(1ULL << (i % 2 == 0 ? n / 2 : (n + 1) / 2));
	}
}

/** Store v as element i of a buffer of dtype. */
static inline void
hc_pattern_store(void *buf, enum hc_dtype dtype, uint64_t i, double v)
{
	switch (dtype) {
	case HC_DTYPE_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
	case HC_DTYPE_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
	case HC_DTYPE_FLOAT32: ((float *)buf)[i] = (float)v; break;
	default: ((double *)buf)[i] = v; break;
	}
}

/** Element i of a buffer of dtype, as a double (exact for patterns). */
static inline double
hc_pattern_load(const void *buf, enum hc_dtype dtype, uint64_t i)
{
	switch (dtype) {
	case HC_DTYPE_INT32: return ((const int32_t *)buf)[i];
	case HC_DTYPE_INT64: return (double)((const int64_t *)buf)[i];
	case HC_DTYPE_FLOAT32: return ((const float *)buf)[i];
	default: return ((const double *)buf)[i];
	}
}

/** Fill count elements with rank r's pattern for op. */
static inline void
hc_pattern_fill(void *buf, enum hc_dtype dtype, enum hc_op op,
		uint64_t count, int r)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		hc_pattern_store(buf, dtype, i, hc_pattern_value(op, i, r));
}

/** Elements of buf that differ from the expected result over n ranks. */
static inline uint64_t
hc_pattern_wrong(const void *buf, enum hc_dtype dtype, enum hc_op op,
		 uint64_t count, int n)
{
	uint64_t i, wrong = 0;

	for (i = 0; i < count; i++)
		wrong += hc_pattern_load(buf, dtype, i) !=
			 hc_pattern_expected(op, i, n);
	return wrong;
}

#endif /* HC_APPS_PATTERN_H */
