/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Reduction kernels: dst[i] = src[i] OP dst[i] for i in 0..n-1 (n in
 * elements). src and dst may be unaligned (src points into packets).
 * Integer SUM/PROD wrap modulo 2^bits; float MIN/MAX are
 * `src < dst ? src : dst` / `src > dst ? src : dst`.
 */
#ifndef HC_COLL_REDUCE_H
#define HC_COLL_REDUCE_H

#include <stdint.h>

#include "hypercomm.h"

typedef void (*hc_reduce_fn)(void *dst, const void *src, uint64_t n);

/** The kernel for (dtype, op), or NULL when either is unknown. */
hc_reduce_fn hc_reduce_get(enum hc_dtype dtype, enum hc_op op);

#endif /* HC_COLL_REDUCE_H */
