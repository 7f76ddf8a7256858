/* SPDX-License-Identifier: BSD-3-Clause */
/* Pinning the calling thread to one CPU, for the two-thread benchmarks
 * (c2c.c, ring_copy.c). */
#ifndef HC_BENCH_CPU_PIN_H
#define HC_BENCH_CPU_PIN_H

#include <pthread.h>
#include <sched.h>

/** Pin the calling thread to CPU cpu (0..CPU_SETSIZE-1). Returns 0, or
 *  pthread_setaffinity_np()'s error number (EINVAL: the CPU is not one
 *  this process may use). */
static inline int
bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

#endif
