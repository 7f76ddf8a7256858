/* SPDX-License-Identifier: BSD-3-Clause */
/* Parsing one configuration key into its layer's struct (cfgkey.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgkey.h"

/* Value of c as a digit of base 10 or 16, or -1. */
static int
digit(char c, unsigned int base)
{
	int d = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

	return d >= 0 && (unsigned int)d < base ? d : -1;
}

int
hc_cfg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	int d;

	if (s == NULL)
		return -1;
	/* Decimal, or hexadecimal with 0x; never octal (010 is ten). Digits
	 * only, from the first character (after 0x) to the last: strtoull
	 * would skip blanks and take a sign or a second 0x ("0x-1" read as
	 * 2^64-1, "0x 64" and "0x0x64" as 100). */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		d = digit(*s, base);
		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		v = v * base + (uint64_t)d;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void *
field(const struct hc_cfg_key *k, void *conf)
{
	return (char *)conf + k->off;
}

/* Store integer x (in the file's unit) into k's field. */
static void
put_int(const struct hc_cfg_key *k, void *conf, uint64_t x)
{
	x *= k->mul != 0 ? k->mul : 1;
	switch (k->type) {
	case HC_CFG_U16:
		*(uint16_t *)field(k, conf) = (uint16_t)x;
		break;
	case HC_CFG_U32:
		*(uint32_t *)field(k, conf) = (uint32_t)x;
		break;
	case HC_CFG_U64:
		*(uint64_t *)field(k, conf) = x;
		break;
	case HC_CFG_BOOL:
		*(bool *)field(k, conf) = x != 0;
		break;
	case HC_CFG_ENUM:
		*(int *)field(k, conf) = (int)x;
		break;
	default:
		break;
	}
}

static void
put_double(const struct hc_cfg_key *k, void *conf, double x)
{
	*(double *)field(k, conf) = x / (k->div != 0 ? k->div : 1);
}

void
hc_cfg_defaults(const struct hc_cfg_table *t, void *conf)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		const struct hc_cfg_key *k = &t->keys[i];

		if (k->type == HC_CFG_DOUBLE)
			put_double(k, conf, k->ddef);
		else if (k->type == HC_CFG_STRING)
			memset(field(k, conf), 0, k->size);
		else
			put_int(k, conf, k->def);
	}
}

/* "a, b or c" from k's enum keywords. */
static void
list_names(const struct hc_cfg_key *k, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < k->n_names && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i == 0 ? "" : i + 1 == k->n_names ?
					 " or " : ", ", k->names[i]);
}

static int
parse_enum(const struct hc_cfg_key *k, const char *v, const char *tag,
	   void *conf, char *err, size_t errlen)
{
	char list[128];
	uint32_t i;
	int x = -1;

	if (k->parse != NULL) {
		x = k->parse(v);
	} else {
		for (i = 0; i < k->n_names && x < 0; i++)
			if (strcmp(v, k->names[i]) == 0)
				x = (int)i;
	}
	if (x >= 0) {
		put_int(k, conf, (uint64_t)x);
		return 0;
	}
	if (k->choices == NULL)
		list_names(k, list, sizeof(list));
	snprintf(err, errlen, "'%s'%s is not %s", v, tag,
		 k->choices != NULL ? k->choices : list);
	return -1;
}

int
hc_cfg_parse(const struct hc_cfg_key *k, const char *v, const char *tag,
	     void *conf, char *err, size_t errlen)
{
	uint64_t x;
	double d;
	char *end;

	switch (k->type) {
	case HC_CFG_U16:
	case HC_CFG_U32:
	case HC_CFG_U64:
		if (hc_cfg_parse_u64(v, k->min, k->max, &x) == 0) {
			put_int(k, conf, x);
			return 0;
		}
		if (k->min == 0 && k->max == UINT64_MAX)
			snprintf(err, errlen, "'%s'%s is not %s", v, tag,
				 k->noun != NULL ? k->noun : "an integer");
		else
			snprintf(err, errlen, "'%s'%s is not %s %" PRIu64
				 "..%" PRIu64, v, tag, k->noun != NULL ?
				 k->noun : "an integer in", k->min, k->max);
		return -1;
	case HC_CFG_DOUBLE:
		errno = 0;
		d = strtod(v, &end);
		if (errno == 0 && end != v && *end == '\0' && d <= k->dmax &&
		    (k->min_open ? d > k->dmin : d >= k->dmin)) {
			put_double(k, conf, d);
			return 0;
		}
		snprintf(err, errlen, "'%s'%s is not %s %s%g..%g", v, tag,
			 k->noun != NULL ? k->noun : "a number in",
			 k->min_open ? "(" : "", k->dmin, k->dmax);
		return -1;
	case HC_CFG_BOOL:
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
			put_int(k, conf, v[0] == '1');
			return 0;
		}
		snprintf(err, errlen, "'%s'%s is not 0 or 1", v, tag);
		return -1;
	case HC_CFG_ENUM:
		return parse_enum(k, v, tag, conf, err, errlen);
	case HC_CFG_STRING:
		if (k->check != NULL && k->check(v, err, errlen) != 0)
			return -1;
		snprintf(field(k, conf), k->size, "%s", v);
		return 0;
	}
	snprintf(err, errlen, "key of unknown type %d", (int)k->type);
	return -1;
}

const struct hc_cfg_key *
hc_cfg_find(const struct hc_cfg_table *t, const char *section,
	    const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->keys[i].section, section) == 0 &&
		    strcmp(t->keys[i].name, name) == 0)
			return &t->keys[i];
	return NULL;
}
