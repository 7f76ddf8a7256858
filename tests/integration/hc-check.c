/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-check: the integration checker, one process per rank, run by
 * hc-launch (hc-launch -n N hc-check --suite NAME). Uses the public API
 * only. Prints one line per case, "PASS name" or "FAIL name: why", on
 * rank 0 (a case fails when it failed on any rank: ranks agree through an
 * all-reduce of their verdicts), and exits 1 when any case failed.
 *
 * Suites (shared/cases/CASES.md names the field cases):
 *   basic   counts {0, 1, n-1, n+1, 1000003, 4M} x dtype x op x
 *           in-place/out-of-place, P32/PPROD patterns; receive buffers
 *           pre-filled with a sentinel and followed by a guard area;
 *           out-of-place send buffers unchanged (C08)
 *   quick   counts {1, n+1, 100003} x dtype x op, both placements
 *   rs, ag  reduce-scatter / all-gather: counts {0, 1, n-1, n+1, 4097,
 *           65537} x 7 dtypes (x 5 ops), in place (C07) and out of place
 *   rsv, agv  reduce-scatterv / all-gatherv: per-rank count profiles
 *           (all equal, rank q gets q, every third rank 0, only the last
 *           rank) x counts {0, 1, n-1, n+1, 1000003} x dtype/op, in place
 *           and out of place; all-gatherv also with blocks in reverse
 *           order and sentinel gaps between them (displs)
 *   p2p     hc_send/hc_recv/hc_isend/hc_irecv: ring shift over counts
 *           {0, 1, n-1, n+1, 1000003}, every pair at once, sends before
 *           receives (held, in order), size/dtype mismatch at the
 *           receiver, bad arguments
 *   barrier nobody leaves before the last rank arrives; 100 in a row
 *   split   hc_comm_split (parity with reversed keys, NONE, duplicates),
 *           64 requests over 2 communicators, 4 application threads each
 *           on its own communicator
 *   bcast, reduce  every root x counts {0, 1, n+1, 100003} x 5 dtypes
 *           (x 5 ops), in place and out of place
 *   dtypes  all ten dtypes x all five ops (avg too), counts {0, 1, n-1,
 *           n+1, 100003}, P16 for 8-bit and 16-bit float types
 *   c01     n = 1: every dtype/op, counts {1,3,7,31,32,33,1023,1025,65537,
 *           1000003,2^20+7}: output = input bit for bit, no packet sent
 *   c02     all-gather, all-reduce (1000003, P32), reduce-scatter at
 *           this n (tests/run: n = 3, 5, 6, 7)
 *   c10     C10 (n = 6), C11 (n = 8), C12 (n = 3) over the network:
 *           all-reduce and reduce, bit-exact
 *   c03     count 1..n-1, every dtype/op: exact, each within 1 s
 *   c04     counts {n+1, 2n-1, 1000003}, SUM/MIN/MAX/PROD
 *   c06     in-place/out-of-place at 32 KiB, 64 KiB +- 4 B, 1 MiB; partial
 *           overlap -> HC_ERR_INVAL with no traffic, next call still works
 *   c13     count 0 (also NULL buffers): success, no traffic; the next
 *           collective still matches
 *   ping    rank 0 pings every rank's IP while all ranks run all-reduces
 *   fault   like quick, and asserts the fault injector dropped DATA and
 *           the transport retransmitted (run with HC_FAULT_DROP_DATA_PCT)
 *   c22     100% loss after set-up (run with HC_FAULT="drop=100,
 *           start_ms=1000"): an all-reduce gives HC_ERR_PEER_LOST within
 *           the peer timeout + 1 s on every rank
 *   c23     quick under loss, reorder and duplication (HC_FAULT, or
 *           hc-launch's nftables drop/dup): exact results, duplicates
 *           seen and discarded, losses retransmitted
 *   c24     quick and 4 MiB all-reduces under ACK loss: exact, and
 *           retransmitted DATA < 5% of DATA sent
 *   c25     drop_last_once: exact; every dropped tail retransmitted;
 *           prints the time per small all-reduce
 *   c31     all-reduces for HC_CHECK_SECONDS (default 8) while hc-launch
 *           flaps a tap (HC_LAUNCH_FLAP) shorter than the peer timeout:
 *           every one exact, one of them lasting the flap's down time
 *           (HC_CHECK_FLAP_DOWN seconds) or more
 *   c31long the same with a flap longer than the peer timeout: the
 *           all-reduce in flight gives HC_ERR_PEER_LOST on every rank
 *   async   64 all-reduces in flight, hc_wait_all
 *   async2  64 requests of six kinds (all-reduce, reduce-scatterv,
 *           all-gatherv, broadcast, reduce, send/receive) over 2
 *           communicators in flight; 4 application threads at once, each
 *           on its own communicator with all six kinds
 *   c18     the last rank starts after the others' init timeout: they
 *           get HC_ERR_INIT_TIMEOUT naming it, retry and succeed
 *   c21     the last rank is killed mid-collective and restarted with
 *           the same rank id: the old world fails on the survivors, who
 *           hc_finalize and hc_init a new one with it; exact all-reduce
 *   c19     (with every DATA packet dropped from the end of hc_init:
 *           HC_FAULT=dir=tx,class=data,drop=100,start_ms=0) a transport
 *           fault on the engine reaches the caller's wait as
 *           HC_ERR_PEER_LOST
 *   c15     the last rank leaves after 99 of 100 all-reduces
 *   c16kill the last rank is killed with SIGKILL mid-collective (64 MiB)
 *   c16stop the last rank is stopped with SIGSTOP mid-collective
 *   c17, c17bcast, c17reduce: the last rank never joins an all-reduce, a
 *           broadcast from 0 or a reduce to it: 200 ms per-op timeout
 *   c05count, c05zero, c05dtype, c05op: the last rank calls with another
 *           count (also 0 vs N), dtype or op: HC_ERR_MISMATCH everywhere
 *   c05coll C14: the last rank calls all-gather where the others call
 *           all-reduce: HC_ERR_MISMATCH everywhere
 *   c05bcast, c05reduce: the last rank broadcasts another dtype, or
 *           reduces to another root
 *   algo    the all-reduce algorithm forced by HC_ALGO (ring, tree, hd,
 *           hier; tests/run runs each for n = 1..5): the tuner line names
 *           it; counts {0, 1, n-1, n+1} x every dtype x op x both
 *           placements; count 1000003 x every dtype with two ops (one in
 *           place, one out of place, all five ops covered); PN sums of
 *           float32/float64/half/bfloat16 (100003) hold the same bits on
 *           every rank
 *   algobad HC_ALGO=hier with groups of unequal size: all-reduce refused
 *           (HC_ERR_UNSUPPORTED), no DATA; all-gather still works
 *   c05rsv, c05agv: the last rank passes reduce-scatterv / all-gatherv
 *           counts that differ in rank 0's entry
 * The last four judge per rank ("PASS name (rank r)"), since the
 * communicator is broken afterwards; the others agree through an
 * all-reduce and only rank 0 prints.
 */
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

#define GUARD 64
#define SENTINEL 0x5a
#define GUARD_BYTE 0xa5

extern char **environ;

static struct hc_ctx *ctx;
static struct hc_comm *comm;
static int rank, nranks, failures, cases;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep s seconds of wall time. usleep() alone is not enough: DPDK's
 * net_tap raises SIGIO for every packet, which cuts sleeps short. */
static void
sleep_s(double s)
{
	double end = now_s() + s;

	while (now_s() < end)
		usleep(10000);
}

/* Every rank reports ok or not; all agree on the verdict. */
static int
verdict(const char *name, int ok, const char *why)
{
	int64_t bad = !ok;
	int rc = hc_allreduce(comm, &bad, &bad, 1, HC_DTYPE_INT64, HC_OP_SUM);

	if (rc != 0) {
		fprintf(stderr, "rank %d: verdict all-reduce: %s\n", rank,
			hc_strerror(rc));
		exit(2);
	}
	cases++;
	if (!ok && rank != 0) /* rank 0 prints only its own reason */
		printf("rank %d: %s: %s\n", rank, name, why);
	if (bad != 0) {
		failures++;
		if (rank == 0)
			printf("FAIL %s: %s on %" PRId64 " rank(s)\n", name,
			       ok ? "failed" : why, bad);
	} else if (rank == 0) {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
	return bad == 0;
}

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
static int
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

	for (c = 0; c < ncounts; c++)
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
					if (ok && limit_s > 0 &&
					    now_s() - t0 > limit_s) {
						ok = 0;
						snprintf(why, sizeof(why),
							 "took %.2f s", now_s() - t0);
					}
					snprintf(name, sizeof(name),
						 "%s n=%d count=%" PRIu64 " %s %s %s",
						 tag, nranks, counts[c],
						 hc_dtype_name(d), hc_op_name(op),
						 inplace ? "in-place" : "out-of-place");
					verdict(name, ok, why);
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
static void
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

static void
suite_basic(void)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      1000003, 4u << 20 };

	matrix(counts, 6, "basic", 0);
	check_flow_stats("basic");
}

static void
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
	uint64_t total = count * nranks, i, wrong = 0, before = 0;
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
			for (i = 0; i < count; i++)
				hc_pattern_store(own, d, i,
					hc_pattern_value(d, HC_OP_SUM, i, rank));
		} else {
			for (i = 0; i < count; i++)
				hc_pattern_store(part, d, i,
					hc_pattern_value(d, HC_OP_SUM, i, rank));
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

static void
suite_rs_ag(char kind)
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
 * rank has c). */
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
		default: counts[q] = q == nranks - 1 ? c : 0; break;
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
		for (i = 0; i < counts[rank]; i++)
			hc_pattern_store(inplace ? own : part, d, i,
				hc_pattern_value(d, HC_OP_SUM, i, rank));
		before = checksum(part, counts[rank] * es);
		rc = hc_allgatherv(comm, inplace ? own : part, full, counts,
				   gapped ? displs : NULL, d);
		for (q = 0; q < nranks && rc == 0; q++) {
			for (i = 0; i < counts[q]; i++)
				wrong += hc_pattern_load(full, d, displs[q] + i) !=
					 hc_pattern_value(d, HC_OP_SUM, i, q);
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
static void
suite_v(char kind)
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

/* Count elements of d from rank `from`'s pattern in buf? why on error. */
static int
p2p_exact(const void *buf, enum hc_dtype d, uint64_t count, int from,
	  int rc, char *why, size_t wlen)
{
	const uint8_t *b = buf;
	uint64_t i, wrong = 0;
	size_t k;

	if (rc != 0) {
		snprintf(why, wlen, "%s", hc_strerror(rc));
		return 0;
	}
	for (i = 0; i < count; i++)
		wrong += hc_pattern_load(buf, d, i) !=
			 hc_pattern_value(d, HC_OP_SUM, i, from);
	for (k = 0; k < GUARD; k++)
		wrong += b[count * hc_dtype_size(d) + k] != GUARD_BYTE;
	if (wrong != 0)
		snprintf(why, wlen, "%" PRIu64 " wrong elements or guard bytes "
			 "from rank %d", wrong, from);
	return wrong == 0;
}

/* A receive buffer of count elements of d: sentinel, then the guard. */
static void *
p2p_rbuf(enum hc_dtype d, uint64_t count)
{
	size_t bytes = count * hc_dtype_size(d);
	uint8_t *b = malloc(bytes + GUARD);

	memset(b, SENTINEL, bytes);
	memset(b + bytes, GUARD_BYTE, GUARD);
	return b;
}

static void *
p2p_sbuf(enum hc_dtype d, uint64_t count)
{
	uint8_t *b = malloc(count * hc_dtype_size(d) + 1);
	uint64_t i;

	for (i = 0; i < count; i++)
		hc_pattern_store(b, d, i, hc_pattern_value(d, HC_OP_SUM, i,
							   rank));
	return b;
}

/* p2p: hc_send/hc_recv and the non-blocking forms: a ring shift (counts
 * {0, 1, n-1, n+1, 1000003} x 3 dtypes, blocking and not), every pair at
 * once, 8 sends before the receives are posted (held, then matched in
 * order), a size and a dtype mismatch (HC_ERR_MISMATCH at the receiver
 * only; the pair and the communicator keep working), bad arguments. */
static void
suite_p2p(void)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      1000003 };
	static const enum hc_dtype types[] = { HC_DTYPE_INT32,
		HC_DTYPE_FLOAT16, HC_DTYPE_FLOAT64 };
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	struct hc_request *req[2 * 64];
	char name[160], why[160] = "";
	int32_t one = 7;
	size_t c, t;
	int rc, blocking, q, ok;

	rc = hc_send(comm, &one, 1, HC_DTYPE_INT32, rank);
	ok = rc == -HC_ERR_UNSUPPORTED;
	rc = hc_isend(comm, &one, 1, HC_DTYPE_INT32, nranks, NULL, &req[0]);
	ok = ok && rc == -HC_ERR_INVAL && req[0] == NULL;
	rc = hc_irecv(comm, NULL, 1, HC_DTYPE_INT32, right, NULL, &req[0]);
	ok = ok && rc == -HC_ERR_INVAL;
	rc = hc_recv(comm, &one, 1, HC_DTYPE__MAX, left);
	ok = ok && rc == -HC_ERR_INVAL;
	verdict("p2p: self UNSUPPORTED; bad peer, NULL buffer, bad dtype "
		"INVAL", ok, "another error");
	if (nranks == 1)
		return;
	for (c = 0; c < RTE_DIM(counts); c++)
		for (t = 0; t < RTE_DIM(types); t++)
			for (blocking = 0; blocking < 2; blocking++) {
				enum hc_dtype d = types[t];
				void *sb = p2p_sbuf(d, counts[c]);
				void *rb = p2p_rbuf(d, counts[c]);

				if (blocking && rank == 0) {
					/* the shift starts at rank 0: two
					 * blocking sends facing each other
					 * deadlock beyond the transport's
					 * buffering, as MPI_Send */
					rc = hc_send(comm, sb, counts[c], d, right);
					if (rc == 0)
						rc = hc_recv(comm, rb, counts[c], d,
							     left);
				} else if (blocking) {
					rc = hc_recv(comm, rb, counts[c], d, left);
					if (rc == 0)
						rc = hc_send(comm, sb, counts[c], d,
							     right);
				} else {
					rc = hc_irecv(comm, rb, counts[c], d,
						      left, NULL, &req[0]);
					if (rc == 0)
						rc = hc_isend(comm, sb, counts[c],
							      d, right, NULL,
							      &req[1]);
					if (rc == 0)
						rc = hc_wait_all(req, 2, NULL);
				}
				snprintf(name, sizeof(name), "p2p n=%d ring "
					 "shift count=%" PRIu64 " %s %s", nranks,
					 counts[c], hc_dtype_name(d), blocking ?
					 "blocking" : "irecv, isend");
				verdict(name, p2p_exact(rb, d, counts[c], left,
							rc, why, sizeof(why)),
					why);
				free(sb);
				free(rb);
			}
	{
		/* every pair at once: rank q's pattern of 1000 + q elements
		 * from each q */
		void *rb[64], *sb = p2p_sbuf(HC_DTYPE_INT64, 1000 + nranks);
		int k = 0;

		for (q = 0, rc = 0; q < nranks && q < 64 && rc == 0; q++) {
			rb[q] = p2p_rbuf(HC_DTYPE_INT64, 1000 + q);
			if (q == rank)
				continue;
			rc = hc_irecv(comm, rb[q], 1000 + q, HC_DTYPE_INT64, q,
				      NULL, &req[k++]);
			if (rc == 0)
				rc = hc_isend(comm, sb, 1000 + rank,
					      HC_DTYPE_INT64, q, NULL, &req[k++]);
		}
		if (rc == 0)
			rc = hc_wait_all(req, k, NULL);
		for (q = 0, ok = 1; q < nranks && q < 64; q++) {
			if (q != rank)
				ok = ok && p2p_exact(rb[q], HC_DTYPE_INT64,
						     1000 + q, q, rc, why,
						     sizeof(why));
			free(rb[q]);
		}
		free(sb);
		verdict("p2p: every pair at once (2(n-1) requests), exact", ok,
			why);
	}
	{
		/* rank 0 sends 8 messages (sizes 1..10^6) to rank 1 before
		 * rank 1 posts any receive: held, then matched in order */
		uint64_t sz[8] = { 1, 1000, 0, 65537, 3, 1000003, 17, 4096 };
		void *b[8];
		int i;

		ok = 1;
		if (rank == 0) {
			for (i = 0, rc = 0; i < 8 && rc == 0; i++) {
				b[i] = p2p_sbuf(HC_DTYPE_INT32, sz[i]);
				rc = hc_isend(comm, b[i], sz[i], HC_DTYPE_INT32, 1,
					      NULL, &req[i]);
			}
			ok = rc == 0 && hc_wait_all(req, 8, NULL) == 0;
			for (i = 0; i < 8; i++)
				free(b[i]);
			snprintf(why, sizeof(why), "send failed");
		} else if (rank == 1) {
			sleep_s(0.3);
			for (i = 0; i < 8 && ok; i++) {
				b[i] = p2p_rbuf(HC_DTYPE_INT32, sz[i]);
				rc = hc_recv(comm, b[i], sz[i], HC_DTYPE_INT32, 0);
				ok = p2p_exact(b[i], HC_DTYPE_INT32, sz[i], 0, rc,
					       why, sizeof(why));
				free(b[i]);
			}
		}
		verdict("p2p: 8 sends before the receives, matched in order",
			ok, why);
	}
	{
		/* size, then dtype mismatch from rank 0 to 1: MISMATCH at
		 * rank 1, success at rank 0; then a matching pair works */
		int32_t x[101], y[101 + GUARD / 4], *good;
		int rcs[3] = { 0, 0, 0 };

		memset(x, 0, sizeof(x));
		if (rank == 0) {
			good = p2p_sbuf(HC_DTYPE_INT32, 101);
			rcs[0] = hc_send(comm, x, 100, HC_DTYPE_INT32, 1);
			rcs[1] = hc_send(comm, x, 100, HC_DTYPE_INT32, 1);
			rcs[2] = hc_send(comm, good, 101, HC_DTYPE_INT32, 1);
			free(good);
			ok = rcs[0] == 0 && rcs[1] == 0 && rcs[2] == 0;
		} else if (rank == 1) {
			rcs[0] = hc_recv(comm, y, 101, HC_DTYPE_INT32, 0);
			rcs[1] = hc_recv(comm, y, 100, HC_DTYPE_UINT32, 0);
			memset(y, SENTINEL, sizeof(y));
			memset((uint8_t *)y + 101 * 4, GUARD_BYTE, GUARD);
			rcs[2] = hc_recv(comm, y, 101, HC_DTYPE_INT32, 0);
			ok = rcs[0] == -HC_ERR_MISMATCH &&
			     rcs[1] == -HC_ERR_MISMATCH &&
			     p2p_exact(y, HC_DTYPE_INT32, 101, 0, rcs[2], why,
				       sizeof(why));
		} else {
			ok = 1;
		}
		if (!ok && why[0] == '\0')
			snprintf(why, sizeof(why), "%s, %s, %s",
				 hc_strerror(rcs[0]), hc_strerror(rcs[1]),
				 hc_strerror(rcs[2]));
		verdict("p2p: size and dtype mismatch: HC_ERR_MISMATCH at the "
			"receiver, the pair and the communicator still work",
			ok, why);
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

static void
suite_rooted(char kind)
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
static void
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

static void
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
 * HC_ERR_UNSUPPORTED before any traffic, and other collectives work. */
static int local_verdict(const char *name, int ok, const char *why);

static void
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
}

static void
suite_dtypes(void)
{
	uint64_t counts[] = { 0, 1, (uint64_t)nranks - 1, (uint64_t)nranks + 1,
			      100003 };

	all_types = 1;
	matrix(counts, 5, "dtypes", 0);
	all_types = 0;
}

static void
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

static void
suite_c03(void)
{
	uint64_t counts[64];
	int i, k = 0;

	for (i = 1; i < nranks && k < 64; i++)
		counts[k++] = (uint64_t)i;
	matrix(counts, (size_t)k, "C03", 1.0);
}

static void
suite_c04(void)
{
	uint64_t counts[] = { (uint64_t)nranks + 1, 2 * (uint64_t)nranks - 1,
			      1000003 };

	matrix(counts, 3, "C04", 0);
}

static void
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

static void
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

/* Rank 0 pings every rank; everyone runs all-reduces meanwhile and stops
 * when rank 0 says so (an all-reduce of the "go on" flag). */
static void
suite_ping(void)
{
	const char *base = getenv("HC_PING_PREFIX");
	pid_t pid = 0;
	int status = 0, r, ok = 1;
	char ip[32], why[160] = "";

	for (r = 0; r < nranks; r++) {
		int64_t more;
		int spawned = 0;

		if (rank == 0) {
			char *argv[] = { "ping", "-c", "3", "-i", "0.2", "-W",
					 "1", ip, NULL };

			snprintf(ip, sizeof(ip), "%s.%d.%d",
				 base != NULL ? base : "198.18", r / 250,
				 r % 250 + 1);
			spawned = posix_spawnp(&pid, "ping", NULL, NULL, argv,
					       environ) == 0;
			if (!spawned) {
				ok = 0;
				snprintf(why, sizeof(why), "cannot run ping");
			}
		}
		/* Only rank 0 knows whether ping still runs: the others
		 * contribute 0 to the MAX. */
		do {
			double x[256];

			memset(x, 0, sizeof(x));
			more = rank == 0 && spawned &&
			       waitpid(pid, &status, WNOHANG) != pid;
			if (hc_allreduce(comm, x, x, 256, HC_DTYPE_FLOAT64,
					 HC_OP_SUM) != 0 ||
			    hc_allreduce(comm, &more, &more, 1, HC_DTYPE_INT64,
					 HC_OP_MAX) != 0) {
				ok = 0;
				break;
			}
		} while (more);
		if (rank == 0 && spawned && (!WIFEXITED(status) ||
					     WEXITSTATUS(status) != 0)) {
			ok = 0;
			snprintf(why, sizeof(why), "ping %s failed", ip);
		}
		snprintf(ip, sizeof(ip), "ping rank %d", r);
		verdict(ip, ok, why);
	}
}

/* Per-rank verdict, for suites after which the communicator is broken
 * (no all-reduce to agree with): each rank prints its own line. */
static int
local_verdict(const char *name, int ok, const char *why)
{
	cases++;
	if (!ok)
		failures++;
	printf("%s %s (rank %d)%s%s\n", ok ? "PASS" : "FAIL", name, rank,
	       ok ? "" : ": ", ok ? "" : why);
	fflush(stdout);
	return ok;
}

static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* 64 all-reduces in flight at once, of different sizes and types and
 * of every priority class in turn (so classes overtake each other inside
 * each flow), then waited for together; each exact. */
static void
suite_async(void)
{
	enum { NREQ = 64 };
	static const enum hc_priority prio[4] = { HC_PRIO_DEFAULT,
		HC_PRIO_CRITICAL, HC_PRIO_NORMAL, HC_PRIO_BULK };
	struct hc_request *req[NREQ];
	struct hc_op_opts opts = { HC_PRIO_DEFAULT, 0 };
	struct hc_stats s0, s1;
	void *buf[NREQ];
	uint64_t count[NREQ];
	int st[NREQ], i, bad = 0, rc;
	char why[160] = "";

	hc_stats_get(ctx, &s0);
	for (i = 0; i < NREQ; i++) {
		enum hc_dtype d = (enum hc_dtype)(i % HC_DTYPE__MAX);

		count[i] = 1 + (uint64_t)i * 977;
		buf[i] = malloc(count[i] * hc_dtype_size(d));
		hc_pattern_fill(buf[i], d, HC_OP_SUM, count[i], rank);
		opts.priority = prio[i % 4];
		rc = hc_iallreduce(comm, buf[i], buf[i], count[i], d, HC_OP_SUM,
				   &opts, &req[i]);
		if (rc != 0) {
			snprintf(why, sizeof(why), "hc_iallreduce %d: %s", i,
				 hc_strerror(rc));
			verdict("async: 64 requests submitted", 0, why);
			exit(1);
		}
	}
	rc = hc_wait_all(req, NREQ, st);
	for (i = 0; i < NREQ; i++) {
		enum hc_dtype d = (enum hc_dtype)(i % HC_DTYPE__MAX);

		if (st[i] != 0 || hc_pattern_wrong(buf[i], d, HC_OP_SUM,
						   count[i], nranks) != 0) {
			bad++;
			snprintf(why, sizeof(why), "request %d (%s, %" PRIu64
				 " elements): %s", i, hc_dtype_name(d), count[i],
				 st[i] != 0 ? hc_strerror(st[i]) : "wrong data");
		}
		free(buf[i]);
	}
	verdict("async: 64 all-reduces in flight, hc_wait_all, all exact",
		rc == 0 && bad == 0, why);
	verdict("async: hc_wait_all set every request to NULL",
		req[0] == NULL && req[NREQ - 1] == NULL, "request left");
	hc_stats_get(ctx, &s1);
	snprintf(why, sizeof(why), "DATA sent critical %" PRIu64 " normal %"
		 PRIu64 " bulk %" PRIu64,
		 s1.hct_data_tx_class[HC_PRIO_CRITICAL] -
		 s0.hct_data_tx_class[HC_PRIO_CRITICAL],
		 s1.hct_data_tx_class[HC_PRIO_NORMAL] -
		 s0.hct_data_tx_class[HC_PRIO_NORMAL],
		 s1.hct_data_tx_class[HC_PRIO_BULK] -
		 s0.hct_data_tx_class[HC_PRIO_BULK]);
	verdict("async: DATA of the critical, normal and bulk classes sent",
		s1.hct_data_tx_class[HC_PRIO_CRITICAL] >
		s0.hct_data_tx_class[HC_PRIO_CRITICAL] &&
		s1.hct_data_tx_class[HC_PRIO_NORMAL] >
		s0.hct_data_tx_class[HC_PRIO_NORMAL] &&
		s1.hct_data_tx_class[HC_PRIO_BULK] >
		s0.hct_data_tx_class[HC_PRIO_BULK], why);
}

/* C17: the last rank never joins; the others fail with HC_ERR_TIMEOUT
 * after their 200 ms per-op timeout (plus scheduling slack). */
static void
suite_c17(const char *how)
{
	struct hc_op_opts opts = { HC_PRIO_NORMAL, 200 };
	struct hc_request *req;
	int32_t x[1024] = { 0 };
	double t0, dt;
	int rc;
	char why[160];

	if (rank == nranks - 1) {
		/* Stay alive (answering) while the others time out. */
		sleep_s(3);
		local_verdict("C17 absent rank stayed out", 1, "");
		return;
	}
	t0 = now_s();
	/* Rooted collectives too: the absent rank is downstream (the end of
	 * the broadcast chain, the root of the reduce), so the joined ranks
	 * could finish sending without it. */
	if (strcmp(how, "bcast") == 0)
		rc = hc_ibroadcast(comm, x, x, 1024, HC_DTYPE_INT32, 0, &opts,
				   &req);
	else if (strcmp(how, "reduce") == 0)
		rc = hc_ireduce(comm, x, x, 1024, HC_DTYPE_INT32, HC_OP_SUM,
				nranks - 1, &opts, &req);
	else
		rc = hc_iallreduce(comm, x, x, 1024, HC_DTYPE_INT32, HC_OP_SUM,
				   &opts, &req);
	if (rc == 0)
		rc = hc_wait(req);
	dt = now_s() - t0;
	snprintf(why, sizeof(why), "%s after %.3f s", hc_strerror(rc), dt);
	local_verdict("C17 200 ms per-op timeout gives HC_ERR_TIMEOUT in "
		      "0.2..1.2 s", rc == -HC_ERR_TIMEOUT && dt >= 0.2 && dt < 1.2,
		      why);
	rc = hc_allreduce(comm, x, x, 1, HC_DTYPE_INT32, HC_OP_SUM);
	local_verdict("C17 the communicator then refuses new work with "
		      "HC_ERR_ABORTED", rc == -HC_ERR_ABORTED, hc_strerror(rc));
}

/* Survivors of a lost rank: the pending collective fails with
 * HC_ERR_PEER_LOST within the liveness timeout + 1 s, and the waiting
 * process does not keep a core busy meanwhile. */
static void
expect_peer_lost(const char *tag, struct hc_request *req, double t0,
		 double cpu0)
{
	double limit = 3.0 + 1.0; /* [transport] peer_timeout_ms + 1 s */
	int rc = hc_wait(req);
	double dt = now_s() - t0, cpu = cpu_s() - cpu0;
	char name[160], why[160];

	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc), dt);
	snprintf(name, sizeof(name), "%s: HC_ERR_PEER_LOST within %.0f s", tag,
		 limit);
	local_verdict(name, rc == -HC_ERR_PEER_LOST && dt <= limit, why);
	snprintf(why, sizeof(why), "%.2f s of CPU in %.2f s", cpu, dt);
	snprintf(name, sizeof(name), "%s: waiting used under half a core",
		 tag);
	local_verdict(name, cpu < 0.5 * dt, why);
}

/* Sum over sub-communicator members of a known value: exact check. */
static int
check_sum_on(struct hc_comm *c, int64_t mine, int64_t want, char *why,
	     size_t wlen)
{
	int64_t x[1000];
	int i, rc;

	for (i = 0; i < 1000; i++)
		x[i] = mine + i;
	rc = hc_allreduce(c, x, x, 1000, HC_DTYPE_INT64, HC_OP_SUM);
	for (i = 0; i < 1000 && rc == 0; i++)
		if (x[i] != want + (int64_t)hc_comm_size(c) * i) {
			snprintf(why, wlen, "element %d: %" PRId64 ", want %" PRId64,
				 i, x[i], want + (int64_t)hc_comm_size(c) * i);
			return 0;
		}
	if (rc != 0)
		snprintf(why, wlen, "%s", hc_strerror(rc));
	return rc == 0;
}

struct thread_arg {
	struct hc_comm *comm;
	int ok;
	char why[160];
};

static void *
thread_main(void *p)
{
	struct thread_arg *a = p;
	int i;

	a->ok = 1;
	for (i = 0; i < 16 && a->ok; i++)
		a->ok = check_sum_on(a->comm, rank, (int64_t)nranks *
				     (nranks - 1) / 2, a->why, sizeof(a->why));
	return NULL;
}

/* hc_comm_split: parity split with reversed keys, NONE, 64 requests in
 * flight over two communicators, and 4 application threads at once,
 * each on its own communicator. */
static void
suite_split(void)
{
	struct hc_comm *half = NULL, *none = NULL, *dup = NULL, *tc[4];
	struct hc_request *req[64];
	struct thread_arg ta[4];
	pthread_t th[4];
	int64_t want = 0, bufs[64][100];
	int rc, q, i, ok, st[64];
	char why[160] = "";

	rc = hc_comm_split(comm, rank % 2, -rank, &half);
	ok = rc == 0 && half != NULL &&
	     hc_comm_size(half) == (nranks + (rank % 2 == 0)) / 2;
	/* keys reversed: the highest world rank of a parity is rank 0 */
	for (q = rank + 2, i = 0; q < nranks; q += 2)
		i++;
	ok = ok && hc_comm_rank(half) == i;
	snprintf(why, sizeof(why), "rc %s, size %d rank %d", hc_strerror(rc),
		 half != NULL ? hc_comm_size(half) : -1,
		 half != NULL ? hc_comm_rank(half) : -1);
	if (!verdict("split: parity, reversed keys: sizes and ranks", ok, why))
		return;
	for (q = rank % 2; q < nranks; q += 2)
		want += q;
	verdict("split: all-reduce on each half is the sum of its members",
		check_sum_on(half, rank, want, why, sizeof(why)), why);
	rc = hc_comm_split(comm, rank == 0 ? HC_COMM_SPLIT_NONE : 7, 0, &none);
	verdict("split: HC_COMM_SPLIT_NONE gives NULL, the others a comm",
		rc == 0 && (rank == 0 ? none == NULL : none != NULL &&
			    hc_comm_size(none) == nranks - 1), hc_strerror(rc));
	rc = hc_comm_split(comm, 0, rank, &dup);
	if (!verdict("split: a duplicate of the world", rc == 0 && dup != NULL &&
		     hc_comm_rank(dup) == rank, hc_strerror(rc)))
		return;
	for (i = 0; i < 64; i++) {
		for (q = 0; q < 100; q++)
			bufs[i][q] = rank + q + i;
		rc = hc_iallreduce(i % 2 ? dup : comm, bufs[i], bufs[i], 100,
				   HC_DTYPE_INT64, HC_OP_SUM, NULL, &req[i]);
		if (rc != 0)
			break;
	}
	ok = rc == 0 && hc_wait_all(req, 64, st) == 0;
	for (i = 0; i < 64 && ok; i++)
		for (q = 0; q < 100; q++)
			ok = ok && bufs[i][q] == (int64_t)nranks * (nranks - 1) / 2 +
			     (int64_t)nranks * (q + i);
	verdict("async: 64 requests over 2 communicators, exact", ok,
		hc_strerror(rc));
	for (i = 0; i < 4; i++) {
		rc = hc_comm_split(comm, 0, rank, &tc[i]);
		if (rc != 0)
			break;
	}
	if (!verdict("split: 4 more communicators", rc == 0, hc_strerror(rc)))
		return;
	for (i = 0; i < 4; i++) {
		ta[i].comm = tc[i];
		ta[i].why[0] = '\0';
		pthread_create(&th[i], NULL, thread_main, &ta[i]);
	}
	for (i = 0, ok = 1; i < 4; i++) {
		pthread_join(th[i], NULL);
		if (!ta[i].ok) {
			ok = 0;
			snprintf(why, sizeof(why), "thread %d: %s", i, ta[i].why);
		}
	}
	verdict("async: 4 application threads, each 16 all-reduces on its own "
		"communicator, at once", ok, why);
}

/* C02 at this n (run for n in {3, 5, 6, 7}; 2, 4, 8 are the controls of
 * other suites): all-gather int32 sendcount {1, 1000, 65537}, all-reduce
 * int32 and fp32 SUM of 1000003 (P32), reduce-scatter fp32 SUM recvcount
 * 4097; with the one algorithm each collective has here. */
static void
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
static void
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

/* One request of the mixed async suites: kind k of 7 on communicator c,
 * variant i; its buffers, and what to expect. */
struct aslot {
	int kind, i, n, me;
	int64_t *a, *b;        /* send (or in-place) and receive buffers */
	uint64_t counts[64];
	uint64_t len;          /* elements to check in b (or a) */
};

enum { AS_ALLREDUCE, AS_RSV, AS_AGV, AS_BCAST, AS_REDUCE, AS_P2P, AS__MAX };

/* Expected element j of slot s's result at this rank; -1: unchecked. */
static int64_t
aslot_want(const struct aslot *s, uint64_t j)
{
	int64_t n = s->n, tri = n * (n - 1) / 2;
	uint64_t off = 0, q = 0;

	switch (s->kind) {
	case AS_ALLREDUCE:
		return tri + n * (int64_t)(j + s->i);
	case AS_RSV:
		for (q = 0; q < (uint64_t)s->me; q++)
			off += s->counts[q];
		return tri + n * (int64_t)(off + j);
	case AS_AGV:
		while (j >= s->counts[q])
			j -= s->counts[q++];
		return (int64_t)q * 1000 + (int64_t)j;
	case AS_BCAST:
		return (s->i % n) * 7 + (int64_t)j + s->i;
	case AS_REDUCE:
		return s->me == s->i % n ? tri + n * (int64_t)(j + s->i) : -1;
	default: /* p2p from the left */
		return ((s->me + n - 1) % n) * 100 + (int64_t)j + s->i;
	}
}

/* Submit slot s (kind, i already set) on c: one request, two for p2p. */
static int
aslot_submit(struct hc_comm *c, struct aslot *s, struct hc_request **req,
	     int *nreq)
{
	uint64_t j, total = 0, base = 200 + (uint64_t)s->i * 37;
	int q, n = s->n = hc_comm_size(c), me = s->me = hc_comm_rank(c);
	int rc;

	for (q = 0; q < n && q < 64; q++) {
		s->counts[q] = (uint64_t)(q + s->i) % 5 == 0 ? 0 :
			       base + (uint64_t)q * 11;
		total += s->counts[q];
	}
	s->len = s->kind == AS_RSV ? s->counts[me] :
		 s->kind == AS_AGV ? total : base;
	s->a = calloc(total + base + 1, sizeof(int64_t));
	s->b = calloc(total + base + 1, sizeof(int64_t));
	for (j = 0; j < total + base; j++)
		s->a[j] = s->kind == AS_RSV ? me + (int64_t)j :
			  s->kind == AS_AGV ? me * 1000 + (int64_t)j :
			  s->kind == AS_BCAST ? (me == s->i % n ?
				me * 7 + (int64_t)j + s->i : 0) :
			  s->kind == AS_P2P ? me * 100 + (int64_t)j + s->i :
			  me + (int64_t)j + s->i;
	switch (s->kind) {
	case AS_ALLREDUCE:
		rc = hc_iallreduce(c, s->a, s->b, base, HC_DTYPE_INT64,
				   HC_OP_SUM, NULL, &req[(*nreq)++]);
		break;
	case AS_RSV:
		rc = hc_ireduce_scatterv(c, s->a, s->b, s->counts,
					 HC_DTYPE_INT64, HC_OP_SUM, NULL,
					 &req[(*nreq)++]);
		break;
	case AS_AGV:
		rc = hc_iallgatherv(c, s->a, s->b, s->counts, NULL,
				    HC_DTYPE_INT64, NULL, &req[(*nreq)++]);
		break;
	case AS_BCAST:
		rc = hc_ibroadcast(c, s->a, s->b, base, HC_DTYPE_INT64,
				   s->i % n, NULL, &req[(*nreq)++]);
		break;
	case AS_REDUCE:
		rc = hc_ireduce(c, s->a, s->b, base, HC_DTYPE_INT64, HC_OP_SUM,
				s->i % n, NULL, &req[(*nreq)++]);
		break;
	default:
		if (n == 1) /* no peer: an all-reduce stands in */
			return hc_iallreduce(c, s->a, s->b, 0, HC_DTYPE_INT64,
					     HC_OP_SUM, NULL, &req[(*nreq)++]);
		rc = hc_irecv(c, s->b, base, HC_DTYPE_INT64, (me + n - 1) % n,
			      NULL, &req[(*nreq)++]);
		if (rc == 0)
			rc = hc_isend(c, s->a, base, HC_DTYPE_INT64,
				      (me + 1) % n, NULL, &req[(*nreq)++]);
		break;
	}
	return rc;
}

/* Check slot s's result and free its buffers. @return wrong elements. */
static uint64_t
aslot_check(struct aslot *s)
{
	uint64_t j, wrong = 0;

	for (j = 0; j < s->len && !(s->kind == AS_P2P && s->n == 1); j++) {
		int64_t want = aslot_want(s, j);

		wrong += want >= 0 && s->b[j] != want;
	}
	free(s->a);
	free(s->b);
	return wrong;
}

/* async2: 64 requests of six kinds (all-reduce, reduce-scatterv,
 * all-gatherv, broadcast, reduce, send/receive) in flight at once over
 * two communicators, then waited for together; and 4 application threads
 * at once, each driving its own communicator through 24 requests of all
 * kinds, 8 in flight at a time. Every result exact. */
struct athread {
	struct hc_comm *c;
	uint64_t wrong;
	int rc;
};

static void *
athread_main(void *p)
{
	struct athread *t = p;
	struct aslot sl[8];
	struct hc_request *req[16];
	int round, k, nreq, rc;

	t->wrong = 0;
	t->rc = 0;
	for (round = 0; round < 3 && t->rc == 0; round++) {
		nreq = 0;
		for (k = 0, rc = 0; k < 8 && rc == 0; k++) {
			sl[k].kind = (k + round) % AS__MAX;
			sl[k].i = round * 8 + k;
			rc = aslot_submit(t->c, &sl[k], req, &nreq);
		}
		if (rc == 0)
			rc = hc_wait_all(req, nreq, NULL);
		for (nreq = 0; nreq < k; nreq++)
			t->wrong += aslot_check(&sl[nreq]);
		t->rc = rc;
	}
	return NULL;
}

static void
suite_async2(void)
{
	enum { NSLOT = 54 }; /* 9 of 6 kinds; p2p takes 2: 63 requests */
	struct aslot sl[NSLOT];
	struct hc_request *req[2 * NSLOT];
	struct hc_comm *dup = NULL, *tc[4];
	struct athread ta[4];
	pthread_t th[4];
	uint64_t wrong = 0;
	int k, nreq = 0, rc, ok;
	char why[160] = "";

	rc = hc_comm_split(comm, 0, rank, &dup);
	if (!verdict("async2: a second communicator", rc == 0,
		     hc_strerror(rc)))
		return;
	for (k = 0, rc = 0; k < NSLOT && rc == 0; k++) {
		sl[k].kind = k % AS__MAX;
		sl[k].i = k;
		rc = aslot_submit(k % 2 ? dup : comm, &sl[k], req, &nreq);
	}
	/* one more all-reduce: 64 in flight */
	{
		int64_t one[4] = { rank, rank, rank, rank };

		if (rc == 0)
			rc = hc_iallreduce(dup, one, one, 4, HC_DTYPE_INT64,
					   HC_OP_SUM, NULL, &req[nreq++]);
		if (rc == 0)
			rc = hc_wait_all(req, nreq, NULL);
		for (int q = 0; q < k; q++)
			wrong += aslot_check(&sl[q]);
		wrong += rc == 0 && one[3] != (int64_t)nranks * (nranks - 1) / 2;
	}
	snprintf(why, sizeof(why), "%s, %" PRIu64 " wrong elements",
		 hc_strerror(rc), wrong);
	verdict("async2: 64 requests of 6 kinds over 2 communicators in "
		"flight, exact", rc == 0 && wrong == 0 &&
		nreq == 64 - (nranks == 1 ? NSLOT / AS__MAX : 0), why);
	for (k = 0, rc = 0; k < 4 && rc == 0; k++)
		rc = hc_comm_split(comm, 0, rank, &tc[k]);
	if (!verdict("async2: 4 more communicators", rc == 0, hc_strerror(rc)))
		return;
	for (k = 0; k < 4; k++) {
		ta[k].c = tc[k];
		pthread_create(&th[k], NULL, athread_main, &ta[k]);
	}
	for (k = 0, ok = 1; k < 4; k++) {
		pthread_join(th[k], NULL);
		if (ta[k].rc != 0 || ta[k].wrong != 0) {
			ok = 0;
			snprintf(why, sizeof(why), "thread %d: %s, %" PRIu64
				 " wrong", k, hc_strerror(ta[k].rc),
				 ta[k].wrong);
		}
	}
	verdict("async2: 4 application threads at once, 24 requests of 6 "
		"kinds each on its own communicator, exact", ok, why);
}

/* C05: one rank disagrees on count (also 0 vs N), dtype or op. Every
 * rank gets HC_ERR_MISMATCH within the per-op timeout (5 s), then
 * HC_ERR_ABORTED for new work. */
static void
suite_c05(const char *how)
{
	struct hc_op_opts opts = { HC_PRIO_NORMAL, 5000 };
	uint64_t count = 100000;
	enum hc_dtype d = HC_DTYPE_INT32;
	enum hc_op op = HC_OP_SUM;
	struct hc_request *req;
	int64_t *x = calloc(count + 1, sizeof(int64_t));
	double t0, dt;
	int rc, odd = rank == nranks - 1;
	char name[160], why[160];

	/* All ranks past hc_init, and one good collective first. */
	rc = hc_allreduce(comm, x, x, 16, HC_DTYPE_INT32, HC_OP_SUM);
	if (!local_verdict("C05 warm-up all-reduce", rc == 0, hc_strerror(rc)))
		return;
	if (odd && strcmp(how, "count") == 0)
		count++;
	else if (odd && strcmp(how, "zero") == 0)
		count = 0;
	else if (odd && strcmp(how, "dtype") == 0)
		d = HC_DTYPE_INT64;
	else if (odd && strcmp(how, "op") == 0)
		op = HC_OP_MAX;
	t0 = now_s();
	if (odd && strcmp(how, "coll") == 0) /* C14: all-gather vs all-reduce */
		rc = hc_iallgather(comm, (int32_t *)x + rank * (count / nranks),
				   x, count / nranks, d, &opts, &req);
	else if (strcmp(how, "bcast") == 0) /* the last rank: another dtype */
		rc = hc_ibroadcast(comm, x, x, 1000, odd ? HC_DTYPE_FLOAT32 :
				   HC_DTYPE_INT32, 0, &opts, &req);
	else if (strcmp(how, "reduce") == 0) /* the last rank: another root */
		rc = hc_ireduce(comm, x, x, 1000, HC_DTYPE_INT32, HC_OP_SUM,
				odd ? 1 : 0, &opts, &req);
	else if (strcmp(how, "rsv") == 0 || strcmp(how, "agv") == 0) {
		/* the last rank: rank 0's count one less (the sum moves) */
		uint64_t vc[64];
		int q;

		for (q = 0; q < nranks && q < 64; q++)
			vc[q] = 1000 + q;
		if (odd)
			vc[0]--;
		if (how[0] == 'r')
			rc = hc_ireduce_scatterv(comm, x, (int32_t *)x + 64000,
						 vc, HC_DTYPE_INT32, HC_OP_SUM,
						 &opts, &req);
		else
			rc = hc_iallgatherv(comm, (int32_t *)x + 64000, x, vc,
					    NULL, HC_DTYPE_INT32, &opts, &req);
	}
	else
		rc = hc_iallreduce(comm, x, x, count, d, op, &opts, &req);
	if (rc == 0)
		rc = hc_wait(req);
	dt = now_s() - t0;
	snprintf(name, sizeof(name), "C05 %s differs on rank %d: "
		 "HC_ERR_MISMATCH within 6 s", how, nranks - 1);
	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc), dt);
	local_verdict(name, rc == -HC_ERR_MISMATCH && dt < 6.0, why);
	rc = hc_allreduce(comm, x, x, 16, HC_DTYPE_INT32, HC_OP_SUM);
	snprintf(name, sizeof(name), "C05 %s: new work gets HC_ERR_ABORTED",
		 how);
	local_verdict(name, rc == -HC_ERR_ABORTED, hc_strerror(rc));
	free(x);
}

/* C19, transport side (run with HC_FAULT_DROP_DATA_PCT=100): every DATA
 * packet is dropped, so the retry budget runs out on the engine; that
 * error reaches the application's wait, and the communicator then
 * refuses collectives and sends with HC_ERR_ABORTED. (The engine-side
 * check of a smuggled dtype is a unit test: the API cannot smuggle.) */
static void
suite_c19(void)
{
	struct hc_op_opts opts = { HC_PRIO_NORMAL, 30000 };
	struct hc_request *req;
	int32_t x[1000] = { 0 };
	double t0 = now_s(), dt;
	int rc;
	char why[160];

	rc = hc_iallreduce(comm, x, x, 1000, HC_DTYPE_INT32, HC_OP_SUM, &opts,
			   &req);
	if (rc == 0)
		rc = hc_wait(req);
	dt = now_s() - t0;
	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc), dt);
	/* 12 RTOs, doubling from 20 ms up to 500 ms: about 4 s */
	local_verdict("C19 every DATA dropped: the wait gets HC_ERR_PEER_LOST "
		      "within 10 s", rc == -HC_ERR_PEER_LOST && dt < 10.0, why);
	rc = hc_allreduce(comm, x, x, 1, HC_DTYPE_INT32, HC_OP_SUM);
	local_verdict("C19 then a collective gets HC_ERR_ABORTED",
		      rc == -HC_ERR_ABORTED, hc_strerror(rc));
	rc = nranks > 1 ? hc_send(comm, x, 1, HC_DTYPE_INT32,
				  (rank + 1) % nranks) : -HC_ERR_ABORTED;
	local_verdict("C19 and a send gets HC_ERR_ABORTED",
		      rc == -HC_ERR_ABORTED, hc_strerror(rc));
}

static int
env_int(const char *name)
{
	const char *v = getenv(name);

	return v != NULL ? atoi(v) : -1;
}

/* C18: the last rank starts 1.5 s after the others' init timeout (10 s,
 * [engine] init_timeout_ms). The others: hc_init fails with
 * HC_ERR_INIT_TIMEOUT within 10..11 s and its log names the last rank,
 * and only it; then they retry and succeed once it is up.
 * @return hc_init's result for main. */
static int
c18_init(void)
{
	int me = env_int("HC_RANK"), n = env_int("HC_WORLD_SIZE"), rc, ok;
	char *text = NULL, want[64], why[200];
	size_t len = 0;
	double t0, dt;
	FILE *mem;

	if (me == n - 1) {
		sleep_s(11.5);
		return hc_init(NULL, &ctx);
	}
	mem = open_memstream(&text, &len);
	if (mem == NULL || rte_openlog_stream(mem) != 0) {
		local_verdict("C18 capture the log", 0, "open_memstream");
		return -HC_ERR_INTERNAL;
	}
	t0 = now_s();
	rc = hc_init(NULL, &ctx);
	dt = now_s() - t0;
	rte_openlog_stream(NULL);
	fclose(mem);
	fputs(text, stderr); /* the log stays visible */
	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc), dt);
	local_verdict("C18 hc_init with the last rank missing: "
		      "HC_ERR_INIT_TIMEOUT after 10..11 s",
		      rc == -HC_ERR_INIT_TIMEOUT && dt >= 9.99 && dt <= 11.0,
		      why);
	snprintf(want, sizeof(want), "from rank(s) %d\n", n - 1);
	ok = text != NULL && strstr(text, want) != NULL;
	snprintf(why, sizeof(why), "no line ending in '%.*s' in the log",
		 (int)strlen(want) - 1, want);
	local_verdict("C18 the error names the missing rank, only it", ok,
		      why);
	free(text);
	if (rc == 0)
		hc_finalize(ctx);
	t0 = now_s();
	rc = hc_init(NULL, &ctx);
	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc),
		 now_s() - t0);
	local_verdict("C18 hc_init again, the missing rank started: success",
		      rc == 0, why);
	return rc;
}

/* After C18's init: every rank, the late one too, runs one exact
 * all-reduce. */
static void
suite_c18(void)
{
	char why[160] = "";

	verdict("C18 after the retry: all-reduce of 100003 int32, exact",
		check_allreduce(100003, HC_DTYPE_INT32, HC_OP_SUM, 0, why,
				sizeof(why)), why);
}

/* C21 roles of the last rank: the first incarnation is a child that
 * kills itself mid-collective; the parent (no EAL yet at the fork) waits
 * for it, then starts again with the same rank id. */
enum { C21_NONE, C21_VICTIM, C21_RESTARTED };
static int c21_role = C21_NONE;

static int
c21_fork(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		c21_role = C21_VICTIM;
		return 0;
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	c21_role = C21_RESTARTED;
	local_verdict("C21 the first incarnation of the last rank was killed "
		      "(SIGKILL)", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		      "it ended otherwise");
	return 0;
}

/* C21: the last rank is killed in the middle of a 16 MiB all-reduce and
 * started again with the same rank id. Survivors: the old communicator
 * fails (HC_ERR_PEER_LOST within the liveness timeout + 1 s; its new
 * incarnation's HELLO may tell them sooner), then refuses work
 * (HC_ERR_ABORTED); no crash; hc_finalize, then hc_init forms a new world
 * with the restarted rank, and an all-reduce over it is exact. */
static void
suite_c21(void)
{
	uint64_t count = (16u << 20) / sizeof(float);
	float *x = calloc(count, sizeof(float));
	struct hc_request *req;
	double t0;
	int rc;
	char why[160] = "";

	if (c21_role != C21_RESTARTED) {
		rc = hc_allreduce(comm, x, x, 1, HC_DTYPE_FLOAT32, HC_OP_SUM);
		if (!local_verdict("C21 all ranks up", rc == 0,
				   hc_strerror(rc)))
			goto out;
		t0 = now_s();
		rc = hc_iallreduce(comm, x, x, count, HC_DTYPE_FLOAT32,
				   HC_OP_SUM, NULL, &req);
		if (!local_verdict("C21 submit", rc == 0, hc_strerror(rc)))
			goto out;
		if (c21_role == C21_VICTIM) {
			sleep_s(0.3);
			raise(SIGKILL);
		}
		rc = hc_wait(req);
		snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc),
			 now_s() - t0);
		local_verdict("C21 the old communicator fails: "
			      "HC_ERR_PEER_LOST within 4 s",
			      rc == -HC_ERR_PEER_LOST && now_s() - t0 <= 4.0,
			      why);
		rc = hc_allreduce(comm, x, x, 1, HC_DTYPE_FLOAT32, HC_OP_SUM);
		local_verdict("C21 the old communicator refuses new work",
			      rc == -HC_ERR_ABORTED, hc_strerror(rc));
		rc = hc_finalize(ctx);
		local_verdict("C21 hc_finalize of the old instance returns",
			      rc == 0 || rc == -HC_ERR_TIMEOUT,
			      hc_strerror(rc));
		ctx = NULL;
		t0 = now_s();
		rc = hc_init(NULL, &ctx);
		snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc),
			 now_s() - t0);
		if (!local_verdict("C21 hc_init again with the restarted rank",
				   rc == 0, why)) {
			ctx = NULL;
			goto out;
		}
		comm = hc_comm_world(ctx);
	}
	verdict("C21 the new world: all-reduce of 100003 int32, exact",
		check_allreduce(100003, HC_DTYPE_INT32, HC_OP_SUM, 0, why,
				sizeof(why)), why);
out:
	free(x);
}

/* The suite named on the command line (-s NAME), before the EAL parsed
 * it. */
static const char *
early_suite(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc - 1; i++)
		if (strcmp(argv[i], "-s") == 0)
			return argv[i + 1];
	return "";
}

/* C15: the last rank leaves after 99 of 100 all-reduces. */
static void
suite_c15(void)
{
	int32_t x[4096];
	struct hc_request *req;
	int i, rc = 0;

	for (i = 0; i < 99 && rc == 0; i++) {
		hc_pattern_fill(x, HC_DTYPE_INT32, HC_OP_SUM, 4096, rank);
		rc = hc_allreduce(comm, x, x, 4096, HC_DTYPE_INT32, HC_OP_SUM);
	}
	if (rank == nranks - 1) {
		local_verdict("C15 99 all-reduces before leaving", rc == 0,
			      hc_strerror(rc));
		return; /* main() finalizes and exits */
	}
	if (!local_verdict("C15 99 all-reduces", rc == 0, hc_strerror(rc)))
		return;
	{
		double t0 = now_s(), c0 = cpu_s();

		rc = hc_iallreduce(comm, x, x, 4096, HC_DTYPE_INT32, HC_OP_SUM,
				   NULL, &req);
		if (rc == 0)
			expect_peer_lost("C15 100th all-reduce", req, t0, c0);
	}
}

/* C16: the last rank is killed (-9) or stopped (-STOP) in the middle of
 * a 64 MiB all-reduce. A stopped rank is continued after 8 s by a child
 * it spawned, and then leaves without a word. */
static void
suite_c16(int stop)
{
	uint64_t count = (64u << 20) / sizeof(float);
	float *x = calloc(count, sizeof(float));
	struct hc_request *req;
	double t0, c0;
	int rc;

	/* Every rank past hc_init first: the case is a rank lost in the
	 * middle of a collective, not during the others' start-up (C18). */
	rc = hc_allreduce(comm, x, x, 1, HC_DTYPE_FLOAT32, HC_OP_SUM);
	if (!local_verdict("C16 all ranks up", rc == 0, hc_strerror(rc)))
		return;
	t0 = now_s();
	c0 = cpu_s();
	rc = hc_iallreduce(comm, x, x, count, HC_DTYPE_FLOAT32, HC_OP_SUM, NULL,
			   &req);
	if (rc != 0) {
		local_verdict("C16 submit", 0, hc_strerror(rc));
		return;
	}
	if (rank == nranks - 1) {
		sleep_s(0.3); /* mid-collective */
		if (stop) {
			char cmd[64];
			pid_t pid;
			char *argv[] = { "sh", "-c", cmd, NULL };

			snprintf(cmd, sizeof(cmd), "sleep 8; kill -CONT %d",
				 (int)getpid());
			posix_spawnp(&pid, "sh", NULL, NULL, argv, environ);
			raise(SIGSTOP);
			_exit(0);
		}
		raise(SIGKILL);
	}
	expect_peer_lost(stop ? "C16 kill -STOP" : "C16 kill -9", req, t0, c0);
	free(x);
}

static void
suite_fault(void)
{
	struct hc_stats s;

	suite_quick("fault");
	check_flow_stats("fault");
	hc_stats_get(ctx, &s);
	verdict("fault: injector dropped DATA packets", s.fault_drops > 0,
		"nothing dropped: is HC_FAULT_DROP_DATA_PCT set?");
	verdict("fault: lost DATA was retransmitted",
		s.fault_drops == 0 || s.hct_retransmits > 0,
		"no retransmission");
}

/* Sum of a counter over the ranks. */
static uint64_t
sum_ranks(uint64_t v)
{
	if (hc_allreduce(comm, &v, &v, 1, HC_DTYPE_UINT64, HC_OP_SUM) != 0) {
		fprintf(stderr, "rank %d: sum all-reduce failed\n", rank);
		exit(2);
	}
	return v;
}

/* This rank's count of fault k over both directions and every class. */
static uint64_t
fault_count(enum hc_fault_kind k)
{
	struct hc_fault_stats fs;
	uint64_t n = 0;
	int d, c;

	hc_fault_stats_get(ctx, &fs);
	for (d = 0; d < HC_FAULT_DIR__MAX; d++)
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++)
			n += fs.count[d][c][k];
	return n;
}

static double
env_seconds(const char *name, double def)
{
	const char *v = getenv(name);

	return v != NULL && atof(v) > 0 ? atof(v) : def;
}

/* C22: every frame lost from start_ms after set-up on. */
static void
suite_c22(void)
{
	float x[65536];
	struct hc_request *req;
	double t0, c0;
	int rc;

	memset(x, 0, sizeof(x));
	sleep_s(env_seconds("HC_CHECK_LOSS_AFTER", 1.5));
	t0 = now_s();
	c0 = cpu_s();
	rc = hc_iallreduce(comm, x, x, RTE_DIM(x), HC_DTYPE_FLOAT32, HC_OP_SUM,
			   NULL, &req);
	if (rc != 0) {
		local_verdict("C22 submit", 0, hc_strerror(rc));
		return;
	}
	expect_peer_lost("C22 100% loss", req, t0, c0);
}

/* C23: loss, reordering and duplicates; bit-exact results. */
static void
suite_c23(void)
{
	struct hc_stats s;
	uint64_t dup_rx, retx;
	char why[160];

	suite_quick("c23");
	hc_stats_get(ctx, &s);
	dup_rx = sum_ranks(s.hct_dup_rx);
	retx = sum_ranks(s.hct_retransmits);
	snprintf(why, sizeof(why), "dup_rx %" PRIu64 ", retransmits %" PRIu64,
		 dup_rx, retx);
	if (rank == 0)
		printf("c23: %s\n", why);
	verdict("C23 duplicate DATA seen and discarded", dup_rx > 0, why);
	verdict("C23 lost DATA retransmitted", retx > 0, why);
	if (getenv("HC_FAULT") != NULL) {
		uint64_t drops = sum_ranks(fault_count(HC_FAULT_DROP));
		uint64_t dups = sum_ranks(fault_count(HC_FAULT_DUP));
		uint64_t reord = sum_ranks(fault_count(HC_FAULT_REORDER));

		snprintf(why, sizeof(why), "injector: drop %" PRIu64 " dup %"
			 PRIu64 " reorder %" PRIu64, drops, dups, reord);
		if (rank == 0)
			printf("c23: %s\n", why);
		verdict("C23 injector dropped, duplicated and reordered",
			drops > 0 && dups > 0 && reord > 0, why);
	}
}

/* C24: ACK loss; no retransmission storm. */
static void
suite_c24(void)
{
	uint64_t count = (4u << 20) / sizeof(float);
	float *x = malloc(count * sizeof(float));
	uint64_t data, retx, acks;
	struct hc_stats s;
	char why[160];
	int i, rc = 0;

	suite_quick("c24");
	for (i = 0; i < 8 && rc == 0; i++) {
		hc_pattern_fill(x, HC_DTYPE_FLOAT32, HC_OP_SUM, count, rank);
		rc = hc_allreduce(comm, x, x, count, HC_DTYPE_FLOAT32,
				  HC_OP_SUM);
		if (rc == 0 && hc_pattern_wrong(x, HC_DTYPE_FLOAT32, HC_OP_SUM,
						count, nranks) != 0)
			rc = -HC_ERR_INTERNAL;
	}
	free(x);
	verdict("C24 8 all-reduces of 4 MiB exact", rc == 0, hc_strerror(rc));
	hc_stats_get(ctx, &s);
	data = sum_ranks(s.hct_data_tx);
	retx = sum_ranks(s.hct_retransmits);
	acks = sum_ranks(fault_count(HC_FAULT_DROP));
	snprintf(why, sizeof(why), "%" PRIu64 " retransmits / %" PRIu64
		 " DATA = %.2f%% (%" PRIu64 " ACKs dropped)", retx, data,
		 data > 0 ? 100.0 * retx / data : 0.0, acks);
	if (rank == 0)
		printf("c24: %s\n", why);
	verdict("C24 ACKs were dropped", acks > 0, why);
	verdict("C24 retransmits < 5% of DATA", retx * 20 < data, why);
}

/* C25: the last packet of every message dropped once. */
static void
suite_c25(void)
{
	uint64_t lasts, retx;
	struct hc_stats s;
	double t0, dt;
	char why[160];
	int32_t v;
	int i, rc = 0;

	suite_quick("c25");
	t0 = now_s();
	for (i = 0; i < 50 && rc == 0; i++) {
		v = rank;
		rc = hc_allreduce(comm, &v, &v, 1, HC_DTYPE_INT32, HC_OP_SUM);
		if (rc == 0 && v != nranks * (nranks - 1) / 2)
			rc = -HC_ERR_INTERNAL;
	}
	dt = now_s() - t0;
	verdict("C25 50 one-element all-reduces exact", rc == 0,
		hc_strerror(rc));
	if (rank == 0)
		printf("c25: %.2f ms per one-element all-reduce with every "
		       "tail dropped once\n", dt / 50 * 1e3);
	hc_stats_get(ctx, &s);
	lasts = sum_ranks(fault_count(HC_FAULT_DROP_LAST));
	retx = sum_ranks(s.hct_retransmits);
	snprintf(why, sizeof(why), "%" PRIu64 " tails dropped, %" PRIu64
		 " retransmits", lasts, retx);
	if (rank == 0)
		printf("c25: %s\n", why);
	verdict("C25 tails dropped and all retransmitted",
		lasts > 0 && retx >= lasts, why);
}

/* C31: all-reduces while hc-launch flaps a tap. Short flap (longer = 0):
 * all exact. Long flap: the one in flight fails with HC_ERR_PEER_LOST
 * within the peer timeout + 1 s after the link went down. */
static void
suite_c31(int longer)
{
	uint64_t count = (1u << 20) / sizeof(float);
	float *x = malloc(count * sizeof(float));
	double end = now_s() + env_seconds("HC_CHECK_SECONDS", 8), t0 = 0;
	double limit = 3.0 + 1.0 + 1.0; /* peer timeout + 1 s + the op */
	double down = env_seconds("HC_CHECK_FLAP_DOWN", 0), longest = 0;
	int n = 0, rc = 0;
	char why[160];

	while (now_s() < end && rc == 0) {
		hc_pattern_fill(x, HC_DTYPE_FLOAT32, HC_OP_SUM, count, rank);
		t0 = now_s();
		rc = hc_allreduce(comm, x, x, count, HC_DTYPE_FLOAT32,
				  HC_OP_SUM);
		if (rc == 0 && hc_pattern_wrong(x, HC_DTYPE_FLOAT32, HC_OP_SUM,
						count, nranks) != 0)
			rc = -HC_ERR_INTERNAL;
		n += rc == 0;
		if (rc == 0 && now_s() - t0 > longest)
			longest = now_s() - t0;
	}
	free(x);
	snprintf(why, sizeof(why), "%d exact, then %s after %.2f s", n,
		 hc_strerror(rc), now_s() - t0);
	if (!longer) {
		struct hc_stats s;
		uint64_t lost;

		verdict("C31 1 MiB all-reduces across a short link flap",
			rc == 0, why);
		hc_stats_get(ctx, &s);
		lost = sum_ranks(s.hct_retransmits);
		snprintf(why, sizeof(why), "%" PRIu64 " retransmits", lost);
		if (rank == 0)
			printf("c31: %d all-reduces, %s\n", n, why);
		verdict("C31 the flap cost retransmissions", lost > 0, why);
		/* The flap fell inside the loop: some all-reduce waited it
		 * out (HC_CHECK_FLAP_DOWN: the down time hc-launch uses). */
		snprintf(why, sizeof(why), "longest all-reduce %.3f s",
			 longest);
		if (rank == 0)
			printf("c31: %s\n", why);
		verdict("C31 an all-reduce spanned the flap",
			longest >= down * 0.9, why);
		return;
	}
	printf("c31long: rank %d: %s\n", rank, why);
	local_verdict("C31 long flap: HC_ERR_PEER_LOST within 5 s of the "
		      "all-reduce's start",
		      rc == -HC_ERR_PEER_LOST && now_s() - t0 <= limit, why);
}

int
main(int argc, char **argv)
{
	const char *suite = "quick";
	int ret, c, rc;

	rank = env_int("HC_RANK"); /* for lines printed before hc_init */
	/* C21: the last rank's first incarnation is a child; the parent
	 * runs the second one, from a clean start (no EAL before fork). */
	if (strcmp(early_suite(argc, argv), "c21") == 0 &&
	    env_int("HC_RANK") == env_int("HC_WORLD_SIZE") - 1 &&
	    c21_fork() != 0) {
		fprintf(stderr, "hc-check: c21: fork/wait failed\n");
		return 2;
	}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "hc-check: EAL init failed\n");
		return 2;
	}
	argc -= ret;
	argv += ret;
	while ((c = getopt(argc, argv, "s:")) != -1) {
		if (c != 's') {
			fprintf(stderr, "usage: hc-check [EAL] -- -s SUITE\n");
			return 2;
		}
		suite = optarg;
	}
	rc = strcmp(suite, "c18") == 0 ? c18_init() : hc_init(NULL, &ctx);
	if (rc != 0) {
		fprintf(stderr, "hc-check: hc_init: %s\n", hc_strerror(rc));
		return 2;
	}
	comm = hc_comm_world(ctx);
	rank = hc_comm_rank(comm);
	nranks = hc_comm_size(comm);
	if (strcmp(suite, "basic") == 0)
		suite_basic();
	else if (strcmp(suite, "quick") == 0)
		suite_quick("quick");
	else if (strcmp(suite, "dtypes") == 0)
		suite_dtypes();
	else if (strcmp(suite, "rs") == 0)
		suite_rs_ag('r');
	else if (strcmp(suite, "ag") == 0)
		suite_rs_ag('g');
	else if (strcmp(suite, "rsv") == 0)
		suite_v('r');
	else if (strcmp(suite, "agv") == 0)
		suite_v('g');
	else if (strcmp(suite, "p2p") == 0)
		suite_p2p();
	else if (strcmp(suite, "barrier") == 0)
		suite_barrier();
	else if (strcmp(suite, "split") == 0)
		suite_split();
	else if (strcmp(suite, "bcast") == 0)
		suite_rooted('b');
	else if (strcmp(suite, "reduce") == 0)
		suite_rooted('r');
	else if (strcmp(suite, "c01") == 0)
		suite_c01();
	else if (strcmp(suite, "c03") == 0)
		suite_c03();
	else if (strcmp(suite, "c04") == 0)
		suite_c04();
	else if (strcmp(suite, "c06") == 0)
		suite_c06();
	else if (strcmp(suite, "c13") == 0)
		suite_c13();
	else if (strcmp(suite, "ping") == 0)
		suite_ping();
	else if (strcmp(suite, "fault") == 0)
		suite_fault();
	else if (strcmp(suite, "c22") == 0)
		suite_c22();
	else if (strcmp(suite, "c23") == 0)
		suite_c23();
	else if (strcmp(suite, "c24") == 0)
		suite_c24();
	else if (strcmp(suite, "c25") == 0)
		suite_c25();
	else if (strcmp(suite, "c31") == 0)
		suite_c31(0);
	else if (strcmp(suite, "c31long") == 0)
		suite_c31(1);
	else if (strcmp(suite, "async") == 0)
		suite_async();
	else if (strcmp(suite, "c02") == 0)
		suite_c02();
	else if (strcmp(suite, "c10") == 0)
		suite_c10();
	else if (strcmp(suite, "async2") == 0)
		suite_async2();
	else if (strcmp(suite, "c18") == 0)
		suite_c18();
	else if (strcmp(suite, "c21") == 0)
		suite_c21();
	else if (strcmp(suite, "c19") == 0)
		suite_c19();
	else if (strcmp(suite, "c15") == 0)
		suite_c15();
	else if (strcmp(suite, "c16kill") == 0)
		suite_c16(0);
	else if (strcmp(suite, "c16stop") == 0)
		suite_c16(1);
	else if (strncmp(suite, "c17", 3) == 0)
		suite_c17(suite + 3);
	else if (strncmp(suite, "c05", 3) == 0)
		suite_c05(suite + 3);
	else if (strcmp(suite, "algo") == 0)
		suite_algo();
	else if (strcmp(suite, "algobad") == 0)
		suite_algobad();
	else {
		fprintf(stderr, "hc-check: unknown suite '%s'\n", suite);
		failures = 1;
	}
	if (rank == 0)
		printf("hc-check %s: %d passed, %d failed\n", suite,
		       cases - failures, failures);
	if (ctx == NULL) { /* C21: the second hc_init failed */
		rte_eal_cleanup();
		return 1;
	}
	hc_finalize(ctx);
	rte_eal_cleanup();
	return failures != 0 ? 1 : 0;
}
