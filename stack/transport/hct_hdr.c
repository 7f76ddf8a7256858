/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cpuflags.h>
#include <rte_hash_crc.h>
#ifdef RTE_ARCH_X86_64
#include <x86intrin.h>
#endif

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
	w.cov = p->cov;
	w.cov_accept = p->cov_accept;
	w.flags2 = p->flags2;
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
	p->cov = w.cov;
	p->cov_accept = w.cov_accept;
	p->flags2 = w.flags2;
	if (p->type == HCT_TYPE_DATA ? p->length != len - sizeof(w)
				     : len != sizeof(w))
		return -1;
	return 0;
}

/* CRC32C of len bytes at p from c, one crc32 chain: rte_hash_crc()'s
 * result, with the 8-byte words read by memcpy. rte_hash_crc()
 * dereferences p as a uint64_t *, undefined behaviour at the addresses
 * packets have (the HCT header sits 42 bytes into the frame; UBSan: "load
 * of misaligned address ... for type 'const uint64_t'", found by
 * tests/fuzz/fuzz_frame). */
static uint32_t
crc_serial(const uint8_t *p, uint32_t len, uint32_t c)
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

#ifdef RTE_ARCH_X86_64
/* ---- Three interleaved crc32 chains ------------------------------------
 *
 * The crc32 instruction has a latency of 3 cycles and a throughput of one
 * per cycle (Intel's optimization manual; Gopal et al., "Fast CRC
 * Computation for iSCSI Polynomial Using CRC32 Instruction", Intel white
 * paper 323405, 2011): one chain reads 8 bytes per 3 cycles, three
 * independent chains over three thirds of the buffer read 8 bytes per
 * cycle. The thirds' registers are joined by the linearity of the CRC
 * register (no init or final xor inside): crc(c, A || B) =
 * shift(crc(c, A), |B|) ^ crc(0, B), where shift(v, n) is v followed by n
 * zero bytes: V(x) * x^(8n) mod P. In the bit-reflected representation
 * the crc32 instruction uses, crc32_u64(0, clmul(v, k)) = V * K * x^33
 * mod P (the carry-less product of two reflected 32-bit values is the
 * reflected 64-bit value of x * V * K; crc32_u64(0, d) = D * x^32 mod P),
 * so shift(v, n) = crc32_u64(0, clmul(v, K_n)) with K_n = x^(8n - 33)
 * mod P, the method of that white paper. K_n depends only on the third's
 * length; it is computed once per length (xpow()) and kept in a small
 * table (a DATA packet's payload is nearly always the MSS). Built for
 * PCLMULQDQ + SSE4.2 by function attribute (the build's -march=corei7
 * has no PCLMULQDQ); used only where the CPU has both
 * (rte_cpu_get_flag_enabled), else crc_serial(). */

/* Below this many bytes one chain is as fast (joining costs ~15 ns). */
#define CRC3_MIN 384u

#define CRC32C_POLY_REFL 0x82F63B78u /* x^32 mod P, bit-reflected */

/* x^e mod P, bit-reflected (bit 31 = x^0). Square and multiply with a
 * bitwise reduction: ~30 multiplications of 32 steps. */
static uint32_t
gf_mul(uint32_t a, uint32_t b)
{
	uint32_t r = 0;
	int i;

	/* b's bit 31 is x^0: walk b's coefficients from x^0 up while a
	 * is multiplied by x at each step. */
	for (i = 31; i >= 0; i--) {
		if (b & (1u << i))
			r ^= a;
		a = (a >> 1) ^ ((a & 1u) ? CRC32C_POLY_REFL : 0u);
	}
	return r;
}

static uint32_t
xpow(uint64_t e)
{
	uint32_t r = 0x80000000u, s = 0x40000000u; /* x^0, x^1 */

	for (; e != 0; e >>= 1) {
		if (e & 1u)
			r = gf_mul(r, s);
		s = gf_mul(s, s);
	}
	return r;
}

/* K_n for thirds of n bytes: entries (n << 32 | K_n), direct-mapped by
 * n / 8. One 64-bit word per entry, read and written whole (relaxed
 * atomics), so threads sharing it see an old entry or a new one, never
 * half of each; a miss just recomputes. */
#define CRC3_KTAB 64u
static uint64_t crc3_ktab[CRC3_KTAB];

static uint32_t
crc3_k(uint32_t n)
{
	uint64_t *e = &crc3_ktab[(n / 8u) % CRC3_KTAB];
	uint64_t v = __atomic_load_n(e, __ATOMIC_RELAXED);
	uint32_t k;

	if ((uint32_t)(v >> 32) == n && n != 0)
		return (uint32_t)v;
	k = xpow(8ull * n - 33u);
	__atomic_store_n(e, (uint64_t)n << 32 | k, __ATOMIC_RELAXED);
	return k;
}

static int crc3_cpu = -1; /* 1: PCLMULQDQ and SSE4.2; 0: no; -1 unknown */

static int
crc3_usable(void)
{
	int v = __atomic_load_n(&crc3_cpu, __ATOMIC_RELAXED);

	if (v < 0) {
		v = rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0 &&
		    rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) > 0;
		__atomic_store_n(&crc3_cpu, v, __ATOMIC_RELAXED);
	}
	return v;
}

__attribute__((target("pclmul,sse4.2"))) static inline uint32_t
crc3_shift(uint32_t v, uint32_t k)
{
	__m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)v),
					 _mm_cvtsi32_si128((int)k), 0x00);

	return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(p));
}

/* The three chains over len bytes (len >= CRC3_MIN), copying them to d
 * when d is not NULL. */
__attribute__((target("pclmul,sse4.2"))) static uint32_t
crc3(const uint8_t *p, uint8_t *d, uint32_t len, uint32_t c)
{
	uint32_t n = len / 24u * 8u, i, c1 = 0, c2 = 0, k = crc3_k(n);
	uint64_t c0 = c, a = 0, b = 0;
	const uint8_t *p1 = p + n, *p2 = p + 2u * n;

	if (d != NULL) {
		uint8_t *d1 = d + n, *d2 = d + 2u * n;

		for (i = 0; i < n; i += 8) {
			uint64_t w0, w1, w2;

			memcpy(&w0, p + i, 8);
			memcpy(&w1, p1 + i, 8);
			memcpy(&w2, p2 + i, 8);
			memcpy(d + i, &w0, 8);
			memcpy(d1 + i, &w1, 8);
			memcpy(d2 + i, &w2, 8);
			c0 = _mm_crc32_u64(c0, w0);
			a = _mm_crc32_u64(a, w1);
			b = _mm_crc32_u64(b, w2);
		}
	} else {
		for (i = 0; i < n; i += 8) {
			uint64_t w0, w1, w2;

			memcpy(&w0, p + i, 8);
			memcpy(&w1, p1 + i, 8);
			memcpy(&w2, p2 + i, 8);
			c0 = _mm_crc32_u64(c0, w0);
			a = _mm_crc32_u64(a, w1);
			b = _mm_crc32_u64(b, w2);
		}
	}
	c1 = (uint32_t)a;
	c2 = (uint32_t)b;
	c = crc3_shift((uint32_t)c0, k) ^ c1;
	c = crc3_shift(c, k) ^ c2;
	/* the tail, under 24 bytes */
	i = 3u * n;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (d != NULL)
			memcpy(d + i, &w, 8);
		c = (uint32_t)_mm_crc32_u64(c, w);
	}
	for (; i < len; i++) {
		if (d != NULL)
			d[i] = p[i];
		c = _mm_crc32_u8(c, p[i]);
	}
	return c;
}

#else
#define CRC3_MIN UINT32_MAX
static inline int crc3_usable(void) { return 0; }
static inline uint32_t
crc3(const uint8_t *p, uint8_t *d, uint32_t len, uint32_t c)
{
	(void)p; (void)d; (void)len;
	return c;
}
#endif

/* CRC32C of len bytes at p from c (rte_hash_crc()'s result). */
static uint32_t
crc_bytes(const uint8_t *p, uint32_t len, uint32_t c)
{
	if (len >= CRC3_MIN && crc3_usable())
		return crc3(p, NULL, len, c);
	return crc_serial(p, len, c);
}

uint32_t
hct_crc32c(const void *p, uint32_t len, uint32_t c)
{
	return crc_bytes(p, len, c);
}

/* CRC32C of the packet with its crc field read as 0: of len bytes (the
 * caller chose them by the coverage). */
static uint32_t
pkt_crc(const uint8_t *pkt, uint32_t len)
{
	const uint32_t at = offsetof(struct hct_wire_hdr, crc);
	uint32_t c;

	c = crc_bytes(pkt, at, 0xffffffffu);
	c = rte_hash_crc_4byte(0, c);
	return crc_bytes(pkt + at + 4, len - at - 4, c);
}

static inline void
put_crc(uint8_t *pkt, uint32_t c)
{
	rte_be32_t v = rte_cpu_to_be_32(c);

	memcpy(pkt + offsetof(struct hct_wire_hdr, crc), &v, sizeof(v));
}

void
hct_crc_copy_seal(uint8_t *pkt, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint8_t *d = pkt + HCT_HDR_LEN;
	uint32_t c = pkt_crc(pkt, HCT_HDR_LEN), i = 0;

	if (hct_cov_of(pkt) == HCT_COV_HDR) {
		/* the payload is not covered: a copy, nothing more */
		memcpy(d, s, len);
		put_crc(pkt, c);
		return;
	}
	if (len >= CRC3_MIN && crc3_usable()) {
		/* copy, then the CRC from the copy, still in L1 (a payload
		 * is at most one jumbo frame): faster than the fused loop,
		 * whose 8-byte stores the CPU retires at most 2 per cycle */
		memcpy(d, s, len);
		c = crc3(d, NULL, len, c);
		i = len;
	}
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
	put_crc(pkt, c);
}

void
hct_crc_seal_split(uint8_t *hdr, const void *payload, uint32_t len)
{
	uint32_t c = pkt_crc(hdr, HCT_HDR_LEN);

	if (len > 0 && hct_cov_of(hdr) != HCT_COV_HDR)
		c = crc_bytes(payload, len, c);
	put_crc(hdr, c);
}

void
hct_crc_seal(void *pkt, uint32_t len)
{
	put_crc(pkt, pkt_crc(pkt, hct_cov_of(pkt) == HCT_COV_HDR ?
				  HCT_HDR_LEN : len));
}

int
hct_crc_ok(const void *pkt, uint32_t len, int accept_hdr)
{
	rte_be32_t v;
	uint8_t cov;

	if (len < HCT_HDR_LEN)
		return 0;
	cov = hct_cov_of(pkt);
	if (cov == HCT_COV_HDR) {
		if (!accept_hdr)
			return 0;
		len = HCT_HDR_LEN;
	} else if (cov != HCT_COV_FULL) {
		return 0;
	}
	memcpy(&v, (const uint8_t *)pkt + offsetof(struct hct_wire_hdr, crc),
	       sizeof(v));
	return rte_be_to_cpu_32(v) == pkt_crc(pkt, len);
}
