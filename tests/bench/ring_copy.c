/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_copy: how fast one CPU copies frames into a shared ring that
 * another CPU drains, with DPDK's rte_memcpy against glibc's memcpy.
 *
 * This is net_memif's TX copy (copy mode, DPDK 22.11): the sender copies
 * each frame with rte_memcpy into a slot of bsize bytes of a ring of
 * 2^rsize slots, and the receiver copies it out into an mbuf. Debian
 * builds librte_net_memif for DPDK's generic x86 target (-march=corei7:
 * objdump finds SSSE3 palignr loops and no AVX in it), so its rte_memcpy
 * is the 16-byte SSE one. This program is built with the flags of
 * libdpdk.pc (the same -march=corei7), so its rte_memcpy is that same
 * code; glibc's memcpy picks its variant at run time (rep movsb, AVX2,
 * AVX-512). The sender reads its frames in order from a 64 MiB buffer,
 * as our zero-copy TX reads the application's buffer.
 *
 * Both sides are timed together: the figure is the one-way rate of the
 * pair, bytes of frames per second (1e9 B/s = 1 GB/s), best of ROUNDS
 * alternating rounds per copy function. tests/bench/compare prints it
 * among the cost figures (README, Known limits, "net_memif's TX").
 *
 * Usage: ring_copy [FRAME_BYTES [ROUNDS]]   (defaults 9014 and 3;
 *        FRAME_BYTES 64..65535, the slot is FRAME_BYTES + 4 as hc-launch
 *        sets bsize = MTU + 18, the ring 128 slots as its rsize 7)
 * Prints "ring_copy frame B rte_memcpy X GB/s memcpy Y GB/s ratio R".
 * Exit 1 on a bad argument, if a thread cannot be pinned to CPU 0 or 1,
 * or if the receiver saw a wrong byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_memcpy.h>

#include "cpu_pin.h"

#define SLOTS 128             /* hc-launch's memif rsize 7 */
#define SRC_BYTES (64u << 20) /* the application's buffer */
#define TOTAL_BYTES (1ull << 30) /* per round */

typedef void *(*copy_fn)(void *, const void *, size_t);

static void *
copy_rte(void *d, const void *s, size_t n)
{
	return rte_memcpy(d, s, n);
}

static struct {
	uint8_t *ring, *src;
	size_t frame, slot;
	uint64_t frames;
	copy_fn copy;
	int fail;                         /* pinning or a wrong byte */
	_Alignas(64) _Atomic uint64_t head; /* frames published */
	_Alignas(64) _Atomic uint64_t tail; /* frames consumed */
} r;

/* Frame i's place in the source: frames one after another, wrapping. */
static const uint8_t *
src_of(uint64_t i)
{
	return r.src + (i * r.frame) % (SRC_BYTES - r.frame);
}

static void *
receiver(void *arg)
{
	uint8_t *mbuf = aligned_alloc(64, 65536 + 128);
	uint64_t i;

	(void)arg;
	if (mbuf == NULL || bench_pin(1) != 0) {
		r.fail = 1;
		atomic_store(&r.tail, UINT64_MAX); /* the sender stops */
		free(mbuf);
		return NULL;
	}
	for (i = 0; i < r.frames; i++) {
		const uint8_t *s = r.ring + (i % SLOTS) * r.slot;

		while (atomic_load_explicit(&r.head, memory_order_acquire) <= i)
			__builtin_ia32_pause();
		memcpy(mbuf + 128, s, r.frame); /* net_memif RX: into an mbuf */
		if (mbuf[128 + r.frame - 1] != src_of(i)[r.frame - 1])
			r.fail = 1;
		atomic_store_explicit(&r.tail, i + 1, memory_order_release);
	}
	free(mbuf);
	return NULL;
}

/* One round: the pair's one-way rate in GB/s, or a negative number. */
static double
round_rate(copy_fn copy)
{
	struct timespec t0, t1;
	pthread_t t;
	uint64_t i;

	r.copy = copy;
	atomic_store(&r.head, 0);
	atomic_store(&r.tail, 0);
	if (pthread_create(&t, NULL, receiver, NULL) != 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < r.frames; i++) {
		uint64_t tail;

		while (i - (tail = atomic_load_explicit(
				    &r.tail, memory_order_acquire)) >= SLOTS &&
		       tail != UINT64_MAX)
			__builtin_ia32_pause();
		if (tail == UINT64_MAX)
			break;
		r.copy(r.ring + (i % SLOTS) * r.slot, src_of(i), r.frame);
		atomic_store_explicit(&r.head, i + 1, memory_order_release);
	}
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r.fail)
		return -1;
	return (double)(r.frames * r.frame) /
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec));
}

static int
parse(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned long frame = 9014, rounds = 3, k;
	double best_rte = 0, best_libc = 0;
	size_t i;

	if (argc > 3 || (argc >= 2 && parse(argv[1], 64, 65535, &frame) != 0) ||
	    (argc == 3 && parse(argv[2], 1, 100, &rounds) != 0)) {
		fprintf(stderr, "usage: ring_copy [FRAME_BYTES [ROUNDS]] "
			"(FRAME_BYTES 64..65535, ROUNDS 1..100)\n");
		return 1;
	}
	r.frame = frame;
	r.slot = frame + 4;
	r.frames = TOTAL_BYTES / frame;
	r.ring = aligned_alloc(4096, (SLOTS * r.slot + 4095) & ~(size_t)4095);
	r.src = aligned_alloc(4096, SRC_BYTES);
	if (r.ring == NULL || r.src == NULL) {
		fprintf(stderr, "ring_copy: out of memory\n");
		return 1;
	}
	for (i = 0; i < SRC_BYTES; i++)
		r.src[i] = (uint8_t)(i * 131 + 7);
	memset(r.ring, 0, SLOTS * r.slot);
	if (bench_pin(0) != 0) {
		fprintf(stderr, "ring_copy: cannot run on CPU 0\n");
		return 1;
	}
	for (k = 0; k < rounds; k++) {
		double a = round_rate(copy_rte), b = round_rate(memcpy);

		if (a < 0 || b < 0) {
			fprintf(stderr, "ring_copy: %s\n", r.fail ?
				"cannot run on CPU 1, or a wrong byte" :
				"pthread_create failed");
			return 1;
		}
		best_rte = a > best_rte ? a : best_rte;
		best_libc = b > best_libc ? b : best_libc;
	}
	printf("ring_copy frame %lu rte_memcpy %.2f GB/s memcpy %.2f GB/s "
	       "ratio %.2f\n", frame, best_rte, best_libc,
	       best_libc / best_rte);
	free(r.ring);
	free(r.src);
	return 0;
}
