/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The one DATA path of the collectives: how a DATA packet of an op is
 * accepted (checked, reduced or copied into place, counted, its unit
 * completed) and how a message of an op is filled, shared by the ring
 * (ring.c), the chain (chain.c), the plan executor (plan_run.c),
 * point-to-point (p2p.c) and the signature and ABORT messages (comm_engine.c).
 *
 * Choice (issue 8, deliverable 4): shared functions, not the ring and the
 * chain rewritten as plans for plan_run.c. Each algorithm keeps only what
 * differs between them: which receive unit a packet names (the ring's
 * (step, slice) of a block, the chain's slice, a plan's RECV step, a
 * receive's whole buffer) and what completing that unit sets off. The
 * ring and the chain as plans would need a plan step per (step, slice)
 * and per-slice dependencies the plan format does not have (plan.h), and
 * would change their send order; that is a larger and riskier change than
 * the duplication it removes.
 */
#ifndef HC_COLL_DATA_H
#define HC_COLL_DATA_H

#include <stdint.h>

#include "coll.h"

/** Called when a receive unit got all its bytes; `unit` is the caller's
 *  own number for it (struct hc_rx_unit id). It completes the step and,
 *  when that was the last thing op waited for, the op. */
typedef void (*hc_rx_done_fn)(struct hc_coll_op *op, uint64_t unit);

/** One receive unit of an op: a byte range of the sender's offsets that
 *  arrives in any number of packets, each placed or reduced on arrival. */
struct hc_rx_unit {
	uint8_t *dst;        /**< where the unit's first byte lands */
	uint64_t first;      /**< bytes: offset (as DATA carries it) of the
	                      *   unit's first byte */
	uint64_t len;        /**< bytes in the unit */
	uint64_t *got;       /**< bytes of it received so far (counted here) */
	uint32_t es;         /**< bytes per element on the wire: offsets and
	                      *   lengths must be multiples of it */
	int reduce;          /**< reduce into dst with op->reduce3 (elements
	                      *   of es bytes), else copy */
	const uint8_t *own;  /**< reduce only: NULL, dst holds a partial
	                      *   result (dst = payload OP dst); else the
	                      *   unit is the first reduction of its region
	                      *   and own (op->own at the unit's first
	                      *   element, dtype elements) is this rank's
	                      *   contribution: dst = payload OP own, so dst
	                      *   needs no pre-copy of the send buffer */
	int own_left;        /**< reduce with own NULL only: dst = dst OP
	                      *   payload (dst's partial result the left
	                      *   operand, rd.c), else dst = payload OP dst */
	hc_rx_done_fn done;  /**< called once *got reaches len */
	uint64_t id;         /**< passed to done */
};

/**
 * Accept DATA packet d (payload of d->length bytes) for unit u of op:
 * check that it is non-empty, element-aligned, inside the unit (overflow
 * safe) and not more than the unit still lacks; reduce or copy it into
 * place (the payload is read where it lies, in the received mbuf, and
 * reduced or copied once into the destination); count it; complete the unit (u->done) when it is full.
 * A packet that fails a check, or u NULL (the packet names no unit of
 * op), counts as bad_data and is dropped.
 * @return HCT_RX_CONSUMED always: the payload was used or dropped.
 */
enum hct_rx_verdict hc_data_accept(struct hc_coll_op *op,
				   const struct hc_rx_unit *u,
				   const struct hct_data_desc *d,
				   const uint8_t *payload);

/**
 * Fill msg to carry len bytes at src to byte offset `offset` of the
 * peer's buffer as DATA of op with this step (op's communicator,
 * sequence number and signature; owner op, op's class). The caller
 * passes it to hct_send(). desc.length is len capped at UINT32_MAX (the
 * transport cuts the message by its own len).
 */
void hc_data_fill(struct hct_msg *msg, struct hc_coll_op *op, uint16_t step,
		  const uint8_t *src, uint64_t len, uint64_t offset);

#endif /* HC_COLL_DATA_H */
