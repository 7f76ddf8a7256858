#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the Python package, run as ranks by hc-launch:

    hc-launch -n 4 tests/python/test_hypercomm.py [--suite all|core|bucket|repro]
    hc-launch -n 1 tests/python/test_hypercomm.py --suite affinity [--pin-only]

Each case prints "PASS name" or "FAIL name: why" (tests/run counts them,
as hc-check's). Values follow hc-check's patterns: rank r contributes
f(r, i), the expected result is computed with numpy.
"""
import argparse
import array
import os
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import numpy as np  # noqa: E402

import hypercomm as hc  # noqa: E402

failures = 0


def case(fn):
    global failures
    try:
        fn()
        print(f"PASS {fn.__name__}", flush=True)
    except Exception as e:  # a case reports, the next one runs
        failures += 1
        tb = traceback.format_exc().strip().splitlines()
        print(f"FAIL {fn.__name__}: {type(e).__name__}: {e} "
              f"({tb[-3].strip() if len(tb) > 2 else ''})", flush=True)
    return fn


def eq(a, b, what=""):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.array_equal(a, b):
        raise AssertionError(f"{what}: got {a.ravel()[:6]}..., "
                             f"want {b.ravel()[:6]}...")


def raises(exc, fn, *a, **k):
    try:
        fn(*a, **k)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


def pattern(r, n, dtype):
    return ((np.arange(n) * 7 + r * 3) % 11 + 1).astype(dtype)


def suite_core(ctx):
    w = ctx.world
    n, me = w.size, w.rank

    @case
    def allreduce_ops():
        for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8,
                   np.float16):
            cnt = 1000
            per = [pattern(r, cnt, dt) for r in range(n)]
            for op, f in (("sum", np.sum), ("max", np.max), ("min", np.min),
                          ("prod", np.prod)):
                got = w.allreduce(per[me], op=op)
                want = f(np.stack(per).astype(np.float64 if dt in (
                    np.float16, np.float32, np.float64) else dt), axis=0)
                if dt in (np.float16,):
                    want = want.astype(np.float32).astype(dt)
                eq(got, want.astype(dt), f"{op} {np.dtype(dt)}")
            got = w.allreduce(per[me].astype(np.float64) if False else
                              per[me], op="avg")
            if np.dtype(dt).kind == "f":
                want = (np.stack(per).astype(np.float64).sum(0) / n)
                if not np.allclose(got, want, rtol=1e-3):
                    raise AssertionError(f"avg {np.dtype(dt)}")

    @case
    def allreduce_in_place_and_2d():
        a = pattern(me, 4 * 6, np.float32).reshape(4, 6)
        want = sum(pattern(r, 24, np.float32) for r in range(n)).reshape(4, 6)
        out = w.allreduce(a, a)
        if out is not a:
            raise AssertionError("in place did not return the array")
        eq(a, want, "in place")

    @case
    def reduce_scatter_allgather():
        cnt = 5
        full = [pattern(r, n * cnt, np.int32) for r in range(n)]
        got = w.reduce_scatter(full[me])
        eq(got, np.sum(full, axis=0)[me * cnt:(me + 1) * cnt], "rs")
        got = w.allgather(pattern(me, cnt, np.float64))
        eq(got, np.concatenate([pattern(r, cnt, np.float64)
                                for r in range(n)]), "ag")

    @case
    def v_variants():
        counts = [q + (0 if q % 3 == 1 else 2) for q in range(n)]
        total = sum(counts)
        full = [pattern(r, total, np.float32) for r in range(n)]
        recv = np.empty(counts[me], np.float32)
        w.reduce_scatterv(full[me], recv, counts)
        off = sum(counts[:me])
        eq(recv, np.sum(full, axis=0)[off:off + counts[me]], "rsv")
        out = np.full(total, -1, np.float32)
        w.allgatherv(pattern(me, counts[me], np.float32), out, counts)
        eq(out, np.concatenate([pattern(r, counts[r], np.float32)
                                for r in range(n)]), "agv")

    @case
    def broadcast_reduce_every_root():
        for root in range(n):
            b = pattern(me, 33, np.int64) if me == root else \
                np.zeros(33, np.int64)
            w.broadcast(b, root)
            eq(b, pattern(root, 33, np.int64), f"bcast root {root}")
            r = w.reduce(pattern(me, 17, np.float64), op="max", root=root)
            if me == root:
                eq(r, np.max([pattern(q, 17, np.float64) for q in range(n)],
                             axis=0), f"reduce root {root}")
            elif r is not None:
                raise AssertionError("reduce returned data off the root")

    @case
    def barrier_and_send_recv_ring():
        w.barrier()
        if n == 1:
            return
        right, left = (me + 1) % n, (me - 1) % n
        got = np.zeros(100, np.int32)
        rr = w.irecv(got, left)
        w.send(pattern(me, 100, np.int32), right)
        rr.wait()
        eq(got, pattern(left, 100, np.int32), "ring shift")

    @case
    def async_many_in_flight_test_poll():
        bufs = [pattern(me + k, 64 + k, np.float32) for k in range(32)]
        reqs = [w.iallreduce(b, b) for b in bufs]
        deadline = time.time() + 60
        pending = list(reqs)
        while pending and time.time() < deadline:
            pending = [r for r in pending if not r.test()]
        if pending:
            raise AssertionError(f"{len(pending)} requests never done")
        for k, b in enumerate(bufs):
            eq(b, sum(pattern(r + k, 64 + k, np.float32) for r in range(n)),
               f"request {k}")
        hc.wait_all([w.ibarrier()])

    @case
    def buffer_protocol_objects():
        ba = bytearray([me + 1] * 10)
        w.allreduce(ba, ba)
        eq(np.frombuffer(ba, np.uint8), [sum(range(1, n + 1))] * 10, "bytes")
        ad = array.array("d", [float(me)] * 7)
        out = array.array("d", [0.0] * 7)
        w.allreduce(ad, out, op="max")
        eq(np.asarray(out), [float(n - 1)] * 7, "array.array")
        mv = memoryview(np.full(3, me, np.int64))
        got = w.allreduce(mv)
        eq(got, [sum(range(n))] * 3, "memoryview")

    @case
    def bad_arguments_before_sending():
        tx0 = ctx.stats()["hct_data_tx"]
        a32 = np.zeros(8, np.float32)
        raises(TypeError, w.allreduce, a32, np.zeros(8, np.float64))
        raises(ValueError, w.allreduce, a32, np.zeros(9, np.float32))
        raises(TypeError, w.allreduce, a32, dtype=hc.INT32)
        raises(TypeError, w.allreduce, np.zeros(4, np.uint16))
        raises(TypeError, w.allreduce, object())
        raises(ValueError, w.allreduce, a32, np.zeros(8, np.float32)[::1],
               op="mean")
        raises(ValueError, w.allreduce, a32, bytes(32), dtype=None)
        raises(ValueError, w.allreduce, np.zeros((4, 4), np.float32)[:, 1])
        if n > 1:
            raises(ValueError, w.reduce_scatter,
                   np.zeros(n * 3 + 1, np.float32))
        raises(ValueError, w.allgather, a32, np.zeros(8 * n + 1, np.float32))
        raises(ValueError, w.broadcast, a32, n)
        raises(ValueError, w.send, a32, me)
        raises(ValueError, w.allreduce, a32, priority="urgent")
        raises(ValueError, w.reduce_scatterv, a32, a32, [1] * (n + 1))
        if ctx.stats()["hct_data_tx"] != tx0:
            raise AssertionError("a refused call sent data")

    @case
    def library_error_as_exception():
        e = raises(hc.HypercommError, w.split, -5)
        if not isinstance(e, hc.InvalError) or e.name != "HC_ERR_INVAL" or \
                e.code != 1 or e.message != "invalid argument":
            raise AssertionError(f"got {type(e).__name__} {e.name} {e.code} "
                                 f"{e.message!r}")
        if hc.error_class(-7) is not hc.TimeoutError or \
                not issubclass(hc.TimeoutError, TimeoutError) or \
                hc.TimeoutError.name != "HC_ERR_TIMEOUT":
            raise AssertionError("HC_ERR_TIMEOUT's class")
        names = {hc.error_class(c).name for c in range(1, 13)}
        if len(names) != 12:
            raise AssertionError(f"error classes {names}")

    @case
    def split_even_odd():
        sub = w.split(me % 2, -me)
        if sub.size != (n + 1 - me % 2) // 2:
            raise AssertionError(f"size {sub.size}")
        members = [r for r in range(n) if r % 2 == me % 2]
        if sub.rank != sorted(members, reverse=True).index(me):
            raise AssertionError(f"rank {sub.rank} (key -rank)")
        got = sub.allreduce(np.array([me], np.int64))
        eq(got, [sum(members)], "sub allreduce")
        if w.split(hc.SPLIT_NONE) is not None:
            raise AssertionError("SPLIT_NONE gave a communicator")

    @case
    def hsdp_communicators():
        if n % 2:
            return
        h = hc.HSDPConfig(2, n // 2).build(w)
        if h.shard.size != 2 or h.replica.size != n // 2:
            raise AssertionError(f"sizes {h.shard.size} {h.replica.size}")
        sm = h.shard.allgather(np.array([me], np.int64))
        eq(sm, [me - me % 2, me - me % 2 + 1], "shard members")
        rm = h.replica.allgather(np.array([me], np.int64))
        eq(rm, list(range(me % 2, n, 2)), "replica members")
        # gradient path: reduce-scatter in shard then all-reduce across
        # replicas = the world average of this rank's global shard
        g = pattern(me, 8, np.float64)
        mine = h.reduce_gradients(g).wait()
        full = np.mean([pattern(r, 8, np.float64) for r in range(n)], 0)
        s = h.shard.rank
        if not np.allclose(mine, full[s * 4:(s + 1) * 4], rtol=1e-12):
            raise AssertionError(f"grad shard {mine} vs {full}")
        p = h.gather_params(np.full(3, float(h.shard.rank))).wait()
        eq(p, [0, 0, 0, 1, 1, 1], "param all-gather")
        raises(ValueError, hc.HSDPConfig(3, 3).build, w)
        raises(hc.InvalError, w.hsdp, 3)

    @case
    def priority_classes_on_the_wire():
        if n == 1:
            return
        for prio, k in (("critical", 1), ("bulk", 3), (None, 2)):
            before = ctx.stats()["hct_data_tx_class"]
            w.allreduce(np.ones(20000, np.float32), priority=prio)
            after = ctx.stats()["hct_data_tx_class"]
            d = [a - b for a, b in zip(after, before)]
            if d[k] == 0 or any(d[j] for j in (1, 2, 3) if j != k):
                raise AssertionError(f"priority {prio}: class deltas {d}")

    @case
    def stats_and_metrics():
        s = ctx.stats()
        if n > 1 and (s["hct_data_tx"] == 0 or s["port_rx_pkts"] == 0):
            raise AssertionError(f"stats {s}")
        cnt = 50000
        a = np.ones(cnt, np.float32)
        ctx.step_begin()
        r = w.iallreduce(a, a)
        t0 = time.time()
        while time.time() - t0 < 0.05:   # "compute" while it runs
            pass
        r.wait()
        ctx.step_end()
        m = ctx.metrics()
        last = m["last"]
        want_bus = cnt * 4 * 2 * (n - 1) / n
        if m["steps"] < 1 or abs(last["bus_bytes"] - want_bus) > 1e-6:
            raise AssertionError(f"bus bytes {last['bus_bytes']} want "
                                 f"{want_bus}")
        if not (last["step_us"] >= 45000 and 0 <= last["bubble_rate"] <= 1
                and last["comm_us"] > 0 and
                abs(last["compute_us"] - (last["step_us"] - last["wait_us"]))
                < 1e-6):
            raise AssertionError(f"metrics {m}")
        if n > 1 and not (m["link_GBps"] > 0 and last["utilization"] > 0):
            raise AssertionError(f"link {m['link_GBps']}")
        raises(hc.InvalError, ctx.step_end)   # no step begun

    @case
    def recv_timeout_raises_timeout_error():
        # last: the timed-out receive is not matched by any send
        if n == 1:
            return
        if me == 0:
            t0 = time.time()
            e = raises(hc.TimeoutError, w.recv, np.zeros(4, np.int32), 1,
                       timeout_ms=300)
            dt = time.time() - t0
            if e.name != "HC_ERR_TIMEOUT" or not 0.25 < dt < 10:
                raise AssertionError(f"{e.name} after {dt:.2f} s")
        w.barrier()


def suite_bucket(ctx):
    """hc_bucketer through the Python wrapper."""
    w = ctx.world
    n, me = w.size, w.rank
    sizes = [3000, 500, 2000, 2000, 700, 5000]   # float32 elements

    def grads_of(step):
        return [pattern(me + step + i, c, np.float32)
                for i, c in enumerate(sizes)]

    def want_of(step):
        return [np.mean([pattern(r + step + i, c, np.float32).astype(
            np.float64) for r in range(n)], 0) for i, c in enumerate(sizes)]

    def close(got, want, what):
        for i, (g, x) in enumerate(zip(got, want)):
            if not np.allclose(g, x, rtol=1e-6):
                raise AssertionError(f"{what}: gradient {i}")

    @case
    def bucket_layout_reverse_order_and_priority():
        g = grads_of(0)
        b = hc.Bucketer(w, g, bucket_bytes=16000)
        bk = b.buckets()
        order = [i for x in bk for i in x["grads"]]
        if order != list(range(len(sizes) - 1, -1, -1)):
            raise AssertionError(f"order {order}")
        for x in bk:
            if sum(sizes[i] * 4 for i in x["grads"]) != x["bytes"] or \
                    (x["bytes"] > 16000 and len(x["grads"]) > 1):
                raise AssertionError(f"bucket {x}")
            want = hc.PRIO_CRITICAL if 0 in x["grads"] else hc.PRIO_NORMAL
            if x["priority"] != want:
                raise AssertionError(f"bucket {x} priority")
        if len(bk) < 3:
            raise AssertionError(f"{len(bk)} buckets")
        big = hc.Bucketer(w, g)
        if len(big.buckets()) != 1 or \
                big.buckets()[0]["priority"] != hc.PRIO_CRITICAL:
            raise AssertionError("default 25 MiB: one bucket")
        big.free()
        b.free()

    @case
    def bucket_launch_on_ready_and_average():
        if n == 1:
            return
        g = grads_of(0)
        b = hc.Bucketer(w, g, bucket_bytes=16000)
        first = b.buckets()[0]["grads"]
        w.barrier()
        c0 = ctx.stats()["hct_data_tx_class"][2]
        for i in first:
            b.mark_ready(i)
        t0 = time.time()
        while ctx.stats()["hct_data_tx_class"][2] == c0 and \
                time.time() - t0 < 10:
            time.sleep(0.01)
        if ctx.stats()["hct_data_tx_class"][2] == c0:
            raise AssertionError("bucket 0 sent nothing after its grads "
                                 "were ready")
        rest = [i for i in range(len(sizes) - 1, -1, -1) if i not in first]
        for i in rest:
            b.mark_ready(i)
        b.wait()
        close(g, want_of(0), "step 0")
        raises(hc.InvalError, b.mark_ready, len(sizes))
        b.mark_ready(1)
        raises(hc.InvalError, b.mark_ready, 1)
        b.wait()     # marks the rest; keeps ranks matched
        if b.rebuilt:
            raise AssertionError("rebuilt though the order was declared")
        b.free()

    @case
    def bucket_priority_on_the_wire():
        if n == 1:
            return
        g = grads_of(1)
        b = hc.Bucketer(w, g, bucket_bytes=16000)
        crit = [x for x in b.buckets() if x["priority"] == hc.PRIO_CRITICAL]
        w.barrier()
        before = ctx.stats()["hct_data_tx_class"]
        for i in range(len(sizes) - 1, -1, -1):
            b.mark_ready(i)
        b.wait()
        after = ctx.stats()["hct_data_tx_class"]
        d = [a - x for a, x in zip(after, before)]
        close(g, want_of(1), "step")
        # critical: the bucket of gradient 0 (its bytes over the MTU's
        # payload give the least packets it can take)
        if len(crit) != 1 or d[1] < crit[0]["bytes"] // 9000 or d[1] == 0 \
                or d[2] == 0 or d[3] != 0:
            raise AssertionError(f"class deltas {d}, critical {crit}")
        b.free()

    @case
    def bucket_rebuild_on_other_order():
        g = grads_of(2)
        b = hc.Bucketer(w, g, bucket_bytes=16000)
        # step 0 in forward order (not the declared reverse), and on
        # ranks other than 0 a shuffled order: buckets launch in bucket
        # order anyway, and the rebuild follows rank 0's order
        order = list(range(len(sizes)))
        if me != 0:
            order = order[1:] + order[:1]
        for i in order:
            b.mark_ready(i)
        b.wait()
        close(g, want_of(2), "step 0")
        if not b.rebuilt:
            raise AssertionError("not rebuilt")
        got = [i for x in b.buckets() for i in x["grads"]]
        if got != list(range(len(sizes))):
            raise AssertionError(f"rebuilt order {got}")
        all_orders = w.allgather(np.array(got, np.int64))
        eq(all_orders, np.tile(np.arange(len(sizes)), n), "same on ranks")
        crit = [x for x in b.buckets() if 0 in x["grads"]][0]
        if crit["priority"] != hc.PRIO_CRITICAL:
            raise AssertionError("critical after the rebuild")
        g2 = grads_of(3)
        for a, x in zip(g, g2):
            a[:] = x
        for i in range(len(sizes)):
            b.mark_ready(i)
        b.wait()
        close(g, want_of(3), "step 1 after the rebuild")
        b.free()

    @case
    def bucket_bad_arguments():
        raises(TypeError, hc.Bucketer, w, [np.zeros(4, np.int32)])
        raises(TypeError, hc.Bucketer, w, [np.zeros(4, np.float32),
                                          np.zeros(4, np.float64)])
        raises(ValueError, hc.Bucketer, w, [])


def suite_affinity(pin_only):
    """rte_eal_init pins the main thread to lcore 0's CPUs; what threads
    started after it get (numpy/torch pools, Python threads)."""
    before = os.sched_getaffinity(0)
    args, rest = hc.split_argv()
    sys.argv[:] = [sys.argv[0]] + rest
    # lcore 0 on the first CPU alone, the engine's lcore on the last
    cpus = sorted(before)
    eal = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--lcores":
            skip = True
            continue
        eal.append(a)
    eal += ["--lcores", f"0@{cpus[0]},1@{cpus[-1]}"]
    ctx = hc.init(eal_args=eal, restore_affinity=not pin_only)
    seen = {}
    t = threading.Thread(target=lambda: seen.update(
        cpus=os.sched_getaffinity(0)))
    t.start()
    t.join()
    main = os.sched_getaffinity(0)
    print(f"affinity before EAL {sorted(before)}, main thread after "
          f"{sorted(main)}, new thread {sorted(seen['cpus'])}", flush=True)
    nt = base = None
    try:
        import torch
        nt = torch.get_num_threads()
        # torch's default (physical cores, from cpuinfo, within the
        # affinity) in a process of the same affinity without the EAL
        import subprocess
        base = int(subprocess.run(
            [sys.executable, "-c",
             "import torch; print(torch.get_num_threads())"],
            capture_output=True, text=True, check=True).stdout)
        print(f"torch.get_num_threads() {nt}, without the EAL {base}",
              flush=True)
    except ImportError:
        pass

    @case
    def affinity_of_new_threads():
        if pin_only:
            # the measurement sees the pinning when nothing restores it
            if len(before) > 1 and seen["cpus"] != {cpus[0]}:
                raise AssertionError(f"expected {{{cpus[0]}}} pinned, got "
                                     f"{seen['cpus']}")
        elif seen["cpus"] != before or main != before:
            raise AssertionError(f"{seen['cpus']} / {main} != {before}")

    @case
    def torch_intra_op_threads():
        if nt is None or pin_only:
            return
        if nt != base:
            raise AssertionError(f"torch has {nt} threads, {base} "
                                 "without the EAL")

    ctx.world.allreduce(np.ones(4, np.float32))
    ctx.finalize()


def suite_repro(ctx):
    """Float all-reduce gives the same bits run after run (run it under
    HC_ALGO=hd and HC_ALGO=tree: the plan executor reduces in plan
    order, whatever order the peers' data arrives in)."""
    w = ctx.world
    n, me = w.size, w.rank
    cnt = 23370     # train_digits' model

    @case
    def allreduce_repeats_same_bits():
        rs = np.random.RandomState(7 + me)
        # mantissas times 2^-12..2^11: float32 sums depend on the order
        x = (rs.randint(-1023, 1024, cnt) + 0.5) * \
            np.exp2(rs.randint(-12, 12, cnt))
        x = (x / 3).astype(np.float32)
        first = w.allreduce(x, op="avg")
        everyone = w.allgather(first)
        for r in range(n):
            eq(everyone[r * cnt:(r + 1) * cnt].view(np.uint32),
               first.view(np.uint32), f"rank {r}'s bits")
        bad = []
        for k in range(20):
            got = w.allreduce(x, op="avg")
            d = int(np.count_nonzero(got.view(np.uint32) !=
                                     first.view(np.uint32)))
            if d:
                bad.append((k, d))
        if bad:
            raise AssertionError(f"repeats differing from the first "
                                 f"(repeat, elements): {bad[:5]}, "
                                 f"algo {os.environ.get('HC_ALGO')}")


def main():
    suite = "all"
    pin_only = False
    if "--suite" in sys.argv:
        suite = sys.argv[sys.argv.index("--suite") + 1]
    pin_only = "--pin-only" in sys.argv
    if suite == "affinity":
        suite_affinity(pin_only)
    else:
        ap = argparse.ArgumentParser()
        with hc.init() as ctx:
            ap.add_argument("--suite", default="all")
            ap.parse_args()
            if suite in ("all", "core"):
                suite_core(ctx)
            if suite in ("all", "bucket"):
                suite_bucket(ctx)
            if suite in ("all", "repro"):
                suite_repro(ctx)
            ctx.world.barrier()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
