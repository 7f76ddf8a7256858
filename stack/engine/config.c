/* SPDX-License-Identifier: BSD-3-Clause */
/* The cluster-file loader. It knows no key of its own beyond [job],
 * [engine] and [rank.N]: it walks the layers' key tables (base/cfgkey.h),
 * each filling the layer's struct inside struct hc_config, so a layer's
 * keys, ranges and defaults live next to the code that uses them. */
#include <arpa/inet.h>
#include <ctype.h>
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
#include "cfgkey.h"
#include "config.h"
#include "log.h"

static const char *const idle_names[] = {
	[HC_IDLE_BUSY] = "busy", [HC_IDLE_PAUSE] = "pause",
	[HC_IDLE_YIELD] = "yield", [HC_IDLE_SLEEP] = "sleep" };

_Static_assert(sizeof(enum hc_idle_mode) == sizeof(int),
	       "HC_CFG_ENUM fields are int-sized");

/* The engine's own keys: [job] and [engine], fields of struct hc_config. */
#define F(field) offsetof(struct hc_config, field)
static const struct hc_cfg_key engine_keys[] = {
	{ "job", "id", HC_CFG_U32, "", F(job_id), .min = 1, .max = UINT32_MAX,
	  .required = true },
	{ "job", "world_size", HC_CFG_U32, "ranks", F(world_size), .min = 1,
	  .max = HC_MAX_RANKS, .required = true },
	{ "job", "key_file", HC_CFG_STRING, "", F(key_file),
	  .size = sizeof(((struct hc_config *)0)->key_file) },
	{ "engine", "idle", HC_CFG_ENUM, "", F(idle), .def = HC_IDLE_SLEEP,
	  .names = idle_names, .n_names = RTE_DIM(idle_names),
	  .env = "HC_IDLE", .env_at_key = true },
	{ "engine", "idle_spin", HC_CFG_U32, "polls", F(idle_spin), .def = 64,
	  .min = 0, .max = 1u << 30, .env = "HC_IDLE_SPIN",
	  .env_at_key = true },
	{ "engine", "idle_yield_us", HC_CFG_U32, "us", F(idle_yield_us),
	  .def = 2000, .min = 0, .max = 10000000, .env = "HC_IDLE_YIELD_US",
	  .env_at_key = true },
	{ "engine", "idle_sleep_us", HC_CFG_U32, "us", F(idle_sleep_us),
	  .def = 50, .min = 1, .max = 1000000, .env = "HC_IDLE_SLEEP_US",
	  .env_at_key = true },
	{ "engine", "init_timeout_ms", HC_CFG_U32, "ms", F(init_timeout_ms),
	  .def = 10000, .min = 10, .max = 3600000 },
	{ "engine", "op_timeout_ms", HC_CFG_U32, "ms", F(op_timeout_ms),
	  .def = 60000, .min = 10, .max = 86400000 },
	{ "engine", "drain_timeout_ms", HC_CFG_U32, "ms", F(drain_timeout_ms),
	  .def = 1000, .min = 0, .max = 600000 },
};

static const struct hc_cfg_table engine_table = {
	engine_keys, RTE_DIM(engine_keys), NULL };

/* Every layer's keys, bottom up; each fills the layer's struct at off. */
static const struct hc_config_table tables[] = {
	{ &hc_port_cfg_table, F(port) },
	{ &hc_fault_cfg_table, F(fault) },
	{ &hc_net_cfg_table, F(net) },
	{ &hct_cfg_table, F(hct) },
	{ &hc_coll_cfg_table, F(coll) },
	{ &engine_table, 0 },
};
#undef F

const struct hc_config_table *
hc_config_tables(unsigned int *n)
{
	*n = RTE_DIM(tables);
	return tables;
}

static const char *const rank_keys[] = { "ip", "mac", "port", "group" };

/* Line of `key` inside a `[section]` of the file, or, when key is NULL,
 * of the nth `[section]` header (1: the first); 0 when not found. For
 * error messages: rte_cfgfile keeps no line numbers, so the file is
 * scanned again (it is small, and this runs only on errors). The second
 * header matters because rte_cfgfile keeps both sections and its look-ups
 * see only the first: a second [rank.1] would be ignored without a word. */
static int
find_line_nth(const char *path, const char *section, const char *key,
	      int nth)
{
	char line[1024], want[160];
	int lineno = 0, in_section = 0, seen = 0;
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
			if (in_section && key == NULL && ++seen == nth)
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

/* Line of `key` inside `[section]` (of the section header when key is
 * NULL); 0 when not found. */
static int
find_line(const char *path, const char *section, const char *key)
{
	return find_line_nth(path, section, key, 1);
}

/* Line of the second "[section]" header of the file, 0 when there is
 * none. */
static int
second_header_line(const char *path, const char *section)
{
	return find_line_nth(path, section, NULL, 2);
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

/* s without the blanks (isspace, as rte_cfgfile's) at either end; cuts
 * the trailing ones in place. */
static char *
strip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Characters of value v as rte_cfgfile stores it: it drops the backslash
 * of each "\;" (an escaped comment character). */
static size_t
value_len(const char *v)
{
	size_t n = strlen(v);

	for (; *v != '\0'; v++)
		n -= v[0] == '\\' && v[1] == ';';
	return n;
}

/* A key line's name and its line, for finding a key given twice. */
struct line_key {
	char name[CFG_NAME_LEN];
	int line;
};

/* Line of name among the n keys seen so far in the section, or 0. */
static int
seen_line(const struct line_key *keys, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return keys[i].line;
	return 0;
}

/*
 * Reads the file line by line as rte_cfgfile (DPDK 22.11) splits it, for
 * what rte_cfgfile takes without a word and the loader must refuse:
 * - a line neither blank, a comment, a [section] header nor key = value
 *   (skipped: "mtu 9000", "coll]"), and text after a header's ']'
 *   (ignored: "[net] mtu = 9000"). The comment character is ';' alone:
 *   from the first ';' on (unless "\;") a line is a comment. A line
 *   starting with '#' is skipped as a comment too, unless it holds an
 *   '=' (then it would be a key named "# ...");
 * - a key line before any section (refused, without its line);
 * - a name of CFG_NAME_LEN characters or more and a value of
 *   CFG_VALUE_LEN or more (cut to fit by strlcpy: "drop=25" would read
 *   "drop=2"; a value too long for rte_cfgfile's line buffer would fail
 *   the file with no word of which value);
 * - a key given twice in one section (both kept; rte_cfgfile_get_entry
 *   answers with the first).
 * What rte_cfgfile refuses itself with a line number (an empty value, a
 * header without ']', other lines too long) is left to it. Logs one line
 * per problem, "PATH:LINE: ...". Returns the number of problems.
 */
static int
check_lines(const char *path)
{
	char *buf = NULL, *p, *name, *val, sec[CFG_NAME_LEN] = "";
	struct line_key *keys = NULL, *more;
	unsigned int nkeys = 0, cap = 0;
	bool in_section = false;
	int lineno = 0, bad = 0, first;
	size_t bufsz = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0; /* rte_cfgfile_load reports it */
	while (getline(&buf, &bufsz, f) >= 0) {
		lineno++;
		p = strchr(buf, ';');
		if (p != NULL && (p == buf || p[-1] != '\\'))
			*p = '\0';
		p = strip(buf);
		if (*p == '\0' || (*p == '#' && strchr(p, '=') == NULL))
			continue;
		if (*p == '[') {
			val = strchr(p, ']');
			if (val == NULL)
				continue; /* rte_cfgfile refuses it */
			*val++ = '\0';
			name = strip(p + 1);
			val = strip(val);
			if (*val != '\0') {
				HC_LOG(ERR, CORE, "%s:%d: [%s]: '%s' after the "
				       "section header", path, lineno, name, val);
				bad++;
			}
			if (strlen(name) >= CFG_NAME_LEN) {
				HC_LOG(ERR, CORE, "%s:%d: [%s]: name of %zu "
				       "characters; at most %d", path, lineno,
				       name, strlen(name), CFG_NAME_LEN - 1);
				bad++;
			}
			snprintf(sec, sizeof(sec), "%s", name);
			in_section = true;
			nkeys = 0;
			continue;
		}
		val = strchr(p, '=');
		if (val == NULL) {
			HC_LOG(ERR, CORE, "%s:%d: '%s' is not a [section] header, "
			       "key = value or ; comment", path, lineno, p);
			bad++;
			continue;
		}
		if (*p == '#') {
			HC_LOG(ERR, CORE, "%s:%d: '%s': '#' starts no comment; "
			       "use ';'", path, lineno, p);
			bad++;
			continue;
		}
		if (!in_section) {
			HC_LOG(ERR, CORE, "%s:%d: '%s': a key before any "
			       "[section]", path, lineno, p);
			bad++;
			continue;
		}
		*val++ = '\0';
		name = strip(p);
		val = strip(val);
		if (strlen(name) >= CFG_NAME_LEN) {
			HC_LOG(ERR, CORE, "%s:%d: [%s] %s: name of %zu "
			       "characters; at most %d", path, lineno, sec, name,
			       strlen(name), CFG_NAME_LEN - 1);
			bad++;
			continue;
		}
		if (value_len(val) >= CFG_VALUE_LEN) {
			HC_LOG(ERR, CORE, "%s:%d: [%s] %s: value of %zu "
			       "characters; at most %d", path, lineno, sec, name,
			       value_len(val), CFG_VALUE_LEN - 1);
			bad++;
		}
		first = seen_line(keys, nkeys, name);
		if (first != 0) {
			HC_LOG(ERR, CORE, "%s:%d: [%s] %s: key given twice "
			       "(first at line %d)", path, lineno, sec, name,
			       first);
			bad++;
			continue;
		}
		if (nkeys == cap) {
			cap = cap != 0 ? 2 * cap : 16;
			more = realloc(keys, cap * sizeof(*keys));
			if (more == NULL) {
				HC_LOG(ERR, CORE, "%s:%d: out of memory checking "
				       "the keys", path, lineno);
				bad++;
				break;
			}
			keys = more;
		}
		strcpy(keys[nkeys].name, name);
		keys[nkeys++].line = lineno;
	}
	free(keys);
	free(buf);
	fclose(f);
	return bad;
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

/* The key section/name of some layer's table, or NULL. */
static const struct hc_cfg_key *
find_key(const char *section, const char *name)
{
	const struct hc_cfg_key *k = NULL;
	size_t i;

	for (i = 0; i < RTE_DIM(tables) && k == NULL; i++)
		k = hc_cfg_find(tables[i].table, section, name);
	return k;
}

/* A section is known when some layer has a key in it. */
static int
known_section(const char *section)
{
	size_t i;
	unsigned int j;

	for (i = 0; i < RTE_DIM(tables); i++)
		for (j = 0; j < tables[i].table->n; j++)
			if (strcmp(tables[i].table->keys[j].section,
				   section) == 0)
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
 * ("rank.01" or "rank.0x1" would be a second name for a rank); [local.X]
 * of a host file likewise a local rank below HC_MAX_RANKS. */
static int
check_rank_name(struct hc_config *cfg, const char *sec)
{
	const char *x = strchr(sec, '.') + 1;
	uint64_t r;

	if ((x[0] == '0' && x[1] != '\0') || hc_cfg_parse_u64(x, 0, UINT32_MAX, &r)) {
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
		int is_rank = strncmp(sec, cfg->host_file ? "local." : "rank.",
				      cfg->host_file ? 6 : 5) == 0;
		int nent = rte_cfgfile_section_num_entries(file, sec);
		struct rte_cfgfile_entry *ent;

		if (is_rank && check_rank_name(cfg, sec) != 0) {
			bad++;
			continue;
		}
		if (strncmp(sec, cfg->host_file ? "rank." : "local.",
			    cfg->host_file ? 5 : 6) == 0) {
			CFG_ERR(cfg, sec, NULL, "a cluster file has [rank.N] "
				"sections, a host file [local.N]; not both");
			bad++;
			continue;
		}
		for (e = 0; e < s; e++)
			if (strcmp(names[e], sec) == 0)
				break;
		if (e < s) {
			HC_LOG(ERR, CORE, "%s:%d: [%s]: section given twice "
			       "(first at line %d)%s", cfg->path,
			       second_header_line(cfg->path, sec), sec,
			       find_line(cfg->path, sec, NULL),
			       is_rank ? ": duplicate rank id" : "");
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
				ok = find_key(sec, ent[e].name) != NULL;
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

/* Every key of every table into its layer's struct: the environment
 * variable's value when it is set, else the file's, else the default
 * (already there). Returns the number of problems. */
static int
load_keys(struct hc_config *cfg, struct rte_cfgfile *file)
{
	char err[512], tag[64];
	unsigned int j;
	size_t i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(tables); i++) {
		const struct hc_cfg_table *t = tables[i].table;
		void *conf = (char *)cfg + tables[i].off;

		for (j = 0; j < t->n; j++) {
			const struct hc_cfg_key *k = &t->keys[j];
			const char *v = k->env != NULL ? getenv(k->env) : NULL;
			bool from_env = v != NULL;

			if (v == NULL)
				v = rte_cfgfile_get_entry(file, k->section,
							  k->name);
			if (v == NULL) {
				/* A host file's [job] comes from the
				 * rendezvous (bootstrap.h). */
				if (k->required && !cfg->host_file) {
					CFG_ERR(cfg, k->section, k->name,
						"missing");
					bad++;
				}
				continue;
			}
			tag[0] = '\0';
			if (from_env && k->env_at_key)
				snprintf(tag, sizeof(tag), " (from %s)", k->env);
			if (hc_cfg_parse(k, v, tag, conf, err, sizeof(err)) == 0)
				continue;
			/* A bad value from the environment is the variable's
			 * fault, unless the key reports it in place. */
			if (from_env && !k->env_at_key)
				HC_LOG(ERR, CORE, "%s: %s", k->env, err);
			else
				CFG_ERR(cfg, k->section, k->name, "%s", err);
			bad++;
		}
	}
	return bad;
}

/* The rules between keys of each layer (its table's check), once every
 * key parsed: the first broken one. */
static int
check_tables(struct hc_config *cfg)
{
	const struct hc_cfg_key *k;
	char err[256];
	size_t i;

	for (i = 0; i < RTE_DIM(tables); i++) {
		const struct hc_cfg_table *t = tables[i].table;

		if (t->check != NULL &&
		    t->check((char *)cfg + tables[i].off, &k, err,
			     sizeof(err)) != 0) {
			CFG_ERR(cfg, k->section, k->name, "%s", err);
			return 1;
		}
	}
	return 0;
}

static void
defaults(struct hc_config *cfg)
{
	size_t i;

	for (i = 0; i < RTE_DIM(tables); i++)
		hc_cfg_defaults(tables[i].table, (char *)cfg + tables[i].off);
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
		    hc_cfg_parse_u64(x, 0, cfg->world_size - 1, &n) != 0) {
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
		    hc_cfg_parse_u64(slash, 0, 32, &n) != 0) {
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

/* One [rank.N] (or a host file's [local.L]) section into rc; r is the
 * rank (the default group). Returns the number of problems. */
static int
load_rank_section(struct hc_config *cfg, struct rte_cfgfile *file,
		  const char *sec, uint32_t r, struct hc_rank_conf *rc)
{
	struct in_addr a;
	const char *v;
	uint64_t x;
	int bad = 0;

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
		if (hc_cfg_parse_u64(v, 0, HC_GROUP_MAX, &x) != 0) {
			CFG_ERR(cfg, sec, "group", "'%s' is not an "
				"integer in 0..%u", v, HC_GROUP_MAX);
			bad++;
		} else {
			rc->group = (uint32_t)x;
		}
	}
	bad += load_ports(cfg, file, sec, rc);
	bad += load_routes(cfg, file, sec, rc);
	return bad;
}

static int
load_ranks(struct hc_config *cfg, struct rte_cfgfile *file)
{
	uint32_t r, q;
	int bad = 0;
	char sec[32], ipbuf[16];

	cfg->ranks = calloc(cfg->world_size, sizeof(*cfg->ranks));
	if (cfg->ranks == NULL)
		return 1;
	for (r = 0; r < cfg->world_size; r++) {
		snprintf(sec, sizeof(sec), "rank.%u", r);
		if (!rte_cfgfile_has_section(file, sec)) {
			HC_LOG(ERR, CORE, "%s: section [%s] missing (world_size %u)",
			       cfg->path, sec, cfg->world_size);
			bad++;
			continue;
		}
		bad += load_rank_section(cfg, file, sec, r, &cfg->ranks[r]);
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

/* A host file: some section is [local.N]. */
static bool
has_local_sections(struct rte_cfgfile *file)
{
	int nsec = rte_cfgfile_num_sections(file, "local.", 6);

	return nsec > 0;
}

int
hc_config_host_rank(struct hc_config *cfg, uint32_t world_size,
		    uint32_t rank, uint32_t local_rank)
{
	struct rte_cfgfile *file;
	char sec[32];
	int bad;

	if (!cfg->host_file || world_size == 0 || world_size > HC_MAX_RANKS ||
	    rank >= world_size)
		return -HC_ERR_INVAL;
	cfg->world_size = world_size;
	free(cfg->ranks);
	cfg->ranks = calloc(world_size, sizeof(*cfg->ranks));
	if (cfg->ranks == NULL)
		return -HC_ERR_NOMEM;
	file = rte_cfgfile_load(cfg->path, 0);
	if (file == NULL) {
		HC_LOG(ERR, CORE, "%s: cannot read or parse the INI file",
		       cfg->path);
		return -HC_ERR_CONFIG;
	}
	snprintf(sec, sizeof(sec), "local.%u", local_rank);
	if (!rte_cfgfile_has_section(file, sec)) {
		HC_LOG(ERR, CORE, "%s: no section [%s] for local rank %u of "
		       "rank %u", cfg->path, sec, local_rank, rank);
		rte_cfgfile_close(file);
		return -HC_ERR_CONFIG;
	}
	bad = load_rank_section(cfg, file, sec, rank, &cfg->ranks[rank]);
	rte_cfgfile_close(file);
	return bad != 0 ? -HC_ERR_CONFIG : 0;
}

int
hc_config_host_check(const struct hc_config *cfg, uint32_t rank)
{
	const struct hc_rank_conf *me = &cfg->ranks[rank];
	struct hc_route rt;
	char ipbuf[16];
	uint32_t q;
	int bad = 0;

	if (me->nports == 1 && me->nroutes == 0)
		return 0;
	for (q = 0; q < cfg->world_size; q++) {
		if (q == rank || hc_config_route(cfg, rank, q, &rt) == 0)
			continue;
		HC_LOG(ERR, CORE, "%s: rank %u: no route reaches rank %u (%s): "
		       "add route.%u = portK or a prefix route", cfg->path,
		       rank, q, hc_ip_str(cfg->ranks[q].ip, ipbuf,
					  sizeof(ipbuf)), q);
		bad++;
	}
	return bad != 0 ? -HC_ERR_CONFIG : 0;
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
	if (check_lines(path) != 0)
		return -HC_ERR_CONFIG;
	file = rte_cfgfile_load(path, 0);
	if (file == NULL) {
		HC_LOG(ERR, CORE, "%s: cannot read or parse the INI file", path);
		return -HC_ERR_CONFIG;
	}
	cfg->host_file = has_local_sections(file);
	defaults(cfg);
	bad = load_keys(cfg, file);
	bad += check_names(cfg, file);
	if (bad == 0 && !cfg->host_file)
		bad += load_ranks(cfg, file);
	if (bad == 0)
		bad += check_tables(cfg);
	rte_cfgfile_close(file);
	if (bad != 0) {
		hc_config_free(cfg);
		return -HC_ERR_CONFIG;
	}
	return 0;
}

int
hc_addr_of_rank(uint32_t r, uint32_t *ip, struct rte_ether_addr *mac)
{
	uint32_t a;
	int i;

	if (r >= HC_ADDR_RANKS)
		return -HC_ERR_INVAL;
	/* 198.18.0.0/15: benchmarking addresses (RFC 2544). */
	a = 0xc6120000u | (r / 250) << 8 | (r % 250 + 1);
	*ip = a;
	mac->addr_bytes[0] = 0x02;
	mac->addr_bytes[1] = 0x00;
	for (i = 0; i < 4; i++)
		mac->addr_bytes[2 + i] = (uint8_t)(a >> (24 - 8 * i));
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
	defaults(cfg);
	cfg->job_id = 1;
	cfg->world_size = world_size;
	cfg->ranks = calloc(world_size, sizeof(*cfg->ranks));
	if (cfg->ranks == NULL)
		return -HC_ERR_NOMEM;
	for (i = 0; i < world_size; i++) {
		struct hc_rank_conf *rc = &cfg->ranks[i];

		hc_addr_of_rank(i, &rc->ip, &rc->mac);
		rc->has_mac = true;
		strcpy(rc->port, "sim");
		rc->nports = 1;
	}
	return 0;
}

int
hc_config_copy(struct hc_config *dst, const struct hc_config *src)
{
	*dst = *src;
	if (src->ranks == NULL)
		return 0; /* a host file before hc_config_host_rank */
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
