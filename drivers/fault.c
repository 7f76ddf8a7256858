/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "fault.h"

void
hc_fault_init(struct hc_fault *f, uint64_t seed)
{
	memset(f, 0, sizeof(*f));
	/* splitmix64 step so that small seeds (0, 1, 2) give unrelated
	 * streams and the state is never 0. */
	seed += 0x9e3779b97f4a7c15ULL;
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ULL;
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebULL;
	seed ^= seed >> 31;
	f->state = seed != 0 ? seed : 1;
}

double
hc_fault_uniform(struct hc_fault *f)
{
	uint64_t x = f->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->state = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

int
hc_fault_should_drop(struct hc_fault *f, const struct rte_mbuf *m)
{
	enum hc_fault_class c = HC_FAULT_CLASS_OTHER;

	if (f->classify != NULL)
		c = f->classify(m, f->classify_arg);
	if (f->drop[c] <= 0 || hc_fault_uniform(f) >= f->drop[c])
		return 0;
	f->dropped[c]++;
	return 1;
}
