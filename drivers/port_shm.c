/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc_shm: a shared-memory link between two processes of one host, with one
 * copy per frame where net_memif makes two (port.h, hc_port_open_shm).
 *
 * The shared memory (port_shm.h has its layout) is a memfd the server
 * creates and hands to the client over a Unix socket (SCM_RIGHTS,
 * unix(7)): a header, then for each
 * direction (0: server -> client, 1: client -> server) a descriptor ring
 * and a free ring of `slots` entries each, then the slots of both
 * directions, `slot_bytes` each. A direction's slots belong to its
 * producer until it publishes them in the descriptor ring, then to the
 * consumer until it pushes them back on the free ring. Both rings are
 * single-producer single-consumer and have as many entries as there are
 * slots, so neither can overflow: a producer without a free slot simply
 * sends nothing (the port's TX queue keeps the frame).
 *
 * TX copies a frame, every segment, into a free slot (the one copy).
 * RX lends the slot itself to an mbuf of our pool as an external buffer
 * (rte_pktmbuf_attach_extbuf); freeing the mbuf gives the slot back. So
 * the transport reduces straight out of the peer's slot. The same design
 * as memif's zero-copy mode (libmemif; DPDK's net_memif implements it
 * only for the client and only with the client's mempool as the region,
 * which rules out TX from user memory). While more than half of the RX
 * slots are lent, RX copies instead, so that mbufs the upper layers keep
 * cannot starve the peer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, memfd_create */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_kvargs.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_spinlock.h>

#include "hypercomm.h"
#include "log.h"
#include "port.h"
#include "port_shm.h"

/* One end of a direction, mapped. */
struct shm_end {
	struct hc_shm_dir *d;
	struct hc_shm_desc *desc;
	uint32_t *free;
	uint8_t *buf;
};

struct shm_port {
	int memfd;
	void *base;
	size_t bytes;
	int lsock;             /* server: listening until the client came */
	unsigned int polls;    /* server: polls since the last accept() */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t slots, mask, slot_bytes;
	struct shm_end tx, rx;
	uint32_t tx_head;      /* = tx.d->head, ours */
	uint32_t tx_ftail;     /* free entries taken */
	uint32_t rx_tail;      /* descriptors consumed */
	uint32_t rx_fhead;     /* = rx.d->fhead, ours; written under lock */
	uint32_t rx_nonslot;   /* descriptors consumed that named no slot */
	rte_spinlock_t lock;   /* slot give-back, from any thread */
	uint64_t rx_copies;    /* frames copied: too many slots lent */
	uint64_t bad_desc;     /* descriptors or free slots out of range
	                        * (a broken peer; dropped) */
	uint64_t tx_oversize;  /* frames larger than a slot (dropped) */
	struct rte_mbuf_ext_shared_info *shinfo; /* one per RX slot */
};

static void
map_end(struct shm_port *sp, struct shm_end *e, int d)
{
	uint8_t *b = sp->base;
	struct hc_shm_hdr *h = sp->base;

	e->d = &h->dir[d];
	e->desc = (struct hc_shm_desc *)(b + hc_shm_rings_off(sp->slots, d));
	e->free = (uint32_t *)(e->desc + sp->slots);
	e->buf = b + hc_shm_slots_off(sp->slots, sp->slot_bytes, d);
}

/* Give RX slot back to the peer (an mbuf's free_cb or a copy). */
static void
slot_give_back(struct shm_port *sp, uint32_t slot)
{
	rte_spinlock_lock(&sp->lock);
	sp->rx.free[sp->rx_fhead & sp->mask] = slot;
	__atomic_store_n(&sp->rx_fhead, sp->rx_fhead + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&sp->rx.d->fhead, sp->rx_fhead, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&sp->lock);
}

static void
slot_free_cb(void *addr, void *opaque)
{
	struct shm_port *sp = opaque;
	uint32_t slot = (uint32_t)(((uint8_t *)addr - sp->rx.buf) /
				   sp->slot_bytes);

	slot_give_back(sp, slot);
}

/* RX slots lent to mbufs now: consumed, minus given back, minus the
 * descriptors that named no slot (derived, so that neither RX nor the
 * free callback counts per packet). */
static uint32_t
slots_lent(const struct shm_port *sp)
{
	return sp->rx_tail - sp->rx_nonslot -
	       (__atomic_load_n(&sp->rx_fhead, __ATOMIC_RELAXED) - sp->slots);
}

/* The one message of the handshake: the 4-byte magic and, as ancillary
 * data, the memfd (SCM_RIGHTS). */
static void
msg_init(struct msghdr *mh, struct iovec *iov, uint32_t *magic, char *cbuf,
	 size_t clen)
{
	memset(mh, 0, sizeof(*mh));
	memset(cbuf, 0, clen);
	iov->iov_base = magic;
	iov->iov_len = sizeof(*magic);
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	mh->msg_control = cbuf;
	mh->msg_controllen = clen;
}

/* Server: hand the memfd to a client that connected, once. */
static void
server_accept(struct hc_port *port, struct shm_port *sp)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *c;
	uint32_t magic = HC_SHM_MAGIC;
	int fd = accept4(sp->lsock, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return; /* EAGAIN: nobody yet */
	msg_init(&mh, &iov, &magic, cbuf, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sp->memfd, sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(magic)) {
		HC_LOG(WARNING, DRIVER, "%s: sending the memory to a client on "
		       "%s failed: %s", port->name, sp->path, strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	/* One client per link: a second one finds no socket (C32). */
	close(sp->lsock);
	sp->lsock = -1;
	unlink(sp->path);
	HC_LOG(INFO, DRIVER, "%s: client connected on %s", port->name,
	       sp->path);
}

static uint16_t
shm_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct shm_port *sp = port->backend;
	uint32_t head, avail, i, got = 0;

	if (unlikely(sp->lsock >= 0) && (sp->polls++ & 63) == 0)
		server_accept(port, sp);
	head = __atomic_load_n(&sp->rx.d->head, __ATOMIC_ACQUIRE);
	avail = head - sp->rx_tail;
	if (avail == 0)
		return 0;
	if (avail > n)
		avail = n;
	if (rte_pktmbuf_alloc_bulk(port->pool, pkts, avail) != 0)
		return 0; /* pool empty: the frames wait in the ring */
	for (i = 0; i < avail; i++) {
		const struct hc_shm_desc *d = &sp->rx.desc[sp->rx_tail & sp->mask];
		struct rte_mbuf *m = pkts[got];
		uint32_t slot = d->slot, len = d->len;
		uint8_t *s;

		sp->rx_tail++;
		if (unlikely(slot >= sp->slots ||
			     len > sp->slot_bytes - HC_SHM_HEADROOM ||
			     len > (uint32_t)(m->buf_len - m->data_off))) {
			/* Only a broken peer writes these; the slot (if it
			 * is one) goes back so the ring keeps moving. */
			sp->bad_desc++;
			if (slot < sp->slots)
				slot_give_back(sp, slot);
			else
				sp->rx_nonslot++;
			continue;
		}
		s = sp->rx.buf + (size_t)slot * sp->slot_bytes;
		if (i + 1 < avail)
			rte_prefetch0(sp->rx.buf + (size_t)sp->rx.desc[
				sp->rx_tail & sp->mask].slot * sp->slot_bytes +
				HC_SHM_HEADROOM);
		/* slots_lent counts this descriptor's slot too. */
		if (slots_lent(sp) > sp->slots / 2) {
			memcpy(rte_pktmbuf_mtod(m, void *), s + HC_SHM_HEADROOM,
			       len);
			slot_give_back(sp, slot);
			sp->rx_copies++;
		} else {
			rte_mbuf_ext_refcnt_set(&sp->shinfo[slot], 1);
			rte_pktmbuf_attach_extbuf(m, s, RTE_BAD_IOVA,
						  (uint16_t)sp->slot_bytes,
						  &sp->shinfo[slot]);
			m->data_off = HC_SHM_HEADROOM;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		got++;
	}
	if (got < avail)
		rte_pktmbuf_free_bulk(&pkts[got], avail - got);
	return (uint16_t)got;
}

static uint16_t
shm_tx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	struct shm_port *sp = port->backend;
	uint32_t fhead = __atomic_load_n(&sp->tx.d->fhead, __ATOMIC_ACQUIRE);
	uint32_t room = fhead - sp->tx_ftail, i;

	if (n > room)
		n = (uint16_t)room;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		uint32_t slot;
		uint8_t *dst;

		if (unlikely(m->pkt_len > sp->slot_bytes - HC_SHM_HEADROOM)) {
			sp->tx_oversize++;
			rte_pktmbuf_free(m);
			continue;
		}
		slot = sp->tx.free[sp->tx_ftail & sp->mask];
		sp->tx_ftail++;
		if (unlikely(slot >= sp->slots)) {
			/* Only a broken peer gives such a slot back: never
			 * write outside the mapping; the frame is dropped. */
			sp->bad_desc++;
			rte_pktmbuf_free(m);
			continue;
		}
		dst = sp->tx.buf + (size_t)slot * sp->slot_bytes + HC_SHM_HEADROOM;
		for (seg = m; seg != NULL; seg = seg->next) {
			memcpy(dst, rte_pktmbuf_mtod(seg, void *),
			       seg->data_len);
			dst += seg->data_len;
		}
		sp->tx.desc[sp->tx_head & sp->mask] =
			(struct hc_shm_desc){ .slot = slot, .len = m->pkt_len };
		sp->tx_head++;
		rte_pktmbuf_free(m);
	}
	if (n > 0)
		__atomic_store_n(&sp->tx.d->head, sp->tx_head,
				 __ATOMIC_RELEASE);
	return n;
}

static void
shm_close(struct hc_port *port)
{
	struct shm_port *sp = port->backend;

	if (sp == NULL)
		return;
	if (sp->lsock >= 0) {
		close(sp->lsock);
		unlink(sp->path);
	}
	HC_LOG(INFO, DRIVER, "%s: closed; frames TX %" PRIu64 ", RX %" PRIu64
	       " of which %" PRIu64 " copied (too many slots lent); %" PRIu64
	       " bad descriptors, %" PRIu64 " oversize TX", port->name,
	       port->stats.tx_pkts, port->stats.rx_pkts, sp->rx_copies,
	       sp->bad_desc, sp->tx_oversize);
	if (sp->memfd >= 0)
		close(sp->memfd);
	port->backend = NULL;
	if (slots_lent(sp) != 0) {
		/* An mbuf still points into the slots: keep the mapping and
		 * what its free callback uses until the process ends. */
		HC_LOG(WARNING, DRIVER, "%s: %u RX slots still lent to mbufs "
		       "at close; the mapping stays", port->name,
		       slots_lent(sp));
		return;
	}
	if (sp->base != NULL)
		munmap(sp->base, sp->bytes);
	free(sp->shinfo);
	free(sp);
}

static const struct hc_port_ops shm_ops = {
	.rx_burst = shm_rx,
	.tx_burst = shm_tx,
	.close = shm_close,
};

/* Devargs "hc_shmN,path=FILE,role=server|client[,slots=N][,mac=MAC]". */
struct shm_args {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int server;
	uint32_t slots;
	struct rte_ether_addr mac;
	bool has_mac;
};

static int
arg_path(const char *key, const char *v, void *o)
{
	struct shm_args *a = o;

	(void)key;
	if (v[0] == '\0' || strlen(v) >= sizeof(a->path))
		return -1;
	strcpy(a->path, v);
	return 0;
}

static int
arg_role(const char *key, const char *v, void *o)
{
	struct shm_args *a = o;

	(void)key;
	if (strcmp(v, "server") == 0)
		a->server = 1;
	else if (strcmp(v, "client") == 0)
		a->server = 0;
	else
		return -1;
	return 0;
}

static int
arg_slots(const char *key, const char *v, void *o)
{
	struct shm_args *a = o;
	char *end;
	unsigned long x;

	(void)key;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || x < HC_SHM_SLOTS_MIN ||
	    x > HC_SHM_SLOTS_MAX || (x & (x - 1)) != 0)
		return -1;
	a->slots = (uint32_t)x;
	return 0;
}

static int
arg_mac(const char *key, const char *v, void *o)
{
	struct shm_args *a = o;

	(void)key;
	if (rte_ether_unformat_addr(v, &a->mac) != 0)
		return -1;
	a->has_mac = true;
	return 0;
}

static int
parse_args(const char *devargs, struct shm_args *a)
{
	static const char *const keys[] = { "path", "role", "slots", "mac",
					    NULL };
	static const struct {
		const char *key;
		arg_handler_t fn;
		const char *what;
	} h[] = {
		{ "path", arg_path, "a file name of 1..107 bytes" },
		{ "role", arg_role, "server or client" },
		{ "slots", arg_slots, "a power of 2 in "
		  RTE_STR(HC_SHM_SLOTS_MIN) ".." RTE_STR(HC_SHM_SLOTS_MAX) },
		{ "mac", arg_mac, "a MAC address" },
	};
	const char *comma = strchr(devargs, ',');
	struct rte_kvargs *kv;
	unsigned int i;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	a->server = -1;
	a->slots = HC_SHM_SLOTS_DEFAULT;
	kv = rte_kvargs_parse(comma != NULL ? comma + 1 : "", keys);
	if (kv == NULL) {
		HC_LOG(ERR, DRIVER, "port '%s': cannot parse; hc_shm takes "
		       "path=, role=, slots= and mac=", devargs);
		return -HC_ERR_INVAL;
	}
	for (i = 0; i < RTE_DIM(h) && rc == 0; i++) {
		if (rte_kvargs_count(kv, h[i].key) > 1 ||
		    rte_kvargs_process(kv, h[i].key, h[i].fn, a) != 0) {
			HC_LOG(ERR, DRIVER, "port '%s': %s= must be given once "
			       "and be %s", devargs, h[i].key, h[i].what);
			rc = -HC_ERR_INVAL;
		}
	}
	rte_kvargs_free(kv);
	if (rc == 0 && (a->path[0] == '\0' || a->server < 0)) {
		HC_LOG(ERR, DRIVER, "port '%s': hc_shm needs path= and "
		       "role=server|client", devargs);
		rc = -HC_ERR_INVAL;
	}
	return rc;
}

/* Map sp->bytes of sp->memfd, page tables populated (MAP_POPULATE: no
 * minor fault per slot on its first use). */
static int
map_memfd(const struct hc_port *port, struct shm_port *sp)
{
	sp->base = mmap(NULL, sp->bytes, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, sp->memfd, 0);
	if (sp->base != MAP_FAILED)
		return 0;
	sp->base = NULL;
	HC_LOG(ERR, DRIVER, "%s: mmap of %zu bytes: %s", port->name,
	       sp->bytes, strerror(errno));
	return -1;
}

static int
server_setup(struct hc_port *port, struct shm_port *sp)
{
	struct sockaddr_un sa;
	struct hc_shm_hdr *h;
	int d;
	uint32_t i;

	sp->memfd = memfd_create("hc_shm", MFD_CLOEXEC);
	if (sp->memfd < 0 || ftruncate(sp->memfd, (off_t)sp->bytes) != 0) {
		HC_LOG(ERR, DRIVER, "%s: memfd of %zu bytes: %s", port->name,
		       sp->bytes, strerror(errno));
		return -HC_ERR_NOMEM;
	}
	if (map_memfd(port, sp) != 0)
		return -HC_ERR_NOMEM;
	h = sp->base;
	h->version = HC_SHM_VERSION;
	h->slots = sp->slots;
	h->slot_bytes = sp->slot_bytes;
	for (d = 0; d < 2; d++) {
		struct shm_end e;

		map_end(sp, &e, d);
		for (i = 0; i < sp->slots; i++)
			e.free[i] = i;
		e.d->head = 0;
		e.d->fhead = sp->slots;
	}
	__atomic_store_n(&h->magic, HC_SHM_MAGIC, __ATOMIC_RELEASE);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sp->path);
	sp->lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			   0);
	if (sp->lsock < 0 ||
	    bind(sp->lsock, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(sp->lsock, 1) != 0) {
		HC_LOG(ERR, DRIVER, "%s: socket %s: %s%s", port->name,
		       sp->path, strerror(errno), errno == EADDRINUSE ?
		       " (another process serves this link: two ranks given "
		       "the same path=?)" : "");
		if (sp->lsock >= 0)
			close(sp->lsock);
		sp->lsock = -1;
		return -HC_ERR_PORT;
	}
	return 0;
}

/* Client: connect to the server's socket (retried while it is missing or
 * refuses), receive the memfd, map it. */
static int
client_setup(struct hc_port *port, struct shm_port *sp, uint32_t wait_ms)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct sockaddr_un sa;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *c;
	struct hc_shm_hdr *h;
	struct stat st;
	uint32_t magic = 0, waited = 0;
	int fd = -1;
	ssize_t got = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sp->path);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -HC_ERR_PORT;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			struct timeval tv = { .tv_sec = wait_ms / 1000,
				.tv_usec = (wait_ms % 1000) * 1000 + 1 };

			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
			msg_init(&mh, &iov, &magic, cbuf, sizeof(cbuf));
			got = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
			break;
		}
		close(fd);
		fd = -1;
		if (waited >= wait_ms)
			break;
		rte_delay_us_sleep(10 * 1000);
		waited += 10;
	}
	if (fd >= 0)
		close(fd);
	c = got == (ssize_t)sizeof(magic) ? CMSG_FIRSTHDR(&mh) : NULL;
	if (c == NULL || magic != HC_SHM_MAGIC || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int))) {
		HC_LOG(ERR, DRIVER, "%s: no hc_shm server on %s after %u ms: "
		       "its peer did not start, or another process took this "
		       "link (two ranks given the same path=?)", port->name,
		       sp->path, wait_ms);
		return -HC_ERR_LINK_DOWN;
	}
	memcpy(&sp->memfd, CMSG_DATA(c), sizeof(int));
	if (fstat(sp->memfd, &st) != 0 || (size_t)st.st_size < sizeof(*h)) {
		HC_LOG(ERR, DRIVER, "%s: the server's memory on %s is too "
		       "small", port->name, sp->path);
		return -HC_ERR_PORT;
	}
	sp->bytes = (size_t)st.st_size;
	if (map_memfd(port, sp) != 0)
		return -HC_ERR_NOMEM;
	h = sp->base;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != HC_SHM_MAGIC ||
	    h->version != HC_SHM_VERSION || h->slots != sp->slots ||
	    h->slot_bytes != sp->slot_bytes ||
	    hc_shm_map_bytes(h->slots, h->slot_bytes) != sp->bytes) {
		HC_LOG(ERR, DRIVER, "%s: the server on %s has %u slots of %u "
		       "bytes (version %u), we have %u of %u (version %u): "
		       "both ends need the same [net] mtu and slots=",
		       port->name, sp->path, h->slots, h->slot_bytes,
		       h->version, sp->slots, sp->slot_bytes, HC_SHM_VERSION);
		return -HC_ERR_PORT;
	}
	__atomic_store_n(&h->attached, 1, __ATOMIC_RELEASE);
	return 0;
}

int
hc_port_open_shm(struct hc_port *port, const char *devargs,
		 const struct hc_port_conf *conf)
{
	struct shm_args a;
	struct shm_port *sp;
	uint32_t i;
	int rc;

	rc = hc_port_init(port, devargs, conf);
	if (rc != 0)
		return rc;
	if (conf->mtu < 68 || conf->mtu > HC_PORT_MTU_MAX)
		return -HC_ERR_INVAL;
	if (strncmp(devargs, "hc_shm", 6) != 0) {
		HC_LOG(ERR, DRIVER, "port '%s': not an hc_shm device",
		       devargs);
		return -HC_ERR_INVAL;
	}
	rc = parse_args(devargs, &a);
	if (rc != 0)
		return rc;
	/* Chains: TX copies every segment. No checksum offloads: the
	 * software IPv4 header checksum costs 20 bytes, and on a trusted
	 * link (shm) the transport leaves the UDP checksum 0. */
	port->tx_multi_seg = true;
	port->shm = true;
	port->tx_any_memory = true;
	if (a.has_mac)
		port->mac = a.mac;
	else
		rte_eth_random_addr(port->mac.addr_bytes);

	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return -HC_ERR_NOMEM;
	sp->memfd = -1;
	sp->lsock = -1;
	strcpy(sp->path, a.path);
	sp->slots = a.slots;
	sp->mask = a.slots - 1;
	/* The free rings start full (server_setup): slots entries given.
	 * Set before the set-up, so that a failed open finds no slot lent
	 * (slots_lent 0) and shm_close frees sp and unmaps the link (with
	 * rx_fhead 0 it counted every slot lent, and sp, its slot infos and
	 * the mapping stayed: LeakSanitizer on test_shm, 2026-12-07). */
	sp->rx_fhead = a.slots;
	sp->slot_bytes = hc_shm_slot_bytes(conf->mtu);
	sp->bytes = hc_shm_map_bytes(sp->slots, sp->slot_bytes);
	rte_spinlock_init(&sp->lock);
	sp->shinfo = calloc(sp->slots, sizeof(*sp->shinfo));
	if (sp->shinfo == NULL) {
		free(sp);
		return -HC_ERR_NOMEM;
	}
	for (i = 0; i < sp->slots; i++) {
		sp->shinfo[i].free_cb = slot_free_cb;
		sp->shinfo[i].fcb_opaque = sp;
	}
	port->backend = sp;
	port->ops = &shm_ops;
	rc = hc_port_pool_create(port, conf, 0, true);
	if (rc == 0)
		rc = a.server ? server_setup(port, sp) :
		     client_setup(port, sp, conf->link_wait_ms);
	if (rc != 0) {
		hc_port_close(port);
		return rc;
	}
	map_end(sp, &sp->tx, a.server ? 0 : 1);
	map_end(sp, &sp->rx, a.server ? 1 : 0);
	HC_LOG(INFO, DRIVER, "%s: %s on %s, %u slots of %u bytes per "
	       "direction, MTU %u, MAC " RTE_ETHER_ADDR_PRT_FMT, port->name,
	       a.server ? "server" : "client", sp->path, sp->slots,
	       sp->slot_bytes, port->mtu, RTE_ETHER_ADDR_BYTES(&port->mac));
	return 0;
}

int
hc_port_open(struct hc_port *port, const char *devargs,
	     const struct hc_port_conf *conf)
{
	if (devargs != NULL && strncmp(devargs, "hc_shm", 6) == 0)
		return hc_port_open_shm(port, devargs, conf);
	return hc_port_open_dpdk(port, devargs, conf);
}
