/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "cc.h"
#include "config.h"
#include "fault.h"
#include "log.h"
#include "tune.h"

/* Numeric keys: section, key, offset of the uint32_t field, default, range,
 * whether the file must give it. config/example.ini documents each with
 * its unit; keep the two together. */
struct num_key {
	const char *section;
	const char *key;
	size_t off;
	uint32_t def;
	uint32_t min;
	uint32_t max;
	int required;
};

#define F(field) offsetof(struct hc_config, field)
static const struct num_key num_keys[] = {
	{ "job", "id", F(job_id), 0, 1, UINT32_MAX, 1 },
	{ "job", "world_size", F(world_size), 0, 1, HC_MAX_RANKS, 1 },
	{ "net", "mtu", F(mtu), 1500, 576, 9000 },
	{ "net", "arp_timeout_ms", F(arp_timeout_ms), 60000, 100, 3600000 },
	{ "net", "arp_retry_ms", F(arp_retry_ms), 100, 1, 10000 },
	{ "transport", "window_pkts", F(window_pkts), 256, 1, 4096 },
	{ "transport", "rto_init_us", F(rto_init_us), 20000, 10, 10000000 },
	{ "transport", "rto_min_us", F(rto_min_us), 2000, 10, 10000000 },
	{ "transport", "rto_max_us", F(rto_max_us), 500000, 10, 60000000 },
	{ "transport", "retry_max", F(retry_max), 12, 1, 100 },
	{ "transport", "ack_every", F(ack_every), 16, 1, 1024 },
	{ "transport", "keepalive_ms", F(keepalive_ms), 100, 1, 600000 },
	{ "transport", "peer_timeout_ms", F(peer_timeout_ms), 3000, 0, 3600000 },
	{ "transport", "bulk_min_share_pct", F(bulk_min_share_pct), 5, 0, 50 },
	{ "transport", "critical_extra_pkts", F(critical_extra_pkts), 4, 0,
	  256 },
	{ "transport", "tx_ring_max_bytes", F(tx_ring_max_bytes), 16384, 0,
	  1u << 26 },
	{ "transport", "rx_credit_bdp_pct", F(rx_credit_bdp_pct), 150, 0,
	  10000 },
	{ "transport", "bdp_bytes", F(bdp_bytes), 100000, 1500, 1u << 30 },
	{ "transport", "swift_base_target_us", F(swift_base_target_us), 25, 1,
	  10000000 },
	{ "transport", "swift_hop_scale_ns", F(swift_hop_scale_ns), 1000, 0,
	  10000000 },
	{ "transport", "swift_hops", F(swift_hops), 1, 0, 64 },
	{ "transport", "swift_fs_range_us", F(swift_fs_range_us), 100, 0,
	  10000000 },
	{ "transport", "swift_endpoint_target_us", F(swift_endpoint_target_us),
	  100, 1, 10000000 },
	{ "transport", "pace_burst", F(pace_burst), 8, 0, 4096 },
	{ "transport", "reo_wnd_us", F(reo_wnd_us), 0, 0, 10000000 },
	{ "transport", "tlp_min_us", F(tlp_min_us), 5, 0, 10000000 },
	{ "transport", "tlp_ack_delay_us", F(tlp_ack_delay_us), 25, 0,
	  10000000 },
	{ "coll", "slice_bytes", F(slice_bytes), 262144, 1024, 1u << 30 },
	{ "coll", "unexpected_max", F(unexpected_max), 2048, 16, 1u << 20 },
	{ "engine", "idle_spin", F(idle_spin), 64, 0, 1u << 30 },
	{ "engine", "idle_yield_us", F(idle_yield_us), 2000, 0, 10000000 },
	{ "engine", "idle_sleep_us", F(idle_sleep_us), 50, 1, 1000000 },
	{ "engine", "init_timeout_ms", F(init_timeout_ms), 10000, 10, 3600000 },
	{ "engine", "op_timeout_ms", F(op_timeout_ms), 60000, 10, 86400000 },
	{ "engine", "drain_timeout_ms", F(drain_timeout_ms), 1000, 0, 600000 },
	{ "engine", "hello_interval_ms", F(hello_interval_ms), 20, 1, 10000 },
	{ "port", "link_wait_ms", F(link_wait_ms), 3000, 0, 600000 },
	{ "port", "pool_mbufs", F(pool_mbufs), 16383, 1023, 1u << 22 },
	{ "port", "rx_desc", F(rx_desc), 1024, 64, 16384 },
	{ "port", "tx_desc", F(tx_desc), 1024, 64, 16384 },
	{ "port", "burst", F(burst), 32, 1, 512 },
};

/* Fractional keys: the same, as doubles (min < value <= max when
 * min_open, else min <= value <= max). */
struct dbl_key {
	const char *section;
	const char *key;
	size_t off;
	double def;
	double min;
	double max;
	int min_open;
};

static const struct dbl_key dbl_keys[] = {
	{ "transport", "cwnd_init", F(cwnd_init), 16, 0, 4096, 1 },
	{ "transport", "cwnd_min", F(cwnd_min), 0.25, 0, 4096, 1 },
	{ "transport", "cc_ai", F(cc_ai), 1, 0, 4096, 0 },
	{ "transport", "cc_max_mdf", F(cc_max_mdf), 0.5, 0, 0.99, 0 },
	{ "transport", "swift_beta", F(swift_beta), 0.8, 0, 10, 0 },
	{ "transport", "swift_fs_min_cwnd", F(swift_fs_min_cwnd), 0.1, 0, 4096,
	  1 },
	{ "transport", "swift_fs_max_cwnd", F(swift_fs_max_cwnd), 100, 0, 4096,
	  1 },
	{ "transport", "dctcp_g", F(dctcp_g), 0.0625, 0, 1, 1 },
};
#undef F

/* Non-numeric keys of the known sections, for the unknown-key check. */
static const char *const other_keys[][2] = {
	{ "net", "udp_port" },
	{ "transport", "cc" },
	{ "engine", "idle" },
	{ "fault", "seed" },
	{ "fault", "drop_data_pct" },
	{ "fault", "drop_last_once" },
	{ "fault", "rules" },
	{ "coll", "algo" },
};

static const char *const rank_keys[] = { "ip", "mac", "port", "group" };

/* Line of `key` inside `[section]` of the file (or of the section header
 * when key is NULL), for error messages; 0 when not found. rte_cfgfile
 * keeps no line numbers, so the file is scanned again: it is small and
 * this runs only on errors. */
static int
find_line(const char *path, const char *section, const char *key)
{
	char line[1024], want[160];
	int lineno = 0, in_section = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	snprintf(want, sizeof(want), "[%s]", section);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line;
		size_t klen;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			in_section = strncmp(p, want, strlen(want)) == 0;
			if (in_section && key == NULL)
				goto found;
			continue;
		}
		if (!in_section || key == NULL)
			continue;
		klen = strlen(key);
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == ' ' || p[klen] == '\t' || p[klen] == '='))
			goto found;
	}
	lineno = 0;
found:
	fclose(f);
	return lineno;
}

/* Line of the key, else of its section (for a missing key). */
static int
cfg_line(const char *path, const char *section, const char *key)
{
	int line = key != NULL ? find_line(path, section, key) : 0;

	return line != 0 ? line : find_line(path, section, NULL);
}

#define CFG_ERR(cfg, sec, key, fmt, ...)                                     \
	HC_LOG(ERR, CORE, "%s:%d: [%s]%s%s: " fmt, (cfg)->path,              \
	       cfg_line((cfg)->path, (sec), (key)), (sec),                   \
	       (key) != NULL ? " " : "", (key) != NULL ? (key) : "",         \
	       ##__VA_ARGS__)

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	/* Decimal, or hexadecimal with 0x; never octal (010 is ten). */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = strtoull(s + 2, &end, 16);
	else
		v = strtoull(s, &end, 10);
	if (end == s + 2 && s[0] == '0')
		return -1;
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_mac(const char *s, struct rte_ether_addr *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6 || strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++)
		mac->addr_bytes[i] = (uint8_t)b[i];
	return 0;
}

const char *
hc_ip_str(uint32_t ip, char *buf, unsigned int len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		 (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

static int
known_key(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < RTE_DIM(num_keys); i++)
		if (strcmp(num_keys[i].section, section) == 0 &&
		    strcmp(num_keys[i].key, key) == 0)
			return 1;
	for (i = 0; i < RTE_DIM(dbl_keys); i++)
		if (strcmp(dbl_keys[i].section, section) == 0 &&
		    strcmp(dbl_keys[i].key, key) == 0)
			return 1;
	for (i = 0; i < RTE_DIM(other_keys); i++)
		if (strcmp(other_keys[i][0], section) == 0 &&
		    strcmp(other_keys[i][1], key) == 0)
			return 1;
	return 0;
}

static int
known_section(const char *section)
{
	static const char *const names[] = { "job", "net", "transport", "coll",
					     "engine", "port", "fault" };
	size_t i;

	for (i = 0; i < RTE_DIM(names); i++)
		if (strcmp(names[i], section) == 0)
			return 1;
	return 0;
}

/* Index K of a [rank.N] portK key (canonical decimal, below
 * HC_RANK_PORTS_MAX), or -1. */
static int
port_key(const char *key)
{
	const char *x = key + 4;
	char *end;
	long k;

	if (strncmp(key, "port", 4) != 0 || *x < '0' || *x > '9' ||
	    (x[0] == '0' && x[1] != '\0'))
		return -1;
	k = strtol(x, &end, 10);
	return *end == '\0' && k < HC_RANK_PORTS_MAX ? (int)k : -1;
}

/* [rank.X] must name a rank: X a canonical decimal below world_size
 * ("rank.01" or "rank.0x1" would be a second name for a rank). */
static int
check_rank_name(struct hc_config *cfg, const char *sec)
{
	const char *x = sec + 5;
	uint64_t r;

	if ((x[0] == '0' && x[1] != '\0') || parse_u64(x, 0, UINT32_MAX, &r)) {
		CFG_ERR(cfg, sec, NULL, "'%s' is not a rank number", x);
		return 1;
	}
	if (cfg->world_size != 0 && r >= cfg->world_size) {
		CFG_ERR(cfg, sec, NULL, "rank %" PRIu64 " >= world_size %u", r,
			cfg->world_size);
		return 1;
	}
	return 0;
}

/* Checks every section name and every key name; runs after [job]
 * world_size is read. Returns the number of problems. */
static int
check_names(struct hc_config *cfg, struct rte_cfgfile *file)
{
	int nsec = rte_cfgfile_num_sections(file, NULL, 0);
	int s, e, bad = 0;
	char (*names)[CFG_NAME_LEN];
	char *ptrs[nsec > 0 ? nsec : 1];

	if (nsec <= 0)
		return 0;
	names = calloc(nsec, sizeof(*names));
	if (names == NULL)
		return 1;
	for (s = 0; s < nsec; s++)
		ptrs[s] = names[s];
	rte_cfgfile_sections(file, ptrs, nsec);
	for (s = 0; s < nsec; s++) {
		const char *sec = names[s];
		int is_rank = strncmp(sec, "rank.", 5) == 0;
		int nent = rte_cfgfile_section_num_entries(file, sec);
		struct rte_cfgfile_entry *ent;

		if (is_rank && check_rank_name(cfg, sec) != 0) {
			bad++;
			continue;
		}
		if (!is_rank && !known_section(sec)) {
			CFG_ERR(cfg, sec, NULL, "unknown section");
			bad++;
			continue;
		}
		if (nent <= 0)
			continue;
		ent = calloc(nent, sizeof(*ent));
		if (ent == NULL) {
			bad++;
			continue;
		}
		rte_cfgfile_section_entries(file, sec, ent, nent);
		for (e = 0; e < nent; e++) {
			int ok = 0;
			size_t k;

			if (is_rank) {
				for (k = 0; k < RTE_DIM(rank_keys); k++)
					ok |= strcmp(rank_keys[k], ent[e].name) == 0;
				ok |= port_key(ent[e].name) >= 0 ||
				      strncmp(ent[e].name, "route.", 6) == 0;
			} else {
				ok = known_key(sec, ent[e].name);
			}
			if (!ok) {
				CFG_ERR(cfg, sec, ent[e].name, "unknown key");
				bad++;
			}
		}
		free(ent);
	}
	free(names);
	return bad;
}

static int
load_numbers(struct hc_config *cfg, struct rte_cfgfile *file)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(num_keys); i++) {
		const struct num_key *k = &num_keys[i];
		const char *v = rte_cfgfile_get_entry(file, k->section, k->key);
		uint32_t *field = (uint32_t *)((char *)cfg + k->off);
		uint64_t x;

		if (v == NULL) {
			if (k->required) {
				CFG_ERR(cfg, k->section, k->key, "missing");
				bad++;
			}
			*field = k->def;
			continue;
		}
		if (parse_u64(v, k->min, k->max, &x) != 0) {
			CFG_ERR(cfg, k->section, k->key,
				"'%s' is not an integer in %u..%u", v, k->min,
				k->max);
			bad++;
			continue;
		}
		*field = (uint32_t)x;
	}
	return bad;
}

/* Defaults of the non-numeric keys (config/example.ini). */
static void
other_defaults(struct hc_config *cfg)
{
	cfg->udp_port = 51966;
	cfg->idle = HC_IDLE_SLEEP;
	cfg->cc = HCT_CC_FIXED;
	cfg->algo = HC_ALGO_AUTO;
	cfg->fault_seed = 1;
	cfg->fault_drop_data = 0;
}

/* Numeric keys (integer and real) at their defaults. */
static void
num_defaults(struct hc_config *cfg)
{
	size_t i;

	for (i = 0; i < RTE_DIM(num_keys); i++)
		*(uint32_t *)((char *)cfg + num_keys[i].off) = num_keys[i].def;
	for (i = 0; i < RTE_DIM(dbl_keys); i++)
		*(double *)((char *)cfg + dbl_keys[i].off) = dbl_keys[i].def;
}

/* Reports a bad [fault] value: from the environment variable env when
 * it is set, else from the file's key. */
#define FAULT_ERR(cfg, env, key, fmt, ...)                                   \
	do {                                                                 \
		if (getenv(env) != NULL)                                     \
			HC_LOG(ERR, CORE, "%s: " fmt, env, ##__VA_ARGS__);   \
		else                                                         \
			CFG_ERR(cfg, "fault", key, fmt, ##__VA_ARGS__);      \
	} while (0)

/* [fault] rules and drop_last_once (env HC_FAULT, HC_FAULT_DROP_LAST_ONCE
 * win over the file). The rules are checked here, applied by the engine. */
static int
load_fault(struct hc_config *cfg, struct rte_cfgfile *file)
{
	struct hc_fault *f;
	const char *v;
	char err[256];
	int bad = 0;

	v = getenv("HC_FAULT_DROP_LAST_ONCE");
	if (v == NULL)
		v = rte_cfgfile_get_entry(file, "fault", "drop_last_once");
	if (v != NULL) {
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
			FAULT_ERR(cfg, "HC_FAULT_DROP_LAST_ONCE",
				  "drop_last_once", "'%s' is not 0 or 1", v);
			bad++;
		}
		cfg->fault_drop_last_once = strcmp(v, "1") == 0;
	}
	v = getenv("HC_FAULT");
	if (v == NULL)
		v = rte_cfgfile_get_entry(file, "fault", "rules");
	if (v == NULL)
		return bad;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return bad + 1;
	hc_fault_init(f, 0);
	if (hc_fault_parse(f, v, err, sizeof(err)) != 0) {
		FAULT_ERR(cfg, "HC_FAULT", "rules", "%s", err);
		bad++;
	} else {
		snprintf(cfg->fault_rules, sizeof(cfg->fault_rules), "%s", v);
	}
	free(f);
	return bad;
}

static int
load_doubles(struct hc_config *cfg, struct rte_cfgfile *file)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(dbl_keys); i++) {
		const struct dbl_key *k = &dbl_keys[i];
		const char *v = rte_cfgfile_get_entry(file, k->section, k->key);
		double *field = (double *)((char *)cfg + k->off);
		char *end;
		double x;

		*field = k->def;
		if (v == NULL)
			continue;
		errno = 0;
		x = strtod(v, &end);
		if (errno != 0 || end == v || *end != '\0' || !(x <= k->max) ||
		    (k->min_open ? !(x > k->min) : !(x >= k->min))) {
			CFG_ERR(cfg, k->section, k->key,
				"'%s' is not a number in %s%g..%g", v,
				k->min_open ? "(" : "", k->min, k->max);
			bad++;
			continue;
		}
		*field = x;
	}
	return bad;
}

/* Keywords of the enumerated keys, indexed by their enum value. */
static const char *const cc_names[] = {
	[HCT_CC_FIXED] = "fixed", [HCT_CC_SWIFT] = "swift",
	[HCT_CC_DCTCP] = "dctcp" };
static const char *const idle_names[] = {
	[HC_IDLE_BUSY] = "busy", [HC_IDLE_PAUSE] = "pause",
	[HC_IDLE_YIELD] = "yield", [HC_IDLE_SLEEP] = "sleep" };

/* An enumerated key: *out = the index of its keyword in names[n], or def
 * when absent. @return 1 (after logging "'v' is not a, b or c") when the
 * value is none of them, else 0. */
static int
load_choice(struct hc_config *cfg, struct rte_cfgfile *file,
	    const char *sec, const char *key, const char *const *names,
	    size_t n, uint32_t def, uint32_t *out)
{
	const char *v = rte_cfgfile_get_entry(file, sec, key);
	char list[128];
	size_t i, len = 0;

	*out = def;
	if (v == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	for (i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ",
					names[i]);
	CFG_ERR(cfg, sec, key, "'%s' is not %s", v, list);
	return 1;
}

static int
load_others(struct hc_config *cfg, struct rte_cfgfile *file)
{
	uint32_t x32;
	const char *v;
	uint64_t x;
	double d;
	char *end;
	int bad = 0;

	v = rte_cfgfile_get_entry(file, "net", "udp_port");
	if (v != NULL) {
		if (parse_u64(v, 1, 65535, &x) != 0) {
			CFG_ERR(cfg, "net", "udp_port",
				"'%s' is not a port number 1..65535", v);
			bad++;
		} else {
			cfg->udp_port = (uint16_t)x;
		}
	}

	bad += load_choice(cfg, file, "transport", "cc", cc_names,
			   RTE_DIM(cc_names), HCT_CC_FIXED, &cfg->cc);
	bad += load_choice(cfg, file, "engine", "idle", idle_names,
			   RTE_DIM(idle_names), HC_IDLE_SLEEP, &x32);
	cfg->idle = (enum hc_idle_mode)x32;

	v = getenv("HC_ALGO");
	if (v == NULL)
		v = rte_cfgfile_get_entry(file, "coll", "algo");
	if (v != NULL) {
		int a = hc_algo_id_parse(v);

		if (a < 0) {
			CFG_ERR(cfg, "coll", "algo", "'%s'%s is not ring, tree, "
				"hd, hier or auto", v, getenv("HC_ALGO") != NULL ?
				" (from HC_ALGO)" : "");
			bad++;
		} else {
			cfg->algo = a;
		}
	}

	v = getenv("HC_FAULT_SEED");
	if (v == NULL)
		v = rte_cfgfile_get_entry(file, "fault", "seed");
	if (v != NULL && parse_u64(v, 0, UINT64_MAX, &cfg->fault_seed) != 0) {
		CFG_ERR(cfg, "fault", "seed", "'%s' is not an integer", v);
		bad++;
	}

	v = getenv("HC_FAULT_DROP_DATA_PCT");
	if (v == NULL)
		v = rte_cfgfile_get_entry(file, "fault", "drop_data_pct");
	if (v != NULL) {
		errno = 0;
		d = strtod(v, &end);
		if (errno != 0 || end == v || *end != '\0' || !(d >= 0) ||
		    d > 100) {
			CFG_ERR(cfg, "fault", "drop_data_pct",
				"'%s' is not a percentage 0..100", v);
			bad++;
		} else {
			cfg->fault_drop_data = d / 100.0;
		}
	}
	return bad + load_fault(cfg, file);
}

/* [rank.N] port, or port0..portK without a gap. */
static int
load_ports(struct hc_config *cfg, struct rte_cfgfile *file, const char *sec,
	   struct hc_rank_conf *rc)
{
	const char *v = rte_cfgfile_get_entry(file, sec, "port");
	const char *key = "port";
	char name[16];
	uint32_t k;

	if (v != NULL && rte_cfgfile_has_entry(file, sec, "port0")) {
		CFG_ERR(cfg, sec, "port0", "both port and port0 given");
		return 1;
	}
	if (v == NULL) {
		v = rte_cfgfile_get_entry(file, sec, "port0");
		key = "port0";
	}
	if (v == NULL || *v == '\0' || strlen(v) >= sizeof(rc->port)) {
		CFG_ERR(cfg, sec, key, "missing or longer than %zu",
			sizeof(rc->port) - 1);
		return 1;
	}
	strcpy(rc->port, v);
	rc->nports = 1;
	for (k = 1; k < HC_RANK_PORTS_MAX; k++) {
		snprintf(name, sizeof(name), "port%u", k);
		v = rte_cfgfile_get_entry(file, sec, name);
		if (v == NULL)
			break;
		if (*v == '\0' || strlen(v) >= sizeof(rc->port)) {
			CFG_ERR(cfg, sec, name, "empty or longer than %zu",
				sizeof(rc->port) - 1);
			return 1;
		}
		strcpy(rc->more_ports[k - 1], v);
		rc->nports = k + 1;
	}
	for (k++; k < HC_RANK_PORTS_MAX; k++) {
		snprintf(name, sizeof(name), "port%u", k);
		if (rte_cfgfile_has_entry(file, sec, name)) {
			CFG_ERR(cfg, sec, name, "port%u is missing: ports are "
				"numbered from 0 without a gap", rc->nports);
			return 1;
		}
	}
	return 0;
}

/* One route: key route.<rank> | route.<a.b.c.d>/<len> | route.default,
 * value portK [via a.b.c.d]. */
static int
parse_route(struct hc_config *cfg, const char *sec, const char *key,
	    const char *val, const struct hc_rank_conf *rc,
	    struct hc_route_conf *rt)
{
	const char *x = key + 6;
	char buf[64], *slash, *tok, *save = NULL;
	struct in_addr a;
	uint64_t n;
	int k;

	rt->rank = -1;
	if (strcmp(x, "default") == 0) {
		rt->prefix = 0;
		rt->len = 0;
	} else if (strchr(x, '.') == NULL) {
		if ((x[0] == '0' && x[1] != '\0') ||
		    parse_u64(x, 0, cfg->world_size - 1, &n) != 0) {
			CFG_ERR(cfg, sec, key, "'%s' is not a rank below %u, "
				"a prefix a.b.c.d/len or default", x,
				cfg->world_size);
			return 1;
		}
		rt->rank = (int32_t)n;
	} else {
		snprintf(buf, sizeof(buf), "%s", x);
		slash = strchr(buf, '/');
		if (slash != NULL)
			*slash++ = '\0';
		if (slash == NULL || inet_pton(AF_INET, buf, &a) != 1 ||
		    parse_u64(slash, 0, 32, &n) != 0) {
			CFG_ERR(cfg, sec, key, "'%s' is not a prefix "
				"a.b.c.d/len (len 0..32)", x);
			return 1;
		}
		rt->len = (uint8_t)n;
		rt->prefix = ntohl(a.s_addr);
		if (n < 32 && (rt->prefix & (UINT32_MAX >> n)) != 0) {
			CFG_ERR(cfg, sec, key, "'%s' has host bits set", x);
			return 1;
		}
	}
	snprintf(buf, sizeof(buf), "%s", val);
	tok = strtok_r(buf, " \t", &save);
	k = tok != NULL ? port_key(tok) : -1;
	if (k < 0 || (uint32_t)k >= rc->nports) {
		CFG_ERR(cfg, sec, key, "'%s' does not start with a port "
			"port0..port%u of this rank", val, rc->nports - 1);
		return 1;
	}
	rt->port = (uint8_t)k;
	rt->via = 0;
	tok = strtok_r(NULL, " \t", &save);
	if (tok != NULL) {
		const char *gw = strtok_r(NULL, " \t", &save);

		if (strcmp(tok, "via") != 0 || gw == NULL ||
		    inet_pton(AF_INET, gw, &a) != 1 ||
		    strtok_r(NULL, " \t", &save) != NULL ||
		    a.s_addr == 0) {
			CFG_ERR(cfg, sec, key, "'%s' is not portK [via "
				"a.b.c.d]", val);
			return 1;
		}
		rt->via = ntohl(a.s_addr);
	}
	return 0;
}

static int
load_routes(struct hc_config *cfg, struct rte_cfgfile *file, const char *sec,
	    struct hc_rank_conf *rc)
{
	int nent = rte_cfgfile_section_num_entries(file, sec);
	struct rte_cfgfile_entry *ent;
	int e, bad = 0;

	rc->nroutes = 0;
	if (nent <= 0 || rc->nports == 0)
		return 0;
	ent = calloc(nent, sizeof(*ent));
	if (ent == NULL)
		return 1;
	rte_cfgfile_section_entries(file, sec, ent, nent);
	for (e = 0; e < nent; e++) {
		if (strncmp(ent[e].name, "route.", 6) != 0)
			continue;
		if (rc->nroutes == HC_RANK_ROUTES_MAX) {
			CFG_ERR(cfg, sec, ent[e].name, "more than %u routes",
				HC_RANK_ROUTES_MAX);
			bad++;
			break;
		}
		if (parse_route(cfg, sec, ent[e].name, ent[e].value, rc,
				&rc->routes[rc->nroutes]) != 0)
			bad++;
		else
			rc->nroutes++;
	}
	free(ent);
	return bad;
}

int
hc_config_route(const struct hc_config *cfg, uint32_t rank, uint32_t peer,
		struct hc_route *out)
{
	const struct hc_rank_conf *rc = &cfg->ranks[rank];
	uint32_t ip = cfg->ranks[peer].ip, i;
	const struct hc_route_conf *best = NULL;

	for (i = 0; i < rc->nroutes; i++) {
		const struct hc_route_conf *rt = &rc->routes[i];
		uint32_t mask = rt->len == 0 ? 0 : UINT32_MAX << (32 - rt->len);

		if (rt->rank == (int32_t)peer) {
			best = rt;
			break;
		}
		if (rt->rank < 0 && (ip & mask) == rt->prefix &&
		    (best == NULL || rt->len > best->len))
			best = rt;
	}
	if (best != NULL) {
		out->port = best->port;
		out->next_hop = best->via != 0 ? best->via : ip;
		return 0;
	}
	if (rc->nports == 1) {
		out->port = 0;
		out->next_hop = ip;
		return 0;
	}
	return -HC_ERR_CONFIG;
}

/* Every rank with routes or several ports reaches every peer. */
static int
check_routes(struct hc_config *cfg)
{
	struct hc_route rt;
	uint32_t r, q;
	int bad = 0;
	char sec[32], ipbuf[16];

	for (r = 0; r < cfg->world_size; r++) {
		if (cfg->ranks[r].nports == 1 && cfg->ranks[r].nroutes == 0)
			continue;
		for (q = 0; q < cfg->world_size; q++) {
			if (q == r || hc_config_route(cfg, r, q, &rt) == 0)
				continue;
			snprintf(sec, sizeof(sec), "rank.%u", r);
			CFG_ERR(cfg, sec, NULL, "no route reaches rank %u (%s): "
				"add route.%u = portK or a prefix route", q,
				hc_ip_str(cfg->ranks[q].ip, ipbuf, sizeof(ipbuf)),
				q);
			bad++;
		}
	}
	return bad;
}

static int
load_ranks(struct hc_config *cfg, struct rte_cfgfile *file)
{
	uint64_t x;
	uint32_t r, q;
	int bad = 0;
	char sec[32], ipbuf[16];

	cfg->ranks = calloc(cfg->world_size, sizeof(*cfg->ranks));
	if (cfg->ranks == NULL)
		return 1;
	for (r = 0; r < cfg->world_size; r++) {
		struct hc_rank_conf *rc = &cfg->ranks[r];
		struct in_addr a;
		const char *v;

		snprintf(sec, sizeof(sec), "rank.%u", r);
		if (!rte_cfgfile_has_section(file, sec)) {
			HC_LOG(ERR, CORE, "%s: section [%s] missing (world_size %u)",
			       cfg->path, sec, cfg->world_size);
			bad++;
			continue;
		}
		v = rte_cfgfile_get_entry(file, sec, "ip");
		if (v == NULL || inet_pton(AF_INET, v, &a) != 1) {
			CFG_ERR(cfg, sec, "ip", "'%s' is not an IPv4 address",
				v != NULL ? v : "(missing)");
			bad++;
		} else {
			rc->ip = ntohl(a.s_addr);
			if (rc->ip == 0 || (rc->ip >> 28) >= 14 ||
			    (rc->ip >> 24) == 127) {
				CFG_ERR(cfg, sec, "ip", "'%s' is not a unicast "
					"host address", v);
				bad++;
			}
		}
		v = rte_cfgfile_get_entry(file, sec, "mac");
		if (v != NULL) {
			if (parse_mac(v, &rc->mac) != 0) {
				CFG_ERR(cfg, sec, "mac", "'%s' is not a MAC "
					"address xx:xx:xx:xx:xx:xx", v);
				bad++;
			} else if (!rte_is_valid_assigned_ether_addr(&rc->mac)) {
				CFG_ERR(cfg, sec, "mac", "'%s' is zero, broadcast "
					"or multicast", v);
				bad++;
			} else {
				rc->has_mac = true;
			}
		}
		rc->group = r;
		v = rte_cfgfile_get_entry(file, sec, "group");
		if (v != NULL) {
			if (parse_u64(v, 0, HC_GROUP_MAX, &x) != 0) {
				CFG_ERR(cfg, sec, "group", "'%s' is not an "
					"integer in 0..%u", v, HC_GROUP_MAX);
				bad++;
			} else {
				rc->group = (uint32_t)x;
			}
		}
		bad += load_ports(cfg, file, sec, rc);
		bad += load_routes(cfg, file, sec, rc);
	}
	if (bad)
		return bad;
	bad = check_routes(cfg);
	if (bad)
		return bad;
	for (r = 0; r < cfg->world_size; r++)
		for (q = 0; q < r; q++) {
			snprintf(sec, sizeof(sec), "rank.%u", r);
			if (cfg->ranks[r].ip == cfg->ranks[q].ip) {
				CFG_ERR(cfg, sec, "ip", "%s is also rank %u's",
					hc_ip_str(cfg->ranks[r].ip, ipbuf,
						  sizeof(ipbuf)), q);
				bad++;
			}
			if (cfg->ranks[r].has_mac && cfg->ranks[q].has_mac &&
			    rte_is_same_ether_addr(&cfg->ranks[r].mac,
						   &cfg->ranks[q].mac)) {
				CFG_ERR(cfg, sec, "mac", "also rank %u's MAC", q);
				bad++;
			}
		}
	return bad;
}

int
hc_config_load(const char *path, struct hc_config *cfg)
{
	struct rte_cfgfile *file;
	int bad;

	memset(cfg, 0, sizeof(*cfg));
	if (path == NULL || strlen(path) >= sizeof(cfg->path)) {
		HC_LOG(ERR, CORE, "no cluster file: set HC_CONFIG or "
		       "hc_init_params.config_path");
		return -HC_ERR_CONFIG;
	}
	strcpy(cfg->path, path);
	file = rte_cfgfile_load(path, 0);
	if (file == NULL) {
		HC_LOG(ERR, CORE, "%s: cannot read or parse the INI file", path);
		return -HC_ERR_CONFIG;
	}
	other_defaults(cfg);
	bad = load_numbers(cfg, file);
	bad += load_doubles(cfg, file);
	bad += load_others(cfg, file);
	bad += check_names(cfg, file);
	if (bad == 0)
		bad += load_ranks(cfg, file);
	if (bad == 0 && cfg->rto_min_us > cfg->rto_max_us) {
		CFG_ERR(cfg, "transport", "rto_min_us", "%u > rto_max_us %u",
			cfg->rto_min_us, cfg->rto_max_us);
		bad++;
	}
	if (bad == 0 && cfg->cwnd_min > cfg->window_pkts) {
		CFG_ERR(cfg, "transport", "cwnd_min", "%g > window_pkts %u",
			cfg->cwnd_min, cfg->window_pkts);
		bad++;
	}
	if (bad == 0 && cfg->swift_fs_min_cwnd >= cfg->swift_fs_max_cwnd) {
		CFG_ERR(cfg, "transport", "swift_fs_min_cwnd",
			"%g >= swift_fs_max_cwnd %g", cfg->swift_fs_min_cwnd,
			cfg->swift_fs_max_cwnd);
		bad++;
	}
	rte_cfgfile_close(file);
	if (bad != 0) {
		hc_config_free(cfg);
		return -HC_ERR_CONFIG;
	}
	return 0;
}

int
hc_config_defaults(struct hc_config *cfg, uint32_t world_size)
{
	uint32_t i;

	if (cfg == NULL)
		return -HC_ERR_INVAL;
	memset(cfg, 0, sizeof(*cfg));
	if (world_size == 0 || world_size > HC_MAX_RANKS)
		return -HC_ERR_INVAL;
	strcpy(cfg->path, "(defaults)");
	num_defaults(cfg);
	other_defaults(cfg);
	cfg->job_id = 1;
	cfg->world_size = world_size;
	cfg->ranks = calloc(world_size, sizeof(*cfg->ranks));
	if (cfg->ranks == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < world_size; i++) {
		struct hc_rank_conf *rc = &cfg->ranks[i];

		/* 198.18.0.0/15: benchmarking addresses (RFC 2544). */
		rc->ip = 0xc6120000u | (i / 250) << 8 | (i % 250 + 1);
		rc->has_mac = true;
		rc->mac = (struct rte_ether_addr){ .addr_bytes = { 0x02, 0x00,
			0xc6, 0x12, (uint8_t)(i >> 8), (uint8_t)i } };
		strcpy(rc->port, "sim");
		rc->nports = 1;
	}
	return 0;
}

int
hc_config_copy(struct hc_config *dst, const struct hc_config *src)
{
	*dst = *src;
	dst->ranks = malloc(src->world_size * sizeof(*dst->ranks));
	if (dst->ranks == NULL)
		return -HC_ERR_NOMEM;
	memcpy(dst->ranks, src->ranks, src->world_size * sizeof(*dst->ranks));
	return 0;
}

void
hc_config_free(struct hc_config *cfg)
{
	free(cfg->ranks);
	cfg->ranks = NULL;
}
