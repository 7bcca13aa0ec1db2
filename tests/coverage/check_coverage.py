#!/usr/bin/env python3
"""`etmkit coverage` (cli/cmd_coverage.c, src/profile/coverage.c) and
`etmkit decode --lines` on QEMU runs, against the execution record and
binutils, each computed here independently of etmkit.

Workloads (tests/workloads, and tests/lines/inlined.c for inlined code)
are cross-compiled for AArch64 with -g -O1 (DWARF 5; one with DWARF 4),
run under QEMU (tools/qemu-trace), and encoded from the log as ETE and
ETMv4 trace (`etmkit encode --record-out` writes the record it encoded).
condexec.c is also built for A32 (-marm), run with conditions evaluated
(qemu-trace --mode state) and encoded as ETMv3, which traces every
instruction's condition: its BRDA entries are every conditional A32
instruction (condition field not AL), passed and failed; and as ETMv2,
which does too (IE / IN per instruction): the same checks, and the
tracefile byte for byte the ETMv3 one. Then for each:

1. the lcov tracefile equals what the record gives:
   - DA: per (file, line), the largest number of times one instruction of
     the line ran (every record line of its address, condition-failed
     ones too), over the address ranges `objdump --dwarf=decodedline`
     maps to the line (DWARF's row rule, tests/lines/check_lines.py);
   - FN/FNDA: per function with a DW_AT_low_pc in `objdump --dwarf=info`,
     its decl_line and the times its low_pc ran;
   - BRDA: per line, the conditional branches `objdump -d` finds in its
     ranges (b.cond, bc.cond, cbz, cbnz, tbz, tbnz) in address order,
     taken = record lines with a target (->), not taken = without, '-'
     when the instruction never ran;
   - FNF/FNH, BRF/BRH, LF/LH agree with the entries;
   and the same run written as a perf.data recording (etmkit encode
   --format perf-data) gives the same tracefile;
2. genhtml (lcov) renders it with --branch-coverage into a temporary
   folder, exit 0 and no WARNING on stderr;
3. `decode --lines --json`: every instruction's file, line and inline
   chain equal `addr2line -i -f` for its address; `decode --lines`, text
   and --json, per instruction and --ranges, is byte for byte the same at
   --jobs 2, 3 and 8 as at --jobs 1 (the listing formatted on threads,
   cli/format_pool.c);
4. `coverage --format text`: per function symbol, the instructions that
   ran (record addresses in its range) and the instructions in it
   (objdump -d lines in its range);
5. bad input: an unknown --format (exit 2), a missing snapshot (exit 3),
   a binary without DWARF (a note naming it, no record for it).

Usage: check_coverage.py --etmkit ETMKIT --qemu-trace TOOL --workloads DIR
Exit 0 pass, 1 fail, 77 qemu-user, the cross tools or lcov missing (fails
with CI=true)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lines"))
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import CI, FAILS, fail, skip  # noqa: E402  (tests/verdict.py)
CROSS = "aarch64-linux-gnu-"


def run(cmd, inp=None, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True, input=inp)
    if p.returncode not in ok:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}"
              f"{p.stderr[-2000:]}")
        sys.exit(1)
    return p


def decoded_rows(elf):
    """[(lo, hi, basename, line)] from objdump's decoded line table: a row
    holds until the next row of its sequence, "-" ends a sequence."""
    rows, seq = [], []

    def close(end):
        for i, (a, f, ln) in enumerate(seq):
            nxt = seq[i + 1][0] if i + 1 < len(seq) else end
            if nxt > a:
                rows.append((a, nxt, f, ln))
        seq.clear()

    for line in run([CROSS + "objdump", "--dwarf=decodedline", elf]).stdout.splitlines():
        f = line.split()
        if len(f) < 3 or not f[2].startswith("0x"):
            continue
        addr = int(f[2], 16)
        if f[1] == "-":
            close(addr)
        elif f[1].isdigit():
            seq.append((addr, os.path.basename(f[0]), int(f[1])))
    return sorted(rows)


def disassembly(elf):
    """{addr: mnemonic} of every instruction objdump -d finds."""
    res = {}
    for line in run([CROSS + "objdump", "-d", "--no-show-raw-insn",
                     elf]).stdout.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
        if m:
            res[int(m.group(1), 16)] = m.group(2)
    return res


def symbols(elf, dynamic=False):
    """[(addr, size, name)] of the FUNC symbols with a size (nm; with
    @dynamic those of .dynsym, for a stripped binary)."""
    res = []
    for line in run([CROSS + "nm", "-S", "--defined-only"] +
                    (["-D"] if dynamic else []) + [elf]).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            # .dynsym names carry their version (memcpy@@GLIBC_2.17)
            res.append((int(f[0], 16), int(f[1], 16),
                        f[3].split("@")[0] if dynamic else f[3]))
    return res


def info_funcs(elf):
    """{name: (decl_line, low_pc)} of the subprograms with a low_pc."""
    res, cur = {}, None
    for line in run([CROSS + "objdump", "--dwarf=info", elf]).stdout.splitlines():
        m = re.search(r"Abbrev Number: \d+ \((DW_TAG_\w+)\)", line)
        if m:
            cur = {} if m.group(1) == "DW_TAG_subprogram" else None
            continue
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
        elif at == "DW_AT_low_pc" and "name" in cur:
            res[cur["name"]] = (cur.get("line", 0), int(v, 16))
    return res


def read_record(path):
    """Executions per address, and (passed, failed) per address: a branch
    passed when taken (->), another instruction when its condition did
    not fail (no x)."""
    count, outcome = {}, {}
    for line in open(path):
        f = line.split("#")[0].split()
        if not f or not f[0].startswith("0x"):
            continue
        a = int(f[0], 16)
        count[a] = count.get(a, 0) + 1
        t = outcome.setdefault(a, [0, 0])
        if "b" in f[3:] or "bi" in f[3:]:
            passed = any(w.startswith("->") for w in f[3:])  # taken
        else:
            passed = "x" not in f[3:]       # its condition passed
        t[0 if passed else 1] += 1
    return count, outcome


COND = re.compile(r"^(b\.\w+|bc\.\w+|cbz|cbnz|tbz|tbnz)$")


def a32_conditional(elf):
    """{addr: True} of the A32 words objdump -d shows whose condition
    field (bits 31:28) is neither AL (0xE) nor the unconditional 0xF."""
    res = {}
    for line in run([CROSS + "objdump", "-d", elf]).stdout.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+([0-9a-f]{8})\s", line)
        if m:
            res[int(m.group(1), 16)] = int(m.group(2)[0], 16) < 0xE
    return res


def expected_lcov(elf, count, outcome, a32=False):
    """The tracefile's content by the definitions (docstring 1), keyed by
    source base name. @a32: ETMv3 trace of A32 code, every conditional
    instruction a branch entry."""
    dis = disassembly(elf)
    cond_a32 = a32_conditional(elf) if a32 else {}
    da, br = {}, {}
    for lo, hi, f, ln in decoded_rows(elf):
        if not ln:
            continue
        k = (f, ln)
        insns = [a for a in range(lo, hi, 4) if a in dis]
        da[k] = max([da.get(k, 0)] + [count.get(a, 0) for a in insns])
        for a in insns:
            if cond_a32.get(a) if a32 else COND.match(dis[a]):
                br.setdefault(k, set()).add(a)
    brda = {}
    for (f, ln), addrs in br.items():
        for block, a in enumerate(sorted(addrs)):
            if count.get(a, 0):
                t, n = outcome[a]
                brda[(f, ln, block)] = (str(t), str(n))
            else:
                brda[(f, ln, block)] = ("-", "-")
    fn = {name: (line, count.get(low, 0))
          for name, (line, low) in info_funcs(elf).items()}
    return da, fn, brda


def parse_lcov(text):
    da, fn, fnda, brda, totals = {}, {}, {}, {}, []
    sf = None
    rec = {}
    for line in text.splitlines():
        key, _, val = line.partition(":")
        if key == "SF":
            sf = os.path.basename(val)
            rec = {"DA": [], "FN": [], "BRDA": []}
        elif key == "DA":
            ln, c = val.split(",")[:2]
            da[(sf, int(ln))] = int(c)
            rec["DA"].append(int(c))
        elif key == "FN":
            ln, name = val.split(",", 1)
            fn[name] = int(ln)
        elif key == "FNDA":
            c, name = val.split(",", 1)
            fnda[name] = int(c)
            rec["FN"].append(int(c))
        elif key == "BRDA":
            ln, block, b, t = val.split(",")
            v = brda.setdefault((sf, int(ln), int(block)), ["?", "?"])
            v[int(b)] = t
            rec["BRDA"].append(t)
        elif key in ("LF", "LH", "FNF", "FNH", "BRF", "BRH"):
            rec[key] = int(val)
        elif key == "end_of_record":
            totals.append((sf, rec))
    fns = {n: (fn[n], fnda.get(n)) for n in fn}
    return da, fns, {k: tuple(v) for k, v in brda.items()}, totals


def check_totals(tag, totals):
    for sf, r in totals:
        want = {"LF": len(r["DA"]), "LH": sum(c > 0 for c in r["DA"]),
                "FNF": len(r["FN"]), "FNH": sum(c > 0 for c in r["FN"]),
                "BRF": len(r["BRDA"]),
                "BRH": sum(t not in ("-", "0") for t in r["BRDA"])}
        for k, v in want.items():
            if r.get(k) != v:
                fail(f"{tag}: {sf}: {k}:{r.get(k)}, its entries give {v}")


def compare(tag, what, got, want):
    if got == want:
        return
    keys = sorted(set(got) | set(want), key=str)
    diff = [(k, got.get(k), want.get(k)) for k in keys
            if got.get(k) != want.get(k)]
    fail(f"{tag}: {what}: {len(diff)} differ (ours, record's): {diff[:4]}")


def check_lines_jobs(a, tag, snap, elf):
    """decode --lines at --jobs 2, 3, 8 against --jobs 1."""
    for form in ([], ["--json"], ["--ranges"], ["--ranges", "--json"]):
        cmd = [a.etmkit, "decode", "--snapshot", snap, "--elf", elf,
               "--lines"] + form
        ref = run(cmd + ["--jobs", "1"])
        for j in ("2", "3", "8"):
            p = run(cmd + ["--jobs", j])
            if (p.stdout, p.stderr) != (ref.stdout, ref.stderr):
                fail(f"{tag}: decode --lines {' '.join(form)}: --jobs {j} "
                     f"differs from --jobs 1")


def check_lines_json(a, tag, snap, elf):
    """decode --lines --json against addr2line -i -f."""
    check_lines_jobs(a, tag, snap, elf)
    p = run([a.etmkit, "decode", "--snapshot", snap, "--elf", elf, "--lines",
             "--json"])
    mine = {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if o.get("kind") != "insn" or "file" not in o:
            continue
        a_ = int(o["addr"], 16)
        chain = [(o["file"], o["line"])] + [
            (i.get("call_file", "??"), i["call_line"])
            for i in o.get("inline", [])]
        names = [i["func"] for i in o.get("inline", [])]
        mine[a_] = (chain, names)
    if len(mine) < 20:
        fail(f"{tag}: only {len(mine)} listed instructions with lines")
        return
    addrs = sorted(mine)
    text = run([CROSS + "addr2line", "-e", elf, "-i", "-f", "-a"],
               "".join(f"{x:#x}\n" for x in addrs)).stdout.splitlines()
    ref, cur, i = {}, None, 0
    while i < len(text):
        if text[i].startswith("0x"):
            cur = ref.setdefault(int(text[i], 16), [])
            i += 1
            continue
        loc = re.sub(r" \(discriminator \d+\)$", "", text[i + 1])
        f, ln = loc.rsplit(":", 1)
        cur.append((text[i], f, int(ln)))
        i += 2
    bad = []
    for x in addrs:
        frames = ref[x]
        want = ([(f, ln) for _n, f, ln in frames], [n for n, _f, _l in frames[:-1]])
        if mine[x] != want:
            bad.append((hex(x), mine[x], want))
    if bad:
        fail(f"{tag}: decode --lines: {len(bad)} of {len(addrs)} instructions "
             f"differ from addr2line: {bad[:2]}")
    return len(addrs), sum(1 for x in addrs if len(ref[x]) > 1)


def parse_text(text):
    """`coverage --format text`: {binary: {function: (ran, insns,
    entry count)}}, the binary as its section heading names it."""
    got, cur = {}, None
    for line in text.splitlines():
        f = line.split()
        if line and not line[0].isspace():
            cur = got.setdefault(line, {})
        elif len(f) == 5 and f[0].isdigit() and f[2].endswith("%"):
            cur[f[4]] = (int(f[0]), int(f[1]), int(f[3]))
    return got


def expected_text(elf, count, dynamic=False):
    """{function: (ran, insns, entry count)} per FUNC symbol of @elf with
    instructions: the instructions objdump -d finds in its range, those
    of them with a @count, and @count at its address (@count: times run
    per ELF address)."""
    import bisect
    dis = sorted(disassembly(elf))
    want = {}
    for addr, size, name in symbols(elf, dynamic):
        insns = dis[bisect.bisect_left(dis, addr):
                    bisect.bisect_left(dis, addr + size)]
        if insns:
            want[name] = (sum(1 for x in insns if count.get(x)), len(insns),
                          count.get(addr, 0))
    return want


def check_text(a, tag, snap, elf, count):
    p = run([a.etmkit, "coverage", "--snapshot", snap, "--elf", elf,
             "--format", "text"])
    got = {}
    for funcs in parse_text(p.stdout).values():
        got.update(funcs)
    want = expected_text(elf, count)
    # aliases: etmkit lists one symbol per address
    want = {n: v for n, v in want.items() if n in got}
    if len(want) < 20:
        fail(f"{tag}: text: only {len(want)} functions to compare")
    compare(tag, "text summary (ran, insns, entry)", got,
            {n: v for n, v in want.items()})


def case(a, tmp, name, src, dwarf, protocols, cflags="-O1", arch="a64"):
    global CROSS
    CROSS = "arm-linux-gnueabihf-" if arch == "a32" else "aarch64-linux-gnu-"
    out = os.path.join(tmp, name)
    log = os.path.join(out, "qemu.log")
    inc = f" -I{os.path.dirname(src)}"
    # state mode: conditions evaluated (x in the record), for ETMv3
    run([a.qemu_trace, "--no-install", "--no-encode", "--arch", arch,
         "--mode", "state" if arch == "a32" else "block",
         "--cflags", f"-g -gdwarf-{dwarf} {cflags}{inc}", "--out", out,
         "--log", log, src])
    elf = os.path.join(out, os.path.basename(src)[:-2] + "." + arch)
    for proto in protocols:
        tag = f"{name}/{proto}"
        snap = os.path.join(out, "snap-" + proto)
        rec = os.path.join(out, "rec-" + proto + ".txt")
        run([a.etmkit, "encode", "--from-qemu", log, "--protocol", proto,
             "--out", snap, "--record-out", rec, "-q"])
        count, outcome = read_record(rec)
        info = os.path.join(out, proto + ".info")
        run([a.etmkit, "coverage", "--snapshot", snap, "--elf", elf,
             "-o", info])
        text = open(info).read()
        got_da, got_fn, got_br, totals = parse_lcov(text)
        want_da, want_fn, want_br = expected_lcov(elf, count, outcome,
                                                  arch == "a32")
        compare(tag, "DA", got_da, want_da)
        compare(tag, "FN/FNDA", got_fn, want_fn)
        compare(tag, "BRDA", got_br, want_br)
        check_totals(tag, totals)
        html = os.path.join(tmp, "html-" + name + proto)
        p = subprocess.run(["genhtml", "--branch-coverage", "--quiet",
                            "--output-directory", html, info],
                           capture_output=True, text=True)
        if p.returncode or "WARNING" in p.stderr or "WARNING" in p.stdout:
            fail(f"{tag}: genhtml: exit {p.returncode} {p.stderr.strip()[:300]}")
        if not os.path.isfile(os.path.join(html, "index.html")):
            fail(f"{tag}: genhtml wrote no index.html")
        if proto == "ete" and arch == "a64":
            # the same run as a perf.data recording (INPUT as profile
            # takes it): the binary placed by its MMAP2 record
            data = os.path.join(out, "perf.data")
            run([a.etmkit, "encode", "--from-qemu", log, "--elf", elf,
                 "--protocol", "ete", "--format", "perf-data", "-o", data,
                 "-q"])
            p = run([a.etmkit, "coverage", data, "--elf", elf])
            if p.stdout != text:
                fail(f"{tag}: perf.data: the tracefile differs from the "
                     f"snapshot's")
        nl = check_lines_json(a, tag, snap, elf)
        if proto == protocols[0] and arch == "a64":
            # (A32: literal pools inside functions; objdump lists them as
            # words, the summary decodes what is there)
            check_text(a, tag, snap, elf, count)
        hit_br = sum(1 for v in got_br.values() if v[0] not in ("-", "0")
                     and v[1] not in ("-", "0"))
        print(f"{tag}: {len(got_da)} lines ({sum(c > 0 for c in got_da.values())}"
              f" ran), {len(got_fn)} functions, {len(got_br)} branch "
              f"instructions ({hit_br} both ways); decode --lines: "
              f"{nl[0] if nl else 0} instructions ({nl[1] if nl else 0} inlined)")
    return elf, os.path.join(out, "snap-" + protocols[0])


def same_info(tmp, name, p1, p2):
    """The same run encoded as @p1 and as @p2 (ETMv3 and ETMv2 both trace
    every instruction's condition): the same tracefile, byte for byte."""
    texts = [open(os.path.join(tmp, name, p + ".info")).read()
             for p in (p1, p2)]
    if texts[0] != texts[1]:
        fail(f"{name}: the {p2} tracefile differs from the {p1} one")


def CROSS_A64():
    global CROSS
    CROSS = "aarch64-linux-gnu-"


def bad_input(a, tmp, elf, snap):
    p = subprocess.run([a.etmkit, "coverage", "--snapshot", snap, "--elf", elf,
                        "--format", "gcov"], capture_output=True, text=True)
    if p.returncode != 2 or "unknown coverage format 'gcov'" not in p.stderr:
        fail(f"--format gcov: exit {p.returncode}, {p.stderr.strip()}")
    p = subprocess.run([a.etmkit, "coverage", "--snapshot",
                        os.path.join(tmp, "nothing"), "--elf", elf],
                       capture_output=True, text=True)
    if p.returncode != 3 or "nothing" not in p.stderr:
        fail(f"missing snapshot: exit {p.returncode}, {p.stderr.strip()}")
    stripped = os.path.join(tmp, "stripped.a64")
    run([CROSS + "strip", "-g", "-o", stripped, elf])
    p = subprocess.run([a.etmkit, "coverage", "--snapshot", snap, "--elf",
                        stripped], capture_output=True, text=True)
    if p.returncode != 0 or "no line information" not in p.stderr or \
            stripped not in p.stderr or "SF:" in p.stdout:
        fail(f"no DWARF: exit {p.returncode}, {p.stderr.strip()}, "
             f"{p.stdout[:100]}")
    p = subprocess.run([a.etmkit, "coverage", "--snapshot", snap, "--elf",
                        elf, "-o", os.path.join(tmp, "no", "dir", "x.info")],
                       capture_output=True, text=True)
    if p.returncode != 3 or "cannot write" not in p.stderr:
        fail(f"unwritable -o: exit {p.returncode}, {p.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    for t in ("gcc", "objdump", "addr2line", "nm", "strip"):
        if not shutil.which(CROSS + t):
            skip(f"{CROSS}{t} missing")
    if not shutil.which("qemu-aarch64"):
        skip("qemu-aarch64 missing (qemu-user)")
    if not shutil.which("genhtml"):
        skip("genhtml missing (lcov)")
    with tempfile.TemporaryDirectory() as tmp:
        w = a.workloads
        elf, snap = case(a, tmp, "calls", os.path.join(w, "calls.c"), 5,
                         ("ete", "etmv4"))
        case(a, tmp, "loops", os.path.join(w, "loops.c"), 4, ("ete",))
        case(a, tmp, "condexec", os.path.join(w, "condexec.c"), 5, ("etmv4",))
        case(a, tmp, "inlined", os.path.join(HERE, "..", "lines", "inlined.c"),
             5, ("ete",), cflags="-O2")
        if shutil.which("qemu-arm") and shutil.which("arm-linux-gnueabihf-gcc"):
            case(a, tmp, "condexec-a32", os.path.join(w, "condexec.c"), 5,
                 ("etmv3", "etmv2"), cflags="-O1 -marm", arch="a32")
            same_info(tmp, "condexec-a32", "etmv3", "etmv2")
        elif CI:
            fail("qemu-arm or arm-linux-gnueabihf-gcc missing")
        CROSS_A64()
        bad_input(a, tmp, elf, snap)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
