/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-check suites of point to point: send/receive (p2p) and ping.
 * main and its table of suites are in hc-check.c; check.h holds what
 * the files share.
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
void
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

/* Rank 0 pings every rank; everyone runs all-reduces meanwhile and stops
 * when rank 0 says so (an all-reduce of the "go on" flag). */
void
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
