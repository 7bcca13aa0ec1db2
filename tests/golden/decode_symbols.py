#!/usr/bin/env python3
"""Binaries and functions in `etmkit decode` listings (issue 15): the text
column "function+offset (binary)" and the JSON members dso, sym, symoff.
The expected binaries, functions and offsets come from readelf's output
on the files, not from etmkit.

1. perf_etm.data (../shared) with --elf etm_test_loop@0x582b2b0000: the
   recording maps the file's page 0x1000 at 0x582b2b1000 and the file's
   executable PT_LOAD (readelf -l) has vaddr == offset, so that bias puts
   it where it ran. The file is stripped (readelf -s: no .symtab, no
   defined function in .dynsym): every instruction inside the segment
   shows "(etm_test_loop)" and JSON "dso" only (the path the recording
   names, /data/local/tmp/etm_test_loop); without --elf the header
   and lines are as before (no column).
2. tests/workloads/calls.c compiled for T32 (Thumb functions: st_value
   bit 0 set) and A64 by the cross compilers, run under QEMU and encoded
   (tools/qemu-trace), decoded with --elf of the static binary: each
   instruction's function and offset is the one readelf -s's symbols
   give by the documented rule (include/etmkit/elf_file.h: FUNC, or
   NOTYPE in an executable section, mapping symbols $a $t $d $x left
   out, one per address preferring a sized one; a sized symbol holds its
   bytes, a size-0 one up to the next symbol). Skipped (77) without QEMU
   or the compilers, failed under CI=true.

Exit 77 when neither part could run."""
import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (schema check of every record)
from verdict import CI, FAILS, fail  # noqa: E402  (tests/verdict.py)

RECORDED = "/data/local/tmp/etm_test_loop"
HEADER_OLD = "#   offset  id  address   isa      opcode    status  cycles  disassembly"
INSN = re.compile(r"^ *(\d+)  ([0-9a-f]{2})  ([0-9a-f]{8,16})  (\S+) +"
                  r"([0-9a-f]{2,8}) +(\S+) +(\S+)  (.*)$")
WHERE = re.compile(r"^(.*?)  +(?:(\S+)\+0x([0-9a-f]+) )?\(([^()]+)\)$")



def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p


def readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], capture_output=True,
                          text=True, check=True).stdout


def sections(path):
    """Section index -> (name, flags) from readelf -S."""
    out = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S*)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+[0-9a-f]+\s+(\S*)\s+\d+\s+\d+\s+\d+$", line)
        if m:
            out[int(m.group(1))] = (m.group(2), m.group(3))
    return out


def symbol_tables(path):
    """{table name: [(value, size, type, ndx, name)]} from readelf -s."""
    tables, cur = {}, None
    for line in readelf(["-s"], path).splitlines():
        m = re.match(r"Symbol table '(\S+)'", line)
        if m:
            cur = tables.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*\d+:\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\w+)\s+\w+\s+\w+\s+"
                     r"(\w+)\s*(.*)$", line)
        if m and cur is not None:
            name = m.group(5).split("@")[0]
            cur.append((int(m.group(1), 16), int(m.group(2), 0), m.group(3),
                        m.group(4), name))
    return tables


def function_symbols(path, arm32):
    """The functions by the documented rule, sorted: [(addr, size, name)]."""
    secs = sections(path)
    tables = symbol_tables(path)
    table = tables.get(".symtab") or tables.get(".dynsym") or []
    syms = []
    for value, size, typ, ndx, name in table:
        if not ndx.isdigit() or ndx == "0" or not name:
            continue
        if typ == "NOTYPE":
            if "X" not in secs.get(int(ndx), ("", ""))[1]:
                continue
        elif typ != "FUNC":
            continue
        if re.match(r"^\$[atdx](\.|$)", name):
            continue
        if arm32 and typ == "FUNC":
            value &= ~1
        syms.append((value, 0 if size else 1, name, size))
    syms.sort()
    out = []
    for value, _, name, size in syms:
        if out and out[-1][0] == value:
            continue
        out.append((value, size, name))
    return out


def lookup(syms, addrs, va):
    """(name, offset) of the symbol holding @va, or None."""
    i = bisect.bisect_right(addrs, va) - 1
    if i < 0:
        return None
    addr, size, name = syms[i]
    if size == 0 or va - addr < size:
        return name, va - addr
    return None


def exec_segment(path):
    """(offset, vaddr, filesz) of the executable PT_LOAD (readelf -l)."""
    for line in readelf(["-l"], path).splitlines():
        t = line.split()
        if t and t[0] == "LOAD" and "E" in t[6:-1]:
            return int(t[1], 16), int(t[2], 16), int(t[4], 16)
    raise SystemExit("%s: no executable PT_LOAD" % path)


def check_stripped(etmkit, shared):
    perf = os.path.join(shared, "testdata", "perf", "perf_etm.data")
    binary = os.path.join(shared, "testdata", "perf", "etm_test_loop")
    if not (os.path.isfile(perf) and os.path.isfile(binary)):
        return False
    bias = 0x582b2b0000
    tables = symbol_tables(binary)
    if ".symtab" in tables:
        fail("etm_test_loop has a .symtab: the test expects a stripped file")
    if function_symbols(binary, False):
        fail("etm_test_loop: .dynsym has defined functions: %s"
             % function_symbols(binary, False))
    off, vaddr, size = exec_segment(binary)
    lo, hi = bias + vaddr, bias + vaddr + size
    # Text, with the header.
    p = run([etmkit, "decode", perf, "--elf", "%s@0x%x" % (binary, bias), "--header"])
    lines = p.stdout.splitlines()
    want_header = HEADER_OLD + " " * (32 - len("disassembly")) + "  function+offset (binary)"
    if not lines or lines[0] != want_header:
        fail("header %r, expected %r" % (lines[0] if lines else None, want_header))
    inside = 0
    for line in lines:
        m = INSN.match(line)
        if not m:
            continue
        addr = int(m.group(3), 16)
        w = WHERE.match(m.group(8))
        if lo <= addr < hi:
            inside += 1
            if not w or w.group(2) is not None or w.group(4) != "etm_test_loop":
                fail("0x%x: %r, expected the disassembly then (etm_test_loop)"
                     % (addr, m.group(8)))
                break
        elif w:
            fail("0x%x outside the binary: %r" % (addr, m.group(8)))
            break
    if inside < 100:
        fail("perf_etm.data: %d instructions in etm_test_loop" % inside)
    # JSON.
    p = run([etmkit, "decode", perf, "--elf", "%s@0x%x" % (binary, bias), "--json"])
    n = 0
    for r in etmkit_json.lines(p.stdout, "elements", "perf_etm.data --elf"):
        if r["kind"] != "insn":
            continue
        addr = int(r["addr"], 16)
        if lo <= addr < hi:
            n += 1
            # The binary as the recording names it (locate_set_name()
            # through perf_maps_set_names(); the README: recorded at
            # /data/local/tmp/etm_test_loop), not the local file.
            if r.get("dso") != RECORDED or "sym" in r or "symoff" in r:
                fail("JSON 0x%x: %s" % (addr, r))
                break
        elif "dso" in r:
            fail("JSON 0x%x outside the binary: %s" % (addr, r))
            break
    if n != inside:
        fail("JSON: %d instructions in etm_test_loop, text %d" % (n, inside))
    # Without --elf: no column, the header as before.
    p = run([etmkit, "decode", perf, "--header"])
    if p.stdout.splitlines()[:1] != [HEADER_OLD]:
        fail("without --elf: header %r" % p.stdout.splitlines()[:1])
    if "(etm_test_loop)" in p.stdout:
        fail("without --elf: a binary is named")
    print("ok   perf_etm.data --elf etm_test_loop: %d instructions (etm_test_loop), no symbol"
          % inside)
    return True


def check_workload(etmkit, qemu_trace, workload, arch, tmp):
    out = os.path.join(tmp, arch)
    p = subprocess.run([qemu_trace, "--arch", arch, "--no-install", "--etmkit", etmkit,
                        "--out", out, workload], capture_output=True, text=True)
    if p.returncode != 0:
        fail("qemu-trace %s: %s" % (arch, p.stderr[-2000:]))
        return
    prog = os.path.join(out, os.path.basename(workload)[:-2] + "." + arch)
    snap = os.path.join(out, "trace")
    syms = function_symbols(prog, arch != "a64")
    addrs = [s[0] for s in syms]
    if not any(n == "fib" for _, _, n in syms):
        fail("%s: readelf finds no fib" % prog)
    p = run([etmkit, "decode", "--snapshot", snap, "--elf", prog])
    seen, n, bad = set(), 0, 0
    short = os.path.basename(prog)
    for line in p.stdout.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        n += 1
        addr = int(m.group(3), 16)
        want = lookup(syms, addrs, addr)
        w = WHERE.match(m.group(8))
        got = (w.group(2), int(w.group(3), 16)) if w and w.group(2) else None
        if not w or w.group(4) != short or got != want:
            bad += 1
            if bad <= 5:
                fail("%s 0x%x: %r, expected %s (%s)" % (arch, addr, m.group(8),
                                                       want, short))
        if got:
            seen.add(got[0])
    if not {"main", "fib", "classify"} <= seen:
        fail("%s: functions seen %s" % (arch, sorted(seen)[:20]))
    # JSON: the same, as members.
    p = run([etmkit, "decode", "--snapshot", snap, "--elf", prog, "--json"])
    nj = 0
    for r in etmkit_json.lines(p.stdout, "elements", arch + " --elf"):
        if r["kind"] != "insn":
            continue
        nj += 1
        want = lookup(syms, addrs, int(r["addr"], 16))
        got = (r["sym"], r["symoff"]) if "sym" in r else None
        if r.get("dso") != prog or got != want:
            fail("%s JSON %s: expected %s" % (arch, r, want))
            break
    if nj != n or n < 1000:
        fail("%s: %d text and %d JSON instructions" % (arch, n, nj))
    print("ok   %s %s: %d instructions, %d functions seen" % (arch, short, n, len(seen)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    if not shutil.which("readelf"):
        print("SKIP: readelf (binutils) not installed")
        return 1 if CI else 77
    ran = 0
    if check_stripped(a.etmkit, a.shared):
        ran += 1
    else:
        print("SKIP: no ../shared perf recording (%s)" % a.shared)
        if CI:
            fail("../shared missing and CI=true")
    tools = ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc")
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        print("SKIP: %s not installed (tools/setup-debian installs qemu-user and "
              "the cross compilers): no binary with symbols" % " ".join(missing))
        if CI:
            fail("%s missing and CI=true" % " ".join(missing))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for arch in ("t32", "a64"):
                check_workload(a.etmkit, a.qemu_trace,
                               os.path.join(a.workloads, "calls.c"), arch, tmp)
        ran += 1
    if FAILS:
        print("%d failures" % len(FAILS))
        return 1
    return 0 if ran == 2 else 77


if __name__ == "__main__":
    sys.exit(main())
