/* SPDX-License-Identifier: BSD-3-Clause */
/* Send path: cutting messages into DATA packets, retransmission, timers,
 * ACKs. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_memory.h>

#include "hypercomm.h"
#include "hct.h"
#include "cpustat.h"
#include "hct_internal.h"
#include "log.h"

/* Packets retransmitted per RTO at most (after the episode's first). */
#define HCT_RTO_BUDGET 64

int
hct_send(struct hct *t, uint32_t peer, struct hct_msg *msg)
{
	struct hct_flow *f = hct_flow(t, peer);

	if (f == NULL || msg == NULL || msg->len == 0 ||
	    msg->cls >= HCT_CLASS__MAX)
		return -HC_ERR_INVAL;
	if (f->state == HCT_FLOW_LOST)
		return -HC_ERR_PEER_LOST;
	msg->done = 0;
	if (msg->zc != NULL) /* the queued message's reference */
		rte_mbuf_ext_refcnt_update(msg->zc, 1);
	TAILQ_INSERT_TAIL(&f->msgs[msg->cls], msg, link);
	hct_sched_enqueue(t, f, msg->cls);
	return 0;
}

void
hct_zc_put(struct rte_mbuf_ext_shared_info *zc)
{
	if (rte_mbuf_ext_refcnt_update(zc, -1) == 0)
		zc->free_cb(NULL, zc->fcb_opaque);
}

/* Whether f's DATA may go zero copy (hct_zc_ok()). */
static inline int
zc_flow_ok(const struct hct *t, const struct hct_flow *f)
{
	return t->conf.zero_copy_tx == HCT_ZC_TX_AUTO && t->net->tx_chains &&
	       !t->conf.auth && f->cov_tx_ok && f->peer_cov_accept &&
	       f->zc_port_ok;
}

int
hct_zc_ok(const struct hct *t, uint32_t peer)
{
	return peer < t->conf.world_size && peer != t->conf.rank &&
	       t->flows[peer].state != HCT_FLOW_LOST &&
	       zc_flow_ok(t, &t->flows[peer]);
}

/* Put the transmission time into a saved packet's copy (offset 48). */
static void
stamp(uint8_t *hdr, uint64_t now)
{
	rte_be64_t ts = rte_cpu_to_be_64(now);

	memcpy(hdr + offsetof(struct hct_wire_hdr, ts_ns), &ts, sizeof(ts));
}

/* The retransmission of slot s as a copy of its whole HCT packet (a
 * port that takes no chained mbufs). */
static struct rte_mbuf *
retx_copy(struct hct *t, struct hct_slot *s, uint64_t now)
{
	uint32_t plen = s->len, off = s->m->pkt_len - plen;
	struct rte_mbuf *c = rte_pktmbuf_copy(s->m, t->net->port->pool, off,
					      plen);
	uint8_t *h;

	if (c == NULL)
		return NULL;
	h = rte_pktmbuf_mtod(c, uint8_t *);
	stamp(h, now);
	h[offsetof(struct hct_wire_hdr, flags)] |= HCT_F_RETX;
	hct_crc_seal(h, plen - hct_tag_len(t)); /* hct_xmit writes the tag */
	return c;
}

/* The retransmission of slot s as a fresh header mbuf (the HCT header
 * copied, stamped and sealed; stack/net prepends its headers in front of
 * it) chained to an indirect mbuf (rte_pktmbuf_clone) that points at the
 * payload of the saved packet: no payload byte is copied or written, the
 * CRC32C reads it once. The saved mbuf's refcnt counts the clone, so it
 * is freed once, by whoever lets go of it last (the ACK or the PMD). */
static struct rte_mbuf *
retx_clone(struct hct *t, struct hct_slot *s, uint64_t now)
{
	struct rte_mempool *pool = t->net->port->pool;
	uint32_t off = s->m->pkt_len - s->len, len = s->len - HCT_HDR_LEN;
	const uint8_t *orig = rte_pktmbuf_mtod_offset(s->m, const uint8_t *,
						      off);
	/* A zero-copy packet (hct_send_one) is saved as its header mbuf
	 * chained to an mbuf attached to the sender's memory: the clone is
	 * one more mbuf attached there (a reference on its shared info). */
	struct rte_mbuf *ext = s->m->next;
	const uint8_t *payload = ext != NULL ?
				 rte_pktmbuf_mtod(ext, const uint8_t *) :
				 orig + HCT_HDR_LEN;
	struct rte_mbuf *hm = rte_pktmbuf_alloc(pool), *pm = NULL;
	uint8_t *h;

	if (hm == NULL)
		return NULL;
	if (ext != NULL) {
		pm = rte_pktmbuf_alloc(pool);
		if (pm == NULL)
			goto fail;
		rte_pktmbuf_attach(pm, ext);
	} else if (len > 0) {
		pm = rte_pktmbuf_clone(s->m, pool);
		if (pm == NULL ||
		    rte_pktmbuf_adj(pm, (uint16_t)(off + HCT_HDR_LEN)) == NULL)
			goto fail;
	}
	h = (uint8_t *)rte_pktmbuf_append(hm, HCT_HDR_LEN);
	if (h == NULL)
		goto fail;
	memcpy(h, orig, HCT_HDR_LEN);
	stamp(h, now);
	h[offsetof(struct hct_wire_hdr, flags)] |= HCT_F_RETX;
	hct_crc_seal_split(h, payload, len);
	if (pm != NULL && rte_pktmbuf_chain(hm, pm) != 0)
		goto fail;
	return hm;
fail:
	rte_pktmbuf_free(pm);
	rte_pktmbuf_free(hm);
	return NULL;
}

int
hct_retransmit(struct hct *t, struct hct_flow *f, uint32_t psn, uint64_t now)
{
	struct hct_slot *s = &f->slots[psn & t->mask];
	struct rte_mbuf *c;
	uint8_t prio;

	if (s->m == NULL)
		return -HC_ERR_INVAL;
	/* The saved mbuf carries the Ethernet/IP/UDP headers of its first
	 * transmission: only the HCT packet is sent again, stack/net adds
	 * fresh ones. By clone where every port takes chains, except in the
	 * authenticated mode: the tag trails the payload, in the segment the
	 * clone shares with the saved packet, and must be written anew. */
	c = t->net->tx_chains && !t->conf.auth ? retx_clone(t, s, now)
					       : retx_copy(t, s, now);
	if (c == NULL)
		return -HC_ERR_NOMEM;
	prio = rte_pktmbuf_mtod(c, uint8_t *)[offsetof(struct hct_wire_hdr,
							  prio)];
	s->sent_ns = now;
	s->xmits++;
	f->stats.retx_by_clone += t->net->tx_chains && !t->conf.auth;
	/* The newest transmission now: to the tail of the time order. */
	TAILQ_REMOVE(&f->tsent, s, tlink);
	TAILQ_INSERT_TAIL(&f->tsent, s, tlink);
	return hct_xmit(t, f, hct_tos(prio), c, now);
}

/* The next DATA mbuf: from t's bulk, refilled HCT_TX_BULK at a time,
 * one by one when the pool cannot give a whole bulk. */
static struct rte_mbuf *
tx_mbuf(struct hct *t)
{
	struct rte_mempool *pool = t->net->port->pool;

	if (likely(t->txm_i < t->txm_n))
		return t->txm[t->txm_i++];
	t->txm_i = t->txm_n = 0;
	if (rte_pktmbuf_alloc_bulk(pool, t->txm, HCT_TX_BULK) != 0)
		return rte_pktmbuf_alloc(pool);
	t->txm_n = HCT_TX_BULK;
	return t->txm[t->txm_i++];
}

/* IOVA of user memory attached to an mbuf (zero copy): net_memif, the
 * only port zero copy runs on, copies by virtual address and reads no
 * IOVA; in IOVA-as-VA mode the address is the IOVA, else none is known
 * without a page-table walk per packet (rte_mem_virt2iova). */
static inline rte_iova_t
zc_iova(const void *p)
{
	return rte_eal_iova_mode() == RTE_IOVA_VA ? (rte_iova_t)(uintptr_t)p
						  : RTE_BAD_IOVA;
}

/* Whether nothing of ours waits for the ACK of msg's last packet, being
 * cut (HCT_F2_TX_IDLE): f has no other DATA queued, and msg is not zero
 * copy (whose op ends only at that ACK, struct hct_msg zc: holding it
 * made 1 KiB..64 KiB all-reduces over memif 6-7 us slower). */
static int
tx_idle_after(const struct hct_flow *f, const struct hct_msg *msg)
{
	unsigned int c;

	if (msg->zc != NULL || TAILQ_NEXT(msg, link) != NULL)
		return 0;
	for (c = 0; c < HCT_CLASS__MAX; c++)
		if (!TAILQ_EMPTY(&f->msgs[c]) && TAILQ_FIRST(&f->msgs[c]) != msg)
			return 0;
	return 1;
}

int
hct_send_one(struct hct *t, struct hct_flow *f, unsigned int cls,
	     uint64_t now)
{
	struct hct_msg *msg = TAILQ_FIRST(&f->msgs[cls]);
	uint32_t len = (uint32_t)RTE_MIN((uint64_t)t->mss, msg->len - msg->done);
	struct hct_slot *s = &f->slots[f->snd_nxt & t->mask];
	struct rte_mbuf *m = tx_mbuf(t), *pm = NULL;
	/* Zero copy (struct hct_msg zc): the payload stays in the caller's
	 * memory, an mbuf attached to it chained behind the header mbuf;
	 * the CRC covers the header only on such a flow (zc_flow_ok), so
	 * nothing reads the payload here. */
	int zc = msg->zc != NULL && len >= HCT_ZC_MIN_BYTES &&
		 zc_flow_ok(t, f);
	struct hct_pkt p;
	uint8_t *h;

	if (m == NULL)
		return -HC_ERR_NOMEM;
	if (zc && (pm = tx_mbuf(t)) == NULL) {
		rte_pktmbuf_free(m);
		return -HC_ERR_NOMEM;
	}
	h = (uint8_t *)rte_pktmbuf_append(m, HCT_HDR_LEN + (zc ? 0 : len) +
					  hct_tag_len(t));
	if (h == NULL) {
		rte_pktmbuf_free(pm);
		rte_pktmbuf_free(m);
		return -HC_ERR_NOMEM;
	}
	hct_fill_common(t, f, &p, HCT_TYPE_DATA, now);
	p.prio = (uint8_t)cls;
	p.psn = f->snd_nxt;
	p.comm_id = msg->desc.comm_id;
	p.coll_seq = msg->desc.coll_seq;
	p.sig = msg->desc.sig;
	p.step = msg->desc.step;
	p.offset = msg->desc.offset + msg->done;
	p.length = len;
	/* What the CRC covers (hct_hdr.h): the header only on a trusted
	 * shared-memory link both ends agreed on; retransmissions copy it. */
	p.cov = f->cov_tx_ok && f->peer_cov_accept ? HCT_COV_HDR
						   : HCT_COV_FULL;
	if (msg->done + len == msg->len) {
		p.flags |= HCT_F_LAST;
		if (t->conf.ack_delay_ns != 0 && tx_idle_after(f, msg))
			p.flags2 |= HCT_F2_TX_IDLE;
	}
	hct_tmpl_patch(h, hct_flow_tmpl(t, f), &p);
	if (zc) {
		const uint8_t *src = msg->src + msg->done;

		hct_crc_seal_split(h, src, len); /* cov HDR: header only */
		rte_pktmbuf_attach_extbuf(pm, (void *)(uintptr_t)src,
					  zc_iova(src), (uint16_t)len, msg->zc);
		rte_mbuf_ext_refcnt_update(msg->zc, 1);
		pm->data_len = (uint16_t)len;
		pm->pkt_len = len;
		rte_pktmbuf_chain(m, pm); /* 2 segments: cannot fail */
	} else {
		uint64_t c0 = hc_cpustat_begin(); /* payload: copy (+ CRC) */

		hct_crc_copy_seal(h, msg->src + msg->done, len);
		hc_cpustat_end(c0);
	}
	/* Remember the HCT packet's length: stack/net prepends its headers
	 * in this same mbuf, which we keep for retransmission (with the
	 * attached segment of a zero-copy packet: both are referenced). */
	s->len = HCT_HDR_LEN + len + hct_tag_len(t);
	s->m = m;
	s->sent_ns = now;
	s->xmits = 1;
	s->sacked = 0;
	s->psn = f->snd_nxt;
	TAILQ_INSERT_TAIL(&f->tsent, s, tlink);
	rte_mbuf_refcnt_update(m, 1);
	if (pm != NULL)
		rte_mbuf_refcnt_update(pm, 1);
	f->snd_nxt++;
	msg->done += len;
	f->stats.data_tx++;
	f->stats.data_tx_hdr_cov += p.cov == HCT_COV_HDR;
	f->stats.data_tx_zc += zc;
	f->stats.data_tx_cls[cls]++;
	f->stats.data_bytes_cls[cls] += s->len;
	f->stats.bytes_tx += len;
	if (f->rto_deadline_ns == 0)
		f->rto_deadline_ns = now + f->rto_ns;
	hct_cc_on_send(t, f, now);
	f->cc.tail_last = (p.flags & HCT_F_LAST) != 0;
	hct_tlp_arm(t, f, now);
	hct_timer_update(t, f);
	hct_xmit(t, f, hct_tos(cls), m, now);
	if (msg->done == msg->len) {
		TAILQ_REMOVE(&f->msgs[cls], msg, link);
		if (msg->zc != NULL)
			hct_zc_put(msg->zc); /* cut: the queue's reference */
		t->up.msg_sent(t->up_ctx, msg);
	}
	return (int)(HCT_HDR_LEN + len);
}

uint32_t
hct_tx(struct hct *t)
{
	return hct_sched_tx(t, hc_clock_now(t->clk));
}

/* RFC 6298 5.4-5.7: retransmit, back off, restart the timer; after
 * retry_max consecutive timeouts the peer is lost. The first timeout of
 * an episode (no ACK of new data since) sends the first unSACKed packet
 * only, the F-RTO idea (RFC 5682): on this host a timeout is mostly a
 * peer descheduled for longer than the RTO with the originals in its
 * ring (213 RTOs on one rank of a 64 MiB run), and copies of the window
 * only add to its backlog; that peer answers with an ACK of the
 * originals, judged spurious by hct_on_ack (Eifel). After a real loss
 * the ACK of the one packet lets SACK and RACK repair the rest. A second
 * timeout in the same episode sends every unSACKed packet still in
 * flight (up to HCT_RTO_BUDGET), as packets the peer refused for lack of
 * room (RNR) and a peer that lost the window and its ACKs need. */
static uint32_t
rto_fire(struct hct *t, struct hct_flow *f, uint64_t now)
{
	uint32_t psn, sent = 0, budget = f->rto_undo ? HCT_RTO_BUDGET : 1;

	f->stats.rtos++;
	f->cc.tlp_out = 0;
	f->cc.tlp_deadline_ns = 0;
	/* Eifel (RFC 3522/4015): keep what the cut takes, hct_on_ack gives
	 * it back if the first ACK shows the originals had arrived. */
	if (!f->rto_undo) { /* the episode's first timeout */
		f->rto_undo = 1;
		f->rto_undo_fcwnd = f->cc.fcwnd;
		f->rto_undo_ecwnd = f->cc.ecwnd;
		f->rto_fired_ns = now;
	}
	hct_cc_on_loss(t, f, 1, now);
	if (++f->rto_retries > t->conf.retry_max) {
		hct_flow_lost(t, f, "retry budget spent");
		f->rto_deadline_ns = 0;
		return 0;
	}
	for (psn = f->snd_una; psn != f->snd_nxt && sent < budget;
	     psn++) {
		struct hct_slot *s = &f->slots[psn & t->mask];

		if (s->sacked || s->m == NULL)
			continue;
		if (hct_retransmit(t, f, psn, now) == 0) {
			f->stats.retransmits_rto++;
			sent++;
		}
	}
	f->rto_ns = RTE_MIN(f->rto_ns * 2, t->conf.rto_max_ns);
	f->rto_deadline_ns = now + f->rto_ns;
	return sent;
}

/* A timer (deadline, 0: off) due more than rto_min / 2 ago. */
static inline int
timer_late(uint64_t deadline, uint64_t now, const struct hct *t)
{
	return deadline != 0 && now > deadline &&
	       now - deadline > t->conf.rto_min_ns / 2;
}

/* Only the flows whose earliest timer is due (timer.c), each once per
 * call as when every flow was looked at: an RTO, else RACK and TLP. */
static uint32_t
tick_at(struct hct *t, uint64_t now)
{
	uint32_t i, n, sent = hct_hello_tick(t, now);

	n = hct_timer_take_due(t, now);
	for (i = 0; i < n; i++) {
		struct hct_flow *f = t->due[i];

		if (f->state == HCT_FLOW_LOST)
			continue;
		if (!f->rto_deferred && f->rto_deadline_ns != 0 &&
		    (timer_late(f->rto_deadline_ns, now, t) ||
		     timer_late(f->cc.tlp_deadline_ns, now, t))) {
			/* Late by more than half the least RTO: this process
			 * was not running (descheduled), so the peer's ACKs
			 * may sit unread in the RX ring, or come as soon as
			 * the peer runs too; the poll read one burst before
			 * this tick. Give them one RTO, once per episode,
			 * instead of a probe or a timeout. */
			f->rto_deferred = 1;
			f->stats.rtos_deferred++;
			f->rto_deadline_ns = now + f->rto_ns;
			f->cc.tlp_deadline_ns = 0;
		} else if (f->rto_deadline_ns != 0 &&
			   now >= f->rto_deadline_ns)
			sent += rto_fire(t, f, now);
		else
			sent += hct_loss_tick(t, f, now);
		hct_timer_update(t, f);
	}
	return sent;
}

uint32_t
hct_tick(struct hct *t)
{
	return tick_at(t, hc_clock_now(t->clk));
}

/* Only the flows that asked for an ACK since the last call (t->acklist);
 * one that sent DATA since had its ACK ride on it (hct_fill_common()). */
static uint32_t
flush_acks_at(struct hct *t, uint64_t now)
{
	struct hct_flow *f, *next;
	uint32_t sent = 0;

	for (f = TAILQ_FIRST(&t->acklist); f != NULL; f = next) {
		next = TAILQ_NEXT(f, acklink);
		/* A held ACK (rx.c, HCT_F2_TX_IDLE) waits on the list until
		 * DATA of ours carries it (hct_fill_common() clears it) or
		 * its time is up. */
		if (f->ack_due_ns != 0 && !f->ack_now && now < f->ack_due_ns &&
		    f->rx_unacked < t->conf.ack_every &&
		    f->state != HCT_FLOW_LOST)
			continue;
		if ((f->rx_unacked != 0 || f->ack_now) &&
		    f->state != HCT_FLOW_LOST) {
			if (hct_send_ctrl(t, f, HCT_TYPE_ACK, now) != 0)
				continue; /* no mbuf: again next call */
			f->stats.acks_tx++;
			sent++;
		}
		TAILQ_REMOVE(&t->acklist, f, acklink);
		f->in_acklist = 0;
	}
	return sent;
}

uint32_t
hct_flush_acks(struct hct *t)
{
	if (TAILQ_EMPTY(&t->acklist))
		return 0;
	/* one read for every ACK of the call */
	return flush_acks_at(t, hc_clock_now(t->clk));
}

uint32_t
hct_poll_tx(struct hct *t, uint64_t now)
{
	uint32_t sent = 0;

	if (!TAILQ_EMPTY(&t->acklist))
		sent += flush_acks_at(t, now);
	sent += tick_at(t, now);
	return sent + hct_sched_tx(t, now);
}
