/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * c2c: the round trip of one cache line between two CPUs, in ns.
 *
 * Two threads, pinned to CPU A and CPU B, pass a counter back and forth
 * through two cache lines (one written by each side), as a memif ring's
 * head and tail go between the two ranks of an 8-byte all-reduce. The
 * figure is the hardware's (or, on a VM, the host's placement of the two
 * vCPUs): tests/bench/compare prints it beside the 8-byte latency, which
 * follows it. Seen on the 2-vCPU dev VM: 132-155 ns in most runs, 495-576
 * ns in others, and the 8-byte memif median 3.3 vs 6.2-7.8 us with them.
 *
 * Usage: c2c [ROUND_TRIPS [CPU_A CPU_B]]   (default 1000000, CPUs 0 1)
 * Prints "c2c cpu A B round_trip_ns X". Exit 1 on a bad argument or if a
 * thread cannot be pinned (fewer than 2 CPUs allowed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_pin.h"

/* One counter per cache line (64 bytes on x86-64), so that each transfer
 * moves exactly one line. */
struct line {
	volatile uint64_t v;
	char pad[64 - sizeof(uint64_t)];
} __attribute__((aligned(64)));

static struct line ping, pong;
static uint64_t trips;
static int cpu_b;

static void *
answer(void *arg)
{
	uint64_t i;

	(void)arg;
	if (bench_pin(cpu_b) != 0) {
		pong.v = UINT64_MAX; /* tell the main thread */
		return NULL;
	}
	for (i = 1; i <= trips; i++) {
		while (ping.v != i)
			__builtin_ia32_pause();
		pong.v = i;
	}
	return NULL;
}

static int
parse(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t;
	uint64_t i, a = 0, b = 1;
	double ns;
	int rc;

	trips = 1000000;
	if ((argc != 1 && argc != 2 && argc != 4) ||
	    (argc >= 2 && (parse(argv[1], UINT64_MAX - 1, &trips) != 0 ||
			   trips == 0)) ||
	    (argc == 4 && (parse(argv[2], CPU_SETSIZE - 1, &a) != 0 ||
			   parse(argv[3], CPU_SETSIZE - 1, &b) != 0 ||
			   a == b))) {
		fprintf(stderr, "usage: c2c [ROUND_TRIPS [CPU_A CPU_B]] "
			"(ROUND_TRIPS >= 1, two different CPUs)\n");
		return 1;
	}
	cpu_b = (int)b;
	if (bench_pin((int)a) != 0) {
		fprintf(stderr, "c2c: cannot run on CPU %lu\n",
			(unsigned long)a);
		return 1;
	}
	rc = pthread_create(&t, NULL, answer, NULL);
	if (rc != 0) {
		fprintf(stderr, "c2c: pthread_create: %s\n", strerror(rc));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 1; i <= trips; i++) {
		ping.v = i;
		while (pong.v != i) {
			if (pong.v == UINT64_MAX) {
				pthread_join(t, NULL);
				fprintf(stderr, "c2c: cannot run on CPU %lu\n",
					(unsigned long)b);
				return 1;
			}
			__builtin_ia32_pause();
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
	      (double)(t1.tv_nsec - t0.tv_nsec)) / (double)trips;
	printf("c2c cpu %lu %lu round_trip_ns %.1f\n", (unsigned long)a,
	       (unsigned long)b, ns);
	return 0;
}
