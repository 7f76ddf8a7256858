/* SPDX-License-Identifier: BSD-3-Clause */
/* The virtual-time network and its port backend (model in sim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_lcore.h>

#include "hypercomm.h"
#include "fault.h"
#include "log.h"
#include "sim.h"

#define PS_PER_NS 1000ULL

enum ev_type {
	EV_TX_DONE, /* a link finished serializing its frame */
	EV_ARRIVE,  /* a frame reached the far end of a link */
};

struct sim_event {
	uint64_t t_ps;
	uint64_t seq;
	uint32_t type;
	uint32_t link;
	struct rte_mbuf *m;
};

/* A FIFO of frames, grown on demand (its byte limit is the link's). */
struct sim_fifo {
	struct rte_mbuf **f;
	uint32_t cap;
	uint32_t head;
	uint32_t len;
};

struct sim_link {
	uint32_t src;           /* node ids: hosts first, then switches */
	uint32_t dst;
	int nic;                /* a host's NIC egress: one FIFO */
	struct hc_sim_link_conf conf;
	struct sim_fifo q[HC_SIM_QUEUES];
	uint64_t occupancy;     /* bytes accepted, not yet serialized */
	struct rte_mbuf *tx;    /* frame being serialized, or NULL */
	struct hc_fault rng;    /* loss PRNG */
	hc_sim_filter_fn filter; /* drops chosen frames, or NULL */
	void *filter_arg;
	struct hc_sim_link_stats st;
};

struct sim_host {
	struct hc_sim *sim;
	uint32_t id;
	int open;
	struct rte_ether_addr mac;
	struct sim_fifo rx;     /* arrived frames, up to rx_max */
	uint32_t rx_max;
};

struct hc_sim {
	struct hc_sim_conf conf;
	struct hc_clock clk;
	uint64_t now_ps;
	struct rte_mempool *pool;
	uint32_t hosts;
	uint32_t leaves;        /* two-tier: leaf l is node hosts + l */
	uint32_t spine;         /* two-tier: node id of the spine */
	uint32_t nlinks;
	struct sim_link *links;
	struct sim_host *host;
	/* MAC -> host: open addressing, linear probing */
	uint64_t *mac_key;      /* 48-bit MAC + 1 (0: empty slot) */
	uint32_t *mac_host;
	uint32_t mac_mask;
	/* event heap */
	struct sim_event *ev;
	uint32_t nev;
	uint32_t ev_cap;
	uint64_t ev_seq;
	struct hc_sim_stats st;
};

static unsigned int sim_seq;

/* ---- containers ---------------------------------------------------- */

static int
fifo_push(struct sim_fifo *q, struct rte_mbuf *m)
{
	if (q->len == q->cap) {
		uint32_t cap = q->cap != 0 ? 2 * q->cap : 64, i;
		struct rte_mbuf **f = malloc(cap * sizeof(*f));

		if (f == NULL)
			return -1;
		for (i = 0; i < q->len; i++)
			f[i] = q->f[(q->head + i) % q->cap];
		free(q->f);
		q->f = f;
		q->cap = cap;
		q->head = 0;
	}
	q->f[(q->head + q->len) % q->cap] = m;
	q->len++;
	return 0;
}

static struct rte_mbuf *
fifo_pop(struct sim_fifo *q)
{
	struct rte_mbuf *m;

	if (q->len == 0)
		return NULL;
	m = q->f[q->head];
	q->head = (q->head + 1) % q->cap;
	q->len--;
	return m;
}

static void
fifo_free(struct sim_fifo *q)
{
	struct rte_mbuf *m;

	while ((m = fifo_pop(q)) != NULL)
		rte_pktmbuf_free(m);
	free(q->f);
	memset(q, 0, sizeof(*q));
}

static int
ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

static int
ev_push(struct hc_sim *sim, uint64_t t_ps, uint32_t type, uint32_t link,
	struct rte_mbuf *m)
{
	struct sim_event e = { t_ps, sim->ev_seq++, type, link, m };
	uint32_t i;

	if (sim->nev == sim->ev_cap) {
		uint32_t cap = sim->ev_cap != 0 ? 2 * sim->ev_cap : 1024;
		struct sim_event *ev = realloc(sim->ev, cap * sizeof(*ev));

		if (ev == NULL)
			return -1;
		sim->ev = ev;
		sim->ev_cap = cap;
	}
	i = sim->nev++;
	while (i > 0 && ev_before(&e, &sim->ev[(i - 1) / 2])) {
		sim->ev[i] = sim->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	sim->ev[i] = e;
	return 0;
}

static struct sim_event
ev_pop(struct hc_sim *sim)
{
	struct sim_event top = sim->ev[0], last = sim->ev[--sim->nev];
	uint32_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= sim->nev)
			break;
		if (c + 1 < sim->nev && ev_before(&sim->ev[c + 1], &sim->ev[c]))
			c++;
		if (!ev_before(&sim->ev[c], &last))
			break;
		sim->ev[i] = sim->ev[c];
		i = c;
	}
	if (sim->nev > 0)
		sim->ev[i] = last;
	return top;
}

static uint64_t
mac_u64(const struct rte_ether_addr *a)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		v = v << 8 | a->addr_bytes[i];
	return v + 1;
}

static uint32_t
mac_slot(const struct hc_sim *sim, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & sim->mac_mask;
}

/* Host of mac, or UINT32_MAX. */
static uint32_t
mac_lookup(const struct hc_sim *sim, const struct rte_ether_addr *mac)
{
	uint64_t key = mac_u64(mac);
	uint32_t i;

	for (i = mac_slot(sim, key); sim->mac_key[i] != 0;
	     i = (i + 1) & sim->mac_mask)
		if (sim->mac_key[i] == key)
			return sim->mac_host[i];
	return UINT32_MAX;
}

/* Slots are only ever added; a closed host's MAC maps to a closed host,
 * whose frames are then dropped as unknown. */
static void
mac_insert(struct hc_sim *sim, const struct rte_ether_addr *mac, uint32_t h)
{
	uint64_t key = mac_u64(mac);
	uint32_t i;

	for (i = mac_slot(sim, key); sim->mac_key[i] != 0 &&
	     sim->mac_key[i] != key; i = (i + 1) & sim->mac_mask)
		;
	sim->mac_key[i] = key;
	sim->mac_host[i] = h;
}

/* ---- classification and marking ------------------------------------ */

unsigned int
hc_sim_dscp_queue(uint8_t dscp)
{
	switch (dscp) {
	case 48: /* CS6 */
	case 56: /* CS7 */
		return 0;
	case 46: /* EF */
		return 1;
	case 8:  /* CS1 */
		return 3;
	default:
		return 2;
	}
}

static struct rte_ipv4_hdr *
frame_ipv4(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth;

	if (rte_pktmbuf_data_len(m) < sizeof(*eth) + sizeof(struct rte_ipv4_hdr))
		return NULL;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return NULL;
	return (struct rte_ipv4_hdr *)(eth + 1);
}

unsigned int
hc_sim_frame_queue(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = frame_ipv4((struct rte_mbuf *)(uintptr_t)m);

	return ip != NULL ? hc_sim_dscp_queue(ip->type_of_service >> 2) : 0;
}

/* RFC 3168 section 5: ECT(0) 10 and ECT(1) 01 may become CE 11. */
static int
mark_ce(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = frame_ipv4(m);
	uint8_t ecn;

	if (ip == NULL)
		return 0;
	ecn = ip->type_of_service & 0x3;
	if (ecn != 0x1 && ecn != 0x2)
		return 0;
	ip->type_of_service |= 0x3;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return 1;
}

/* ---- links --------------------------------------------------------- */

static uint64_t
ser_ps(const struct sim_link *l, uint32_t bytes)
{
	/* rounded to the nearest ps */
	return (uint64_t)((double)bytes * 8.0 * PS_PER_NS / l->conf.rate_gbps +
			  0.5);
}

/* Start serializing the next frame: highest-priority queue first. */
static void
link_start(struct hc_sim *sim, struct sim_link *l)
{
	struct rte_mbuf *m = NULL;
	unsigned int q;

	for (q = 0; q < HC_SIM_QUEUES && m == NULL; q++)
		m = fifo_pop(&l->q[q]);
	if (m == NULL)
		return;
	l->tx = m;
	if (ev_push(sim, sim->now_ps + ser_ps(l, m->pkt_len), EV_TX_DONE,
		    (uint32_t)(l - sim->links), NULL) != 0) {
		/* cannot happen short of malloc failing: lose the frame */
		l->occupancy -= m->pkt_len;
		l->tx = NULL;
		rte_pktmbuf_free(m);
	}
}

/* Offer m to l's egress queue; the link owns m afterwards. */
static void
link_enqueue(struct hc_sim *sim, struct sim_link *l, struct rte_mbuf *m)
{
	unsigned int cls = hc_sim_frame_queue(m);
	struct hc_sim_queue_stats *qs = &l->st.queue[cls];
	uint32_t len = m->pkt_len;

	if (l->occupancy + len > l->conf.queue_bytes ||
	    fifo_push(&l->q[l->nic ? 0 : cls], m) != 0) {
		qs->tail_drops++;
		l->st.total.tail_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!l->nic && l->conf.ecn_bytes != 0 &&
	    l->occupancy > l->conf.ecn_bytes && mark_ce(m)) {
		qs->ecn_marks++;
		l->st.total.ecn_marks++;
	}
	l->occupancy += len;
	if (l->occupancy > l->st.max_queue_bytes)
		l->st.max_queue_bytes = l->occupancy;
	if (l->tx == NULL)
		link_start(sim, l);
}

static void
link_tx_done(struct hc_sim *sim, struct sim_link *l)
{
	struct rte_mbuf *m = l->tx;
	unsigned int cls = hc_sim_frame_queue(m);
	struct hc_sim_queue_stats *qs = &l->st.queue[cls];

	l->tx = NULL;
	l->occupancy -= m->pkt_len;
	if ((l->conf.loss > 0 && hc_fault_uniform(&l->rng) < l->conf.loss) ||
	    (l->filter != NULL && l->filter(m, l->filter_arg))) {
		qs->loss_drops++;
		l->st.total.loss_drops++;
		rte_pktmbuf_free(m);
	} else {
		qs->pkts++;
		qs->bytes += m->pkt_len;
		l->st.total.pkts++;
		l->st.total.bytes += m->pkt_len;
		if (ev_push(sim, sim->now_ps + l->conf.prop_ns * PS_PER_NS,
			    EV_ARRIVE, (uint32_t)(l - sim->links), m) != 0)
			rte_pktmbuf_free(m);
	}
	link_start(sim, l);
}

/* ---- topology ------------------------------------------------------ */

/* Link ids: 2h host h up, 2h+1 host h down; then 2l, 2l+1 for leaf l
 * up/down (two-tier). */
static uint32_t
host_up(uint32_t h)
{
	return 2 * h;
}

static uint32_t
host_down(uint32_t h)
{
	return 2 * h + 1;
}

static uint32_t
leaf_up(const struct hc_sim *sim, uint32_t l)
{
	return 2 * sim->hosts + 2 * l;
}

static uint32_t
leaf_down(const struct hc_sim *sim, uint32_t l)
{
	return 2 * sim->hosts + 2 * l + 1;
}

static uint32_t
leaf_of(const struct hc_sim *sim, uint32_t h)
{
	return sim->conf.topo == HC_SIM_TOPO_STAR ? 0 : h / sim->conf.group;
}

/* Egress link of switch node sw towards host h. */
static uint32_t
route(const struct hc_sim *sim, uint32_t sw, uint32_t h)
{
	if (sim->conf.topo == HC_SIM_TOPO_STAR)
		return host_down(h);
	if (sw == sim->spine)
		return leaf_down(sim, leaf_of(sim, h));
	if (sw - sim->hosts == leaf_of(sim, h))
		return host_down(h);
	return leaf_up(sim, sw - sim->hosts);
}

static void
send_copy(struct hc_sim *sim, uint32_t link, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, sim->pool, 0, UINT32_MAX);

	if (c == NULL) {
		sim->st.no_mbuf++;
		return;
	}
	link_enqueue(sim, &sim->links[link], c);
}

/* Flood m from switch sw to every port but the one it came in on. */
static void
flood(struct hc_sim *sim, uint32_t sw, uint32_t from, struct rte_mbuf *m)
{
	uint32_t h, l;

	if (sim->conf.topo == HC_SIM_TOPO_STAR || sw != sim->spine) {
		for (h = 0; h < sim->hosts; h++)
			if (h != from && sim->hosts + leaf_of(sim, h) == sw)
				send_copy(sim, host_down(h), m);
		if (sim->conf.topo == HC_SIM_TOPO_TWO_TIER &&
		    from != sim->spine)
			send_copy(sim, leaf_up(sim, sw - sim->hosts), m);
	} else {
		for (l = 0; l < sim->leaves; l++)
			if (sim->hosts + l != from)
				send_copy(sim, leaf_down(sim, l), m);
	}
	rte_pktmbuf_free(m);
}

static void
host_receive(struct hc_sim *sim, struct sim_host *h, struct rte_mbuf *m)
{
	if (!h->open || h->rx.len >= h->rx_max || fifo_push(&h->rx, m) != 0) {
		sim->st.rx_overflow++;
		rte_pktmbuf_free(m);
	}
}

static void
arrive(struct hc_sim *sim, struct sim_link *l, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth;
	uint32_t h;

	if (l->dst < sim->hosts) {
		host_receive(sim, &sim->host[l->dst], m);
		return;
	}
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (rte_is_multicast_ether_addr(&eth->dst_addr)) {
		flood(sim, l->dst, l->src, m);
		return;
	}
	h = mac_lookup(sim, &eth->dst_addr);
	if (h == UINT32_MAX || !sim->host[h].open) {
		sim->st.unknown_dst++;
		rte_pktmbuf_free(m);
		return;
	}
	link_enqueue(sim, &sim->links[route(sim, l->dst, h)], m);
}

/* ---- the network --------------------------------------------------- */

static int
link_conf_ok(const struct hc_sim_link_conf *lc)
{
	return lc->rate_gbps > 0 && isfinite(lc->rate_gbps) &&
	       lc->queue_bytes > 0 && lc->loss >= 0 && lc->loss <= 1;
}

static void
link_init(struct hc_sim *sim, uint32_t id, uint32_t src, uint32_t dst,
	  const struct hc_sim_link_conf *lc, int nic)
{
	struct sim_link *l = &sim->links[id];

	l->src = src;
	l->dst = dst;
	l->nic = nic;
	l->conf = *lc;
	if (nic)
		l->conf.queue_bytes = sim->conf.nic_queue_bytes;
	hc_fault_init(&l->rng, sim->conf.seed * 0x100000001b3ULL + id);
}

int
hc_sim_create(const struct hc_sim_conf *conf, struct hc_sim **out)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct hc_sim *sim;
	uint32_t h, l, room, slots;

	if (out == NULL)
		return -HC_ERR_INVAL;
	*out = NULL;
	if (conf == NULL || conf->hosts == 0 || conf->hosts > HC_SIM_MAX_HOSTS ||
	    (conf->topo != HC_SIM_TOPO_STAR &&
	     conf->topo != HC_SIM_TOPO_TWO_TIER) ||
	    (conf->topo == HC_SIM_TOPO_TWO_TIER && conf->group == 0) ||
	    !link_conf_ok(&conf->host_link) ||
	    (conf->topo == HC_SIM_TOPO_TWO_TIER &&
	     !link_conf_ok(&conf->fabric_link)) ||
	    (conf->mtu != 0 && (conf->mtu < 68 || conf->mtu > HC_PORT_MTU_MAX))) {
		HC_LOG(ERR, DRIVER, "sim: invalid network configuration");
		return -HC_ERR_INVAL;
	}
	sim = calloc(1, sizeof(*sim));
	if (sim == NULL)
		return -HC_ERR_NOMEM;
	sim->conf = *conf;
	if (sim->conf.nic_queue_bytes == 0)
		sim->conf.nic_queue_bytes = HC_SIM_DEF_NIC_QUEUE;
	if (sim->conf.mtu == 0)
		sim->conf.mtu = HC_SIM_DEF_MTU;
	if (sim->conf.pool_mbufs == 0)
		sim->conf.pool_mbufs = HC_SIM_DEF_POOL_MBUFS;
	if (sim->conf.start_ns == 0)
		sim->conf.start_ns = HC_SIM_DEF_START_NS;
	sim->hosts = conf->hosts;
	if (conf->topo == HC_SIM_TOPO_TWO_TIER) {
		sim->leaves = (conf->hosts + conf->group - 1) / conf->group;
		sim->spine = conf->hosts + sim->leaves;
	} else {
		sim->leaves = 0;
		sim->spine = UINT32_MAX;
	}
	sim->nlinks = 2 * sim->hosts + 2 * sim->leaves;
	sim->links = calloc(sim->nlinks, sizeof(*sim->links));
	sim->host = calloc(sim->hosts, sizeof(*sim->host));
	for (slots = 16; slots < 2 * sim->hosts; slots *= 2)
		;
	sim->mac_mask = slots - 1;
	sim->mac_key = calloc(slots, sizeof(*sim->mac_key));
	sim->mac_host = calloc(slots, sizeof(*sim->mac_host));
	if (sim->links == NULL || sim->host == NULL || sim->mac_key == NULL ||
	    sim->mac_host == NULL)
		goto nomem;
	for (h = 0; h < sim->hosts; h++) {
		uint32_t sw = sim->hosts + leaf_of(sim, h);

		sim->host[h].sim = sim;
		sim->host[h].id = h;
		link_init(sim, host_up(h), h, sw, &conf->host_link, 1);
		link_init(sim, host_down(h), sw, h, &conf->host_link, 0);
	}
	for (l = 0; l < sim->leaves; l++) {
		link_init(sim, leaf_up(sim, l), sim->hosts + l, sim->spine,
			  &conf->fabric_link, 0);
		link_init(sim, leaf_down(sim, l), sim->spine, sim->hosts + l,
			  &conf->fabric_link, 0);
	}
	room = sim->conf.mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	if (room < RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_MBUF_DEFAULT_DATAROOM;
	snprintf(name, sizeof(name), "hcsim%u",
		 __atomic_fetch_add(&sim_seq, 1, __ATOMIC_RELAXED));
	sim->pool = rte_pktmbuf_pool_create(name, sim->conf.pool_mbufs, 256, 0,
					    room + RTE_PKTMBUF_HEADROOM,
					    rte_socket_id());
	if (sim->pool == NULL) {
		HC_LOG(ERR, DRIVER, "sim: pool of %u mbufs: %s",
		       sim->conf.pool_mbufs, rte_strerror(rte_errno));
		goto nomem;
	}
	hc_clock_init_manual(&sim->clk, sim->conf.start_ns);
	sim->now_ps = sim->conf.start_ns * PS_PER_NS;
	*out = sim;
	return 0;
nomem:
	hc_sim_destroy(sim);
	return -HC_ERR_NOMEM;
}

void
hc_sim_destroy(struct hc_sim *sim)
{
	uint32_t i, q;

	if (sim == NULL)
		return;
	while (sim->nev > 0) {
		struct sim_event e = ev_pop(sim);

		rte_pktmbuf_free(e.m);
	}
	for (i = 0; sim->links != NULL && i < sim->nlinks; i++) {
		for (q = 0; q < HC_SIM_QUEUES; q++)
			fifo_free(&sim->links[i].q[q]);
		rte_pktmbuf_free(sim->links[i].tx);
	}
	for (i = 0; sim->host != NULL && i < sim->hosts; i++)
		fifo_free(&sim->host[i].rx);
	rte_mempool_free(sim->pool);
	free(sim->ev);
	free(sim->links);
	free(sim->host);
	free(sim->mac_key);
	free(sim->mac_host);
	free(sim);
}

const struct hc_clock *
hc_sim_clock(const struct hc_sim *sim)
{
	return &sim->clk;
}

uint64_t
hc_sim_now(const struct hc_sim *sim)
{
	return sim->clk.manual_ns;
}

int
hc_sim_next_event(const struct hc_sim *sim, uint64_t *t_ns)
{
	if (sim->nev == 0)
		return 0;
	*t_ns = (sim->ev[0].t_ps + PS_PER_NS - 1) / PS_PER_NS;
	return 1;
}

void
hc_sim_advance(struct hc_sim *sim, uint64_t t_ns)
{
	uint64_t limit = t_ns * PS_PER_NS;

	while (sim->nev > 0 && sim->ev[0].t_ps <= limit) {
		struct sim_event e = ev_pop(sim);
		struct sim_link *l = &sim->links[e.link];

		if (e.t_ps > sim->now_ps)
			sim->now_ps = e.t_ps;
		sim->st.events++;
		if (e.type == EV_TX_DONE)
			link_tx_done(sim, l);
		else
			arrive(sim, l, e.m);
	}
	if (limit > sim->now_ps)
		sim->now_ps = limit;
	if (t_ns > sim->clk.manual_ns)
		sim->clk.manual_ns = t_ns;
}

uint32_t
hc_sim_rx_pending(const struct hc_sim *sim, uint32_t host)
{
	return host < sim->hosts ? sim->host[host].rx.len : 0;
}

int
hc_sim_nic_room(const struct hc_sim *sim, uint32_t host, uint32_t bytes)
{
	const struct sim_link *l;

	if (host >= sim->hosts)
		return 0;
	l = &sim->links[host_up(host)];
	return l->occupancy + bytes <= l->conf.queue_bytes;
}

uint32_t
hc_sim_hosts(const struct hc_sim *sim)
{
	return sim->hosts;
}

int
hc_sim_link_id(const struct hc_sim *sim, enum hc_sim_link_kind kind,
	       uint32_t idx)
{
	switch (kind) {
	case HC_SIM_LINK_HOST_UP:
		return idx < sim->hosts ? (int)host_up(idx) : -HC_ERR_INVAL;
	case HC_SIM_LINK_HOST_DOWN:
		return idx < sim->hosts ? (int)host_down(idx) : -HC_ERR_INVAL;
	case HC_SIM_LINK_LEAF_UP:
		return idx < sim->leaves ? (int)leaf_up(sim, idx)
					 : -HC_ERR_INVAL;
	case HC_SIM_LINK_LEAF_DOWN:
		return idx < sim->leaves ? (int)leaf_down(sim, idx)
					 : -HC_ERR_INVAL;
	}
	return -HC_ERR_INVAL;
}

int
hc_sim_link_stats(const struct hc_sim *sim, int link,
		  struct hc_sim_link_stats *st)
{
	if (sim == NULL || st == NULL || link < 0 ||
	    (uint32_t)link >= sim->nlinks)
		return -HC_ERR_INVAL;
	*st = sim->links[link].st;
	return 0;
}

static void
queue_stats_add(struct hc_sim_queue_stats *a,
		const struct hc_sim_queue_stats *b)
{
	a->pkts += b->pkts;
	a->bytes += b->bytes;
	a->tail_drops += b->tail_drops;
	a->loss_drops += b->loss_drops;
	a->ecn_marks += b->ecn_marks;
}

void
hc_sim_link_stats_total(const struct hc_sim *sim, struct hc_sim_link_stats *st)
{
	uint32_t i, q;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < sim->nlinks; i++) {
		const struct hc_sim_link_stats *s = &sim->links[i].st;

		queue_stats_add(&st->total, &s->total);
		for (q = 0; q < HC_SIM_QUEUES; q++)
			queue_stats_add(&st->queue[q], &s->queue[q]);
		if (s->max_queue_bytes > st->max_queue_bytes)
			st->max_queue_bytes = s->max_queue_bytes;
	}
}

void
hc_sim_stats(const struct hc_sim *sim, struct hc_sim_stats *st)
{
	*st = sim->st;
}

int
hc_sim_link_set(struct hc_sim *sim, int link, const struct hc_sim_link_conf *lc)
{
	if (sim == NULL || lc == NULL || link < 0 ||
	    (uint32_t)link >= sim->nlinks || !link_conf_ok(lc))
		return -HC_ERR_INVAL;
	sim->links[link].conf = *lc;
	return 0;
}

int
hc_sim_link_filter(struct hc_sim *sim, int link, hc_sim_filter_fn fn,
		   void *arg)
{
	if (sim == NULL || link < 0 || (uint32_t)link >= sim->nlinks)
		return -HC_ERR_INVAL;
	sim->links[link].filter = fn;
	sim->links[link].filter_arg = arg;
	return 0;
}

/* ---- the port backend ---------------------------------------------- */

static uint16_t
sim_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct sim_host *h = port->backend;
	uint16_t got = 0;

	while (got < n && h->rx.len > 0)
		pkts[got++] = fifo_pop(&h->rx);
	return got;
}

static uint16_t
sim_tx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct sim_host *h = port->backend;
	struct hc_sim *sim = h->sim;
	struct sim_link *l = &sim->links[host_up(h->id)];
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *c;

		if (!hc_sim_nic_room(sim, h->id, pkts[i]->pkt_len)) {
			sim->st.tx_refused += n - i;
			break;
		}
		c = rte_pktmbuf_copy(pkts[i], sim->pool, 0, UINT32_MAX);
		if (c == NULL) {
			sim->st.no_mbuf++;
			break;
		}
		rte_pktmbuf_free(pkts[i]);
		link_enqueue(sim, l, c);
	}
	return i;
}

static uint64_t
sim_tx_queued(const struct hc_port *port)
{
	const struct sim_host *h = port->backend;

	return h->sim->links[host_up(h->id)].occupancy;
}

static void
sim_close(struct hc_port *port)
{
	struct sim_host *h = port->backend;

	fifo_free(&h->rx);
	h->open = 0;
	port->backend = NULL;
}

static const struct hc_port_ops sim_ops = {
	.rx_burst = sim_rx,
	.tx_burst = sim_tx,
	.close = sim_close,
	.tx_queued_bytes = sim_tx_queued,
};

int
hc_port_open_sim(struct hc_port *port, struct hc_sim *sim, uint32_t host,
		 const struct hc_port_conf *conf)
{
	struct sim_host *h;
	uint32_t other;
	int rc;

	if (port == NULL)
		return -HC_ERR_INVAL;
	memset(port, 0, sizeof(*port));
	if (sim == NULL || conf == NULL || conf->mac == NULL ||
	    conf->pool_name == NULL || conf->burst == 0 ||
	    conf->burst > HC_PORT_TXQ || host >= sim->hosts ||
	    sim->host[host].open || conf->mtu > sim->conf.mtu ||
	    !rte_is_valid_assigned_ether_addr(conf->mac))
		return -HC_ERR_INVAL;
	other = mac_lookup(sim, conf->mac);
	if (other != UINT32_MAX && other != host && sim->host[other].open) {
		HC_LOG(ERR, DRIVER, "sim: host %u: MAC is host %u's", host,
		       other);
		return -HC_ERR_INVAL;
	}
	h = &sim->host[host];
	snprintf(port->name, sizeof(port->name), "sim%u", host);
	port->mtu = conf->mtu;
	port->burst = conf->burst;
	port->mac = *conf->mac;
	/* sim_tx() copies every frame into one mbuf of the network's pool,
	 * whatever its segments. */
	port->tx_multi_seg = true;
	hc_fault_init(&port->fault, 1);
	rc = hc_port_pool_create(port, conf, 0, false);
	if (rc != 0)
		return rc;
	h->mac = *conf->mac;
	h->rx_max = conf->rx_desc != 0 ? conf->rx_desc : 1024;
	h->open = 1;
	mac_insert(sim, conf->mac, host);
	port->backend = h;
	port->ops = &sim_ops;
	return 0;
}
