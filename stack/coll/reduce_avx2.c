/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AVX2 + F16C kernel set. This file alone is compiled for those
 * extensions (the pragma below, the per-file equivalent of -mavx2 -mf16c;
 * see meson.build for why not a flag), so nothing else in the library
 * uses them; reduce.c calls into it only after rte_cpu_get_flag_enabled()
 * reported RTE_CPUFLAG_AVX2 and RTE_CPUFLAG_F16C.
 *
 * Every kernel gives the bits the scalar set (reduce_scalar.c) gives:
 * - float SUM/PROD: the hardware operation, then b's NaN (quietened)
 *   wherever b is NaN, as hc_e_sum_f32 (reduce_impl.h) fixes the payload
 *   the operand order would otherwise choose;
 * - float MIN/MAX select as the scalar expression does (a < b, or a is
 *   NaN: a; else b) instead of vminps, whose NaN and -0 rules differ;
 * - integer PROD of 8 and 64 bits, which AVX2 lacks, from 16-bit and
 *   32x32->64 multiplies (mod 2^bits the low bits are all that count);
 * - float16 through F16C, whose conversions round to nearest-even as
 *   half.h does, with NaNs patched to half.h's choice (F16C keeps the
 *   payload, half.h gives the canonical quiet NaN on the way down and
 *   keeps a signalling NaN signalling on the way up); bfloat16 by the same
 *   integer rounding as half.h, in lanes.
 * Tails shorter than a vector use the scalar element operations.
 */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), \
			     apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx2,f16c")
#endif
#include <immintrin.h>

#include "reduce_impl.h"

#define LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define SET32(x) _mm256_set1_epi32((int)(x))

/* --- integers --- */
#define V2(name, intrin)                                                     \
	static inline __m256i                                                \
	v_##name(__m256i a, __m256i b)                                       \
	{                                                                    \
		return intrin(a, b);                                         \
	}
V2(sum_i8, _mm256_add_epi8)
V2(min_i8, _mm256_min_epi8)
V2(max_i8, _mm256_max_epi8)
V2(min_u8, _mm256_min_epu8)
V2(max_u8, _mm256_max_epu8)
#define v_sum_u8 v_sum_i8

/* The low byte of a 16-bit product depends only on the low bytes. */
static inline __m256i
v_prod_i8(__m256i a, __m256i b)
{
	__m256i even = _mm256_mullo_epi16(a, b);
	__m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(a, 8),
					 _mm256_srli_epi16(b, 8));

	return _mm256_or_si256(_mm256_and_si256(even, _mm256_set1_epi16(0xff)),
			       _mm256_slli_epi16(odd, 8));
}
#define v_prod_u8 v_prod_i8

V2(sum_i32, _mm256_add_epi32)
V2(prod_i32, _mm256_mullo_epi32)
V2(min_i32, _mm256_min_epi32)
V2(max_i32, _mm256_max_epi32)
V2(min_u32, _mm256_min_epu32)
V2(max_u32, _mm256_max_epu32)
#define v_sum_u32 v_sum_i32
#define v_prod_u32 v_prod_i32

V2(sum_i64, _mm256_add_epi64)
#define v_sum_u64 v_sum_i64

/* (ah 2^32 + al)(bh 2^32 + bl) mod 2^64 = al bl + ((ah bl + al bh) << 32) */
static inline __m256i
v_prod_i64(__m256i a, __m256i b)
{
	__m256i ll = _mm256_mul_epu32(a, b);
	__m256i cross = _mm256_add_epi64(
		_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
		_mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));

	return _mm256_add_epi64(ll, _mm256_slli_epi64(cross, 32));
}
#define v_prod_u64 v_prod_i64

/* a < b ? a : b and a > b ? a : b; equal operands have equal bits. */
static inline __m256i
v_min_i64(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

static inline __m256i
v_max_i64(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}

/* Unsigned order is signed order with the top bit flipped. */
static inline __m256i
v_ugt64(__m256i a, __m256i b)
{
	const __m256i bias = _mm256_set1_epi64x(INT64_MIN);

	return _mm256_cmpgt_epi64(_mm256_xor_si256(a, bias),
				  _mm256_xor_si256(b, bias));
}

static inline __m256i
v_min_u64(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(a, b, v_ugt64(a, b));
}

static inline __m256i
v_max_u64(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(b, a, v_ugt64(a, b));
}


/* --- float32 and float64 --- */
/* r, but b | quiet bit where b is NaN */
static inline __m256
f32_bnan(__m256 r, __m256 b)
{
	__m256 q = _mm256_or_ps(b, _mm256_castsi256_ps(SET32(0x00400000)));

	return _mm256_blendv_ps(r, q, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
}

static inline __m256
f32_sum(__m256 a, __m256 b)
{
	return f32_bnan(_mm256_add_ps(a, b), b);
}

static inline __m256
f32_prod(__m256 a, __m256 b)
{
	return f32_bnan(_mm256_mul_ps(a, b), b);
}

/* HC_FMIN/HC_FMAX: (a < b || a != a) ? a : b */
static inline __m256
f32_min(__m256 a, __m256 b)
{
	__m256 m = _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ),
				_mm256_cmp_ps(a, a, _CMP_UNORD_Q));

	return _mm256_blendv_ps(b, a, m);
}

static inline __m256
f32_max(__m256 a, __m256 b)
{
	__m256 m = _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ),
				_mm256_cmp_ps(a, a, _CMP_UNORD_Q));

	return _mm256_blendv_ps(b, a, m);
}

#define F32_V(op)                                                            \
	static inline __m256i                                                \
	v_##op##_f32(__m256i a, __m256i b)                                   \
	{                                                                    \
		return _mm256_castps_si256(f32_##op(_mm256_castsi256_ps(a),  \
						    _mm256_castsi256_ps(b)));\
	}
F32_V(sum) F32_V(prod) F32_V(min) F32_V(max)

static inline __m256i
v_f64_bnan(__m256d r, __m256d b)
{
	__m256d q = _mm256_or_pd(b, _mm256_castsi256_pd(
		_mm256_set1_epi64x(0x0008000000000000ll)));

	return _mm256_castpd_si256(_mm256_blendv_pd(r, q,
		_mm256_cmp_pd(b, b, _CMP_UNORD_Q)));
}

static inline __m256i
v_sum_f64(__m256i a, __m256i b)
{
	__m256d x = _mm256_castsi256_pd(a), y = _mm256_castsi256_pd(b);

	return v_f64_bnan(_mm256_add_pd(x, y), y);
}

static inline __m256i
v_prod_f64(__m256i a, __m256i b)
{
	__m256d x = _mm256_castsi256_pd(a), y = _mm256_castsi256_pd(b);

	return v_f64_bnan(_mm256_mul_pd(x, y), y);
}

static inline __m256i
v_fsel64(__m256i ai, __m256i bi, int gt)
{
	__m256d a = _mm256_castsi256_pd(ai), b = _mm256_castsi256_pd(bi);
	__m256d m = _mm256_or_pd(gt ? _mm256_cmp_pd(a, b, _CMP_GT_OQ) :
				 _mm256_cmp_pd(a, b, _CMP_LT_OQ),
				 _mm256_cmp_pd(a, a, _CMP_UNORD_Q));

	return _mm256_castpd_si256(_mm256_blendv_pd(b, a, m));
}

static inline __m256i
v_min_f64(__m256i a, __m256i b)
{
	return v_fsel64(a, b, 0);
}

static inline __m256i
v_max_f64(__m256i a, __m256i b)
{
	return v_fsel64(a, b, 1);
}


/* --- float16 and bfloat16 <-> float32, 8 lanes --- */

/* 8 float16 -> float32 exactly; NaNs as half.h: sign, all-ones
 * exponent, the 10 payload bits shifted up (no quiet bit added). */
static inline __m256
h8_to_f32(__m128i h)
{
	__m256 f = _mm256_cvtph_ps(h);
	__m256i w = _mm256_cvtepu16_epi32(h);
	__m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(w, SET32(0x7fff)),
					 SET32(0x7c00));

	if (!_mm256_testz_si256(nan, nan)) {
		__m256i fix = _mm256_or_si256(
			_mm256_or_si256(_mm256_slli_epi32(
				_mm256_and_si256(w, SET32(0x8000)), 16),
				SET32(0x7f800000)),
			_mm256_slli_epi32(_mm256_and_si256(w, SET32(0x3ff)), 13));

		f = _mm256_blendv_ps(f, _mm256_castsi256_ps(fix),
				     _mm256_castsi256_ps(nan));
	}
	return f;
}

/* Lanes of 32 bits holding values below 2^16 -> 8 x 16 bits, in order. */
static inline __m128i
pack8(__m256i v)
{
	return _mm_packus_epi32(_mm256_castsi256_si128(v),
				_mm256_extracti128_si256(v, 1));
}

/* 8 float32 -> float16 rounded to nearest-even (F16C with an immediate
 * rounding mode, so MXCSR does not matter); NaN -> sign | 0x7e00. */
static inline __m128i
f32_to_h8(__m256 f)
{
	__m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT |
				    _MM_FROUND_NO_EXC);
	__m256i u = _mm256_castps_si256(f);
	__m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, SET32(0x7fffffff)),
					 SET32(0x7f800000));

	if (!_mm256_testz_si256(nan, nan)) {
		__m256i fix = _mm256_or_si256(_mm256_and_si256(
			_mm256_srli_epi32(u, 16), SET32(0x8000)), SET32(0x7e00));

		h = _mm_blendv_epi8(h, pack8(fix),
				    _mm_packs_epi32(_mm256_castsi256_si128(nan),
					_mm256_extracti128_si256(nan, 1)));
	}
	return h;
}

static inline __m256
b8_to_f32(__m128i h)
{
	return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h),
						     16));
}

/* half.h's hc_f32_to_bf16 in lanes: NaN -> (u >> 16) | 0x40, else
 * (u + 0x7fff + ((u >> 16) & 1)) >> 16, all mod 2^32. */
static inline __m256i f32_to_b_lanes(__m256 f);

static inline __m128i
f32_to_b8(__m256 f)
{
	return pack8(f32_to_b_lanes(f));
}

/* In the native kernels a float16 NaN input needs no patching: whatever
 * payload F16C gives it, the result is NaN of the same sign, which
 * f32_to_h8 rounds to half.h's sign | 0x7e00 (as the scalar kernel ends). */
static inline __m256
h8_to_f32_raw(__m128i h)
{
	return _mm256_cvtph_ps(h);
}

/* 16 half-width elements: two float32 halves, op, rounded back. */
#define HALF_V(op, t, TO, FROM)                                              \
	static inline __m256i                                                \
	v_##op##_##t(__m256i a, __m256i b)                                   \
	{                                                                    \
		__m128i lo = FROM(f32_##op(TO(_mm256_castsi256_si128(a)),    \
					   TO(_mm256_castsi256_si128(b))));  \
		__m128i hi = FROM(f32_##op(                                  \
			TO(_mm256_extracti128_si256(a, 1)),                  \
			TO(_mm256_extracti128_si256(b, 1))));                \
									     \
		return _mm256_inserti128_si256(_mm256_castsi128_si256(lo),   \
					       hi, 1);                       \
	}
#define HALF_VS(t, TO, FROM)                                                 \
	HALF_V(sum, t, TO, FROM) HALF_V(prod, t, TO, FROM)                   \
	HALF_V(min, t, TO, FROM) HALF_V(max, t, TO, FROM)
HALF_VS(f16, h8_to_f32_raw, f32_to_h8)

/* hc_f32_to_bf16 in 32-bit lanes, the result in the low 16 bits. */
static inline __m256i
f32_to_b_lanes(__m256 f)
{
	__m256i u = _mm256_castps_si256(f);
	__m256i hi = _mm256_srli_epi32(u, 16);
	__m256i r = _mm256_srli_epi32(_mm256_add_epi32(
		_mm256_add_epi32(u, SET32(0x7fff)),
		_mm256_and_si256(hi, SET32(1))), 16);
	__m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, SET32(0x7fffffff)),
					 SET32(0x7f800000));

	return _mm256_blendv_epi8(r, _mm256_or_si256(hi, SET32(0x40)), nan);
}

/* bfloat16, 16 elements: interleaving with zeros puts each one in the top
 * half of a 32-bit lane (its float32 value) in a lane-local order that
 * the packing back (packus within 128-bit lanes) undoes exactly. */
#define BF16_V(op)                                                           \
	static inline __m256i                                                \
	v_##op##_bf16(__m256i a, __m256i b)                                  \
	{                                                                    \
		const __m256i z = _mm256_setzero_si256();                    \
		__m256 alo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, a)); \
		__m256 ahi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, a)); \
		__m256 blo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, b)); \
		__m256 bhi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, b)); \
									     \
		return _mm256_packus_epi32(                                  \
			f32_to_b_lanes(f32_##op(alo, blo)),                  \
			f32_to_b_lanes(f32_##op(ahi, bhi)));                 \
	}
BF16_V(sum) BF16_V(prod) BF16_V(min) BF16_V(max)

/* --- kernels: two vectors per iteration, then one, then scalar --- */
#define K3(name, T)                                                          \
	static void                                                          \
	k3_##name(void *dst, const void *a, const void *b, uint64_t n)       \
	{                                                                    \
		const uint64_t per = 32 / sizeof(T);                         \
		uint8_t *d = dst;                                            \
		const uint8_t *x = a, *y = b;                                \
		uint64_t i = 0;                                              \
									     \
		for (; i + 2 * per <= n; i += 2 * per) {                     \
			const uint8_t *xp = x + i * sizeof(T);               \
			const uint8_t *yp = y + i * sizeof(T);               \
			__m256i x0 = LOAD(xp), x1 = LOAD(xp + 32);           \
			__m256i y0 = LOAD(yp), y1 = LOAD(yp + 32);           \
									     \
			STORE(d + i * sizeof(T), v_##name(x0, y0));          \
			STORE(d + i * sizeof(T) + 32, v_##name(x1, y1));     \
		}                                                            \
		for (; i + per <= n; i += per)                               \
			STORE(d + i * sizeof(T),                             \
			      v_##name(LOAD(x + i * sizeof(T)),              \
				       LOAD(y + i * sizeof(T))));            \
		for (; i < n; i++)                                           \
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

/* --- conversions for hc_reduce_to_acc / hc_reduce_from_acc --- */
#define LOAD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STORE128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

static void
f16_to_f32(float *dst, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	uint8_t *d = (uint8_t *)dst;
	uint64_t i = 0;
	uint16_t h;
	float f;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps((float *)(void *)(d + 4 * i),
				 h8_to_f32(LOAD128(s + 2 * i)));
	for (; i < n; i++) {
		memcpy(&h, s + 2 * i, 2);
		f = hc_f16_to_f32(h);
		memcpy(d + 4 * i, &f, 4);
	}
}

static void
bf16_to_f32(float *dst, const void *src, uint64_t n)
{
	const uint8_t *s = src;
	uint8_t *d = (uint8_t *)dst;
	uint64_t i = 0;
	uint16_t h;
	float f;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps((float *)(void *)(d + 4 * i),
				 b8_to_f32(LOAD128(s + 2 * i)));
	for (; i < n; i++) {
		memcpy(&h, s + 2 * i, 2);
		f = hc_bf16_to_f32(h);
		memcpy(d + 4 * i, &f, 4);
	}
}

/* IEEE division is correctly rounded, so vdivps by (float)divisor gives
 * hc_e_div_f32's bits. */
static inline __m256
load_div(const uint8_t *s, uint32_t divisor)
{
	__m256 f = _mm256_loadu_ps((const float *)(const void *)s);

	return divisor > 1 ? _mm256_div_ps(f, _mm256_set1_ps((float)divisor)) :
			     f;
}

static void
f32_to_f16(void *dst, const float *src, uint64_t n, uint32_t divisor)
{
	uint8_t *d = dst;
	const uint8_t *s = (const uint8_t *)src;
	uint64_t i = 0;
	uint16_t h;
	float f;

	for (; i + 8 <= n; i += 8)
		STORE128(d + 2 * i, f32_to_h8(load_div(s + 4 * i, divisor)));
	for (; i < n; i++) {
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
	uint64_t i = 0;
	uint16_t h;
	float f;

	for (; i + 8 <= n; i += 8)
		STORE128(d + 2 * i, f32_to_b8(load_div(s + 4 * i, divisor)));
	for (; i < n; i++) {
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
	uint64_t i = 0;
	float f;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps((float *)(void *)(d + 4 * i),
				 load_div(s + 4 * i, divisor));
	for (; i < n; i++) {
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

const struct hc_reduce_ops hc_reduce_avx2_ops = {
	.name = "avx2",
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

#if defined(__clang__)
#pragma clang attribute pop
#endif
