/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The engine: one instance per process, owning the port, the layers above
 * it and the poll loop. Private to the library.
 *
 * Poll loop, one iteration (engine_poll in engine.c):
 *   RX burst -> stack/net -> HCT -> collectives (DATA placed in buffers)
 *   -> ACKs for what the burst brought -> timers (RTO, HELLO)
 *   -> cut queued messages into packets -> TX flush.
 * An iteration that found nothing to do counts toward the idle backoff.
 */
#ifndef HC_CORE_ENGINE_H
#define HC_CORE_ENGINE_H

#include "clock.h"
#include "coll.h"
#include "config.h"
#include "hct.h"
#include "net.h"
#include "port.h"

struct hc_ctx {
	struct hc_config cfg;
	uint32_t rank;
	struct hc_clock clk;
	struct hc_port port;
	struct hc_net net;
	struct hct hct;
	struct hc_coll coll;
	struct hc_comm world;
	uint32_t *peer_ip;   /**< world_size addresses, host order */
	uint32_t idle_polls; /**< consecutive polls without work */
	uint64_t idle_since_ns; /**< when the spin phase of this idle ended */
	int port_open;
	int net_up;
	int hct_up;
	int coll_up;
};

/** One iteration of the poll loop. @return units of work done. */
uint32_t hc_engine_poll(struct hc_ctx *ctx);

/** Back off after a poll that did `work` units, per [engine] idle. */
void hc_engine_idle(struct hc_ctx *ctx, uint32_t work);

#endif /* HC_CORE_ENGINE_H */
