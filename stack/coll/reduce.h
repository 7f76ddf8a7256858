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
 * is NaN the result is NaN; otherwise `<` / `>` pick. Float SUM and PROD
 * with a NaN operand give dst's NaN, quietened, when dst's element is
 * NaN, else src's, quietened (fixed so that every ISA and compiler gives
 * the same payload; IEEE 754 leaves it open).
 *
 * Three-operand kernels (hc_reduce3_get): dst[i] = a[i] OP b[i], with a in
 * src's role and b in dst's, so fn3(dst, src, dst, n) is fn(dst, src, n)
 * bit for bit; dst may equal a or b (or neither; no partial overlap). They
 * also exist for FLOAT16/BFLOAT16 natively: each element widened to float32
 * exactly, the float32 operation, rounded back to 16 bits per element.
 *
 * Every kernel and conversion here dispatches through the kernel set
 * (ISA) chosen once at start-up: AVX2 + F16C when
 * rte_cpu_get_flag_enabled() reports both, else scalar. The environment
 * variable HC_KERNELS=scalar forces the scalar set (HC_KERNELS=avx2 asks
 * for AVX2 and falls back to scalar, with a log line, on a CPU without it;
 * unset or "auto": the best the CPU has). The sets give bit-identical
 * results (tests/unit/test_kernels.c), NaN payloads included.
 */
#ifndef HC_COLL_REDUCE_H
#define HC_COLL_REDUCE_H

#include <stdint.h>

#include "hypercomm.h"

/** dst[i] = src[i] OP dst[i], i in 0..n-1 (n elements). */
typedef void (*hc_reduce_fn)(void *dst, const void *src, uint64_t n);
/** dst[i] = a[i] OP b[i], i in 0..n-1 (n elements); dst may equal a or b. */
typedef void (*hc_reduce3_fn)(void *dst, const void *a, const void *b,
			      uint64_t n);

/** Kernel sets. */
enum hc_reduce_isa {
	HC_REDUCE_ISA_SCALAR = 0,   /**< plain C, any CPU */
	HC_REDUCE_ISA_AVX2,         /**< x86-64 AVX2 + F16C */
	HC_REDUCE_ISA__MAX
};

/** Accumulation dtype of (dtype, op), see above. */
enum hc_dtype hc_reduce_acc_dtype(enum hc_dtype dtype, enum hc_op op);

/** The kernel for an accumulation dtype and op, or NULL when either is
 *  unknown or dtype is FLOAT16/BFLOAT16 (never an accumulation dtype). */
hc_reduce_fn hc_reduce_get(enum hc_dtype acc, enum hc_op op);

/** The three-operand kernel for a dtype and op (any dtype, FLOAT16 and
 *  BFLOAT16 natively; AVG = SUM as above), or NULL when either is
 *  unknown. */
hc_reduce3_fn hc_reduce3_get(enum hc_dtype dtype, enum hc_op op);

/** 1 if this CPU (and build) can run kernel set isa, else 0. */
int hc_reduce_isa_supported(enum hc_reduce_isa isa);

/** The kernel set in use (chosen at start-up, see above). */
enum hc_reduce_isa hc_reduce_isa_get(void);

/** Name of a kernel set ("scalar", "avx2"), or NULL when unknown. */
const char *hc_reduce_isa_name(enum hc_reduce_isa isa);

/**
 * Switch the kernel set, for tests and benchmarks. Function pointers
 * already taken with hc_reduce_get/hc_reduce3_get keep their set; call
 * it while no reduction runs. Returns 0, or -ENOTSUP when
 * !hc_reduce_isa_supported(isa) (-EINVAL when isa is unknown).
 */
int hc_reduce_isa_set(enum hc_reduce_isa isa);

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
