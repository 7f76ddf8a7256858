/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * All-reduce algorithm selection: an alpha-beta cost model per algorithm
 * (Hockney's model as used by Thakur, Rabenseifner, Gropp, IJHPCA 19(1),
 * 2005, and by NCCL's tuner: time = steps * alpha + bytes * beta * factor)
 * fed with alpha and beta measured when the world is brought up and agreed
 * on by every rank, so that every rank picks the same algorithm for the
 * same call (a disagreement would be a hang; the algorithm also enters the
 * signature, so it shows as HC_ERR_MISMATCH instead).
 *
 * For B bytes, n ranks, p the largest power of two <= n, m groups of g:
 *   ring: steps 2(n-1),            factor 2(n-1)/n  (Patarasuk, Yuan 2009)
 *   tree: steps 2 ceil(log2 n),    factor 2: each rank is interior in one
 *         tree (receives 2 halves-of-half, sends 1 up and 2 down) and a
 *         leaf in the other, 2B in and out over both (Sanders et al. 2009;
 *         pipelining hides the depth in the bandwidth term)
 *   hd:   steps 2 log2 p,          factor 2(p-1)/p, plus 2 steps and
 *         factor 2 when n != p (whole vector in the pre- and post-step;
 *         Thakur et al. 2005, 4.4)
 *   hier: steps 2 + hd(m) steps,   factor 2(g-1)/g + hd(m) factor / g
 *         (only when m > 1, g > 1 and the groups are equal)
 *   rd:   steps log2 p,            factor 2 log2 p, plus 2 steps and
 *         factor 2 when n != p (pre- and post-step; Thakur et al. 2005,
 *         4.4, recursive doubling). The whole vector goes out every step
 *         (log2 p), and every step first copies it (the snapshot, rd.c):
 *         a second pass over B, counted at beta, which on memif is itself
 *         a memory copy. Without it the model would pick rd at n = 2 for
 *         every size (1 step, factor 1 against the ring's 2 steps, factor
 *         1), but on 2 memif ranks rd measured 1.2-1.4x the ring's time
 *         at 2 and 8 MiB (load 5: 3080/3048 against 2568/2684 us at
 *         2 MiB, 13644/14459 against 10606/10156 us at 8 MiB); below
 *         512 KiB it was as fast or faster.
 */
#ifndef HC_COLL_TUNE_H
#define HC_COLL_TUNE_H

#include <stdint.h>

/** The all-reduce algorithms; AUTO asks the tuner. */
enum hc_algo_id {
	HC_ALGO_AUTO = 0,
	HC_ALGO_RING,
	HC_ALGO_TREE,
	HC_ALGO_HD,
	HC_ALGO_HIER,
	HC_ALGO_RD,     /**< recursive doubling (rd.c), short messages */
	HC_ALGO__MAX,
};

/** Link parameters every rank of a communicator holds alike. */
struct hc_tune {
	double alpha_ns;      /**< per-step latency, ns */
	double beta_ns;       /**< per-byte time, ns/byte */
};

/** Shape a cost depends on. */
struct hc_tune_shape {
	uint32_t n;           /**< ranks */
	uint32_t groups;      /**< m: groups of the `group` key */
	uint32_t gsize;       /**< g: ranks per group, 0 if unequal */
};

/** "ring", "tree", "hd", "hier", "rd", "auto" for an id. */
const char *hc_algo_id_name(enum hc_algo_id a);

/** Id of a name (as above), or -1 when unknown. */
int hc_algo_id_parse(const char *name);

/** Can algorithm a run an all-reduce of this shape? (hier: equal groups;
 *  AUTO and the others: always.) */
int hc_tune_can_run(enum hc_algo_id a, const struct hc_tune_shape *sh);

/** Predicted time of algorithm a for an all-reduce of bytes bytes, ns
 *  (the model above); -1 when a cannot run this shape. */
double hc_tune_cost(enum hc_algo_id a, const struct hc_tune_shape *sh,
		    const struct hc_tune *t, double bytes);

/** The runnable algorithm of least predicted time (ties: the lower id,
 *  ring first). */
enum hc_algo_id hc_tune_pick(const struct hc_tune_shape *sh,
			     const struct hc_tune *t, double bytes);

/**
 * alpha and beta from two timed ring all-gathers on n ranks (the tuner's
 * probes, probe.c): one of small_bytes per rank that took small_ns, one
 * of big_bytes per rank that took big_ns, each the quickest of several
 * runs of back-to-back ops, per op.
 * A ring all-gather is n-1 steps, each one block from the left
 * neighbour, so its time is (n-1) (alpha + bytes beta): two points, two
 * unknowns. Both come from the same kind of timing, so a process
 * descheduled for milliseconds while the flows came up (which inflates
 * the SRTT) cannot skew one against the other.
 *
 * When the big probe was not slower per byte than the small one (noise:
 * the small ones all ran in a slow moment), beta is the big probe's time
 * per byte and alpha at most the big probe's time per step. Measured
 * 2026-12-04 with the old estimate (alpha = half the SRTT after the
 * probe barriers, beta = (T_big - (n-1) alpha) / ((n-1) bytes), at least
 * 0): over virtio on 2 ranks, 3 runs of 58 got alpha 99 to 1847 us
 * and beta 0, so recursive doubling (1 step, factor 2 at n = 2) won at
 * every size, and rd at 32 MiB took 200-240 ms per all-reduce against
 * 19-22 ms for the ring (0.16 against 1.7 GB/s busbw); under this rule
 * such probes cap rd at the big probe's size.
 *
 * @param n           ranks (>= 2; else *out is all 0)
 * @param small_ns    the small probe's time, ns
 * @param small_bytes its bytes per rank (< big_bytes)
 * @param big_ns      the big probe's time, ns
 * @param big_bytes   its bytes per rank
 * @param[out] out    alpha (ns per step, >= 0) and beta (ns per byte,
 *                    > 0 when big_ns > 0)
 */
void hc_tune_fit(uint32_t n, uint64_t small_ns, uint64_t small_bytes,
		 uint64_t big_ns, uint64_t big_bytes, struct hc_tune *out);

/**
 * Sizes where the pick changes, scanning bytes = 1, 2, 4, ... 2^40 and
 * refining each change by bisection to the byte: out[i] is the smallest
 * size whose pick differs from that of the size before, from[i] and
 * to[i] the picks on either side. @return the number of changes (at most
 * max are stored).
 */
uint32_t hc_tune_switches(const struct hc_tune_shape *sh,
			  const struct hc_tune *t, uint64_t *out,
			  enum hc_algo_id *from, enum hc_algo_id *to,
			  uint32_t max);

/**
 * Size in bytes where algorithms a and b cost the same (the one with fewer
 * steps is cheaper below it), rounded down; 0 when their lines do not
 * cross at a positive size or either cannot run this shape.
 */
double hc_tune_crossover(enum hc_algo_id a, enum hc_algo_id b,
			 const struct hc_tune_shape *sh,
			 const struct hc_tune *t);

#endif /* HC_COLL_TUNE_H */
