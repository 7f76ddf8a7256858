/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <time.h>

#include <rte_cycles.h>

#include "clock.h"

/* ns = tsc * mult >> 32: one multiply per read. mult is computed once from
 * hc_clock_tsc_hz(); for a 1..10 GHz TSC it keeps at least 29 significant
 * bits, an error below 1 ppm. The 128-bit product avoids overflow for
 * uptimes of years. */
static uint64_t tsc_mult;

static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;
static uint64_t tsc_hz;

#define CAL_GAP_NS  (20 * HC_NS_PER_MS) /* between the two samples */
#define CAL_READS   16                  /* reads per sample, best kept */
#define CAL_TRIES   4                   /* calibrations before giving up */

/* One (TSC, CLOCK_MONOTONIC) pair: of CAL_READS clock reads, the one
 * bracketed by the fewest TSC cycles, the TSC taken at its midpoint, so
 * that an interrupt or preemption between the reads does not skew it.
 * Returns the bracket in cycles. */
static uint64_t
cal_sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	struct timespec ts;
	unsigned i;

	for (i = 0; i < CAL_READS; i++) {
		uint64_t a = rte_rdtsc_precise();

		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t b = rte_rdtsc_precise();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * HC_NS_PER_S + ts.tv_nsec;
		}
	}
	return best;
}

/* The TSC rate measured against CLOCK_MONOTONIC over CAL_GAP_NS. DPDK
 * 22.11 takes the rate from the CPU where it states it (Intel's CPUID leaf
 * 0x15) and otherwise measures it over 100 ms and rounds it to the nearest
 * 10 MHz (lib/eal/linux/eal_timer.c, get_tsc_freq): on an AMD EPYC here
 * rte_get_tsc_hz() said 2690 MHz where the TSC runs at 2694.88, a clock
 * 0.18 % fast, and a 200 ms per-op timeout fired after 199.6 ms of wall
 * time (field case C17 failed a CI run on it). With both brackets under
 * 1 µs the error here is below 100 ppm. A measurement more than 1 % from
 * DPDK's figure (a sample taken across a migration, a virtual TSC that
 * jumps) is taken again, up to CAL_TRIES times, and then DPDK's is used. */
static void
tsc_calibrate(void)
{
	uint64_t ref = rte_get_tsc_hz(), t0 = 0, n0 = 0, t1 = 0, n1 = 0, b0, b1, hz;
	struct timespec gap = { 0, (long)CAL_GAP_NS };
	unsigned i;

	tsc_hz = ref != 0 ? ref : HC_NS_PER_S;
	for (i = 0; i < CAL_TRIES; i++) {
		b0 = cal_sample(&t0, &n0);
		nanosleep(&gap, NULL);
		b1 = cal_sample(&t1, &n1);
		if (n1 <= n0 || t1 <= t0 || b0 > tsc_hz / 1000000 ||
		    b1 > tsc_hz / 1000000)
			continue;
		hz = (uint64_t)((unsigned __int128)(t1 - t0) * HC_NS_PER_S /
				(n1 - n0));
		if (ref == 0 || (hz > ref - ref / 100 && hz < ref + ref / 100)) {
			tsc_hz = hz;
			return;
		}
	}
}

uint64_t
hc_clock_tsc_hz(void)
{
	pthread_once(&tsc_once, tsc_calibrate);
	return tsc_hz;
}

static uint64_t
tsc_now_ns(const struct hc_clock *clk)
{
	(void)clk;
	return (uint64_t)(((unsigned __int128)rte_rdtsc() * tsc_mult) >> 32);
}

void
hc_clock_init_tsc(struct hc_clock *clk)
{
	uint64_t hz = hc_clock_tsc_hz();

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
