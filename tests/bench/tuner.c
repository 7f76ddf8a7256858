/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tuner: the all-reduce tuner (stack/coll/tune.h) against measurement,
 * in virtual time. For n = 4 ranks on a star (1 us links, 1 MiB switch
 * queues) at 100 and 25 Gbit/s: the alpha and beta the probes of
 * hc_simrun_create measured (the same probes hc_init runs on tap), the
 * sizes at which the tuner's pick changes, then every algorithm at sizes
 * around each change (1/4, 1/2, 1, 2, 4 times it; where the pick never
 * changes, around the sizes where two algorithms cost the same), each
 * with the model's
 * prediction and the virtual time it took (submission on every rank to
 * the last completion), float32 sum, so the model can be checked.
 * Twice: every rank its own group (as on tap), then hc_config_defaults'
 * single group. A benchmark: prints, asserts nothing.
 *
 *   build/tests/bench/tuner [n]        (n: ranks, default 4)
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "hypercomm.h"
#include "engine.h"
#include "simrun.h"
#include "tune.h"
#include "../unit/test_eal.h"

#define MAX_SWITCHES 8
#define LIMIT_NS (10 * HC_NS_PER_S)

/* One all-reduce of bytes (float32) on every rank with world algorithm
 * a; @return the virtual time from submission to the last completion,
 * ns, or 0 when it failed (printed). */
static uint64_t
timed(struct hc_simrun *run, enum hc_algo_id a, uint64_t bytes)
{
	uint32_t n = run->ranks, r;
	uint64_t count = bytes / sizeof(float), t0 = hc_simrun_now(run);
	struct hc_request **req = calloc(n, sizeof(*req));
	int *status = calloc(n, sizeof(*status));
	float *buf = calloc(count + 1, sizeof(float));
	float *out = calloc((count + 1) * (size_t)n, sizeof(float));
	int rc = -HC_ERR_NOMEM;

	if (req != NULL && status != NULL && buf != NULL && out != NULL) {
		rc = 0;
		for (r = 0; r < n && rc == 0; r++) {
			struct hc_comm *c = hc_comm_world(hc_simrun_ctx(run, r));

			c->algo = a;
			rc = hc_iallreduce(c, buf, out + (count + 1) * r, count,
					   HC_DTYPE_FLOAT32, HC_OP_SUM, NULL,
					   &req[r]);
		}
		if (rc == 0)
			rc = hc_simrun_wait(run, req, status, NULL, LIMIT_NS);
	}
	if (rc != 0)
		printf("  %s %" PRIu64 " B: %s\n", hc_algo_id_name(a), bytes,
		       hc_strerror(rc));
	free(req);
	free(status);
	free(buf);
	free(out);
	return rc == 0 ? hc_simrun_now(run) - t0 : 0;
}

static void
row(struct hc_simrun *run, const struct hc_comm *w, uint64_t bytes)
{
	enum hc_algo_id a;

	printf("  %10" PRIu64 " B  pick %-4s", bytes,
	       hc_algo_id_name(hc_tune_pick(&w->shape, &w->tune,
					    (double)bytes)));
	for (a = HC_ALGO_RING; a < HC_ALGO__MAX; a++) {
		double model = hc_tune_cost(a, &w->shape, &w->tune,
					    (double)bytes);

		if (model < 0)
			continue;
		printf("  %s %8.1f/%8.1f", hc_algo_id_name(a), model / 1e3,
		       timed(run, a, bytes) / 1e3);
	}
	printf("\n");
}

/* own: every rank its own group (as on tap, one rank per address: hier
 * is then halving-doubling); else hc_config_defaults' one group of n
 * (hier is then one direct reduce-scatter and all-gather step). */
static int
bench(uint32_t n, double gbps, int own)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = n,
			 .host_link = { .rate_gbps = gbps, .prop_ns = 1000,
					.queue_bytes = 1 << 20 } },
		.seed = 1,
	};
	uint64_t at[MAX_SWITCHES], around[MAX_SWITCHES];
	uint32_t nat = 0;
	enum hc_algo_id from[MAX_SWITCHES], to[MAX_SWITCHES], a;
	struct hc_simrun *run;
	struct hc_config cfg;
	struct hc_comm *w;
	uint32_t k, i;
	int e;
	char info[512];

	if (hc_config_defaults(&cfg, n) != 0)
		return -1;
	cfg.port.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	for (i = 0; own && i < n; i++)
		cfg.ranks[i].group = i;
	rc.cfg = &cfg;
	e = hc_simrun_create(&rc, &run);
	hc_config_free(&cfg);
	if (e != 0) {
		printf("n=%u %g Gbit/s: %s\n", n, gbps, hc_strerror(e));
		return -1;
	}
	w = hc_comm_world(hc_simrun_ctx(run, 0));
	printf("n=%u star %g Gbit/s 1 us, %u groups of %u: measured alpha "
	       "%.3f us, beta %.4f ns/B (%.1f Gbit/s)\n", n, gbps,
	       w->shape.groups, w->shape.gsize, w->tune.alpha_ns / 1e3,
	       w->tune.beta_ns, w->tune.beta_ns > 0 ? 8 / w->tune.beta_ns : 0);
	hc_comm_tuner_info(w, info, sizeof(info));
	printf("  tuner: %s\n", info);
	k = hc_tune_switches(&w->shape, &w->tune, at, from, to, MAX_SWITCHES);
	for (i = 0; i < k && i < MAX_SWITCHES; i++)
		printf("  switch %u: %s below %" PRIu64 " B, %s from it\n", i,
		       hc_algo_id_name(from[i]), at[i], hc_algo_id_name(to[i]));
	/* No change of pick: the sizes where two algorithms cost the same
	 * instead, so the model is checked where it is closest. */
	for (a = HC_ALGO_RING; k == 0 && a < HC_ALGO__MAX; a++) {
		enum hc_algo_id b;

		for (b = a + 1; b < HC_ALGO__MAX && nat < MAX_SWITCHES; b++) {
			double x = hc_tune_crossover(a, b, &w->shape, &w->tune);

			if (x > 0) {
				printf("  %s and %s cost the same at %.0f B\n",
				       hc_algo_id_name(a), hc_algo_id_name(b),
				       x);
				around[nat++] = (uint64_t)x;
			}
		}
	}
	for (i = 0; i < k && i < MAX_SWITCHES; i++)
		around[nat++] = at[i];
	printf("  size: tuner pick, then per algorithm model/measured us\n");
	for (i = 0; i < nat; i++) {
		uint64_t s = around[i] & ~(uint64_t)3, m;

		for (m = 0; m < 5; m++)
			row(run, w, RTE_MAX((s << m) >> 2, (uint64_t)4));
	}
	hc_simrun_destroy(run);
	return 0;
}

int
main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 4;
	int rc = 0;

	if (n < 2 || n > 64) {
		fprintf(stderr, "usage: tuner [n 2..64]\n");
		return EXIT_FAILURE;
	}
	if (test_eal_init("tuner", "1536", "hctune") != 0)
		return EXIT_FAILURE;
	rte_log_set_level_pattern("hc.*", RTE_LOG_WARNING);
	rc |= bench(n, 100, 1);
	rc |= bench(n, 25, 1);
	rc |= bench(n, 100, 0);
	rc |= bench(n, 25, 0);
	test_eal_fini();
	return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
