/* SPDX-License-Identifier: BSD-3-Clause */
/* Authenticated mode ([job] key_file; hct_hdr.h "Authenticated mode"):
 * the keyed tag of every HCT packet, computed at one place on TX
 * (hct_xmit, just before the packet goes to stack/net) and checked at one
 * place on RX (hct_input, before anything else reads the packet).
 *
 * The tag is libsodium's crypto_generichash (BLAKE2b, RFC 7693) keyed
 * with the job's 32-byte key, output HCT_TAG_LEN = 16 bytes, over the
 * HCT header and payload (job id, ranks and both nonces are in the
 * header). BLAKE2b is a PRF when keyed (RFC 7693 section 1: "BLAKE2 can
 * be used directly as a MAC"), so one key serves every packet of the job;
 * crypto_onetimeauth (Poly1305) would need a fresh key per message.
 * tests/bench/auth measures it against crypto_auth (HMAC-SHA-512-256). */
#include <sodium.h>

#include <rte_mbuf.h>

#include "hypercomm.h"
#include "hct.h"
#include "hct_internal.h"

int
hct_auth_init(void)
{
	return sodium_init() < 0 ? -HC_ERR_INTERNAL : 0;
}

void
hct_auth_tag(const struct hct *t, const uint8_t *pkt, uint32_t len,
	     uint8_t tag[HCT_TAG_LEN])
{
	crypto_generichash(tag, HCT_TAG_LEN, pkt, len, t->conf.auth_key,
			   sizeof(t->conf.auth_key));
}

int
hct_auth_ok(const struct hct *t, const uint8_t *pkt, uint32_t len)
{
	uint8_t want[HCT_TAG_LEN];

	if (len < HCT_HDR_LEN + HCT_TAG_LEN ||
	    !(pkt[offsetof(struct hct_wire_hdr, flags)] & HCT_F_AUTH))
		return 0;
	hct_auth_tag(t, pkt, len - HCT_TAG_LEN, want);
	return sodium_memcmp(want, pkt + len - HCT_TAG_LEN, HCT_TAG_LEN) == 0;
}

void
hct_auth_wipe(struct hct *t)
{
	sodium_memzero(t->conf.auth_key, sizeof(t->conf.auth_key));
}

int
hct_xmit(struct hct *t, struct hct_flow *f, uint8_t tos, struct rte_mbuf *m,
	 uint64_t now)
{
	if (t->conf.auth) {
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(m);

		hct_auth_tag(t, p, len - HCT_TAG_LEN, p + len - HCT_TAG_LEN);
	}
	return hc_net_tmpl_send(t->net, &f->ntmpl, tos, m, now);
}
