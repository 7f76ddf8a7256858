/* SPDX-License-Identifier: BSD-3-Clause */
/* What every port backend shares: the TX queue and the fault injector. */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "hypercomm.h"
#include "log.h"
#include "port.h"

static uint16_t txq_flush(struct hc_port *port);

static uint64_t
port_now(const struct hc_port *port)
{
	return port->clk != NULL ? hc_clock_now(port->clk) : 0;
}

/* Queue one frame that passed the injector. */
static int
txq_put(struct hc_port *port, struct rte_mbuf *m)
{
	if (port->txq_len >= port->burst)
		txq_flush(port);
	if (port->txq_len == HC_PORT_TXQ) {
		/* The PMD accepted nothing for a whole queue: drop and let
		 * the transport retransmit, rather than block the engine. */
		port->stats.tx_drops++;
		rte_pktmbuf_free(m);
		return -HC_ERR_NOMEM;
	}
	port->txq[port->txq_len++] = m;
	port->txq_bytes += m->pkt_len;
	__atomic_store_n(&port->txq_segs, port->txq_segs + hc_frame_mbufs(m),
			 __ATOMIC_RELAXED);
	return 0;
}

/* Frames the injector removed from a direction: its drops. */
static uint64_t
fault_removed(const struct hc_fault *f)
{
	uint64_t n = 0;
	unsigned int d, c;

	for (d = 0; d < HC_FAULT_DIR__MAX; d++)
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++)
			n += f->stats.count[d][c][HC_FAULT_DROP] +
			     f->stats.count[d][c][HC_FAULT_DROP_LAST];
	return n;
}

int
hc_port_tx(struct hc_port *port, struct rte_mbuf *m)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	unsigned int n, i;
	int rc = 0;

	if (!port->fault.active[HC_FAULT_TX] &&
	    port->fault.nheld[HC_FAULT_TX] == 0)
		return txq_put(port, m);
	n = hc_fault_apply(&port->fault, HC_FAULT_TX, m, port_now(port), out);
	port->stats.fault_drops = fault_removed(&port->fault);
	for (i = 0; i < n; i++)
		if (txq_put(port, out[i]) != 0 && out[i] == m)
			rc = -HC_ERR_NOMEM;
	return rc;
}

uint16_t
hc_port_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *in[HC_PORT_TXQ], *out[HC_FAULT_OUT_MAX];
	uint16_t got, i, give;
	unsigned int k, j;
	uint64_t now;

	if (!port->fault.active[HC_FAULT_RX] &&
	    port->fault.nheld[HC_FAULT_RX] == 0 && port->rxq_len == 0) {
		got = port->ops->rx_burst(port, pkts, n);
		port->stats.rx_pkts += got;
		return got;
	}
	now = port_now(port);
	got = port->ops->rx_burst(port, in, n);
	port->stats.rx_pkts += got;
	for (i = 0; i <= got; i++) {
		k = i < got ? hc_fault_apply(&port->fault, HC_FAULT_RX, in[i],
					     now, out)
			    : hc_fault_release(&port->fault, HC_FAULT_RX, now,
					       out);
		for (j = 0; j < k; j++) {
			if (port->rxq_len == HC_PORT_TXQ) {
				port->stats.rx_drops++;
				rte_pktmbuf_free(out[j]);
				continue;
			}
			port->rxq[port->rxq_len++] = out[j];
		}
	}
	port->stats.fault_drops = fault_removed(&port->fault);
	give = port->rxq_len < n ? port->rxq_len : n;
	memcpy(pkts, port->rxq, give * sizeof(pkts[0]));
	memmove(port->rxq, &port->rxq[give],
		(port->rxq_len - give) * sizeof(port->rxq[0]));
	port->rxq_len -= give;
	return give;
}

uint16_t
hc_port_flush(struct hc_port *port)
{
	struct rte_mbuf *out[HC_FAULT_OUT_MAX];
	unsigned int n, i;

	if (port->fault.nheld[HC_FAULT_TX] > 0) {
		n = hc_fault_release(&port->fault, HC_FAULT_TX, port_now(port),
				     out);
		for (i = 0; i < n; i++)
			txq_put(port, out[i]);
	}
	return txq_flush(port);
}

/* Hand the TX queue to the backend. */
static uint16_t
txq_flush(struct hc_port *port)
{
	uint16_t done = 0, i;

	while (done < port->txq_len) {
		uint16_t n = port->txq_len - done;
		uint16_t sent;

		if (n > port->burst)
			n = port->burst;
		sent = port->ops->tx_burst(port, &port->txq[done], n);
		done += sent;
		port->stats.tx_pkts += sent;
		if (sent < n) {
			/* ring full: keep the rest, in order */
			port->stats.tx_partial++;
			break;
		}
	}
	if (done > 0) {
		/* Frames tx_burst accepted may be freed already: sum the
		 * bytes of those left. */
		uint32_t segs = 0;

		port->txq_bytes = 0;
		for (i = done; i < port->txq_len; i++) {
			port->txq_bytes += port->txq[i]->pkt_len;
			segs += hc_frame_mbufs(port->txq[i]);
		}
		__atomic_store_n(&port->txq_segs, segs, __ATOMIC_RELAXED);
		memmove(port->txq, &port->txq[done],
			(port->txq_len - done) * sizeof(port->txq[0]));
		port->txq_len -= done;
	}
	return port->txq_len;
}

void
hc_port_close(struct hc_port *port)
{
	uint16_t i;

	if (port->ops == NULL)
		return;
	for (i = 0; i < port->txq_len; i++)
		rte_pktmbuf_free(port->txq[i]);
	port->txq_len = 0;
	port->txq_segs = 0;
	for (i = 0; i < port->rxq_len; i++)
		rte_pktmbuf_free(port->rxq[i]);
	port->rxq_len = 0;
	hc_fault_free_held(&port->fault);
	port->txq_bytes = 0;
	port->ops->close(port);
	if (!port->pool_shared)
		rte_mempool_free(port->pool);
	port->pool = NULL;
	port->pool_shared = false;
	port->ops = NULL;
}

int
hc_port_init(struct hc_port *port, const char *devargs,
	     const struct hc_port_conf *conf)
{
	size_t n;

	memset(port, 0, sizeof(*port));
	if (devargs == NULL || conf == NULL || conf->burst == 0 ||
	    conf->burst > HC_PORT_TXQ || conf->pool_name == NULL)
		return -HC_ERR_INVAL;
	n = strcspn(devargs, ",");
	if (n == 0 || n >= sizeof(port->name)) {
		HC_LOG(ERR, DRIVER, "port '%s': no device name", devargs);
		return -HC_ERR_PORT;
	}
	memcpy(port->name, devargs, n);
	port->name[n] = '\0';
	port->mtu = conf->mtu;
	port->burst = conf->burst;
	hc_fault_init(&port->fault, 1);
	return 0;
}

int
hc_port_pool_create(struct hc_port *port, const struct hc_port_conf *conf,
		    uint32_t extra_room, bool share)
{
	/* One frame per mbuf: MTU plus Ethernet header and a VLAN tag. */
	uint32_t room = conf->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN +
			extra_room;
	uint32_t n = hc_port_pool_mbufs(conf, extra_room), i;
	struct hc_port_pools *set = share ? conf->pools : NULL;

	if (room < RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_MBUF_DEFAULT_DATAROOM;
	for (i = 0; set != NULL && i < set->n; i++) {
		struct rte_mempool *mp = set->pool[i];

		if (mp->size == n &&
		    rte_pktmbuf_data_room_size(mp) == room + RTE_PKTMBUF_HEADROOM) {
			port->pool = mp;
			port->pool_shared = true;
			return 0;
		}
	}
	port->pool = rte_pktmbuf_pool_create(conf->pool_name, n,
					     256, 0, room + RTE_PKTMBUF_HEADROOM,
					     rte_socket_id());
	if (port->pool == NULL && rte_errno == EEXIST) {
		/* C32: names are per DPDK instance (file prefix); the stack's
		 * are hc_r<rank>_<pid>[_<port>] (engine.c) */
		HC_LOG(ERR, DRIVER, "%s: mbuf pool name %s is taken in this "
		       "DPDK instance (by another port's pool)", port->name,
		       conf->pool_name);
		return -HC_ERR_ADDR_IN_USE;
	}
	if (port->pool == NULL) {
		HC_LOG(ERR, DRIVER, "%s: mbuf pool %s of %u mbufs: %s",
		       port->name, conf->pool_name, n,
		       rte_strerror(rte_errno));
		return -HC_ERR_NOMEM;
	}
	if (set != NULL && set->n < HC_PORT_POOLS_MAX) {
		set->pool[set->n++] = port->pool;
		port->pool_shared = true;
	}
	return 0;
}

void
hc_port_pools_free(struct hc_port_pools *pools)
{
	uint32_t i;

	if (pools == NULL)
		return;
	for (i = 0; i < pools->n; i++)
		rte_mempool_free(pools->pool[i]);
	pools->n = 0;
}
