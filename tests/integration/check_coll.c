/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-check suites of the collectives, every result checked element by
 * element: all-reduce (basic, quick, dtypes, algo, algobad), reduce-scatter
 * and all-gather (rs, ag, rsv, agv), broadcast and reduce (bcast, reduce),
 * barrier, and the field cases C01-C04, C06, C10-C13.
 * main and its table of suites are in hc-check.c; check.h holds what
 * the files share.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "pattern.h"
#include "check.h"

static uint64_t
checksum(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* One all-reduce checked against the pattern; why gets the reason. */
int
check_allreduce(uint64_t count, enum hc_dtype d, enum hc_op op, int inplace,
		char *why, size_t wlen)
{
	size_t es = hc_dtype_size(d), bytes = count * es;
	uint8_t *sbuf = malloc(bytes + GUARD), *rbuf = malloc(bytes + GUARD);
	uint64_t sum_before = 0, wrong;
	int rc, ok = 0;
	size_t i;

	if (sbuf == NULL || rbuf == NULL) {
		snprintf(why, wlen, "malloc");
		goto out;
	}
	memset(rbuf, SENTINEL, bytes);
	memset(rbuf + bytes, GUARD_BYTE, GUARD);
	memset(sbuf + bytes, GUARD_BYTE, GUARD);
	hc_pattern_fill(inplace ? rbuf : sbuf, d, op, count, rank);
	if (!inplace)
		sum_before = checksum(sbuf, bytes);
	rc = hc_allreduce(comm, inplace ? rbuf : sbuf, rbuf, count, d, op);
	if (rc != 0) {
		snprintf(why, wlen, "hc_allreduce: %s", hc_strerror(rc));
		goto out;
	}
	wrong = hc_pattern_result_wrong(HC_PATTERN_ALLREDUCE, rbuf, d, op,
					count, nranks, rank, 0);
	if (wrong != 0) {
		int k = 0;

		snprintf(why, wlen, "%" PRIu64 " wrong elements", wrong);
		/* Where, for the log: the first few wrong elements. */
		for (i = 0; i < count && k < 4; i++) {
			double got = hc_pattern_load(rbuf, d, i);
			double want = hc_pattern_expected(d, op, i, nranks);

			if (got != want) {
				printf("rank %d: element %zu of %" PRIu64 ": %.17g, "
				       "expected %.17g\n", rank, i, count, got, want);
				k++;
			}
		}
		goto out;
	}
	for (i = 0; i < GUARD; i++)
		if (rbuf[bytes + i] != GUARD_BYTE) {
			snprintf(why, wlen, "guard byte %zu after the receive "
				 "buffer changed", i);
			goto out;
		}
	if (!inplace && checksum(sbuf, bytes) != sum_before) {
		snprintf(why, wlen, "send buffer changed (C08)");
		goto out;
	}
	ok = 1;
out:
	free(sbuf);
	free(rbuf);
	return ok;
}

/* verdict() for one check that ran from t0: with limit_s > 0 it must
 * also have taken at most limit_s seconds (C03's 1 s). */
static void
timed_verdict(const char *name, int ok, char *why, size_t wlen, double t0,
	      double limit_s)
{
	double dt = now_s() - t0;

	if (ok && limit_s > 0 && dt > limit_s) {
		ok = 0;
		snprintf(why, wlen, "took %.2f s", dt);
	}
	verdict(name, ok, why);
}

/* Issue 2's matrix: these dtypes with sum, prod, min, max; the dtypes
 * suite runs all ten dtypes with all five ops. */
static const enum hc_dtype base_dtypes[] = { HC_DTYPE_INT32, HC_DTYPE_INT64,
	HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT64 };
static int all_types; /* 1: every dtype and op */

static void
matrix(const uint64_t *counts, size_t ncounts, const char *tag,
       double limit_s)
{
	size_t c, di;
	int d, op, inplace;
	int nd = all_types ? HC_DTYPE__MAX : (int)RTE_DIM(base_dtypes);
	int nop = all_types ? HC_OP__MAX : HC_OP_AVG;
	char name[160], why[160];
	const char *mc = getenv("HC_CHECK_MAX_COUNT");
	long long max_count = -1;

	if (mc != NULL) {
		char *end;

		errno = 0;
		max_count = strtoll(mc, &end, 10);
		if (errno != 0 || end == mc || *end != '\0' || max_count < 0) {
			verdict("HC_CHECK_MAX_COUNT", 0, "not a count (a "
				"non-negative integer)");
			return;
		}
	}
	for (c = 0; c < ncounts; c++) {
		if (max_count >= 0 && counts[c] > (uint64_t)max_count) {
			if (rank == 0)
				printf("SKIP %s n=%d count=%" PRIu64 ": above "
				       "HC_CHECK_MAX_COUNT %lld\n", tag, nranks,
				       counts[c], max_count);
			continue;
		}
		for (di = 0; di < (size_t)nd; di++)
			for (op = 0; op < nop; op++)
				for (inplace = 0; inplace < 2; inplace++) {
					double t0 = now_s();
					int ok;

					d = all_types ? (int)di : (int)base_dtypes[di];
					why[0] = '\0';
					ok = check_allreduce(counts[c], d, op,
							     inplace, why,
							     sizeof(why));
					snprintf(name, sizeof(name),
						 "%s n=%d count=%" PRIu64 " %s %s %s",
						 tag, nranks, counts[c],
						 hc_dtype_name(d), hc_op_name(op),
						 inplace ? "in-place" : "out-of-place");
					timed_verdict(name, ok, why, sizeof(why),
						      t0, limit_s);
				}
	}
}

static uint64_t
tx_pkts(void)
{
	struct hc_stats s;

	hc_stats_get(ctx, &s);
	return s.port_tx_pkts + s.fault_drops;
}

static uint64_t
data_pkts(void)
{
	struct hc_stats s;

	hc_stats_get(ctx, &s);
	return s.hct_data_tx;
}

/* hc_flow_stats_get(): the per-flow counters add up to hc_stats_get()'s
 * totals (read before and after them: an engine lcore may be counting
 * meanwhile); bad ranks are refused. One line per flow on stdout. */
void
check_flow_stats(const char *tag)
{
	struct hc_stats s, s2;
	struct hc_flow_stats f;
	uint64_t tx = 0, retx = 0, rtos = 0;
	char name[96];
	int p, ok = 1;

	hc_stats_get(ctx, &s);
	for (p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		if (hc_flow_stats_get(ctx, (uint32_t)p, &f) != 0) {
			ok = 0;
			continue;
		}
		tx += f.data_tx;
		retx += f.retransmits_rto + f.retransmits_sack +
			f.retransmits_rack + f.retransmits_tlp;
		rtos += f.rtos;
		printf("rank %d -> %d: data %" PRIu64 " (%" PRIu64 " B) retx "
		       "rto/sack/rack/tlp %" PRIu64 "/%" PRIu64 "/%" PRIu64
		       "/%" PRIu64 " spurious %" PRIu64 " rtos %" PRIu64 " tlps %"
		       PRIu64 " cwnd %.2f "
		       "srtt %" PRIu64 " ns min_rtt %" PRIu64 " ns; from it: data %"
		       PRIu64 " dup %" PRIu64 "\n", rank, p,
		       f.data_tx, f.bytes_tx, f.retransmits_rto,
		       f.retransmits_sack, f.retransmits_rack, f.retransmits_tlp,
		       f.spurious_retx, f.rtos, f.tlps, f.cwnd, f.srtt_ns, f.min_rtt_ns,
		       f.data_rx, f.dup_rx);
	}
	hc_stats_get(ctx, &s2);
	snprintf(name, sizeof(name), "%s: per-flow counters add up", tag);
	verdict(name, ok && tx >= s.hct_data_tx && tx <= s2.hct_data_tx &&
		retx >= s.hct_retransmits && retx <= s2.hct_retransmits &&
		rtos >= s.hct_rtos && rtos <= s2.hct_rtos,
		"sum over flows differs from hc_stats_get");
	snprintf(name, sizeof(name), "%s: hc_flow_stats_get refuses bad ranks",
		 tag);
	verdict(name, hc_flow_stats_get(ctx, (uint32_t)rank, &f) ==
		-HC_ERR_INVAL && hc_flow_stats_get(ctx, (uint32_t)nranks, &f) ==
		-HC_ERR_INVAL && hc_flow_stats_get(ctx, 0, NULL) ==
		-HC_ERR_INVAL && hc_flow_stats_get(NULL, 0, &f) ==
		-HC_ERR_INVAL, "a bad rank or NULL was accepted");
}

void
suite_basic(void)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      1000003, 4u << 20 };

	matrix(counts, 6, "basic", 0);
	check_flow_stats("basic");
}

void
suite_quick(const char *tag)
{
	uint64_t counts[] = { 1, (uint64_t)nranks + 1, 100003 };

	matrix(counts, 3, tag, 0);
}

/* The common end of the reduce-scatter/all-gather checks: the result
 * rc, the wrong elements, the guard areas after the n-block buffer (full,
 * fbytes) and the one-block one (part, pbytes), and out of place the
 * send buffer's checksum against before. @return 1 when all hold. */
static int
check_end(char kind, int rc, uint64_t wrong, const uint8_t *full,
	  uint64_t fbytes, const uint8_t *part, uint64_t pbytes, int inplace,
	  uint64_t before, char *why, size_t wlen)
{
	uint64_t i;

	if (rc != 0) {
		snprintf(why, wlen, "%s", hc_strerror(rc));
		return 0;
	}
	if (wrong != 0) {
		snprintf(why, wlen, "%" PRIu64 " wrong elements", wrong);
		return 0;
	}
	for (i = 0; i < GUARD; i++)
		if (full[fbytes + i] != GUARD_BYTE ||
		    part[pbytes + i] != GUARD_BYTE) {
			snprintf(why, wlen, "guard byte %" PRIu64 " changed", i);
			return 0;
		}
	if (!inplace && checksum(kind == 'r' ? full : part,
				 kind == 'r' ? fbytes : pbytes) != before) {
		snprintf(why, wlen, "send buffer changed (C08)");
		return 0;
	}
	return 1;
}

/* Reduce-scatter (kind 'r') or all-gather ('g') of count elements per
 * rank, checked as the all-reduce patterns: rank r's full send vector
 * is the pattern, so block b of the all-reduce result is what rank b
 * receives (reduce-scatter), and block q of an all-gather is rank q's
 * pattern. In place: C07's layouts. */
static int
check_rs_ag(char kind, uint64_t count, enum hc_dtype d, enum hc_op op,
	    int inplace, char *why, size_t wlen)
{
	size_t es = hc_dtype_size(d);
	uint64_t total = count * nranks, wrong = 0, before = 0;
	uint8_t *full = malloc(total * es + GUARD);   /* the n-block buffer */
	uint8_t *part = malloc(count * es + GUARD);   /* the one-block one */
	uint8_t *own = full + (uint64_t)rank * count * es;
	int rc, ok = 0;

	if (full == NULL || part == NULL) {
		snprintf(why, wlen, "malloc");
		goto out;
	}
	memset(full + total * es, GUARD_BYTE, GUARD);
	memset(part + count * es, GUARD_BYTE, GUARD);
	if (kind == 'r') {
		hc_pattern_fill(full, d, op, total, rank);
		if (!inplace) {
			memset(part, SENTINEL, count * es);
			before = checksum(full, total * es);
		}
		rc = hc_reduce_scatter(comm, full, inplace ? own : part, count,
				       d, op);
		if (rc == 0)
			wrong = hc_pattern_result_wrong(HC_PATTERN_REDUCE_SCATTER,
							inplace ? own : part, d,
							op, count, nranks, rank,
							0);
	} else {
		memset(full, SENTINEL, total * es);
		if (inplace) {
			hc_pattern_fill_gather(own, d, count, rank);
		} else {
			hc_pattern_fill_gather(part, d, count, rank);
			before = checksum(part, count * es);
		}
		rc = hc_allgather(comm, inplace ? own : part, full, count, d);
		if (rc == 0)
			wrong = hc_pattern_result_wrong(HC_PATTERN_ALLGATHER,
							full, d, op, count,
							nranks, rank, 0);
	}
	ok = check_end(kind, rc, wrong, full, total * es, part, count * es,
		       inplace, before, why, wlen);
out:
	free(full);
	free(part);
	return ok;
}

void
suite_rs_ag(int kind)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      4097, 65537 };
	static const enum hc_dtype types[] = { HC_DTYPE_INT8, HC_DTYPE_INT32,
		HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16, HC_DTYPE_FLOAT32,
		HC_DTYPE_FLOAT64, HC_DTYPE_UINT64 };
	size_t c, t;
	int op, inplace;
	char name[160], why[160];

	for (c = 0; c < RTE_DIM(counts); c++)
		for (t = 0; t < RTE_DIM(types); t++)
			for (op = 0; op < (kind == 'r' ? HC_OP__MAX : 1); op++)
				for (inplace = 0; inplace < 2; inplace++) {
					why[0] = '\0';
					snprintf(name, sizeof(name),
						 "%s n=%d count=%" PRIu64 " %s%s%s %s",
						 kind == 'r' ? "reduce-scatter" :
						 "all-gather", nranks, counts[c],
						 hc_dtype_name(types[t]),
						 kind == 'r' ? " " : "",
						 kind == 'r' ? hc_op_name(op) : "",
						 inplace ? "in-place" : "out-of-place");
					verdict(name, check_rs_ag(kind, counts[c],
								  types[t], op,
								  inplace, why,
								  sizeof(why)),
						why);
				}
}

/* Per-rank counts of the v-variants: profile p of base count c over the
 * n ranks (profile 0: all c; 1: rank q gets q, so rank 0 gets 0; 2:
 * every third rank 0, the others c and 65537 in turn; 3: only the last
 * rank has c; 4: one element each to ranks 0..c-1, so c elements in all
 * when c < n, C03). */
static void
v_counts(int p, uint64_t c, uint64_t *counts)
{
	int q;

	for (q = 0; q < nranks; q++)
		switch (p) {
		case 0: counts[q] = c; break;
		case 1: counts[q] = (uint64_t)q; break;
		case 2: counts[q] = q % 3 == 0 ? 0 : q % 3 == 1 ? c : 65537;
			break;
		case 3: counts[q] = q == nranks - 1 ? c : 0; break;
		default: counts[q] = (uint64_t)q < c ? 1 : 0; break;
		}
}

/* Reduce-scatterv ('r') or all-gatherv ('g') with the counts of
 * v_counts(p, c): reduce-scatterv is checked as the all-reduce pattern
 * over the packed total (rank r gets elements off_r..), all-gatherv
 * block q element i as rank q's pattern. gapped: all-gatherv blocks in
 * reverse rank order with 3 elements of sentinel between them, which
 * must survive. In place: the block of this rank in the big buffer. */
static int
check_v(char kind, int p, uint64_t c, enum hc_dtype d, enum hc_op op,
	int inplace, int gapped, char *why, size_t wlen)
{
	size_t es = hc_dtype_size(d);
	uint64_t *counts = calloc(nranks, sizeof(*counts));
	uint64_t *displs = calloc(nranks, sizeof(*displs));
	uint64_t total = 0, span = 0, off = 0, i, wrong = 0, before = 0;
	uint8_t *full = NULL, *part = NULL, *own;
	int q, rc, ok = 0;

	v_counts(p, c, counts);
	for (q = 0; q < nranks; q++) {
		if (q < rank)
			off += counts[q];
		total += counts[q];
	}
	/* gapped: rank q's block after those of ranks > q */
	for (q = nranks - 1; q >= 0; q--) {
		displs[q] = gapped ? span : 0;
		span += counts[q] + (gapped ? 3 : 0);
	}
	if (!gapped)
		for (q = 0, span = 0; q < nranks; q++) {
			displs[q] = span;
			span += counts[q];
		}
	full = malloc(span * es + GUARD);
	part = malloc(counts[rank] * es + GUARD);
	if (counts == NULL || displs == NULL || full == NULL || part == NULL) {
		snprintf(why, wlen, "malloc");
		goto out;
	}
	memset(full + span * es, GUARD_BYTE, GUARD);
	memset(part + counts[rank] * es, GUARD_BYTE, GUARD);
	if (kind == 'r') {
		own = full + off * es;
		hc_pattern_fill(full, d, op, total, rank);
		memset(part, SENTINEL, counts[rank] * es);
		before = checksum(full, total * es);
		rc = hc_reduce_scatterv(comm, full, inplace ? own : part,
					counts, d, op);
		for (i = 0; i < counts[rank] && rc == 0; i++)
			wrong += hc_pattern_load(inplace ? own : part, d, i) !=
				 hc_pattern_expected(d, op, off + i, nranks);
	} else {
		own = full + displs[rank] * es;
		memset(full, SENTINEL, span * es);
		hc_pattern_fill_gather(inplace ? own : part, d, counts[rank],
				       rank);
		before = checksum(part, counts[rank] * es);
		rc = hc_allgatherv(comm, inplace ? own : part, full, counts,
				   gapped ? displs : NULL, d);
		for (q = 0; q < nranks && rc == 0; q++) {
			for (i = 0; i < counts[q]; i++)
				wrong += hc_pattern_load(full, d, displs[q] + i) !=
					 hc_pattern_gather(d, i, q);
			for (i = 0; gapped && i < 3 * es; i++)
				wrong += full[(displs[q] + counts[q]) * es + i] !=
					 SENTINEL;
		}
	}
	/* reduce-scatterv: no gaps, span == total (its send buffer) */
	ok = check_end(kind, rc, wrong, full, span * es, part,
		       counts[rank] * es, inplace, before, why, wlen);
out:
	free(counts);
	free(displs);
	free(full);
	free(part);
	return ok;
}

/* rsv / agv: every count profile x base counts {0, 1, n-1, n+1,
 * 1000003} (the large one for int32 only), in place and out of place. */
void
suite_v(int kind)
{
	uint64_t base[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			    1000003 };
	static const struct { enum hc_dtype d; enum hc_op op; } rs[] = {
		{ HC_DTYPE_INT32, HC_OP_SUM }, { HC_DTYPE_FLOAT32, HC_OP_SUM },
		{ HC_DTYPE_INT64, HC_OP_MAX }, { HC_DTYPE_FLOAT16, HC_OP_SUM },
		{ HC_DTYPE_BFLOAT16, HC_OP_AVG }, { HC_DTYPE_INT8, HC_OP_MIN },
		{ HC_DTYPE_FLOAT64, HC_OP_PROD } }, ag[] = {
		{ HC_DTYPE_INT32, HC_OP_SUM }, { HC_DTYPE_INT8, HC_OP_SUM },
		{ HC_DTYPE_FLOAT16, HC_OP_SUM }, { HC_DTYPE_FLOAT64, HC_OP_SUM } };
	size_t b, t, nt = kind == 'r' ? RTE_DIM(rs) : RTE_DIM(ag);
	int p, inplace, gapped;
	char name[200], why[160];

	for (p = 0; p < 4; p++)
		for (b = 0; b < RTE_DIM(base); b++)
			for (t = 0; t < nt; t++)
				for (gapped = 0; gapped < (kind == 'g') + 1;
				     gapped++)
					for (inplace = 0; inplace < 2; inplace++) {
						enum hc_dtype d = kind == 'r' ?
							rs[t].d : ag[t].d;
						enum hc_op op = kind == 'r' ?
							rs[t].op : HC_OP_SUM;

						if (base[b] > 100000 && t > 0)
							continue;
						if (p == 1 && b > 0)
							continue; /* no base */
						why[0] = '\0';
						snprintf(name, sizeof(name),
							 "%s n=%d counts=%s(%" PRIu64
							 ") %s%s%s%s %s",
							 kind == 'r' ?
							 "reduce-scatterv" :
							 "all-gatherv", nranks,
							 (const char *[]){ "all",
							 "rank", "thirds", "last"
							 }[p], base[b],
							 hc_dtype_name(d),
							 kind == 'r' ? " " : "",
							 kind == 'r' ?
							 hc_op_name(op) : "",
							 gapped ? " gapped" : "",
							 inplace ? "in-place" :
							 "out-of-place");
						verdict(name, check_v(kind, p,
							base[b], d, op, inplace,
							gapped, why,
							sizeof(why)), why);
					}
}

/* The GUARD bytes after a buffer still hold GUARD_BYTE. */
static int
guard_ok(const uint8_t *g)
{
	size_t i;

	for (i = 0; i < GUARD; i++)
		if (g[i] != GUARD_BYTE)
			return 0;
	return 1;
}

/* Broadcast ('b') or reduce ('r') from/to root: the root's pattern
 * arrives everywhere; the root gets the all-reduce expectation. */
static int
check_rooted(char kind, uint64_t count, enum hc_dtype d, enum hc_op op,
	     int root, int inplace, char *why, size_t wlen)
{
	size_t es = hc_dtype_size(d);
	uint8_t *sbuf = malloc(count * es + GUARD), *rbuf = malloc(count * es + GUARD);
	uint64_t wrong = 0, before = 0;
	int rc, ok = 0, checked = kind == 'b' || rank == root;

	memset(rbuf, SENTINEL, count * es);
	memset(rbuf + count * es, GUARD_BYTE, GUARD);
	hc_pattern_fill(inplace ? rbuf : sbuf, d, kind == 'b' ? HC_OP_SUM : op,
			count, rank);
	if (!inplace)
		before = checksum(sbuf, count * es);
	if (kind == 'b')
		rc = hc_broadcast(comm, inplace ? rbuf : sbuf, rbuf, count, d,
				  root);
	else
		rc = hc_reduce(comm, inplace ? rbuf : sbuf, rbuf, count, d, op,
			       root);
	if (rc == 0 && checked)
		wrong = hc_pattern_result_wrong(kind == 'b' ?
						HC_PATTERN_BROADCAST :
						HC_PATTERN_REDUCE, rbuf, d, op,
						count, nranks, rank, root);
	if (rc != 0)
		snprintf(why, wlen, "%s", hc_strerror(rc));
	else if (wrong != 0)
		snprintf(why, wlen, "%" PRIu64 " wrong elements", wrong);
	else if (!guard_ok(rbuf + count * es))
		snprintf(why, wlen, "guard bytes changed");
	else if (!inplace && checksum(sbuf, count * es) != before)
		snprintf(why, wlen, "send buffer changed (C08)");
	else
		ok = 1;
	free(sbuf);
	free(rbuf);
	return ok;
}

void
suite_rooted(int kind)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks + 1, 100003 };
	static const enum hc_dtype types[] = { HC_DTYPE_INT8, HC_DTYPE_FLOAT16,
		HC_DTYPE_INT32, HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT64 };
	size_t c, t;
	int op, root, inplace;
	char name[160], why[160];

	for (root = 0; root < nranks; root++)
		for (c = 0; c < RTE_DIM(counts); c++)
			for (t = 0; t < RTE_DIM(types); t++)
				for (op = 0; op < (kind == 'r' ? HC_OP__MAX : 1);
				     op++)
					for (inplace = 0; inplace < 2; inplace++) {
						why[0] = '\0';
						snprintf(name, sizeof(name),
							 "%s n=%d root=%d count=%" PRIu64
							 " %s %s %s", kind == 'b' ?
							 "broadcast" : "reduce", nranks,
							 root, counts[c],
							 hc_dtype_name(types[t]),
							 kind == 'r' ? hc_op_name(op) : "",
							 inplace ? "in-place" :
							 "out-of-place");
						verdict(name, check_rooted(kind,
							counts[c], types[t], op, root,
							inplace, why, sizeof(why)), why);
					}
}

/* Barrier: nobody leaves before the last rank arrives (it comes 0.5 s
 * late); then 100 barriers in a row. */
void
suite_barrier(void)
{
	double t0, dt;
	int rc, i;
	char why[160];

	/* Everyone past hc_init first: with caller progress a rank that
	 * sleeps does not answer, and peers still in hc_init would finish
	 * it only when the sleeper enters the barrier. */
	rc = hc_barrier(comm);
	if (!verdict("barrier: first one", rc == 0, hc_strerror(rc)))
		return;
	t0 = now_s();
	if (rank == nranks - 1)
		sleep_s(0.5);
	rc = hc_barrier(comm);
	dt = now_s() - t0;
	snprintf(why, sizeof(why), "%s after %.3f s", hc_strerror(rc), dt);
	verdict("barrier waits for the last rank (0.5 s late)",
		rc == 0 && dt >= 0.45, why);
	for (i = 0, rc = 0; i < 100 && rc == 0; i++)
		rc = hc_barrier(comm);
	verdict("100 barriers in a row", rc == 0, hc_strerror(rc));
}

/* Digest of the result of a PN all-reduce on every rank: equal on all?
 * (The digest's MIN and MAX over the ranks, through all-reduces that are
 * exact whatever the algorithm.) */
static int
same_bits_everywhere(enum hc_dtype d, uint64_t count, char *why, size_t wlen)
{
	size_t bytes = count * hc_dtype_size(d);
	uint8_t *buf = malloc(bytes);
	uint64_t lo, hi;
	int rc;

	if (buf == NULL) {
		snprintf(why, wlen, "malloc");
		return 0;
	}
	hc_pattern_noise(buf, d, count, rank);
	rc = hc_allreduce(comm, buf, buf, count, d, HC_OP_SUM);
	lo = hi = checksum(buf, bytes);
	free(buf);
	if (rc == 0)
		rc = hc_allreduce(comm, &lo, &lo, 1, HC_DTYPE_UINT64, HC_OP_MIN);
	if (rc == 0)
		rc = hc_allreduce(comm, &hi, &hi, 1, HC_DTYPE_UINT64, HC_OP_MAX);
	if (rc != 0) {
		snprintf(why, wlen, "hc_allreduce: %s", hc_strerror(rc));
		return 0;
	}
	if (lo != hi) {
		snprintf(why, wlen, "ranks hold different bits (digests %016"
			 PRIx64 " .. %016" PRIx64 ")", lo, hi);
		return 0;
	}
	return 1;
}

void
suite_algo(void)
{
	const char *algo = getenv("HC_ALGO") != NULL ? getenv("HC_ALGO")
						     : "auto";
	const enum hc_dtype floats[] = { HC_DTYPE_FLOAT32, HC_DTYPE_FLOAT64,
					 HC_DTYPE_FLOAT16, HC_DTYPE_BFLOAT16 };
	uint64_t small[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1 };
	char info[512], want[64], tag[64], name[640], why[160];
	int d, k, inplace;
	size_t i;

	snprintf(want, sizeof(want), "algo %s", algo);
	hc_comm_tuner_info(comm, info, sizeof(info));
	snprintf(tag, sizeof(tag), "algo %s", algo);
	snprintf(name, sizeof(name), "%s n=%d: tuner says \"%s\"", tag,
		 nranks, info);
	verdict(name, strstr(info, want) != NULL, "HC_ALGO not in effect");
	all_types = 1;
	/* n = 1 makes n-1 = 0 again: one count once */
	matrix(small, nranks == 1 ? 2 : 4, tag, 0);
	all_types = 0;
	for (d = 0; d < HC_DTYPE__MAX; d++)
		for (inplace = 0; inplace < 2; inplace++) {
			enum hc_op op = (enum hc_op)((d + 3 * inplace) %
						     HC_OP__MAX);
			int ok;

			why[0] = '\0';
			ok = check_allreduce(1000003, d, op, inplace, why,
					     sizeof(why));
			snprintf(name, sizeof(name), "%s n=%d count=1000003 %s "
				 "%s %s", tag, nranks, hc_dtype_name(d),
				 hc_op_name(op), inplace ? "in-place" :
				 "out-of-place");
			verdict(name, ok, why);
		}
	for (i = 0; i < RTE_DIM(floats); i++)
		for (k = 0; k < 2; k++) {
			int ok;

			why[0] = '\0';
			ok = same_bits_everywhere(floats[i], k ? 100003 : 1001,
						  why, sizeof(why));
			snprintf(name, sizeof(name), "%s n=%d PN sum %s count=%d:"
				 " same bits on every rank", tag, nranks,
				 hc_dtype_name(floats[i]), k ? 100003 : 1001);
			verdict(name, ok, why);
		}
}

/* HC_ALGO forces an algorithm this job's groups cannot run (hier with
 * groups of unequal size): the all-reduce is refused with
 * HC_ERR_UNSUPPORTED before any traffic, and an all-gather works. Then
 * the same on a communicator split off ranks 0..2 (tests/run runs it at
 * n = 5 with groups of 2: ranks 0, 1 in one group and 2 in the next, so
 * unequal again), whose creation logs the warning tests/run looks for. */

void
suite_algobad(void)
{
	int64_t v = rank, all[64];
	uint64_t before = data_pkts();
	int rc = hc_allreduce(comm, &v, &v, 1, HC_DTYPE_INT64, HC_OP_SUM);
	int i, ok;

	local_verdict("algobad: forced all-reduce refused with "
		      "HC_ERR_UNSUPPORTED, no DATA sent",
		      rc == -HC_ERR_UNSUPPORTED && data_pkts() == before,
		      hc_strerror(rc));
	rc = nranks <= 64 ? hc_allgather(comm, &v, all, 1, HC_DTYPE_INT64)
			  : -HC_ERR_INVAL;
	ok = rc == 0;
	for (i = 0; ok && i < nranks; i++)
		ok = all[i] == i;
	local_verdict("algobad: all-gather still works", ok,
		      rc != 0 ? hc_strerror(rc) : "wrong values");
	if (nranks < 4)
		return;
	{
		struct hc_comm *sub = NULL;

		rc = hc_comm_split(comm, rank < 3 ? 0 : HC_COMM_SPLIT_NONE, rank,
				   &sub);
		local_verdict("algobad: split off ranks 0..2", rc == 0,
			      hc_strerror(rc));
		if (rc != 0 || sub == NULL)
			return;
		v = rank;
		before = data_pkts();
		rc = hc_allreduce(sub, &v, &v, 1, HC_DTYPE_INT64, HC_OP_SUM);
		local_verdict("algobad: forced all-reduce on the split "
			      "communicator refused with HC_ERR_UNSUPPORTED, "
			      "no DATA sent", rc == -HC_ERR_UNSUPPORTED &&
			      data_pkts() == before, hc_strerror(rc));
	}
}

void
suite_dtypes(void)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      100003 };

	all_types = 1;
	matrix(counts, 5, "dtypes", 0);
	all_types = 0;
}

void
suite_c01(void)
{
	static const uint64_t counts[] = { 1, 3, 7, 31, 32, 33, 1023, 1025,
		65537, 1000003, (1u << 20) + 7 };
	size_t c;
	int d, op, inplace;
	char name[160];

	for (c = 0; c < RTE_DIM(counts); c++)
		for (d = 0; d < HC_DTYPE__MAX; d++)
			for (op = 0; op < HC_OP__MAX; op++)
				for (inplace = 0; inplace < 2; inplace++) {
					size_t bytes = counts[c] * hc_dtype_size(d);
					uint8_t *in = malloc(bytes);
					uint8_t *s = malloc(bytes);
					uint8_t *r = malloc(bytes);
					size_t i;
					int rc, ok;

					for (i = 0; i < bytes; i++)
						in[i] = (uint8_t)(i * 131 + c);
					memcpy(s, in, bytes);
					memset(r, SENTINEL, bytes);
					rc = hc_allreduce(comm, s, inplace ? s : r,
							  counts[c], d, op);
					ok = rc == 0 &&
					     memcmp(inplace ? s : r, in, bytes) == 0;
					snprintf(name, sizeof(name),
						 "C01 n=1 count=%" PRIu64 " %s %s %s",
						 counts[c], hc_dtype_name(d),
						 hc_op_name(op),
						 inplace ? "in-place" : "out-of-place");
					verdict(name, ok, rc != 0 ? hc_strerror(rc)
						: "output differs from input");
					free(in);
					free(s);
					free(r);
				}
	verdict("C01 n=1 no packet left the port", tx_pkts() == 0,
		"packets were sent");
}

/* C03: count 1..n-1, every collective, exact and each within 1 s. The
 * all-reduce as the matrix (4 dtypes x SUM/PROD/MIN/MAX); broadcast and
 * reduce to roots 0 and n-1; reduce-scatter and all-gather of count
 * elements per rank; and, so that the collective's whole vector is
 * shorter than n, reduce-scatterv and all-gatherv of count elements in
 * all, one each to ranks 0..count-1 (ranks count..n-1 get none). int32
 * and float32, in place and out of place. */
void
suite_c03(void)
{
	static const enum hc_dtype types[] = { HC_DTYPE_INT32,
					       HC_DTYPE_FLOAT32 };
	uint64_t counts[64];
	char name[200], why[160];
	int i, k = 0, r, op, inplace, kind;
	size_t t;
	double t0;

	for (i = 1; i < nranks && k < 64; i++)
		counts[k++] = (uint64_t)i;
	matrix(counts, (size_t)k, "C03", 1.0);
	for (i = 0; i < k; i++)
		for (t = 0; t < RTE_DIM(types); t++)
			for (inplace = 0; inplace < 2; inplace++) {
				const char *dn = hc_dtype_name(types[t]);
				const char *ip = inplace ? "in-place" :
							   "out-of-place";

				for (r = 0; r < 2; r++) {
					int root = r ? nranks - 1 : 0;

					why[0] = '\0';
					snprintf(name, sizeof(name), "C03 n=%d "
						 "count=%" PRIu64 " broadcast "
						 "root=%d %s %s", nranks,
						 counts[i], root, dn, ip);
					t0 = now_s();
					timed_verdict(name, check_rooted('b',
						counts[i], types[t], HC_OP_SUM,
						root, inplace, why,
						sizeof(why)), why, sizeof(why),
						t0, 1.0);
					for (op = 0; op < HC_OP_AVG; op++) {
						why[0] = '\0';
						snprintf(name, sizeof(name),
							 "C03 n=%d count=%" PRIu64
							 " reduce root=%d %s %s "
							 "%s", nranks, counts[i],
							 root, dn, hc_op_name(op),
							 ip);
						t0 = now_s();
						timed_verdict(name, check_rooted(
							'r', counts[i], types[t],
							op, root, inplace, why,
							sizeof(why)), why,
							sizeof(why), t0, 1.0);
					}
				}
				for (kind = 0; kind < 4; kind++) {
					char c = kind % 2 ? 'g' : 'r';
					int v = kind >= 2;

					why[0] = '\0';
					snprintf(name, sizeof(name), "C03 n=%d "
						 "count=%" PRIu64 "%s %s%s %s %s",
						 nranks, counts[i],
						 v ? " in all" : " per rank",
						 c == 'r' ? "reduce-scatter" :
						 "all-gather", v ? "v" : "", dn,
						 ip);
					t0 = now_s();
					timed_verdict(name, v ?
						check_v(c, 4, counts[i],
							types[t], HC_OP_SUM,
							inplace, 0, why,
							sizeof(why)) :
						check_rs_ag(c, counts[i],
							    types[t], HC_OP_SUM,
							    inplace, why,
							    sizeof(why)),
						why, sizeof(why), t0, 1.0);
				}
			}
}

void
suite_c04(void)
{
	uint64_t counts[] = { (uint64_t)nranks + 1, 2 * (uint64_t)nranks - 1,
			      1000003 };

	matrix(counts, 3, "C04", 0);
}

void
suite_c06(void)
{
	static const uint64_t sizes[] = { 32768, 65536 - 4, 65536, 65536 + 4,
					  1 << 20 };
	char name[160], why[160];
	uint64_t before, after;
	uint8_t *buf;
	size_t s;
	int inplace, rc, d;

	for (s = 0; s < RTE_DIM(sizes); s++)
		for (d = 0; d < HC_DTYPE__MAX; d++)
			for (inplace = 0; inplace < 2; inplace++) {
				uint64_t count = sizes[s] / hc_dtype_size(d);

				if (count * hc_dtype_size(d) != sizes[s])
					continue; /* 64 KiB +- 4 B: 4-byte types */
				snprintf(name, sizeof(name),
					 "C06 n=%d %" PRIu64 " B %s %s", nranks,
					 sizes[s], hc_dtype_name(d),
					 inplace ? "in-place" : "out-of-place");
				why[0] = '\0';
				verdict(name, check_allreduce(count, d, HC_OP_SUM,
							      inplace, why,
							      sizeof(why)), why);
			}
	/* Partial overlap: recv starts 4 bytes into send. The counters are
	 * read right around the call: a refused call must send nothing. */
	buf = calloc(4096 + 4, 1);
	/* DATA packets only: the engine lcore sends ACKs and keepalives at
	 * any time. */
	before = data_pkts();
	rc = hc_allreduce(comm, buf, buf + 4, 1024, HC_DTYPE_INT32, HC_OP_SUM);
	after = data_pkts();
	verdict("C06 partial overlap gives HC_ERR_INVAL",
		rc == -HC_ERR_INVAL, hc_strerror(rc));
	verdict("C06 partial overlap sent nothing", after == before,
		"packets were sent");
	rc = hc_allreduce(comm, buf + 4, buf, 1024, HC_DTYPE_INT32, HC_OP_SUM);
	verdict("C06 overlap the other way gives HC_ERR_INVAL",
		rc == -HC_ERR_INVAL, hc_strerror(rc));
	free(buf);
	why[0] = '\0';
	verdict("C06 next collective after the refused ones is exact",
		check_allreduce(1000, HC_DTYPE_INT32, HC_OP_SUM, 0, why,
				sizeof(why)), why);
}

void
suite_c13(void)
{
	char why[160];
	uint64_t before, after;
	int64_t sbuf[1] = { 1 }, rbuf[1] = { 2 };
	int rc;

	before = data_pkts();
	rc = hc_allreduce(comm, NULL, NULL, 0, HC_DTYPE_FLOAT32, HC_OP_SUM);
	after = data_pkts();
	verdict("C13 count 0 with NULL buffers succeeds", rc == 0,
		hc_strerror(rc));
	/* The only traffic: the signature, to every other rank (so that
	 * "0 vs N" is caught, C05), one 4-byte DATA packet each. */
	snprintf(why, sizeof(why), "%" PRIu64 " DATA packets sent, want %d",
		 after - before, nranks - 1);
	verdict("C13 count 0 sends only its signature (n-1 packets)",
		after - before == (uint64_t)nranks - 1, why);
	rc = hc_allreduce(comm, sbuf, rbuf, 0, HC_DTYPE_INT64, HC_OP_MAX);
	verdict("C13 count 0 with buffers succeeds and writes nothing",
		rc == 0 && rbuf[0] == 2 && sbuf[0] == 1, hc_strerror(rc));
	why[0] = '\0';
	verdict("C13 next collective still matches across ranks",
		check_allreduce(4097, HC_DTYPE_FLOAT32, HC_OP_SUM, 0, why,
				sizeof(why)), why);
}

/* C02 at this n (run for n in {3, 5, 6, 7}; 2, 4, 8 are the controls of
 * other suites): all-gather int32 (PGATH) sendcount {1, 1000, 65537},
 * all-reduce int32 and fp32 SUM of 1000003 (P32), reduce-scatter fp32 SUM
 * recvcount 4097; with the one algorithm each collective has here. */
void
suite_c02(void)
{
	uint64_t ag[] = { 1, 1000, 65537 };
	char name[120], why[160] = "";
	size_t k;

	for (k = 0; k < RTE_DIM(ag); k++) {
		snprintf(name, sizeof(name), "C02 n=%d all-gather int32 "
			 "sendcount %" PRIu64, nranks, ag[k]);
		verdict(name, check_rs_ag('g', ag[k], HC_DTYPE_INT32, HC_OP_SUM,
					  0, why, sizeof(why)), why);
	}
	snprintf(name, sizeof(name), "C02 n=%d all-reduce int32 sum 1000003",
		 nranks);
	verdict(name, check_allreduce(1000003, HC_DTYPE_INT32, HC_OP_SUM, 0,
				      why, sizeof(why)), why);
	snprintf(name, sizeof(name), "C02 n=%d all-reduce float sum 1000003",
		 nranks);
	verdict(name, check_allreduce(1000003, HC_DTYPE_FLOAT32, HC_OP_SUM, 0,
				      why, sizeof(why)), why);
	snprintf(name, sizeof(name), "C02 n=%d reduce-scatter float sum "
		 "recvcount 4097", nranks);
	verdict(name, check_rs_ag('r', 4097, HC_DTYPE_FLOAT32, HC_OP_SUM, 0,
				  why, sizeof(why)), why);
}

/* One all-reduce and one reduce (to the last rank) of 4 elements whose
 * rank r value is v[r]; both must give want bit for bit (C10-C12 over
 * the network; the kernels have unit tests too). */
static void
exact4(const char *name, enum hc_dtype d, enum hc_op op, double v, double want)
{
	uint8_t a[32], b[32];
	double got[2] = { 0, 0 };
	int rc, rc2, i, ok = 1;
	char why[160];

	for (i = 0; i < 4; i++)
		hc_pattern_store(a, d, i, v);
	rc = hc_allreduce(comm, a, b, 4, d, op);
	for (i = 0; i < 4 && rc == 0; i++) {
		got[0] = hc_pattern_load(b, d, i);
		ok = ok && (got[0] == want || (isinf(want) && isinf(got[0]) &&
					       (got[0] > 0) == (want > 0)));
	}
	rc2 = hc_reduce(comm, a, b, 4, d, op, nranks - 1);
	for (i = 0; i < 4 && rc2 == 0 && rank == nranks - 1; i++) {
		got[1] = hc_pattern_load(b, d, i);
		ok = ok && (got[1] == want || (isinf(want) && isinf(got[1]) &&
					       (got[1] > 0) == (want > 0)));
	}
	snprintf(why, sizeof(why), "%s/%s: all-reduce %g, reduce %g, want %g",
		 hc_strerror(rc), hc_strerror(rc2), got[0], got[1], want);
	verdict(name, ok && rc == 0 && rc2 == 0, why);
}

/* C10 (n = 6), C11 (n = 8), C12 (n = 3): accumulation and rounding over
 * the network, all-reduce and reduce. */
void
suite_c10(void)
{
	if (nranks == 6) {
		exact4("C10 fp16 sum of +24000 on 6 ranks is +Inf",
		       HC_DTYPE_FLOAT16, HC_OP_SUM, 24000, INFINITY);
		exact4("C10 fp16 sum of +-24000 alternating is 0",
		       HC_DTYPE_FLOAT16, HC_OP_SUM, rank % 2 ? -24000 : 24000, 0);
	}
	if (nranks == 8)
		exact4("C11 bf16 sum of 256 and seven 1.0 is 264",
		       HC_DTYPE_BFLOAT16, HC_OP_SUM, rank == 0 ? 256 : 1, 264);
	if (nranks == 3) {
		static const double v[4][3] = { { 7, 8, 10 }, { -7, -8, -10 },
						{ 1, 1, 1 }, { INT32_MAX,
						INT32_MAX, INT32_MAX } };
		static const double want[4] = { 8, -8, 1, INT32_MAX };
		char name[80];
		int k;

		for (k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "C12 int32 avg of "
				 "{%.0f,%.0f,%.0f} is %.0f", v[k][0], v[k][1],
				 v[k][2], want[k]);
			exact4(name, HC_DTYPE_INT32, HC_OP_AVG, v[k][rank],
			       want[k]);
		}
	}
	if (nranks != 3 && nranks != 6 && nranks != 8)
		verdict("C10-C12 need n = 6, 8 or 3", 0, "other n");
}
