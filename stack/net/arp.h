/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ARP cache (RFC 826), with states after Linux's neighbour table:
 * INCOMPLETE (request sent, no MAC), REACHABLE (MAC valid until its
 * expiry), STALE (expired: still used while a refresh request is out),
 * PERMANENT (from the cluster file). Pure: it sends nothing itself; the
 * lookup result tells the caller whether to send a request. Times are
 * nanoseconds of the stack clock.
 */
#ifndef HC_NET_ARP_H
#define HC_NET_ARP_H

#include <stdint.h>

#include <rte_ether.h>

enum hc_arp_state {
	HC_ARP_FREE = 0,
	HC_ARP_INCOMPLETE,
	HC_ARP_REACHABLE,
	HC_ARP_STALE,
	HC_ARP_PERMANENT,
};

struct hc_arp_entry {
	uint32_t ip;                /**< host byte order */
	enum hc_arp_state state;
	struct rte_ether_addr mac;
	uint64_t expires_ns;        /**< REACHABLE until then */
	uint64_t last_request_ns;   /**< last request sent for this entry */
	uint32_t probes;            /**< requests sent since the last answer */
};

struct hc_arp_cache {
	struct hc_arp_entry *entries; /**< open addressing, linear probing */
	uint32_t mask;                /**< capacity - 1, capacity a power of 2 */
	uint32_t used;
	uint64_t timeout_ns;          /**< REACHABLE lifetime */
	uint64_t retry_ns;            /**< least time between two requests */
	uint32_t max_probes;          /**< unanswered refreshes of a STALE
	                               *   entry before its MAC is dropped */
	uint32_t gen;                 /**< bumped by every hc_arp_update()
	                               *   and hc_arp_add_permanent(): a TX
	                               *   header template built at another
	                               *   generation is rebuilt (net.h) */
};

/** What the caller of hc_arp_lookup must do. */
enum hc_arp_result {
	HC_ARP_HIT,          /**< use *mac */
	HC_ARP_HIT_REFRESH,  /**< use *mac and send a request for ip */
	HC_ARP_MISS_REQUEST, /**< no MAC: send a request, drop or hold */
	HC_ARP_MISS_WAIT,    /**< no MAC, a request is out: drop or hold */
	HC_ARP_MISS_FULL,    /**< no MAC and no room for an entry */
};

/**
 * @param capacity  entries wanted; rounded up to a power of 2 and doubled
 *                  so that the table stays at most half full.
 * @return 0 or -HC_ERR_NOMEM / -HC_ERR_INVAL.
 */
int hc_arp_init(struct hc_arp_cache *c, uint32_t capacity,
		uint64_t timeout_ns, uint64_t retry_ns, uint32_t max_probes);
void hc_arp_free(struct hc_arp_cache *c);

/** Look ip up at time now; see enum hc_arp_result. */
enum hc_arp_result hc_arp_lookup(struct hc_arp_cache *c, uint32_t ip,
				 uint64_t now, struct rte_ether_addr *mac);

/**
 * Learn ip -> mac at time now from an ARP packet. An existing entry becomes
 * REACHABLE; a new entry is made only when create is set (a request for our
 * address, RFC 826's "merge" rule), so strangers cannot fill the cache.
 * PERMANENT entries never change.
 */
void hc_arp_update(struct hc_arp_cache *c, uint32_t ip,
		   const struct rte_ether_addr *mac, uint64_t now, int create);

/** Add a PERMANENT entry. @return 0 or -HC_ERR_NOMEM when full. */
int hc_arp_add_permanent(struct hc_arp_cache *c, uint32_t ip,
			 const struct rte_ether_addr *mac);

/**
 * Until when a MAC that hc_arp_lookup() of ip just returned (HC_ARP_HIT
 * or HC_ARP_HIT_REFRESH) stays the lookup's answer without a state change
 * or a request: a REACHABLE entry's expiry, a STALE one's next retry,
 * UINT64_MAX for PERMANENT; 0 for an entry without a MAC. A caller that
 * caches the MAC (a header template) looks it up again from then on, or
 * when c->gen changes.
 */
uint64_t hc_arp_valid_until(const struct hc_arp_cache *c, uint32_t ip);

/** The entry of ip, or NULL. */
const struct hc_arp_entry *hc_arp_find(const struct hc_arp_cache *c,
				       uint32_t ip);

#endif /* HC_NET_ARP_H */
