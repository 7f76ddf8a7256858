/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flows' data-path timers (RTO, RACK, TLP) in one binary min-heap
 * keyed by each flow's earliest deadline, so that a poll costs O(1) when
 * nothing is due and O(log n) per flow whose timer changes, instead of a
 * scan of every flow (a perf profile of the 64-rank sim ring all-reduce
 * had 35 % of all CPU in such scans). The deadlines themselves stay in
 * the flow (rto_deadline_ns, cc.rack_deadline_ns, cc.tlp_deadline_ns);
 * whoever changes them calls hct_timer_update() afterwards.
 */
#include <rte_common.h>

#include "hypercomm.h"
#include "hct.h"
#include "hct_internal.h"

static uint64_t
flow_key(const struct hct_flow *f)
{
	uint64_t k = UINT64_MAX;

	if (f->state == HCT_FLOW_LOST)
		return k;
	if (f->rto_deadline_ns != 0)
		k = f->rto_deadline_ns;
	if (f->cc.rack_deadline_ns != 0)
		k = RTE_MIN(k, f->cc.rack_deadline_ns);
	if (f->cc.tlp_deadline_ns != 0)
		k = RTE_MIN(k, f->cc.tlp_deadline_ns);
	return k;
}

static void
heap_set(struct hct *t, uint32_t i, struct hct_flow *f)
{
	t->heap[i] = f;
	f->heap_idx = i;
}

static void
sift_up(struct hct *t, uint32_t i)
{
	struct hct_flow *f = t->heap[i];

	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (t->heap[up]->timer_key <= f->timer_key)
			break;
		heap_set(t, i, t->heap[up]);
		i = up;
	}
	heap_set(t, i, f);
}

static void
sift_down(struct hct *t, uint32_t i)
{
	struct hct_flow *f = t->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= t->heap_n)
			break;
		if (c + 1 < t->heap_n &&
		    t->heap[c + 1]->timer_key < t->heap[c]->timer_key)
			c++;
		if (f->timer_key <= t->heap[c]->timer_key)
			break;
		heap_set(t, i, t->heap[c]);
		i = c;
	}
	heap_set(t, i, f);
}

static void
heap_remove(struct hct *t, struct hct_flow *f)
{
	uint32_t i = f->heap_idx;
	struct hct_flow *last = t->heap[--t->heap_n];

	f->heap_idx = HCT_HEAP_NONE;
	if (last == f)
		return;
	heap_set(t, i, last);
	sift_up(t, i);
	sift_down(t, last->heap_idx);
}

void
hct_timer_update(struct hct *t, struct hct_flow *f)
{
	uint64_t k = flow_key(f);

	if (f->heap_idx == HCT_HEAP_NONE) {
		if (k == UINT64_MAX)
			return;
		f->timer_key = k;
		heap_set(t, t->heap_n++, f);
		sift_up(t, f->heap_idx);
		return;
	}
	if (k == UINT64_MAX) {
		heap_remove(t, f);
		return;
	}
	if (k == f->timer_key)
		return;
	if (k < f->timer_key) {
		f->timer_key = k;
		sift_up(t, f->heap_idx);
	} else {
		f->timer_key = k;
		sift_down(t, f->heap_idx);
	}
}

uint32_t
hct_timer_take_due(struct hct *t, uint64_t now)
{
	uint32_t n = 0;

	while (t->heap_n > 0 && t->heap[0]->timer_key <= now) {
		struct hct_flow *f = t->heap[0];

		uint32_t i;

		heap_remove(t, f);
		/* In rank order, as the scan of every flow went: the same
		 * packets in the same order on the wire. */
		for (i = n++; i > 0 && t->due[i - 1]->peer > f->peer; i--)
			t->due[i] = t->due[i - 1];
		t->due[i] = f;
	}
	return n;
}

uint64_t
hct_next_timer(const struct hct *t)
{
	uint64_t next = t->heap_n > 0 ? t->heap[0]->timer_key : UINT64_MAX;
	const struct hct_flow *f;
	unsigned int c;

	/* Pacing: only flows with queued messages can have a packet that
	 * waits for it (hct_cc_next_send() is UINT64_MAX for the others). */
	for (c = 0; c < HCT_CLASS__MAX && next != 0; c++)
		TAILQ_FOREACH(f, &t->txlist[c], txlink[c])
			if (f->state != HCT_FLOW_LOST)
				next = RTE_MIN(next, hct_cc_next_send(t, f));
	/* Held ACKs (rx.c ack_hold_ns): the few flows on the ACK list. */
	TAILQ_FOREACH(f, &t->acklist, acklink)
		if (f->ack_due_ns != 0)
			next = RTE_MIN(next, f->ack_due_ns);
	return next;
}
