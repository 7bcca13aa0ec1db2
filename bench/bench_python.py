#!/usr/bin/env python3
"""bench_python: the etmkit Python package's bulk path (blocks as NumPy
arrays) against the C library's decode of the same input in blocks.

    /usr/bin/python3 bench/bench_python.py [--build DIR] [--shared DIR]
                                           [--mb N] [--runs N] [--batch N]

The C side is bench_etm4_flow's ranges form (ETM4_FLOW_RANGES, every
element read by a C consumer) on the Juno r1 ETMv4 capture's trace ID
0x10 repeated to --mb MiB; it writes that input (--dump) and the Python
side decodes the same bytes, with the same registers and image, through
the library's session into BLOCK_DTYPE arrays of --batch rows
(etmkit._etmkit._raw_stream), reading every array's instruction counts.
It also times the public path, etmkit.open() of the same bytes as a raw
file with the same registers and image (`etmkit decode`'s input code, 1
MiB a step, its default --jobs 1), into the same arrays. All report the best of
--runs; the Python runs must count the same instructions. Wall-clock times: run it on a quiet machine (the load
average is printed with the result).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

REGS = dict(trcidr0=0x28000EA1, trcidr1=0x4100F402, trcidr2=0x00000488,
            trcconfigr=0xC1)
DUMP_ADDR = 0xFFFFFFC000081000


def c_side(build, shared, mb, runs, path):
    """bench_etm4_flow's ranges decode: (MB/s, instructions, text)."""
    cmd = [os.path.join(build, "bench", "bench_etm4_flow"), "--shared",
           shared, "--forms", "ranges", "--mb", str(mb), "--runs",
           str(runs), "--dump", path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"etmkit-ranges\s+([\d.]+) MB\s+([\d.]+) MB/s\s+([\d.]+) "
                  r"Minsn/s\s+([\d.]+) ms", out.stdout)
    if not m:
        sys.exit("bench_python: no etmkit-ranges line from " + " ".join(cmd)
                 + "\n" + out.stdout + out.stderr)
    secs = float(m.group(4)) / 1e3
    insns = round(float(m.group(3)) * 1e6 * secs)
    return float(m.group(2)), insns, " ".join(cmd)


def py_side(path, image, runs, batch):
    """The package's blocks: (MB/s, instructions, arrays)."""
    from etmkit import _etmkit
    with open(path, "rb") as f:
        data = f.read()
    best, insns, narrays = None, 0, 0
    for _ in range(runs):
        t0 = time.perf_counter()
        n = k = 0
        for a in _etmkit._raw_stream(data, "blocks", "etmv4", REGS,
                                     id=0x10, frames="none",
                                     images=[(image, DUMP_ADDR)],
                                     batch=batch):
            n += int(a["count"].sum(dtype="u8"))
            k += 1
        t = time.perf_counter() - t0
        if best is None or t < best:
            best = t
        insns, narrays = n, k
    return len(data) / (1 << 20) / best, insns, narrays, best


def open_side(path, image, runs, batch):
    """etmkit.open(...).blocks(): the public path, the CLI's raw input
    code (1 MiB a step) into the same filler: (MB/s, instructions)."""
    import etmkit
    t = etmkit.open(path, protocol="etmv4", frames="none", id=0x10,
                    trcidr0=hex(REGS["trcidr0"]), trcidr1=hex(REGS["trcidr1"]),
                    trcidr2=hex(REGS["trcidr2"]),
                    trcconfigr=hex(REGS["trcconfigr"]),
                    image=f"{image}@{DUMP_ADDR:#x}")
    best, insns = None, 0
    for _ in range(runs):
        t0 = time.perf_counter()
        n = 0
        for a in t.blocks(batch=batch):
            n += int(a["count"].sum(dtype="u8"))
        sec = time.perf_counter() - t0
        if best is None or sec < best:
            best = sec
        insns = n
    return os.path.getsize(path) / (1 << 20) / best, insns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--shared", default=os.environ.get(
        "ETMKIT_SHARED", os.path.join(os.path.dirname(__file__), "..", "..",
                                      "shared")))
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8192)
    o = ap.parse_args()
    sys.path.insert(0, os.path.join(o.build, "python"))
    image = os.path.join(o.shared, "testdata", "etmv4", "juno_r1_1",
                         "kernel_dump.bin")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "juno.bin")
        c_rate, c_insns, cmd = c_side(o.build, o.shared, o.mb, o.runs, path)
        p_rate, p_insns, narrays, secs = py_side(path, image, o.runs,
                                                 o.batch)
        o_rate, o_insns = open_side(path, image, o.runs, o.batch)
    load = os.getloadavg()
    print(f"bench_python  input    Juno r1 ETMv4 ID 0x10, {o.mb} MiB, "
          f"load average {load[0]:.2f} {load[1]:.2f}")
    print(f"bench_python  c-ranges      {c_rate:8.1f} MB/s  ({cmd})")
    print(f"bench_python  python-blocks {p_rate:8.1f} MB/s  "
          f"{secs * 1e3:.1f} ms, {narrays} arrays of {o.batch} rows")
    print(f"bench_python  open-blocks   {o_rate:8.1f} MB/s  "
          f"(etmkit.open(raw file, ...).blocks(): the CLI's input code)")
    print(f"bench_python  ratio    {p_rate / c_rate:.2f} "
          f"(python-blocks / c-ranges), {o_rate / c_rate:.2f} "
          f"(open-blocks / c-ranges)")
    if o_insns != p_insns:
        sys.exit(f"bench_python: MISMATCH: open() {o_insns} instructions, "
                 f"the session {p_insns}")
    if p_insns != c_insns:
        # The C count is read back from its Minsn/s and ms, each printed
        # rounded (to 0.01 Minsn/s and 0.1 ms, 0.4% of a 25 ms run):
        # allow that rounding.
        if abs(p_insns - c_insns) > c_insns * 5e-3:
            sys.exit(f"bench_python: MISMATCH: python {p_insns} "
                     f"instructions, C about {c_insns}")


if __name__ == "__main__":
    main()
