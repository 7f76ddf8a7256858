/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport targets of issue 3, asserted in virtual time: the same
 * scenarios (tests/bench/scenarios.c) and the same goals that
 * tests/bench/transport prints. Deterministic: every figure is a function
 * of the code and the seeds.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "hypercomm.h"
#include "scenarios.h"
#include "cunit_main.h"

/* Goodput of a 1 MiB transfer against lossless, 10 seeds each. */
static void
goodput(double loss, double goal)
{
	struct scn_goodput g = { .loss = loss, .bytes = 1 << 20, .seeds = 10 };

	CU_ASSERT_FATAL(scn_goodput(&g) == 0);
	printf("\n    loss %.0f%%: goodput %.1f%% of lossless (goal %.0f%%), "
	       "%lu RTOs, %lu retransmits\n", loss * 100, g.ratio * 100,
	       goal * 100, (unsigned long)g.rtos,
	       (unsigned long)g.retransmits);
	CU_ASSERT(g.exact);
	CU_ASSERT(g.ratio >= goal);
}

static void test_goodput_1(void) { goodput(0.01, 0.95); }
static void test_goodput_5(void) { goodput(0.05, 0.80); }
static void test_goodput_20(void) { goodput(0.20, 0.50); }

/* One lost DATA packet: mid-message within 1 RTT plus pacing slack, the
 * last within 2 RTT; no RTO in either case. */
static void
recovery(int last)
{
	struct scn_recovery r = { .last = last, .bytes = 256 * 1024 };
	double goal = last ? 2.0 : 1.0 + SCN_PACING_SLACK;

	CU_ASSERT_FATAL(scn_recovery(&r) == 0);
	printf("\n    %s packet lost: +%.2f us = %.2f RTT (goal %.2f), "
	       "%lu RTOs", last ? "last" : "mid-message", r.extra_ns / 1e3,
	       (double)r.extra_ns / r.rtt_ns, goal, (unsigned long)r.rtos);
	CU_ASSERT(r.dropped == 1);
	CU_ASSERT(r.rtos == 0);
	CU_ASSERT((double)r.extra_ns <= goal * (double)r.rtt_ns);
}

static void test_recovery_mid(void) { recovery(0); }
static void test_recovery_last(void) { recovery(1); }

/* Incast N -> 1: >= 90 % of the bottleneck, no RTO, Jain >= 0.95 in
 * every 100-RTT window, DATA retransmitted < 5 % of DATA sent (no
 * retransmit storm). n = 7 is field case C35's fan-in (>= 70 % there). */
static void
test_incast(void)
{
	static const uint32_t n[] = { 2, 4, 7, 8, 16, 32, 64 };
	unsigned int i;

	for (i = 0; i < RTE_DIM(n); i++) {
		struct scn_incast c = { .senders = n[i] };

		CU_ASSERT_FATAL(scn_incast(&c) == 0);
		printf("\n    incast %2u -> 1: bottleneck %.1f%%, Jain min "
		       "%.4f, %lu RTOs, %lu drops, %lu of %lu DATA "
		       "retransmitted", c.senders, c.utilisation * 100,
		       c.jain_min, (unsigned long)c.rtos,
		       (unsigned long)c.drops, (unsigned long)c.retransmits,
		       (unsigned long)c.data_tx);
		CU_ASSERT(c.utilisation >= 0.90);
		CU_ASSERT(c.rtos == 0);
		CU_ASSERT(c.jain_min >= 0.95);
		CU_ASSERT(c.data_tx > 0);
		CU_ASSERT(c.retransmits * 20 < c.data_tx);
	}
}

/* No spurious collapse: one flow, 10 000 RTTs, every 100-RTT window at
 * >= 95 % of the link rate. */
static void
test_steady(void)
{
	struct scn_steady s = { .rtts = 10000 };

	CU_ASSERT_FATAL(scn_steady(&s) == 0);
	printf("\n    one flow, %u RTTs: lowest window %.1f%%, mean %.1f%%, "
	       "%lu RTOs", s.rtts, s.min_window_rate * 100,
	       s.mean_rate * 100, (unsigned long)s.rtos);
	CU_ASSERT(s.min_window_rate >= 0.95);
	CU_ASSERT(s.rtos == 0);
}

/* Critical messages under bulk: p99 <= 1.5 x unloaded, bulk loses <= 5 %,
 * bulk never starved. */
static void
test_priority(void)
{
	struct scn_priority p;

	memset(&p, 0, sizeof(p));
	CU_ASSERT_FATAL(scn_priority(&p) == 0);
	printf("\n    critical p99 %.2f us alone, %.2f us under bulk (x%.2f); "
	       "bulk goodput %.1f%%, %u empty windows",
	       p.p99_alone_ns / 1e3, p.p99_loaded_ns / 1e3,
	       (double)p.p99_loaded_ns / p.p99_alone_ns, p.bulk_ratio * 100,
	       p.bulk_empty_windows);
	CU_ASSERT(p.p99_alone_ns > 0);
	CU_ASSERT((double)p.p99_loaded_ns <= 1.5 * (double)p.p99_alone_ns);
	CU_ASSERT(p.bulk_ratio >= 0.95);
	CU_ASSERT(p.bulk_empty_windows == 0);
}

static CU_TestInfo tests[] = {
	{ "goodput at 1% loss >= 95% of lossless", test_goodput_1 },
	{ "goodput at 5% loss >= 80% of lossless", test_goodput_5 },
	{ "goodput at 20% loss >= 50% of lossless", test_goodput_20 },
	{ "mid-message loss recovered in 1 RTT + slack, no RTO",
	  test_recovery_mid },
	{ "last packet lost: recovered in 2 RTT, no RTO", test_recovery_last },
	{ "incast 2..64 -> 1 (C35: 7): >= 90%, no RTO, Jain >= 0.95, "
	  "retransmits < 5%", test_incast },
	{ "one flow, 10000 RTTs, >= 95% throughout", test_steady },
	{ "critical p99 under bulk <= 1.5x, bulk >= 95%", test_priority },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "transport targets (sim)", NULL, NULL, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

const struct cunit_bin cunit_bin = {
	.prog = "test_simxport",
	.mem_mb = "2048",
	.stem = "hcsx",
	.hc_log_level = RTE_LOG_ERR,
	.suites = suites,
};
