/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet sequence numbers: 32-bit, compared in serial-number arithmetic
 * (RFC 1982) so that wrap-around is harmless as long as fewer than 2^31
 * PSNs are in flight (the window is at most 4096).
 */
#ifndef HC_BASE_PSN_H
#define HC_BASE_PSN_H

#include <stdint.h>

/** a before b */
static inline int
hct_psn_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline int
hct_psn_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

/** Set the SACK bit for psn relative to the cumulative ack_psn:
 *  bit i means ack_psn + 1 + i was received. Out of range: ignored. */
static inline void
hct_sack_set(uint64_t sack[2], uint32_t ack_psn, uint32_t psn)
{
	uint32_t i = psn - ack_psn - 1;

	if (hct_psn_lt(ack_psn, psn) && i < 128)
		sack[i >> 6] |= 1ULL << (i & 63);
}

/** Whether the SACK bitmap says psn was received. */
static inline int
hct_sack_has(const uint64_t sack[2], uint32_t ack_psn, uint32_t psn)
{
	uint32_t i = psn - ack_psn - 1;

	return hct_psn_lt(ack_psn, psn) && i < 128 &&
	       (sack[i >> 6] >> (i & 63)) & 1;
}

#endif /* HC_BASE_PSN_H */
