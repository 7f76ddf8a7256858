/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_log.h>

#include "half.h"
#include "reduce_impl.h"

/*
 * The kernels live in one file per ISA (reduce_impl.h); this file picks
 * the set once, at start-up, as DPDK's rte_net_crc.c picks its CRC
 * implementation, and routes every entry point of reduce.h through it.
 */
static const struct hc_reduce_ops *const isa_ops[HC_REDUCE_ISA__MAX] = {
	[HC_REDUCE_ISA_SCALAR] = &hc_reduce_scalar_ops,
#ifdef HC_REDUCE_HAVE_AVX2
	[HC_REDUCE_ISA_AVX2] = &hc_reduce_avx2_ops,
#endif
};

/* The set in use; scalar until the constructor below has run. Atomic
 * loads and stores: hc_reduce_isa_set() may run in a test while no
 * reduction does, but a load never sees a torn pointer. */
static const struct hc_reduce_ops *cur_ops = &hc_reduce_scalar_ops;
static enum hc_reduce_isa cur_isa = HC_REDUCE_ISA_SCALAR;

static inline const struct hc_reduce_ops *
ops(void)
{
	return __atomic_load_n(&cur_ops, __ATOMIC_RELAXED);
}

int
hc_reduce_isa_supported(enum hc_reduce_isa isa)
{
	switch (isa) {
	case HC_REDUCE_ISA_SCALAR:
		return 1;
	case HC_REDUCE_ISA_AVX2:
#if defined(HC_REDUCE_HAVE_AVX2)
		/* cpuid only: needs no rte_eal_init() */
		return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 &&
		       rte_cpu_get_flag_enabled(RTE_CPUFLAG_F16C) > 0;
#else
		return 0;
#endif
	default:
		return 0;
	}
}

enum hc_reduce_isa
hc_reduce_isa_get(void)
{
	return __atomic_load_n(&cur_isa, __ATOMIC_RELAXED);
}

const char *
hc_reduce_isa_name(enum hc_reduce_isa isa)
{
	static const char *const names[HC_REDUCE_ISA__MAX] = {
		[HC_REDUCE_ISA_SCALAR] = "scalar",
		[HC_REDUCE_ISA_AVX2] = "avx2",
	};

	if ((unsigned int)isa >= HC_REDUCE_ISA__MAX)
		return NULL;
	return names[isa];
}

int
hc_reduce_isa_set(enum hc_reduce_isa isa)
{
	if ((unsigned int)isa >= HC_REDUCE_ISA__MAX)
		return -EINVAL;
	if (!hc_reduce_isa_supported(isa) || isa_ops[isa] == NULL)
		return -ENOTSUP;
	__atomic_store_n(&cur_ops, isa_ops[isa], __ATOMIC_RELAXED);
	__atomic_store_n(&cur_isa, isa, __ATOMIC_RELAXED);
	return 0;
}

/* Start-up choice: the best set the CPU runs, unless HC_KERNELS names
 * one (reduce.h). Runs before main(), so before any reduction. */
RTE_INIT(hc_reduce_init)
{
	const char *want = getenv("HC_KERNELS");
	enum hc_reduce_isa isa = HC_REDUCE_ISA_AVX2;

	if (want != NULL && strcmp(want, "scalar") == 0)
		isa = HC_REDUCE_ISA_SCALAR;
	else if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0 &&
		 strcmp(want, "avx2") != 0)
		RTE_LOG(WARNING, USER1, "hc.coll: HC_KERNELS=%s unknown "
			"(scalar, avx2, auto); choosing by CPU\n", want);
	if (!hc_reduce_isa_supported(isa)) {
		if (want != NULL && strcmp(want, "avx2") == 0)
			RTE_LOG(WARNING, USER1, "hc.coll: HC_KERNELS=avx2 but "
				"the CPU or build lacks AVX2/F16C: scalar "
				"kernels\n");
		isa = HC_REDUCE_ISA_SCALAR;
	}
	hc_reduce_isa_set(isa);
}

hc_reduce_fn
hc_reduce_get(enum hc_dtype acc, enum hc_op op)
{
	if ((unsigned int)acc >= HC_DTYPE__MAX || (unsigned int)op >= HC_OP__MAX)
		return NULL;
	return ops()->k2[acc][op];
}

hc_reduce3_fn
hc_reduce3_get(enum hc_dtype dtype, enum hc_op op)
{
	if ((unsigned int)dtype >= HC_DTYPE__MAX ||
	    (unsigned int)op >= HC_OP__MAX)
		return NULL;
	return ops()->k3[dtype][op];
}

enum hc_dtype
hc_reduce_acc_dtype(enum hc_dtype dtype, enum hc_op op)
{
	switch (dtype) {
	case HC_DTYPE_FLOAT16:
	case HC_DTYPE_BFLOAT16:
		return HC_DTYPE_FLOAT32;
	case HC_DTYPE_INT8:
	case HC_DTYPE_INT32:
		return op == HC_OP_AVG ? HC_DTYPE_INT64 : dtype;
	case HC_DTYPE_UINT8:
	case HC_DTYPE_UINT32:
		return op == HC_OP_AVG ? HC_DTYPE_UINT64 : dtype;
	default:
		return dtype;
	}
}

/* Element i of a buffer of dtype, widened: integers to int64/uint64 by
 * their signedness, floats to float (16-bit, 32-bit) or double. */
union hc_wide {
	int64_t i;
	uint64_t u;
	float f;
	double d;
};

static union hc_wide
load(const uint8_t *p, enum hc_dtype t, uint64_t i)
{
	union hc_wide w;
	int8_t i8; uint8_t u8; int32_t i32; uint32_t u32; uint16_t h;

	switch (t) {
	case HC_DTYPE_INT8: memcpy(&i8, p + i, 1); w.i = i8; break;
	case HC_DTYPE_UINT8: memcpy(&u8, p + i, 1); w.u = u8; break;
	case HC_DTYPE_INT32: memcpy(&i32, p + 4 * i, 4); w.i = i32; break;
	case HC_DTYPE_UINT32: memcpy(&u32, p + 4 * i, 4); w.u = u32; break;
	case HC_DTYPE_INT64: memcpy(&w.i, p + 8 * i, 8); break;
	case HC_DTYPE_UINT64: memcpy(&w.u, p + 8 * i, 8); break;
	case HC_DTYPE_FLOAT16: memcpy(&h, p + 2 * i, 2); w.f = hc_f16_to_f32(h); break;
	case HC_DTYPE_BFLOAT16: memcpy(&h, p + 2 * i, 2); w.f = hc_bf16_to_f32(h); break;
	case HC_DTYPE_FLOAT32: memcpy(&w.f, p + 4 * i, 4); break;
	default: memcpy(&w.d, p + 8 * i, 8); break;
	}
	return w;
}

static void
store(uint8_t *p, enum hc_dtype t, uint64_t i, union hc_wide w)
{
	int8_t i8; uint8_t u8; int32_t i32; uint32_t u32; uint16_t h;

	switch (t) {
	case HC_DTYPE_INT8: i8 = (int8_t)w.i; memcpy(p + i, &i8, 1); break;
	case HC_DTYPE_UINT8: u8 = (uint8_t)w.u; memcpy(p + i, &u8, 1); break;
	case HC_DTYPE_INT32: i32 = (int32_t)w.i; memcpy(p + 4 * i, &i32, 4); break;
	case HC_DTYPE_UINT32: u32 = (uint32_t)w.u; memcpy(p + 4 * i, &u32, 4); break;
	case HC_DTYPE_INT64: memcpy(p + 8 * i, &w.i, 8); break;
	case HC_DTYPE_UINT64: memcpy(p + 8 * i, &w.u, 8); break;
	case HC_DTYPE_FLOAT16: h = hc_f32_to_f16(w.f); memcpy(p + 2 * i, &h, 2); break;
	case HC_DTYPE_BFLOAT16: h = hc_f32_to_bf16(w.f); memcpy(p + 2 * i, &h, 2); break;
	case HC_DTYPE_FLOAT32: memcpy(p + 4 * i, &w.f, 4); break;
	default: memcpy(p + 8 * i, &w.d, 8); break;
	}
}

void
hc_reduce_to_acc(void *dst, const void *src, uint64_t n, enum hc_dtype dtype,
		 enum hc_dtype acc)
{
	uint64_t i;

	/* The hot conversions (fp16/bf16 in, see comm.c) through the set. */
	if (acc == HC_DTYPE_FLOAT32 && dtype == HC_DTYPE_FLOAT16) {
		ops()->f16_to_f32(dst, src, n);
		return;
	}
	if (acc == HC_DTYPE_FLOAT32 && dtype == HC_DTYPE_BFLOAT16) {
		ops()->bf16_to_f32(dst, src, n);
		return;
	}
	/* Widening keeps the value: the union member that load() fills is
	 * the one store() reads for the accumulation type. */
	for (i = 0; i < n; i++)
		store(dst, acc, i, load(src, dtype, i));
}

void
hc_reduce_from_acc(void *dst, const void *src, uint64_t n, enum hc_dtype dtype,
		   enum hc_dtype acc, uint32_t divisor)
{
	uint64_t i;

	/* float32 accumulators out, through the set: the same division and
	 * rounding as the loop below (reduce_impl.h, half.h). */
	if (acc == HC_DTYPE_FLOAT32) {
		switch (dtype) {
		case HC_DTYPE_FLOAT16:
			ops()->f32_to_f16(dst, src, n, divisor);
			return;
		case HC_DTYPE_BFLOAT16:
			ops()->f32_to_bf16(dst, src, n, divisor);
			return;
		case HC_DTYPE_FLOAT32:
			ops()->f32_div(dst, src, n, divisor);
			return;
		default:
			break;
		}
	}
	for (i = 0; i < n; i++) {
		union hc_wide w = load(src, acc, i);

		if (divisor > 1) {
			switch (acc) {
			case HC_DTYPE_FLOAT32: w.f /= (float)divisor; break;
			case HC_DTYPE_FLOAT64: w.d /= divisor; break;
			case HC_DTYPE_UINT8: case HC_DTYPE_UINT32:
			case HC_DTYPE_UINT64: w.u /= divisor; break;
			default: w.i /= (int64_t)divisor; break; /* toward 0 */
			}
		}
		store(dst, dtype, i, w);
	}
}
