/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_byteorder.h>

#include "net.h"

int
hc_ipv4_check(const struct rte_ipv4_hdr *ip, uint32_t len, int verify_cksum)
{
	uint32_t hlen, tlen;
	uint16_t frag;

	if (len < sizeof(*ip))
		return HC_NET_DROP_MALFORMED;
	if ((ip->version_ihl >> 4) != 4)
		return HC_NET_DROP_MALFORMED;
	hlen = (ip->version_ihl & 0x0f) * 4u;
	tlen = rte_be_to_cpu_16(ip->total_length);
	if (hlen < sizeof(*ip) || tlen < hlen || tlen > len)
		return HC_NET_DROP_MALFORMED;
	/* rte_ipv4_cksum() covers only 20 bytes; with options use raw. */
	if (verify_cksum && rte_raw_cksum(ip, hlen) != 0xffff)
		return HC_NET_DROP_CKSUM;
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	if ((frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return HC_NET_DROP_FRAGMENT;
	return -1;
}

void
hc_ipv4_build(struct rte_ipv4_hdr *ip, uint32_t src, uint32_t dst,
	      uint8_t proto, uint8_t tos, uint16_t payload_len, uint16_t id,
	      int cksum)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + payload_len);
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = HC_NET_TTL;
	ip->next_proto_id = proto;
	ip->hdr_checksum = 0;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	if (cksum)
		ip->hdr_checksum = rte_ipv4_cksum(ip);
}
