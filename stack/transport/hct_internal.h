/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared between the transport's files; not part of its interface. */
#ifndef HC_TRANSPORT_HCT_INTERNAL_H
#define HC_TRANSPORT_HCT_INTERNAL_H

#include "hct.h"
#include "psn.h"

static inline int
hct_rx_bit(const struct hct *t, const struct hct_flow *f, uint32_t psn)
{
	uint32_t i = psn & t->mask;

	return (f->rcv_bits[i >> 6] >> (i & 63)) & 1;
}

static inline void
hct_rx_bit_set(const struct hct *t, struct hct_flow *f, uint32_t psn,
	       int on)
{
	uint32_t i = psn & t->mask;

	if (on)
		f->rcv_bits[i >> 6] |= 1ULL << (i & 63);
	else
		f->rcv_bits[i >> 6] &= ~(1ULL << (i & 63));
}

/** TOS byte of a packet of class cls: the class's DSCP, ECT(0) (so that
 *  switches mark CE instead of dropping, RFC 3168). */
static inline uint8_t
hct_tos(unsigned int cls)
{
	return HC_IPV4_TOS(hct_class_dscp(cls), HC_IPV4_ECT0);
}

/** f's HCT header template, rebuilt when the peer's nonce changed. */
static inline const uint8_t *
hct_flow_tmpl(const struct hct *t, struct hct_flow *f)
{
	if (unlikely(!f->tmpl_ok || f->tmpl_nonce != f->peer_nonce)) {
		hct_tmpl_build(f->htmpl, t->conf.job_id, t->conf.nonce,
			       f->peer_nonce, (uint16_t)t->conf.rank,
			       (uint16_t)f->peer);
		f->tmpl_nonce = f->peer_nonce;
		f->tmpl_ok = 1;
	}
	return f->htmpl;
}

/* f's peer sent new DATA at now: f counts as an active sender for the
 * credit grant (flow.c). */
void hct_credit_rx(struct hct *t, struct hct_flow *f, uint64_t now);
void hct_fill_common(struct hct *t, struct hct_flow *f, struct hct_pkt *p,
		     uint8_t type, uint64_t now);
int hct_send_ctrl(struct hct *t, struct hct_flow *f, uint8_t type,
		  uint64_t now);
int hct_send_probe(struct hct *t, struct hct_flow *f, uint64_t now);
/* auth.c: the authenticated mode (hct_hdr.h). hct_xmit is the one place
 * every HCT packet goes through to stack/net (the flow's header
 * template): m holds the HCT packet only, its last HCT_TAG_LEN bytes room
 * for the tag, written here when t->conf.auth (one segment then: a
 * retransmission is a copy, not a clone, in this mode). hct_auth_ok: pkt's tag (its last HCT_TAG_LEN of len bytes)
 * is right and HCT_F_AUTH set. */
int hct_auth_init(void);
void hct_auth_tag(const struct hct *t, const uint8_t *pkt, uint32_t len,
		  uint8_t tag[HCT_TAG_LEN]);
int hct_auth_ok(const struct hct *t, const uint8_t *pkt, uint32_t len);
void hct_auth_wipe(struct hct *t);
int hct_xmit(struct hct *t, struct hct_flow *f, uint8_t tos,
	      struct rte_mbuf *m, uint64_t now);
/* Bytes of tag per packet: HCT_TAG_LEN in the authenticated mode, else 0. */
static inline uint32_t
hct_tag_len(const struct hct *t)
{
	return t->conf.auth ? HCT_TAG_LEN : 0;
}

int hct_membership(struct hct *t, struct hct_flow *f,
		   const struct hct_pkt *p);
uint32_t hct_hello_tick(struct hct *t, uint64_t now);
void hct_flow_lost(struct hct *t, struct hct_flow *f, const char *why);
void hct_on_ack(struct hct *t, struct hct_flow *f, const struct hct_pkt *p,
		uint64_t now);

int hct_retransmit(struct hct *t, struct hct_flow *f, uint32_t psn,
		   uint64_t now);

/* tx.c: cut the next DATA packet of the head message of f's class cls
 * queue. @return the HCT packet's bytes (header + payload), or
 * -HC_ERR_NOMEM. */
int hct_send_one(struct hct *t, struct hct_flow *f, unsigned int cls,
		 uint64_t now);

/* sched.c */
/* Put f on the round-robin list of class cls (if not there yet). */
void hct_sched_enqueue(struct hct *t, struct hct_flow *f, unsigned int cls);
/* Take f off the lists of the classes whose queues are empty. */
void hct_sched_prune(struct hct *t, struct hct_flow *f);
/* The loop of hct_tx(). @return DATA packets cut. */
uint32_t hct_sched_tx(struct hct *t, uint64_t now);
/* cc.c */
void hct_cc_flow_init(struct hct *t, struct hct_flow *f);
/* extra: packets allowed beyond the window, unpaced (critical class). */
int hct_cc_can_send(const struct hct *t, const struct hct_flow *f,
		    uint64_t now, uint32_t extra);
uint64_t hct_cc_next_send(const struct hct *t, const struct hct_flow *f);
void hct_cc_on_send(struct hct *t, struct hct_flow *f, uint64_t now);
void hct_cc_on_ack(struct hct *t, struct hct_flow *f,
		   const struct hct_pkt *p, uint32_t num_acked, uint64_t now);
void hct_cc_on_loss(struct hct *t, struct hct_flow *f, int rto,
		    uint64_t now);
uint64_t hct_cc_fabric_target_ns(const struct hct *t,
				 const struct hct_flow *f);
void hct_cc_rx_data(struct hct_flow *f, uint8_t tos);
void hct_cc_fill_echo(struct hct_flow *f, struct hct_pkt *p);

/* timer.c */
/* After any change to f's rto_deadline_ns, cc.rack_deadline_ns,
 * cc.tlp_deadline_ns or state: re-key f in the timer heap. */
void hct_timer_update(struct hct *t, struct hct_flow *f);
/* Take the flows whose earliest timer is at most now out of the heap
 * into t->due. @return their number. */
uint32_t hct_timer_take_due(struct hct *t, uint64_t now);

/* f owes its peer an ACK (rx_unacked or ack_now set): hct_flush_acks()
 * looks at it. */
static inline void
hct_ack_pending(struct hct *t, struct hct_flow *f)
{
	struct hct_flow *o;

	if (f->in_acklist)
		return;
	/* In rank order, as the scan of every flow sent them. */
	TAILQ_FOREACH_REVERSE(o, &t->acklist, hct_flow_list, acklink)
		if (o->peer < f->peer)
			break;
	if (o == NULL)
		TAILQ_INSERT_HEAD(&t->acklist, f, acklink);
	else
		TAILQ_INSERT_AFTER(&t->acklist, o, f, acklink);
	f->in_acklist = 1;
}

/* loss.c */
void hct_rack_delivered(struct hct *t, struct hct_flow *f, uint32_t psn,
			uint64_t ts_echo, uint64_t now);
uint32_t hct_rack_detect(struct hct *t, struct hct_flow *f, uint64_t now);
void hct_tlp_arm(struct hct *t, struct hct_flow *f, uint64_t now);
uint32_t hct_loss_tick(struct hct *t, struct hct_flow *f, uint64_t now);

#endif
