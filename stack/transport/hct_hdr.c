/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>

#include "hct_hdr.h"

void
hct_hdr_encode(const struct hct_pkt *p, void *buf)
{
	struct hct_wire_hdr w;

	memset(&w, 0, sizeof(w));
	w.version = HCT_VERSION;
	w.type = p->type;
	w.flags = p->flags;
	w.prio = p->prio;
	w.job_id = rte_cpu_to_be_32(p->job_id);
	w.src_nonce = rte_cpu_to_be_32(p->src_nonce);
	w.dst_nonce = rte_cpu_to_be_32(p->dst_nonce);
	w.src_rank = rte_cpu_to_be_16(p->src_rank);
	w.dst_rank = rte_cpu_to_be_16(p->dst_rank);
	w.flow_id = rte_cpu_to_be_16(p->flow_id);
	w.ecn_ce = rte_cpu_to_be_16(p->ecn_ce);
	w.psn = rte_cpu_to_be_32(p->psn);
	w.ack_psn = rte_cpu_to_be_32(p->ack_psn);
	w.sack[0] = rte_cpu_to_be_64(p->sack[0]);
	w.sack[1] = rte_cpu_to_be_64(p->sack[1]);
	w.ts_ns = rte_cpu_to_be_64(p->ts_ns);
	w.ts_echo_ns = rte_cpu_to_be_64(p->ts_echo_ns);
	w.host_delay_ns = rte_cpu_to_be_32(p->host_delay_ns);
	w.comm_id = rte_cpu_to_be_32(p->comm_id);
	w.coll_seq = rte_cpu_to_be_32(p->coll_seq);
	w.sig = rte_cpu_to_be_32(p->sig);
	w.step = rte_cpu_to_be_16(p->step);
	w.credit = rte_cpu_to_be_16(p->credit);
	w.length = rte_cpu_to_be_32(p->length);
	w.offset = rte_cpu_to_be_64(p->offset);
	memcpy(buf, &w, sizeof(w));
}

void
hct_tmpl_build(uint8_t *tmpl, uint32_t job_id, uint32_t src_nonce,
	       uint32_t dst_nonce, uint16_t src_rank, uint16_t dst_rank)
{
	memset(tmpl, 0, HCT_HDR_LEN);
	tmpl[HCT_OFF(version)] = HCT_VERSION;
	hct_put32(tmpl, HCT_OFF(job_id), job_id);
	hct_put32(tmpl, HCT_OFF(src_nonce), src_nonce);
	hct_put32(tmpl, HCT_OFF(dst_nonce), dst_nonce);
	hct_put16(tmpl, HCT_OFF(src_rank), src_rank);
	hct_put16(tmpl, HCT_OFF(dst_rank), dst_rank);
}

int
hct_hdr_decode(const void *buf, uint32_t len, struct hct_pkt *p)
{
	struct hct_wire_hdr w;

	if (len < sizeof(w))
		return -1;
	memcpy(&w, buf, sizeof(w));
	if (w.version != HCT_VERSION || w.type == 0 || w.type >= HCT_TYPE__MAX)
		return -1;
	p->type = w.type;
	p->flags = w.flags;
	p->prio = w.prio;
	p->job_id = rte_be_to_cpu_32(w.job_id);
	p->src_nonce = rte_be_to_cpu_32(w.src_nonce);
	p->dst_nonce = rte_be_to_cpu_32(w.dst_nonce);
	p->src_rank = rte_be_to_cpu_16(w.src_rank);
	p->dst_rank = rte_be_to_cpu_16(w.dst_rank);
	p->flow_id = rte_be_to_cpu_16(w.flow_id);
	p->ecn_ce = rte_be_to_cpu_16(w.ecn_ce);
	p->psn = rte_be_to_cpu_32(w.psn);
	p->ack_psn = rte_be_to_cpu_32(w.ack_psn);
	p->sack[0] = rte_be_to_cpu_64(w.sack[0]);
	p->sack[1] = rte_be_to_cpu_64(w.sack[1]);
	p->ts_ns = rte_be_to_cpu_64(w.ts_ns);
	p->ts_echo_ns = rte_be_to_cpu_64(w.ts_echo_ns);
	p->host_delay_ns = rte_be_to_cpu_32(w.host_delay_ns);
	p->comm_id = rte_be_to_cpu_32(w.comm_id);
	p->coll_seq = rte_be_to_cpu_32(w.coll_seq);
	p->sig = rte_be_to_cpu_32(w.sig);
	p->step = rte_be_to_cpu_16(w.step);
	p->credit = rte_be_to_cpu_16(w.credit);
	p->length = rte_be_to_cpu_32(w.length);
	p->offset = rte_be_to_cpu_64(w.offset);
	if (p->type == HCT_TYPE_DATA ? p->length != len - sizeof(w)
				     : len != sizeof(w))
		return -1;
	return 0;
}

/* CRC32C of len bytes at p from c: rte_hash_crc()'s result, with the
 * 8-byte words read by memcpy. rte_hash_crc() dereferences p as a
 * uint64_t *, undefined behaviour at the addresses packets have (the HCT
 * header sits 42 bytes into the frame; UBSan: "load of misaligned address
 * ... for type 'const uint64_t'", found by tests/fuzz/fuzz_frame). */
static uint32_t
crc_bytes(const uint8_t *p, uint32_t len, uint32_t c)
{
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		c = rte_hash_crc_8byte(w, c);
	}
	for (; i < len; i++)
		c = rte_hash_crc_1byte(p[i], c);
	return c;
}

/* CRC32C of the packet with its crc field read as 0. */
static uint32_t
pkt_crc(const uint8_t *pkt, uint32_t len)
{
	const uint32_t at = offsetof(struct hct_wire_hdr, crc);
	uint32_t c;

	c = crc_bytes(pkt, at, 0xffffffffu);
	c = rte_hash_crc_4byte(0, c);
	return crc_bytes(pkt + at + 4, len - at - 4, c);
}

void
hct_crc_copy_seal(uint8_t *pkt, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint8_t *d = pkt + HCT_HDR_LEN;
	uint32_t c = pkt_crc(pkt, HCT_HDR_LEN), i = 0;
	rte_be32_t v;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		memcpy(d + i, &w, 8);
		c = rte_hash_crc_8byte(w, c);
	}
	for (; i < len; i++) {
		d[i] = s[i];
		c = rte_hash_crc_1byte(s[i], c);
	}
	v = rte_cpu_to_be_32(c);
	memcpy(pkt + offsetof(struct hct_wire_hdr, crc), &v, sizeof(v));
}

void
hct_crc_seal_split(uint8_t *hdr, const void *payload, uint32_t len)
{
	uint32_t c = pkt_crc(hdr, HCT_HDR_LEN);
	rte_be32_t v;

	if (len > 0)
		c = rte_hash_crc(payload, len, c);
	v = rte_cpu_to_be_32(c);
	memcpy(hdr + offsetof(struct hct_wire_hdr, crc), &v, sizeof(v));
}

void
hct_crc_seal(void *pkt, uint32_t len)
{
	rte_be32_t v = rte_cpu_to_be_32(pkt_crc(pkt, len));

	memcpy((uint8_t *)pkt + offsetof(struct hct_wire_hdr, crc), &v,
	       sizeof(v));
}

int
hct_crc_ok(const void *pkt, uint32_t len)
{
	rte_be32_t v;

	if (len < HCT_HDR_LEN)
		return 0;
	memcpy(&v, (const uint8_t *)pkt + offsetof(struct hct_wire_hdr, crc),
	       sizeof(v));
	return rte_be_to_cpu_32(v) == pkt_crc(pkt, len);
}
