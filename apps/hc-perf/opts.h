/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-perf's command line (opts.c): the options after the EAL's "--",
 * parsed into struct opts, in a file of its own so that the fuzz harness
 * tests/fuzz/fuzz_perf_args.c calls the very parser hc-perf runs.
 */
#ifndef HC_APPS_HC_PERF_OPTS_H
#define HC_APPS_HC_PERF_OPTS_H

#include <stdint.h>
#include <stdio.h>

/* The collective measured, nccl-tests' conventions: "size" is the bytes
 * of the whole buffer (all ranks' blocks for reduce-scatter and
 * all-gather), busbw = algbw * factor. */
enum coll { COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLGATHER, COLL_BCAST,
	    COLL_REDUCE, COLL__MAX };

struct coll_info {
	const char *name;   /* --coll value */
	const char *title;  /* nccl-tests binary it matches */
	int reduces;        /* has an op */
	int blocks;         /* size is n blocks of count/n */
};

extern const struct coll_info colls[COLL__MAX];

/* Largest -b/-e: 1 TiB (hc-perf allocates two buffers of -e bytes; more
 * is a typo, and a size near 2^64 made the sweep wrap). */
#define HC_PERF_SIZE_MAX (1ULL << 40)

struct opts {
	enum coll coll;
	int root;
	uint64_t minbytes, maxbytes, factor;
	int iters, warmup;
	int check;         /* -c: 0 or 1 */
	int dtype; /* -1: all */
	int op;    /* -1: all */
	int rank, world;
	const char *config;
	const char *algo;  /* -a: exported as HC_ALGO before hc_init */
	int pct;           /* -P: per-iteration percentiles */
	int cpu;           /* --cpu: the per-packet CPU probe */
	int edges;         /* --edges: +-1 element around each size */
	uint64_t *list;    /* --sizes: these sizes instead of -b/-e/-f
	                    * (malloc'd; the caller frees it) */
	int nlist;
};

/* Most sizes --sizes takes. */
#define SIZES_MAX 256

/* The usage text, to f. */
void hc_perf_usage(FILE *f);

/*
 * Parse argv[1..argc-1] (getopt_long from optind 1) into *o, reading
 * HC_WORLD_SIZE, and export HC_ALGO for -a and HC_CPU_STATS=1 for --cpu. Problems are printed, one
 * line each, to msg (usage text: to stdout for -h, to msg otherwise).
 * @return 0, 1 when -h asked for the usage (printed; exit 0), -1 on a
 *         bad option (printed).
 */
int hc_perf_parse_opts(int argc, char **argv, struct opts *o, FILE *msg);

/* The size after size in the sweep minbytes, minbytes * factor, ... up
 * to maxbytes: above maxbytes when the sweep ends (also when the product
 * would exceed it; maxbytes <= HC_PERF_SIZE_MAX, so maxbytes + 1 does
 * not wrap). A size of 0 ends it too: it would never grow, and
 * hc_perf_parse_opts refuses -b 0. */
static inline uint64_t
hc_perf_next_size(const struct opts *o, uint64_t size)
{
	return size != 0 && size <= o->maxbytes / o->factor ?
	       size * o->factor : o->maxbytes + 1;
}

#endif /* HC_APPS_HC_PERF_OPTS_H */
