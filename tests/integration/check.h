/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the files of hc-check share: the rank's world (set by main in
 * hc-check.c), the verdict functions every case reports through, and the
 * suites main dispatches to (its table), by area:
 *   check_coll.c    collectives checked element by element
 *   check_p2p.c     point to point, ping
 *   check_async.c   requests in flight, communicators, threads
 *   check_faults.c  absent, dead or restarted ranks, mismatches, loss
 *   check_ports.c   the ports' field cases (C26-C30, C33), the pools check
 */
#ifndef HC_TESTS_INTEGRATION_CHECK_H
#define HC_TESTS_INTEGRATION_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "hypercomm.h"

/** Bytes of guard area behind every receive buffer. */
#define GUARD 64
/** Fill of receive buffers before a collective writes them. */
#define SENTINEL 0x5a
/** Fill of the guard areas, which no collective may write. */
#define GUARD_BYTE 0xa5

extern char **environ;

/** This process's context and world communicator (hc-check.c). */
extern struct hc_ctx *ctx;
extern struct hc_comm *comm;
/** Rank and size of comm; cases judged and failed so far (the verdicts
 * count them; main prints the totals). */
extern int rank, nranks, failures, cases;

/* ---- hc-check.c --------------------------------------------------- */

/** Monotonic wall time, seconds. */
double now_s(void);
/** Sleep s seconds of wall time (through the SIGIOs of net_tap). */
void sleep_s(double s);
/**
 * Every rank reports ok or not (why: its reason); all agree through an
 * all-reduce and rank 0 prints "PASS name" or "FAIL name: ...".
 * @return 1 when the case passed on every rank, else 0.
 */
int verdict(const char *name, int ok, const char *why);
/**
 * Per-rank verdict, for suites after which the communicator is broken:
 * each rank prints "PASS name (rank r)" or "FAIL ...".
 * @return ok.
 */
int local_verdict(const char *name, int ok, const char *why);
/** v summed over the ranks of comm (a uint64 SUM all-reduce); exits 2,
 *  saying so, if the all-reduce fails. */
uint64_t sum_ranks(uint64_t v);
/** The largest v over the ranks of comm (a uint64 MAX all-reduce); exits
 *  2 like sum_ranks. */
uint64_t max_ranks(uint64_t v);
/**
 * For a loop of collectives that runs until a time: 1 while no rank has
 * reached end (monotonic s, now_s()), 0 once one has, the same answer on
 * every rank (a uint64 SUM all-reduce of "my time is up"), so that no
 * rank starts a collective the others have left. Each rank reading its own
 * clock against its own end lets one rank stop while another starts the
 * next all-reduce, which then meets the first rank's next collective (a
 * CI run of C31 died of that mismatch).
 * @param[out] rc 0, or the all-reduce's negative HC_ERR_* (then 0 is
 *   returned).
 */
int all_before(double end, int *rc);
/** The integer value of environment variable name, or -1 when unset. */
int env_int(const char *name);

/* ---- check_coll.c ------------------------------------------------- */

/** One all-reduce of count elements checked against the pattern (in
 * place or not); why gets the reason (wlen bytes). @return 1 when exact. */
int check_allreduce(uint64_t count, enum hc_dtype d, enum hc_op op,
		    int inplace, char *why, size_t wlen);
/** The per-flow counters add up to the totals; tag names the cases. */
void check_flow_stats(const char *tag);

/* The suites, here and below: the entries of hc-check.c's table (the
 * head comment of hc-check.c says what each checks). kind and the
 * strings select a variant: 'r'/'g' reduce-scatter(v) or all-gather(v),
 * 'b'/'r' broadcast or reduce. */
void suite_basic(void);
void suite_quick(const char *tag);
void suite_rs_ag(int kind);
void suite_v(int kind);
void suite_rooted(int kind);
void suite_barrier(void);
void suite_algo(void);
void suite_algobad(void);
void suite_dtypes(void);
void suite_c01(void);
void suite_c03(void);
void suite_c04(void);
void suite_c06(void);
void suite_c13(void);
void suite_c02(void);
void suite_c10(void);

/* ---- check_p2p.c -------------------------------------------------- */

void suite_p2p(void);
void suite_ping(void);

/* ---- check_async.c ------------------------------------------------ */

void suite_async(void);
void suite_split(void);
void suite_async2(void);

/* ---- check_faults.c ----------------------------------------------- */

/** C18: hc_init of a rank that waits for a late last rank (main calls it
 * instead of hc_init for suite c18). @return hc_init's result. */
int c18_init(void);
/** C21: on the last rank, fork its first incarnation, which returns 0 at
 * once; the parent waits for it to be killed, judges that, and returns 0
 * to go on as the restarted rank. @return 0, or -1 when fork or wait
 * failed. */
int c21_fork(void);
void suite_c17(const char *how);
void suite_c05(const char *how);
void suite_c19(void);
void suite_c18(void);
void suite_c21(void);
void suite_c15(void);
void suite_c16(int stop);
void suite_fault(void);
void suite_c22(void);
void suite_c23(void);
void suite_c24(void);
void suite_c25(void);
void suite_c31(int longer);
/** C38 and stale runs: all-reduces for HC_CHECK_SECONDS (default 5) while
 *  hc-launch's sidecar injects or replays frames; all exact; each rank
 *  prints its counters ("strays: ...") for the driver to compare with
 *  what was injected. */
void suite_strays(void);

/* ---- check_ports.c ------------------------------------------------ */

/**
 * The leak check of a case's end (issue 10): hc_mbuf_stats_get() waits
 * up to 5 s for this rank's pools to come back to their in-use count at
 * start (plus DATA held for collectives not called yet) and the case
 * "TAG: mbuf pools back to their starting in-use count" passes when they
 * did. Call it once the case's collectives are over on this rank, before
 * the next one is submitted. local: judge per rank (the communicator is
 * broken), else agree with verdict().
 * @return 1 when the pools came back.
 */
int pools_check(const char *tag, int local);
void suite_c26(void);
void suite_c27(void);
void suite_c28(void);
void suite_c29(void);
void suite_c30(void);
void suite_c33(void);
void suite_shmcrc(void);
void suite_zc(void);

#endif /* HC_TESTS_INTEGRATION_CHECK_H */
