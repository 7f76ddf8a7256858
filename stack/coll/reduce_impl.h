/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Inside the reduction kernels: the per-ISA kernel table that reduce.c
 * dispatches through, and the scalar element operations every ISA's file
 * shares (the vector files use them for their tails, so a tail element is
 * computed exactly as the scalar kernel computes it).
 *
 * One file per ISA, as DPDK's lib/net/rte_net_crc.c with net_crc_sse.c
 * and net_crc_avx512.c: reduce_scalar.c (plain C, any CPU) and
 * reduce_avx2.c (compiled with -mavx2 -mf16c in a library of its own, see
 * meson.build; only ever called after rte_cpu_get_flag_enabled said the
 * CPU has both).
 */
#ifndef HC_COLL_REDUCE_IMPL_H
#define HC_COLL_REDUCE_IMPL_H

#include <stdint.h>
#include <string.h>

#include <rte_config.h>

#include "half.h"
#include "reduce.h"

/* meson.build builds reduce_avx2.c exactly on x86-64. */
#ifdef RTE_ARCH_X86_64
#define HC_REDUCE_HAVE_AVX2 1
#endif

/** One ISA's kernels. Every entry is set (no NULL) for every dtype/op
 *  that reduce.h documents; k2 is NULL exactly where hc_reduce_get
 *  returns NULL (FLOAT16/BFLOAT16, never an accumulation dtype). */
struct hc_reduce_ops {
	const char *name;                         /**< "scalar", "avx2" */
	hc_reduce_fn k2[HC_DTYPE__MAX][HC_OP__MAX];   /**< dst = src OP dst */
	hc_reduce3_fn k3[HC_DTYPE__MAX][HC_OP__MAX];  /**< dst = a OP b */
	/** dst (n float32) = src (n float16 / bfloat16), exactly (half.h) */
	void (*f16_to_f32)(float *dst, const void *src, uint64_t n);
	void (*bf16_to_f32)(float *dst, const void *src, uint64_t n);
	/** dst (n float16 / bfloat16 / float32) = src (n float32) / divisor
	 *  (no division when divisor <= 1), rounded as half.h; dst may
	 *  equal src for float32. */
	void (*f32_to_f16)(void *dst, const float *src, uint64_t n,
			   uint32_t divisor);
	void (*f32_to_bf16)(void *dst, const float *src, uint64_t n,
			    uint32_t divisor);
	void (*f32_div)(void *dst, const float *src, uint64_t n,
			uint32_t divisor);
};

extern const struct hc_reduce_ops hc_reduce_scalar_ops;
/** Only defined when built for x86 (meson.build): */
extern const struct hc_reduce_ops hc_reduce_avx2_ops;

/*
 * Scalar element operations, the reference semantics of reduce.h. a plays
 * the role of src and b of dst in the two-operand form (dst = src OP dst).
 * Integer SUM and PROD go through the unsigned type so that wrap-around
 * is defined; float MIN/MAX propagate NaN (a != a only for NaN).
 */
#define HC_SUM(a, b) ((a) + (b))
#define HC_PROD(a, b) ((a) * (b))
#define HC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HC_MAX(a, b) ((a) > (b) ? (a) : (b))
#define HC_FMIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define HC_FMAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))

#define HC_ELEM(name, T, U, OP)                                              \
	static inline T                                                      \
	hc_e_##name(T a, T b)                                                \
	{                                                                    \
		return (T)OP((U)a, (U)b);                                    \
	}
#define HC_INT_ELEMS(t, T, U)                                                \
	HC_ELEM(sum_##t, T, U, HC_SUM)                                       \
	HC_ELEM(prod_##t, T, U, HC_PROD)                                     \
	HC_ELEM(min_##t, T, T, HC_MIN)                                       \
	HC_ELEM(max_##t, T, T, HC_MAX)
HC_INT_ELEMS(i8, int8_t, uint8_t)
HC_INT_ELEMS(u8, uint8_t, uint8_t)
HC_INT_ELEMS(i32, int32_t, uint32_t)
HC_INT_ELEMS(u32, uint32_t, uint32_t)
HC_INT_ELEMS(i64, int64_t, uint64_t)
HC_INT_ELEMS(u64, uint64_t, uint64_t)

/*
 * Float SUM/PROD with a NaN operand: hardware returns that NaN quietened,
 * but when both are NaN which payload wins depends on operand order (x86:
 * the first source, Intel SDM vol. 1 table 4-7), and C lets the compiler
 * commute a + b. So the kernels fix it (reduce.h): b NaN -> b quietened;
 * else a NaN -> a quietened (by the hardware). One select per element,
 * the same in every ISA.
 */
#define HC_FARITH(t, T, UT, QUIET, OP, name)                                 \
	static inline T                                                      \
	hc_e_##name##_##t(T a, T b)                                          \
	{                                                                    \
		T r = OP(a, b);                                              \
		UT ur, ub, m = (UT)0 - (UT)(b != b);                         \
									     \
		/* branch-free, so that the compiler can vectorise it */     \
		memcpy(&ur, &r, sizeof(ur));                                 \
		memcpy(&ub, &b, sizeof(ub));                                 \
		ur = (ur & ~m) | ((ub | QUIET) & m);                         \
		memcpy(&r, &ur, sizeof(r));                                  \
		return r;                                                    \
	}
#define HC_FLOAT_ELEMS(t, T, UT, QUIET)                                      \
	HC_FARITH(t, T, UT, QUIET, HC_SUM, sum)                              \
	HC_FARITH(t, T, UT, QUIET, HC_PROD, prod)                            \
	HC_ELEM(min_##t, T, T, HC_FMIN)                                      \
	HC_ELEM(max_##t, T, T, HC_FMAX)

HC_FLOAT_ELEMS(f32, float, uint32_t, 0x00400000u)
HC_FLOAT_ELEMS(f64, double, uint64_t, 0x0008000000000000ull)

/* 16-bit floats natively: both operands widened to float32 exactly, the
 * float32 operation, rounded back once (half.h). */
#define HC_HALF_ELEM(op, t, TO, FROM)                                        \
	static inline uint16_t                                               \
	hc_e_##op##_##t(uint16_t a, uint16_t b)                              \
	{                                                                    \
		return FROM(hc_e_##op##_f32(TO(a), TO(b)));                  \
	}
#define HC_HALF_ELEMS(t, TO, FROM)                                           \
	HC_HALF_ELEM(sum, t, TO, FROM)                                       \
	HC_HALF_ELEM(prod, t, TO, FROM)                                      \
	HC_HALF_ELEM(min, t, TO, FROM)                                       \
	HC_HALF_ELEM(max, t, TO, FROM)

HC_HALF_ELEMS(f16, hc_f16_to_f32, hc_f32_to_f16)
HC_HALF_ELEMS(bf16, hc_bf16_to_f32, hc_f32_to_bf16)

/* Element i of a 3-operand kernel, loads and stores through memcpy (any
 * alignment; compiled to plain moves). Loading both operands before the
 * store makes dst == a or dst == b exact. */
#define HC_E3(name, T, d, x, y, i)                                           \
	do {                                                                 \
		T a_, b_, r_;                                                \
		memcpy(&a_, (x) + (i) * sizeof(T), sizeof(T));               \
		memcpy(&b_, (y) + (i) * sizeof(T), sizeof(T));               \
		r_ = hc_e_##name(a_, b_);                                    \
		memcpy((d) + (i) * sizeof(T), &r_, sizeof(T));               \
	} while (0)

/* f32 / divisor as hc_reduce_from_acc has always done it. */
static inline float
hc_e_div_f32(float f, uint32_t divisor)
{
	return divisor > 1 ? f / (float)divisor : f;
}

#endif /* HC_COLL_REDUCE_IMPL_H */
