/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault injector's cluster-file keys ([fault], cfgkey.h) and its set-up
 * from them. The environment variables win over the file: they switch
 * faults on for one test run without editing the cluster file. */
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "hypercomm.h"
#include "fault.h"

/* A rule string is valid when it parses into a fresh injector. */
static int
check_rules(const char *v, char *err, size_t errlen)
{
	struct hc_fault *f = malloc(sizeof(*f));
	int rc;

	if (f == NULL) {
		snprintf(err, errlen, "out of memory checking the rules");
		return -1;
	}
	hc_fault_init(f, 0);
	rc = hc_fault_parse(f, v, err, errlen);
	free(f);
	return rc != 0 ? -1 : 0;
}

#define F(field) offsetof(struct hc_fault_conf, field)
static const struct hc_cfg_key keys[] = {
	{ "fault", "seed", HC_CFG_U64, "", F(seed), .def = 1, .min = 0,
	  .max = UINT64_MAX, .env = "HC_FAULT_SEED", .env_at_key = true },
	{ "fault", "drop_data_pct", HC_CFG_DOUBLE, "%", F(drop_data),
	  .ddef = 0, .dmin = 0, .dmax = 100, .div = 100,
	  .noun = "a percentage", .env = "HC_FAULT_DROP_DATA_PCT",
	  .env_at_key = true },
	{ "fault", "drop_last_once", HC_CFG_BOOL, "", F(drop_last_once),
	  .def = 0, .env = "HC_FAULT_DROP_LAST_ONCE" },
	{ "fault", "rules", HC_CFG_STRING, "", F(rules),
	  .size = HC_FAULT_RULES_MAX, .check = check_rules,
	  .env = "HC_FAULT" },
};
#undef F

const struct hc_cfg_table hc_fault_cfg_table = { keys, RTE_DIM(keys), NULL };

int
hc_fault_configure(struct hc_fault *f, const struct hc_fault_conf *conf,
		   uint64_t seed_add, char *err, size_t errlen)
{
	hc_fault_init(f, conf->seed + seed_add);
	f->drop_last_once = conf->drop_last_once;
	hc_fault_set(f, HC_FAULT_TX, HC_FAULT_CLASS_DATA, HC_FAULT_DROP,
		     conf->drop_data);
	if (conf->rules[0] != '\0' &&
	    hc_fault_parse(f, conf->rules, err, errlen) != 0)
		return -HC_ERR_CONFIG;
	return 0;
}
