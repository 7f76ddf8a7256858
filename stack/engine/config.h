/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The cluster file: an INI file read with rte_cfgfile. The format, every key,
 * its unit, default and range are documented in config/example.ini; the
 * table in config.c is the single source of the defaults and ranges.
 */
#ifndef HC_ENGINE_CONFIG_H
#define HC_ENGINE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

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

struct hc_config {
	char path[4096];
	uint32_t job_id;          /**< [job] id, 1..2^32-1 */
	uint32_t world_size;      /**< [job] world_size, 1..HC_MAX_RANKS */
	uint16_t udp_port;        /**< [net] udp_port */
	uint32_t mtu;             /**< [net] mtu, bytes of IPv4 packet */
	uint32_t arp_timeout_ms;  /**< [net] arp_timeout_ms: entry lifetime */
	uint32_t arp_retry_ms;    /**< [net] arp_retry_ms: request interval */
	uint32_t window_pkts;     /**< [transport] window_pkts */
	uint32_t rto_init_us;     /**< [transport] rto_init_us */
	uint32_t rto_min_us;      /**< [transport] rto_min_us */
	uint32_t rto_max_us;      /**< [transport] rto_max_us */
	uint32_t retry_max;       /**< [transport] retry_max */
	uint32_t ack_every;       /**< [transport] ack_every, DATA packets */
	uint32_t keepalive_ms;    /**< [transport] keepalive_ms */
	uint32_t peer_timeout_ms; /**< [transport] peer_timeout_ms, 0: off */
	uint32_t bulk_min_share_pct; /**< [transport] bulk_min_share_pct */
	uint32_t critical_extra_pkts; /**< [transport] critical_extra_pkts */
	uint32_t tx_ring_max_bytes;  /**< [transport] tx_ring_max_bytes, 0:
	                              *   no bound */
	uint32_t rx_credit_bdp_pct;  /**< [transport] rx_credit_bdp_pct, 0:
	                              *   no receiver credits */
	uint32_t bdp_bytes;          /**< [transport] bdp_bytes */
	uint32_t cc;              /**< [transport] cc: enum hct_cc_algo */
	double cwnd_init;         /**< [transport] cwnd_init, packets */
	double cwnd_min;          /**< [transport] cwnd_min, packets */
	double cc_ai;             /**< [transport] cc_ai, packets per RTT */
	double cc_max_mdf;        /**< [transport] cc_max_mdf, fraction */
	double swift_beta;        /**< [transport] swift_beta */
	uint32_t swift_base_target_us; /**< [transport] swift_base_target_us */
	uint32_t swift_hop_scale_ns;   /**< [transport] swift_hop_scale_ns */
	uint32_t swift_hops;           /**< [transport] swift_hops */
	uint32_t swift_fs_range_us;    /**< [transport] swift_fs_range_us */
	double swift_fs_min_cwnd;      /**< [transport] swift_fs_min_cwnd */
	double swift_fs_max_cwnd;      /**< [transport] swift_fs_max_cwnd */
	uint32_t swift_endpoint_target_us; /**< [transport] ..._target_us */
	double dctcp_g;           /**< [transport] dctcp_g */
	uint32_t pace_burst;      /**< [transport] pace_burst, packets */
	uint32_t reo_wnd_us;      /**< [transport] reo_wnd_us, 0: min_rtt/4 */
	uint32_t tlp_min_us;      /**< [transport] tlp_min_us */
	uint32_t tlp_ack_delay_us; /**< [transport] tlp_ack_delay_us */
	uint32_t slice_bytes;     /**< [coll] slice_bytes */
	uint32_t unexpected_max;  /**< [coll] unexpected_max, packets held */
	int algo;                 /**< [coll] algo / HC_ALGO: enum hc_algo_id */
	enum hc_idle_mode idle;   /**< [engine] idle */
	uint32_t idle_spin;       /**< [engine] idle_spin, empty polls */
	uint32_t idle_yield_us;   /**< [engine] idle_yield_us */
	uint32_t idle_sleep_us;   /**< [engine] idle_sleep_us */
	uint32_t init_timeout_ms; /**< [engine] init_timeout_ms */
	uint32_t op_timeout_ms;   /**< [engine] op_timeout_ms */
	uint32_t drain_timeout_ms; /**< [engine] drain_timeout_ms */
	uint32_t hello_interval_ms; /**< [engine] hello_interval_ms */
	uint32_t link_wait_ms;    /**< [port] link_wait_ms */
	uint32_t pool_mbufs;      /**< [port] pool_mbufs */
	uint32_t rx_desc;         /**< [port] rx_desc */
	uint32_t tx_desc;         /**< [port] tx_desc */
	uint32_t burst;           /**< [port] burst, packets per rx/tx call */
	uint64_t fault_seed;      /**< [fault] seed */
	double fault_drop_data;   /**< [fault] drop_data_pct / 100 */
	bool fault_drop_last_once; /**< [fault] drop_last_once */
	char fault_rules[1024];   /**< [fault] rules (drivers/fault.h syntax),
	                           *   checked; "" when unset */
	struct hc_rank_conf *ranks; /**< world_size entries */
};

/**
 * Load and check a cluster file. Environment overrides, applied instead of
 * the file's key: HC_FAULT_DROP_DATA_PCT, HC_FAULT_SEED, HC_FAULT (rules),
 * HC_FAULT_DROP_LAST_ONCE, HC_ALGO ([coll] algo). A bad environment value
 * is logged as "NAME: what is wrong".
 *
 * @return 0, or -HC_ERR_CONFIG after logging one line per problem as
 *         "PATH:LINE: [section] key: what is wrong".
 */
int hc_config_load(const char *path, struct hc_config *cfg);

/**
 * A configuration without a file, for simulation and tests: every key at
 * its default (the table in config.c, as config/example.ini lists them),
 * [job] id 1, world_size as given, and rank i with IP
 * 198.18.(i / 250).(i % 250 + 1), MAC 02:00:c6:12:HH:LL (HH:LL = i, big
 * endian) and port "sim". Free with hc_config_free().
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
