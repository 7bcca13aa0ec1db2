#!/usr/bin/env python3
"""A real Debian arm64 program, dynamically linked, through every output
(issue 16): every count equals what the execution record gives.

Debian's gzip (arm64 package, fetched by tools/qemu-trace --deb, which
adds the arm64 dpkg architecture and `apt-get download`s it) compresses
a small generated text (`gzip -c -6`) under QEMU user mode: the program,
ld.so and libc (the cross sysroot's, /usr/aarch64-linux-gnu/lib) are
three binaries, each loaded at its own bias. gzip -dc of its output gives
the input back. The log becomes

- the execution record (`etmkit encode --record-out`);
- a perf.data recording (`etmkit encode --format perf-data`, ETE, one
  process, with an --elf per binary at its bias: their MMAP2 records).

Each binary's bias is found here without etmkit: the record's opcodes
voted against the ELF's executable bytes (an opcode unique in the ELF
says where it was loaded); every recorded instruction must then lie in
one binary, with that binary's bytes.

Then, per binary (--binary), at ELF addresses, each output must equal what
the record alone gives, by the existing tests' computations:

1. `etmkit decode --json`: the record's instructions, in order
   (tests/encode/round_trip.py's compare);
2. `profile --format autofdo`: ranges and branches by digest 4a
   (tests/perf/cli_profile.py record_profile()), less the first PT_LOAD's
   p_vaddr (perf_write_rt.py's check, here with biases);
3. `profile --format bolt` and `--format profgen`: taken-branch traces
   (tests/perf/profile_traces.py record_traces(), want_bolt(),
   want_profgen());
4. `coverage --format text`: per function symbol (.dynsym: Debian's
   binaries are stripped), the instructions that ran, the instructions in
   it (objdump -d) and its entry count (tests/coverage/check_coverage.py
   expected_text()); gzip's .dynsym defines no function: no entry;
5. `profile --format folded`: every stack and count
   (tests/perf/stacks_rt.py record_stacks(), check_folded()), frames named
   as docs/stacks.md says across the three binaries: a function symbol
   (readelf), else BINARY+0xVADDR (gzip has none), else 0xADDR.

Each AUX record of the perf.data is a fresh trace session (digest 3.10:
decoders reset there), which the record does not show: where the decode
restarts (its trace_on elements) outside the record's gaps, one per AUX
record after the first (checked), the record gets a gap for 3 and 5
(AutoFDO's ranges end at every branch and are the same either way: the
encoder cuts after a branch). Without it BOLT's and profgen's ranges that
run across a not-taken branch at a cut, the taken branch just before a
cut, and the stacks after it differ.

lcov is not checked: the binaries have no DWARF. gzip-dbgsym is not in
the main archive (it is in debian-debug); libc6-dbg:arm64 is, but it holds
separate debug files (not read: lines.h) for Debian's libc6:arm64 build,
not for the cross sysroot's libc (libc6-arm64-cross) that runs here. So
there is no line table to check a tracefile against.

Exit: 0 pass, 1 fail, 77 qemu-user, the cross tools or the package
missing (fails with CI=true)."""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "encode"))
sys.path.insert(0, os.path.join(HERE, "..", "coverage"))
sys.path.insert(0, HERE)
import round_trip      # noqa: E402  (read_record, compare)
import cli_profile     # noqa: E402  (record_profile: digest 4a)
import perf_write_rt   # noqa: E402  (profile_blocks, load_segments)
import profile_traces  # noqa: E402  (record_traces, want_bolt, ...)
import check_coverage  # noqa: E402  (read_record, expected_text)
import stacks_rt       # noqa: E402  (record_stacks, check_folded, Names)
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)

SYSROOT = "/usr/aarch64-linux-gnu"
T0 = time.time()


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, **kw)
    if p.returncode != 0:
        out = p.stdout if isinstance(p.stdout, str) else \
            p.stdout.decode(errors="replace")
        err = p.stderr if isinstance(p.stderr, str) else \
            p.stderr.decode(errors="replace")
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{out[-2000:]}"
              f"{err[-2000:]}")
        sys.exit(1)
    return p


def note(msg):
    print(f"[{time.time() - T0:5.1f}s] {msg}")


# ---- where each binary was loaded, from the record alone --------------------

def exec_bytes(elf):
    """[(vaddr, bytes)] of the executable PT_LOADs (file contents)."""
    d = open(elf, "rb").read()
    phoff, = struct.unpack_from("<Q", d, 0x20)
    phent, phnum = struct.unpack_from("<HH", d, 0x36)
    out = []
    for i in range(phnum):
        typ, fl, off, va, _pa, fsz, _msz = struct.unpack_from(
            "<IIQQQQQ", d, phoff + i * phent)
        if typ == 1 and fl & 1:
            out.append((va, d[off:off + fsz]))
    return out


def record_opcodes(rec):
    """{address: opcode} of the record's instructions (A64 words)."""
    ops = {}
    for line in open(rec):
        if line.startswith("0x"):
            t = line.split(None, 3)
            ops[int(t[0], 16)] = int(t[2], 16)
    return ops


def find_bias(elf, ops):
    """The page-aligned bias at which the most recorded opcodes that occur
    once in @elf's executable bytes sit at their place; None when fewer
    than 100 vote for it."""
    where, dup = {}, set()
    for va, b in exec_bytes(elf):
        for k in range(0, len(b) - 3, 4):
            w = int.from_bytes(b[k:k + 4], "little")
            if w in where:
                dup.add(w)
            where[w] = va + k
    votes = {}
    for a, w in ops.items():
        if w in where and w not in dup:
            bias = a - where[w]
            votes[bias] = votes.get(bias, 0) + 1
    best = max(votes, key=votes.get) if votes else None
    if best is None or votes[best] < 100 or best % 4096:
        return None
    return best


def check_placement(bins, ops):
    """Every recorded instruction in exactly one binary, with its bytes."""
    seen = {name: 0 for name in bins}
    outside, wrong = [], []
    for a, w in ops.items():
        hit = None
        for name, (elf, bias) in bins.items():
            for va, b in exec_bytes_cache(elf):
                if va + bias <= a < va + bias + len(b):
                    k = a - va - bias
                    hit = name
                    if int.from_bytes(b[k:k + 4], "little") != w:
                        wrong.append((hex(a), name))
        if hit:
            seen[hit] += 1
        else:
            outside.append(hex(a))
    if outside or wrong:
        fail(f"record: {len(outside)} addresses in no binary "
             f"{outside[:5]}, {len(wrong)} with other bytes {wrong[:5]}")
    return seen


_EB = {}


def exec_bytes_cache(elf):
    if elf not in _EB:
        _EB[elf] = exec_bytes(elf)
    return _EB[elf]


# ---- the checks -------------------------------------------------------------

def shift(d, bias):
    """@d's (x, y) keys less @bias (y = 0 stays 0)."""
    out = {}
    for (x, y), n in d.items():
        k = (x - bias, y - bias if y else 0)
        out[k] = out.get(k, 0) + n
    return out


def inside(segs, a):
    return any(lo <= a < hi for lo, hi in segs)


def check_decode(a, data, elfs, rec):
    want = round_trip.read_record(rec, False)
    cmd = [a.etmkit, "decode", data, "--json"]
    for e in elfs:
        cmd += ["--elf", e]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    got, ons = [], []
    for line in p.stdout:
        if '"insn"' in line or '"trace_on"' in line:
            e = json.loads(line)
            if e["kind"] == "insn":
                got.append((int(e["addr"], 16), e["size"], e["isa"],
                            e["exec"]))
            elif e["kind"] == "trace_on":
                ons.append(len(got))
    if p.wait():
        fail(f"decode: exit {p.returncode}")
    if round_trip.compare(want, got, "decode"):
        fail("decode: the instructions differ from the record's")
    note(f"decode: {len(got)} instructions, as the record")
    return ons


def aux_records(data):
    """The number of AUX records (type 11) in perf.data file @data."""
    d = open(data, "rb").read()
    d_off, d_size = struct.unpack_from("<QQ", d, 40)
    pos, n = d_off, 0
    while pos < d_off + d_size:
        typ, _misc, size = struct.unpack_from("<IHH", d, pos)
        n += typ == 11
        pos += size + (struct.unpack_from("<Q", d, pos + 8)[0]
                       if typ == 71 else 0)
    return n


def cut_record(rec, ons, out):
    """@rec with a gap before each instruction where the decode restarted
    (a trace_on) and the record has no gap or exception: where a new AUX
    record's trace session starts (digest 3.10: decoders reset there).
    Returns how many it added."""
    ons, k, added, prev = set(ons), 0, 0, "gap"
    with open(rec) as f, open(out, "w") as g:
        for line in f:
            if line.startswith("0x"):
                if k in ons and k and prev not in ("gap", "exc"):
                    g.write("gap\n")
                    added += 1
                k += 1
            word = line.split(None, 1)[0] if line.strip() else ""
            if word and not word.startswith("#"):
                prev = word
            g.write(line)
    return added


def check_autofdo(a, data, elfs, rec, bins):
    text = run([a.etmkit, "profile", data, "--format", "autofdo"] +
               sum((["--elf", e] for e in elfs), []), text=True).stdout
    got = perf_write_rt.profile_blocks(text)
    r, b = cli_profile.record_profile(rec)
    for name, (elf, bias) in bins.items():
        segs = [(lo + bias, hi + bias)
                for lo, hi in profile_traces.exec_segments(elf)]
        base = perf_write_rt.first_load_vaddr(elf) + bias
        # digest 4a: ranges and taken branches by where they start; a
        # direct branch's target is an address of the same binary
        wr = shift({k: n for k, n in r.items() if inside(segs, k[0])}, base)
        wb = shift({k: n for k, n in b.items() if inside(segs, k[0])}, base)
        path = os.path.realpath(elf)
        if path not in got:
            fail(f"autofdo: no block for {path}: {sorted(got)}")
            continue
        bid, gr, gb = got[path]
        note_ = perf_write_rt.elf_build_id(elf)
        if not bid.startswith("0x" + note_):
            fail(f"autofdo {name}: build id {bid}, ELF note {note_}")
        for what, g, w in (("ranges", gr, wr), ("branches", gb, wb)):
            if g != w:
                og = sorted((k, v) for k, v in g.items() if w.get(k) != v)
                ow = sorted((k, v) for k, v in w.items() if g.get(k) != v)
                fail(f"autofdo {name}: {what} differ ({len(g)} vs {len(w)})"
                     f": profile {[(hex(x), hex(y), n) for (x, y), n in og[:6]]}"
                     f", record {[(hex(x), hex(y), n) for (x, y), n in ow[:6]]}")
        note(f"autofdo {name}: {len(gr)} ranges, {len(gb)} branches "
             f"(sum {sum(gr.values())}, {sum(gb.values())})")
    if sorted(got) != sorted(os.path.realpath(e) for e in elfs):
        fail(f"autofdo: blocks {sorted(got)}")


def check_traces(a, data, elfs, rec, bins):
    for name, (elf, bias) in bins.items():
        segs_elf = profile_traces.exec_segments(elf)
        segs = [(lo + bias, hi + bias) for lo, hi in segs_elf]
        r, b = profile_traces.record_traces(rec, segs)
        r, b = shift(r, bias), shift(b, bias)
        base = segs_elf[0][0] & ~0xfff
        rx = "/" + os.path.basename(elf).replace(".", r"\.") + "$"
        for fmt, want in (("bolt", profile_traces.want_bolt(r, b)),
                          ("profgen", profile_traces.want_profgen(r, b,
                                                                  base))):
            p = subprocess.run([a.etmkit, "profile", data, "--format", fmt,
                                "--binary", rx] +
                               sum((["--elf", e] for e in elfs), []),
                               capture_output=True, text=True)
            if p.returncode:
                fail(f"{fmt} {name}: exit {p.returncode}: {p.stderr}")
            elif p.stdout != want:
                fail(f"{fmt} {name}: differs from the record: "
                     f"{profile_traces.first_diff(p.stdout, want)}")
        note(f"bolt, profgen {name}: {len(r)} ranges, {len(b)} branches")


def check_cov_text(a, data, elfs, rec, bins):
    count, _ = check_coverage.read_record(rec)
    p = run([a.etmkit, "coverage", data, "--format", "text"] +
            sum((["--elf", e] for e in elfs), []), text=True)
    got = check_coverage.parse_text(p.stdout)
    for name, (elf, bias) in bins.items():
        c = {x - bias: n for x, n in count.items()}
        want = check_coverage.expected_text(elf, c, dynamic=True)
        g = next((v for k, v in got.items()
                  if os.path.realpath(k) == os.path.realpath(elf)), {})
        w = {n: v for n, v in want.items() if n in g}
        if not want and not g:
            note(f"coverage text {name}: no function symbol (stripped, "
                 ".dynsym defines none)")
            continue
        if len(w) < 20 or len(g) != len(w):
            fail(f"coverage text {name}: {len(g)} functions listed, "
                 f"{len(w)} of them symbols with instructions")
        # aliases: one name per address is listed, but every address
        by_addr = {}
        for x, _size, n in check_coverage.symbols(elf, True):
            if n in want:
                by_addr.setdefault(x, set()).add(n)
        unlisted = [hex(x) for x, ns in by_addr.items() if not ns & set(g)]
        if unlisted:
            fail(f"coverage text {name}: {len(unlisted)} functions not "
                 f"listed under any of their names: {unlisted[:5]}")
        bad = [(n, g[n], w[n]) for n in sorted(w) if g[n] != w[n]]
        if bad:
            fail(f"coverage text {name}: {len(bad)} functions differ "
                 f"(ran, insns, entry: got, record): {bad[:5]}")
        note(f"coverage text {name}: {len(g)} functions, "
             f"{sum(1 for v in g.values() if v[0])} ran")


class BinNames:
    """Frame names of run-time addresses, docs/stacks.md: the function
    symbols (stacks_rt.Names, readelf) of the binary holding the address,
    at its ELF address; BINARY+0xVADDR where it has none; 0xADDR outside
    every binary."""

    def __init__(self, bins):
        self.bins = []
        for elf, bias in bins.values():
            segs = [(lo + bias, hi + bias)
                    for lo, hi in profile_traces.exec_segments(elf)]
            self.bins.append((segs, bias, os.path.basename(
                os.path.realpath(elf)),
                stacks_rt.Names(stacks_rt.elf_functions(elf))))

    def __call__(self, a):
        for segs, bias, base, names in self.bins:
            if inside(segs, a):
                n = names(a - bias)
                return n if n != {"0x%x" % (a - bias)} else \
                    {f"{base}+0x{a - bias:x}"}
        return {"0x%x" % a}


def check_folded(a, data, elfs, rec, bins):
    """`profile --format folded` against the record's stacks
    (stacks_rt.record_stacks(), check_folded()): every line and count."""
    want, _ = stacks_rt.record_stacks(rec, BinNames(bins))
    text = run([a.etmkit, "profile", data, "--format", "folded"] +
               sum((["--elf", e] for e in elfs), []), text=True).stdout
    # its failures go to the one list of the run (tests/verdict.py)
    got = stacks_rt.check_folded("folded", text, want)
    deepest = max((len(s) for s, _ in got), default=0)
    note(f"folded: {len(got)} stacks, {sum(n for _, n in got)} "
         f"instructions, {deepest} frames at most")
    if sum(n for _, n in got) != sum(want.values()):
        fail("folded: the counts do not add up to the record's "
             "instructions")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--keep", help="work in this folder and keep it")
    ap.add_argument("--lines", type=int, default=120,
                    help="lines of input text (120: 1.4 M instructions)")
    a = ap.parse_args()
    for t in ("qemu-aarch64", "aarch64-linux-gnu-objdump", "dpkg-deb",
              "apt-get"):
        if not shutil.which(t):
            skip(f"{t} not installed")
    ldso = os.path.join(SYSROOT, "lib", "ld-linux-aarch64.so.1")
    libc = os.path.join(SYSROOT, "lib", "libc.so.6")
    for f in (ldso, libc):
        if not os.path.exists(f):
            skip(f"{f} missing (libc6-arm64-cross)")
    tmp = a.keep or tempfile.mkdtemp(prefix="etmkit-deb-")
    os.makedirs(tmp, exist_ok=True)
    try:
        return check(a, tmp, ldso, libc)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def check(a, tmp, ldso, libc):
    # a deterministic, compressible input: --lines lines of 12 words
    r = random.Random(16)
    words = ["trace", "etm", "decode", "branch", "atom", "packet", "range",
             "profile", "coverage", "gzip", "debian", "arm64"]
    text = "".join(" ".join(r.choice(words) for _ in range(12)) + "\n"
                   for _ in range(a.lines))
    inp = os.path.join(tmp, "input.txt")
    open(inp, "w").write(text)
    out = os.path.join(tmp, "run")
    log = os.path.join(out, "qemu.log")
    p = subprocess.run([a.qemu_trace, "--no-encode", "--deb", "gzip",
                        "--bin", "bin/gzip", "--stdin", inp, "--out", out,
                        "--log", log, "--", "-c", "-6"],
                       capture_output=True, text=True)
    if p.returncode:
        if "apt-get download" in p.stderr or "dpkg" in p.stderr:
            skip(f"the gzip:arm64 package: {p.stderr.strip()[-300:]}")
        print(p.stderr[-2000:])
        return 1
    gz = open(os.path.join(out, "stdout"), "rb").read()
    back = subprocess.run(["gzip", "-dc"], input=gz, capture_output=True)
    if back.stdout.decode(errors="replace") != text:
        fail("gzip's output does not decompress to its input")
    prog = os.path.join(out, "deb-arm64", "root", "bin", "gzip")
    note(f"gzip -c -6: {len(text)} bytes -> {len(gz)} bytes; log "
         f"{os.path.getsize(log) >> 20} MiB")
    rec = os.path.join(tmp, "rec.txt")
    run([a.etmkit, "encode", "--from-qemu", log, "--protocol", "ete",
         "--out", os.path.join(tmp, "snap"), "--record-out", rec, "-q"])
    ops = record_opcodes(rec)
    bins = {}
    for name, elf in (("gzip", prog), ("ld.so", ldso), ("libc", libc)):
        bias = find_bias(elf, ops)
        if bias is None:
            fail(f"{elf}: not found in the record")
            return 1
        bins[name] = (elf, bias)
    seen = check_placement(bins, ops)
    ninsn = sum(1 for line in open(rec) if line.startswith("0x"))
    note(f"record: {ninsn} instructions at {len(ops)} addresses; "
         + ", ".join(f"{n} at bias {b:#x} ({seen[n]} addresses)"
                     for n, (_, b) in bins.items()))
    data = os.path.join(tmp, "gzip.data")
    cmd = [a.etmkit, "encode", "--protocol", "ete", "--format", "perf-data",
           "-o", data, "--cpus", "1", "-q", "--from-qemu", log]
    for elf, bias in bins.values():
        cmd += ["--elf", f"{elf}@{bias:#x}"]
    run(cmd)
    elfs = [e for e, _ in bins.values()]
    ons = check_decode(a, data, elfs, rec)
    # where the perf.data's trace restarts: each AUX record is a fresh
    # trace session (etmkit encode cuts them after a branch)
    cut = os.path.join(tmp, "rec-cut.txt")
    n = cut_record(rec, ons, cut)
    naux = aux_records(data)
    if n != naux - 1:
        fail(f"decode: {n} restarts outside the record's gaps, for "
             f"{naux} AUX records")
    note(f"{naux} AUX records: {n} restarts added to the record")
    # digest 4a ranges end at every branch: the same with or without them
    check_autofdo(a, data, elfs, rec, bins)
    check_traces(a, data, elfs, cut, bins)
    # a restart forgets the stack, as a gap does (docs/stacks.md)
    check_folded(a, data, elfs, cut, bins)
    check_cov_text(a, data, elfs, rec, bins)
    print(f"{len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
