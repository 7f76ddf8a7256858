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

/** struct hc_algo .data: DATA from comm rank src, matched to the RECV step
 *  of (src, d->step); anything that does not fit it counts as bad_data. */
enum hct_rx_verdict hc_plan_run_data(struct hc_coll_op *op, uint32_t src,
				     const struct hct_data_desc *d,
				     const uint8_t *payload);

/** struct hc_algo .fini. */
void hc_plan_run_fini(struct hc_coll_op *op);

/** The ops table entries every plan-driven algorithm shares. */
#define HC_PLAN_RUN_OPS                                                      \
	.data = hc_plan_run_data, .sent = hc_sched_sent,                     \
	.fini = hc_plan_run_fini

#endif /* HC_COLL_PLAN_RUN_H */
