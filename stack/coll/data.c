/* SPDX-License-Identifier: BSD-3-Clause */
/* The one DATA path of the collectives (data.h). */
#include <string.h>

#include <rte_common.h>

#include "cpustat.h"
#include "data.h"

enum hct_rx_verdict
hc_data_accept(struct hc_coll_op *op, const struct hc_rx_unit *u,
	       const struct hct_data_desc *d, const uint8_t *payload)
{
	uint64_t at, c0;

	/* at + length <= len written so that no offset from the wire can
	 * wrap the sum around. */
	if (u == NULL || d->length == 0 || d->offset % u->es != 0 ||
	    d->length % u->es != 0 || d->offset < u->first ||
	    d->offset - u->first > u->len ||
	    d->length > u->len - (d->offset - u->first) ||
	    *u->got + d->length > u->len) {
		op->comm->coll->stats.bad_data++;
		return HCT_RX_CONSUMED;
	}
	at = d->offset - u->first;
	c0 = hc_cpustat_begin(); /* payload: reduce or copy */
	if (u->reduce && u->own == NULL && u->own_left) {
		op->reduce3(u->dst + at, u->dst + at, payload,
			    d->length / u->es);
	} else if (u->reduce && u->own == NULL) {
		op->reduce3(u->dst + at, payload, u->dst + at,
			    d->length / u->es);
	} else if (u->reduce && op->acc == op->dtype) {
		/* first touch: recv = incoming OP send, one pass */
		op->reduce3(u->dst + at, payload, u->own + at,
			    d->length / u->es);
	} else if (u->reduce) {
		/* first touch, accumulating wider than dtype: widen this
		 * packet's share of the contribution (in cache), reduce */
		uint64_t n = d->length / u->es;

		hc_reduce_to_acc(u->dst + at, u->own + at / u->es *
				 op->elem_size, n, op->dtype, op->acc);
		op->reduce3(u->dst + at, payload, u->dst + at, n);
	} else
		memcpy(u->dst + at, payload, d->length);
	hc_cpustat_end(c0);
	*u->got += d->length;
	if (*u->got == u->len)
		u->done(op, u->id);
	return HCT_RX_CONSUMED;
}

void
hc_data_fill(struct hct_msg *msg, struct hc_coll_op *op, uint16_t step,
	     const uint8_t *src, uint64_t len, uint64_t offset)
{
	msg->src = src;
	msg->len = len;
	msg->owner = op;
	msg->zc = NULL; /* copied unless the algorithm says otherwise */
	msg->cls = op->cls;
	msg->desc.comm_id = op->comm->id;
	msg->desc.coll_seq = op->seq;
	msg->desc.sig = op->sig;
	msg->desc.step = step;
	msg->desc.offset = offset;
	msg->desc.length = (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX);
}
