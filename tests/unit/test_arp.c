/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP cache state machine with explicit times: INCOMPLETE retries,
 * REACHABLE -> STALE refreshes and their probe budget, the create rule of
 * hc_arp_update(), PERMANENT entries and the fill limit.
 */
#include <stdint.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <rte_ether.h>

#include "hypercomm.h"
#include "arp.h"
#include "suites.h"

#define TIMEOUT_NS 1000u	/* REACHABLE lifetime */
#define RETRY_NS 100u		/* least time between two requests */
#define MAX_PROBES 3u		/* unanswered refreshes, then no MAC */
#define T0 1000000000ull	/* the tests' "now" at start */

#define IP1 0xc6120001u		/* 198.18.0.1 */
#define IP2 0xc6120002u

static const struct rte_ether_addr mac1 = {
	.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };
static const struct rte_ether_addr mac2 = {
	.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } };

/* A fresh cache of 8 entries with the times above. */
static int
new_cache(struct hc_arp_cache *c)
{
	return hc_arp_init(c, 8, TIMEOUT_NS, RETRY_NS, MAX_PROBES);
}

/* Look ip up at now; *mac is overwritten with a marker first so that a
 * returned MAC is known to come from this call. */
static enum hc_arp_result
lookup(struct hc_arp_cache *c, uint32_t ip, uint64_t now,
       struct rte_ether_addr *mac)
{
	memset(mac, 0xee, sizeof(*mac));
	return hc_arp_lookup(c, ip, now, mac);
}

static int
state_of(const struct hc_arp_cache *c, uint32_t ip)
{
	const struct hc_arp_entry *e = hc_arp_find(c, ip);

	return e == NULL ? -1 : (int)e->state;
}

/* Slots of the table in use, counted directly. */
static unsigned int
entries_in_use(const struct hc_arp_cache *c)
{
	unsigned int i, n = 0;

	for (i = 0; i <= c->mask; i++)
		n += c->entries[i].state != HC_ARP_FREE;
	return n;
}

static void
test_init_args(void)
{
	struct hc_arp_cache c;

	CU_ASSERT_EQUAL(hc_arp_init(&c, 0, TIMEOUT_NS, RETRY_NS, MAX_PROBES),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL(hc_arp_init(&c, 1, TIMEOUT_NS, RETRY_NS, MAX_PROBES),
			0);
	CU_ASSERT_PTR_NULL(hc_arp_find(&c, IP1));
	hc_arp_free(&c);
	CU_ASSERT_PTR_NULL(c.entries);
}

/* Unknown IP: request, wait until retry_ns has passed, request again. */
static void
test_miss_retry(void)
{
	struct hc_arp_cache cache, *c = &cache;
	struct rte_ether_addr mac;

	CU_ASSERT_EQUAL_FATAL(new_cache(c), 0);
	CU_ASSERT_PTR_NULL(hc_arp_find(c, IP1));
	CU_ASSERT_EQUAL(lookup(c, IP1, T0, &mac), HC_ARP_MISS_REQUEST);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_INCOMPLETE);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + 1, &mac), HC_ARP_MISS_WAIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + RETRY_NS - 1, &mac),
			HC_ARP_MISS_WAIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + RETRY_NS, &mac),
			HC_ARP_MISS_REQUEST);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + RETRY_NS + 50, &mac),
			HC_ARP_MISS_WAIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + 2 * RETRY_NS, &mac),
			HC_ARP_MISS_REQUEST);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_INCOMPLETE);

	/* the reply (create = 0: the entry exists) resolves it */
	hc_arp_update(c, IP1, &mac1, T0 + 2 * RETRY_NS + 10, 0);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_REACHABLE);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + 2 * RETRY_NS + 11, &mac),
			HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	hc_arp_free(c);
}

/* A stranger's ARP packet (create = 0) adds nothing; one for us does. */
static void
test_update_create(void)
{
	struct hc_arp_cache cache, *c = &cache;
	struct rte_ether_addr mac;
	const struct hc_arp_entry *e;

	CU_ASSERT_EQUAL_FATAL(new_cache(c), 0);
	hc_arp_update(c, IP2, &mac2, T0, 0);
	CU_ASSERT_PTR_NULL(hc_arp_find(c, IP2));
	CU_ASSERT_EQUAL(entries_in_use(c), 0);
	CU_ASSERT_EQUAL(c->used, 0);

	hc_arp_update(c, IP2, &mac2, T0, 1);
	e = hc_arp_find(c, IP2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(e->ip, IP2);
	CU_ASSERT_EQUAL(e->state, HC_ARP_REACHABLE);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&e->mac, &mac2));
	CU_ASSERT_EQUAL(e->expires_ns, T0 + TIMEOUT_NS);
	CU_ASSERT_EQUAL(entries_in_use(c), 1);
	CU_ASSERT_EQUAL(c->used, 1);
	CU_ASSERT_EQUAL(lookup(c, IP2, T0 + 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac2));
	hc_arp_free(c);
}

/* REACHABLE until timeout_ns, then STALE with refreshes every retry_ns
 * while the old MAC is still used; after max_probes unanswered refreshes
 * the MAC is dropped. */
static void
test_reachable_stale_expiry(void)
{
	struct hc_arp_cache cache, *c = &cache;
	struct rte_ether_addr mac;
	const uint64_t t = T0 + TIMEOUT_NS;	/* expiry */
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(new_cache(c), 0);
	hc_arp_update(c, IP1, &mac1, T0, 1);
	CU_ASSERT_EQUAL(lookup(c, IP1, T0, &mac), HC_ARP_HIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, t - 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));

	/* refresh 1 at expiry */
	CU_ASSERT_EQUAL(lookup(c, IP1, t, &mac), HC_ARP_HIT_REFRESH);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_STALE);
	CU_ASSERT_EQUAL(lookup(c, IP1, t + 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	CU_ASSERT_EQUAL(lookup(c, IP1, t + RETRY_NS - 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));

	/* refreshes 2..max_probes, each retry_ns after the previous one */
	for (i = 1; i < MAX_PROBES; i++) {
		CU_ASSERT_EQUAL(lookup(c, IP1, t + i * RETRY_NS, &mac),
				HC_ARP_HIT_REFRESH);
		CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
		CU_ASSERT_EQUAL(lookup(c, IP1, t + i * RETRY_NS + 1, &mac),
				HC_ARP_HIT);
	}
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_STALE);

	/* nobody answered max_probes refreshes: the MAC is forgotten */
	CU_ASSERT_EQUAL(lookup(c, IP1, t + MAX_PROBES * RETRY_NS, &mac),
			HC_ARP_MISS_REQUEST);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_INCOMPLETE);
	CU_ASSERT_EQUAL(lookup(c, IP1, t + MAX_PROBES * RETRY_NS + 1, &mac),
			HC_ARP_MISS_WAIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, t + (MAX_PROBES + 1) * RETRY_NS,
			       &mac), HC_ARP_MISS_REQUEST);
	hc_arp_free(c);
}

/* An answer while STALE makes the entry REACHABLE again, with the new MAC
 * and a fresh lifetime and probe budget. */
static void
test_stale_update(void)
{
	struct hc_arp_cache cache, *c = &cache;
	struct rte_ether_addr mac;
	const uint64_t t = T0 + TIMEOUT_NS;
	const uint64_t t2 = t + 10 + TIMEOUT_NS;	/* second expiry */
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(new_cache(c), 0);
	hc_arp_update(c, IP1, &mac1, T0, 1);
	CU_ASSERT_EQUAL(lookup(c, IP1, t, &mac), HC_ARP_HIT_REFRESH);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_STALE);

	hc_arp_update(c, IP1, &mac2, t + 10, 0);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_REACHABLE);
	CU_ASSERT_EQUAL(lookup(c, IP1, t + 11, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac2));
	CU_ASSERT_EQUAL(lookup(c, IP1, t2 - 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac2));

	/* the probe budget is whole again: max_probes refreshes */
	for (i = 0; i < MAX_PROBES; i++) {
		CU_ASSERT_EQUAL(lookup(c, IP1, t2 + i * RETRY_NS, &mac),
				HC_ARP_HIT_REFRESH);
		CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac2));
	}
	CU_ASSERT_EQUAL(lookup(c, IP1, t2 + MAX_PROBES * RETRY_NS, &mac),
			HC_ARP_MISS_REQUEST);
	hc_arp_free(c);
}

static void
test_permanent(void)
{
	struct hc_arp_cache cache, *c = &cache;
	struct rte_ether_addr mac;

	CU_ASSERT_EQUAL_FATAL(new_cache(c), 0);
	CU_ASSERT_EQUAL(hc_arp_add_permanent(c, IP1, &mac1), 0);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_PERMANENT);
	CU_ASSERT_EQUAL(lookup(c, IP1, 0, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	CU_ASSERT_EQUAL(lookup(c, IP1, T0 + 1000 * TIMEOUT_NS, &mac),
			HC_ARP_HIT);
	CU_ASSERT_EQUAL(lookup(c, IP1, UINT64_MAX, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));

	/* ARP packets do not change it, with or without create */
	hc_arp_update(c, IP1, &mac2, T0, 0);
	hc_arp_update(c, IP1, &mac2, T0, 1);
	CU_ASSERT_EQUAL(state_of(c, IP1), HC_ARP_PERMANENT);
	CU_ASSERT_EQUAL(lookup(c, IP1, UINT64_MAX, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	hc_arp_free(c);
}

/* Capacity 4: four entries fit; a fifth IP finds no room, while the four
 * known ones keep working. */
static void
test_full(void)
{
	struct hc_arp_cache c;
	struct rte_ether_addr mac;
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(hc_arp_init(&c, 4, TIMEOUT_NS, RETRY_NS,
					  MAX_PROBES), 0);
	CU_ASSERT_EQUAL(hc_arp_add_permanent(&c, IP1, &mac1), 0);
	hc_arp_update(&c, IP1 + 1, &mac2, T0, 1);
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 2, T0, &mac), HC_ARP_MISS_REQUEST);
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 3, T0, &mac), HC_ARP_MISS_REQUEST);
	for (i = 0; i < 4; i++)
		CU_ASSERT_PTR_NOT_NULL(hc_arp_find(&c, IP1 + i));

	CU_ASSERT_EQUAL(lookup(&c, IP1 + 4, T0, &mac), HC_ARP_MISS_FULL);
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 4, T0 + RETRY_NS, &mac),
			HC_ARP_MISS_FULL);
	CU_ASSERT_PTR_NULL(hc_arp_find(&c, IP1 + 4));
	hc_arp_update(&c, IP1 + 5, &mac2, T0, 1);
	CU_ASSERT_PTR_NULL(hc_arp_find(&c, IP1 + 5));
	CU_ASSERT_EQUAL(hc_arp_add_permanent(&c, IP1 + 6, &mac2),
			-HC_ERR_NOMEM);
	CU_ASSERT_PTR_NULL(hc_arp_find(&c, IP1 + 6));

	CU_ASSERT_EQUAL(lookup(&c, IP1, T0, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 1, T0 + 1, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac2));
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 2, T0 + 1, &mac), HC_ARP_MISS_WAIT);
	hc_arp_update(&c, IP1 + 3, &mac1, T0 + 2, 0);
	CU_ASSERT_EQUAL(lookup(&c, IP1 + 3, T0 + 3, &mac), HC_ARP_HIT);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&mac, &mac1));
	hc_arp_free(&c);
}

static const CU_TestInfo arp_tests[] = {
	{ "init: capacity 0 refused", test_init_args },
	{ "miss: request, wait retry_ns, request", test_miss_retry },
	{ "update: create=0 ignores strangers, create=1 adds",
	  test_update_create },
	{ "REACHABLE -> STALE refreshes -> MAC dropped",
	  test_reachable_stale_expiry },
	{ "update in STALE -> REACHABLE again", test_stale_update },
	{ "PERMANENT never expires or changes", test_permanent },
	{ "full cache: MISS_FULL for a new IP", test_full },
	CU_TEST_INFO_NULL,
};

void
add_arp_suite(void)
{
	unit_add_suite("arp", NULL, NULL, arp_tests);
}
