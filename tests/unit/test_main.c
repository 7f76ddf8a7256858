/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_unit: every CUnit suite of tests/unit, run with the basic interface
 * in verbose mode. Exit status 0 only when every assertion held, every
 * suite initialised and every test was registered.
 *
 * None of the code under test needs the EAL: ARP, checksums, headers, the
 * ring plan, reduction kernels and the config loader (rte_cfgfile, rte_log)
 * are plain functions, so no rte_eal_init() here; nor does hc-perf's
 * command-line parser (apps/hc-perf/opts.c), compiled in from its
 * library's objects.
 */
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>

#include "suites.h"

unsigned int unit_register_errors;

int
main(void)
{
	unsigned int failures, suites_failed;
	CU_ErrorCode run;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "test_unit: %s\n", CU_get_error_msg());
		return EXIT_FAILURE;
	}
	add_hdr_suite();
	add_cksum_suite();
	add_arp_suite();
	add_psn_suite();
	add_ring_plan_suite();
	add_reduce_suite();
	add_config_suite();
	add_boot_suite();
	add_accum_suite();
	add_kernels_suite();
	add_plan_suite();
	add_prepare_suite();
	add_tmpl_suite();
	add_perf_opts_suite();
	if (unit_register_errors != 0) {
		fprintf(stderr, "test_unit: %u suites or tests not registered: "
			"%s\n", unit_register_errors, CU_get_error_msg());
		CU_cleanup_registry();
		return EXIT_FAILURE;
	}

	CU_basic_set_mode(CU_BRM_VERBOSE);
	run = CU_basic_run_tests();
	if (run != CUE_SUCCESS)
		fprintf(stderr, "test_unit: %s\n", CU_get_error_msg());
	failures = CU_get_number_of_failures();
	suites_failed = CU_get_number_of_suites_failed();
	printf("\ntest_unit: %u asserts, %u failed; %u suites failed to "
	       "initialise or clean up\n", CU_get_number_of_asserts(),
	       failures, suites_failed);
	CU_cleanup_registry();
	if (run != CUE_SUCCESS || failures != 0 || suites_failed != 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}
