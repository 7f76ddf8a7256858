/* SPDX-License-Identifier: BSD-3-Clause */
/* The live two-rank stack of the stack harnesses (fuzz_sim.h). */
#define _GNU_SOURCE /* nftw() in test_eal.h */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_ip.h>
#include <rte_log.h>
#include <rte_udp.h>

#include "hypercomm.h"
#include "engine.h"
#include "hct_internal.h"
#include "simrun.h"
#include "test_eal.h"

#include "fuzz_sim.h"

static struct hc_simrun *run;
static struct hc_request *req[2];
static float in[2][FS_COUNT], out[2][FS_COUNT];
static unsigned int inputs;      /* since the run was built */
static const char *capture_dir;  /* HC_FUZZ_CAPTURE */
static unsigned int captured;
static struct hc_port_ops cap_ops;
static const struct hc_port_ops *orig_ops;

/* Capture: every frame rank 0's port receives goes to capture_dir as
 * one seed of each harness's format (a flag byte, then the frame for
 * fuzz_frame; a flag byte, then the UDP payload for fuzz_hct; see their
 * head comments). */
static void
capture_one(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	char path[512];
	uint8_t flag = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/frame/cap-%04u", capture_dir,
		 captured);
	if ((f = fopen(path, "w")) != NULL) {
		fwrite(&flag, 1, 1, f);
		fwrite(b, 1, len, f);
		fclose(f);
	}
	/* UDP to us: the HCT packet alone. */
	if (len >= 42 && b[12] == 0x08 && b[13] == 0x00 && b[23] == 17) {
		snprintf(path, sizeof(path), "%s/hct/cap-%04u", capture_dir,
			 captured);
		if ((f = fopen(path, "w")) != NULL) {
			fwrite(&flag, 1, 1, f);
			fwrite(b + 42, 1, len - 42, f);
			fclose(f);
		}
	}
	captured++;
}

static uint16_t
cap_rx_burst(struct hc_port *port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = orig_ops->rx_burst(port, pkts, n), i;

	for (i = 0; i < got && captured < 400; i++)
		capture_one(pkts[i]);
	return got;
}

/* Rank 0 received part of the message and has a hole above rcv_nxt. */
static int
mid_message_after_loss(void *arg)
{
	struct hc_ctx *c0 = run->ctx[0];
	struct hct_flow *f = hct_flow(&c0->hct, 1);
	uint32_t k;

	RTE_SET_USED(arg);
	if (f == NULL || f->stats.data_rx < 16)
		return 0;
	for (k = 1; k < 64; k++)
		if (hct_rx_bit(&c0->hct, f, f->rcv_nxt + k))
			return 1;
	return 0;
}

static void
build(void)
{
	struct hc_simrun_conf rc = {
		.net = { .topo = HC_SIM_TOPO_STAR, .hosts = 2,
			 .host_link = { .rate_gbps = 10.0, .prop_ns = 1000,
					.queue_bytes = 1 << 20 } },
		.seed = 1,
		.no_tune = 1,
	};
	struct hc_config cfg;
	char err[256];
	int rc_, r;

	if (hc_config_defaults(&cfg, 2) != 0) {
		fprintf(stderr, "fuzz: hc_config_defaults failed\n");
		exit(1);
	}
	rc.cfg = &cfg;
	rc_ = hc_simrun_create(&rc, &run);
	hc_config_free(&cfg);
	if (rc_ != 0) {
		fprintf(stderr, "fuzz: hc_simrun_create: %s\n",
			hc_strerror(rc_));
		exit(1);
	}
	snprintf(err, sizeof(err), "dir=tx,class=data,drop=%d", FS_DROP_PCT);
	if (hc_fault_parse(&run->ctx[1]->port.fault, err, err,
			   sizeof(err)) != 0) {
		fprintf(stderr, "fuzz: fault rules: %s\n", err);
		exit(1);
	}
	if (capture_dir != NULL && orig_ops == NULL) {
		orig_ops = run->ctx[0]->port.ops;
		cap_ops = *orig_ops;
		cap_ops.rx_burst = cap_rx_burst;
		run->ctx[0]->port.ops = &cap_ops;
		/* ARP: a request from rank 1 for rank 0 (and the reply
		 * rank 0 sends back, seen by rank 1 only). */
		hc_net_arp_request(&run->ctx[1]->net, run->ctx[0]->net.ip);
	}
	for (r = 0; r < 2; r++) {
		uint32_t i;

		for (i = 0; i < FS_COUNT; i++)
			in[r][i] = (float)(r + 1) * (float)(i % 97);
		if (hc_iallreduce(hc_comm_world(run->ctx[r]), in[r], out[r],
				  FS_COUNT, HC_DTYPE_FLOAT32, HC_OP_SUM, NULL,
				  &req[r]) != 0) {
			fprintf(stderr, "fuzz: hc_iallreduce failed\n");
			exit(1);
		}
	}
	rc_ = hc_simrun_until(run, mid_message_after_loss, NULL,
			      HC_NS_PER_S);
	if (rc_ != 0) {
		fprintf(stderr, "fuzz: no loss mid-message: %s\n",
			hc_strerror(rc_));
		exit(1);
	}
	if (capture_dir != NULL) {
		/* The rest of the message, with its retransmissions. */
		unsigned int s;

		for (s = 0; s < 20000 && captured < 400; s++)
			hc_simrun_step(run);
		run->ctx[0]->port.ops = orig_ops;
		printf("fuzz: captured %u frames into %s\n", captured,
		       capture_dir);
		exit(0);
	}
	inputs = 0;
}

/* Tear the run down. The requests still pending complete with
 * HC_ERR_ABORTED in hc_finalize; hc_test then frees them (hypercomm.h). */
static void
teardown(void)
{
	int r, done;

	hc_simrun_destroy(run);
	run = NULL;
	for (r = 0; r < 2; r++) {
		if (req[r] != NULL) {
			done = 0;
			if (hc_test(req[r], &done) != -HC_ERR_ABORTED || !done)
				abort();
		}
		req[r] = NULL;
	}
}

void
fs_init(const char *prog)
{
	char sub[512];

	if (test_eal_init(prog, "512", "hc-fuzz") != 0)
		exit(1);
	rte_log_set_level_pattern("hc.*", RTE_LOG_EMERG);
	atexit(test_eal_fini);
	capture_dir = getenv("HC_FUZZ_CAPTURE");
	if (capture_dir != NULL) {
		snprintf(sub, sizeof(sub), "%s/frame", capture_dir);
		mkdir(sub, 0755);
		snprintf(sub, sizeof(sub), "%s/hct", capture_dir);
		mkdir(sub, 0755);
	}
	build();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fs_init((*argv)[0]);
	return 0;
}

struct hc_simrun *
fs_run(void)
{
	return run;
}

struct rte_mbuf *
fs_frame_mbuf(const uint8_t *frame, size_t len)
{
	struct rte_mbuf *m;
	char *p;

	m = rte_pktmbuf_alloc(run->ctx[0]->port.pool);
	if (m == NULL)
		return NULL;
	if (len > rte_pktmbuf_tailroom(m) ||
	    (p = rte_pktmbuf_append(m, (uint16_t)len)) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, frame, len);
	return m;
}

void
fs_deliver(struct rte_mbuf *m)
{
	unsigned int s;
	int r, done;

	hc_net_input(&run->ctx[0]->net, m);
	for (s = 0; s < FS_STEPS_PER_INPUT; s++)
		hc_simrun_step(run);
	done = 0;
	for (r = 0; r < 2; r++)
		if (req[r] != NULL) {
			int d = 0;

			hc_test(req[r], &d);
			if (d)
				req[r] = NULL;
			done |= d;
		}
	if (done || ++inputs >= FS_INPUTS_PER_RUN) {
		teardown();
		build();
	}
}

size_t
fs_udp_frame(uint8_t *buf, const uint8_t *payload, size_t len)
{
	struct hc_ctx *c0 = run->ctx[0], *c1 = run->ctx[1];
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	rte_ether_addr_copy(&c0->port.mac, &eth->dst_addr);
	rte_ether_addr_copy(&c1->port.mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) +
						       sizeof(*udp) + len));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(c1->net.ip);
	ip->dst_addr = rte_cpu_to_be_32(c0->net.ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(c1->net.udp_port);
	udp->dst_port = rte_cpu_to_be_16(c0->net.udp_port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, payload, len);
	return sizeof(*eth) + sizeof(*ip) + sizeof(*udp) + len;
}
