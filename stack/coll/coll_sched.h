/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Bookkeeping every schedule-driven algorithm shares: one message and one
 * received-bytes counter per unit of the schedule (a (step, slice) pair),
 * and how many receives and sends are left. An algorithm's state struct
 * starts with a struct hc_sched, so that the shared sent/fini callbacks
 * below serve every algorithm's ops table.
 */
#ifndef HC_COLL_COLL_SCHED_H
#define HC_COLL_COLL_SCHED_H

#include <stdint.h>

#include "coll.h"

struct hc_sched {
	uint64_t *got;        /**< [unit] bytes received */
	struct hct_msg *msgs; /**< [unit] */
	uint64_t recv_left;   /**< units still to be received */
	uint64_t send_left;   /**< messages not yet cut into packets */
};

/** Allocate units counters and messages. @return 0 or -HC_ERR_NOMEM. */
int hc_sched_init(struct hc_sched *s, uint64_t units, uint64_t recvs,
		  uint64_t sends);

/** Mark op done when nothing is left to receive or send. */
static inline void
hc_sched_maybe_done(struct hc_coll_op *op)
{
	const struct hc_sched *s = op->algo_state;

	if (s->recv_left == 0 && s->send_left == 0)
		op->done = 1;
}

/** struct hc_algo .sent for schedule-driven algorithms. */
void hc_sched_sent(struct hc_coll_op *op, struct hct_msg *msg);

/** struct hc_algo .fini: frees the counters, messages and the state. */
void hc_sched_fini(struct hc_coll_op *op);

#endif /* HC_COLL_COLL_SCHED_H */
