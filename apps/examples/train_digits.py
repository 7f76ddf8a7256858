#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Train an MLP on the handwritten digits of Debian's python3-sklearn
(load_digits: 1797 8x8 images, 10 classes) over hypercomm, numpy only.

    build/bin/hc-launch -n 4 apps/examples/train_digits.py --mode dp
    build/bin/hc-launch -n 4 apps/examples/train_digits.py --mode fsdp
    build/bin/hc-launch -n 4 apps/examples/train_digits.py --mode hsdp

Every step is full-batch gradient descent (SGD with momentum) over the
training set, split evenly among the ranks (each rank's gradient is the
mean over its quarter, and the average of the quarters is the full-batch
gradient), so the per-step loss is that of one process on the full batch,
up to float32 rounding; --check computes that single-process run here and
compares (PASS/FAIL lines, relative 1e-6 per step).

Modes:
  dp    every rank holds all parameters; backward runs layer by layer,
        each layer's gradient is marked ready in a hc_bucketer as soon as
        it is computed, so a bucket's all-reduce (average) runs while the
        earlier layers' backward is still being computed; the bucket of
        the first layer is critical priority. Then the same training with
        one all-reduce after the whole backward pass (one bucket), for the
        bubble-rate comparison.
  fsdp  each layer's parameters (weights and bias, flattened) are sharded
        over all ranks: all-gathers of every layer are started at the
        step's beginning and waited for layer by layer in the forward
        pass; in the backward pass each layer's gradient goes by
        reduce-scatter (average) as soon as it is computed; the optimizer
        updates this rank's shard.
  hsdp  2 shard groups x 2 replicas (hypercomm.HSDPConfig(2, 2)): as fsdp
        inside a shard group, then the shard's gradient is averaged across
        the replicas by an all-reduce.

Per step: loss, training accuracy, and the metrics of hc_metrics_get
(communication/computation ratio, network utilization, bubble rate);
at the end the test accuracy and the seeds' decision tree.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import numpy as np  # noqa: E402

F = np.float32
# input, hidden, hidden, classes: the first layer (whose bucket goes last
# and cannot overlap backward) small, the wide one in the middle
SIZES = [64, 64, 256, 10]


def load(ranks):
    """(train X, train y, test X, test y): a fixed permutation, the first
    80 % for training cut to a multiple of the rank count."""
    from sklearn.datasets import load_digits
    d = load_digits()
    X = (d.data / 16.0).astype(F)
    y = d.target.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(y))
    X, y = X[perm], y[perm]
    ntr = int(0.8 * len(y)) // ranks * ranks
    return X[:ntr], y[:ntr], X[ntr:], y[ntr:]


def layer_shapes():
    return [(SIZES[i], SIZES[i + 1]) for i in range(len(SIZES) - 1)]


def flat_size(shape):
    return shape[0] * shape[1] + shape[1]


def init_params():
    """Per layer one flat float32 vector: weights (in x out) then bias."""
    rs = np.random.RandomState(1)
    out = []
    for fan_in, fan_out in layer_shapes():
        w = rs.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)
        out.append(np.concatenate([w.ravel(), np.zeros(fan_out)]).astype(F))
    return out


def views(flat, shape):
    """(W, b) views of a layer's flat vector."""
    nw = shape[0] * shape[1]
    return flat[:nw].reshape(shape), flat[nw:nw + shape[1]]


def forward(params_at, X):
    """params_at(l) -> flat parameters of layer l (may wait for them).
    Returns (logits, activations)."""
    acts = [X]
    a = X
    nl = len(SIZES) - 1
    for i, shape in enumerate(layer_shapes()):
        W, b = views(params_at(i), shape)
        z = a @ W + b
        a = np.maximum(z, 0) if i < nl - 1 else z
        acts.append(a)
    return a, acts


def loss_and_dlogits(logits, y):
    m = logits.max(1, keepdims=True)
    e = np.exp(logits - m)
    p = e / e.sum(1, keepdims=True)
    n = len(y)
    loss = -np.log(p[np.arange(n), y] + F(1e-30)).mean(dtype=F)
    d = p
    d[np.arange(n), y] -= 1
    d /= F(n)
    correct = int((logits.argmax(1) == y).sum())
    return F(loss), d.astype(F), correct


def backward(params_at, acts, dlogits, grads, on_layer):
    """Layer by layer from the last: fill grads[l] (flat, as the params)
    and call on_layer(l) as soon as it is complete."""
    d = dlogits
    for i in range(len(SIZES) - 2, -1, -1):
        shape = layer_shapes()[i]
        gW, gb = views(grads[i], shape)
        np.matmul(acts[i].T, d, out=gW)
        np.sum(d, axis=0, out=gb)
        if i > 0:
            W, _ = views(params_at(i), shape)
            d = (d @ W.T) * (acts[i] > 0)
        on_layer(i)


class SGD:
    """SGD with momentum (PyTorch's form: v = mu v + g; p -= lr v)."""

    def __init__(self, params, lr, mu):
        self.lr, self.mu = F(lr), F(mu)
        self.v = [np.zeros_like(p) for p in params]

    def step(self, params, grads):
        for p, g, v in zip(params, grads, self.v):
            v *= self.mu
            v += g
            p -= self.lr * v


def reference(X, y, steps, lr, mu):
    """One process, full batch: the per-step losses."""
    params = init_params()
    grads = [np.zeros_like(p) for p in params]
    opt = SGD(params, lr, mu)
    losses = []
    for _ in range(steps):
        logits, acts = forward(lambda i: params[i], X)
        loss, d, _ = loss_and_dlogits(logits, y)
        backward(lambda i: params[i], acts, d, grads, lambda i: None)
        opt.step(params, grads)
        losses.append(float(loss))
    return losses


def accuracy(params, X, y):
    logits, _ = forward(lambda i: params[i], X)
    return float((logits.argmax(1) == y).mean())


def shard_bounds(size, k, r):
    """Element range of shard r of a flat vector of size padded to k."""
    c = -(-size // k)
    return c, r * c, (r + 1) * c


class Trainer:
    def __init__(self, hc, ctx, mode, args, X, y):
        self.hc, self.ctx, self.mode, self.args = hc, ctx, mode, args
        self.w = ctx.world
        n, r = self.w.size, self.w.rank
        per = len(y) // n
        self.X, self.y = X[r * per:(r + 1) * per], y[r * per:(r + 1) * per]
        self.ntrain = len(y)
        full = init_params()
        self.grads = [np.zeros_like(p) for p in full]
        if mode == "dp":
            self.params = full
            cap = args.bucket_kb * 1024 if args.bucket_kb > 0 else 1 << 40
            self.bucketer = hc.Bucketer(self.w, self.grads, cap)
            self.opt = SGD(self.params, args.lr, args.momentum)
            self.one_bucket = cap >= sum(g.nbytes for g in self.grads)
        else:
            if mode == "fsdp":
                self.shard_comm, self.replica = self.w, None
            else:
                self.hsdp = hc.HSDPConfig(args.shard_size,
                                          n // args.shard_size).build(self.w)
                self.shard_comm = self.hsdp.shard
                self.replica = self.hsdp.replica
            k, sr = self.shard_comm.size, self.shard_comm.rank
            self.full = []          # gathered parameters (padded)
            self.shards = []        # this rank's shard of each layer
            self.gpad = []          # padded full gradient buffers
            self.gshard = []
            for p, g in zip(full, self.grads):
                c, a, b = shard_bounds(p.size, k, sr)
                padded = np.zeros(c * k, F)
                padded[:p.size] = p
                self.shards.append(padded[a:b].copy())
                self.full.append(padded)
                self.gpad.append(np.zeros(c * k, F))
                self.gshard.append(np.zeros(c, F))
            # the gradients backward fills are views of the padded buffers
            self.grads = [gp[:p.size] for gp, p in zip(self.gpad, full)]
            self.opt = SGD(self.shards, args.lr, args.momentum)

    # -- one step --
    def step(self):
        hc, ctx = self.hc, self.ctx
        ctx.step_begin()
        nl = len(self.grads)
        if self.mode == "dp":
            params_at = self.params.__getitem__
        else:
            # every layer's all-gather at once, the first layer critical
            gathers = [self.shard_comm.iallgather(
                self.shards[i], self.full[i],
                priority="critical" if i == 0 else None)
                for i in range(nl)]
            got = [False] * nl

            def params_at(i):
                if not got[i]:
                    gathers[i].wait()
                    got[i] = True
                return self.full[i]
        logits, acts = forward(params_at, self.X)
        loss, d, correct = loss_and_dlogits(logits, self.y)
        # the loss and the correct count, averaged/summed while backward
        # runs
        summary = np.array([loss, correct], np.float64)
        sreq = self.w.iallreduce(summary, summary, "sum")
        pending = []
        if self.mode == "dp":
            def on_layer(i):
                self.bucketer.mark_ready(i)
        else:
            def on_layer(i):
                prio = "critical" if i == 0 else None
                if self.replica is None:
                    pending.append((i, self.shard_comm.ireduce_scatter(
                        self.gpad[i], self.gshard[i], "avg",
                        priority=prio)))
                else:
                    # reduce-scatter in the shard group, then all-reduce
                    # of the shard across the replicas (HSDP's helper)
                    pending.append((i, self.hsdp.reduce_gradients(
                        self.gpad[i], self.gshard[i], priority=prio)))
        backward(params_at, acts, d, self.grads, on_layer)
        if self.mode == "dp":
            self.bucketer.wait()
            self.opt.step(self.params, self.grads)
        else:
            for _, r in pending:
                r.wait()
            self.opt.step(self.shards, self.gshard)
        sreq.wait()
        ctx.step_end()
        return summary[0] / self.w.size, summary[1] / self.ntrain

    def full_params(self):
        if self.mode == "dp":
            return self.params
        out = []
        for i, p in enumerate(self.full):
            self.shard_comm.allgather(self.shards[i], p)
            out.append(p[:self.grads[i].size])
        return out


def decision(total):
    ratio, util = total["comm_compute_ratio"], total["utilization"]
    if ratio > 0.30:
        return "optimize the parallel strategy"
    if util < 0.70:
        return "optimize the communication topology"
    return "check load balance"


def summarize(lasts, link):
    """Totals of per-step hc_metrics_get intervals (ratios of the sums),
    and the median per-step bubble rate (robust to a descheduled rank's
    stall on an oversubscribed host)."""
    tot = {k: sum(m[k] for m in lasts) for k in ("step_us", "comm_us",
                                                 "wait_us", "bus_bytes")}
    tot["compute_us"] = max(tot["step_us"] - tot["wait_us"], 0)
    tot["comm_compute_ratio"] = tot["comm_us"] / tot["compute_us"] \
        if tot["compute_us"] else 0
    bw = tot["bus_bytes"] / tot["comm_us"] / 1e3 if tot["comm_us"] else 0
    tot["busbw_GBps"] = bw
    tot["utilization"] = bw / link if link else 0
    tot["bubble_rate"] = tot["wait_us"] / tot["step_us"] \
        if tot["step_us"] else 0
    tot["bubble_median"] = float(np.median([m["bubble_rate"]
                                            for m in lasts]))
    tot["bubble_mean"] = float(np.mean([m["bubble_rate"] for m in lasts]))
    tot["wait_ms_step"] = tot["wait_us"] / len(lasts) / 1e3
    return tot


def train(hc, ctx, runs, args, Xtr, ytr):
    """Train every (label, mode, args) of runs, their steps interleaved
    (step s of each, in turn, the order reversed every other step), so
    that a change of the host's load hits them alike. Returns per run (trainer, losses, step times, totals,
    per-step metrics)."""
    ts = [Trainer(hc, ctx, mode, a, Xtr, ytr) for _, mode, a in runs]
    out = [([], [], []) for _ in runs]
    for s in range(args.steps):
        # which run goes first alternates, so that neither always takes
        # the step after the other's (every rank in the same order)
        k = list(range(len(runs)))
        if s % 2:
            k.reverse()
        for (label, _, _), t, (losses, times, lasts) in (
                (runs[i], ts[i], out[i]) for i in k):
            t0 = time.perf_counter()
            loss, acc = t.step()
            times.append(time.perf_counter() - t0)
            losses.append(float(loss))
            m = ctx.metrics()["last"]
            lasts.append(m)
            if ctx.rank == 0 and not args.quiet:
                print(f"{label} step {s:3d} loss {loss:.7f} train-acc "
                      f"{acc:.4f} ratio {m['comm_compute_ratio']:.3f} util "
                      f"{m['utilization']:.3f} bubble "
                      f"{m['bubble_rate']:.3f} step {times[-1] * 1e3:.1f} "
                      "ms", flush=True)
    link = ctx.metrics()["link_GBps"]
    res = []
    for t, (losses, times, lasts) in zip(ts, out):
        if hasattr(t, "bucketer"):
            t.bucketer.free()
        res.append((t, losses, times, summarize(lasts, link), lasts))
    return res


def probe_progress(hc, ctx, nbytes, compute_ms, reps):
    """Whether communication progresses while the caller computes: an
    all-reduce of nbytes is started, then numpy computes for compute_ms
    (or nothing), then the request is waited for. The time inside wait()
    (hc_metrics' wait time, the bubble's numerator) is printed for both:
    with progress during compute (an engine lcore that gets a CPU) the
    wait after compute is about max(0, comm - compute); with caller
    progress nothing moves during compute and the wait stays the whole
    all-reduce. Returns (median wait ms without compute, with compute,
    median all-reduce ms alone), the means over the ranks."""
    buf = np.ones(nbytes // 4, F)
    a = np.random.RandomState(0).rand(128, 128).astype(F)

    def compute(ms):
        t_end = time.perf_counter() + ms / 1e3
        while time.perf_counter() < t_end:
            a @ a
    res = []
    for with_compute in (False, True):
        waits, alls = [], []
        for _ in range(reps):
            ctx.world.barrier()
            t0 = time.perf_counter()
            r = ctx.world.iallreduce(buf, buf, "avg")
            if with_compute:
                compute(compute_ms)
            ctx.step_begin()
            r.wait()
            ctx.step_end()
            alls.append((time.perf_counter() - t0) * 1e3)
            waits.append(ctx.metrics()["last"]["wait_us"] / 1e3)
        res.append((float(np.median(waits)), float(np.median(alls))))
    out = np.array([res[0][0], res[1][0], res[0][1]])
    ctx.world.allreduce(out, out, "avg")
    return out


def renice_engine(nice):
    """setpriority(nice) on this process's DPDK lcore worker threads (the
    engine lcore: comm "rte-worker-N" in DPDK 22.11), so that on a host with no spare
    CPU the engine gets the CPU back from numpy as soon as it has work;
    returns how many threads were changed."""
    k = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith("rte-worker"):
            os.setpriority(os.PRIO_PROCESS, int(tid), nice)
            k += 1
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["dp", "fsdp", "hsdp"], default="dp")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--bucket-kb", type=int, default=40,
                    help="dp bucket size in KiB (0: one bucket; the DDP "
                    "default of 25 MiB holds this whole model in one)")
    ap.add_argument("--shard-size", type=int, default=2,
                    help="hsdp: ranks per shard group")
    ap.add_argument("--no-baseline", action="store_true",
                    help="dp: skip the one-all-reduce-after-backward run")
    ap.add_argument("--check", action="store_true",
                    help="compare with a single-process full-batch run; "
                    "PASS/FAIL lines")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--check-bubble", action="store_true",
                    help="dp: also assert that the median and the mean "
                    "per-step bubble rate are lower with bucketing "
                    "(timing: noisy on a loaded host)")
    ap.add_argument("--sizes", default=None,
                    help="layer widths, comma-separated, input 64 and "
                    "output 10 (default " + ",".join(map(str, SIZES)) + ")")
    ap.add_argument("--compare-overlap", action="store_true",
                    help="dp: the bubble benchmark (tests/bench/bubble): "
                    "print the bucket layout and the progress mode, probe "
                    "whether an all-reduce progresses while numpy "
                    "computes, then train both variants step by step "
                    "interleaved and print both bubble rates (mean, "
                    "median, paired wins)")
    ap.add_argument("--engine-nice", type=int, default=None,
                    help="set the engine lcore thread's nice value (e.g. "
                    "-10: it preempts numpy when it has work)")
    ap.add_argument("--quiet", action="store_true")
    import hypercomm as hc
    with hc.init() as ctx:
        args = ap.parse_args()
        if args.sizes:
            SIZES[:] = [int(v) for v in args.sizes.split(",")]
            if len(SIZES) < 2 or SIZES[0] != 64 or SIZES[-1] != 10:
                ap.error("--sizes: from 64 (pixels) to 10 (classes)")
        me, n = ctx.rank, ctx.size
        reniced = renice_engine(args.engine_nice) \
            if args.engine_nice is not None else 0
        Xtr, ytr, Xte, yte = load(n)
        if me == 0:
            print(f"# {args.mode} on {n} ranks, {len(ytr)} training "
                  f"samples ({len(ytr) // n} per rank), {len(yte)} test, "
                  f"MLP {SIZES}, {args.steps} steps; link "
                  f"{ctx.metrics()['link_GBps']:.4f} GB/s; "
                  f"{ctx.world.tuner_info()}", flush=True)
        if args.compare_overlap:
            if args.mode != "dp" or args.no_baseline:
                ap.error("--compare-overlap: dp with its baseline")
            tmp = [np.zeros(flat_size(sh), F) for sh in layer_shapes()]
            bk = hc.Bucketer(ctx.world, tmp, args.bucket_kb * 1024)
            layout = bk.buckets()
            bk.free()
            # the engine runs on an lcore unless HC_PROGRESS=caller (or
            # the EAL has no worker lcore: hc-launch gives tap ranks 2)
            prog = "caller" if os.environ.get("HC_PROGRESS") == "caller" \
                else "engine lcore"
            if me == 0:
                print(f"# buckets ({args.bucket_kb} KiB cap, backward "
                      f"order): " + ", ".join(
                          f"layers {b['grads']} {b['bytes']} B"
                          f"{' critical' if b['priority'] == 1 else ''}"
                          for b in layout) + f"; progress: {prog}"
                      + (f", engine nice {args.engine_nice} ({reniced} "
                         "threads)" if args.engine_nice is not None
                         else ""),
                      flush=True)
            # the largest bucket: the communication overlap has to hide
            first = max(b["bytes"] for b in layout)
            pr = probe_progress(hc, ctx, first, 20.0, 10)
            if me == 0:
                print(f"# progress probe ({first} B all-reduce, median of "
                      f"10, mean of the ranks): alone {pr[2]:.2f} ms, "
                      f"wait {pr[0]:.2f} ms without compute, {pr[1]:.2f} "
                      f"ms after 20 ms of numpy compute", flush=True)
        runs = [(args.mode, args.mode, args)]
        if args.mode == "dp" and not args.no_baseline:
            bargs = argparse.Namespace(**vars(args))
            bargs.bucket_kb = 0
            runs.append(("dp-one-allreduce", "dp", bargs))
        res = train(hc, ctx, runs, args, Xtr, ytr)
        t, losses, times, tot, _ = res[0]
        base = None
        if len(res) > 1:
            _, blosses, btimes, base, _ = res[1]
        params = t.full_params()
        test_acc = accuracy(params, Xte, yte)
        if base is not None:
            # job-wide figures: each rank's, averaged over the ranks; and
            # the paired comparison: the steps in which the bucketed
            # step's bubble (mean of the ranks) was below the baseline
            # step's run just after it (a sign test, robust to the
            # stalls of an oversubscribed host)
            pairs = np.array([[a["bubble_rate"], b["bubble_rate"]]
                              for a, b in zip(res[0][4], res[1][4])])
            ctx.world.allreduce(pairs, pairs, "avg")
            tot["lower_steps"] = int((pairs[:, 0] < pairs[:, 1]).sum())
            keys = ("bubble_rate", "bubble_median", "bubble_mean",
                    "wait_ms_step")
            b = np.array([tot[k] for k in keys] + [base[k] for k in keys])
            ctx.world.allreduce(b, b, "avg")
            for i, k in enumerate(keys):
                tot[k], base[k] = b[i], b[len(keys) + i]
        if me == 0:
            print(f"# {args.mode}: final loss {losses[-1]:.6f}, test "
                  f"accuracy {test_acc:.4f}, mean step "
                  f"{np.mean(times) * 1e3:.1f} ms", flush=True)
            print(f"# metrics over {args.steps} steps (hc_metrics_get): "
                  f"comm/compute ratio {tot['comm_compute_ratio']:.3f}, "
                  f"network utilization {tot['utilization']:.3f} "
                  f"({tot['busbw_GBps']:.4f} GB/s busbw), bubble rate "
                  f"{tot['bubble_rate']:.3f}", flush=True)
            print(f"# decision: {decision(tot)}", flush=True)
            if base is not None:
                print(f"# bubble rate (total / median step, mean of the "
                      f"ranks): bucketed + "
                      f"overlapped {tot['bubble_rate']:.3f} / "
                      f"{tot['bubble_median']:.3f}, one all-reduce after "
                      f"backward {base['bubble_rate']:.3f} / "
                      f"{base['bubble_median']:.3f} (median step "
                      f"{np.median(times) * 1e3:.1f} vs "
                      f"{np.median(btimes) * 1e3:.1f} ms; steps "
                      f"interleaved); bucketed lower in "
                      f"{tot['lower_steps']} of {args.steps} paired steps",
                      flush=True)
                print(f"# bubble mean of the steps: bucketed "
                      f"{tot['bubble_mean']:.3f}, one all-reduce "
                      f"{base['bubble_mean']:.3f}; wait per step "
                      f"{tot['wait_ms_step']:.2f} vs "
                      f"{base['wait_ms_step']:.2f} ms", flush=True)
        if args.check:
            ref = reference(Xtr, ytr, args.steps, args.lr, args.momentum)
            rel = max(abs(a - b) / abs(b) for a, b in zip(losses, ref))
            ok = rel <= args.rtol
            print(f"{'PASS' if ok else 'FAIL'} {args.mode}_loss_equals_"
                  f"single_process: max relative difference {rel:.2e} over "
                  f"{args.steps} steps (tolerance {args.rtol:g})", flush=True)
            if base is not None:
                rel_b = max(abs(a - b) / abs(b) for a, b in zip(blosses, ref))
                print(f"{'PASS' if rel_b <= args.rtol else 'FAIL'} "
                      f"dp_one_allreduce_loss_equals_single_process: "
                      f"{rel_b:.2e}", flush=True)
                if args.check_bubble:
                    okb = base["bubble_median"] > tot["bubble_median"] \
                        and base["bubble_mean"] > tot["bubble_mean"]
                    print(f"{'PASS' if okb else 'FAIL'} bubble_lower_with_"
                          f"overlap: median {tot['bubble_median']:.3f} < "
                          f"{base['bubble_median']:.3f}, mean "
                          f"{tot['bubble_mean']:.3f} < "
                          f"{base['bubble_mean']:.3f}", flush=True)
            print(f"{'PASS' if test_acc >= 0.9 else 'FAIL'} {args.mode}_"
                  f"test_accuracy: {test_acc:.4f} (>= 0.9)", flush=True)
            m = ctx.metrics()
            okm = m["steps"] >= args.steps and 0 <= tot["bubble_rate"] <= 1 \
                and tot["comm_us"] > 0 and (n == 1 or tot["utilization"] > 0)
            print(f"{'PASS' if okm else 'FAIL'} {args.mode}_metrics: "
                  f"{m['steps']} steps", flush=True)
        ctx.world.barrier()


if __name__ == "__main__":
    main()
