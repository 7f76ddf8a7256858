/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-check suites of failures and faults: absent, late, dead, stopped or
 * restarted ranks, mismatched calls, per-op timeouts, injected loss and
 * link flaps (fault, c05*, c15-c19, c21-c25, c31).
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

static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* C17: the last rank never joins; the others fail with HC_ERR_TIMEOUT
 * after their 200 ms per-op timeout (plus scheduling slack). */
void
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

/* CPU samples taken while a survivor waits, so that the CPU check of
 * expect_peer_lost counts the waiting itself and not the work the
 * collective still had for the live peers before the loss stopped it
 * (halving-doubling: the pairs without the lost rank go on moving their
 * halves for a second or more after the loss). */
#define CPU_SAMPLE_NS 10000000L /* 10 ms between samples */
#define CPU_SAMPLES 2048	/* 20 s of them, more than any wait here */
#define WAIT_WINDOW_S 1.0	/* the CPU check's window, ending at the return */

struct cpu_sampler {
	pthread_t tid;
	int stop;
	unsigned n;
	double t[CPU_SAMPLES], cpu[CPU_SAMPLES];
};

static void *
cpu_sampler_main(void *arg)
{
	struct cpu_sampler *s = arg;
	struct timespec next;
	sigset_t all;

	/* Signals (net_tap's SIGIO per frame) go to the other threads; the
	 * samples follow an absolute 10 ms clock. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE) &&
	       s->n < CPU_SAMPLES) {
		s->t[s->n] = now_s();
		s->cpu[s->n] = cpu_s();
		s->n++;
		next.tv_nsec += CPU_SAMPLE_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
	return NULL;
}

/* Survivors of a lost rank: the pending collective fails with
 * HC_ERR_PEER_LOST within the liveness timeout + 1 s, and the waiting
 * process does not keep a core busy meanwhile: over the last second
 * before the wait returned (the lost rank went silent at least
 * peer_timeout_ms before; C16 sets it to 6 s so that the work its 64 MiB
 * all-reduce still has for the live peers is over by then: over tap in a
 * CI run it lasted into the third second) the process used under half a
 * core.
 * The CPU from t0 on is printed beside it. */
static void
expect_peer_lost(const char *tag, struct hc_request *req, double t0,
		 double cpu0)
{
	/* [transport] peer_timeout_ms (3 s, or HC_CHECK_PEER_TIMEOUT_MS as
	 * the run configured it) + 1 s */
	const char *pt = getenv("HC_CHECK_PEER_TIMEOUT_MS");
	double limit = (pt != NULL && atoi(pt) > 0 ? atoi(pt) / 1000.0 : 3.0) +
		       1.0;
	struct cpu_sampler *s = calloc(1, sizeof(*s));
	double t_end, cpu_end, dt, win, wcpu;
	char name[160], why[200];
	unsigned i;
	int rc, sampled;

	sampled = s != NULL &&
		  pthread_create(&s->tid, NULL, cpu_sampler_main, s) == 0;
	rc = hc_wait(req);
	t_end = now_s();
	cpu_end = cpu_s();
	if (sampled) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		pthread_join(s->tid, NULL);
	}
	dt = t_end - t0;
	snprintf(why, sizeof(why), "%s after %.2f s", hc_strerror(rc), dt);
	snprintf(name, sizeof(name), "%s: HC_ERR_PEER_LOST within %.0f s", tag,
		 limit);
	local_verdict(name, rc == -HC_ERR_PEER_LOST && dt <= limit, why);

	/* The first sample at or after t_end - WAIT_WINDOW_S. */
	for (i = 0; sampled && i < s->n && s->t[i] < t_end - WAIT_WINDOW_S;
	     i++)
		;
	snprintf(name, sizeof(name), "%s: waiting used under half a core",
		 tag);
	if (!sampled || i >= s->n || t_end - s->t[i] < 0.5 * WAIT_WINDOW_S) {
		snprintf(why, sizeof(why),
			 "no CPU samples over the last %.1f s of the wait "
			 "(%.2f s in all; %u samples, the last %.2f s before "
			 "the end)", WAIT_WINDOW_S, dt, sampled ? s->n : 0,
			 sampled && s->n > 0 ? t_end - s->t[s->n - 1] : -1.0);
		local_verdict(name, 0, why);
		free(s);
		return;
	}
	win = t_end - s->t[i];
	wcpu = cpu_end - s->cpu[i];
	snprintf(why, sizeof(why),
		 "%.2f s of CPU in the last %.2f s of the wait; %.2f s of CPU "
		 "in all %.2f s", wcpu, win, cpu_end - cpu0, dt);
	printf("# %s (rank %d): %s\n", name, rank, why);
	local_verdict(name, wcpu < 0.5 * win, why);
	free(s);
}

/* C05: one rank disagrees on count (also 0 vs N), dtype or op. Every
 * rank gets HC_ERR_MISMATCH within the per-op timeout (5 s), then
 * HC_ERR_ABORTED for new work. */
void
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
void
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

/* C18: the last rank starts 1.5 s after the others' init timeout (10 s,
 * [engine] init_timeout_ms). The others: hc_init fails with
 * HC_ERR_INIT_TIMEOUT within 10..11 s and its log names the last rank,
 * and only it; then they retry and succeed once it is up.
 * @return hc_init's result for main. */
int
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
void
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

int
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
void
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
		pools_check("C21 the old world", 1);
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

/* C15: the last rank leaves after 99 of 100 all-reduces. */
void
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
void
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

void
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

/* One in-place float sum all-reduce of count elements of x, filled with
 * this rank's pattern: 0, an error of hc_allreduce, or -HC_ERR_INTERNAL
 * when any element is wrong. */
static int
exact_allreduce(float *x, uint64_t count)
{
	int rc;

	hc_pattern_fill(x, HC_DTYPE_FLOAT32, HC_OP_SUM, count, rank);
	rc = hc_allreduce(comm, x, x, count, HC_DTYPE_FLOAT32, HC_OP_SUM);
	if (rc == 0 && hc_pattern_wrong(x, HC_DTYPE_FLOAT32, HC_OP_SUM, count,
					nranks) != 0)
		rc = -HC_ERR_INTERNAL;
	return rc;
}

/* CRC coverage (README "Integrity"): the quick matrix and 4 x 16 MiB
 * all-reduces exact, then what the DATA packets' CRC covered, summed over
 * the ranks, against HC_CHECK_HDR_CRC: "all" (a memif mesh with [transport]
 * shm_crc = header and no corrupting injector: every DATA packet sent and
 * received covered the header only), "none" (tap, shm_crc = payload, or an
 * injector that corrupts or truncates: no packet did). With HC_FAULT set,
 * the injector must also have corrupted or truncated frames, and the
 * CRC32C caught some (hct_crc_rx > 0), so the exact results show the
 * payload CRC at work. */
void
suite_shmcrc(void)
{
	uint64_t count = (16u << 20) / sizeof(float);
	float *x = malloc(count * sizeof(float));
	uint64_t tx, rx, tx_hdr, rx_hdr, crc, altered;
	const char *want = getenv("HC_CHECK_HDR_CRC");
	struct hc_stats s;
	char why[200];
	int i, rc = x == NULL ? -HC_ERR_NOMEM : 0;

	suite_quick("shmcrc");
	for (i = 0; i < 4 && rc == 0; i++) {
		rc = exact_allreduce(x, count);
	}
	free(x);
	verdict("shmcrc 4 all-reduces of 16 MiB exact", rc == 0,
		hc_strerror(rc));
	hc_stats_get(ctx, &s);
	tx = sum_ranks(s.hct_data_tx);
	rx = sum_ranks(s.hct_data_rx);
	tx_hdr = sum_ranks(s.hct_data_tx_hdr_crc);
	rx_hdr = sum_ranks(s.hct_data_rx_hdr_crc);
	crc = sum_ranks(s.hct_crc_rx);
	altered = sum_ranks(fault_count(HC_FAULT_CORRUPT) +
			    fault_count(HC_FAULT_TRUNCATE));
	snprintf(why, sizeof(why), "DATA sent %" PRIu64 " (header-only CRC %"
		 PRIu64 "), received %" PRIu64 " (header-only %" PRIu64 "); "
		 "crc_rx %" PRIu64 ", injector corrupted/truncated %" PRIu64,
		 tx, tx_hdr, rx, rx_hdr, crc, altered);
	if (rank == 0)
		printf("shmcrc: %s\n", why);
	if (want != NULL && strcmp(want, "all") == 0)
		verdict("shmcrc every DATA packet header-only CRC",
			tx > 0 && tx_hdr == tx && rx_hdr == rx, why);
	else if (want != NULL && strcmp(want, "none") == 0)
		verdict("shmcrc no DATA packet header-only CRC",
			tx > 0 && tx_hdr == 0 && rx_hdr == 0, why);
	else
		verdict("shmcrc HC_CHECK_HDR_CRC is all or none", 0,
			want != NULL ? want : "unset");
	if (getenv("HC_FAULT") != NULL)
		verdict("shmcrc injector changed frames, CRC32C caught some",
			altered > 0 && crc > 0, why);
}

/* Zero-copy TX (README "Zero-copy TX"): the quick matrix, then 16 MiB
 * float sums out of place (the send buffer and the all-gather's final
 * chunks may go zero copy) and in place (the all-gather's only), each
 * buffer overwritten as soon as the call returned (the bytes must no
 * longer be read by then), results exact; then the DATA packets sent
 * zero copy (hc_stats hct_data_tx_zc) summed over the ranks against
 * HC_CHECK_ZC: "some" (a memif mesh with zero_copy_tx auto: more than
 * half of the DATA went so), "none" (zero_copy_tx off, tap, a corrupting
 * injector), "any" (the tuner's pick: results only). HC_CHECK_ZC_LOSS=1
 * (with an HC_FAULT that drops DATA and ACKs): also that frames were
 * dropped, DATA retransmitted and duplicates discarded, where a
 * retransmission may read a buffer the peer's later data overwrote
 * already (README "Zero-copy TX": it carries a PSN the peer has, and the
 * peer drops it). */
void
suite_zc(void)
{
	uint64_t count = (16u << 20) / sizeof(float), tx, zc, drops, retx, dups,
		 fdrops;
	const char *loss = getenv("HC_CHECK_ZC_LOSS");
	float *x = malloc(count * sizeof(float));
	float *y = malloc(count * sizeof(float));
	const char *want = getenv("HC_CHECK_ZC");
	struct hc_stats s;
	char why[256];
	int i, rc = x == NULL || y == NULL ? -HC_ERR_NOMEM : 0;

	suite_quick("zc");
	for (i = 0; i < 4 && rc == 0; i++) {
		hc_pattern_fill(x, HC_DTYPE_FLOAT32, HC_OP_SUM, count, rank);
		rc = hc_allreduce(comm, x, y, count, HC_DTYPE_FLOAT32,
				  HC_OP_SUM);
		memset(x, 0xff, count * sizeof(float)); /* NaN: reused */
		if (rc == 0 && hc_pattern_wrong(y, HC_DTYPE_FLOAT32,
						HC_OP_SUM, count,
						nranks) != 0)
			rc = -HC_ERR_INTERNAL;
		memset(y, 0xff, count * sizeof(float));
		if (rc == 0)
			rc = exact_allreduce(x, count);
		memset(x, 0xff, count * sizeof(float));
	}
	free(x);
	free(y);
	verdict("zc 4 x 2 all-reduces of 16 MiB exact, buffers reused at "
		"once", rc == 0, hc_strerror(rc));
	hc_stats_get(ctx, &s);
	tx = sum_ranks(s.hct_data_tx);
	zc = sum_ranks(s.hct_data_tx_zc);
	drops = sum_ranks(s.net_rx_drops);
	retx = sum_ranks(s.hct_retransmits);
	dups = sum_ranks(s.hct_dup_rx);
	fdrops = sum_ranks(fault_count(HC_FAULT_DROP));
	snprintf(why, sizeof(why), "DATA sent %" PRIu64 ", of them zero copy %"
		 PRIu64 "; net RX drops %" PRIu64 "; injected drops %" PRIu64
		 ", DATA retransmitted %" PRIu64 ", duplicates discarded %"
		 PRIu64, tx, zc, drops, fdrops, retx, dups);
	if (rank == 0)
		printf("zc: %s\n", why);
	if (loss != NULL && strcmp(loss, "1") == 0)
		verdict("zc frames dropped, DATA retransmitted, duplicates "
			"discarded", fdrops > 0 && retx > 0 && dups > 0, why);
	if (want != NULL && strcmp(want, "some") == 0)
		verdict("zc more than half the DATA packets zero copy, the "
			"chained frames arrived whole (no net RX drop)",
			tx > 0 && zc > tx / 2 && zc <= tx && drops == 0, why);
	else if (want != NULL && strcmp(want, "none") == 0)
		verdict("zc no DATA packet zero copy", tx > 0 && zc == 0, why);
	else if (want != NULL && strcmp(want, "any") == 0)
		verdict("zc DATA zero copy at most all", tx > 0 && zc <= tx,
			why);
	else
		verdict("zc HC_CHECK_ZC is some, none or any", 0,
			want != NULL ? want : "unset");
}

static double
env_seconds(const char *name, double def)
{
	const char *v = getenv(name);

	return v != NULL && atof(v) > 0 ? atof(v) : def;
}

/* C22: every frame lost from start_ms after set-up on. */
void
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
void
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
void
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
		rc = exact_allreduce(x, count);
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
void
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
 * all exact. Long flap: the one in flight fails within the peer timeout +
 * 1 s after the link went down, with HC_ERR_LINK_DOWN on the rank whose
 * tap went down (HC_CHECK_FLAP_RANK) and HC_ERR_PEER_LOST on the others. */
void
suite_c31(int longer)
{
	uint64_t count = (1u << 20) / sizeof(float);
	float *x = malloc(count * sizeof(float));
	double end = now_s() + env_seconds("HC_CHECK_SECONDS", 8), t0 = 0;
	double limit = 3.0 + 1.0 + 1.0; /* peer timeout + 1 s + the op */
	double down = env_seconds("HC_CHECK_FLAP_DOWN", 0), longest = 0;
	const char *flap_rank;
	int n = 0, rc = 0;
	char why[160];

	t0 = now_s();
	while (all_before(end, &rc)) {
		rc = exact_allreduce(x, count);
		n += rc == 0;
		if (rc != 0)
			break;
		if (now_s() - t0 > longest)
			longest = now_s() - t0;
		t0 = now_s();
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
	flap_rank = getenv("HC_CHECK_FLAP_RANK");
	if (flap_rank == NULL || *flap_rank == '\0') {
		local_verdict("C31 long flap: HC_CHECK_FLAP_RANK names the "
			      "rank whose tap goes down", 0, "unset");
		return;
	}
	if (atoi(flap_rank) == rank)
		local_verdict("C31 long flap, the rank whose link went down: "
			      "HC_ERR_LINK_DOWN within 5 s of the all-reduce's "
			      "start",
			      rc == -HC_ERR_LINK_DOWN && now_s() - t0 <= limit,
			      why);
	else
		local_verdict("C31 long flap, a rank whose link stayed up: "
			      "HC_ERR_PEER_LOST within 5 s of the all-reduce's "
			      "start",
			      rc == -HC_ERR_PEER_LOST && now_s() - t0 <= limit,
			      why);
}

/* C38 / stale runs (issue 10): the rank's part is to stay exact and to
 * count; what was injected is the sidecar's to say (tests/integration/
 * strays.sh compares). */
void
suite_strays(void)
{
	uint64_t count = (256u << 10) / sizeof(float);
	float *x = malloc(count * sizeof(float));
	double t0 = now_s(), end = t0 + env_seconds("HC_CHECK_SECONDS", 5);
	struct hc_stats s;
	int n = 0, wrong = 0, rc = 0, have = x != NULL;
	char why[160];

	while (have && rc == 0) {
		/* Every rank stops after the same all-reduce (check.h); the
		 * flag is exchanged every 8th time to keep its cost small. */
		if ((n & 7) == 0 && !all_before(end, &rc))
			break;
		rc = exact_allreduce(x, count);
		if (rc == -HC_ERR_INTERNAL) {
			wrong++; /* counted; the run goes on */
			rc = 0;
		}
		n += rc == 0;
	}
	free(x);
	snprintf(why, sizeof(why), "%d all-reduces, %d wrong, last: %s", n,
		 wrong, hc_strerror(rc));
	verdict("strays: 256 KiB all-reduces among injected frames",
		have && rc == 0 && wrong == 0 && n > 0, why);
	hc_stats_get(ctx, &s);
	printf("strays: rank %d allreduces %d secs %.3f other_job %" PRIu64
	       " stale %" PRIu64 " malformed %" PRIu64 " misaddr %" PRIu64
	       " crc %" PRIu64 " stray %" PRIu64 " net_drops %" PRIu64
	       " port_rx %" PRIu64 " bad_tag %" PRIu64 " auth %" PRIu64 "\n",
	       rank, n, now_s() - t0,
	       s.hct_other_job_rx, s.hct_stale_rx, s.hct_malformed_rx,
	       s.hct_misaddr_rx, s.hct_crc_rx, s.hct_stray_rx,
	       s.net_rx_drops, s.port_rx_pkts, s.hct_bad_tag_rx, s.hct_auth);
	fflush(stdout);
}
