/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-perf's command line (apps/hc-perf/opts.c): values it must refuse
 * with a message naming the option, never run as something else. -b 0
 * (a sweep from 0 stays at 0: before, the size-0 line and an OK end,
 * while --sizes refused 0) and -c other than 0 or 1 (5 ran as 1); next
 * to them what stays accepted, and the sweep from -b 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "opts.h"
#include "suites.h"

#define ARGS_MAX 16
#define MSG_MAX 512

/* The parser's messages of the last parse() (NUL-terminated). */
static char msg[MSG_MAX];

/* parse(o, ARG...): hc_perf_parse_opts on "hc-perf" ARG..., messages in
 * msg; the result's --sizes list freed. */
#define parse(o, ...) \
	parse_args(o, (const char *const[]){ "hc-perf", __VA_ARGS__, NULL })

static int
parse_args(struct opts *o, const char *const *args)
{
	static char store[ARGS_MAX][64];
	char *argv[ARGS_MAX + 1];
	FILE *f;
	int argc, rc;

	for (argc = 0; args[argc] != NULL && argc < ARGS_MAX; argc++) {
		snprintf(store[argc], sizeof(store[argc]), "%s", args[argc]);
		argv[argc] = store[argc];
	}
	argv[argc] = NULL;
	memset(msg, 0, sizeof(msg));
	f = fmemopen(msg, sizeof(msg) - 1, "w");
	if (f == NULL) {
		CU_FAIL("fmemopen");
		return -2;
	}
	rc = hc_perf_parse_opts(argc, argv, o, f);
	fclose(f);
	free(o->list);
	o->list = NULL;
	return rc;
}

static int
msg_has(const char *s)
{
	return strstr(msg, s) != NULL;
}

static int
suite_init(void)
{
	/* the parser reads it; hc-launch sets it for a rank */
	return unsetenv("HC_WORLD_SIZE");
}

/* -b 0: refused (as --sizes 0), whatever -e says. */
static void
test_minbytes_zero(void)
{
	struct opts o;

	CU_ASSERT_EQUAL(parse(&o, "-b", "0", "-e", "32M"), -1);
	CU_ASSERT_TRUE(msg_has("-b 0"));
	CU_ASSERT_EQUAL(parse(&o, "--minbytes", "0", "-e", "0"), -1);
	CU_ASSERT_TRUE(msg_has("-b 0"));
	CU_ASSERT_EQUAL(parse(&o, "-b", "0K", "-e", "8", "-f", "4"), -1);
	CU_ASSERT_TRUE(msg_has("-b 0"));
	CU_ASSERT_EQUAL(parse(&o, "--sizes", "8,0"), -1);
	CU_ASSERT_TRUE(msg_has("--sizes: '0'"));
	/* --sizes stands for -b/-e: a -b 0 beside it is not used */
	CU_ASSERT_EQUAL(parse(&o, "-b", "0", "--sizes", "8,64"), 0);
	CU_ASSERT_EQUAL(o.minbytes, 8);
}

/* -b 1 sweeps 1, 2, 4 up to -e 4 and ends. */
static void
test_sweep_from_one(void)
{
	static const uint64_t want[] = { 1, 2, 4 };
	struct opts o;
	uint64_t s;
	unsigned int k = 0;

	CU_ASSERT_EQUAL_FATAL(parse(&o, "-b", "1", "-e", "4"), 0);
	CU_ASSERT_STRING_EQUAL(msg, "");
	for (s = o.minbytes; s <= o.maxbytes && k < 8;
	     s = hc_perf_next_size(&o, s), k++)
		if (k < 3)
			CU_ASSERT_EQUAL(s, want[k]);
	CU_ASSERT_EQUAL(k, 3);
}

/* -c 0|1 as the usage says; 5, 2, -1 and text refused. */
static void
test_check_values(void)
{
	struct opts o;

	CU_ASSERT_EQUAL(parse(&o, "-c", "0"), 0);
	CU_ASSERT_EQUAL(o.check, 0);
	CU_ASSERT_EQUAL(parse(&o, "--check", "1"), 0);
	CU_ASSERT_EQUAL(o.check, 1);
	CU_ASSERT_EQUAL(parse(&o, "-b", "8"), 0);
	CU_ASSERT_EQUAL(o.check, 1); /* the default */
	CU_ASSERT_EQUAL(parse(&o, "-c", "5"), -1);
	CU_ASSERT_TRUE(msg_has("-c '5': not 0 or 1"));
	CU_ASSERT_EQUAL(parse(&o, "-c", "2"), -1);
	CU_ASSERT_TRUE(msg_has("-c '2': not 0 or 1"));
	CU_ASSERT_EQUAL(parse(&o, "--check", "-1"), -1);
	CU_ASSERT_TRUE(msg_has("-c '-1': not 0 or 1"));
	CU_ASSERT_EQUAL(parse(&o, "-c", "yes"), -1);
	CU_ASSERT_TRUE(msg_has("-c 'yes': not 0 or 1"));
}

static const CU_TestInfo perf_opts_tests[] = {
	{ "-b 0 refused, as --sizes 0", test_minbytes_zero },
	{ "-b 1 -e 4 sweeps 1, 2, 4", test_sweep_from_one },
	{ "-c takes 0 or 1 only", test_check_values },
	CU_TEST_INFO_NULL,
};

void
add_perf_opts_suite(void)
{
	unit_add_suite("perf_opts", suite_init, NULL, perf_opts_tests);
}
