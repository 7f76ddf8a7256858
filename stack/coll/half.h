/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IEEE 754 binary16 (float16) and bfloat16 <-> float32 conversions.
 * To 16 bits: round to nearest, ties to even; overflow gives infinity;
 * NaN stays NaN (quiet). From 16 bits: exact.
 */
#ifndef HC_COLL_HALF_H
#define HC_COLL_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t
hc_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float
hc_bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/** bfloat16 is the upper half of a float32. */
static inline float
hc_bf16_to_f32(uint16_t h)
{
	return hc_bits_f32((uint32_t)h << 16);
}

static inline uint16_t
hc_f32_to_bf16(float f)
{
	uint32_t u = hc_f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)       /* NaN: keep it quiet */
		return (uint16_t)((u >> 16) | 0x0040);
	u += 0x7fffu + ((u >> 16) & 1);            /* ties to even */
	return (uint16_t)(u >> 16);
}

static inline float
hc_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;

	if (exp == 0x1f)                            /* inf or NaN */
		return hc_bits_f32(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		if (man == 0)
			return hc_bits_f32(sign);
		/* subnormal: man * 2^-24 */
		float f = (float)man * 0x1p-24f;

		return sign ? -f : f;
	}
	return hc_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t
hc_f32_to_f16(float f)
{
	uint32_t u = hc_f32_bits(f);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t a = u & 0x7fffffffu;

	if (a > 0x7f800000u)                        /* NaN */
		return sign | 0x7e00;
	if (a >= 0x477ff000u)                       /* >= 65520: rounds to inf */
		return sign | 0x7c00;
	if (a < 0x38800000u) {                      /* below 2^-14: subnormal */
		/* round(|f| * 2^24) to even; the float product is exact */
		float m = hc_bits_f32(a) * 0x1p24f;
		uint32_t q = (uint32_t)m;
		float rem = m - (float)q;

		if (rem > 0.5f || (rem == 0.5f && (q & 1)))
			q++;
		return sign | (uint16_t)q;
	}
	/* normal: rebias 127 -> 15, keep 10 mantissa bits, ties to even;
	 * a carry out of the mantissa correctly bumps the exponent. */
	a -= 112u << 23;
	a += 0xfffu + ((a >> 13) & 1);
	return sign | (uint16_t)(a >> 13);
}

#endif /* HC_COLL_HALF_H */
