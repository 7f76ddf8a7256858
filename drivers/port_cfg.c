/* SPDX-License-Identifier: BSD-3-Clause */
/* The port's cluster-file keys (cfgkey.h): [net] mtu and [port]. Units,
 * defaults and ranges as config/example.ini documents them. */
#include <stddef.h>
#include <stdio.h>

#include <rte_common.h>

#include "port.h"

#define F(field) offsetof(struct hc_port_conf, field)
static const struct hc_cfg_key keys[] = {
	/* 576: the least datagram every IPv4 host must accept (RFC 791). */
	{ "net", "mtu", HC_CFG_U32, "bytes", F(mtu), .def = 1500, .min = 576,
	  .max = HC_PORT_MTU_MAX },
	{ "port", "link_wait_ms", HC_CFG_U32, "ms", F(link_wait_ms),
	  .def = 3000, .min = 0, .max = 600000 },
	/* 0: auto (hc_port_pool_mbufs); else at least 1023 (check). */
	{ "port", "pool_mbufs", HC_CFG_U32, "mbufs", F(pool_mbufs),
	  .def = 0, .min = 0, .max = 1u << 22 },
	{ "port", "rx_desc", HC_CFG_U16, "descriptors", F(rx_desc),
	  .def = 1024, .min = 64, .max = 16384 },
	{ "port", "tx_desc", HC_CFG_U16, "descriptors", F(tx_desc),
	  .def = 1024, .min = 64, .max = 16384 },
	{ "port", "burst", HC_CFG_U16, "packets", F(burst), .def = 32,
	  .min = 1, .max = HC_PORT_TXQ },
};
#undef F

/* The rules between keys (config/example.ini states them). */
static int
check(const void *conf, const struct hc_cfg_key **key, char *err,
      size_t errlen)
{
	const struct hc_port_conf *c = conf;

	if (c->pool_mbufs != 0 && c->pool_mbufs < 1023) {
		*key = hc_cfg_find(&hc_port_cfg_table, "port", "pool_mbufs");
		snprintf(err, errlen, "%u: 0 (auto) or at least 1023",
			 c->pool_mbufs);
		return -1;
	}
	return 0;
}

const struct hc_cfg_table hc_port_cfg_table = { keys, RTE_DIM(keys), check };
