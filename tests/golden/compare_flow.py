#!/usr/bin/env python3
"""Golden check of `etmkit decode` on a real ETMv3 or PTM capture.

Decodes one trace ID of a snapshot with `etmkit decode --json` and compares,
exactly:

  --ds5 FILE   Arm DS-5's instruction-level decode (tab-separated: record
               type, index, address, opcode, cycles, disassembly, branch,
               condition failure). Every instruction in order: address,
               opcode, condition failed or not, cycles. Every timestamp
               value, every trace restart ("Cycle Count N" + "Tracing
               enabled": a trace_on with gap_cycles N) and every "Return
               from exception", each at the same place in the instruction
               sequence (the number of instructions before it).
  --ocsd FILE  OpenCSD's trc_pkt_lister -decode log (.ppl): every
               OCSD_GEN_TRC_ELEM_INSTR_RANGE of the ID, in order, must be
               covered exactly by the decoded instructions (start, end, the
               number of instructions, instruction set, E/N of the last
               one). OpenCSD's cycle counts are not compared: it charges
               cycles differently from DS-5, which etmkit follows.
  --lister     the same for Debian's trc_pkt_lister -decode run on the
               snapshot (skipped before anything is decoded if it is not
               installed, unless CI=true).

DS-5's listing starts at the first I-sync; OpenCSD's elements likewise. Only
elements from the first instruction on are compared with DS-5's timestamps
(OpenCSD and etmkit also report a timestamp packet met before it).

Exit status: 0 match, 1 mismatch, 77 input missing (fails with CI=true).
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)
from verdict import skip  # noqa: E402  (tests/verdict.py)
from ocsd_ranges import covers, read_ranges, run_lister  # noqa: E402  (tests/ocsd_ranges.py)



def decode(etmkit, snapshot, tid):
    p = subprocess.run([etmkit, "decode", "--snapshot", snapshot, "--id", tid,
                        "--json"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit decode failed ({p.returncode}): {p.stderr}")
        sys.exit(1)
    return [etmkit_json.ints(e) for e in etmkit_json.lines(p.stdout, "elements")]


# ---- DS-5 --------------------------------------------------------------------

def read_ds5(path):
    """Instructions and events, each event with the number of
    instructions before it."""
    insns, events = [], []
    pending_gap = None
    with open(path) as f:
        next(f)  # header
        for line in f:
            c = line.rstrip("\n").split("\t")
            kind = c[0]
            if kind == "Instruction":
                insns.append((int(c[2].split(":")[1], 16), int(c[3], 16),
                              int(c[4]), c[7] == "fail"))
            elif kind == "Timestamp":
                events.append((len(insns), "timestamp",
                               int(c[5].split(":")[1])))
            elif kind == "Cycle Count" and c[5] == "Tracing disabled":
                pending_gap = int(c[4])
            elif kind == "Info" and c[5] == "Tracing enabled":
                events.append((len(insns), "trace_on", pending_gap))
                pending_gap = None
            elif kind == "Info" and c[5] == "Return from exception":
                events.append((len(insns), "exception_return", None))
    return insns, events


def ours_for_ds5(elems):
    insns, events = [], []
    for e in elems:
        k = e["kind"]
        if k == "insn":
            insns.append((e["addr"], e["opcode"], e.get("cycles"),
                          bool(e.get("cond_fail"))))
        elif not insns:
            continue  # DS-5 starts at the first instruction
        elif k == "timestamp":
            events.append((len(insns), "timestamp", e["value"]))
        elif k == "trace_on":
            events.append((len(insns), "trace_on", e.get("gap_cycles")))
        elif k == "exception_return":
            events.append((len(insns), "exception_return", None))
    return insns, events


def compare_ds5(elems, path):
    want_i, want_e = read_ds5(path)
    got_i, got_e = ours_for_ds5(elems)
    bad = 0
    for n, (w, g) in enumerate(zip(want_i, got_i)):
        if w != g:
            print(f"instruction {n}: DS-5 addr=0x{w[0]:x} opcode=0x{w[1]:x} "
                  f"cycles={w[2]} fail={w[3]}; etmkit "
                  f"addr=0x{g[0]:x} opcode=0x{g[1]:x} cycles={g[2]} fail={g[3]}")
            bad += 1
            if bad > 20:
                break
    if len(want_i) != len(got_i):
        print(f"instructions: DS-5 {len(want_i)}, etmkit {len(got_i)}")
        bad += 1
    for n, (w, g) in enumerate(zip(want_e, got_e)):
        if w != g:
            print(f"event {n}: DS-5 {w}; etmkit {g}")
            bad += 1
            if bad > 40:
                break
    if len(want_e) != len(got_e):
        print(f"events: DS-5 {len(want_e)}, etmkit {len(got_e)}")
        bad += 1
    kinds = {}
    for _, k, _ in want_e:
        kinds[k] = kinds.get(k, 0) + 1
    print(f"DS-5: {len(want_i)} instructions (address, opcode, cycles, "
          f"condition), events {kinds}: "
          + ("match" if not bad else f"{bad} differences"))
    return bad


# ---- OpenCSD -------------------------------------------------------------------

def compare_ranges(elems, ranges, what):
    insns = [e for e in elems if e["kind"] == "insn"]
    bad, i = 0, 0
    for n, (start, end, count, isa, executed) in enumerate(ranges):
        chunk = insns[i:i + count]
        i += count
        ok = covers([(a["addr"], a["size"], a["isa"], a["exec"])
                     for a in chunk], (start, end, count, isa, executed))
        if not ok:
            print(f"{what} range {n}: 0x{start:x}-0x{end:x} num_i={count} "
                  f"{isa} {'E' if executed else 'N'}; etmkit: " +
                  ", ".join(f"0x{a['addr']:x}/{a['size']}/{a['isa']}/"
                            f"{'E' if a['exec'] else 'N'}" for a in chunk))
            bad += 1
            if bad > 20:
                break
    total = sum(r[2] for r in ranges)
    if total != len(insns):
        print(f"{what}: {total} instructions, etmkit {len(insns)}")
        bad += 1
    print(f"{what}: {len(ranges)} ranges, {total} instructions: "
          + ("match" if not bad else f"{bad} differences"))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--ds5")
    ap.add_argument("--ocsd")
    ap.add_argument("--lister", action="store_true")
    a = ap.parse_args()
    for p in [a.snapshot] + [x for x in (a.ds5, a.ocsd) if x]:
        if not os.path.exists(p):
            skip(p + " not found")
    # Any skip before the first comparison: a difference found must never
    # end as a skip.
    if a.lister and not shutil.which("trc_pkt_lister"):
        skip("trc_pkt_lister not installed (Debian libopencsd-bin)")
    elems = decode(a.etmkit, a.snapshot, a.id)
    bad = 0
    if a.ds5:
        bad += compare_ds5(elems, a.ds5)
    if a.ocsd:
        with open(a.ocsd, errors="replace") as f:
            bad += compare_ranges(elems, read_ranges(f.read(), a.id),
                                  "OpenCSD 1.8.0 log")
    if a.lister:
        text = run_lister(a.snapshot)
        ranges = read_ranges(text, a.id)
        bad += compare_ranges(elems, ranges, "trc_pkt_lister (Debian)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
