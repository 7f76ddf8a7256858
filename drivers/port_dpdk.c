/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK ethdev backend: probe a vdev from devargs, configure, start, wait for
 * link. Follows examples/l2fwd for pool sizing and link wait.
 */
/* rte_intr_instance_alloc() and its setters, the only way to make an
 * interrupt source since DPDK 21.11 (the handle became opaque), are still
 * marked experimental in 22.11: see "Work run on EAL's interrupt thread". */
#define ALLOW_EXPERIMENTAL_API
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>

#include <rte_interrupts.h>
#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "hypercomm.h"
#include "log.h"
#include "port.h"

static uint16_t
dpdk_rx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port->port_id, 0, pkts, n);
}

static uint16_t
dpdk_tx(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port->port_id, 0, pkts, n);
}

/*
 * Work run on EAL's interrupt thread ("eal-intr-thread"), where DPDK
 * 22.11's net_memif handles its control channel (memif_intr_handler): a
 * peer's disconnect runs memif_disconnect() there, which frees the
 * regions and the channel, and a stop or close on another thread at the
 * same time runs it again (a double free; a SIGSEGV in eal-intr-thread
 * when every rank of a mesh finalizes at once, seen in CI with a 20 ms
 * grace after link-down on a loaded 2-core host). The thread runs one
 * callback at a time, so work run there cannot overlap the PMD's.
 *
 * The work is triggered through an eventfd of our own, registered once
 * per process as an interrupt source and never unregistered: its handle
 * is private (malloc) memory. Not an EAL alarm: DPDK 22.11.11's
 * rte_eal_cleanup() unregisters the alarm's source, and the thread then
 * rebuilds its epoll set from its list of sources, which still holds
 * net_memif's listener socket (memif_socket_remove_device frees the
 * handle but never unregisters it), whose handle copy lies in DPDK memory
 * that the cleanup unmaps at the same time: a SIGSEGV in rte_intr_fd_get
 * (2 runs of 8 at n = 2 with an alarm, 0 of 12 without).
 */
enum { IR_IDLE, IR_PENDING, IR_RUNNING, IR_DONE, IR_CANCELLED };

static struct {
	pthread_mutex_t lock;            /* one caller at a time */
	struct rte_intr_handle *ih;      /* our eventfd's source */
	int efd;
	int ok;                          /* registered */
	void (*fn)(void *);
	void *arg;
	int state;                       /* IR_*, atomic */
} intr_run = { .lock = PTHREAD_MUTEX_INITIALIZER, .efd = -1 };

#define INTR_RUN_WAIT_MS 5000 /* the interrupt thread's turn, at most */

static void
intr_run_cb(void *unused)
{
	uint64_t v;
	int exp = IR_PENDING;

	(void)unused;
	/* The source is level-triggered: read the count to clear it. */
	if (read(intr_run.efd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return;
	if (!__atomic_compare_exchange_n(&intr_run.state, &exp, IR_RUNNING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* a no-op wake-up, or cancelled */
	if (intr_run.fn != NULL)
		intr_run.fn(intr_run.arg);
	__atomic_store_n(&intr_run.state, IR_DONE, __ATOMIC_RELEASE);
}

/* Register the source once; 0 or -1 (logged). Under intr_run.lock. */
static int
intr_run_setup(void)
{
	if (intr_run.ok)
		return 0;
	intr_run.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	intr_run.ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (intr_run.efd < 0 || intr_run.ih == NULL ||
	    rte_intr_fd_set(intr_run.ih, intr_run.efd) != 0 ||
	    rte_intr_type_set(intr_run.ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(intr_run.ih, intr_run_cb, NULL) != 0) {
		HC_LOG(WARNING, DRIVER, "cannot run work on EAL's interrupt "
		       "thread: %s", rte_strerror(rte_errno));
		if (intr_run.ih != NULL)
			rte_intr_instance_free(intr_run.ih);
		if (intr_run.efd >= 0)
			close(intr_run.efd);
		intr_run.ih = NULL;
		intr_run.efd = -1;
		return -1;
	}
	intr_run.ok = 1;
	return 0;
}

/* Run fn(arg) on the interrupt thread and wait for it: 0 once it ran; -1
 * when it cannot be triggered, or when the thread did not start it within
 * INTR_RUN_WAIT_MS (then it never runs). Once started it is waited for to
 * the end. fn NULL: a barrier (what the thread had to do before, such as
 * rebuilding its epoll set, is done). */
static int
intr_run_on_thread(void (*fn)(void *), void *arg)
{
	uint64_t one = 1;
	uint32_t waited = 0;
	int st, exp, rc = -1;

	pthread_mutex_lock(&intr_run.lock);
	if (intr_run_setup() != 0)
		goto out;
	intr_run.fn = fn;
	intr_run.arg = arg;
	__atomic_store_n(&intr_run.state, IR_PENDING, __ATOMIC_RELEASE);
	if (write(intr_run.efd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		goto out;
	for (;;) {
		st = __atomic_load_n(&intr_run.state, __ATOMIC_ACQUIRE);
		if (st == IR_DONE) {
			rc = 0;
			break;
		}
		exp = IR_PENDING;
		if (waited >= INTR_RUN_WAIT_MS &&
		    __atomic_compare_exchange_n(&intr_run.state, &exp,
						IR_CANCELLED, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		rte_delay_us_sleep(1000);
		waited++;
	}
out:
	pthread_mutex_unlock(&intr_run.lock);
	return rc;
}

static void
close_on_intr_thread(void *arg)
{
	uint16_t port_id = *(uint16_t *)arg;

	rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
}

static void
dpdk_close(struct hc_port *port)
{
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];

	if (port->close_after_peer) {
		struct rte_eth_link link;
		uint32_t waited = 0;

		for (;;) {
			memset(&link, 0, sizeof(link));
			if (rte_eth_link_get_nowait(port->port_id, &link) != 0 ||
			    link.link_status == RTE_ETH_LINK_DOWN ||
			    waited >= port->close_wait_ms)
				break;
			rte_delay_us_sleep(1000);
			waited++;
		}
	}
	if (rte_eth_dev_info_get(port->port_id, &info) != 0 ||
	    rte_eth_dev_get_name_by_port(port->port_id, name) != 0)
		name[0] = '\0';
	if (port->memif &&
	    intr_run_on_thread(close_on_intr_thread, &port->port_id) == 0) {
		/* The close may have unregistered a control channel's
		 * source, after which the thread rebuilds its epoll set,
		 * reading every source's handle, some in DPDK memory: let it
		 * finish before our caller goes on to rte_eal_cleanup(). Two
		 * barriers: the first may run just before the rebuild. */
		intr_run_on_thread(NULL, NULL);
		intr_run_on_thread(NULL, NULL);
	} else {
		if (port->memif)
			HC_LOG(WARNING, DRIVER, "%s: closed outside EAL's "
			       "interrupt thread (it did not run the close "
			       "within %u ms)", port->name, INTR_RUN_WAIT_MS);
		rte_eth_dev_stop(port->port_id);
		rte_eth_dev_close(port->port_id);
	}
	/* After the close: the bus's remove finds no ethdev left and only
	 * unplugs the vdev (it may message secondary processes, which the
	 * interrupt thread must not wait for). */
	if (name[0] != '\0')
		rte_dev_remove(info.device);
}

/* The ethdev's link state without waiting (rte_eth_link_get_nowait). On
 * net_tap of DPDK 22.11 that is one SIOCGIFFLAGS ioctl of the kernel
 * interface: up only with IFF_UP and IFF_RUNNING, which `ip link set hctN
 * down` clears. net_af_packet of 22.11 reports up from start to stop
 * whatever its interface does. Never asked for a shared-memory port
 * (hc_port_link_down()): net_virtio_user's link query may reconnect its
 * vhost-user socket, not for the engine's thread. */
static int
dpdk_link_status(const struct hc_port *port)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(port->port_id, &link) != 0)
		return -1;
	return link.link_status == RTE_ETH_LINK_UP ? 1 : 0;
}

static const struct hc_port_ops dpdk_ops = {
	.rx_burst = dpdk_rx,
	.tx_burst = dpdk_tx,
	.close = dpdk_close,
	.link_status = dpdk_link_status,
};

/* One interface ioctl (SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCSIFHWADDR) on
 * ifr; 0, or -1 with errno set. */
static int
if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd, rc, e;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	rc = ioctl(fd, req, ifr);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Give the kernel side of a net_tap its own MAC (see port.h): its name
 * goes to ifname (IF_NAMESIZE bytes), the MAC it got to kmac. */
static int
tap_kernel_mac(struct hc_port *port, uint32_t if_index, char *ifname,
	       struct rte_ether_addr *kmac)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (if_index == 0 || if_indextoname(if_index, ifr.ifr_name) == NULL) {
		HC_LOG(ERR, DRIVER, "%s: tap has no kernel interface", port->name);
		return -1;
	}
	snprintf(ifname, IF_NAMESIZE, "%s", ifr.ifr_name);
	*kmac = port->mac;
	kmac->addr_bytes[0] ^= 0x04;
	ifr.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, kmac->addr_bytes, RTE_ETHER_ADDR_LEN);
	if (if_ioctl(SIOCSIFHWADDR, &ifr) != 0) {
		HC_LOG(ERR, DRIVER, "%s: cannot set the MAC of kernel side %s: %s",
		       port->name, ifr.ifr_name, strerror(errno));
		return -1;
	}
	HC_LOG(INFO, DRIVER, "%s: kernel side %s gets its own MAC", port->name,
	       ifr.ifr_name);
	return 0;
}

/*
 * C32: net_tap attaches to an existing multi-queue tap by name (hc-launch
 * makes them so, see its "Taps are pre-created"), and so does a second
 * process given the same iface=: both start without an error and then
 * share the tap's frames. After start, count the queues attached to the
 * tap: the kernel keeps one rx-<i> folder in /sys/class/net/<ifname>/queues
 * per attached queue (tun.c, tun_set_real_num_queues; one folder also when
 * none is). A net_tap port attaches one per queue pair, `own`: its
 * keep-alive fd is detached (IFF_DETACH_QUEUE) and its RX and TX queue of
 * one index share a fd. Measured here: a rank's port holds 3 fds naming
 * the tap in /proc/<pid>/fdinfo and 1 rx folder; two ranks on one tap, 2.
 * /sys shows this process's network namespace when it was mounted there
 * (ip netns exec does so); where the interface there is not this tap (no
 * such name, or not the kernel-side MAC just set), the check is skipped.
 * Whichever of two such processes sets its kernel-side MAC last passes
 * that test after both have attached, and fails (the other may too). A
 * count above `own` is read again every TAP_RECOUNT_MS, TAP_RECOUNTS
 * times in all, so that an earlier process of the same rank that is
 * still exiting (its files are closed after its memory is released) can
 * let go first.
 * Returns 0, or -HC_ERR_ADDR_IN_USE (logged naming the tap).
 */
#define TAP_RECOUNTS 10
#define TAP_RECOUNT_MS 100

/* Users of an interface counted by count(arg) (a count, or a negative
 * errno when it cannot tell), read again every TAP_RECOUNT_MS while above
 * own, TAP_RECOUNTS times at most. Returns the last count: <= own, above
 * own (another process holds the interface) or negative. The tap's and
 * af_packet's checks share it. */
static int
recount_users(int (*count)(const void *arg), const void *arg,
	      unsigned int own)
{
	unsigned int tries;
	int all = 0;

	for (tries = 0; tries < TAP_RECOUNTS; tries++) {
		if (tries > 0)
			rte_delay_us_sleep(TAP_RECOUNT_MS * 1000);
		all = count(arg);
		if (all < 0 || (unsigned int)all <= own)
			break;
	}
	return all;
}

/* rx-<i> folders in the tap's /sys queues folder at path, or -errno. */
static int
tap_count_queues(const void *path)
{
	struct dirent *de;
	int all = 0;
	DIR *d = opendir(path);

	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL)
		all += strncmp(de->d_name, "rx-", 3) == 0;
	closedir(d);
	return all;
}

static int
tap_exclusive(struct hc_port *port, const char *ifname,
	      const struct rte_ether_addr *kmac, unsigned int own)
{
	char path[96], addr[32], want[32];
	FILE *f;
	int all;

	snprintf(want, sizeof(want), RTE_ETHER_ADDR_PRT_FMT "\n",
		 RTE_ETHER_ADDR_BYTES(kmac));
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
	f = fopen(path, "r");
	if (f == NULL || fgets(addr, sizeof(addr), f) == NULL ||
	    strcasecmp(addr, want) != 0) {
		if (f != NULL)
			fclose(f);
		HC_LOG(DEBUG, DRIVER, "%s: %s in /sys is not this tap: no "
		       "check of other processes on it", port->name, ifname);
		return 0;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	all = recount_users(tap_count_queues, path, own);
	if (all < 0 || (unsigned int)all <= own)
		return 0;
	HC_LOG(ERR, DRIVER, "%s: tap %s has %d queues attached, %u of them "
	       "this port's: another process holds it (two ranks given "
	       "iface=%s, or an earlier process of this rank still holding "
	       "it); give each rank its own tap", port->name, ifname, all,
	       own, ifname);
	return -HC_ERR_ADDR_IN_USE;
}

/* Packet sockets of this network namespace bound to *arg (an unsigned
 * int ifindex) that have a TX ring (the kernel's packet sock_diag, Linux
 * net/packet/diag.c: one PACKET_DIAG_INFO with the ifindex per socket,
 * and PACKET_DIAG_TX_RING only where a TX ring is set up). Returns the count, or a negative errno:
 * -ENOENT when the kernel has no packet_diag (its NLMSG_ERROR), another
 * one when the query itself failed (-EMSGSIZE: a reply larger than the
 * buffer). */
static int
afp_count_tx_rings(const void *arg)
{
	const unsigned int ifindex = *(const unsigned int *)arg;
	struct {
		struct nlmsghdr nlh;
		struct packet_diag_req req;
	} q;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[16384] __rte_aligned(NLMSG_ALIGNTO);
	int fd, count = 0, done = 0;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_len = sizeof(q);
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.req.sdiag_family = AF_PACKET;
	q.req.pdiag_show = PACKET_SHOW_INFO | PACKET_SHOW_RING_CFG;
	if (sendto(fd, &q, sizeof(q), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != (ssize_t)sizeof(q)) {
		count = -errno;
		close(fd);
		return count;
	}
	while (!done) {
		/* MSG_TRUNC: the datagram's real length, to see a cut one */
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_TRUNC);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		int len = (int)n;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (size_t)n > sizeof(buf)) {
			count = n < 0 ? -errno : -EMSGSIZE;
			break;
		}
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			struct packet_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a;
			int alen, tx = 0, idx = -1;

			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				count = e->error < 0 ? e->error : -EPROTO;
				done = 1;
				break;
			}
			alen = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen)) {
				if (a->rta_type == PACKET_DIAG_INFO &&
				    RTA_PAYLOAD(a) >= sizeof(struct packet_diag_info))
					idx = (int)((struct packet_diag_info *)
						    RTA_DATA(a))->pdi_index;
				else if (a->rta_type == PACKET_DIAG_TX_RING)
					tx = 1;
			}
			count += tx && idx == (int)ifindex;
		}
	}
	close(fd);
	return count;
}

/*
 * Whether this net_af_packet port is the only PACKET_MMAP user of its
 * interface (C32: two ranks given one iface= each open sockets on it, and
 * with qdisc_bypass=1 the frames one sends never reach the other, so both
 * would only see their peers go missing). The kernel's packet sock_diag
 * (Linux net/packet/diag.c, NETLINK_SOCK_DIAG with AF_PACKET, as `ss -0`)
 * lists every packet socket of this network namespace with its ifindex
 * (PACKET_DIAG_INFO) and, for one with a TX ring, PACKET_DIAG_TX_RING.
 * net_af_packet opens one socket with an RX and a TX ring per queue pair
 * (`own`); a capture (tcpdump, tshark) has no TX ring and is not counted.
 * Recounted as the tap is (recount_users), for an earlier process of the
 * same rank still exiting. A kernel without packet_diag skips the check;
 * a query that fails otherwise is logged as a warning and skips it too.
 * Returns 0, or -HC_ERR_ADDR_IN_USE (logged naming the interface).
 */
static int
afp_exclusive(struct hc_port *port, unsigned int ifindex, unsigned int own)
{
	char ifname[IF_NAMESIZE] = "?";
	int all = recount_users(afp_count_tx_rings, &ifindex, own);

	if (all == -ENOENT) {
		HC_LOG(DEBUG, DRIVER, "%s: the kernel has no packet sock_diag: "
		       "no check of other processes on its interface",
		       port->name);
		return 0;
	}
	if (all < 0) {
		HC_LOG(WARNING, DRIVER, "%s: packet sock_diag query failed "
		       "(%s): no check of other processes on its interface",
		       port->name, strerror(-all));
		return 0;
	}
	if ((unsigned int)all <= own)
		return 0;
	if_indextoname(ifindex, ifname);
	HC_LOG(ERR, DRIVER, "%s: interface %s has %d packet sockets with a "
	       "TX ring, %u of them this port's: another process holds it "
	       "(two ranks given iface=%s, or an earlier process of this rank "
	       "still holding it); give each rank its own interface",
	       port->name, ifname, all, own, ifname);
	return -HC_ERR_ADDR_IN_USE;
}

/* Set the kernel side of tap ifname up again: closing a net_tap port
 * sets it down (DPDK 22.11's tap_dev_stop and tap_dev_close), and after
 * tap_exclusive() failed the tap is another process's link. */
static void
tap_set_up(struct hc_port *port, const char *ifname)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (if_ioctl(SIOCGIFFLAGS, &ifr) != 0 || (ifr.ifr_flags & IFF_UP))
		return;
	ifr.ifr_flags |= IFF_UP;
	if (if_ioctl(SIOCSIFFLAGS, &ifr) != 0)
		HC_LOG(ERR, DRIVER, "%s: cannot set %s up again for the "
		       "process that holds it: %s", port->name, ifname,
		       strerror(errno));
	else
		HC_LOG(INFO, DRIVER, "%s: %s up again for the process that "
		       "holds it", port->name, ifname);
}

/* The waits of this file sleep (rte_delay_us_sleep) and do not spin:
 * rte_delay_ms is rte_delay_us_block unless a callback is registered, a
 * busy loop, and with more ranks than CPUs a rank spinning while it waits
 * for a peer's link (or a memif server for its client's close) takes the
 * CPU that peer needs (perf, 5 memif ranks on 2 CPUs, 2026-12-07: 7 % of
 * the job's samples in rte_delay_us_block). Sleeping, that job (hc-perf
 * -b 8 -e 8 -n 1, start to end) took 4.13-4.37 s against 4.37-4.73
 * spinning, 3 alternating rounds; at 4 ranks, and over shm, the two were
 * within each other's spread. */

/* Wait for link up. A memif client (redial set) whose server had not
 * started its interface yet is refused ("ID not found") and not retried
 * by the PMD: stop and start it again, which dials again, every 250 ms.
 * Not more often: the PMD handles the server's answer on its interrupt
 * thread, and a stop while it does races with it (see hc_port_close). */
static int
wait_link(struct hc_port *port, uint32_t wait_ms, bool redial)
{
	struct rte_eth_link link;
	uint32_t waited = 0;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (waited >= wait_ms)
			break;
		rte_delay_us_sleep(10 * 1000);
		waited += 10;
		if (redial && waited % 250 == 0 &&
		    rte_eth_dev_stop(port->port_id) == 0)
			rte_eth_dev_start(port->port_id);
	}
	HC_LOG(ERR, DRIVER, "%s: link still down after %u ms", port->name,
	       wait_ms);
	return -HC_ERR_LINK_DOWN;
}

/* The value of KEY in devargs ("DRIVER,key=value,...": the kvargs after
 * the driver's name, parsed by DPDK's rte_kvargs as the PMD parses them)
 * copied into buf (size bytes, NUL included). @return 0, -ENOENT when KEY
 * is absent, -EINVAL when the devargs do not parse or the value is empty
 * or does not fit in buf. */
static int
devarg_value(const char *devargs, const char *key, char *buf, size_t size)
{
	const char *comma = strchr(devargs, ',');
	struct rte_kvargs *kv;
	const char *v;
	int rc;

	if (comma == NULL)
		return -ENOENT;
	kv = rte_kvargs_parse(comma + 1, NULL);
	if (kv == NULL)
		return -EINVAL;
	v = rte_kvargs_get(kv, key);
	if (v == NULL)
		rc = rte_kvargs_count(kv, key) > 0 ? -EINVAL : -ENOENT;
	else if (v[0] == '\0' || strlen(v) >= size)
		rc = -EINVAL;
	else {
		memcpy(buf, v, strlen(v) + 1);
		rc = 0;
	}
	rte_kvargs_free(kv);
	return rc;
}

/* Wait up to wait_ms for the socket file of a memif client's devargs
 * (socket=PATH; abstract sockets have no file and are not waited for):
 * its server creates it when it probes, and every start before that fails
 * with a logged error. */
static void
memif_wait_socket(const char *devargs, uint32_t wait_ms)
{
	char path[108]; /* sun_path */
	uint32_t waited = 0;

	if (strstr(devargs, "role=client") == NULL ||
	    strstr(devargs, "socket-abstract=no") == NULL ||
	    devarg_value(devargs, "socket", path, sizeof(path)) != 0)
		return;
	while (access(path, F_OK) != 0 && waited < wait_ms) {
		rte_delay_us_sleep(10 * 1000);
		waited += 10;
	}
}

/* 1 when a net_virtio_user port's devargs name a vhost-user socket
 * (path=FILE, a Unix socket: the backend is another process of this host
 * that maps our memory, hc-vswitch under hc-launch), 0 for a character
 * device (/dev/vhost-net, vhost-vdpa: a kernel or hardware backend) or
 * anything else. */
static bool
virtio_user_socket(const char *devargs)
{
	char path[108]; /* sun_path */
	struct stat st;

	return devarg_value(devargs, "path", path, sizeof(path)) == 0 &&
	       stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * net_af_packet's PACKET_MMAP slots (DPDK 22.11
 * drivers/net/af_packet/rte_eth_af_packet.c, Linux net/packet/af_packet.c):
 * - the kernel writes a received frame at offset AFP_RX_MAC_OFF of its
 *   slot (TPACKET_V2: TPACKET_ALIGN(32-byte tpacket2_hdr + 20-byte
 *   sockaddr_ll + 16) - 14, tpacket_rcv's macoff) and cuts what does not
 *   fit (tp_snaplen < tp_len), so a slot carries MTU + 14 bytes of frame
 *   only if framesz >= MTU + AFP_RX_MAC_OFF + 14;
 * - rx_queue_setup refuses an mbuf pool whose data room is less than
 *   framesz - AFP_SLOT_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)),
 *   and RX copies each frame whole into one mbuf.
 * framesz defaults to 2048 (the PMD's DFLT_FRAME_SIZE).
 */
#define AFP_RX_MAC_OFF 66
#define AFP_SLOT_HDR 32
#define AFP_FRAMESZ_DEFAULT 2048

/* framesz= of net_af_packet devargs, AFP_FRAMESZ_DEFAULT when absent, 0
 * when not a number (or the devargs do not parse). */
static uint32_t
afp_framesz(const char *devargs)
{
	char v[16], *end;
	unsigned long n;
	int rc = devarg_value(devargs, "framesz", v, sizeof(v));

	if (rc == -ENOENT)
		return AFP_FRAMESZ_DEFAULT;
	if (rc != 0)
		return 0;
	n = strtoul(v, &end, 10);
	if (end == v || *end != '\0' || v[0] == '-' || n > UINT16_MAX * 4UL)
		return 0;
	return (uint32_t)n;
}

/* Extra mbuf data room a net_af_packet port needs beside a whole frame
 * (hc_port_pool_create) for its framesz; -HC_ERR_CONFIG, logged, when
 * framesz cannot carry a [net] mtu frame. */
static int
afp_extra_room(const char *devargs, const struct hc_port_conf *conf,
	       const char *name)
{
	uint32_t fs = afp_framesz(devargs);
	uint32_t frame = conf->mtu + RTE_ETHER_HDR_LEN;
	uint32_t room = conf->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;

	if (fs == 0) {
		HC_LOG(ERR, DRIVER, "%s: devargs' framesz= is not a number of "
		       "bytes", name);
		return -HC_ERR_CONFIG;
	}
	if (fs < frame + AFP_RX_MAC_OFF) {
		HC_LOG(ERR, DRIVER, "%s: [net] mtu %u needs framesz >= %u "
		       "(the kernel writes a frame at offset %u of its "
		       "PACKET_MMAP slot), devargs give %u", name, conf->mtu,
		       frame + AFP_RX_MAC_OFF, AFP_RX_MAC_OFF, fs);
		return -HC_ERR_CONFIG;
	}
	if (fs - AFP_SLOT_HDR + RTE_PKTMBUF_HEADROOM > UINT16_MAX) {
		HC_LOG(ERR, DRIVER, "%s: framesz %u: an mbuf holds at most %u "
		       "bytes (framesz <= %u)", name, fs,
		       UINT16_MAX - RTE_PKTMBUF_HEADROOM,
		       UINT16_MAX - RTE_PKTMBUF_HEADROOM + AFP_SLOT_HDR);
		return -HC_ERR_CONFIG;
	}
	return fs - AFP_SLOT_HDR > room ? (int)(fs - AFP_SLOT_HDR - room) : 0;
}

/* sizeof(struct virtio_net_hdr_mrg_rxbuf), the header net_virtio_user puts
 * before each received frame in the mbuf (virtio spec 1.1, 5.1.6). */
#define VIRTIO_NET_HDR_BYTES 12

static int
configure(struct hc_port *port, const struct hc_port_conf *conf,
	  const char *devargs, char *tap_ifname)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	uint16_t id = port->port_id, nrx = conf->rx_desc, ntx = conf->tx_desc;
	uint64_t want;
	uint32_t waited = 0;
	bool memif, afp;
	int rc;

	rc = rte_eth_dev_info_get(id, &info);
	if (rc != 0) {
		HC_LOG(ERR, DRIVER, "%s: dev_info: %s", port->name,
		       rte_strerror(-rc));
		return -HC_ERR_PORT;
	}
	if (conf->mtu < info.min_mtu || conf->mtu > info.max_mtu) {
		HC_LOG(ERR, DRIVER, "%s: MTU %u outside the PMD's %u..%u",
		       port->name, conf->mtu, info.min_mtu, info.max_mtu);
		return -HC_ERR_PORT;
	}
	memif = strcmp(info.driver_name, "net_memif") == 0;
	afp = strcmp(info.driver_name, "net_af_packet") == 0;
	if (strcmp(info.driver_name, "net_tap") == 0 &&
	    conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN >
	    info.max_rx_pktlen) {
		/* DPDK 22.11's net_tap drops on TX every frame above its
		 * ethdev MTU, which ethdev keeps within max_rx_pktlen (1522):
		 * say so instead of ethdev's "Frame size > device max".
		 * DPDK 23.03 (commit 427f5e5c33, "net/tap: allow jumbo
		 * frames") reports RTE_ETHER_MAX_JUMBO_FRAME_LEN (16128),
		 * and this check then passes; no API of 22.11 sets the
		 * ethdev MTU past the PMD's report, so a jumbo net_tap here
		 * would mean writing ethdev's private rte_eth_devices[] (an
		 * INTERNAL symbol, ethdev_driver.h not installed by Debian):
		 * not done. */
		HC_LOG(ERR, DRIVER, "%s: [net] mtu %u needs %u-byte frames; "
		       "net_tap takes at most %u (MTU %u; DPDK 23.03 raised "
		       "it to 16128): use memif, af_packet or virtio for "
		       "jumbo frames", port->name, conf->mtu,
		       conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN,
		       info.max_rx_pktlen, info.max_rx_pktlen -
		       RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN - RTE_VLAN_HLEN);
		return -HC_ERR_PORT;
	}
	memset(&ec, 0, sizeof(ec));
	ec.rxmode.mtu = conf->mtu;
	if ((memif || afp) &&
	    conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN >
	    info.max_rx_pktlen) {
		/* net_memif (DPDK 22.11) reports max_rx_pktlen 1518 but
		 * enforces no length: TX splits a frame over as many bsize
		 * slots as it needs and RX copies it into the mbuf, which
		 * holds a whole [net] mtu frame (hc_port_pool_create).
		 * net_af_packet reports 1518 too and checks a frame only
		 * against its PACKET_MMAP slot (afp_extra_room). Only
		 * ethdev's own check must pass. */
		ec.rxmode.mtu = info.max_rx_pktlen - RTE_ETHER_HDR_LEN -
				RTE_ETHER_CRC_LEN;
		HC_LOG(INFO, DRIVER, "%s: MTU %u over %s (ethdev told %u)",
		       port->name, conf->mtu, info.driver_name,
		       ec.rxmode.mtu);
	}
	/* Chained mbufs on TX when the PMD offers them and takes at least 2
	 * segments per frame (net_tap, net_memif, net_af_packet and
	 * net_virtio_user all do in DPDK 22.11: they copy or map each
	 * segment): a retransmission goes as a fresh header mbuf chained
	 * to a clone of the payload. */
	want = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
	       RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ec.txmode.offloads = info.tx_offload_capa & want;
	if (info.tx_desc_lim.nb_seg_max < 2 ||
	    info.tx_desc_lim.nb_mtu_seg_max == 1)
		ec.txmode.offloads &= ~RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	want = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	if ((info.rx_offload_capa & want) == want)
		ec.rxmode.offloads = want;
	port->tx_ip_cksum = ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	port->tx_udp_cksum = ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	port->rx_cksum = ec.rxmode.offloads != 0;
	port->tx_multi_seg = ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* net_memif: rings in memory shared by the two processes, frames
	 * copied in and out by the CPU; net_virtio_user over vhost-user: the
	 * backend process copies them between its ports' mapped memory
	 * (port.h shm). Only net_memif copies TX frames in tx_burst, from
	 * any address (port.h tx_any_memory). */
	port->shm = memif ||
		    (strcmp(info.driver_name, "net_virtio_user") == 0 &&
		     virtio_user_socket(devargs));
	port->tx_any_memory = memif;

	/* A TX ring keeps the mbufs it sent until the PMD reclaims them
	 * (net_virtio_user: only once its free descriptors run short), so it
	 * gets at most a quarter of the pool, as the unexpected queue does:
	 * with a small pool (field case C30: 1023 mbufs) a 1024-slot ring
	 * held every mbuf and the ranks stopped, each waiting for the
	 * others' ACKs. */
	if (ntx > port->pool->size / 4) {
		HC_LOG(INFO, DRIVER, "%s: [port] tx_desc %u cut to %u, a "
		       "quarter of the pool's %u mbufs", port->name, ntx,
		       port->pool->size / 4, port->pool->size);
		ntx = (uint16_t)(port->pool->size / 4);
	}
	rc = rte_eth_dev_configure(id, 1, 1, &ec);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nrx, &ntx);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(id, 0, nrx, rte_eth_dev_socket_id(id),
					    NULL, port->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(id, 0, ntx, rte_eth_dev_socket_id(id),
					    NULL);
	if (rc == 0 && conf->mac != NULL &&
	    (rte_eth_macaddr_get(id, &port->mac) != 0 ||
	     !rte_is_same_ether_addr(&port->mac, conf->mac)))
		/* net_memif has no MAC setter: its devargs (mac=) give the
		 * MAC, and a MAC that is right already needs no call. */
		rc = rte_eth_dev_default_mac_addr_set(id,
				(struct rte_ether_addr *)conf->mac);
	if (rc == 0 && memif)
		memif_wait_socket(devargs, conf->link_wait_ms);
	if (rc == 0)
		rc = rte_eth_dev_start(id);
	/* A memif client's start connects to the server's socket, which the
	 * peer process creates when it probes its vdev: retry until then. */
	while (rc != 0 && memif && waited < conf->link_wait_ms) {
		rte_delay_us_sleep(10 * 1000);
		waited += 10;
		rc = rte_eth_dev_start(id);
	}
	if (rc != 0) {
		HC_LOG(ERR, DRIVER, "%s: configure/start: %s", port->name,
		       rte_strerror(-rc));
		return -HC_ERR_PORT;
	}
	rte_eth_macaddr_get(id, &port->mac);
	if (strcmp(info.driver_name, "net_virtio_user") == 0)
		port->tx_held_max = ntx;
	if (strcmp(info.driver_name, "net_tap") == 0) {
		struct rte_ether_addr kmac;

		if (tap_kernel_mac(port, info.if_index, tap_ifname, &kmac) != 0)
			return -HC_ERR_PORT;
		/* 1: the one queue pair rte_eth_dev_configure() got above */
		return tap_exclusive(port, tap_ifname, &kmac, 1);
	}
	if (afp)	/* one socket per queue pair the PMD opened */
		return afp_exclusive(port, info.if_index, info.max_rx_queues);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Populate the page tables of this process's net_memif shared regions
 * (DPDK 22.11 names their memfds "memif_region_<i>"; both ends map them
 * by the time the link is up). Otherwise every ring slot's page faults on
 * its first use, at each end: measured over memif with 2 ranks, about 6
 * minor faults per 8-byte all-reduce for the first ~225 of them (until
 * the 1024-slot rings had wrapped once), which doubled their latency
 * (40 vs 20 us at load 16; 25 vs 6 us on a quiet host). MADV_POPULATE_WRITE
 * faults the pages in writable without touching their bytes, so it is
 * safe on rings the peer already uses; on a kernel without it the pages
 * fault on use, as before. Regions already populated (another port's)
 * cost only a page-table walk. */
static void
memif_prefault(const struct hc_port *port)
{
	char line[512];
	unsigned long a, b, bytes = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "/memfd:memif_region_") == NULL ||
		    sscanf(line, "%lx-%lx", &a, &b) != 2 || b <= a)
			continue;
		if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) == 0)
			bytes += b - a;
	}
	fclose(f);
	HC_LOG(DEBUG, DRIVER, "%s: %lu bytes of memif regions prefaulted",
	       port->name, bytes);
}

int
hc_port_open_dpdk(struct hc_port *port, const char *devargs,
		  const struct hc_port_conf *conf)
{
	char tap_ifname[IF_NAMESIZE] = "";
	int rc, extra = 0;

	rc = hc_port_init(port, devargs, conf);
	if (rc != 0)
		return rc;
	port->memif = strncmp(port->name, "net_memif", 9) == 0;
	if (strncmp(port->name, "net_virtio_user", 15) == 0)
		extra = VIRTIO_NET_HDR_BYTES;
	if (strncmp(port->name, "net_af_packet", 13) == 0) {
		extra = afp_extra_room(devargs, conf, port->name);
		if (extra < 0)
			return extra;
	}

	rc = rte_dev_probe(devargs);
	if (rc != 0) {
		HC_LOG(ERR, DRIVER, "port '%s': probe failed: %s", devargs,
		       rte_strerror(-rc));
		return -HC_ERR_PORT;
	}
	if (rte_eth_dev_get_port_by_name(port->name, &port->port_id) != 0) {
		HC_LOG(ERR, DRIVER, "port '%s': no ethdev named %s", devargs,
		       port->name);
		return -HC_ERR_PORT;
	}
	/* net_virtio_user: room for the virtio-net header beside a whole
	 * frame (hc_port_pool_create), else MTUs above 2030 fail its RX
	 * queue setup ("Rx scatter check failed"); net_af_packet: room for
	 * its slot (afp_extra_room). */
	/* Ports may share a pool (struct hc_port_pools) only if the PMD
	 * parks none of its mbufs: net_memif in copy mode, not with
	 * zero-copy=yes, whose RX ring holds mbufs of the pool. */
	rc = hc_port_pool_create(port, conf, (uint32_t)extra,
				 port->memif &&
				 strstr(devargs, "zero-copy=yes") == NULL);
	if (rc != 0)
		goto fail_dev;
	port->ops = &dpdk_ops;
	rc = configure(port, conf, devargs, tap_ifname);
	if (rc == 0)
		rc = wait_link(port, conf->link_wait_ms,
			       port->memif &&
			       strstr(devargs, "role=client") != NULL);
	/* net_memif's role defaults to client. */
	port->close_after_peer = port->memif &&
				 strstr(devargs, "role=server") != NULL;
	port->close_wait_ms = conf->link_wait_ms;
	if (rc == -HC_ERR_LINK_DOWN && port->memif)
		/* C32: name the resource. A memif server accepts one client
		 * per socket and id; a second one (two ranks given the same
		 * socket=), like a server that never started, leaves the
		 * link down. */
		HC_LOG(ERR, DRIVER, "port '%s': no memif peer on this socket "
		       "and id: its peer did not start, or another process "
		       "holds the same socket and id", devargs);
	if (rc == 0 && port->memif)
		memif_prefault(port);
	if (rc == 0) {
		HC_LOG(INFO, DRIVER, "%s: up, MTU %u, MAC " RTE_ETHER_ADDR_PRT_FMT
		       ", checksum offload tx ip %d udp %d rx %d, tx chains %d",
		       port->name,
		       port->mtu, RTE_ETHER_ADDR_BYTES(&port->mac),
		       port->tx_ip_cksum, port->tx_udp_cksum, port->rx_cksum,
		       port->tx_multi_seg);
		return 0;
	}
	hc_port_close(port);
	if (rc == -HC_ERR_ADDR_IN_USE && tap_ifname[0] != '\0')
		tap_set_up(port, tap_ifname);
	return rc;
fail_dev:
	rte_eth_dev_close(port->port_id);
	return rc;
}
