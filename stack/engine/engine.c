/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include <rte_byteorder.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ip.h>
#include <rte_pause.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "bootstrap.h"
#include "engine.h"
#include "cpustat.h"
#include "log.h"

_Static_assert(HC_RANK_PORTS_MAX == HC_NET_PORTS_MAX,
	       "a rank's ports are the net layer's");

/* One RX burst of port k into the stack, all its packets stamped with
 * one clock read (hct_rx_time()). */
static inline void
engine_input(struct hc_ctx *ctx, uint32_t k, struct rte_mbuf **pkts,
	     uint16_t n)
{
	uint16_t i;

	hct_rx_time(&ctx->hct, hc_clock_now(&ctx->clk));
	for (i = 0; i < n; i++)
		hc_net_input_port(&ctx->net, k, pkts[i]);
	hct_rx_time(&ctx->hct, 0);
}

/* The poll, instrumented (HC_CPU_STATS=1): TSC reads at the start, after
 * RX and after TX; a section's cycles count only when it did work (the
 * cost of polling empty rings is waiting, not per-packet cost), and the
 * payload cycles of base/cpustat.h spent inside it are kept apart. */
static uint32_t
engine_poll_timed(struct hc_ctx *ctx)
{
	struct rte_mbuf *pkts[HC_PORT_TXQ];
	uint32_t k, np = ctx->nports, rx = 0, tx = 0;
	uint64_t t0, t1, t2, p0, p1, p2, ta, tb, rxport = 0, txport = 0;
	uint64_t q0, q1, q2;
	uint16_t n;

	/* q: PMD TX bursts made inside the sections (the transport flushes
	 * the port when it holds tx_ring_max_bytes: every 2 frames of 9000
	 * B on memif), the PMD's cost like the final flush. */
	q0 = hc_cpustat_port_cyc;
	p0 = hc_cpustat_payload_cyc;
	t0 = rte_rdtsc();
	for (k = 0; k < np; k++) {
		struct hc_port *p = ctx->ports[k];

		ta = rte_rdtsc();
		n = hc_port_rx(p, pkts, p->burst);
		tb = rte_rdtsc();
		if (n == 0)
			continue;
		rxport += tb - ta;
		engine_input(ctx, k, pkts, n);
		rx += n;
	}
	p1 = hc_cpustat_payload_cyc;
	q1 = hc_cpustat_port_cyc;
	t1 = rte_rdtsc();
	tx += hct_poll_tx(&ctx->hct, hc_clock_now(&ctx->clk));
	ta = rte_rdtsc();
	for (k = 0; k < np; k++)
		tx += hc_port_flush(ctx->ports[k]);
	p2 = hc_cpustat_payload_cyc;
	q2 = hc_cpustat_port_cyc;
	t2 = rte_rdtsc();
	txport = t2 - ta + (q2 - q1);
	rxport += q1 - q0;
	/* A section longer than cpu.skip_cyc was descheduled (a burst of
	 * HC_PORT_TXQ 9000-byte packets takes well under 1 ms): kept out,
	 * counted. */
	if (rx != 0 && t1 - t0 > ctx->cpu.skip_cyc) {
		ctx->cpu.rx_skipped++;
	} else if (rx != 0) {
		ctx->cpu.rx_cyc += t1 - t0;
		ctx->cpu.rx_payload_cyc += p1 - p0;
		ctx->cpu.rx_port_cyc += rxport;
		ctx->cpu.rx_polls++;
	}
	if (tx != 0 && t2 - t1 > ctx->cpu.skip_cyc) {
		ctx->cpu.tx_skipped++;
	} else if (tx != 0) {
		ctx->cpu.tx_cyc += t2 - t1;
		ctx->cpu.tx_payload_cyc += p2 - p1;
		ctx->cpu.tx_port_cyc += txport;
		ctx->cpu.tx_polls++;
	}
	return rx + tx;
}

uint32_t
hc_engine_poll(struct hc_ctx *ctx)
{
	struct rte_mbuf *pkts[HC_PORT_TXQ];
	uint16_t n;
	uint32_t work;

	uint32_t k, np = ctx->nports; /* set by hc_ctx_bring_up */

	if (unlikely(hc_cpustat_on))
		return engine_poll_timed(ctx);
	work = 0;
	for (k = 0; k < np; k++) {
		struct hc_port *p = ctx->ports[k];

		n = hc_port_rx(p, pkts, p->burst);
		if (n == 0)
			continue;
		engine_input(ctx, k, pkts, n);
		work += n;
	}
	work += hct_poll_tx(&ctx->hct, hc_clock_now(&ctx->clk));
	for (k = 0; k < np; k++)
		work += hc_port_flush(ctx->ports[k]);
	return work;
}

void
hc_backoff(struct hc_ctx *ctx, struct hc_backoff *b)
{
	struct timespec ts;
	uint64_t now;

	if (ctx->cfg.idle == HC_IDLE_BUSY)
		return;
	if (++b->polls <= ctx->cfg.idle_spin || ctx->cfg.idle == HC_IDLE_PAUSE) {
		rte_pause();
		return;
	}
	now = hc_clock_now(&ctx->clk);
	if (b->polls == ctx->cfg.idle_spin + 1)
		b->since_ns = now;
	/* Yield first: on a shared core it hands the CPU to a peer rank (or
	 * to the kernel's packet processing) and returns at once otherwise.
	 * Sleep only after idle_yield_us without work, so that a rank that
	 * waits for a slow or dead peer does not keep a core busy. */
	if (ctx->cfg.idle == HC_IDLE_YIELD ||
	    now - b->since_ns < ctx->cfg.idle_yield_us * HC_NS_PER_US) {
		sched_yield();
		return;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ctx->cfg.idle_sleep_us * 1000;
	nanosleep(&ts, NULL);
}

void
hc_wait_backoff(struct hc_ctx *ctx, struct hc_backoff *b)
{
	struct timespec ts;

	if (ctx->cfg.idle == HC_IDLE_BUSY)
		return;
	if (++b->polls <= ctx->cfg.idle_spin || ctx->cfg.idle == HC_IDLE_PAUSE) {
		rte_pause();
		return;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ctx->cfg.idle_sleep_us * 1000;
	nanosleep(&ts, NULL);
}

void
hc_engine_idle(struct hc_ctx *ctx, uint32_t work)
{
	if (work != 0)
		ctx->idle.polls = 0;
	else
		hc_backoff(ctx, &ctx->idle);
}

/* Finish a request: publish its status to the waiting thread. */
static void
request_done(struct hc_ctx *ctx, struct hc_request *req)
{
	if (req->op.kind != HC_COLL_COMM_ADD)
		hc_metrics_completed(ctx, &req->op);
	hc_coll_op_end(&req->op);
	TAILQ_REMOVE(&ctx->inflight, req, link);
	req->status = req->op.status;
	__atomic_store_n(&req->state, HC_REQ_DONE, __ATOMIC_RELEASE);
}

uint32_t
hc_engine_step(struct hc_ctx *ctx)
{
	struct cds_wfcq_node *node;
	struct hc_request *req, *next;
	uint32_t work = 0;
	uint64_t now;

	for (;;) {
		node = __cds_wfcq_dequeue_nonblocking(&ctx->qhead, &ctx->qtail);
		if (node == NULL || node == CDS_WFCQ_WOULDBLOCK)
			break;
		req = caa_container_of(node, struct hc_request, qnode);
		req->op.deadline_ns = hc_clock_now(&ctx->clk) +
				      req->timeout_ms * HC_NS_PER_MS;
		TAILQ_INSERT_TAIL(&ctx->inflight, req, link);
		if (req->op.kind == HC_COLL_COMM_ADD) {
			hc_coll_add_comm(&ctx->coll, req->op.comm);
			req->op.done = 1;
		} else {
			hc_coll_submit(&req->op);
		}
		work++;
	}
	work += hc_engine_poll(ctx);
	now = hc_clock_now(&ctx->clk);
	for (req = TAILQ_FIRST(&ctx->inflight); req != NULL; req = next) {
		struct hc_coll_op *op = &req->op;

		next = TAILQ_NEXT(req, link);
		hc_op_check_deadline(ctx, op, req->timeout_ms, now);
		if (hc_coll_op_over(op)) {
			request_done(ctx, req);
			work++;
		}
	}
	if (ctx->probe != NULL)
		work += hc_probe_step(ctx);
	return work;
}

/* The engine lcore's loop. */
static int
engine_main(void *arg)
{
	struct hc_ctx *ctx = arg;

	while (!__atomic_load_n(&ctx->engine_stop, __ATOMIC_ACQUIRE))
		hc_engine_idle(ctx, hc_engine_step(ctx));
	return 0;
}

/* Fault-injector classifier: the HCT packet type of a frame; *tail when
 * it is the first transmission of the last DATA packet of a message. */
static enum hc_fault_class
classify(const struct rte_mbuf *m, const void *arg, bool *tail)
{
	const struct hc_ctx *ctx = arg;
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	const uint8_t *hct;
	uint32_t off = sizeof(*eth);

	if (m->data_len < off + sizeof(*ip) + sizeof(*udp) + 2)
		return HC_FAULT_CLASS_OTHER;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return HC_FAULT_CLASS_OTHER;
	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	if (ip->next_proto_id != IPPROTO_UDP)
		return HC_FAULT_CLASS_OTHER;
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip +
					   (ip->version_ihl & 0xf) * 4);
	if (udp->dst_port != rte_cpu_to_be_16(ctx->cfg.net.udp_port))
		return HC_FAULT_CLASS_OTHER;
	hct = (const uint8_t *)(udp + 1);
	switch (hct[1]) {
	case HCT_TYPE_DATA:
		if ((const uint8_t *)udp - rte_pktmbuf_mtod(m, const uint8_t *) +
		    sizeof(*udp) + sizeof(struct hct_wire_hdr) <= m->data_len) {
			uint8_t fl = hct[offsetof(struct hct_wire_hdr, flags)];

			*tail = (fl & (HCT_F_LAST | HCT_F_RETX)) == HCT_F_LAST;
		}
		return HC_FAULT_CLASS_DATA;
	case HCT_TYPE_ACK:
		return HC_FAULT_CLASS_ACK;
	default:
		return HC_FAULT_CLASS_CONTROL;
	}
}

/* params->progress, or HC_PROGRESS=caller over it (an empty HC_PROGRESS
 * or "auto" leaves it). @return the enum hc_progress, or -HC_ERR_INVAL
 * (logged) for a value that is neither. */
static int
progress_mode(const struct hc_init_params *params)
{
	const char *env = getenv("HC_PROGRESS");

	if (params->progress != HC_PROGRESS_AUTO &&
	    params->progress != HC_PROGRESS_CALLER) {
		HC_LOG(ERR, CORE, "hc_init_params progress %d is not "
		       "HC_PROGRESS_AUTO (0) or HC_PROGRESS_CALLER (1)",
		       params->progress);
		return -HC_ERR_INVAL;
	}
	if (env == NULL || env[0] == '\0' || strcmp(env, "auto") == 0)
		return params->progress;
	if (strcmp(env, "caller") == 0)
		return HC_PROGRESS_CALLER;
	HC_LOG(ERR, CORE, "HC_PROGRESS '%s' is not 'caller' or 'auto'", env);
	return -HC_ERR_INVAL;
}

/* The engine's lcore: the first worker lcore of the EAL, unless progress
 * (progress_mode()) is in the caller's own calls. */
static unsigned int
pick_engine_lcore(int progress)
{
	unsigned int lcore;

	if (progress == HC_PROGRESS_CALLER)
		return RTE_MAX_LCORE;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE || rte_eal_get_lcore_state(lcore) != WAIT)
		return RTE_MAX_LCORE;
	return lcore;
}

void
hc_ctx_teardown(struct hc_ctx *ctx)
{
	uint32_t i, pass;

	if (ctx->coll_up) {
		struct hc_comm *comm;

		hc_probe_end(ctx);

		/* Communicators made by hc_comm_split live until here. */
		while ((comm = TAILQ_FIRST(&ctx->coll.comms)) != NULL) {
			hc_comm_fini(comm);
			if (comm != &ctx->world && comm != &ctx->tuner)
				free(comm);
		}
		hc_comm_fini(&ctx->world);
		hc_comm_fini(&ctx->tuner);
		hc_coll_free(&ctx->coll);
	}
	if (ctx->hct_up)
		hct_free(&ctx->hct);
	if (ctx->net_up)
		hc_net_free(&ctx->net);
	/* Clients before servers (hc_port_close says why). */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < ctx->nports; i++) {
			struct hc_port *p = ctx->ports[i];

			if (p->ops == NULL || (i == 0 && !ctx->port_open) ||
			    p->close_after_peer != (pass == 1))
				continue;
			hc_port_close(p);
		}
	for (i = 1; i < ctx->nports; i++)
		free(ctx->ports[i]);
	if (ctx->port_open)
		hc_port_close(&ctx->port);
	hc_port_pools_free(&ctx->pools);
	free(ctx->peer_ip);
	hc_config_free(&ctx->cfg);
	free(ctx);
}

void
hc_ctx_port_conf(const struct hc_ctx *ctx, const char *pool_name,
		 struct hc_port_conf *pc)
{
	const struct hc_config *cfg = &ctx->cfg;
	const struct hc_rank_conf *me = &cfg->ranks[ctx->rank];

	*pc = cfg->port;
	pc->mac = me->has_mac ? &me->mac : NULL;
	pc->pool_name = pool_name;
}

void
hc_ctx_prepare(struct hc_ctx *ctx, uint32_t rank, unsigned int engine_lcore)
{
	ctx->rank = rank;
	__cds_wfcq_init(&ctx->qhead, &ctx->qtail);
	TAILQ_INIT(&ctx->inflight);
	rte_spinlock_init(&ctx->progress_lock);
	rte_spinlock_init(&ctx->metrics.lock);
	ctx->engine_lcore = engine_lcore;
}

/* mbufs in use in ctx's port pools (rte_mempool_in_use_count: the
 * per-lcore caches count as free), each pool once however many ports
 * share it; *size, when not NULL, gets the pools' total size. */
static uint64_t
mbufs_in_use(const struct hc_ctx *ctx, uint64_t *size)
{
	uint64_t n = 0, total = 0;
	uint32_t k, j;

	for (k = 0; k < ctx->nports; k++) {
		const struct rte_mempool *mp = ctx->ports[k]->pool;

		for (j = 0; j < k && ctx->ports[j]->pool != mp; j++)
			;
		if (mp == NULL || j < k)
			continue;
		n += rte_mempool_in_use_count(mp);
		total += mp->size;
	}
	if (size != NULL)
		*size = total;
	return n;
}

/* Open this rank's DPDK ports ([rank.N] port or port0..portK). */
static int
open_dpdk_port(struct hc_ctx *ctx)
{
	const struct hc_rank_conf *me = &ctx->cfg.ranks[ctx->rank];
	struct hc_port_conf pc;
	char pool[RTE_MEMPOOL_NAMESIZE];
	uint32_t k;
	int rc;

	/* Pool names are per process; rank and pid keep them unique even
	 * if two ranks ever share one DPDK instance. */
	snprintf(pool, sizeof(pool), "hc_r%u_%d", ctx->rank, (int)getpid());
	hc_ctx_port_conf(ctx, pool, &pc);
	pc.pools = &ctx->pools; /* ports of the same frame share a pool */
	ctx->ports[0] = &ctx->port;
	rc = hc_port_open(&ctx->port, me->port, &pc);
	if (rc != 0)
		return rc;
	ctx->port_open = 1;
	ctx->nports = 1;
	for (k = 1; k < me->nports; k++) {
		struct hc_port *p = calloc(1, sizeof(*p));

		if (p == NULL)
			return -HC_ERR_NOMEM;
		snprintf(pool, sizeof(pool), "hc_r%u_%d_%u", ctx->rank,
			 (int)getpid(), k);
		pc.pool_name = pool;
		rc = hc_port_open(p, hc_rank_port(me, k), &pc);
		if (rc != 0) {
			free(p);
			return rc;
		}
		ctx->ports[ctx->nports++] = p;
	}
	return 0;
}

/* Fault injector of port k: each port its own seed, the same rules. */
static int
fault_setup(struct hc_ctx *ctx, struct hc_port *p, uint32_t k)
{
	char err[256];

	/* Port k of a rank draws from its own stream of the job's seed. */
	if (hc_fault_configure(&p->fault, &ctx->cfg.fault,
			       ctx->rank + (uint64_t)k * HC_MAX_RANKS, err,
			       sizeof(err)) != 0) {
		/* hc_config_load checked the rules already. */
		HC_LOG(ERR, CORE, "fault rules: %s", err);
		return -HC_ERR_CONFIG;
	}
	p->fault.classify = classify;
	p->fault.classify_arg = ctx;
	p->clk = &ctx->clk;
	return 0;
}

/* Add ports 1.. to the net layer and resolve the route to every peer. */
static int
routes_setup(struct hc_ctx *ctx)
{
	const struct hc_config *cfg = &ctx->cfg;
	const struct hc_rank_conf *me = &cfg->ranks[ctx->rank];
	struct hc_route rt;
	uint32_t k, q;
	char a[16], b[16];
	int rc;

	for (k = 1; k < ctx->nports; k++) {
		rc = hc_net_port_add(&ctx->net, ctx->ports[k]);
		if (rc < 0)
			return rc;
	}
	if (ctx->nports == 1 && me->nroutes == 0)
		return 0; /* everything on port 0, direct */
	for (q = 0; q < cfg->world_size; q++) {
		if (q == ctx->rank)
			continue;
		if (hc_config_route(cfg, ctx->rank, q, &rt) != 0) {
			HC_LOG(ERR, CORE, "%s: [rank.%u] no route reaches rank "
			       "%u", cfg->path, ctx->rank, q);
			return -HC_ERR_CONFIG;
		}
		rc = hc_net_route_add(&ctx->net, cfg->ranks[q].ip, rt.next_hop,
				      rt.port, cfg->world_size);
		if (rc != 0)
			return rc;
		HC_LOG(DEBUG, CORE, "route to rank %u (%s): %s via %s", q,
		       hc_ip_str(cfg->ranks[q].ip, a, sizeof(a)),
		       ctx->ports[rt.port]->name,
		       hc_ip_str(rt.next_hop, b, sizeof(b)));
	}
	return 0;
}

int
hc_ctx_bring_up(struct hc_ctx *ctx)
{
	const struct hc_config *cfg = &ctx->cfg;
	const struct hc_rank_conf *me = &cfg->ranks[ctx->rank];
	struct hc_net_conf nc;
	struct hct_conf tc;
	struct hc_coll_conf cc;
	struct hct_upcalls up = {
		.data = hc_coll_data,
		.msg_sent = hc_coll_msg_sent,
		.peer_lost = hc_coll_peer_lost,
	};
	uint32_t *groups;
	uint32_t i;
	int rc;

	ctx->peer_ip = calloc(cfg->world_size, sizeof(*ctx->peer_ip));
	if (ctx->peer_ip == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < cfg->world_size; i++)
		ctx->peer_ip[i] = cfg->ranks[i].ip;

	ctx->ports[0] = &ctx->port;
	if (ctx->nports == 0)
		ctx->nports = 1; /* a backend that opened ctx->port only */
	if (ctx->nports != me->nports) {
		HC_LOG(ERR, CORE, "rank %u: %u ports configured, %u opened",
		       ctx->rank, me->nports, ctx->nports);
		return -HC_ERR_CONFIG;
	}
	/* Every port started, no frame sent yet: what the PMDs hold. */
	ctx->mbufs_start = mbufs_in_use(ctx, NULL);
	for (i = 0; i < ctx->nports; i++) {
		rc = fault_setup(ctx, ctx->ports[i], i);
		if (rc != 0)
			return rc;
	}

	nc = cfg->net;
	nc.ip = me->ip;
	nc.arp_capacity = cfg->world_size;
	rc = hc_net_init(&ctx->net, &ctx->port, &ctx->clk, &nc, hct_input,
			 &ctx->hct);
	if (rc != 0)
		return rc;
	ctx->net_up = 1;
	rc = routes_setup(ctx);
	if (rc != 0)
		return rc;
	for (i = 0; i < cfg->world_size; i++)
		if (i != ctx->rank && cfg->ranks[i].has_mac)
			hc_arp_add_permanent(&ctx->net.arp, cfg->ranks[i].ip,
					     &cfg->ranks[i].mac);

	tc = cfg->hct;
	tc.job_id = cfg->job_id;
	tc.rank = ctx->rank;
	tc.world_size = cfg->world_size;
	tc.peer_ip = ctx->peer_ip;
	tc.always_on = ctx->engine_lcore != RTE_MAX_LCORE;
	/* rte_rand() is seeded once per program, by a constructor: two
	 * processes forked after it (a launcher that forks its ranks, or a
	 * rank restarted by a forking parent) would draw the same nonce and
	 * pass for one incarnation (C21). The TSC and the PID tell them
	 * apart. Simulated ranks share one process and must be a function
	 * of the run's seed (simrun.h): rte_rand() alone. */
	do
		tc.nonce = (uint32_t)(rte_rand() ^ (ctx->sim != NULL ? 0 :
				      rte_rdtsc() ^ ((uint64_t)getpid() << 16)));
	while (tc.nonce == 0);
	/* The incarnation's wall-clock start (hct.h, start_ns): replayed
	 * HELLOs of an earlier run of the job carry an older one. Simulated
	 * ranks: none (0 turns the check off). */
	if (ctx->sim == NULL) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		tc.start_ns = (uint64_t)ts.tv_sec * HC_NS_PER_S +
			      (uint64_t)ts.tv_nsec;
		tc.stale_window_ns = ((uint64_t)cfg->init_timeout_ms + 1000) *
				     HC_NS_PER_MS;
	}
	if (cfg->key_file[0] != '\0') {
		rc = hc_key_load(cfg, tc.auth_key);
		if (rc != 0)
			return rc;
		tc.auth = 1;
	}
	rc = hct_init(&ctx->hct, &ctx->net, &ctx->clk, &tc, &up, &ctx->coll);
	sodium_memzero(tc.auth_key, sizeof(tc.auth_key));
	if (rc != 0)
		return rc;
	ctx->hct_up = 1;

	/* Held DATA of collectives not called yet sits in mbufs of the
	 * port it came in on: at most a quarter of the smallest pool, so
	 * that what a rank ahead of us sends early cannot take the mbufs our
	 * current collective needs to send, retransmit and acknowledge (C30:
	 * with 1023-mbuf pools and 2048 held, an 8-rank all-gather on tap
	 * deadlocked, the pool full of the next round's packets). Not on
	 * simulated ranks, whose tests assume the configured bound. */
	cc = cfg->coll;
	for (i = 0; i < ctx->nports && ctx->sim == NULL; i++)
		if (ctx->ports[i]->pool != NULL &&
		    cc.unexpected_max > ctx->ports[i]->pool->size / 4)
			cc.unexpected_max = ctx->ports[i]->pool->size / 4;
	if (cc.unexpected_max != cfg->coll.unexpected_max)
		HC_LOG(INFO, CORE, "[coll] unexpected_max %u -> %u: a quarter "
		       "of the smallest mbuf pool", cfg->coll.unexpected_max,
		       cc.unexpected_max);
	rc = hc_coll_init(&ctx->coll, &ctx->hct, ctx->rank, &cc);
	if (rc != 0)
		return rc;
	ctx->coll_up = 1;
	groups = malloc(cfg->world_size * sizeof(*groups));
	if (groups == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < cfg->world_size; i++)
		groups[i] = cfg->ranks[i].group;
	rc = hc_coll_set_groups(&ctx->coll, groups, cfg->world_size);
	free(groups);
	if (rc == 0)
		rc = hc_comm_init_world(&ctx->world, &ctx->coll, ctx, ctx->rank,
					cfg->world_size);
	if (rc != 0)
		return rc;
	rc = hc_comm_init(&ctx->tuner, &ctx->coll, ctx, HC_COMM_ID_TUNER,
			  ctx->rank, cfg->world_size, ctx->world.world,
			  cfg->world_size);
	if (rc != 0)
		return rc;
	hc_coll_add_comm(&ctx->coll, &ctx->tuner);
	return 0;
}

/* The tuner's probes (probe.c), stepped by polling the engine here in
 * hc_init's thread, before the engine lcore (if any) takes over: each
 * probe collective has the op timeout. */
static int
tune(struct hc_ctx *ctx)
{
	int rc = hc_probe_start(ctx, NULL);

	while (rc == 0 && !hc_probe_done(ctx, &rc))
		hc_engine_idle(ctx, hc_engine_step(ctx));
	hc_probe_end(ctx);
	return rc;
}

/* [job] key_file (authenticated mode): the file must be a regular file
 * of 32..65536 bytes that neither group nor others may read or write; the
 * job's key is the BLAKE2b-256 (crypto_generichash) of its bytes, so any
 * secret of 32 bytes or more serves. Errors name the file, never its
 * content; the bytes read are wiped. */
int
hc_key_load(const struct hc_config *cfg, uint8_t key[32])
{
	uint8_t buf[65536 + 1];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	fd = open(cfg->key_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		HC_LOG(ERR, CORE, "%s: [job] key_file %s: %s", cfg->path,
		       cfg->key_file, strerror(errno));
		return -HC_ERR_CONFIG;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		HC_LOG(ERR, CORE, "%s: [job] key_file %s: not a regular file",
		       cfg->path, cfg->key_file);
		close(fd);
		return -HC_ERR_CONFIG;
	}
	if ((st.st_mode & 077) != 0) {
		HC_LOG(ERR, CORE, "%s: [job] key_file %s: mode %04o lets group "
		       "or others at the secret (chmod 600 it)", cfg->path,
		       cfg->key_file, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -HC_ERR_CONFIG;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 32 || (size_t)n > sizeof(buf) - 1) {
		HC_LOG(ERR, CORE, "%s: [job] key_file %s: %zd bytes; the key "
		       "must have 32 to 65536", cfg->path, cfg->key_file, n);
		rc = -HC_ERR_CONFIG;
	} else if (sodium_init() < 0 ||
		   crypto_generichash(key, 32, buf, (size_t)n, NULL, 0) != 0) {
		rc = -HC_ERR_INTERNAL;
	}
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

/* Exchange HELLOs until every peer answered, at most until deadline
 * (init_timeout_ms from hc_init's start, so that the port and ARP set-up
 * count too: hc_init returns within the timeout, C18). */
static int
meet_peers(struct hc_ctx *ctx, uint64_t deadline)
{
	uint32_t want = ctx->cfg.world_size - 1, i;
	char missing[512];
	size_t len = 0;
	uint64_t announce = 0, now;
	int conflict = 0;

	/* C36: a duplicate rank id, or ranks whose cluster files disagree
	 * on the world size, fail here with their own message (logged by
	 * net and transport when first seen), not as a timeout. The ARP
	 * announcement (hc_net_announce) is repeated while we wait so that
	 * two processes with one rank id meet whichever starts first.
	 * A twin that has seen the conflict does not leave at once: it goes
	 * on saying HELLO until every peer has answered it, or until the
	 * deadline, so that a peer that started later also sees two nonces
	 * for one rank and names the duplicate instead of timing out (a CI
	 * run lost that race when the twins met each other first). */
	while (hct_established(&ctx->hct) < want || conflict ||
	       ctx->net.stats.ip_conflicts != 0 || ctx->hct.dup_seen ||
	       ctx->hct.ws_theirs != 0) {
		now = hc_clock_now(&ctx->clk);
		if (ctx->net.stats.ip_conflicts != 0 && conflict == 0) {
			conflict = 1;
			/* Once more, so that the twin, which may have missed
			 * our earlier ones, learns it too (RFC 5227 2.4's
			 * defence, here before both give up). */
			hc_net_announce(&ctx->net);
			HC_LOG(ERR, CORE, "rank %u: another process uses this "
			       "rank's address: duplicate rank id %u",
			       ctx->rank, ctx->rank);
		}
		if (conflict && (hct_established(&ctx->hct) == want ||
				 now > deadline))
			return -HC_ERR_ADDR_IN_USE;
		if (ctx->hct.dup_seen) {
			HC_LOG(ERR, CORE, "rank %u: two processes run as rank "
			       "%u: duplicate rank id", ctx->rank,
			       ctx->hct.dup_rank);
			return -HC_ERR_ADDR_IN_USE;
		}
		if (ctx->hct.ws_theirs != 0) {
			hc_engine_poll(ctx); /* the HELLO that tells it ours */
			HC_LOG(ERR, CORE, "rank %u: world_size %u here, %u at "
			       "rank %u: the ranks disagree on the world size",
			       ctx->rank, ctx->cfg.world_size,
			       ctx->hct.ws_theirs, ctx->hct.ws_peer);
			return -HC_ERR_WORLD_SIZE;
		}
		if (now > deadline)
			break;
		if (ctx->sim == NULL && now >= announce) {
			hc_net_announce(&ctx->net);
			announce = now + 200 * HC_NS_PER_MS;
		}
		hc_engine_idle(ctx, hc_engine_poll(ctx));
		if (ctx->hct.mtu_bad_rank1 != 0) {
			/* hct_membership logged both MTUs. It answered the
			 * peer's HELLO with a HELLO_ACK carrying ours, but a
			 * port closed at once may discard it (virtio: the
			 * switch had not taken it from the ring yet, and the
			 * peer timed out instead of naming the MTUs, 1 CI run
			 * in 1): go on answering its HELLOs for 10 HELLO
			 * intervals (200 ms by default), within the deadline. */
			uint64_t until = now + 10 * ctx->hct.conf.hello_interval_ns;

			while (ctx->sim == NULL && hc_clock_now(&ctx->clk) <
			       RTE_MIN(until, deadline))
				hc_engine_idle(ctx, hc_engine_poll(ctx));
			HC_LOG(ERR, CORE, "%s: [net] mtu %u here, %u on rank "
			       "%u", ctx->cfg.path, ctx->port.mtu,
			       ctx->hct.mtu_bad_peer_mtu,
			       ctx->hct.mtu_bad_rank1 - 1);
			return -HC_ERR_CONFIG;
		}
	}
	if (hct_established(&ctx->hct) == want) {
		hct_meeting_done(&ctx->hct);
		return 0;
	}
	missing[0] = '\0';
	for (i = 0; i < ctx->cfg.world_size && len < sizeof(missing) - 16; i++)
		if (i != ctx->rank &&
		    ctx->hct.flows[i].state != HCT_FLOW_ESTABLISHED)
			len += snprintf(missing + len, sizeof(missing) - len,
					" %u", i);
	HC_LOG(ERR, CORE, "rank %u: no answer within %u ms from rank(s)%s",
	       ctx->rank, ctx->cfg.init_timeout_ms, missing);
	HC_LOG(ERR, CORE, "rank %u: world_size is %u: were all %u ranks "
	       "started?", ctx->rank, ctx->cfg.world_size,
	       ctx->cfg.world_size);
	return -HC_ERR_INIT_TIMEOUT;
}

/* Who this rank is, for a cluster file: rank from params or the
 * environment, world size from the file; a world size given elsewhere
 * must agree with it. */
static int
cluster_identity(const struct hc_init_params *params,
		 const struct hc_config *cfg, int *rank)
{
	struct hc_boot_id id;
	const char *src;
	int rc, w;

	rc = hc_boot_identity(params, 0, &id);
	if (rc != 0)
		return rc;
	if (id.rank < 0) {
		HC_LOG(ERR, CORE, "no rank: set HC_RANK (or RANK, SLURM_PROCID, "
		       "OMPI_COMM_WORLD_RANK, PMI_RANK), or "
		       "hc_init_params.rank");
		return -HC_ERR_INVAL;
	}
	if (params->world_size > 0 &&
	    (uint32_t)params->world_size != cfg->world_size) {
		HC_LOG(ERR, CORE, "%s: world_size %u, but this rank was started "
		       "for %d ranks (hc_init_params.world_size)", cfg->path,
		       cfg->world_size, params->world_size);
		return -HC_ERR_WORLD_SIZE;
	}
	w = hc_boot_env_world(&src);
	if (w < 0)
		return -HC_ERR_INVAL;
	if (params->world_size <= 0 && w > 0 && (uint32_t)w != cfg->world_size) {
		HC_LOG(ERR, CORE, "%s: world_size %u, but %s=%d", cfg->path,
		       cfg->world_size, src, w);
		return -HC_ERR_WORLD_SIZE;
	}
	if ((uint32_t)id.rank >= cfg->world_size) {
		HC_LOG(ERR, CORE, "rank %d (%s) is not below world_size %u",
		       id.rank, id.rank_src, cfg->world_size);
		return -HC_ERR_INVAL;
	}
	*rank = id.rank;
	return 0;
}

/* Who this rank is, for a host file (README "Launchers"), then the
 * rendezvous that fills the other ranks' entries. */
static int
host_bootstrap(const struct hc_init_params *params, struct hc_config *cfg,
	       int *rank)
{
	struct hc_boot_id id;
	int rc;

	rc = hc_boot_identity(params, cfg->world_size, &id);
	if (rc != 0)
		return rc;
	if (id.rank < 0 || id.world_size <= 0) {
		HC_LOG(ERR, CORE, "%s is a host file: no %s (set HC_RANK and "
		       "HC_WORLD_SIZE, or start under torchrun, srun, mpirun)",
		       cfg->path, id.rank < 0 ? "rank" : "world size");
		return -HC_ERR_INVAL;
	}
	if (id.local_rank < 0) {
		if (id.world_size > 1) {
			HC_LOG(ERR, CORE, "%s is a host file: no local rank "
			       "(set HC_LOCAL_RANK)", cfg->path);
			return -HC_ERR_INVAL;
		}
		id.local_rank = 0;
		id.local_src = "(a world of one)";
	}
	HC_LOG(INFO, CORE, "rank %d (%s) of %d (%s), local rank %d (%s)",
	       id.rank, id.rank_src, id.world_size, id.world_src,
	       id.local_rank, id.local_src);
	if (id.rank >= id.world_size) {
		/* Tell rank 0, so that every rank fails alike. */
		HC_LOG(ERR, CORE, "rank %d (%s) is not below world size %d (%s)",
		       id.rank, id.rank_src, id.world_size, id.world_src);
		rc = hc_boot_rendezvous(cfg, (uint32_t)id.rank,
					(uint32_t)id.local_rank,
					(uint32_t)id.world_size,
					cfg->init_timeout_ms);
		return rc != 0 ? rc : -HC_ERR_WORLD_SIZE;
	}
	rc = hc_config_host_rank(cfg, (uint32_t)id.world_size,
				 (uint32_t)id.rank, (uint32_t)id.local_rank);
	if (rc == 0 && id.world_size > 1)
		rc = hc_boot_rendezvous(cfg, (uint32_t)id.rank,
					(uint32_t)id.local_rank,
					(uint32_t)id.world_size,
					cfg->init_timeout_ms);
	if (rc == 0)
		rc = hc_config_host_check(cfg, (uint32_t)id.rank);
	if (rc == 0 && cfg->job_id == 0)
		cfg->job_id = 1; /* a world of one */
	*rank = id.rank;
	return rc;
}

int
hc_init(const struct hc_init_params *params, struct hc_ctx **out)
{
	struct hc_init_params def = { NULL, -1, 0, HC_PROGRESS_AUTO };
	struct hc_ctx *ctx;
	const char *path;
	uint64_t deadline;
	int rank = -1, rc, progress;
	uint32_t i;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (params == NULL)
		params = &def;
	progress = progress_mode(params);
	if (progress < 0)
		return progress;
	if (params->world_size < 0) {
		HC_LOG(ERR, CORE, "hc_init_params world_size %d is negative "
		       "(0: from the file or the environment)",
		       params->world_size);
		return -HC_ERR_INVAL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return -HC_ERR_NOMEM;
	path = params->config_path != NULL ? params->config_path
					   : getenv("HC_CONFIG");
	hc_clock_init_tsc(&ctx->clk);
	rc = hc_config_load(path, &ctx->cfg);
	if (rc != 0)
		goto fail;
	{
		const char *cs = getenv("HC_CPU_STATS");

		if (cs != NULL && strcmp(cs, "1") == 0) {
			ctx->cpu.read_cyc = hc_cpustat_enable(1);
			ctx->cpu.skip_cyc = hc_clock_tsc_hz() / 1000; /* 1 ms */
			if (ctx->cpu.read_cyc == 0)
				ctx->cpu.read_cyc = 1; /* 0 means off */
		}
	}
	/* The rendezvous counts into init_timeout_ms as well. */
	deadline = hc_clock_now(&ctx->clk) +
		   ctx->cfg.init_timeout_ms * HC_NS_PER_MS;
	if (ctx->cfg.host_file)
		rc = host_bootstrap(params, &ctx->cfg, &rank);
	else
		rc = cluster_identity(params, &ctx->cfg, &rank);
	if (rc != 0)
		goto fail;
	hc_ctx_prepare(ctx, (uint32_t)rank, pick_engine_lcore(progress));
	rc = open_dpdk_port(ctx);
	if (rc == 0)
		rc = hc_ctx_bring_up(ctx);
	if (rc == 0)
		rc = meet_peers(ctx, deadline);
	if (rc == 0)
		rc = tune(ctx);
	if (rc == 0 && ctx->engine_lcore != RTE_MAX_LCORE &&
	    rte_eal_remote_launch(engine_main, ctx, ctx->engine_lcore) != 0) {
		HC_LOG(ERR, CORE, "cannot start the engine on lcore %u",
		       ctx->engine_lcore);
		rc = -HC_ERR_INTERNAL;
	}
	if (rc != 0)
		goto fail;
	/* [fault] rules with start_ms count from the end of hc_init (after
	 * the tuner's probes, which need a working network). */
	for (i = 0; i < ctx->nports; i++)
		hc_fault_set_epoch(&ctx->ports[i]->fault,
				   hc_clock_now(&ctx->clk));
	if (ctx->engine_lcore == RTE_MAX_LCORE)
		HC_LOG(INFO, CORE, "rank %u of %u up, progress in callers",
		       ctx->rank, ctx->cfg.world_size);
	else
		HC_LOG(INFO, CORE, "rank %u of %u up, progress on lcore %u",
		       ctx->rank, ctx->cfg.world_size, ctx->engine_lcore);
	*out = ctx;
	return 0;
fail:
	hc_ctx_teardown(ctx);
	return rc;
}

/* Requests not waited for before hc_finalize complete with
 * HC_ERR_ABORTED; hc_wait/hc_test on them then only free them. */
static void
abort_requests(struct hc_ctx *ctx)
{
	struct cds_wfcq_node *node;
	struct hc_request *req;

	for (;;) {
		node = __cds_wfcq_dequeue_blocking(&ctx->qhead, &ctx->qtail);
		if (node == NULL)
			break;
		req = caa_container_of(node, struct hc_request, qnode);
		TAILQ_INSERT_TAIL(&ctx->inflight, req, link);
	}
	while ((req = TAILQ_FIRST(&ctx->inflight)) != NULL) {
		if (req->op.status == 0 && !hc_coll_op_complete(&req->op))
			hc_coll_op_fail(&req->op, -HC_ERR_ABORTED);
		request_done(ctx, req);
	}
}

static void
log_stats(struct hc_ctx *ctx)
{
	struct hc_stats s;

	hc_stats_get(ctx, &s);
	HC_LOG(INFO, CORE, "rank %u: port rx %" PRIu64 " tx %" PRIu64
	       " txdrop %" PRIu64 " faultdrop %" PRIu64 "; net rxdrop %" PRIu64
	       "; hct data tx %" PRIu64 " rx %" PRIu64 " retx %" PRIu64
	       " rto %" PRIu64 " dup %" PRIu64 " acks %" PRIu64 " stray %" PRIu64
	       "; coll unexpected %" PRIu64 " rejected %" PRIu64, ctx->rank,
	       s.port_rx_pkts, s.port_tx_pkts, s.port_tx_drops, s.fault_drops,
	       s.net_rx_drops, s.hct_data_tx, s.hct_data_rx, s.hct_retransmits,
	       s.hct_rtos, s.hct_dup_rx, s.hct_acks_tx, s.hct_stray_rx,
	       ctx->coll.stats.unexpected_held, ctx->hct.stats.rejected_rx);
	HC_LOG(INFO, CORE, "rank %u: net rxdrop malformed %" PRIu64
	       " cksum %" PRIu64 " fragment %" PRIu64 " not-ours %" PRIu64
	       " proto %" PRIu64, ctx->rank,
	       ctx->net.stats.rx_drops[HC_NET_DROP_MALFORMED],
	       ctx->net.stats.rx_drops[HC_NET_DROP_CKSUM],
	       ctx->net.stats.rx_drops[HC_NET_DROP_FRAGMENT],
	       ctx->net.stats.rx_drops[HC_NET_DROP_NOT_OURS],
	       ctx->net.stats.rx_drops[HC_NET_DROP_PROTO]);
	HC_LOG(INFO, CORE, "rank %u: data tx per class control %" PRIu64
	       " critical %" PRIu64 " normal %" PRIu64 " bulk %" PRIu64
	       "; bulk forced %" PRIu64 " tx ring full %" PRIu64
	       " credit limited %" PRIu64, ctx->rank, s.hct_data_tx_class[0],
	       s.hct_data_tx_class[HC_PRIO_CRITICAL],
	       s.hct_data_tx_class[HC_PRIO_NORMAL],
	       s.hct_data_tx_class[HC_PRIO_BULK], s.hct_bulk_forced,
	       s.hct_tx_ring_full, s.hct_credit_limited);
}

int
hc_finalize(struct hc_ctx *ctx)
{
	uint64_t now, deadline, linger;
	int rc = 0;

	if (ctx == NULL)
		return 0;
	if (ctx->engine_lcore != RTE_MAX_LCORE) {
		__atomic_store_n(&ctx->engine_stop, 1, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(ctx->engine_lcore);
	}
	abort_requests(ctx);
	log_stats(ctx);
	if (ctx->sim != NULL) {
		/* Draining needs virtual time, which only the runner moves:
		 * a simulated rank goes at once (stack/sim/simrun.h). */
		hc_ctx_teardown(ctx);
		return 0;
	}
	now = hc_clock_now(&ctx->clk);
	deadline = now + ctx->cfg.drain_timeout_ms * HC_NS_PER_MS;
	while (!hct_drained(&ctx->hct)) {
		if (hc_clock_now(&ctx->clk) > deadline) {
			HC_LOG(WARNING, CORE, "rank %u: data still "
			       "unacknowledged after %u ms", ctx->rank,
			       ctx->cfg.drain_timeout_ms);
			rc = -HC_ERR_TIMEOUT;
			break;
		}
		hc_engine_idle(ctx, hc_engine_poll(ctx));
	}
	/* Linger for a few minimum RTOs, answering peers whose last ACK
	 * from us was lost, so they do not wait out their retry budget. */
	now = hc_clock_now(&ctx->clk);
	linger = now + 3 * ctx->cfg.hct.rto_min_ns;
	while (ctx->cfg.world_size > 1 && hc_clock_now(&ctx->clk) < linger)
		hc_engine_idle(ctx, hc_engine_poll(ctx));
	hc_ctx_teardown(ctx);
	return rc;
}

struct hc_comm *
hc_comm_world(struct hc_ctx *ctx)
{
	return ctx != NULL ? &ctx->world : NULL;
}

int
hc_comm_rank(const struct hc_comm *comm)
{
	return comm != NULL ? (int)comm->rank : -HC_ERR_INVAL;
}

int
hc_comm_size(const struct hc_comm *comm)
{
	return comm != NULL ? (int)comm->size : -HC_ERR_INVAL;
}

int
hc_stats_get(struct hc_ctx *ctx, struct hc_stats *s)
{
	uint32_t i, d;

	if (ctx == NULL || s == NULL)
		return -HC_ERR_INVAL;
	memset(s, 0, sizeof(*s));
	for (i = 0; i < ctx->nports; i++) {
		const struct hc_port_stats *p = &ctx->ports[i]->stats;

		s->port_rx_pkts += p->rx_pkts;
		s->port_tx_pkts += p->tx_pkts;
		s->port_tx_drops += p->tx_drops;
		s->port_tx_partial += p->tx_partial;
		s->fault_drops += p->fault_drops;
	}
	for (d = 0; d < HC_NET_DROP__MAX; d++)
		s->net_rx_drops += ctx->net.stats.rx_drops[d];
	s->arp_requests = ctx->net.stats.arp_requests;
	s->icmp_echo_replies = ctx->net.stats.icmp_echo_replies;
	for (i = 0; i < ctx->cfg.world_size; i++) {
		const struct hct_flow_stats *f = &ctx->hct.flows[i].stats;

		s->hct_data_tx += f->data_tx;
		s->hct_data_rx += f->data_rx;
		s->hct_retransmits += f->retransmits_rto + f->retransmits_sack +
				      f->retransmits_rack +
				      f->retransmits_tlp;
		s->hct_rtos += f->rtos;
		s->hct_dup_rx += f->dup_rx;
		s->hct_acks_tx += f->acks_tx;
		s->hct_credit_limited += f->credit_limited;
		s->hct_data_tx_hdr_crc += f->data_tx_hdr_cov;
		s->hct_data_rx_hdr_crc += f->data_rx_hdr_cov;
		s->hct_data_tx_zc += f->data_tx_zc;
		for (d = 0; d < HCT_CLASS__MAX; d++)
			s->hct_data_tx_class[d] += f->data_tx_cls[d];
	}
	s->hct_stray_rx = ctx->hct.stats.stray_rx;
	s->hct_other_job_rx = ctx->hct.stats.other_job_rx;
	s->hct_stale_rx = ctx->hct.stats.stale_rx;
	s->hct_malformed_rx = ctx->hct.stats.malformed_rx;
	s->hct_misaddr_rx = ctx->hct.stats.misaddr_rx;
	s->net_ip_conflicts = ctx->net.stats.ip_conflicts;
	s->hct_bad_tag_rx = ctx->hct.stats.bad_tag_rx;
	s->hct_auth = ctx->hct.conf.auth;
	s->hct_crc_rx = ctx->hct.stats.crc_rx;
	s->hct_bulk_forced = ctx->hct.sched.bulk_forced;
	s->hct_tx_ring_full = ctx->hct.sched.ring_full;
	s->coll_held = ctx->coll.stats.unexpected_held;
	s->coll_held_refused = ctx->coll.stats.unexpected_refused;
	s->coll_held_max = ctx->coll.stats.unexpected_held_max;
	if (ctx->cpu.read_cyc != 0) {
		s->cpu_tsc_hz = hc_clock_tsc_hz();
		s->cpu_read_cyc = ctx->cpu.read_cyc;
		s->cpu_rx_cyc = ctx->cpu.rx_cyc;
		s->cpu_rx_payload_cyc = ctx->cpu.rx_payload_cyc;
		s->cpu_rx_polls = ctx->cpu.rx_polls;
		s->cpu_tx_cyc = ctx->cpu.tx_cyc;
		s->cpu_tx_payload_cyc = ctx->cpu.tx_payload_cyc;
		s->cpu_tx_polls = ctx->cpu.tx_polls;
		s->cpu_rx_skipped = ctx->cpu.rx_skipped;
		s->cpu_tx_skipped = ctx->cpu.tx_skipped;
		s->cpu_rx_port_cyc = ctx->cpu.rx_port_cyc;
		s->cpu_tx_port_cyc = ctx->cpu.tx_port_cyc;
	}
	return 0;
}

/* The DATA mbufs the transport took from the pool in a bulk and has not
 * used yet (tx.c, at most HCT_TX_BULK - 1). Read from the caller's thread
 * while the engine may change them: a torn pair of indices is clamped, so
 * the count is never above the bulk. */
static uint32_t
unused_bulk(const struct hc_ctx *ctx)
{
	int i = __atomic_load_n(&ctx->hct.txm_i, __ATOMIC_RELAXED);
	int n = __atomic_load_n(&ctx->hct.txm_n, __ATOMIC_RELAXED);

	return n > i ? (uint32_t)RTE_MIN(n - i, HCT_TX_BULK) : 0;
}

int
hc_mbuf_stats_get(struct hc_ctx *ctx, uint32_t timeout_ms,
		  struct hc_mbuf_stats *s)
{
	uint64_t deadline;
	struct timespec ts = { 0, 1000000 };
	uint32_t k;

	if (ctx == NULL || s == NULL)
		return -HC_ERR_INVAL;
	memset(s, 0, sizeof(*s));
	s->in_use_start = ctx->mbufs_start;
	for (k = 0; k < ctx->nports; k++)
		s->pmd_tx_max += ctx->ports[k]->tx_held_max;
	deadline = hc_clock_now(&ctx->clk) + timeout_ms * HC_NS_PER_MS;
	for (;;) {
		s->held = __atomic_load_n(&ctx->coll.unexp_len,
					  __ATOMIC_RELAXED) + unused_bulk(ctx);
		for (k = 0; k < ctx->nports; k++) {
			const struct hc_port *p = ctx->ports[k];

			s->held += __atomic_load_n(&p->txq_segs,
						   __ATOMIC_RELAXED) +
				   __atomic_load_n(&p->rxq_len,
						   __ATOMIC_RELAXED) +
				   __atomic_load_n(&p->fault.nheld_segs[HC_FAULT_TX],
						   __ATOMIC_RELAXED) +
				   __atomic_load_n(&p->fault.nheld_segs[HC_FAULT_RX],
						   __ATOMIC_RELAXED);
		}
		s->in_use = mbufs_in_use(ctx, &s->pool_size);
		if (s->in_use <= s->in_use_start + s->held + s->pmd_tx_max ||
		    hc_clock_now(&ctx->clk) >= deadline)
			break;
		if (ctx->engine_lcore == RTE_MAX_LCORE && ctx->sim == NULL &&
		    rte_spinlock_trylock(&ctx->progress_lock)) {
			hc_engine_idle(ctx, hc_engine_step(ctx));
			rte_spinlock_unlock(&ctx->progress_lock);
		} else {
			nanosleep(&ts, NULL);
		}
	}
	s->quiet = s->in_use <= s->in_use_start + s->held + s->pmd_tx_max;
	return 0;
}

int
hc_fault_stats_get(struct hc_ctx *ctx, struct hc_fault_stats *s)
{
	const uint64_t *c;
	uint64_t *o;
	uint32_t k, i, n = sizeof(*s) / sizeof(uint64_t);

	if (ctx == NULL || s == NULL)
		return -HC_ERR_INVAL;
	/* Every port's injector counts: the rank's total. */
	o = &s->count[0][0][0];
	memset(s, 0, sizeof(*s));
	for (k = 0; k < ctx->nports; k++) {
		c = &ctx->ports[k]->fault.stats.count[0][0][0];
		for (i = 0; i < n; i++)
			o[i] += c[i];
	}
	return 0;
}

int
hc_flow_stats_get(struct hc_ctx *ctx, uint32_t peer_rank,
		  struct hc_flow_stats *s)
{
	const struct hct_flow *f;
	const struct hct_flow_stats *c;

	if (ctx == NULL || s == NULL ||
	    (f = hct_flow(&ctx->hct, peer_rank)) == NULL)
		return -HC_ERR_INVAL;
	c = &f->stats;
	memset(s, 0, sizeof(*s));
	s->data_tx = c->data_tx;
	s->data_rx = c->data_rx;
	s->bytes_tx = c->bytes_tx;
	s->bytes_rx = c->bytes_rx;
	s->acks_tx = c->acks_tx;
	s->retransmits_rto = c->retransmits_rto;
	s->retransmits_sack = c->retransmits_sack;
	s->retransmits_rack = c->retransmits_rack;
	s->retransmits_tlp = c->retransmits_tlp;
	s->rtos = c->rtos;
	s->tlps = c->tlps;
	s->cwnd_decreases = c->cwnd_decreases;
	s->spurious_retx = c->spurious_retx;
	s->ecn_ce_rx = c->ecn_ce_rx;
	s->ecn_echoed = c->ecn_echoed;
	s->ecn_ece_rx = c->ecn_ece_rx;
	s->dup_rx = c->dup_rx;
	s->stray_rx = c->stray_rx;
	s->rejected_rx = c->rejected_rx;
	s->cc = (enum hc_cc_algo)ctx->hct.conf.cc.algo;
	s->cwnd = s->cc == HC_CC_FIXED ? ctx->hct.conf.window_pkts
				       : f->cc.cwnd;
	s->cwnd_fabric = s->cc == HC_CC_FIXED ? s->cwnd : f->cc.fcwnd;
	s->cwnd_endpoint = s->cc == HC_CC_FIXED ? s->cwnd : f->cc.ecwnd;
	s->dctcp_alpha = f->cc.alpha;
	s->srtt_ns = f->srtt_ns;
	s->rttvar_ns = f->rttvar_ns;
	s->min_rtt_ns = f->cc.min_rtt_ns;
	s->rto_ns = f->rto_ns;
	s->inflight = f->snd_nxt - f->snd_una - f->n_sacked;
	s->lost = f->state == HCT_FLOW_LOST;
	s->rtos_spurious = c->rtos_spurious;
	s->rtos_deferred = c->rtos_deferred;
	return 0;
}

_Static_assert((int)HC_CC_FIXED == (int)HCT_CC_FIXED &&
	       (int)HC_CC_SWIFT == (int)HCT_CC_SWIFT &&
	       (int)HC_CC_DCTCP == (int)HCT_CC_DCTCP,
	       "hc_cc_algo mirrors hct_cc_algo");
