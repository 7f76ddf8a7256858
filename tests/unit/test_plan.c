/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step plans of the tree, halving-doubling, two-level and recursive-
 * doubling all-reduce (plan.h), and the tuner's cost model (tune.h).
 *
 * Plans are checked by a symbolic run over every rank: each element
 * carries the set of ranks whose contribution it holds (a bit mask), a
 * SEND delivers its range's masks to the matching RECV at once, a
 * reduction must never add a rank twice, a FINISH must see all ranks, and
 * at the end every rank's output holds all ranks in every element,
 * written exactly once. Every SEND must match exactly one RECV (same
 * peer pair, tag, range and kind of data) and a run must not stall.
 * A RECV_RED whose data comes while it still waits (plan.h) is held and
 * reduced when released, and every element must see its reductions in
 * the order of the plan's steps (the float result does not depend on
 * arrival order). Each element also carries a hash of the expression that
 * computed it, with the operands in the order the executor passes them
 * (RECV_RED: data OP work, or work OP data with own_left): every rank's
 * output must hold the same expression, so that a kernel that is not
 * commutative bit for bit (float MAX of +0 and -0, NaN payloads) still
 * gives the same bits everywhere. A snap SEND delivers its range as it is
 * when issued; any other SEND of partial sums must not be followed by an
 * overlapping RECV_RED.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "hypercomm.h"
#include "plan.h"
#include "tune.h"
#include "suites.h"

#define MAX_N 17

enum algo { A_TREE, A_HD, A_HIER, A_RD };

static void
make_plan(enum algo a, struct hc_plan *p, uint32_t n, uint32_t r,
	  uint64_t count, const uint32_t *group, int *rc)
{
	hc_plan_init(p);
	*rc = 0;
	switch (a) {
	case A_TREE:
		/* Small slices: several chunks per half even for few
		 * elements. */
		hc_tree_plan(p, n, r, count, 4, 16);
		break;
	case A_HD:
		hc_hd_plan(p, n, r, count);
		break;
	case A_HIER:
		*rc = hc_hier_plan(p, n, r, count, group);
		break;
	case A_RD:
		hc_rd_plan(p, n, r, count);
		break;
	}
	if (*rc == 0)
		*rc = hc_plan_link(p);
}

struct sim_rank {
	struct hc_plan p;
	uint32_t *wait;
	uint8_t *done;     /* [step] */
	uint32_t *work;    /* [element] ranks held, bit mask */
	uint32_t *out;     /* [element] final value's mask */
	uint8_t *written;  /* [element] times the output was written */
	uint32_t **held;   /* [step] masks of a RECV_RED that came early */
	uint64_t **heldh;  /* [step] and their expression hashes */
	uint32_t *last;    /* [element] last RECV_RED step reduced + 1 */
	uint64_t *wh;      /* [element] hash of work's expression */
	uint64_t *oh;      /* [element] hash of the output's expression */
};

/* Hash of the expression (a OP b): not symmetric in a and b. */
static uint64_t
expr(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Reduce RECV_RED j of rank q (masks v[0..len-1], hashes h) into its
 * work. */
static void
sim_reduce(struct sim_rank *d, uint32_t q, uint32_t j, const uint32_t *v,
	   const uint64_t *h, unsigned int *bad)
{
	const struct hc_step *t = &d->p.s[j];
	uint64_t e;

	for (e = t->first; e < t->first + t->len; e++) {
		if ((d->work[e] & v[e - t->first]) != 0 && (*bad)++ == 0)
			printf("\n  rank %u gets rank(s) %#x twice in element "
			       "%" PRIu64 "\n", q, d->work[e] & v[e - t->first],
			       e);
		if (d->last[e] > j && (*bad)++ == 0)
			printf("\n  rank %u element %" PRIu64 ": RECV_RED %u "
			       "reduced after %u\n", q, e, j, d->last[e] - 1);
		d->work[e] |= v[e - t->first];
		d->wh[e] = t->own_left ? expr(d->wh[e], h[e - t->first])
				       : expr(h[e - t->first], d->wh[e]);
		d->last[e] = j + 1;
	}
}

static int
overlap(const struct hc_step *a, const struct hc_step *b)
{
	return a->first < b->first + b->len && b->first < a->first + a->len;
}

/* Mark step i of rank q done and release what waits for it. */
static void sim_issue(struct sim_rank *R, uint32_t n, uint32_t q, uint32_t i,
		      unsigned int *bad);

static void
sim_complete(struct sim_rank *R, uint32_t n, uint32_t q, uint32_t i,
	     unsigned int *bad)
{
	struct hc_plan *p = &R[q].p;
	uint32_t k;

	R[q].done[i] = 1;
	for (k = p->out_first[i]; k < p->out_first[i + 1]; k++) {
		uint32_t j = p->out[k];

		if (--R[q].wait[j] != 0)
			continue;
		if (p->s[j].kind != HC_STEP_RECV_RED) {
			sim_issue(R, n, q, j, bad);
		} else if (R[q].held[j] != NULL) {
			sim_reduce(&R[q], q, j, R[q].held[j], R[q].heldh[j],
				   bad);
			free(R[q].held[j]);
			free(R[q].heldh[j]);
			R[q].held[j] = NULL;
			R[q].heldh[j] = NULL;
			sim_complete(R, n, q, j, bad);
		}
	}
}

/* SEND s of rank q arrives at RECV j of its peer. */
static void
sim_deliver(struct sim_rank *R, uint32_t n, uint32_t q,
	    const struct hc_step *s, uint32_t j, unsigned int *bad)
{
	struct sim_rank *d = &R[s->peer];
	const struct hc_step *t = &d->p.s[j];
	uint64_t e;

	if (t->first != s->first || t->len != s->len ||
	    (t->kind == HC_STEP_RECV_COPY) != (s->final != 0) || d->done[j]) {
		if ((*bad)++ == 0)
			printf("\n  rank %u tag %u to %u: RECV differs\n", q,
			       s->tag, s->peer);
		return;
	}
	if (t->kind == HC_STEP_RECV_COPY) {
		for (e = s->first; e < s->first + s->len; e++) {
			d->out[e] = R[q].out[e];
			d->oh[e] = R[q].oh[e];
			d->written[e]++;
		}
		sim_complete(R, n, s->peer, j, bad);
		return;
	}
	if (d->held[j] != NULL) {
		if ((*bad)++ == 0)
			printf("\n  rank %u tag %u to %u: twice\n", q, s->tag,
			       s->peer);
		return;
	}
	d->held[j] = malloc(s->len * sizeof(uint32_t));
	d->heldh[j] = malloc(s->len * sizeof(uint64_t));
	CU_ASSERT_FATAL(d->held[j] != NULL && d->heldh[j] != NULL);
	memcpy(d->held[j], &R[q].work[s->first], s->len * sizeof(uint32_t));
	memcpy(d->heldh[j], &R[q].wh[s->first], s->len * sizeof(uint64_t));
	if (d->wait[j] != 0)
		return; /* reduced when released (sim_complete) */
	sim_reduce(d, s->peer, j, d->held[j], d->heldh[j], bad);
	free(d->held[j]);
	free(d->heldh[j]);
	d->held[j] = NULL;
	d->heldh[j] = NULL;
	sim_complete(R, n, s->peer, j, bad);
}

static void
sim_issue(struct sim_rank *R, uint32_t n, uint32_t q, uint32_t i,
	  unsigned int *bad)
{
	const struct hc_step *s = &R[q].p.s[i];
	uint32_t full = n >= 32 ? UINT32_MAX : (1u << n) - 1, j;
	uint64_t e;

	if (s->kind == HC_STEP_FINISH) {
		for (e = s->first; e < s->first + s->len; e++) {
			if (R[q].work[e] != full && (*bad)++ == 0)
				printf("\n  rank %u finishes element %" PRIu64
				       " holding %#x\n", q, e, R[q].work[e]);
			R[q].out[e] = R[q].work[e];
			R[q].oh[e] = R[q].wh[e];
			R[q].written[e]++;
		}
		sim_complete(R, n, q, i, bad);
		return;
	}
	/* SEND: the matching RECV at the peer; a snap SEND then releases
	 * what waits for it (its copy is taken, plan.h). */
	R[q].done[i] = 1;
	j = hc_plan_find_recv(&R[s->peer].p, q, s->tag);
	if (j == UINT32_MAX) {
		if ((*bad)++ == 0)
			printf("\n  rank %u tag %u to %u: no RECV\n", q, s->tag,
			       s->peer);
		return;
	}
	sim_deliver(R, n, q, s, j, bad);
	if (s->snap)
		sim_complete(R, n, q, i, bad);
}

/* Plan all n ranks, run them; @return problems found. */
static unsigned int
sim(enum algo a, uint32_t n, uint64_t count, const uint32_t *group)
{
	struct sim_rank R[MAX_N];
	uint32_t full = (1u << n) - 1, q, i, j;
	unsigned int bad = 0;
	uint64_t e;
	int rc;

	memset(R, 0, sizeof(R));
	for (q = 0; q < n; q++) {
		make_plan(a, &R[q].p, n, q, count, group, &rc);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		R[q].wait = malloc((R[q].p.len + 1) * sizeof(uint32_t));
		R[q].done = calloc(R[q].p.len + 1, 1);
		R[q].work = calloc(count + 1, sizeof(uint32_t));
		R[q].out = calloc(count + 1, sizeof(uint32_t));
		R[q].written = calloc(count + 1, 1);
		R[q].held = calloc(R[q].p.len + 1, sizeof(uint32_t *));
		R[q].last = calloc(count + 1, sizeof(uint32_t));
		R[q].heldh = calloc(R[q].p.len + 1, sizeof(uint64_t *));
		R[q].wh = calloc(count + 1, sizeof(uint64_t));
		R[q].oh = calloc(count + 1, sizeof(uint64_t));
		CU_ASSERT_FATAL(R[q].wait && R[q].done && R[q].work &&
				R[q].out && R[q].written && R[q].held &&
				R[q].last && R[q].heldh && R[q].wh && R[q].oh);
		memcpy(R[q].wait, R[q].p.ndeps, R[q].p.len * sizeof(uint32_t));
		for (e = 0; e < count; e++) {
			R[q].work[e] = 1u << q;
			R[q].wh[e] = 1000 + q; /* a leaf: rank q's value */
		}
		/* (peer, tag) unique among the RECVs; tags in range;
		 * no region changes under a SEND that may still read it. */
		for (i = 0; i + 1 < R[q].p.nrecv; i++) {
			const struct hc_step *x = &R[q].p.s[R[q].p.by_peer[i]];
			const struct hc_step *y =
				&R[q].p.s[R[q].p.by_peer[i + 1]];

			if (x->peer == y->peer && x->tag == y->tag && bad++ == 0)
				printf("\n  rank %u: two RECVs (%u, %u)\n", q,
				       x->peer, x->tag);
		}
		for (i = 0; i < R[q].p.len; i++) {
			const struct hc_step *s = &R[q].p.s[i];

			if (s->tag > HC_PLAN_TAG_MAX || s->len == 0 ||
			    s->first + s->len > count ||
			    (s->kind != HC_STEP_FINISH &&
			     (s->peer >= n || s->peer == q))) {
				if (bad++ == 0)
					printf("\n  rank %u step %u malformed\n",
					       q, i);
			}
			if (s->kind != HC_STEP_SEND)
				continue;
			for (j = i + 1; j < R[q].p.len; j++) {
				const struct hc_step *t = &R[q].p.s[j];
				uint32_t k, waits = 0;

				/* a snap SEND's copy is taken before any
				 * overlapping RECV_RED after it may run */
				for (k = R[q].p.out_first[i];
				     k < R[q].p.out_first[i + 1]; k++)
					waits += R[q].p.out[k] == j;
				if (s->snap && !s->final && overlap(s, t) &&
				    t->kind == HC_STEP_RECV_RED && waits != 1 &&
				    bad++ == 0)
					printf("\n  rank %u: RECV_RED %u does not "
					       "wait for snap SEND %u\n", q, j, i);
				if (overlap(s, t) && !(s->snap && !s->final) &&
				    ((!s->final && t->kind == HC_STEP_RECV_RED)
				     || (s->final &&
					 (t->kind == HC_STEP_RECV_COPY ||
					  t->kind == HC_STEP_FINISH))) &&
				    bad++ == 0)
					printf("\n  rank %u: step %u changes what"
					       " SEND %u reads\n", q, j, i);
			}
		}
	}
	for (q = 0; q < n; q++)
		for (i = 0; i < R[q].p.len; i++)
			if (R[q].p.ndeps[i] == 0 &&
			    (R[q].p.s[i].kind == HC_STEP_SEND ||
			     R[q].p.s[i].kind == HC_STEP_FINISH))
				sim_issue(R, n, q, i, &bad);
	for (q = 0; q < n; q++) {
		for (i = 0; i < R[q].p.len; i++)
			if (!R[q].done[i] && bad++ == 0)
				printf("\n  rank %u step %u never ran (stall)\n",
				       q, i);
		for (e = 0; e < count && n > 1; e++)
			if ((R[q].out[e] != full || R[q].written[e] != 1) &&
			    bad++ == 0)
				printf("\n  rank %u element %" PRIu64 ": %#x, "
				       "written %u times\n", q, e, R[q].out[e],
				       R[q].written[e]);
		/* the same expression, operands in the same order, as at
		 * rank 0: the same bits whatever the kernel */
		for (e = 0; e < count && n > 1; e++)
			if (R[q].oh[e] != R[0].oh[e] && bad++ == 0)
				printf("\n  rank %u element %" PRIu64 ": not "
				       "the expression rank 0 computed\n", q, e);
	}
	for (q = 0; q < n; q++) {
		for (i = 0; i < R[q].p.len; i++) {
			free(R[q].held[i]);
			free(R[q].heldh[i]);
		}
		free(R[q].held);
		free(R[q].heldh);
		free(R[q].wh);
		free(R[q].oh);
		free(R[q].last);
		hc_plan_free(&R[q].p);
		free(R[q].wait);
		free(R[q].done);
		free(R[q].work);
		free(R[q].out);
		free(R[q].written);
	}
	if (bad != 0)
		printf("  (algo %d, n %u, count %" PRIu64 ")\n", a, n, count);
	return bad;
}

static void
run_counts(enum algo a, uint32_t n, const uint32_t *group)
{
	const uint64_t counts[] = { 1, 2, 3, 7, 37, 100, 1001 };
	size_t i;

	CU_ASSERT_EQUAL(sim(a, n, n - 1 > 0 ? n - 1 : 1, group), 0);
	CU_ASSERT_EQUAL(sim(a, n, n + 1, group), 0);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		CU_ASSERT_EQUAL(sim(a, n, counts[i], group), 0);
}

static void
test_tree_shapes(void)
{
	uint32_t n, t, r, k;

	for (n = 1; n <= MAX_N; n++) {
		uint32_t interior[2][MAX_N] = { { 0 } }, both = 0;

		for (t = 0; t < 2; t++) {
			uint32_t roots = 0, seen[MAX_N] = { 0 };

			for (r = 0; r < n; r++) {
				struct hc_tree_node o, pn;
				uint32_t up = r, steps = 0;

				hc_tree_node(n, t, r, &o);
				if (o.parent == UINT32_MAX) {
					roots++;
				} else {
					/* r is one of its parent's children */
					CU_ASSERT_FATAL(o.parent < n);
					hc_tree_node(n, t, o.parent, &pn);
					CU_ASSERT(pn.child[0] == r ||
						  pn.child[1] == r);
				}
				for (k = 0; k < 2; k++)
					if (o.child[k] != UINT32_MAX) {
						struct hc_tree_node c;

						CU_ASSERT_FATAL(o.child[k] < n);
						hc_tree_node(n, t, o.child[k], &c);
						CU_ASSERT_EQUAL(c.parent, r);
						seen[o.child[k]]++;
						interior[t][r] = 1;
					}
				/* the root is reached: no cycle */
				while (up != UINT32_MAX && steps++ <= n) {
					hc_tree_node(n, t, up, &pn);
					up = pn.parent;
				}
				CU_ASSERT_EQUAL(up, UINT32_MAX);
			}
			/* every rank once: one root, every other rank the
			 * child of exactly one node */
			CU_ASSERT_EQUAL(roots, 1);
			for (r = 0, k = 0; r < n; r++)
				k += seen[r] == 1;
			CU_ASSERT_EQUAL(k, n - 1);
		}
		for (r = 0; r < n; r++)
			both += interior[0][r] && interior[1][r];
		/* Interior nodes of one tree are leaves of the other; with
		 * n odd (n >= 3) exactly one rank is interior in both. */
		CU_ASSERT_EQUAL(both, n % 2 == 0 || n < 3 ? 0 : 1);
	}
}

static void
test_tree_exact(void)
{
	struct hc_tree_node o;

	/* n = 14, tree 0: 0 - 8; 8 - 4, 12; 12 - 10, 13; 13 a leaf. */
	hc_tree_node(14, 0, 0, &o);
	CU_ASSERT_EQUAL(o.parent, UINT32_MAX);
	CU_ASSERT_EQUAL(o.child[0], 8);
	CU_ASSERT_EQUAL(o.child[1], UINT32_MAX);
	hc_tree_node(14, 0, 8, &o);
	CU_ASSERT_EQUAL(o.parent, 0);
	CU_ASSERT_EQUAL(o.child[0], 4);
	CU_ASSERT_EQUAL(o.child[1], 12);
	hc_tree_node(14, 0, 12, &o);
	CU_ASSERT_EQUAL(o.parent, 8);
	CU_ASSERT_EQUAL(o.child[0], 10);
	CU_ASSERT_EQUAL(o.child[1], 13);
	hc_tree_node(14, 0, 13, &o);
	CU_ASSERT_EQUAL(o.parent, 12);
	CU_ASSERT_EQUAL(o.child[0], UINT32_MAX);
	/* tree 1 mirrored (n even): rank 13 - 5 (virtual 0 - 8). */
	hc_tree_node(14, 1, 13, &o);
	CU_ASSERT_EQUAL(o.parent, UINT32_MAX);
	CU_ASSERT_EQUAL(o.child[0], 5);
	/* n = 3: tree 0 0 - 2 - 1; tree 1 shifted: 1 - 0 - 2. */
	hc_tree_node(3, 0, 2, &o);
	CU_ASSERT_EQUAL(o.parent, 0);
	CU_ASSERT_EQUAL(o.child[0], 1);
	hc_tree_node(3, 1, 0, &o);
	CU_ASSERT_EQUAL(o.parent, 1);
	CU_ASSERT_EQUAL(o.child[0], 2);
	/* chunks: about slice_bytes each, 1..64 */
	CU_ASSERT_EQUAL(hc_tree_chunks(0, 4, 262144), 1);
	CU_ASSERT_EQUAL(hc_tree_chunks(65536, 4, 262144), 1);
	CU_ASSERT_EQUAL(hc_tree_chunks(65537, 4, 262144), 2);
	CU_ASSERT_EQUAL(hc_tree_chunks(1u << 30, 4, 262144), 64);
}

static void
test_tree_runs(void)
{
	uint32_t n;

	for (n = 1; n <= MAX_N; n++)
		run_counts(A_TREE, n, NULL);
}

static void
test_hd_runs(void)
{
	uint32_t n;

	for (n = 1; n <= MAX_N; n++)
		run_counts(A_HD, n, NULL);
}

static void
test_rd_runs(void)
{
	uint32_t n;

	for (n = 1; n <= MAX_N; n++)
		run_counts(A_RD, n, NULL);
}

/* Step i of p is exactly (kind, final, peer, tag, first, len); peer and
 * tag are not compared for a FINISH. */
static void
expect_step(const struct hc_plan *p, uint32_t i, enum hc_step_kind kind,
	    int final, uint32_t peer, uint16_t tag, uint64_t first,
	    uint64_t len)
{
	const struct hc_step *s;

	CU_ASSERT_FATAL(i < p->len);
	s = &p->s[i];
	CU_ASSERT_EQUAL(s->kind, kind);
	CU_ASSERT_EQUAL(s->final, final);
	if (kind != HC_STEP_FINISH) {
		CU_ASSERT_EQUAL(s->peer, peer);
		CU_ASSERT_EQUAL(s->tag, tag);
	}
	CU_ASSERT_EQUAL(s->first, first);
	CU_ASSERT_EQUAL(s->len, len);
}

static void
test_hd_fold(void)
{
	struct hc_plan p;
	int rc;

	/* n = 5: p = 4, rank 0 folds into 1: whole vector there (tag 0),
	 * the result back at the end (tag 1 + 2 log2 4 = 5). */
	make_plan(A_HD, &p, 5, 0, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 2);
	expect_step(&p, 0, HC_STEP_SEND, 0, 1, 0, 0, 10);
	expect_step(&p, 1, HC_STEP_RECV_COPY, 1, 1, 5, 0, 10);
	hc_plan_free(&p);
	/* rank 1 (new rank 0) takes it first and sends the result last;
	 * in between halving with new ranks 2 (real 3) and 1 (real 2),
	 * blocks of 10 / 4: 0-2, 3-5, 6-7, 8-9; doubling back. */
	make_plan(A_HD, &p, 5, 1, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 1 + 4 + 1 + 4 + 1);
	expect_step(&p, 0, HC_STEP_RECV_RED, 0, 0, 0, 0, 10);
	expect_step(&p, 1, HC_STEP_SEND, 0, 3, 1, 6, 4);
	expect_step(&p, 2, HC_STEP_RECV_RED, 0, 3, 1, 0, 6);
	expect_step(&p, 3, HC_STEP_SEND, 0, 2, 2, 3, 3);
	expect_step(&p, 4, HC_STEP_RECV_RED, 0, 2, 2, 0, 3);
	expect_step(&p, 5, HC_STEP_FINISH, 0, 0, 0, 0, 3);
	expect_step(&p, 6, HC_STEP_SEND, 1, 2, 3, 0, 3);
	expect_step(&p, 7, HC_STEP_RECV_COPY, 1, 2, 3, 3, 3);
	expect_step(&p, 8, HC_STEP_SEND, 1, 3, 4, 0, 6);
	expect_step(&p, 9, HC_STEP_RECV_COPY, 1, 3, 4, 6, 4);
	expect_step(&p, 10, HC_STEP_SEND, 1, 0, 5, 0, 10);
	/* its first send waits for the folded vector only */
	CU_ASSERT_EQUAL(p.ndeps[1], 1);
	/* each halving step's data is reduced after the steps before it
	 * (the fold, then the first halving): a fixed order of additions */
	CU_ASSERT_EQUAL(p.ndeps[0], 0);
	CU_ASSERT_EQUAL(p.ndeps[2], 1);
	CU_ASSERT_EQUAL(p.ndeps[4], 2);
	/* copies wait for nothing */
	CU_ASSERT_EQUAL(p.ndeps[7], 0);
	/* the last waits for every RECV and the FINISH before it (all
	 * overlap the whole vector) */
	CU_ASSERT_EQUAL(p.ndeps[10], 6);
	hc_plan_free(&p);
	/* rank 4 (new rank 3) takes part directly: first to new 1 (real 2) */
	make_plan(A_HD, &p, 5, 4, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	expect_step(&p, 0, HC_STEP_SEND, 0, 2, 1, 0, 6);
	hc_plan_free(&p);
}

/* hc_plan_mark_fresh: in every hd plan (n = 2..MAX_N, every rank, several
 * counts) the fresh steps' ranges (the SENDs that read the send buffer,
 * the RECV_REDs that are first reductions) are disjoint and cover the
 * vector exactly once, and every other non-final step lies inside one
 * earlier writer (return 1); exact marks at n = 5; a hand-made plan that
 * reads a range written before only in part returns 0. */
static void
test_hd_fresh(void)
{
	static const uint64_t counts[] = { 1, 2, 7, 10, 1000, 4099 };
	uint8_t fresh[64];
	struct hc_plan p;
	uint32_t n, r, i;
	size_t c;
	int rc;

	for (n = 2; n <= MAX_N; n++)
		for (r = 0; r < n; r++)
			for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
				uint64_t count = counts[c], *hit;

				make_plan(A_HD, &p, n, r, count, NULL, &rc);
				CU_ASSERT_EQUAL_FATAL(rc, 0);
				CU_ASSERT_FATAL(p.len <= sizeof(fresh));
				CU_ASSERT_EQUAL(hc_plan_mark_fresh(&p, fresh),
						1);
				hit = calloc(count, sizeof(*hit));
				CU_ASSERT_FATAL(hit != NULL);
				for (i = 0; i < p.len; i++) {
					uint64_t e;

					if (!fresh[i])
						continue;
					for (e = p.s[i].first;
					     e < p.s[i].first + p.s[i].len; e++)
						hit[e]++;
				}
				for (i = 0; i < count; i++)
					if (hit[i] != 1) {
						CU_FAIL("fresh steps do not "
							"cover every element "
							"once");
						break;
					}
				free(hit);
				hc_plan_free(&p);
			}
	/* n = 5, 10 elements (test_hd_fold's plans): rank 0 sends its vector
	 * (fresh), gets the result; rank 1 reduces it first (fresh), then
	 * only partial sums; rank 4's first send and reduction are fresh. */
	make_plan(A_HD, &p, 5, 0, 10, NULL, &rc);
	CU_ASSERT_EQUAL(hc_plan_mark_fresh(&p, fresh), 1);
	CU_ASSERT_EQUAL(fresh[0], 1);
	CU_ASSERT_EQUAL(fresh[1], 0);
	hc_plan_free(&p);
	make_plan(A_HD, &p, 5, 1, 10, NULL, &rc);
	CU_ASSERT_EQUAL(hc_plan_mark_fresh(&p, fresh), 1);
	CU_ASSERT_EQUAL(fresh[0], 1);
	for (i = 1; i < p.len; i++)
		CU_ASSERT_EQUAL(fresh[i], 0);
	hc_plan_free(&p);
	make_plan(A_HD, &p, 5, 4, 10, NULL, &rc);
	CU_ASSERT_EQUAL(hc_plan_mark_fresh(&p, fresh), 1);
	CU_ASSERT_EQUAL(fresh[0], 1);
	CU_ASSERT_EQUAL(fresh[1], 1);
	for (i = 2; i < p.len; i++)
		CU_ASSERT_EQUAL(fresh[i], 0);
	hc_plan_free(&p);
	/* A SEND of [0, 10) after a RECV_RED of [0, 5) only: refused. */
	hc_plan_init(&p);
	hc_plan_add(&p, HC_STEP_RECV_RED, 0, 1, 1, 0, 5);
	hc_plan_add(&p, HC_STEP_SEND, 0, 1, 2, 0, 10);
	CU_ASSERT_EQUAL(hc_plan_mark_fresh(&p, fresh), 0);
	CU_ASSERT_EQUAL(fresh[0], 1);
	CU_ASSERT_EQUAL(fresh[1], 0);
	hc_plan_free(&p);
}

static void
test_rd_exact(void)
{
	struct hc_plan p;
	int rc;

	/* n = 2: one exchange of the whole vector, the lower rank's partial
	 * sums on the left at both ends, then the rounding */
	make_plan(A_RD, &p, 2, 0, 3, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 3);
	expect_step(&p, 0, HC_STEP_SEND, 0, 1, 1, 0, 3);
	expect_step(&p, 1, HC_STEP_RECV_RED, 0, 1, 1, 0, 3);
	expect_step(&p, 2, HC_STEP_FINISH, 0, 0, 0, 0, 3);
	CU_ASSERT(p.s[0].snap && p.s[1].own_left);
	/* the reduction waits for the copy of what it changes */
	CU_ASSERT_EQUAL(p.ndeps[1], 1);
	CU_ASSERT_EQUAL(p.ndeps[0], 0);
	hc_plan_free(&p);
	make_plan(A_RD, &p, 2, 1, 3, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 3);
	CU_ASSERT(p.s[0].snap && !p.s[1].own_left);
	hc_plan_free(&p);
	/* n = 5: p = 4, rank 0 folds into 1 (tag 0, result back with tag
	 * 1 + log2 4 = 3); rank 1 (virtual 0) exchanges with virtual 1
	 * (real 2) and 2 (real 3), then sends the result to 0 */
	make_plan(A_RD, &p, 5, 0, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 2);
	expect_step(&p, 0, HC_STEP_SEND, 0, 1, 0, 0, 10);
	expect_step(&p, 1, HC_STEP_RECV_COPY, 1, 1, 3, 0, 10);
	hc_plan_free(&p);
	make_plan(A_RD, &p, 5, 1, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 7);
	expect_step(&p, 0, HC_STEP_RECV_RED, 0, 0, 0, 0, 10);
	expect_step(&p, 1, HC_STEP_SEND, 0, 2, 1, 0, 10);
	expect_step(&p, 2, HC_STEP_RECV_RED, 0, 2, 1, 0, 10);
	expect_step(&p, 3, HC_STEP_SEND, 0, 3, 2, 0, 10);
	expect_step(&p, 4, HC_STEP_RECV_RED, 0, 3, 2, 0, 10);
	expect_step(&p, 5, HC_STEP_FINISH, 0, 0, 0, 0, 10);
	expect_step(&p, 6, HC_STEP_SEND, 1, 0, 3, 0, 10);
	CU_ASSERT(!p.s[0].own_left && p.s[2].own_left && p.s[4].own_left);
	CU_ASSERT(p.s[1].snap && p.s[3].snap && !p.s[6].snap);
	/* step 1's reduction waits for step 0's and for its own copy */
	CU_ASSERT_EQUAL(p.ndeps[2], 2);
	CU_ASSERT_EQUAL(p.ndeps[4], 4);
	hc_plan_free(&p);
	/* rank 4 (virtual 3): partners virtual 2 (real 3), 1 (real 2); the
	 * higher of both pairs: their partial sums on the left */
	make_plan(A_RD, &p, 5, 4, 10, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.len, 5);
	expect_step(&p, 0, HC_STEP_SEND, 0, 3, 1, 0, 10);
	expect_step(&p, 2, HC_STEP_SEND, 0, 2, 2, 0, 10);
	CU_ASSERT(!p.s[1].own_left && !p.s[3].own_left);
	hc_plan_free(&p);
	/* count 0: nothing */
	make_plan(A_RD, &p, 4, 2, 0, NULL, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(p.len, 0);
	hc_plan_free(&p);
}

static void
test_hier_runs(void)
{
	uint32_t g[MAX_N], n, r, per;

	for (n = 1; n <= 16; n++)
		for (per = 1; per <= n; per++) {
			if (n % per != 0)
				continue;
			/* contiguous groups of per ranks, and interleaved */
			for (r = 0; r < n; r++)
				g[r] = r / per;
			run_counts(A_HIER, n, g);
			for (r = 0; r < n; r++)
				g[r] = 100 + r % (n / per);
			run_counts(A_HIER, n, g);
		}
}

static void
test_hier_unequal(void)
{
	const uint32_t g[5] = { 0, 0, 0, 1, 1 };
	struct hc_plan p;
	int rc;

	make_plan(A_HIER, &p, 5, 0, 10, g, &rc);
	CU_ASSERT_EQUAL(rc, -HC_ERR_UNSUPPORTED);
	hc_plan_free(&p);
}

/* One transfer of a plan, for matching SENDs with RECVs. */
struct xfer_key {
	uint32_t from, to;
	uint16_t tag;
	uint64_t first, len;
};

static int
xfer_key_cmp(const void *a, const void *b)
{
	const struct xfer_key *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int
range_cmp(const void *a, const void *b)
{
	const struct xfer_key *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * C09 for the step plans (the ring's planner has its own, test_ring_plan):
 * count 2^31 + 5 at n ranks, checked on ranges, since the symbolic run
 * needs memory per element. Every step's range lies inside [0, count)
 * (64-bit offsets, no wrap); each rank's output writes (FINISH and
 * RECV_COPY) tile [0, count) once, so every element is written once; the
 * SENDs of all ranks and their RECVs match one to one (from, to, tag,
 * range). @return the number of steps of all ranks.
 */
static uint64_t
big_plan(enum algo a, uint32_t n, const uint32_t *group)
{
	const uint64_t count = (1ull << 31) + 5;
	struct xfer_key *tx = NULL, *rx = NULL, *out, *more;
	size_t ntx = 0, nrx = 0, cap = 0, nout, i;
	uint64_t steps = 0, pos;
	uint32_t r;

	for (r = 0; r < n; r++) {
		struct hc_plan p;
		int rc;

		make_plan(a, &p, n, r, count, group, &rc);
		CU_ASSERT_FATAL(rc == 0 && p.err == 0);
		steps += p.len;
		if (ntx + p.len > cap || nrx + p.len > cap) {
			cap = 2 * (cap + p.len);
			more = realloc(tx, cap * sizeof(*tx));
			CU_ASSERT_FATAL(more != NULL);
			tx = more;
			more = realloc(rx, cap * sizeof(*rx));
			CU_ASSERT_FATAL(more != NULL);
			rx = more;
		}
		out = calloc(p.len + 1, sizeof(*out));
		CU_ASSERT_FATAL(out != NULL);
		nout = 0;
		for (i = 0; i < p.len; i++) {
			const struct hc_step *s = &p.s[i];
			struct xfer_key k = { r, s->peer, s->tag, s->first,
					      s->len };

			CU_ASSERT(s->len > 0 && s->first < count &&
				  s->len <= count - s->first);
			if (s->kind == HC_STEP_SEND) {
				tx[ntx++] = k;
				continue;
			}
			if (s->kind != HC_STEP_FINISH) {
				k.from = s->peer;
				k.to = r;
				rx[nrx++] = k;
			}
			if (s->kind != HC_STEP_RECV_RED)
				out[nout++] = k;
		}
		qsort(out, nout, sizeof(*out), range_cmp);
		for (i = 0, pos = 0; i < nout; i++) {
			CU_ASSERT_EQUAL(out[i].first, pos);
			pos = out[i].first + out[i].len;
		}
		CU_ASSERT_EQUAL(pos, count);
		free(out);
		hc_plan_free(&p);
	}
	qsort(tx, ntx, sizeof(*tx), xfer_key_cmp);
	qsort(rx, nrx, sizeof(*rx), xfer_key_cmp);
	CU_ASSERT_EQUAL(ntx, nrx);
	for (i = 0; i < ntx && i < nrx; i++)
		CU_ASSERT_EQUAL(xfer_key_cmp(&tx[i], &rx[i]), 0);
	free(tx);
	free(rx);
	return steps;
}

/* C09: 2^31 + 5 elements on 3 and 7 ranks, every step-plan algorithm
 * (hier in groups of one rank and in one group of all). */
static void
test_big_counts(void)
{
	static const uint32_t ns[] = { 3, 7 };
	uint32_t g[MAX_N], i, r;
	uint64_t st;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (r = 0; r < ns[i]; r++)
			g[r] = r;
		st = big_plan(A_TREE, ns[i], NULL);
		st += big_plan(A_HD, ns[i], NULL);
		st += big_plan(A_RD, ns[i], NULL);
		st += big_plan(A_HIER, ns[i], g);
		for (r = 0; r < ns[i]; r++)
			g[r] = 0;
		st += big_plan(A_HIER, ns[i], g);
		CU_ASSERT(st > 0);
	}
}

static const struct hc_tune_shape flat4 = { 4, 4, 1 };

static void
test_cost_exact(void)
{
	const struct hc_tune t = { 10000, 0.5 };
	const struct hc_tune_shape hier8 = { 8, 2, 4 }, uneq = { 5, 2, 0 };

	/* ring 2(n-1) steps, 2(n-1)/n B; tree 2 ceil(log2 n), 2B; hd
	 * 2 log2 n, 2(n-1)/n B: n = 4, B = 1000 */
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_RING, &flat4, &t, 1000),
			       6 * 10000 + 1.5 * 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_TREE, &flat4, &t, 1000),
			       4 * 10000 + 2 * 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_HD, &flat4, &t, 1000),
			       4 * 10000 + 1.5 * 500, 1e-9);
	/* hier, 2 groups of 4: 2 + 2 steps, 2*3/4 + 1/4 */
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_HIER, &hier8, &t, 1000),
			       4 * 10000 + 1.75 * 500, 1e-9);
	/* hd n = 5: 2 log2 4 + 2 steps, 1.5 + 2 */
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_HD, &uneq, &t, 1000),
			       6 * 10000 + 3.5 * 500, 1e-9);
	/* rd: log2 p steps, 2 log2 p times B (sent and copied); n = 5:
	 * 2 + 2 steps, 4 + 2 times B */
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_RD, &flat4, &t, 1000),
			       2 * 10000 + 4 * 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_RD, &uneq, &t, 1000),
			       4 * 10000 + 6 * 500, 1e-9);
	{
		const struct hc_tune_shape two = { 2, 2, 1 }, one = { 1, 1, 1 };

		/* n = 2: one step, 2 B; ring and hd 2 steps of B/2 each:
		 * rd below alpha / beta = 20000 B */
		CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_RD, &two, &t,
						    1000), 10000 + 2 * 500, 1e-9);
		CU_ASSERT_EQUAL(hc_tune_pick(&two, &t, 19999), HC_ALGO_RD);
		CU_ASSERT_EQUAL(hc_tune_pick(&two, &t, 20001), HC_ALGO_RING);
		CU_ASSERT_DOUBLE_EQUAL(hc_tune_cost(HC_ALGO_RD, &one, &t,
						    1000), 0, 1e-9);
	}
	CU_ASSERT_EQUAL(hc_tune_cost(HC_ALGO_HIER, &uneq, &t, 1000), -1);
	CU_ASSERT_FALSE(hc_tune_can_run(HC_ALGO_HIER, &uneq));
	CU_ASSERT_TRUE(hc_tune_can_run(HC_ALGO_HIER, &flat4));
	/* n = 4: rd below 2 alpha / (2.5 beta) = 16000 B, then hd, never
	 * worse than ring or tree */
	CU_ASSERT_EQUAL(hc_tune_pick(&flat4, &t, 1), HC_ALGO_RD);
	CU_ASSERT_EQUAL(hc_tune_pick(&flat4, &t, 15999), HC_ALGO_RD);
	CU_ASSERT_EQUAL(hc_tune_pick(&flat4, &t, 16001), HC_ALGO_HD);
	CU_ASSERT_EQUAL(hc_tune_pick(&flat4, &t, 1e12), HC_ALGO_HD);
	CU_ASSERT_EQUAL(hc_tune_switches(&flat4, &t, NULL, NULL, NULL, 0), 1);
	CU_ASSERT_EQUAL(hc_algo_id_parse("tree"), HC_ALGO_TREE);
	CU_ASSERT_EQUAL(hc_algo_id_parse("rd"), HC_ALGO_RD);
	CU_ASSERT_STRING_EQUAL(hc_algo_id_name(HC_ALGO_RD), "rd");
	CU_ASSERT_EQUAL(hc_algo_id_parse("auto"), HC_ALGO_AUTO);
	CU_ASSERT_EQUAL(hc_algo_id_parse("Tree"), -1);
	CU_ASSERT_STRING_EQUAL(hc_algo_id_name(HC_ALGO_HIER), "hier");
}

static void
test_crossover(void)
{
	/* n = 5: tree 6 alpha + 2 B beta, ring 8 alpha + 1.6 B beta: the
	 * same at B = 2 alpha / (0.4 beta) = 5 alpha / beta; with alpha
	 * 10 us and beta 0.5 ns/B that is 100000 B (a tie keeps the ring,
	 * the lower id). hd (6 alpha + 3.5 B beta) never wins; rd (4 alpha
	 * + 6 B beta) below alpha / (2 beta) = 10000 B (a tie keeps the
	 * tree). */
	const struct hc_tune t = { 10000, 0.5 };
	const struct hc_tune_shape s5 = { 5, 5, 1 }, s5uneq = { 5, 2, 0 };
	uint64_t at[4];
	enum hc_algo_id from[4], to[4];

	CU_ASSERT_EQUAL(hc_tune_pick(&s5, &t, 9999), HC_ALGO_RD);
	CU_ASSERT_EQUAL(hc_tune_pick(&s5, &t, 10001), HC_ALGO_TREE);
	CU_ASSERT_EQUAL(hc_tune_pick(&s5, &t, 99999), HC_ALGO_TREE);
	CU_ASSERT_EQUAL(hc_tune_pick(&s5, &t, 100001), HC_ALGO_RING);
	CU_ASSERT_EQUAL_FATAL(hc_tune_switches(&s5, &t, at, from, to, 4), 2);
	CU_ASSERT(at[0] == 10000 || at[0] == 10001);
	CU_ASSERT_EQUAL(from[0], HC_ALGO_RD);
	CU_ASSERT_EQUAL(to[0], HC_ALGO_TREE);
	CU_ASSERT(at[1] == 100000 || at[1] == 100001);
	CU_ASSERT_EQUAL(from[1], HC_ALGO_TREE);
	CU_ASSERT_EQUAL(to[1], HC_ALGO_RING);
	/* n = 4: ring 6 alpha + 1.5 B beta, tree 4 alpha + 2 B beta: equal
	 * at 2 alpha / (0.5 beta) = 80000 B; ring and hd never cross
	 * (the same slope), tree and hd only at 0 */
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_RING, HC_ALGO_TREE, &flat4,
					  &t), 80000);
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_RING, HC_ALGO_HD, &flat4,
					  &t), 0);
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_TREE, HC_ALGO_HD, &flat4,
					  &t), 0);
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_HIER, HC_ALGO_HD, &s5uneq,
					  &t), 0);
	/* rd 2 alpha + 4 B beta: hd at 2 alpha / (2.5 beta), ring at
	 * 4 alpha / (2.5 beta) */
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_HD, HC_ALGO_RD, &flat4, &t),
			16000);
	CU_ASSERT_EQUAL(hc_tune_crossover(HC_ALGO_RING, HC_ALGO_RD, &flat4,
					  &t), 32000);
	/* alpha 0: the bandwidth term alone; ring and hd tie (n = 4),
	 * ring (lower id) stays */
	{
		const struct hc_tune z = { 0, 1 };

		CU_ASSERT_EQUAL(hc_tune_pick(&flat4, &z, 1e6), HC_ALGO_RING);
	}
}

/* hc_tune_fit: two timed ring all-gathers, (n-1)(alpha + bytes beta). */
static void
test_tune_fit(void)
{
	const struct hc_tune_shape s2 = { 2, 2, 1 };
	struct hc_tune t;

	/* n = 4, alpha 20 us, beta 0.5 ns/B: 8 B take 3 x 20004 ns, 65536 B
	 * 3 x (20000 + 32768) ns */
	hc_tune_fit(4, 3 * 20004, 8, 3 * 52768, 65536, &t);
	CU_ASSERT_DOUBLE_EQUAL(t.beta_ns, 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t.alpha_ns, 20000, 1e-6);
	/* The 2026-12-04 virtio case (tune.h): small probes slowed to 1.8 ms,
	 * the big one 200 us. The old rule made beta 0 and rd the pick at
	 * every size; here beta is the big probe's 200 us / 65536 B and
	 * alpha at most its 200 us per step, so at n = 2 (rd alpha + 2 B
	 * beta, ring 2 alpha + B beta) rd wins only below alpha / beta =
	 * 65536 B and the ring from there on, 32 MiB included. */
	hc_tune_fit(2, 1800000, 8, 200000, 65536, &t);
	CU_ASSERT_DOUBLE_EQUAL(t.beta_ns, 200000.0 / 65536, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t.alpha_ns, 200000, 1e-6);
	CU_ASSERT_EQUAL(hc_tune_pick(&s2, &t, 65535), HC_ALGO_RD);
	CU_ASSERT_EQUAL(hc_tune_pick(&s2, &t, 65537), HC_ALGO_RING);
	CU_ASSERT_EQUAL(hc_tune_pick(&s2, &t, 32 << 20), HC_ALGO_RING);
	/* equal times: no slope either, the same fallback */
	hc_tune_fit(3, 50000, 8, 50000, 65536, &t);
	CU_ASSERT_DOUBLE_EQUAL(t.beta_ns, 25000.0 / 65536, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t.alpha_ns, 25000, 1e-6);
	/* an intercept below 0 (a small probe quicker than 8 B of beta) is
	 * alpha 0 */
	hc_tune_fit(2, 1, 8, 65537, 65536, &t);
	CU_ASSERT(t.beta_ns > 0.99 && t.beta_ns < 1.01);
	CU_ASSERT_EQUAL(t.alpha_ns, 0);
	/* one rank, or sizes that do not make two points: all 0 */
	hc_tune_fit(1, 100, 8, 1000, 65536, &t);
	CU_ASSERT(t.alpha_ns == 0 && t.beta_ns == 0);
	hc_tune_fit(2, 100, 8, 1000, 8, &t);
	CU_ASSERT(t.alpha_ns == 0 && t.beta_ns == 0);
}

void
add_plan_suite(void)
{
	static const CU_TestInfo tests[] = {
		{ "double binary tree shapes, n 1..17", test_tree_shapes },
		{ "double binary tree, exact nodes", test_tree_exact },
		{ "tree plans run, n 1..17", test_tree_runs },
		{ "halving-doubling plans run, n 1..17", test_hd_runs },
		{ "halving-doubling pre/post steps", test_hd_fold },
		{ "halving-doubling: own contribution touched once first",
		  test_hd_fresh },
		{ "recursive-doubling plans run, n 1..17", test_rd_runs },
		{ "recursive doubling, exact steps and operand order",
		  test_rd_exact },
		{ "two-level plans run, every grouping", test_hier_runs },
		{ "two-level refuses unequal groups", test_hier_unequal },
		{ "C09: 2^31 + 5 elements, n 3 and 7, every plan",
		  test_big_counts },
		{ "cost model values", test_cost_exact },
		{ "tuner crossover", test_crossover },
		{ "tuner fit of the two probes", test_tune_fit },
		CU_TEST_INFO_NULL,
	};

	unit_add_suite("plan", NULL, NULL, tests);
}
