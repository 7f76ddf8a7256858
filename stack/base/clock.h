/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The stack's only source of time. Transport and collectives read time
 * through a struct hc_clock so that the same code runs on the TSC, on the
 * virtual time of a simulated network, and under a fuzzer.
 */
#ifndef HC_BASE_CLOCK_H
#define HC_BASE_CLOCK_H

#include <stdint.h>

struct hc_clock {
	/** Current time in nanoseconds since an arbitrary origin; monotonic. */
	uint64_t (*now_ns)(const struct hc_clock *clk);
	void *priv;        /**< owned by the implementation */
	uint64_t manual_ns; /**< the time of hc_clock_manual clocks */
};

/** Initialise clk as a TSC clock (rte_rdtsc scaled by rte_get_tsc_hz). */
void hc_clock_init_tsc(struct hc_clock *clk);

/** Initialise clk as a manual clock that reads clk->manual_ns (tests,
 *  simulation): the owner advances it. */
void hc_clock_init_manual(struct hc_clock *clk, uint64_t start_ns);

/** Initialise clk as a clock that reads another clock, src, which must
 *  outlive it: every rank of a simulated network reads the network's one
 *  manual clock this way. */
void hc_clock_init_ref(struct hc_clock *clk, const struct hc_clock *src);

static inline uint64_t
hc_clock_now(const struct hc_clock *clk)
{
	return clk->now_ns(clk);
}

#define HC_NS_PER_US 1000ULL
#define HC_NS_PER_MS 1000000ULL
#define HC_NS_PER_S  1000000000ULL

#endif /* HC_BASE_CLOCK_H */
