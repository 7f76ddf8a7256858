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

/** Initialise clk as a TSC clock: rte_rdtsc() scaled by hc_clock_tsc_hz().
 *  The first call in a process takes about 20 ms (the calibration). */
void hc_clock_init_tsc(struct hc_clock *clk);

/** The TSC rate in Hz (cycles per second), measured once per process
 *  against CLOCK_MONOTONIC over 20 ms (error below 100 ppm), because
 *  rte_get_tsc_hz() may be rounded to 10 MHz (0.18 % off on an AMD EPYC
 *  at 2694.88 MHz: timeouts then fire early). Falls back to
 *  rte_get_tsc_hz() when the measurement is more than 1 % from it four
 *  times. Needs rte_eal_init() first; thread-safe. Never returns 0. */
uint64_t hc_clock_tsc_hz(void);

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
