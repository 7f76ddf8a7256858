/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The per-packet CPU probe (hc_stats cpu_*): TSC reads around the payload
 * work (copy into the mbuf with CRC32C, CRC32C check, reduce or copy into
 * the destination), so that the engine can subtract it from the cycles of
 * its poll sections and report what the stack itself costs per packet.
 *
 * Off unless HC_CPU_STATS=1 (hc_init reads it): one TSC read costs about
 * 10 ns on this host's VM (measured: min over 200 x 20 000 reads), 4-6
 * reads per DATA packet would be 20-30 % of the 300 ns per-packet target.
 * Off, each probe is one predictable branch on a global.
 *
 * The payload counter is per thread: the engine reads it before and after
 * a poll section, so the difference belongs to the ctx that polled even
 * when several ranks share a thread (the sim).
 */
#ifndef HC_BASE_CPUSTAT_H
#define HC_BASE_CPUSTAT_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

/** 1 while the probe is on (process-wide). */
extern int hc_cpustat_on;
/** The cost of one TSC read in TSC cycles (hc_cpustat_enable()). */
extern uint64_t hc_cpustat_read_cyc;
/* initial-exec: a plain %fs-relative access; the default model of a
 * shared library (global-dynamic) calls __tls_get_addr on every access,
 * 0.6 % of a memif run's samples (perf), most of it in idle polls. */
#define HC_CPUSTAT_TLS __thread __attribute__((tls_model("initial-exec")))
/** TSC cycles of payload work on this thread, ever. */
extern HC_CPUSTAT_TLS uint64_t hc_cpustat_payload_cyc;
/** TSC cycles of PMD TX bursts handed out from inside the stack's TX
 *  path on this thread, ever (hc_cpustat_port_end()). */
extern HC_CPUSTAT_TLS uint64_t hc_cpustat_port_cyc;

/** Start of a payload section: returns the TSC, or 0 when off. */
static inline uint64_t
hc_cpustat_begin(void)
{
	return unlikely(hc_cpustat_on) ? rte_rdtsc() : 0;
}

/** End of the payload section begun at t0 (hc_cpustat_begin()). */
static inline void
hc_cpustat_end(uint64_t t0)
{
	if (unlikely(hc_cpustat_on))
		hc_cpustat_payload_cyc += rte_rdtsc() - t0;
}

/** End of a PMD burst made inside a poll section (the transport's
 *  flush when the port holds tx_ring_max_bytes), begun at t0 by
 *  hc_cpustat_begin(). One TSC read's cost is added: of
 *  the pair's two reads about one falls outside [t0, now], in the
 *  section around it, and is the probe's, not the stack's (hc-perf
 *  subtracts one read per payload pair for the same reason). */
static inline void
hc_cpustat_port_end(uint64_t t0)
{
	if (unlikely(hc_cpustat_on))
		hc_cpustat_port_cyc += rte_rdtsc() - t0 + hc_cpustat_read_cyc;
}

/** Turn the probe on or off; on: measures the cost of one TSC read,
 *  in TSC cycles (min over runs), returned. */
uint64_t hc_cpustat_enable(int on);

#endif /* HC_BASE_CPUSTAT_H */
