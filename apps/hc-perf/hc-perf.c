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
	double p50, p99, max; /* -P: per-iteration times (us), each the
			       * slowest rank's */
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile (the ceil(q * n)-th smallest) of sorted v[n]. */
static double
percentile(const double *v, int n, double q)
{
	int k = (int)(q * n + 0.999999);

	if (k < 1)
		k = 1;
	return v[(k > n ? n : k) - 1];
}

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
		hc_pattern_fill_gather(in, dtype, count, r);
		*rc = coll_call(comm, c, sbuf, rbuf, count, dtype, op, inplace,
				root);
		for (i = 0; i < count * n && *rc == 0; i++)
			wrong += hc_pattern_load(rbuf, dtype, i) !=
				 hc_pattern_gather(dtype, i % count,
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

/* -c 0 still times real data, as a training job's tensors are: the
 * check's input pattern of (d, op) over both whole buffers, once before a
 * (dtype, op) sweep (untimed; the timed runs then only overwrite it with
 * results, which stay in the dtype's range or saturate, pattern.h). Without
 * it the send buffer of an out-of-place run is never written: not resident
 * (/proc/PID/smaps: 64 of sbuf's and rbuf's 128 MiB at 64 MiB), its reads
 * map the kernel's zero page. Measured 2026-12-05, 2 ranks over memif,
 * float sum, out-of-place busbw at 2 / 4 / 16 MiB: unwritten 1.43 / 1.42 /
 * 1.55 GB/s, this pattern (-c 1) 3.04 / 2.64 / 3.01 GB/s, in place about 3
 * GB/s either way. A memset to zeros right after the malloc measured as
 * slow (1.62 / 1.51 / 1.48) only because GCC turns malloc + memset 0 into
 * calloc, which writes nothing; zeros written here are as fast as the
 * pattern (README, "-c 0"). */
static void
fill_inputs(struct hc_comm *comm, const struct opts *o, void *sbuf,
	    void *rbuf, int d, int op)
{
	uint64_t k = o->maxbytes / hc_dtype_size(d);

	hc_pattern_fill(sbuf, d, op, k, hc_comm_rank(comm));
	hc_pattern_fill(rbuf, d, op, k, hc_comm_rank(comm));
}

/* One column group: check run, warm-up, timed iterations. */
static int
run_one(struct hc_comm *comm, const struct opts *o, void *sbuf, void *rbuf,
	uint64_t count, int dtype, int op, int inplace, struct result *res,
	double *it)
{
	int n = hc_comm_size(comm), i, rc = 0;
	int64_t wrong = 0;
	double t0, t, sum, prev;

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
	t0 = prev = now_us();
	for (i = 0; i < o->iters; i++) {
		if ((rc = coll_call(comm, o->coll, sbuf, rbuf, count, dtype, op,
				    inplace, o->root)) != 0)
			return rc;
		if (it != NULL) { /* -P: one clock read per iteration */
			t = now_us();
			it[i] = t - prev;
			prev = t;
		}
	}
	t = ((it != NULL ? prev : now_us()) - t0) / o->iters;
	if (it != NULL) {
		/* each iteration's time on the slowest rank */
		rc = hc_allreduce(comm, it, it, (uint64_t)o->iters,
				  HC_DTYPE_FLOAT64, HC_OP_MAX);
		if (rc != 0)
			return rc;
		qsort(it, (size_t)o->iters, sizeof(*it), cmp_double);
		res->p50 = percentile(it, o->iters, 0.50);
		res->p99 = percentile(it, o->iters, 0.99);
		res->max = it[o->iters - 1];
	}
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

/* --cpu: the stack's CPU per DATA packet over the sweep (hc_stats cpu_*
 * between a and b), the ranks' sums; rank 0 prints the '# cpu:' line. */
static int
print_cpu(struct hc_comm *comm, const struct hc_stats *a,
	  const struct hc_stats *b)
{
	int n = hc_comm_size(comm), rc;
	double v[12], ns;

	/* The probe's own reads inside the stack's part of the sections:
	 * about two per section per poll (the section's and the PMD's
	 * bounds), one per payload pair (TX: each DATA packet's copy; RX: each
	 * packet's CRC check and each DATA packet's reduce or copy). */
	v[0] = (double)(b->cpu_tx_cyc - a->cpu_tx_cyc) -
	       (double)(b->cpu_tx_payload_cyc - a->cpu_tx_payload_cyc);
	v[1] = (double)b->cpu_read_cyc *
	       (double)(2 * (b->cpu_tx_polls - a->cpu_tx_polls) +
			(b->hct_data_tx - a->hct_data_tx));
	v[2] = (double)(b->hct_data_tx - a->hct_data_tx) +
	       (double)(b->hct_retransmits - a->hct_retransmits);
	v[3] = (double)(b->cpu_rx_cyc - a->cpu_rx_cyc) -
	       (double)(b->cpu_rx_payload_cyc - a->cpu_rx_payload_cyc);
	v[4] = (double)b->cpu_read_cyc *
	       (double)(2 * (b->cpu_rx_polls - a->cpu_rx_polls) +
			(b->port_rx_pkts - a->port_rx_pkts) +
			(b->hct_data_rx - a->hct_data_rx));
	v[5] = (double)(b->hct_data_rx - a->hct_data_rx);
	v[6] = (double)(b->cpu_tx_payload_cyc - a->cpu_tx_payload_cyc);
	v[7] = (double)(b->cpu_rx_payload_cyc - a->cpu_rx_payload_cyc);
	v[8] = (double)b->cpu_read_cyc;
	v[9] = (double)(b->cpu_rx_skipped - a->cpu_rx_skipped) +
	       (double)(b->cpu_tx_skipped - a->cpu_tx_skipped);
	/* the PMD's bursts are the port's cost, apart as well */
	v[10] = (double)(b->cpu_tx_port_cyc - a->cpu_tx_port_cyc);
	v[11] = (double)(b->cpu_rx_port_cyc - a->cpu_rx_port_cyc);
	v[0] -= v[10];
	v[3] -= v[11];
	rc = hc_allreduce(comm, v, v, 12, HC_DTYPE_FLOAT64, HC_OP_SUM);
	if (rc != 0 || hc_comm_rank(comm) != 0)
		return rc;
	if (b->cpu_tsc_hz == 0) {
		printf("# cpu: n/a: the probe is off (HC_CPU_STATS=1 at "
		       "hc_init)\n");
		return 0;
	}
	ns = 1e9 / (double)b->cpu_tsc_hz;
	printf("# cpu: TX %.0f ns/DATA packet, RX %.0f ns/DATA packet, "
	       "payload and PMD excluded (apart, ns/DATA packet: TX copy+CRC32C "
	       "%.0f, RX CRC32C+reduce/copy %.0f, PMD tx %.0f rx %.0f; the "
	       "CRC32C of the header only on shm links); "
	       "%.0f and %.0f DATA packets, %d ranks' sums; TSC reads around the engine poll's RX and TX sections "
	       "(those with work) and the payload work, the probe's own reads "
	       "(%.0f ns each) subtracted, %.0f sections over 1 ms "
	       "(descheduled) left out\n",
	       v[2] > 0 ? (v[0] - v[1]) / v[2] * ns : 0,
	       v[5] > 0 ? (v[3] - v[4]) / v[5] * ns : 0,
	       v[2] > 0 ? v[6] / v[2] * ns : 0,
	       v[5] > 0 ? v[7] / v[5] * ns : 0,
	       v[2] > 0 ? v[10] / v[2] * ns : 0,
	       v[5] > 0 ? v[11] / v[5] * ns : 0, v[2], v[5], n,
	       v[8] / n * ns, v[9]);
	return 0;
}

/* '# transport:' the sweep's timeouts and retransmissions (hc_stats
 * between a and b, hc_flow_stats since hc_init), the ranks' sums. */
static int
print_transport(struct hc_ctx *ctx, struct hc_comm *comm,
		const struct hc_stats *a, const struct hc_stats *b)
{
	struct hc_flow_stats fs;
	double v[8] = { 0 };
	int n = hc_comm_size(comm), r = hc_comm_rank(comm), q, rc;

	v[0] = (double)(b->hct_rtos - a->hct_rtos);
	v[1] = (double)(b->hct_retransmits - a->hct_retransmits);
	v[2] = (double)(b->hct_data_tx - a->hct_data_tx);
	v[5] = (double)(b->hct_data_tx_hdr_crc - a->hct_data_tx_hdr_crc);
	v[6] = (double)(b->hct_data_tx_zc - a->hct_data_tx_zc);
	for (q = 0; q < n; q++)
		if (q != r && hc_flow_stats_get(ctx, (uint32_t)q, &fs) == 0) {
			v[3] += (double)fs.rtos_spurious;
			v[4] += (double)fs.rtos_deferred;
			v[7] += (double)fs.acks_tx;
		}
	rc = hc_allreduce(comm, v, v, 8, HC_DTYPE_FLOAT64, HC_OP_SUM);
	if (rc == 0 && r == 0)
		printf("# transport: %.0f RTOs (since hc_init %.0f spurious, "
		       "%.0f deferred), %.0f DATA retransmitted, %.0f DATA sent "
		       "(%.0f with a header-only CRC: shm links; %.0f zero "
		       "copy), %.0f pure ACKs sent since hc_init, %d ranks' "
		       "sums over the sweep\n", v[0], v[3], v[4], v[1], v[2],
		       v[5], v[6], v[7], n);
	return rc;
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
	uint64_t *sizes = NULL, last;
	double *it = NULL;
	int nsizes = 0, si, ed;
	struct hc_stats st0, st1;

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
		free(o.list);
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
	/* the sizes: --sizes, else -b * f^k up to -e; --edges adds one
	 * element below and above each (the buffers get 16 B more) */
	sizes = calloc(o.nlist > 0 ? (size_t)o.nlist : 65, sizeof(*sizes));
	if (sizes == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	if (o.nlist > 0) {
		memcpy(sizes, o.list, (size_t)o.nlist * sizeof(*sizes));
		nsizes = o.nlist;
	} else {
		for (size = o.minbytes; size <= o.maxbytes && nsizes < 65;
		     size = hc_perf_next_size(&o, size))
			sizes[nsizes++] = size;
	}
	if (o.pct && (it = calloc((size_t)o.iters, sizeof(*it))) == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	sbuf = malloc(o.maxbytes + 16);
	rbuf = malloc(o.maxbytes + 16);
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
		if (o.pct)
			printf("# pct: after each line, '# pct SIZE oop P50 P99 "
			       "MAX ip P50 P99 MAX': per-iteration times (us), "
			       "each the slowest rank's, nearest-rank "
			       "percentiles over %d iterations\n", o.iters);
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
	if (hc_stats_get(ctx, &st0) != 0)
		memset(&st0, 0, sizeof(st0));
	for (d = 0; d < HC_DTYPE__MAX; d++) {
		if (o.dtype >= 0 && d != o.dtype)
			continue;
		for (p = 0; p < HC_OP__MAX; p++) {
			/* -o names the op of the reducing collectives; the
			 * others run once whatever it says */
			if (colls[o.coll].reduces ? o.op >= 0 && p != o.op
						  : p != HC_OP_SUM)
				continue;
			if (!o.check)
				fill_inputs(comm, &o, sbuf, rbuf, d, p);
			last = 0;
			for (si = 0; si < nsizes; si++)
			for (ed = -o.edges; ed <= o.edges; ed++) {
				/* count: per rank; shown: the whole buffer */
				uint64_t shown, count, bytes;
				struct result out, in;

				size = sizes[si] + (uint64_t)ed * hc_dtype_size(d);
				/* edges: not below one element, each size once
				 * in a rising sweep */
				if (o.edges && (size < hc_dtype_size(d) ||
						size > o.maxbytes + 8 ||
						(o.nlist == 0 && size <= last)))
					continue;
				last = size;
				shown = size / hc_dtype_size(d);
				count = colls[o.coll].blocks ? shown / n : shown;
				shown = colls[o.coll].blocks ? count * n : count;
				bytes = shown * hc_dtype_size(d);

				rc = run_one(comm, &o, sbuf, rbuf, count, d, p,
					     0, &out, it);
				if (rc == 0)
					rc = run_one(comm, &o, sbuf, rbuf, count,
						     d, p, 1, &in, it);
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
				if (o.pct)
					printf("# pct %" PRIu64 " oop %.2f %.2f "
					       "%.2f ip %.2f %.2f %.2f\n", bytes,
					       out.p50, out.p99, out.max, in.p50,
					       in.p99, in.max);
				fflush(stdout);
				/* nccl-tests averages busbw over both
				 * columns of every line. */
				bw_sum += busbw(&out, bytes, o.coll, n) +
					  busbw(&in, bytes, o.coll, n);
				lines += 2;
			}
		}
	}
	if (hc_stats_get(ctx, &st1) != 0)
		memset(&st1, 0, sizeof(st1));
	rc = print_transport(ctx, comm, &st0, &st1);
	if (rc == 0 && (o.cpu || getenv("HC_CPU_STATS") != NULL))
		rc = print_cpu(comm, &st0, &st1);
	if (rc != 0)
		goto out;
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
	free(sizes);
	free(it);
	free(o.list);
	hc_finalize(ctx);
	rte_eal_cleanup();
	if (rc != 0)
		return 2;
	return wrong_total != 0 ? 1 : 0;
}
