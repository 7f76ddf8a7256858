/* SPDX-License-Identifier: BSD-3-Clause */
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

void
hc_ring_plan_init(struct hc_ring_plan *p, uint64_t count, uint32_t n,
		  uint32_t elem_size, uint64_t slice_bytes)
{
	uint64_t chunk = (count + n - 1) / n;        /* longest chunk */
	uint64_t per = slice_bytes / elem_size;      /* elements per slice */
	uint64_t ns;

	if (per == 0)
		per = 1;
	ns = (chunk + per - 1) / per;
	p->count = count;
	p->n = n;
	p->nslices = ns == 0 ? 1 : (uint32_t)(ns > UINT32_MAX ? UINT32_MAX : ns);
}

void
hc_ring_span(const struct hc_ring_plan *p, uint32_t c, uint32_t k,
	     uint64_t *first, uint64_t *len)
{
	uint64_t cfirst, clen, sfirst;

	part(p->count, p->n, c, &cfirst, &clen);
	part(clen, p->nslices, k, &sfirst, len);
	*first = cfirst + sfirst;
}

uint32_t
hc_ring_slice_of(const struct hc_ring_plan *p, uint32_t c, uint64_t e)
{
	uint64_t cfirst, clen, rel, q, rem;

	part(p->count, p->n, c, &cfirst, &clen);
	rel = e - cfirst;
	q = clen / p->nslices;
	rem = clen % p->nslices;
	if (rel < rem * (q + 1))
		return (uint32_t)(rel / (q + 1));
	return (uint32_t)(rem + (rel - rem * (q + 1)) / q);
}
