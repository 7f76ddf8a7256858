/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HSDP communicators (hypercomm.h, hc_comm_hsdp): the shard groups from
 * the [rank.N] group key when they fit, else from consecutive ranks, and
 * the replica communicators across them, by two hc_comm_split calls.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hypercomm.h"
#include "engine.h"

/* Whether every group of comm (comm->group) has exactly size members. */
static int
groups_fit(const struct hc_comm *comm, uint32_t size)
{
	uint32_t i, j, cnt;

	if (comm->group == NULL)
		return 0;
	for (i = 0; i < comm->size; i++) {
		for (cnt = 0, j = 0; j < comm->size; j++)
			cnt += comm->group[j] == comm->group[i];
		if (cnt != size)
			return 0;
	}
	return 1;
}

int
hc_comm_hsdp(struct hc_comm *comm, int shard_size, struct hc_comm **shard,
	     struct hc_comm **replica)
{
	uint32_t n, me, color, pos, j;
	int rc;

	if (shard != NULL)
		*shard = NULL;
	if (replica != NULL)
		*replica = NULL;
	if (comm == NULL || shard == NULL || replica == NULL ||
	    shard_size < 1 || (uint32_t)shard_size > comm->size ||
	    comm->size % (uint32_t)shard_size != 0)
		return -HC_ERR_INVAL;
	n = comm->size;
	me = comm->rank;
	if (groups_fit(comm, (uint32_t)shard_size)) {
		/* Color: the group id; position: members of the group
		 * before me in comm order. Group ids are at most
		 * HC_GROUP_MAX, so they fit an int. */
		color = comm->group[me];
		for (pos = 0, j = 0; j < me; j++)
			pos += comm->group[j] == color;
	} else {
		color = me / (uint32_t)shard_size;
		pos = me % (uint32_t)shard_size;
	}
	rc = hc_comm_split(comm, (int)color, (int)pos, shard);
	if (rc != 0)
		return rc;
	rc = hc_comm_split(comm, (int)pos, (int)me, replica);
	(void)n;
	return rc;
}
