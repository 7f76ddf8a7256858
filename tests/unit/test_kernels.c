/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every vector kernel set (reduce.h: AVX2 + F16C) against the scalar set,
 * bit for bit: the three-operand kernels of every dtype x op, the
 * two-operand kernels of every accumulation dtype, and the fp16/bf16 <->
 * fp32 conversions of hc_reduce_to_acc/hc_reduce_from_acc (AVG divisors
 * included). Lengths 0..4099 around the vector widths, operands at
 * byte offsets 0..3 (unaligned), dst distinct from, equal to a, or equal
 * to b; guard bytes around dst must stay untouched and a, b unchanged
 * when distinct. Operands mix random bits (NaN payloads, infinities,
 * denormals), ordinary values and special values (+-0, +-inf, NaNs of
 * both signs and kinds, denormals, integer min/max, fp16 overflow and
 * rounding boundaries). Also known values for the new native 16-bit
 * kernels and the ISA switch itself.
 *
 * The sets are switched with hc_reduce_isa_set(); the suite restores the
 * start-up choice. On a CPU without AVX2/F16C there is nothing to compare
 * and the comparison tests assert instead that the AVX2 set is refused
 * and the scalar one is in use (not scalar compared with itself).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "half.h"
#include "reduce.h"
#include "suites.h"

#define MAXN 4099
#define PAD 64          /* guard bytes before and after dst */
#define GUARD 0xa5
#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static const size_t dsize[HC_DTYPE__MAX] = {
	[HC_DTYPE_INT8] = 1, [HC_DTYPE_UINT8] = 1,
	[HC_DTYPE_INT32] = 4, [HC_DTYPE_UINT32] = 4,
	[HC_DTYPE_INT64] = 8, [HC_DTYPE_UINT64] = 8,
	[HC_DTYPE_FLOAT16] = 2, [HC_DTYPE_BFLOAT16] = 2,
	[HC_DTYPE_FLOAT32] = 4, [HC_DTYPE_FLOAT64] = 8,
};

static const uint64_t lens[] = { 0, 1, 7, 8, 15, 16, 31, 33, 1000, 4099 };
/* byte offsets of a, b and dst in their buffers */
static const unsigned int offs[][3] = {
	{ 0, 0, 0 }, { 1, 3, 5 }, { 2, 0, 1 }, { 3, 2, 0 },
};

static enum hc_reduce_isa start_isa;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
 * xorshift generators", 2016): fixed seed, reproducible. */
static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Special values by bit pattern. */
static const uint16_t sp16[] = {           /* float16 */
	0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00,
	0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfd55,
	0x7fff, 0x7bfe, 0x3555, 0x0200,
};
static const uint16_t spb16[] = {          /* bfloat16 */
	0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80,
	0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xff95,
	0x7fff, 0x3f81, 0x4b00,
};
static const uint32_t sp32[] = {           /* float32 */
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
	0x00800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff,
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
	0xff812345, 0x7fffffff, 0x477fe000, 0x477ff000, 0x477fefff,
	0x38800000, 0x387fffff, 0x33800000, 0x33000000, 0x33000001,
	0x3f808000, 0x3f818000, 0x3f800001, 0x4b000001,
};
static const uint64_t sp64[] = {           /* float64 */
	0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
	0x000fffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
	0x7fefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
	0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
	0xfff4000000000abcull,
};
static const uint64_t spint[] = {          /* integers, truncated */
	0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
	0x100000000ull, 0xfffffffe,
};

/* Element of dtype t: random bits, an ordinary value, or a special one. */
static void
fill_elem(uint8_t *p, enum hc_dtype t)
{
	uint64_t r = rnd(), v;
	unsigned int kind = r % 4;
	uint16_t h;
	uint32_t u;
	float f;
	double d;

	r = rnd();
	switch (t) {
	case HC_DTYPE_FLOAT16:
	case HC_DTYPE_BFLOAT16:
		if (kind == 0) {
			h = t == HC_DTYPE_FLOAT16 ?
				sp16[r % DIM(sp16)] :
				spb16[r % DIM(spb16)];
		} else if (kind == 1) {
			h = (uint16_t)r;
		} else {
			/* small integers and fractions: sums round */
			f = (float)((int64_t)(r % 20001) - 10000) / 64.0f;
			h = t == HC_DTYPE_FLOAT16 ? hc_f32_to_f16(f) :
						    hc_f32_to_bf16(f);
		}
		memcpy(p, &h, 2);
		break;
	case HC_DTYPE_FLOAT32:
		if (kind == 0)
			u = sp32[r % DIM(sp32)];
		else if (kind == 1)
			u = (uint32_t)r;
		else {
			f = (float)((int64_t)(r % 2000001) - 1000000) / 1024.0f;
			memcpy(&u, &f, 4);
		}
		memcpy(p, &u, 4);
		break;
	case HC_DTYPE_FLOAT64:
		if (kind == 0)
			v = sp64[r % DIM(sp64)];
		else if (kind == 1)
			v = r;
		else {
			d = (double)((int64_t)(r % 2000001) - 1000000) / 1024.0;
			memcpy(&v, &d, 8);
		}
		memcpy(p, &v, 8);
		break;
	default:
		v = kind == 0 ? spint[r % DIM(spint)] :
		    kind == 1 ? r : (uint64_t)((int64_t)(r % 201) - 100);
		if (kind == 0 && (rnd() & 1))
			v = ~v;
		memcpy(p, &v, dsize[t]); /* little-endian: the low bytes */
		break;
	}
}

static void
fill(uint8_t *p, enum hc_dtype t, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		fill_elem(p + i * dsize[t], t);
}

enum alias { DISTINCT, DST_A, DST_B };

/* Buffers: a, b, and per ISA a dst with PAD guard bytes around it. */
static uint8_t abuf[MAXN * 8 + 8], bbuf[MAXN * 8 + 8];
static uint8_t a0[MAXN * 8 + 8], b0[MAXN * 8 + 8];
static uint8_t dbuf[2][PAD + MAXN * 8 + 8 + PAD];

static int
guards_ok(const uint8_t *buf, size_t off, size_t bytes)
{
	size_t i;

	for (i = 0; i < PAD + off; i++)
		if (buf[i] != GUARD)
			return 0;
	for (i = PAD + off + bytes; i < sizeof(dbuf[0]); i++)
		if (buf[i] != GUARD)
			return 0;
	return 1;
}

static unsigned int failures_shown;

static void
report(const char *what, enum hc_dtype t, int op, uint64_t n,
       unsigned int oi, int al)
{
	if (failures_shown++ < 10)
		fprintf(stderr, "\n  %s: dtype %d op %d n %" PRIu64 " offsets "
			"%u alias %d differ\n", what, (int)t, op, n, oi, al);
}

/*
 * One case: run set `isa` (index 0 scalar, 1 vector) on the operands in
 * abuf/bbuf; the result is left in dbuf[idx]. two: the two-operand
 * kernel (dst starts as b) instead of the three-operand one.
 */
static void
run_case(int idx, enum hc_reduce_isa isa, enum hc_dtype t, enum hc_op op,
	 uint64_t n, unsigned int oi, enum alias al, int two)
{
	size_t es = dsize[t], bytes = n * es;
	uint8_t *d = dbuf[idx] + PAD + offs[oi][2];
	uint8_t *a = abuf + offs[oi][0], *b = bbuf + offs[oi][1];

	CU_ASSERT_EQUAL_FATAL(hc_reduce_isa_set(isa), 0);
	memset(dbuf[idx], GUARD, sizeof(dbuf[idx]));
	memcpy(a, a0, bytes);
	memcpy(b, b0, bytes);
	if (two) {
		hc_reduce_fn fn = hc_reduce_get(t, op);

		CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
		memcpy(d, b, bytes);
		fn(d, a, n);
		return;
	}
	hc_reduce3_fn fn3 = hc_reduce3_get(t, op);

	CU_ASSERT_PTR_NOT_NULL_FATAL(fn3);
	switch (al) {
	case DISTINCT:
		fn3(d, a, b, n);
		break;
	case DST_A:
		memcpy(d, a, bytes);
		fn3(d, d, b, n);
		break;
	case DST_B:
		memcpy(d, b, bytes);
		fn3(d, a, d, n);
		break;
	}
}

static int
have_vector(void)
{
	if (hc_reduce_isa_supported(HC_REDUCE_ISA_AVX2))
		return 1;
	/* Nothing to compare with: what holds instead is that the AVX2 set
	 * is refused and every kernel runs scalar. */
	CU_ASSERT_EQUAL(hc_reduce_isa_set(HC_REDUCE_ISA_AVX2), -ENOTSUP);
	CU_ASSERT_EQUAL(hc_reduce_isa_get(), HC_REDUCE_ISA_SCALAR);
	return 0;
}

/* Every dtype x op x length x offsets x aliasing, 3-operand and 2. */
static void
test_kernels_vs_scalar(void)
{
	enum hc_dtype t;
	int op, two;
	unsigned int li, oi;
	int al;

	if (!have_vector())
		return;
	for (t = 0; t < HC_DTYPE__MAX; t++)
	for (op = 0; op < HC_OP__MAX; op++)
	for (li = 0; li < DIM(lens); li++)
	for (oi = 0; oi < DIM(offs); oi++)
	for (two = 0; two < 2; two++)
	for (al = DISTINCT; al <= (two ? DISTINCT : DST_B); al++) {
		uint64_t n = lens[li];
		size_t bytes = n * dsize[t];
		int same;

		if (two && (t == HC_DTYPE_FLOAT16 || t == HC_DTYPE_BFLOAT16))
			continue; /* never accumulation dtypes */
		fill(a0, t, n);
		fill(b0, t, n);
		run_case(0, HC_REDUCE_ISA_SCALAR, t, op, n, oi, al, two);
		run_case(1, HC_REDUCE_ISA_AVX2, t, op, n, oi, al, two);
		same = memcmp(dbuf[0], dbuf[1], sizeof(dbuf[0])) == 0;
		CU_ASSERT_TRUE(same);
		if (!same)
			report(two ? "2-operand" : "3-operand", t, op, n, oi,
			       al);
		CU_ASSERT_TRUE(guards_ok(dbuf[1], offs[oi][2], bytes));
		/* the operands dst does not alias are read only */
		if (al != DST_A)
			CU_ASSERT_EQUAL(memcmp(abuf + offs[oi][0], a0, bytes),
					0);
		if (al != DST_B && !two)
			CU_ASSERT_EQUAL(memcmp(bbuf + offs[oi][1], b0, bytes),
					0);
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* The two forms agree: fn(dst, src) == fn3(dst, src, dst) == fn3(x, src,
 * dst) in every set (reduce.h). */
static void
test_two_is_three(void)
{
	enum hc_reduce_isa isa;
	enum hc_dtype t;
	int op;

	for (isa = 0; isa < HC_REDUCE_ISA__MAX; isa++) {
		if (!hc_reduce_isa_supported(isa))
			continue;
		for (t = 0; t < HC_DTYPE__MAX; t++) {
			if (t == HC_DTYPE_FLOAT16 || t == HC_DTYPE_BFLOAT16)
				continue;
			for (op = 0; op < HC_OP__MAX; op++) {
				size_t bytes = 1000 * dsize[t];

				fill(a0, t, 1000);
				fill(b0, t, 1000);
				run_case(0, isa, t, op, 1000, 1, DISTINCT, 1);
				run_case(1, isa, t, op, 1000, 1, DISTINCT, 0);
				CU_ASSERT_EQUAL(memcmp(dbuf[0] + PAD + 5,
						       dbuf[1] + PAD + 5,
						       bytes), 0);
			}
		}
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* Every pair of special values, every op, in both sets. */
static void
test_special_pairs(void)
{
	static const enum hc_dtype ts[] = {
		HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16, HC_DTYPE_FLOAT32,
		HC_DTYPE_FLOAT64, HC_DTYPE_INT8, HC_DTYPE_UINT8,
		HC_DTYPE_INT32, HC_DTYPE_UINT32, HC_DTYPE_INT64,
		HC_DTYPE_UINT64,
	};
	unsigned int k, i, j, cnt;
	int op;

	if (!have_vector())
		return;
	for (k = 0; k < DIM(ts); k++) {
		enum hc_dtype t = ts[k];
		size_t es = dsize[t];
		const void *sp;

		switch (t) {
		case HC_DTYPE_FLOAT16: sp = sp16; cnt = DIM(sp16); break;
		case HC_DTYPE_BFLOAT16: sp = spb16; cnt = DIM(spb16); break;
		case HC_DTYPE_FLOAT32: sp = sp32; cnt = DIM(sp32); break;
		case HC_DTYPE_FLOAT64: sp = sp64; cnt = DIM(sp64); break;
		default: sp = spint; cnt = DIM(spint); break;
		}
		/* a0 x b0 = every (i, j) pair, element i * cnt + j */
		for (i = 0; i < cnt; i++)
			for (j = 0; j < cnt; j++) {
				const uint8_t *s = sp;
				size_t se = t == HC_DTYPE_FLOAT16 ||
					    t == HC_DTYPE_BFLOAT16 ? 2 :
					    t == HC_DTYPE_FLOAT32 ? 4 : 8;

				memcpy(a0 + (i * cnt + j) * es, s + i * se, es);
				memcpy(b0 + (i * cnt + j) * es, s + j * se, es);
			}
		for (op = 0; op < HC_OP__MAX; op++) {
			uint64_t n = (uint64_t)cnt * cnt;
			int same;

			run_case(0, HC_REDUCE_ISA_SCALAR, t, op, n, 0,
				 DISTINCT, 0);
			run_case(1, HC_REDUCE_ISA_AVX2, t, op, n, 0, DISTINCT,
				 0);
			same = memcmp(dbuf[0], dbuf[1], sizeof(dbuf[0])) == 0;
			CU_ASSERT_TRUE(same);
			if (!same)
				report("special pairs", t, op, n, 0, 0);
		}
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* hc_reduce_to_acc / hc_reduce_from_acc of the float32 accumulation
 * paths: fp16, bf16 -> fp32 and fp32 -> fp16, bf16, fp32 with the AVG
 * divisors, every length and offset, in place for fp32. */
static void
test_conversions(void)
{
	static const enum hc_dtype ts[] = {
		HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16, HC_DTYPE_FLOAT32,
	};
	static const uint32_t divs[] = { 0, 1, 2, 3, 4, 7, 64, 1000 };
	unsigned int k, li, oi, di;
	int idx, same;

	if (!have_vector())
		return;
	for (k = 0; k < DIM(ts); k++)
	for (li = 0; li < DIM(lens); li++)
	for (oi = 0; oi < DIM(offs); oi++) {
		enum hc_dtype t = ts[k];
		uint64_t n = lens[li];
		size_t es = dsize[t];

		/* in: dtype -> fp32 (fp32 -> fp32 is not a conversion) */
		if (t != HC_DTYPE_FLOAT32) {
			fill(a0, t, n);
			for (idx = 0; idx < 2; idx++) {
				CU_ASSERT_EQUAL(hc_reduce_isa_set(idx ?
					HC_REDUCE_ISA_AVX2 :
					HC_REDUCE_ISA_SCALAR), 0);
				memset(dbuf[idx], GUARD, sizeof(dbuf[idx]));
				memcpy(abuf + offs[oi][0], a0, n * es);
				hc_reduce_to_acc(dbuf[idx] + PAD + offs[oi][2],
						 abuf + offs[oi][0], n, t,
						 HC_DTYPE_FLOAT32);
			}
			same = memcmp(dbuf[0], dbuf[1], sizeof(dbuf[0])) == 0;
			CU_ASSERT_TRUE(same);
			CU_ASSERT_TRUE(guards_ok(dbuf[1], offs[oi][2], n * 4));
			if (!same)
				report("to_acc", t, 0, n, oi, 0);
		}
		/* out: fp32 -> dtype, / divisor */
		for (di = 0; di < DIM(divs); di++) {
			fill(a0, HC_DTYPE_FLOAT32, n);
			for (idx = 0; idx < 2; idx++) {
				uint8_t *d = dbuf[idx] + PAD + offs[oi][2];

				CU_ASSERT_EQUAL(hc_reduce_isa_set(idx ?
					HC_REDUCE_ISA_AVX2 :
					HC_REDUCE_ISA_SCALAR), 0);
				memset(dbuf[idx], GUARD, sizeof(dbuf[idx]));
				memcpy(abuf + offs[oi][0], a0, n * 4);
				if (t == HC_DTYPE_FLOAT32 && (oi & 1)) {
					/* in place, as ring.c may */
					memcpy(d, a0, n * 4);
					hc_reduce_from_acc(d, d, n, t,
						HC_DTYPE_FLOAT32, divs[di]);
				} else {
					hc_reduce_from_acc(d,
						abuf + offs[oi][0], n, t,
						HC_DTYPE_FLOAT32, divs[di]);
				}
			}
			same = memcmp(dbuf[0], dbuf[1], sizeof(dbuf[0])) == 0;
			CU_ASSERT_TRUE(same);
			CU_ASSERT_TRUE(guards_ok(dbuf[1], offs[oi][2], n * es));
			if (!same)
				report("from_acc", t, (int)divs[di], n, oi, 0);
		}
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* Conversions over every 16-bit pattern, and float32 patterns over the
 * whole range in steps of 509 (prime: every mantissa residue) plus every
 * float32 within 64 ulps of each fp16/bf16 rounding boundary family
 * (the specials above). */
static void
test_conversions_sweep(void)
{
	static float f[2][65536];
	static uint16_t h[2][65536];
	static uint16_t in16[65536];
	static float in32[65536];
	uint64_t u, filled;
	unsigned int i, idx, k;
	int bad;

	if (!have_vector())
		return;
	for (i = 0; i < 65536; i++)
		in16[i] = (uint16_t)i;
	for (k = 0; k < 2; k++) {
		enum hc_dtype t = k ? HC_DTYPE_BFLOAT16 : HC_DTYPE_FLOAT16;

		for (idx = 0; idx < 2; idx++) {
			CU_ASSERT_EQUAL(hc_reduce_isa_set(idx ?
				HC_REDUCE_ISA_AVX2 : HC_REDUCE_ISA_SCALAR), 0);
			hc_reduce_to_acc(f[idx], in16, 65536, t,
					 HC_DTYPE_FLOAT32);
		}
		CU_ASSERT_EQUAL(memcmp(f[0], f[1], sizeof(f[0])), 0);
		if (memcmp(f[0], f[1], sizeof(f[0])) != 0)
			report("to_acc sweep", t, 0, 65536, 0, 0);
	}
	bad = 0;
	filled = 0;
	for (u = 0; u <= 0xffffffffull; u += 509) {
		uint32_t w = (uint32_t)u;

		memcpy(&in32[filled++], &w, 4);
		if (filled < 65536 && u + 509 <= 0xffffffffull)
			continue;
		for (k = 0; k < 2; k++) {
			enum hc_dtype t = k ? HC_DTYPE_BFLOAT16 :
					      HC_DTYPE_FLOAT16;

			for (idx = 0; idx < 2; idx++) {
				CU_ASSERT_EQUAL(hc_reduce_isa_set(idx ?
					HC_REDUCE_ISA_AVX2 :
					HC_REDUCE_ISA_SCALAR), 0);
				hc_reduce_from_acc(h[idx], in32, filled, t,
						   HC_DTYPE_FLOAT32, 1);
			}
			if (memcmp(h[0], h[1], filled * 2) != 0)
				bad++;
		}
		filled = 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* around the specials: +-64 ulps */
	filled = 0;
	for (i = 0; i < DIM(sp32); i++) {
		int64_t dlt;

		for (dlt = -64; dlt <= 64; dlt++) {
			uint32_t w = (uint32_t)((int64_t)sp32[i] + dlt);

			memcpy(&in32[filled++], &w, 4);
		}
	}
	for (k = 0; k < 2; k++) {
		enum hc_dtype t = k ? HC_DTYPE_BFLOAT16 : HC_DTYPE_FLOAT16;

		for (idx = 0; idx < 2; idx++) {
			CU_ASSERT_EQUAL(hc_reduce_isa_set(idx ?
				HC_REDUCE_ISA_AVX2 : HC_REDUCE_ISA_SCALAR), 0);
			hc_reduce_from_acc(h[idx], in32, filled, t,
					   HC_DTYPE_FLOAT32, 1);
		}
		CU_ASSERT_EQUAL(memcmp(h[0], h[1], filled * 2), 0);
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* The new native 16-bit kernels, in every set, on known values: the
 * float32 result rounded once per element. */
static void
test_native_half_values(void)
{
	/* a, b, sum, prod, min, max as float16 bits */
	static const uint16_t f16v[][6] = {
		{ 0x3c00, 0x4000, 0x4200, 0x4000, 0x3c00, 0x4000 }, /* 1, 2 */
		{ 0x7bff, 0x7bff, 0x7c00, 0x7c00, 0x7bff, 0x7bff }, /* max */
		{ 0x8000, 0x0000, 0x0000, 0x8000, 0x0000, 0x0000 }, /* -0, 0 */
		{ 0x7e00, 0x3c00, 0x7e00, 0x7e00, 0x7e00, 0x7e00 }, /* NaN */
		{ 0x3c00, 0xfe00, 0xfe00, 0xfe00, 0xfe00, 0xfe00 }, /* -NaN */
		{ 0x0001, 0x0001, 0x0002, 0x0000, 0x0001, 0x0001 }, /* denorm */
		{ 0x7c00, 0xfc00, 0xfe00, 0xfc00, 0xfc00, 0x7c00 }, /* inf-inf */
		/* 2048 + 1: the tie rounds to even, 2048 */
		{ 0x6800, 0x3c00, 0x6800, 0x6800, 0x3c00, 0x6800 },
	};
	/* bfloat16: 1 + 2^-8 ties to even 1; 256 + 1 = 257 -> 256 */
	static const uint16_t bf16v[][6] = {
		{ 0x3f80, 0x4000, 0x4040, 0x4000, 0x3f80, 0x4000 },
		{ 0x3f80, 0x3b80, 0x3f80, 0x3b80, 0x3b80, 0x3f80 },
		{ 0x4380, 0x3f80, 0x4380, 0x4380, 0x3f80, 0x4380 },
		{ 0x7fc0, 0x3f80, 0x7fc0, 0x7fc0, 0x7fc0, 0x7fc0 },
		{ 0x7f7f, 0x7f7f, 0x7f80, 0x7f80, 0x7f7f, 0x7f7f },
	};
	static const int ops[] = { HC_OP_SUM, HC_OP_PROD, HC_OP_MIN,
				   HC_OP_MAX, HC_OP_AVG };
	enum hc_reduce_isa isa;
	unsigned int i, o;
	uint16_t a[40], b[40], d[40];

	for (isa = 0; isa < HC_REDUCE_ISA__MAX; isa++) {
		if (!hc_reduce_isa_supported(isa))
			continue;
		CU_ASSERT_EQUAL(hc_reduce_isa_set(isa), 0);
		for (o = 0; o < DIM(ops); o++) {
			/* AVG is a sum in the kernels (reduce.h) */
			unsigned int col = 2 + (o == 4 ? 0 : o);
			hc_reduce3_fn f16 = hc_reduce3_get(HC_DTYPE_FLOAT16,
							   ops[o]);
			hc_reduce3_fn bf = hc_reduce3_get(HC_DTYPE_BFLOAT16,
							  ops[o]);

			/* 40 elements: the vector body and the tail */
			for (i = 0; i < 40; i++) {
				a[i] = f16v[i % DIM(f16v)][0];
				b[i] = f16v[i % DIM(f16v)][1];
			}
			f16(d, a, b, 40);
			for (i = 0; i < 40; i++)
				CU_ASSERT_EQUAL(d[i],
						f16v[i % DIM(f16v)][col]);
			for (i = 0; i < 40; i++) {
				a[i] = bf16v[i % DIM(bf16v)][0];
				b[i] = bf16v[i % DIM(bf16v)][1];
			}
			bf(d, a, b, 40);
			for (i = 0; i < 40; i++)
				CU_ASSERT_EQUAL(d[i],
						bf16v[i % DIM(bf16v)][col]);
		}
	}
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

/* The switch: names, range, start-up choice (HC_KERNELS, reduce.h). */
static void
test_isa_switch(void)
{
	const char *env = getenv("HC_KERNELS");

	CU_ASSERT_STRING_EQUAL(hc_reduce_isa_name(HC_REDUCE_ISA_SCALAR),
			       "scalar");
	CU_ASSERT_STRING_EQUAL(hc_reduce_isa_name(HC_REDUCE_ISA_AVX2), "avx2");
	CU_ASSERT_PTR_NULL(hc_reduce_isa_name(HC_REDUCE_ISA__MAX));
	CU_ASSERT_EQUAL(hc_reduce_isa_set(HC_REDUCE_ISA__MAX), -EINVAL);
	CU_ASSERT_EQUAL(hc_reduce_isa_set((enum hc_reduce_isa)-1), -EINVAL);
	CU_ASSERT_TRUE(hc_reduce_isa_supported(HC_REDUCE_ISA_SCALAR));
	if (env != NULL && strcmp(env, "scalar") == 0) {
		CU_ASSERT_EQUAL(start_isa, HC_REDUCE_ISA_SCALAR);
	} else {
		CU_ASSERT_EQUAL(start_isa,
			hc_reduce_isa_supported(HC_REDUCE_ISA_AVX2) ?
			HC_REDUCE_ISA_AVX2 : HC_REDUCE_ISA_SCALAR);
	}
	if (!hc_reduce_isa_supported(HC_REDUCE_ISA_AVX2))
		CU_ASSERT_EQUAL(hc_reduce_isa_set(HC_REDUCE_ISA_AVX2),
				-ENOTSUP);
	/* pointers follow the set */
	CU_ASSERT_EQUAL(hc_reduce_isa_set(HC_REDUCE_ISA_SCALAR), 0);
	CU_ASSERT_EQUAL(hc_reduce_isa_get(), HC_REDUCE_ISA_SCALAR);
	hc_reduce_fn s = hc_reduce_get(HC_DTYPE_FLOAT32, HC_OP_SUM);
	hc_reduce3_fn s3 = hc_reduce3_get(HC_DTYPE_FLOAT16, HC_OP_SUM);

	if (hc_reduce_isa_supported(HC_REDUCE_ISA_AVX2)) {
		CU_ASSERT_EQUAL(hc_reduce_isa_set(HC_REDUCE_ISA_AVX2), 0);
		CU_ASSERT_EQUAL(hc_reduce_isa_get(), HC_REDUCE_ISA_AVX2);
		CU_ASSERT_PTR_NOT_EQUAL(hc_reduce_get(HC_DTYPE_FLOAT32,
						      HC_OP_SUM), s);
		CU_ASSERT_PTR_NOT_EQUAL(hc_reduce3_get(HC_DTYPE_FLOAT16,
						       HC_OP_SUM), s3);
	}
	/* range of hc_reduce3_get: every dtype has kernels */
	CU_ASSERT_PTR_NOT_NULL(hc_reduce3_get(HC_DTYPE_BFLOAT16, HC_OP_AVG));
	CU_ASSERT_PTR_NULL(hc_reduce3_get(HC_DTYPE__MAX, HC_OP_SUM));
	CU_ASSERT_PTR_NULL(hc_reduce3_get(HC_DTYPE_INT8, HC_OP__MAX));
	CU_ASSERT_PTR_NULL(hc_reduce3_get((enum hc_dtype)-1, HC_OP_SUM));
	CU_ASSERT_EQUAL(hc_reduce_isa_set(start_isa), 0);
}

static int
kernels_init(void)
{
	start_isa = hc_reduce_isa_get();
	return 0;
}

static int
kernels_cleanup(void)
{
	return hc_reduce_isa_set(start_isa) == 0 ? 0 : -1;
}

static const CU_TestInfo kernels_tests[] = {
	{ "start-up choice, hc_reduce_isa_set, hc_reduce3_get range",
	  test_isa_switch },
	{ "every dtype x op x length x offset x aliasing: AVX2 == scalar",
	  test_kernels_vs_scalar },
	{ "special value pairs: AVX2 == scalar", test_special_pairs },
	{ "fp16/bf16/fp32 to/from fp32 accumulators: AVX2 == scalar",
	  test_conversions },
	{ "conversion sweeps over 16-bit and float32 patterns",
	  test_conversions_sweep },
	{ "two-operand == three-operand (dst as b)", test_two_is_three },
	{ "native fp16/bf16 kernels: known values", test_native_half_values },
	CU_TEST_INFO_NULL,
};

void
add_kernels_suite(void)
{
	unit_add_suite("kernels", kernels_init, kernels_cleanup, kernels_tests);
}
