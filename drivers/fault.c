/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_kvargs.h>
#include <rte_udp.h>

#include "fault.h"

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL

static void
rule_defaults(struct hc_fault_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->reorder_window = 8;
	r->delay_ns = 1000 * NS_PER_US;
	r->hold_max_ns = 10000 * NS_PER_US;
	r->start_ns = -1;
}

void
hc_fault_init(struct hc_fault *f, uint64_t seed)
{
	unsigned int d, c;

	memset(f, 0, sizeof(*f));
	for (d = 0; d < HC_FAULT_DIR__MAX; d++)
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++)
			rule_defaults(&f->rule[d][c]);
	f->epoch_ns = UINT64_MAX;
	/* splitmix64 step so that small seeds (0, 1, 2) give unrelated
	 * streams and the state is never 0. */
	seed += 0x9e3779b97f4a7c15ULL;
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ULL;
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebULL;
	seed ^= seed >> 31;
	f->state = seed != 0 ? seed : 1;
}

double
hc_fault_uniform(struct hc_fault *f)
{
	uint64_t x = f->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->state = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0. */
static uint32_t
uniform_below(struct hc_fault *f, uint32_t n)
{
	uint32_t v = (uint32_t)(hc_fault_uniform(f) * n);

	return v < n ? v : n - 1;
}

static void
update_active(struct hc_fault *f)
{
	unsigned int d, c, k;

	for (d = 0; d < HC_FAULT_DIR__MAX; d++) {
		f->active[d] = d == HC_FAULT_TX && f->drop_last_once;
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++)
			for (k = 0; k < HC_FAULT_KIND__MAX; k++)
				f->active[d] |= f->rule[d][c].p[k] > 0;
	}
}

void
hc_fault_set(struct hc_fault *f, enum hc_fault_dir dir,
	     enum hc_fault_class cls, enum hc_fault_kind k, double p)
{
	f->rule[dir][cls].p[k] = p;
	update_active(f);
}

bool
hc_fault_alters_bytes(const struct hc_fault *f, enum hc_fault_dir dir)
{
	unsigned int c;

	if (!f->active[dir])
		return false;
	for (c = 0; c < HC_FAULT_CLASS__MAX; c++)
		if (f->rule[dir][c].p[HC_FAULT_CORRUPT] > 0 ||
		    f->rule[dir][c].p[HC_FAULT_TRUNCATE] > 0)
			return true;
	return false;
}

void
hc_fault_set_epoch(struct hc_fault *f, uint64_t now_ns)
{
	f->epoch_ns = now_ns;
}

/* ------------------------------------------------------------ parsing */

/* Keys of a rule that set a probability, in enum hc_fault_kind order. */
static const char *const kind_keys[] = {
	[HC_FAULT_DROP] = "drop", [HC_FAULT_DUP] = "dup",
	[HC_FAULT_REORDER] = "reorder", [HC_FAULT_DELAY] = "delay",
	[HC_FAULT_CORRUPT] = "corrupt", [HC_FAULT_TRUNCATE] = "truncate",
};

static const char *const class_names[] = {
	[HC_FAULT_CLASS_OTHER] = "other", [HC_FAULT_CLASS_DATA] = "data",
	[HC_FAULT_CLASS_ACK] = "ack", [HC_FAULT_CLASS_CONTROL] = "control",
};

/* Integer keys: name, range, scale to the stored unit. */
static const struct {
	const char *key;
	uint64_t min, max, scale;
} int_keys[] = {
	{ "reorder_window", 1, HC_FAULT_HOLD, 1 },
	{ "delay_us", 0, 10000000, NS_PER_US },
	{ "hold_max_us", 1, 10000000, NS_PER_US },
	{ "start_ms", 0, 86400000, NS_PER_MS },
};

static int
parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_pct(const char *s, double *out)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !(v >= 0) || v > 100)
		return -1;
	*out = v / 100.0;
	return 0;
}

/* One rule (no '|'): applied to the rules of tmp. */
static int
parse_rule(struct hc_fault *tmp, char *text, unsigned int no, char *err,
	   size_t errlen)
{
	struct hc_fault_rule set;
	bool given[HC_FAULT_KIND__MAX] = { false };
	bool given_int[RTE_DIM(int_keys)] = { false };
	bool dirs[HC_FAULT_DIR__MAX] = { true, true };
	bool classes[HC_FAULT_CLASS__MAX] = { true, true, true, true };
	struct rte_kvargs *kv = rte_kvargs_parse(text, NULL);
	unsigned int i, k, d, c;
	int rc = -HC_ERR_CONFIG;

	if (kv == NULL) {
		snprintf(err, errlen, "rule %u: '%s' is not key=value[,...]",
			 no, text);
		return rc;
	}
	rule_defaults(&set);
	for (i = 0; i < kv->count; i++) {
		const char *key = kv->pairs[i].key, *v = kv->pairs[i].value;
		uint64_t x;

		if (v == NULL || *v == '\0') {
			snprintf(err, errlen, "rule %u: '%s' has no value", no,
				 key);
			goto out;
		}
		if (strcmp(key, "dir") == 0) {
			bool tx = strcmp(v, "tx") == 0, rx = strcmp(v, "rx") == 0;

			if (!tx && !rx && strcmp(v, "both") != 0) {
				snprintf(err, errlen, "rule %u: dir='%s': not "
					 "tx, rx or both", no, v);
				goto out;
			}
			dirs[HC_FAULT_TX] = !rx;
			dirs[HC_FAULT_RX] = !tx;
			continue;
		}
		if (strcmp(key, "class") == 0) {
			bool all = strcmp(v, "all") == 0, hit = all;

			for (c = 0; c < HC_FAULT_CLASS__MAX; c++) {
				classes[c] = all || strcmp(v, class_names[c]) == 0;
				hit |= classes[c];
			}
			if (!hit) {
				snprintf(err, errlen, "rule %u: class='%s': not "
					 "data, ack, control, other or all",
					 no, v);
				goto out;
			}
			continue;
		}
		for (k = 0; k < RTE_DIM(kind_keys); k++)
			if (strcmp(key, kind_keys[k]) == 0)
				break;
		if (k < RTE_DIM(kind_keys)) {
			if (parse_pct(v, &set.p[k]) != 0) {
				snprintf(err, errlen, "rule %u: %s='%s': not a "
					 "percent 0..100", no, key, v);
				goto out;
			}
			given[k] = true;
			continue;
		}
		for (k = 0; k < RTE_DIM(int_keys); k++)
			if (strcmp(key, int_keys[k].key) == 0)
				break;
		if (k == RTE_DIM(int_keys)) {
			snprintf(err, errlen, "rule %u: unknown key '%s'", no,
				 key);
			goto out;
		}
		if (parse_uint(v, int_keys[k].min, int_keys[k].max, &x) != 0) {
			snprintf(err, errlen, "rule %u: %s='%s': not an integer "
				 "%" PRIu64 "..%" PRIu64, no, key, v,
				 int_keys[k].min, int_keys[k].max);
			goto out;
		}
		x *= int_keys[k].scale;
		given_int[k] = true;
		switch (k) {
		case 0: set.reorder_window = (uint32_t)x; break;
		case 1: set.delay_ns = x; break;
		case 2: set.hold_max_ns = x; break;
		default: set.start_ns = (int64_t)x; break;
		}
	}
	for (d = 0; d < HC_FAULT_DIR__MAX; d++)
		for (c = 0; c < HC_FAULT_CLASS__MAX; c++) {
			struct hc_fault_rule *r = &tmp->rule[d][c];

			if (!dirs[d] || !classes[c])
				continue;
			for (k = 0; k < HC_FAULT_KIND__MAX; k++)
				if (given[k])
					r->p[k] = set.p[k];
			if (given_int[0])
				r->reorder_window = set.reorder_window;
			if (given_int[1])
				r->delay_ns = set.delay_ns;
			if (given_int[2])
				r->hold_max_ns = set.hold_max_ns;
			if (given_int[3])
				r->start_ns = set.start_ns;
		}
	rc = 0;
out:
	rte_kvargs_free(kv);
	return rc;
}

int
hc_fault_parse(struct hc_fault *f, const char *rules, char *err,
	       size_t errlen)
{
	char buf[HC_FAULT_RULES_MAX], *save = NULL, *tok;
	unsigned int no = 0;
	size_t d;
	/* Rules are parsed into a copy of the rule table: f is unchanged
	 * on error. */
	struct hc_fault *scratch;

	if (rules == NULL || strlen(rules) >= sizeof(buf)) {
		snprintf(err, errlen, "rule string missing or longer than %d "
			 "bytes", HC_FAULT_RULES_MAX - 1);
		return -HC_ERR_CONFIG;
	}
	scratch = malloc(sizeof(*scratch));
	if (scratch == NULL) {
		snprintf(err, errlen, "out of memory");
		return -HC_ERR_CONFIG;
	}
	memcpy(scratch->rule, f->rule, sizeof(f->rule));
	strcpy(buf, rules);
	for (tok = strtok_r(buf, "|;", &save); tok != NULL;
	     tok = strtok_r(NULL, "|;", &save)) {
		no++;
		while (*tok == ' ' || *tok == '\t')
			tok++;
		for (d = strlen(tok); d > 0 && (tok[d - 1] == ' ' ||
						tok[d - 1] == '\t'); d--)
			tok[d - 1] = '\0';
		if (*tok == '\0')
			continue;
		if (strchr(tok, ' ') != NULL || strchr(tok, '\t') != NULL) {
			snprintf(err, errlen, "rule %u: '%s' contains a blank",
				 no, tok);
			free(scratch);
			return -HC_ERR_CONFIG;
		}
		if (parse_rule(scratch, tok, no, err, errlen) != 0) {
			free(scratch);
			return -HC_ERR_CONFIG;
		}
	}
	memcpy(f->rule, scratch->rule, sizeof(f->rule));
	free(scratch);
	update_active(f);
	return 0;
}

/* ------------------------------------------------------------ faults */

static bool
roll(struct hc_fault *f, double p)
{
	return p > 0 && hc_fault_uniform(f) < p;
}

/* A TX frame whose checksums the PMD would fill: fill them now, so that
 * corruption after this point is caught at the receiver. */
static void
finish_tx_cksums(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (!(m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM)) ||
	    m->data_len < m->l2_len + m->l3_len + sizeof(*udp))
		return;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM) {
		udp = (struct rte_udp_hdr *)((char *)ip + m->l3_len);
		udp->dgram_cksum = 0;
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	}
	m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
}

/* Flip one bit after the Ethernet header; false if there is none. */
static bool
corrupt(struct hc_fault *f, enum hc_fault_dir dir, struct rte_mbuf *m)
{
	uint32_t off = RTE_ETHER_HDR_LEN, bit;

	if (m->data_len <= off)
		return false;
	if (dir == HC_FAULT_TX)
		finish_tx_cksums(m);
	else /* the PMD's verdict no longer holds: the stack checks */
		m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
				 RTE_MBUF_F_RX_L4_CKSUM_MASK);
	bit = uniform_below(f, (m->data_len - off) * 8);
	*rte_pktmbuf_mtod_offset(m, uint8_t *, off + bit / 8) ^=
		(uint8_t)(1u << (bit % 8));
	return true;
}

/* Cut to a random length in [RTE_ETHER_HDR_LEN, len - 1]; false for a
 * frame too short or in several segments. Never shorter than an Ethernet
 * header: a tap refuses such a write (EINVAL), and net_tap then keeps
 * offering the frame, which would block the port's TX queue. On TX the
 * checksums are filled first: a PMD asked to compute them over a cut
 * frame would read past its end. */
static bool
truncate_frame(struct hc_fault *f, enum hc_fault_dir dir, struct rte_mbuf *m)
{
	uint32_t len;

	if (m->nb_segs != 1 || m->data_len <= RTE_ETHER_HDR_LEN)
		return false;
	if (dir == HC_FAULT_TX)
		finish_tx_cksums(m);
	len = RTE_ETHER_HDR_LEN +
	      uniform_below(f, m->data_len - RTE_ETHER_HDR_LEN);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return true;
}

/* A frame the injector may change: m itself when it is one direct
 * segment nobody else holds, else a copy in one segment (the transport
 * keeps a reference to each DATA frame it sent, to retransmit from, and
 * a retransmission is a header mbuf chained to a clone of that frame's
 * payload: neither may change). The pool's mbufs hold a whole frame, so
 * the copy of a chain is one segment, and corrupt() and
 * truncate_frame() may act on any byte of it. NULL when no mbuf was
 * free: m is untouched then. */
static struct rte_mbuf *
writable(struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (m->nb_segs == 1 && rte_mbuf_refcnt_read(m) == 1 &&
	    RTE_MBUF_DIRECT(m))
		return m;
	c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (c != NULL && c->nb_segs != 1) {
		rte_pktmbuf_free(c); /* a frame larger than one mbuf */
		c = NULL;
	}
	if (c != NULL)
		rte_pktmbuf_free(m);
	return c;
}

static bool
hold(struct hc_fault *f, enum hc_fault_dir dir, struct rte_mbuf *m,
     uint32_t after, uint64_t due_ns)
{
	struct hc_fault_held *h;

	if (f->nheld[dir] == HC_FAULT_HOLD)
		return false;
	h = &f->held[dir][f->nheld[dir]++];
	__atomic_store_n(&f->nheld_segs[dir], f->nheld_segs[dir] + hc_frame_mbufs(m),
			 __ATOMIC_RELAXED);
	h->m = m;
	h->after = after;
	h->due_ns = due_ns;
	return true;
}

/* Moves the held frames of dir that are due (count reached, or time) to
 * out; with count set, one more frame of dir passed first. */
static unsigned int
release(struct hc_fault *f, enum hc_fault_dir dir, uint64_t now_ns,
	bool count, struct rte_mbuf **out)
{
	unsigned int i, kept = 0, n = 0;
	uint32_t segs = 0;

	for (i = 0; i < f->nheld[dir]; i++) {
		struct hc_fault_held *h = &f->held[dir][i];

		if (count && h->after > 0 && --h->after == 0) {
			out[n++] = h->m;
			continue;
		}
		if (h->due_ns <= now_ns) {
			out[n++] = h->m;
			continue;
		}
		segs += hc_frame_mbufs(h->m);
		f->held[dir][kept++] = *h;
	}
	f->nheld[dir] = kept;
	__atomic_store_n(&f->nheld_segs[dir], segs, __ATOMIC_RELAXED);
	return n;
}

unsigned int
hc_fault_release(struct hc_fault *f, enum hc_fault_dir dir, uint64_t now_ns,
		 struct rte_mbuf **out)
{
	if (f->nheld[dir] == 0)
		return 0;
	return release(f, dir, now_ns, false, out);
}

unsigned int
hc_fault_apply(struct hc_fault *f, enum hc_fault_dir dir, struct rte_mbuf *m,
	       uint64_t now_ns, struct rte_mbuf **out)
{
	enum hc_fault_class c = HC_FAULT_CLASS_OTHER;
	const struct hc_fault_rule *r;
	uint64_t *count;
	struct rte_mbuf *dup = NULL, *aged[HC_FAULT_HOLD];
	enum hc_fault_kind hold_kind = HC_FAULT_KIND__MAX;
	uint32_t after = 0;
	uint64_t due = 0;
	bool tail = false;
	unsigned int n = 0, i, naged;

	if (!f->active[dir] && f->nheld[dir] == 0) {
		out[0] = m;
		return 1;
	}
	if (f->classify != NULL)
		c = f->classify(m, f->classify_arg, &tail);
	r = &f->rule[dir][c];
	count = f->stats.count[dir][c];
	if (r->start_ns >= 0 && (f->epoch_ns == UINT64_MAX ||
				 now_ns < f->epoch_ns + (uint64_t)r->start_ns))
		r = NULL; /* not yet active */
	if (dir == HC_FAULT_TX && f->drop_last_once && tail) {
		count[HC_FAULT_DROP_LAST]++;
		rte_pktmbuf_free(m);
		m = NULL;
	} else if (r != NULL && roll(f, r->p[HC_FAULT_DROP])) {
		count[HC_FAULT_DROP]++;
		rte_pktmbuf_free(m);
		m = NULL;
	}
	if (m != NULL && r != NULL) {
		bool cut = roll(f, r->p[HC_FAULT_TRUNCATE]);
		bool flip = roll(f, r->p[HC_FAULT_CORRUPT]);
		struct rte_mbuf *w = cut || flip ? writable(m) : m;

		if (w != NULL) {
			m = w;
			if (cut && truncate_frame(f, dir, m))
				count[HC_FAULT_TRUNCATE]++;
			if (flip && corrupt(f, dir, m))
				count[HC_FAULT_CORRUPT]++;
		}
		if (roll(f, r->p[HC_FAULT_DUP])) {
			dup = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
			if (dup != NULL)
				count[HC_FAULT_DUP]++;
		}
		if (roll(f, r->p[HC_FAULT_DELAY])) {
			hold_kind = HC_FAULT_DELAY;
			due = now_ns + r->delay_ns;
		} else if (roll(f, r->p[HC_FAULT_REORDER])) {
			hold_kind = HC_FAULT_REORDER;
			after = 1 + uniform_below(f, r->reorder_window);
			due = now_ns + r->hold_max_ns;
		}
	}
	/* This frame passed: frames held for reordering move one step. */
	naged = f->nheld[dir] > 0 ? release(f, dir, now_ns, true, aged) : 0;
	if (m != NULL && hold_kind != HC_FAULT_KIND__MAX &&
	    hold(f, dir, m, after, due)) {
		count[hold_kind]++;
		m = NULL;
	}
	if (m != NULL)
		out[n++] = m;
	if (dup != NULL)
		out[n++] = dup;
	for (i = 0; i < naged; i++)
		out[n++] = aged[i];
	return n;
}

void
hc_fault_free_held(struct hc_fault *f)
{
	unsigned int d, i;

	for (d = 0; d < HC_FAULT_DIR__MAX; d++) {
		for (i = 0; i < f->nheld[d]; i++)
			rte_pktmbuf_free(f->held[d][i].m);
		f->nheld[d] = 0;
		f->nheld_segs[d] = 0;
	}
}
