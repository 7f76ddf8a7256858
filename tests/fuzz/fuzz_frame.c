/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the frame input path (hc_net_input: Ethernet, ARP, IPv4,
 * ICMP, UDP, then the HCT transport and the collectives above it) of
 * rank 0 of a live two-rank stack (fuzz_sim.h: established, an
 * all-reduce in flight, after a loss).
 *
 * Input: one flag byte, then the frame as a NIC delivers it (from the
 * destination MAC on, no FCS). The flags repair what a random mutation
 * almost never gets right, so that the layers behind the checks are
 * reached too; with flags 0 the frame goes in exactly as given:
 *   bit 0  recompute the IPv4 header checksum (when the frame holds an
 *          IPv4 header of its IHL)
 *   bit 1  set the UDP checksum to 0 ("none", RFC 768)
 *   bit 2  seal the HCT CRC32C over the UDP payload (hct_crc_seal)
 */
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "hct_hdr.h"
#include "fuzz_sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t eh = sizeof(struct rte_ether_hdr);
	struct rte_mbuf *m;
	uint8_t flags, *f;
	size_t len;

	if (size < 1)
		return 0;
	flags = data[0];
	m = fs_frame_mbuf(data + 1, size - 1);
	if (m == NULL)
		return 0;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	len = size - 1;
	if ((flags & 7) != 0 && len >= eh + sizeof(struct rte_ipv4_hdr) &&
	    f[12] == 0x08 && f[13] == 0x00) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + eh);
		size_t ihl = (ip->version_ihl & 0xf) * 4u;

		if (ihl >= sizeof(*ip) && eh + ihl <= len) {
			if (flags & 1) {
				ip->hdr_checksum = 0;
				ip->hdr_checksum = rte_ipv4_cksum(ip);
			}
			if (ip->next_proto_id == IPPROTO_UDP &&
			    eh + ihl + sizeof(struct rte_udp_hdr) <= len) {
				struct rte_udp_hdr *u = (struct rte_udp_hdr *)
					(f + eh + ihl);
				size_t ulen = len - eh - ihl - sizeof(*u);

				if (flags & 2)
					u->dgram_cksum = 0;
				if ((flags & 4) && ulen >= HCT_HDR_LEN)
					hct_crc_seal(u + 1, (uint32_t)ulen);
			}
		}
	}
	fs_deliver(m);
	return 0;
}
