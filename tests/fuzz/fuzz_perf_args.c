/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: hc-perf's command-line parser (hc_perf_parse_opts,
 * apps/hc-perf/opts.c), the options after the EAL's "--". Input: the
 * arguments separated by NUL bytes (at most 32; argv[0] is "hc-perf").
 * Asserted on success: 1 <= -b <= -e, factor >= 2, iterations >= 1, -c 0
 * or 1, dtype and op in range or "all", a root and a rank >= 0, a known
 * collective, and a size sweep (hc_perf_next_size, the loop of hc-perf's
 * main) that ends within 70 sizes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hypercomm.h"
#include "opts.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARGS_MAX 32

static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (devnull == NULL)
		abort();
	unsetenv("HC_WORLD_SIZE");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4096 + 1];
	char *argv[ARGS_MAX + 2];
	struct opts o;
	uint64_t s;
	size_t i, n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
	int argc = 1, k, rc;

	memcpy(buf, data, n);
	buf[n] = '\0';
	argv[0] = (char *)"hc-perf";
	for (i = 0; i <= n && argc <= ARGS_MAX; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	if (n == 0)
		argc = 1;
	argv[argc] = NULL;
	rc = hc_perf_parse_opts(argc, argv, &o, devnull);
	free(o.list); /* --sizes (the values were range-checked: > 0) */
	o.list = NULL;
	if (rc != 0)
		return 0;
	if (o.minbytes == 0 || o.minbytes > o.maxbytes || o.factor < 2 ||
	    o.iters < 1 || o.warmup < 0 || o.check < 0 || o.check > 1 ||
	    o.dtype < -1 || o.dtype >= HC_DTYPE__MAX || o.op < -1 ||
	    o.op >= HC_OP__MAX || o.root < 0 || o.rank < -1 || o.world < 0 ||
	    (unsigned int)o.coll >= COLL__MAX)
		abort();
	for (s = o.minbytes, k = 0; s <= o.maxbytes;
	     s = hc_perf_next_size(&o, s))
		if (++k > 70)
			abort(); /* the sweep would not end */
	return 0;
}
