/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives' cluster-file keys ([coll], cfgkey.h). */
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "coll.h"

_Static_assert(sizeof(enum hc_algo_id) == sizeof(int),
	       "HC_CFG_ENUM fields are int-sized");

_Static_assert(sizeof(enum hc_precision) == sizeof(int),
	       "HC_CFG_ENUM fields are int-sized");

int
hc_precision_parse(const char *v)
{
	if (strcmp(v, "fp32") == 0)
		return HC_PRECISION_FP32;
	if (strcmp(v, "native") == 0)
		return HC_PRECISION_NATIVE;
	return -1;
}

#define F(field) offsetof(struct hc_coll_conf, field)
static const struct hc_cfg_key keys[] = {
	{ "coll", "slice_bytes", HC_CFG_U64, "bytes", F(slice_bytes),
	  .def = 262144, .min = 1024, .max = 1u << 30 },
	{ "coll", "unexpected_max", HC_CFG_U32, "packets", F(unexpected_max),
	  .def = 2048, .min = 16, .max = 1u << 20 },
	/* The keywords are tune.c's (hc_algo_id_parse); the list names the
	 * measured choices first. */
	{ "coll", "algo", HC_CFG_ENUM, "", F(algo), .def = HC_ALGO_AUTO,
	  .parse = hc_algo_id_parse, .choices = "ring, tree, hd, hier, rd or auto",
	  .env = "HC_ALGO", .env_at_key = true },
	/* fp32 by default: the one-rounding contract of reduce.h (C10,
	 * C11); native halves the reduce-scatter bytes of fp16/bf16. */
	{ "coll", "precision", HC_CFG_ENUM, "", F(precision),
	  .def = HC_PRECISION_FP32, .parse = hc_precision_parse,
	  .choices = "fp32 or native", .env = "HC_PRECISION",
	  .env_at_key = true },
};
#undef F

const struct hc_cfg_table hc_coll_cfg_table = { keys, RTE_DIM(keys), NULL };
