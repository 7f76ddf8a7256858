/* SPDX-License-Identifier: BSD-3-Clause */
#include "cpustat.h"

int hc_cpustat_on;
uint64_t hc_cpustat_read_cyc;
HC_CPUSTAT_TLS uint64_t hc_cpustat_payload_cyc;
HC_CPUSTAT_TLS uint64_t hc_cpustat_port_cyc;

uint64_t
hc_cpustat_enable(int on)
{
	uint64_t best = UINT64_MAX, t0, t1;
	int k, i;

	hc_cpustat_on = on != 0;
	if (!on)
		return 0;
	/* 64 back-to-back pairs, 32 runs: the least is the read's own cost
	 * without a preemption in between. */
	for (k = 0; k < 32; k++) {
		t0 = rte_rdtsc();
		for (i = 0; i < 64; i++)
			t1 = rte_rdtsc();
		if ((t1 - t0) / 64 < best)
			best = (t1 - t0) / 64;
	}
	hc_cpustat_read_cyc = best;
	return best;
}
