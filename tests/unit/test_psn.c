/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PSN serial-number comparison across wrap-around, and the 128-bit SACK
 * bitmap relative to the cumulative ACK, also where the range wraps.
 */
#include <stdint.h>
#include <stdio.h>

#include <CUnit/CUnit.h>

#include "psn.h"
#include "suites.h"

static void
test_psn_lt(void)
{
	CU_ASSERT_TRUE(hct_psn_lt(0, 1));
	CU_ASSERT_FALSE(hct_psn_lt(1, 0));
	CU_ASSERT_TRUE(hct_psn_lt(0xffffffff, 0));
	CU_ASSERT_FALSE(hct_psn_lt(0, 0xffffffff));
	CU_ASSERT_TRUE(hct_psn_lt(0xfffffff0, 5));
	CU_ASSERT_FALSE(hct_psn_lt(5, 0xfffffff0));
	CU_ASSERT_TRUE(hct_psn_lt(0x7ffffff0, 0x80000010));
	CU_ASSERT_FALSE(hct_psn_lt(0x80000010, 0x7ffffff0));
	/* 2^31 - 1 ahead is still after; nothing is before itself */
	CU_ASSERT_TRUE(hct_psn_lt(10, 10 + 0x7fffffffu));
	CU_ASSERT_FALSE(hct_psn_lt(0, 0));
	CU_ASSERT_FALSE(hct_psn_lt(0xffffffff, 0xffffffff));
}

static void
test_psn_le(void)
{
	CU_ASSERT_TRUE(hct_psn_le(0, 0));
	CU_ASSERT_TRUE(hct_psn_le(0xffffffff, 0xffffffff));
	CU_ASSERT_TRUE(hct_psn_le(0x80000000, 0x80000000));
	CU_ASSERT_TRUE(hct_psn_le(0xffffffff, 0));
	CU_ASSERT_FALSE(hct_psn_le(0, 0xffffffff));
	CU_ASSERT_TRUE(hct_psn_le(0xfffffff0, 5));
	CU_ASSERT_FALSE(hct_psn_le(5, 0xfffffff0));
}

/* A bitmap followed by a guard word: bit 128 and beyond must never be
 * written or read. */
struct sack_guarded {
	uint64_t sack[2];
	uint64_t guard;
};

/* Set psn in an empty bitmap; check the two words afterwards. */
static void
check_set(uint32_t ack, uint32_t psn, uint64_t w0, uint64_t w1)
{
	struct sack_guarded b = { { 0, 0 }, 0 };

	hct_sack_set(b.sack, ack, psn);
	CU_ASSERT_EQUAL(b.sack[0], w0);
	CU_ASSERT_EQUAL(b.sack[1], w1);
	CU_ASSERT_EQUAL(b.guard, 0);
	if (b.sack[0] != w0 || b.sack[1] != w1)
		fprintf(stderr, "\n  ack %#x psn %#x: sack %#llx %#llx, "
			"want %#llx %#llx\n", ack, psn,
			(unsigned long long)b.sack[0],
			(unsigned long long)b.sack[1],
			(unsigned long long)w0, (unsigned long long)w1);
	CU_ASSERT_EQUAL(hct_sack_has(b.sack, ack, psn), w0 != 0 || w1 != 0);
}

/* All the SACK cases relative to one cumulative ACK. */
static void
sack_cases(uint32_t ack)
{
	struct sack_guarded all = { { UINT64_MAX, UINT64_MAX }, UINT64_MAX };
	uint64_t one[2] = { 0, 0 };

	check_set(ack, ack + 1, 1, 0);			/* bit 0 */
	check_set(ack, ack + 2, 2, 0);			/* bit 1 */
	check_set(ack, ack + 64, 1ULL << 63, 0);	/* bit 63 */
	check_set(ack, ack + 65, 0, 1);		/* word 1 bit 0 */
	check_set(ack, ack + 128, 0, 1ULL << 63);	/* the last bit */
	check_set(ack, ack + 129, 0, 0);		/* past the end */
	check_set(ack, ack + 0x10000, 0, 0);
	check_set(ack, ack, 0, 0);			/* acked already */
	check_set(ack, ack - 1, 0, 0);		/* before the ack */
	check_set(ack, ack - 128, 0, 0);
	check_set(ack, ack + 0x80000000u, 0, 0);	/* half a space off */

	/* has() on a full bitmap: exactly ack+1 .. ack+128 */
	CU_ASSERT_FALSE(hct_sack_has(all.sack, ack, ack));
	CU_ASSERT_FALSE(hct_sack_has(all.sack, ack, ack - 1));
	CU_ASSERT_TRUE(hct_sack_has(all.sack, ack, ack + 1));
	CU_ASSERT_TRUE(hct_sack_has(all.sack, ack, ack + 64));
	CU_ASSERT_TRUE(hct_sack_has(all.sack, ack, ack + 65));
	CU_ASSERT_TRUE(hct_sack_has(all.sack, ack, ack + 128));
	CU_ASSERT_FALSE(hct_sack_has(all.sack, ack, ack + 129));
	CU_ASSERT_FALSE(hct_sack_has(all.sack, ack, ack + 192));

	/* several bits accumulate; has() sees exactly those */
	hct_sack_set(one, ack, ack + 1);
	hct_sack_set(one, ack, ack + 64);
	hct_sack_set(one, ack, ack + 65);
	hct_sack_set(one, ack, ack + 128);
	hct_sack_set(one, ack, ack + 129);
	hct_sack_set(one, ack, ack);
	CU_ASSERT_EQUAL(one[0], (1ULL << 63) | 1);
	CU_ASSERT_EQUAL(one[1], (1ULL << 63) | 1);
	CU_ASSERT_TRUE(hct_sack_has(one, ack, ack + 1));
	CU_ASSERT_FALSE(hct_sack_has(one, ack, ack + 2));
	CU_ASSERT_FALSE(hct_sack_has(one, ack, ack + 63));
	CU_ASSERT_TRUE(hct_sack_has(one, ack, ack + 64));
	CU_ASSERT_TRUE(hct_sack_has(one, ack, ack + 65));
	CU_ASSERT_FALSE(hct_sack_has(one, ack, ack + 66));
	CU_ASSERT_TRUE(hct_sack_has(one, ack, ack + 128));
	CU_ASSERT_FALSE(hct_sack_has(one, ack, ack + 129));
}

static void
test_sack_plain(void)
{
	sack_cases(1000);
}

/* ack + 64 is PSN 0: the bitmap spans the wrap of the PSN space. */
static void
test_sack_wrapping(void)
{
	sack_cases(0xffffffc0);
	check_set(0xffffffc0, 0, 1ULL << 63, 0);
	check_set(0xffffffc0, 1, 0, 1);
	check_set(0xffffffc0, 0x40, 0, 1ULL << 63);
	check_set(0xffffffc0, 0x41, 0, 0);
}

/* ack = 0xffffffff: bit 0 is PSN 0; ack = 0: PSN 0xffffffff is before. */
static void
test_sack_edges(void)
{
	sack_cases(0xffffffff);
	check_set(0xffffffff, 0, 1, 0);
	sack_cases(0);
	check_set(0, 0xffffffff, 0, 0);
	check_set(0, 128, 0, 1ULL << 63);
}

static const CU_TestInfo psn_tests[] = {
	{ "psn_lt across wrap-around", test_psn_lt },
	{ "psn_le across wrap-around", test_psn_le },
	{ "SACK bits relative to ack 1000", test_sack_plain },
	{ "SACK bits with ack 0xffffffc0 (range wraps)", test_sack_wrapping },
	{ "SACK bits with ack 0xffffffff and 0", test_sack_edges },
	CU_TEST_INFO_NULL,
};

void
add_psn_suite(void)
{
	unit_add_suite("psn", NULL, NULL, psn_tests);
}
