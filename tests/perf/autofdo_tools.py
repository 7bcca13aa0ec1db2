#!/usr/bin/env python3
"""etmkit's AutoFDO profile read by AutoFDO's own tools and used by GCC
(issue 16).

tests/workloads/hot.c (hot() and cold(), 10:1 work, not inlined) is built
for A64 with -O2 -gdwarf-4 (autofdo 0.19 reads DWARF 4 only) three ways:
  static   static, not PIE: one R E PT_LOAD from offset 0 at 0x400000;
  pie      dynamic PIE, loaded by QEMU at a bias read from its log;
  split    static with .text placed at 0x900000 (file offset 0x10000), in
           a second R E PT_LOAD: here simpleperf's address base (vaddr -
           the first PT_LOAD's p_vaddr, 0x400000) and a file offset
           (vaddr - 0x8f0000) differ, digest perf-data.md 4a "Address base".
Each runs under QEMU (tools/qemu-trace), `etmkit encode --format perf-data`
writes the run as a recording, `etmkit profile --format autofdo --binary`
writes the profile, and then:

1. `create_gcov --profiler=text --gcov_version=2` turns it into a gcov
   profile, read back with `dump_gcov`. For hot, cold and main (the three
   hottest functions) the lines must be those AutoFDO 0.19's arithmetic
   gives from the execution record alone (the record `etmkit encode
   --record-out` writes, not etmkit's profile): an instruction's count is
   the number of times the record executes it; a line key is (DWARF line -
   the function's declaration line (read from hot.c), discriminator), the
   line of an address being the last line-table row at it
   (llvm-dwarfdump); a key's count is the maximum over its instructions
   (AutoFDO SymbolMap::MAX); the function's total is the sum of its keys,
   its head count the count of its first instruction (main's is not
   compared: create_gcov gives it 1 in the static builds, but 0 in the
   PIE, where its first instruction also runs once and main is the first
   function of .text; not explained here);
   a call line lists
   hot/cold with the count of the record's calls from it. hot and cold must
   be the two hottest functions by total.
2. `create_llvm_prof --profiler=text --format=text` and `--format=binary`:
   the same lines without discriminators (a line's count the maximum over
   them), the total as AutoFDO weighs ranges, sum of count * (1 + to -
   from) over the record's ranges (digest 4a's rules,
   cli_profile.record_profile()) that start in the function (0.19 counts
   every byte address of its instruction map); `llvm-profdata show
   --sample` (LLVM 16) loads both and prints the same totals and head
   counts.
3. `aarch64-linux-gnu-gcc -O2 -fauto-profile=` builds the workload with the
   gcov profile with no warning, its -fdump-ipa-afdo dump gives hot's and
   cold's blocks the record's counts (entry 200, loop body 200000 and
   20000), and the rebuilt program prints the same line under QEMU.
   create_gcov 0.19 writes the string table's lengths in 4-byte words, as
   GCC did up to 11; GCC 12 reads them in bytes (gcov_read_string) and
   crashes (internal compiler error) on the file as written; so the test
   rewrites the string table with byte lengths when GCC rejects the file,
   says so, and requires the rewritten file to build.

What holds here (autofdo 0.19-2.2, GCC 12.2, LLVM 16): profile addresses
are read as vaddr - the first PT_LOAD's p_vaddr, simpleperf's convention
(the split build proves it: its file offsets give an empty gcov profile,
checked); PIE and non-PIE both work; llvm-profdata 16 loads
create_llvm_prof's text and binary output; GCC needs --gcov_version=2
(create_gcov's default, 875575082, is refused: "AutoFDO profile version
... does not match 2") and the string-table rewrite.

Exit: 0 pass, 1 fail, 77 QEMU, the cross compiler, autofdo or LLVM 16
missing (fails with CI=true)."""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cli_profile  # noqa: E402  (record_profile: digest 4a from a record)
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)

LLVM = "/usr/lib/llvm-16/bin"
GCC = "aarch64-linux-gnu-gcc"


def run(cmd, ok=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if ok and p.returncode != 0:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}"
              f"{p.stderr[-2000:]}")
        sys.exit(1)
    return p


# ---- what the record and the ELF file say, without etmkit ------------------

def exec_counts(rec):
    """{address: times executed} of an execution record."""
    n = {}
    for line in open(rec):
        t = line.split("#", 1)[0].split()
        if len(t) >= 3 and t[0].startswith("0x"):
            a = int(t[0], 16)
            n[a] = n.get(a, 0) + 1
    return n


def calls(rec):
    """{(branch address, target): taken count} of the record's direct
    branches."""
    out = {}
    for line in open(rec):
        t = line.split("#", 1)[0].split()
        if len(t) >= 4 and t[0].startswith("0x") and "b" in t[3:]:
            tg = [w for w in t[3:] if w.startswith("->")]
            if tg:
                k = (int(t[0], 16), int(tg[0][2:].split(":")[0], 16))
                out[k] = out.get(k, 0) + 1
    return out


def functions(elf):
    """{name: (vaddr, size)} of the FUNC symbols (readelf)."""
    out = {}
    for line in run(["readelf", "-sW", elf]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            out.setdefault(f[7], (int(f[1], 16), int(f[2])))
    return out


def load_segments(elf):
    """[(p_offset, p_vaddr, flags)] of the PT_LOADs, in order."""
    segs = []
    for line in run(["readelf", "-lW", elf]).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), " ".join(f[6:-1])))
    return segs


def line_table(elf):
    """[(address, line, discriminator)] of the hot.c rows, the last row
    at each address (llvm-dwarfdump --debug-line)."""
    text = run([LLVM + "/llvm-dwarfdump", "--debug-line", elf]).stdout
    rows, in_hot = {}, False
    for line in text.splitlines():
        if line.startswith("debug_line["):
            in_hot = False
        if re.match(r'\s+name: "hot.c"', line):
            in_hot = True
        m = re.match(r"0x([0-9a-f]{16})\s+(\d+)\s+\d+\s+\d+\s+\d+\s+(\d+)",
                     line)
        if in_hot and m:
            rows[int(m.group(1), 16)] = (int(m.group(2)), int(m.group(3)))
    return sorted((a, l, d) for a, (l, d) in rows.items())


def decl_lines(src):
    """{function: line of its name in hot.c}."""
    out = {}
    for i, line in enumerate(open(src), 1):
        m = re.search(r"\b(hot|cold|main)\((unsigned x|void)\)$", line)
        if m:
            out[m.group(1)] = i
    return out


def expected(rec, elf, bias, src):
    """{function: (total, head, {(offset, disc): count},
    {(offset, disc): {callee: count}}, llvm total)} for hot, cold and
    main, by AutoFDO 0.19's arithmetic (docstring 1, 2)."""
    n = {a - bias: c for a, c in exec_counts(rec).items()}
    cl = {(f - bias, t - bias): c for (f, t), c in calls(rec).items()}
    ranges, _ = cli_profile.record_profile(rec)
    rows = line_table(elf)
    decl = decl_lines(src)
    syms = functions(elf)
    starts = {syms[f][0]: f for f in ("hot", "cold")}

    def line_of(a):
        best = None
        for r in rows:
            if r[0] > a:
                break
            best = r
        return best

    out = {}
    for f in ("hot", "cold", "main"):
        start, size = syms[f]
        body, targets = {}, {}
        for a in range(start, start + size, 4):
            r = line_of(a)
            if not n.get(a) or r is None:
                continue
            k = (r[1] - decl[f], r[2])
            body[k] = max(body.get(k, 0), n[a])
        for (b, t), c in cl.items():
            if start <= b < start + size and t in starts:
                r = line_of(b)
                k = (r[1] - decl[f], r[2])
                targets.setdefault(k, {})[starts[t]] = c
        llvm_total = sum(c * (1 + t - s) for (s, t), c in ranges.items()
                         if start <= s - bias < start + size)
        out[f] = (sum(body.values()), n.get(start, 0), body, targets,
                  llvm_total)
    return out


# ---- what AutoFDO's tools say ----------------------------------------------

def parse_dump_gcov(text):
    """dump_gcov's top-level functions: {name: (total, head, {(offset,
    disc): count}, {(offset, disc): {callee: count}})}."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"(\S+) total:(\d+) head:(\d+)$", line)
        if m:
            cur = out[m.group(1)] = (int(m.group(2)), int(m.group(3)), {}, {})
            continue
        m = re.match(r"  (\d+)(?:\.(\d+))?: (\d+)(.*)$", line)
        if m and cur:
            k = (int(m.group(1)), int(m.group(2) or 0))
            cur[2][k] = int(m.group(3))
            for t in m.group(4).split():
                name, c = t.rsplit(":", 1)
                cur[3].setdefault(k, {})[name] = int(c)
        elif not line.startswith("  "):
            cur = None
    return out


def parse_llvm_text(text):
    """create_llvm_prof's text format: {name: (total, head, {offset:
    count})} (top level only)."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"(\S+):(\d+):(\d+)$", line)
        if m:
            cur = out[m.group(1)] = (int(m.group(2)), int(m.group(3)), {})
            continue
        m = re.match(r" (\d+): (\d+)", line)
        if m and cur:
            cur[2][int(m.group(1))] = int(m.group(2))
        elif not line.startswith("  "):
            cur = None if not m else cur
    return out


def gcov_strings_in_bytes(src, dst):
    """Rewrite a create_gcov 0.19 file's string table (GCOV_TAG_AFDO_FILE_
    NAMES: tag, length, count, then each string as a length in 4-byte words
    and the NUL-padded words) with GCC 12's string form (a length in bytes,
    the NUL included, then the bytes); the rest is copied as is."""
    d = open(src, "rb").read()
    tag, _length, count = struct.unpack_from("<III", d, 12)
    if tag != 0xAA000000:
        sys.exit(f"{src}: no string table at offset 12 (tag {tag:#x})")
    p, body = 24, bytearray(struct.pack("<I", count))
    for _ in range(count):
        words, = struct.unpack_from("<I", d, p)
        s = d[p + 4:p + 4 + 4 * words]
        p += 4 + 4 * words
        s = s.split(b"\0")[0] + b"\0" if words else b""
        body += struct.pack("<I", len(s)) + s
    open(dst, "wb").write(d[:16] + struct.pack("<I", len(body) // 4) +
                          bytes(body) + d[p:])


def afdo_dump_counts(dump):
    """{function: {basic-block counts}} in a -fdump-ipa-afdo dump."""
    out, cur = {}, None
    for line in open(dump):
        m = re.match(r"\w.*?(\w+) \([^)]*\)$", line)   # a function's
        if m:                                          # declarator
            cur = m.group(1)
        m = re.search(r"<bb \d+> \[count: (\d+)\]", line)
        if m and cur:
            out.setdefault(cur, set()).add(int(m.group(1)))
    return out


# ---- one build --------------------------------------------------------------

def pie_bias(log, elf):
    """Where QEMU loaded the PIE: the logged address of main less its
    link address."""
    main = functions(elf)["main"][0]
    text = open(log).read()
    m = re.search(r"IN: main\n(0x[0-9a-f]+):", text)
    if not m:
        sys.exit(f"{log}: main not found")
    return int(m.group(1), 16) - main


def case(a, tmp, name, cflags, dynamic=False):
    out = os.path.join(tmp, name)
    log = os.path.join(out, "qemu.log")
    src = os.path.abspath(os.path.join(a.workloads, "hot.c"))
    cmd = [a.qemu_trace, "--no-install", "--no-encode", "--arch", "a64",
           "--cflags", cflags, "--out", out, "--log", log, src]
    run(cmd + (["--dynamic"] if dynamic else []))
    elf = os.path.join(out, "hot.a64")
    want_out = open(os.path.join(out, "stdout")).read()
    bias = pie_bias(log, elf) if dynamic else 0
    data = os.path.join(out, "hot.data")
    run([a.etmkit, "encode", "--protocol", "ete", "--format", "perf-data",
         "-o", data, "--cpus", "1", "-q", "--from-qemu", log, "--elf",
         f"{elf}@{bias:#x}"])
    rec = os.path.join(out, "rec.txt")
    run([a.etmkit, "encode", "--protocol", "ete", "--from-qemu", log,
         "--out", os.path.join(out, "snap"), "--record-out", rec, "-q"])
    prof = os.path.join(out, "hot.prof")
    run([a.etmkit, "profile", data, "--elf", elf, "--format", "autofdo",
         "--binary", "hot.a64$", "-o", prof])
    want = expected(rec, elf, bias, src)
    names = {"hot", "cold", "main"}

    # 1. create_gcov, dump_gcov
    gcov = os.path.join(out, "hot.afdo")
    run(["create_gcov", f"--binary={elf}", f"--profile={prof}",
         "--profiler=text", f"--gcov={gcov}", "--gcov_version=2"])
    got = parse_dump_gcov(run(["dump_gcov", "--gcov_version=2", gcov]).stdout)
    for f in sorted(names):
        total, head, body, targets, _ = want[f]
        if f not in got:
            fail(f"{name}: {f} not in create_gcov's profile")
            continue
        g = got[f]
        gt = {k: {c: n for c, n in v.items() if c in names}
              for k, v in g[3].items()}
        gt = {k: v for k, v in gt.items() if v}
        if (g[0], g[2], gt) != (total, body, targets) or \
                (f != "main" and g[1] != head):
            fail(f"{name}: create_gcov {f}: total {g[0]} head {g[1]} "
                 f"{sorted(g[2].items())} calls {gt}; record: total {total} "
                 f"head {head} {sorted(body.items())} calls {targets}")
    top = sorted(got, key=lambda f: -got[f][0])[:2]
    if top != ["hot", "cold"] or not want["hot"][0] > 9 * want["cold"][0]:
        fail(f"{name}: hottest functions {top}, totals "
             f"{[(f, got[f][0]) for f in top]}")
    print(f"{name}: create_gcov: hot total {got.get('hot', (0,))[0]} "
          f"head {got.get('hot', (0, 0))[1]}, cold total "
          f"{got.get('cold', (0,))[0]}, {len(got)} functions")

    # 2. create_llvm_prof, text and binary, and llvm-profdata 16
    for fmt in ("text", "binary"):
        lp = os.path.join(out, "hot.llvm." + fmt)
        run(["create_llvm_prof", "--profiler=text", f"--binary={elf}",
             f"--profile={prof}", f"--out={lp}", f"--format={fmt}"])
        show = run([LLVM + "/llvm-profdata", "show", "--sample", lp]).stdout
        for f in sorted(names):
            total, head, body, _, llvm_total = want[f]
            m = re.search(rf"^Function: {f}: (\d+), (\d+), ", show, re.M)
            shown = (int(m.group(1)), int(m.group(2))) if m else None
            if shown is None or shown[0] != llvm_total or \
                    (f != "main" and shown[1] != head):
                fail(f"{name}: llvm-profdata show ({fmt}) {f}: {shown}, "
                     f"record: total {llvm_total} head {head}")
        if fmt == "text":
            got = parse_llvm_text(open(lp).read())
            for f in sorted(names):
                total, head, body, _, llvm_total = want[f]
                lines = {}
                for (o, _d), c in body.items():
                    lines[o] = max(lines.get(o, 0), c)
                g = got.get(f)
                if g is None or g[0] != llvm_total or g[2] != lines or \
                        (f != "main" and g[1] != head):
                    fail(f"{name}: create_llvm_prof {f}: {g}; record: "
                         f"total {llvm_total} head {head} "
                         f"{sorted(lines.items())}")
    print(f"{name}: create_llvm_prof: hot total {want['hot'][4]}; "
          "llvm-profdata 16 loads the text and binary forms")

    # 3. GCC builds with it
    fdo = os.path.join(out, "hot.fdo")
    dump_dir = os.path.join(out, "gcc")
    os.makedirs(dump_dir)
    flags = cflags.split() + (["-fPIE", "-pie"] if dynamic else ["-static"])
    gcc = [GCC] + flags + ["-Wall", "-fdump-ipa-afdo", "-dumpdir",
                      dump_dir + "/", "-o", fdo, src]
    p = run(gcc + [f"-fauto-profile={gcov}"], ok=False)
    if p.returncode != 0:
        print(f"{name}: {GCC} rejects create_gcov's file as written "
              f"({p.stderr.strip().splitlines()[0][:120]}); rewriting its "
              "string table with byte lengths (GCC 12's gcov strings)")
        fixed = gcov + ".gcc12"
        gcov_strings_in_bytes(gcov, fixed)
        p = run(gcc + [f"-fauto-profile={fixed}"], ok=False)
    if p.returncode != 0 or p.stderr.strip():
        fail(f"{name}: {GCC} -fauto-profile: exit {p.returncode}: "
             f"{p.stderr.strip()[:500]}")
        return
    dumps = [f for f in os.listdir(dump_dir) if f.endswith(".afdo")]
    counts = afdo_dump_counts(os.path.join(dump_dir, dumps[0])) \
        if dumps else {}
    for f in ("hot", "cold"):
        # the entry block runs once a call, the loop body as often as the
        # record's hottest line (GCC's loop header adds the entries)
        body = max(want[f][2].values())
        if not {want[f][1], body} <= counts.get(f, set()):
            fail(f"{name}: GCC's blocks of {f} count "
                 f"{sorted(counts.get(f, []))}, not the record's entry "
                 f"{want[f][1]} and loop body {body}")
    qemu = ["qemu-aarch64"] + (["-L", "/usr/aarch64-linux-gnu"]
                               if dynamic else [])
    p = run(qemu + [fdo])
    if p.stdout != want_out:
        fail(f"{name}: rebuilt program prints {p.stdout!r}, "
             f"not {want_out!r}")
    print(f"{name}: {GCC} -fauto-profile: block counts hot "
          f"{sorted(counts.get('hot', []))}, cold "
          f"{sorted(counts.get('cold', []))}; the rebuilt program prints "
          "the same")
    return prof, elf


def split_offsets_fail(a, tmp, prof, elf):
    """The split build's profile rewritten at file offsets (the other
    convention of digest 4a) gives create_gcov 0.19 nothing for hot."""
    segs = load_segments(elf)
    first = segs[0][1]
    text = [s for s in segs if "E" in s[2] and s[0] != 0][0]
    delta = (text[1] - text[0]) - first

    def move(m):
        v = int(m.group(0), 16)
        return f"{v - delta:x}" if v >= delta else m.group(0)

    lines = []
    for line in open(prof).read().splitlines():
        if ":" in line and not line.startswith("//"):
            k, c = line.rsplit(":", 1)
            line = re.sub(r"[0-9a-f]+", move, k) + ":" + c
        lines.append(line)
    off = os.path.join(tmp, "split-offsets.prof")
    open(off, "w").write("\n".join(lines) + "\n")
    gcov = off + ".afdo"
    run(["create_gcov", f"--binary={elf}", f"--profile={off}",
         "--profiler=text", f"--gcov={gcov}", "--gcov_version=2"])
    got = parse_dump_gcov(run(["dump_gcov", "--gcov_version=2", gcov]).stdout)
    if "hot" in got:
        fail("split: the profile at file offsets also gives hot "
             f"({got['hot'][:2]}): the address base is not settled")
    else:
        print(f"split: at file offsets (text moved by {delta:#x}) "
              "create_gcov 0.19 finds nothing for hot: it reads vaddr - "
              "the first PT_LOAD's p_vaddr")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    for t in ("qemu-aarch64", GCC, "create_gcov", "create_llvm_prof",
              "dump_gcov", LLVM + "/llvm-profdata", LLVM + "/llvm-dwarfdump"):
        if not shutil.which(t):
            skip(f"{t} not installed")
    with tempfile.TemporaryDirectory() as tmp:
        case(a, tmp, "static", "-O2 -gdwarf-4")
        case(a, tmp, "pie", "-O2 -gdwarf-4 -fPIE -pie", dynamic=True)
        r = case(a, tmp, "split",
                 "-O2 -gdwarf-4 -Wl,--section-start=.text=0x900000")
        if r:
            split_offsets_fail(a, tmp, *r)
    print(f"{len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
