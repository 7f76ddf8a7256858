/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-memory wire and fake port of the HCT protocol tests (wire.h).
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "fault.h"
#include "wire.h"

/* Ports opened so far: makes pool names unique within the process, as
 * rte_mempool requires. */
static unsigned int tw_pool_seq;

static uint16_t
tw_rx_burst(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct tw_port *tp = container_of(port, struct tw_port, port);
	struct tw_fifo *q = &tp->rxq;
	uint16_t got = 0;

	while (got < n && q->len > 0 && q->f[q->head].due_ns <= *tp->now) {
		pkts[got++] = q->f[q->head].m;
		q->head = (q->head + 1) % TW_FIFO_CAP;
		q->len--;
	}
	return got;
}

static uint16_t
tw_tx_burst(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct tw_port *tp = container_of(port, struct tw_port, port);
	uint16_t i;

	for (i = 0; i < n; i++)
		tp->xmit(tp, pkts[i]);
	return n;
}

static uint64_t
tw_tx_queued_bytes(const struct hc_port *port)
{
	const struct tw_port *tp = container_of(port, const struct tw_port,
						port);

	return tp->queued(tp);
}

static void
tw_close(struct hc_port *port)
{
	RTE_SET_USED(port);
}

static int
tw_link_status(const struct hc_port *port)
{
	const struct tw_port *tp = container_of(port, struct tw_port, port);

	return tp->link_down ? 0 : 1;
}

static const struct hc_port_ops tw_ops = {
	.rx_burst = tw_rx_burst,
	.tx_burst = tw_tx_burst,
	.close = tw_close,
	.link_status = tw_link_status,
};

/* The same with tx_queued_bytes, for a port with a TX ring. */
static const struct hc_port_ops tw_ring_ops = {
	.rx_burst = tw_rx_burst,
	.tx_burst = tw_tx_burst,
	.close = tw_close,
	.tx_queued_bytes = tw_tx_queued_bytes,
	.link_status = tw_link_status,
};

int
tw_port_open(struct tw_port *tp, const char *name, unsigned int n_mbufs,
	     const struct rte_ether_addr *mac, uint16_t mtu,
	     const uint64_t *now, tw_xmit_fn xmit, tw_queued_fn queued,
	     void *ctx)
{
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	struct hc_port *p = &tp->port;

	snprintf(pool_name, sizeof(pool_name), "tw_%s_%u", name,
		 tw_pool_seq++);
	p->pool = rte_pktmbuf_pool_create(pool_name, n_mbufs, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE,
					  SOCKET_ID_ANY);
	if (p->pool == NULL)
		return -1;
	p->ops = queued != NULL ? &tw_ring_ops : &tw_ops;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->mac = *mac;
	p->mtu = mtu;
	p->burst = 32;
	p->tx_ip_cksum = false;
	p->tx_udp_cksum = false;
	p->rx_cksum = false;
	p->tx_multi_seg = true; /* tw_deliver() copies into one mbuf */
	hc_fault_init(&p->fault, 1);
	tp->now = now;
	tp->xmit = xmit;
	tp->queued = queued;
	tp->ctx = ctx;
	tp->up = 1;
	tp->link_down = 0;
	return 0;
}

void
tw_port_drain(struct tw_port *tp)
{
	uint16_t i;

	tw_fifo_clear(&tp->rxq);
	for (i = 0; i < tp->port.txq_len; i++)
		rte_pktmbuf_free(tp->port.txq[i]);
	tp->port.txq_len = 0;
}

void
tw_port_close(struct tw_port *tp)
{
	unsigned int in_use;

	if (!tp->up)
		return;
	in_use = rte_mempool_in_use_count(tp->port.pool);
	if (in_use != 0)
		printf("\n    %s: %u mbufs leaked\n", tp->port.name, in_use);
	CU_ASSERT_EQUAL(in_use, 0);
	hc_port_close(&tp->port);
	tp->up = 0;
}

int
tw_fifo_push(struct tw_fifo *q, struct rte_mbuf *m, uint64_t due)
{
	uint32_t i;

	if (q->len == TW_FIFO_CAP)
		return -1;
	for (i = q->len; i > 0; i--) {
		struct tw_frame *prev = &q->f[(q->head + i - 1) % TW_FIFO_CAP];

		if (prev->due_ns <= due)
			break;
		q->f[(q->head + i) % TW_FIFO_CAP] = *prev;
	}
	q->f[(q->head + i) % TW_FIFO_CAP].m = m;
	q->f[(q->head + i) % TW_FIFO_CAP].due_ns = due;
	q->len++;
	return 0;
}

void
tw_fifo_clear(struct tw_fifo *q)
{
	while (q->len > 0) {
		rte_pktmbuf_free(q->f[q->head].m);
		q->head = (q->head + 1) % TW_FIFO_CAP;
		q->len--;
	}
}

int
tw_deliver(struct tw_port *to, struct rte_mbuf *m, uint64_t due, int consume)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, to->port.pool, 0,
					      UINT32_MAX);

	if (consume)
		rte_pktmbuf_free(m);
	if (c == NULL)
		return -1;
	c->ol_flags = 0;
	if (tw_fifo_push(&to->rxq, c, due) != 0) {
		rte_pktmbuf_free(c);
		return -1;
	}
	return 0;
}

const uint8_t *
tw_frame_hct_hdr(const struct rte_mbuf *m, uint32_t *hct_len)
{
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	uint32_t hl;

	if (m->data_len < sizeof(*eth) + sizeof(*ip) + sizeof(*udp) + 2)
		return NULL;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return NULL;
	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	if (ip->next_proto_id != IPPROTO_UDP)
		return NULL;
	hl = (ip->version_ihl & 0x0f) * 4u;
	if (m->data_len < sizeof(*eth) + hl + sizeof(*udp) + 2)
		return NULL;
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + hl);
	if (udp->dst_port != rte_cpu_to_be_16(TW_UDP_PORT))
		return NULL;
	/* A chain (a retransmission by clone) has the whole HCT header in
	 * its first segment. */
	if (m->nb_segs > 1 &&
	    m->data_len < sizeof(*eth) + hl + sizeof(*udp) + HCT_HDR_LEN)
		return NULL;
	if (hct_len != NULL)
		*hct_len = m->pkt_len - (sizeof(*eth) + hl + sizeof(*udp));
	return (const uint8_t *)(udp + 1);
}

int
tw_frame_hct_decode(const struct rte_mbuf *m, struct hct_pkt *p)
{
	uint32_t len;
	const uint8_t *h = tw_frame_hct_hdr(m, &len);

	if (h == NULL)
		return -1;
	return hct_hdr_decode(h, len, p);
}
