#!/usr/bin/env python3
"""etmkit's decode of a perf.data recording against OpenCSD's, range for range.

  compare_perf_ocsd.py --etmkit ETMKIT --ocsd PERF_OCSD FILE.data
                       [--symfs-file RECORDED_PATH=FILE]... [--elf FILE]...
                       [--mem FILE@ADDR[:OFF:LEN]]...
                       [--min-ranges N]

OpenCSD's side is tests/perf/perf_ocsd.c: OpenCSD 1.3.3's C API decoding the
AUX data of every CPU, reset at each AUX record as perf does (digest
perf-data.md 3.10), configured from the recording's metadata, with the
memory image of the --mem regions, placed explicitly. etmkit's side is
`etmkit decode FILE.data --json` run as a user runs it: with --symfs DIR,
DIR a temporary folder holding each --symfs-file FILE at the path the
recording names it by (tests/perf/symfs.py), so the side-band places the
code (MMAP2 address and pgoff, FILE2 module offset; digest 3.11); or with
--elf FILE (a binary found by its recorded name or build id). Both lists
of instruction ranges per trace ID go through the comparison of
tests/golden/compare_flow4.py (one mechanism for every OpenCSD golden):
every OpenCSD range must be etmkit's next, in order, with the same start,
end, instruction count and E/N of its last instruction, and no etmkit
range may be left over. ETMv3 trace IDs (perf_ocsd names each ID's
protocol) are compared a range per instruction, as OpenCSD's ETMv3
decoder gives a range per atom (IHI 0014Q 7.3.1: an atom per instruction).
PTM trace IDs: each OpenCSD range must cover the next of etmkit's
instructions exactly (its ranges end where its walks do, at waypoints and
waypoint updates, not where etmkit's elements do).

Known departures of OpenCSD are listed in EXCEPTIONS, each with its spec
reason, applied only to the case it names and printed when used.

--min-ranges N fails when OpenCSD gives fewer than N ranges in all (a
comparison of nothing proves nothing).

Exit status: 0 match, 1 mismatch, 77 input missing (fails with CI=true).
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import compare_flow4  # noqa: E402  (ranges and their comparison)
import perf_facts  # noqa: E402  (tests/perf: the independent reader)
from symfs import make_symfs  # noqa: E402  (tests/perf/symfs.py)
sys.path.insert(0, os.path.join(HERE, ".."))
from ocsd_ranges import covers  # noqa: E402  (tests/ocsd_ranges.py)

SOURCE = re.compile(r"^Source ID:([0-9a-f]+); (\w+)$")
EXEC = re.compile(r"num_i\(\d+\) ([EN]) \)")

# Etmkit ranges OpenCSD lacks, by name: the rule that finds them is beside
# each (etmv3_record_end_atoms()).
EXCEPTIONS = {
    "etmv3_aux_end_one_atom":
        "the last instruction of an AUX record whose trace of the ID ends "
        "with a P-header of one atom. OpenCSD 1.3.3's ETMv3 decoder keeps "
        "the range of a P-header that gives it a single element pending, "
        "as a later branch packet with Cancel = 1 would remove it (IHI "
        "0014Q 7.3.5: the most recently traced instruction did not "
        "complete); the next packet or the end of trace commits it, but "
        "the OCSD_OP_RESET perf sends before each AUX record discards it. "
        "An AUX record holds one trace run: no packet of it is left to "
        "cancel the atom, and the next record is a new run (A-sync, then a "
        "trace-on I-sync, 7.10.5), so the instruction executed, and etmkit "
        "delivers it at the record's end (test_etm3_flow: "
        "test_break_delivers_held_atom; the QEMU execution records of "
        "perf_write_round_trip have it too).",
}


def etmv3_record_end_atoms(etmkit, data, tids):
    """{trace ID: {offset}}: the P-headers of one atom that end an AUX
    record's trace of an ETMv3 trace ID in @tids, but the CPU's last
    record's (EXCEPTIONS etmv3_aux_end_one_atom). AUX records: the
    AUXTRACE records perf_facts.py reads; packets: `etmkit packets FILE
    --json`."""
    recs, cpu_last = [], {}
    for line in perf_facts.summary(data).splitlines():
        t = line.split()
        if t[:2] == ["auxtrace", "at"]:
            start = int(t[2]) + 48  # the AUXTRACE record's header (3.10)
            recs.append((start, start + int(t[4])))
            cpu_last[int(t[12])] = start
    recs.sort()
    # a CPU's last record ends with OpenCSD's end of trace, which commits
    final = set(cpu_last.values())
    starts = [s for s, _ in recs]
    p = subprocess.run([etmkit, "packets", data, "--json"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit packets failed ({p.returncode}): {p.stderr}")
        sys.exit(1)
    last = {}
    for k in compare_flow4.etmkit_json.lines(p.stdout, "packets"):
        if k["id"] not in tids or k["type"] == "gap":
            continue
        r = bisect.bisect_right(starts, k["offset"]) - 1
        if r >= 0 and k["offset"] < recs[r][1]:
            last[(r, k["id"])] = k
    out = {}
    for (r, tid), k in last.items():
        if (k["type"] == "p_header" and k["instr"] == 1 and
                recs[r][0] not in final):
            out.setdefault(tid, set()).add(k["offset"])
    return out


def ptm_covers(name, tid, elems, theirs):
    """PTM: OpenCSD's ranges end where its walks end (atoms, branch
    packets, waypoint updates), not at etmkit's element boundaries: each
    range must cover the next of etmkit's instructions of @tid exactly
    (tests/ocsd_ranges.py), and none may be left over. 0 or 1."""
    insns = [(e["addr"], e["size"], None, e["exec"]) for e in elems
             if e["kind"] == "insn" and e["id"] == tid]
    i = 0
    for j, (start, end, count, _, executed) in enumerate(theirs):
        if not covers(insns[i:i + count], (start, end, count, None,
                                           executed)):
            print(f"  {name} ID 0x{tid:02x}: OpenCSD range {j} "
                  f"0x{start:x}-0x{end:x} num_i={count} does not cover "
                  f"etmkit's instructions from {i}")
            return 1
        i += count
    if i != len(insns):
        print(f"  {name} ID 0x{tid:02x}: OpenCSD covers {i} instructions, "
              f"etmkit decodes {len(insns)}")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--ocsd", required=True)
    ap.add_argument("--symfs-file", action="append", default=[])
    ap.add_argument("--elf", action="append", default=[])
    ap.add_argument("--mem", action="append", default=[])
    ap.add_argument("--min-ranges", type=int, default=1)
    ap.add_argument("data")
    a = ap.parse_args()
    for f in ([a.data] + a.elf + [m.split("@")[0] for m in a.mem] +
              [s.split("=", 1)[1] for s in a.symfs_file]):
        if not os.path.exists(f):
            compare_flow4.skip(f"{f} is missing")

    p = subprocess.run([a.ocsd, a.data] + [x for m in a.mem for x in ("--mem", m)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"perf_ocsd failed ({p.returncode}): {p.stderr}")
        return 1
    theirs, proto = {}, {}
    for line in p.stdout.splitlines():
        m = SOURCE.match(line)
        if m:
            proto[int(m.group(1), 16)] = m.group(2)
            continue
        m = compare_flow4.RANGE.match(line)
        if m:
            theirs.setdefault(int(m.group(2), 16), []).append(
                (int(m.group(3), 16), int(m.group(4), 16), int(m.group(5)),
                 int(m.group(1)), EXEC.search(line).group(1) == "E"))

    cmd = [a.etmkit, "decode", a.data, "--json"]
    for e in a.elf:
        cmd += ["--elf", e]
    with tempfile.TemporaryDirectory() as symfs:
        make_symfs(symfs, a.symfs_file)
        if a.symfs_file:
            cmd += ["--symfs", symfs]
        p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit decode failed ({p.returncode}): {p.stderr}")
        return 1
    elems = [compare_flow4.etmkit_json.ints(e)
             for e in compare_flow4.etmkit_json.lines(p.stdout, "elements")]
    v3 = {t for t, n in proto.items() if n == "etmv3"}
    ptm = {t for t, n in proto.items() if n == "ptm"}
    ours = compare_flow4.our_ranges(elems, per_insn=v3, with_exec=True)
    v3_ends = etmv3_record_end_atoms(a.etmkit, a.data, v3) if v3 else {}

    total = sum(len(r) for r in theirs.values())
    name = os.path.basename(a.data)
    bad = 0
    for tid in sorted(ptm):
        n = ptm_covers(name, tid, elems, theirs.get(tid, []))
        print(f"{name} id 0x{tid:02x} (ptm): {len(theirs.get(tid, []))} "
              f"OpenCSD ranges cover etmkit's instructions: {n} mismatches")
        bad += n
    for tid in sorted((set(theirs) | set(ours)) - ptm):
        why = ("etmv3_aux_end_one_atom",
               EXCEPTIONS["etmv3_aux_end_one_atom"])
        n = compare_flow4.compare_ranges(
            name, tid, ours.get(tid, []), theirs.get(tid, []),
            {off: why for off in v3_ends.get(tid, ())})
        print(f"{name} id 0x{tid:02x} ({proto.get(tid, '?')}): "
              f"{len(theirs.get(tid, []))} OpenCSD ranges, "
              f"{len(ours.get(tid, []))} etmkit ranges, {n} mismatches")
        bad += n
    if total < a.min_ranges:
        print(f"FAIL: OpenCSD gave {total} ranges, fewer than {a.min_ranges}")
        return 1
    print("FAIL" if bad else "PASS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
