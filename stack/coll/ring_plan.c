/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>

#include "ring_plan.h"

/* Part i of total split into parts balanced parts. */
static void
part(uint64_t total, uint64_t parts, uint64_t i, uint64_t *first,
     uint64_t *len)
{
	uint64_t q = total / parts, rem = total % parts;

	*first = i * q + (i < rem ? i : rem);
	*len = q + (i < rem);
}

/* Slices for chunks of at most chunk elements. */
static uint32_t
nslices(uint64_t chunk, uint32_t elem_size, uint64_t slice_bytes)
{
	uint64_t per = slice_bytes / elem_size;      /* elements per slice */
	uint64_t ns;

	if (per == 0)
		per = 1;
	ns = (chunk + per - 1) / per;
	return ns == 0 ? 1 : (uint32_t)(ns > UINT32_MAX ? UINT32_MAX : ns);
}

void
hc_ring_plan_init(struct hc_ring_plan *p, uint64_t count, uint32_t n,
		  uint32_t elem_size, uint64_t slice_bytes)
{
	p->count = count;
	p->n = n;
	p->bounds = NULL;
	p->nslices = nslices((count + n - 1) / n, elem_size, slice_bytes);
}

void
hc_ring_plan_init_v(struct hc_ring_plan *p, const uint64_t *bounds,
		    uint32_t n, uint32_t elem_size, uint64_t slice_bytes)
{
	uint64_t longest = 0;
	uint32_t c;

	for (c = 0; c < n; c++)
		if (bounds[c + 1] - bounds[c] > longest)
			longest = bounds[c + 1] - bounds[c];
	p->count = bounds[n];
	p->n = n;
	p->bounds = bounds;
	p->nslices = nslices(longest, elem_size, slice_bytes);
}

/* First element and length of chunk c. */
static void
chunk(const struct hc_ring_plan *p, uint32_t c, uint64_t *first,
      uint64_t *len)
{
	if (p->bounds == NULL) {
		part(p->count, p->n, c, first, len);
		return;
	}
	*first = p->bounds[c];
	*len = p->bounds[c + 1] - p->bounds[c];
}

void
hc_ring_span(const struct hc_ring_plan *p, uint32_t c, uint32_t k,
	     uint64_t *first, uint64_t *len)
{
	uint64_t cfirst, clen, sfirst;

	chunk(p, c, &cfirst, &clen);
	part(clen, p->nslices, k, &sfirst, len);
	*first = cfirst + sfirst;
}

uint32_t
hc_ring_slice_of(const struct hc_ring_plan *p, uint32_t c, uint64_t e)
{
	uint64_t cfirst, clen, rel, q, rem;

	chunk(p, c, &cfirst, &clen);
	if (e < cfirst || e - cfirst >= clen)
		return p->nslices;
	rel = e - cfirst;
	q = clen / p->nslices;
	rem = clen % p->nslices;
	if (rel < rem * (q + 1))
		return (uint32_t)(rel / (q + 1));
	return (uint32_t)(rem + (rel - rem * (q + 1)) / q);
}
