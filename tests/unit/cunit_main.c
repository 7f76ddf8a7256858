/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one CUnit main of the sim binaries (cunit_main.h). Exit status 0
 * only when the run completed, every assertion held and every suite
 * initialised and cleaned up.
 */
#define _GNU_SOURCE /* nftw() in test_eal.h */

#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <rte_log.h>

#include "cunit_main.h"
#include "test_eal.h"

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The one test HC_SIM_TEST names, or the whole registry. */
static CU_ErrorCode
run_selected(const char *only)
{
	CU_pSuite s = NULL;
	CU_pTest t = NULL;
	size_t i;

	if (only == NULL)
		return CU_basic_run_tests();
	for (i = 0; cunit_bin.suites[i].pName != NULL && t == NULL; i++) {
		s = CU_get_suite(cunit_bin.suites[i].pName);
		t = s != NULL ? CU_get_test(s, only) : NULL;
	}
	return t != NULL ? CU_basic_run_test(s, t) : CUE_NOTEST;
}

int
main(void)
{
	const struct cunit_bin *b = &cunit_bin;
	unsigned int failures;
	CU_ErrorCode run;
	double w0 = wall_s();

	/* The binaries allocate and free buffers of megabytes per collective
	 * (simcoll.h: inputs, outputs, expected values per rank). By default
	 * glibc serves those past its mmap threshold from fresh mappings and
	 * trims the heap back to the kernel, so every collective page-faults
	 * its buffers anew (memset and memcpy of fresh pages): 30 % of
	 * test_simcoll's CPU in the kernel's fault path here. Kept in the
	 * heap instead (threshold at glibc's largest, 32 MiB, no trim, 256
	 * MiB of padding per heap growth), HC_SIMCOLL_N=3 took 6.1-8.6 s
	 * instead of 15.0-15.1 s (2026-12-04). ASan's allocator ignores
	 * mallopt; the results do not depend on it. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_TOP_PAD, 256 << 20);
	if (test_eal_init(b->prog, b->mem_mb, b->stem) != 0)
		return EXIT_FAILURE;
	rte_log_set_level_pattern("hc.*", b->hc_log_level);
	if (CU_initialize_registry() != CUE_SUCCESS ||
	    CU_register_suites(b->suites) != CUE_SUCCESS) {
		fprintf(stderr, "%s: %s\n", b->prog, CU_get_error_msg());
		CU_cleanup_registry();
		test_eal_fini();
		return EXIT_FAILURE;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	run = run_selected(getenv("HC_SIM_TEST"));
	if (b->report != NULL)
		b->report(wall_s() - w0);
	failures = CU_get_number_of_failures() +
		   CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	test_eal_fini();
	return run == CUE_SUCCESS && failures == 0 ? EXIT_SUCCESS
						   : EXIT_FAILURE;
}
