#!/usr/bin/env python3
"""DWARF source lines (include/etmkit/lines.h, src/image/dwarf_lines.c)
against binutils, an independent reader of the same DWARF.

Workloads (tests/workloads) are cross-compiled for AArch64 with -g, as
DWARF 4 and as DWARF 5, at -O1 and -O2 (-O2 inlines). For each binary:
1. rows: the line table as `aarch64-linux-gnu-objdump --dwarf=decodedline`
   prints it, turned into address ranges here by DWARF's rule (a row holds
   until the next row of its sequence; of several rows at one address the
   last is in effect; a "-" row ends the sequence) equals lines_dump's rows
   (file base name, line, range);
2. every instruction address of .text: file:line and the inline chain
   (function names, call sites) equal `addr2line -i -f -a` (discriminators
   dropped; in the padding after a function, which a row holds and no
   DWARF function does, addr2line names the ELF symbol before it and we
   name none); where addr2line has no line (code without debugging
   information: it names the ELF symbol), lines_dump has none either;
3. function entries and declaration lines equal the DW_AT_low_pc and
   DW_AT_decl_line objdump --dwarf=info prints.
Then: a binary without DWARF gives "no line information" (exit 4), a
unit of DWARF version 99 and a garbled .debug_line give a format error naming
the file (exit 3), not a crash.

Usage: check_lines.py --dump LINES_DUMP --workloads DIR
Exit 0 pass, 1 fail, 77 cross tools missing (fails with CI=true)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)
CROSS = "aarch64-linux-gnu-"


def out(cmd, inp=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=inp)
    if p.returncode:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p.stdout


def decoded_rows(elf):
    """{address: (basename, line)} for every address range start, and the
    ranges [(lo, hi, basename, line)] from objdump's decoded line table."""
    rows = []
    seq = []   # (addr, file, line) of the open sequence

    def close(end):
        for i, (a, f, ln) in enumerate(seq):
            nxt = seq[i + 1][0] if i + 1 < len(seq) else end
            if nxt > a:
                rows.append((a, nxt, f, ln))
        seq.clear()

    for line in out([CROSS + "objdump", "--dwarf=decodedline", elf]).splitlines():
        f = line.split()
        if len(f) < 3 or not f[2].startswith("0x"):
            continue
        addr = int(f[2], 16)
        if f[1] == "-":
            close(addr)
            continue
        if not f[1].isdigit():
            continue
        seq.append((addr, os.path.basename(f[0]), int(f[1])))
    rows.sort()
    return rows


def dump_rows(dump, elf):
    rows = []
    for line in out([dump, elf, "rows"]).splitlines():
        lo, hi, ln, _col, f = line.split(" ", 4)
        rows.append((int(lo, 16), int(hi, 16), os.path.basename(f), int(ln)))
    return rows


def text_range(elf):
    for line in out([CROSS + "objdump", "-h", elf]).splitlines():
        f = line.split()
        if len(f) > 3 and f[1] == ".text":
            return int(f[3], 16), int(f[3], 16) + int(f[2], 16)
    sys.exit(f"{elf}: no .text")


def addr2line(elf, addrs):
    """{addr: [(function, file, line)]} innermost first."""
    text = out([CROSS + "addr2line", "-e", elf, "-i", "-f", "-a"],
               "".join(f"{a:#x}\n" for a in addrs))
    res, cur = {}, None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("0x"):
            cur = res.setdefault(int(lines[i], 16), [])
            i += 1
            continue
        fn, loc = lines[i], lines[i + 1]
        loc = re.sub(r" \(discriminator \d+\)$", "", loc)
        f, ln = loc.rsplit(":", 1)
        cur.append((fn, f, int(ln) if ln.isdigit() else 0))
        i += 2
    return res


def dump_find(dump, elf, addrs):
    res = {}
    for line in out([dump, elf, "find"],
                    "".join(f"{a:x}\n" for a in addrs)).splitlines():
        f = line.split("\t")
        a = int(f[0].split(" ")[0], 16)
        frames = []
        for fr in f[1:]:
            name, loc = fr.split("@", 1)
            fl, ln = loc.rsplit(":", 1)
            frames.append((name, fl, int(ln)))
        res[a] = (f[0].split(" ", 1)[1], frames)
    return res


def info_funcs(elf):
    """{name: (low_pc, decl_line)} of the subprograms with a low_pc,
    from objdump --dwarf=info."""
    res, cur = {}, None
    for line in out([CROSS + "objdump", "--dwarf=info", elf]).splitlines():
        m = re.search(r"Abbrev Number: \d+ \((DW_TAG_\w+)\)", line)
        if m:
            cur = {} if m.group(1) == "DW_TAG_subprogram" else None
            continue
        if m is None and re.search(r"Abbrev Number: 0", line):
            cur = None
        if cur is None:
            continue
        m = re.search(r"(DW_AT_\w+)\s*:\s*(.*)$", line)
        if not m:
            continue
        at, v = m.group(1), m.group(2).strip()
        if at == "DW_AT_name":
            cur["name"] = v.split(":")[-1].strip()
        elif at == "DW_AT_decl_line":
            cur["line"] = int(v)
        elif at == "DW_AT_low_pc":
            cur["low"] = int(v, 16)
            if "name" in cur:
                res[cur["name"]] = (cur["low"], cur.get("line", 0))
    return res


def check_binary(dump, elf, tag):
    want = decoded_rows(elf)
    got = dump_rows(dump, elf)
    # the last row in effect per address; overlaps cut as the reader does
    if got != want:
        gs, ws = set(got), set(want)
        fail(f"{tag}: rows differ from objdump --dwarf=decodedline: "
             f"{len(gs - ws)} only ours {sorted(gs - ws)[:3]}, "
             f"{len(ws - gs)} only objdump's {sorted(ws - gs)[:3]}")
    lo, hi = text_range(elf)
    addrs = list(range(lo, hi, 4))
    a2l = addr2line(elf, addrs)
    mine = dump_find(dump, elf, addrs)
    compared = inl = padding = 0
    bad = []
    for a in addrs:
        frames = a2l.get(a, [])
        if not frames or frames[0][2] == 0:
            # no line: addr2line names the symbol; we must know nothing
            if mine[a][0] != "??:0":
                bad.append((hex(a), mine[a], frames))
            continue
        compared += 1
        inl += len(frames) > 1
        if not mine[a][1] and len(frames) == 1 and \
                mine[a][0] == f"{frames[0][1]}:{frames[0][2]}":
            # padding after a function: a row holds it, no DWARF function
            # does; addr2line names the ELF symbol before it
            padding += 1
            continue
        if mine[a][1] != frames:
            bad.append((hex(a), mine[a], frames))
    if bad:
        fail(f"{tag}: {len(bad)} of {compared} addresses differ from "
             f"addr2line -i -f: {bad[:2]}")
    if compared < 20:
        fail(f"{tag}: only {compared} addresses with lines")
    funcs = {}
    for line in out([dump, elf, "funcs"]).splitlines():
        entry, _lo, _hi, dl, name, _f = line.split(" ", 5)
        funcs[name] = (int(entry, 16), int(dl))
    for name, v in info_funcs(elf).items():
        if funcs.get(name) != v:
            fail(f"{tag}: function {name}: ours {funcs.get(name)}, "
                 f"objdump --dwarf=info {v}")
    print(f"{tag}: {len(got)} rows, {compared} addresses "
          f"({inl} in inlined code, {padding} padding), "
          f"{len(funcs)} functions")
    return inl


def damaged(dump, elf, tmp):
    """Copies of @elf: its first .debug_info unit says DWARF version 99;
    .debug_line overwritten by 0xff; the last byte of .debug_str and of
    .debug_line_str (DWARF 5) not NUL (libdw would read past them).
    Returns (path, what its error must say)."""
    data = bytearray(open(elf, "rb").read())
    res = []
    for line in out([CROSS + "objdump", "-h", elf]).splitlines():
        f = line.split()
        if len(f) > 5 and f[1] in (".debug_info", ".debug_line",
                                   ".debug_str", ".debug_line_str"):
            size, off = int(f[2], 16), int(f[5], 16)
            d = bytearray(data)
            want = "broken DWARF"
            if f[1] == ".debug_info":
                # the first unit's version: 99
                d[off + 4:off + 6] = (99).to_bytes(2, "little")
            elif f[1] == ".debug_line":
                d[off:off + size] = b"\xff" * size
            else:
                d[off + size - 1] = ord("x")
                want = f"{f[1]} does not end in a NUL byte"
            p = os.path.join(tmp, os.path.basename(elf) + f[1])
            open(p, "wb").write(d)
            res.append((p, want))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    for t in ("gcc", "objdump", "addr2line", "strip"):
        if not shutil.which(CROSS + t):
            skip(f"{CROSS}{t} missing")
    inlined = 0
    with tempfile.TemporaryDirectory() as tmp:
        built = []
        here = os.path.dirname(os.path.abspath(__file__))
        srcs = [os.path.join(a.workloads, w + ".c")
                for w in ("calls", "loops", "busy", "condexec")]
        srcs.append(os.path.join(here, "inlined.c"))
        for src in srcs:
            w = os.path.basename(src)[:-2]
            for dw in (4, 5):
                for opt in ("-O1", "-O2"):
                    elf = os.path.join(tmp, f"{w}-dwarf{dw}{opt}")
                    out([CROSS + "gcc", f"-gdwarf-{dw}", opt, "-o", elf,
                         src])
                    inlined += check_binary(a.dump, elf, os.path.basename(elf))
                    built.append(elf)
        if not inlined:
            fail("no address in inlined code: the inline chains went untested")
        stripped = os.path.join(tmp, "stripped")
        out([CROSS + "strip", "-g", "-o", stripped, built[0]])
        p = subprocess.run([a.dump, stripped, "rows"], capture_output=True,
                           text=True)
        if p.returncode != 4 or "no line information" not in p.stderr \
                or stripped not in p.stderr:
            fail(f"no DWARF: exit {p.returncode}, {p.stderr.strip()}")
        bads = damaged(a.dump, built[0], tmp)
        bads += damaged(a.dump, [e for e in built if "dwarf5" in e][0], tmp)
        if not any(".debug_line_str" in w for _, w in bads):
            fail("no .debug_line_str in a DWARF 5 build: its check went "
                 "untested")
        for bad, want in bads:
            p = subprocess.run([a.dump, bad, "rows"], capture_output=True,
                               text=True)
            if p.returncode != 3 or want not in p.stderr or \
                    bad not in p.stderr:
                fail(f"{os.path.basename(bad)}: exit {p.returncode}, "
                     f"{p.stderr.strip()[:200]}")
        p = subprocess.run([a.dump, a.workloads, "rows"], capture_output=True,
                           text=True)
        if p.returncode != 3:
            fail(f"a folder: exit {p.returncode}")
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        sys.exit(1)
    print("ok")


main()
