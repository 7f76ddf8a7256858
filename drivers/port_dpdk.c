/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK ethdev backend: probe a vdev from devargs, configure, start, wait for
 * link. Follows examples/l2fwd for pool sizing and link wait.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

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
			rte_delay_ms(1);
			waited++;
		}
		/* The interrupt thread marks the link down first and frees
		 * the control channel after: give it time to finish. */
		rte_delay_ms(20);
	}
	rte_eth_dev_stop(port->port_id);
	if (rte_eth_dev_info_get(port->port_id, &info) != 0 ||
	    rte_eth_dev_get_name_by_port(port->port_id, name) != 0)
		name[0] = '\0';
	rte_eth_dev_close(port->port_id);
	if (name[0] != '\0')
		rte_dev_remove(info.device);
}

static const struct hc_port_ops dpdk_ops = {
	.rx_burst = dpdk_rx,
	.tx_burst = dpdk_tx,
	.close = dpdk_close,
};

/* Give the kernel side of a net_tap its own MAC (see port.h). */
static int
tap_kernel_mac(struct hc_port *port, uint32_t if_index)
{
	struct ifreq ifr;
	int fd, rc;

	memset(&ifr, 0, sizeof(ifr));
	if (if_index == 0 || if_indextoname(if_index, ifr.ifr_name) == NULL) {
		HC_LOG(ERR, DRIVER, "%s: tap has no kernel interface", port->name);
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	ifr.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, port->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	ifr.ifr_hwaddr.sa_data[0] ^= 0x04;
	rc = ioctl(fd, SIOCSIFHWADDR, &ifr);
	close(fd);
	if (rc != 0) {
		HC_LOG(ERR, DRIVER, "%s: cannot set the MAC of kernel side %s: %s",
		       port->name, ifr.ifr_name, strerror(errno));
		return -1;
	}
	HC_LOG(INFO, DRIVER, "%s: kernel side %s gets its own MAC", port->name,
	       ifr.ifr_name);
	return 0;
}

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
		rte_delay_ms(10);
		waited += 10;
		if (redial && waited % 250 == 0 &&
		    rte_eth_dev_stop(port->port_id) == 0)
			rte_eth_dev_start(port->port_id);
	}
	HC_LOG(ERR, DRIVER, "%s: link still down after %u ms", port->name,
	       wait_ms);
	return -HC_ERR_LINK_DOWN;
}

/* The value of devargs' ",KEY=" (up to the next comma) as a socket path
 * in path (sun_path's 108 bytes). @return 0, or -1 when absent, empty or
 * too long. */
static int
devarg_path(const char *devargs, const char *key, char path[108])
{
	const char *p = strstr(devargs, key);
	size_t n;

	if (p == NULL)
		return -1;
	p += strlen(key);
	n = strcspn(p, ",");
	if (n == 0 || n >= 108)
		return -1;
	memcpy(path, p, n);
	path[n] = '\0';
	return 0;
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
	    devarg_path(devargs, ",socket=", path) != 0)
		return;
	while (access(path, F_OK) != 0 && waited < wait_ms) {
		rte_delay_ms(10);
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

	return devarg_path(devargs, ",path=", path) == 0 &&
	       stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* sizeof(struct virtio_net_hdr_mrg_rxbuf), the header net_virtio_user puts
 * before each received frame in the mbuf (virtio spec 1.1, 5.1.6). */
#define VIRTIO_NET_HDR_BYTES 12

static int
configure(struct hc_port *port, const struct hc_port_conf *conf,
	  const char *devargs)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	uint16_t id = port->port_id, nrx = conf->rx_desc, ntx = conf->tx_desc;
	uint64_t want;
	uint32_t waited = 0;
	bool memif;
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
	if (strcmp(info.driver_name, "net_tap") == 0 &&
	    conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN >
	    info.max_rx_pktlen) {
		/* DPDK 22.11's net_tap drops on TX every frame above its
		 * ethdev MTU, which ethdev keeps within max_rx_pktlen (1522):
		 * say so instead of ethdev's "Frame size > device max". */
		HC_LOG(ERR, DRIVER, "%s: [net] mtu %u needs %u-byte frames; "
		       "net_tap takes at most %u (MTU %u): use memif for "
		       "jumbo frames", port->name, conf->mtu,
		       conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN,
		       info.max_rx_pktlen, info.max_rx_pktlen -
		       RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN - RTE_VLAN_HLEN);
		return -HC_ERR_PORT;
	}
	memset(&ec, 0, sizeof(ec));
	ec.rxmode.mtu = conf->mtu;
	if (memif && conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN >
		     info.max_rx_pktlen) {
		/* net_memif (DPDK 22.11) reports max_rx_pktlen 1518 but
		 * enforces no length: TX splits a frame over as many bsize
		 * slots as it needs and RX copies it into the mbuf, which
		 * holds a whole [net] mtu frame (hc_port_pool_create). Only
		 * ethdev's own check must pass. */
		ec.rxmode.mtu = info.max_rx_pktlen - RTE_ETHER_HDR_LEN -
				RTE_ETHER_CRC_LEN;
		HC_LOG(INFO, DRIVER, "%s: MTU %u over memif (ethdev told %u)",
		       port->name, conf->mtu, ec.rxmode.mtu);
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
		rte_delay_ms(10);
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
	if (strcmp(info.driver_name, "net_tap") == 0 &&
	    tap_kernel_mac(port, info.if_index) != 0)
		return -HC_ERR_PORT;
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
	int rc;

	rc = hc_port_init(port, devargs, conf);
	if (rc != 0)
		return rc;

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
	 * queue setup ("Rx scatter check failed"). */
	rc = hc_port_pool_create(port, conf,
				 strncmp(port->name, "net_virtio_user", 15) == 0 ?
				 VIRTIO_NET_HDR_BYTES : 0);
	if (rc != 0)
		goto fail_dev;
	port->ops = &dpdk_ops;
	rc = configure(port, conf, devargs);
	if (rc == 0)
		rc = wait_link(port, conf->link_wait_ms,
			       strncmp(port->name, "net_memif", 9) == 0 &&
			       strstr(devargs, "role=client") != NULL);
	/* net_memif's role defaults to client. */
	port->close_after_peer = strncmp(port->name, "net_memif", 9) == 0 &&
				 strstr(devargs, "role=server") != NULL;
	port->close_wait_ms = conf->link_wait_ms;
	if (rc == -HC_ERR_LINK_DOWN && strncmp(port->name, "net_memif", 9) == 0)
		/* C32: name the resource. A memif server accepts one client
		 * per socket and id; a second one (two ranks given the same
		 * socket=), like a server that never started, leaves the
		 * link down. */
		HC_LOG(ERR, DRIVER, "port '%s': no memif peer on this socket "
		       "and id: its peer did not start, or another process "
		       "holds the same socket and id", devargs);
	if (rc == 0 && strncmp(port->name, "net_memif", 9) == 0)
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
	return rc;
fail_dev:
	rte_eth_dev_close(port->port_id);
	return rc;
}
