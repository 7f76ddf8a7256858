/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc_shm, hypercomm's own shared-memory port (drivers/port_shm.c): both
 * ends of a link in this one process. Frames arrive byte for byte and in
 * order both ways (chained ones too), a full ring refuses and then takes
 * again, lent slots fall back to copies past half the ring and come back
 * when freed, oversize frames and bad devargs get their errors, and a
 * second client of a link finds no server, and ports of one kind of frame
 * share a pool (struct hc_port_pools). Beside it, the slot check of
 * the DPDK port for net_af_packet (drivers/port_dpdk.c afp_extra_room),
 * which refuses a framesz before any device is probed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create; nftw (test_eal.h) */
#endif
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "hypercomm.h"
#include "port.h"
#include "port_shm.h"
#include "test_eal.h"

static char dir[64];
static int npool;

static void
conf_of(struct hc_port_conf *c, uint32_t mtu, uint32_t mbufs, char *name,
	size_t len)
{
	memset(c, 0, sizeof(*c));
	c->mtu = mtu;
	c->pool_mbufs = mbufs;
	c->burst = 32;
	c->link_wait_ms = 2000;
	snprintf(name, len, "tshm%d", npool++);
	c->pool_name = name;
}

struct poller {
	struct hc_port *port;
	volatile int stop;
};

/* Polls the server while the client opens: its rx hands over the memory. */
static void *
poll_server(void *arg)
{
	struct poller *p = arg;
	struct rte_mbuf *m[32];
	uint16_t n, i;

	while (!p->stop) {
		n = hc_port_rx(p->port, m, 32);
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(m[i]);
		usleep(100);
	}
	return NULL;
}

/* Open a linked server and client; 0 on success. */
static int
open_link(struct hc_port *srv, struct hc_port *cli, const char *name,
	  uint32_t mtu, uint32_t mbufs, const char *extra)
{
	struct hc_port_conf c;
	struct poller p = { .port = srv };
	pthread_t th;
	char devargs[256], pool[32];
	int rc;

	conf_of(&c, mtu, mbufs, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm0,path=%s/%s,role=server%s",
		 dir, name, extra);
	rc = hc_port_open_shm(srv, devargs, &c);
	if (rc != 0)
		return rc;
	if (pthread_create(&th, NULL, poll_server, &p) != 0)
		return -1;
	conf_of(&c, mtu, mbufs, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm1,path=%s/%s,role=client%s",
		 dir, name, extra);
	rc = hc_port_open_shm(cli, devargs, &c);
	p.stop = 1;
	pthread_join(th, NULL);
	return rc;
}

static uint8_t
pat(uint32_t frame, uint32_t i)
{
	return (uint8_t)(frame * 131 + i * 7 + (i >> 8));
}

/* A frame of len bytes of pattern k; chained (2 segments) when split. */
static struct rte_mbuf *
make_frame(struct hc_port *p, uint32_t k, uint32_t len, int split)
{
	struct rte_mbuf *a = rte_pktmbuf_alloc(p->pool), *b = NULL;
	uint32_t la = split ? len / 3 : len, i;
	uint8_t *d;

	if (a == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(a, (uint16_t)la);
	for (i = 0; i < la; i++)
		d[i] = pat(k, i);
	if (split) {
		b = rte_pktmbuf_alloc(p->pool);
		if (b == NULL) {
			rte_pktmbuf_free(a);
			return NULL;
		}
		d = (uint8_t *)rte_pktmbuf_append(b, (uint16_t)(len - la));
		for (i = la; i < len; i++)
			d[i - la] = pat(k, i);
		rte_pktmbuf_chain(a, b);
	}
	return a;
}

static int
frame_ok(const struct rte_mbuf *m, uint32_t k, uint32_t len)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t i;

	if (m->pkt_len != len || m->data_len != len || m->nb_segs != 1)
		return 0;
	for (i = 0; i < len; i++)
		if (d[i] != pat(k, i))
			return 0;
	return 1;
}

static uint32_t
len_of(uint32_t k, uint32_t max)
{
	return 60 + (k * 977) % (max - 59);
}

/* Send `count` frames a -> b, receiving as we go; check every one. */
static void
stream(struct hc_port *a, struct hc_port *b, uint32_t count, uint32_t max)
{
	struct rte_mbuf *m[32];
	uint32_t sent = 0, got = 0, bad = 0, spins = 0;
	uint16_t n, i;

	while (got < count && spins < 1000000) {
		if (sent < count) {
			struct rte_mbuf *f = make_frame(a, sent,
				sent % 5 == 4 ? max : len_of(sent, max),
				sent % 3 == 1);

			CU_ASSERT_FATAL(f != NULL);
			if (a->ops->tx_burst(a, &f, 1) == 1)
				sent++;
			else
				rte_pktmbuf_free(f);
		}
		n = hc_port_rx(b, m, 32);
		for (i = 0; i < n; i++, got++) {
			uint32_t len = got % 5 == 4 ? max : len_of(got, max);

			bad += !frame_ok(m[i], got, len);
			rte_pktmbuf_free(m[i]);
		}
		spins++;
	}
	CU_ASSERT_EQUAL(got, count);
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_stream_both_ways(void)
{
	struct hc_port srv, cli;

	CU_ASSERT_FATAL(open_link(&srv, &cli, "both", 9000, 2047, "") == 0);
	CU_ASSERT(srv.shm && cli.shm && srv.tx_multi_seg);
	stream(&srv, &cli, 5000, 9018);
	stream(&cli, &srv, 5000, 9018);
	hc_port_close(&cli);
	hc_port_close(&srv);
}

/* A ring of 64 slots takes 64 frames, refuses the 65th, takes again once
 * the peer received (and freed) them. */
static void
test_ring_full(void)
{
	struct hc_port srv, cli;
	struct rte_mbuf *f, *m[64];
	uint32_t k, n = 0;

	CU_ASSERT_FATAL(open_link(&srv, &cli, "full", 1500, 1023,
				  ",slots=64") == 0);
	for (k = 0; k < 64; k++) {
		f = make_frame(&cli, k, 100, 0);
		CU_ASSERT_EQUAL(cli.ops->tx_burst(&cli, &f, 1), 1);
	}
	f = make_frame(&cli, 64, 100, 0);
	CU_ASSERT_EQUAL(cli.ops->tx_burst(&cli, &f, 1), 0);
	while (n < 64) {
		uint16_t got = hc_port_rx(&srv, m, 64), i;

		CU_ASSERT_FATAL(got > 0);
		for (i = 0; i < got; i++, n++) {
			CU_ASSERT(frame_ok(m[i], n, 100));
			rte_pktmbuf_free(m[i]);
		}
	}
	CU_ASSERT_EQUAL(cli.ops->tx_burst(&cli, &f, 1), 1);
	CU_ASSERT_EQUAL(hc_port_rx(&srv, m, 64), 1);
	CU_ASSERT(frame_ok(m[0], 64, 100));
	rte_pktmbuf_free(m[0]);
	hc_port_close(&cli);
	hc_port_close(&srv);
}

/* Frames the receiver keeps: the first half of the slots lent as external
 * buffers, the rest copied; all bytes right; freeing gives slots back. */
static void
test_lent_then_copied(void)
{
	struct hc_port srv, cli;
	struct rte_mbuf *held[64], *f;
	uint32_t k, ext = 0, ok = 0;

	CU_ASSERT_FATAL(open_link(&srv, &cli, "lend", 1500, 1023,
				  ",slots=64") == 0);
	for (k = 0; k < 64; k++) {
		f = make_frame(&srv, k, 1514, k & 1);
		CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, &f, 1), 1);
		CU_ASSERT_EQUAL_FATAL(hc_port_rx(&cli, &held[k], 1), 1);
		ext += RTE_MBUF_HAS_EXTBUF(held[k]) ? 1 : 0;
		ok += frame_ok(held[k], k, 1514);
		if (k < 32)
			CU_ASSERT(RTE_MBUF_HAS_EXTBUF(held[k]) != 0);
	}
	CU_ASSERT_EQUAL(ext, 32);
	CU_ASSERT_EQUAL(ok, 64);
	/* All 64 slots are back or lent: 32 more frames fit only once the
	 * lent ones are freed. */
	for (k = 0; k < 32; k++) {
		f = make_frame(&srv, 100 + k, 200, 0);
		CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, &f, 1), 1);
	}
	f = make_frame(&srv, 200, 200, 0);
	CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, &f, 1), 0);
	for (k = 0; k < 64; k++)
		rte_pktmbuf_free(held[k]);
	CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, &f, 1), 1);
	for (k = 0; k < 33; k++) {
		CU_ASSERT_EQUAL_FATAL(hc_port_rx(&cli, &held[0], 1), 1);
		CU_ASSERT(frame_ok(held[0], k < 32 ? 100 + k : 200, 200));
		rte_pktmbuf_free(held[0]);
	}
	hc_port_close(&cli);
	hc_port_close(&srv);
}

/* A frame larger than a slot is dropped (and counted as taken); the next
 * one goes through. */
static void
test_oversize(void)
{
	struct hc_port srv, cli;
	struct rte_mbuf *f[2], *m;

	CU_ASSERT_FATAL(open_link(&srv, &cli, "big", 1500, 1023,
				  ",slots=64") == 0);
	f[0] = make_frame(&srv, 0, 1500, 0);
	f[1] = make_frame(&srv, 1, 1200, 1);
	CU_ASSERT_FATAL(f[0] != NULL && f[1] != NULL);
	/* 1500 + 1200 bytes chained: more than the slot's 1518 + slack. */
	rte_pktmbuf_chain(f[0], f[1]);
	CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, f, 1), 1);
	f[0] = make_frame(&srv, 2, 300, 0);
	CU_ASSERT_EQUAL(srv.ops->tx_burst(&srv, f, 1), 1);
	CU_ASSERT_EQUAL_FATAL(hc_port_rx(&cli, &m, 1), 1);
	CU_ASSERT(frame_ok(m, 2, 300));
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(hc_port_rx(&cli, &m, 1), 0);
	hc_port_close(&cli);
	hc_port_close(&srv);
}

/* A second client of a link (or a client without a server) gets
 * -HC_ERR_LINK_DOWN within its wait; a second server of a path -HC_ERR_PORT. */
static void
test_one_client_per_link(void)
{
	struct hc_port srv, cli, other;
	struct hc_port_conf c;
	char devargs[256], pool[32];

	CU_ASSERT_FATAL(open_link(&srv, &cli, "one", 1500, 1023,
				  ",slots=64") == 0);
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	c.link_wait_ms = 200;
	snprintf(devargs, sizeof(devargs), "hc_shm2,path=%s/one,role=client",
		 dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&other, devargs, &c),
			-HC_ERR_LINK_DOWN);
	snprintf(devargs, sizeof(devargs), "hc_shm2,path=%s/none,role=client",
		 dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&other, devargs, &c),
			-HC_ERR_LINK_DOWN);
	hc_port_close(&cli);
	hc_port_close(&srv);

	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm0,path=%s/two,role=server",
		 dir);
	CU_ASSERT_EQUAL_FATAL(hc_port_open_shm(&srv, devargs, &c), 0);
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	CU_ASSERT_EQUAL(hc_port_open_shm(&other, devargs, &c), -HC_ERR_PORT);
	hc_port_close(&srv);
	/* The server removes its socket at close. */
	snprintf(devargs, sizeof(devargs), "%s/two", dir);
	CU_ASSERT(access(devargs, F_OK) != 0);
}

/* Ends of different MTUs do not link; the error is the client's. */
static void
test_mtu_mismatch(void)
{
	struct hc_port srv, cli;
	struct poller p = { .port = &srv };
	struct hc_port_conf c;
	char devargs[256], pool[32];
	pthread_t th;

	conf_of(&c, 9000, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm0,path=%s/mtu,role=server",
		 dir);
	CU_ASSERT_EQUAL_FATAL(hc_port_open_shm(&srv, devargs, &c), 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, poll_server, &p) == 0);
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm1,path=%s/mtu,role=client",
		 dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&cli, devargs, &c), -HC_ERR_PORT);
	p.stop = 1;
	pthread_join(th, NULL);
	hc_port_close(&srv);
}

/* C32: a second port given a pool name in use is refused, naming it
 * (HC_ERR_ADDR_IN_USE, not NOMEM); the first port is untouched and the
 * name is free again once it closed. */
static void
test_pool_name_taken(void)
{
	struct hc_port a, b;
	struct hc_port_conf c;
	char devargs[256], pool[32];

	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs), "hc_shm0,path=%s/pa,role=server",
		 dir);
	CU_ASSERT_EQUAL_FATAL(hc_port_open_shm(&a, devargs, &c), 0);
	snprintf(devargs, sizeof(devargs), "hc_shm1,path=%s/pb,role=server",
		 dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&b, devargs, &c),
			-HC_ERR_ADDR_IN_USE);
	CU_ASSERT_PTR_NOT_NULL(a.pool);
	CU_ASSERT_PTR_EQUAL(rte_mempool_lookup(pool), a.pool);
	hc_port_close(&a);
	CU_ASSERT_EQUAL_FATAL(hc_port_open_shm(&b, devargs, &c), 0);
	hc_port_close(&b);
}

/* Open server port k of the rank whose pools are set (hc_shm<k>, path
 * q<k>), its frame that of mtu, pool_mbufs mbufs; its pool's name in
 * pool (32 bytes). 0 or the error of hc_port_open_shm. */
static int
open_in_set(struct hc_port *p, struct hc_port_pools *set, unsigned int k,
	    uint32_t mtu, uint32_t mbufs, char *pool)
{
	struct hc_port_conf conf;
	char devargs[256];

	conf_of(&conf, mtu, mbufs, pool, 32);
	conf.pools = set;
	snprintf(devargs, sizeof(devargs),
		 "hc_shm%u,path=%s/q%u,role=server", k, dir, k);
	return hc_port_open_shm(p, devargs, &conf);
}

/* struct hc_port_pools: ports of the same data room and pool size share a
 * pool (a rank's mesh), others get their own; hc_port_close leaves a
 * shared pool, hc_port_pools_free frees it; a backend that parks mbufs
 * (share false) and a port that finds the set full get pools of their
 * own. */
static void
test_pools_shared(void)
{
	struct hc_port_pools set = { 0 };
	struct hc_port a, b, c, d, e;
	struct hc_port_conf conf;
	char pa[32], pb[32], pc[32], pd[32], pe[32];
	struct rte_mbuf *m;
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(open_in_set(&a, &set, 0, 1500, 1023, pa), 0);
	CU_ASSERT_EQUAL_FATAL(open_in_set(&b, &set, 1, 1500, 1023, pb), 0);
	CU_ASSERT_PTR_EQUAL(b.pool, a.pool);
	CU_ASSERT(a.pool_shared && b.pool_shared);
	CU_ASSERT_EQUAL(set.n, 1);
	CU_ASSERT_PTR_NULL(rte_mempool_lookup(pb)); /* b created none */
	/* Another data room (MTU 9000), another size (2047): pools of
	 * their own, in the set. */
	CU_ASSERT_EQUAL_FATAL(open_in_set(&c, &set, 2, 9000, 1023, pc), 0);
	CU_ASSERT_EQUAL_FATAL(open_in_set(&d, &set, 3, 1500, 2047, pd), 0);
	CU_ASSERT(c.pool != a.pool && d.pool != a.pool && d.pool != c.pool);
	CU_ASSERT_EQUAL(set.n, 3);
	CU_ASSERT_EQUAL(d.pool->size, 2047);
	/* A backend that parks mbufs (share false): its own pool, even of
	 * a frame the set has. */
	memset(&e, 0, sizeof(e));
	conf_of(&conf, 1500, 1023, pe, sizeof(pe));
	conf.pools = &set;
	CU_ASSERT_EQUAL_FATAL(hc_port_pool_create(&e, &conf, 0, false), 0);
	CU_ASSERT(e.pool != a.pool && !e.pool_shared);
	CU_ASSERT_EQUAL(set.n, 3);
	rte_mempool_free(e.pool);
	/* a's close leaves the pool b still uses. */
	hc_port_close(&a);
	CU_ASSERT_PTR_EQUAL(rte_mempool_lookup(pa), b.pool);
	m = rte_pktmbuf_alloc(b.pool);
	CU_ASSERT_PTR_NOT_NULL(m);
	rte_pktmbuf_free(m);
	/* A full set: a pool of the port's own, freed by its close. */
	for (i = set.n; i < HC_PORT_POOLS_MAX; i++)
		set.pool[i] = b.pool;
	set.n = HC_PORT_POOLS_MAX;
	CU_ASSERT_EQUAL_FATAL(open_in_set(&e, &set, 4, 4000, 1023, pe), 0);
	CU_ASSERT(!e.pool_shared);
	CU_ASSERT_PTR_EQUAL(rte_mempool_lookup(pe), e.pool);
	hc_port_close(&e);
	CU_ASSERT_PTR_NULL(rte_mempool_lookup(pe));
	set.n = 3;
	hc_port_close(&b);
	hc_port_close(&c);
	hc_port_close(&d);
	CU_ASSERT_PTR_NOT_NULL(rte_mempool_lookup(pa));
	CU_ASSERT_PTR_NOT_NULL(rte_mempool_lookup(pc));
	hc_port_pools_free(&set);
	CU_ASSERT_EQUAL(set.n, 0);
	CU_ASSERT_PTR_NULL(rte_mempool_lookup(pa));
	CU_ASSERT_PTR_NULL(rte_mempool_lookup(pc));
	CU_ASSERT_PTR_NULL(rte_mempool_lookup(pd));
}

/* A hostile or broken server, written here from port_shm.h: it maps the
 * link's memory itself and hands the client what it likes. */
struct fake {
	int memfd, lsock;
	uint8_t *base;
	size_t bytes;
	uint32_t slots, slot_bytes, magic_msg;
	pthread_t th;
};

static void *
fake_accept(void *arg)
{
	struct fake *f = arg;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh;
	struct iovec iov = { &f->magic_msg, sizeof(f->magic_msg) };
	struct cmsghdr *c;
	int fd = accept(f->lsock, NULL, NULL);

	if (fd < 0)
		return NULL;
	memset(&mh, 0, sizeof(mh));
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &f->memfd, sizeof(int));
	(void)sendmsg(fd, &mh, 0);
	close(fd);
	return NULL;
}

static int
fake_open(struct fake *f, const char *name, uint32_t mtu, uint32_t version,
	  uint32_t magic_msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hc_shm_hdr *h;
	uint32_t i;
	int d;

	memset(f, 0, sizeof(*f));
	f->slots = 64;
	f->slot_bytes = hc_shm_slot_bytes(mtu);
	f->bytes = hc_shm_map_bytes(f->slots, f->slot_bytes);
	f->magic_msg = magic_msg;
	f->memfd = memfd_create("fake_shm", 0);
	if (f->memfd < 0 || ftruncate(f->memfd, (off_t)f->bytes) != 0)
		return -1;
	f->base = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		       f->memfd, 0);
	if (f->base == MAP_FAILED)
		return -1;
	h = (struct hc_shm_hdr *)f->base;
	h->version = version;
	h->slots = f->slots;
	h->slot_bytes = f->slot_bytes;
	for (d = 0; d < 2; d++) {
		uint32_t *fr = (uint32_t *)(f->base +
			hc_shm_rings_off(f->slots, d) +
			f->slots * sizeof(struct hc_shm_desc));

		for (i = 0; i < f->slots; i++)
			fr[i] = i;
		h->dir[d].fhead = f->slots;
	}
	h->magic = HC_SHM_MAGIC;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	f->lsock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (f->lsock < 0 || bind(f->lsock, (struct sockaddr *)&sa,
				 sizeof(sa)) != 0 || listen(f->lsock, 1) != 0)
		return -1;
	return pthread_create(&f->th, NULL, fake_accept, f);
}

/* Stop accepting (a client that never came must not hang the test) and
 * remove the socket; the memory stays mapped. */
static void
fake_stop(struct fake *f, const char *name)
{
	char path[128];

	shutdown(f->lsock, SHUT_RDWR);
	pthread_join(f->th, NULL);
	close(f->lsock);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void
fake_close(struct fake *f, const char *name)
{
	fake_stop(f, name);
	munmap(f->base, f->bytes);
	close(f->memfd);
}

static struct hc_shm_desc *
fake_desc(struct fake *f, int d)
{
	return (struct hc_shm_desc *)(f->base + hc_shm_rings_off(f->slots, d));
}

static uint32_t *
fake_free(struct fake *f, int d)
{
	return (uint32_t *)(fake_desc(f, d) + f->slots);
}

static uint8_t *
fake_slot(struct fake *f, int d, uint32_t slot)
{
	return f->base + hc_shm_slots_off(f->slots, f->slot_bytes, d) +
	       (size_t)slot * f->slot_bytes + HC_SHM_HEADROOM;
}

/* Descriptors naming no slot or too long a frame, and a free ring naming
 * no slot: dropped (slots given back where they are slots), never read or
 * written outside the mapping; the good frames around them pass. */
static void
test_hostile_peer(void)
{
	struct fake f;
	struct hc_port cli;
	struct hc_port_conf c;
	struct hc_shm_hdr *h;
	struct hc_shm_desc *rd;
	struct rte_mbuf *m[8], *t[2];
	char devargs[256], pool[32];
	uint32_t i;

	CU_ASSERT_FATAL(fake_open(&f, "hostile", 1500, HC_SHM_VERSION,
				  HC_SHM_MAGIC) == 0);
	h = (struct hc_shm_hdr *)f.base;
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs),
		 "hc_shm1,path=%s/hostile,role=client,slots=64", dir);
	if (hc_port_open_shm(&cli, devargs, &c) != 0) {
		fake_close(&f, "hostile");
		CU_FAIL_FATAL("client did not link to the fake server");
	}
	fake_stop(&f, "hostile");
	CU_ASSERT_EQUAL(h->attached, 1);

	/* RX: 4 descriptors, 2 of them bad. */
	rd = fake_desc(&f, 0);
	rd[0] = (struct hc_shm_desc){ .slot = 9999, .len = 100 };
	rd[1] = (struct hc_shm_desc){ .slot = 3, .len = 60000 };
	rd[2] = (struct hc_shm_desc){ .slot = 4, .len = 200 };
	rd[3] = (struct hc_shm_desc){ .slot = 5, .len = 1514 };
	for (i = 0; i < 200; i++)
		fake_slot(&f, 0, 4)[i] = pat(4, i);
	for (i = 0; i < 1514; i++)
		fake_slot(&f, 0, 5)[i] = pat(5, i);
	__atomic_store_n(&h->dir[0].head, 4, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL_FATAL(hc_port_rx(&cli, m, 8), 2);
	CU_ASSERT(frame_ok(m[0], 4, 200));
	CU_ASSERT(frame_ok(m[1], 5, 1514));
	/* Slot 3 (a slot, with a bad length) came back at once. */
	CU_ASSERT_EQUAL(h->dir[0].fhead, f.slots + 1);
	CU_ASSERT_EQUAL(fake_free(&f, 0)[0], 3);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(m[1]);
	CU_ASSERT_EQUAL(h->dir[0].fhead, f.slots + 3);
	CU_ASSERT_EQUAL(hc_port_rx(&cli, m, 8), 0);

	/* TX: the free ring names slot 77777 first, then slot 1. */
	fake_free(&f, 1)[0] = 77777;
	t[0] = make_frame(&cli, 10, 300, 0);
	t[1] = make_frame(&cli, 11, 400, 1);
	CU_ASSERT_EQUAL(cli.ops->tx_burst(&cli, t, 2), 2);
	CU_ASSERT_EQUAL(h->dir[1].head, 1);
	CU_ASSERT_EQUAL(fake_desc(&f, 1)[0].slot, 1);
	CU_ASSERT_EQUAL(fake_desc(&f, 1)[0].len, 400);
	for (i = 0; i < 400 && fake_slot(&f, 1, 1)[i] == pat(11, i); i++)
		;
	CU_ASSERT_EQUAL(i, 400);
	hc_port_close(&cli);
	munmap(f.base, f.bytes);
	close(f.memfd);
}

/* A server of another layout version, or one that says no magic: the
 * client refuses (-HC_ERR_PORT, -HC_ERR_LINK_DOWN). */
static void
test_foreign_server(void)
{
	struct fake f;
	struct hc_port cli;
	struct hc_port_conf c;
	char devargs[256], pool[32];

	CU_ASSERT_FATAL(fake_open(&f, "v2", 1500, HC_SHM_VERSION + 1,
				  HC_SHM_MAGIC) == 0);
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs),
		 "hc_shm1,path=%s/v2,role=client,slots=64", dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&cli, devargs, &c), -HC_ERR_PORT);
	fake_close(&f, "v2");
	CU_ASSERT_FATAL(fake_open(&f, "nomagic", 1500, HC_SHM_VERSION,
				  0x12345678) == 0);
	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	snprintf(devargs, sizeof(devargs),
		 "hc_shm1,path=%s/nomagic,role=client,slots=64", dir);
	CU_ASSERT_EQUAL(hc_port_open_shm(&cli, devargs, &c),
			-HC_ERR_LINK_DOWN);
	fake_close(&f, "nomagic");
}

static void
test_bad_devargs(void)
{
	static const char *const bad[] = {
		"hc_shm0,role=server",                 /* no path */
		"hc_shm0,path=/tmp/x",                 /* no role */
		"hc_shm0,path=/tmp/x,role=master",
		"hc_shm0,path=/tmp/x,role=server,slots=100",
		"hc_shm0,path=/tmp/x,role=server,slots=32",
		"hc_shm0,path=/tmp/x,role=server,slots=32768",
		"hc_shm0,path=/tmp/x,role=server,slots=64,slots=128",
		"hc_shm0,path=/tmp/x,role=server,mac=zz",
		"hc_shm0,path=/tmp/x,role=server,bsize=2048", /* memif's key */
		"net_memif0,path=/tmp/x,role=server",
	};
	struct hc_port port;
	struct hc_port_conf c;
	char pool[32];
	unsigned int i;

	conf_of(&c, 1500, 1023, pool, sizeof(pool));
	for (i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT_EQUAL(hc_port_open_shm(&port, bad[i], &c),
				-HC_ERR_INVAL);
		CU_ASSERT(access("/tmp/x", F_OK) != 0);
	}
	c.mtu = HC_PORT_MTU_MAX + 1;
	CU_ASSERT_EQUAL(hc_port_open_shm(&port, "hc_shm0,path=/tmp/x,"
					 "role=server", &c), -HC_ERR_INVAL);
}

/* net_af_packet: a framesz that cannot carry an [net] mtu frame (below
 * mtu + 80, the kernel writing it at offset 66 of the slot) or that no
 * mbuf holds (above 65439) is -HC_ERR_CONFIG before the probe; one just
 * big enough passes that check and fails only at the probe, whose
 * interface does not exist (-HC_ERR_PORT). A framesz that is not a whole
 * number of bytes (a suffix, a sign, empty) is -HC_ERR_CONFIG too. */
static void
test_afp_framesz(void)
{
	static const struct {
		uint32_t mtu;
		const char *framesz; /* NULL: none (the PMD's 2048) */
		int rc;
	} cases[] = {
		{ 9000, "2048", -HC_ERR_CONFIG },
		{ 9000, "9079", -HC_ERR_CONFIG },
		{ 9000, "9080", -HC_ERR_PORT },
		{ 9000, "x", -HC_ERR_CONFIG },
		{ 9000, "9080x", -HC_ERR_CONFIG },
		{ 9000, "-9080", -HC_ERR_CONFIG },
		{ 9000, "", -HC_ERR_CONFIG },
		{ 1968, NULL, -HC_ERR_PORT },
		{ 1969, NULL, -HC_ERR_CONFIG },
		{ 1500, "65439", -HC_ERR_PORT },
		{ 1500, "65440", -HC_ERR_CONFIG },
		{ 65000, "65280", -HC_ERR_PORT },
	};
	struct hc_port port;
	struct hc_port_conf c;
	char devargs[128], pool[32];
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(cases); i++) {
		conf_of(&c, cases[i].mtu, 1023, pool, sizeof(pool));
		if (cases[i].framesz != NULL)
			snprintf(devargs, sizeof(devargs),
				 "net_af_packet0,iface=hcnosuch0,framesz=%s",
				 cases[i].framesz);
		else
			snprintf(devargs, sizeof(devargs),
				 "net_af_packet0,iface=hcnosuch0");
		rc = hc_port_open_dpdk(&port, devargs, &c);
		if (rc != cases[i].rc)
			printf("\n  mtu %u %s: %d, want %d\n", cases[i].mtu,
			       devargs, rc, cases[i].rc);
		CU_ASSERT_EQUAL(rc, cases[i].rc);
	}
}

static CU_TestInfo shm_tests[] = {
	{ "frames both ways, byte for byte, in order", test_stream_both_ways },
	{ "a full ring refuses, then takes again", test_ring_full },
	{ "lent slots, then copies, then slots back", test_lent_then_copied },
	{ "oversize frame dropped, next one passes", test_oversize },
	{ "one client per link, one server per path", test_one_client_per_link },
	{ "MTU mismatch refused", test_mtu_mismatch },
	{ "C32: a pool name in use refused", test_pool_name_taken },
	{ "ports of one frame share a pool; its set frees it",
	  test_pools_shared },
	{ "bad devargs: -HC_ERR_INVAL", test_bad_devargs },
	{ "a hostile peer's descriptors and free slots", test_hostile_peer },
	{ "a server of another version or magic refused", test_foreign_server },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo afp_tests[] = {
	{ "net_af_packet: framesz against [net] mtu", test_afp_framesz },
	CU_TEST_INFO_NULL,
};

int
main(void)
{
	CU_SuiteInfo suites[] = {
		{ "shm", NULL, NULL, NULL, NULL, shm_tests },
		{ "af_packet slots", NULL, NULL, NULL, NULL, afp_tests },
		CU_SUITE_INFO_NULL,
	};
	unsigned int failed;

	snprintf(dir, sizeof(dir), "/tmp/test_shm.XXXXXX"); /* mkdtemp(3) */
	if (mkdtemp(dir) == NULL) {
		perror("test_shm: mkdtemp");
		return EXIT_FAILURE;
	}
	if (test_eal_init("test_shm", "256", "hcsh") != 0) {
		rmdir(dir);
		return EXIT_FAILURE;
	}
	if (CU_initialize_registry() != CUE_SUCCESS ||
	    CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "test_shm: set-up failed\n");
		test_eal_fini();
		rmdir(dir);
		return EXIT_FAILURE;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	test_eal_fini();
	if (rmdir(dir) != 0) {
		fprintf(stderr, "test_shm: %s not empty: a socket was left\n",
			dir);
		failed++;
	}
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
