/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Seeded fault injector applied by the port layer on TX. Deterministic for a
 * seed: the same seed and the same sequence of frames drop the same frames.
 * The port layer knows nothing of the transport, so the stack installs a
 * classifier that names each frame's kind.
 */
#ifndef HC_DRIVERS_FAULT_H
#define HC_DRIVERS_FAULT_H

#include <stdint.h>

#include <rte_mbuf.h>

/** Frame kinds the injector can target. */
enum hc_fault_class {
	HC_FAULT_CLASS_OTHER = 0, /**< ARP, ICMP, anything not HCT */
	HC_FAULT_CLASS_DATA,      /**< HCT DATA */
	HC_FAULT_CLASS_ACK,       /**< HCT ACK */
	HC_FAULT_CLASS_CONTROL,   /**< HCT HELLO and other control */
	HC_FAULT_CLASS__MAX
};

struct hc_fault {
	/** Probability 0..1 of dropping a frame, per class. */
	double drop[HC_FAULT_CLASS__MAX];
	/** Names a frame's class; NULL: every frame is OTHER. */
	enum hc_fault_class (*classify)(const struct rte_mbuf *m,
					const void *arg);
	const void *classify_arg; /**< passed to classify */
	uint64_t state;           /**< xorshift64* state, never 0 */
	uint64_t dropped[HC_FAULT_CLASS__MAX]; /**< frames dropped, per class */
};

/** Reset the injector: no faults, PRNG seeded with seed. */
void hc_fault_init(struct hc_fault *f, uint64_t seed);

/** Uniform double in [0, 1) from the injector's PRNG (xorshift64*,
 *  Vigna, "An experimental exploration of Marsaglia's xorshift
 *  generators, scrambled", ACM TOMS 42(4), 2016). */
double hc_fault_uniform(struct hc_fault *f);

/** True when m should be dropped; counts it. */
int hc_fault_should_drop(struct hc_fault *f, const struct rte_mbuf *m);

#endif /* HC_DRIVERS_FAULT_H */
