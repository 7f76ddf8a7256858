/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/transport: the transport benchmark of issue 3, in virtual
 * time on the sim network (a benchmark, not a test: it prints figures and
 * whether each target is met; tests/unit/test_simxport.c asserts them).
 *
 *   build/tests/bench/transport [--quick]
 *
 * Prints one table per scenario (goodput under loss, loss recovery,
 * incast, steady state, priority), then one line per target:
 *   target <name> measured <value> goal <value> met|missed
 * Exit status 0 when every target is met, 1 otherwise, 2 on an error.
 * --quick: fewer incast sizes (2, 8, 64); the tests run every size.
 */
#define _GNU_SOURCE /* nftw() in test_eal.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "hypercomm.h"
#include "scenarios.h"
#include "../unit/test_eal.h"

#define MAX_TARGETS 64

struct target {
	char name[48];
	double measured;
	double goal;
	int at_least;     /* 1: measured >= goal; 0: measured <= goal */
};

static struct target targets[MAX_TARGETS];
static unsigned int ntargets;

static void
target(const char *name, double measured, double goal, int at_least)
{
	struct target *t;

	if (ntargets == MAX_TARGETS)
		return;
	t = &targets[ntargets++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->measured = measured;
	t->goal = goal;
	t->at_least = at_least;
}

static int
check(int rc, const char *what)
{
	if (rc != 0)
		fprintf(stderr, "transport: %s failed: %s\n", what,
			hc_strerror(rc));
	return rc;
}

static int
bench_goodput(void)
{
	static const double loss[] = { 0.01, 0.05, 0.20 };
	static const double goal[] = { 0.95, 0.80, 0.50 };
	char name[48];
	unsigned int i;

	printf("\n# goodput of a 1 MiB transfer under random DATA loss, "
	       "%.0f Gbit/s, %u ns per link\n", SCN_GBPS, SCN_PROP_NS);
	printf("#  loss  seeds  lossless(us)  lossy(us)  goodput  rtos  "
	       "retransmits  exact\n");
	for (i = 0; i < RTE_DIM(loss); i++) {
		struct scn_goodput g = {
			.loss = loss[i], .bytes = 1 << 20,
			.seeds = 10, /* as test_simxport: 3 seeds are
				       * too few for a mean */
		};

		if (check(scn_goodput(&g), "goodput") != 0)
			return -1;
		printf("  %5.1f%%  %5u  %12.1f  %9.1f  %6.1f%%  %4lu  %11lu  "
		       "%5s\n", loss[i] * 100, g.seeds,
		       g.time_lossless_ns / 1e3, g.time_ns / 1e3,
		       g.ratio * 100, (unsigned long)g.rtos,
		       (unsigned long)g.retransmits, g.exact ? "yes" : "NO");
		snprintf(name, sizeof(name), "goodput_loss_%gpct", loss[i] * 100);
		target(name, g.ratio, goal[i], 1);
		snprintf(name, sizeof(name), "exact_loss_%gpct", loss[i] * 100);
		target(name, g.exact, 1, 1);
	}
	return 0;
}

static int
bench_recovery(void)
{
	static const char *const what[] = { "mid", "last" };
	unsigned int last;

	printf("\n# one lost DATA packet in a 256 KiB message\n");
	printf("#  lost  srtt(us)  min_rtt(us)  extra(us)  extra/srtt  rtos  "
	       "dropped\n");
	for (last = 0; last < 2; last++) {
		struct scn_recovery r = { .last = (int)last,
					  .bytes = 256 * 1024 };
		char name[48];
		double rtts;

		if (check(scn_recovery(&r), "recovery") != 0)
			return -1;
		rtts = (double)r.extra_ns / (double)r.rtt_ns;
		printf("  %5s  %8.2f  %11.2f  %9.2f  %10.2f  %4lu  %7lu\n",
		       what[last], r.rtt_ns / 1e3, r.min_rtt_ns / 1e3,
		       r.extra_ns / 1e3, rtts,
		       (unsigned long)r.rtos, (unsigned long)r.dropped);
		snprintf(name, sizeof(name), "recovery_%s_rtts", what[last]);
		target(name, rtts, last ? 2.0 : 1.0 + SCN_PACING_SLACK, 0);
		snprintf(name, sizeof(name), "recovery_%s_rtos", what[last]);
		target(name, (double)r.rtos, 0, 0);
	}
	return 0;
}

static int
bench_incast(int quick)
{
	static const uint32_t n_all[] = { 2, 4, 7, 8, 16, 32, 64 };
	static const uint32_t n_quick[] = { 2, 8, 64 };
	const uint32_t *n = quick ? n_quick : n_all;
	unsigned int i, cnt = quick ? RTE_DIM(n_quick) : RTE_DIM(n_all);

	printf("\n# incast N -> 1 through one switch, 100-RTT windows\n");
	printf("#    N  rtt(us)  windows  bottleneck  jain_min  rtos  drops  "
	       "max_queue(KiB)\n");
	for (i = 0; i < cnt; i++) {
		struct scn_incast c = { .senders = n[i] };
		char name[48];

		if (check(scn_incast(&c), "incast") != 0)
			return -1;
		printf("  %4u  %7.2f  %7u  %9.1f%%  %8.4f  %4lu  %5lu  %14.1f\n",
		       c.senders, c.rtt_ns / 1e3, c.windows,
		       c.utilisation * 100, c.jain_min, (unsigned long)c.rtos,
		       (unsigned long)c.drops, c.max_queue / 1024.0);
		snprintf(name, sizeof(name), "incast_%u_bottleneck", c.senders);
		target(name, c.utilisation, 0.90, 1);
		snprintf(name, sizeof(name), "incast_%u_rtos", c.senders);
		target(name, (double)c.rtos, 0, 0);
		snprintf(name, sizeof(name), "incast_%u_jain", c.senders);
		target(name, c.jain_min, 0.95, 1);
	}
	return 0;
}

static int
bench_steady(void)
{
	struct scn_steady s = { .rtts = 10000 };

	if (check(scn_steady(&s), "steady") != 0)
		return -1;
	printf("\n# one flow, no loss, %u RTTs\n", s.rtts);
	printf("#  rtt(us)  min_window  mean  rtos\n");
	printf("  %7.2f  %9.1f%%  %5.1f%%  %4lu\n", s.rtt_ns / 1e3,
	       s.min_window_rate * 100, s.mean_rate * 100,
	       (unsigned long)s.rtos);
	target("steady_min_window_rate", s.min_window_rate, 0.95, 1);
	return 0;
}

static int
bench_priority(void)
{
	struct scn_priority p;
	double ratio;

	memset(&p, 0, sizeof(p));
	if (check(scn_priority(&p), "priority") != 0)
		return -1;
	ratio = (double)p.p99_loaded_ns / (double)p.p99_alone_ns;
	printf("\n# critical 4 KiB messages every 100 us, with and without "
	       "2 bulk flows to the same receiver\n");
	printf("#  probes  p99_alone(us)  p99_loaded(us)  ratio  bulk_goodput"
	       "  bulk_empty_windows\n");
	printf("  %6lu  %13.2f  %14.2f  %5.2f  %11.1f%%  %18u\n",
	       (unsigned long)p.probes, p.p99_alone_ns / 1e3,
	       p.p99_loaded_ns / 1e3, ratio, p.bulk_ratio * 100,
	       p.bulk_empty_windows);
	target("priority_p99_ratio", ratio, 1.5, 0);
	target("priority_bulk_goodput", p.bulk_ratio, 0.95, 1);
	target("priority_bulk_empty_windows", p.bulk_empty_windows, 0, 0);
	return 0;
}

int
main(int argc, char **argv)
{
	int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	unsigned int i, missed = 0;
	int err = 0;

	if (argc > 1 && !quick) {
		fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
		return 2;
	}
	/* The EAL of the unit tests: its runtime directory is removed at
	 * the end. */
	if (test_eal_init("transport", "2048", "hcbench") != 0)
		return 2;
	rte_log_set_level_pattern("hc.*", RTE_LOG_WARNING);
	printf("# hypercomm transport benchmark, virtual time (stack/sim)%s\n",
	       quick ? ", --quick" : "");
	err |= bench_goodput();
	err |= bench_recovery();
	err |= bench_incast(quick);
	err |= bench_steady();
	err |= bench_priority();
	printf("\n");
	for (i = 0; i < ntargets; i++) {
		const struct target *t = &targets[i];
		int met = t->at_least ? t->measured >= t->goal
				      : t->measured <= t->goal;

		missed += !met;
		printf("target %s measured %.4g goal %.4g %s\n", t->name,
		       t->measured, t->goal, met ? "met" : "missed");
	}
	test_eal_fini();
	if (err != 0)
		return 2;
	return missed == 0 ? 0 : 1;
}
