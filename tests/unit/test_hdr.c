/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HCT wire header: hct_hdr_encode()/hct_hdr_decode() round trip, the byte
 * order and offsets of the documented layout, and what decode rejects;
 * the CRC32C seal, also computed while copying the payload.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>
/* hct_hdr.h uses rte_be32_t without including rte_byteorder.h */
#include <rte_byteorder.h>

#include "hct_hdr.h"
#include "suites.h"

/* Payload bytes that follow the DATA header of the sample packet. */
#define PAYLOAD_LEN 7

/* The n-byte big-endian number at byte off of buf. */
static uint64_t
be_at(const uint8_t *buf, unsigned int off, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | buf[off + i];
	return v;
}

/* A DATA header with every field distinct, non-zero and, where the field is
 * wide, using its top bit. */
static void
sample_data(struct hct_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->type = HCT_TYPE_DATA;
	p->flags = 0x81;
	p->prio = 0x03;
	p->job_id = 0xa1b2c3d4;
	p->src_nonce = 0x91223344;
	p->dst_nonce = 0x85667788;
	p->src_rank = 0x8102;
	p->dst_rank = 0x0304;
	p->flow_id = 0xbeef;
	p->ecn_ce = 0x1234;
	p->psn = 0xfffffffe;
	p->ack_psn = 0x80000001;
	p->sack[0] = 0xfedcba9876543210ULL;
	p->sack[1] = 0x8000000000000001ULL;
	p->ts_ns = 0xf0e1d2c3b4a59687ULL;
	p->ts_echo_ns = 0x8877665544332211ULL;
	p->host_delay_ns = 0xdeadbeef;
	p->comm_id = 0xcafef00d;
	p->coll_seq = 0x90abcdef;
	p->sig = 0x13579bdf;
	p->step = 0xfffe;
	p->credit = 0x4321;
	p->length = PAYLOAD_LEN;
	p->offset = 0x0123456789abcdefULL;
	p->cov = HCT_COV_HDR;
	p->cov_accept = 1;
	p->flags2 = HCT_F2_TX_IDLE;
}

static void
test_data_round_trip(void)
{
	uint8_t buf[HCT_HDR_LEN + PAYLOAD_LEN];
	struct hct_pkt in, out;

	sample_data(&in);
	memset(buf, 0xa5, sizeof(buf));
	hct_hdr_encode(&in, buf);
	memset(&out, 0x5a, sizeof(out));
	CU_ASSERT_EQUAL_FATAL(hct_hdr_decode(buf, sizeof(buf), &out), 0);

	CU_ASSERT_EQUAL(out.type, HCT_TYPE_DATA);
	CU_ASSERT_EQUAL(out.flags, 0x81);
	CU_ASSERT_EQUAL(out.prio, 0x03);
	CU_ASSERT_EQUAL(out.job_id, 0xa1b2c3d4);
	CU_ASSERT_EQUAL(out.src_nonce, 0x91223344);
	CU_ASSERT_EQUAL(out.dst_nonce, 0x85667788);
	CU_ASSERT_EQUAL(out.src_rank, 0x8102);
	CU_ASSERT_EQUAL(out.dst_rank, 0x0304);
	CU_ASSERT_EQUAL(out.flow_id, 0xbeef);
	CU_ASSERT_EQUAL(out.ecn_ce, 0x1234);
	CU_ASSERT_EQUAL(out.psn, 0xfffffffe);
	CU_ASSERT_EQUAL(out.ack_psn, 0x80000001);
	CU_ASSERT_EQUAL(out.sack[0], 0xfedcba9876543210ULL);
	CU_ASSERT_EQUAL(out.sack[1], 0x8000000000000001ULL);
	CU_ASSERT_EQUAL(out.ts_ns, 0xf0e1d2c3b4a59687ULL);
	CU_ASSERT_EQUAL(out.ts_echo_ns, 0x8877665544332211ULL);
	CU_ASSERT_EQUAL(out.host_delay_ns, 0xdeadbeef);
	CU_ASSERT_EQUAL(out.comm_id, 0xcafef00d);
	CU_ASSERT_EQUAL(out.coll_seq, 0x90abcdef);
	CU_ASSERT_EQUAL(out.sig, 0x13579bdf);
	CU_ASSERT_EQUAL(out.step, 0xfffe);
	CU_ASSERT_EQUAL(out.credit, 0x4321);
	CU_ASSERT_EQUAL(out.length, PAYLOAD_LEN);
	CU_ASSERT_EQUAL(out.offset, 0x0123456789abcdefULL);
	CU_ASSERT_EQUAL(out.cov, HCT_COV_HDR);
	CU_ASSERT_EQUAL(out.cov_accept, 1);
	CU_ASSERT_EQUAL(out.flags2, HCT_F2_TX_IDLE);
}

static void
test_wire_layout(void)
{
	uint8_t buf[HCT_HDR_LEN + PAYLOAD_LEN];
	struct hct_pkt in;
	unsigned int i;

	sample_data(&in);
	memset(buf, 0xa5, sizeof(buf));
	hct_hdr_encode(&in, buf);

	CU_ASSERT_EQUAL(buf[0], HCT_VERSION);
	CU_ASSERT_EQUAL(buf[1], HCT_TYPE_DATA);
	CU_ASSERT_EQUAL(buf[2], 0x81);
	CU_ASSERT_EQUAL(buf[3], 0x03);
	CU_ASSERT_EQUAL(be_at(buf, 4, 4), 0xa1b2c3d4);
	CU_ASSERT_EQUAL(be_at(buf, 8, 4), 0x91223344);
	CU_ASSERT_EQUAL(be_at(buf, 12, 4), 0x85667788);
	CU_ASSERT_EQUAL(be_at(buf, 16, 2), 0x8102);
	CU_ASSERT_EQUAL(be_at(buf, 18, 2), 0x0304);
	CU_ASSERT_EQUAL(be_at(buf, 20, 2), 0xbeef);
	CU_ASSERT_EQUAL(be_at(buf, 22, 2), 0x1234);	/* ecn_ce */
	/* psn 0xfffffffe big-endian at 24: ff ff ff fe */
	CU_ASSERT_EQUAL(buf[24], 0xff);
	CU_ASSERT_EQUAL(buf[27], 0xfe);
	CU_ASSERT_EQUAL(be_at(buf, 24, 4), 0xfffffffe);
	CU_ASSERT_EQUAL(be_at(buf, 28, 4), 0x80000001);
	CU_ASSERT_EQUAL(be_at(buf, 32, 8), 0xfedcba9876543210ULL);
	CU_ASSERT_EQUAL(be_at(buf, 40, 8), 0x8000000000000001ULL);
	CU_ASSERT_EQUAL(be_at(buf, 48, 8), 0xf0e1d2c3b4a59687ULL);
	CU_ASSERT_EQUAL(be_at(buf, 56, 8), 0x8877665544332211ULL);
	CU_ASSERT_EQUAL(be_at(buf, 64, 4), 0xdeadbeef);
	CU_ASSERT_EQUAL(be_at(buf, 68, 4), 0xcafef00d);
	CU_ASSERT_EQUAL(be_at(buf, 72, 4), 0x90abcdef);
	CU_ASSERT_EQUAL(be_at(buf, 76, 4), 0x13579bdf);
	CU_ASSERT_EQUAL(be_at(buf, 80, 2), 0xfffe);
	CU_ASSERT_EQUAL(be_at(buf, 82, 2), 0x4321);	/* credit */
	CU_ASSERT_EQUAL(be_at(buf, 84, 4), PAYLOAD_LEN);
	/* offset 0x0123456789abcdef big-endian at 88: 01 23 ... ef */
	CU_ASSERT_EQUAL(buf[88], 0x01);
	CU_ASSERT_EQUAL(buf[95], 0xef);
	CU_ASSERT_EQUAL(be_at(buf, 88, 8), 0x0123456789abcdefULL);
	CU_ASSERT_EQUAL(be_at(buf, 96, 4), 0);		/* crc: not sealed */
	CU_ASSERT_EQUAL(buf[100], HCT_COV_HDR);		/* cov */
	CU_ASSERT_EQUAL(buf[101], 1);			/* cov_accept */
	CU_ASSERT_EQUAL(buf[102], HCT_F2_TX_IDLE);	/* flags2 */
	CU_ASSERT_EQUAL(buf[103], 0);			/* rsvd */
	/* encode writes the header only, never the payload after it */
	for (i = HCT_HDR_LEN; i < sizeof(buf); i++)
		CU_ASSERT_EQUAL(buf[i], 0xa5);
}

/* encode and decode take any alignment: the header at an odd address. */
static void
test_unaligned_buffer(void)
{
	uint8_t raw[1 + HCT_HDR_LEN + PAYLOAD_LEN];
	struct hct_pkt in, out;

	sample_data(&in);
	hct_hdr_encode(&in, raw + 1);
	CU_ASSERT_EQUAL_FATAL(hct_hdr_decode(raw + 1, HCT_HDR_LEN + PAYLOAD_LEN,
					     &out), 0);
	CU_ASSERT_EQUAL(out.offset, 0x0123456789abcdefULL);
	CU_ASSERT_EQUAL(out.ts_ns, 0xf0e1d2c3b4a59687ULL);
	CU_ASSERT_EQUAL(out.psn, 0xfffffffe);
	CU_ASSERT_EQUAL(be_at(raw, 1 + 88, 8), 0x0123456789abcdefULL);
}

static void
test_ack_round_trip(void)
{
	uint8_t buf[HCT_HDR_LEN];
	struct hct_pkt in, out;

	memset(&in, 0, sizeof(in));
	in.type = HCT_TYPE_ACK;
	in.flags = HCT_F_ACK_VALID;
	in.ack_psn = 0xffffffff;
	in.sack[0] = 1;
	in.sack[1] = 0x8000000000000000ULL;
	in.ts_echo_ns = 123456789012345ULL;
	in.host_delay_ns = 4500;
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL_FATAL(hct_hdr_decode(buf, sizeof(buf), &out), 0);
	CU_ASSERT_EQUAL(out.type, HCT_TYPE_ACK);
	CU_ASSERT_EQUAL(out.flags, HCT_F_ACK_VALID);
	CU_ASSERT_EQUAL(out.ack_psn, 0xffffffff);
	CU_ASSERT_EQUAL(out.sack[0], 1);
	CU_ASSERT_EQUAL(out.sack[1], 0x8000000000000000ULL);
	CU_ASSERT_EQUAL(out.ts_echo_ns, 123456789012345ULL);
	CU_ASSERT_EQUAL(out.host_delay_ns, 4500);
	CU_ASSERT_EQUAL(out.length, 0);
}

/* A DATA packet with an empty payload is exactly a header. */
static void
test_empty_data(void)
{
	uint8_t buf[HCT_HDR_LEN];
	struct hct_pkt in, out;

	sample_data(&in);
	in.length = 0;
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN, &out), 0);
	CU_ASSERT_EQUAL(out.length, 0);
}

static void
test_reject_short(void)
{
	uint8_t buf[HCT_HDR_LEN];
	struct hct_pkt in, out;

	sample_data(&in);
	in.length = 0;
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN - 1, &out), -1);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, 24, &out), -1);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, 0, &out), -1);
}

static void
test_reject_version(void)
{
	uint8_t buf[HCT_HDR_LEN + PAYLOAD_LEN];
	struct hct_pkt in, out;

	sample_data(&in);
	hct_hdr_encode(&in, buf);
	buf[0] = HCT_VERSION + 1;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), -1);
	buf[0] = 0;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), -1);
	buf[0] = HCT_VERSION;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), 0);
}

static void
test_reject_type(void)
{
	uint8_t buf[HCT_HDR_LEN];
	struct hct_pkt in, out;

	memset(&in, 0, sizeof(in));
	in.type = HCT_TYPE_HELLO;
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), 0);
	buf[1] = 0;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), -1);
	buf[1] = HCT_TYPE__MAX;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), -1);
	buf[1] = 0xff;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), -1);
	buf[1] = HCT_TYPE__MAX - 1;
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, sizeof(buf), &out), 0);
	CU_ASSERT_EQUAL(out.type, HCT_TYPE__MAX - 1);
}

/* DATA's length field must equal the bytes after the header. */
static void
test_reject_data_length(void)
{
	uint8_t buf[HCT_HDR_LEN + PAYLOAD_LEN + 1];
	struct hct_pkt in, out;

	sample_data(&in);
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + PAYLOAD_LEN - 1,
				       &out), -1);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + PAYLOAD_LEN + 1,
				       &out), -1);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN, &out), -1);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + PAYLOAD_LEN, &out),
			0);
	/* a length near 2^32 must not wrap into agreement */
	in.length = 0xffffffff;
	hct_hdr_encode(&in, buf);
	CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + PAYLOAD_LEN, &out),
			-1);
}

/* Only DATA carries a payload: other types with trailing bytes are bad. */
static void
test_reject_trailing_bytes(void)
{
	static const uint8_t types[] = { HCT_TYPE_ACK, HCT_TYPE_NACK,
					 HCT_TYPE_HELLO, HCT_TYPE_HELLO_ACK,
					 HCT_TYPE_ABORT };
	uint8_t buf[HCT_HDR_LEN + 8];
	struct hct_pkt in, out;
	unsigned int i;

	for (i = 0; i < RTE_DIM(types); i++) {
		memset(&in, 0, sizeof(in));
		in.type = types[i];
		hct_hdr_encode(&in, buf);
		CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + 1, &out), -1);
		CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN + 8, &out), -1);
		CU_ASSERT_EQUAL(hct_hdr_decode(buf, HCT_HDR_LEN, &out), 0);
		CU_ASSERT_EQUAL(out.type, types[i]);
	}
}

/* CRC32C bit by bit (Castagnoli, reflected polynomial 0x82F63B78, RFC
 * 3720 appendix B.4), without the final inversion as rte_hash_crc(). */
static uint32_t
crc32c_ref(const uint8_t *p, uint32_t len, uint32_t c)
{
	uint32_t i;
	int k;

	for (i = 0; i < len; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return c;
}

/* The reference itself: the check value of "123456789" is 0xE3069283. */
static void
test_crc_reference(void)
{
	CU_ASSERT_EQUAL(~crc32c_ref((const uint8_t *)"123456789", 9,
				    0xffffffffu), 0xE3069283u);
}

/* hct_crc_copy_seal() against memcpy() + hct_crc_seal() and against the
 * bitwise CRC32C of the packet with its crc field 0, for every payload
 * length 0..80 (the 8-byte loop and the tail), a full MSS at MTU 1500,
 * lengths between (three chains) and a full MSS at MTU 9000, from an
 * odd source address into an odd packet address. */
static void
test_crc_copy_seal(void)
{
	static uint8_t src[9000 + 1], a[HCT_HDR_LEN + 9000 + 1],
		b[HCT_HDR_LEN + 9000 + 1];
	uint8_t *pa = a + 1, zero[4] = { 0 };
	struct hct_pkt p;
	uint32_t len, i, c;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(&p, 0, sizeof(p));
	p.type = HCT_TYPE_DATA;
	p.psn = 0x01020304;
	for (len = 0; len <= 8856;
	     len = len < 80 ? len + 1 : len < 1432 ? 1432 :
	     len < 8856 ? len * 2 + 1 : 8856) {
		p.length = len;
		memset(a, 0xee, sizeof(a));
		hct_hdr_encode(&p, pa);
		hct_crc_copy_seal(pa, src + 1, len);
		hct_hdr_encode(&p, b);
		memcpy(b + HCT_HDR_LEN, src + 1, len);
		hct_crc_seal(b, HCT_HDR_LEN + len);
		CU_ASSERT_EQUAL(memcmp(pa, b, HCT_HDR_LEN + len), 0);
		CU_ASSERT_EQUAL(pa[HCT_HDR_LEN + len], 0xee); /* no overrun */
		CU_ASSERT_TRUE(hct_crc_ok(pa, HCT_HDR_LEN + len, 0));
		c = crc32c_ref(b, offsetof(struct hct_wire_hdr, crc),
			       0xffffffffu);
		c = crc32c_ref(zero, 4, c);
		c = crc32c_ref(b + offsetof(struct hct_wire_hdr, crc) + 4,
			       HCT_HDR_LEN + len -
			       offsetof(struct hct_wire_hdr, crc) - 4, c);
		CU_ASSERT_EQUAL(be_at(pa, offsetof(struct hct_wire_hdr, crc), 4),
				c);
		/* One flipped bit, in the payload (in the header when none). */
		pa[len != 0 ? HCT_HDR_LEN + len / 2 : 30] ^= 0x10;
		CU_ASSERT_FALSE(hct_crc_ok(pa, HCT_HDR_LEN + len, 1));
		if (len == 8856)
			break;
	}
}

/* The bitwise CRC32C register of the first n bytes of pkt with its crc
 * field read as 0 (n >= HCT_HDR_LEN). */
static uint32_t
pkt_crc_ref(const uint8_t *pkt, uint32_t n)
{
	const uint32_t at = offsetof(struct hct_wire_hdr, crc);
	const uint8_t zero[4] = { 0 };
	uint32_t c = crc32c_ref(pkt, at, 0xffffffffu);

	c = crc32c_ref(zero, 4, c);
	return crc32c_ref(pkt + at + 4, n - at - 4, c);
}

/* Header-only coverage (HCT_COV_HDR): every seal writes the CRC32C of the
 * 104 header bytes alone (the bitwise reference), copies the payload
 * unchanged; hct_crc_ok passes it only when header-only is accepted; a
 * flipped header bit fails, a flipped payload bit does not (not covered,
 * by design); and the cov byte is covered both ways: a full-coverage
 * packet whose cov is flipped to HCT_COV_HDR fails even where header-only
 * is accepted, and a header-only packet flipped to HCT_COV_FULL fails. An
 * unknown cov value fails. */
static void
test_crc_hdr_coverage(void)
{
	static const uint32_t lens[] = { 0, 1, 7, 80, 1368, 8856 };
	static uint8_t src[8856], a[HCT_HDR_LEN + 8856],
		b[HCT_HDR_LEN + 8856], c2[HCT_HDR_LEN + 8856];
	struct hct_pkt p, out;
	uint32_t i, len, n;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 13 + 5);
	for (i = 0; i < RTE_DIM(lens); i++) {
		len = lens[i];
		n = HCT_HDR_LEN + len;
		sample_data(&p);
		p.length = len;
		p.cov = HCT_COV_HDR;
		hct_hdr_encode(&p, a);
		hct_crc_copy_seal(a, src, len);
		CU_ASSERT_EQUAL(memcmp(a + HCT_HDR_LEN, src, len), 0);
		CU_ASSERT_EQUAL(be_at(a, offsetof(struct hct_wire_hdr, crc), 4),
				pkt_crc_ref(a, HCT_HDR_LEN));
		/* seal of the contiguous packet, and split (clone) */
		hct_hdr_encode(&p, b);
		memcpy(b + HCT_HDR_LEN, src, len);
		hct_crc_seal(b, n);
		CU_ASSERT_EQUAL(memcmp(a, b, n), 0);
		hct_hdr_encode(&p, c2);
		hct_crc_seal_split(c2, src, len);
		CU_ASSERT_EQUAL(memcmp(a, c2, HCT_HDR_LEN), 0);
		CU_ASSERT_TRUE(hct_crc_ok(a, n, 1));
		CU_ASSERT_FALSE(hct_crc_ok(a, n, 0));
		CU_ASSERT_EQUAL_FATAL(hct_hdr_decode(a, n, &out), 0);
		CU_ASSERT_EQUAL(out.cov, HCT_COV_HDR);
		if (len != 0) {
			a[HCT_HDR_LEN + len / 2] ^= 0x04; /* not covered */
			CU_ASSERT_TRUE(hct_crc_ok(a, n, 1));
			a[HCT_HDR_LEN + len / 2] ^= 0x04;
		}
		a[HCT_OFF(offset) + 7] ^= 0x01; /* where the payload goes */
		CU_ASSERT_FALSE(hct_crc_ok(a, n, 1));
		a[HCT_OFF(offset) + 7] ^= 0x01;
		a[HCT_OFF(cov)] = HCT_COV_FULL; /* coverage flipped */
		CU_ASSERT_FALSE(hct_crc_ok(a, n, 1));
		CU_ASSERT_FALSE(hct_crc_ok(a, n, 0));
		a[HCT_OFF(cov)] = HCT_COV_HDR;
		CU_ASSERT_TRUE(hct_crc_ok(a, n, 1));

		/* full coverage, cov flipped to header-only */
		p.cov = HCT_COV_FULL;
		hct_hdr_encode(&p, b);
		hct_crc_copy_seal(b, src, len);
		CU_ASSERT_EQUAL(be_at(b, offsetof(struct hct_wire_hdr, crc), 4),
				pkt_crc_ref(b, n));
		CU_ASSERT_TRUE(hct_crc_ok(b, n, 0));
		CU_ASSERT_TRUE(hct_crc_ok(b, n, 1));
		b[HCT_OFF(cov)] = HCT_COV_HDR;
		CU_ASSERT_FALSE(hct_crc_ok(b, n, 1));
		CU_ASSERT_FALSE(hct_crc_ok(b, n, 0));

		/* a value of no coverage fails, sealed or not */
		p.cov = HCT_COV__MAX;
		hct_hdr_encode(&p, b);
		memcpy(b + HCT_HDR_LEN, src, len);
		hct_crc_seal(b, n);
		CU_ASSERT_FALSE(hct_crc_ok(b, n, 1));
		CU_ASSERT_FALSE(hct_crc_ok(b, n, 0));
	}
}

/* hct_crc32c() (three chains from 384 bytes on) against the bitwise
 * reference for every length 0..1100 and lengths around MSS and MTU
 * sizes up to 9016, from 8 start alignments and 3 start registers; one
 * flipped bit in any third changes it. */
static void
test_crc32c_lengths(void)
{
	static uint8_t buf[9100];
	static const uint32_t big[] = { 1431, 1432, 1433, 1472, 2047, 2048,
					 4095, 4096, 8855, 8856, 8857, 8999,
					 9000, 9016 };
	static const uint32_t init[] = { 0xffffffffu, 0, 0x12345678u };
	uint32_t len, i, j, a, r, bad = 0, nbig = 0;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 7) * 17 + 5);
	for (len = 0; len <= 1100 + RTE_DIM(big); len++) {
		uint32_t l = len <= 1100 ? len : big[len - 1101];

		for (a = 0; a < 8; a++)
			for (j = 0; j < RTE_DIM(init); j++) {
				r = crc32c_ref(buf + a, l, init[j]);
				if (hct_crc32c(buf + a, l, init[j]) != r)
					bad++;
				if (l >= 8856)
					nbig++;
			}
		if (l >= 3) {
			for (i = 0; i < 3; i++) {
				uint32_t at = l / 3 * i + l / 7;

				r = hct_crc32c(buf, l, 0xffffffffu);
				buf[at] ^= 0x01;
				if (hct_crc32c(buf, l, 0xffffffffu) == r ||
				    hct_crc32c(buf, l, 0xffffffffu) !=
				    crc32c_ref(buf, l, 0xffffffffu))
					bad++;
				buf[at] ^= 0x01;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_TRUE(nbig > 0);
}

static const CU_TestInfo hdr_tests[] = {
	{ "CRC32C three chains = bitwise reference, lengths 0..9016",
	  test_crc32c_lengths },
	{ "CRC32C reference: check value of 123456789", test_crc_reference },
	{ "CRC32C computed while copying = copy, then seal",
	  test_crc_copy_seal },
	{ "CRC coverage header-only: seals, check, cov field covered",
	  test_crc_hdr_coverage },
	{ "DATA header round trip, all fields", test_data_round_trip },
	{ "wire bytes: big-endian at documented offsets", test_wire_layout },
	{ "header at an odd address", test_unaligned_buffer },
	{ "ACK header round trip", test_ack_round_trip },
	{ "DATA with empty payload", test_empty_data },
	{ "reject: shorter than the header", test_reject_short },
	{ "reject: wrong version", test_reject_version },
	{ "reject: type 0 and type >= HCT_TYPE__MAX", test_reject_type },
	{ "reject: DATA length != bytes after header",
	  test_reject_data_length },
	{ "reject: non-DATA with trailing bytes", test_reject_trailing_bytes },
	CU_TEST_INFO_NULL,
};

void
add_hdr_suite(void)
{
	unit_add_suite("hct_hdr", NULL, NULL, hdr_tests);
}
