/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hc-vswitch: a small DPDK L2 learning switch over vhost-user ports, the
 * backend of the ranks' virtio ports (DPDK net_virtio_user) on one host.
 *
 *   hc-vswitch [EAL args with one net_vhost vdev per rank] -- [options]
 *
 * Every ethdev the EAL probed is a switch port. One loop on the main lcore
 * receives a burst from each port in turn, learns the source MAC's port,
 * and forwards each frame to the port that learned its destination MAC,
 * or floods it (every other port) when the destination is a group address
 * or not learned yet, as an IEEE 802.1D bridge does. Flooding shares one
 * mbuf between ports through its reference count (the vhost PMD copies
 * a frame into the guest's ring and only then frees it, so nothing writes
 * a shared frame). Frames a port does not accept are dropped and counted
 * (rte_eth_tx_buffer's drop callback).
 *
 * Two clients on one port's socket (two ranks given one vhost-user path,
 * field case C32): net_vhost (DPDK 22.11 drivers/net/vhost, new_device)
 * accepts the second connection, switches to it and raises a link-up
 * event although the link is up already; the first client's frames are
 * then never read. The switch counts link-up events per port (an LSC
 * callback) and, on one while the port is up, prints to stderr
 *   hc-vswitch: port P (DEVARGS): a second vhost-user client attached
 *   while one was (N time[s]): two processes were given this socket; ...
 * (DEVARGS: the port's vdev arguments, iface=PATH,queues=1 from hc-launch)
 * which hc-launch relays; the ranks themselves only see a peer go quiet.
 *
 * Options:
 *   --idle-polls N   empty polls of every port before the switch gives
 *                    up its CPU (default 1; 0: busy-poll, for a switch
 *                    with a core of its own)
 *   --idle-yield-us US  after those polls, sched_yield() until US without
 *                    a received frame (default 2000; 0: sleep at once)
 *   --idle-us US     then sleep per idle poll (default 20)
 *                    Why yield: on 2 CPUs the switch is a third busy
 *                    process beside two ranks. Busy-polling, it held a
 *                    whole CPU (418 of 400 ticks in 4 s; the ranks shared
 *                    the other); sleeping 20 us after 1000 empty polls
 *                    (the old default) left frames waiting in its rings
 *                    until the sleep ended.
 *                    Yielding gives a waiting rank the CPU at once and
 *                    takes it back on the next frame. Measured 2026-12-04
 *                    (hc-launch --pmd virtio hc-perf -b 4M -e 16M -f 4
 *                    -n 40 -w 3 -c 0, 3 alternations, out-of-place busbw
 *                    at 4 / 16 MiB): 2 ranks 0.60-0.77 / 0.61-0.79 GB/s
 *                    sleeping, 1.06-1.14 / 1.15-1.16 yielding; 4 ranks
 *                    (2 alternations) 0.15-0.18 / 0.14-0.16 against
 *                    0.30 / 0.29-0.33, and 242-348 RTOs against 66-80.
 *   --mbuf-size B    mbuf data room in bytes (default 9216 + headroom: any
 *                    frame up to MTU 9000)
 *   --stats-file F   write the final per-port counters there at exit (also
 *                    printed on stdout)
 * SIGINT or SIGTERM stops it; it prints per-port counters, testpmd-style.
 * Exit status: 0, 1 on EAL or port set-up errors, 2 on usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

/** Ports at most (ranks on one host). */
#define VSW_PORTS_MAX 64
/** Frames per receive burst and per port TX buffer. */
#define VSW_BURST 32
/** Descriptors per ring. */
#define VSW_DESC 1024
/** Learning table slots: a power of two, far above VSW_PORTS_MAX MACs. */
#define VSW_FDB_SLOTS 1024
/** A learned MAC not seen for this long is forgotten (802.1D's default
 *  ageing time is 300 s; ranks do not move, so this only bounds stale
 *  entries of ranks that restarted with another MAC). */
#define VSW_FDB_AGE_S 300

struct vsw_fdb_entry {
	struct rte_ether_addr mac;
	uint16_t port;
	uint16_t used;
	uint64_t seen_tsc;
};

struct vsw_port_stats {
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t tx_drops;  /**< frames the port did not accept */
	uint64_t flooded;   /**< received frames flooded */
};

static volatile sig_atomic_t quit;
/** Per port, written by the LSC callback on net_vhost's thread: link up
 *  as last seen, and link-up events seen while already up (clashes). */
static uint8_t link_up[VSW_PORTS_MAX];
static uint32_t clashes[VSW_PORTS_MAX];
static struct vsw_fdb_entry fdb[VSW_FDB_SLOTS];
static struct vsw_port_stats stats[VSW_PORTS_MAX];
static struct rte_eth_dev_tx_buffer *txb[VSW_PORTS_MAX];

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	quit = 1;
}

static uint32_t
fdb_slot(const struct rte_ether_addr *mac)
{
	uint32_t h = 2166136261u, i;

	/* FNV-1a over the 6 bytes (Fowler, Noll, Vo). */
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		h = (h ^ mac->addr_bytes[i]) * 16777619u;
	return h & (VSW_FDB_SLOTS - 1);
}

/* Learn that mac is behind port (linear probing). */
static void
fdb_learn(const struct rte_ether_addr *mac, uint16_t port, uint64_t now)
{
	uint32_t s = fdb_slot(mac), i;

	if (!rte_is_unicast_ether_addr(mac))
		return;
	for (i = 0; i < VSW_FDB_SLOTS; i++, s = (s + 1) & (VSW_FDB_SLOTS - 1)) {
		struct vsw_fdb_entry *e = &fdb[s];

		if (!e->used || rte_is_same_ether_addr(&e->mac, mac)) {
			e->mac = *mac;
			e->port = port;
			e->used = 1;
			e->seen_tsc = now;
			return;
		}
	}
}

/* The port behind mac, or -1 when not learned (or aged out). */
static int
fdb_lookup(const struct rte_ether_addr *mac, uint64_t now, uint64_t age)
{
	uint32_t s = fdb_slot(mac), i;

	for (i = 0; i < VSW_FDB_SLOTS; i++, s = (s + 1) & (VSW_FDB_SLOTS - 1)) {
		const struct vsw_fdb_entry *e = &fdb[s];

		if (!e->used)
			return -1;
		if (rte_is_same_ether_addr(&e->mac, mac))
			return now - e->seen_tsc > age ? -1 : e->port;
	}
	return -1;
}

static void
count_drops(struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	struct vsw_port_stats *st = arg;

	st->tx_drops += n;
	rte_pktmbuf_free_bulk(pkts, n);
}

/* RTE_ETH_EVENT_INTR_LSC of a net_vhost port: a vhost-user client
 * attached (link up) or went (down). Runs on the vhost-events thread. */
static int
on_lsc(uint16_t port, enum rte_eth_event_type type, void *arg, void *out)
{
	struct rte_eth_link link;

	RTE_SET_USED(type);
	RTE_SET_USED(arg);
	RTE_SET_USED(out);
	if (port >= VSW_PORTS_MAX || rte_eth_link_get_nowait(port, &link) != 0)
		return 0;
	if (link.link_status == RTE_ETH_LINK_UP &&
	    __atomic_exchange_n(&link_up[port], 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&clashes[port], 1, __ATOMIC_RELEASE);
	else if (link.link_status != RTE_ETH_LINK_UP)
		__atomic_store_n(&link_up[port], 0, __ATOMIC_RELEASE);
	return 0;
}

/* Print each port's new clashes (see the comment at the top) to stderr:
 * told[p] is the count of port p's clashes printed so far, updated. */
static void
report_clashes(uint16_t nports, uint32_t *told)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	uint16_t p;

	for (p = 0; p < nports; p++) {
		uint32_t c = __atomic_load_n(&clashes[p], __ATOMIC_ACQUIRE);

		if (c == told[p])
			continue;
		told[p] = c;
		da = rte_eth_dev_info_get(p, &info) == 0 ?
		     rte_dev_devargs(info.device) : NULL;
		fprintf(stderr, "hc-vswitch: port %u (%s): a second vhost-user "
			"client attached while one was (%u time%s): two "
			"processes were given this socket; net_vhost switches "
			"only the last one, the first's frames are lost\n",
			p, da != NULL && da->args != NULL ? da->args : "?", c,
			c == 1 ? "" : "s");
	}
}

static int
port_setup(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	/* net_vhost raises LSC on every (dis)connect, whatever intr_conf */
	rc = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC,
					   on_lsc, NULL);
	if (rc == 0)
		rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, VSW_DESC,
					    rte_eth_dev_socket_id(port), NULL,
					    pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, VSW_DESC,
					    rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0) {
		fprintf(stderr, "hc-vswitch: port %u: set-up failed: %s\n",
			port, rte_strerror(-rc));
		return -1;
	}
	txb[port] = rte_zmalloc_socket("vsw_txb",
				       RTE_ETH_TX_BUFFER_SIZE(VSW_BURST), 0,
				       rte_eth_dev_socket_id(port));
	if (txb[port] == NULL) {
		fprintf(stderr, "hc-vswitch: port %u: no memory\n", port);
		return -1;
	}
	rte_eth_tx_buffer_init(txb[port], VSW_BURST);
	rte_eth_tx_buffer_set_err_callback(txb[port], count_drops,
					   &stats[port]);
	return 0;
}

/* Queue m for port out; counts what the port accepted on flush. */
static void
vsw_tx(uint16_t out, struct rte_mbuf *m)
{
	stats[out].tx_pkts += rte_eth_tx_buffer(out, 0, txb[out], m);
}

/* Forward one frame received on port in. */
static void
vsw_forward(uint16_t in, uint16_t nports, struct rte_mbuf *m, uint64_t now,
	    uint64_t age)
{
	struct rte_ether_hdr *eth;
	int out;
	uint16_t p, copies;

	if (m->data_len < sizeof(*eth)) {
		stats[in].tx_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	fdb_learn(&eth->src_addr, in, now);
	out = rte_is_unicast_ether_addr(&eth->dst_addr) ?
	      fdb_lookup(&eth->dst_addr, now, age) : -1;
	if (out >= 0) {
		if (out == in)
			rte_pktmbuf_free(m); /* both ends behind one port */
		else
			vsw_tx((uint16_t)out, m);
		return;
	}
	stats[in].flooded++;
	copies = nports - 1;
	if (copies == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	rte_mbuf_refcnt_update(m, (int16_t)(copies - 1));
	for (p = 0; p < nports; p++)
		if (p != in)
			vsw_tx(p, m);
}

static void
print_stats(FILE *f, uint16_t nports)
{
	uint16_t p;

	for (p = 0; p < nports; p++)
		fprintf(f, "port %u: rx-packets %" PRIu64 " tx-packets %"
			PRIu64 " tx-dropped %" PRIu64 " flooded %" PRIu64 "\n",
			p, stats[p].rx_pkts, stats[p].tx_pkts,
			stats[p].tx_drops, stats[p].flooded);
}

static void
usage(FILE *f)
{
	fprintf(f,
"usage: hc-vswitch [EAL args, one net_vhost vdev per port] -- [options]\n"
"  --idle-polls N   empty polls before yielding (default 1; 0: busy)\n"
"  --idle-yield-us US  after those polls, yield the CPU (sched_yield) until\n"
"                   US without a frame (default 2000; 0: sleep at once)\n"
"  --idle-us US     then sleep per idle poll (default 20)\n"
"  --mbuf-size B    mbuf data room, bytes (default 9216 + headroom)\n"
"  --stats-file F   write the final per-port counters to F\n");
}

/* 1 when the switch's own arguments (after "--", or the only argument)
 * ask for -h or --help: the usage then prints without the EAL, which
 * would leave its runtime folder in /var/run/dpdk behind. */
static int
help_wanted(int argc, char **argv)
{
	int i = argc == 2 ? 0 : 1;

	while (i > 0 && i < argc && strcmp(argv[i], "--") != 0)
		i++;
	for (i++; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

static int
parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "idle-polls", required_argument, NULL, 'p' },
		{ "idle-us", required_argument, NULL, 'u' },
		{ "idle-yield-us", required_argument, NULL, 'y' },
		{ "mbuf-size", required_argument, NULL, 'm' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t idle_polls = 1, idle_us = 20, idle_yield_us = 2000;
	uint32_t room = 9216 + RTE_PKTMBUF_HEADROOM;
	const char *stats_file = NULL;
	struct rte_mempool *pool;
	struct rte_mbuf *pkts[VSW_BURST];
	uint64_t age, empty = 0, last_rx = 0, yield_tsc, next_report = 0;
	uint32_t told[VSW_PORTS_MAX] = { 0 };
	uint16_t nports, p;
	int rc, c, li = 0;

	if (help_wanted(argc, argv)) {
		usage(stdout);
		return 0;
	}
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "hc-vswitch: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= rc;
	argv += rc;
	while ((c = getopt_long(argc, argv, "h", lopts, &li)) != -1) {
		switch (c) {
		case 'p':
			if (parse_u32(optarg, 0, UINT32_MAX, &idle_polls) < 0)
				goto bad;
			break;
		case 'u':
			if (parse_u32(optarg, 0, 1000000, &idle_us) < 0)
				goto bad;
			break;
		case 'y':
			if (parse_u32(optarg, 0, 10000000, &idle_yield_us) < 0)
				goto bad;
			break;
		case 'm':
			if (parse_u32(optarg, 2048 + RTE_PKTMBUF_HEADROOM,
				      UINT16_MAX, &room) < 0)
				goto bad;
			break;
		case 's':
			stats_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	nports = rte_eth_dev_count_avail();
	if (nports == 0 || nports > VSW_PORTS_MAX) {
		fprintf(stderr, "hc-vswitch: %u ports; give 1..%d net_vhost "
			"vdevs\n", nports, VSW_PORTS_MAX);
		return 1;
	}
	/* Each port's RX ring full, a burst per TX buffer, and headroom for
	 * frames in flight. */
	pool = rte_pktmbuf_pool_create("vsw_pool",
				       nports * (VSW_DESC + 2 * VSW_BURST) + 1024,
				       256, 0, (uint16_t)room, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "hc-vswitch: mbuf pool: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	for (p = 0; p < nports; p++)
		if (port_setup(p, pool) < 0)
			return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("hc-vswitch: %u ports, switching\n", nports);
	fflush(stdout);
	age = VSW_FDB_AGE_S * rte_get_tsc_hz();
	yield_tsc = (uint64_t)idle_yield_us * rte_get_tsc_hz() / 1000000;
	while (!quit) {
		uint64_t now = rte_rdtsc();
		uint32_t got = 0;

		if (now >= next_report) {	/* every 100 ms */
			report_clashes(nports, told);
			next_report = now + rte_get_tsc_hz() / 10;
		}

		for (p = 0; p < nports; p++) {
			uint16_t n = rte_eth_rx_burst(p, 0, pkts, VSW_BURST), i;

			stats[p].rx_pkts += n;
			got += n;
			for (i = 0; i < n; i++)
				vsw_forward(p, nports, pkts[i], now, age);
		}
		for (p = 0; p < nports; p++)
			stats[p].tx_pkts += rte_eth_tx_buffer_flush(p, 0,
								    txb[p]);
		if (got != 0) {
			empty = 0;
			last_rx = now;
		} else if (idle_polls != 0 && ++empty > idle_polls) {
			if (now - last_rx < yield_tsc)
				sched_yield();
			else
				usleep(idle_us);
		}
	}
	report_clashes(nports, told);
	print_stats(stdout, nports);
	if (stats_file != NULL) {
		FILE *f = fopen(stats_file, "w");

		if (f != NULL) {
			print_stats(f, nports);
			fclose(f);
		}
	}
	for (p = 0; p < nports; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return 0;
bad:
	fprintf(stderr, "hc-vswitch: bad value for --%s: '%s'\n",
		lopts[li].name, optarg);
	usage(stderr);
	return 2;
}
