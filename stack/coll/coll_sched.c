/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include "coll_sched.h"

int
hc_sched_init(struct hc_sched *s, uint64_t units, uint64_t recvs,
	      uint64_t sends)
{
	s->got = calloc(units, sizeof(*s->got));
	s->msgs = calloc(units, sizeof(*s->msgs));
	if (s->got == NULL || s->msgs == NULL) {
		free(s->got);
		free(s->msgs);
		s->got = NULL;
		s->msgs = NULL;
		return -HC_ERR_NOMEM;
	}
	s->recv_left = recvs;
	s->send_left = sends;
	return 0;
}

void
hc_sched_sent(struct hc_coll_op *op, struct hct_msg *msg)
{
	struct hc_sched *s = op->algo_state;

	(void)msg;
	s->send_left--;
	hc_sched_maybe_done(op);
}

void
hc_sched_fini(struct hc_coll_op *op)
{
	struct hc_sched *s = op->algo_state;

	free(s->got);
	free(s->msgs);
	free(s);
}
