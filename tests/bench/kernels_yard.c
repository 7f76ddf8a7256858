/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The yardstick of issue 11's kernel target: a plain float32 `d = a + b`
 * loop, as the compiler makes it. Its own translation unit, built at -O2
 * (meson.build) with no ISA flags beyond the build's, so nothing here is
 * tuned; the kernels must reach 0.9x (fp32) and 0.7x (fp16, bf16) of it.
 */
#include "kernels_yard.h"

void
hc_bench_add_f32(float *d, const float *a, const float *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = a[i] + b[i];
}
