/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TX scheduler: which queued message the next DATA packet is cut from.
 *
 * Classes are served strictly in order (control, critical, normal, bulk),
 * except for a guaranteed minimum share of bulk: a deficit counter, the
 * idea of Deficit Round Robin (Shreedhar and Varghese, SIGCOMM 1995),
 * kept in bytes x 100 so that the share needs no division. While bulk
 * has a sendable packet, every packet of another class of len bytes adds
 * len * pct and every bulk packet takes len * (100 - pct) away; a
 * positive deficit makes the next pick bulk's. Over any run of picks in
 * which bulk stays sendable, bulk therefore gets at least pct % of the
 * bytes, to within one packet: with full-size packets and pct 5 the
 * order is 1 other, 1 bulk, then 19 others and 1 bulk, again and again.
 * The deficit is reset when bulk has nothing to send, and kept above
 * -(100 - pct) x one full packet, so that bulk sent alone builds no debt
 * that would starve it later. Within a class, flows take turns one packet
 * at a time (round-robin across peers).
 *
 * A flow may send while it has fewer packets in flight than
 * hct_flow_window(). DATA is cut only while the port's pending bytes
 * (hc_port_tx_pending_bytes()) are under tx_ring_max_bytes, so at most
 * tx_ring_max_bytes plus one frame wait ahead of the next critical packet
 * in the port and the backend. That holds where the backend reports what
 * it holds (tx_queued_bytes: the sim network); the DPDK ethdev backend
 * does not, and there only the port's own TX queue is bounded: what the
 * PMD accepted into its descriptor ring (up to [port] tx_desc frames) is
 * not seen. ACKs, control packets and retransmissions are not held back.
 */
#include <rte_common.h>

#include "hypercomm.h"
#include "cpustat.h"
#include "hct.h"
#include "hct_internal.h"

/* DATA packets cut per hct_tx() call at most, so that the engine gets
 * back to its RX ring. */
#define HCT_SCHED_BURST 256

void
hct_sched_enqueue(struct hct *t, struct hct_flow *f, unsigned int cls)
{
	if (f->in_txlist & (1u << cls))
		return;
	TAILQ_INSERT_TAIL(&t->txlist[cls], f, txlink[cls]);
	f->in_txlist |= 1u << cls;
}

static void
dequeue(struct hct *t, struct hct_flow *f, unsigned int cls)
{
	TAILQ_REMOVE(&t->txlist[cls], f, txlink[cls]);
	f->in_txlist &= ~(1u << cls);
}

void
hct_sched_prune(struct hct *t, struct hct_flow *f)
{
	unsigned int c;

	for (c = 0; c < HCT_CLASS__MAX; c++)
		if ((f->in_txlist & (1u << c)) && TAILQ_EMPTY(&f->msgs[c]))
			dequeue(t, f, c);
}

uint32_t
hct_flow_window(const struct hct *t, const struct hct_flow *f)
{
	uint32_t w = t->conf.window_pkts;

	if (f->peer_credit != 0 && f->peer_credit < w)
		w = f->peer_credit;
	return w;
}

/* Whether f may put one more packet of class cls in flight now: a free
 * slot, the peer's credit, then the congestion window and pacing (cc.c).
 * Critical packets may go critical_extra_pkts beyond credit and window,
 * unpaced: a critical message must not wait for the ACKs of the bulk
 * ahead of it in the same flow (only for a free slot). Counts the times
 * the peer's credit (not our window) starts stopping it. */
static int
can_send(struct hct_flow *f, const struct hct *t, uint64_t now,
	 unsigned int cls)
{
	uint32_t inflight = f->snd_nxt - f->snd_una;
	uint32_t extra = cls <= HCT_CLASS_CRITICAL ?
			 t->conf.critical_extra_pkts : 0;

	if (inflight >= t->conf.window_pkts)
		return 0;
	if (inflight >= hct_flow_window(t, f) + extra) {
		if (!f->credit_blocked) {
			f->credit_blocked = 1;
			f->stats.credit_limited++;
		}
		return 0;
	}
	f->credit_blocked = 0;
	return hct_cc_can_send(t, f, now, extra);
}

/* The first flow of class cls in round-robin order that may send. */
static struct hct_flow *
eligible(struct hct *t, unsigned int cls, uint64_t now)
{
	struct hct_flow *f;

	TAILQ_FOREACH(f, &t->txlist[cls], txlink[cls])
		if (can_send(f, t, now, cls))
			return f;
	return NULL;
}

/* 1 when the port holds tx_ring_max_bytes or more. The port's own queue
 * is handed to the backend first: only what the backend still holds or
 * refuses counts then. */
static int
ring_full(struct hct *t)
{
	struct hc_port *port = t->net->port;
	uint64_t max = t->conf.tx_ring_max_bytes, b;

	if (max == 0)
		return 0;
	b = hc_port_tx_pending_bytes(port);
	if (b >= max && port->txq_len > 0) {
		uint64_t c0 = hc_cpustat_begin(); /* the PMD's TX burst */

		hc_port_flush(port);
		hc_cpustat_port_end(c0);
		b = hc_port_tx_pending_bytes(port);
	}
	return b >= max;
}

/* The deficit after a packet of len bytes of class cls, bulk sendable. */
static int64_t
deficit_update(const struct hct *t, int64_t d, unsigned int cls, int len)
{
	int64_t pct = t->conf.bulk_min_share_pct;
	int64_t floor = -(100 - pct) * (int64_t)(t->mss + HCT_HDR_LEN);

	if (cls != HCT_CLASS_BULK)
		return d + len * pct;
	d -= len * (100 - pct);
	return RTE_MAX(d, floor);
}

uint32_t
hct_sched_tx(struct hct *t, uint64_t now)
{
	struct hct_sched *s = &t->sched;
	uint32_t sent = 0;

	while (sent < HCT_SCHED_BURST) {
		struct hct_flow *f = NULL, *bulk;
		unsigned int c, cls = HCT_CLASS__MAX;
		int len, forced = 0;

		for (c = 0; c < HCT_CLASS_BULK && f == NULL; c++)
			if ((f = eligible(t, c, now)) != NULL)
				cls = c;
		bulk = eligible(t, HCT_CLASS_BULK, now);
		if (bulk == NULL) {
			s->bulk_deficit = 0;
		} else if (f == NULL || s->bulk_deficit > 0) {
			forced = f != NULL;
			f = bulk;
			cls = HCT_CLASS_BULK;
		}
		if (f == NULL)
			break;
		if (ring_full(t)) {
			s->ring_full++;
			break;
		}
		len = hct_send_one(t, f, cls, now);
		if (len < 0)
			break;
		sent++;
		s->picks[cls]++;
		s->bulk_forced += forced;
		if (bulk != NULL)
			s->bulk_deficit = deficit_update(t, s->bulk_deficit,
							 cls, len);
		s->ring_max_seen = RTE_MAX(s->ring_max_seen,
				hc_port_tx_pending_bytes(t->net->port));
		/* Round-robin: f goes behind the other flows of its class
		 * (unless the msg_sent upcall cancelled its messages). */
		if (f->in_txlist & (1u << cls))
			dequeue(t, f, cls);
		if (!TAILQ_EMPTY(&f->msgs[cls]))
			hct_sched_enqueue(t, f, cls);
	}
	return sent;
}
