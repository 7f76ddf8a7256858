/* SPDX-License-Identifier: BSD-3-Clause */
/* Bootstrap from a launcher (bootstrap.h): identity from the environment
 * and the TCP rendezvous of a host file's ranks. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_random.h>

#include "bootstrap.h"
#include "log.h"

/* ------------------------------------------------------------ identity */

/* One launcher's variables, in the precedence of README "Launchers". */
static const struct {
	const char *rank, *world, *local;
} sources[] = {
	{ "HC_RANK", "HC_WORLD_SIZE", "HC_LOCAL_RANK" },
	{ "RANK", "WORLD_SIZE", "LOCAL_RANK" },                 /* torchrun */
	{ "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },    /* srun */
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	  "OMPI_COMM_WORLD_LOCAL_RANK" },                       /* Open MPI */
	{ "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID" },          /* PMI, MPICH */
};

/* *out from variable name: 1 when set, 0 when unset or empty, -1 when
 * malformed (logged). */
static int
env_num(const char *name, long min, long max, long *out)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || x < min || x > max) {
		HC_LOG(ERR, CORE, "%s='%s' is not a number in %ld..%ld", name,
		       v, min, max);
		return -1;
	}
	*out = x;
	return 1;
}

int
hc_boot_env_world(const char **src)
{
	size_t i;
	long x;
	int rc;

	for (i = 0; i < RTE_DIM(sources); i++) {
		rc = env_num(sources[i].world, 1, HC_MAX_RANKS, &x);
		if (rc < 0)
			return -HC_ERR_INVAL;
		if (rc > 0) {
			*src = sources[i].world;
			return (int)x;
		}
	}
	*src = NULL;
	return 0;
}

int
hc_boot_identity(const struct hc_init_params *p, uint32_t file_world,
		 struct hc_boot_id *id)
{
	size_t i;
	long x;
	int rc;

	id->rank = -1;
	id->world_size = 0;
	id->local_rank = -1;
	id->rank_src = id->world_src = id->local_src = NULL;
	if (p->rank >= 0) {
		id->rank = p->rank;
		id->rank_src = "hc_init_params.rank";
	}
	if (p->world_size > 0) {
		id->world_size = p->world_size;
		id->world_src = "hc_init_params.world_size";
	} else if (file_world > 0) {
		id->world_size = (int)file_world;
		id->world_src = "[job] world_size";
	}
	for (i = 0; i < RTE_DIM(sources); i++) {
		if (id->rank < 0) {
			rc = env_num(sources[i].rank, 0, HC_MAX_RANKS - 1, &x);
			if (rc < 0)
				return -HC_ERR_INVAL;
			if (rc > 0) {
				id->rank = (int)x;
				id->rank_src = sources[i].rank;
			}
		}
		if (id->world_size == 0) {
			rc = env_num(sources[i].world, 1, HC_MAX_RANKS, &x);
			if (rc < 0)
				return -HC_ERR_INVAL;
			if (rc > 0) {
				id->world_size = (int)x;
				id->world_src = sources[i].world;
			}
		}
		if (id->local_rank < 0) {
			rc = env_num(sources[i].local, 0, HC_MAX_RANKS - 1, &x);
			if (rc < 0)
				return -HC_ERR_INVAL;
			if (rc > 0) {
				id->local_rank = (int)x;
				id->local_src = sources[i].local;
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------- rendezvous */

/*
 * Wire format (every field big-endian, fixed sizes):
 *   greeting, rank 0 -> each client at accept: magic, version, kind 1,
 *     rank 0's world size (12 bytes). A listener that sends no greeting
 *     is another program: HC_ERR_ADDR_IN_USE.
 *   hello, client -> rank 0: magic, version, kind 2, rank, world size,
 *     local rank, then its entry (ENTRY_LEN).
 *   verdict, rank 0 -> client: magic, version, kind 3, status (an
 *     hc_error, 0 ok), job id, world size, reason (REASON_LEN, NUL
 *     padded), then when ok world-size entries.
 *   entry: ip, group, mac (6), has_mac (1), pad (1), port kind (16, NUL
 *     padded).
 */
#define MAGIC 0x48435256u /* "HCRV" */
#define VERSION 1
#define KIND_GREET 1
#define KIND_HELLO 2
#define KIND_VERDICT 3
#define HDR_LEN 8
#define KIND_LEN 16
#define ENTRY_LEN (4 + 4 + 6 + 1 + 1 + KIND_LEN)
#define GREET_LEN (HDR_LEN + 4)
#define HELLO_LEN (HDR_LEN + 12 + ENTRY_LEN)
#define REASON_LEN 192
#define VERDICT_LEN (HDR_LEN + 12 + REASON_LEN)

struct entry {
	uint32_t ip, group;
	uint8_t mac[6];
	uint8_t has_mac;
	char kind[KIND_LEN];
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
left_ms(uint64_t deadline)
{
	uint64_t n = now_ms();

	return n >= deadline ? 0 : (int)RTE_MIN(deadline - n, (uint64_t)INT32_MAX);
}

static uint8_t *
put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
	return p + 4;
}

static const uint8_t *
get32(const uint8_t *p, uint32_t *v)
{
	memcpy(v, p, 4);
	*v = ntohl(*v);
	return p + 4;
}

static uint8_t *
put_hdr(uint8_t *p, uint16_t kind)
{
	p = put32(p, MAGIC);
	p[0] = 0;
	p[1] = VERSION;
	p[2] = 0;
	p[3] = (uint8_t)kind;
	return p + 4;
}

/* 0 when the header is ours, of that kind. */
static int
check_hdr(const uint8_t *p, uint16_t kind)
{
	uint32_t m;

	get32(p, &m);
	return m == MAGIC && p[4] == 0 && p[5] == VERSION && p[6] == 0 &&
	       p[7] == kind ? 0 : -1;
}

static uint8_t *
put_entry(uint8_t *p, const struct entry *e)
{
	p = put32(p, e->ip);
	p = put32(p, e->group);
	memcpy(p, e->mac, 6);
	p[6] = e->has_mac;
	p[7] = 0;
	memcpy(p + 8, e->kind, KIND_LEN);
	return p + 8 + KIND_LEN;
}

static const uint8_t *
get_entry(const uint8_t *p, struct entry *e)
{
	p = get32(p, &e->ip);
	p = get32(p, &e->group);
	memcpy(e->mac, p, 6);
	e->has_mac = p[6] != 0;
	memcpy(e->kind, p + 8, KIND_LEN);
	e->kind[KIND_LEN - 1] = '\0';
	return p + 8 + KIND_LEN;
}

/* The port kind of DPDK devargs: the driver name without its instance
 * number ("net_tap0,iface=x" -> "net_tap"). */
static void
port_kind(const char *devargs, char kind[KIND_LEN])
{
	size_t n = strcspn(devargs, ",");

	if (n >= KIND_LEN)
		n = KIND_LEN - 1;
	memcpy(kind, devargs, n);
	while (n > 0 && kind[n - 1] >= '0' && kind[n - 1] <= '9')
		n--;
	memset(kind + n, 0, KIND_LEN - n);
}

static void
entry_of(const struct hc_rank_conf *rc, struct entry *e)
{
	memset(e, 0, sizeof(*e));
	e->ip = rc->ip;
	e->group = rc->group;
	e->has_mac = rc->has_mac;
	if (rc->has_mac)
		memcpy(e->mac, rc->mac.addr_bytes, 6);
	port_kind(rc->port, e->kind);
}

/* Write all of buf before deadline: 0, or -1 (timeout, error). */
static int
write_all(int fd, const uint8_t *buf, size_t len, uint64_t deadline)
{
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (left_ms(deadline) == 0 || poll(&pf, 1, left_ms(deadline)) < 0)
			return -1;
	}
	return 0;
}

/* Read len bytes before deadline: 0; -1 timeout; -2 EOF or error. */
static int
read_all(int fd, uint8_t *buf, size_t len, uint64_t deadline)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (len > 0) {
		n = recv(fd, buf, len, 0);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return -2;
		if (left_ms(deadline) == 0)
			return -1;
		if (poll(&pf, 1, left_ms(deadline)) < 0 && errno != EINTR)
			return -2;
	}
	return 0;
}

/* Where the rendezvous is: HC_MASTER_ADDR, MASTER_ADDR or 127.0.0.1;
 * HC_MASTER_PORT, MASTER_PORT + 1 or HC_BOOT_DEFAULT_PORT. */
static int
master_addr(struct sockaddr_in *sa, char *text, size_t len)
{
	const char *host = getenv("HC_MASTER_ADDR");
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	long port = HC_BOOT_DEFAULT_PORT;
	int rc;

	if (host == NULL || *host == '\0')
		host = getenv("MASTER_ADDR");
	if (host == NULL || *host == '\0')
		host = "127.0.0.1";
	rc = env_num("HC_MASTER_PORT", 1, 65535, &port);
	if (rc == 0) {
		rc = env_num("MASTER_PORT", 1, 65534, &port);
		if (rc > 0)
			port++;
		else if (rc == 0)
			port = HC_BOOT_DEFAULT_PORT;
	}
	if (rc < 0)
		return -HC_ERR_CONFIG;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || res == NULL) {
		HC_LOG(ERR, CORE, "rendezvous: cannot resolve MASTER_ADDR '%s' "
		       "(IPv4): %s", host, gai_strerror(rc));
		return -HC_ERR_CONFIG;
	}
	memcpy(sa, res->ai_addr, sizeof(*sa));
	freeaddrinfo(res);
	sa->sin_port = htons((uint16_t)port);
	snprintf(text, len, "%s:%ld", host, port);
	return 0;
}

/* A client connection at rank 0. */
struct conn {
	int fd;
	size_t got;
	uint8_t buf[HELLO_LEN];
	int done;          /* hello complete */
	uint32_t rank, world, local;
	struct entry e;
};

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Rank 0's verdict on the hellos: 0 or an hc_error, reason filled. */
static int
judge(struct conn *c, uint32_t nc, uint32_t world, const struct entry *me,
      uint32_t have, char *reason, size_t rlen, struct entry *table)
{
	uint32_t i, j;
	char a[16];

	/* Disagreements first: they also explain ranks that never came. */
	for (i = 0; i < nc; i++) {
		if (!c[i].done)
			continue;
		if (c[i].world != world) {
			snprintf(reason, rlen, "rank %u (local rank %u) says "
				 "world size %u, rank 0 says %u", c[i].rank,
				 c[i].local, c[i].world, world);
			return HC_ERR_WORLD_SIZE;
		}
		if (c[i].rank >= world || c[i].rank == 0) {
			snprintf(reason, rlen, "rank %u (local rank %u) is not "
				 "a rank 1..%u of rank 0's world size %u",
				 c[i].rank, c[i].local, world - 1, world);
			return c[i].rank == 0 ? HC_ERR_ADDR_IN_USE
					      : HC_ERR_WORLD_SIZE;
		}
	}
	for (i = 0; i < nc; i++)
		for (j = 0; j < i; j++)
			if (c[i].done && c[j].done && c[i].rank == c[j].rank) {
				snprintf(reason, rlen, "two processes claim "
					 "rank %u (local ranks %u and %u)",
					 c[i].rank, c[j].local, c[i].local);
				return HC_ERR_ADDR_IN_USE;
			}
	if (have + 1 < world) {
		size_t n = (size_t)snprintf(reason, rlen, "only %u of %u ranks "
				  "reached the rendezvous in time; missing:",
				  have + 1, world);
		for (i = 1; i < world && n + 8 < rlen; i++) {
			for (j = 0; j < nc; j++)
				if (c[j].done && c[j].rank == i)
					break;
			if (j == nc)
				n += (size_t)snprintf(reason + n, rlen - n,
						      " %u", i);
		}
		return HC_ERR_INIT_TIMEOUT;
	}
	memset(table, 0, world * sizeof(*table));
	table[0] = *me;
	for (i = 0; i < nc; i++)
		if (c[i].done)
			table[c[i].rank] = c[i].e;
	for (i = 0; i < world; i++)
		for (j = 0; j < i; j++) {
			if (table[i].ip == table[j].ip) {
				snprintf(reason, rlen, "ranks %u and %u both "
					 "claim IP %s", j, i,
					 hc_ip_str(table[i].ip, a, sizeof(a)));
				return HC_ERR_ADDR_IN_USE;
			}
			if (table[i].has_mac && table[j].has_mac &&
			    memcmp(table[i].mac, table[j].mac, 6) == 0) {
				snprintf(reason, rlen, "ranks %u and %u both "
					 "claim MAC %02x:%02x:%02x:%02x:%02x:"
					 "%02x", j, i, table[i].mac[0],
					 table[i].mac[1], table[i].mac[2],
					 table[i].mac[3], table[i].mac[4],
					 table[i].mac[5]);
				return HC_ERR_ADDR_IN_USE;
			}
		}
	for (i = 1; i < world; i++)
		if (strcmp(table[i].kind, table[0].kind) != 0)
			HC_LOG(INFO, CORE, "rendezvous: rank %u's port is %s, "
			       "rank 0's %s", i, table[i].kind, table[0].kind);
	return 0;
}

static int
serve(struct hc_config *cfg, uint32_t world, const char *where,
      const struct sockaddr_in *sa, uint32_t timeout_ms, struct entry *table)
{
	uint64_t start = now_ms();
	uint64_t verdict_at = start + timeout_ms -
			      RTE_MIN(500u, timeout_ms / 4);
	uint32_t maxc = world - 1 + 16, nc = 0, have = 0, tried = 0, i;
	struct pollfd *pf = NULL;
	struct conn *c = NULL;
	struct entry me;
	char reason[REASON_LEN] = "";
	uint8_t *vbuf = NULL;
	size_t vlen;
	int one = 1, lfd, status;
	uint32_t job;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		HC_LOG(ERR, CORE, "rendezvous: socket: %s", strerror(errno));
		return -HC_ERR_INTERNAL;
	}
	/* SO_REUSEADDR: a rerun may bind while the last run's connections
	 * sit in TIME_WAIT; a live listener still gets EADDRINUSE. */
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		int e = errno;

		close(lfd);
		HC_LOG(ERR, CORE, "rendezvous: rank 0 cannot listen on %s: %s%s",
		       where, strerror(e), e == EADDRINUSE ? " (another "
		       "program or job holds the port: set HC_MASTER_PORT)" : "");
		return e == EADDRINUSE ? -HC_ERR_ADDR_IN_USE : -HC_ERR_CONFIG;
	}
	if (listen(lfd, (int)RTE_MIN(world + 16, 4096u)) != 0 ||
	    set_nonblock(lfd) != 0) {
		HC_LOG(ERR, CORE, "rendezvous: listen on %s: %s", where,
		       strerror(errno));
		close(lfd);
		return -HC_ERR_INTERNAL;
	}
	c = calloc(maxc, sizeof(*c));
	pf = calloc(maxc + 1, sizeof(*pf));
	vlen = VERDICT_LEN + (size_t)world * ENTRY_LEN;
	vbuf = malloc(vlen);
	if (c == NULL || pf == NULL || vbuf == NULL) {
		status = HC_ERR_NOMEM;
		snprintf(reason, sizeof(reason), "rank 0 out of memory");
		goto verdict;
	}
	HC_LOG(INFO, CORE, "rendezvous: rank 0 listening on %s for %u ranks",
	       where, world - 1);
	/* Until every expected rank has said hello (or as many processes as
	 * there are ranks, right or wrong, so a bad one is told at once). */
	while (tried < world - 1 && now_ms() < verdict_at) {
		uint32_t n = 0;

		pf[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < nc; i++)
			pf[n++] = (struct pollfd){
				.fd = c[i].done || c[i].fd < 0 ? -1 : c[i].fd,
				.events = POLLIN };
		if (poll(pf, n, left_ms(verdict_at)) < 0 && errno != EINTR)
			break;
		if ((pf[0].revents & POLLIN) != 0 && nc == maxc) {
			/* more connections than ranks: refuse the extra */
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				close(fd);
		} else if ((pf[0].revents & POLLIN) != 0) {
			uint8_t g[GREET_LEN], *p;
			int fd = accept4(lfd, NULL, NULL,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd >= 0) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
					   sizeof(one));
				p = put_hdr(g, KIND_GREET);
				put32(p, world);
				if (write_all(fd, g, sizeof(g),
					      now_ms() + 1000) != 0) {
					close(fd);
				} else {
					memset(&c[nc], 0, sizeof(c[nc]));
					c[nc++].fd = fd;
				}
			}
		}
		for (i = 0; i < nc; i++) {
			struct conn *k = &c[i];
			ssize_t r;
			const uint8_t *p;

			if (k->done || k->fd < 0 ||
			    (pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
				continue;
			r = recv(k->fd, k->buf + k->got, HELLO_LEN - k->got, 0);
			if (r == 0 || (r < 0 && errno != EAGAIN &&
				       errno != EINTR)) {
				close(k->fd); /* gone before its hello */
				k->fd = -1;
				continue;
			}
			if (r < 0)
				continue;
			k->got += (size_t)r;
			if (k->got < HELLO_LEN)
				continue;
			if (check_hdr(k->buf, KIND_HELLO) != 0) {
				HC_LOG(WARNING, CORE, "rendezvous: a connection "
				       "to %s sent no hypercomm hello; dropped",
				       where);
				close(k->fd);
				k->fd = -1;
				continue;
			}
			p = get32(k->buf + HDR_LEN, &k->rank);
			p = get32(p, &k->world);
			p = get32(p, &k->local);
			get_entry(p, &k->e);
			k->done = 1;
			tried++;
			if (k->world == world && k->rank < world &&
			    k->rank != 0)
				have++;
		}
	}
	entry_of(&cfg->ranks[0], &me);
	status = judge(c, nc, world, &me, have, reason, sizeof(reason),
		       table);
verdict:
	job = cfg->job_id;
	while (job == 0)
		job = (uint32_t)(rte_rand() ^ rte_rdtsc() ^
				 ((uint64_t)getpid() << 16));
	if (status == 0)
		cfg->job_id = job;
	if (vbuf != NULL) {
		uint8_t *p = put_hdr(vbuf, KIND_VERDICT);

		p = put32(p, (uint32_t)status);
		p = put32(p, job);
		p = put32(p, world);
		memset(p, 0, REASON_LEN);
		snprintf((char *)p, REASON_LEN, "%s", reason);
		p += REASON_LEN;
		if (status == 0)
			for (i = 0; i < world; i++)
				p = put_entry(p, &table[i]);
		else
			vlen = VERDICT_LEN;
		/* Every connection gets the verdict, also a wrong one: each
		 * rank started returns the same error. */
		for (i = 0; i < nc; i++)
			if (c[i].fd >= 0)
				(void)write_all(c[i].fd, vbuf, vlen,
						now_ms() + 1000);
	}
	for (i = 0; i < nc; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	close(lfd);
	free(c);
	free(pf);
	free(vbuf);
	if (status != 0)
		HC_LOG(ERR, CORE, "rendezvous at %s: %s: %s", where,
		       hc_strerror(-status), reason);
	else
		HC_LOG(INFO, CORE, "rendezvous at %s: %u ranks, job %u", where,
		       world, cfg->job_id);
	return -status;
}

/* Connect to rank 0 before deadline, retrying while nobody listens.
 * Returns the socket, or -1 (*foreign set when something that is not a
 * rendezvous answered). */
static int
connect_retry(const struct sockaddr_in *sa, uint64_t deadline)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	while (left_ms(deadline) > 0) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
				SOCK_NONBLOCK, 0);
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		int err = 0, one = 1;
		socklen_t el = sizeof(err);

		if (fd < 0)
			return -1;
		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
			err = 0;
		else if (errno != EINPROGRESS)
			err = errno;
		else if (poll(&pf, 1, RTE_MIN(left_ms(deadline), 1000)) <= 0)
			err = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
			err = errno;
		if (err == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			return fd;
		}
		close(fd);
		nanosleep(&pause, NULL);
	}
	return -1;
}

static int
join(struct hc_config *cfg, uint32_t rank, uint32_t local, uint32_t world,
     uint32_t claim_world, const char *where, const struct sockaddr_in *sa,
     uint32_t timeout_ms, struct entry *table)
{
	uint64_t deadline = now_ms() + timeout_ms;
	uint8_t hello[HELLO_LEN], g[GREET_LEN], *p;
	uint8_t v[VERDICT_LEN], eb[ENTRY_LEN];
	uint32_t status, job, vworld, i;
	int fd, rc, connected = 0;
	struct entry me;

	memset(&me, 0, sizeof(me));
	if (claim_world == 0)
		entry_of(&cfg->ranks[rank], &me);
	p = put_hdr(hello, KIND_HELLO);
	p = put32(p, rank);
	p = put32(p, claim_world != 0 ? claim_world : world);
	p = put32(p, local);
	put_entry(p, &me);
	for (;;) {
		fd = connect_retry(sa, deadline);
		if (fd < 0)
			break;
		connected = 1;
		rc = read_all(fd, g, sizeof(g), deadline);
		if (rc == -2) { /* closed at once: a listener going away */
			struct timespec pause = { 0, 50 * 1000 * 1000 };

			close(fd);
			connected = 2;
			nanosleep(&pause, NULL);
			continue;
		}
		if (rc != 0 || check_hdr(g, KIND_GREET) != 0) {
			close(fd);
			HC_LOG(ERR, CORE, "rendezvous: %s %s: another program "
			       "holds the port (set HC_MASTER_PORT)", where,
			       rc != 0 ? "accepted the connection but sent no "
			       "hypercomm greeting within init_timeout_ms" :
			       "answered with something that is not a "
			       "hypercomm greeting");
			return -HC_ERR_ADDR_IN_USE;
		}
		if (write_all(fd, hello, sizeof(hello), deadline) != 0 ||
		    (rc = read_all(fd, v, sizeof(v), deadline)) != 0 ||
		    check_hdr(v, KIND_VERDICT) != 0) {
			close(fd);
			HC_LOG(ERR, CORE, "rendezvous at %s: no verdict from "
			       "rank 0 within %u ms", where, timeout_ms);
			return -HC_ERR_INIT_TIMEOUT;
		}
		p = v + HDR_LEN;
		p = (uint8_t *)get32(p, &status);
		p = (uint8_t *)get32(p, &job);
		p = (uint8_t *)get32(p, &vworld);
		p[REASON_LEN - 1] = '\0';
		if (status != 0) {
			close(fd);
			if (status >= HC_ERR__MAX)
				status = HC_ERR_INTERNAL;
			HC_LOG(ERR, CORE, "rendezvous at %s: rank 0 says %s: %s",
			       where, hc_strerror(-(int)status), (char *)p);
			return -(int)status;
		}
		if (claim_world != 0 || vworld != world) {
			close(fd);
			HC_LOG(ERR, CORE, "rendezvous at %s: rank 0 accepted "
			       "world size %u, this rank has %u", where, vworld,
			       claim_world != 0 ? claim_world : world);
			return -HC_ERR_WORLD_SIZE;
		}
		for (i = 0; i < world; i++) {
			if (read_all(fd, eb, sizeof(eb), deadline) != 0) {
				close(fd);
				HC_LOG(ERR, CORE, "rendezvous at %s: verdict "
				       "cut short", where);
				return -HC_ERR_INIT_TIMEOUT;
			}
			get_entry(eb, &table[i]);
		}
		close(fd);
		cfg->job_id = job;
		HC_LOG(INFO, CORE, "rendezvous at %s: %u ranks, job %u", where,
		       world, job);
		return 0;
	}
	if (claim_world != 0)
		return -HC_ERR_WORLD_SIZE;
	HC_LOG(ERR, CORE, "rendezvous: rank %u: %s within %u ms (is rank 0 "
	       "started, with the same HC_MASTER_ADDR/PORT?)", rank,
	       connected ? "rank 0 closed every connection" :
	       "nobody listens on", timeout_ms);
	HC_LOG(ERR, CORE, "rendezvous: rank 0 missing at %s", where);
	return -HC_ERR_INIT_TIMEOUT;
}

int
hc_boot_rendezvous(struct hc_config *cfg, uint32_t rank, uint32_t local_rank,
		   uint32_t world_size, uint32_t timeout_ms)
{
	struct sockaddr_in sa;
	struct entry *table;
	char where[300];
	uint32_t claim_world = 0, i;
	int rc;

	if (rank >= world_size) {
		claim_world = world_size; /* only to tell rank 0 */
		world_size = rank + 1;
	}
	rc = master_addr(&sa, where, sizeof(where));
	if (rc != 0)
		return rc;
	table = calloc(world_size, sizeof(*table));
	if (table == NULL)
		return -HC_ERR_NOMEM;
	if (rank == 0)
		rc = serve(cfg, world_size, where, &sa, timeout_ms, table);
	else
		rc = join(cfg, rank, local_rank, world_size, claim_world, where,
			  &sa, timeout_ms, table);
	if (rc == 0)
		for (i = 0; i < world_size; i++) {
			struct hc_rank_conf *q = &cfg->ranks[i];

			if (i == rank)
				continue;
			q->ip = table[i].ip;
			q->group = table[i].group;
			q->has_mac = table[i].has_mac;
			memcpy(q->mac.addr_bytes, table[i].mac, 6);
		}
	free(table);
	return rc;
}
