/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the HCT header decoder alone (hct_hdr_decode) and the
 * CRC32C check, with their properties asserted:
 *  - a header that decodes re-encodes (hct_hdr_encode) to the same bytes
 *    (all but crc and rsvd2, which the host-order view does not carry);
 *  - a DATA header's length is the bytes behind the header, any other
 *    type has no payload;
 *  - a sealed packet passes hct_crc_ok, and one flipped bit fails it.
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
		if (memcmp(buf, data, offsetof(struct hct_wire_hdr, crc)) != 0)
			abort();
	}
	if (size >= HCT_HDR_LEN) {
		memcpy(copy, data, size);
		hct_crc_seal(copy, (uint32_t)size);
		if (!hct_crc_ok(copy, (uint32_t)size))
			abort();
		copy[size / 2] ^= 0x10;
		if (hct_crc_ok(copy, (uint32_t)size))
			abort();
	} else if (hct_crc_ok(data, (uint32_t)size)) {
		abort();
	}
	return 0;
}
