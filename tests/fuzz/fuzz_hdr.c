/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the HCT header decoder alone (hct_hdr_decode) and the
 * CRC32C check, with their properties asserted:
 *  - a header that decodes re-encodes (hct_hdr_encode) to the same bytes
 *    (all but crc and the last two bytes, rsvd2, which the host-order
 *    view does not carry);
 *  - a DATA header's length is the bytes behind the header, any other
 *    type has no payload;
 *  - a sealed packet passes hct_crc_ok (under its cov byte's coverage,
 *    header-only accepted), and one flipped bit it covers fails it; a
 *    packet of HCT_COV_HDR coverage fails when header-only is not
 *    accepted.
 * Input: the UDP payload as received.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hct_hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[HCT_HDR_LEN], copy[65536];
	struct hct_pkt p;

	if (size > sizeof(copy))
		return 0;
	if (hct_hdr_decode(data, (uint32_t)size, &p) == 0) {
		if (size < HCT_HDR_LEN)
			abort();
		if (p.type == HCT_TYPE_DATA ? p.length != size - HCT_HDR_LEN
					    : size != HCT_HDR_LEN)
			abort();
		hct_hdr_encode(&p, buf);
		if (memcmp(buf, data, offsetof(struct hct_wire_hdr, crc)) != 0 ||
		    memcmp(buf + offsetof(struct hct_wire_hdr, cov),
			   data + offsetof(struct hct_wire_hdr, cov), 2) != 0)
			abort();
	}
	if (size >= HCT_HDR_LEN) {
		uint8_t cov = data[offsetof(struct hct_wire_hdr, cov)];
		size_t covered = cov == HCT_COV_HDR ? HCT_HDR_LEN : size;

		memcpy(copy, data, size);
		hct_crc_seal(copy, (uint32_t)size);
		if (hct_crc_ok(copy, (uint32_t)size, 1) != (cov < HCT_COV__MAX))
			abort();
		if (hct_crc_ok(copy, (uint32_t)size, 0) != (cov == HCT_COV_FULL))
			abort();
		copy[covered / 2] ^= 0x10;
		if (hct_crc_ok(copy, (uint32_t)size, 1))
			abort();
	} else if (hct_crc_ok(data, (uint32_t)size, 1)) {
		abort();
	}
	return 0;
}
