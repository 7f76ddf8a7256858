/* SPDX-License-Identifier: BSD-3-Clause */
/* hc-perf's command line (opts.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "hypercomm.h"
#include "opts.h"

const struct coll_info colls[COLL__MAX] = {
	[COLL_ALLREDUCE] = { "allreduce", "all_reduce", 1, 0 },
	[COLL_REDUCESCATTER] = { "reducescatter", "reduce_scatter", 1, 1 },
	[COLL_ALLGATHER] = { "allgather", "all_gather", 0, 1 },
	[COLL_BCAST] = { "bcast", "broadcast", 0, 0 },
	[COLL_REDUCE] = { "reduce", "reduce", 1, 0 },
};

void
hc_perf_usage(FILE *f)
{
	fprintf(f,
"usage: hc-perf [EAL args] -- [options]\n"
"  -b, --minbytes SIZE    smallest size, bytes, K/M/G suffixes, 1 to\n"
"                         1024G (default 32M); not 0, which times the\n"
"                         factor stays 0 (nccl-tests' -b 0 never ends)\n"
"  -e, --maxbytes SIZE    largest size, at most 1024G (default 32M)\n"
"  -f, --stepfactor N     multiply the size by N each step (default 2)\n"
"  -n, --iters N          timed iterations per size (default 20)\n"
"  -w, --warmup_iters N   untimed iterations first (default 5)\n"
"  -c, --check 0|1        check results, count #wrong (default 1); other\n"
"                         values are refused\n"
"  -d, --datatype T       int8|uint8|int32|uint32|int64|uint64|half|\n"
"                         bfloat16|float|double|all (default float)\n"
"  -o, --op OP            sum|prod|min|max|avg|all (default sum); ignored\n"
"                         by allgather and bcast\n"
"      --rank R           this rank (default: HC_RANK)\n"
"      --world-size N     ranks expected (default: HC_WORLD_SIZE, else the\n"
"                         cluster file)\n"
"      --config FILE      cluster file (default: HC_CONFIG)\n"
"      --coll C           allreduce (default), reducescatter, allgather,\n"
"                         bcast, reduce\n"
"  -r, --root R           root of bcast and reduce (default 0); checked\n"
"                         against n, ignored by the others\n"
"  -a, --algo A           all-reduce algorithm: ring | tree (double binary\n"
"                         tree) | hd (halving-doubling) | hier (two-level by\n"
"                         the [rank.N] group key) | rd (recursive\n"
"                         doubling, short messages) | auto (the alpha-beta\n"
"                         tuner; default: [coll] algo, else auto). Sets\n"
"                         HC_ALGO; an algorithm that cannot run this job\n"
"                         (hier with unequal groups) fails the run, and a\n"
"                         forced one other than auto/ring needs --coll\n"
"                         allreduce\n"
"  -P, --percentiles      after each size line, a comment line\n"
"                         '# pct SIZE oop P50 P99 MAX ip P50 P99 MAX' (us):\n"
"                         percentiles of the per-iteration times, each the\n"
"                         slowest rank's time of that iteration\n"
"      --sizes LIST       comma-separated sizes (K/M/G suffixes) instead of\n"
"                         -b/-e/-f, run in the order given\n"
"      --edges            also run one element below and above every size\n"
"                         of the sweep (C33's edges around powers of two)\n"
"      --cpu              the per-packet CPU probe (HC_CPU_STATS=1): a\n"
"                         '# cpu:' line at the end with the stack's ns of\n"
"                         CPU per DATA packet sent and received, payload\n"
"                         work (copy, CRC32C, reduce) excluded\n"
"  -h, --help\n"
"size: bytes of the whole buffer (for reducescatter and allgather all n\n"
"blocks, as nccl-tests). busbw = algbw * 2(n-1)/n for allreduce, * (n-1)/n\n"
"for reducescatter and allgather, * 1 for bcast and reduce; GB/s = 1e9 B/s.\n"
"Run N ranks on one host with: hc-launch -n N hc-perf [options]\n");
}

static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	/* strtoull takes "-1" (as 2^64 - 1) and leading blanks: digits
	 * only (tests/fuzz/fuzz_perf_args found "-e -1", a sweep that
	 * never ended). */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'G': case 'g': mult <<= 10; /* fall through */
	case 'M': case 'm': mult <<= 10; /* fall through */
	case 'K': case 'k': mult <<= 10; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end != '\0' || v > HC_PERF_SIZE_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

static int
parse_int(const char *s, int min, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < min || v > 1000000000)
		return -1;
	*out = (int)v;
	return 0;
}

/* --sizes: "8,1K,4M"; every size > 0. */
static int
parse_list(const char *arg, struct opts *o, FILE *msg)
{
	char buf[4096], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(msg, "hc-perf: --sizes: list too long\n");
		return -1;
	}
	strcpy(buf, arg);
	free(o->list);
	o->list = calloc(SIZES_MAX, sizeof(*o->list));
	if (o->list == NULL)
		return -1;
	o->nlist = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nlist == SIZES_MAX) {
			fprintf(msg, "hc-perf: --sizes: more than %d sizes\n",
				SIZES_MAX);
			return -1;
		}
		if (parse_size(tok, &o->list[o->nlist]) != 0 ||
		    o->list[o->nlist] == 0) {
			fprintf(msg, "hc-perf: --sizes: '%s' is not a size "
				"> 0\n", tok);
			return -1;
		}
		o->nlist++;
	}
	if (o->nlist == 0) {
		fprintf(msg, "hc-perf: --sizes: empty list\n");
		return -1;
	}
	return 0;
}

int
hc_perf_parse_opts(int argc, char **argv, struct opts *o, FILE *msg)
{
	static const struct option lo[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "datatype", required_argument, NULL, 'd' },
		{ "op", required_argument, NULL, 'o' },
		{ "rank", required_argument, NULL, 'R' },
		{ "world-size", required_argument, NULL, 'W' },
		{ "config", required_argument, NULL, 'C' },
		{ "coll", required_argument, NULL, 'L' },
		{ "root", required_argument, NULL, 'r' },
		{ "algo", required_argument, NULL, 'a' },
		{ "percentiles", no_argument, NULL, 'P' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "edges", no_argument, NULL, 'E' },
		{ "cpu", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env;
	int c, f, i;

	*o = (struct opts){ COLL_ALLREDUCE, 0, 32 << 20, 32 << 20, 2, 20, 5, 1,
			    HC_DTYPE_FLOAT32, HC_OP_SUM, -1, 0, NULL, NULL,
			    0, 0, 0, NULL, 0 };
	env = getenv("HC_WORLD_SIZE");
	if (env != NULL && parse_int(env, 1, &o->world) != 0) {
		fprintf(msg, "hc-perf: HC_WORLD_SIZE='%s' is not a size\n", env);
		return -1;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:e:f:n:w:c:d:o:r:a:Ph", lo,
				NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'e':
			if (parse_size(optarg, c == 'b' ? &o->minbytes
							: &o->maxbytes) != 0) {
				fprintf(msg, "hc-perf: -%c '%s': not a size "
					"(digits, K/M/G, at most 1T)\n",
					c, optarg);
				return -1;
			}
			break;
		case 'f':
			if (parse_int(optarg, 2, &f) != 0) {
				fprintf(msg, "hc-perf: -f '%s': need an "
					"integer >= 2\n", optarg);
				return -1;
			}
			o->factor = (uint64_t)f;
			break;
		case 'n':
		case 'w':
			if (parse_int(optarg, c == 'n' ? 1 : 0,
				      c == 'n' ? &o->iters : &o->warmup) != 0) {
				fprintf(msg, "hc-perf: -%c '%s': not a count\n",
					c, optarg);
				return -1;
			}
			break;
		case 'c':
			if (parse_int(optarg, 0, &o->check) != 0 ||
			    o->check > 1) {
				fprintf(msg, "hc-perf: -c '%s': not 0 or 1\n",
					optarg);
				return -1;
			}
			break;
		case 'd':
			o->dtype = -2;
			if (strcmp(optarg, "all") == 0)
				o->dtype = -1;
			for (i = 0; i < HC_DTYPE__MAX; i++)
				if (strcmp(optarg, hc_dtype_name(i)) == 0)
					o->dtype = i;
			if (o->dtype == -2) {
				fprintf(msg, "hc-perf: -d '%s': not a dtype:",
					optarg);
				for (i = 0; i < HC_DTYPE__MAX; i++)
					fprintf(msg, " %s", hc_dtype_name(i));
				fprintf(msg, " or all\n");
				return -1;
			}
			break;
		case 'o':
			o->op = -2;
			if (strcmp(optarg, "all") == 0)
				o->op = -1;
			for (i = 0; i < HC_OP__MAX; i++)
				if (strcmp(optarg, hc_op_name(i)) == 0)
					o->op = i;
			if (o->op == -2) {
				fprintf(msg, "hc-perf: -o '%s': not sum, prod, "
					"min, max, avg or all\n", optarg);
				return -1;
			}
			break;
		case 'r':
			if (parse_int(optarg, 0, &o->root) != 0) {
				fprintf(msg, "hc-perf: -r '%s': not a rank\n",
					optarg);
				return -1;
			}
			break;
		case 'R':
			if (parse_int(optarg, 0, &o->rank) != 0) {
				fprintf(msg, "hc-perf: --rank '%s'\n", optarg);
				return -1;
			}
			break;
		case 'W':
			if (parse_int(optarg, 1, &o->world) != 0) {
				fprintf(msg, "hc-perf: --world-size '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'C':
			o->config = optarg;
			break;
		case 'a':
			if (strcmp(optarg, "ring") != 0 &&
			    strcmp(optarg, "tree") != 0 &&
			    strcmp(optarg, "hd") != 0 &&
			    strcmp(optarg, "hier") != 0 &&
			    strcmp(optarg, "rd") != 0 &&
			    strcmp(optarg, "auto") != 0) {
				fprintf(msg, "hc-perf: -a '%s': not ring, "
					"tree, hd, hier, rd or auto\n", optarg);
				return -1;
			}
			o->algo = optarg;
			break;
		case 'L':
			for (i = 0; i < (int)RTE_DIM(colls); i++)
				if (strcmp(optarg, colls[i].name) == 0)
					break;
			if (i == (int)RTE_DIM(colls)) {
				fprintf(msg, "hc-perf: --coll '%s': not "
					"allreduce, reducescatter, allgather, "
					"bcast or reduce\n", optarg);
				return -1;
			}
			o->coll = (enum coll)i;
			break;
		case 'P':
			o->pct = 1;
			break;
		case 'E':
			o->edges = 1;
			break;
		case 'U':
			o->cpu = 1;
			break;
		case 'S':
			if (parse_list(optarg, o, msg) != 0)
				return -1;
			break;
		case 'h':
			hc_perf_usage(stdout);
			return 1;
		default:
			hc_perf_usage(msg);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(msg, "hc-perf: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->cpu && setenv("HC_CPU_STATS", "1", 1) != 0) {
		fprintf(msg, "hc-perf: cannot set HC_CPU_STATS\n");
		return -1;
	}
	if (o->nlist > 0) { /* the buffers are sized by -e */
		o->minbytes = UINT64_MAX;
		o->maxbytes = 0;
		for (i = 0; i < o->nlist; i++) {
			o->minbytes = RTE_MIN(o->minbytes, o->list[i]);
			o->maxbytes = RTE_MAX(o->maxbytes, o->list[i]);
		}
	}
	/* A sweep from 0 would stay at 0 (0 * factor): the size-0 line, and
	 * then hc_perf_next_size ended it without a word. --sizes refuses 0
	 * too (parse_list). */
	if (o->nlist == 0 && o->minbytes == 0) {
		fprintf(msg, "hc-perf: -b 0: the sweep starts at 1 byte or "
			"more (0 * the factor stays 0)\n");
		return -1;
	}
	if (o->minbytes > o->maxbytes) {
		fprintf(msg, "hc-perf: -b is larger than -e\n");
		return -1;
	}
	if (o->algo != NULL && o->coll != COLL_ALLREDUCE &&
	    strcmp(o->algo, "ring") != 0 && strcmp(o->algo, "auto") != 0) {
		fprintf(msg, "hc-perf: -a %s: only all-reduce has that "
			"algorithm\n", o->algo);
		return -1;
	}
	if (o->algo != NULL && setenv("HC_ALGO", o->algo, 1) != 0) {
		fprintf(msg, "hc-perf: cannot set HC_ALGO\n");
		return -1;
	}
	return 0;
}
