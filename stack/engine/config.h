/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The cluster file: an INI file read with rte_cfgfile. The format, every key,
 * its unit, default and range are documented in config/example.ini; the
 * layers' key tables (base/cfgkey.h) are the single source of the defaults
 * and ranges, and the loader here walks them.
 */
#ifndef HC_ENGINE_CONFIG_H
#define HC_ENGINE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "coll.h"

/** Largest world this version accepts (ranks 0..HC_MAX_RANKS-1). */
#define HC_MAX_RANKS 1024
/** Largest [rank.N] group id. */
#define HC_GROUP_MAX 65535
/** Longest port devargs string, bytes including the NUL. */
#define HC_PORT_DEVARGS_MAX 256

/** Most ports of a rank ([rank.N] port0..port15; equals
 *  HC_NET_PORTS_MAX). 16 covers a full mesh of 17 ranks on one host. */
#define HC_RANK_PORTS_MAX 16
/** Most [rank.N] route.* keys of a rank. */
#define HC_RANK_ROUTES_MAX 32

/** One [rank.N] route.<peer-or-prefix> = portK [via GW] key. */
struct hc_route_conf {
	int32_t rank;     /**< route.<rank>: that rank; -1: a prefix route */
	uint32_t prefix;  /**< prefix routes: network, host order */
	uint8_t len;      /**< prefix routes: prefix bits, 0..32 */
	uint8_t port;     /**< port index, below the rank's nports */
	uint32_t via;     /**< next-hop gateway, host order; 0: direct */
};

/** Where a rank's datagrams to one peer go (hc_config_route). */
struct hc_route {
	uint32_t port;     /**< port index */
	uint32_t next_hop; /**< the peer's IP, or the gateway's */
};

/** How the engine waits when a poll found no work. */
enum hc_idle_mode {
	HC_IDLE_BUSY,  /**< spin: lowest latency, one core per rank */
	HC_IDLE_PAUSE, /**< spin with rte_pause() */
	HC_IDLE_YIELD, /**< sched_yield() after a short spin */
	HC_IDLE_SLEEP, /**< spin, then yield for idle_yield_us, then
	                *   nanosleep(idle_sleep_us) (default) */
};

struct hc_rank_conf {
	uint32_t ip;                  /**< IPv4 address, host byte order */
	bool has_mac;                 /**< mac given in the file */
	struct rte_ether_addr mac;    /**< port MAC when has_mac */
	char port[HC_PORT_DEVARGS_MAX]; /**< port 0's DPDK devargs ([rank.N]
	                                 *   port or port0), e.g.
	                                 *   net_tap0,iface=x */
	/** Devargs of ports 1..nports-1 ([rank.N] port1..port15). */
	char more_ports[HC_RANK_PORTS_MAX - 1][HC_PORT_DEVARGS_MAX];
	uint32_t nports;              /**< 1..HC_RANK_PORTS_MAX */
	struct hc_route_conf routes[HC_RANK_ROUTES_MAX];
	uint32_t nroutes;
	uint32_t group;               /**< [rank.N] group, 0..HC_GROUP_MAX;
	                               *   default N (every rank its own) */
};

/**
 * A loaded cluster file. Each layer's keys fill that layer's own struct
 * (the tables next to its code: drivers/port_cfg.c, drivers/fault_cfg.c,
 * stack/net/net_cfg.c, stack/transport/hct_cfg.c, stack/coll/coll_cfg.c),
 * which bring-up hands to the layer as it is; the engine's own keys ([job],
 * [engine]) are the fields below, listed in config.c.
 */
struct hc_config {
	char path[4096];
	uint32_t job_id;          /**< [job] id, 1..2^32-1 */
	uint32_t world_size;      /**< [job] world_size, 1..HC_MAX_RANKS */
	enum hc_idle_mode idle;   /**< [engine] idle */
	uint32_t idle_spin;       /**< [engine] idle_spin, empty polls */
	uint32_t idle_yield_us;   /**< [engine] idle_yield_us */
	uint32_t idle_sleep_us;   /**< [engine] idle_sleep_us */
	uint32_t init_timeout_ms; /**< [engine] init_timeout_ms */
	uint32_t op_timeout_ms;   /**< [engine] op_timeout_ms */
	uint32_t drain_timeout_ms; /**< [engine] drain_timeout_ms */
	char key_file[4096];      /**< [job] key_file: the job's secret for
	                           *   the authenticated mode; "" = off */
	struct hc_port_conf port;   /**< [net] mtu, [port]; mac, pool_name
	                             *   unset */
	struct hc_fault_conf fault; /**< [fault] */
	struct hc_net_conf net;     /**< [net]; ip, arp_capacity unset */
	struct hct_conf hct;        /**< [transport], [engine]
	                             *   hello_interval_ms; job_id, rank,
	                             *   world_size, peer_ip, nonce, always_on
	                             *   unset */
	struct hc_coll_conf coll;   /**< [coll] */
	struct hc_rank_conf *ranks; /**< world_size entries; NULL for a host
	                             *   file until hc_config_host_rank */
	/** A host file (bootstrap.h): [local.N] sections for this host's
	 *  ranks only, [job] id and world_size optional; the other ranks'
	 *  addresses come from the rendezvous. */
	bool host_file;
};

/** A layer's key table and where the layer's struct lies in hc_config. */
struct hc_config_table {
	const struct hc_cfg_table *table;
	size_t off;               /**< offsetof(struct hc_config, layer) */
};

/** Every layer's table, bottom up. @return the array, *n its length. */
const struct hc_config_table *hc_config_tables(unsigned int *n);

/**
 * Load and check a cluster file. Environment overrides, applied instead of
 * the file's key: HC_FAULT_DROP_DATA_PCT, HC_FAULT_SEED, HC_FAULT (rules),
 * HC_FAULT_DROP_LAST_ONCE, HC_ALGO ([coll] algo). A bad environment value
 * is logged as "NAME: what is wrong".
 *
 * The lines are checked first, as DPDK 22.11's rte_cfgfile splits them,
 * for what it would take without a word; each is an error: a line that
 * is not blank, a ';' comment (a '#' line without '=' passes too), a
 * [section] header or key = value ("mtu 9000", "coll]"); text after a
 * header's ']'; a key before any section; a name over CFG_NAME_LEN - 1
 * (63) or a value over CFG_VALUE_LEN - 1 (255) characters, which
 * rte_cfgfile would cut; a key given twice in one section, which it would
 * answer with the first (as for a section given twice). A file with such
 * lines is not read further.
 *
 * @return 0, or -HC_ERR_CONFIG after logging one line per problem as
 *         "PATH:LINE: [section] key: what is wrong".
 */
int hc_config_load(const char *path, struct hc_config *cfg);

/**
 * Host file (cfg->host_file): set world_size, allocate the rank table
 * (zeroed) and load section [local.<local_rank>] (the keys of [rank.N]:
 * ip, mac, group, port/portK, route.*) into ranks[rank]; the default group
 * is `rank`. The other entries are the rendezvous' to fill.
 * @return 0, -HC_ERR_INVAL (not a host file, world_size 0 or above
 *         HC_MAX_RANKS, rank >= world_size), -HC_ERR_NOMEM, -HC_ERR_CONFIG
 *         (no such section, or a bad key in it, logged as for
 *         hc_config_load).
 */
int hc_config_host_rank(struct hc_config *cfg, uint32_t world_size,
			uint32_t rank, uint32_t local_rank);

/**
 * Host file, once every rank's ip is known: rank's ports and routes reach
 * every peer (the check hc_config_load makes for a cluster file).
 * @return 0 or -HC_ERR_CONFIG (each unreachable peer logged).
 */
int hc_config_host_check(const struct hc_config *cfg, uint32_t rank);

/** Ranks the address scheme of hc_addr_of_rank() can number. */
#define HC_ADDR_RANKS 64000

/**
 * The addresses of rank r in generated cluster files, the one scheme of
 * hc_config_defaults() and apps/hc-launch/hc-launch (config/example.ini
 * documents it): IPv4 198.18.(r / 250).(r % 250 + 1), in 198.18.0.0/15,
 * the benchmarking block (RFC 2544), host bytes 1..250 so that no rank
 * gets a .0 or .255; MAC 02:00 followed by the four bytes of the IPv4
 * address (locally administered unicast; 02:00:c6:12:00:01 for rank 0),
 * so that distinct addresses give distinct MACs.
 * @param ip host byte order
 * @return 0, or -HC_ERR_INVAL when r >= HC_ADDR_RANKS.
 */
int hc_addr_of_rank(uint32_t r, uint32_t *ip, struct rte_ether_addr *mac);

/**
 * A configuration without a file, for simulation and tests: every key at
 * its default (the layers' tables, as config/example.ini lists them),
 * [job] id 1, world_size as given, and rank i with the addresses of
 * hc_addr_of_rank(i) and port "sim". Free with hc_config_free().
 * @return 0, -HC_ERR_INVAL (cfg NULL, world_size 0 or above
 *         HC_MAX_RANKS), -HC_ERR_NOMEM.
 */
int hc_config_defaults(struct hc_config *cfg, uint32_t world_size);

/** Deep copy of src into dst (free with hc_config_free()).
 *  @return 0, -HC_ERR_NOMEM. */
int hc_config_copy(struct hc_config *dst, const struct hc_config *src);

/** Free what hc_config_load allocated; cfg may be zeroed or loaded. */
void hc_config_free(struct hc_config *cfg);

/** Devargs of port k (< rc->nports) of a rank. */
static inline const char *
hc_rank_port(const struct hc_rank_conf *rc, uint32_t k)
{
	return k == 0 ? rc->port : rc->more_ports[k - 1];
}

/**
 * The route of rank `rank` to rank `peer` (!= rank): its route.<peer>
 * key, else the longest prefix route.<a.b.c.d/len> holding the peer's IP,
 * else, on a rank with one port, port 0 direct. hc_config_load checked
 * that every pair has one.
 * @return 0, or -HC_ERR_CONFIG when no route reaches the peer.
 */
int hc_config_route(const struct hc_config *cfg, uint32_t rank, uint32_t peer,
		    struct hc_route *out);

/** Text form of a host-order IPv4 address into buf (>= 16 bytes). */
const char *hc_ip_str(uint32_t ip, char *buf, unsigned int len);

#endif /* HC_ENGINE_CONFIG_H */
