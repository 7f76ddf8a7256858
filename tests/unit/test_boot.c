/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bootstrap (stack/engine/bootstrap.h): which source gives rank, world
 * size and local rank when several launchers' variables are set; a host
 * file loaded for one local rank; and the rendezvous of 4 ranks as threads
 * of this process over 127.0.0.1 (a free port picked by the kernel): every
 * rank ends with every other rank's IP, MAC and group and the same job id,
 * and a world-size disagreement and a duplicate IP give every rank the
 * same error.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "hypercomm.h"
#include "bootstrap.h"
#include "config.h"
#include "suites.h"

static const char *const all_vars[] = {
	"HC_RANK", "HC_WORLD_SIZE", "HC_LOCAL_RANK", "RANK", "WORLD_SIZE",
	"LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMI_SIZE",
	"MPI_LOCALRANKID", "HC_MASTER_ADDR", "HC_MASTER_PORT", "MASTER_ADDR",
	"MASTER_PORT",
};

static void
clear_env(void)
{
	size_t i;

	for (i = 0; i < sizeof(all_vars) / sizeof(all_vars[0]); i++)
		unsetenv(all_vars[i]);
}

static int
boot_suite_init(void)
{
	clear_env();
	return 0;
}

/* hc_boot_identity(p, no file world size) succeeds with this rank, world
 * size and local rank, and, where not NULL, names these sources. */
static void
expect_id(const struct hc_init_params *p, int rank, int world, int local,
	  const char *rank_src, const char *world_src)
{
	struct hc_boot_id id;

	CU_ASSERT_EQUAL_FATAL(hc_boot_identity(p, 0, &id), 0);
	CU_ASSERT_EQUAL(id.rank, rank);
	CU_ASSERT_EQUAL(id.world_size, world);
	CU_ASSERT_EQUAL(id.local_rank, local);
	if (rank_src != NULL)
		CU_ASSERT_STRING_EQUAL(id.rank_src, rank_src);
	if (world_src != NULL)
		CU_ASSERT_STRING_EQUAL(id.world_src, world_src);
}

static void
test_identity_precedence(void)
{
	struct hc_init_params p = { NULL, -1, 0, 0 };
	struct hc_boot_id id;

	clear_env();
	/* PMI only; its local rank is MPICH's MPI_LOCALRANKID */
	setenv("PMI_RANK", "5", 1);
	setenv("PMI_SIZE", "8", 1);
	expect_id(&p, 5, 8, -1, NULL, NULL);
	setenv("MPI_LOCALRANKID", "1", 1);
	/* Open MPI over PMI */
	setenv("OMPI_COMM_WORLD_RANK", "4", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "7", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
	expect_id(&p, 4, 7, 0, "OMPI_COMM_WORLD_RANK", NULL);
	/* Slurm over Open MPI */
	setenv("SLURM_PROCID", "3", 1);
	setenv("SLURM_NTASKS", "6", 1);
	setenv("SLURM_LOCALID", "2", 1);
	expect_id(&p, 3, 6, 2, NULL, NULL);
	/* torchrun over Slurm */
	setenv("RANK", "2", 1);
	setenv("WORLD_SIZE", "5", 1);
	setenv("LOCAL_RANK", "1", 1);
	expect_id(&p, 2, 5, 1, NULL, "WORLD_SIZE");
	/* HC_* over torchrun, item by item: HC_WORLD_SIZE alone */
	setenv("HC_WORLD_SIZE", "9", 1);
	expect_id(&p, 2, 9, 1, NULL, NULL);
	setenv("HC_RANK", "1", 1);
	setenv("HC_LOCAL_RANK", "0", 1);
	expect_id(&p, 1, 9, 0, "HC_RANK", "HC_WORLD_SIZE");
	/* the file's [job] world_size over every variable */
	CU_ASSERT_EQUAL(hc_boot_identity(&p, 12, &id), 0);
	CU_ASSERT_EQUAL(id.world_size, 12);
	CU_ASSERT_STRING_EQUAL(id.world_src, "[job] world_size");
	/* explicit arguments over everything */
	p.rank = 0;
	p.world_size = 3;
	CU_ASSERT_EQUAL(hc_boot_identity(&p, 12, &id), 0);
	CU_ASSERT_EQUAL(id.rank, 0);
	CU_ASSERT_EQUAL(id.world_size, 3);
	CU_ASSERT_STRING_EQUAL(id.rank_src, "hc_init_params.rank");
	/* a malformed variable is an error, not skipped */
	p.rank = -1;
	setenv("HC_RANK", "1x", 1);
	CU_ASSERT_EQUAL(hc_boot_identity(&p, 0, &id), -HC_ERR_INVAL);
	setenv("HC_RANK", "-1", 1);
	CU_ASSERT_EQUAL(hc_boot_identity(&p, 0, &id), -HC_ERR_INVAL);
	clear_env();
	p.world_size = 0;
	setenv("WORLD_SIZE", "0", 1);
	CU_ASSERT_EQUAL(hc_boot_identity(&p, 0, &id), -HC_ERR_INVAL);
	clear_env();
}

#define HOSTS "[net]\nmtu = 1500\n" \
	"[local.0]\nip = 198.18.0.1\nmac = 02:00:c6:12:00:01\n" \
	"port = net_tap0,iface=hct0\n" \
	"[local.1]\nip = 198.18.0.2\nmac = 02:00:c6:12:00:02\n" \
	"port = net_tap0,iface=hct1\ngroup = 7\n" \
	"[local.2]\nip = 198.18.0.3\nport = net_tap0,iface=hct2\n" \
	"[local.3]\nip = 198.18.0.4\nmac = 02:00:c6:12:00:04\n" \
	"port = net_tap0,iface=hct3\n"

static char hosts_path[64];

static int
write_hosts(const char *text)
{
	FILE *f;
	int fd;

	strcpy(hosts_path, "/tmp/hc-test-boot.XXXXXX");
	fd = mkstemp(hosts_path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

static void
test_host_file(void)
{
	struct hc_config cfg;

	CU_ASSERT_FATAL(write_hosts(HOSTS) == 0);
	CU_ASSERT_EQUAL(hc_config_load(hosts_path, &cfg), 0);
	CU_ASSERT_TRUE(cfg.host_file);
	CU_ASSERT_EQUAL(cfg.world_size, 0); /* no [job]: the rendezvous' */
	CU_ASSERT_PTR_NULL(cfg.ranks);
	/* rank 5 of 6 on this host's local rank 1 */
	CU_ASSERT_EQUAL(hc_config_host_rank(&cfg, 6, 5, 1), 0);
	CU_ASSERT_EQUAL(cfg.world_size, 6);
	CU_ASSERT_EQUAL(cfg.ranks[5].ip, 0xc6120002u);
	CU_ASSERT_EQUAL(cfg.ranks[5].group, 7);
	CU_ASSERT_TRUE(cfg.ranks[5].has_mac);
	CU_ASSERT_EQUAL(cfg.ranks[5].mac.addr_bytes[5], 0x02);
	CU_ASSERT_STRING_EQUAL(cfg.ranks[5].port, "net_tap0,iface=hct1");
	CU_ASSERT_EQUAL(cfg.ranks[0].ip, 0);
	/* no [local.4] on this host */
	CU_ASSERT_EQUAL(hc_config_host_rank(&cfg, 6, 4, 4), -HC_ERR_CONFIG);
	hc_config_free(&cfg);
	unlink(hosts_path);
	/* the shipped example */
	CU_ASSERT_EQUAL_FATAL(hc_config_load(HC_SOURCE_ROOT
		"/config/host-example.ini", &cfg), 0);
	CU_ASSERT_TRUE(cfg.host_file);
	CU_ASSERT_EQUAL(cfg.init_timeout_ms, 10000);
	CU_ASSERT_EQUAL(hc_config_host_rank(&cfg, 2, 1, 1), 0);
	CU_ASSERT_EQUAL(cfg.ranks[1].ip, 0xc6120002u);
	CU_ASSERT_STRING_EQUAL(cfg.ranks[1].port, "net_tap0,iface=hct1");
	hc_config_free(&cfg);
	/* [rank.N] and [local.N] in one file */
	CU_ASSERT_FATAL(write_hosts(HOSTS "[rank.0]\nip = 198.18.0.9\n") == 0);
	CU_ASSERT_EQUAL(hc_config_load(hosts_path, &cfg), -HC_ERR_CONFIG);
	unlink(hosts_path);
}

/* One rank of the threaded rendezvous. */
struct boot_rank {
	pthread_t t;
	uint32_t rank, local, world, timeout_ms;
	struct hc_config cfg;
	int rc;
};

static void *
boot_thread(void *arg)
{
	struct boot_rank *b = arg;

	b->rc = hc_boot_rendezvous(&b->cfg, b->rank, b->local, b->world,
				   b->timeout_ms);
	return NULL;
}

/* A port no one listens on now (bind 0, read it back, close). */
static int
free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Threads b[first..end-1]: b[i] is rank ranks[i] (i when ranks is NULL) with
 * world size worlds[i] and local rank locals[i]; each result in b[i]. */
static void
run_boot_from(struct boot_rank b[4], const uint32_t worlds[4],
	      const uint32_t locals[4], const uint32_t *ranks, uint32_t first,
	      uint32_t end, uint32_t timeout_ms)
{
	char port[16];
	uint32_t i;

	snprintf(port, sizeof(port), "%d", free_port());
	setenv("HC_MASTER_ADDR", "127.0.0.1", 1);
	setenv("HC_MASTER_PORT", port, 1);
	CU_ASSERT_FATAL(write_hosts(HOSTS) == 0);
	for (i = 0; i < 4; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].rank = ranks != NULL ? ranks[i] : i;
		b[i].local = locals[i];
		b[i].world = worlds[i];
		b[i].timeout_ms = timeout_ms;
		CU_ASSERT_FATAL(hc_config_load(hosts_path, &b[i].cfg) == 0);
		if (b[i].rank < worlds[i])
			CU_ASSERT_FATAL(hc_config_host_rank(&b[i].cfg, worlds[i],
					b[i].rank, locals[i]) == 0);
	}
	unlink(hosts_path);
	for (i = first; i < end; i++)
		CU_ASSERT_FATAL(pthread_create(&b[i].t, NULL, boot_thread,
					       &b[i]) == 0);
	for (i = first; i < end; i++)
		pthread_join(b[i].t, NULL);
	unsetenv("HC_MASTER_ADDR");
	unsetenv("HC_MASTER_PORT");
}

static void
run_boot(struct boot_rank b[4], const uint32_t worlds[4],
	 const uint32_t locals[4])
{
	run_boot_from(b, worlds, locals, NULL, 0, 4, 4000);
}

static void
test_rendezvous(void)
{
	static const uint32_t worlds[4] = { 4, 4, 4, 4 };
	static const uint32_t locals[4] = { 0, 1, 2, 3 };
	struct boot_rank b[4];
	uint32_t r, q;

	run_boot(b, worlds, locals);
	for (r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(b[r].rc, 0);
		CU_ASSERT_NOT_EQUAL(b[r].cfg.job_id, 0);
		CU_ASSERT_EQUAL(b[r].cfg.job_id, b[0].cfg.job_id);
		for (q = 0; q < 4; q++) {
			const struct hc_rank_conf *c = &b[r].cfg.ranks[q];

			CU_ASSERT_EQUAL(c->ip, 0xc6120001u + q);
			CU_ASSERT_EQUAL(c->group, q == 1 ? 7u : q);
			CU_ASSERT_EQUAL(c->has_mac, q != 2);
			if (q != 2)
				CU_ASSERT_EQUAL(c->mac.addr_bytes[5], q + 1);
		}
		hc_config_free(&b[r].cfg);
	}
}

static void
test_rendezvous_errors(void)
{
	static const uint32_t w5[4] = { 4, 4, 5, 4 };
	static const uint32_t w3[4] = { 4, 4, 4, 3 };
	static const uint32_t same[4] = { 4, 4, 4, 4 };
	static const uint32_t l_ok[4] = { 0, 1, 2, 3 };
	static const uint32_t l_dup[4] = { 0, 1, 1, 3 };
	static const uint32_t dup_rank[4] = { 0, 1, 2, 2 };
	struct boot_rank b[4];
	uint32_t r;

	run_boot(b, w5, l_ok);
	for (r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_WORLD_SIZE);
		hc_config_free(&b[r].cfg);
	}
	run_boot(b, w3, l_ok); /* rank 3 of a world of 3 */
	for (r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_WORLD_SIZE);
		hc_config_free(&b[r].cfg);
	}
	run_boot(b, same, l_dup); /* ranks 1 and 2 on one IP */
	for (r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_ADDR_IN_USE);
		hc_config_free(&b[r].cfg);
	}
	/* two processes claim rank 2 (on their own local ranks) */
	run_boot_from(b, same, l_ok, dup_rank, 0, 4, 4000);
	for (r = 0; r < 4; r++) {
		CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_ADDR_IN_USE);
		hc_config_free(&b[r].cfg);
	}
	/* rank 0 missing: nobody listens; ranks 1..3 time out */
	run_boot_from(b, same, l_ok, NULL, 1, 4, 1000);
	for (r = 0; r < 4; r++) {
		if (r > 0)
			CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_INIT_TIMEOUT);
		hc_config_free(&b[r].cfg);
	}
	/* rank 3 missing: rank 0's verdict names it to ranks 1 and 2 */
	run_boot_from(b, same, l_ok, NULL, 0, 3, 1000);
	for (r = 0; r < 4; r++) {
		if (r < 3)
			CU_ASSERT_EQUAL(b[r].rc, -HC_ERR_INIT_TIMEOUT);
		hc_config_free(&b[r].cfg);
	}
}

/* hc_init refuses a progress outside enum hc_progress, an HC_PROGRESS
 * other than caller/auto/empty and a negative world size, before it
 * reads the file; with valid ones it gets as far as the missing file. */
static void
test_init_params(void)
{
	struct hc_init_params p = { "/nonexistent/hc-test.ini", 0, 1, 0 };
	struct hc_ctx *ctx = (struct hc_ctx *)&p;

	clear_env();
	unsetenv("HC_PROGRESS");
	p.progress = 7;
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_INVAL);
	CU_ASSERT_PTR_NULL(ctx);
	p.progress = -1;
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_INVAL);
	p.progress = HC_PROGRESS_CALLER;
	p.world_size = -2;
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_INVAL);
	p.world_size = 1;
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_CONFIG);
	p.progress = HC_PROGRESS_AUTO;
	setenv("HC_PROGRESS", "yes", 1);
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_INVAL);
	setenv("HC_PROGRESS", "Caller", 1);
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_INVAL);
	setenv("HC_PROGRESS", "auto", 1);
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_CONFIG);
	setenv("HC_PROGRESS", "", 1);
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_CONFIG);
	setenv("HC_PROGRESS", "caller", 1);
	CU_ASSERT_EQUAL(hc_init(&p, &ctx), -HC_ERR_CONFIG);
	CU_ASSERT_PTR_NULL(ctx);
	unsetenv("HC_PROGRESS");
}

static const CU_TestInfo boot_tests[] = {
	{ "identity precedence", test_identity_precedence },
	{ "hc_init: progress, HC_PROGRESS, world_size", test_init_params },
	{ "host file", test_host_file },
	{ "rendezvous of 4 ranks", test_rendezvous },
	{ "rendezvous errors on every rank", test_rendezvous_errors },
	CU_TEST_INFO_NULL,
};

void
add_boot_suite(void)
{
	unit_add_suite("boot", boot_suite_init, NULL, boot_tests);
}
