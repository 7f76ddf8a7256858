/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An out-of-tree hypercomm program, built by tests/install/run against an
 * installed tree with `pkg-config --cflags --libs hypercomm` only: the EAL,
 * hc_init, one all-reduce of 1024 floats (rank r contributes r + i), an
 * exact check of the sum, hc_finalize. Prints "example: rank R of N ok"
 * and exits 0, or names what went wrong and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>

#include <hypercomm.h>

#define COUNT 1024

int
main(int argc, char **argv)
{
	static float send[COUNT], recv[COUNT];
	struct hc_ctx *ctx;
	struct hc_comm *world;
	int rc, rank, n, i, bad = 0;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "example: rte_eal_init failed\n");
		return 1;
	}
	rc = hc_init(NULL, &ctx);
	if (rc != 0) {
		fprintf(stderr, "example: hc_init: %s\n", hc_strerror(rc));
		rte_eal_cleanup();
		return 1;
	}
	world = hc_comm_world(ctx);
	rank = hc_comm_rank(world);
	n = hc_comm_size(world);
	for (i = 0; i < COUNT; i++)
		send[i] = (float)(rank + i);
	rc = hc_allreduce(world, send, recv, COUNT, HC_DTYPE_FLOAT32,
			  HC_OP_SUM);
	if (rc != 0) {
		fprintf(stderr, "example: hc_allreduce: %s\n", hc_strerror(rc));
		bad = 1;
	}
	/* sum over r of (r + i) = n(n-1)/2 + n i, exact in float here */
	for (i = 0; rc == 0 && i < COUNT; i++)
		if (recv[i] != (float)(n * (n - 1) / 2 + n * i)) {
			fprintf(stderr, "example: recv[%d] = %g, want %d\n", i,
				recv[i], n * (n - 1) / 2 + n * i);
			bad = 1;
			break;
		}
	if (!bad)
		printf("example: rank %d of %d ok\n", rank, n);
	hc_finalize(ctx);
	rte_eal_cleanup();
	return bad;
}
