#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hct_inject.py: frames for the isolation tests (issue 10: C38, stale runs).

Run inside a test's network namespace (hc-launch's HC_LAUNCH_SIDECAR), as
root; python3 only (AF_PACKET sockets), no other package. Every mode is
bounded in frames (--max) and in time (--seconds), and only touches the
namespace it runs in: frames go out of a veth pair of its own (hi<pid>a,
its peer hi<pid>b a port of bridge hcbr0), removed at exit.

  hct_inject.py garbage --config INI [--rate PPS] [--seconds S] [--max N]
      garbage and stray frames to the job's ranks (kinds in KINDS below),
      round-robin over kinds and ranks; prints per rank how many of each
      kind it was sent ("inject: rank R KIND N ...")
  hct_inject.py capture --out FILE [--seconds S] [--max N]
      HCT frames the ranks send (ingress on every hct<r> tap), each frame
      once, to FILE (records: 4-byte little-endian length, frame)
  hct_inject.py replay --in FILE --config INI [--rate PPS] [--seconds S]
      [--max N]
      the frames of FILE into the bridge again, in a loop, with our
      Ethernet source address (the bridge must not learn the ranks' MACs
      on our port); IP and HCT bytes as captured. Prints per rank how
      many were addressed to it ("replay: rank R N")
  hct_inject.py forge --config INI [--rate PPS] [--seconds S] [--max N]
      forgeries by one who sees the job's traffic but lacks its key: the
      latest DATA and ACK of each pair of ranks (sniffed on the taps) sent
      again with the PSN moved on (DATA: within the window, payload of
      0x7f bytes; ACK: acknowledging 64 packets more), CRC32C right, the
      tag 16 random bytes; prints per rank how many it was sent
      ("forge: rank R N")
--wait (every mode but capture): first wait (at most 20 s) until every
rank of --config answers a ping, i.e. its stack is up, and print how long
that took ("wait: ..."). Our veth is made before that wait, so sending
starts as soon as the ranks answer (ip link took 2-3 s on a busy host).
"""
import argparse
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

HCT_PORT = 51966
HCT_HDR_LEN = 104
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SRC_MAC = bytes.fromhex("02 00 c6 13 00 99")
SRC_IP = socket.inet_aton("198.18.250.1")  # no rank's (hc_addr_of_rank)

# CRC32C (Castagnoli), reflected, as rte_hash_crc: init 0xffffffff, no
# final xor; stack/transport/hct_hdr.c computes it with the crc field as 0.
_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _T.append(_c)


def crc32c(data, c=0xFFFFFFFF):
    for b in data:
        c = _T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def hct_header(job, typ, src_rank, dst_rank, length=0, version=1,
               src_nonce=0x11111111, dst_nonce=0x22222222, psn=0):
    """An HCT v1 wire header (stack/transport/hct_hdr.h), crc 0."""
    return struct.pack(">BBBBIIIHHHHII16sQQIIIIHHIQII", version, typ, 0x01,
                       2, job, src_nonce, dst_nonce, src_rank, dst_rank,
                       0, 0, psn, 0, b"\0" * 16, 0, 0, 0, 1, 0, 0, 0, 0,
                       length, 0, 0, 0)


def seal(pkt):
    """Write the CRC32C the receiver checks (bytes 96..99)."""
    c = crc32c(pkt[:96] + b"\0\0\0\0" + pkt[100:])
    return pkt[:96] + struct.pack(">I", c) + pkt[100:]


def ip_csum(h):
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def udp_frame(dst_mac, dst_ip, dport, payload, bad_ip_csum=False):
    ulen = 8 + len(payload)
    udp = struct.pack("!HHHH", 40000, dport, ulen, 0) + payload  # csum 0
    ih = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0, 0x4000, 64,
                     17, 0, SRC_IP, dst_ip)
    c = ip_csum(ih) ^ (0x5555 if bad_ip_csum else 0)
    ih = ih[:10] + struct.pack("!H", c) + ih[12:]
    return dst_mac + SRC_MAC + b"\x08\x00" + ih + udp


def load_ranks(path):
    """[(ip bytes, mac bytes)] per rank, and the job id, from an INI."""
    ranks, job, sec = {}, 0, ""
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                sec = line.strip("[]")
                continue
            if "=" not in line:
                continue
            k, v = (x.strip() for x in line.split("=", 1))
            if sec == "job" and k == "id":
                job = int(v)
            elif sec.startswith("rank."):
                r = int(sec[5:])
                ranks.setdefault(r, {})[k] = v
    out = []
    for r in sorted(ranks):
        out.append((socket.inet_aton(ranks[r]["ip"]),
                    bytes.fromhex(ranks[r]["mac"].replace(":", ""))))
    return out, job


class Veth:
    """A veth pair of ours with one end on the bridge; removed on close."""

    def __init__(self):
        self.a = "hi%da" % (os.getpid() % 100000)
        self.b = "hi%db" % (os.getpid() % 100000)
        for cmd in (["ip", "link", "add", self.a, "type", "veth", "peer",
                     "name", self.b],
                    ["ip", "link", "set", self.b, "master", "hcbr0"],
                    ["ip", "link", "set", self.b, "up"],
                    ["ip", "link", "set", self.a, "up"]):
            subprocess.run(cmd, check=True)
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.s.bind((self.a, 0))
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)

    def send(self, frame):
        try:
            self.s.send(frame)
            return 1
        except OSError:
            return 0  # ENOBUFS: not sent, not counted

    def close(self):
        self.s.close()
        subprocess.run(["ip", "link", "del", self.a], check=False)


def veth_for(ranks, wait):
    """Makes our veth, then (with --wait) waits until every rank answers a
    ping and prints how long that took. The veth comes first: ip link can
    take seconds on a busy host, and sending should start as soon as the
    ranks answer. On a timeout removes the veth and exits."""
    v = Veth()
    if not wait:
        return v
    t0 = time.monotonic()
    end = t0 + 20
    for ip, _ in ranks:
        a = socket.inet_ntoa(ip)
        while subprocess.run(["ping", "-c1", "-W1", "-q", a],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL).returncode != 0:
            if time.monotonic() > end:
                v.close()
                sys.exit("hct_inject: rank %s never answered a ping" % a)
            time.sleep(0.05)
    print("wait: every rank answered a ping after %.1f s" %
          (time.monotonic() - t0), flush=True)
    return v


def paced(rate, seconds, limit):
    """Yields i = 0, 1, ... at about rate per second, for at most seconds
    and limit items."""
    t0 = time.monotonic()
    i = 0
    while i < limit:
        now = time.monotonic()
        if now - t0 >= seconds:
            return
        due = t0 + i / rate
        if due > now:
            time.sleep(due - now)
        yield i
        i += 1


# What each garbage kind should raise at the receiving rank (hc_stats):
#   other_job  a sealed HCT header of another [job] id: hct_other_job_rx
#   short      HCT port, 1..103 bytes: hct_malformed_rx
#   version    HCT port, sealed header of version 9: hct_malformed_rx
#   crc        HCT port, 200 random bytes: hct_crc_rx
#   udp_port   another UDP port: net_rx_drops
#   ethertype  EtherType 0x88b5 to the rank's MAC: net_rx_drops
#   ip_csum    IPv4 with a wrong header checksum: net_rx_drops, when it
#              gets there: with br_netfilter loaded the bridge validates
#              IPv4 headers and drops it first (seen here), so it is not
#              among the default kinds
KINDS = ("other_job", "short", "version", "crc", "udp_port", "ethertype",
         "ip_csum")
DEFAULT_KINDS = KINDS[:-1]


def garbage_frame(kind, job, r, n, ranks, rnd):
    ip, mac = ranks[r]
    if kind == "other_job":
        h = hct_header(job + 1 + rnd.randrange(1000), 2, (r + 1) % n, r)
        return udp_frame(mac, ip, HCT_PORT, seal(h))
    if kind == "short":
        return udp_frame(mac, ip, HCT_PORT,
                         rnd.randbytes(rnd.randrange(1, HCT_HDR_LEN)))
    if kind == "version":
        return udp_frame(mac, ip, HCT_PORT,
                         seal(hct_header(job, 2, (r + 1) % n, r, version=9)))
    if kind == "crc":
        return udp_frame(mac, ip, HCT_PORT, rnd.randbytes(200))
    if kind == "udp_port":
        return udp_frame(mac, ip, rnd.choice((53, 4791, 51967, 9)),
                         rnd.randbytes(rnd.randrange(0, 300)))
    if kind == "ethertype":
        return mac + SRC_MAC + b"\x88\xb5" + rnd.randbytes(60)
    return udp_frame(mac, ip, HCT_PORT, rnd.randbytes(120),
                     bad_ip_csum=True)


def stop_on_term():
    """hc-launch ends its sidecar with SIGTERM when the ranks are done,
    which may come before --seconds are over (slow start-up on a loaded
    host): stop sending then and still print what was sent, or the caller
    has counters and nothing to compare them with (a run of forge lost its
    figures so). A flag, not an exception, so that a frame sent is always
    a frame counted. Returns the list the handler appends to."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    return stop


def do_garbage(a):
    ranks, job = load_ranks(a.config)
    n = len(ranks)
    rnd = random.Random(a.seed)
    kinds = a.kinds.split(",")
    if not kinds or any(k not in KINDS for k in kinds):
        sys.exit("hct_inject: --kinds: a subset of " + ",".join(KINDS))
    v = veth_for(ranks, a.wait)
    sent = [dict.fromkeys(KINDS, 0) for _ in ranks]
    stop = stop_on_term()
    t0 = time.monotonic()
    total = 0
    try:
        for i in paced(a.rate, a.seconds, a.max):
            if stop:
                break
            kind = kinds[i % len(kinds)]
            r = (i // len(kinds)) % n
            if v.send(garbage_frame(kind, job, r, n, ranks, rnd)):
                sent[r][kind] += 1
                total += 1
    finally:
        v.close()
    dt = time.monotonic() - t0
    print("inject: %d frames in %.2f s (%.0f/s)" % (total, dt,
                                                   total / max(dt, 1e-9)))
    for r in range(n):
        print("inject: rank %d %s" % (r, " ".join(
            "%s %d" % (k, sent[r][k]) for k in KINDS)))


def do_capture(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.settimeout(0.2)
    kept = 0
    end = time.monotonic() + a.seconds
    with open(a.out, "wb") as f:
        while kept < a.max and time.monotonic() < end:
            try:
                fr, addr = s.recvfrom(65536)
            except socket.timeout:
                continue
            # each frame once: as it enters the kernel from a rank's tap
            if addr[2] == PACKET_OUTGOING or not addr[0].startswith("hct"):
                continue
            if len(fr) < 42 + HCT_HDR_LEN or fr[12:14] != b"\x08\x00" or \
                    fr[23] != 17:
                continue
            ihl = (fr[14] & 15) * 4
            if struct.unpack("!H", fr[14 + ihl + 2:14 + ihl + 4])[0] != \
                    HCT_PORT:
                continue
            f.write(struct.pack("<I", len(fr)) + fr)
            kept += 1
    print("capture: %d HCT frames" % kept)


def do_replay(a):
    ranks, _ = load_ranks(a.config)
    frames = []
    with open(a.input, "rb") as f:
        while True:
            h = f.read(4)
            if len(h) < 4:
                break
            frames.append(f.read(struct.unpack("<I", h)[0]))
    if not frames:
        sys.exit("replay: no frames in %s" % a.input)
    by_ip = {ip: r for r, (ip, _) in enumerate(ranks)}
    v = veth_for(ranks, a.wait)
    sent = [0] * len(ranks)
    types = {}
    stop = stop_on_term()
    try:
        for i in paced(a.rate, a.seconds, a.max):
            if stop:
                break
            # Ethernet source: ours, or the bridge would learn the
            # ranks' MACs on our port and send their traffic to us.
            # Everything from the IP header on is as captured.
            fr = frames[i % len(frames)]
            fr = fr[:6] + SRC_MAC + fr[12:]
            if v.send(fr):
                r = by_ip.get(fr[30:34])
                if r is not None:
                    sent[r] += 1
                ihl = (fr[14] & 15) * 4
                t = fr[14 + ihl + 8 + 1]
                types[t] = types.get(t, 0) + 1
    finally:
        v.close()
    print("replay: %d frames of %d captured; by HCT type %s" % (
        sum(sent), len(frames),
        " ".join("%d:%d" % kv for kv in sorted(types.items()))))
    for r, c in enumerate(sent):
        print("replay: rank %d %d" % (r, c))


def hct_sniffer():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setblocking(False)
    return s


def sniffed_hct(s, limit=64):
    """Up to limit HCT frames the ranks sent since the last call, each
    once (as it enters the kernel from a rank's tap)."""
    out = []
    for _ in range(limit):
        try:
            fr, addr = s.recvfrom(65536)
        except BlockingIOError:
            break
        if addr[2] == PACKET_OUTGOING or not addr[0].startswith("hct"):
            continue
        if len(fr) < 42 + HCT_HDR_LEN or fr[12:14] != b"\x08\x00" or \
                fr[23] != 17 or (fr[14] & 15) != 5 or \
                struct.unpack("!H", fr[36:38])[0] != HCT_PORT:
            continue
        out.append(fr)
    return out


def forged(fr, mac, rnd):
    """fr (a sniffed DATA or ACK of the job) with the PSN or ACK moved on,
    a new payload, a right CRC32C and, when the job tags its packets
    (HCT_F_AUTH), a random tag in place of the right one."""
    h = bytearray(fr[42:])
    tag_len = 16 if h[2] & 0x80 else 0
    typ = h[1]
    if typ == 1:
        psn = struct.unpack(">I", h[24:28])[0]
        h[24:28] = struct.pack(">I", (psn + 1 + rnd.randrange(32)) & 0xFFFFFFFF)
        n = len(h) - HCT_HDR_LEN - tag_len
        h[HCT_HDR_LEN:HCT_HDR_LEN + n] = b"\x7f" * n
    else:
        ack = struct.unpack(">I", h[28:32])[0]
        h[28:32] = struct.pack(">I", (ack + 64) & 0xFFFFFFFF)
    body = seal(bytes(h[:len(h) - tag_len]))
    return mac + SRC_MAC + fr[12:42] + body + rnd.randbytes(tag_len)


def do_forge(a):
    ranks, job = load_ranks(a.config)
    by_ip = {ip: r for r, (ip, _) in enumerate(ranks)}
    rnd = random.Random(a.seed)
    v = veth_for(ranks, a.wait)
    sn = hct_sniffer()
    last = {}  # (src ip, dst ip, type) -> the latest frame seen
    sent = [0] * len(ranks)
    keys = []
    stop = stop_on_term()
    try:
        for i in paced(a.rate, a.seconds, a.max):
            if stop:
                break
            for fr in sniffed_hct(sn):
                h = fr[42:]
                if h[0] != 1 or h[1] not in (1, 2) or \
                        struct.unpack(">I", h[4:8])[0] != job:
                    continue
                k = (fr[26:30], fr[30:34], h[1])
                if k not in last:
                    keys.append(k)
                last[k] = fr
            if not keys:
                continue
            k = keys[i % len(keys)]
            r = by_ip.get(k[1])
            if r is None:
                continue
            if v.send(forged(last[k], ranks[r][1], rnd)):
                sent[r] += 1
    finally:
        v.close()
        sn.close()
    print("forge: %d frames from %d (pair, type) streams seen" % (
        sum(sent), len(keys)))
    for r, c in enumerate(sent):
        print("forge: rank %d %d" % (r, c))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    g = sub.add_parser("garbage")
    g.add_argument("--config", required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                   help="comma-separated subset of " + ",".join(KINDS))
    c = sub.add_parser("capture")
    c.add_argument("--out", required=True)
    r = sub.add_parser("replay")
    r.add_argument("--in", dest="input", required=True)
    r.add_argument("--config", required=True)
    fo = sub.add_parser("forge")
    fo.add_argument("--config", required=True)
    fo.add_argument("--seed", type=int, default=1)
    for q in (g, c, r, fo):
        q.add_argument("--rate", type=float, default=10000)
        q.add_argument("--seconds", type=float, default=3)
        q.add_argument("--max", type=int, default=100000)
        q.add_argument("--wait", action="store_true")
    a = p.parse_args()
    if a.seconds > 60 or a.max > 1000000 or a.rate > 100000:
        sys.exit("hct_inject: at most 60 s, 10^6 frames, 10^5 frames/s")
    {"garbage": do_garbage, "capture": do_capture, "replay": do_replay,
     "forge": do_forge}[a.mode](a)


if __name__ == "__main__":
    main()
