/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Test patterns of shared/cases/CASES.md, shared by hc-perf and the tests:
 *   P32  (sum, min, max, avg of int32/uint32/int64/uint64/float/double):
 *        rank r, element i holds (r+1)*(i%1024) + r;
 *   P16  (the same ops for int8, uint8, half, bfloat16): (i%4) + r;
 *   PPROD (prod, every dtype): 1 + ((r+i)%2);
 *   PGATH (all-gather of int32, also of uint32, int64, uint64, double):
 *        r*1000000 + i (hc_pattern_gather).
 * Every partial result is an integer (a multiple of 1/2 for avg) small
 * enough to be exact in the dtype for n <= 64 (P32), n <= 16 (P16) and
 * n <= 14 (PPROD), so results compare bit for bit whatever the reduction
 * order. Expected values pass through the dtype once, so 8-bit integer
 * sums wrap exactly as the reduction does.
 */
#ifndef HC_APPS_PATTERN_H
#define HC_APPS_PATTERN_H

#include <math.h>
#include <stdint.h>

#include "hypercomm.h"

static inline int
hc_pattern_small(enum hc_dtype d)
{
	return d == HC_DTYPE_INT8 || d == HC_DTYPE_UINT8 ||
	       d == HC_DTYPE_FLOAT16 || d == HC_DTYPE_BFLOAT16;
}

static inline int
hc_pattern_integer(enum hc_dtype d)
{
	return d != HC_DTYPE_FLOAT16 && d != HC_DTYPE_BFLOAT16 &&
	       d != HC_DTYPE_FLOAT32 && d != HC_DTYPE_FLOAT64;
}

/** Value of element i on rank r. */
static inline double
hc_pattern_value(enum hc_dtype d, enum hc_op op, uint64_t i, int r)
{
	if (op == HC_OP_PROD)
		return 1 + (double)((r + i) % 2);
	if (hc_pattern_small(d))
		return (double)(i % 4) + r;
	return (double)(r + 1) * (double)(i % 1024) + r;
}

/** Exact all-reduce result at element i over n ranks (before the dtype's
 *  own wrap-around or rounding). */
static inline double
hc_pattern_exact(enum hc_dtype d, enum hc_op op, uint64_t i, int n)
{
	double k = hc_pattern_small(d) ? (double)(i % 4) : (double)(i % 1024);
	double sum = hc_pattern_small(d) ? n * k + (double)n * (n - 1) / 2
					 : k * n * (n + 1) / 2 +
					   (double)n * (n - 1) / 2;

	switch (op) {
	case HC_OP_SUM:
		return sum;
	case HC_OP_MIN:
		return k;
	case HC_OP_MAX:
		return hc_pattern_small(d) ? k + n - 1 : (double)n * k + n - 1;
	case HC_OP_AVG: /* integers: truncated toward zero (sum >= 0) */
		return hc_pattern_integer(d) ? floor(sum / n) : sum / n;
	default: /* PROD: 2^floor(n/2) for even i, 2^ceil(n/2) for odd */
		return (double)(1ULL << (i % 2 == 0 ? n / 2 : (n + 1) / 2));
	}
}

/** Store v as element i of a buffer of dtype (integers wrap). */
static inline void
hc_pattern_store(void *buf, enum hc_dtype d, uint64_t i, double v)
{
	switch (d) {
	case HC_DTYPE_INT8: ((int8_t *)buf)[i] = (int8_t)(int64_t)v; break;
	case HC_DTYPE_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(int64_t)v; break;
	case HC_DTYPE_INT32: ((int32_t *)buf)[i] = (int32_t)(int64_t)v; break;
	case HC_DTYPE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(int64_t)v; break;
	case HC_DTYPE_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
	case HC_DTYPE_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
	case HC_DTYPE_FLOAT16: ((uint16_t *)buf)[i] = hc_float_to_half((float)v); break;
	case HC_DTYPE_BFLOAT16:
		((uint16_t *)buf)[i] = hc_float_to_bfloat16((float)v);
		break;
	case HC_DTYPE_FLOAT32: ((float *)buf)[i] = (float)v; break;
	default: ((double *)buf)[i] = v; break;
	}
}

/** Element i of a buffer of dtype, as a double (exact). */
static inline double
hc_pattern_load(const void *buf, enum hc_dtype d, uint64_t i)
{
	switch (d) {
	case HC_DTYPE_INT8: return ((const int8_t *)buf)[i];
	case HC_DTYPE_UINT8: return ((const uint8_t *)buf)[i];
	case HC_DTYPE_INT32: return ((const int32_t *)buf)[i];
	case HC_DTYPE_UINT32: return ((const uint32_t *)buf)[i];
	case HC_DTYPE_INT64: return (double)((const int64_t *)buf)[i];
	case HC_DTYPE_UINT64: return (double)((const uint64_t *)buf)[i];
	case HC_DTYPE_FLOAT16: return hc_half_to_float(((const uint16_t *)buf)[i]);
	case HC_DTYPE_BFLOAT16:
		return hc_bfloat16_to_float(((const uint16_t *)buf)[i]);
	case HC_DTYPE_FLOAT32: return ((const float *)buf)[i];
	default: return ((const double *)buf)[i];
	}
}

/** Expected element i as stored in the dtype. */
static inline double
hc_pattern_expected(enum hc_dtype d, enum hc_op op, uint64_t i, int n)
{
	uint64_t slot[1];

	hc_pattern_store(slot, d, 0, hc_pattern_exact(d, op, i, n));
	return hc_pattern_load(slot, d, 0);
}

/** Fill count elements with rank r's pattern. */
static inline void
hc_pattern_fill(void *buf, enum hc_dtype d, enum hc_op op, uint64_t count,
		int r)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		hc_pattern_store(buf, d, i, hc_pattern_value(d, op, i, r));
}

/**
 * Whether dtype d's all-gather pattern is PGATH (hc_pattern_gather): the
 * dtypes that hold r*1000000 + i exactly (int32 and uint32 modulo 2^32).
 */
static inline int
hc_pattern_gather_unique(enum hc_dtype d)
{
	return d == HC_DTYPE_INT32 || d == HC_DTYPE_UINT32 ||
	       d == HC_DTYPE_INT64 || d == HC_DTYPE_UINT64 ||
	       d == HC_DTYPE_FLOAT64;
}

/**
 * Element i of rank r's all-gather (and all-gatherv) send buffer: PGATH of
 * shared/cases/CASES.md, r*1000000 + i, where hc_pattern_gather_unique(d)
 * (int32 and uint32 wrap modulo 2^32 above 2^31 - 1 or 2^32 - 1). Unlike
 * P32, which repeats every 1024 elements, no two elements of blocks of at
 * most 10^6 elements are equal, so a slice written at another slice's
 * offset shows (C02). Other dtypes keep op SUM's P32 or P16.
 */
static inline double
hc_pattern_gather(enum hc_dtype d, uint64_t i, int r)
{
	uint64_t v = (uint64_t)r * 1000000 + i;

	switch (d) {
	case HC_DTYPE_INT32: return (double)(int32_t)(uint32_t)v;
	case HC_DTYPE_UINT32: return (double)(uint32_t)v;
	case HC_DTYPE_INT64:
	case HC_DTYPE_UINT64:
	case HC_DTYPE_FLOAT64: return (double)v; /* exact below 2^53 */
	default: return hc_pattern_value(d, HC_OP_SUM, i, r);
	}
}

/** Fill count elements with rank r's all-gather pattern. */
static inline void
hc_pattern_fill_gather(void *buf, enum hc_dtype d, uint64_t count, int r)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		hc_pattern_store(buf, d, i, hc_pattern_gather(d, i, r));
}

/** Elements of buf that differ from the expected result over n ranks. */
static inline uint64_t
hc_pattern_wrong(const void *buf, enum hc_dtype d, enum hc_op op,
		 uint64_t count, int n)
{
	uint64_t i, wrong = 0;

	for (i = 0; i < count; i++)
		wrong += hc_pattern_load(buf, d, i) !=
			 hc_pattern_expected(d, op, i, n);
	return wrong;
}

/** The collective a result buffer came from (hc_pattern_result_wrong). */
enum hc_pattern_coll {
	HC_PATTERN_ALLREDUCE,
	HC_PATTERN_REDUCE_SCATTER,
	HC_PATTERN_ALLGATHER,
	HC_PATTERN_BROADCAST,
	HC_PATTERN_REDUCE,
};

/**
 * Elements of rank r's result buf that differ from what collective k must
 * leave there over n ranks, when every rank q filled its send buffer with
 * hc_pattern_fill(., d, op, ., q) (broadcast: op SUM's pattern, nothing
 * is reduced; all-gather: hc_pattern_fill_gather(., d, ., q)). count is
 * per rank, as the API names it:
 *   ALLREDUCE       buf holds count elements: the reduction;
 *   REDUCE_SCATTER  count elements: block r of the n * count reduction;
 *   ALLGATHER       n * count elements: block q is rank q's pattern;
 *   BROADCAST       count elements: the root's pattern;
 *   REDUCE          count elements at the root (the reduction); 0 at the
 *                   other ranks, whose buffer is not defined.
 * One rank's check, the same on the network and in a simulation.
 */
static inline uint64_t
hc_pattern_result_wrong(enum hc_pattern_coll k, const void *buf,
			enum hc_dtype d, enum hc_op op, uint64_t count, int n,
			int r, int root)
{
	uint64_t i, wrong = 0, len = k == HC_PATTERN_ALLGATHER ?
					  count * (uint64_t)n : count;

	if (k == HC_PATTERN_REDUCE && r != root)
		return 0;
	for (i = 0; i < len; i++) {
		double want;

		switch (k) {
		case HC_PATTERN_REDUCE_SCATTER:
			want = hc_pattern_expected(d, op, (uint64_t)r * count + i,
						   n);
			break;
		case HC_PATTERN_ALLGATHER:
			want = hc_pattern_gather(d, i % count,
						 (int)(i / count));
			break;
		case HC_PATTERN_BROADCAST:
			want = hc_pattern_value(d, HC_OP_SUM, i, root);
			break;
		default:
			want = hc_pattern_expected(d, op, i, n);
			break;
		}
		wrong += hc_pattern_load(buf, d, i) != want;
	}
	return wrong;
}

/**
 * PN, for the "same bits on every rank" check of float all-reduce: rank
 * r, element i holds ((i * 2654435761 + r * 40503) mod 65521) / 4099 - 8,
 * rounded to the dtype; sums of these round differently in different
 * orders, so only an algorithm that computes each final value once and
 * copies it gives every rank the same bits (compare a digest of the
 * result across ranks; the value itself is not checked).
 */
static inline void
hc_pattern_noise(void *buf, enum hc_dtype d, uint64_t count, int r)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		hc_pattern_store(buf, d, i,
				 (double)((i * 2654435761u + (uint64_t)r * 40503u)
					  % 65521) / 4099.0 - 8.0);
}

#endif /* HC_APPS_PATTERN_H */
