/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument checking of the v-collectives and of send/receive, which runs
 * in the calling thread before anything is queued (no network): every
 * refusal is the documented error and consumes no sequence number; the
 * signature covers every count but not the displacements; counts are
 * copied. Also the ring plan with explicit chunk bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "coll.h"
#include "suites.h"

static struct hc_coll coll;

/* A communicator of 4 ranks in which we are rank me. */
static void
comm4(struct hc_comm *comm, uint32_t me)
{
	static const uint32_t world[4] = { 0, 1, 2, 3 };

	CU_ASSERT_EQUAL_FATAL(hc_comm_init(comm, &coll, NULL, 0, me, 4, world,
					   4), 0);
}

static void
test_rsv_args(void)
{
	uint64_t counts[4] = { 1, 0, 3, 2 }, other[4] = { 1, 0, 2, 3 };
	uint64_t zero[4] = { 0, 0, 0, 0 }, huge[4] = { UINT64_MAX / 4, 1, 1, 1 };
	int32_t send[6], recv[3];
	struct hc_coll_op op, op2;
	struct hc_comm comm, comm1;
	const enum hc_coll_kind k = HC_COLL_REDUCE_SCATTERV;

	comm4(&comm, 2);
	comm4(&comm1, 1);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, recv, NULL, NULL,
					  HC_DTYPE_INT32, HC_OP_SUM), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, NULL, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, NULL, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, recv, counts,
					  NULL, HC_DTYPE__MAX, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP__MAX),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, recv, huge, NULL,
					  HC_DTYPE_INT32, HC_OP_SUM), -HC_ERR_INVAL);
	/* our block is element 1 of sendbuf: in place there, partial
	 * overlap one element further */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, send + 2, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(comm.next_seq, 0); /* refusals take no number */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, send + 1, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_EQUAL(op.seq, 0);
	CU_ASSERT_EQUAL(op.count, 3);
	CU_ASSERT_EQUAL(op.total, 6);
	CU_ASSERT_EQUAL(op.out_base, 1);
	CU_ASSERT_PTR_NULL(op.vdispls);
	counts[3] = 99; /* copied: the op keeps the sum */
	CU_ASSERT_EQUAL(op.vbounds[4], 6);
	counts[3] = 2;
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op2, k, send, recv, other,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_EQUAL(op2.seq, 1);
	CU_ASSERT_NOT_EQUAL(op.sig, op2.sig);
	hc_coll_op_end(&op);
	hc_coll_op_end(&op2);
	/* rank 1 receives nothing: recvbuf may be NULL; all zero: both */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm1, &op, k, send, NULL, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	hc_coll_op_end(&op);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm1, &op, k, NULL, NULL, zero,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_EQUAL(op.total, 0);
	hc_coll_op_end(&op);
	hc_comm_fini(&comm);
	hc_comm_fini(&comm1);
}

static void
test_agv_args(void)
{
	uint64_t counts[4] = { 2, 2, 2, 2 }, bad[4] = { 0, 1, 2, 3 };
	uint64_t rev[4] = { 9, 6, 3, 0 }, c1[4] = { 2, 0, 2, 2 };
	int32_t recv[12], send[2];
	struct hc_coll_op op, op2;
	struct hc_comm comm;
	const enum hc_coll_kind k = HC_COLL_ALLGATHERV;

	comm4(&comm, 2);
	/* blocks 0 and 1 overlap */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, send, recv, counts,
					  bad, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	/* sendbuf inside block 0 (packed: elements 0..1) */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, recv + 1, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, NULL, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(comm.next_seq, 0);
	/* in place: our block, packed (element 4) or reversed with gaps
	 * (element 3) */
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, recv + 4, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_PTR_NULL(op.vdispls);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op2, k, recv + 3, recv,
					  counts, rev, HC_DTYPE_INT32, HC_OP_SUM),
			0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(op2.vdispls);
	CU_ASSERT_EQUAL(op2.vdispls[0], 9);
	CU_ASSERT_PTR_EQUAL(hc_coll_gather_ptr(&op2, 0, 1),
			    (uint8_t *)(recv + 10));
	CU_ASSERT_PTR_EQUAL(hc_coll_gather_ptr(&op, 3, 7),
			    (uint8_t *)(recv + 7));
	/* displacements are this rank's layout, not in the signature */
	CU_ASSERT_EQUAL(op.sig, op2.sig);
	hc_coll_op_end(&op);
	hc_coll_op_end(&op2);
	/* counts are: and a rank with count 0 may pass sendbuf NULL */
	comm.rank = 1;
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op, k, NULL, recv, c1, NULL,
					  HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_EQUAL(hc_coll_prepare_v(&comm, &op2, k, send, recv, counts,
					  NULL, HC_DTYPE_INT32, HC_OP_SUM), 0);
	CU_ASSERT_NOT_EQUAL(op.sig, op2.sig);
	hc_coll_op_end(&op);
	hc_coll_op_end(&op2);
	hc_comm_fini(&comm);
}

static void
test_p2p_args(void)
{
	struct hc_coll_op op, a, b, r;
	struct hc_comm comm;
	int32_t x[4];

	comm4(&comm, 2);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_SEND, x, 4,
				       HC_DTYPE_INT32, -1), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_SEND, x, 4,
				       HC_DTYPE_INT32, 4), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_RECV, NULL, 4,
				       HC_DTYPE_INT32, 1), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_RECV, x, 4,
				       HC_DTYPE__MAX, 1), -HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_SEND, x, 4,
				       HC_DTYPE_INT32, 2), -HC_ERR_UNSUPPORTED);
	CU_ASSERT_EQUAL(hc_p2p_prepare(NULL, &op, HC_COLL_SEND, x, 4,
				       HC_DTYPE_INT32, 1), -HC_ERR_INVAL);
	/* sequence numbers per direction and peer, from 0 */
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &a, HC_COLL_SEND, x, 4,
				       HC_DTYPE_INT32, 1), 0);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &b, HC_COLL_SEND, x, 3,
				       HC_DTYPE_INT32, 1), 0);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &r, HC_COLL_RECV, x, 4,
				       HC_DTYPE_INT32, 1), 0);
	CU_ASSERT_EQUAL(hc_p2p_prepare(&comm, &op, HC_COLL_SEND, NULL, 0,
				       HC_DTYPE_INT32, 3), 0);
	CU_ASSERT_EQUAL(a.seq, 0);
	CU_ASSERT_EQUAL(b.seq, 1);
	CU_ASSERT_EQUAL(r.seq, 0);
	CU_ASSERT_EQUAL(op.seq, 0);
	CU_ASSERT_EQUAL(comm.next_seq, 0); /* collectives untouched */
	/* a send and a receive of the same size agree, another size not */
	CU_ASSERT_EQUAL(a.sig, r.sig);
	CU_ASSERT_NOT_EQUAL(a.sig, b.sig);
	CU_ASSERT_EQUAL(a.root, 1);
	hc_comm_fini(&comm);
}

/* Bounds with empty chunks: every chunk's slices tile it exactly, and
 * elements outside a chunk map to no slice. */
static void
test_plan_v(void)
{
	static const uint64_t bounds[5] = { 0, 0, 5, 5, 1000012 };
	struct hc_ring_plan p;
	uint64_t first, len, next;
	uint32_t c, k;

	hc_ring_plan_init_v(&p, bounds, 4, 4, 4096);
	CU_ASSERT_EQUAL(p.count, 1000012);
	CU_ASSERT_EQUAL(p.nslices, (1000007 + 1023) / 1024);
	for (c = 0; c < 4; c++) {
		next = bounds[c];
		for (k = 0; k < p.nslices; k++) {
			hc_ring_span(&p, c, k, &first, &len);
			CU_ASSERT_EQUAL(first, next);
			if (len > 0) {
				CU_ASSERT_EQUAL(hc_ring_slice_of(&p, c, first), k);
				CU_ASSERT_EQUAL(hc_ring_slice_of(&p, c,
							first + len - 1), k);
			}
			next = first + len;
		}
		CU_ASSERT_EQUAL(next, bounds[c + 1]);
	}
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 0, 0), p.nslices);
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 1, 5), p.nslices);
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 3, 4), p.nslices);
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 3, 1000012), p.nslices);
}

/* C19: an op that reaches the engine inconsistent (a dtype smuggled past
 * the API, a missing kernel) ends with HC_ERR_INTERNAL in its status,
 * which is what hc_wait returns, and fails the communicator; nothing is
 * touched (a communicator of one rank: no peer to tell). */
static void
test_engine_check(void)
{
	static const uint32_t world[1] = { 0 };
	int32_t a[4] = { 1, 2, 3, 4 }, b[4] = { 0 };
	struct hc_coll_op op, next;
	struct hc_comm comm;

	CU_ASSERT_EQUAL_FATAL(hc_comm_init(&comm, &coll, NULL, 0, 0, 1, world,
					   1), 0);
	CU_ASSERT_EQUAL(hc_coll_prepare(&comm, &op, HC_COLL_ALLREDUCE, a, b, 4,
					HC_DTYPE_INT32, HC_OP_SUM, 0), 0);
	CU_ASSERT_TRUE(hc_coll_op_valid(&op));
	op.dtype = (enum hc_dtype)42;
	CU_ASSERT_FALSE(hc_coll_op_valid(&op));
	hc_coll_submit(&op);
	CU_ASSERT_EQUAL(op.status, -HC_ERR_INTERNAL);
	CU_ASSERT_FALSE(op.done);
	CU_ASSERT_EQUAL(b[0], 0);
	CU_ASSERT_EQUAL(comm.error, -HC_ERR_INTERNAL);
	hc_coll_op_end(&op);
	CU_ASSERT_EQUAL(hc_coll_prepare(&comm, &next, HC_COLL_ALLREDUCE, a, b,
					4, HC_DTYPE_INT32, HC_OP_SUM, 0), 0);
	hc_coll_submit(&next);
	CU_ASSERT_EQUAL(next.status, -HC_ERR_ABORTED);
	hc_coll_op_end(&next);
	/* a reduction without its kernel; a root outside the communicator */
	CU_ASSERT_EQUAL(hc_coll_prepare(&comm, &op, HC_COLL_REDUCE, a, b, 4,
					HC_DTYPE_INT32, HC_OP_MAX, 0), 0);
	op.reduce3 = NULL; /* every received reduction runs through it */
	CU_ASSERT_FALSE(hc_coll_op_valid(&op));
	op.reduce3 = next.reduce3;
	op.root = 1;
	CU_ASSERT_FALSE(hc_coll_op_valid(&op));
	hc_comm_fini(&comm);
}

/* RX demux: 300 communicators (the world's id 0 and split ids) and, on
 * some, up to 200 outstanding collectives (sequence numbers that collide
 * in the 64 op slots, and one that wraps 2^32): every (comm id, seq) finds
 * its own comm and op, absent ones find nothing, and so after removals in
 * any order. */
static void
test_demux(void)
{
	enum { NC = 300, NOPS = 200 };
	static struct hc_comm comms[NC];
	static struct hc_coll_op ops[NOPS];
	static const uint32_t world[4] = { 0, 1, 2, 3 };
	struct hc_coll c;
	struct hc_coll_conf conf = { .slice_bytes = 1024,
				     .unexpected_max = 16 };
	uint32_t i, bad = 0;

	CU_ASSERT_EQUAL_FATAL(hc_coll_init(&c, NULL, 0, &conf), 0);
	for (i = 0; i < NC; i++) {
		uint32_t id = i == 0 ? 0 : hc_comm_split_id(&comms[0], i,
							    (int)i % 3);

		CU_ASSERT_EQUAL_FATAL(hc_comm_init(&comms[i], &c, NULL, id, 0,
						   4, world, 4), 0);
		hc_coll_add_comm(&c, &comms[i]);
	}
	for (i = 0; i < NC; i++)
		bad += hc_coll_find_comm(&c, comms[i].id) != &comms[i];
	CU_ASSERT_EQUAL(bad, 0);
	/* an id no comm has (the split ids are FNV-1a, never these) */
	CU_ASSERT_PTR_NULL(hc_coll_find_comm(&c, 0xdeadbeef));
	CU_ASSERT_PTR_NULL(hc_coll_find_comm(&c, 7));
	/* ops on comm 5: seq 1000.. (64 apart collide), and 2^32 - 1 */
	for (i = 0; i < NOPS; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].comm = &comms[5];
		ops[i].seq = i == 0 ? UINT32_MAX : 1000 + i * (i % 2 ? 1 : 64);
		hc_comm_active_add(&comms[5], &ops[i]);
	}
	for (i = 0; i < NOPS; i++)
		bad += hc_comm_find_op(&comms[5], ops[i].seq) != &ops[i];
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_PTR_NULL(hc_comm_find_op(&comms[5], 999));
	CU_ASSERT_PTR_NULL(hc_comm_find_op(&comms[6], ops[1].seq));
	/* end every other op (mapped and unmapped alike) */
	for (i = 0; i < NOPS; i += 2)
		hc_comm_active_remove(&comms[5], &ops[i]);
	for (i = 0; i < NOPS; i++)
		bad += hc_comm_find_op(&comms[5], ops[i].seq) !=
		       (i % 2 ? &ops[i] : NULL);
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 1; i < NOPS; i += 2)
		hc_comm_active_remove(&comms[5], &ops[i]);
	CU_ASSERT_EQUAL(comms[5].unmapped, 0);
	for (i = 0; i < NOPS; i++)
		bad += hc_comm_find_op(&comms[5], ops[i].seq) != NULL;
	CU_ASSERT_EQUAL(bad, 0);
	/* unregister every third comm; the rest still route */
	for (i = 0; i < NC; i += 3)
		hc_comm_fini(&comms[i]);
	for (i = 0; i < NC; i++)
		bad += hc_coll_find_comm(&c, comms[i].id) !=
		       (i % 3 ? &comms[i] : NULL);
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 0; i < NC; i++)
		if (i % 3)
			hc_comm_fini(&comms[i]);
	CU_ASSERT_EQUAL(c.ncomms, 0);
	CU_ASSERT_PTR_NULL(hc_coll_find_comm(&c, comms[1].id));
	hc_coll_free(&c);
}

static CU_TestInfo tests[] = {
	{ "RX demux: 300 communicators, 200 outstanding ops", test_demux },
	{ "C19 engine-side check of a smuggled op", test_engine_check },
	{ "reduce-scatterv arguments", test_rsv_args },
	{ "all-gatherv arguments", test_agv_args },
	{ "send/receive arguments and sequence numbers", test_p2p_args },
	{ "ring plan with explicit chunk bounds", test_plan_v },
	CU_TEST_INFO_NULL,
};

void
add_prepare_suite(void)
{
	unit_add_suite("prepare", NULL, NULL, tests);
}
