/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Double binary tree all-reduce (Sanders, Speck, Träff, "Two-tree
 * algorithms for full bandwidth broadcast, reduction and scan", Parallel
 * Computing 35(12), 2009; used by NCCL from 2.4): the buffer is cut in two
 * halves, each reduced up one of two complementary binary trees and
 * broadcast back down it, pipelined in chunks. A leaf of one tree is
 * interior in the other, so every rank sends and receives about twice the
 * buffer in all, as in the ring, with 2 log2(n) steps of latency instead
 * of 2(n-1). The final value of each element is computed once, at the
 * root of its tree, and copied down: every rank holds the same bits.
 */
#include "coll.h"
#include "coll_sched.h"
#include "log.h"
#include "plan.h"
#include "plan_run.h"

/* The element of [lo, hi) (1 <= lo < hi) with the most trailing zero
 * bits: the largest multiple of the largest power of two the range holds. */
static uint32_t
range_root(uint32_t lo, uint32_t hi)
{
	uint32_t b;

	for (b = 31; b > 0; b--) {
		uint32_t m = 1u << b, x = (hi - 1) / m * m;

		if (x >= lo && x > 0)
			return x;
	}
	return hi - 1;
}

/* Node of virtual rank v in tree 0 of n ranks: descend from the range
 * 1..n-1 hung below rank 0 until v is the root of its range. */
static void
vnode(uint32_t n, uint32_t v, struct hc_tree_node *o)
{
	uint32_t lo = 1, hi = n, parent = 0, k = 0;

	o->parent = o->child[0] = o->child[1] = UINT32_MAX;
	if (n <= 1)
		return;
	if (v == 0) {
		o->child[0] = range_root(1, n);
		return;
	}
	for (;;) {
		uint32_t root = range_root(lo, hi);

		if (root == v) {
			o->parent = parent;
			if (lo < root)
				o->child[k++] = range_root(lo, root);
			if (root + 1 < hi)
				o->child[k++] = range_root(root + 1, hi);
			return;
		}
		parent = root;
		if (v < root)
			hi = root;
		else
			lo = root + 1;
	}
}

/* Physical rank of virtual rank v in tree t, and back. */
static uint32_t
to_phys(uint32_t n, uint32_t t, uint32_t v)
{
	if (t == 0 || v == UINT32_MAX)
		return v;
	return n % 2 == 0 ? n - 1 - v : (v + 1) % n;
}

static uint32_t
to_virt(uint32_t n, uint32_t t, uint32_t r)
{
	if (t == 0)
		return r;
	return n % 2 == 0 ? n - 1 - r : (r + n - 1) % n;
}

void
hc_tree_node(uint32_t n, uint32_t t, uint32_t r, struct hc_tree_node *o)
{
	vnode(n, to_virt(n, t, r), o);
	o->parent = to_phys(n, t, o->parent);
	o->child[0] = to_phys(n, t, o->child[0]);
	o->child[1] = to_phys(n, t, o->child[1]);
}

uint32_t
hc_tree_chunks(uint64_t half, uint32_t acc_size, uint64_t slice_bytes)
{
	uint64_t per = slice_bytes / acc_size, c;

	if (per == 0)
		per = 1;
	c = (half + per - 1) / per;
	return c < 1 ? 1 : c > 64 ? 64 : (uint32_t)c;
}

/* Tags: ((chunk * 2 + tree) * 2 + direction), direction 0 up, 1 down. */
static uint16_t
tag(uint32_t chunk, uint32_t t, uint32_t down)
{
	return (uint16_t)((chunk * 2 + t) * 2 + down);
}

void
hc_tree_plan(struct hc_plan *p, uint32_t n, uint32_t r, uint64_t count,
	     uint32_t acc_size, uint64_t slice_bytes)
{
	struct hc_tree_node node[2];
	uint64_t half[3] = { 0, count / 2, count };
	uint32_t chunks[2], c, t, k;

	for (t = 0; t < 2; t++) {
		hc_tree_node(n, t, r, &node[t]);
		chunks[t] = hc_tree_chunks(half[t + 1] - half[t], acc_size,
					   slice_bytes);
	}
	/* Chunks of both trees interleaved, so that both pipelines fill. */
	for (c = 0; c < 64; c++)
		for (t = 0; t < 2; t++) {
			const struct hc_tree_node *o = &node[t];
			uint64_t len = half[t + 1] - half[t], first, end;

			if (c >= chunks[t])
				continue;
			first = half[t] + hc_plan_part(len, chunks[t], c);
			end = half[t] + hc_plan_part(len, chunks[t], c + 1);
			for (k = 0; k < 2; k++)
				if (o->child[k] != UINT32_MAX)
					hc_plan_add(p, HC_STEP_RECV_RED, 0,
						    o->child[k], tag(c, t, 0),
						    first, end - first);
			if (o->parent != UINT32_MAX) {
				hc_plan_add(p, HC_STEP_SEND, 0, o->parent,
					    tag(c, t, 0), first, end - first);
				hc_plan_add(p, HC_STEP_RECV_COPY, 1, o->parent,
					    tag(c, t, 1), first, end - first);
			} else {
				hc_plan_add(p, HC_STEP_FINISH, 0, 0, 0, first,
					    end - first);
			}
			for (k = 0; k < 2; k++)
				if (o->child[k] != UINT32_MAX)
					hc_plan_add(p, HC_STEP_SEND, 1,
						    o->child[k], tag(c, t, 1),
						    first, end - first);
		}
}

static int
tree_start(struct hc_coll_op *op)
{
	struct hc_plan p;

	if (hc_plan_run_reuse(op))
		return 0;
	hc_plan_init(&p);
	hc_tree_plan(&p, op->comm->size, op->comm->rank, op->total,
		     op->acc_size, op->comm->coll->slice_bytes);
	return hc_plan_run_start(op, &p);
}

const struct hc_algo hc_algo_tree = {
	.name = "tree",
	.start = tree_start,
	HC_PLAN_RUN_OPS,
};
