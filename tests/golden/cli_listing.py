#!/usr/bin/env python3
"""The text listings of `etmkit decode` and `etmkit packets` on the shared
captures (issue 14, items 3, 6 and 7):

- columns: instruction set and status as words (`arm thumb thumbee jazelle
  a64`, `exec fail cancel implied`), a header line with `--header`, none
  with `--no-header` or (stdout a pipe) by default; `packets` likewise;
- instructions capstone 4 cannot disassemble but etmkit's classifier
  decodes carry the classifier's name (ETE BC.cond, pointer
  authentication, TME, the Armv8.1-M loop branches), not `(undefined)`;
- juno_r1_1's walk through zero-filled dump memory: every such line is
  marked `[bad image]`, no other is, and one warning names the dump, its
  address range and the range of the undefined instructions; A32
  instructions the classifier calls undefined under ETE (ARMv8 additions
  in ete_ip) and TC2 give no warning. The JSON records say `undefined`;
- PTM packets (Snowball, cycle-accurate with timestamps, and
  tc2-ptm-rstk-t32): each text line is its JSON record's offset, ID,
  bytes and type, with the record's values in the ETMv3 listing's words
  (`addr=0x%08x`, the atoms, `cycles=`, `exception=N(name)`, `reason=`,
  `timestamp=0x...`).

Exit 77 (skipped) when the shared captures are absent."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)
from verdict import FAILS, fail  # noqa: E402  (tests/verdict.py)

ISAS = {"arm", "thumb", "thumbee", "jazelle", "a64"}
STATUS = {"exec", "fail", "cancel", "implied"}
# offset, id, address, isa, opcode, status, cycles, disassembly
INSN = re.compile(r"^ *(\d+)  ([0-9a-f]{2})  ([0-9a-f]{8,16})  (\S+) +"
                  r"([0-9a-f]{2,8}) +(\S+) +(\S+)  (.*)$")
HEADER_DECODE = "#   offset  id  address   isa      opcode    status  cycles  disassembly"
HEADER_PACKETS = "#   offset  id  bytes  type fields"



def run(etmkit, args):
    p = subprocess.run([etmkit] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def insn_lines(text):
    out = []
    for line in text.splitlines():
        m = INSN.match(line)
        if m:
            out.append(m)
    return out


def check_columns(etmkit, td):
    snap = os.path.join(td, "etmv3", "TC2")
    p = run(etmkit, ["decode", "--snapshot", snap, "--id", "0x10", "--header"])
    lines = p.stdout.splitlines()
    if not lines or lines[0] != HEADER_DECODE:
        fail("decode --header: first line %r" % (lines[0] if lines else None))
    if sum(1 for l in lines if l.startswith("#")) != 1:
        fail("decode --header: not exactly one header line")
    insns = insn_lines(p.stdout)
    if len(insns) < 7000:
        fail("decode TC2 0x10: %d instruction lines" % len(insns))
    seen_status = set()
    for m in insns:
        if m.group(4) not in ISAS:
            fail("isa column %r: %s" % (m.group(4), m.group(0)))
            break
        if m.group(6) not in STATUS:
            fail("status column %r: %s" % (m.group(6), m.group(0)))
            break
        seen_status.add(m.group(6))
    if not {"exec", "fail"} <= seen_status:
        fail("TC2 0x10 status words seen: %s" % sorted(seen_status))
    # A known line (README's example).
    if not any(l.endswith("  c0021166  thumb    d0ea      exec         0  beq #0xc002113e")
               for l in lines):
        fail("TC2 0x10: no line for the beq at 0xc0021166")
    for args in (["--no-header"], [], ["--header", "--no-header"]):
        q = run(etmkit, ["decode", "--snapshot", snap, "--id", "0x10"] + args)
        if any(l.startswith("#") for l in q.stdout.splitlines()):
            fail("decode %s: header printed" % " ".join(args))
        if q.stdout.splitlines() != lines[1:]:
            fail("decode %s: listing differs from --header's" % " ".join(args))
    # A64 on an ETE capture.
    p = run(etmkit, ["decode", "--snapshot", os.path.join(td, "ete", "ete_spec_1"),
                     "--no-header"])
    isas = {m.group(4) for m in insn_lines(p.stdout)}
    if isas != {"a64"}:
        fail("ete_spec_1: isa column values %s" % sorted(isas))
    # packets
    p = run(etmkit, ["packets", "--snapshot", snap, "--id", "0x10", "--header"])
    plines = p.stdout.splitlines()
    if not plines or plines[0] != HEADER_PACKETS:
        fail("packets --header: first line %r" % (plines[0] if plines else None))
    for args in (["--no-header"], []):
        q = run(etmkit, ["packets", "--snapshot", snap, "--id", "0x10"] + args)
        if q.stdout.splitlines() != plines[1:]:
            fail("packets %s: not the --header listing without its header"
                 % " ".join(args))
    q = run(etmkit, ["packets", "--snapshot", snap, "--id", "0x10", "--json", "--header"])
    if any(not l.startswith("{") for l in q.stdout.splitlines()):
        fail("packets --json --header: a line that is not JSON")


# capture -> disassembly texts that must appear (classifier names)
NAMED = {
    "ete/ete-bc-instr": ["bc.eq #0xcdaa0"],
    "ete/ete_mem": ["blraa", "blrab", "ldraa", "ldrab", "retaa", "retab"],
    "ete/tme_simple": ["paciza", "blraaz"],
    "etmv4/armv8_1m_branches": ["wls #0x1e0cc", "le #0x1e0f4"],
}


def check_names(etmkit, td):
    for snap, names in sorted(NAMED.items()):
        p = run(etmkit, ["decode", "--snapshot", os.path.join(td, snap)])
        texts = {m.group(8) for m in insn_lines(p.stdout)}
        for n in names:
            if n not in texts:
                fail("%s: no instruction shown as %r" % (snap, n))
        undef = [t for t in texts if "(undefined)" in t or "(unknown)" in t]
        if undef:
            fail("%s: still %s" % (snap, sorted(undef)))


def check_bad_image(etmkit, td):
    snap = os.path.join(td, "etmv4", "juno_r1_1")
    p = run(etmkit, ["decode", "--snapshot", snap])
    insns = insn_lines(p.stdout)
    zero = [m for m in insns if m.group(4) == "a64" and m.group(5) == "00000000"]
    marked = [m for m in insns if m.group(8).endswith("  [bad image]")]
    if len(zero) != 4123:
        fail("juno_r1_1: %d A64 zero words, expected 4123" % len(zero))
    if [m.group(0) for m in marked] != [m.group(0) for m in zero]:
        fail("juno_r1_1: %d lines marked [bad image], %d zero words"
             % (len(marked), len(zero)))
    if zero and zero[0].group(8) != "udf  [bad image]":
        fail("juno_r1_1: zero word shown as %r" % zero[0].group(8))
    warnings = [l for l in p.stderr.splitlines() if "warning" in l]
    want = ("kernel_dump.bin at 0xffffffc000081000-0xffffffc0000d0fff: 4123 "
            "undefined instructions executed at "
            "0xffffffc000089670-0xffffffc00008987c (trace ID 0x10)")
    if len(warnings) != 1 or want not in warnings[0]:
        fail("juno_r1_1: warnings %r" % warnings)
    # JSON: the same instructions are "undefined", no others.
    q = run(etmkit, ["decode", "--snapshot", snap, "--json"])
    n = 0
    for line in q.stdout.splitlines():
        e = etmkit_json.loads(line, "elements", "juno_r1_1")
        if e.get("undefined"):
            n += 1
            if int(e["opcode"], 16) != 0 or e["isa"] != "a64":
                fail("juno_r1_1 JSON: undefined %s" % line)
                break
    if n != 4123:
        fail("juno_r1_1 JSON: %d undefined, expected 4123" % n)
    # No false alarm: ETE A32 (ARMv8 additions the classifier calls
    # undefined), and ARMv7 TC2.
    for s in ("ete/ete_ip", "etmv3/TC2", "etmv4/armv8_1m_branches"):
        p = run(etmkit, ["decode", "--snapshot", os.path.join(td, s)])
        # (TC2's ITM source is skipped with a warning of its own: not a
        # bad-image report.)
        warned = [l for l in p.stderr.splitlines()
                  if "warning" in l and "skipping" not in l]
        if "[bad image]" in p.stdout or warned:
            fail("%s: bad image reported" % s)


def ptm_fields(r):
    """The words of the text line JSON record @r of a PTM source must hold."""
    words = []
    t = r["type"]
    if t == "atom":
        words.append(" " + r["atoms"])
    if t in ("i_sync", "branch_address", "waypoint_update"):
        words.append(" addr=0x%08x" % etmkit_json.num(r["addr"]))
    if t == "i_sync":
        words += [" reason=" + r["reason"], " isa=" + r["isa"], " ns=%d" % r["ns"]]
    if "exception" in r:
        words.append(" exception=%d(" % r["exception"])
    if "cycles" in r:
        words.append(" cycles=%d" % r["cycles"])
    if t == "timestamp":
        words.append(" timestamp=0x%x (" % etmkit_json.num(r["timestamp"]))
    if t == "context_id":
        words.append(" context_id=0x%x" % etmkit_json.num(r["context_id"]))
    return words


def check_ptm_text(etmkit, td):
    for s in ("ptm/Snowball", "ptm/tc2-ptm-rstk-t32"):
        snap = os.path.join(td, s)
        recs = etmkit_json.lines(run(etmkit, ["packets", "--snapshot", snap, "--json"]).stdout,
                                 "packets-ptm", s)
        text = run(etmkit, ["packets", "--snapshot", snap, "--no-header"]).stdout.splitlines()
        if len(text) != len(recs) or len(recs) < 500:
            fail("%s: %d text lines for %d JSON records" % (s, len(text), len(recs)))
            continue
        bad = 0
        for r, line in zip(recs, text):
            head = "%10d  %02x  " % (r["offset"], r["id"])
            if r["type"] == "unsynced":
                want = [head, "  unsynced %d bytes" % r["length"]]
            else:
                b = r["bytes"]
                want = [head + " ".join(b[i:i + 2] for i in range(0, len(b), 2)) +
                        "  " + r["type"]] + ptm_fields(r)
            if not line.startswith(want[0]) or not all(w in line for w in want[1:]):
                fail("%s: text %r for JSON %r" % (s, line, r))
                bad += 1
                if bad > 5:
                    break
        print("%s: %d PTM records, text and JSON agree%s" % (s, len(recs),
                                                             " (not)" if bad else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True, help="the shared directory")
    a = ap.parse_args()
    td = os.path.join(a.shared, "testdata")
    if not os.path.isdir(os.path.join(td, "etmv4", "juno_r1_1")):
        print("shared captures not found: skipped")
        return 77
    check_columns(a.etmkit, td)
    check_names(a.etmkit, td)
    check_bad_image(a.etmkit, td)
    check_ptm_text(a.etmkit, td)
    print("%d failure%s" % (len(FAILS), "" if len(FAILS) == 1 else "s"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
