/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernels: bytes per second per core of every reduction kernel, the
 * figures and the kernel target of issue 11, in one run.
 *
 *   build/tests/bench/kernels [--quick]
 *   tests/bench/kernels-callgrind          (instructions per byte)
 *
 * For a 64 MiB buffer (beyond the caches) and a 256 KiB one (cache
 * resident) it measures, on one core, memcpy, the yardstick loop
 * `d = a + b` in float32 (kernels_yard.c, -O2, its own TU), and each
 * three-operand kernel d = a OP b (reduce.h, hc_reduce3_get; fp16/bf16
 * the native kernels, rounded per element) in the scalar and the AVX2 set
 * side by side. Sum for every dtype; sum, prod, min, max for float32,
 * float16 and bfloat16 (AVG runs SUM's kernel). Also the float32
 * accumulator conversions hc_reduce_to_acc/hc_reduce_from_acc (fp16/bf16
 * <-> fp32) that the fp32-accumulation path runs once per collective.
 *
 * Bytes counted: bytes of dst per second (the element count times the
 * element size; a and b of the same size are read, dst written), as the
 * issue's memcpy and `d = a + b` figures count; for conversions, bytes of
 * the 16-bit side. Each figure is the best of several timed runs (the
 * host is shared: the best run is the one least disturbed).
 *
 * Ends with the target lines for the kernel set chosen at
 * start-up (the one every caller gets):
 *   target kernel_fp32_sum measured <x> goal 0.9 met|missed
 * (x = kernel GB/s / yardstick GB/s at 64 MiB), fp16 and bf16 against 0.7.
 *
 * --callgrind (run under valgrind by tests/bench/kernels-callgrind): one
 * call of the yardstick and one each of fp32/fp16/bf16 SUM per set on
 * 1 MiB of dst, each between
 * callgrind client requests (zero, dump "<name> bytes=<n>"), so each dump
 * holds one kernel's instructions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_ZERO_STATS
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#include "half.h"
#include "kernels_yard.h"
#include "reduce.h"

#define MIB (1024u * 1024u)

static const size_t dsize[HC_DTYPE__MAX] = {
	[HC_DTYPE_INT8] = 1, [HC_DTYPE_UINT8] = 1,
	[HC_DTYPE_INT32] = 4, [HC_DTYPE_UINT32] = 4,
	[HC_DTYPE_INT64] = 8, [HC_DTYPE_UINT64] = 8,
	[HC_DTYPE_FLOAT16] = 2, [HC_DTYPE_BFLOAT16] = 2,
	[HC_DTYPE_FLOAT32] = 4, [HC_DTYPE_FLOAT64] = 8,
};
static const char *const dname[HC_DTYPE__MAX] = {
	"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
	"bfloat16", "float32", "float64",
};
static const char *const oname[HC_OP__MAX] = {
	"sum", "prod", "min", "max", "avg",
};

/* a, b, dst of the kernels; ya, yb the yardstick's own float32 operands
 * (ordinary values: the kernels' data reinterpreted as floats could hold
 * denormals, which would time microcode assists). */
static uint8_t *abuf, *bbuf, *dbuf;
static float *ya, *yb;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Ordinary values of each dtype (no NaN, no denormals: they would time
 * the microcode assists, not the kernels), products that stay finite. */
static void
fill(uint8_t *p, enum hc_dtype t, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		float f = 1.0f + (float)((i * 7 + seed) % 64) / 64.0f;
		uint64_t v = (i * 2654435761u + seed) & 0x7f;
		uint16_t h;
		double d = f;

		switch (t) {
		case HC_DTYPE_FLOAT16:
			h = hc_f32_to_f16(f);
			memcpy(p + 2 * i, &h, 2);
			break;
		case HC_DTYPE_BFLOAT16:
			h = hc_f32_to_bf16(f);
			memcpy(p + 2 * i, &h, 2);
			break;
		case HC_DTYPE_FLOAT32:
			memcpy(p + 4 * i, &f, 4);
			break;
		case HC_DTYPE_FLOAT64:
			memcpy(p + 8 * i, &d, 8);
			break;
		default:
			memcpy(p + dsize[t] * i, &v, dsize[t]);
			break;
		}
	}
}

/* Runs per figure: enough bytes to time well, at least 3. */
static unsigned int
runs_for(size_t bytes, int quick)
{
	size_t target = (quick ? 256u : 1024u) * MIB;
	size_t r = target / bytes;

	if (r < 3)
		r = 3;
	return (unsigned int)r;
}

enum what { MEMCPY, YARD, KERNEL, TO_ACC, FROM_ACC };

/* One timed round: `runs` calls; returns seconds. */
static double
round_s(enum what w, enum hc_dtype t, hc_reduce3_fn fn, size_t bytes,
	unsigned int runs)
{
	size_t n = t < HC_DTYPE__MAX ? bytes / dsize[t] : bytes / 4;
	double t0 = now_s();
	unsigned int k;

	for (k = 0; k < runs; k++) {
		switch (w) {
		case MEMCPY:
			memcpy(dbuf, abuf, bytes);
			break;
		case YARD:
			hc_bench_add_f32((float *)(void *)dbuf, ya, yb,
					 bytes / 4);
			break;
		case KERNEL:
			fn(dbuf, abuf, bbuf, n);
			break;
		case TO_ACC:    /* bytes of 16-bit input */
			hc_reduce_to_acc(dbuf, abuf, bytes / 2, t,
					 HC_DTYPE_FLOAT32);
			break;
		case FROM_ACC:  /* bytes of 16-bit output */
			hc_reduce_from_acc(dbuf, abuf, bytes / 2, t,
					   HC_DTYPE_FLOAT32, 1);
			break;
		}
		/* keep the result live */
		__asm__ volatile("" : : "r"(dbuf) : "memory");
	}
	return now_s() - t0;
}

/*
 * GB/s (1e9 bytes of dst per second) of the best of `rounds` rounds of
 * `runs` calls each. Each round of the subject follows a round of the
 * yardstick on the same buffers, so that both see the same load on this
 * shared host; *yard gets the yardstick's best (GB/s) of those rounds.
 * The yardstick always reads float32 over `ybytes` (its 64 MiB or
 * 256 KiB), whatever the subject's dtype.
 */
static double
measure(enum what w, enum hc_dtype t, enum hc_op op, size_t bytes,
	size_t ybytes, unsigned int runs, unsigned int rounds, double *yard)
{
	hc_reduce3_fn fn = w == KERNEL ? hc_reduce3_get(t, op) : NULL;
	double best = 0, ybest = 0, dt;
	unsigned int r;

	for (r = 0; r < rounds; r++) {
		dt = round_s(YARD, HC_DTYPE__MAX, NULL, ybytes, runs);
		if (dt > 0 && (double)ybytes * runs / dt / 1e9 > ybest)
			ybest = (double)ybytes * runs / dt / 1e9;
		dt = round_s(w, t, fn, bytes, runs);
		if (dt > 0 && (double)bytes * runs / dt / 1e9 > best)
			best = (double)bytes * runs / dt / 1e9;
	}
	if (yard != NULL)
		*yard = ybest;
	return best;
}

static double
measure_isa(enum hc_reduce_isa isa, enum what w, enum hc_dtype t,
	    enum hc_op op, size_t bytes, size_t ybytes, unsigned int runs,
	    unsigned int rounds, double *yard)
{
	if (hc_reduce_isa_set(isa) != 0)
		return 0;
	return measure(w, t, op, bytes, ybytes, runs, rounds, yard);
}

static int
callgrind_mode(void)
{
	static const enum hc_dtype ts[] = {
		HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16,
	};
	const size_t bytes = MIB;
	enum hc_reduce_isa isa;
	unsigned int k;
	char name[96];

	/* the yardstick, for scale */
	snprintf(name, sizeof(name), "yard_d=a+b_f32 bytes=%zu", bytes);
	CALLGRIND_ZERO_STATS;
	hc_bench_add_f32((float *)(void *)dbuf, ya, yb, bytes / 4);
	CALLGRIND_DUMP_STATS_AT(name);
	printf("%s\n", name);
	for (isa = 0; isa < HC_REDUCE_ISA__MAX; isa++) {
		if (hc_reduce_isa_set(isa) != 0)
			continue;
		for (k = 0; k < 3; k++) {
			hc_reduce3_fn fn = hc_reduce3_get(ts[k], HC_OP_SUM);

			fill(abuf, ts[k], bytes / dsize[ts[k]], 1);
			fill(bbuf, ts[k], bytes / dsize[ts[k]], 2);
			snprintf(name, sizeof(name), "%s_sum_%s bytes=%zu",
				 dname[ts[k]], hc_reduce_isa_name(isa), bytes);
			CALLGRIND_ZERO_STATS;
			fn(dbuf, abuf, bbuf, bytes / dsize[ts[k]]);
			CALLGRIND_DUMP_STATS_AT(name);
			printf("%s\n", name);
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 64 * MIB, 256 * 1024 };
	static const enum hc_dtype all_ops[] = {
		HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16,
	};
	enum hc_reduce_isa chosen = hc_reduce_isa_get();
	int quick = 0, cg = 0, have_avx2, i;
	double ratio64[HC_DTYPE__MAX] = { 0 };
	unsigned int s, k, rounds;
	enum hc_dtype t;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
		} else if (strcmp(argv[i], "--callgrind") == 0) {
			cg = 1;
		} else {
			fprintf(stderr, "usage: %s [--quick | --callgrind]\n",
				argv[0]);
			return 2;
		}
	}
	abuf = aligned_alloc(64, 64 * MIB);
	bbuf = aligned_alloc(64, 64 * MIB);
	dbuf = aligned_alloc(64, 64 * MIB);
	ya = aligned_alloc(64, 64 * MIB);
	yb = aligned_alloc(64, 64 * MIB);
	if (abuf == NULL || bbuf == NULL || dbuf == NULL || ya == NULL ||
	    yb == NULL) {
		fprintf(stderr, "kernels: out of memory\n");
		return 1;
	}
	memset(dbuf, 0, 64 * MIB);      /* first touch outside the timing */
	fill((uint8_t *)ya, HC_DTYPE_FLOAT32, 16 * MIB, 1);
	fill((uint8_t *)yb, HC_DTYPE_FLOAT32, 16 * MIB, 2);
	if (cg)
		return callgrind_mode();
	have_avx2 = hc_reduce_isa_supported(HC_REDUCE_ISA_AVX2);
	rounds = quick ? 3 : 5;
	printf("kernels: one core; GB/s = 1e9 bytes of dst per second (a, b "
	       "of the same size read); best of %u rounds\n", rounds);
	printf("kernel set chosen at start-up: %s (HC_KERNELS=%s)\n",
	       hc_reduce_isa_name(chosen),
	       getenv("HC_KERNELS") ? getenv("HC_KERNELS") : "unset");

	for (s = 0; s < 2; s++) {
		size_t bytes = sizes[s];
		unsigned int runs = runs_for(bytes, quick);
		double mc, yd, y;

		fill(abuf, HC_DTYPE_FLOAT32, bytes / 4, 1);
		mc = measure(MEMCPY, HC_DTYPE__MAX, 0, bytes, bytes, runs,
			     rounds, &yd);
		printf("\nsize %zu KiB (%u calls per round)\n", bytes / 1024,
		       runs);
		printf("  %-24s %8.2f GB/s\n", "memcpy", mc);
		printf("  %-24s %8.2f GB/s (and next to every kernel: "
		       "column yard)\n", "d = a + b fp32 (-O2)", yd);
		printf("  %-24s %8s %8s %8s %9s %9s\n", "kernel d = a OP b",
		       "scalar", "avx2", "yard", "avx2/yard", "avx2/scal");
		for (t = 0; t < HC_DTYPE__MAX; t++) {
			int op;

			fill(abuf, t, bytes / dsize[t], 1);
			fill(bbuf, t, bytes / dsize[t], 2);
			for (op = 0; op < HC_OP_AVG; op++) {
				int wide = 0;
				double sc, vx;
				char label[40];

				for (k = 0; k < 3; k++)
					wide |= all_ops[k] == t;
				if (op != HC_OP_SUM && !wide)
					continue;
				sc = measure_isa(HC_REDUCE_ISA_SCALAR, KERNEL,
						 t, op, bytes, bytes, runs,
						 rounds, &y);
				vx = have_avx2 ? measure_isa(HC_REDUCE_ISA_AVX2,
					KERNEL, t, op, bytes, bytes, runs,
					rounds, &y) : 0;
				if (s == 0 && op == HC_OP_SUM)
					ratio64[t] = (chosen == HC_REDUCE_ISA_AVX2 ?
						      vx : sc) / y;
				snprintf(label, sizeof(label), "%s %s",
					 dname[t], oname[op]);
				printf("  %-24s %8.2f %8.2f %8.2f %9.2f %9.2f\n",
				       label, sc, vx, y, vx / y,
				       sc > 0 ? vx / sc : 0);
			}
		}
		/* the fp32-accumulation path's conversions (bytes: 16-bit) */
		for (k = 1; k < 3; k++) {
			enum hc_dtype h = all_ops[k];
			char label[40];
			double sc, vx;

			fill(abuf, h, bytes / 2, 1);
			sc = measure_isa(HC_REDUCE_ISA_SCALAR, TO_ACC, h, 0,
					 bytes / 2, bytes, runs, rounds, &y);
			vx = have_avx2 ? measure_isa(HC_REDUCE_ISA_AVX2, TO_ACC,
					h, 0, bytes / 2, bytes, runs, rounds,
					&y) : 0;
			snprintf(label, sizeof(label), "to_acc %s->f32",
				 dname[h]);
			printf("  %-24s %8.2f %8.2f %8.2f %9.2f %9.2f\n", label,
			       sc, vx, y, vx / y, sc > 0 ? vx / sc : 0);
			fill(abuf, HC_DTYPE_FLOAT32, bytes / 4, 1);
			sc = measure_isa(HC_REDUCE_ISA_SCALAR, FROM_ACC, h, 0,
					 bytes / 2, bytes, runs, rounds, &y);
			vx = have_avx2 ? measure_isa(HC_REDUCE_ISA_AVX2,
					FROM_ACC, h, 0, bytes / 2, bytes, runs,
					rounds, &y) : 0;
			snprintf(label, sizeof(label), "from_acc f32->%s",
				 dname[h]);
			printf("  %-24s %8.2f %8.2f %8.2f %9.2f %9.2f\n", label,
			       sc, vx, y, vx / y, sc > 0 ? vx / sc : 0);
		}
		hc_reduce_isa_set(chosen);
	}

	printf("\n");
	printf("target kernel_fp32_sum measured %.2f goal 0.9 %s\n",
	       ratio64[HC_DTYPE_FLOAT32],
	       ratio64[HC_DTYPE_FLOAT32] >= 0.9 ? "met" : "missed");
	printf("target kernel_fp16_sum measured %.2f goal 0.7 %s\n",
	       ratio64[HC_DTYPE_FLOAT16],
	       ratio64[HC_DTYPE_FLOAT16] >= 0.7 ? "met" : "missed");
	printf("target kernel_bf16_sum measured %.2f goal 0.7 %s\n",
	       ratio64[HC_DTYPE_BFLOAT16],
	       ratio64[HC_DTYPE_BFLOAT16] >= 0.7 ? "met" : "missed");
	free(abuf);
	free(bbuf);
	free(dbuf);
	free(ya);
	free(yb);
	return 0;
}
