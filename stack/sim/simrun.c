/* SPDX-License-Identifier: BSD-3-Clause */
/* Simulated ranks and the runner that steps them (simrun.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_random.h>

#include "hypercomm.h"
#include "engine.h"
#include "log.h"
#include "simrun.h"

/* Pool names must be unique in the process, across runs too. */
static unsigned int pool_seq;

int
hc_sim_ctx_create(const struct hc_config *cfg, uint32_t rank,
		  struct hc_sim *sim, struct hc_ctx **out)
{
	char pool[RTE_MEMPOOL_NAMESIZE];
	struct hc_port_conf pc;
	struct hc_ctx *ctx;
	int rc;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (cfg == NULL || sim == NULL || rank >= cfg->world_size ||
	    rank >= hc_sim_hosts(sim))
		return -HC_ERR_INVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return -HC_ERR_NOMEM;
	rc = hc_config_copy(&ctx->cfg, cfg);
	if (rc != 0) {
		free(ctx);
		return rc;
	}
	hc_clock_init_ref(&ctx->clk, hc_sim_clock(sim));
	hc_ctx_prepare(ctx, rank, RTE_MAX_LCORE);
	ctx->sim = sim;
	snprintf(pool, sizeof(pool), "hcs%u_r%u",
		 __atomic_fetch_add(&pool_seq, 1, __ATOMIC_RELAXED), rank);
	hc_ctx_port_conf(ctx, pool, &pc);
	rc = hc_port_open_sim(&ctx->port, sim, rank, &pc);
	if (rc == 0) {
		ctx->port_open = 1;
		rc = hc_ctx_bring_up(ctx);
	}
	if (rc != 0) {
		hc_ctx_teardown(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

/* Whether every rank has met every peer. */
static int
all_met(void *arg)
{
	struct hc_simrun *run = arg;
	uint32_t r;

	for (r = 0; r < run->ranks; r++)
		if (hct_established(&run->ctx[r]->hct) < run->ranks - 1)
			return 0;
	return 1;
}

/* The requests hc_simrun_wait steps. */
struct reqs {
	struct hc_simrun *run;
	struct hc_request **req;
	int *status;
	uint64_t *done_ns;
	uint32_t left;
};

static int
reqs_done(void *arg)
{
	struct reqs *q = arg;
	uint32_t r;

	for (r = 0; r < q->run->ranks; r++) {
		int done = 0, rc;

		if (q->req[r] == NULL)
			continue;
		rc = hc_test(q->req[r], &done);
		if (done || rc != 0) {
			if (q->done_ns != NULL)
				q->done_ns[r] = hc_sim_now(q->run->sim);
			q->status[r] = rc;
			q->req[r] = NULL;
			q->left--;
		}
	}
	return q->left == 0;
}

int
hc_simrun_wait(struct hc_simrun *run, struct hc_request **req, int *status,
	       uint64_t *done_ns, uint64_t max_virtual_ns)
{
	struct reqs q = { .run = run, .req = req, .status = status,
			  .done_ns = done_ns };
	uint32_t r;
	int rc;

	if (run == NULL || req == NULL || status == NULL)
		return -HC_ERR_INVAL;
	for (r = 0; r < run->ranks; r++)
		q.left += req[r] != NULL;
	rc = hc_simrun_until(run, reqs_done, &q, max_virtual_ns);
	if (rc != 0)
		return rc;
	for (r = 0; r < run->ranks; r++)
		if (status[r] != 0)
			return status[r];
	return 0;
}

/* Whether every rank's tuner probes are done. */
static int
probes_done(void *arg)
{
	struct hc_simrun *run = arg;
	uint32_t r;
	int status;

	for (r = 0; r < run->ranks; r++)
		if (!hc_probe_done(run->ctx[r], &status))
			return 0;
	return 1;
}

/* The tuner's probes of hc_init (probe.c) on every simulated rank: the
 * same state machine, started on every rank at one virtual time and
 * stepped by each rank's engine steps while the runner moves the network.
 * The probe all-gathers of every rank share one buffer: only their timing
 * counts. */
static int
sim_tune(struct hc_simrun *run, uint64_t limit_ns)
{
	uint32_t n = run->ranks, r;
	uint8_t *scratch = calloc(n + 1, HC_TUNE_PROBE_BYTES);
	int rc = scratch == NULL ? -HC_ERR_NOMEM : 0, status;

	for (r = 0; r < n && rc == 0; r++) {
		rc = hc_probe_start(run->ctx[r], scratch);
		/* Starting is work for the rank's next step. */
		run->active[r] = 1;
	}
	if (rc == 0)
		rc = hc_simrun_until(run, probes_done, run, limit_ns);
	for (r = 0; r < n && rc == 0; r++)
		if (hc_probe_done(run->ctx[r], &status) && status != 0)
			rc = status;
	for (r = 0; r < n; r++)
		hc_probe_end(run->ctx[r]);
	if (rc != 0)
		HC_LOG(ERR, CORE, "sim: tuner probes failed: %s",
		       hc_strerror(rc));
	free(scratch);
	return rc;
}

int
hc_simrun_create(const struct hc_simrun_conf *conf, struct hc_simrun **out)
{
	struct hc_config defaults, *cfg = &defaults;
	struct hc_sim_conf net;
	struct hc_simrun *run;
	uint32_t r;
	int rc;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (conf == NULL)
		return -HC_ERR_INVAL;
	if (conf->cfg == NULL) {
		rc = hc_config_defaults(&defaults, conf->net.hosts);
		if (rc != 0)
			return rc;
		defaults.port.pool_mbufs = HC_SIMRUN_POOL_MBUFS;
	} else {
		if (conf->cfg->world_size != conf->net.hosts) {
			HC_LOG(ERR, CORE, "sim: world_size %u on %u hosts",
			       conf->cfg->world_size, conf->net.hosts);
			return -HC_ERR_INVAL;
		}
		rc = hc_config_copy(&defaults, conf->cfg);
		if (rc != 0)
			return rc;
	}
	cfg->fault.seed = conf->seed;
	run = calloc(1, sizeof(*run));
	if (run == NULL) {
		rc = -HC_ERR_NOMEM;
		goto out;
	}
	run->ranks = conf->net.hosts;
	run->quantum_ns = conf->idle_quantum_ns != 0 ? conf->idle_quantum_ns :
			  HC_SIMRUN_IDLE_QUANTUM_NS;
	run->ctx = calloc(run->ranks, sizeof(*run->ctx));
	run->active = calloc(run->ranks, sizeof(*run->active));
	run->timer_ns = calloc(run->ranks, sizeof(*run->timer_ns));
	if (run->ctx == NULL || run->active == NULL || run->timer_ns == NULL) {
		rc = -HC_ERR_NOMEM;
		goto fail;
	}
	net = conf->net;
	net.seed = conf->seed;
	if (net.mtu == 0 || net.mtu < cfg->port.mtu)
		net.mtu = cfg->port.mtu;
	rc = hc_sim_create(&net, &run->sim);
	if (rc != 0)
		goto fail;
	rte_srand(conf->seed);
	for (r = 0; r < run->ranks; r++) {
		rc = hc_sim_ctx_create(cfg, r, run->sim, &run->ctx[r]);
		if (rc != 0)
			goto fail;
	}
	rc = hc_simrun_until(run, all_met, run,
			     cfg->init_timeout_ms * HC_NS_PER_MS);
	if (rc == -HC_ERR_TIMEOUT) {
		HC_LOG(ERR, CORE, "sim: HELLO exchange of %u ranks incomplete "
		       "after %u ms of virtual time", run->ranks,
		       cfg->init_timeout_ms);
		rc = -HC_ERR_INIT_TIMEOUT;
	}
	if (rc == 0 && !conf->no_tune)
		rc = sim_tune(run, cfg->init_timeout_ms * HC_NS_PER_MS);
	if (rc != 0)
		goto fail;
	*out = run;
	goto out;
fail:
	hc_simrun_destroy(run);
out:
	hc_config_free(&defaults);
	return rc;
}

void
hc_simrun_destroy(struct hc_simrun *run)
{
	uint32_t r;

	if (run == NULL)
		return;
	for (r = 0; run->ctx != NULL && r < run->ranks; r++)
		hc_finalize(run->ctx[r]);
	hc_sim_destroy(run->sim);
	free(run->ctx);
	free(run->active);
	free(run->timer_ns);
	free(run);
}

/* Whether rank r may have something to do without a timer: frames
 * arrived, frames held for TX that its NIC now takes, requests submitted,
 * or work in its last step. */
static int
rank_active(const struct hc_simrun *run, uint32_t r)
{
	struct hc_ctx *ctx = run->ctx[r];

	return run->active[r] || hc_sim_rx_pending(run->sim, r) != 0 ||
	       hc_sim_now(run->sim) >= run->timer_ns[r] ||
	       (ctx->port.txq_len != 0 &&
		hc_sim_nic_room(run->sim, r, ctx->port.txq[0]->pkt_len)) ||
	       !cds_wfcq_empty(&ctx->qhead, &ctx->qtail);
}

uint32_t
hc_simrun_step(struct hc_simrun *run)
{
	uint64_t now = hc_sim_now(run->sim), next, limit, timer = UINT64_MAX;
	uint32_t r, work = 0;
	int sweep;

	hc_sim_advance(run->sim, now);
	sweep = now >= run->sweep_ns + run->quantum_ns;
	if (sweep)
		run->sweep_ns = now;
	for (r = 0; r < run->ranks; r++) {
		struct hc_ctx *ctx;
		uint32_t w, held;

		if (!sweep && !rank_active(run, r))
			continue;
		ctx = run->ctx[r];
		w = hc_engine_step(ctx);
		/* hc_engine_poll counts the frames the port still holds as
		 * work; here only time frees the NIC that refused them. */
		held = ctx->port.txq_len;
		w = w > held ? w - held : 0;
		run->active[r] = w != 0;
		run->timer_ns[r] = hct_next_timer(&ctx->hct);
		work += w;
	}
	for (r = 0; r < run->ranks; r++)
		if (run->timer_ns[r] > now)
			timer = RTE_MIN(timer, run->timer_ns[r]);
	run->steps++;
	if (work != 0) {
		if (now != run->stuck_at_ns) {
			run->stuck = 0;
			run->stuck_at_ns = now;
		}
		run->stuck++;
		return work;
	}
	run->stuck = 0;
	/* The next event, but no later than the next transport timer
	 * (RTO, RACK, TLP, pacing: exact) or the next sweep (the rest). */
	limit = RTE_MAX(now, run->sweep_ns + run->quantum_ns);
	limit = RTE_MIN(limit, RTE_MAX(timer, now));
	if (!hc_sim_next_event(run->sim, &next) || next > limit)
		next = limit;
	hc_sim_advance(run->sim, next);
	return 0;
}

int
hc_simrun_until(struct hc_simrun *run, int (*pred)(void *arg), void *arg,
		uint64_t max_virtual_ns)
{
	uint64_t deadline;

	if (run == NULL || pred == NULL)
		return -HC_ERR_INVAL;
	deadline = hc_sim_now(run->sim) + max_virtual_ns;
	run->stuck = 0;
	for (;;) {
		if (pred(arg))
			return 0;
		if (hc_sim_now(run->sim) >= deadline)
			return -HC_ERR_TIMEOUT;
		hc_simrun_step(run);
		if (run->stuck >= HC_SIMRUN_STUCK_STEPS) {
			HC_LOG(ERR, CORE, "sim: %" PRIu64 " steps of work at "
			       "%" PRIu64 " ns without time moving", run->stuck,
			       run->stuck_at_ns);
			return -HC_ERR_INTERNAL;
		}
	}
}

struct hc_ctx *
hc_simrun_ctx(const struct hc_simrun *run, uint32_t r)
{
	return run != NULL && r < run->ranks ? run->ctx[r] : NULL;
}

uint64_t
hc_simrun_now(const struct hc_simrun *run)
{
	return hc_sim_now(run->sim);
}
