/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The executor of step plans (plan.h), shared by the ops tables of the
 * plan-driven all-reduce algorithms (tree.c, hd.c, hier.c).
 */
#ifndef HC_COLL_PLAN_RUN_H
#define HC_COLL_PLAN_RUN_H

#include "coll.h"
#include "plan.h"

/**
 * struct hc_algo .start tail: link plan, take it over (it is freed by
 * hc_plan_run_fini, or here on failure) and issue the steps that wait for
 * nothing. @return 0, -HC_ERR_NOMEM.
 */
int hc_plan_run_start(struct hc_coll_op *op, struct hc_plan *plan);

/** The largest plan (steps) and snapshot buffer (bytes) whose executor
 *  state a communicator keeps for reuse (hc_plan_run_reuse): the short
 *  messages recursive doubling is for, every tree, hd or hier plan of a
 *  few slices; not the snapshots of a large forced rd. */
#define HC_PLAN_RUN_CACHE_STEPS_MAX 256
#define HC_PLAN_RUN_CACHE_SNAP_MAX (64 * 1024)

/**
 * struct hc_algo .start head: when op's communicator keeps the executor
 * state of a completed op of the same algorithm, total, element and
 * accumulation size (whose plan is therefore the same), take it over,
 * reset, and issue the steps that wait for nothing, as
 * hc_plan_run_start does with a new plan. Engine thread.
 * @return 1 when op started so, 0 when the caller must build its plan.
 */
int hc_plan_run_reuse(struct hc_coll_op *op);

/** Free the executor state comm keeps (hc_comm_fini). */
void hc_plan_run_cache_free(struct hc_comm *comm);

/** struct hc_algo .data: DATA from comm rank src, matched to the RECV step
 *  of (src, d->step); anything that does not fit it counts as bad_data. */
enum hct_rx_verdict hc_plan_run_data(struct hc_coll_op *op, uint32_t src,
				     const struct hct_data_desc *d,
				     const uint8_t *payload);

/** struct hc_algo .fini: the state of a completed op within the limits
 *  above goes to its communicator's cache (replacing what was there),
 *  any other is freed. */
void hc_plan_run_fini(struct hc_coll_op *op);

/** The ops table entries every plan-driven algorithm shares. */
#define HC_PLAN_RUN_OPS                                                      \
	.data = hc_plan_run_data, .sent = hc_sched_sent,                     \
	.fini = hc_plan_run_fini

#endif /* HC_COLL_PLAN_RUN_H */
