/* SPDX-License-Identifier: BSD-3-Clause */
/* The network layer's cluster-file keys ([net], cfgkey.h). */
#include <stddef.h>

#include <rte_common.h>

#include "clock.h"
#include "net.h"

#define F(field) offsetof(struct hc_net_conf, field)
static const struct hc_cfg_key keys[] = {
	/* 51966 is 0xCAFE. */
	{ "net", "udp_port", HC_CFG_U16, "", F(udp_port), .def = 51966,
	  .min = 1, .max = 65535, .noun = "a port number" },
	{ "net", "arp_timeout_ms", HC_CFG_U64, "ms", F(arp_timeout_ns),
	  .def = 60000, .min = 100, .max = 3600000, .mul = HC_NS_PER_MS },
	{ "net", "arp_retry_ms", HC_CFG_U64, "ms", F(arp_retry_ns),
	  .def = 100, .min = 1, .max = 10000, .mul = HC_NS_PER_MS },
};
#undef F

const struct hc_cfg_table hc_net_cfg_table = { keys, RTE_DIM(keys), NULL };
