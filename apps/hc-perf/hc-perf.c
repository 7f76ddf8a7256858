/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-perf: the all-reduce benchmark. Command line testpmd-style
 * (hc-perf [EAL args] -- [options]), options and output nccl-tests-style
 * (all_reduce_perf), so that scripts that parse nccl-tests parse this.
 *
 * Columns: size (bytes), count (elements), type, redop, root (-1: none),
 * then out-of-place and in-place: time (us, mean per iteration over the
 * ranks), algbw = size / time, busbw = algbw * 2(n-1)/n (the traffic each
 * rank sends in a bandwidth-optimal all-reduce), GB/s = 1e9 bytes/s, and
 * #wrong: elements that differed from the expected result over all ranks
 * (checked on a separate run before the timed ones; N/A without -c).
 * Exit status: 0, 1 when any element was wrong, 2 on usage or API errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "hypercomm.h"
#include "opts.h"
#include "pattern.h"

/* busbw / algbw: what each rank sends in a bandwidth-optimal algorithm
 * relative to the buffer (nccl-tests doc/PERFORMANCE.md). */
static double
bus_factor(enum coll c, int n)
{
	if (c == COLL_BCAST || c == COLL_REDUCE)
		return 1.0;
	return c == COLL_ALLREDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
}


static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct result {
	double time_us; /* mean over ranks */
	int64_t wrong;  /* sum over ranks, -1: not checked */
};

/* One call of the measured collective; count is per rank (all-reduce:
 * the whole buffer). In place: nccl-tests' layouts. */
static int
coll_call(struct hc_comm *comm, enum coll c, void *sbuf, void *rbuf,
	  uint64_t count, int dtype, int op, int inplace, int root)
{
	size_t blk = count * hc_dtype_size(dtype) * hc_comm_rank(comm);

	switch (c) {
	case COLL_BCAST:
		return hc_broadcast(comm, inplace ? rbuf : sbuf, rbuf, count,
				    dtype, root);
	case COLL_REDUCE:
		return hc_reduce(comm, inplace ? rbuf : sbuf, rbuf, count, dtype,
				 op, root);
	case COLL_REDUCESCATTER:
		return hc_reduce_scatter(comm, sbuf, inplace ?
					 (uint8_t *)sbuf + blk : rbuf, count,
					 dtype, op);
	case COLL_ALLGATHER:
		return hc_allgather(comm, inplace ? (uint8_t *)rbuf + blk : sbuf,
				    rbuf, count, dtype);
	default:
		return hc_allreduce(comm, inplace ? rbuf : sbuf, rbuf, count,
				    dtype, op);
	}
}

/* Fill the inputs with the CASES patterns, run once, count wrong
 * elements of this rank's output. */
static int64_t
check_once(struct hc_comm *comm, enum coll c, void *sbuf, void *rbuf,
	   uint64_t count, int dtype, int op, int inplace, int root, int *rc)
{
	int r = hc_comm_rank(comm), n = hc_comm_size(comm);
	size_t es = hc_dtype_size(dtype);
	uint8_t *in, *out;
	int64_t wrong = 0;
	uint64_t i;

	switch (c) {
	case COLL_BCAST:
		hc_pattern_fill(inplace ? rbuf : sbuf, dtype, HC_OP_SUM, count, r);
		if (!inplace)
			memset(rbuf, 0xa5, count * es);
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		for (i = 0; i < count && *rc == 0; i++)
			wrong += hc_pattern_load(rbuf, dtype, i) !=
				 hc_pattern_value(dtype, HC_OP_SUM, i, root);
		return wrong;
	case COLL_REDUCE:
		hc_pattern_fill(inplace ? rbuf : sbuf, dtype, op, count, r);
		if (!inplace)
			memset(rbuf, 0xa5, count * es);
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		if (*rc != 0 || r != root)
			return 0;
		return (int64_t)hc_pattern_wrong(rbuf, dtype, op, count, n);
	case COLL_REDUCESCATTER:
		hc_pattern_fill(sbuf, dtype, op, count * n, r);
		out = inplace ? (uint8_t *)sbuf + count * es * r : rbuf;
		if (!inplace)
			memset(rbuf, 0xa5, count * es);
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		for (i = 0; i < count && *rc == 0; i++)
			wrong += hc_pattern_load(out, dtype, i) !=
				 hc_pattern_expected(dtype, op,
						     (uint64_t)r * count + i, n);
		return wrong;
	case COLL_ALLGATHER:
		in = inplace ? (uint8_t *)rbuf + count * es * r : sbuf;
		if (!inplace)
			memset(rbuf, 0xa5, count * es * n);
		for (i = 0; i < count; i++)
			hc_pattern_store(in, dtype, i,
					 hc_pattern_value(dtype, HC_OP_SUM, i, r));
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		for (i = 0; i < count * n && *rc == 0; i++)
			wrong += hc_pattern_load(rbuf, dtype, i) !=
				 hc_pattern_value(dtype, HC_OP_SUM, i % count,
						  (int)(i / count));
		return wrong;
	default:
		hc_pattern_fill(inplace ? rbuf : sbuf, dtype, op, count, r);
		if (!inplace)
			memset(rbuf, 0xa5, count * es);
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		return *rc == 0 ? (int64_t)hc_pattern_wrong(rbuf, dtype, op,
							    count, n) : 0;
	}
}

/* One column group: check run, warm-up, timed iterations. */
static int
run_one(struct hc_comm *comm, const struct opts *o, void *sbuf, void *rbuf,
	uint64_t count, int dtype, int op, int inplace, struct result *res)
{
	int n = hc_comm_size(comm), i, rc = 0;
	int64_t wrong = 0;
	double t0, t, sum;

	if (o->check) {
		wrong = check_once(comm, o->coll, sbuf, rbuf, count, dtype, op,
				   inplace, o->root, &rc);
		if (rc != 0)
			return rc;
		rc = hc_allreduce(comm, &wrong, &wrong, 1, HC_DTYPE_INT64,
				  HC_OP_SUM);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < o->warmup; i++)
		if ((rc = coll_call(comm, o->coll, sbuf, rbuf, count, dtype, op,
				    inplace, o->root)) != 0)
			return rc;
	t0 = now_us();
	for (i = 0; i < o->iters; i++)
		if ((rc = coll_call(comm, o->coll, sbuf, rbuf, count, dtype, op,
				    inplace, o->root)) != 0)
			return rc;
	t = (now_us() - t0) / o->iters;
	sum = t;
	rc = hc_allreduce(comm, &sum, &sum, 1, HC_DTYPE_FLOAT64, HC_OP_SUM);
	if (rc != 0)
		return rc;
	res->time_us = sum / n;
	res->wrong = o->check ? wrong : -1;
	return 0;
}

static double
algbw(const struct result *res, uint64_t bytes)
{
	return res->time_us > 0 ? bytes / res->time_us / 1e3 : 0;
}

static double
busbw(const struct result *res, uint64_t bytes, enum coll c, int n)
{
	return algbw(res, bytes) * bus_factor(c, n);
}

static void
print_group(const struct result *res, uint64_t bytes, enum coll c, int n)
{
	char t[32], w[32];

	if (res->time_us >= 10000.0)
		snprintf(t, sizeof(t), "%7.0f", res->time_us);
	else if (res->time_us >= 100.0)
		snprintf(t, sizeof(t), "%7.1f", res->time_us);
	else
		snprintf(t, sizeof(t), "%7.2f", res->time_us);
	if (res->wrong < 0)
		snprintf(w, sizeof(w), "N/A");
	else
		snprintf(w, sizeof(w), "%" PRId64, res->wrong);
	printf("  %7s  %6.2f  %6.2f  %6s", t, algbw(res, bytes),
	       busbw(res, bytes, c, n), w);
}

int
main(int argc, char **argv)
{
	struct hc_init_params ip = { NULL, -1, 0 };
	struct hc_ctx *ctx = NULL;
	struct hc_comm *comm;
	struct opts o;
	int ret, n, r, d, p, rc = 0, lines = 0;
	int64_t wrong_total = 0;
	double bw_sum = 0;
	uint64_t size;
	void *sbuf = NULL, *rbuf = NULL;
	char tuner[512];

	/* --help, alone or after the EAL arguments' "--", without an EAL
	 * (rte_eal_init would print DPDK's own help instead). */
	for (n = 1; n < argc; n++)
		if (strcmp(argv[n], "-h") == 0 ||
		    strcmp(argv[n], "--help") == 0) {
			hc_perf_usage(stdout);
			return 0;
		}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "hc-perf: EAL init failed (EAL args come "
			"before --)\n");
		return 2;
	}
	argc -= ret;
	argv += ret;
	argv[0] = "hc-perf";
	ret = hc_perf_parse_opts(argc, argv, &o, stderr);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	ip.config_path = o.config;
	ip.rank = o.rank;
	ip.world_size = o.world;
	rc = hc_init(&ip, &ctx);
	if (rc != 0) {
		fprintf(stderr, "hc-perf: hc_init: %s\n", hc_strerror(rc));
		rte_eal_cleanup();
		return 2;
	}
	comm = hc_comm_world(ctx);
	n = hc_comm_size(comm);
	r = hc_comm_rank(comm);
	if (o.root >= n) {
		fprintf(stderr, "hc-perf: -r %d: only %d ranks\n", o.root, n);
		rc = -HC_ERR_INVAL;
		goto out;
	}
	sbuf = malloc(o.maxbytes > 0 ? o.maxbytes : 1);
	rbuf = malloc(o.maxbytes > 0 ? o.maxbytes : 1);
	if (sbuf == NULL || rbuf == NULL) {
		fprintf(stderr, "hc-perf: cannot allocate 2 x %" PRIu64 " bytes\n",
			o.maxbytes);
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	if (r == 0) {
		printf("# hc-perf %s: nranks %d minBytes %" PRIu64
		       " maxBytes %" PRIu64 " step: %" PRIu64 "(factor) "
		       "warmup iters: %d iters: %d validation: %d\n",
		       colls[o.coll].title, n,
		       o.minbytes, o.maxbytes, o.factor, o.warmup, o.iters,
		       o.check);
		if (hc_comm_tuner_info(comm, tuner, sizeof(tuner)) >= 0)
			printf("# tuner: %s\n", tuner);
		printf("#\n");
		printf("# %10s  %12s  %8s  %6s  %6s           out-of-place"
		       "                       in-place          \n",
		       "", "", "", "", "");
		printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s"
		       "  %6s  %6s  %6s\n", "size", "count", "type", "redop",
		       "root", "time", "algbw", "busbw", "#wrong", "time",
		       "algbw", "busbw", "#wrong");
		printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s"
		       "  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "",
		       "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
		       "(GB/s)", "");
		fflush(stdout);
	}
	for (d = 0; d < HC_DTYPE__MAX; d++) {
		if (o.dtype >= 0 && d != o.dtype)
			continue;
		for (p = 0; p < HC_OP__MAX; p++) {
			/* -o names the op of the reducing collectives; the
			 * others run once whatever it says */
			if (colls[o.coll].reduces ? o.op >= 0 && p != o.op
						  : p != HC_OP_SUM)
				continue;
			for (size = o.minbytes; size <= o.maxbytes;
			     size = hc_perf_next_size(&o, size)) {
				/* count: per rank; shown: the whole buffer */
				uint64_t shown = size / hc_dtype_size(d);
				uint64_t count = colls[o.coll].blocks ?
						 shown / n : shown;
				uint64_t bytes;
				struct result out, in;

				shown = colls[o.coll].blocks ? count * n : count;
				bytes = shown * hc_dtype_size(d);

				rc = run_one(comm, &o, sbuf, rbuf, count, d, p,
					     0, &out);
				if (rc == 0)
					rc = run_one(comm, &o, sbuf, rbuf, count,
						     d, p, 1, &in);
				if (rc != 0)
					goto out;
				wrong_total += (out.wrong > 0 ? out.wrong : 0) +
					       (in.wrong > 0 ? in.wrong : 0);
				if (r != 0)
					continue;
				printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6i",
				       bytes, shown, hc_dtype_name(d),
				       colls[o.coll].reduces ? hc_op_name(p) :
				       "none", o.coll == COLL_BCAST ||
				       o.coll == COLL_REDUCE ? o.root : -1);
				print_group(&out, bytes, o.coll, n);
				print_group(&in, bytes, o.coll, n);
				printf("\n");
				fflush(stdout);
				/* nccl-tests averages busbw over both
				 * columns of every line. */
				bw_sum += busbw(&out, bytes, o.coll, n) +
					  busbw(&in, bytes, o.coll, n);
				lines += 2;
			}
		}
	}
	if (r == 0) {
		printf("# Out of bounds values : %" PRId64 " %s\n", wrong_total,
		       wrong_total ? "FAILED" : "OK");
		printf("# Avg bus bandwidth    : %g \n",
		       lines > 0 ? bw_sum / lines : 0.0);
		printf("#\n");
	}
out:
	if (rc != 0)
		fprintf(stderr, "hc-perf: rank %d: %s\n", r, hc_strerror(rc));
	free(sbuf);
	free(rbuf);
	hc_finalize(ctx);
	rte_eal_cleanup();
	if (rc != 0)
		return 2;
	return wrong_total != 0 ? 1 : 0;
}
