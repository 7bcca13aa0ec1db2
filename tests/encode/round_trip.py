#!/usr/bin/env python3
"""Round trip: execution record -> `etmkit encode` -> snapshot -> decoders.

The record (docs/exec-record.md) is the truth. This script encodes it (or a
QEMU log, keeping the record the importer made with --record-out), decodes
the snapshot with `etmkit decode --json` and checks, exactly, that the
decoded instructions are the record's: the same sequence of address, size
and instruction set, and whether each executed. An instruction "executed"
unless it is a branch that was not taken (an N atom, in every protocol)
or, in ETMv3, its condition failed (`x`; an N atom too: ETMv4 and ETE
trace no condition of a non-branch instruction).

With --overflow (ETMv2, a FIFO that overflows), the encoder's warning says
how many instructions it could not trace; the decode must report an
overflow element before each run it lacks (or lack only the record's tail)
and show every other instruction exactly, the runs it lacks adding up to
the encoder's count.

With --ocsd, OpenCSD's trc_pkt_lister (Debian libopencsd-bin) decodes the
same snapshot, and its INSTR_RANGE elements must cover the record's
instructions exactly, in order: each range's first address, end address,
count and instruction set, and E/N of its last instruction.

The record is read here with this script's own parser, not etmkit's.

Exit status: 0 match, 1 mismatch or failure, 77 a tool is missing (fails
with CI=true).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)
from verdict import skip  # noqa: E402  (tests/verdict.py)
from ocsd_ranges import covers, read_ranges, run_lister  # noqa: E402  (tests/ocsd_ranges.py)

ISAS = ("arm", "thumb", "thumbee", "jazelle", "a64")


def read_record(path, etm3):
    """The record's instructions: (addr, size, isa, executed). ETMv4 and
    ETE trace no condition of a non-branch instruction: it "executed"
    there whatever its condition."""
    out = []
    header = False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            tok = line.split("#", 1)[0].split()
            if not tok:
                continue
            if not header:
                if tok != ["etmkit-exec", "1"]:
                    sys.exit(f"{path}:{n}: not an execution record")
                header = True
                continue
            if tok[0] in ("exc", "gap", "ctx", "ts"):
                continue
            addr = int(tok[0], 0)
            isa = tok[1]
            if isa not in ISAS:
                sys.exit(f"{path}:{n}: bad instruction set {isa}")
            size = len(tok[2]) // 2
            rest = tok[3:]
            branch = "b" in rest or "bi" in rest
            taken = any(t.startswith("->") for t in rest)
            failed = "x" in rest
            out.append((addr, size, isa,
                        not (failed and (etm3 or branch)) and
                        not (branch and not taken)))
    return out


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{what} failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
        sys.exit(1)
    return p


def decode(etmkit, snap):
    p = subprocess.run([etmkit, "decode", "--snapshot", snap, "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"etmkit decode failed ({p.returncode}):\n{p.stderr[:2000]}")
        sys.exit(1)
    insns, other = [], {}
    try:
        elems = etmkit_json.lines(p.stdout, "elements", snap)
    except etmkit_json.SchemaMismatch as e:
        print(e)
        sys.exit(1)
    for e in elems:
        if e["kind"] == "insn":
            insns.append((etmkit_json.num(e["addr"]), e["size"], e["isa"], e["exec"]))
        else:
            other[e["kind"]] = other.get(e["kind"], 0) + 1
            if e["kind"] == "overflow":
                insns.append(None)  # instructions may be missing here
    return insns, other


def show(i):
    return f"0x{i[0]:x}/{i[1]}/{i[2]}/{'E' if i[3] else 'N'}"


def compare_overflow(want, got, lost, what):
    """0 when @got is @want but for runs it lacks right after an overflow
    marker (None) or at its end, @lost instructions in all; else 1.
    A run ends where the next decoded instructions (8, or up to the next
    marker) match the record."""
    i = skipped = 0
    for k, g in enumerate(got):
        if g is None:
            nxt = []
            for x in got[k + 1:k + 9]:
                if x is None:
                    break
                nxt.append(x)
            while i < len(want) and want[i:i + len(nxt)] != nxt:
                i += 1
                skipped += 1
            continue
        if i >= len(want) or want[i] != g:
            print(f"{what}: decoded instruction {k} {show(g)}, record "
                  f"{show(want[i]) if i < len(want) else 'ended'}")
            return 1
        i += 1
    skipped += len(want) - i
    if skipped != lost:
        print(f"{what}: {skipped} instructions missing, the encoder lost "
              f"{lost}")
        return 1
    return 0


def compare(want, got, what):
    got = [g for g in got if g is not None]
    for k, (w, g) in enumerate(zip(want, got)):
        if w != g:
            print(f"{what}: instruction {k} differs: record {show(w)}, "
                  f"decoded {show(g)}")
            lo = max(0, k - 3)
            print("  record : " + " ".join(show(x) for x in want[lo:k + 3]))
            print("  decoded: " + " ".join(show(x) for x in got[lo:k + 3]))
            return 1
    if len(want) != len(got):
        print(f"{what}: record has {len(want)} instructions, decoded "
              f"{len(got)}")
        return 1
    return 0


def lister(snap, tid):
    if not shutil.which("trc_pkt_lister"):
        skip("trc_pkt_lister not installed (Debian libopencsd-bin)")
    text = run_lister(snap, tid)
    ranges, notes = read_ranges(text, tid), {}
    for line in text.splitlines():
        if "INSTR_RANGE" not in line:
            m = re.search(r"OCSD_GEN_TRC_ELEM_([A-Z_]+)", line)
            if m:
                notes[m.group(1)] = notes.get(m.group(1), 0) + 1
            if "ERROR" in line.upper() and "OCSD_OK" not in line:
                notes.setdefault("error lines", 0)
                notes["error lines"] += 1
                if notes["error lines"] <= 5:
                    print("OpenCSD: " + line.strip())
    return ranges, notes


def compare_ranges(want, ranges):
    """0 when the ranges cover the record exactly, else 1 (printed)."""
    i = 0
    for n, (start, end, count, isa, executed) in enumerate(ranges):
        chunk = want[i:i + count]
        if not covers(chunk, (start, end, count, isa, executed)):
            print(f"OpenCSD range {n}: 0x{start:x}-0x{end:x} num_i={count} "
                  f"{isa} {'E' if executed else 'N'}; record from "
                  f"instruction {i}: " + " ".join(show(x) for x in chunk[:8]))
            return 1
        i += count
    if i != len(want):
        print(f"OpenCSD ranges cover {i} instructions, the record has "
              f"{len(want)}")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--record")
    src.add_argument("--qemu-log")
    ap.add_argument("--protocol", required=True)
    ap.add_argument("--ocsd", action="store_true",
                    help="also check OpenCSD's trc_pkt_lister decode")
    ap.add_argument("--keep", help="write the snapshot here and keep it")
    ap.add_argument("--overflow", action="store_true",
                    help="ETMv2: the FIFO may overflow (see above)")
    ap.add_argument("encode_args", nargs="*",
                    help="more `etmkit encode` options (after --)")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = a.keep or os.path.join(tmp, "snap")
        os.makedirs(out, exist_ok=True)
        cmd = [a.etmkit, "encode", "--protocol", a.protocol, "--out", out]
        if a.record:
            record = a.record
            cmd += ["--from-record", record]
        else:
            record = os.path.join(out, "record.txt")
            cmd += ["--from-qemu", a.qemu_log, "--record-out", record]
        p = run(cmd + a.encode_args, "etmkit encode")
        # ETMv3 and ETMv2 trace a condition failure (N atom, IN status)
        want = read_record(record, a.protocol in ("etmv3", "etmv2"))
        got, other = decode(a.etmkit, out)
        what = f"{os.path.basename(a.record or a.qemu_log)} {a.protocol}"
        if a.overflow:
            m = re.search(r"overflowed \d+ times: (\d+) instructions",
                          p.stderr)
            lost = int(m.group(1)) if m else 0
            bad = compare_overflow(want, got, lost, what + " etmkit")
            what += f" ({lost} lost to overflows)"
        else:
            bad = compare(want, got, what + " etmkit")
        print(f"{what}: {len(want)} instructions; etmkit decode "
              + ("matches" if not bad else "DIFFERS")
              + f" (other elements: {dict(sorted(other.items()))})")
        if a.ocsd:
            ranges, notes = lister(out, 0x10)
            b = compare_ranges(want, ranges)
            print(f"{what}: OpenCSD {len(ranges)} ranges "
                  + ("match" if not b else "DIFFER")
                  + f" (other elements: {dict(sorted(notes.items()))})")
            bad |= b
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
