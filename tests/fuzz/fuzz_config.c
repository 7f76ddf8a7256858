/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the cluster-file loader (hc_config_load,
 * stack/engine/config.c, on rte_cfgfile) fed the input as the file (one
 * temporary file, rewritten per input, removed at exit). On success the
 * loaded config must hold what the loader promises:
 * world_size 1..HC_MAX_RANKS, job id non-zero, every rank with 1..16
 * ports and at most HC_RANK_ROUTES_MAX routes whose ports exist, distinct
 * rank IPs, and hc_config_route answering for every pair of ranks (up to
 * 64 ranks checked).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "hypercomm.h"
#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
rm_path(void)
{
	unlink(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/hc-fuzz-config.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(1);
	}
	close(fd);
	atexit(rm_path);
	/* The loader and rte_cfgfile log every problem at ERR: not wanted
	 * per input (writing them was most of the time of a run). */
	rte_log_set_global_level(RTE_LOG_EMERG);
	rte_log_set_level_pattern("*", RTE_LOG_EMERG);
	/* The environment overrides are the loader's too: none here. */
	unsetenv("HC_FAULT");
	unsetenv("HC_FAULT_SEED");
	unsetenv("HC_FAULT_DROP_DATA_PCT");
	unsetenv("HC_FAULT_DROP_LAST_ONCE");
	unsetenv("HC_ALGO");
	return 0;
}

static void
check(const struct hc_config *cfg)
{
	uint32_t r, q, k, n;
	struct hc_route rt;

	if (cfg->world_size < 1 || cfg->world_size > HC_MAX_RANKS ||
	    cfg->job_id == 0 || cfg->ranks == NULL)
		abort();
	for (r = 0; r < cfg->world_size; r++) {
		const struct hc_rank_conf *rc = &cfg->ranks[r];

		if (rc->nports < 1 || rc->nports > HC_RANK_PORTS_MAX ||
		    rc->nroutes > HC_RANK_ROUTES_MAX ||
		    rc->group > HC_GROUP_MAX || rc->ip == 0)
			abort();
		for (k = 0; k < rc->nroutes; k++)
			if (rc->routes[k].port >= rc->nports ||
			    rc->routes[k].len > 32)
				abort();
		for (k = 0; k < rc->nports; k++)
			if (memchr(hc_rank_port(rc, k), '\0',
				   HC_PORT_DEVARGS_MAX) == NULL)
				abort();
	}
	n = cfg->world_size < 64 ? cfg->world_size : 64;
	for (r = 0; r < n; r++)
		for (q = 0; q < n; q++) {
			if (q == r)
				continue;
			if (cfg->ranks[r].ip == cfg->ranks[q].ip)
				abort();
			if (hc_config_route(cfg, r, q, &rt) != 0 ||
			    rt.port >= cfg->ranks[r].nports || rt.next_hop == 0)
				abort();
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hc_config cfg;
	FILE *f;

	f = fopen(path, "w");
	if (f == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	memset(&cfg, 0, sizeof(cfg));
	if (hc_config_load(path, &cfg) == 0)
		check(&cfg);
	hc_config_free(&cfg);
	return 0;
}
