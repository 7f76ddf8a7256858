/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cluster file loader: a valid file with its defaults and overrides,
 * and one test per kind of error. Every file is a temporary file under
 * /tmp, removed after loading; what hc_config_load() logs is captured
 * (rte_openlog_stream into a memory stream) so that each error test also
 * checks the reason and the line it reports.
 */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <sodium.h>
#include <sys/stat.h>
#include <rte_ether.h>
#include <rte_log.h>

#include "hypercomm.h"
#include "hypercomm_fault.h"
#include "cc.h"
#include "cfgkey.h"
#include "config.h"
#include "port.h"
#include "engine.h"
#include "suites.h"
#include "tune.h"

/* Lines 1-3: a 2-rank job. */
#define JOB2 "[job]\nid = 7\nworld_size = 2\n"
/* Lines 4-7 after JOB2. */
#define RANK0 "[rank.0]\nip = 198.18.0.1\nmac = 02:00:00:00:00:01\n" \
	"port = net_tap0,iface=hc0\n"
/* Lines 8-10 after JOB2 RANK0; the next section starts at line 11. */
#define RANK1 "[rank.1]\nip = 198.18.0.2\nport = net_tap1,iface=hc1\n"

#define LOG_MAX 4096

/* What hc_config_load() logs goes to a memory stream between these. */
static char *cap_buf;
static size_t cap_size;
static FILE *cap_stream;

static void
capture_begin(void)
{
	cap_buf = NULL;
	cap_size = 0;
	cap_stream = open_memstream(&cap_buf, &cap_size);
	if (cap_stream != NULL)
		rte_openlog_stream(cap_stream);
}

/* Stop capturing; copy what was logged into log (NUL-terminated). */
static void
capture_end(char *log, size_t logsz)
{
	log[0] = '\0';
	if (cap_stream == NULL)
		return;
	rte_openlog_stream(NULL);
	fclose(cap_stream);
	cap_stream = NULL;
	snprintf(log, logsz, "%s", cap_buf != NULL ? cap_buf : "");
	free(cap_buf);
	cap_buf = NULL;
}

/*
 * Write ini to a temporary file, load it into cfg and remove the file.
 * What was logged meanwhile goes to log (NUL-terminated, truncated).
 * @return hc_config_load()'s result.
 */
static int
load_ini(const char *ini, struct hc_config *cfg, char *log, size_t logsz)
{
	char path[] = "/tmp/hcunit-cfg-XXXXXX";
	size_t len = strlen(ini), done = 0;
	ssize_t w;
	int fd, rc;

	log[0] = '\0';
	fd = mkstemp(path);
	if (fd < 0) {
		CU_FAIL_FATAL("mkstemp under /tmp failed");
		return -1;
	}
	while (done < len) {
		w = write(fd, ini + done, len - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(fd);
	if (done != len)
		unlink(path);
	CU_ASSERT_EQUAL_FATAL(done, len);

	capture_begin();
	rc = hc_config_load(path, cfg);
	capture_end(log, logsz);
	unlink(path);
	return rc;
}

/* Loading ini fails with -HC_ERR_CONFIG and the log says needle. */
static void
expect_error(const char *ini, const char *needle)
{
	struct hc_config cfg;
	char log[LOG_MAX];
	int rc = load_ini(ini, &cfg, log, sizeof(log));
	const char *hit = strstr(log, needle);

	CU_ASSERT_EQUAL(rc, -HC_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(hit);
	if (rc != -HC_ERR_CONFIG || hit == NULL)
		fprintf(stderr, "\n  want -HC_ERR_CONFIG and \"%s\"; got %d, "
			"log:\n%s\n", needle, rc, log);
	if (rc == 0)
		hc_config_free(&cfg);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
config_suite_init(void)
{
	/* these override the file; the tests must not inherit them */
	unsetenv("HC_FAULT_SEED");
	unsetenv("HC_FAULT_DROP_DATA_PCT");
	unsetenv("HC_FAULT");
	unsetenv("HC_FAULT_DROP_LAST_ONCE");
	return 0;
}

static void
test_valid_defaults(void)
{
	static const struct rte_ether_addr mac0 = {
		.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };
	struct hc_config cfg;
	char log[LOG_MAX];

	CU_ASSERT_EQUAL_FATAL(load_ini(JOB2 RANK0 RANK1, &cfg, log,
				       sizeof(log)), 0);
	CU_ASSERT_STRING_EQUAL(log, "");
	CU_ASSERT_EQUAL(strncmp(cfg.path, "/tmp/hcunit-cfg-", 16), 0);
	CU_ASSERT_EQUAL(cfg.job_id, 7);
	CU_ASSERT_EQUAL(cfg.world_size, 2);
	/* defaults */
	CU_ASSERT_EQUAL(cfg.port.mtu, 1500);
	CU_ASSERT_EQUAL(cfg.net.udp_port, 51966);
	CU_ASSERT_EQUAL(cfg.net.arp_timeout_ns, 60000 * HC_NS_PER_MS);
	CU_ASSERT_EQUAL(cfg.hct.window_pkts, 256);
	CU_ASSERT_EQUAL(cfg.hct.rto_min_ns, 2000 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(cfg.hct.rto_max_ns, 500000 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(cfg.hct.bulk_min_share_pct, 5);
	CU_ASSERT_EQUAL(cfg.hct.tx_ring_max_bytes, 16384);
	CU_ASSERT_EQUAL(cfg.hct.rx_credit_bdp_pct, 150);
	CU_ASSERT_EQUAL(cfg.hct.bdp_bytes, 100000);
	CU_ASSERT_EQUAL(cfg.coll.slice_bytes, 262144);
	CU_ASSERT_EQUAL(cfg.idle, HC_IDLE_SLEEP);
	CU_ASSERT_EQUAL(cfg.fault.seed, 1);
	CU_ASSERT_EQUAL(cfg.fault.drop_data, 0.0);
	/* ranks */
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.ranks);
	CU_ASSERT_EQUAL(cfg.ranks[0].ip, 0xc6120001);
	CU_ASSERT_TRUE(cfg.ranks[0].has_mac);
	CU_ASSERT_TRUE(rte_is_same_ether_addr(&cfg.ranks[0].mac, &mac0));
	CU_ASSERT_STRING_EQUAL(cfg.ranks[0].port, "net_tap0,iface=hc0");
	CU_ASSERT_EQUAL(cfg.ranks[1].ip, 0xc6120002);
	CU_ASSERT_FALSE(cfg.ranks[1].has_mac);
	CU_ASSERT_STRING_EQUAL(cfg.ranks[1].port, "net_tap1,iface=hc1");
	/* every rank its own group; the tuner picks */
	CU_ASSERT_EQUAL(cfg.ranks[0].group, 0);
	CU_ASSERT_EQUAL(cfg.ranks[1].group, 1);
	CU_ASSERT_EQUAL(cfg.coll.algo, HC_ALGO_AUTO);
	hc_config_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.ranks);
}

static void
test_valid_overrides(void)
{
	struct hc_config cfg;
	char log[LOG_MAX];

	CU_ASSERT_EQUAL_FATAL(load_ini(JOB2 RANK0 RANK1
		"[net]\nmtu = 9000\nudp_port = 4791\n"
		"[transport]\nwindow_pkts = 0x40\nrto_min_us = 300\n"
		"rto_max_us = 300\ncc = swift\ncwnd_min = 0.01\n"
		"swift_beta = 0.5\nreo_wnd_us = 7\n"
		"[engine]\nidle = busy\n"
		"[fault]\nseed = 18446744073709551615\ndrop_data_pct = 2.5\n",
		&cfg, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(cfg.port.mtu, 9000);
	CU_ASSERT_EQUAL(cfg.net.udp_port, 4791);
	CU_ASSERT_EQUAL(cfg.hct.window_pkts, 64);
	CU_ASSERT_EQUAL(cfg.hct.rto_min_ns, 300 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(cfg.hct.rto_max_ns, 300 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(cfg.hct.cc.algo, HCT_CC_SWIFT);
	CU_ASSERT_EQUAL(cfg.hct.cc.min_cwnd, 0.01);
	CU_ASSERT_EQUAL(cfg.hct.cc.beta, 0.5);
	CU_ASSERT_EQUAL(cfg.hct.cc.reo_wnd_ns, 7 * HC_NS_PER_US);
	CU_ASSERT_EQUAL(cfg.hct.cc.max_mdf, 0.5);
	CU_ASSERT_EQUAL(cfg.hct.cc.dctcp_g, 0.0625);
	CU_ASSERT_EQUAL(cfg.idle, HC_IDLE_BUSY);
	CU_ASSERT_EQUAL(cfg.fault.seed, UINT64_MAX);
	CU_ASSERT_DOUBLE_EQUAL(cfg.fault.drop_data, 0.025, 1e-12);
	/* untouched keys keep their defaults */
	CU_ASSERT_EQUAL(cfg.coll.slice_bytes, 262144);
	hc_config_free(&cfg);
}

/* HC_FAULT_SEED and HC_FAULT_DROP_DATA_PCT win over the file. */
static void
test_env_overrides(void)
{
	struct hc_config cfg;
	char log[LOG_MAX];
	int rc;

	setenv("HC_FAULT_SEED", "42", 1);
	setenv("HC_FAULT_DROP_DATA_PCT", "12.5", 1);
	rc = load_ini(JOB2 RANK0 RANK1 "[fault]\nseed = 7\n", &cfg, log,
		      sizeof(log));
	unsetenv("HC_FAULT_SEED");
	unsetenv("HC_FAULT_DROP_DATA_PCT");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.fault.seed, 42);
	CU_ASSERT_DOUBLE_EQUAL(cfg.fault.drop_data, 0.125, 1e-12);
	hc_config_free(&cfg);
}

static void
test_missing_world_size(void)
{
	expect_error("[job]\nid = 7\n" RANK0 RANK1,
		     "[job] world_size: missing");
}

static void
test_world_size_zero(void)
{
	expect_error("[job]\nid = 7\nworld_size = 0\n" RANK0 RANK1,
		     ":3: [job] world_size: '0' is not an integer in 1..1024");
}

static void
test_missing_rank(void)
{
	expect_error(JOB2 RANK0, "section [rank.1] missing (world_size 2)");
}

static void
test_rank_beyond_world(void)
{
	expect_error(JOB2 RANK0 RANK1
		     "[rank.5]\nip = 198.18.0.6\nport = net_tap5\n",
		     ":11: [rank.5]: rank 5 >= world_size 2");
}

/* Any rank section outside 0..world_size-1 is an error, however far out
 * or malformed its number, like any other unknown section. */
static void
test_rank_section_unknown(void)
{
	expect_error(JOB2 RANK0 RANK1
		     "[rank.100]\nip = 198.18.0.9\nport = net_tap9\n",
		     "[rank.100]");
	expect_error(JOB2 RANK0 RANK1
		     "[rank.x]\nip = 198.18.0.9\nport = net_tap9\n",
		     "[rank.x]");
}

static void
test_duplicate_ip(void)
{
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.1\nport = net_tap1\n",
		     ":9: [rank.1] ip: 198.18.0.1 is also rank 0's");
}

static void
test_bad_ip(void)
{
	expect_error(JOB2 RANK0
		     "[rank.1]\nip = 198.18.0.300\nport = net_tap1\n",
		     ":9: [rank.1] ip: '198.18.0.300' is not an IPv4 address");
}

static void
test_multicast_mac(void)
{
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\n"
		     "mac = 01:00:5e:00:00:01\nport = net_tap1\n",
		     ":10: [rank.1] mac: '01:00:5e:00:00:01' is zero, "
		     "broadcast or multicast");
}

static void
test_broadcast_mac(void)
{
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\n"
		     "mac = ff:ff:ff:ff:ff:ff\nport = net_tap1\n",
		     ":10: [rank.1] mac: 'ff:ff:ff:ff:ff:ff' is zero, "
		     "broadcast or multicast");
}

static void
test_duplicate_mac(void)
{
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\n"
		     "mac = 02:00:00:00:00:01\nport = net_tap1\n",
		     ":10: [rank.1] mac: also rank 0's MAC");
}

/* C37: a MAC that is not six hex bytes, or all zero, is refused with the
 * line number, like multicast and broadcast. */
static void
test_malformed_mac(void)
{
	static const char *const bad[] = { "02:00:00:00:00", "02:00:00:00:00:0g",
		"02:00:00:00:00:01:02", "02-00-00-00-00-02", "2:0:0:0:0:2", "02:00:00:00:00:02 x" };
	char ini[512], want[128];
	size_t i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		snprintf(ini, sizeof(ini), JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\n"
			 "mac = %s\nport = net_tap1\n", bad[i]);
		snprintf(want, sizeof(want), ":10: [rank.1] mac: '%s' is not a "
			 "MAC address xx:xx:xx:xx:xx:xx", bad[i]);
		expect_error(ini, want);
	}
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\n"
		     "mac = 00:00:00:00:00:00\nport = net_tap1\n",
		     ":10: [rank.1] mac: '00:00:00:00:00:00' is zero, "
		     "broadcast or multicast");
	/* the duplicate check compares bytes, not spellings */
	expect_error("[job]\nid = 7\nworld_size = 2\n[rank.0]\nip = 198.18.0.1\n"
		     "mac = 02:00:00:00:00:ab\nport = net_tap0\n"
		     "[rank.1]\nip = 198.18.0.2\nmac = 02:00:00:00:00:AB\n"
		     "port = net_tap1\n",
		     ":10: [rank.1] mac: also rank 0's MAC");
	/* an empty value: rte_cfgfile refuses the file, naming the line */
	expect_error(JOB2 RANK0 "[rank.1]\nip = 198.18.0.2\nmac =\n"
		     "port = net_tap1\n", "line 10 - cannot use empty values");
}

/* C37: the generated addresses (hc_addr_of_rank, hc-launch, the
 * simulation's defaults) of every rank are locally administered unicast
 * (first byte: bit 1 set, bit 0 clear; IEEE 802-2014 8.2.2) and no two
 * ranks share a MAC or an IP. */
static void
test_generated_macs(void)
{
	struct rte_ether_addr mac;
	uint64_t *seen = calloc(HC_ADDR_RANKS, sizeof(*seen));
	uint32_t r, ip, bad_la = 0, dups = 0, *ips;

	ips = calloc(HC_ADDR_RANKS, sizeof(*ips));
	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ips);
	for (r = 0; r < HC_ADDR_RANKS; r++) {
		CU_ASSERT_EQUAL_FATAL(hc_addr_of_rank(r, &ip, &mac), 0);
		if ((mac.addr_bytes[0] & 0x03) != 0x02 ||
		    !rte_is_valid_assigned_ether_addr(&mac))
			bad_la++;
		memcpy(&seen[r], mac.addr_bytes, RTE_ETHER_ADDR_LEN);
		ips[r] = ip;
	}
	qsort(seen, HC_ADDR_RANKS, sizeof(*seen), cmp_u64);
	qsort(ips, HC_ADDR_RANKS, sizeof(*ips), cmp_u32);
	for (r = 1; r < HC_ADDR_RANKS; r++)
		dups += (seen[r] == seen[r - 1]) + (ips[r] == ips[r - 1]);
	CU_ASSERT_EQUAL(bad_la, 0);
	CU_ASSERT_EQUAL(dups, 0);
	free(seen);
	free(ips);
}

/* C36/C37: a rank's section given twice (rte_cfgfile would keep the
 * first and ignore the second) is a duplicate rank id, with both lines. */
static void
test_duplicate_section(void)
{
	expect_error(JOB2 RANK0 RANK1
		     "[rank.1]\nip = 198.18.0.3\nport = net_tap2\n",
		     ":11: [rank.1]: section given twice (first at line 8): "
		     "duplicate rank id");
	expect_error(JOB2 RANK0 RANK1 "[net]\nmtu = 1500\n[net]\nmtu = 9000\n",
		     ":13: [net]: section given twice (first at line 11)");
}

/* A key given twice in one section (rte_cfgfile keeps both and
 * rte_cfgfile_get_entry answers with the first) is an error with both
 * lines, as a section given twice is; one key in two sections is not. */
static void
test_duplicate_key(void)
{
	expect_error(JOB2 RANK0 RANK1
		     "[transport]\nrto_min_us = 2000\nrto_min_us = 50\n",
		     ":13: [transport] rto_min_us: key given twice (first at "
		     "line 12)");
	expect_error(JOB2 RANK0 "ip = 198.18.0.9\n" RANK1,
		     ":8: [rank.0] ip: key given twice (first at line 5)");
}

/* rte_cfgfile keeps CFG_VALUE_LEN - 1 (255) characters of a value and
 * CFG_NAME_LEN - 1 (63) of a name and cuts the rest without a word
 * ("drop=25" would read "drop=2"); a longer one is an error naming its
 * line, also when the line is too long for rte_cfgfile's buffer. */
static void
test_long_value(void)
{
	static const char head[] = "dir=tx,drop=1", tail[] = "|dir=rx,drop=25";
	static const size_t lens[] = { 255, 256, 260, 400 };
	char rules[512], ini[1024], want[128], name[65];
	struct hc_config cfg;
	char log[LOG_MAX];
	size_t i, len;

	for (i = 0; i < RTE_DIM(lens); i++) {
		len = lens[i];
		memcpy(rules, head, strlen(head));
		memset(rules + strlen(head), ' ', len - strlen(head) -
		       strlen(tail));
		memcpy(rules + len - strlen(tail), tail, sizeof(tail));
		CU_ASSERT_EQUAL_FATAL(strlen(rules), len);
		snprintf(ini, sizeof(ini), JOB2 RANK0 RANK1
			 "[fault]\nrules = %s\n", rules);
		if (len == 255) {
			CU_ASSERT_EQUAL_FATAL(load_ini(ini, &cfg, log,
						       sizeof(log)), 0);
			CU_ASSERT_STRING_EQUAL(cfg.fault.rules, rules);
			hc_config_free(&cfg);
			/* "\;" is one character (rte_cfgfile drops the
			 * backslash of an escaped ';'): 256 in the file fit */
			snprintf(ini, sizeof(ini), JOB2 RANK0 RANK1
				 "[fault]\nrules = %.*s\\;%s\n",
				 (int)(len - strlen(tail)), rules, tail + 1);
			rules[len - strlen(tail)] = ';';
			CU_ASSERT_EQUAL_FATAL(load_ini(ini, &cfg, log,
						       sizeof(log)), 0);
			CU_ASSERT_STRING_EQUAL(cfg.fault.rules, rules);
			hc_config_free(&cfg);
			continue;
		}
		snprintf(want, sizeof(want), ":12: [fault] rules: value of "
			 "%zu characters; at most 255", len);
		expect_error(ini, want);
	}
	memset(name, 'k', 64);
	name[64] = '\0';
	snprintf(ini, sizeof(ini), JOB2 RANK0 RANK1 "[transport]\n%s = 1\n",
		 name);
	snprintf(want, sizeof(want), ":12: [transport] %s: name of 64 "
		 "characters; at most 63", name);
	expect_error(ini, want);
	snprintf(ini, sizeof(ini), JOB2 RANK0 RANK1 "[%s]\nx = 1\n", name);
	snprintf(want, sizeof(want), ":11: [%s]: name of 64 characters; at "
		 "most 63", name);
	expect_error(ini, want);
}

/* rte_cfgfile skips a line that is neither a [section] header nor holds
 * an '=' ("mtu 9000", "coll]" for "[coll]") and ignores text after a
 * header's ']': each is an error naming the line. Blank lines, ';'
 * comments and '#' lines without an '=' stay fine; a '#' line with one
 * would be a key to rte_cfgfile, whose comment character is ';' only. */
static void
test_not_a_key_line(void)
{
	struct hc_config cfg;
	char log[LOG_MAX];

	CU_ASSERT_EQUAL_FATAL(load_ini("; a comment\n\n# shell style\n \t\n"
				       JOB2 RANK0 RANK1 "[net]\n"
				       "mtu = 9000 ; jumbo\n  ; indented\n",
				       &cfg, log, sizeof(log)), 0);
	CU_ASSERT_STRING_EQUAL(log, "");
	CU_ASSERT_EQUAL(cfg.port.mtu, 9000);
	hc_config_free(&cfg);
	expect_error(JOB2 RANK0 RANK1 "[net]\nmtu 9000\n",
		     ":12: 'mtu 9000' is not a [section] header, key = value "
		     "or ; comment");
	expect_error(JOB2 RANK0 RANK1 "coll]\n",
		     ":11: 'coll]' is not a [section] header, key = value or "
		     "; comment");
	expect_error(JOB2 RANK0 RANK1 "[net] mtu = 9000\n",
		     ":11: [net]: 'mtu = 9000' after the section header");
	expect_error(JOB2 RANK0 RANK1 "[net]\n# mtu = 9000\n",
		     ":12: '# mtu = 9000': '#' starts no comment; use ';'");
}

/* [job] key_file (authenticated mode): a missing file, one that group or
 * others may read, or one under 32 bytes is a config error naming the
 * file and never its content; a good one gives BLAKE2b-256 of its bytes. */
static void
test_key_file(void)
{
	static const char secret[] = "0123456789abcdefghijklmnopqrstuvwxyzSECRET";
	struct hc_config cfg;
	uint8_t key[32], want[32];
	char log[LOG_MAX];
	int fd, rc;

	memset(&cfg, 0, sizeof(cfg));
	strcpy(cfg.path, "unit.ini");
	snprintf(cfg.key_file, sizeof(cfg.key_file), "/tmp/hcunit-key-%d",
		 (int)getpid());
	unlink(cfg.key_file);
	capture_begin();
	rc = hc_key_load(&cfg, key);
	capture_end(log, sizeof(log));
	CU_ASSERT_EQUAL(rc, -HC_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "No such file"));

	fd = open(cfg.key_file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, secret, strlen(secret)), (ssize_t)strlen(secret));
	close(fd);
	chmod(cfg.key_file, 0644);
	capture_begin();
	rc = hc_key_load(&cfg, key);
	capture_end(log, sizeof(log));
	CU_ASSERT_EQUAL(rc, -HC_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "mode 0644 lets group or others"));
	CU_ASSERT_PTR_NULL(strstr(log, "SECRET"));

	chmod(cfg.key_file, 0600);
	CU_ASSERT_EQUAL(rc = hc_key_load(&cfg, key), 0);
	CU_ASSERT_EQUAL_FATAL(sodium_init() >= 0, 1);
	crypto_generichash(want, sizeof(want), (const uint8_t *)secret,
			   strlen(secret), NULL, 0);
	CU_ASSERT_EQUAL(memcmp(key, want, sizeof(key)), 0);

	CU_ASSERT_EQUAL(truncate(cfg.key_file, 31), 0);
	capture_begin();
	rc = hc_key_load(&cfg, key);
	capture_end(log, sizeof(log));
	CU_ASSERT_EQUAL(rc, -HC_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "31 bytes; the key must have 32"));
	unlink(cfg.key_file);
}

static void
test_unknown_key(void)
{
	expect_error(JOB2 RANK0 RANK1 "[transport]\nwindow = 64\n",
		     ":12: [transport] window: unknown key");
}

static void
test_unknown_section(void)
{
	expect_error(JOB2 RANK0 RANK1 "[bogus]\nx = 1\n",
		     ":11: [bogus]: unknown section");
}

static void
test_non_numeric(void)
{
	expect_error(JOB2 RANK0 RANK1 "[transport]\nwindow_pkts = many\n",
		     ":12: [transport] window_pkts: 'many' is not an integer "
		     "in 1..4096");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nwindow_pkts = 64k\n",
		     ":12: [transport] window_pkts: '64k' is not an integer");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nwindow_pkts = -1\n",
		     ":12: [transport] window_pkts: '-1' is not an integer");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nwindow_pkts = 4097\n",
		     ":12: [transport] window_pkts: '4097' is not an integer");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nbulk_min_share_pct = 51\n",
		     ":12: [transport] bulk_min_share_pct: '51' is not an "
		     "integer in 0..50");
}

/* Integers are decimal, or hexadecimal right after 0x, and nothing else:
 * strtoull would skip blanks and take a sign or a second 0x after "0x"
 * ("0x-1" read as 2^64-1 where "-1" is refused, "0x 64" as 100), and
 * blanks and a sign before a decimal one (an environment value is not
 * stripped as the file's are). */
static void
test_integer_syntax(void)
{
	static const char *const bad[] = { "0x-1", "0x 64", "0x0x64", "0x+64",
		"0X-0", "0x", " 64", "\t64", " -1", " +1", "+1", "-1", "",
		"64 ", "0b1", "18446744073709551616", "0x10000000000000000" };
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = { { "0x64", 100 }, { "0X64", 100 }, { "010", 10 },
		     { "0", 0 }, { "0x0", 0 }, { "0xFFFFffffffffffff", UINT64_MAX },
		     { "18446744073709551615", UINT64_MAX } };
	uint64_t v;
	size_t i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		v = 7;
		CU_ASSERT_EQUAL(hc_cfg_parse_u64(bad[i], 0, UINT64_MAX, &v), -1);
		if (v != 7)
			fprintf(stderr, "\n  '%s' read as %" PRIu64 "\n", bad[i],
				v);
	}
	for (i = 0; i < RTE_DIM(good); i++) {
		CU_ASSERT_EQUAL(hc_cfg_parse_u64(good[i].s, 0, UINT64_MAX, &v),
				0);
		CU_ASSERT_EQUAL(v, good[i].v);
	}
	expect_error(JOB2 RANK0 RANK1 "[fault]\nseed = 0x-1\n",
		     ":12: [fault] seed: '0x-1' is not an integer");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nrto_min_us = 0x 64\n",
		     ":12: [transport] rto_min_us: '0x 64' is not an integer");
	expect_error(JOB2 RANK0 RANK1 "[transport]\nrto_min_us = 0x0x64\n",
		     ":12: [transport] rto_min_us: '0x0x64' is not an integer");
	setenv("HC_FAULT_SEED", " -1", 1);
	expect_error(JOB2 RANK0 RANK1,
		     "[fault] seed: ' -1' (from HC_FAULT_SEED) is not an "
		     "integer");
	unsetenv("HC_FAULT_SEED");
}

static void
test_rto_min_above_max(void)
{
	expect_error(JOB2 RANK0 RANK1
		     "[transport]\nrto_min_us = 5000\nrto_max_us = 4000\n",
		     ":12: [transport] rto_min_us: 5000 > rto_max_us 4000");
}

/* Jumbo frames above 9000 (net_memif): [net] mtu up to HC_PORT_MTU_MAX;
 * [port] pool_mbufs 0 (the default) sizes the pool to about 149 MB of
 * frames; an explicit count below 1023 is refused. */
static void
test_mtu_pool(void)
{
	struct hc_port_conf pc = { .mtu = 1500 };
	struct hc_config cfg;
	char log[LOG_MAX];

	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 16383);
	pc.mtu = 9000;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 16383);
	pc.mtu = 16000;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 8191);
	pc.mtu = 32000;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 4095);
	pc.mtu = HC_PORT_MTU_MAX;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 2047);
	/* The PMD's extra room counts: net_virtio_user's 12 bytes at 9000
	 * keep 16383, an af_packet slot of 65280 bytes at MTU 9000 (extra
	 * 65280 - 32 - 9018) gets what MTU 65000 gets, 1500 in 2048-byte
	 * slots (extra 498) 16383. */
	pc.mtu = 9000;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 12), 16383);
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 65280 - 32 - 9018), 2047);
	pc.mtu = 1500;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 2048 - 32 - 1518), 16383);
	pc.pool_mbufs = 1023;
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 0), 1023);
	CU_ASSERT_EQUAL(hc_port_pool_mbufs(&pc, 60000), 1023);
	CU_ASSERT_EQUAL(load_ini(JOB2 RANK0 RANK1 "[net]\nmtu = 65000\n",
				 &cfg, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(cfg.port.mtu, 65000);
	CU_ASSERT_EQUAL(cfg.port.pool_mbufs, 0);
	hc_config_free(&cfg);
	expect_error(JOB2 RANK0 RANK1 "[net]\nmtu = 65001\n",
		     ":12: [net] mtu: '65001' is not an integer in 576..65000");
	expect_error(JOB2 RANK0 RANK1 "[port]\npool_mbufs = 1022\n",
		     ":12: [port] pool_mbufs: 1022: 0 (auto) or at least 1023");
}

static void
test_bad_cc(void)
{
	expect_error(JOB2 RANK0 RANK1 "[transport]\ncc = reno\n",
		     ":12: [transport] cc: 'reno' is not fixed, swift or "
		     "dctcp");
	expect_error(JOB2 RANK0 RANK1 "[transport]\ncwnd_min = 0\n",
		     ":12: [transport] cwnd_min: '0' is not a number in "
		     "(0..4096");
	expect_error(JOB2 RANK0 RANK1 "[transport]\ncc_max_mdf = 1\n",
		     ":12: [transport] cc_max_mdf: '1' is not a number in "
		     "0..0.99");
	expect_error(JOB2 RANK0 RANK1 "[transport]\ndctcp_g = 1/16\n",
		     ":12: [transport] dctcp_g: '1/16' is not a number");
	expect_error(JOB2 RANK0 RANK1
		     "[transport]\nwindow_pkts = 4\ncwnd_min = 5\n",
		     ":13: [transport] cwnd_min: 5 > window_pkts 4");
}

static void
test_bad_idle(void)
{
	expect_error(JOB2 RANK0 RANK1 "[engine]\nidle = fast\n",
		     ":12: [engine] idle: 'fast' is not busy, pause, yield "
		     "or sleep");
}

/* [coll] algo and [rank.N] group: values, errors, HC_ALGO winning. */
static void
test_algo_group(void)
{
	struct hc_config cfg;
	char log[LOG_MAX];
	int rc;

	CU_ASSERT_EQUAL_FATAL(load_ini(JOB2 RANK0 "group = 7\n" RANK1
				       "group = 65535\n[coll]\nalgo = hd\n",
				       &cfg, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(cfg.ranks[0].group, 7);
	CU_ASSERT_EQUAL(cfg.ranks[1].group, 65535);
	CU_ASSERT_EQUAL(cfg.coll.algo, HC_ALGO_HD);
	hc_config_free(&cfg);
	setenv("HC_ALGO", "tree", 1);
	rc = load_ini(JOB2 RANK0 RANK1 "[coll]\nalgo = hier\n", &cfg, log,
		      sizeof(log));
	unsetenv("HC_ALGO");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.coll.algo, HC_ALGO_TREE);
	hc_config_free(&cfg);
	expect_error(JOB2 RANK0 RANK1 "[coll]\nalgo = fast\n",
		     ":12: [coll] algo: 'fast' is not ring, tree, hd, hier, rd "
		     "or auto");
	expect_error(JOB2 RANK0 "group = 65536\n" RANK1,
		     ":8: [rank.0] group: '65536' is not an integer in "
		     "0..65535");
	setenv("HC_ALGO", "Ring", 1);
	expect_error(JOB2 RANK0 RANK1, "'Ring' (from HC_ALGO) is not ring");
	unsetenv("HC_ALGO");
}

static void
test_unreadable(void)
{
	struct hc_config cfg;
	char log[LOG_MAX];

	capture_begin();
	CU_ASSERT_EQUAL(hc_config_load("/nonexistent/hcunit.ini", &cfg),
			-HC_ERR_CONFIG);
	capture_end(log, sizeof(log));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "/nonexistent/hcunit.ini: cannot "
				      "read or parse the INI file"));
	capture_begin();
	CU_ASSERT_EQUAL(hc_config_load(NULL, &cfg), -HC_ERR_CONFIG);
	capture_end(log, sizeof(log));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "no cluster file"));
	/* a key before any section is not INI: an error naming its line */
	expect_error("id = 7\n" JOB2 RANK0 RANK1,
		     ":1: 'id = 7': a key before any [section]");
}

/* The files shipped in config/ must load: they are what users copy. */
static void
test_shipped_files(void)
{
	static const struct {
		const char *name;
		uint32_t world;
	} files[] = { { "example.ini", 2 }, { "tap-2.ini", 2 },
		      { "tap-4.ini", 4 } };
	struct hc_config cfg;
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/config/%s", HC_SOURCE_ROOT,
			 files[i].name);
		CU_ASSERT_EQUAL_FATAL(hc_config_load(path, &cfg), 0);
		CU_ASSERT_EQUAL(cfg.world_size, files[i].world);
		CU_ASSERT_EQUAL(cfg.ranks[0].ip, 0xc6120001u); /* 198.18.0.1 */
		CU_ASSERT_STRING_EQUAL(cfg.ranks[1].port, "net_tap0,iface=hct1");
		hc_config_free(&cfg);
	}
}

/* [fault] rules and drop_last_once; HC_FAULT and HC_FAULT_DROP_LAST_ONCE
 * win over them. */
static void
test_fault_rules(void)
{
	static const char head[] = JOB2 RANK0 RANK1 "[fault]\n";
	struct hc_config cfg;
	char log[LOG_MAX], needle[128];
	const char *c;
	int rc, line = 1;

	CU_ASSERT_EQUAL_FATAL(load_ini(JOB2 RANK0 RANK1 "[fault]\n"
		"rules = dir=tx,class=data,drop=5 | dir=rx,class=ack,drop=20\n"
		"drop_last_once = 1\n", &cfg, log, sizeof(log)), 0);
	CU_ASSERT_STRING_EQUAL(cfg.fault.rules,
			       "dir=tx,class=data,drop=5 | dir=rx,class=ack,drop=20");
	CU_ASSERT(cfg.fault.drop_last_once);
	hc_config_free(&cfg);

	setenv("HC_FAULT", "class=ack,dup=3", 1);
	setenv("HC_FAULT_DROP_LAST_ONCE", "0", 1);
	rc = load_ini(JOB2 RANK0 RANK1 "[fault]\nrules = drop=5\n"
		      "drop_last_once = 1\n", &cfg, log, sizeof(log));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(cfg.fault.rules, "class=ack,dup=3");
	CU_ASSERT(!cfg.fault.drop_last_once);
	hc_config_free(&cfg);
	setenv("HC_FAULT", "drop=5;dir=sideways", 1);
	expect_error(JOB2 RANK0 RANK1, "HC_FAULT: rule 2: dir='sideways': not "
		     "tx, rx or both");
	unsetenv("HC_FAULT");
	setenv("HC_FAULT_DROP_LAST_ONCE", "yes", 1);
	expect_error(JOB2 RANK0 RANK1, "HC_FAULT_DROP_LAST_ONCE: 'yes' is not "
		     "0 or 1");
	unsetenv("HC_FAULT_DROP_LAST_ONCE");

	for (c = head; *c != '\0'; c++)
		line += *c == '\n';
	snprintf(needle, sizeof(needle), ":%d: [fault] rules: rule 2: unknown "
		 "key 'drpo'", line);
	expect_error(JOB2 RANK0 RANK1 "[fault]\nrules = drop=1|drpo=5\n",
		     needle);
	snprintf(needle, sizeof(needle), ":%d: [fault] drop_last_once: '2' is "
		 "not 0 or 1", line);
	expect_error(JOB2 RANK0 RANK1 "[fault]\ndrop_last_once = 2\n", needle);
}

/* Whether file (config/example.ini) has key name in [section], as
 * "name = ..." or commented out as ";name = ...". */
static int
ini_documents(FILE *f, const char *section, const char *name)
{
	char line[1024], want[96];
	size_t n = strlen(name);
	int in = 0;

	snprintf(want, sizeof(want), "[%s]", section);
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = line;

		if (line[0] == '[') {
			in = strncmp(line, want, strlen(want)) == 0;
			continue;
		}
		if (!in)
			continue;
		if (*p == ';')
			p++;
		if (strncmp(p, name, n) != 0)
			continue;
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=')
			return 1;
	}
	return 0;
}

/* config/example.ini documents every key of every layer's table. */
static void
test_example_lists_every_key(void)
{
	const struct hc_config_table *t;
	unsigned int n, i, j, keys = 0;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config/example.ini", HC_SOURCE_ROOT);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	t = hc_config_tables(&n);
	for (i = 0; i < n; i++)
		for (j = 0; j < t[i].table->n; j++) {
			const struct hc_cfg_key *k = &t[i].table->keys[j];
			int ok = ini_documents(f, k->section, k->name);

			CU_ASSERT(ok);
			if (!ok)
				fprintf(stderr, "\n  [%s] %s is not in %s\n",
					k->section, k->name, path);
			keys++;
		}
	fclose(f);
	/* every key the loader knows: 62 in 7 sections (the newest:
	 * [transport] ack_delay_us, zero_copy_tx and shm_crc, [coll]
	 * precision and [job] key_file) */
	CU_ASSERT_EQUAL(keys, 62);
}

/* Each key's default lies in its range, its range (times the unit
 * factor) fits its field, and no key is listed twice. */
static void
test_tables_consistent(void)
{
	const struct hc_config_table *t;
	unsigned int n, i, j, i2, j2;

	t = hc_config_tables(&n);
	for (i = 0; i < n; i++)
		for (j = 0; j < t[i].table->n; j++) {
			const struct hc_cfg_key *k = &t[i].table->keys[j];
			uint64_t mul = k->mul != 0 ? k->mul : 1;
			uint64_t cap = k->type == HC_CFG_U16 ? UINT16_MAX :
				       k->type == HC_CFG_U32 ? UINT32_MAX :
				       UINT64_MAX;
			int bad = 0;

			switch (k->type) {
			case HC_CFG_U16:
			case HC_CFG_U32:
			case HC_CFG_U64:
				bad = k->min > k->max || k->max > cap / mul ||
				      (!k->required &&
				       (k->def < k->min || k->def > k->max));
				break;
			case HC_CFG_DOUBLE:
				bad = !(k->dmin <= k->dmax) ||
				      !(k->ddef <= k->dmax) ||
				      (k->min_open ? !(k->ddef > k->dmin) :
				       !(k->ddef >= k->dmin));
				break;
			case HC_CFG_BOOL:
				bad = k->def > 1;
				break;
			case HC_CFG_ENUM:
				bad = k->names == NULL ? k->parse == NULL ||
				      k->choices == NULL :
				      k->def >= k->n_names;
				break;
			case HC_CFG_STRING:
				bad = k->size == 0;
				break;
			}
			CU_ASSERT_FALSE(bad);
			if (bad)
				fprintf(stderr, "\n  [%s] %s: default, range or "
					"field size wrong\n", k->section,
					k->name);
			for (i2 = 0; i2 < n; i2++)
				for (j2 = 0; j2 < t[i2].table->n; j2++) {
					const struct hc_cfg_key *o =
						&t[i2].table->keys[j2];

					CU_ASSERT(o == k ||
						  strcmp(o->section,
							 k->section) != 0 ||
						  strcmp(o->name, k->name) != 0);
				}
		}
}

/* hc_addr_of_rank and hc-launch's rank_ip/rank_mac: one scheme. */
static void
test_addr_scheme(void)
{
	static const uint32_t ranks[] = { 0, 1, 248, 249, 250, 259, 1023,
					  HC_ADDR_RANKS - 1 };
	char cmd[8192], want[64], got[64], ipbuf[16];
	struct rte_ether_addr mac;
	uint32_t ip;
	size_t i, len;
	FILE *p;

	CU_ASSERT_EQUAL(hc_addr_of_rank(HC_ADDR_RANKS, &ip, &mac),
			-HC_ERR_INVAL);
	CU_ASSERT_EQUAL_FATAL(hc_addr_of_rank(0, &ip, &mac), 0);
	CU_ASSERT_EQUAL(ip, 0xc6120001u);	/* 198.18.0.1 */
	CU_ASSERT(rte_is_valid_assigned_ether_addr(&mac));
	/* the launcher's two one-line functions, run for each rank */
	len = (size_t)snprintf(cmd, sizeof(cmd), "bash -c 'eval \"$(grep -E "
			       "\"^rank_(ip|mac)\\(\\)\" %s/apps/hc-launch/"
			       "hc-launch)\"; for r in", HC_SOURCE_ROOT);
	for (i = 0; i < RTE_DIM(ranks); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %u",
					ranks[i]);
	snprintf(cmd + len, sizeof(cmd) - len, "; do echo \"$(rank_ip $r) "
		 "$(rank_mac $r)\"; done'");
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (i = 0; i < RTE_DIM(ranks); i++) {
		CU_ASSERT_EQUAL_FATAL(hc_addr_of_rank(ranks[i], &ip, &mac), 0);
		snprintf(want, sizeof(want), "%s " RTE_ETHER_ADDR_PRT_FMT "\n",
			 hc_ip_str(ip, ipbuf, sizeof(ipbuf)),
			 RTE_ETHER_ADDR_BYTES(&mac));
		for (len = 0; want[len] != '\0'; len++)
			want[len] = (char)tolower((unsigned char)want[len]);
		if (fgets(got, sizeof(got), p) == NULL)
			got[0] = '\0';
		CU_ASSERT_STRING_EQUAL(got, want);
	}
	CU_ASSERT_EQUAL(pclose(p), 0);
}

/* Three ranks, rank 0 with two ports: rank 1 by route.1, rank 2 (on
 * another subnet) by a prefix route via a gateway; a longer prefix wins
 * over route.default; a rank route wins over a prefix. */
#define JOB3 "[job]\nid = 7\nworld_size = 3\n"
#define R3_1 "[rank.1]\nip = 198.18.0.2\nport = net_tap1\n"
#define R3_2 "[rank.2]\nip = 198.19.1.3\nport = net_tap2\n"

static void
test_routes(void)
{
	struct hc_config cfg;
	struct hc_route rt;
	char log[LOG_MAX];
	int rc;

	rc = load_ini(JOB3 "[rank.0]\nip = 198.18.0.1\n"
		      "port0 = net_memif0,role=server\n"
		      "port1 = net_tap0,iface=x\n"
		      "route.1 = port0\n"
		      "route.default = port0\n"
		      "route.198.19.0.0/16 = port1 via 198.18.0.254\n"
		      R3_1 R3_2, &cfg, log, sizeof(log));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.ranks[0].nports, 2);
	CU_ASSERT_STRING_EQUAL(hc_rank_port(&cfg.ranks[0], 0),
			       "net_memif0,role=server");
	CU_ASSERT_STRING_EQUAL(hc_rank_port(&cfg.ranks[0], 1),
			       "net_tap0,iface=x");
	CU_ASSERT_EQUAL(cfg.ranks[0].nroutes, 3);
	CU_ASSERT_EQUAL(cfg.ranks[1].nports, 1);
	CU_ASSERT_EQUAL(hc_config_route(&cfg, 0, 1, &rt), 0);
	CU_ASSERT_EQUAL(rt.port, 0);
	CU_ASSERT_EQUAL(rt.next_hop, 0xc6120002u);
	CU_ASSERT_EQUAL(hc_config_route(&cfg, 0, 2, &rt), 0);
	CU_ASSERT_EQUAL(rt.port, 1);
	CU_ASSERT_EQUAL(rt.next_hop, 0xc61200feu); /* the gateway */
	/* one port, no routes: port 0, direct */
	CU_ASSERT_EQUAL(hc_config_route(&cfg, 1, 2, &rt), 0);
	CU_ASSERT_EQUAL(rt.port, 0);
	CU_ASSERT_EQUAL(rt.next_hop, 0xc6130103u);
	hc_config_free(&cfg);

	/* a rank route beats the longest prefix */
	rc = load_ini(JOB3 "[rank.0]\nip = 198.18.0.1\n"
		      "port0 = a\nport1 = b\n"
		      "route.198.19.1.0/24 = port1\nroute.2 = port0\n"
		      "route.1 = port1\n" R3_1 R3_2, &cfg, log, sizeof(log));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(hc_config_route(&cfg, 0, 2, &rt), 0);
	CU_ASSERT_EQUAL(rt.port, 0);
	CU_ASSERT_EQUAL(hc_config_route(&cfg, 0, 1, &rt), 0);
	CU_ASSERT_EQUAL(rt.port, 1);
	hc_config_free(&cfg);
}

static void
test_route_errors(void)
{
	/* two ports and no route for rank 2: the error names the peer */
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "port1 = b\nroute.1 = port0\n" R3_1 R3_2,
		     "[rank.0]: no route reaches rank 2 (198.19.1.3)");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "port2 = b\n" R3_1 R3_2,
		     "[rank.0] port2: port1 is missing");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport = a\n"
		     "port0 = b\n" R3_1 R3_2,
		     "[rank.0] port0: both port and port0 given");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "route.1 = port1\n" R3_1 R3_2,
		     "[rank.0] route.1: 'port1' does not start with a port "
		     "port0..port0");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "route.3 = port0\n" R3_1 R3_2,
		     "[rank.0] route.3: '3' is not a rank below 3");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "route.198.19.1.1/24 = port0\n" R3_1 R3_2,
		     "'198.19.1.1/24' has host bits set");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "route.1 = port0 via\n" R3_1 R3_2,
		     "'port0 via' is not portK [via a.b.c.d]");
	expect_error(JOB3 "[rank.0]\nip = 198.18.0.1\nport0 = a\n"
		     "port16 = b\n" R3_1 R3_2, "[rank.0] port16: unknown key");
}

static const CU_TestInfo config_tests[] = {
	{ "[rank.N] port0..K and route.* keys", test_routes },
	{ "error: routes and ports", test_route_errors },
	{ "config/example.ini, tap-2.ini, tap-4.ini load", test_shipped_files },
	{ "valid 2-rank file, defaults", test_valid_defaults },
	{ "valid file with every kind of override", test_valid_overrides },
	{ "environment overrides the [fault] section", test_env_overrides },
	{ "[fault] rules, drop_last_once, HC_FAULT", test_fault_rules },
	{ "error: [job] world_size missing", test_missing_world_size },
	{ "error: world_size 0", test_world_size_zero },
	{ "error: [rank.1] missing", test_missing_rank },
	{ "error: [rank.5] with world_size 2", test_rank_beyond_world },
	{ "error: [rank.100] and [rank.x] with world_size 2",
	  test_rank_section_unknown },
	{ "error: duplicate IPs", test_duplicate_ip },
	{ "error: IP 198.18.0.300", test_bad_ip },
	{ "error: multicast MAC", test_multicast_mac },
	{ "error: broadcast MAC", test_broadcast_mac },
	{ "error: duplicate MACs", test_duplicate_mac },
	{ "error: malformed and zero MACs (C37)", test_malformed_mac },
	{ "error: a section twice, [rank.1] twice", test_duplicate_section },
	{ "error: a key twice in a section", test_duplicate_key },
	{ "error: a value over 255 or a name over 63 characters",
	  test_long_value },
	{ "error: a line without '=', text after a header, '#' with '='",
	  test_not_a_key_line },
	{ "[job] key_file: missing, mode 0644, short; key = BLAKE2b", test_key_file },
	{ "generated MACs: locally administered, unique (C37)",
	  test_generated_macs },
	{ "error: unknown key in [transport]", test_unknown_key },
	{ "error: unknown section", test_unknown_section },
	{ "error: window_pkts not a number in range", test_non_numeric },
	{ "error: junk after 0x, blanks or a sign before an integer",
	  test_integer_syntax },
	{ "mtu up to 65000, pool_mbufs 0 = auto, explicit >= 1023",
	  test_mtu_pool },
	{ "error: rto_min_us > rto_max_us", test_rto_min_above_max },
	{ "error: cc, windows, fractions", test_bad_cc },
	{ "[coll] algo, [rank.N] group, HC_ALGO", test_algo_group },
	{ "error: [engine] idle = fast", test_bad_idle },
	{ "error: no file, no path, not INI", test_unreadable },
	{ "config/example.ini documents every table key",
	  test_example_lists_every_key },
	{ "key tables: defaults in range, ranges fit fields",
	  test_tables_consistent },
	{ "hc_addr_of_rank and hc-launch give the same addresses",
	  test_addr_scheme },
	CU_TEST_INFO_NULL,
};

void
add_config_suite(void)
{
	unit_add_suite("config", config_suite_init, NULL, config_tests);
}
