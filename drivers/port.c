/* SPDX-License-Identifier: BSD-3-Clause */
/* What every port backend shares: the TX queue and the fault injector. */
#include <string.h>

#include "hypercomm.h"
#include "port.h"

int
hc_port_tx(struct hc_port *port, struct rte_mbuf *m)
{
	if (hc_fault_should_drop(&port->fault, m)) {
		port->stats.fault_drops++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (port->txq_len >= port->burst)
		hc_port_flush(port);
	if (port->txq_len == HC_PORT_TXQ) {
		/* The PMD accepted nothing for a whole queue: drop and let
		 * the transport retransmit, rather than block the engine. */
		port->stats.tx_drops++;
		rte_pktmbuf_free(m);
		return -HC_ERR_NOMEM;
	}
	port->txq[port->txq_len++] = m;
	port->txq_bytes += m->pkt_len;
	return 0;
}

uint16_t
hc_port_flush(struct hc_port *port)
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
		if (sent < n)
			break; /* ring full: keep the rest, in order */
	}
	if (done > 0) {
		/* Frames tx_burst accepted may be freed already: sum the
		 * bytes of those left. */
		port->txq_bytes = 0;
		for (i = done; i < port->txq_len; i++)
			port->txq_bytes += port->txq[i]->pkt_len;
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
	port->txq_bytes = 0;
	port->ops->close(port);
	rte_mempool_free(port->pool);
	port->pool = NULL;
	port->ops = NULL;
}
