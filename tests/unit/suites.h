/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The suites of test_unit. Each test_<name>.c registers its suite with
 * add_<name>_suite(); test_main.c calls them all and runs the registry.
 */
#ifndef HC_TESTS_UNIT_SUITES_H
#define HC_TESTS_UNIT_SUITES_H

#include <CUnit/CUnit.h>

/** Number of suites or tests CUnit refused to register (test_main.c). */
extern unsigned int unit_register_errors;

/**
 * Register suite name with its tests (a table ending in CU_TEST_INFO_NULL);
 * count every refusal in unit_register_errors so that main fails.
 */
static inline void
unit_add_suite(const char *name, CU_InitializeFunc init,
	       CU_CleanupFunc cleanup, const CU_TestInfo *tests)
{
	CU_pSuite s = CU_add_suite(name, init, cleanup);

	if (s == NULL) {
		unit_register_errors++;
		return;
	}
	for (; tests->pName != NULL; tests++)
		if (CU_add_test(s, tests->pName, tests->pTestFunc) == NULL)
			unit_register_errors++;
}

void add_hdr_suite(void);
void add_cksum_suite(void);
void add_arp_suite(void);
void add_psn_suite(void);
void add_ring_plan_suite(void);
void add_reduce_suite(void);
void add_config_suite(void);
void add_boot_suite(void);
void add_accum_suite(void);
void add_kernels_suite(void);
void add_sched_suite(void); /* in test_transport, which has the EAL */
void add_plan_suite(void);
void add_prepare_suite(void);
void add_tmpl_suite(void);
void add_perf_opts_suite(void); /* hc-perf's command line (apps/hc-perf) */

#endif /* HC_TESTS_UNIT_SUITES_H */
