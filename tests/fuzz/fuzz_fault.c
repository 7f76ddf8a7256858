/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the fault-rule parser (hc_fault_parse, drivers/fault.c;
 * the [fault] rules key and HC_FAULT). Input: the rule string (cut at a
 * NUL). Asserted, as drivers/fault.h promises: on error the injector is
 * unchanged and err holds a message; on success every (direction, class)
 * has probabilities in 0..1, reorder_window 1..HC_FAULT_HOLD, delay at
 * most 10 s, hold_max 1 us..10 s and start unset or at most a day; and
 * parsing the same string twice gives the same injector.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hypercomm.h"
#include "fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL

static void
check_rules(const struct hc_fault *f)
{
	unsigned int d, c, k;

	for (d = 0; d < HC_FAULT_DIR__MAX; d++)
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++) {
			const struct hc_fault_rule *r = &f->rule[d][c];

			for (k = 0; k < HC_FAULT_KIND__MAX; k++)
				if (!(r->p[k] >= 0.0 && r->p[k] <= 1.0))
					abort();
			if (r->reorder_window < 1 ||
			    r->reorder_window > HC_FAULT_HOLD ||
			    r->delay_ns > 10000000 * NS_PER_US ||
			    r->hold_max_ns < NS_PER_US ||
			    r->hold_max_ns > 10000000 * NS_PER_US ||
			    r->start_ns < -1 ||
			    r->start_ns > (int64_t)(86400000 * NS_PER_MS))
				abort();
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hc_fault f, before, again;
	static char s[4 * HC_FAULT_RULES_MAX];
	char err[256];
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;
	int rc;

	memcpy(s, data, n);
	s[n] = '\0';
	hc_fault_init(&f, 1);
	memcpy(&before, &f, sizeof(f));
	err[0] = '\0';
	rc = hc_fault_parse(&f, s, err, sizeof(err));
	if (rc != 0) {
		if (rc != -HC_ERR_CONFIG || err[0] == '\0' ||
		    memchr(err, '\0', sizeof(err)) == NULL ||
		    memcmp(&f, &before, sizeof(f)) != 0)
			abort();
		return 0;
	}
	check_rules(&f);
	hc_fault_init(&again, 1);
	if (hc_fault_parse(&again, s, err, sizeof(err)) != 0 ||
	    memcmp(&f, &again, sizeof(f)) != 0)
		abort();
	return 0;
}
