/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The engine: one instance per process, owning the port, the layers above
 * it and the poll loop. Private to the library.
 *
 * Poll loop, one iteration (engine_poll in engine.c):
 *   RX burst -> stack/net -> HCT -> collectives (DATA placed in buffers)
 *   -> ACKs for what the burst brought -> timers (RTO, HELLO)
 *   -> cut queued messages into packets (the TX scheduler: by class,
 *   within the port's TX ring budget) -> TX flush.
 * An iteration that found nothing to do counts toward the idle backoff.
 */
#ifndef HC_ENGINE_ENGINE_H
#define HC_ENGINE_ENGINE_H

#include <urcu/wfcqueue.h>

#include <rte_spinlock.h>

#include "clock.h"
#include "coll.h"
#include "config.h"
#include "hct.h"
#include "log.h"
#include "net.h"
#include "port.h"

struct hc_probe;
struct hc_sim;

/** Idle backoff state of a thread waiting for a request. */
struct hc_backoff {
	uint32_t polls;
	uint64_t since_ns;
};

/** A collective submitted through the API: allocated by the application
 *  thread, handed to the engine through the wait-free queue, completed by
 *  the engine (state HC_REQ_DONE, stored with release order), freed by
 *  hc_test()/hc_wait() in the application thread. */
enum hc_req_state {
	HC_REQ_QUEUED = 0,
	HC_REQ_DONE = 1,
};

struct hc_request {
	struct cds_wfcq_node qnode;   /**< in ctx's submission queue */
	TAILQ_ENTRY(hc_request) link; /**< engine's in-flight list */
	struct hc_ctx *ctx;
	struct hc_coll_op op;
	uint32_t timeout_ms;          /**< per-op timeout */
	int priority;                 /**< enum hc_priority, never
	                               *   HC_PRIO_DEFAULT */
	int state;                    /**< enum hc_req_state, atomic */
	int status;                   /**< 0 or -HC_ERR_*, valid when DONE */
};
TAILQ_HEAD(hc_request_list, hc_request);

/** Training metrics (metrics.c, hc_metrics_get): what the application
 *  threads (submission, waits) and the engine (completion) add up, under
 *  lock. Times in ns of ctx->clk. */
struct hc_metrics_state {
	rte_spinlock_t lock;
	uint32_t inflight;     /**< requests submitted, not completed */
	uint64_t busy_since;   /**< when inflight went 0 -> 1 */
	uint64_t busy_ns;      /**< closed busy intervals, summed */
	uint64_t wait_ns;      /**< time blocked in hc_wait */
	double bus_bytes;      /**< of completed collectives */
	int in_step;           /**< between step_begin and step_end */
	uint64_t step_t0, step_busy0, step_wait0;
	double step_bus0;
	uint64_t steps;
	struct hc_metrics_interval last, total;
};

struct hc_ctx {
	struct hc_config cfg;
	uint32_t rank;
	struct hc_clock clk;
	struct hc_port port;   /**< port 0 (the sim's only port) */
	/** Every port: ports[0] == &port, the others allocated by
	 *  hc_init ([rank.N] port1..); the net layer routes among them. */
	struct hc_port *ports[HC_RANK_PORTS_MAX];
	uint32_t nports;       /**< ports opened */
	struct hc_port_pools pools; /**< the mbuf pools the ports share
	                             *   (memif and shm: one per kind of
	                             *   frame, so one for a mesh); freed by
	                             *   hc_ctx_teardown after the ports */
	uint64_t mbufs_start;  /**< mbufs in use in the ports' pools when
	                        *   hc_ctx_bring_up began (hc_mbuf_stats_get) */
	struct hc_net net;
	struct hct hct;
	struct hc_coll coll;
	struct hc_comm world;
	struct hc_comm tuner;  /**< world's ranks, id HC_COMM_ID_TUNER: the
	                        *   tuner's probes (probe.c) */
	struct hc_probe *probe; /**< engine: the tuner's probes while
	                         *   hc_probe_start..hc_probe_end, else NULL */
	uint32_t *peer_ip;   /**< world_size addresses, host order */
	struct hc_backoff idle; /**< the engine's own idle backoff */
	/* submission queue: application threads -> engine (liburcu wfcqueue:
	 * wait-free enqueue, one dequeuer) */
	struct __cds_wfcq_head qhead;
	struct cds_wfcq_tail qtail;
	struct hc_request_list inflight; /**< engine: dequeued, not done */
	unsigned int engine_lcore;   /**< RTE_MAX_LCORE: progress in callers */
	struct hc_sim *sim;          /**< non-NULL: a rank on this simulated
	                              *   network, progressed only by the
	                              *   runner (simrun.h); hc_wait refuses */
	int engine_stop;             /**< atomic: 1 asks the engine to stop */
	rte_spinlock_t progress_lock; /**< caller progress: one poller */
	struct hc_metrics_state metrics;
	int port_open;         /**< port 0 is open */
	int net_up;
	int hct_up;
	int coll_up;
	/** The per-packet CPU probe (HC_CPU_STATS=1, base/cpustat.h): TSC
	 *  cycles of the poll sections that did work, and of them the
	 *  payload work; hc_stats_get reports them. */
	struct {
		uint64_t rx_cyc, rx_payload_cyc, rx_polls;
		uint64_t tx_cyc, tx_payload_cyc, tx_polls;
		uint64_t read_cyc; /**< one TSC read, measured at hc_init */
		uint64_t skip_cyc; /**< longer sections are not counted */
		uint64_t rx_skipped, tx_skipped;
		uint64_t rx_port_cyc, tx_port_cyc; /**< in the PMD */
	} cpu;
};

/** Id of the tuner's communicator (a split id is an FNV-1a hash: one in
 *  2^32 could collide). */
#define HC_COMM_ID_TUNER 0xfffffffeu

/** The probes (probe.c): barriers that bring the flows up, then ring
 *  all-gathers, small ones and big ones, timed in runs of back-to-back
 *  ops (the quickest run of each kind counts, per op; hc_tune_fit makes
 *  alpha and beta of the two), and the bytes each rank contributes to
 *  one of them. */
#define HC_TUNE_PROBE_BARRIERS 8
#define HC_TUNE_PROBE_SMALLS 16
#define HC_TUNE_PROBE_SMALL_RUN 8
#define HC_TUNE_PROBE_SMALL_BYTES 8
#define HC_TUNE_PROBE_GATHERS 4
#define HC_TUNE_PROBE_GATHER_RUN 2
#define HC_TUNE_PROBE_BYTES 65536

/**
 * Start the tuner's probes on ctx, once every peer answered: a state
 * machine (barriers, timed small and big all-gathers, the all-gather that
 * agrees on alpha and beta; probe.c) that hc_engine_step steps, one
 * collective at a time on ctx->tuner, until hc_probe_done. Its outcome: the agreed alpha
 * and beta in every communicator of ctx (hc_coll_set_tune), logged at
 * INFO. On one rank it is done at once (no links: every cost 0).
 * Engine thread only (hc_init before the engine lcore starts, the sim's
 * runner).
 * @param scratch NULL, or (world_size + 1) * HC_TUNE_PROBE_BYTES bytes
 *        the probe all-gathers use, which must outlive hc_probe_end;
 *        ranks of one process may share them (only the timing counts).
 * @return 0, -HC_ERR_NOMEM (logged), or -HC_ERR_INVAL (probes running).
 */
int hc_probe_start(struct hc_ctx *ctx, void *scratch);

/** Engine (hc_engine_step): end the probe collective that is over and
 *  submit the next one (timing it, computing alpha or beta, agreeing as
 *  the sequence goes); fail one past its deadline with HC_ERR_TIMEOUT.
 *  @return units of work done (collectives ended or submitted). */
uint32_t hc_probe_step(struct hc_ctx *ctx);

/** Whether ctx's probes are done; then *status is 0 or the -HC_ERR_*
 *  they failed with (logged). No probes: done with -HC_ERR_INVAL. */
int hc_probe_done(const struct hc_ctx *ctx, int *status);

/** Free ctx's probes; a collective still running fails with
 *  HC_ERR_ABORTED. No-op without probes. */
void hc_probe_end(struct hc_ctx *ctx);

/** Fail op, submitted with deadline_ns (its timeout, timeout_ms, from
 *  submission), with HC_ERR_TIMEOUT (logged) when it started, neither
 *  completed nor failed, and now passed the deadline: an op still waiting
 *  for an earlier sequence number (pending) cannot time out alone. */
static inline void
hc_op_check_deadline(const struct hc_ctx *ctx, struct hc_coll_op *op,
		     uint32_t timeout_ms, uint64_t now)
{
	if (!hc_coll_op_complete(op) && op->status == 0 && op->started &&
	    now > op->deadline_ns) {
		HC_LOG(ERR, COLL, "rank %u: collective %u timed out "
		       "after %u ms", ctx->rank, op->seq, timeout_ms);
		hc_coll_op_fail(op, -HC_ERR_TIMEOUT);
	}
}

/** One iteration of the poll loop. @return units of work done. */
uint32_t hc_engine_poll(struct hc_ctx *ctx);

/** Back off after a poll that did `work` units, per [engine] idle. */
void hc_engine_idle(struct hc_ctx *ctx, uint32_t work);

/** Engine: take submitted requests, poll once, finish what completed,
 *  failed or timed out, step the tuner's probes (hc_probe_step). Runs on
 *  the engine lcore, or in a caller holding progress_lock.
 *  @return units of work done. */
uint32_t hc_engine_step(struct hc_ctx *ctx);


/** Metrics (metrics.c): a request is queued (application thread). */
void hc_metrics_submitted(struct hc_ctx *ctx);

/** Metrics: op completed or failed (engine, before hc_coll_op_end). */
void hc_metrics_completed(struct hc_ctx *ctx, const struct hc_coll_op *op);

/** Metrics: an application thread waited ns for a request. */
void hc_metrics_waited(struct hc_ctx *ctx, uint64_t ns);

/** Back off once while waiting (the same tiers as the engine's idle). */
void hc_backoff(struct hc_ctx *ctx, struct hc_backoff *b);

/** Back off once while an engine lcore does the work: a short spin, then
 *  sleep, never yield (the CPU is better left to the engines). */
void hc_wait_backoff(struct hc_ctx *ctx, struct hc_backoff *b);

/* Building a context: hc_init() for a DPDK rank, hc_sim_ctx_create()
 * (simrun.h) for a simulated one. Both: allocate and zero a ctx, fill
 * ctx->cfg and ctx->clk, hc_ctx_prepare(), open ctx->port (port_open = 1),
 * hc_ctx_bring_up(); on failure hc_ctx_teardown(). */

/** Set rank, the submission queue, the in-flight list and the progress
 *  lock; engine_lcore RTE_MAX_LCORE means progress in callers. */
void hc_ctx_prepare(struct hc_ctx *ctx, uint32_t rank,
		    unsigned int engine_lcore);

/** Port configuration of ctx's rank from ctx->cfg; the pool is named
 *  pool_name (which must outlive the port's opening). */
void hc_ctx_port_conf(const struct hc_ctx *ctx, const char *pool_name,
		      struct hc_port_conf *pc);

/** Everything above the opened port: fault injector settings, net, HCT
 *  (nonce from rte_rand()), collectives and the world communicator.
 *  @return 0, -HC_ERR_NOMEM, or the layers' errors. */
int hc_ctx_bring_up(struct hc_ctx *ctx);

/** Free whatever of ctx is up, and ctx itself (no draining). */
void hc_ctx_teardown(struct hc_ctx *ctx);

/** The context a communicator belongs to. */
static inline struct hc_ctx *
hc_comm_ctx(struct hc_comm *comm)
{
	return comm->owner;
}

/** [job] key_file into key (32 bytes): see engine.c. @return 0 or
 *  -HC_ERR_CONFIG (missing, not a regular file, group/other bits in its
 *  mode, under 32 or over 65536 bytes; logged by file name),
 *  -HC_ERR_INTERNAL (libsodium failed to start). */
int hc_key_load(const struct hc_config *cfg, uint8_t key[32]);

#endif /* HC_ENGINE_ENGINE_H */
