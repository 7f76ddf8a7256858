/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the stack harnesses (fuzz_frame.c, fuzz_hct.c) share: the EAL
 * (--no-huge, as the sim tests), a live two-rank stack on the
 * virtual-time network of stack/sim (simrun.h: the real port, net, HCT,
 * collectives and engine of each rank), a collective in flight, frame
 * building and the capture of the frames rank 0 receives (the seed
 * corpus, HC_FUZZ_CAPTURE=DIR).
 *
 * The state a fuzzed frame meets: both ranks established (HELLO done,
 * ARP resolved), a 2-rank all-reduce of FS_COUNT floats in flight with
 * rank 1's TX dropping FS_DROP_PCT % of its DATA, stepped until rank 0 has
 * received part of the message and has a hole (a loss): established,
 * mid-message, after a loss. Each input is handed to rank 0's network
 * input and the run stepped FS_STEPS_PER_INPUT times; the run is rebuilt
 * (same seed: the same nonces, so the captured seeds stay valid) when the
 * all-reduce ended or after FS_INPUTS_PER_RUN inputs, so the state stays
 * mid-message. Inputs see a state that depends on the inputs before them
 * (libFuzzer's persistent mode); a crash input is re-checked alone by
 * running the harness on it (tests/bench/fuzz prints how).
 */
#ifndef HC_TESTS_FUZZ_FUZZ_SIM_H
#define HC_TESTS_FUZZ_FUZZ_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct hc_simrun;

/** Floats per rank of the all-reduce in flight (1 MiB). */
#define FS_COUNT (256 * 1024)
/** Rank 1's TX DATA drop probability, percent. */
#define FS_DROP_PCT 5
/** hc_simrun_step() calls after each input. */
#define FS_STEPS_PER_INPUT 4
/** Inputs before the run is rebuilt. */
#define FS_INPUTS_PER_RUN 2000

/** Start the EAL and build the state; exits on failure (printed). */
void fs_init(const char *prog);

/** libFuzzer's start-up hook, defined once here for every harness that
 *  links this library: fs_init(argv[0]). @return 0. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/** The live run (rebuilt by fs_after_input). */
struct hc_simrun *fs_run(void);

/** An mbuf of rank 0's pool holding len bytes of frame, or NULL
 *  (len above the data room: no NIC delivers it). */
struct rte_mbuf *fs_frame_mbuf(const uint8_t *frame, size_t len);

/** Hand m to rank 0's network input (as its port received it), step the
 *  run, rebuild it when due. */
void fs_deliver(struct rte_mbuf *m);

/** Build, into buf (at least 42 + len bytes), the Ethernet, IPv4 and UDP
 *  headers of a datagram from rank 1 to rank 0 (their MACs, IPs and the
 *  UDP port, IPv4 checksum right, UDP checksum 0) followed by the len
 *  bytes of payload. @return the frame's length. */
size_t fs_udp_frame(uint8_t *buf, const uint8_t *payload, size_t len);

#endif /* HC_TESTS_FUZZ_FUZZ_SIM_H */
