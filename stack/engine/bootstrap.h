/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bootstrap from a launcher: who this rank is (rank, world size, local
 * rank, from hc_init_params, the file or the launcher's environment) and,
 * for a host file, the rendezvous that tells every rank the others'
 * data-plane addresses. Control plane only: an ordinary TCP socket at
 * HC_MASTER_ADDR:HC_MASTER_PORT, closed before the DPDK ports open (as
 * NCCL's bootstrap and torch's TCPStore); the transport never sees it.
 */
#ifndef HC_BOOTSTRAP_H
#define HC_BOOTSTRAP_H

#include <stdint.h>

#include "hypercomm.h"
#include "config.h"

/** Rendezvous port when neither HC_MASTER_PORT nor MASTER_PORT is set:
 *  torch's default MASTER_PORT (29500) + 1, as for a set MASTER_PORT. */
#define HC_BOOT_DEFAULT_PORT 29501

/** Who this rank is, and which source said so (for the log). */
struct hc_boot_id {
	int rank;              /**< -1: unknown */
	int world_size;        /**< 0: unknown */
	int local_rank;        /**< -1: unknown */
	const char *rank_src;  /**< "hc_init_params", "HC_RANK", ... */
	const char *world_src; /**< "hc_init_params", the file, "WORLD_SIZE"... */
	const char *local_src;
};

/**
 * Rank, world size and local rank, each from the first source that sets
 * it: hc_init_params (rank >= 0, world_size > 0), the file's [job]
 * world_size (file_world > 0), then HC_RANK/HC_WORLD_SIZE/HC_LOCAL_RANK,
 * torchrun's RANK/WORLD_SIZE/LOCAL_RANK, Slurm's SLURM_PROCID/
 * SLURM_NTASKS/SLURM_LOCALID, Open MPI's OMPI_COMM_WORLD_RANK/SIZE/
 * LOCAL_RANK, PMI's PMI_RANK/PMI_SIZE (local rank: MPICH's
 * MPI_LOCALRANKID).
 * @return 0, or -HC_ERR_INVAL when a variable is set but not a number in
 *         range (logged with its name).
 */
int hc_boot_identity(const struct hc_init_params *p, uint32_t file_world,
		     struct hc_boot_id *id);

/**
 * The world size of the first environment source that sets one, 0 if
 * none (*src its name); for the cluster-file check against [job]
 * world_size. -HC_ERR_INVAL for a malformed value.
 */
int hc_boot_env_world(const char **src);

/**
 * The rendezvous (see hc_init in hypercomm.h). cfg is a host file after
 * hc_config_host_rank(cfg, world, rank, local): ranks[rank] holds this
 * rank's ip, mac, group and ports. On success every other entry of
 * cfg->ranks has the peer's ip, mac (has_mac as the peer's file said) and
 * group, and cfg->job_id the job nonce rank 0 drew (or its [job] id).
 * Rank 0 gives its verdict at most timeout_ms - min(500, timeout_ms / 4)
 * after the call, the others wait up to timeout_ms.
 *
 * `claim_world` > 0 (with rank >= it, so cfg->ranks unused): a rank whose
 * own world size does not hold its rank only tells rank 0 so, then
 * returns -HC_ERR_WORLD_SIZE, as every rank does.
 *
 * @return 0, -HC_ERR_INIT_TIMEOUT (a rank missing: rank 0 not listening,
 *         or not every rank connected in time), -HC_ERR_WORLD_SIZE,
 *         -HC_ERR_ADDR_IN_USE (the port is another program's: bind failed
 *         at rank 0, or what listens there sent no greeting; two ranks
 *         with one rank number, IP or MAC), -HC_ERR_CONFIG (bad
 *         HC_MASTER_ADDR/PORT), -HC_ERR_NOMEM; the same code on every rank
 *         that reached rank 0, each logging rank 0's one-line reason.
 */
int hc_boot_rendezvous(struct hc_config *cfg, uint32_t rank,
		       uint32_t local_rank, uint32_t world_size,
		       uint32_t timeout_ms);

#endif
