/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The one CUnit main of the sim binaries (test_sim, test_simxport,
 * test_simcoll, test_soak, test_simcases): cunit_main.c starts the EAL
 * (test_eal.h), sets the hc.* log level, registers the binary's suites,
 * runs them in CUnit's verbose mode and stops the EAL. Each binary defines
 * the one struct cunit_bin cunit_bin that says what it registers.
 *
 * HC_SIM_TEST="<test name>" in the environment runs that one test only
 * (the first of that name in the suites' order), for profiling; a name no
 * suite holds fails the run (CUE_NOTEST).
 */
#ifndef HC_TESTS_UNIT_CUNIT_MAIN_H
#define HC_TESTS_UNIT_CUNIT_MAIN_H

#include <stdint.h>

#include <CUnit/CUnit.h>

/** What one binary registers, and how its EAL starts. */
struct cunit_bin {
	const char *prog;	/**< name for messages and the EAL's argv[0] */
	const char *mem_mb;	/**< EAL -m: megabytes of (non-huge) memory */
	const char *stem;	/**< EAL --file-prefix: stem (+ the pid) */
	uint32_t hc_log_level;	/**< RTE_LOG_* level of the hc.* log types */
	CU_SuiteInfo *suites;	/**< ends in CU_SUITE_INFO_NULL */
	/** NULL, or called after the run with the wall time of the whole
	 *  process so far (s), to print the binary's own totals. */
	void (*report)(double wall_s);
};

/** The binary's: defined once in each sim binary. */
extern const struct cunit_bin cunit_bin;

#endif /* HC_TESTS_UNIT_CUNIT_MAIN_H */
