/* SPDX-License-Identifier: BSD-3-Clause */
/** @file The yardstick loop of tests/bench/kernels (kernels_yard.c). */
#ifndef HC_BENCH_KERNELS_YARD_H
#define HC_BENCH_KERNELS_YARD_H

#include <stddef.h>

/** d[i] = a[i] + b[i] for n float32 elements (n, not bytes). */
void hc_bench_add_f32(float *d, const float *a, const float *b, size_t n);

#endif /* HC_BENCH_KERNELS_YARD_H */
