/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trade-off behind zero-copy TX (README, "Zero-copy TX from user
 * memory"): a DATA packet's payload copied into the mbuf with its CRC32C
 * computed in the same pass (hct_crc_copy_seal(), today's path) against
 * the CRC32C pass alone that a zero-copy path would still need
 * (hct_crc_seal_split(), reading the user's buffer in place).
 *
 *   build/tests/bench/crc_copy [MiB [reps [payload]]]
 * defaults 64 MiB, 5 repetitions (the best one is printed), 8856-byte
 * payloads (the transport's MSS at the memif MTU 9000). Prints ns per
 * packet and GB/s for both, and their ratio.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hct_hdr.h"

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	uint32_t mss = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 8856;
	size_t bytes = mib << 20, npk, i;
	uint8_t hdr[HCT_HDR_LEN], *src, *dst;
	double fused = 1e30, crc_only = 1e30, t0, t1, t2;
	int r;

	if (mib == 0 || reps <= 0 || mss == 0 || mss > bytes) {
		fprintf(stderr, "usage: crc_copy [MiB>0 [reps>0 [payload]]]\n");
		return 2;
	}
	npk = bytes / mss;
	src = malloc(bytes);
	dst = malloc(npk * (mss + HCT_HDR_LEN));
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "crc_copy: out of memory\n");
		return 1;
	}
	for (i = 0; i < bytes; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	memset(dst, 0, npk * (mss + HCT_HDR_LEN));
	memset(hdr, 0, sizeof(hdr));
	hdr[0] = HCT_VERSION;
	for (r = 0; r < reps; r++) {
		t0 = now_s();
		for (i = 0; i < npk; i++) {
			uint8_t *p = dst + i * (mss + HCT_HDR_LEN);

			memcpy(p, hdr, HCT_HDR_LEN);
			hct_crc_copy_seal(p, src + i * mss, mss);
		}
		t1 = now_s();
		for (i = 0; i < npk; i++)
			hct_crc_seal_split(hdr, src + i * mss, mss);
		t2 = now_s();
		if (t1 - t0 < fused)
			fused = t1 - t0;
		if (t2 - t1 < crc_only)
			crc_only = t2 - t1;
	}
	printf("buffer %zu MiB, %zu packets of %u B (best of %d)\n", mib, npk,
	       mss, reps);
	printf("copy + CRC32C fused (today):   %8.1f ns/packet %6.2f GB/s\n",
	       fused * 1e9 / (double)npk, (double)npk * mss / fused / 1e9);
	printf("CRC32C pass alone (zero copy): %8.1f ns/packet %6.2f GB/s\n",
	       crc_only * 1e9 / (double)npk,
	       (double)npk * mss / crc_only / 1e9);
	printf("zero copy saves %.0f %% of the TX payload work\n",
	       100.0 * (1.0 - crc_only / fused));
	free(src);
	free(dst);
	return 0;
}
