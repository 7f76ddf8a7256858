/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the HCT packet input (hct_input: CRC check, header
 * decoder, flow demultiplexing and membership, ACK/SACK processing, DATA
 * acceptance into the collective in flight) of rank 0 of a live two-rank
 * stack (fuzz_sim.h: established, an all-reduce in flight, after a
 * loss). The packet arrives as a well-formed UDP datagram from rank 1
 * (its MAC, IP and port), so what is fuzzed is the HCT packet alone.
 *
 * Input: one flag byte, then the HCT packet (header and payload). Flag
 * bit 0 clear: the harness seals the CRC32C first (a mutation never
 * computes it, and everything behind the check would stay unreached);
 * set: the packet goes in as given (the CRC check itself).
 */
#include <stdint.h>
#include <string.h>

#include "hct_hdr.h"
#include "fuzz_sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The largest frame of the run's MTU (1500) and more: what does not fit
 * an mbuf is not delivered. */
#define FRAME_MAX 2048

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pkt[FRAME_MAX], frame[FRAME_MAX + 64];
	struct rte_mbuf *m;
	size_t len, flen;

	if (size < 1 || size - 1 > FRAME_MAX - 42)
		return 0;
	len = size - 1;
	memcpy(pkt, data + 1, len);
	if (!(data[0] & 1) && len >= HCT_HDR_LEN)
		hct_crc_seal(pkt, (uint32_t)len);
	flen = fs_udp_frame(frame, pkt, len);
	m = fs_frame_mbuf(frame, flen);
	if (m == NULL)
		return 0;
	fs_deliver(m);
	return 0;
}
