#!/usr/bin/env python3
"""Golden check of `etmkit decode` against an Arm DS-5 instruction listing
of the kind shipped with tc2-ptm-rstk-t32 (ds-5_trace_dump/a15_rs.txt):
one line per instruction, "S:0xADDRESS<TAB>OPCODE<TAB>disassembly", and
event lines without an address ("Exception: ...", "Debug stop"); DS-5
lists "<Unknown>" for the address where trace starts again after debug
state (no opcode: not an instruction).

Every DS-5 instruction must be etmkit's at the same place in the
instruction sequence (etmkit decodes on where DS-5's dump stops):
address, opcode, and the disassembly, compared by meaning, not spelling.
etmkit's disassembler (capstone) and DS-5 write the same instruction
differently; normalize() maps both to one form: lower case, numbers as
values (hex or decimal), register aliases (sb = r9, sl = r10, fp = r11,
ip = r12), register lists expanded (r2-r4), an offset of #0 dropped, the
two-operand forms of Thumb data processing with their first operand
written twice, a branch's target (DS-5: "{pc}+6 ; 0x800009d4"), DS-5's
comments after ';' (a literal's value), the condition alias HS/CS and
LO/CC, ADR as ADD from the aligned PC, STR Rt,[sp,#-4]! as PUSH {Rt}.

Exit status: 0 match, 1 mismatch (a CLI that does not decode the
source is one), 77 input missing (fails with CI=true).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from verdict import skip  # noqa: E402  (tests/verdict.py)

ALIAS = {"sb": "r9", "sl": "r10", "fp": "r11", "ip": "r12", "r13": "sp",
         "r14": "lr", "r15": "pc"}
COND = {"hs": "cs", "lo": "cc"}
BRANCH = re.compile(r"^(b|bl|blx|cbz|cbnz)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|"
                    r"ls|ge|lt|gt|le|al)?$")
NUM = re.compile(r"(?<![\w])#?(-?)(0x[0-9a-f]+|\d+)\b")
INSN = re.compile(r"^\s*(\d+)\s+[0-9a-f]+\s+([0-9a-f]{8})\s+(\w+)\s+"
                  r"([0-9a-f]+)\s+(\w+)\s+(\S+)\s+(.*)$")


def regs(ops):
    """Register aliases and expanded lists in the operand text @ops."""
    def rng(m):
        a, b = int(m.group(1)), int(m.group(2))
        return ",".join("r%d" % i for i in range(a, b + 1))
    ops = re.sub(r"\b(sb|sl|fp|ip|r13|r14|r15)\b",
                 lambda m: ALIAS[m.group(1)], ops)
    return re.sub(r"\br(\d+)-r(\d+)\b", rng, ops)


def numbers(ops):
    return NUM.sub(lambda m: "#%d" % (int(m.group(2), 0) *
                                      (-1 if m.group(1) else 1)), ops)


def normalize(text, addr, isa):
    """(mnemonic, operands) of disassembly @text of the instruction at
    @addr in @isa, in the one form both listings map to."""
    t = text.lower().strip()
    m = re.match(r"(\S+)\s*(.*)", t)
    mn, ops = m.group(1), m.group(2)
    mn = re.sub(r"\.(w|n)$", "", mn)
    target = re.search(r";\s*(0x[0-9a-f]+)", ops)
    ops = ops.split(";")[0]
    for a, b in COND.items():
        if mn.endswith(a) and BRANCH.match(mn[:-2] + b):
            mn = mn[:-2] + b
    if BRANCH.match(mn):
        if target:  # DS-5: "{pc}+6 ; 0x800009d4"
            lead = ops.split(",")[0] + "," if mn.startswith("cb") else ""
            ops = lead + target.group(1)
    if mn == "adr" and target:
        mn, ops = "adr", ops.split(",")[0] + "," + target.group(1)
    ops = numbers(regs(ops.replace(" ", "")))
    # capstone's ADR: ADD Rd, pc, #imm (A32), ADR Rd, #imm (T32), an
    # offset from Align(PC, 4); DS-5 names the address
    m = re.match(r"(r\d+|sp|lr),(?:pc,)?#(\d+)$", ops)
    if m and (mn == "adr" and not target or
              mn == "add" and ",pc," in ops):
        pc = (addr + (4 if isa != "arm" else 8)) & ~3
        mn, ops = "adr", "%s,#%d" % (m.group(1), pc + int(m.group(2)))
    ops = ops.replace(",#0]", "]")
    if mn == "str" and re.match(r"(r\d+|lr),\[sp,#-4\]!$", ops):
        mn, ops = "push", "{%s}" % ops.split(",")[0]
    # Thumb two-operand forms: "subs r0,#48" for "subs r0,r0,#48".
    parts = ops.split(",")
    if (len(parts) == 3 and parts[0] == parts[1] and "[" not in ops and
            "{" not in ops):
        ops = ",".join(parts[1:])
    return mn, ops


def same_text(ds5, ours, addr, isa):
    """Whether DS-5's disassembly @ds5 and etmkit's @ours say the same.
    etmkit's listing cuts a long text (a register list): then the
    mnemonics and the part of the operands it shows."""
    dm, do = normalize(ds5, addr, isa)
    if ours.count("{") > ours.count("}"):
        om, oo = normalize(ours.rsplit(",", 1)[0] + "}", addr, isa)
        return om == dm and do.startswith(oo[:-1])
    return normalize(ours, addr, isa) == (dm, do)


def read_ds5(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if (len(c) >= 3 and c[0][:2] in ("S:", "N:") and c[1] and
                    c[1] != "<Unknown>"):
                out.append((int(c[0][2:], 16), int(c[1], 16), c[2]))
    return out


def read_etmkit(etmkit, snapshot, tid):
    p = subprocess.run([etmkit, "decode", "--snapshot", snapshot, "--id",
                        tid], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"etmkit decode failed ({p.returncode}): {p.stderr}")
        sys.exit(1)
    out = []
    for line in p.stdout.splitlines():
        m = INSN.match(line)
        if m:
            out.append((int(m.group(2), 16), m.group(3), int(m.group(4), 16),
                        m.group(7)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--ds5", required=True)
    a = ap.parse_args()
    for p in (a.snapshot, a.ds5):
        if not os.path.exists(p):
            skip(p + " not found")
    want = read_ds5(a.ds5)
    got = read_etmkit(a.etmkit, a.snapshot, a.id)
    bad = 0
    if len(got) < len(want):
        print(f"DS-5 lists {len(want)} instructions, etmkit decodes "
              f"{len(got)}")
        bad += 1
    for n, (w, g) in enumerate(zip(want, got)):
        addr, opcode, text = w
        if (g[0], g[2]) != (addr, opcode):
            print(f"instruction {n}: DS-5 0x{addr:x} {opcode:08x}; etmkit "
                  f"0x{g[0]:x} {g[2]:08x}")
            bad += 1
        elif not same_text(text, g[3], addr, g[1]):
            print(f"instruction {n} at 0x{addr:x}: DS-5 '{text}', etmkit "
                  f"'{g[3]}'")
            bad += 1
        if bad > 20:
            break
    print(f"DS-5: {len(want)} instructions (address, opcode, disassembly): "
          + ("match" if not bad else f"{bad} differences"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
