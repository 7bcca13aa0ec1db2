#!/usr/bin/env python3
"""`etmkit profile --format bolt` and `--format profgen`: taken-branch
traces (include/etmkit/profile.h; digest perf-data.md 4c, 4d), checked
against the execution record and by the real readers.

1. Exactness: A64 workloads (tests/workloads) run under QEMU
   (tools/qemu-trace, static), encoded as ETE and ETMv4 perf.data (and
   A32 + T32 ones as ETMv3, an element per instruction)
   (`etmkit encode --format perf-data`, two processes on one CPU: two
   binaries with counts); per binary (--binary) every line of both outputs
   equals what the execution record gives, computed here from the record
   alone: a range runs from where a taken branch arrived (or the start of
   the trace, or after a gap or an exception) to the next taken branch's
   source, across not-taken branches; a taken branch from -> to with the
   address of the instruction that ran next as its target (none when a
   gap or exception comes between). BOLT: "B from to count 0" lines then
   "F start end count" lines at ELF addresses, each sorted; profgen: the
   range count, "start-end:count", the branch count, "from->to:count",
   less the first executable PT_LOAD's p_vaddr rounded down to 4 KiB.
2. Real readers: loops.c linked dynamically (perf2bolt 16 crashes while
   parsing a pre-aggregated profile for a static executable) with
   -Wl,--emit-relocs, recorded, profiled --format bolt --binary loops;
   `perf2bolt -pa` (LLVM 16's, called by that name: perf2bolt-16 alone
   runs as llvm-bolt) writes an fdata with profiled functions, main among
   them; `llvm-bolt -data ... -reorder-blocks=ext-tsp
   -reorder-functions=hfsort` rewrites it, and the result runs under QEMU
   with the original's output and exit status. llvm-profgen 16 reads the
   profgen file with the binary when it supports the target (then its
   hottest function must be the record's); LLVM 16's refuses AArch64
   ("unsupported target"): then the file is checked against 4d's grammar.
   --stacks (llvm-profgen's context-sensitive form): every context's
   lines equal the record's split by call context (record_cs_traces():
   the call sites of the record's taken calls not yet returned), and the
   file's grammar is checked (LLVM 16 reads it on x86-64 only; its
   address contexts are meant for pseudo-probe binaries:
   docs/perf-data.md "Profiles").
3. Usage errors: several binaries without --binary, an unknown format, an
   unwritable output, a cut perf.data, --stacks with another format.

Exit: 0 pass, 1 fail, 77 qemu-user, the cross compiler or the LLVM 16
tools missing (fails with CI=true)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perf_write_rt  # noqa: E402  (build, load_segments)
import stacks_rt  # noqa: E402  (branch_kind)
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)

LLVM = "/usr/lib/llvm-16/bin"


def run(cmd, ok=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if ok and p.returncode != 0:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}"
              f"{p.stderr[-2000:]}")
        sys.exit(1)
    return p


def exec_segments(elf):
    """[(lo, hi)] of the executable PT_LOADs, read from the program
    headers here (32- and 64-bit)."""
    import struct
    d = open(elf, "rb").read(8192)
    is64 = d[4] == 2
    phoff, = struct.unpack_from("<Q" if is64 else "<I", d,
                                0x20 if is64 else 0x1C)
    phent, phnum = struct.unpack_from("<HH", d, 0x36 if is64 else 0x2A)
    segs = []
    for i in range(phnum):
        h = phoff + i * phent
        if is64:
            typ, fl, _off, va, _pa, _fs, msz = struct.unpack_from(
                "<IIQQQQQ", d, h)
        else:
            typ, _off, va, _pa, _fs, msz, fl = struct.unpack_from(
                "<IIIIIII", d, h)
        if typ == 1 and fl & 1:
            segs.append((va, va + msz))
    return segs


def record_traces(path, segs):
    """Taken-branch traces of an execution record (docs/exec-record.md),
    at the addresses inside @segs: {(start, end): n}, {(from, to): n}."""
    ranges, branches = {}, {}
    start = last = pend = None

    def inside(a):
        return any(lo <= a < hi for lo, hi in segs)

    def count(d, k):
        d[k] = d.get(k, 0) + 1

    def end_range(taken):
        nonlocal start, pend
        if start is not None and inside(start):
            count(ranges, (start, last))
            pend = last if taken else None
        else:
            pend = None
        start = None

    for line in open(path):
        f = line.split("#")[0].split()
        if not f or f[0] == "etmkit-exec":
            continue
        if f[0] in ("gap", "exc"):
            end_range(False)
            continue
        if not f[0].startswith("0x"):
            continue              # ctx, ts
        addr = int(f[0], 16)
        if pend is not None:
            if inside(addr):
                count(branches, (pend, addr))
            pend = None
        if start is None:
            start = addr
        last = addr
        if any(w.startswith("->") for w in f[3:]):
            end_range(True)
    end_range(False)
    return ranges, branches


def record_cs_traces(path, segs):
    """record_traces() split by call context (--stacks): {(ctx, start,
    end): n}, {(ctx, from, to): n}, ctx the tuple of the call sites of
    the calls not yet returned, root first, from the record's taken
    calls and returns (stacks_rt.branch_kind: A64 BL, BLR...; RET...;
    A32/T32 too), emptied by a gap or an exception; a return past the
    known calls leaves it empty. A range and the taken branch that ends
    it count in the context that ran it (before that branch's call or
    return)."""
    ranges, branches = {}, {}
    start = last = pend = None
    ctx = pend_ctx = ()

    def inside(a):
        return any(lo <= a < hi for lo, hi in segs)

    def count(d, k):
        d[k] = d.get(k, 0) + 1

    def end_range(taken):
        nonlocal start, pend, pend_ctx
        if start is not None and inside(start):
            count(ranges, (ctx, start, last))
            pend = last if taken else None
            pend_ctx = ctx
        else:
            pend = None
        start = None

    for line in open(path):
        f = line.split("#")[0].split()
        if not f or f[0] == "etmkit-exec":
            continue
        if f[0] in ("gap", "exc"):
            end_range(False)
            ctx = ()
            continue
        if not f[0].startswith("0x"):
            continue              # ctx, ts
        addr = int(f[0], 16)
        if pend is not None:
            if inside(addr):
                count(branches, (pend_ctx, pend, addr))
            pend = None
        if start is None:
            start = addr
        last = addr
        if any(w.startswith("->") for w in f[3:]):
            end_range(True)
            kind = stacks_rt.branch_kind(f[1], f[2])
            if kind == "call":
                ctx = ctx + (addr,)
            elif kind == "ret" and ctx:
                ctx = ctx[:-1]
    end_range(False)
    return ranges, branches


def want_profgen_cs(r, b, base, segs):
    """The context-sensitive unsymbolized profile (digest 4d): per
    context, sorted by its text, '[0xSITE @ ...]' (root first, less
    @base, from the frame after the last call site outside the binary),
    then its ranges and branches as want_profgen(), indented by two."""
    def text(ctx):
        frames = []
        for a in ctx:
            if any(lo <= a < hi for lo, hi in segs) and a >= base:
                frames.append(f"0x{a - base:x}")
            else:
                frames = []
        return " @ ".join(frames)

    per = {}
    for k, d in ((0, r), (1, b)):
        for (ctx, x, y), n in d.items():
            if x < base or y < base:
                continue
            key = (text(ctx), x - base, y - base)
            sec = per.setdefault(key[0], ({}, {}))[k]
            sec[key[1:]] = sec.get(key[1:], 0) + n
    out = []
    for t in sorted(per, key=lambda s: s.encode()):
        out.append(f"[{t}]")
        for sec, sep in zip(per[t], ("-", "->")):
            out.append(f"  {len(sec)}")
            out += [f"  {x:x}{sep}{y:x}:{n}" for (x, y), n in
                    sorted(sec.items())]
    return "".join(x + "\n" for x in out)


def want_bolt(r, b):
    out = [f"B {f:x} {t:x} {n} 0" for (f, t), n in sorted(b.items())]
    out += [f"F {s:x} {e:x} {n}" for (s, e), n in sorted(r.items())]
    return "".join(x + "\n" for x in out)


def want_profgen(r, b, base):
    rr = sorted((s - base, e - base, n) for (s, e), n in r.items()
                if s >= base and e >= base)
    bb = sorted((f - base, t - base, n) for (f, t), n in b.items()
                if f >= base and t >= base)
    out = [str(len(rr))] + [f"{s:x}-{e:x}:{n}" for s, e, n in rr]
    out += [str(len(bb))] + [f"{f:x}->{t:x}:{n}" for f, t, n in bb]
    return "".join(x + "\n" for x in out)


def profile(a, data, elfs, fmt, *extra):
    cmd = [a.etmkit, "profile", data, "--format", fmt] + list(extra)
    for e in elfs:
        cmd += ["--elf", e]
    return run(cmd, ok=False)


def first_diff(got, want):
    g, w = got.splitlines(), want.splitlines()
    for i in range(max(len(g), len(w))):
        x = g[i] if i < len(g) else "(end)"
        y = w[i] if i < len(w) else "(end)"
        if x != y:
            return f"line {i + 1}: got '{x}', want '{y}' ({len(g)} vs " \
                   f"{len(w)} lines)"
    return "same"


def exactness(a, tmp, builds, protocol):
    """Two processes (two binaries) on one CPU, each profiled by
    --binary; the usage error for no --binary."""
    tag = protocol
    data = os.path.join(tmp, f"two-{tag}.data")
    cmd = [a.etmkit, "encode", "--protocol", protocol, "--format",
           "perf-data", "-o", data, "--cpus", "1", "-q"]
    for log, elf in builds:
        cmd += ["--from-qemu", log, "--elf", elf]
    run(cmd)
    elfs = [e for _, e in builds]
    for i, (log, elf) in enumerate(builds):
        rec = os.path.join(tmp, f"rec-{tag}-{i}.txt")
        run([a.etmkit, "encode", "--from-qemu", log, "--protocol", protocol,
             "--out", os.path.join(tmp, f"snap-{tag}-{i}"), "--record-out",
             rec, "-q"])
        segs = exec_segments(elf)
        r, b = record_traces(rec, segs)
        base = segs[0][0] & ~0xfff
        name = os.path.basename(elf)
        rx = "/" + re.escape(name) + "$"
        for fmt, want in (("bolt", want_bolt(r, b)),
                          ("profgen", want_profgen(r, b, base))):
            p = profile(a, data, elfs, fmt, "--binary", rx)
            if p.returncode != 0:
                fail(f"{tag} {name} {fmt}: exit {p.returncode}: {p.stderr}")
            elif p.stdout != want:
                fail(f"{tag} {name} {fmt}: differs from the record: "
                     f"{first_diff(p.stdout, want)}")
        # --stacks: the same split by call context
        cr, cb = record_cs_traces(rec, segs)
        want = want_profgen_cs(cr, cb, base, segs)
        p = profile(a, data, elfs, "profgen", "--binary", rx, "--stacks")
        if p.returncode != 0:
            fail(f"{tag} {name} profgen --stacks: exit {p.returncode}: "
                 f"{p.stderr}")
        elif p.stdout != want:
            fail(f"{tag} {name} profgen --stacks: differs from the record: "
                 f"{first_diff(p.stdout, want)}")
        nctx = len({c for c, _, _ in cr})
        deep = max((len(c) for c, _, _ in cr), default=0)
        print(f"{tag} {name} --stacks: {nctx} contexts (depth up to "
              f"{deep}), {len(cr)} ranges, {len(cb)} branches")
        if name.startswith("calls") and deep < 2:
            fail(f"{tag} {name}: no call depth to check")
        # not the AutoFDO counts: ranges go on across not-taken branches
        nt = sum(1 for line in open(rec) if re.search(r" bi? *$", line))
        print(f"{tag} {name}: {len(r)} ranges, {len(b)} branches, "
              f"{nt} not-taken branches inside ranges")
        if not r or not b or not nt:
            fail(f"{tag} {name}: too little to check")
    # several binaries with counts, no --binary: a usage error naming them
    for fmt in ("bolt", "profgen"):
        p = profile(a, data, elfs, fmt)
        names = [os.path.basename(e) for e in elfs]
        if p.returncode != 2 or not all(n in p.stderr for n in names) or \
                "--binary" not in p.stderr or p.stdout:
            fail(f"{tag} {fmt} without --binary: exit {p.returncode}, "
                 f"stderr {p.stderr!r}")
    # --binary that matches none: nothing to write
    p = profile(a, data, elfs, "bolt", "--binary", "no-such-binary")
    if p.returncode != 0 or p.stdout:
        fail(f"bolt, no binary: exit {p.returncode}, {p.stdout!r}")
    p = profile(a, data, elfs, "profgen", "--binary", "no-such-binary")
    if p.returncode != 0 or p.stdout != "0\n0\n":
        fail(f"profgen, no binary: exit {p.returncode}, {p.stdout!r}")
    return data, elfs


def usage_errors(a, tmp, data, elfs):
    p = profile(a, data, elfs, "lbr")
    if p.returncode != 2 or "autofdo, bolt, profgen" not in p.stderr:
        fail(f"--format lbr: exit {p.returncode}, {p.stderr!r}")
    p = profile(a, data, elfs, "bolt", "--binary", elfs[0].split("/")[-1],
                "-o", os.path.join(tmp, "no", "dir", "x"))
    if p.returncode != 3 or "cannot write" not in p.stderr:
        fail(f"unwritable -o: exit {p.returncode}, {p.stderr!r}")
    for fmt in ("bolt", "autofdo", "folded"):
        p = profile(a, data, elfs, fmt, "--stacks")
        if p.returncode != 2 or "--stacks is for the profgen format" \
                not in p.stderr or p.stdout:
            fail(f"--format {fmt} --stacks: exit {p.returncode}, "
                 f"{p.stderr!r}")
    bad = os.path.join(tmp, "cut.data")
    with open(data, "rb") as f, open(bad, "wb") as g:
        g.write(f.read(100))     # the header, cut
    p = profile(a, bad, elfs, "profgen")
    if p.returncode != 3 or "cut.data" not in p.stderr or p.stdout:
        fail(f"cut perf.data: exit {p.returncode}, {p.stderr!r}")
    print(f"usage errors: {p.stderr.strip()}")


def grammar_4d(text):
    """The unsymbolized profile's grammar (digest 4d): a count, that many
    ranges (start <= end), a count, that many branches, nothing else."""
    lines = text.splitlines()
    i = 0
    for pat in (r"([0-9a-f]+)-([0-9a-f]+):(\d+)",
                r"([0-9a-f]+)->([0-9a-f]+):(\d+)"):
        if i >= len(lines) or not lines[i].isdigit():
            return f"line {i + 1}: no count"
        n = int(lines[i])
        for line in lines[i + 1:i + 1 + n]:
            m = re.fullmatch(pat, line)
            if not m or int(m.group(3)) == 0 or (
                    "->" not in pat and
                    int(m.group(1), 16) > int(m.group(2), 16)):
                return f"bad line '{line}'"
        i += 1 + n
    return None if i == len(lines) else f"{len(lines) - i} lines after"


def grammar_4d_cs(text):
    """The context-sensitive form (digest 4d): '[CONTEXT]' lines, CONTEXT
    empty or '0x' hex frames joined by ' @ ', distinct and sorted
    bytewise, each followed by grammar_4d()'s sections indented by two
    spaces."""
    lines = text.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith("[")]
    if not heads or heads[0] != 0:
        return "no [context] first"
    ctxs = []
    for k, i in enumerate(heads):
        m = re.fullmatch(r"\[((?:0x[0-9a-f]+(?: @ 0x[0-9a-f]+)*)?)\]",
                         lines[i])
        if not m:
            return f"bad context line '{lines[i]}'"
        ctxs.append(m.group(1).encode())
        body = lines[i + 1:heads[k + 1] if k + 1 < len(heads) else None]
        if any(not x.startswith("  ") or x[2:3] == " " for x in body):
            return f"[{m.group(1)}]: a line not indented by two"
        bad = grammar_4d("".join(x[2:] + "\n" for x in body))
        if bad:
            return f"[{m.group(1)}]: {bad}"
    if ctxs != sorted(set(ctxs)):
        return "contexts not distinct and sorted"
    return None


def hottest_in_record(rec, elf):
    """The function (by symbol) that ran most instructions."""
    nm = run(["aarch64-linux-gnu-nm", "-n", elf]).stdout
    syms = sorted((int(x.split()[0], 16), x.split()[2]) for x in
                  nm.splitlines() if len(x.split()) == 3 and
                  x.split()[1] in "tT")
    import bisect
    addrs = [s for s, _ in syms]
    counts = {}
    for line in open(rec):
        if line.startswith("0x"):
            a = int(line.split()[0], 16)
            k = bisect.bisect_right(addrs, a) - 1
            if k >= 0:
                counts[syms[k][1]] = counts.get(syms[k][1], 0) + 1
    return max(counts, key=counts.get)


def real_readers(a, tmp):
    perf2bolt = os.path.join(LLVM, "perf2bolt")
    bolt = os.path.join(LLVM, "llvm-bolt")
    profgen = os.path.join(LLVM, "llvm-profgen")
    for t in (perf2bolt, bolt, profgen):
        if not os.access(t, os.X_OK):
            skip(f"{t} missing (bolt-16, llvm-16)")
    log, elf = perf_write_rt.build(
        a.qemu_trace, a.workloads, tmp, "loops", "a64", 0, "-bolt",
        dynamic=True, cflags="-O2 -no-pie -Wl,--emit-relocs")
    data = os.path.join(tmp, "bolt.data")
    run([a.etmkit, "encode", "--protocol", "ete", "--format", "perf-data",
         "-o", data, "--cpus", "1", "-q", "--from-qemu", log, "--elf", elf])
    prof = os.path.join(tmp, "loops.bolt.txt")
    run([a.etmkit, "profile", data, "--elf", elf, "--format", "bolt",
         "--binary", "loops", "-o", prof])
    fdata = os.path.join(tmp, "loops.fdata")
    p = run([perf2bolt, "-pa", "-p", prof, "-o", fdata, elf], ok=False)
    m = re.search(r"wrote (\d+) objects", p.stdout + p.stderr)
    if p.returncode != 0 or not m or int(m.group(1)) == 0:
        fail(f"perf2bolt -pa: exit {p.returncode}\n{p.stdout[-1500:]}"
             f"{p.stderr[-1500:]}")
        return
    funcs = {line.split()[1] for line in open(fdata) if line[0] in "012"}
    print(f"perf2bolt -pa: {m.group(1)} objects, functions "
          f"{sorted(funcs)[:8]}")
    if "main" not in funcs:
        fail(f"perf2bolt: main not profiled: {sorted(funcs)}")
    out = elf + ".bolt"
    p = run([bolt, elf, "-o", out, "-data", fdata, "-reorder-blocks=ext-tsp",
             "-reorder-functions=hfsort"], ok=False)
    if p.returncode != 0 or not os.path.exists(out):
        fail(f"llvm-bolt: exit {p.returncode}\n{p.stderr[-1500:]}")
        return
    info = re.search(r"BOLT-INFO: (\d+) out of (\d+) functions in the binary"
                     r" \([0-9.]+%\) have non-empty execution profile",
                     p.stdout + p.stderr)
    if not info or int(info.group(1)) == 0:
        fail(f"llvm-bolt: no profiled functions\n{p.stdout[-1500:]}")
    else:
        print(f"llvm-bolt: {info.group(1)} of {info.group(2)} functions "
              f"profiled")
    runs = []
    for b in (elf, out):
        q = subprocess.run(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu",
                            b], capture_output=True, text=True)
        runs.append((q.returncode, q.stdout))
    if runs[0] != runs[1]:
        fail(f"optimised binary: {runs[1]}, original {runs[0]}")
    else:
        print(f"llvm-bolt output runs as the original: exit {runs[0][0]}, "
              f"{runs[0][1]!r}")
    # llvm-profgen
    pg = os.path.join(tmp, "loops.profgen.txt")
    run([a.etmkit, "profile", data, "--elf", elf, "--format", "profgen",
         "--binary", "loops", "-o", pg])
    text = open(pg).read()
    bad = grammar_4d(text)
    if bad:
        fail(f"profgen file against digest 4d: {bad}")
    run([a.etmkit, "profile", data, "--elf", elf, "--format", "profgen",
         "--binary", "loops", "--stacks", "-o", pg + ".cs"])
    cs = open(pg + ".cs").read()
    bad = grammar_4d_cs(cs)
    if bad:
        fail(f"profgen --stacks file against digest 4d: {bad}")
    sp = os.path.join(tmp, "loops.afdo")
    p = run([profgen, "--unsymbolized-profile=" + pg, "--binary=" + elf,
             "--format=text", "--output=" + sp], ok=False)
    if "unsupported target" in p.stderr:
        print("llvm-profgen 16 refuses AArch64 binaries "
              f"({p.stderr.strip()}): the files checked against digest 4d's "
              f"grammar only ({len(text.splitlines())} lines; --stacks "
              f"{len(cs.splitlines())} lines, "
              f"{cs.count(chr(10) + '[') + 1} contexts)")
        return
    if p.returncode != 0:
        fail(f"llvm-profgen: exit {p.returncode}: {p.stderr[-1500:]}")
        return
    heads = [line.split(":") for line in open(sp)
             if line and not line[0].isspace() and line.count(":") >= 2]
    rec = os.path.join(tmp, "rec-bolt.txt")
    run([a.etmkit, "encode", "--from-qemu", log, "--protocol", "ete",
         "--out", os.path.join(tmp, "snap-bolt"), "--record-out", rec, "-q"])
    hot = max(heads, key=lambda h: int(h[1]))[0] if heads else None
    if hot != hottest_in_record(rec, elf):
        fail(f"llvm-profgen: hottest {hot}, record "
             f"{hottest_in_record(rec, elf)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    for t in ("qemu-aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm"):
        if not shutil.which(t):
            skip(f"{t} missing")
    with tempfile.TemporaryDirectory(prefix="etmkit-traces-") as tmp:
        builds = [perf_write_rt.build(a.qemu_trace, a.workloads, tmp, w,
                                      "a64", addr)
                  for w, addr in (("loops", 0), ("calls", 0x600000))]
        for protocol in ("ete", "etmv4"):
            data, elfs = exactness(a, tmp, builds, protocol)
        if shutil.which("qemu-arm") and shutil.which(
                "arm-linux-gnueabihf-gcc"):
            # ETMv3: an element per instruction, A32 and T32 (interwork.c)
            b32 = [perf_write_rt.build(a.qemu_trace, a.workloads, tmp, w,
                                       arch, addr)
                   for w, arch, addr in (("interwork", "a32", 0),
                                         ("loops", "t32", 0x600000))]
            exactness(a, tmp, b32, "etmv3")
        else:
            skip("qemu-arm or arm-linux-gnueabihf-gcc missing")
        usage_errors(a, tmp, data, elfs)
        real_readers(a, tmp)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("profile traces: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
