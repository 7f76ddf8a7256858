/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>

#include "hypercomm.h"
#include "arp.h"

int
hc_arp_init(struct hc_arp_cache *c, uint32_t capacity, uint64_t timeout_ns,
	    uint64_t retry_ns, uint32_t max_probes)
{
	uint32_t size;

	memset(c, 0, sizeof(*c));
	if (capacity == 0 || capacity > (1u << 24))
		return -HC_ERR_INVAL;
	size = rte_align32pow2(capacity) * 2;
	c->entries = calloc(size, sizeof(*c->entries));
	if (c->entries == NULL)
		return -HC_ERR_NOMEM;
	c->mask = size - 1;
	c->timeout_ns = timeout_ns;
	c->retry_ns = retry_ns;
	c->max_probes = max_probes;
	return 0;
}

void
hc_arp_free(struct hc_arp_cache *c)
{
	free(c->entries);
	c->entries = NULL;
}

/* The slot of ip, or the free slot where it would go, or NULL when the
 * table is at its fill limit and ip is absent. */
static struct hc_arp_entry *
slot(const struct hc_arp_cache *c, uint32_t ip)
{
	uint32_t i = rte_hash_crc_4byte(ip, 0) & c->mask;

	for (;;) {
		struct hc_arp_entry *e = &c->entries[i];

		if (e->state == HC_ARP_FREE)
			return c->used * 2 > c->mask ? NULL : e;
		if (e->ip == ip)
			return e;
		i = (i + 1) & c->mask;
	}
}

const struct hc_arp_entry *
hc_arp_find(const struct hc_arp_cache *c, uint32_t ip)
{
	const struct hc_arp_entry *e = slot(c, ip);

	return e != NULL && e->state != HC_ARP_FREE ? e : NULL;
}

static struct hc_arp_entry *
claim(struct hc_arp_cache *c, uint32_t ip)
{
	struct hc_arp_entry *e = slot(c, ip);

	if (e != NULL && e->state == HC_ARP_FREE) {
		c->used++;
		e->ip = ip;
		e->probes = 0;
	}
	return e;
}

enum hc_arp_result
hc_arp_lookup(struct hc_arp_cache *c, uint32_t ip, uint64_t now,
	      struct rte_ether_addr *mac)
{
	struct hc_arp_entry *e = claim(c, ip);

	if (e == NULL)
		return HC_ARP_MISS_FULL;
	switch (e->state) {
	case HC_ARP_PERMANENT:
		*mac = e->mac;
		return HC_ARP_HIT;
	case HC_ARP_REACHABLE:
		*mac = e->mac;
		if (now < e->expires_ns)
			return HC_ARP_HIT;
		e->state = HC_ARP_STALE;
		e->last_request_ns = now;
		e->probes = 1;
		return HC_ARP_HIT_REFRESH;
	case HC_ARP_STALE:
		if (now - e->last_request_ns < c->retry_ns) {
			*mac = e->mac;
			return HC_ARP_HIT;
		}
		e->last_request_ns = now;
		if (e->probes++ < c->max_probes) {
			*mac = e->mac;
			return HC_ARP_HIT_REFRESH;
		}
		/* Nobody answers for that MAC any more: forget it. */
		e->state = HC_ARP_INCOMPLETE;
		e->probes = 1;
		return HC_ARP_MISS_REQUEST;
	case HC_ARP_INCOMPLETE:
		if (now - e->last_request_ns < c->retry_ns)
			return HC_ARP_MISS_WAIT;
		e->last_request_ns = now;
		e->probes++;
		return HC_ARP_MISS_REQUEST;
	case HC_ARP_FREE:
	default:
		e->state = HC_ARP_INCOMPLETE;
		e->last_request_ns = now;
		e->probes = 1;
		return HC_ARP_MISS_REQUEST;
	}
}

void
hc_arp_update(struct hc_arp_cache *c, uint32_t ip,
	      const struct rte_ether_addr *mac, uint64_t now, int create)
{
	struct hc_arp_entry *e = create ? claim(c, ip) : slot(c, ip);

	if (e == NULL || e->state == HC_ARP_PERMANENT ||
	    (e->state == HC_ARP_FREE && !create))
		return;
	c->gen++;
	e->state = HC_ARP_REACHABLE;
	e->mac = *mac;
	e->expires_ns = now + c->timeout_ns;
	e->probes = 0;
}

int
hc_arp_add_permanent(struct hc_arp_cache *c, uint32_t ip,
		     const struct rte_ether_addr *mac)
{
	struct hc_arp_entry *e = claim(c, ip);

	if (e == NULL)
		return -HC_ERR_NOMEM;
	c->gen++;
	e->state = HC_ARP_PERMANENT;
	e->mac = *mac;
	return 0;
}

uint64_t
hc_arp_valid_until(const struct hc_arp_cache *c, uint32_t ip)
{
	const struct hc_arp_entry *e = hc_arp_find(c, ip);

	if (e == NULL)
		return 0;
	switch (e->state) {
	case HC_ARP_PERMANENT:
		return UINT64_MAX;
	case HC_ARP_REACHABLE:
		return e->expires_ns;
	case HC_ARP_STALE:
		return e->last_request_ns + c->retry_ns;
	default:
		return 0;
	}
}
