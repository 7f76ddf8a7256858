/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Many ranks of the real stack in one process, on the virtual-time
 * network of stack/sim/sim.h. Private to the library and its tests.
 *
 * A rank on the sim is a struct hc_ctx like any other (cluster config,
 * port, net, HCT, collectives, world communicator) with three
 * differences: its port is a sim port on host `rank`; its clock reads the
 * network's one virtual clock; nothing progresses it but the runner (no
 * engine lcore, no waiting, never a sleep). Applications code against the
 * public non-blocking API (hc_iallreduce(hc_comm_world(ctx), ...)) and
 * poll hc_test(); hc_wait() and the blocking collectives return
 * -HC_ERR_INVAL on a simulated rank (logged), since virtual time stands
 * still while they would wait; hc_comm_split() (blocking) is not
 * available either. hc_finalize() frees a simulated rank without draining.
 *
 * The runner's step (hc_simrun_step()): run the network events due now;
 * hc_engine_step() in rank order every rank that may have work (frames in
 * its RX ring, frames its port holds that its NIC now takes, submitted
 * requests, work in its previous step, or a transport timer due:
 * hct_next_timer()), and every rank once per idle quantum of virtual
 * time (a sweep, for the other timers); if no rank did work, move virtual
 * time to the next network event, but no later than the next transport
 * timer or the next sweep. So RTO, RACK, TLP and pacing fire on time,
 * HELLO, keepalive and op timeouts at most one quantum late, also while
 * the network is empty, and a step costs what the ranks touched by the
 * network cost, not all ranks. Frames a rank's port holds because its
 * NIC's egress FIFO is full are not work: only time drains the NIC.
 *
 * Determinism: one seed (hc_simrun_conf.seed) seeds rte_srand() (HCT
 * nonces), every link's loss PRNG and the port fault injectors; everything
 * runs in one thread in a fixed order, so two runs with one seed and one
 * workload take the same virtual time and count the same packets.
 */
#ifndef HC_SIM_SIMRUN_H
#define HC_SIM_SIMRUN_H

#include <stdint.h>

#include "config.h"
#include "sim.h"

struct hc_ctx;
struct hc_request;

/** Default idle quantum: the largest step of virtual time without a
 *  network event, ns (10 us: well below rto_min_us, 2 ms by default). */
#define HC_SIMRUN_IDLE_QUANTUM_NS (10 * HC_NS_PER_US)
/** Per-rank mbuf pool of a run without a config: 4095 mbufs (~9 MB), so
 *  64 ranks fit in EAL -m 2048 together with the sim's pool. */
#define HC_SIMRUN_POOL_MBUFS 4095
/** Steps in a row at one virtual time after which the runner gives up:
 *  some rank claims work forever without time moving (a bug). */
#define HC_SIMRUN_STUCK_STEPS 1000000

/**
 * Create rank `rank` of cfg (copied) on host `rank` of sim: sim port,
 * the network's clock, progress only in hc_engine_step(). Does not wait
 * for peers (the runner steps the HELLO exchange).
 * @return 0, -HC_ERR_INVAL (NULL argument, rank >= world_size or >= the
 *         sim's hosts, host already in use), -HC_ERR_NOMEM, or the
 *         layers' errors.
 */
int hc_sim_ctx_create(const struct hc_config *cfg, uint32_t rank,
		      struct hc_sim *sim, struct hc_ctx **out);

struct hc_simrun_conf {
	struct hc_sim_conf net;     /**< topology; net.hosts = ranks;
	                             *   net.seed is replaced by seed */
	const struct hc_config *cfg; /**< NULL: hc_config_defaults() for
	                              *   net.hosts ranks with pool_mbufs
	                              *   HC_SIMRUN_POOL_MBUFS; else its
	                              *   world_size must be net.hosts */
	uint64_t seed;              /**< seeds everything (see above); also
	                             *   replaces cfg's [fault] seed */
	uint64_t idle_quantum_ns;   /**< 0: HC_SIMRUN_IDLE_QUANTUM_NS */
	int no_tune;                /**< 1: skip the tuner's probes (alpha
	                             *   and beta stay 0, auto picks ring);
	                             *   for runs that use HCT directly */
};

struct hc_simrun {
	struct hc_sim *sim;
	uint32_t ranks;
	struct hc_ctx **ctx;        /**< ctx[r]: rank r */
	uint64_t quantum_ns;
	uint8_t *active;            /**< active[r]: rank r worked last step */
	uint64_t *timer_ns;         /**< timer_ns[r]: rank r's next transport
	                             *   timer (hct_next_timer()), ns */
	uint64_t sweep_ns;          /**< virtual time of the last sweep */
	uint64_t steps;             /**< hc_simrun_step() calls */
	uint64_t stuck;             /**< busy steps in a row at one time */
	uint64_t stuck_at_ns;
};

/**
 * Create the network and every rank, then step until every rank's HELLO
 * exchange with every peer is complete (hct_established), within the
 * config's init_timeout_ms of virtual time; then, unless conf->no_tune,
 * run the tuner's probes of hc_init (hc_probe_start in engine.h: barriers
 * for alpha, timed all-gathers for beta, agreement on the medians) on
 * every rank at once, on the tuner communicator, so that the world's
 * sequence starts at 0 and the all-reduce's auto selection uses alpha and
 * beta measured on this network (hc_comm_tuner_info prints them).
 * @return 0, -HC_ERR_INVAL (conf or out NULL, world_size differs from
 *         net.hosts, bad network), -HC_ERR_NOMEM, -HC_ERR_INIT_TIMEOUT,
 *         a probe collective's error (-HC_ERR_TIMEOUT: the probes
 *         of every rank not done within init_timeout_ms of virtual
 *         time), or a rank's bring-up error.
 */
int hc_simrun_create(const struct hc_simrun_conf *conf,
		     struct hc_simrun **out);

/** Finalize every rank (no drain), free the network; run may be NULL. */
void hc_simrun_destroy(struct hc_simrun *run);

/** One step (see the file comment). @return units of work the ranks did
 *  (0: time moved, or only network events ran). */
uint32_t hc_simrun_step(struct hc_simrun *run);

/**
 * Step until pred(arg) is true (checked before every step) or
 * max_virtual_ns of virtual time have passed.
 * @return 0 when pred held, -HC_ERR_TIMEOUT at the limit, -HC_ERR_INTERNAL
 *         when HC_SIMRUN_STUCK_STEPS steps in a row did work without
 *         time moving (logged), -HC_ERR_INVAL (run or pred NULL).
 */
int hc_simrun_until(struct hc_simrun *run, int (*pred)(void *arg), void *arg,
		    uint64_t max_virtual_ns);

/**
 * Step until every request of req[0..ranks-1] that is not NULL completed
 * (hc_test), or max_virtual_ns of virtual time have passed. A completed
 * request is freed, its slot set to NULL and its result stored in
 * status[r]; done_ns (may be NULL) gets the virtual time of each
 * completion. Slots NULL at the call are left alone.
 * @return 0 when all completed with 0; the first failed rank's error;
 *         or hc_simrun_until's (-HC_ERR_TIMEOUT: the unfinished requests
 *         stay in req); -HC_ERR_INVAL (run, req or status NULL).
 */
int hc_simrun_wait(struct hc_simrun *run, struct hc_request **req,
		   int *status, uint64_t *done_ns, uint64_t max_virtual_ns);

/** Rank r's context (for hc_comm_world(), hc_stats_get()), or NULL. */
struct hc_ctx *hc_simrun_ctx(const struct hc_simrun *run, uint32_t r);

/** Current virtual time, ns. */
uint64_t hc_simrun_now(const struct hc_simrun *run);

#endif /* HC_SIM_SIMRUN_H */
