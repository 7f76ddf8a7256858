/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Configuration keys as data. Each layer lists the cluster-file keys it
 * uses in a table next to its code (drivers/port_cfg.c, stack/net/net_cfg.c,
 * stack/transport/hct_cfg.c, stack/coll/coll_cfg.c, stack/engine/config.c):
 * section and name, the value's unit and range as written in the file, its
 * default, and the field it fills in the layer's own config struct (C type,
 * offset, factor from the file's unit to the field's). The loader in
 * stack/engine/config.c walks the tables; every range and default is stated
 * there once. config/example.ini documents every key (test_config checks
 * that it lists each one).
 */
#ifndef HC_BASE_CFGKEY_H
#define HC_BASE_CFGKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** C type of the field a key fills. */
enum hc_cfg_type {
	HC_CFG_U16,    /**< uint16_t; integers are decimal or 0x hexadecimal */
	HC_CFG_U32,    /**< uint32_t */
	HC_CFG_U64,    /**< uint64_t */
	HC_CFG_DOUBLE, /**< double (strtod syntax) */
	HC_CFG_BOOL,   /**< bool, written 0 or 1 */
	HC_CFG_ENUM,   /**< an enum (int-sized), written as a keyword */
	HC_CFG_STRING, /**< char[size], optionally checked by check() */
};

/** One key of the cluster file. Members a type does not use stay zero. */
struct hc_cfg_key {
	const char *section;  /**< "[transport]" is "transport" */
	const char *name;     /**< "rto_min_us" */
	enum hc_cfg_type type;
	const char *unit;     /**< unit of the value in the file ("us",
	                       *   "packets", "bytes"), "" when none */
	size_t off;           /**< offset of the field in the layer's struct */
	size_t size;          /**< HC_CFG_STRING: bytes of the field */
	/** Integers: default and range in the file's unit; bool: def 0|1;
	 *  enum: def is the default value. */
	uint64_t def, min, max;
	/** Integers: field = value * mul (0 means 1), e.g. 1000 for us to
	 *  ns. The range must keep max * mul within the field's type. */
	uint64_t mul;
	/** Doubles: default and range; min_open excludes min itself. */
	double ddef, dmin, dmax;
	bool min_open;
	/** Doubles: field = value / div (0 means 1), e.g. 100 for a percent
	 *  stored as a fraction. */
	double div;
	/** Numbers: what the value must be, for errors ("'x' is not NOUN
	 *  MIN..MAX"); NULL: "an integer in", "a number in". The range is
	 *  left out when it is the whole of uint64_t. */
	const char *noun;
	/** Enum: keywords indexed by value (names[0..n_names-1]) ... */
	const char *const *names;
	uint32_t n_names;
	/** ... or a parser returning the value of a keyword, -1 if none; with
	 *  choices listing them for errors ("ring, tree or auto"). */
	int (*parse)(const char *v);
	const char *choices;
	/** String: 0 when v is valid, else -1 and the reason in err. */
	int (*check)(const char *v, char *err, size_t errlen);
	/** Environment variable whose value wins over the file's, or NULL. */
	const char *env;
	/** How an invalid value from env is reported: true: at the key, as a
	 *  file value, with " (from ENV)" after it; false: "ENV: reason". */
	bool env_at_key;
	bool required;        /**< the file must give it */
};

/** A layer's keys, and the checks that relate several of them. */
struct hc_cfg_table {
	const struct hc_cfg_key *keys;
	unsigned int n;
	/**
	 * Checks between keys once each parsed without error, or NULL. conf
	 * is the layer's struct. @return 0, or -1 with *key the key blamed
	 * (one of the table's) and its reason in err.
	 */
	int (*check)(const void *conf, const struct hc_cfg_key **key,
		     char *err, size_t errlen);
};

/** Every key of t at its default, into the layer's struct conf. */
void hc_cfg_defaults(const struct hc_cfg_table *t, void *conf);

/**
 * Parse value v of key k into its field in conf (the layer's struct).
 * @param tag text placed after the quoted value in err, e.g.
 *        " (from HC_ALGO)"; "" for none.
 * @return 0, or -1 (field untouched) with the reason in err, e.g. "'64k'
 *         is not an integer in 1..4096".
 */
int hc_cfg_parse(const struct hc_cfg_key *k, const char *v, const char *tag,
		 void *conf, char *err, size_t errlen);

/**
 * Parse an unsigned integer in min..max: decimal, or hexadecimal after
 * 0x; never octal (010 is ten); digits only, from the first character (or
 * the first after 0x) to the last: no blank, sign or second 0x ("0x-1",
 * "0x 64", "0x0x64", " 5" and "+5" are refused), no trailing text.
 * @return 0 and *out, or -1 (also when the value overflows 64 bits).
 */
int hc_cfg_parse_u64(const char *s, uint64_t min, uint64_t max,
		     uint64_t *out);

/** Find key section/name in t. @return the key or NULL. */
const struct hc_cfg_key *hc_cfg_find(const struct hc_cfg_table *t,
				     const char *section, const char *name);

#endif /* HC_BASE_CFGKEY_H */
