#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ctypes structures of python/hypercomm/_lib.py against hypercomm.h.

    tests/python/check_abi.py [CC]

ctypes cannot read a C header, so _lib.py restates every structure the
library fills or reads. A field appended in C but not in Python makes
hc_stats_get write past the ctypes buffer (it crashed the interpreter
once). This check compiles a small C program against the real header that
prints, for each mirrored structure, sizeof and the offsetof of every
field ctypes declares, by the ctypes field's name, and compares them with
ctypes' own sizes and offsets. A field missing in C fails to compile
(named); a field missing, reordered or of another width in Python gives a
size or offset difference (named). Prints "PASS abi <struct>" or
"FAIL abi <struct>: why" per structure; exit status 1 on any failure.
"""
import ctypes
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..")
sys.path.insert(0, os.path.join(root, "python"))
from hypercomm import _lib  # noqa: E402

# C structure -> its ctypes mirror. Every ctypes.Structure of _lib.py must
# be here (checked below), so a new mirror cannot skip the check.
MIRRORS = {
    "hc_init_params": _lib.InitParams,
    "hc_op_opts": _lib.OpOpts,
    "hc_stats": _lib.Stats,
    "hc_metrics_interval": _lib.MetricsInterval,
    "hc_metrics": _lib.Metrics,
    "hc_bucket_info": _lib.BucketInfo,
}


def c_program():
    lines = ["#include <stdio.h>", "#include <stddef.h>",
             '#include "hypercomm.h"', "int main(void) {"]
    for cname, py in MIRRORS.items():
        lines.append('printf("%s size %%zu\\n", sizeof(struct %s));'
                     % (cname, cname))
        for f in py._fields_:
            lines.append('printf("%s %s %%zu\\n", offsetof(struct %s, %s));'
                         % (cname, f[0], cname, f[0]))
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else "cc"
    failed = 0
    mirrored = set(MIRRORS.values())
    for name in dir(_lib):
        obj = getattr(_lib, name)
        if (isinstance(obj, type) and issubclass(obj, ctypes.Structure) and
                obj not in mirrored):
            print("FAIL abi %s: a ctypes structure check_abi.py does not "
                  "map to its C structure" % name)
            failed += 1
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "abi.c"), os.path.join(d, "abi")
        with open(src, "w") as fh:
            fh.write(c_program())
        inc = os.path.join(root, "stack", "include")
        r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", inc,
                            "-o", exe, src], capture_output=True, text=True)
        if r.returncode != 0:
            # A ctypes field with no C member: the compiler names it.
            print("FAIL abi compile: %s" % " ".join(
                l.strip() for l in r.stderr.splitlines() if "error" in l))
            return 1
        out = subprocess.run([exe], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    c = {}
    for line in out:
        if line:
            s, f, v = line.split()
            c[(s, f)] = int(v)
    for cname, py in MIRRORS.items():
        why = []
        if c[(cname, "size")] != ctypes.sizeof(py):
            why.append("sizeof %d in C, %d in ctypes" %
                       (c[(cname, "size")], ctypes.sizeof(py)))
        for f in py._fields_:
            off = getattr(py, f[0]).offset
            if c[(cname, f[0])] != off:
                why.append("%s at offset %d in C, %d in ctypes" %
                           (f[0], c[(cname, f[0])], off))
        if why:
            print("FAIL abi %s: %s" % (cname, "; ".join(why[:4])))
            failed += 1
        else:
            print("PASS abi %s (%d bytes, %d fields)" %
                  (cname, ctypes.sizeof(py), len(py._fields_)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
