/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_cycles.h>

#include "clock.h"

/* ns = tsc * mult >> 32: one multiply per read. mult is computed once from
 * rte_get_tsc_hz(); for a 1..10 GHz TSC it keeps at least 29 significant
 * bits, an error below 1 ppm. The 128-bit product avoids overflow for
 * uptimes of years. */
static uint64_t tsc_mult;

static uint64_t
tsc_now_ns(const struct hc_clock *clk)
{
	(void)clk;
	return (uint64_t)(((unsigned __int128)rte_rdtsc() * tsc_mult) >> 32);
}

void
hc_clock_init_tsc(struct hc_clock *clk)
{
	uint64_t hz = rte_get_tsc_hz();

	if (hz == 0)
		hz = 1000000000ULL;
	tsc_mult = (uint64_t)(((unsigned __int128)HC_NS_PER_S << 32) / hz);
	clk->now_ns = tsc_now_ns;
	clk->priv = NULL;
	clk->manual_ns = 0;
}

static uint64_t
manual_now_ns(const struct hc_clock *clk)
{
	return clk->manual_ns;
}

void
hc_clock_init_manual(struct hc_clock *clk, uint64_t start_ns)
{
	clk->now_ns = manual_now_ns;
	clk->priv = NULL;
	clk->manual_ns = start_ns;
}

static uint64_t
ref_now_ns(const struct hc_clock *clk)
{
	const struct hc_clock *src = clk->priv;

	return src->now_ns(src);
}

void
hc_clock_init_ref(struct hc_clock *clk, const struct hc_clock *src)
{
	clk->now_ns = ref_now_ns;
	clk->priv = (void *)(uintptr_t)src;
	clk->manual_ns = 0;
}
