/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring all-reduce plan: chunk/slice spans partition [0, count) for
 * every rank count and awkward element counts (also above 2^31), slices
 * map back, and a symbolic run of the step schedule reduces every
 * contribution exactly once and leaves every rank with the whole result.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/CUnit.h>

#include "ring_plan.h"
#include "suites.h"

#define MAX_RANKS 13

struct span {
	uint64_t first;
	uint64_t len;
	uint32_t c;
	uint32_t k;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return 0;
}

/*
 * Plan count elements over n ranks and check its spans: sorted by first
 * element they follow each other without gap or overlap from 0 to count,
 * and hc_ring_slice_of() maps every span's first and last element to its
 * slice. Prints the first problem; returns the number of problems.
 */
static unsigned int
check_plan(uint64_t count, uint32_t n, uint32_t elem, uint64_t slice_bytes,
	   uint64_t *max_end)
{
	struct hc_ring_plan p;
	struct span *s;
	uint64_t nspans, i, pos = 0, sum = 0;
	unsigned int bad = 0;
	uint32_t c, k;

	hc_ring_plan_init(&p, count, n, elem, slice_bytes);
	if (p.nslices == 0) {
		fprintf(stderr, "\n  count %" PRIu64 " n %u: 0 slices\n",
			count, n);
		return 1;
	}
	nspans = (uint64_t)n * p.nslices;
	s = malloc(nspans * sizeof(*s));
	if (s == NULL) {
		fprintf(stderr, "\n  no memory for %" PRIu64 " spans\n",
			nspans);
		return 1;
	}
	*max_end = 0;
	for (c = 0, i = 0; c < n; c++)
		for (k = 0; k < p.nslices; k++, i++) {
			hc_ring_span(&p, c, k, &s[i].first, &s[i].len);
			s[i].c = c;
			s[i].k = k;
			sum += s[i].len;
			if (s[i].first + s[i].len > *max_end)
				*max_end = s[i].first + s[i].len;
			if (s[i].len == 0)
				continue;
			if (hc_ring_slice_of(&p, c, s[i].first) != k ||
			    hc_ring_slice_of(&p, c, s[i].first + s[i].len - 1)
			    != k) {
				if (bad++ == 0)
					fprintf(stderr, "\n  count %" PRIu64
						" n %u elem %u slice %" PRIu64
						": slice_of chunk %u slice %u"
						" -> %u, %u\n", count, n,
						elem, slice_bytes, c, k,
						hc_ring_slice_of(&p, c,
							s[i].first),
						hc_ring_slice_of(&p, c,
							s[i].first +
							s[i].len - 1));
			}
		}
	qsort(s, nspans, sizeof(*s), span_cmp);
	for (i = 0; i < nspans; i++) {
		if (s[i].first != pos) {
			if (bad++ == 0)
				fprintf(stderr, "\n  count %" PRIu64 " n %u "
					"elem %u slice %" PRIu64 ": chunk %u "
					"slice %u starts at %" PRIu64
					", expected %" PRIu64 "\n", count, n,
					elem, slice_bytes, s[i].c, s[i].k,
					s[i].first, pos);
			break;
		}
		pos += s[i].len;
	}
	if (bad == 0 && pos != count) {
		fprintf(stderr, "\n  count %" PRIu64 " n %u: spans end at %"
			PRIu64 "\n", count, n, pos);
		bad++;
	}
	if (sum != count) {
		fprintf(stderr, "\n  count %" PRIu64 " n %u: lengths sum to %"
			PRIu64 "\n", count, n, sum);
		bad++;
	}
	free(s);
	return bad;
}

/* n = 1..13; counts 0, 1, n-1, n+1, 1000003; 4- and 8-byte elements;
 * slices of 256 KiB and of 16 bytes (2 to 4 elements). */
static void
test_spans_partition(void)
{
	static const uint32_t elems[] = { 4, 8 };
	static const uint64_t slices[] = { 262144, 16 };
	uint64_t counts[5], max_end;
	uint32_t n, ci, ei, si;

	for (n = 1; n <= MAX_RANKS; n++) {
		counts[0] = 0;
		counts[1] = 1;
		counts[2] = n - 1;
		counts[3] = n + 1;
		counts[4] = 1000003;
		for (ci = 0; ci < 5; ci++)
			for (ei = 0; ei < 2; ei++)
				for (si = 0; si < 2; si++) {
					CU_ASSERT_EQUAL(check_plan(counts[ci],
						n, elems[ei], slices[si],
						&max_end), 0);
					CU_ASSERT_EQUAL(max_end, counts[ci]);
				}
	}
}

/* Whole-slice arithmetic: 1000003 4-byte elements, 3 ranks, 256 KiB
 * slices -> chunks of 333335, 333334, 333334 elements; 65536 elements
 * per slice -> 6 slices, the first chunk's 5 of 55556 and one of 55555. */
static void
test_span_values(void)
{
	struct hc_ring_plan p;
	uint64_t first, len;

	hc_ring_plan_init(&p, 1000003, 3, 4, 262144);
	CU_ASSERT_EQUAL(p.count, 1000003);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_EQUAL(p.nslices, 6);
	hc_ring_span(&p, 0, 0, &first, &len);
	CU_ASSERT_EQUAL(first, 0);
	CU_ASSERT_EQUAL(len, 55556);
	hc_ring_span(&p, 0, 5, &first, &len);
	CU_ASSERT_EQUAL(first, 5 * 55556);
	CU_ASSERT_EQUAL(len, 55555);
	hc_ring_span(&p, 1, 0, &first, &len);
	CU_ASSERT_EQUAL(first, 333335);
	CU_ASSERT_EQUAL(len, 55556);
	hc_ring_span(&p, 2, 5, &first, &len);
	CU_ASSERT_EQUAL(first + len, 1000003);
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 1, 333335 + 55556), 1);

	/* fewer elements than ranks: one element each, then empty chunks */
	hc_ring_plan_init(&p, 2, 5, 8, 262144);
	CU_ASSERT_EQUAL(p.nslices, 1);
	hc_ring_span(&p, 1, 0, &first, &len);
	CU_ASSERT_EQUAL(first, 1);
	CU_ASSERT_EQUAL(len, 1);
	hc_ring_span(&p, 4, 0, &first, &len);
	CU_ASSERT_EQUAL(len, 0);

	/* no elements at all: still one (empty) slice per chunk */
	hc_ring_plan_init(&p, 0, 4, 4, 262144);
	CU_ASSERT_EQUAL(p.nslices, 1);
	hc_ring_span(&p, 3, 0, &first, &len);
	CU_ASSERT_EQUAL(len, 0);
}

/* 2^31 + 5 elements (and 2^32 + 100003): offsets past 2^31 stay exact. */
static void
test_spans_above_2g(void)
{
	static const uint32_t ranks[] = { 3, 7 };
	const uint64_t count = (1ULL << 31) + 5;
	struct hc_ring_plan p;
	uint64_t max_end, first, len;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(check_plan(count, ranks[i], 4, 262144,
					   &max_end), 0);
		CU_ASSERT_EQUAL(max_end, count);
		CU_ASSERT_EQUAL(check_plan(count, ranks[i], 8, 262144,
					   &max_end), 0);
		CU_ASSERT_EQUAL(max_end, count);
	}
	/* and above 2^32, where a 32-bit unsigned offset would wrap too */
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(check_plan((1ULL << 32) + 100003, ranks[i], 8,
					   262144, &max_end), 0);
		CU_ASSERT_EQUAL(max_end, (1ULL << 32) + 100003);
	}
	/* 2^31 + 5 = 3 * 715827884 + 1: chunk 2 starts at 1431655769 */
	hc_ring_plan_init(&p, count, 3, 4, 262144);
	hc_ring_span(&p, 2, 0, &first, &len);
	CU_ASSERT_EQUAL(first, 1431655769ULL);
	hc_ring_span(&p, 2, p.nslices - 1, &first, &len);
	CU_ASSERT_EQUAL(first + len, count);
	CU_ASSERT_EQUAL(hc_ring_slice_of(&p, 2, count - 1), p.nslices - 1);
}

static void
test_steps(void)
{
	uint32_t n;

	CU_ASSERT_EQUAL(hc_ring_steps(1), 0);
	for (n = 2; n <= MAX_RANKS; n++)
		CU_ASSERT_EQUAL(hc_ring_steps(n), 2 * (n - 1));
	CU_ASSERT_EQUAL(hc_ring_steps(1024), 2046);
}

/*
 * The schedule without a network: have[r][c] is the set of ranks whose
 * contribution rank r's copy of chunk c holds. At step j every rank r sends
 * hc_ring_send_chunk(n, r, j) to r + 1, which reduces it into its copy
 * during reduce-scatter (j < n - 1) and overwrites its copy during
 * all-gather.
 */
static void
run_schedule(uint32_t n)
{
	uint32_t have[MAX_RANKS][MAX_RANKS], msg[MAX_RANKS];
	uint32_t sent[MAX_RANKS];
	const uint32_t all = (1u << n) - 1;
	uint32_t r, c, j, to, rc;
	unsigned int bad = 0;

	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			have[r][c] = 1u << r;
	for (j = 0; j < hc_ring_steps(n); j++) {
		for (r = 0; r < n; r++) {
			sent[r] = hc_ring_send_chunk(n, r, j);
			CU_ASSERT_TRUE_FATAL(sent[r] < n);
			msg[r] = have[r][sent[r]];
		}
		for (r = 0; r < n; r++) {
			to = (r + 1) % n;
			rc = hc_ring_recv_chunk(n, to, j);
			CU_ASSERT_EQUAL(rc, sent[r]);
			if (rc != sent[r]) {
				bad++;
				continue;
			}
			if (j < n - 1) {
				/* no contribution reduced twice */
				CU_ASSERT_EQUAL(have[to][rc] & msg[r], 0);
				have[to][rc] |= msg[r];
			} else {
				CU_ASSERT_EQUAL(msg[r], all);
				have[to][rc] = msg[r];
			}
		}
		/* after reduce-scatter rank r owns chunk r + 1, complete */
		if (j == n - 2)
			for (r = 0; r < n; r++)
				CU_ASSERT_EQUAL(have[r][(r + 1) % n], all);
	}
	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			if (have[r][c] != all)
				bad++;
	CU_ASSERT_EQUAL(bad, 0);
	if (bad != 0)
		fprintf(stderr, "\n  n %u: %u chunks incomplete or misrouted\n",
			n, bad);
}

static void
test_schedule(void)
{
	uint32_t n;

	for (n = 1; n <= MAX_RANKS; n++)
		run_schedule(n);
}

static const CU_TestInfo ring_plan_tests[] = {
	{ "ring_steps = 2(n-1)", test_steps },
	{ "span values for 1000003 elements over 3 ranks", test_span_values },
	{ "spans partition [0, count), slice_of maps back",
	  test_spans_partition },
	{ "spans of 2^31 + 5 and 2^32 + 100003 elements, 3 and 7 ranks",
	  test_spans_above_2g },
	{ "symbolic ring schedule, n = 1..13", test_schedule },
	CU_TEST_INFO_NULL,
};

void
add_ring_plan_suite(void)
{
	unit_add_suite("ring_plan", NULL, NULL, ring_plan_tests);
}
