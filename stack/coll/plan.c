/* SPDX-License-Identifier: BSD-3-Clause */
/* Step plans: building, dependencies, RECV lookup (plan.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "hypercomm.h"
#include "plan.h"

void
hc_plan_init(struct hc_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void
hc_plan_free(struct hc_plan *p)
{
	free(p->s);
	free(p->ndeps);
	free(p->out_first);
	free(p->out);
	free(p->by_peer);
	hc_plan_init(p);
}

void
hc_plan_add(struct hc_plan *p, enum hc_step_kind kind, int final,
	    uint32_t peer, uint16_t tag, uint64_t first, uint64_t len)
{
	hc_plan_add_x(p, kind, final, 0, 0, peer, tag, first, len);
}

void
hc_plan_add_x(struct hc_plan *p, enum hc_step_kind kind, int final,
	      int snap, int own_left, uint32_t peer, uint16_t tag,
	      uint64_t first, uint64_t len)
{
	if (len == 0 || p->err != 0)
		return;
	if (p->len == p->cap) {
		uint32_t cap = p->cap != 0 ? 2 * p->cap : 16;
		struct hc_step *s = realloc(p->s, cap * sizeof(*s));

		if (s == NULL) {
			p->err = -HC_ERR_NOMEM;
			return;
		}
		p->s = s;
		p->cap = cap;
	}
	p->s[p->len++] = (struct hc_step){ .kind = (uint8_t)kind,
		.final = final != 0, .snap = snap != 0,
		.own_left = own_left != 0, .tag = tag, .peer = peer,
		.first = first, .len = len };
}

static int
is_recv(const struct hc_step *s)
{
	return s->kind == HC_STEP_RECV_RED || s->kind == HC_STEP_RECV_COPY;
}

/* Does step j (earlier) block step i? A SEND or FINISH waits for the
 * RECVs and FINISHes before it that overlap it; a RECV_RED waits for the
 * RECV_REDs before it that overlap it (it is reduced after them: the
 * order of the float additions is the plan's, not the arrival order) and
 * for the snap SENDs before it that overlap it (their copy is taken
 * first). */
static int
blocks(const struct hc_step *j, const struct hc_step *i)
{
	if (i->kind == HC_STEP_RECV_RED) {
		if (j->kind != HC_STEP_RECV_RED &&
		    !(j->kind == HC_STEP_SEND && j->snap))
			return 0;
	} else if (i->kind != HC_STEP_SEND && i->kind != HC_STEP_FINISH) {
		return 0;
	} else if (!is_recv(j) && j->kind != HC_STEP_FINISH) {
		return 0;
	}
	return j->first < i->first + i->len && i->first < j->first + j->len;
}

static int
peer_tag_cmp(const void *a, const void *b, void *arg)
{
	const struct hc_plan *p = arg;
	const struct hc_step *x = &p->s[*(const uint32_t *)a];
	const struct hc_step *y = &p->s[*(const uint32_t *)b];

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

int
hc_plan_link(struct hc_plan *p)
{
	uint32_t i, j, edges = 0;

	if (p->err != 0)
		return p->err;
	p->ndeps = calloc(p->len + 1, sizeof(*p->ndeps));
	p->out_first = calloc(p->len + 1, sizeof(*p->out_first));
	p->by_peer = calloc(p->len + 1, sizeof(*p->by_peer));
	if (p->ndeps == NULL || p->out_first == NULL || p->by_peer == NULL)
		return -HC_ERR_NOMEM;
	/* Count, then fill, the edges j -> i (compressed rows by j). */
	for (i = 0; i < p->len; i++)
		for (j = 0; j < i; j++)
			if (blocks(&p->s[j], &p->s[i])) {
				p->ndeps[i]++;
				p->out_first[j + 1]++;
				edges++;
			}
	for (j = 0; j < p->len; j++)
		p->out_first[j + 1] += p->out_first[j];
	p->out = malloc((edges + 1) * sizeof(*p->out));
	if (p->out == NULL)
		return -HC_ERR_NOMEM;
	{
		uint32_t *fill = calloc(p->len + 1, sizeof(*fill));

		if (fill == NULL)
			return -HC_ERR_NOMEM;
		for (i = 0; i < p->len; i++)
			for (j = 0; j < i; j++)
				if (blocks(&p->s[j], &p->s[i]))
					p->out[p->out_first[j] + fill[j]++] = i;
		free(fill);
	}
	p->nrecv = 0;
	for (i = 0; i < p->len; i++)
		if (is_recv(&p->s[i]))
			p->by_peer[p->nrecv++] = i;
	qsort_r(p->by_peer, p->nrecv, sizeof(*p->by_peer), peer_tag_cmp, p);
	return 0;
}

uint32_t
hc_plan_find_recv(const struct hc_plan *p, uint32_t peer, uint16_t tag)
{
	uint32_t lo = 0, hi = p->nrecv;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct hc_step *s = &p->s[p->by_peer[mid]];

		if (s->peer < peer || (s->peer == peer && s->tag < tag))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nrecv && p->s[p->by_peer[lo]].peer == peer &&
	    p->s[p->by_peer[lo]].tag == tag)
		return p->by_peer[lo];
	return UINT32_MAX;
}

uint8_t
hc_plan_mark_fresh(const struct hc_plan *p, uint8_t *fresh)
{
	uint8_t ok = 1;
	uint32_t i, j;

	for (i = 0; i < p->len; i++) {
		const struct hc_step *a = &p->s[i];
		int inside = 0;

		fresh[i] = 0;
		if (a->final || !(a->kind == HC_STEP_SEND ||
				  a->kind == HC_STEP_RECV_RED))
			continue;
		fresh[i] = 1;
		for (j = 0; j < i; j++) {
			const struct hc_step *b = &p->s[j];

			if (b->kind == HC_STEP_SEND ||
			    b->first >= a->first + a->len ||
			    a->first >= b->first + b->len)
				continue;
			fresh[i] = 0;
			inside |= b->first <= a->first &&
				  a->first + a->len <= b->first + b->len;
		}
		if (!fresh[i] && !inside)
			ok = 0;
	}
	return ok;
}
