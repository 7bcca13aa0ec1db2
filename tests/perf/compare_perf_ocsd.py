#!/usr/bin/env python3
"""etmkit's decode of a perf.data recording against OpenCSD's, range for range.

  compare_perf_ocsd.py --etmkit ETMKIT --ocsd PERF_OCSD FILE.data
                       [--elf FILE@BIAS]... [--image FILE@ADDR]...
                       [--mem FILE@ADDR[:OFF:LEN]]...
                       [--min-ranges N]

OpenCSD's side is tests/perf/perf_ocsd.c: OpenCSD 1.3.3's C API decoding the
AUX data of every CPU, reset at each AUX record as perf does (digest
perf-data.md 3.10), configured from the recording's metadata, with the
memory image of the --mem regions. etmkit's side is `etmkit decode FILE.data
--json` with the same code given as --elf or --image. Both lists of instruction ranges
per trace ID go through the comparison of tests/golden/compare_flow4.py
(one mechanism for every OpenCSD golden): every OpenCSD range must be one
of etmkit's, in order, with the same start, end and instruction count.

--min-ranges N fails when OpenCSD gives fewer than N ranges in all (a
comparison of nothing proves nothing).

Exit status: 0 match, 1 mismatch, 77 input missing (fails with CI=true).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import compare_flow4  # noqa: E402  (ranges and their comparison)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--ocsd", required=True)
    ap.add_argument("--elf", action="append", default=[])
    ap.add_argument("--image", action="append", default=[])
    ap.add_argument("--mem", action="append", default=[])
    ap.add_argument("--min-ranges", type=int, default=1)
    ap.add_argument("data")
    a = ap.parse_args()
    for f in [a.data] + [m.split("@")[0] for m in a.elf + a.image + a.mem]:
        if not os.path.exists(f):
            compare_flow4.skip(f"{f} is missing")

    p = subprocess.run([a.ocsd, a.data] + [x for m in a.mem for x in ("--mem", m)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"perf_ocsd failed ({p.returncode}): {p.stderr}")
        return 1
    theirs = {}
    for line in p.stdout.splitlines():
        m = compare_flow4.RANGE.match(line)
        if m:
            theirs.setdefault(int(m.group(2), 16), []).append(
                (int(m.group(3), 16), int(m.group(4), 16), int(m.group(5)),
                 int(m.group(1))))

    cmd = [a.etmkit, "decode", a.data, "--json"]
    for e in a.elf:
        cmd += ["--elf", e]
    for e in a.image:
        cmd += ["--image", e]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit decode failed ({p.returncode}): {p.stderr}")
        return 1
    elems = [compare_flow4.etmkit_json.ints(e)
             for e in compare_flow4.etmkit_json.lines(p.stdout, "elements")]
    ours = compare_flow4.our_ranges(elems)

    total = sum(len(r) for r in theirs.values())
    name = os.path.basename(a.data)
    bad = 0
    for tid in sorted(theirs):
        n = compare_flow4.compare_ranges(name, tid, ours.get(tid, []),
                                         theirs[tid])
        print(f"{name} id 0x{tid:02x}: {len(theirs[tid])} OpenCSD ranges, "
              f"{len(ours.get(tid, []))} etmkit ranges, {n} mismatches")
        bad += n
    if total < a.min_ranges:
        print(f"FAIL: OpenCSD gave {total} ranges, fewer than {a.min_ranges}")
        return 1
    print("FAIL" if bad else "PASS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
