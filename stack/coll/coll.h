/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The collective engine: communicators, collective operations as state
 * machines, and the algorithms behind one ops table (testpmd's
 * struct fwd_engine is the model: one file per algorithm).
 *
 * An operation is driven by two inputs from the transport: a DATA packet
 * (placed or reduced straight into the destination buffer at the offset
 * it carries) and "message cut into packets" (its source may change). It
 * completes when every expected byte arrived and every message it queued
 * is cut into packets. DATA for a collective this rank has not posted yet
 * is held (at most [coll] unexpected_max packets, beyond which it is
 * refused and comes again by retransmission).
 */
#ifndef HC_COLL_COLL_H
#define HC_COLL_COLL_H

#include <stdint.h>

#include "hypercomm.h"
#include "hct.h"
#include "reduce.h"
#include "ring_plan.h"
#include "tune.h"

struct hc_coll_op;

/** One algorithm. */
struct hc_algo {
	const char *name;
	/** Prepare and queue the first sends. @return 0 or -HC_ERR_*. */
	int (*start)(struct hc_coll_op *op);
	/** A DATA packet for op from comm rank src. */
	enum hct_rx_verdict (*data)(struct hc_coll_op *op, uint32_t src,
				    const struct hct_data_desc *d,
				    const uint8_t *payload);
	/** One of op's messages is cut into packets. */
	void (*sent)(struct hc_coll_op *op, struct hct_msg *msg);
	/** Free what start allocated. */
	void (*fini)(struct hc_coll_op *op);
};

extern const struct hc_algo hc_algo_ring;
extern const struct hc_algo hc_algo_chain;
extern const struct hc_algo hc_algo_tree;  /**< double binary tree */
extern const struct hc_algo hc_algo_hd;    /**< halving-doubling */
extern const struct hc_algo hc_algo_hier;  /**< two-level, by group */
extern const struct hc_algo hc_algo_rd;    /**< recursive doubling */

/** The ops table of an all-reduce algorithm id (not AUTO), or NULL. */
const struct hc_algo *hc_algo_get(enum hc_algo_id a);
extern const struct hc_algo hc_algo_p2p;

/* Control messages ride in DATA packets with a reserved step number:
 * HC_STEP_SIG carries the sender's signature of the collective (payload:
 * the same 4 bytes), HC_STEP_ABORT the error that ended it (payload: the
 * negative error code, 4 bytes in network byte order). */
#define HC_STEP_SIG   0xffff
#define HC_STEP_ABORT 0xfffe
/* Point-to-point (p2p.c): coll_seq is the sequence number of the
 * (communicator, sender, receiver) stream; HC_STEP_P2P carries payload
 * at its byte offset, HC_STEP_P2P_HDR the sender's signature (4 bytes). */
#define HC_STEP_P2P     0xfffd
#define HC_STEP_P2P_HDR 0xfffc

/** Whether a DATA packet with this step belongs to a send/receive. */
static inline int
hc_coll_step_p2p(uint16_t step)
{
	return step == HC_STEP_P2P || step == HC_STEP_P2P_HDR;
}

enum hc_coll_kind {
	HC_COLL_ALLREDUCE = 1,
	HC_COLL_REDUCE_SCATTER,
	HC_COLL_ALLGATHER,
	HC_COLL_BARRIER,
	HC_COLL_BROADCAST,
	HC_COLL_REDUCE,
	HC_COLL_COMM_ADD,       /**< engine: register op->comm (split) */
	HC_COLL_REDUCE_SCATTERV, /**< per-rank counts (op->vbounds) */
	HC_COLL_ALLGATHERV,     /**< per-rank counts and displacements */
	HC_COLL_SEND,           /**< point-to-point (p2p.c); root: peer */
	HC_COLL_RECV,
};

static inline int
hc_coll_kind_p2p(enum hc_coll_kind kind)
{
	return kind == HC_COLL_SEND || kind == HC_COLL_RECV;
}

/** The zero-copy sends of one op (struct hct_msg zc; ring.c and
 *  plan_run.c mark which may go so): one shared info whose reference
 *  count the transport keeps (queued messages, mbufs attached to the op's
 *  buffers). The op is over
 *  only once it fell to 0 (hc_coll_op_over()): until then a
 *  retransmission may read the buffers again. Freed by hc_coll_op_end
 *  when released; an op ended before (hc_finalize, a probe's end) leaves
 *  it orphan, and the free callback frees it at the last release. */
struct hc_coll_zc {
	struct rte_mbuf_ext_shared_info shinfo;
	uint32_t releases;      /**< times the count fell to 0 */
	int orphan;             /**< the op ended: free at the release */
};

/** Engine thread: a buffer of at least bytes for an op of comm, its
 *  capacity in *cap: the communicator's kept one (work_cache) when it is
 *  large enough, else a new one (malloc). @return it, or NULL: no
 *  memory. */
uint8_t *hc_comm_buf_get(struct hc_comm *comm, size_t bytes, size_t *cap);

/** Engine thread: give back an op buffer of cap bytes that no op and no
 *  packet reads any more (NULL: nothing): comm keeps the larger of it
 *  and the one it holds (work_cache), the other is freed. */
void hc_comm_buf_put(struct hc_comm *comm, uint8_t *buf, size_t cap);

/** Allocate op->zc (refcnt 0, the free callback). @return 0 or
 *  -HC_ERR_NOMEM. */
int hc_coll_zc_init(struct hc_coll_op *op);

/** Whether op's zero-copy sends (if any) are all released. */
static inline int
hc_coll_zc_released(const struct hc_coll_zc *z)
{
	return z == NULL || rte_mbuf_ext_refcnt_read(&z->shinfo) == 0;
}

struct hc_coll_op {
	struct hc_comm *comm;
	const struct hc_algo *algo;
	enum hc_algo_id algo_id; /**< all-reduce: the algorithm chosen */
	enum hc_coll_kind kind;
	uint32_t seq;           /**< collective sequence number in comm */
	uint32_t sig;           /**< signature of (kind, dtype, op, count) */
	enum hc_dtype dtype;
	enum hc_op op;
	uint32_t root;          /**< comm rank of broadcast/reduce, the peer
	                         *   of send/receive, else 0 */
	uint64_t count;         /**< elements per rank, as the API names it
	                         *   (all-reduce count, reduce-scatter
	                         *   recvcount, all-gather sendcount) */
	uint64_t total;         /**< elements the ring moves: count, or
	                         *   n * count for reduce-scatter/all-gather */
	uint64_t out_base;      /**< element of the full buffer where recv
	                         *   starts: r * count for reduce-scatter */
	uint64_t *vbounds;      /**< v-variants: n + 1 prefix sums of the
	                         *   counts (block b is elements vbounds[b]..
	                         *   vbounds[b+1]-1 of the packed buffer),
	                         *   then n displacements; owned; else NULL */
	const uint64_t *vdispls; /**< all-gatherv: where block b starts in
	                         *   recv (elements), inside vbounds; NULL:
	                         *   packed */
	uint32_t elem_size;     /**< bytes */
	const uint8_t *send;
	uint8_t *recv;
	enum hc_dtype acc;      /**< accumulation dtype (reduce.h) */
	uint32_t acc_size;      /**< bytes of an acc element */
	uint8_t *work;          /**< where reduce-scatter accumulates: recv
	                         *   itself when acc == dtype, else a buffer of
	                         *   count acc elements owned by the op (taken
	                         *   from and given back to the communicator's
	                         *   work_cache) */
	size_t work_bytes;      /**< bytes of work when the op owns it (its
	                         *   capacity: at least count acc elements) */
	hc_reduce_fn reduce;    /**< kernel on acc elements; NULL when acc
	                         *   is FLOAT16/BFLOAT16 (native precision) */
	hc_reduce3_fn reduce3;  /**< three-operand kernel on acc elements
	                         *   (reduce.h): every reduction of received
	                         *   data runs through it */
	const uint8_t *own;     /**< this rank's contribution (the full
	                         *   buffer's element numbering), read on the
	                         *   first reduction of each region instead
	                         *   of a pre-copy into work (ring, chain):
	                         *   op->send, in dtype; NULL when work was
	                         *   filled with it before the algorithm ran
	                         *   (plan algorithms, pre-scaled AVG) */
	uint8_t prescale;       /**< native 16-bit AVG: every contribution
	                         *   was multiplied by 1/n before the sum,
	                         *   so the result is not divided again */
	uint8_t cls;            /**< enum hct_class of its messages;
	                         *   HCT_CLASS_NORMAL unless the request
	                         *   asks for another */
	int status;             /**< 0 while running or done, else -HC_ERR_* */
	int done;               /**< 1 when complete (status 0) */
	int started;            /**< on comm's active list (p2p list for
	                         *   send/receive) */
	int pending;            /**< on comm's pending list */
	struct hct_msg *ctl;    /**< signature messages sent by this op */
	uint32_t ctl_left;      /**< of those, not yet cut into packets */
	uint32_t sig_wanted;    /**< signatures that must arrive: all other
	                         *   ranks' for count 0 and rooted collectives
	                         *   (a rank may only send: nothing else tells
	                         *   it that all agree, or that all came);
	                         *   none for the ring, whose data carries it */
	uint32_t sig_got;
	uint32_t sig_wire;      /**< payload of the signature messages */
	uint64_t deadline_ns;   /**< fail with HC_ERR_TIMEOUT after; 0: never */
	void *algo_state;
	struct hc_coll_zc *zc;  /**< zero-copy sends; NULL: none */
	TAILQ_ENTRY(hc_coll_op) link; /**< comm's pending or active list */
};
TAILQ_HEAD(hc_coll_op_list, hc_coll_op);

struct hc_coll;

/** How FLOAT16/BFLOAT16 reductions accumulate ([coll] precision). */
enum hc_precision {
	/** Partial sums in float32 on the wire, rounded once at the end
	 *  (reduce.h's contract; C10, C11). */
	HC_PRECISION_FP32 = 0,
	/** Partial sums in the element type (2 bytes per element on the
	 *  wire), rounded at every hop as NCCL does; AVG as a sum of the
	 *  contributions each pre-multiplied by 1/n (NCCL's PreMulSum), so
	 *  it cannot overflow where the mean does not. */
	HC_PRECISION_NATIVE = 1,
};

/** "fp32" -> HC_PRECISION_FP32, "native" -> HC_PRECISION_NATIVE, else -1
 *  (the parser of the [coll] precision key). */
int hc_precision_parse(const char *v);

/** Slots of hc_comm's opmap: the collectives one communicator may have
 *  started and not finished at once before a scan is needed. */
#define HC_COMM_OPMAP 64

struct hc_comm {
	struct hc_coll *coll;
	void *owner;            /**< the struct hc_ctx */
	TAILQ_ENTRY(hc_comm) link; /**< in coll's list, once registered */
	uint32_t id;            /**< on the wire: comm_id; world: 0 */
	uint32_t rank;          /**< ours in this communicator */
	uint32_t size;
	uint32_t *world;        /**< comm rank -> world rank, size entries */
	uint32_t *of_world;     /**< world rank -> comm rank or UINT32_MAX */
	uint32_t world_size;
	uint32_t splits;        /**< hc_comm_split calls on it so far */
	uint32_t *group;        /**< comm rank -> group id ([rank.N] group) */
	struct hc_tune_shape shape; /**< n, groups, ranks per group */
	struct hc_tune tune;    /**< alpha/beta every member holds alike */
	enum hc_algo_id algo;   /**< all-reduce algorithm, AUTO: the tuner */
	uint64_t logged;        /**< size classes (log2 bytes) whose pick was
	                         *   logged (atomic) */
	int registered;         /**< on coll's list (engine thread) */
	uint32_t next_seq;      /**< sequence number of the next collective
	                         *   submitted (application threads, atomic) */
	uint32_t start_seq;     /**< sequence number of the next collective
	                         *   the engine starts (ops start in order) */
	int error;              /**< sticky: set when an op failed */
	struct hc_coll_op_list pending; /**< submitted, an earlier seq not yet */
	struct hc_coll_op_list active;  /**< started, not finished */
	struct hc_coll_op_list p2p;     /**< started sends and receives */
	/** RX demux of active ops: slot seq % HC_COMM_OPMAP holds the
	 *  active op of that sequence number, or another (check op->seq)
	 *  or NULL; an op started while its slot was taken is counted in
	 *  unmapped and found by a scan of active (only then). */
	struct hc_coll_op *opmap[HC_COMM_OPMAP];
	uint32_t unmapped;
	uint32_t *p2p_tx_seq;   /**< [comm rank] next send's sequence number
	                         *   (application threads, atomic) */
	uint32_t *p2p_rx_seq;   /**< [comm rank] next receive's, likewise */
	uint32_t *p2p_rx_posted; /**< [comm rank] engine: receives started
	                          *   from that peer (sequence mark) */
	/** Engine thread: the executor state of the last completed plan
	 *  op (plan_run.c, struct plan_run), kept for the next op of the
	 *  same shape; NULL: none. Freed by hc_comm_fini. */
	void *plan_cache;
	/** Engine thread: the largest op buffer of the ops done so far
	 *  (hc_comm_buf_get/put): a work buffer (struct hc_coll_op work,
	 *  when acc != dtype: fp16/bf16 in fp32 precision, the AVG of 8- and
	 *  32-bit integers) or a recursive-doubling snapshot buffer
	 *  (plan_run.c), kept for the next op that needs one of at most
	 *  work_cache_bytes; NULL: none. A buffer malloc'd per op
	 *  is, past glibc's mmap threshold, fresh pages each time: measured
	 *  on 2026-12-04 over memif, 2 ranks, a 64 MiB bf16 all-reduce took
	 *  613 ms against 26 ms for fp32, with 33k page faults per rank per
	 *  op (its 128 MiB fp32 work buffer); recursive doubling forced at
	 *  32 MiB (fp32, 2 ranks, memif, 2026-12-04) took 149-169 ms per
	 *  all-reduce against 7-23 ms at 16 MiB, most of its CPU in page
	 *  faults of its fresh 32 MiB snapshot (glibc maps a block of 32
	 *  MiB or more anew on every malloc). Memory: one buffer per
	 *  communicator, the largest such op's count x acc bytes (reduce.h:
	 *  2x a 16-bit float op's bytes, 8x an int8 AVG's) or rd snapshot
	 *  (log2 p x count x acc bytes, rd.c). Freed by hc_comm_fini. */
	uint8_t *work_cache;
	size_t work_cache_bytes;
	struct hct_msg *abort_msgs;     /**< one per rank, for the broadcast */
	uint32_t abort_wire;            /**< their payload */
	int aborted;                    /**< the broadcast went out */
};

/** op succeeded here: its data part is done and every signature it
 *  waits for arrived (until then a timeout, a mismatch, an ABORT or a
 *  lost peer still fails it). */
static inline int
hc_coll_op_complete(const struct hc_coll_op *op)
{
	return op->status == 0 && op->done && op->sig_got >= op->sig_wanted;
}

/** The registered communicator with this id, or NULL: O(1) (coll.h's
 *  cmap). Engine thread. */
struct hc_comm *hc_coll_find_comm(struct hc_coll *c, uint32_t id);

/** comm's active (started, not ended) collective with sequence number
 *  seq, or NULL: O(1) unless more than HC_COMM_OPMAP are active with
 *  colliding slots. Engine thread. */
struct hc_coll_op *hc_comm_find_op(struct hc_comm *comm, uint32_t seq);

/** Engine thread: op (started) goes on comm's active list and its demux
 *  slot; hc_comm_active_remove takes it off both (hc_coll_op_end). */
void hc_comm_active_add(struct hc_comm *comm, struct hc_coll_op *op);
void hc_comm_active_remove(struct hc_comm *comm, struct hc_coll_op *op);

/** The divisor the reduced result is divided by when it is rounded into
 *  the output: n for AVG (unless pre-scaled), else 1. */
static inline uint32_t
hc_coll_op_div(const struct hc_coll_op *op)
{
	return op->op == HC_OP_AVG && !op->prescale ? op->comm->size : 1;
}

/** Whether op's step-0 (or fresh) sends may read this rank's
 *  contribution straight from the send buffer and go zero copy: it
 *  travels in its own type (op->acc == op->dtype) and the send buffer,
 *  op->total elements, shares no byte with the output (op->recv, as
 *  wide) or the work buffer (op->total accumulator elements). The spans
 *  are the whole vector's, wider than a reduce-scatter's output, so an
 *  overlap is never missed; in place (op->own is op->recv) is not apart.
 *  Asked by the zero-copy set-ups of ring.c and plan_run.c. */
static inline int
hc_coll_own_apart(const struct hc_coll_op *op)
{
	const uint8_t *a = op->own, *r = op->recv, *w = op->work;
	uint64_t na = op->total * op->elem_size;
	uint64_t nw = op->total * op->acc_size;

	return a != NULL && op->acc == op->dtype &&
	       (r == NULL || a + na <= r || r + na <= a) &&
	       (w == NULL || a + na <= w || w + nw <= a);
}

/** op is over: failed, or complete with its control messages cut; and
 *  in both cases its zero-copy sends released (no mbuf points into its
 *  buffers any more), so the caller may change or free them. */
static inline int
hc_coll_op_over(const struct hc_coll_op *op)
{
	return (op->status != 0 || (hc_coll_op_complete(op) &&
				    op->ctl_left == 0)) &&
	       hc_coll_zc_released(op->zc);
}

/** Where element e (packed numbering) of block b of a gathered result
 *  lives in op->recv: the same element unless all-gatherv displacements
 *  place the blocks elsewhere. */
static inline uint8_t *
hc_coll_gather_ptr(const struct hc_coll_op *op, uint32_t b, uint64_t e)
{
	if (op->vdispls != NULL)
		e = e - op->vbounds[b] + op->vdispls[b];
	return op->recv + e * op->elem_size;
}

/** A held DATA packet of a collective not posted yet. */
struct hc_unexpected {
	struct rte_mbuf *m;
	uint32_t src;           /**< world rank */
	struct hct_data_desc d;
	const uint8_t *payload;
};

struct hc_coll_stats {
	uint64_t unexpected_held;  /**< packets held for a later collective */
	uint64_t unexpected_refused; /**< packets for a later collective
	                              *   refused: unexpected_max held */
	uint64_t unexpected_held_max; /**< most held at once */
	uint64_t stale_rx;         /**< DATA of a finished or failed op */
	uint64_t bad_data;         /**< DATA whose step/offset/length does not
	                            *   fit the plan: dropped */
	uint64_t mismatches;       /**< DATA with another signature */
};

struct hc_coll {
	struct hct *hct;
	uint32_t world_rank;
	uint64_t slice_bytes;
	uint32_t *group_of;     /**< world rank -> group id; NULL: own rank */
	struct hc_tune tune;    /**< agreed at bring-up; comms copy it */
	enum hc_algo_id algo;   /**< [coll] algo / HC_ALGO; comms copy it */
	enum hc_precision precision; /**< [coll] precision */
	TAILQ_HEAD(, hc_comm) comms; /**< registered communicators */
	/** RX demux by comm id: open addressing, linear probing from
	 *  hc_comm_hash(id) & cmap_mask, NULL-terminated; at most half
	 *  full; rebuilt from comms when one leaves. NULL (no memory):
	 *  comms is scanned. */
	struct hc_comm **cmap;
	uint32_t cmap_mask;
	uint32_t ncomms;
	struct hc_unexpected *unexp;
	uint32_t unexp_len;
	uint32_t unexp_max;
	struct hc_coll_stats stats;
};

/** The cluster file's [coll] section (keys in coll_cfg.c). */
struct hc_coll_conf {
	uint64_t slice_bytes;    /**< [coll] slice_bytes: pipelined ring slice */
	uint32_t unexpected_max; /**< [coll] unexpected_max: DATA packets held
	                          *   for collectives not posted yet */
	enum hc_algo_id algo;    /**< [coll] algo / HC_ALGO */
	enum hc_precision precision; /**< [coll] precision / HC_PRECISION */
};

/** The cluster-file keys of struct hc_coll_conf. */
extern const struct hc_cfg_table hc_coll_cfg_table;

/** @return 0 or -HC_ERR_NOMEM. */
int hc_coll_init(struct hc_coll *c, struct hct *hct, uint32_t world_rank,
		 const struct hc_coll_conf *conf);
void hc_coll_free(struct hc_coll *c);

/**
 * Fill comm: id, our rank, size ranks whose world ranks are world[]
 * (copied), in a world of world_size ranks. Not registered yet.
 * @return 0 or -HC_ERR_NOMEM.
 */
int hc_comm_init(struct hc_comm *comm, struct hc_coll *c, void *owner,
		 uint32_t id, uint32_t rank, uint32_t size,
		 const uint32_t *world, uint32_t world_size);

/** Log a warning when comm's forced all-reduce algorithm ([coll] algo,
 *  HC_ALGO) cannot run on it (hier over groups of unequal size): field
 *  case C02 wants that said when a communicator is created, not first at
 *  its all-reduce (which fails with -HC_ERR_UNSUPPORTED). For the
 *  communicators an application sees: the world, hc_comm_split's. */
void hc_comm_check_algo(const struct hc_comm *comm);

/** The world communicator of size ranks, registered. */
int hc_comm_init_world(struct hc_comm *comm, struct hc_coll *c, void *owner,
		       uint32_t rank, uint32_t size);

/** Engine thread: make comm's traffic deliverable (held packets of it
 *  are matched when its collectives start). */
void hc_coll_add_comm(struct hc_coll *c, struct hc_comm *comm);

/** Engine thread: take comm off c's list and id table. */
void hc_coll_remove_comm(struct hc_coll *c, struct hc_comm *comm);

/** Unregister (if registered) and free comm's tables. */
void hc_comm_fini(struct hc_comm *comm);

/** Id of the communicator made by split number `split` of parent with
 *  color: FNV-1a of the three, never 0 (the world's). Every member
 *  computes the same. */
uint32_t hc_comm_split_id(const struct hc_comm *parent, uint32_t split,
			  int color);

/**
 * Validate the arguments of a collective and fill op in; assigns the
 * collective sequence number. Runs in the calling (application) thread
 * and touches no engine state; a refused call consumes no sequence number.
 *
 * kind ALLREDUCE: count elements in sendbuf and recvbuf (in place when
 * equal); REDUCE_SCATTER: sendbuf n * count, recvbuf count (in place when
 * recvbuf == sendbuf + rank * count elements); ALLGATHER: sendbuf count,
 * recvbuf n * count (in place when sendbuf == recvbuf + rank * count);
 * BARRIER: no buffers, count 0; BROADCAST: count elements, sendbuf read at
 * the root only; REDUCE: count elements, recvbuf written at the root only
 * (both in place when the buffers are equal). Any other overlap is refused.
 * An all-reduce gets its algorithm here (comm->algo, or the tuner).
 * @return 0, -HC_ERR_INVAL, or -HC_ERR_UNSUPPORTED when the forced
 *         all-reduce algorithm cannot run on comm (hier, unequal groups).
 */
int hc_coll_prepare(struct hc_comm *comm, struct hc_coll_op *op,
		    enum hc_coll_kind kind, const void *sendbuf,
		    void *recvbuf, uint64_t count, enum hc_dtype dtype,
		    enum hc_op rop, uint32_t root);

/**
 * hc_coll_prepare for the v-variants, per-rank counts[0..n-1]:
 * REDUCE_SCATTERV: sendbuf holds sum(counts) elements, block q packed at
 * counts[0] + ... + counts[q-1]; recvbuf counts[rank] (in place when
 * recvbuf == sendbuf + that offset); displs ignored. ALLGATHERV: sendbuf
 * counts[rank] elements, block q lands at recvbuf + displs[q] elements
 * (displs NULL: packed); in place when sendbuf is block rank itself;
 * receive blocks must not overlap each other or sendbuf. counts and
 * displs are copied. The signature covers every count.
 * @return 0, -HC_ERR_INVAL, -HC_ERR_NOMEM.
 */
int hc_coll_prepare_v(struct hc_comm *comm, struct hc_coll_op *op,
		      enum hc_coll_kind kind, const void *sendbuf,
		      void *recvbuf, const uint64_t *counts,
		      const uint64_t *displs, enum hc_dtype dtype,
		      enum hc_op rop);

/**
 * Engine thread: hand a prepared op to its communicator. Ops start in
 * sequence order; an op whose predecessors have not arrived waits. When
 * this returns, op may have started, completed (op->done) or failed
 * (op->status, e.g. -HC_ERR_ABORTED after an earlier failure).
 */
void hc_coll_submit(struct hc_coll_op *op);

/** Whether a prepared op is consistent (dtype, op, sizes, root, kernel):
 *  the engine's own check of what an application thread handed it; an op
 *  that fails it ends with HC_ERR_INTERNAL and fails its communicator
 *  (collectives) instead of reaching the algorithms. */
int hc_coll_op_valid(const struct hc_coll_op *op);

/** Fail op with err (and its communicator), stop its sends. */
void hc_coll_op_fail(struct hc_coll_op *op, int err);

/** Release op's resources after it completed or failed; removes it from
 *  its communicator's lists. */
void hc_coll_op_end(struct hc_coll_op *op);

/** Transport upcalls (struct hct_upcalls), ctx is the struct hc_coll. */
enum hct_rx_verdict hc_coll_data(void *ctx, uint32_t src,
				 const struct hct_data_desc *d,
				 const uint8_t *payload, struct rte_mbuf *m);
void hc_coll_msg_sent(void *ctx, struct hct_msg *msg);
/** Every communicator with rank fails with err (-HC_ERR_PEER_LOST or
 *  -HC_ERR_LINK_DOWN, struct hct_upcalls): its active collectives and the
 *  point-to-point ops with rank get err, the others -HC_ERR_ABORTED. */
void hc_coll_peer_lost(void *ctx, uint32_t rank, int err);

/**
 * Set the group of every world rank (world_size entries, copied; the
 * communicators made after this use it). @return 0 or -HC_ERR_NOMEM.
 */
int hc_coll_set_groups(struct hc_coll *c, const uint32_t *group_of,
		       uint32_t world_size);

/** Set the agreed link parameters of c and of its registered
 *  communicators (every rank must pass the same values). */
void hc_coll_set_tune(struct hc_coll *c, const struct hc_tune *t);
/** FNV-1a of the arguments every rank must agree on (count: the v-variants
 *  pass a hash of the counts; algo: the all-reduce algorithm, hashed only
 *  when not the ring, so the ring's signature is what it always was). */
uint32_t hc_coll_signature(enum hc_coll_kind kind, enum hc_dtype dtype,
			   enum hc_op op, uint64_t count, uint32_t root,
			   enum hc_algo_id algo);

/** Hold DATA packet m of a collective or receive not posted yet.
 *  @return HCT_RX_HELD, or HCT_RX_REJECT when the table is full (the
 *  packet comes again by retransmission). */
enum hct_rx_verdict hc_coll_hold(struct hc_coll *c, uint32_t src,
				 const struct hct_data_desc *d,
				 const uint8_t *payload, struct rte_mbuf *m);

/**
 * Validate a send (buf read) or receive (buf written) of count elements
 * of dtype to or from comm rank peer, and assign its sequence number in
 * that direction. Application thread.
 * @return 0, -HC_ERR_INVAL (NULL comm, unknown dtype, peer outside
 *         0..n-1, NULL buf with count > 0, count above 2^61),
 *         -HC_ERR_UNSUPPORTED (peer is this rank).
 */
int hc_p2p_prepare(struct hc_comm *comm, struct hc_coll_op *op,
		   enum hc_coll_kind kind, void *buf, uint64_t count,
		   enum hc_dtype dtype, int peer);

/** Engine thread: start a prepared send or receive (no sequence order
 *  with collectives). */
void hc_p2p_start(struct hc_coll_op *op);

/** A DATA packet of comm with a p2p step from world rank src (m NULL:
 *  a held one being delivered). */
enum hct_rx_verdict hc_p2p_data(struct hc_coll *c, struct hc_comm *comm,
				uint32_t src, const struct hct_data_desc *d,
				const uint8_t *payload, struct rte_mbuf *m);

/** Comm rank of a world rank in comm, or UINT32_MAX. */
uint32_t hc_comm_rank_of(const struct hc_comm *comm, uint32_t world_rank);

#endif /* HC_COLL_COLL_H */
