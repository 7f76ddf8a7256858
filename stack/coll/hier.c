/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two-level (hierarchical) all-reduce, the HSDP pattern: ranks are grouped
 * by the per-rank `group` key of the cluster file (default: the ranks that
 * share an IP address, i.e. a node). With m groups of g ranks each:
 *   1. reduce-scatter inside the group: the buffer is cut in g blocks and
 *      member i of every group collects block i (direct sends, one step);
 *   2. all-reduce of block i among the m ranks that are member i of their
 *      group (halving-doubling, hd.c), which computes its final value;
 *   3. all-gather inside the group (direct sends, one step).
 * Only 1/g of the buffer crosses between groups per rank. One group, or
 * groups of one rank, make one of the levels empty: the plan is then
 * halving-doubling over all ranks. Groups of different sizes are refused
 * (-HC_ERR_UNSUPPORTED): the tuner does not pick hier then, and forcing it
 * is an error.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"
#include "log.h"
#include "plan.h"
#include "plan_run.h"

#define TAG_GATHER 0x800

int
hc_hier_plan(struct hc_plan *p, uint32_t n, uint32_t r, uint64_t count,
	     const uint32_t *group)
{
	uint32_t *members = malloc(n * sizeof(*members));
	uint32_t *leads = malloc(n * sizeof(*leads));
	uint32_t *peers = malloc(n * sizeof(*peers));
	uint32_t g = 0, m = 0, me = 0, mine = 0, i, j, k;
	int rc = 0;

	if (members == NULL || leads == NULL || peers == NULL) {
		p->err = -HC_ERR_NOMEM;
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	/* Groups in the order of their lowest rank; ours, and its members. */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && group[j] != group[i]; j++)
			;
		if (j == i)
			leads[m++] = i;
		if (group[i] == group[r]) {
			if (i == r)
				me = g;
			members[g++] = i;
		}
	}
	for (k = 0; k < m; k++) {
		uint32_t size = 0, idx = 0;

		if (group[leads[k]] == group[r])
			mine = k;
		for (i = 0; i < n; i++)
			if (group[i] == group[leads[k]]) {
				if (idx++ == me)
					peers[k] = i;
				size++;
			}
		if (size != g) {
			rc = -HC_ERR_UNSUPPORTED;
			goto out;
		}
	}
#define AT(b) hc_plan_part(count, g, (b))
	for (j = 0; j < g; j++)
		if (j != me) {
			hc_plan_add(p, HC_STEP_SEND, 0, members[j], 0, AT(j),
				    AT(j + 1) - AT(j));
			hc_plan_add(p, HC_STEP_RECV_RED, 0, members[j], 0,
				    AT(me), AT(me + 1) - AT(me));
		}
	hc_hd_plan_sub(p, peers, m, mine, AT(me), AT(me + 1) - AT(me), 1);
	for (j = 0; j < g; j++)
		if (j != me) {
			hc_plan_add(p, HC_STEP_SEND, 1, members[j], TAG_GATHER,
				    AT(me), AT(me + 1) - AT(me));
			hc_plan_add(p, HC_STEP_RECV_COPY, 1, members[j],
				    TAG_GATHER, AT(j), AT(j + 1) - AT(j));
		}
#undef AT
out:
	free(members);
	free(leads);
	free(peers);
	return rc;
}

static int
hier_start(struct hc_coll_op *op)
{
	struct hc_comm *comm = op->comm;
	struct hc_plan p;
	int rc;

	if (hc_plan_run_reuse(op))
		return 0;
	hc_plan_init(&p);
	rc = hc_hier_plan(&p, comm->size, comm->rank, op->total, comm->group);
	if (rc == -HC_ERR_UNSUPPORTED)
		HC_LOG(ERR, COLL, "hier: the groups of this communicator differ "
		       "in size");
	if (rc != 0) {
		hc_plan_free(&p);
		return rc;
	}
	return hc_plan_run_start(op, &p);
}

const struct hc_algo hc_algo_hier = {
	.name = "hier",
	.start = hier_start,
	HC_PLAN_RUN_OPS,
};
