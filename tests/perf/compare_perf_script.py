#!/usr/bin/env python3
"""etmkit's decode of a perf.data recording against Linux perf's.

  compare_perf_script.py --etmkit ETMKIT --perf PERF
                         --symfs-file RECORDED_PATH=FILE... FILE.data
                         [--min-insns N]

Linux perf built with CoreSight decoding (../shared/tools/build-perf-coresight.sh;
Debian's perf has none) is a second decoder of perf.data files, with its own
reading of the file, its own binary lookup (--symfs) and OpenCSD under it.
Both get the same symfs folder, made in a temporary directory with each
--symfs-file FILE at its RECORDED_PATH.
`perf script --itrace=i1i -F cpu,ip` gives one sample per executed
instruction it could read the code of; `etmkit decode FILE.data --symfs DIR
--json` gives one insn element per instruction. Per CPU, the two sequences
of addresses must be equal. (Instructions of binaries neither has are
absent from both.)

PERF may be empty or missing: the test is then skipped (77), with CI=true
too, since CI does not build perf (about 6 minutes; tools/check-perf runs
it). --min-insns N fails when perf gives fewer (a comparison of nothing
proves nothing).

Exit status: 0 equal, 1 different, 77 skipped.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import etmkit_json  # noqa: E402  (reads etmkit JSON, schema-checked)
import tempfile

from symfs import make_symfs  # tests/perf/symfs.py, shared with compare_perf_ocsd.py


def perf_insns(perf, data, symfs):
    p = subprocess.run([perf, "script", "-i", os.path.abspath(data),
                        "--symfs", os.path.abspath(symfs),
                        "--itrace=i1i", "-F", "cpu,ip"],
                       capture_output=True, text=True, cwd=symfs)
    if p.returncode != 0:
        print(f"perf script failed ({p.returncode}): {p.stderr[-2000:]}")
        sys.exit(1)
    out = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 2 and w[0].startswith("[") and w[0].endswith("]"):
            out.setdefault(int(w[0][1:-1]), []).append(int(w[1], 16))
    return out


def our_insns(etmkit, data, symfs):
    p = subprocess.run([etmkit, "decode", data, "--symfs", symfs, "--json"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit decode failed ({p.returncode}): {p.stderr}")
        sys.exit(1)
    out = {}
    for e in etmkit_json.lines(p.stdout, "elements"):
        if e.get("kind") == "insn":
            out.setdefault(e["cpu"], []).append(etmkit_json.num(e["addr"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--perf", default="")
    ap.add_argument("--symfs-file", action="append", default=[])
    ap.add_argument("--min-insns", type=int, default=1)
    ap.add_argument("data")
    a = ap.parse_args()
    if not a.perf or not os.access(a.perf, os.X_OK):
        print("SKIP: no Linux perf with CoreSight (give ETMKIT_PERF, or run "
              "tools/check-perf)")
        return 77
    if not os.path.exists(a.data):
        print(f"SKIP: {a.data} is missing")
        return 77
    with tempfile.TemporaryDirectory() as symfs:
        missing = make_symfs(symfs, a.symfs_file)
        if missing:
            print(f"SKIP: {missing[0]} is missing")
            return 77
        theirs = perf_insns(a.perf, a.data, symfs)
        ours = our_insns(a.etmkit, a.data, symfs)
    name = os.path.basename(a.data)
    bad = 0
    for cpu in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(cpu, []), ours.get(cpu, [])
        k = next((i for i in range(min(len(t), len(o))) if t[i] != o[i]),
                 min(len(t), len(o)))
        same = len(t) == len(o) and k == len(t)
        print(f"{name} cpu {cpu}: perf {len(t)} instructions, etmkit {len(o)}"
              + ("" if same else f", first difference at {k}: perf "
                 f"{t[k:k + 3] and [hex(x) for x in t[k:k + 3]]}, etmkit "
                 f"{o[k:k + 3] and [hex(x) for x in o[k:k + 3]]}"))
        bad += not same
    total = sum(len(t) for t in theirs.values())
    if total < a.min_insns:
        print(f"FAIL: perf gave {total} instructions, fewer than {a.min_insns}")
        return 1
    print("FAIL" if bad else "PASS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
