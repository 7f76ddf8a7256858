/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Point-to-point send and receive on a communicator, matched like NCCL's
 * ncclSend/ncclRecv: no tags; the k-th send from rank a to rank b on a
 * communicator matches the k-th receive b posts from a. Each direction of
 * each (communicator, peer) pair has its own sequence numbers, carried in
 * the coll_seq field of DATA packets whose step is HC_STEP_P2P (payload,
 * at its byte offset) or HC_STEP_P2P_HDR (4 bytes: the signature of
 * dtype and count). The header always goes, so that a receive learns of
 * a count-0 send and of any disagreement in size; the signature also
 * rides in every payload packet. A send completes when its header and
 * payload are cut into packets (the buffer is then free); a receive when
 * the header and every payload byte arrived.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "data.h"
#include "log.h"
#include "psn.h"

struct p2p {
	struct hct_msg msgs[2]; /**< send: header, payload */
	uint32_t sig_wire;      /**< header payload */
	uint32_t sends_left;    /**< send: messages not yet cut */
	uint64_t got;           /**< receive: payload bytes arrived */
	int hdr;                /**< receive: header arrived */
};

static uint64_t
bytes(const struct hc_coll_op *op)
{
	return op->count * op->elem_size;
}

int
hc_p2p_prepare(struct hc_comm *comm, struct hc_coll_op *op,
	       enum hc_coll_kind kind, void *buf, uint64_t count,
	       enum hc_dtype dtype, int peer)
{
	const char *name = kind == HC_COLL_SEND ? "send" : "receive";
	size_t es = hc_dtype_size(dtype);
	uint32_t *seq;

	memset(op, 0, sizeof(*op));
	if (comm == NULL || es == 0 || peer < 0 ||
	    (uint32_t)peer >= comm->size) {
		HC_LOG(ERR, COLL, "%s: %s", name, comm == NULL ?
		       "no communicator" : es == 0 ? "unknown dtype" :
		       "peer is not a rank of the communicator");
		return -HC_ERR_INVAL;
	}
	if (count > UINT64_MAX / 8 || (count > 0 && buf == NULL)) {
		HC_LOG(ERR, COLL, "%s: %s", name, buf == NULL ?
		       "NULL buffer" : "count too large");
		return -HC_ERR_INVAL;
	}
	if ((uint32_t)peer == comm->rank) {
		HC_LOG(ERR, COLL, "%s: to or from this rank itself: not "
		       "supported", name);
		return -HC_ERR_UNSUPPORTED;
	}
	seq = kind == HC_COLL_SEND ? &comm->p2p_tx_seq[peer]
				   : &comm->p2p_rx_seq[peer];
	op->comm = comm;
	op->kind = kind;
	op->seq = __atomic_fetch_add(seq, 1, __ATOMIC_RELAXED);
	/* the same on both sides: the kind is SEND's for both */
	op->sig = hc_coll_signature(HC_COLL_SEND, dtype, HC_OP_SUM, count, 0,
				    HC_ALGO_RING);
	op->dtype = dtype;
	op->op = HC_OP_SUM;
	op->root = (uint32_t)peer;
	op->count = count;
	op->total = count;
	op->elem_size = (uint32_t)es;
	op->acc = dtype;
	op->acc_size = (uint32_t)es;
	if (kind == HC_COLL_SEND)
		op->send = buf;
	else
		op->recv = buf;
	op->algo = &hc_algo_p2p;
	return 0;
}

static int
queue(struct hc_coll_op *op, struct hct_msg *msg, const uint8_t *src,
      uint64_t len, uint16_t step)
{
	struct p2p *g = op->algo_state;

	hc_data_fill(msg, op, step, src, len, 0);
	/* hc_data_fill gave it the op's class: the request's priority
	 * (hc_op_opts), as the ring's messages have. */
	g->sends_left++;
	return hct_send(op->comm->coll->hct, op->comm->world[op->root], msg);
}

/* Deliver held packets of receive op, in arrival order. */
static void
drain(struct hc_coll_op *op)
{
	struct hc_coll *c = op->comm->coll;
	uint32_t i, kept = 0, from = op->comm->world[op->root];

	for (i = 0; i < c->unexp_len; i++) {
		struct hc_unexpected *u = &c->unexp[i];

		if (!hc_coll_step_p2p(u->d.step) ||
		    u->d.comm_id != op->comm->id || u->src != from ||
		    u->d.coll_seq != op->seq || op->status != 0 || op->done) {
			c->unexp[kept++] = *u;
			continue;
		}
		hc_p2p_data(c, op->comm, u->src, &u->d, u->payload, NULL);
		rte_pktmbuf_free(u->m);
	}
	c->unexp_len = kept;
}

void
hc_p2p_start(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	struct p2p *g;
	int rc = 0;

	if (comm->error != 0) {
		op->status = -HC_ERR_ABORTED;
		return;
	}
	if (!hc_coll_op_valid(op)) {
		HC_LOG(ERR, COLL, "%s %u: invalid on the engine (dtype %d, "
		       "peer %u)", op->kind == HC_COLL_SEND ? "send" :
		       "receive", op->seq, op->dtype, op->root);
		op->status = -HC_ERR_INTERNAL;
		return;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		op->status = -HC_ERR_NOMEM;
		return;
	}
	op->algo_state = g;
	TAILQ_INSERT_TAIL(&comm->p2p, op, link);
	op->started = 1;
	if (op->kind == HC_COLL_SEND) {
		g->sig_wire = op->sig;
		rc = queue(op, &g->msgs[0], (const uint8_t *)&g->sig_wire,
			   sizeof(g->sig_wire), HC_STEP_P2P_HDR);
		if (rc == 0 && bytes(op) > 0)
			rc = queue(op, &g->msgs[1], op->send, bytes(op),
				   HC_STEP_P2P);
		if (rc != 0)
			hc_coll_op_fail(op, rc);
		return;
	}
	/* Receives of one peer start in posting order: packets of a
	 * sequence number below the mark with no receive are stale. */
	if (!hct_psn_lt(op->seq, comm->p2p_rx_posted[op->root]))
		comm->p2p_rx_posted[op->root] = op->seq + 1;
	drain(op);
}

/* The posted receive of comm from comm rank peer with sequence seq. */
static struct hc_coll_op *
find_recv(struct hc_comm *comm, uint32_t peer, uint32_t seq)
{
	struct hc_coll_op *op;

	TAILQ_FOREACH(op, &comm->p2p, link)
		if (op->kind == HC_COLL_RECV && op->root == peer &&
		    op->seq == seq)
			return op;
	return NULL;
}

/* hc_rx_done_fn: every payload byte of a receive arrived; it is done
 * once the header came too. */
static void
payload_done(struct hc_coll_op *op, uint64_t unit)
{
	const struct p2p *g = op->algo_state;

	(void)unit;
	if (g->hdr)
		op->done = 1;
}

enum hct_rx_verdict
hc_p2p_data(struct hc_coll *c, struct hc_comm *comm, uint32_t src,
	    const struct hct_data_desc *d, const uint8_t *payload,
	    struct rte_mbuf *m)
{
	uint32_t peer = hc_comm_rank_of(comm, src);
	struct hc_coll_op *op;
	struct p2p *g;

	if (peer == UINT32_MAX || peer == comm->rank) {
		c->stats.bad_data++;
		return HCT_RX_CONSUMED;
	}
	op = find_recv(comm, peer, d->coll_seq);
	if (op == NULL) {
		if (m == NULL ||
		    hct_psn_lt(d->coll_seq, comm->p2p_rx_posted[peer])) {
			c->stats.stale_rx++; /* a finished receive's */
			return HCT_RX_CONSUMED;
		}
		return hc_coll_hold(c, src, d, payload, m);
	}
	g = op->algo_state;
	if (op->status != 0 || op->done) {
		c->stats.stale_rx++;
		return HCT_RX_CONSUMED;
	}
	if (d->sig != op->sig) {
		c->stats.mismatches++;
		HC_LOG(ERR, COLL, "receive %u from rank %u: the send has "
		       "another dtype or count (signature %08x, ours %08x)",
		       op->seq, peer, d->sig, op->sig);
		hc_coll_op_fail(op, -HC_ERR_MISMATCH);
		return HCT_RX_CONSUMED;
	}
	if (d->step != HC_STEP_P2P_HDR) {
		struct hc_rx_unit u = {
			.dst = op->recv, .first = 0, .len = bytes(op),
			.got = &g->got, .es = 1, .reduce = 0,
			.done = payload_done, .id = 0,
		};

		return hc_data_accept(op, &u, d, payload);
	}
	g->hdr = 1;
	if (g->got == bytes(op))
		op->done = 1;
	return HCT_RX_CONSUMED;
}

static void
p2p_sent(struct hc_coll_op *op, struct hct_msg *msg)
{
	struct p2p *g = op->algo_state;

	(void)msg;
	if (--g->sends_left == 0)
		op->done = 1;
}

static void
p2p_fini(struct hc_coll_op *op)
{
	free(op->algo_state);
}

/* Started by hc_p2p_start, not through .start: p2p ops do not take part
 * in the communicator's collective sequence. */
const struct hc_algo hc_algo_p2p = {
	.name = "p2p",
	.sent = p2p_sent,
	.fini = p2p_fini,
};
