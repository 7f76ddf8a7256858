/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ring all-reduce plan (pure arithmetic, unit-tested on its own).
 *
 * The count elements are cut into n chunks of balanced size (the first
 * count % n chunks one element longer); every chunk is cut into the same
 * number of slices, again balanced, so that the ring runs one pipeline per
 * slice: a slice moves to its next step as soon as its previous step
 * arrived, without waiting for the rest of its chunk.
 *
 * Steps 0..n-2 are reduce-scatter, n-1..2n-3 all-gather. At step j rank r
 * sends to r+1 and receives from r-1:
 *   reduce-scatter: sends chunk (r - j) mod n, receives (r - j - 1) mod n;
 *   all-gather (t = j - (n-1)): sends (r + 1 - t) mod n, receives
 *   (r - t) mod n.
 * What rank r receives at step j is what it sends at step j + 1; after
 * reduce-scatter rank r holds chunk (r + 1) mod n reduced over all ranks.
 * All offsets and counts are 64-bit (elements), so buffers above 2^31
 * elements are fine.
 */
#ifndef HC_COLL_RING_PLAN_H
#define HC_COLL_RING_PLAN_H

#include <stdint.h>

struct hc_ring_plan {
	uint64_t count;   /**< elements */
	uint32_t n;       /**< ranks */
	uint32_t nslices; /**< slices per chunk, >= 1 */
	/** NULL: balanced chunks; else chunk c is elements bounds[c] ..
	 *  bounds[c+1]-1 (n + 1 prefix sums, not owned by the plan), for
	 *  the v-variants whose blocks have per-rank sizes. */
	const uint64_t *bounds;
};

/** Plan count elements of elem_size bytes over n ranks, slices of at most
 *  slice_bytes (at least one element per slice). */
void hc_ring_plan_init(struct hc_ring_plan *p, uint64_t count, uint32_t n,
		       uint32_t elem_size, uint64_t slice_bytes);

/** As hc_ring_plan_init, with chunk c = elements bounds[c] ..
 *  bounds[c+1]-1 (bounds: n + 1 non-decreasing prefix sums, bounds[0] =
 *  0, count = bounds[n]; kept by reference). Slices per chunk follow the
 *  longest chunk; shorter chunks have some empty slices. */
void hc_ring_plan_init_v(struct hc_ring_plan *p, const uint64_t *bounds,
			 uint32_t n, uint32_t elem_size, uint64_t slice_bytes);

/** First element and element count of chunk c, slice k. */
void hc_ring_span(const struct hc_ring_plan *p, uint32_t c, uint32_t k,
		  uint64_t *first, uint64_t *len);

/** The slice of chunk c that holds element e; nslices when e is not in
 *  chunk c. */
uint32_t hc_ring_slice_of(const struct hc_ring_plan *p, uint32_t c,
			  uint64_t e);

/** Steps of the ring: 2(n-1). */
static inline uint32_t
hc_ring_steps(uint32_t n)
{
	return n > 1 ? 2 * (n - 1) : 0;
}

/** Chunk rank r sends at step j. */
static inline uint32_t
hc_ring_send_chunk(uint32_t n, uint32_t r, uint32_t j)
{
	if (j < n - 1)
		return (r + n - j % n) % n;
	return (r + 1 + n - (j - (n - 1)) % n) % n;
}

/** Chunk rank r receives at step j. */
static inline uint32_t
hc_ring_recv_chunk(uint32_t n, uint32_t r, uint32_t j)
{
	return hc_ring_send_chunk(n, r, j + 1);
}

#endif /* HC_COLL_RING_PLAN_H */
