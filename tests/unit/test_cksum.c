/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 and UDP checksums against known vectors, hc_ipv4_build()'s header
 * byte for byte, and the reasons hc_ipv4_check() gives for bad headers.
 *
 * The vectors were computed independently with RFC 1071 (a few lines of
 * Python summing 16-bit big-endian words with end-around carry).
 */
#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "net.h"
#include "suites.h"

/* 198.18.0.1 and 198.18.0.2, host byte order */
#define IP_A 0xc6120001u
#define IP_B 0xc6120002u

/* The classic example: 192.168.0.1 -> 192.168.0.199, UDP, total length
 * 115, DF, TTL 64, checksum field zero. Its checksum is 0xb861. */
static const uint8_t classic_hdr[20] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

/* RFC 1071 sum of len bytes (big-endian words, odd byte padded), folded
 * and complemented: the checksum to store, or 0 when data with its
 * checksum in place is intact. Independent of the rte_net helpers. */
static uint16_t
rfc1071(const uint8_t *p, unsigned int len)
{
	uint32_t s = 0;
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* A 115-byte datagram whose first 20 bytes are the classic header with its
 * checksum filled in. */
static void
classic_packet(uint8_t pkt[115])
{
	memset(pkt, 0, 115);
	memcpy(pkt, classic_hdr, sizeof(classic_hdr));
	pkt[10] = 0xb8;
	pkt[11] = 0x61;
}

/* Set the header checksum of a 20-byte header after changing it. */
static void
recksum(struct rte_ipv4_hdr *ip)
{
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static void
test_ipv4_classic_vector(void)
{
	struct rte_ipv4_hdr ip;

	memcpy(&ip, classic_hdr, sizeof(ip));
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(rte_ipv4_cksum(&ip)), 0xb861);
	CU_ASSERT_EQUAL(rfc1071(classic_hdr, sizeof(classic_hdr)), 0xb861);
}

/* hc_ipv4_build(198.18.0.1 -> 198.18.0.2, UDP, 100 payload bytes, id
 * 0x1234): version 4, IHL 5, ECT(0), DF, TTL 64; checksum 0x9c17. */
static void
test_ipv4_build_vector(void)
{
	static const uint8_t expect[20] = {
		0x45, 0x02, 0x00, 0x78, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
		0x9c, 0x17, 0xc6, 0x12, 0x00, 0x01, 0xc6, 0x12, 0x00, 0x02,
	};
	uint8_t pkt[120];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;

	memset(pkt, 0xee, sizeof(pkt));
	hc_ipv4_build(ip, IP_A, IP_B, IPPROTO_UDP, HC_IPV4_ECT0, 100, 0x1234,
		      1);
	CU_ASSERT_EQUAL(memcmp(pkt, expect, sizeof(expect)), 0);
	CU_ASSERT_EQUAL(pkt[10], 0x9c);
	CU_ASSERT_EQUAL(pkt[11], 0x17);
	/* the source address in network order */
	CU_ASSERT_EQUAL(pkt[12], 198);
	CU_ASSERT_EQUAL(pkt[19], 2);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), -1);

	/* cksum = 0 (offload): the field stays zero, the rest is the same */
	memset(pkt, 0xee, sizeof(pkt));
	hc_ipv4_build(ip, IP_A, IP_B, IPPROTO_UDP, HC_IPV4_ECT0, 100, 0x1234,
		      0);
	CU_ASSERT_EQUAL(pkt[10], 0);
	CU_ASSERT_EQUAL(pkt[11], 0);
	CU_ASSERT_EQUAL(memcmp(pkt, expect, 10), 0);
	CU_ASSERT_EQUAL(memcmp(pkt + 12, expect + 12, 8), 0);
}

static void
test_ipv4_check_accepts(void)
{
	uint8_t pkt[128];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;

	classic_packet(pkt);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, 115, 1), -1);
	/* bytes after total_length (Ethernet padding) are fine */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), -1);
}

static void
test_ipv4_check_cksum(void)
{
	uint8_t pkt[115];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;

	classic_packet(pkt);
	pkt[8] ^= 0x01;			/* TTL 64 -> 65 */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), HC_NET_DROP_CKSUM);
	/* not verified when the PMD already did */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 0), -1);

	classic_packet(pkt);
	pkt[19] ^= 0x80;		/* a bit of the dst address */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), HC_NET_DROP_CKSUM);

	classic_packet(pkt);
	pkt[11] ^= 0x04;		/* the checksum itself */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), HC_NET_DROP_CKSUM);
}

/* With IHL 6 the 4 option bytes are covered by the checksum too. */
static void
test_ipv4_check_options(void)
{
	uint8_t pkt[120];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;
	uint16_t ck;

	memset(pkt, 0, sizeof(pkt));
	memcpy(pkt, classic_hdr, sizeof(classic_hdr));
	pkt[0] = 0x46;
	pkt[3] = 120;			/* total length */
	memset(pkt + 20, 0x01, 4);	/* four NOP options */
	ck = rfc1071(pkt, 24);
	pkt[10] = ck >> 8;
	pkt[11] = ck & 0xff;
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), -1);
	pkt[23] ^= 0x10;		/* corrupt the last option byte */
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), HC_NET_DROP_CKSUM);
}

static void
test_ipv4_check_fragment(void)
{
	uint8_t pkt[115];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;

	classic_packet(pkt);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_FRAGMENT);

	classic_packet(pkt);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG | 1);
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_FRAGMENT);

	classic_packet(pkt);
	ip->fragment_offset = rte_cpu_to_be_16(0x1000);	/* offset only */
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_FRAGMENT);

	/* DF alone (the classic header) and no flags at all are not */
	classic_packet(pkt);
	ip->fragment_offset = 0;
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1), -1);
}

static void
test_ipv4_check_malformed(void)
{
	uint8_t pkt[115];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;

	classic_packet(pkt);
	ip->version_ihl = 0x65;		/* version 6 */
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_MALFORMED);

	classic_packet(pkt);
	ip->version_ihl = 0x44;		/* IHL 4: 16-byte header */
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_MALFORMED);

	/* total_length 115 in a 114-byte buffer */
	classic_packet(pkt);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt) - 1, 1),
			HC_NET_DROP_MALFORMED);

	/* total_length below the header length */
	classic_packet(pkt);
	ip->total_length = rte_cpu_to_be_16(19);
	recksum(ip);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_MALFORMED);

	/* IHL 15 (60 bytes) but total_length only 40 */
	classic_packet(pkt);
	ip->version_ihl = 0x4f;
	ip->total_length = rte_cpu_to_be_16(40);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, sizeof(pkt), 1),
			HC_NET_DROP_MALFORMED);

	/* a buffer shorter than the fixed header */
	classic_packet(pkt);
	CU_ASSERT_EQUAL(hc_ipv4_check(ip, 19, 1), HC_NET_DROP_MALFORMED);
}

/* UDP 198.18.0.1:51966 -> 198.18.0.2:4791, payload "hello" (odd length):
 * checksum 0x5224 over pseudo-header, UDP header and data. */
static void
test_udp_vector(void)
{
	static const uint8_t udp_expect[13] = {
		0xca, 0xfe, 0x12, 0xb7, 0x00, 0x0d, 0x52, 0x24,
		'h', 'e', 'l', 'l', 'o',
	};
	uint8_t pkt[20 + 13 + 1];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(pkt + 20);
	uint8_t phdr[12 + 13];

	memset(pkt, 0, sizeof(pkt));
	pkt[sizeof(pkt) - 1] = 0xff;	/* not part of the datagram */
	hc_ipv4_build(ip, IP_A, IP_B, IPPROTO_UDP, HC_IPV4_ECT0, 13, 1, 1);
	udp->src_port = rte_cpu_to_be_16(51966);
	udp->dst_port = rte_cpu_to_be_16(4791);
	udp->dgram_len = rte_cpu_to_be_16(13);
	udp->dgram_cksum = 0;
	memcpy(udp + 1, "hello", 5);

	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(udp->dgram_cksum), 0x5224);
	CU_ASSERT_EQUAL(memcmp(udp, udp_expect, sizeof(udp_expect)), 0);

	/* the receiver's check: the sum over pseudo-header + datagram with
	 * the checksum in place is all ones, i.e. its complement is 0 */
	memcpy(phdr, pkt + 12, 8);	/* src, dst */
	phdr[8] = 0;
	phdr[9] = IPPROTO_UDP;
	phdr[10] = 0;
	phdr[11] = 13;
	memcpy(phdr + 12, udp, 13);
	CU_ASSERT_EQUAL(rfc1071(phdr, sizeof(phdr)), 0);
	phdr[12 + 12] ^= 0x01;		/* 'o' -> 'n' */
	CU_ASSERT_NOT_EQUAL(rfc1071(phdr, sizeof(phdr)), 0);
}

static const CU_TestInfo cksum_tests[] = {
	{ "IPv4 header checksum: classic vector 0xb861",
	  test_ipv4_classic_vector },
	{ "hc_ipv4_build: bytes and checksum 0x9c17", test_ipv4_build_vector },
	{ "hc_ipv4_check accepts a correct header", test_ipv4_check_accepts },
	{ "hc_ipv4_check: one flipped bit -> CKSUM", test_ipv4_check_cksum },
	{ "hc_ipv4_check: options covered by checksum",
	  test_ipv4_check_options },
	{ "hc_ipv4_check: MF or offset -> FRAGMENT", test_ipv4_check_fragment },
	{ "hc_ipv4_check: version, IHL, lengths -> MALFORMED",
	  test_ipv4_check_malformed },
	{ "UDP checksum: known vector 0x5224", test_udp_vector },
	CU_TEST_INFO_NULL,
};

void
add_cksum_suite(void)
{
	unit_add_suite("checksum", NULL, NULL, cksum_tests);
}
