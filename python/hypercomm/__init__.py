# SPDX-License-Identifier: BSD-3-Clause
"""hypercomm for Python: ctypes over libhypercomm (see _lib for where the
library is found), numpy arrays and anything exposing the buffer protocol.

    import hypercomm as hc
    with hc.init() as ctx:            # EAL from argv/HC_EAL_ARGS, then hc_init
        w = ctx.world
        w.allreduce(grad, op="avg")   # in place
        r = w.iallgather(shard, full, priority=hc.PRIO_CRITICAL)
        r.wait()

A program run by hc-launch gets `PROGRAM <EAL args> -- <its args>`: init()
takes the EAL arguments from sys.argv up to "--" and leaves sys.argv as
[argv0] + the program's own arguments, so argparse works unchanged.

Every HC_ERR_* comes back as an exception of its own class (InvalError
for HC_ERR_INVAL, ...), all subclasses of HypercommError, with .name
("HC_ERR_INVAL"), .code (1) and the library's message. A buffer whose
dtype or size does not fit the call is a TypeError or ValueError raised
before anything is queued.
"""
import ctypes
import os
import sys
import threading

import numpy as np

from . import _lib
from ._lib import lib

__all__ = [
    "init", "eal_init", "Context", "Comm", "Request", "Bucketer",
    "HSDPConfig", "HypercommError", "wait_all",
]

# ---- constants (hypercomm.h) ------------------------------------------
INT8, UINT8, INT32, UINT32, INT64, UINT64 = 0, 1, 2, 3, 4, 5
FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = 6, 7, 8, 9
OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}
PRIO_DEFAULT, PRIO_CRITICAL, PRIO_NORMAL, PRIO_BULK = 0, 1, 2, 3
_PRIOS = {None: 0, "default": 0, "critical": 1, "normal": 2, "bulk": 3,
          0: 0, 1: 1, 2: 2, 3: 3}
PROGRESS = {"auto": 0, "caller": 1}
SPLIT_NONE = -1
BUCKET_BYTES_DEFAULT = 25 << 20

_NP_DTYPES = {
    np.dtype(np.int8): INT8, np.dtype(np.uint8): UINT8,
    np.dtype(np.int32): INT32, np.dtype(np.uint32): UINT32,
    np.dtype(np.int64): INT64, np.dtype(np.uint64): UINT64,
    np.dtype(np.float16): FLOAT16, np.dtype(np.float32): FLOAT32,
    np.dtype(np.float64): FLOAT64,
}
_DTYPE_NAMES = {INT8: "int8", UINT8: "uint8", INT32: "int32",
                UINT32: "uint32", INT64: "int64", UINT64: "uint64",
                FLOAT16: "float16", BFLOAT16: "bfloat16",
                FLOAT32: "float32", FLOAT64: "float64"}
# The numpy dtype an explicit hypercomm dtype stands for (bfloat16 has
# none in numpy: its bits travel in uint16 arrays).
_HC_TO_NP = {v: k for k, v in _NP_DTYPES.items()}
_HC_TO_NP[BFLOAT16] = np.dtype(np.uint16)


# ---- errors -------------------------------------------------------------
class HypercommError(Exception):
    """An HC_ERR_* returned by the library: .code, .name, .message."""
    code = 0
    name = "HC_OK"

    def __init__(self, message=None, call=None):
        self.message = message or lib.hc_strerror(self.code).decode()
        self.call = call
        text = f"{self.name}: {self.message}"
        super().__init__(f"{call}: {text}" if call else text)


_ERR_NAMES = ["INVAL", "NOMEM", "CONFIG", "PORT", "LINK_DOWN",
              "INIT_TIMEOUT", "TIMEOUT", "PEER_LOST", "MISMATCH", "ABORTED",
              "UNSUPPORTED", "INTERNAL"]
_ERRORS = {}
for _code, _n in enumerate(_ERR_NAMES, start=1):
    _cls_name = "".join(p.capitalize() for p in _n.split("_")) + "Error"
    _bases = (HypercommError,)
    if _n in ("TIMEOUT", "INIT_TIMEOUT"):
        _bases += (TimeoutError,)     # the builtin, so `except TimeoutError`
    _cls = type(_cls_name, _bases, {"code": _code, "name": "HC_ERR_" + _n})
    _ERRORS[_code] = _cls
    globals()[_cls_name] = _cls
    __all__.append(_cls_name)


def error_class(code):
    """The exception class of HC_ERR_* code (positive or negative)."""
    return _ERRORS.get(abs(code), HypercommError)


def check(rc, call=None):
    """Raise the exception of a negative return code; return rc else."""
    if rc < 0:
        raise error_class(rc)(call=call)
    return rc


# ---- EAL -----------------------------------------------------------------
_eal_lock = threading.Lock()
_eal_done = False
_eal_keep = None            # the argv the EAL keeps pointers into
DEFAULT_EAL_ARGS = ["--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--log-level=warning"]


def split_argv(argv=None):
    """(EAL args, program args) of a launcher's argv: what stands between
    argv[0] and the first "--" is the EAL's; without "--" there are none."""
    argv = list(sys.argv if argv is None else argv)
    if "--" in argv[1:]:
        i = argv.index("--", 1)
        return argv[1:i], argv[i + 1:]
    return None, argv[1:]


def eal_init(args=None, restore_affinity=True):
    """Run rte_eal_init once per process (later calls return at once).

    args: a list of EAL arguments; None takes them from $HC_EAL_ARGS
    (split on spaces), else from sys.argv up to "--" (sys.argv then keeps
    only argv[0] and what follows "--"), else DEFAULT_EAL_ARGS.

    rte_eal_init pins the calling thread to lcore 0's CPU set; every thread
    the process starts afterwards (numpy's BLAS pool, torch's intra-op pool,
    Python threads) would inherit it. With restore_affinity (default) the
    caller's CPU set from before the call is put back on the calling thread
    (the EAL's own lcore threads keep theirs: the engine stays where the
    EAL put it).
    """
    global _eal_done, _eal_keep
    with _eal_lock:
        if _eal_done:
            return
        if args is None:
            env = os.environ.get("HC_EAL_ARGS")
            if env is not None:
                args = env.split()
            else:
                args, rest = split_argv()
                if args is not None:
                    sys.argv[:] = [sys.argv[0]] + rest
                else:
                    args = list(DEFAULT_EAL_ARGS)
        argv = [os.path.basename(sys.argv[0] or "python3")] + list(args)
        keep = [a.encode() for a in argv]
        arr = (ctypes.c_char_p * (len(keep) + 1))(*keep, None)
        before = os.sched_getaffinity(0)
        rc = _lib.eal.rte_eal_init(len(keep), arr)
        if rc < 0:
            raise RuntimeError(f"rte_eal_init({' '.join(argv[1:])}) failed "
                               f"({rc}); the EAL's log says why")
        if restore_affinity:
            os.sched_setaffinity(0, before)
        _eal_keep = (keep, arr)
        _eal_done = True


# ---- buffers ---------------------------------------------------------------
def _as_array(buf, what, writable=False):
    """A C-contiguous numpy view of buf (numpy array or buffer-protocol
    object), no copy."""
    if buf is None:
        return None
    if isinstance(buf, np.ndarray):
        a = buf
    else:
        try:
            mv = memoryview(buf)
        except TypeError:
            raise TypeError(f"{what}: {type(buf).__name__} is neither a "
                            "numpy array nor a buffer") from None
        try:
            a = np.asarray(mv)
        except (TypeError, ValueError, NotImplementedError):
            a = np.frombuffer(mv.cast("B"), dtype=np.uint8)
    if not a.flags.c_contiguous:
        raise ValueError(f"{what}: the buffer is not C-contiguous")
    if writable and not a.flags.writeable:
        raise ValueError(f"{what}: the buffer is read-only")
    return a


def _dtype_of(arrays, dtype):
    """The hypercomm dtype of the arrays (all must agree), or dtype given
    explicitly (then the arrays' dtype must be the numpy one it stands
    for)."""
    arrays = [a for a in arrays if a is not None]
    if dtype is not None:
        if dtype not in _HC_TO_NP:
            raise ValueError(f"unknown hypercomm dtype {dtype!r}")
        for a in arrays:
            if a.dtype != _HC_TO_NP[dtype]:
                raise TypeError(f"array dtype {a.dtype} does not match "
                                f"{_DTYPE_NAMES[dtype]} (numpy "
                                f"{_HC_TO_NP[dtype]})")
        return dtype
    if not arrays:
        raise ValueError("no buffer to take the dtype from: pass dtype=")
    dt = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != dt:
            raise TypeError(f"buffers of different dtypes: {dt} and "
                            f"{a.dtype}")
    if dt not in _NP_DTYPES:
        raise TypeError(f"dtype {dt} has no hypercomm counterpart")
    return _NP_DTYPES[dt]


def _ptr(a):
    return None if a is None else ctypes.c_void_p(a.ctypes.data)


def _op(op):
    if isinstance(op, int) and 0 <= op < len(OPS):
        return op
    if op not in OPS:
        raise ValueError(f"unknown op {op!r} (one of {sorted(OPS)})")
    return OPS[op]


def _opts(priority, timeout_ms):
    if priority not in _PRIOS:
        raise ValueError(f"unknown priority {priority!r}")
    if timeout_ms < 0 or timeout_ms > 0xffffffff:
        raise ValueError(f"timeout_ms {timeout_ms} out of range")
    return _lib.OpOpts(_PRIOS[priority], int(timeout_ms))


def _u64s(seq, n, what):
    seq = [int(x) for x in seq]
    if len(seq) != n:
        raise ValueError(f"{what}: {len(seq)} entries, the communicator "
                         f"has {n} ranks")
    if any(x < 0 for x in seq):
        raise ValueError(f"{what}: negative count")
    return (ctypes.c_uint64 * n)(*seq)


# ---- requests ----------------------------------------------------------------
class Request:
    """A collective in flight: wait() or test(); keeps its buffers alive.
    result is what wait() returns (the receive array, or None). One
    garbage-collected unfinished is waited for first (its error, if any,
    is lost)."""

    def __init__(self, handle, keep, result, call):
        self._h = handle
        self._keep = keep
        self.result = result
        self.call = call
        self.done = False

    def test(self):
        """True (and the request finished; errors raised) or False."""
        if self.done:
            return True
        d = ctypes.c_int(0)
        rc = lib.hc_test(self._h, ctypes.byref(d))
        if d.value:
            self._finish()
            check(rc, self.call)
            return True
        check(rc, self.call)
        return False

    def wait(self):
        """Block until done; return result; raise its error."""
        if not self.done:
            rc = lib.hc_wait(self._h)
            self._finish()
            check(rc, self.call)
        return self.result

    def _finish(self):
        self.done = True
        self._h = None
        self._keep = None

    def __del__(self):
        # A request dropped unfinished still owns its buffers in the
        # engine: wait (and free it) before they can be freed.
        if not self.done and self._h is not None:
            try:
                lib.hc_wait(self._h)
            except Exception:
                pass
            self._finish()


def wait_all(reqs):
    """Wait for every request (all of them, even after an error), then
    raise the first error in list order."""
    first = None
    for r in reqs:
        try:
            r.wait()
        except HypercommError as e:
            first = first or e
    if first is not None:
        raise first


# ---- communicators -----------------------------------------------------------
class Comm:
    """A communicator (hc_comm): rank, size, every collective, blocking
    (name) and non-blocking (i + name, returning a Request). Keyword
    options of every call: priority (None/"normal", "critical", "bulk" or
    PRIO_*), timeout_ms (0: the cluster file's op_timeout_ms), dtype (a
    hypercomm dtype constant: needed for bfloat16 in uint16 arrays)."""

    def __init__(self, ctx, handle):
        self.ctx = ctx
        self._h = handle
        self.rank = check(lib.hc_comm_rank(handle), "hc_comm_rank")
        self.size = check(lib.hc_comm_size(handle), "hc_comm_size")

    def __repr__(self):
        return f"<hypercomm.Comm rank {self.rank} of {self.size}>"

    def tuner_info(self):
        buf = ctypes.create_string_buffer(512)
        n = check(lib.hc_comm_tuner_info(self._h, buf, 512))
        if n >= 512:
            buf = ctypes.create_string_buffer(n + 1)
            lib.hc_comm_tuner_info(self._h, buf, n + 1)
        return buf.value.decode()

    def split(self, color, key=0):
        """MPI_Comm_split; color SPLIT_NONE (-1) gives None."""
        out = ctypes.c_void_p()
        check(lib.hc_comm_split(self._h, int(color), int(key),
                                ctypes.byref(out)), "hc_comm_split")
        return Comm(self.ctx, out) if out.value else None

    def hsdp(self, shard_size):
        """(shard, replica) communicators of hc_comm_hsdp."""
        s, r = ctypes.c_void_p(), ctypes.c_void_p()
        check(lib.hc_comm_hsdp(self._h, int(shard_size), ctypes.byref(s),
                               ctypes.byref(r)), "hc_comm_hsdp")
        return Comm(self.ctx, s), Comm(self.ctx, r)

    # -- the non-blocking forms do the work --
    def _submit(self, fn, args, keep, result, opts, call):
        h = ctypes.c_void_p()
        o = ctypes.byref(opts)
        check(fn(self._h, *args, o, ctypes.byref(h)), call)
        return Request(h, keep, result, call)

    def iallreduce(self, send, recv=None, op="sum", *, dtype=None,
                   priority=None, timeout_ms=0):
        """recv[i] = op over ranks of send[i]; recv None: a new array;
        recv is send: in place."""
        s = _as_array(send, "send")
        r = np.empty_like(s) if recv is None else \
            (s if recv is send else _as_array(recv, "recv", True))
        if r is s and not s.flags.writeable:
            raise ValueError("send: in place on a read-only buffer")
        dt = _dtype_of([s, r], dtype)
        if s.size != r.size:
            raise ValueError(f"allreduce: send has {s.size} elements, recv "
                             f"{r.size}")
        return self._submit(lib.hc_iallreduce,
                            (_ptr(s), _ptr(r), s.size, dt, _op(op)),
                            (s, r, recv), recv if recv is not None else r,
                            _opts(priority, timeout_ms), "hc_allreduce")

    def ireduce_scatter(self, send, recv=None, op="sum", *, dtype=None,
                        priority=None, timeout_ms=0):
        """recv (size/n of send) = op over ranks of send's block rank."""
        s = _as_array(send, "send")
        if s.size % self.size:
            raise ValueError(f"reduce_scatter: send's {s.size} elements do "
                             f"not divide into {self.size} blocks")
        r = np.empty(s.size // self.size, s.dtype) if recv is None else \
            _as_array(recv, "recv", True)
        dt = _dtype_of([s, r], dtype)
        if r.size * self.size != s.size:
            raise ValueError(f"reduce_scatter: recv has {r.size} elements, "
                             f"send {s.size} = {self.size} x "
                             f"{s.size / self.size:g}")
        return self._submit(lib.hc_ireduce_scatter,
                            (_ptr(s), _ptr(r), r.size, dt, _op(op)),
                            (s, r, recv), recv if recv is not None else r,
                            _opts(priority, timeout_ms), "hc_reduce_scatter")

    def iallgather(self, send, recv=None, *, dtype=None, priority=None,
                   timeout_ms=0):
        """recv (n x send) = every rank's send, in rank order."""
        s = _as_array(send, "send")
        r = np.empty(s.size * self.size, s.dtype) if recv is None else \
            _as_array(recv, "recv", True)
        dt = _dtype_of([s, r], dtype)
        if r.size != s.size * self.size:
            raise ValueError(f"allgather: recv has {r.size} elements, needs "
                             f"{self.size} x {s.size}")
        return self._submit(lib.hc_iallgather,
                            (_ptr(s), _ptr(r), s.size, dt),
                            (s, r, recv), recv if recv is not None else r,
                            _opts(priority, timeout_ms), "hc_allgather")

    def ireduce_scatterv(self, send, recv, recvcounts, op="sum", *,
                         dtype=None, priority=None, timeout_ms=0):
        """MPI_Reduce_scatter: recv gets recvcounts[rank] elements."""
        s = _as_array(send, "send")
        r = _as_array(recv, "recv", True)
        dt = _dtype_of([s, r], dtype)
        c = _u64s(recvcounts, self.size, "recvcounts")
        if s.size != sum(c):
            raise ValueError(f"reduce_scatterv: send has {s.size} elements,"
                             f" the counts sum to {sum(c)}")
        if r.size != c[self.rank]:
            raise ValueError(f"reduce_scatterv: recv has {r.size} elements,"
                             f" recvcounts[{self.rank}] is {c[self.rank]}")
        return self._submit(lib.hc_ireduce_scatterv,
                            (_ptr(s), _ptr(r), c, dt, _op(op)),
                            (s, r, recv, c), recv,
                            _opts(priority, timeout_ms), "hc_reduce_scatterv")

    def iallgatherv(self, send, recv, recvcounts, displs=None, *, dtype=None,
                    priority=None, timeout_ms=0):
        """MPI_Allgatherv; displs None: packed."""
        s = _as_array(send, "send")
        r = _as_array(recv, "recv", True)
        dt = _dtype_of([s, r], dtype)
        c = _u64s(recvcounts, self.size, "recvcounts")
        d = None if displs is None else _u64s(displs, self.size, "displs")
        if s.size != c[self.rank]:
            raise ValueError(f"allgatherv: send has {s.size} elements, "
                             f"recvcounts[{self.rank}] is {c[self.rank]}")
        ends = [(d[q] if d is not None else sum(c[:q])) + c[q]
                for q in range(self.size)]
        if max(ends, default=0) > r.size:
            raise ValueError(f"allgatherv: recv has {r.size} elements, the "
                             f"blocks reach {max(ends)}")
        return self._submit(lib.hc_iallgatherv,
                            (_ptr(s), _ptr(r), c, d, dt),
                            (s, r, recv, c, d), recv,
                            _opts(priority, timeout_ms), "hc_allgatherv")

    def ibroadcast(self, buf, root=0, *, dtype=None, priority=None,
                   timeout_ms=0):
        """In place: buf of root to every rank's buf."""
        b = _as_array(buf, "buf", True)
        dt = _dtype_of([b], dtype)
        self._root(root)
        return self._submit(lib.hc_ibroadcast,
                            (_ptr(b), _ptr(b), b.size, dt, int(root)),
                            (b, buf), buf, _opts(priority, timeout_ms),
                            "hc_broadcast")

    def ireduce(self, send, recv=None, op="sum", root=0, *, dtype=None,
                priority=None, timeout_ms=0):
        """recv at root = op over ranks of send; recv ignored elsewhere
        (None at root: a new array)."""
        self._root(root)
        s = _as_array(send, "send")
        r = None
        if self.rank == root:
            r = np.empty_like(s) if recv is None else \
                (s if recv is send else _as_array(recv, "recv", True))
            if r.size != s.size:
                raise ValueError(f"reduce: send has {s.size} elements, recv"
                                 f" {r.size}")
        dt = _dtype_of([s, r], dtype)
        return self._submit(lib.hc_ireduce,
                            (_ptr(s), _ptr(r), s.size, dt, _op(op),
                             int(root)),
                            (s, r, recv), r, _opts(priority, timeout_ms),
                            "hc_reduce")

    def ibarrier(self, *, priority=None, timeout_ms=0):
        h = ctypes.c_void_p()
        o = _opts(priority, timeout_ms)
        check(lib.hc_ibarrier(self._h, ctypes.byref(o), ctypes.byref(h)),
              "hc_barrier")
        return Request(h, None, None, "hc_barrier")

    def isend(self, buf, peer, *, dtype=None, priority=None, timeout_ms=0):
        b = _as_array(buf, "buf")
        dt = _dtype_of([b], dtype)
        self._peer(peer)
        return self._submit(lib.hc_isend, (_ptr(b), b.size, dt, int(peer)),
                            (b, buf), None, _opts(priority, timeout_ms),
                            "hc_send")

    def irecv(self, buf, peer, *, dtype=None, priority=None, timeout_ms=0):
        b = _as_array(buf, "buf", True)
        dt = _dtype_of([b], dtype)
        self._peer(peer)
        return self._submit(lib.hc_irecv, (_ptr(b), b.size, dt, int(peer)),
                            (b, buf), buf, _opts(priority, timeout_ms),
                            "hc_recv")

    def _root(self, root):
        if not 0 <= int(root) < self.size:
            raise ValueError(f"root {root} outside 0..{self.size - 1}")

    def _peer(self, peer):
        if not 0 <= int(peer) < self.size:
            raise ValueError(f"peer {peer} outside 0..{self.size - 1}")
        if int(peer) == self.rank:
            raise ValueError(f"peer {peer} is this rank")

    # -- blocking forms --
    def allreduce(self, *a, **k):
        return self.iallreduce(*a, **k).wait()

    def reduce_scatter(self, *a, **k):
        return self.ireduce_scatter(*a, **k).wait()

    def allgather(self, *a, **k):
        return self.iallgather(*a, **k).wait()

    def reduce_scatterv(self, *a, **k):
        return self.ireduce_scatterv(*a, **k).wait()

    def allgatherv(self, *a, **k):
        return self.iallgatherv(*a, **k).wait()

    def broadcast(self, *a, **k):
        return self.ibroadcast(*a, **k).wait()

    def reduce(self, *a, **k):
        return self.ireduce(*a, **k).wait()

    def barrier(self, **k):
        return self.ibarrier(**k).wait()

    def send(self, *a, **k):
        return self.isend(*a, **k).wait()

    def recv(self, *a, **k):
        return self.irecv(*a, **k).wait()


# ---- the context -------------------------------------------------------------
class Context:
    """One hc_init'ed instance (one per process). A context manager:
    leaving the with block calls finalize()."""

    def __init__(self, handle):
        self._h = handle
        self.world = Comm(self, lib.hc_comm_world(handle))
        self.rank, self.size = self.world.rank, self.world.size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.finalize()
        return False

    def finalize(self):
        """hc_finalize; raises TimeoutError-derived TimeoutError if data
        stayed unacknowledged (the instance is freed all the same)."""
        if self._h is None:
            return
        h, self._h = self._h, None
        check(lib.hc_finalize(h), "hc_finalize")

    def stats(self):
        """hc_stats_get as a dict (hct_data_tx_class: a list of 4)."""
        s = _lib.Stats()
        check(lib.hc_stats_get(self._h, ctypes.byref(s)), "hc_stats_get")
        d = {f: getattr(s, f) for f, _ in _lib.Stats._fields_}
        d["hct_data_tx_class"] = list(s.hct_data_tx_class)
        return d

    def step_begin(self):
        check(lib.hc_metrics_step_begin(self._h), "hc_metrics_step_begin")

    def step_end(self):
        check(lib.hc_metrics_step_end(self._h), "hc_metrics_step_end")

    def metrics(self):
        """hc_metrics_get: {"steps", "link_GBps", "last": {...},
        "total": {...}} (fields of struct hc_metrics_interval)."""
        m = _lib.Metrics()
        check(lib.hc_metrics_get(self._h, ctypes.byref(m)), "hc_metrics_get")

        def iv(x):
            return {f: getattr(x, f) for f in _lib.INTERVAL_FIELDS}
        return {"steps": m.steps, "link_GBps": m.link_GBps,
                "last": iv(m.last), "total": iv(m.total)}

    def bucketer(self, grads, bucket_bytes=0, comm=None):
        return Bucketer(comm or self.world, grads, bucket_bytes)


def init(config=None, rank=-1, world_size=0, progress="auto", eal_args=None,
         restore_affinity=True):
    """eal_init(eal_args) if not done yet, then hc_init; returns a Context.

    config: the cluster file (None: $HC_CONFIG); rank -1: $HC_RANK (or
    RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID); world_size 0: the file's;
    progress "auto" or "caller"."""
    if progress not in PROGRESS:
        raise ValueError(f"progress {progress!r}: one of {sorted(PROGRESS)}")
    eal_init(eal_args, restore_affinity)
    p = _lib.InitParams(config.encode() if config else None, int(rank),
                        int(world_size), PROGRESS[progress])
    h = ctypes.c_void_p()
    check(lib.hc_init(ctypes.byref(p), ctypes.byref(h)), "hc_init")
    return Context(h)


# ---- gradient bucketing --------------------------------------------------------
class Bucketer:
    """hc_bucketer over a list of gradient arrays (model order, first layer
    first; all one float dtype, C-contiguous, alive as long as this).

        b = Bucketer(ctx.world, grads)
        for each step:  (backward, last layer first)
            ... compute grads[i] in place ...; b.mark_ready(i)
            b.wait()    # averages in grads, the optimizer may step
    """

    def __init__(self, comm, grads, bucket_bytes=0):
        self.comm = comm
        self.grads = [_as_array(g, f"grads[{i}]", True)
                      for i, g in enumerate(grads)]
        if not self.grads:
            raise ValueError("Bucketer: no gradients")
        dt = _dtype_of(self.grads, None)
        if dt not in (FLOAT16, FLOAT32, FLOAT64):
            raise TypeError(f"Bucketer: gradients of {_DTYPE_NAMES[dt]}, "
                            "a float dtype is needed")
        n = len(self.grads)
        bufs = (ctypes.c_void_p * n)(*[g.ctypes.data for g in self.grads])
        counts = (ctypes.c_uint64 * n)(*[g.size for g in self.grads])
        h = ctypes.c_void_p()
        check(lib.hc_bucketer_create(comm._h, n, bufs, counts, dt,
                                     int(bucket_bytes), ctypes.byref(h)),
              "hc_bucketer_create")
        self._h = h

    def mark_ready(self, i):
        check(lib.hc_bucketer_mark_ready(self._h, int(i)),
              "hc_bucketer_mark_ready")

    def wait(self):
        check(lib.hc_bucketer_wait(self._h), "hc_bucketer_wait")

    def buckets(self):
        """[{"grads": [indices], "bytes", "priority"}] in bucket order."""
        n = len(self.grads)
        order = (ctypes.c_size_t * n)()
        check(lib.hc_bucketer_order(self._h, order, n))
        out = []
        for k in range(check(lib.hc_bucketer_bucket_count(self._h))):
            bi = _lib.BucketInfo()
            check(lib.hc_bucketer_bucket_info(self._h, k, ctypes.byref(bi)))
            out.append({"grads": list(order[bi.first:bi.first + bi.ngrads]),
                        "bytes": bi.bytes, "priority": bi.priority})
        return out

    @property
    def rebuilt(self):
        return bool(check(lib.hc_bucketer_rebuilt(self._h)))

    def free(self):
        if self._h is not None:
            lib.hc_bucketer_free(self._h)
            self._h = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


# ---- HSDP ----------------------------------------------------------------------
class HSDPConfig:
    """The seeds' declarative HSDP: shard_size ranks shard the parameters,
    replica_factor copies of that group replicate them (world size =
    shard_size x replica_factor)."""

    def __init__(self, shard_size, replica_factor):
        if shard_size < 1 or replica_factor < 1:
            raise ValueError("HSDPConfig: sizes must be >= 1")
        self.shard_size = int(shard_size)
        self.replica_factor = int(replica_factor)

    def build(self, comm):
        """(HSDP) communicators on comm, whose size must be the product."""
        if comm.size != self.shard_size * self.replica_factor:
            raise ValueError(f"HSDPConfig({self.shard_size}, "
                             f"{self.replica_factor}) needs "
                             f"{self.shard_size * self.replica_factor} "
                             f"ranks, the communicator has {comm.size}")
        return HSDP(*comm.hsdp(self.shard_size))


class HSDP:
    """Shard and replica communicators and the two paths of HSDP."""

    def __init__(self, shard, replica):
        self.shard, self.replica = shard, replica
        self._queue = []    # gradient paths whose all-reduce is not started

    def reduce_gradients(self, full_grad, shard_out=None, **kw):
        """Start the gradient path: reduce-scatter (avg) of full_grad in
        the shard group, then all-reduce (avg) of this rank's shard
        across replicas. Returns a waitable (wait(), test()) whose wait()
        gives the averaged shard (shard_out, or a new array). The
        all-reduce starts when the reduce-scatter is seen done by wait()
        or test() of this path or a later one; the paths' all-reduces are
        started in the order the paths were made, whatever order they are
        waited in, so every rank submits them alike."""
        rs = self.shard.ireduce_scatter(full_grad, shard_out, "avg", **kw)
        c = _Chain(self, rs, lambda out: self.replica.iallreduce(
            out, out, "avg", **kw))
        self._queue.append(c)
        return c

    def gather_params(self, shard, full_out=None, **kw):
        """Start the parameter path: all-gather of the shard in the shard
        group; a Request whose wait() gives the full parameters."""
        return self.shard.iallgather(shard, full_out, **kw)

    def _advance(self, upto, block):
        """Start the queued all-reduces, oldest first, up to upto; without
        block stop (False) at one whose reduce-scatter is not done."""
        while upto._second is None:
            c = self._queue[0]
            if block:
                c._first.wait()
            elif not c._first.test():
                return False
            c._second = c._then(c._first.result)
            self._queue.pop(0)
        return True


class _Chain:
    """Request-like: a reduce-scatter, then an all-reduce (HSDP)."""

    def __init__(self, owner, first, then):
        self._owner, self._first, self._then = owner, first, then
        self._second = None

    def test(self):
        if not self._owner._advance(self, False):
            return False
        return self._second.test()

    def wait(self):
        self._owner._advance(self, True)
        return self._second.wait()
