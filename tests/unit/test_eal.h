/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL for the binaries that need mbuf pools (test_transport, the sim
 * binaries through cunit_main.c, the benchmarks): --no-huge -m <mem_mb>,
 * --no-pci, --no-telemetry, one lcore (lcore 0 on CPU 0, or on the CPU
 * that the environment variable HC_TEST_CPU names: tests/run runs two
 * binaries at once, one on each CPU),
 * DPDK's own logs at error, its own --file-prefix <stem><pid>, and that
 * runtime directory removed at the end.
 */
#ifndef HC_TESTS_UNIT_TEST_EAL_H
#define HC_TESTS_UNIT_TEST_EAL_H

/* nftw needs _GNU_SOURCE (or _XOPEN_SOURCE), defined by the includer
 * before its first include. */
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

/* The runtime directory of this process's EAL: removed by test_eal_fini. */
static char test_eal_runtime_dir[PATH_MAX];

/* Start the EAL; 0 or -1 (printed). */
static inline int
test_eal_init(const char *prog, const char *mem_mb, const char *stem)
{
	char a0[64], a3[16], a7[32], a8[16] = "-l", a9[32] = "0";
	char a1[] = "--no-huge", a2[] = "-m", a4[] = "--no-pci";
	char a5[] = "--no-telemetry", a6[] = "--file-prefix";
	char a10[] = "--log-level=lib.*:error";
	char a11[] = "--log-level=pmd.*:error";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11,
			 NULL };
	const char *rd, *cpu;
	size_t plen;

	snprintf(a0, sizeof(a0), "%s", prog);
	snprintf(a3, sizeof(a3), "%s", mem_mb);
	snprintf(a7, sizeof(a7), "%s%d", stem, (int)getpid());
	cpu = getenv("HC_TEST_CPU");
	if (cpu != NULL && cpu[0] != '\0') {
		char *end;
		unsigned long c = strtoul(cpu, &end, 10);

		if (*end != '\0' || c >= CPU_SETSIZE) {
			fprintf(stderr, "%s: HC_TEST_CPU '%s' is not a CPU "
				"number (0..%d)\n", prog, cpu,
				CPU_SETSIZE - 1);
			return -1;
		}
		snprintf(a8, sizeof(a8), "--lcores");
		snprintf(a9, sizeof(a9), "0@%lu", c);
	}
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", prog,
			rte_strerror(rte_errno));
		return -1;
	}
	/* Our own runtime directory only: its last component must be our
	 * prefix. */
	rd = rte_eal_get_runtime_dir();
	plen = strlen(a7);
	if (rd != NULL && strlen(rd) > plen &&
	    strcmp(rd + strlen(rd) - plen, a7) == 0 &&
	    rd[strlen(rd) - plen - 1] == '/')
		snprintf(test_eal_runtime_dir, sizeof(test_eal_runtime_dir),
			 "%s", rd);
	return 0;
}

static int
test_eal_rm(const char *path, const struct stat *sb, int flag,
	    struct FTW *ftw)
{
	RTE_SET_USED(sb);
	RTE_SET_USED(flag);
	RTE_SET_USED(ftw);
	return remove(path);
}

/* Stop the EAL and remove its runtime directory. */
static inline void
test_eal_fini(void)
{
	rte_eal_cleanup();
	if (test_eal_runtime_dir[0] != '\0')
		nftw(test_eal_runtime_dir, test_eal_rm, 8,
		     FTW_DEPTH | FTW_PHYS);
}

#endif /* HC_TESTS_UNIT_TEST_EAL_H */
