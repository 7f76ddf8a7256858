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
 *           out-of-place send buffers unchanged (C08); HC_CHECK_MAX_COUNT
 *           (basic and every suite built on its matrix): counts above it
 *           left out, each named in one "SKIP" line on rank 0
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
 *   c03     count 1..n-1: all-reduce (4 dtypes x 4 ops), broadcast and
 *           reduce (roots 0, n-1), reduce-scatter/all-gather (count per
 *           rank) and their v forms (count in all: ranks >= count get
 *           none); exact, each within 1 s
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
 *   strays  all-reduces (256 KiB float sum) for HC_CHECK_SECONDS
 *           (default 5), each exact, while hc-launch's sidecar injects
 *           garbage, another job's or an earlier run's frames; then
 *           every rank prints its drop counters ("strays: ...")
 *   c31long the same with a flap longer than the peer timeout: the
 *           all-reduce in flight gives HC_ERR_LINK_DOWN on the rank
 *           whose tap went down (HC_CHECK_FLAP_RANK, required) and
 *           HC_ERR_PEER_LOST on the others
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
 *           hier, rd; tests/run runs each for n = 1..5): the tuner line names
 *           it; counts {0, 1, n-1, n+1} x every dtype x op x both
 *           placements; count 1000003 x every dtype with two ops (one in
 *           place, one out of place, all five ops covered); PN sums of
 *           float32/float64/half/bfloat16 (100003) hold the same bits on
 *           every rank
 *   algobad HC_ALGO=hier with groups of unequal size: all-reduce refused
 *           (HC_ERR_UNSUPPORTED), no DATA; all-gather still works
 *   c05rsv, c05agv: the last rank passes reduce-scatterv / all-gatherv
 *           counts that differ in rank 0's entry
 *   c26     (memif, MTU 9000) all-reduces around whole 9000-byte frames
 *           exact; DATA packets carry > HC_CHECK_MIN_PAYLOAD (8000) bytes
 *   c27     (any [port] burst) quick matrix, 16 MiB, 64 in flight: exact,
 *           no frame dropped by a full port TX queue
 *   c28     (tap) 100 packets from one send within 5 ms (best of the 20
 *           trials without a retransmission), every trial < 2 s
 *   c29     (any [port] rx_desc) barrier and all-reduces up to 4 MiB
 *   c30     (tiny pools) 8 x 2 MiB all-gathers, rank 0 late: exact or
 *           HC_ERR_NOMEM, no deadlock; with HC_CHECK_POOL_MBUFS (the
 *           smallest pool) also: DATA refused and at most a quarter of
 *           that pool held at once (hc_stats coll_held_refused/_max)
 *   c33     all-reduce at every power of two 4 B..4 MiB and +-1 element
 *   shmcrc  quick and 4 x 16 MiB all-reduces exact; what the DATA CRC
 *           covered (hc_stats hct_data_tx/rx_hdr_crc) against
 *           HC_CHECK_HDR_CRC: all (memif, shm_crc header) or none (tap,
 *           shm_crc payload, a corrupting injector); with HC_FAULT, the
 *           injector changed frames and the CRC32C caught some
 *   zc      quick and 4 x 16 MiB all-reduces out of place and in place
 *           exact, each buffer overwritten at once after the call; DATA
 *           sent zero copy (hc_stats hct_data_tx_zc) against HC_CHECK_ZC:
 *           some (memif, zero_copy_tx auto: over half), none, or any
 *           (results only); with HC_CHECK_ZC_LOSS=1 also frames dropped
 *           by HC_FAULT, DATA retransmitted, duplicates discarded
 * After every fault case (fault, c05*, c15-c19, c21-c25, c31*, strays),
 * the port cases (c26-c29, c33, shmcrc, zc; c30 runs its own) and any
 * suite with HC_CHECK_POOLS=1, main runs the leak check (pools_check in
 * check_ports.c: the mbuf pools back to their starting in-use count,
 * CASES.md). Where the communicator is broken afterwards (c05*, c15,
 * c16*, c17*, c18, c19, c22, c31long) each rank judges alone ("PASS name
 * (rank r)"); the others agree through an all-reduce and only rank 0
 * prints.
 *
 * main dispatches -s NAME through the table `suites` below (-h lists it);
 * the suites live by area in check_coll.c, check_p2p.c, check_async.c and
 * check_faults.c, and share check.h.
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
#include "check.h"

struct hc_ctx *ctx;
struct hc_comm *comm;
int rank, nranks, failures, cases;

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep s seconds of wall time. usleep() alone is not enough: DPDK's
 * net_tap raises SIGIO for every packet, which cuts sleeps short. */
void
sleep_s(double s)
{
	double end = now_s() + s;

	while (now_s() < end)
		usleep(10000);
}

/* Every rank reports ok or not; all agree on the verdict. */
int
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

/* A counter summed, or its largest value, over the ranks (check.h). */
static uint64_t
reduce_ranks(uint64_t v, enum hc_op op)
{
	if (hc_allreduce(comm, &v, &v, 1, HC_DTYPE_UINT64, op) != 0) {
		fprintf(stderr, "rank %d: %s all-reduce failed\n", rank,
			op == HC_OP_SUM ? "sum" : "max");
		exit(2);
	}
	return v;
}

uint64_t
sum_ranks(uint64_t v)
{
	return reduce_ranks(v, HC_OP_SUM);
}

uint64_t
max_ranks(uint64_t v)
{
	return reduce_ranks(v, HC_OP_MAX);
}

/* Collective loop condition (check.h). */
int
all_before(double end, int *rc)
{
	uint64_t up = now_s() >= end;

	*rc = hc_allreduce(comm, &up, &up, 1, HC_DTYPE_UINT64, HC_OP_SUM);
	return *rc == 0 && up == 0;
}

/* Per-rank verdict, for suites after which the communicator is broken
 * (no all-reduce to agree with): each rank prints its own line. */
int
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

int
env_int(const char *name)
{
	const char *v = getenv(name);

	return v != NULL ? atoi(v) : -1;
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

/* ---- the suites ------------------------------------------------------ */

/* One suite of the table: run with no argument, with kind, or with str. */
struct suite {
	const char *name;
	void (*run)(void);
	void (*run_kind)(int kind);
	void (*run_str)(const char *str);
	int kind;
	const char *str;
	const char *help;	/* one line; the head comment has the detail */
	/* The leak check after the suite (pools_check): 0 none (unless
	 * HC_CHECK_POOLS=1), 'a' agreed by every rank, 'l' per rank (the
	 * communicator is broken by then). */
	char pools;
};

#define SUITE(n, f, h) { .name = n, .run = f, .help = h }
#define SUITE_K(n, f, k, h) { .name = n, .run_kind = f, .kind = k, .help = h }
#define SUITE_S(n, f, s, h) { .name = n, .run_str = f, .str = s, .help = h }
/* The same with the leak check p ('a' or 'l'). */
#define SUITE_P(n, f, p, h) { .name = n, .run = f, .help = h, .pools = p }
#define SUITE_KP(n, f, k, p, h) { .name = n, .run_kind = f, .kind = k, \
				  .help = h, .pools = p }
#define SUITE_SP(n, f, s, p, h) { .name = n, .run_str = f, .str = s, \
				  .help = h, .pools = p }

static const struct suite suites[] = {
	/* check_coll.c */
	SUITE("basic", suite_basic, "all-reduce matrix, guards, C08"),
	SUITE_S("quick", suite_quick, "quick", "a small all-reduce matrix"),
	SUITE("dtypes", suite_dtypes, "all ten dtypes x all five ops"),
	SUITE_K("rs", suite_rs_ag, 'r', "reduce-scatter, C07"),
	SUITE_K("ag", suite_rs_ag, 'g', "all-gather, C07"),
	SUITE_K("rsv", suite_v, 'r', "reduce-scatterv count profiles"),
	SUITE_K("agv", suite_v, 'g', "all-gatherv count profiles, displs"),
	SUITE("barrier", suite_barrier, "nobody leaves before the last"),
	SUITE_K("bcast", suite_rooted, 'b', "broadcast from every root"),
	SUITE_K("reduce", suite_rooted, 'r', "reduce to every root"),
	SUITE("c01", suite_c01, "C01: n = 1, output = input"),
	SUITE("c02", suite_c02, "C02: all-gather, all-reduce, reduce-scatter"),
	SUITE("c03", suite_c03, "C03: count 1..n-1"),
	SUITE("c04", suite_c04, "C04: counts n+1, 2n-1, 1000003"),
	SUITE("c06", suite_c06, "C06: placements, partial overlap refused"),
	SUITE("c10", suite_c10, "C10-C12 over the network, bit-exact"),
	SUITE("c13", suite_c13, "C13: count 0, no traffic"),
	SUITE("algo", suite_algo, "the algorithm HC_ALGO forces"),
	SUITE("algobad", suite_algobad, "hier with unequal groups refused"),
	/* check_p2p.c */
	SUITE("p2p", suite_p2p, "send/receive, blocking and not"),
	SUITE("ping", suite_ping, "ping every rank during all-reduces"),
	/* check_async.c */
	SUITE("async", suite_async, "64 all-reduces in flight"),
	SUITE("async2", suite_async2, "64 requests of six kinds, 4 threads"),
	SUITE("split", suite_split, "hc_comm_split, 2 comms, 4 threads"),
	/* check_faults.c */
	SUITE_P("fault", suite_fault, 'a', "quick under HC_FAULT_DROP_DATA_PCT"),
	SUITE_P("c22", suite_c22, 'l', "C22: 100% loss gives HC_ERR_PEER_LOST"),
	SUITE_P("c23", suite_c23, 'a', "C23: loss, reorder, duplication"),
	SUITE_P("c24", suite_c24, 'a', "C24: ACK loss"),
	SUITE_P("c25", suite_c25, 'a', "C25: drop_last_once"),
	SUITE_KP("c31", suite_c31, 0, 'a', "C31: a flap shorter than the timeout"),
	SUITE_KP("c31long", suite_c31, 1, 'l', "C31: a flap longer than the timeout"),
	SUITE_P("strays", suite_strays, 'a',
		"C38: all-reduces among injected frames"),
	SUITE_P("c18", suite_c18, 'l', "C18: the last rank starts late"),
	SUITE_P("c21", suite_c21, 'a', "C21: the last rank killed and restarted"),
	SUITE_P("c19", suite_c19, 'l', "C19: a transport fault reaches the wait"),
	SUITE_P("c15", suite_c15, 'l', "C15: the last rank leaves early"),
	SUITE_KP("c16kill", suite_c16, 0, 'l', "C16: the last rank SIGKILLed"),
	SUITE_KP("c16stop", suite_c16, 1, 'l', "C16: the last rank SIGSTOPped"),
	SUITE_SP("c17", suite_c17, "", 'l',
		 "C17: the last rank skips an all-reduce"),
	SUITE_SP("c17bcast", suite_c17, "bcast", 'l', "C17: ... a broadcast"),
	SUITE_SP("c17reduce", suite_c17, "reduce", 'l',
		 "C17: ... a reduce to it"),
	SUITE_SP("c05count", suite_c05, "count", 'l', "C05: another count"),
	SUITE_SP("c05zero", suite_c05, "zero", 'l', "C05: count 0 vs N"),
	SUITE_SP("c05dtype", suite_c05, "dtype", 'l', "C05: another dtype"),
	SUITE_SP("c05op", suite_c05, "op", 'l', "C05: another op"),
	SUITE_SP("c05coll", suite_c05, "coll", 'l',
		 "C14: all-gather vs all-reduce"),
	SUITE_SP("c05bcast", suite_c05, "bcast", 'l',
		 "C05: broadcast another dtype"),
	SUITE_SP("c05reduce", suite_c05, "reduce", 'l',
		 "C05: reduce, another root"),
	SUITE_SP("c05rsv", suite_c05, "rsv", 'l',
		 "C05: reduce-scatterv counts"),
	SUITE_SP("c05agv", suite_c05, "agv", 'l', "C05: all-gatherv counts"),
	/* check_ports.c */
	SUITE_P("c26", suite_c26, 'a', "C26: jumbo frames, exact"),
	SUITE_P("c27", suite_c27, 'a', "C27: the [port] burst set, exact"),
	SUITE_P("c28", suite_c28, 'a', "C28: 100 packets within 5 ms"),
	SUITE_P("c29", suite_c29, 'a', "C29: the [port] rx_desc set works"),
	SUITE("c30", suite_c30, "C30: all-gather with a tiny pool"),
	SUITE_P("c33", suite_c33, 'a', "C33: 4 B..4 MiB, powers of 2 +-1"),
	SUITE_P("shmcrc", suite_shmcrc, 'a',
		"CRC coverage: header-only on trusted shm links only"),
	SUITE_P("zc", suite_zc, 'a',
		"zero-copy TX: exact, counted, buffers reusable on return"),
};

/* The suite named name, or NULL. */
static const struct suite *
suite_find(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(suites); i++)
		if (strcmp(suites[i].name, name) == 0)
			return &suites[i];
	return NULL;
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: hc-check [EAL] -- -s SUITE (default quick)\n"
		"suites:\n");
	for (i = 0; i < RTE_DIM(suites); i++)
		fprintf(f, "  %-10s %s\n", suites[i].name, suites[i].help);
}

/* 1 when hc-check's own arguments ask for -h: the only argument, or one
 * after "--". The usage then prints before (and without) the EAL, which
 * would leave its runtime folder in /var/run/dpdk behind; EAL's own help
 * is -h among EAL arguments ("hc-check --no-huge -h"). */
static int
help_wanted(int argc, char **argv)
{
	int i = 1;

	if (argc == 2)
		return strcmp(argv[1], "-h") == 0;
	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	for (i++; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	const char *suite = "quick";
	const struct suite *s;
	int ret, c, rc;

	if (help_wanted(argc, argv)) {
		usage(stdout);
		return 0;
	}
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
	while ((c = getopt(argc, argv, "s:h")) != -1) {
		if (c == 'h') {
			usage(stdout);
			rte_eal_cleanup();
			return 0;
		}
		if (c != 's') {
			usage(stderr);
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
	s = suite_find(suite);
	if (s == NULL) {
		fprintf(stderr, "hc-check: unknown suite '%s'\n", suite);
		usage(stderr);
		failures = 1;
	} else if (s->run != NULL) {
		s->run();
	} else if (s->run_kind != NULL) {
		s->run_kind(s->kind);
	} else {
		s->run_str(s->str);
	}
	/* The leak check, once the suite's collectives are over (issue 10:
	 * every case that injects a fault; pools_check says when). */
	if (s != NULL && ctx != NULL &&
	    (s->pools != 0 || env_int("HC_CHECK_POOLS") == 1))
		pools_check(s->name, s->pools == 'l');
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
