/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/bench/auth: the per-packet cost of the authenticated mode (issue
 * 10, deliverable 5). For HCT packet sizes (an ACK's 104 bytes, a DATA
 * packet at MTU 1500 and at 9000), the ns per packet of
 *   crc32c      the CRC32C every packet pays anyway (hct_crc_seal)
 *   blake2b16   keyed BLAKE2b, 16-byte output: what the mode computes
 *               (crypto_generichash, stack/transport/auth.c)
 *   hmac512256  HMAC-SHA-512-256 (crypto_auth), the alternative
 *               libsodium offers for a reusable key
 *   gmac        AES-256-GCM with the packet as associated data and no
 *               message (crypto_aead_aes256gcm, AES-NI and PCLMULQDQ):
 *               a GMAC. Measured, not used: its 96-bit nonce must never
 *               repeat under one key, and a key file outlives runs whose
 *               counters restart; a repeated nonce gives the hash key
 *               away (NIST SP 800-38D, 8 and appendix A)
 * each the median of 7 rounds of N packets, on one CPU (noisy on a shared
 * host: the load average is printed). The busbw with and without the
 * mode over memif: tests/bench/auth-busbw.
 *   auth [N]   (default 200000 packets per round) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "hct_hdr.h"

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

enum { CRC, BLAKE, HMAC, GMAC, NALG };
static const char *const names[NALG] = { "crc32c", "blake2b16", "hmac512256",
					 "gmac" };

static volatile uint8_t sink;

static double
round_ns(int alg, uint8_t *pkt, uint32_t len, const uint8_t *key, long n)
{
	uint8_t tag[crypto_auth_BYTES];
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		pkt[24] = (uint8_t)i; /* another packet each time */
		switch (alg) {
		case CRC:
			hct_crc_seal(pkt, len);
			tag[0] = pkt[96];
			break;
		case BLAKE:
			crypto_generichash(tag, HCT_TAG_LEN, pkt, len, key, 32);
			break;
		case HMAC:
			crypto_auth(tag, pkt, len, key);
			break;
		default: {
			uint8_t npub[crypto_aead_aes256gcm_NPUBBYTES] = { 0 };
			unsigned long long clen;

			memcpy(npub, &i, sizeof(i));
			crypto_aead_aes256gcm_encrypt(tag, &clen, NULL, 0, pkt,
						      len, NULL, npub, key);
			break;
		}
		}
		sink ^= tag[0];
	}
	return (now_ns() - t0) / (double)n;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { HCT_HDR_LEN, 1500 - 28, 9000 - 28 };
	long n = argc > 1 ? atol(argv[1]) : 200000;
	uint8_t key[crypto_auth_KEYBYTES], *pkt;
	double load = 0, r[7];
	size_t s;
	int a, k;
	FILE *f;

	if (n <= 0 || sodium_init() < 0)
		return 2;
	randombytes_buf(key, sizeof(key));
	pkt = malloc(9000);
	if (pkt == NULL)
		return 2;
	randombytes_buf(pkt, 9000);
	f = fopen("/proc/loadavg", "r");
	if (f != NULL) {
		if (fscanf(f, "%lf", &load) != 1)
			load = 0;
		fclose(f);
	}
	printf("# auth: ns per HCT packet, median of 7 rounds of %ld; load %.1f\n",
	       n, load);
	printf("# %-8s %12s %12s %12s %12s %14s\n", "bytes", names[0],
	       names[1], names[2], names[3], "blake2b16 GB/s");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		double med[NALG];

		for (a = 0; a < NALG; a++) {
			if (a == GMAC && !crypto_aead_aes256gcm_is_available()) {
				med[a] = -1;
				continue;
			}
			for (k = 0; k < 7; k++)
				r[k] = round_ns(a, pkt, sizes[s], key,
						sizes[s] > 2000 ? n / 8 : n);
			qsort(r, 7, sizeof(r[0]), cmp_d);
			med[a] = r[3];
		}
		printf("  %-8u %12.1f %12.1f %12.1f %12.1f %14.2f\n", sizes[s],
		       med[0], med[1], med[2], med[3], sizes[s] / med[1]);
	}
	free(pkt);
	return 0;
}
