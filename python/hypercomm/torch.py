# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch glue: a DistributedDataParallel communication hook that runs
each DDP bucket's all-reduce over hypercomm (Debian's python3-torch 1.13).

    import hypercomm, hypercomm.torch
    ctx = hypercomm.init()
    dist.init_process_group("gloo")       # DDP's own bookkeeping only
    model = DistributedDataParallel(net)
    model.register_comm_hook(ctx.world, hypercomm.torch.allreduce_hook)

The hook divides the bucket's flat gradient tensor (CPU, contiguous) by
the world size and hands its memory (no copy) to hc_iallreduce with
HC_OP_SUM in place, as DDP's default all-reduce hook does, and returns a
torch.futures.Future that a completion thread fulfils with that tensor
once the request is done (or fails with the request's exception). The
bucket DDP reduces last in an iteration (GradBucket.is_last(): the one
holding the first layers, which the next forward pass needs first) goes
at critical priority, the others at normal.
"""
import queue
import threading

import torch

import hypercomm as _hc

__all__ = ["allreduce_hook", "HookState"]


class HookState:
    """State for allreduce_hook: the communicator and, optionally, the
    priority of every bucket but the last (default normal)."""

    def __init__(self, comm, priority=None):
        self.comm = comm
        self.priority = priority


_q = queue.Queue()
_thread = None
_lock = threading.Lock()


def _complete():
    while True:
        req, fut, tensor = _q.get()
        try:
            req.wait()          # ctypes drops the GIL while it waits
        except Exception as e:  # the request's HypercommError
            fut.set_exception(e)
        else:
            fut.set_result(tensor)


def _completer():
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_complete, daemon=True,
                                       name="hypercomm-completion")
            _thread.start()


def allreduce_hook(state, bucket):
    """DDP comm hook (register_comm_hook(state, allreduce_hook)); state:
    a hypercomm Comm, Context (its world) or HookState."""
    if isinstance(state, _hc.Context):
        state = HookState(state.world)
    elif isinstance(state, _hc.Comm):
        state = HookState(state)
    tensor = bucket.buffer()
    if tensor.device.type != "cpu" or not tensor.is_contiguous():
        raise TypeError("hypercomm.torch.allreduce_hook: CPU contiguous "
                        f"buckets only, got {tensor.device} "
                        f"contiguous={tensor.is_contiguous()}")
    # as DDP's default hook (torch/distributed/algorithms/ddp_comm_hooks/
    # default_hooks.py allreduce_hook): divide by the world size, then sum
    tensor.div_(state.comm.size)
    arr = tensor.detach().numpy()
    prio = "critical" if bucket.is_last() else state.priority
    req = state.comm.iallreduce(arr, arr, "sum", priority=prio)
    fut = torch.futures.Future()
    _completer()
    _q.put((req, fut, tensor))
    return fut
