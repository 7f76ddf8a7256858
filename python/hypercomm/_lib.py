# SPDX-License-Identifier: BSD-3-Clause
"""ctypes declarations of hypercomm.h (the public API only).

The library is found, in this order, at $HC_LIBRARY (a path), in the
build tree beside this package (../../build/libhypercomm.so, for a
checkout), then by ctypes.util.find_library("hypercomm") (an installed
copy). The structures below mirror hypercomm.h field by field; keep them
in step with it.
"""
import ctypes
import ctypes.util
import os

c_int, c_uint32, c_uint64, c_size_t, c_double, c_void_p, c_char_p = (
    ctypes.c_int, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t,
    ctypes.c_double, ctypes.c_void_p, ctypes.c_char_p)


def _candidates():
    env = os.environ.get("HC_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "libhypercomm.so")
    found = ctypes.util.find_library("hypercomm")
    if found:
        yield found


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            # RTLD_GLOBAL: DPDK's drivers (loaded by the EAL) resolve
            # symbols of the EAL libraries that came with it.
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("hypercomm: libhypercomm not found (set HC_LIBRARY "
                      "to its path): " + "; ".join(errors or ["none found"]))


lib, lib_path = _load()


def _load_eal():
    """librte_eal, which libhypercomm links: rte_eal_init is DPDK's, not
    part of hypercomm's API, so it is taken from DPDK's own library."""
    name = ctypes.util.find_library("rte_eal") or "librte_eal.so.23"
    return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)


eal = _load_eal()
eal.rte_eal_init.argtypes = [c_int, ctypes.POINTER(c_char_p)]
eal.rte_eal_init.restype = c_int
eal.rte_eal_cleanup.argtypes = []
eal.rte_eal_cleanup.restype = c_int
eal.rte_strerror.argtypes = [c_int]
eal.rte_strerror.restype = c_char_p


class InitParams(ctypes.Structure):
    _fields_ = [("config_path", c_char_p), ("rank", c_int),
                ("world_size", c_int), ("progress", c_int)]


class OpOpts(ctypes.Structure):
    _fields_ = [("priority", c_int), ("timeout_ms", c_uint32)]


_STATS_FIELDS = [
    "port_rx_pkts", "port_tx_pkts", "port_tx_drops", "fault_drops",
    "net_rx_drops", "arp_requests", "icmp_echo_replies", "hct_data_tx",
    "hct_data_rx", "hct_retransmits", "hct_rtos", "hct_dup_rx",
    "hct_acks_tx", "hct_stray_rx", "hct_crc_rx"]


# struct hc_stats after hct_credit_limited, in its order: the drop causes
# (C38, stale runs, authenticated mode), the per-packet CPU probe, then
# the CRC coverage counters, the zero-copy counter, the held DATA counters,
# the partial TX bursts.
# ctypes must mirror the whole struct: hc_stats_get writes all of it
# (tests/python/check_abi.py compares sizes and offsets with the header).
_STATS_TAIL = [
    "hct_other_job_rx", "hct_stale_rx", "hct_malformed_rx", "hct_misaddr_rx",
    "net_ip_conflicts", "hct_bad_tag_rx", "hct_auth",
    "cpu_tsc_hz", "cpu_read_cyc", "cpu_rx_cyc", "cpu_rx_payload_cyc",
    "cpu_rx_polls", "cpu_tx_cyc", "cpu_tx_payload_cyc", "cpu_tx_polls",
    "cpu_rx_skipped", "cpu_tx_skipped", "cpu_rx_port_cyc", "cpu_tx_port_cyc",
    "hct_data_tx_hdr_crc", "hct_data_rx_hdr_crc", "hct_data_tx_zc",
    "coll_held", "coll_held_refused", "coll_held_max", "port_tx_partial"]


class Stats(ctypes.Structure):
    _fields_ = ([(f, c_uint64) for f in _STATS_FIELDS] +
                [("hct_data_tx_class", c_uint64 * 4),
                 ("hct_bulk_forced", c_uint64),
                 ("hct_tx_ring_full", c_uint64),
                 ("hct_credit_limited", c_uint64)] +
                [(f, c_uint64) for f in _STATS_TAIL])


INTERVAL_FIELDS = ["step_us", "comm_us", "wait_us", "compute_us",
                   "bus_bytes", "comm_compute_ratio", "busbw_GBps",
                   "utilization", "bubble_rate"]


class MetricsInterval(ctypes.Structure):
    _fields_ = [(f, c_double) for f in INTERVAL_FIELDS]


class Metrics(ctypes.Structure):
    _fields_ = [("steps", c_uint64), ("link_GBps", c_double),
                ("last", MetricsInterval), ("total", MetricsInterval)]


class BucketInfo(ctypes.Structure):
    _fields_ = [("first", c_size_t), ("ngrads", c_size_t),
                ("bytes", c_uint64), ("priority", c_int)]


P = c_void_p
PP = ctypes.POINTER(c_void_p)
U64P = ctypes.POINTER(c_uint64)
O = ctypes.POINTER(OpOpts)

_SIGS = {
    "hc_init": ([ctypes.POINTER(InitParams), PP], c_int),
    "hc_finalize": ([P], c_int),
    "hc_comm_world": ([P], P),
    "hc_comm_split": ([P, c_int, c_int, PP], c_int),
    "hc_comm_rank": ([P], c_int),
    "hc_comm_size": ([P], c_int),
    "hc_comm_tuner_info": ([P, ctypes.c_char_p, c_size_t], c_int),
    "hc_strerror": ([c_int], c_char_p),
    "hc_dtype_size": ([c_int], c_size_t),
    "hc_iallreduce": ([P, P, P, c_uint64, c_int, c_int, O, PP], c_int),
    "hc_ireduce_scatter": ([P, P, P, c_uint64, c_int, c_int, O, PP], c_int),
    "hc_iallgather": ([P, P, P, c_uint64, c_int, O, PP], c_int),
    "hc_ireduce_scatterv": ([P, P, P, U64P, c_int, c_int, O, PP], c_int),
    "hc_iallgatherv": ([P, P, P, U64P, U64P, c_int, O, PP], c_int),
    "hc_ibroadcast": ([P, P, P, c_uint64, c_int, c_int, O, PP], c_int),
    "hc_ireduce": ([P, P, P, c_uint64, c_int, c_int, c_int, O, PP], c_int),
    "hc_ibarrier": ([P, O, PP], c_int),
    "hc_isend": ([P, P, c_uint64, c_int, c_int, O, PP], c_int),
    "hc_irecv": ([P, P, c_uint64, c_int, c_int, O, PP], c_int),
    "hc_test": ([P, ctypes.POINTER(c_int)], c_int),
    "hc_wait": ([P], c_int),
    "hc_stats_get": ([P, ctypes.POINTER(Stats)], c_int),
    "hc_metrics_step_begin": ([P], c_int),
    "hc_metrics_step_end": ([P], c_int),
    "hc_metrics_get": ([P, ctypes.POINTER(Metrics)], c_int),
    "hc_bucketer_create": ([P, c_size_t, PP, U64P, c_int, c_uint64, PP],
                           c_int),
    "hc_bucketer_mark_ready": ([P, c_size_t], c_int),
    "hc_bucketer_wait": ([P], c_int),
    "hc_bucketer_bucket_count": ([P], c_int),
    "hc_bucketer_bucket_info": ([P, c_size_t, ctypes.POINTER(BucketInfo)],
                                c_int),
    "hc_bucketer_order": ([P, ctypes.POINTER(c_size_t), c_size_t], c_int),
    "hc_bucketer_rebuilt": ([P], c_int),
    "hc_bucketer_free": ([P], None),
    "hc_comm_hsdp": ([P, c_int, PP, PP], c_int),
}

for _name, (_args, _res) in _SIGS.items():
    _f = getattr(lib, _name)
    _f.argtypes = _args
    _f.restype = _res
