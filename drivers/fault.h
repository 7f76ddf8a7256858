/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Seeded fault injector applied by the port layer to frames it sends (TX)
 * and to frames the backend received (RX). Deterministic for a seed: the
 * same seed and the same sequence of frames (and times) give the same
 * faults. The port layer knows nothing of the transport, so the stack
 * installs a classifier that names each frame's class.
 *
 * Faults, each with its own probability per (direction, class): drop,
 * duplicate, reorder, delay, corrupt, truncate (enum hc_fault_kind), plus
 * drop_last_once on TX. They are given as a rule string (hc_fault_parse):
 *
 *     rule[|rule...]    rule = key=value[,key=value...]
 *
 * (';' separates rules too, but in an INI file it starts a comment.)
 * keys: dir = tx|rx|both (default both); class = data|ack|control|other|all
 * (default all); drop, dup, reorder, delay, corrupt, truncate = percent
 * 0..100 (decimals allowed); reorder_window = frames 1..HC_FAULT_HOLD
 * (default 8); delay_us = µs 0..10000000 (default 1000); hold_max_us = µs
 * 1..10000000 (default 10000, bound on a reordered frame's hold);
 * start_ms = ms 0..86400000 (the rule applies only from start_ms after
 * hc_fault_set_epoch(); unset: always). A later rule overrides the keys
 * it names for the (direction, class) pairs it selects.
 */
#ifndef HC_DRIVERS_FAULT_H
#define HC_DRIVERS_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "cfgkey.h"
#include "hypercomm_fault.h"

/** Frames held (reorder, delay) per direction; more are not held. */
#define HC_FAULT_HOLD 64
/** Most frames one hc_fault_apply() or hc_fault_release() call returns. */
#define HC_FAULT_OUT_MAX (HC_FAULT_HOLD + 2)
/** Longest rule string, bytes including the NUL. */
#define HC_FAULT_RULES_MAX 1024

/** The faults of one (direction, class). */
struct hc_fault_rule {
	/** Probability 0..1 per fault (HC_FAULT_DROP_LAST unused here). */
	double p[HC_FAULT_KIND__MAX];
	uint32_t reorder_window; /**< frames, 1..HC_FAULT_HOLD */
	uint64_t delay_ns;       /**< hold time of a delayed frame */
	uint64_t hold_max_ns;    /**< longest hold of a reordered frame */
	int64_t start_ns;        /**< active from epoch + start_ns; -1: always */
};

/** A held frame. */
/* mbufs a frame keeps from its pool: its segments, and for each indirect
 * one (a retransmission by clone) the direct mbuf it points at, which the
 * transport may have let go of since (its ACK, a lost peer). An upper
 * bound, for the leak check (hc_mbuf_stats_get). */
static inline uint32_t
hc_frame_mbufs(const struct rte_mbuf *m)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next)
		n += 1 + (RTE_MBUF_CLONED(m) ? 1 : 0);
	return n;
}

struct hc_fault_held {
	struct rte_mbuf *m;
	uint32_t after;  /**< released after this many more frames; 0: by time */
	uint64_t due_ns; /**< released at this time at the latest */
};

struct hc_fault {
	struct hc_fault_rule rule[HC_FAULT_DIR__MAX][HC_FAULT_CLASS__MAX];
	bool drop_last_once; /**< drop first transmissions of LAST DATA (TX) */
	bool active[HC_FAULT_DIR__MAX]; /**< any fault set for the direction */
	/**
	 * Names a frame's class; sets *tail when the frame is the first
	 * transmission of the last DATA packet of a message. NULL: every
	 * frame is OTHER.
	 */
	enum hc_fault_class (*classify)(const struct rte_mbuf *m,
					const void *arg, bool *tail);
	const void *classify_arg; /**< passed to classify */
	uint64_t state;           /**< xorshift64* state, never 0 */
	uint64_t epoch_ns;        /**< set by hc_fault_set_epoch; UINT64_MAX:
	                           *   rules with start_ms stay inactive */
	struct hc_fault_held held[HC_FAULT_DIR__MAX][HC_FAULT_HOLD];
	uint32_t nheld[HC_FAULT_DIR__MAX];
	/* mbufs the held frames keep (hc_frame_mbufs), for
	 * hc_mbuf_stats_get on another thread */
	uint32_t nheld_segs[HC_FAULT_DIR__MAX];
	struct hc_fault_stats stats;
};

/** The [fault] section of the cluster file (keys in fault_cfg.c). */
struct hc_fault_conf {
	uint64_t seed;        /**< [fault] seed; rank r draws from seed + r */
	double drop_data;     /**< [fault] drop_data_pct / 100: probability of
	                       *   dropping a DATA frame on TX */
	bool drop_last_once;  /**< [fault] drop_last_once */
	char rules[HC_FAULT_RULES_MAX]; /**< [fault] rules, checked; "" when
	                                 *   unset */
};

/** The keys of struct hc_fault_conf. */
extern const struct hc_cfg_table hc_fault_cfg_table;

/**
 * Set f up from conf: hc_fault_init() with seed conf->seed + seed_add,
 * drop_last_once, the TX DATA drop probability, then conf->rules (applied
 * after it). The classifier is left to the caller.
 * @return 0, or -HC_ERR_CONFIG with the rules' error in err.
 */
int hc_fault_configure(struct hc_fault *f, const struct hc_fault_conf *conf,
		       uint64_t seed_add, char *err, size_t errlen);

/** Reset the injector: no faults, PRNG seeded with seed, nothing held. */
void hc_fault_init(struct hc_fault *f, uint64_t seed);

/** Uniform double in [0, 1) from the injector's PRNG (xorshift64*,
 *  Vigna, "An experimental exploration of Marsaglia's xorshift
 *  generators, scrambled", ACM TOMS 42(4), 2016). */
double hc_fault_uniform(struct hc_fault *f);

/**
 * Add the rules of a rule string (syntax in the file comment) to f.
 * On error f is unchanged and err holds one line naming the bad token,
 * e.g. "rule 2: unknown key 'drpo'" or "rule 1: drop='x': not a percent
 * 0..100".
 * @return 0, or -HC_ERR_CONFIG.
 */
int hc_fault_parse(struct hc_fault *f, const char *rules, char *err,
		   size_t errlen);

/** Set probability p (0..1) of fault k for (dir, class). */
void hc_fault_set(struct hc_fault *f, enum hc_fault_dir dir,
		  enum hc_fault_class cls, enum hc_fault_kind k, double p);

/**
 * Whether the injector may change the bytes of a frame of direction dir:
 * a corrupt or truncate probability above 0 for any class, whatever the
 * rule's start_ms (a rule active later counts now). What the transport's
 * CRC coverage on shared-memory links asks (hct_hdr.h, "CRC coverage"):
 * such a link corrupts nothing by itself, this injector can.
 */
bool hc_fault_alters_bytes(const struct hc_fault *f, enum hc_fault_dir dir);

/** Rules with start_ms count from now_ns (the end of set-up). */
void hc_fault_set_epoch(struct hc_fault *f, uint64_t now_ns);

/**
 * Pass one frame of direction dir through the injector at time now_ns.
 * The injector owns m. out receives, in order, the frames to send or
 * deliver now: m (unless dropped or held), its duplicate, then held
 * frames due after this frame or by time.
 * @return number of frames in out, 0..HC_FAULT_OUT_MAX.
 */
unsigned int hc_fault_apply(struct hc_fault *f, enum hc_fault_dir dir,
			    struct rte_mbuf *m, uint64_t now_ns,
			    struct rte_mbuf **out);

/** Held frames of dir whose time came (due_ns <= now_ns), in order.
 *  @return number of frames in out, 0..HC_FAULT_HOLD. */
unsigned int hc_fault_release(struct hc_fault *f, enum hc_fault_dir dir,
			      uint64_t now_ns, struct rte_mbuf **out);

/** Free every held frame. */
void hc_fault_free_held(struct hc_fault *f);

#endif /* HC_DRIVERS_FAULT_H */
