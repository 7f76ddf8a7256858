/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Reduction kernels and the accumulation-type contract.
 *
 * A reduction runs in the accumulation dtype of (dtype, op):
 *   FLOAT16, BFLOAT16 (any op)      -> FLOAT32: summed in float32 and
 *                                      rounded to 16 bits once, at the end;
 *   INT8, INT32 (AVG)               -> INT64;  UINT8, UINT32 (AVG) -> UINT64:
 *                                      AVG is the 64-bit sum divided by n,
 *                                      truncated toward zero;
 *   anything else                   -> dtype itself (float AVG: the sum
 *                                      divided by n in dtype).
 * Kernels: dst[i] = src[i] OP dst[i] for i in 0..n-1 (n elements); AVG
 * uses SUM's kernel. src and dst may be unaligned. Integer SUM and PROD
 * wrap modulo 2^bits. Float MIN and MAX propagate NaN: if either operand
 * is NaN the result is NaN; otherwise `<` / `>` pick.
 */
#ifndef HC_COLL_REDUCE_H
#define HC_COLL_REDUCE_H

#include <stdint.h>

#include "hypercomm.h"

typedef void (*hc_reduce_fn)(void *dst, const void *src, uint64_t n);

/** Accumulation dtype of (dtype, op), see above. */
enum hc_dtype hc_reduce_acc_dtype(enum hc_dtype dtype, enum hc_op op);

/** The kernel for an accumulation dtype and op, or NULL when either is
 *  unknown or dtype is FLOAT16/BFLOAT16 (never an accumulation dtype). */
hc_reduce_fn hc_reduce_get(enum hc_dtype acc, enum hc_op op);

/** dst (n elements of acc) = src (n elements of dtype), exactly. */
void hc_reduce_to_acc(void *dst, const void *src, uint64_t n,
		      enum hc_dtype dtype, enum hc_dtype acc);

/** dst (n elements of dtype) = src (n elements of acc) / divisor, rounded
 *  to nearest-even for floats and truncated toward zero for integers;
 *  divisor 1 for every op but AVG. dst may equal src when the types
 *  are the same. */
void hc_reduce_from_acc(void *dst, const void *src, uint64_t n,
			enum hc_dtype dtype, enum hc_dtype acc,
			uint32_t divisor);

#endif /* HC_COLL_REDUCE_H */
