/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * hypercomm public API: the one header an application includes.
 *
 * A program is a DPDK application. It calls rte_eal_init() itself (EAL
 * arguments such as --no-huge, --file-prefix, -l), then hc_init() with the
 * cluster file and its rank, then collectives on the world communicator,
 * then hc_finalize().
 *
 * Progress model: the engine's poll loop (RX burst -> net -> transport ->
 * collectives, timers, TX) runs on the first worker lcore of the EAL
 * (EAL option -l 0,1 or --lcores) and application threads hand it
 * requests through a wait-free queue (liburcu wfcqueue). Without a worker
 * lcore (or with HC_PROGRESS_CALLER) the loop runs inside the waiting
 * calls instead. When idle, both back off as configured ([engine] idle),
 * so several ranks can share a core.
 *
 * Units: counts are in elements, sizes in bytes, times in the unit their
 * name says (_us microseconds, _ms milliseconds, _ns nanoseconds).
 *
 * Every function that can fail returns 0 on success or a negative HC_ERR_*
 * value; hc_strerror() gives its text.
 */
#ifndef HYPERCOMM_H
#define HYPERCOMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Error codes. Functions return 0 or the negative of one of these values,
 * e.g. `return -HC_ERR_INVAL;`.
 */
enum hc_error {
	HC_OK = 0,               /**< success */
	HC_ERR_INVAL = 1,        /**< bad argument: NULL pointer where a buffer is
	                          *   needed, unknown dtype or op, partially
	                          *   overlapping send and receive buffers */
	HC_ERR_NOMEM = 2,        /**< memory or mbuf pool exhausted */
	HC_ERR_CONFIG = 3,       /**< the cluster file is unreadable or invalid;
	                          *   the log names file, line and key */
	HC_ERR_PORT = 4,         /**< the DPDK port could not be probed,
	                          *   configured or started */
	HC_ERR_LINK_DOWN = 5,    /**< the port link stayed down past the wait
	                          *   (hc_init); or, wherever
	                          *   HC_ERR_PEER_LOST may be returned, a peer
	                          *   was lost while this rank's own port to
	                          *   it reported its link down (with DPDK
	                          *   22.11 only net_tap reports it:
	                          *   net_af_packet always says up, and
	                          *   shared-memory links are not asked) */
	HC_ERR_INIT_TIMEOUT = 6, /**< not every peer answered within
	                          *   [engine] init_timeout_ms; the log names
	                          *   the missing ranks */
	HC_ERR_TIMEOUT = 7,      /**< a collective did not complete within
	                          *   [engine] op_timeout_ms */
	HC_ERR_PEER_LOST = 8,    /**< a peer stopped acknowledging: the retry
	                          *   budget ([transport] retry_max RTOs) ran
	                          *   out, or the peer timeout passed, and
	                          *   this rank's port to it did not report
	                          *   its link down (else HC_ERR_LINK_DOWN) */
	HC_ERR_MISMATCH = 9,     /**< ranks called the same collective with a
	                          *   different count, dtype or op */
	HC_ERR_ABORTED = 10,     /**< the communicator failed earlier (peer lost,
	                          *   link down, mismatch, timeout); it accepts
	                          *   no new work */
	HC_ERR_UNSUPPORTED = 11, /**< valid request this version cannot serve */
	HC_ERR_INTERNAL = 12,    /**< a bug: an invariant of the stack broke */
	HC_ERR_WORLD_SIZE = 13,  /**< ranks disagree on the world size: a rank
	                          *   of the rendezvous (or hc_init_params,
	                          *   the cluster file, HC_WORLD_SIZE...) says
	                          *   another size, or a rank number is not
	                          *   below it; the log names rank and source */
	HC_ERR_ADDR_IN_USE = 14, /**< a clash at bring-up: the rendezvous port
	                          *   MASTER_ADDR:PORT is held by another
	                          *   program, or two ranks claim the same rank
	                          *   number, IP, MAC, tap or af_packet
	                          *   interface; the log names them */
	HC_ERR__MAX
};

/** Element types; hc_dtype_size() gives their size in bytes. */
enum hc_dtype {
	HC_DTYPE_INT8 = 0,  /**< 1 byte */
	HC_DTYPE_UINT8,     /**< 1 byte */
	HC_DTYPE_INT32,     /**< 4 bytes */
	HC_DTYPE_UINT32,    /**< 4 bytes */
	HC_DTYPE_INT64,     /**< 8 bytes */
	HC_DTYPE_UINT64,    /**< 8 bytes */
	HC_DTYPE_FLOAT16,   /**< 2 bytes, IEEE 754 binary16 */
	HC_DTYPE_BFLOAT16,  /**< 2 bytes, bfloat16 (upper half of binary32) */
	HC_DTYPE_FLOAT32,   /**< 4 bytes */
	HC_DTYPE_FLOAT64,   /**< 8 bytes */
	HC_DTYPE__MAX
};

/**
 * Reduction operators, and the contracts every rank relies on:
 * - results are bit-identical on every rank: each element is reduced on
 *   exactly one rank and then copied to the others;
 * - FLOAT16 and BFLOAT16 accumulate in float32 and are rounded to 16 bits
 *   once, after the last addend (round to nearest, ties to even);
 * - integer SUM and PROD wrap modulo 2^bits (two's complement), as NCCL;
 * - AVG is SUM divided by the rank count: for floats in the accumulation
 *   type, for INT8/INT32/UINT8/UINT32 the 64-bit sum divided and truncated
 *   toward zero, for INT64/UINT64 the (wrapping) 64-bit sum likewise;
 * - float MIN and MAX propagate NaN: a NaN on any rank gives NaN there.
 */
enum hc_op {
	HC_OP_SUM = 0,
	HC_OP_PROD,
	HC_OP_MIN,
	HC_OP_MAX,
	HC_OP_AVG,
	HC_OP__MAX
};

/** A running hypercomm instance: one per process (one rank). */
struct hc_ctx;

/** A set of ranks that run collectives together. */
struct hc_comm;

/** Where the engine's poll loop runs. */
enum hc_progress {
	/** On the first worker lcore of the EAL (e.g. --lcores 0,1) when
	 *  there is one, else as HC_PROGRESS_CALLER. The environment
	 *  variable HC_PROGRESS=caller forces caller progress; "auto" or
	 *  empty leaves hc_init_params.progress; any other value is
	 *  -HC_ERR_INVAL from hc_init(). */
	HC_PROGRESS_AUTO = 0,
	/** Inside hc_wait()/hc_test()/blocking calls of the application's
	 *  threads (one at a time). Between calls nothing moves, so peers
	 *  cannot tell this rank computing from this rank dead: liveness
	 *  timeouts ([transport] peer_timeout_ms) do not apply to it. */
	HC_PROGRESS_CALLER = 1,
};

/** Parameters of hc_init(). */
struct hc_init_params {
	/** Path of the INI file: a cluster file ([rank.N] for every rank) or
	 *  a host file ([local.N] for this host's ranks only, the others
	 *  found through the rendezvous; format: config/example.ini,
	 *  config/host-example.ini). NULL: the environment variable
	 *  HC_CONFIG. */
	const char *config_path;
	/** This process's rank, 0..world_size-1. Negative: from the
	 *  environment, the first set of HC_RANK, RANK (torchrun),
	 *  SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK (README
	 *  "Launchers"). */
	int rank;
	/** World size; negative: -HC_ERR_INVAL. 0: a cluster file's [job]
	 *  world_size; for a host file its [job] world_size if given, else
	 *  the first set of HC_WORLD_SIZE, WORLD_SIZE, SLURM_NTASKS,
	 *  OMPI_COMM_WORLD_SIZE, PMI_SIZE. A cluster file and a non-zero
	 *  value or that variable that differ: HC_ERR_WORLD_SIZE. The local rank (which [local.N]
	 *  of a host file is this rank's) is the first set of HC_LOCAL_RANK,
	 *  LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK,
	 *  MPI_LOCALRANKID. */
	int world_size;
	/** enum hc_progress; 0 (AUTO) when left out; another value:
	 *  -HC_ERR_INVAL. */
	int progress;
};

/** Priority class of a collective's traffic (struct hc_op_opts
 *  priority). The transport sends DATA strictly by class (critical before
 *  normal before bulk), except that bulk gets at least [transport]
 *  bulk_min_share_pct of the bytes while it has data; the class also
 *  travels as the IPv4 DSCP (critical EF, normal CS0, bulk CS1, RFC 4594)
 *  for switches. A class above critical is reserved for the stack's own
 *  control traffic. Any value not listed here is -HC_ERR_INVAL. */
enum hc_priority {
	HC_PRIO_DEFAULT = 0,  /**< HC_PRIO_NORMAL; what a zeroed struct
	                       *   hc_op_opts asks for */
	HC_PRIO_CRITICAL = 1, /**< latency-critical, e.g. small all-reduces
	                       *   on the critical path */
	HC_PRIO_NORMAL = 2,   /**< the default */
	HC_PRIO_BULK = 3,     /**< throughput, e.g. bulk gradient traffic */
};

/** Per-operation options; NULL means all defaults. */
struct hc_op_opts {
	enum hc_priority priority; /**< class of the collective's traffic;
	                            *   0 (HC_PRIO_DEFAULT): normal */
	uint32_t timeout_ms;       /**< fail with HC_ERR_TIMEOUT after this
	                            *   many ms from submission; 0: the
	                            *   file's [engine] op_timeout_ms */
};

/** A collective in flight, from hc_i*() until hc_test() reports it done
 *  or hc_wait() returns; then it is freed. */
struct hc_request;

/**
 * Start this rank: load and check the cluster file, bring up the DPDK port
 * named by `[rank.R] port`, resolve every peer (ARP) and wait until every
 * peer has answered a HELLO (hc_init returns within [engine]
 * init_timeout_ms of its start, plus scheduling slack).
 *
 * With a host file, the ranks first meet in a rendezvous over TCP (the
 * control plane only, as NCCL's bootstrap): rank 0 listens on
 * HC_MASTER_ADDR:HC_MASTER_PORT (defaults: MASTER_ADDR or 127.0.0.1;
 * MASTER_PORT + 1, since torchrun's own store holds MASTER_PORT, or
 * 29501), every other rank connects and sends its rank, world size, local
 * rank, IP, MAC and port kind; rank 0 checks them and sends every rank
 * the same verdict: the table of all ranks and the job nonce ([job] id),
 * or the error, so that each rank started returns the same code.
 *
 * rte_eal_init() must have succeeded before.
 *
 * @param params  see struct hc_init_params; NULL means all defaults.
 * @param[out] ctx  the new instance on success, NULL on failure.
 * @return 0, -HC_ERR_INVAL (ctx NULL, rank out of range or unknown, a
 *         malformed HC_RANK/RANK/... variable, a negative world_size, a
 *         progress or HC_PROGRESS not listed at enum hc_progress),
 *         -HC_ERR_CONFIG (the file;
 *         also: a peer's HELLO told another [net] mtu, logged with both
 *         MTUs and the peer's rank), -HC_ERR_NOMEM, -HC_ERR_PORT,
 *         -HC_ERR_LINK_DOWN, -HC_ERR_INIT_TIMEOUT (a peer did not answer,
 *         or a rank did not reach the rendezvous, within init_timeout_ms;
 *         the log names the ranks that never answered: a world size
 *         larger than the ranks started), -HC_ERR_WORLD_SIZE (ranks or
 *         sources disagree on the world size: in the rendezvous, or, while
 *         meeting the peers (C36), a peer's HELLO carries another
 *         world_size), -HC_ERR_ADDR_IN_USE (the rendezvous port is another
 *         program's; two ranks claim one rank number, IP or MAC: in the
 *         rendezvous, or while meeting the peers (C36) a second nonce for
 *         one rank or an ARP announcement of our own IP; two ranks
 *         given one tap (C32: another process's queues on this rank's
 *         net_tap); an mbuf pool name in use by another port of this
 *         DPDK instance; the log names it); once the peers have met, the
 *         tuner's probe collectives (a barrier and timed all-gathers,
 *         logged "tuner probes failed") may fail with the collectives'
 *         errors: -HC_ERR_TIMEOUT, -HC_ERR_PEER_LOST, -HC_ERR_ABORTED;
 *         -HC_ERR_INTERNAL (the engine's lcore would not launch, or
 *         libsodium failed to hash [job] key_file).
 */
int hc_init(const struct hc_init_params *params, struct hc_ctx **ctx);

/**
 * Stop this rank: wait (at most [engine] drain_timeout_ms) until every
 * packet this rank sent is acknowledged, so peers are not left waiting for
 * retransmissions, then stop the port and free everything.
 *
 * When it returns, ctx and everything it owns (its communicators, the
 * world's included, requests, bucketers) are freed: passing any of them
 * to a later call, a second hc_finalize(ctx) included, is undefined, as
 * MPI's handles are after MPI_Finalize; the library cannot tell a freed
 * handle from a live one.
 *
 * @return 0, or -HC_ERR_TIMEOUT if some data stayed unacknowledged (the
 *         instance is freed all the same). ctx NULL: 0.
 */
int hc_finalize(struct hc_ctx *ctx);

/** The communicator of all ranks of the job; owned by ctx. */
struct hc_comm *hc_comm_world(struct hc_ctx *ctx);

/** Color of hc_comm_split for ranks that join no new communicator. */
#define HC_COMM_SPLIT_NONE (-1)

/**
 * Split comm, as MPI_Comm_split: ranks that pass the same color form a
 * new communicator, ranked by key (ties: by rank in comm). Collective over
 * comm (an all-gather of the colors and keys). Communicators live until
 * hc_finalize. Collectives on different communicators are independent:
 * each has its own sequence numbers, so two threads may each drive their
 * own communicator at the same time.
 *
 * @param color  >= 0, or HC_COMM_SPLIT_NONE (then *newcomm is NULL).
 * @param[out] newcomm  the new communicator, NULL on error or for NONE.
 * @return 0, -HC_ERR_INVAL (NULL comm or newcomm, negative color other
 *         than NONE), -HC_ERR_NOMEM, or the all-gather's error.
 */
int hc_comm_split(struct hc_comm *comm, int color, int key,
		  struct hc_comm **newcomm);

/** This rank's index in comm, 0..size-1, or -HC_ERR_INVAL if comm is NULL. */
int hc_comm_rank(const struct hc_comm *comm);

/** Number of ranks in comm, or -HC_ERR_INVAL if comm is NULL. */
int hc_comm_size(const struct hc_comm *comm);

/**
 * The all-reduce algorithm choice of comm as one line of text (no
 * newline), e.g. "alpha 48.2 us, beta 0.913 ns/B, algo auto: tree
 * 1..2047 B, ring 2048.. B; equal cost at ring/tree 2048 B" (alpha:
 * per-step latency in µs, beta: time per byte in ns, as agreed by every
 * rank at hc_init; then the algorithm the tuner picks for each range of
 * all-reduce sizes in bytes, and the sizes where the model's costs of two
 * algorithms cross; or the algorithm forced by [coll] algo / HC_ALGO).
 * The choice among ring, tree (double binary tree), hd
 * (halving-doubling) and hier (two-level by the [rank.N] group key) is
 * the same on every rank. buf may be NULL when len is 0, to learn the
 * length (as snprintf).
 * @return the length of the full text (as snprintf; buf holds at most
 *         len - 1 characters of it), or -HC_ERR_INVAL for a NULL comm or
 *         a NULL buf with len > 0.
 */
int hc_comm_tuner_info(const struct hc_comm *comm, char *buf, size_t len);

/** Size in bytes of one element of dtype, 0 for an unknown dtype. */
size_t hc_dtype_size(enum hc_dtype dtype);

/** Name of a dtype as nccl-tests prints it ("int8", "uint8", "int32",
 *  "uint32", "int64", "uint64", "half", "bfloat16", "float", "double"). */
const char *hc_dtype_name(enum hc_dtype dtype);

/** Name of an op as nccl-tests prints it ("sum", "prod", "min", "max",
 *  "avg"). */
const char *hc_op_name(enum hc_op op);

/** float32 -> IEEE binary16 bits, round to nearest even (inf on
 *  overflow, NaN kept). */
uint16_t hc_float_to_half(float f);
/** IEEE binary16 bits -> float32, exact. */
float hc_half_to_float(uint16_t h);
/** float32 -> bfloat16 bits, round to nearest even (NaN kept). */
uint16_t hc_float_to_bfloat16(float f);
/** bfloat16 bits -> float32, exact. */
float hc_bfloat16_to_float(uint16_t h);

/**
 * All-reduce (blocking: hc_iallreduce() then hc_wait()): every rank's recvbuf[i] = sendbuf_0[i] OP ... OP
 * sendbuf_{n-1}[i] for i in 0..count-1. Blocking: returns when recvbuf
 * holds the result and sendbuf may be reused.
 *
 * In place when sendbuf == recvbuf. Any other overlap of the two
 * count * hc_dtype_size(dtype) byte ranges is -HC_ERR_INVAL, detected before
 * any traffic. count 0 is a successful no-op on every rank (buffers may
 * be NULL) that still consumes one collective sequence number, so later
 * collectives keep matching.
 *
 * Algorithm: ring (reduce-scatter then all-gather over n chunks, each split
 * into pipelined slices), Patarasuk and Yuan, "Bandwidth optimal all-reduce
 * algorithms for clusters of workstations", JPDC 69(2), 2009.
 *
 * @param count  elements per rank (64-bit: buffers above 2^31 are fine).
 * @return 0, -HC_ERR_INVAL, -HC_ERR_NOMEM, -HC_ERR_TIMEOUT,
 *         -HC_ERR_PEER_LOST, -HC_ERR_LINK_DOWN (a peer lost while this
 *         rank's link to it was down), -HC_ERR_MISMATCH (a peer's DATA carried
 *         another signature for this collective), -HC_ERR_ABORTED,
 *         -HC_ERR_INTERNAL (the engine found the request inconsistent,
 *         e.g. its memory overwritten after submission; the
 *         communicator fails and its peers get HC_ERR_INTERNAL too),
 *         -HC_ERR_UNSUPPORTED (an algorithm forced by [coll] algo or
 *         HC_ALGO that cannot run on comm, e.g. hier over groups of
 *         unequal size; refused before any traffic and announced when
 *         comm was created, C02).
 */
int hc_allreduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		 uint64_t count, enum hc_dtype dtype, enum hc_op op);

/**
 * Non-blocking all-reduce: same arguments and contract as hc_allreduce();
 * returns once the request is queued to the engine. Buffers belong to the
 * collective until the request completes. Requests on one communicator
 * complete in any order but match across ranks in the order they were
 * submitted (their sequence numbers), as in MPI; calls from several
 * threads on one communicator must be ordered by the application.
 *
 * @param opts  NULL: [engine] op_timeout_ms, HC_PRIO_NORMAL.
 * @param[out] req  the request, NULL on error.
 * @return 0, -HC_ERR_INVAL (arguments, as hc_allreduce, or a priority
 *         outside enum hc_priority; nothing queued), -HC_ERR_NOMEM.
 */
int hc_iallreduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		  uint64_t count, enum hc_dtype dtype, enum hc_op op,
		  const struct hc_op_opts *opts, struct hc_request **req);

/**
 * Whether req completed. When *done is 1 the request is freed and the
 * return value is its result; when 0, req stays valid and 0 is returned.
 * With caller progress this also runs the engine once (not on a rank of
 * the simulated network, which only its runner progresses).
 * @return 0, -HC_ERR_INVAL (req or done NULL), or the collective's error
 *         (as hc_allreduce).
 */
int hc_test(struct hc_request *req, int *done);

/**
 * Wait until req completes, free it, return its result (as
 * hc_allreduce). Waits with the idle backoff of [engine] idle.
 * On a rank of the simulated network (virtual time moves only between
 * the runner's steps) it returns -HC_ERR_INVAL at once, logged, and req
 * stays valid for hc_test(); so do the blocking collectives, before
 * submitting anything.
 * @return 0, -HC_ERR_INVAL (req NULL; simulated rank), or the
 *         collective's error.
 */
int hc_wait(struct hc_request *req);

/**
 * hc_wait() on n requests; every one is waited for and freed, and reqs[i]
 * set to NULL. statuses (may be NULL) receives each result.
 * @return 0, -HC_ERR_INVAL (reqs NULL with n > 0; nothing waited for),
 *         or the first error in array order (a NULL reqs[i]:
 *         -HC_ERR_INVAL, as hc_wait).
 */
int hc_wait_all(struct hc_request **reqs, size_t n, int *statuses);

/**
 * Reduce-scatter: rank r's recvbuf[i] = OP over ranks q of
 * sendbuf_q[r * recvcount + i], i in 0..recvcount-1. sendbuf holds
 * n * recvcount elements and is never written; in place when recvbuf ==
 * sendbuf + r * recvcount elements; any other overlap is -HC_ERR_INVAL.
 * Contracts as hc_allreduce (accumulation, AVG, bit-identical results).
 * Algorithm: the reduce-scatter half of the ring; busbw factor (n-1)/n.
 * @return as hc_allreduce.
 */
int hc_reduce_scatter(struct hc_comm *comm, const void *sendbuf,
		      void *recvbuf, uint64_t recvcount, enum hc_dtype dtype,
		      enum hc_op op);

/** Non-blocking hc_reduce_scatter; see hc_iallreduce for opts and req. */
int hc_ireduce_scatter(struct hc_comm *comm, const void *sendbuf,
		       void *recvbuf, uint64_t recvcount, enum hc_dtype dtype,
		       enum hc_op op, const struct hc_op_opts *opts,
		       struct hc_request **req);

/**
 * All-gather: every rank's recvbuf[q * sendcount + i] = sendbuf_q[i].
 * recvbuf holds n * sendcount elements; in place when sendbuf == recvbuf +
 * r * sendcount elements; any other overlap is -HC_ERR_INVAL.
 * Algorithm: the all-gather half of the ring; busbw factor (n-1)/n.
 * @return as hc_allreduce (no MISMATCH on op: there is none).
 */
int hc_allgather(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		 uint64_t sendcount, enum hc_dtype dtype);

/** Non-blocking hc_allgather; see hc_iallreduce for opts and req. */
int hc_iallgather(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		  uint64_t sendcount, enum hc_dtype dtype,
		  const struct hc_op_opts *opts, struct hc_request **req);

/**
 * Reduce-scatter with per-rank counts, as MPI_Reduce_scatter: rank r's
 * recvbuf[i] = OP over ranks q of sendbuf_q[off_r + i], i in
 * 0..recvcounts[r]-1, where off_r = recvcounts[0] + ... +
 * recvcounts[r-1] (elements). sendbuf holds the sum of all recvcounts
 * elements and is never written. Counts may be 0 (buffers then may be
 * NULL where they hold nothing: sendbuf when every count is 0, recvbuf
 * when recvcounts[r] is 0).
 *
 * In place when recvbuf == sendbuf + off_r elements (the block of this
 * rank, as hc_reduce_scatter; MPI_IN_PLACE's role); any other overlap of
 * the two ranges is -HC_ERR_INVAL before any traffic. recvcounts (n
 * entries, must be the same on every rank) is copied before the call
 * returns. The signature covers every count, so ranks that disagree on
 * any one get -HC_ERR_MISMATCH. All counts 0: the count-0 path of
 * hc_allreduce. Contracts as hc_allreduce (accumulation, AVG divides by
 * n, bit-identical results). Algorithm: the reduce-scatter half of the
 * ring over blocks of the given sizes; busbw factor (n-1)/n of the total
 * bytes (nccl-tests' reduce_scatter).
 * @return as hc_allreduce; -HC_ERR_INVAL also for recvcounts NULL or a
 *         sum of counts that overflows 64-bit byte offsets.
 */
int hc_reduce_scatterv(struct hc_comm *comm, const void *sendbuf,
		       void *recvbuf, const uint64_t *recvcounts,
		       enum hc_dtype dtype, enum hc_op op);

/** Non-blocking hc_reduce_scatterv; see hc_iallreduce for opts and req. */
int hc_ireduce_scatterv(struct hc_comm *comm, const void *sendbuf,
			void *recvbuf, const uint64_t *recvcounts,
			enum hc_dtype dtype, enum hc_op op,
			const struct hc_op_opts *opts,
			struct hc_request **req);

/**
 * All-gather with per-rank counts, as MPI_Allgatherv: every rank's
 * recvbuf[displs[q] + i] = sendbuf_q[i], i in 0..recvcounts[q]-1, for
 * every rank q. sendbuf holds recvcounts[r] elements (MPI's sendcount is
 * not a separate argument: it is recvcounts[r]). displs (elements, n
 * entries) may differ between ranks (it is this rank's layout); NULL
 * means packed: displs[q] = recvcounts[0] + ... + recvcounts[q-1].
 * Counts may be 0 (buffers then may be NULL where they hold nothing).
 *
 * In place when sendbuf == recvbuf + displs[r] elements (MPI_IN_PLACE's
 * role). Receive blocks that overlap each other, or a sendbuf that
 * overlaps a receive block without being block r, are -HC_ERR_INVAL
 * before any traffic. recvcounts and displs are copied before the call
 * returns. The signature covers every count (not displs), so ranks that
 * disagree on any count get -HC_ERR_MISMATCH. Algorithm: the all-gather
 * half of the ring over blocks of the given sizes; busbw factor (n-1)/n
 * of the total bytes (nccl-tests' all_gather).
 * @return as hc_allgather; -HC_ERR_INVAL also for recvcounts NULL or
 *         sizes that overflow 64-bit byte offsets.
 */
int hc_allgatherv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		  const uint64_t *recvcounts, const uint64_t *displs,
		  enum hc_dtype dtype);

/** Non-blocking hc_allgatherv; see hc_iallreduce for opts and req. */
int hc_iallgatherv(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		   const uint64_t *recvcounts, const uint64_t *displs,
		   enum hc_dtype dtype, const struct hc_op_opts *opts,
		   struct hc_request **req);

/**
 * Broadcast: every rank's recvbuf[i] = the root's sendbuf[i], i in
 * 0..count-1. sendbuf is read at the root only (may be NULL elsewhere);
 * in place when sendbuf == recvbuf. Algorithm: pipelined chain from the
 * root (stack/coll/chain.c); busbw factor 1 (nccl-tests). Every rank also
 * sends its signature to every rank (n - 1 small packets) and completes
 * only when all arrived, so a mismatch or an absent rank fails all.
 * @return as hc_allreduce; -HC_ERR_INVAL also for root outside 0..n-1.
 */
int hc_broadcast(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		 uint64_t count, enum hc_dtype dtype, int root);

/** Non-blocking hc_broadcast; opts, req and errors as hc_iallreduce
 *  (-HC_ERR_INVAL also for root outside 0..n-1). */
int hc_ibroadcast(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
		  uint64_t count, enum hc_dtype dtype, int root,
		  const struct hc_op_opts *opts, struct hc_request **req);

/**
 * Reduce: the root's recvbuf[i] = OP over ranks of sendbuf[i]. recvbuf is
 * written at the root only (may be NULL elsewhere); in place when sendbuf
 * == recvbuf. Contracts as hc_allreduce. Algorithm: pipelined chain toward
 * the root; busbw factor 1 (nccl-tests). Signatures as hc_broadcast: every
 * rank completes only when every rank's signature arrived.
 * @return as hc_allreduce; -HC_ERR_INVAL also for root outside 0..n-1.
 */
int hc_reduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	      uint64_t count, enum hc_dtype dtype, enum hc_op op, int root);

/** Non-blocking hc_reduce; opts, req and errors as hc_iallreduce
 *  (-HC_ERR_INVAL also for root outside 0..n-1). */
int hc_ireduce(struct hc_comm *comm, const void *sendbuf, void *recvbuf,
	       uint64_t count, enum hc_dtype dtype, enum hc_op op, int root,
	       const struct hc_op_opts *opts, struct hc_request **req);

/**
 * Barrier: returns on each rank once every rank of comm has entered it.
 * Every rank sends its signature to every other (n - 1 small packets
 * each) and waits for all n - 1: the same path as a count-0 collective.
 * @return 0, -HC_ERR_INVAL (comm NULL; a rank of the simulated network,
 *         as hc_wait), -HC_ERR_NOMEM, -HC_ERR_TIMEOUT, -HC_ERR_PEER_LOST,
 *         -HC_ERR_LINK_DOWN, -HC_ERR_MISMATCH (a rank called another
 *         collective at this point), -HC_ERR_ABORTED.
 */
int hc_barrier(struct hc_comm *comm);

/** Non-blocking hc_barrier; opts, req and errors as hc_iallreduce. */
int hc_ibarrier(struct hc_comm *comm, const struct hc_op_opts *opts,
		struct hc_request **req);

/**
 * Point-to-point send of count elements of dtype at buf to comm rank
 * peer, matched as NCCL's ncclSend/ncclRecv: no tags; the k-th send from
 * rank a to rank b on comm matches the k-th receive b posts from a
 * (sends and receives of one pair, one direction, must be issued in one
 * order by the application; other pairs and collectives are independent
 * of them). Blocking: returns when buf may be reused (its bytes are in
 * the transport, which delivers them reliably), not when the receive
 * completed; a disagreement in size or dtype is reported at the receiver
 * only. As MPI_Send, a send may wait for the matching receive: the peer
 * holds at most [coll] unexpected_max packets of receives not posted
 * yet, so two ranks that both block in a large hc_send to each other
 * before receiving deadlock (until the timeout); post the receive first
 * (hc_irecv) or order the calls. count 0 sends an empty message that a count-0 receive matches.
 * A send or receive that fails does not fail the communicator; a
 * communicator that failed (a collective failed, a peer was lost) ends
 * its sends and receives in flight with -HC_ERR_ABORTED (-HC_ERR_PEER_LOST
 * or -HC_ERR_LINK_DOWN for the lost peer's) and refuses new ones with
 * -HC_ERR_ABORTED.
 *
 * @return 0, -HC_ERR_INVAL (NULL comm, unknown dtype, peer outside
 *         0..n-1, NULL buf with count > 0), -HC_ERR_UNSUPPORTED (peer is
 *         this rank), -HC_ERR_NOMEM, -HC_ERR_TIMEOUT, -HC_ERR_PEER_LOST,
 *         -HC_ERR_LINK_DOWN, -HC_ERR_ABORTED.
 */
int hc_send(struct hc_comm *comm, const void *buf, uint64_t count,
	    enum hc_dtype dtype, int peer);

/**
 * Point-to-point receive of count elements of dtype into buf from comm
 * rank peer; matching as hc_send. Returns when every byte arrived. The
 * matching send must have the same dtype and count: otherwise
 * -HC_ERR_MISMATCH here (never a truncation; buf may then hold part of
 * the data).
 * @return as hc_send, and -HC_ERR_MISMATCH.
 */
int hc_recv(struct hc_comm *comm, void *buf, uint64_t count,
	    enum hc_dtype dtype, int peer);

/** Non-blocking hc_send; see hc_iallreduce for opts and req. buf belongs
 *  to the send until the request completes. */
int hc_isend(struct hc_comm *comm, const void *buf, uint64_t count,
	     enum hc_dtype dtype, int peer, const struct hc_op_opts *opts,
	     struct hc_request **req);

/** Non-blocking hc_recv; see hc_iallreduce for opts and req. */
int hc_irecv(struct hc_comm *comm, void *buf, uint64_t count,
	     enum hc_dtype dtype, int peer, const struct hc_op_opts *opts,
	     struct hc_request **req);

/**
 * Text of an error code; accepts err and -err. Never NULL.
 */
const char *hc_strerror(int err);

/** Counters of one rank, all since hc_init(). Cheap; always on. */
struct hc_stats {
	uint64_t port_rx_pkts;      /**< frames received from the PMD */
	uint64_t port_tx_pkts;      /**< frames the PMD accepted */
	uint64_t port_tx_drops;     /**< frames dropped: TX queue full */
	uint64_t fault_drops;       /**< frames the fault injector discarded
	                             *   (drop and drop_last_once, both
	                             *   directions; see hc_fault_stats_get) */
	uint64_t net_rx_drops;      /**< frames dropped by Ethernet/IPv4/UDP:
	                             *   malformed, fragment, bad checksum,
	                             *   not for us (ARP requests for other
	                             *   stations and announcements, sender
	                             *   IP = target IP, are read for the
	                             *   cache, not counted) */
	uint64_t arp_requests;      /**< ARP requests sent */
	uint64_t icmp_echo_replies; /**< ping replies sent */
	uint64_t hct_data_tx;       /**< HCT DATA packets sent, first copies */
	uint64_t hct_data_rx;       /**< HCT DATA packets accepted (not dups) */
	uint64_t hct_retransmits;   /**< DATA packets sent again (RTO, SACK,
	                             *   RACK or tail-loss probe) */
	uint64_t hct_rtos;          /**< retransmission timeouts */
	uint64_t hct_dup_rx;        /**< duplicate DATA packets discarded */
	uint64_t hct_acks_tx;       /**< pure ACK packets sent */
	uint64_t hct_stray_rx;      /**< HCT packets of another job, run or
	                             *   rank, or malformed: dropped */
	uint64_t hct_crc_rx;        /**< HCT packets dropped for a wrong CRC32C
	                             *   (corruption the UDP checksum missed) */
	uint64_t hct_data_tx_class[4]; /**< DATA packets, first copies, per
	                                *   class: [0] the stack's control
	                                *   messages, then indexed by
	                                *   HC_PRIO_CRITICAL, _NORMAL, _BULK */
	uint64_t hct_bulk_forced;   /**< bulk packets sent ahead of a higher
	                             *   class by bulk_min_share_pct */
	uint64_t hct_tx_ring_full;  /**< times DATA waited because the port
	                             *   held tx_ring_max_bytes */
	uint64_t hct_credit_limited; /**< times a peer's receiver credit (not
	                              *   the window) stopped our DATA */
	/* hct_stray_rx by cause (each also counts in hct_stray_rx; the
	 * rest of it: beyond the window, acknowledging what was never
	 * sent, a lost flow's). */
	uint64_t hct_other_job_rx;  /**< well-formed HCT packets of another
	                             *   [job] id (C38: jobs sharing a
	                             *   segment) */
	uint64_t hct_stale_rx;      /**< this job's, with a nonce of no
	                             *   incarnation this rank knows: an
	                             *   earlier run of the job replayed, a
	                             *   restarted peer's old packets, or a
	                             *   second process with a peer's rank id
	                             *   while meeting */
	uint64_t hct_malformed_rx;  /**< on the HCT UDP port but no valid
	                             *   header: short, other version, unknown
	                             *   type, length disagreeing with the
	                             *   datagram (garbage) */
	uint64_t hct_misaddr_rx;    /**< this job's, addressed to another
	                             *   rank, from a rank outside the world,
	                             *   or from an IP not the source rank's */
	uint64_t net_ip_conflicts;  /**< ARP packets from another station
	                             *   with this rank's IP as sender (a
	                             *   second process with this rank id;
	                             *   hc_init then fails, HC_ERR_CONFIG) */
	uint64_t hct_bad_tag_rx;    /**< authenticated mode ([job] key_file):
	                             *   HCT packets dropped for a missing or
	                             *   wrong keyed tag (forged, another key,
	                             *   or a job without the mode); also in
	                             *   hct_stray_rx */
	uint64_t hct_auth;          /**< 1 when the authenticated mode is on
	                             *   (every HCT packet tagged and checked),
	                             *   else 0 */
	/* The per-packet CPU probe: all cpu_* fields are 0 unless the
	 * environment had HC_CPU_STATS=1 at hc_init() (a TSC read costs
	 * about 10 ns on a VM, several per packet when on). Cycle counts are
	 * TSC cycles (cpu_tsc_hz per second) of the engine's poll, counted
	 * per section and only for polls where that section did work and
	 * took at most 1 ms (longer: descheduled, see cpu_*_skipped): RX
	 * (port receive, net, transport and collective input, ACKs
	 * included) and TX (ACKs owed, timers, the TX scheduler cutting
	 * DATA, port flush). The *_payload_cyc fields are the parts of
	 * those spent on payload bytes: TX the copy into the mbuf with its
	 * CRC32C, RX the CRC32C check and the reduce or copy into the
	 * destination. Stack CPU per DATA packet sent = (cpu_tx_cyc -
	 * cpu_tx_payload_cyc) / (hct_data_tx + hct_retransmits); received
	 * = (cpu_rx_cyc - cpu_rx_payload_cyc) / hct_data_rx, both in TSC
	 * cycles (x 1e9 / cpu_tsc_hz: ns). */
	uint64_t cpu_tsc_hz;        /**< TSC rate, Hz (measured, hc_clock_tsc_hz) */
	uint64_t cpu_read_cyc;      /**< cost of one TSC read, TSC cycles,
	                             *   measured at hc_init (min of 32 runs
	                             *   of 64 reads); 0: probe off */
	uint64_t cpu_rx_cyc;        /**< TSC cycles in RX sections with work */
	uint64_t cpu_rx_payload_cyc; /**< of them, payload work (TSC cycles) */
	uint64_t cpu_rx_polls;      /**< polls whose RX section had packets */
	uint64_t cpu_tx_cyc;        /**< TSC cycles in TX sections with work */
	uint64_t cpu_tx_payload_cyc; /**< of them, payload work (TSC cycles) */
	uint64_t cpu_tx_polls;      /**< polls whose TX section did work */
	uint64_t cpu_rx_skipped;    /**< RX sections longer than 1 ms: the
	                             *   process was descheduled in them, so
	                             *   they are left out of cpu_rx_* */
	uint64_t cpu_tx_skipped;    /**< TX sections left out likewise */
	uint64_t cpu_rx_port_cyc;   /**< of cpu_rx_cyc, TSC cycles in the
	                             *   PMD's receive burst (net_memif
	                             *   copies each frame out of its ring
	                             *   there), payload-sized work of the
	                             *   port, not of the stack */
	uint64_t cpu_tx_port_cyc;   /**< of cpu_tx_cyc, TSC cycles in the
	                             *   PMD's transmit (port flush) */
	uint64_t hct_data_tx_hdr_crc; /**< of hct_data_tx, DATA packets whose
	                               *   CRC32C covers the header only: to a
	                               *   peer over a shared-memory link both
	                               *   ends trust ([transport] shm_crc,
	                               *   README "Integrity") */
	uint64_t hct_data_rx_hdr_crc; /**< of hct_data_rx, such packets
	                               *   received (a header-only packet from
	                               *   a peer this rank did not accept it
	                               *   from counts in hct_crc_rx) */
	uint64_t hct_data_tx_zc;      /**< of hct_data_tx, DATA packets sent
	                               *   zero copy, from the collective's
	                               *   own buffer instead of a copy
	                               *   ([transport] zero_copy_tx, README
	                               *   "Zero-copy TX") */
	uint64_t coll_held;           /**< DATA packets held for a collective
	                               *   this rank had not called yet (kept
	                               *   in their mbufs until it does) */
	uint64_t coll_held_refused;   /**< DATA packets for such a collective
	                               *   refused because [coll]
	                               *   unexpected_max packets were held
	                               *   already (at most a quarter of the
	                               *   smallest mbuf pool, engine.c): the
	                               *   sender retransmits them later, so
	                               *   a tiny pool slows a job (C30)
	                               *   instead of filling the pool */
	uint64_t coll_held_max;       /**< most DATA packets held at once
	                               *   (coll_held's high-water mark, at
	                               *   most the effective [coll]
	                               *   unexpected_max) */
	uint64_t port_tx_partial;     /**< TX bursts the PMD took only in
	                               *   part (its ring full): the frames
	                               *   it refused stayed queued, in order,
	                               *   for a later burst (field case C27;
	                               *   not drops) */
};

/**
 * Read this rank's counters.
 * @return 0, or -HC_ERR_INVAL if ctx or stats is NULL.
 */
int hc_stats_get(struct hc_ctx *ctx, struct hc_stats *stats);

/** Congestion control of a flow (the [transport] cc key). */
enum hc_cc_algo {
	HC_CC_FIXED = 0, /**< window_pkts in flight, no pacing */
	HC_CC_SWIFT = 1, /**< Swift delay targets (SIGCOMM 2020) */
	HC_CC_DCTCP = 2, /**< DCTCP ECN reaction (RFC 8257) */
};

/**
 * Counters and state of the flow between this rank and one peer (both
 * directions), since hc_init(). Packet counts are HCT packets; bytes are
 * payload bytes (no headers). Windows are in packets, fractional (below 1
 * means one packet every SRTT / cwnd).
 */
struct hc_flow_stats {
	uint64_t data_tx;          /**< DATA packets sent, first copies */
	uint64_t data_rx;          /**< DATA packets accepted (not dups) */
	uint64_t bytes_tx;         /**< payload bytes sent, first copies */
	uint64_t bytes_rx;         /**< payload bytes accepted */
	uint64_t acks_tx;          /**< pure ACK packets sent */
	uint64_t retransmits_rto;  /**< DATA sent again after an RTO */
	uint64_t retransmits_sack; /**< ... 3 later packets SACKed (RFC 6675) */
	uint64_t retransmits_rack; /**< ... by RACK time (RFC 8985) */
	uint64_t retransmits_tlp;  /**< ... as a tail-loss probe (RFC 8985) */
	uint64_t rtos;             /**< retransmission timeouts (RFC 6298) */
	uint64_t tlps;             /**< tail-loss probes sent */
	uint64_t cwnd_decreases;   /**< window cuts: delay, ECN or loss */
	uint64_t spurious_retx;    /**< retransmissions found needless (the
	                            *   ACK echoed the original's timestamp,
	                            *   RFC 3522) */
	uint64_t ecn_ce_rx;        /**< DATA received with IPv4 ECN CE */
	uint64_t ecn_echoed;       /**< CE marks reported in our ACKs */
	uint64_t ecn_ece_rx;       /**< CE marks the peer reported to us */
	uint64_t dup_rx;           /**< duplicate DATA dropped (acknowledged
	                            *   again) */
	uint64_t stray_rx;         /**< from this peer, dropped: PSN beyond
	                            *   any window, ACK of unsent PSNs */
	uint64_t rejected_rx;      /**< DATA refused for lack of room (the
	                            *   peer sends it again) */
	double cwnd;               /**< effective window, packets:
	                            *   min(cwnd_fabric, cwnd_endpoint) */
	double cwnd_fabric;        /**< Swift fabric window (DCTCP: the
	                            *   window), packets */
	double cwnd_endpoint;      /**< Swift endpoint window, packets */
	double dctcp_alpha;        /**< DCTCP's marked fraction EWMA, 0..1 */
	uint64_t srtt_ns;          /**< smoothed RTT (RFC 6298), ns; 0: no
	                            *   sample yet */
	uint64_t rttvar_ns;        /**< RTT variation (RFC 6298), ns */
	uint64_t min_rtt_ns;       /**< least fabric RTT sample, ns */
	uint64_t rto_ns;           /**< current RTO with backoff, ns */
	uint32_t inflight;         /**< DATA packets sent, not yet
	                            *   acknowledged or SACKed */
	enum hc_cc_algo cc;        /**< the law in use */
	int lost;                  /**< 1 once the peer is lost */
	uint64_t rtos_spurious;    /**< of rtos, found needless: the first
	                            *   ACK of new data after the timeout
	                            *   echoed the timestamp of a packet sent
	                            *   before it (Eifel, RFC 3522); the
	                            *   window cut is undone (RFC 4015) */
	uint64_t rtos_deferred;    /**< timeouts re-armed instead of fired
	                            *   because the timer ran late by more
	                            *   than rto_min / 2 (this process was
	                            *   descheduled; its ACKs may be unread),
	                            *   at most once per episode */
};

/**
 * Read the counters of the flow to peer_rank. A snapshot: with an engine
 * lcore running, fields are read one by one while it updates them (each
 * is consistent; they may be from slightly different moments).
 * @return 0, or -HC_ERR_INVAL if ctx or stats is NULL, or peer_rank is
 *         not a rank of the job or is the caller's own rank.
 */
int hc_flow_stats_get(struct hc_ctx *ctx, uint32_t peer_rank,
		      struct hc_flow_stats *stats);


/* ---- Training support: metrics, gradient bucketing, HSDP ------------ */

/**
 * The seeds' three training metrics over one interval (a step, or every
 * step so far). Times are wall-clock microseconds of this rank.
 * - comm_us: time during which at least one collective of this rank
 *   (any communicator, submitted through the API) was in flight, from
 *   submission to the engine's completion: the union of the intervals.
 * - wait_us: time the application spent blocked in hc_wait() (and the
 *   blocking collectives, which wait through it) for a request that was
 *   not complete on entry; two threads waiting at once both count.
 * - compute_us = step_us - wait_us (never below 0).
 * - comm_compute_ratio = comm_us / compute_us (0 when compute_us is 0).
 * - bus_bytes: the completed collectives' bus bytes, as nccl-tests counts
 *   them: all-reduce 2(n-1)/n x bytes, reduce-scatter(v) and
 *   all-gather(v) (n-1)/n x the full buffer, broadcast, reduce, send and
 *   receive x bytes (n: the communicator's size; 1-rank ones count 0).
 * - busbw_GBps = bus_bytes / comm_us (GB/s = 1e9 B/s).
 * - utilization = busbw_GBps / hc_metrics.link_GBps: the achieved bus
 *   bandwidth over the link rate the tuner measured at hc_init.
 * - bubble_rate = wait_us / step_us: the share of the step the
 *   application waited on communication.
 */
struct hc_metrics_interval {
	double step_us;
	double comm_us;
	double wait_us;
	double compute_us;
	double bus_bytes;
	double comm_compute_ratio;
	double busbw_GBps;
	double utilization;
	double bubble_rate;
};

/** What hc_metrics_get() returns. */
struct hc_metrics {
	uint64_t steps;        /**< hc_metrics_step_end() calls so far */
	double link_GBps;      /**< 1 / beta of the world communicator's
	                        *   tuner (hc_comm_tuner_info), GB/s; 0 on
	                        *   one rank (no link measured) */
	struct hc_metrics_interval last;  /**< the last step ended */
	struct hc_metrics_interval total; /**< every step ended, summed
	                                   *   (ratios of the sums) */
};

/**
 * Mark the beginning of a training step on ctx: the counters of
 * struct hc_metrics_interval start from here. A second begin without an
 * end restarts the step.
 * @return 0, or -HC_ERR_INVAL if ctx is NULL.
 */
int hc_metrics_step_begin(struct hc_ctx *ctx);

/**
 * Mark the end of the step begun by hc_metrics_step_begin(): the step's
 * figures become hc_metrics.last and are added to hc_metrics.total.
 * @return 0, -HC_ERR_INVAL (ctx NULL, or no step begun).
 */
int hc_metrics_step_end(struct hc_ctx *ctx);

/**
 * Read the metrics (definitions at struct hc_metrics_interval).
 * @return 0, or -HC_ERR_INVAL if ctx or m is NULL.
 */
int hc_metrics_get(struct hc_ctx *ctx, struct hc_metrics *m);

/** A gradient bucketer: see hc_bucketer_create(). */
struct hc_bucketer;

/** Default bucket size of hc_bucketer_create(): 25 MiB, PyTorch DDP's
 *  bucket_cap_mb default. */
#define HC_BUCKET_BYTES_DEFAULT (25u << 20)

/**
 * Group a model's gradient buffers into buckets for data-parallel
 * training, as PyTorch DDP's Reducer does (Li et al., "PyTorch
 * Distributed: Experiences on Accelerating Data Parallel Training", VLDB
 * 2020): gradient i (bufs[i], counts[i] elements of dtype, in the order
 * of the model's layers, first layer first) is expected ready in reverse
 * order (backward runs from the last layer), so buckets are filled from
 * index n-1 down, each up to bucket_bytes (a gradient larger than that is
 * a bucket of its own). Bucket 0 holds the last layers and is reduced
 * first; the bucket holding gradient 0 (the first layers, which the next
 * forward pass needs first) is sent with HC_PRIO_CRITICAL, the others
 * with HC_PRIO_NORMAL. Each bucket owns a contiguous buffer: on its
 * launch its gradients are copied in and an hc_iallreduce with HC_OP_AVG
 * (in place) starts; hc_bucketer_wait() copies the averages back.
 *
 * Every rank of comm must create its bucketer with the same counts,
 * dtype and bucket_bytes, and mark the same gradients each step.
 *
 * @param n  number of gradients, >= 1.
 * @param bufs  n buffers (distinct, non-overlapping; they must stay
 *        valid while the bucketer lives); copied.
 * @param counts  n element counts, each >= 1; copied.
 * @param dtype  a floating dtype (AVG of integers truncates).
 * @param bucket_bytes  0: HC_BUCKET_BYTES_DEFAULT.
 * @param[out] out  the bucketer, NULL on error.
 * @return 0, -HC_ERR_INVAL (NULL argument, n 0, a count 0, integer
 *         dtype, counts whose bytes sum beyond 2^64 - 1), -HC_ERR_NOMEM
 *         (also for buckets too large to allocate).
 */
int hc_bucketer_create(struct hc_comm *comm, size_t n, void *const *bufs,
		       const uint64_t *counts, enum hc_dtype dtype,
		       uint64_t bucket_bytes, struct hc_bucketer **out);

/**
 * Gradient i is computed (its buffer holds this step's local gradient).
 * When this completes a bucket, that bucket and every later-numbered one
 * already complete are launched, in bucket order (so every rank submits
 * the same sequence of all-reduces whatever order its gradients come
 * in). The first step records the order of marks; see hc_bucketer_wait().
 * @return 0, -HC_ERR_INVAL (b NULL, i out of range, i already marked
 *         this step), hc_iallreduce's error, or -HC_ERR_NOMEM after a
 *         rebuild that ran out of memory (hc_bucketer_wait()).
 */
int hc_bucketer_mark_ready(struct hc_bucketer *b, size_t i);

/**
 * End the step: mark every gradient not marked yet ready (a gradient
 * unused this step is averaged as it stands, so ranks stay matched),
 * wait for every bucket's all-reduce and copy the averages back into the
 * gradient buffers, so the optimizer step may run. After the first step,
 * if the order of marks differed from the expected one (n-1 down to 0),
 * the buckets are rebuilt in the order rank 0 saw (broadcast from rank 0
 * over comm, so every rank builds the same buckets), as DDP rebuilds its
 * buckets once after its first iteration.
 * @return 0, -HC_ERR_INVAL (b NULL), the first collective error, or
 *         from the first step's rebuild -HC_ERR_NOMEM (no memory for the
 *         new buckets) or -HC_ERR_INTERNAL (rank 0's order named a
 *         gradient out of range); after a rebuild that ran out of
 *         memory every later hc_bucketer_mark_ready() and
 *         hc_bucketer_wait() returns -HC_ERR_NOMEM (free the bucketer).
 */
int hc_bucketer_wait(struct hc_bucketer *b);

/** Description of one bucket (hc_bucketer_bucket_info()). */
struct hc_bucket_info {
	size_t first;        /**< position of its first gradient in the
	                      *   order array of hc_bucketer_order() */
	size_t ngrads;       /**< gradients in it */
	uint64_t bytes;      /**< its size */
	enum hc_priority priority; /**< class of its all-reduce */
};

/** Number of buckets, or -HC_ERR_INVAL if b is NULL. */
int hc_bucketer_bucket_count(const struct hc_bucketer *b);

/**
 * Bucket k's description.
 * @return 0, -HC_ERR_INVAL (NULL argument, k out of range).
 */
int hc_bucketer_bucket_info(const struct hc_bucketer *b, size_t k,
			    struct hc_bucket_info *info);

/**
 * The gradient indices in bucket order: bucket k holds
 * order[info.first .. info.first + info.ngrads - 1]. Copies n entries.
 * @return 0, or -HC_ERR_INVAL (NULL argument, n not the bucketer's).
 */
int hc_bucketer_order(const struct hc_bucketer *b, size_t *order, size_t n);

/** Whether the buckets were rebuilt after the first step (1) or not (0);
 *  -HC_ERR_INVAL if b is NULL. */
int hc_bucketer_rebuilt(const struct hc_bucketer *b);

/** Free b (no collective may be in flight: call hc_bucketer_wait first).
 *  NULL: no-op. */
void hc_bucketer_free(struct hc_bucketer *b);

/**
 * HSDP (hybrid sharded data parallel, as PyTorch FSDP's HYBRID_SHARD):
 * split comm into a shard communicator of shard_size ranks, which shard
 * parameters among themselves, and a replica communicator of the ranks
 * that hold the same shard in each shard group (comm size / shard_size of
 * them). Shard groups come from the cluster file's [rank.N] group key
 * when every group of comm has shard_size ranks (ranks ordered within a
 * group by comm rank); otherwise from comm ranks: group g is ranks
 * g * shard_size .. (g + 1) * shard_size - 1 (on one host hc-launch's
 * local rank is the rank). The replica communicator of shard rank s
 * holds shard rank s of every group, ordered by group. Collective over
 * comm (two hc_comm_split calls).
 *
 * Gradients then go by reduce-scatter in the shard communicator and
 * all-reduce of the shard across the replica communicator; parameters by
 * all-gather in the shard communicator.
 *
 * @param shard_size  1..size of comm, dividing it.
 * @param[out] shard  the shard communicator.
 * @param[out] replica  the replica communicator.
 * @return 0, -HC_ERR_INVAL (NULL argument, shard_size not dividing the
 *         size), or hc_comm_split's error.
 */
int hc_comm_hsdp(struct hc_comm *comm, int shard_size, struct hc_comm **shard,
		 struct hc_comm **replica);

/**
 * The mbufs of this rank's pools (every port has one), for leak checks:
 * after a collective ends, even one that failed under faults, every mbuf
 * the stack took must go back (issue 10, "no leaks after faults").
 * Counts are mbufs, from rte_mempool_in_use_count() summed over the
 * pools; objects in the pools' per-lcore caches count as free.
 */
struct hc_mbuf_stats {
	uint64_t pool_size;    /**< mbufs in the rank's pools together */
	uint64_t in_use_start; /**< mbufs in use once every port had started
	                        *   and before the first frame was sent:
	                        *   what the PMDs hold for themselves (the RX
	                        *   ring net_tap and net_virtio_user fill at
	                        *   start; net_memif and net_af_packet hold
	                        *   none) */
	uint64_t in_use;       /**< mbufs in use when the call returned */
	uint64_t held;         /**< of in_use, what the stack holds and
	                        *   knows of, not a leak: DATA held for a
	                        *   collective this rank has not called yet
	                        *   (at most [coll] unexpected_max), frames
	                        *   in the ports' own TX queues that the PMD
	                        *   refused (a link down), frames the
	                        *   fault injector holds (delay, reorder) and
	                        *   the transport's unused DATA mbufs of its
	                        *   last bulk allocation (at most 31); a
	                        *   queued or held frame counts the mbufs it
	                        *   keeps: its segments and, for a
	                        *   retransmission by clone, the saved packet
	                        *   it points at (which the window may still
	                        *   hold too: so held is an upper bound) */
	uint64_t pmd_tx_max;   /**< mbufs the PMDs may still hold after
	                        *   sending them: net_virtio_user frees sent
	                        *   mbufs only once its TX ring is nearly
	                        *   full, so up to its ring size; 0 for
	                        *   net_tap, net_memif, net_af_packet, which
	                        *   copy or write a frame and free it */
	int quiet;             /**< 1: in_use came back to at most
	                        *   in_use_start + held + pmd_tx_max within
	                        *   the call's timeout; 0: it did not */
};

/**
 * Read this rank's mbuf counts. When in_use is above in_use_start + held
 * + pmd_tx_max, wait
 * up to timeout_ms for it to come back: frames in flight hold mbufs until
 * their peer acknowledges them (retransmission copies), and a burst being
 * processed holds some for a moment. With progress in callers this call
 * polls the engine itself while it waits (ACKs and retransmissions keep
 * moving); with an engine lcore it sleeps 1 ms between readings. A rank
 * whose collectives are all done, whose peers are all reachable or lost,
 * and that has nothing left to send comes back within a few RTOs; one that
 * leaked mbufs never does.
 * @param timeout_ms 0: read once, do not wait.
 * @return 0, or -HC_ERR_INVAL if ctx or stats is NULL.
 */
int hc_mbuf_stats_get(struct hc_ctx *ctx, uint32_t timeout_ms,
		      struct hc_mbuf_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HYPERCOMM_H */
