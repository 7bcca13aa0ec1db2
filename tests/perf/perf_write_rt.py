#!/usr/bin/env python3
"""Round trips through `etmkit encode --format perf-data` (issue 15).

Workloads (tests/workloads) are compiled and run under QEMU by
tools/qemu-trace, each linked at its own text address, and their logs are
written as one perf.data: several processes on 2 CPUs, AUX records split
small (--aux-size) with some flagged TRUNCATED. Then:

1. `etmkit decode FILE --elf BIN...` gives back, for every process, exactly
   the instructions of its execution record (the record written by
   `etmkit encode --record-out`), found under its CPU's trace ID and its
   context ID (= its pid, tid), in order;
2. our reader (tests/perf/perf_summary) and the independent parser
   (tests/perf/perf_facts.py) agree on the file, and what they see is what
   was asked for: record counts, cs_etm metadata per CPU, build ids (from
   the ELF notes, read here), AUX flags;
3. the layout follows Linux perf where our reader does not look (digest
   perf-data.md 1.1-1.6, 2.1, 2.2, 3.1-3.3): header and attr sizes, id
   array place, feature bits and the feature table place, the AUXTRACE
   index (Linux form: count, then offset/48 pairs, each at an AUXTRACE
   record), BUILD_ID entries, PMU_MAPPINGS, trailers, misc bits, attr
   config bits of TRCCONFIGR.

4. `etmkit profile FILE --elf BIN...` gives per binary (block path = the
   recorded path, build id = the ELF note, ELF addresses) the ranges and
   branches digest 4a's rules give from the processes' execution records
   (tests/perf/cli_profile.py's record_profile()).
5. `etmkit profile FILE --format chrome` names each process's thread by
   its COMM record and tid.

Cases: A64 under ETE and ETMv4, A32 + T32 under ETMv3 and PTM; A64 under ETE
written raw (--frames none: FORMAT_RAW AUX records, as a TRBE writes them,
digest 3.6); two different A64 programs linked at the same text address
taking turns on one CPU (decoded back only through the side-band's
per-process images, switched by context ID; OpenCSD not asked there).
Exit: 0 pass, 1 fail, 77 qemu-user or the cross compilers missing (fails
with CI=true)."""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "encode"))
import round_trip  # noqa: E402  (read_record: the record's own parser)
sys.path.insert(0, HERE)
import cli_profile  # noqa: E402  (record_profile: digest 4a from a record)
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)



def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}"
              f"{p.stderr[-2000:]}")
        sys.exit(1)
    return p


def build(tool, workloads, tmp, name, arch, text_addr, tag="",
          dynamic=False, cflags="-O2"):
    out = os.path.join(tmp, f"{name}-{arch}{tag}")
    log = os.path.join(out, "qemu.log")
    cflags += f" -Wl,-Ttext-segment={text_addr:#x}" if text_addr else ""
    run([tool, "--no-install", "--no-encode", "--arch", arch, "--cflags",
         cflags, "--out", out, "--log", log] +
        (["--dynamic"] if dynamic else []) +
        [os.path.join(workloads, name + ".c")])
    return log, os.path.join(out, f"{name}.{arch}")


def elf_build_id(path):
    """The GNU build id note, read from the section headers."""
    d = open(path, "rb").read()
    is64 = d[4] == 2
    if is64:
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", d, 0x3A)
    else:
        shoff, = struct.unpack_from("<I", d, 0x20)
        shentsize, shnum = struct.unpack_from("<HH", d, 0x2E)
    for i in range(shnum):
        sh = shoff + i * shentsize
        stype, = struct.unpack_from("<I", d, sh + 4)
        if stype != 7:  # SHT_NOTE
            continue
        off, size = (struct.unpack_from("<QQ", d, sh + 0x18) if is64 else
                     struct.unpack_from("<II", d, sh + 0x10))
        p = off
        while p + 12 <= off + size:
            nsz, dsz, nt = struct.unpack_from("<III", d, p)
            name = d[p + 12:p + 12 + nsz]
            desc = p + 12 + ((nsz + 3) & ~3)
            if nt == 3 and name == b"GNU\0":
                return d[desc:desc + dsz].hex()
            p = desc + ((dsz + 3) & ~3)
    return None


def record_of(etmkit, log, protocol, tmp, tag):
    """The execution record `etmkit encode` reads from @log, and its
    file."""
    snap = os.path.join(tmp, "snap-" + tag)
    rec = os.path.join(tmp, "rec-" + tag + ".txt")
    run([etmkit, "encode", "--from-qemu", log, "--protocol", protocol,
         "--out", snap, "--record-out", rec, "-q"])
    return round_trip.read_record(rec, protocol == "etmv3"), rec


def profile_blocks(text):
    """An AutoFDO text profile per binary: {path: (build id, ranges,
    branches)}, the counts summed by key (cli_profile.parse_autofdo's
    forms), each block closed by its build id and path comments (the
    comment before the first block, when several, is no block)."""
    out, lines, bid = {}, [], None
    for line in text.splitlines():
        if line.startswith("// build_id: "):
            bid = line[len("// build_id: "):]
        elif line.startswith("// ") and bid is not None:
            out[line[3:]] = (bid,) + cli_profile.parse_autofdo(
                "\n".join(lines))
            lines, bid = [], None
        else:
            lines.append(line)
    return out


def load_segments(elf):
    """(p_offset, p_vaddr) of each PT_LOAD, in program header order."""
    d = open(elf, "rb").read(8192)
    is64 = d[4] == 2
    phoff, = struct.unpack_from("<Q" if is64 else "<I", d,
                                0x20 if is64 else 0x1C)
    phent, phnum = struct.unpack_from("<HH", d, 0x36 if is64 else 0x2A)
    for i in range(phnum):
        h = phoff + i * phent
        if is64:
            typ, _fl, off, va = struct.unpack_from("<IIQQ", d, h)
        else:
            typ, off, va = struct.unpack_from("<III", d, h)
        if typ == 1:
            yield off, va


def first_load_vaddr(elf):
    """p_vaddr of the first PT_LOAD in the program headers."""
    for _off, va in load_segments(elf):
        return va
    sys.exit(f"{elf}: no PT_LOAD")


def check_chrome_names(a, data, name, elfs, ncpu):
    """`etmkit profile FILE --format chrome`: each process's thread is
    named by its COMM record (the program's base name, 15 bytes at most)
    and its tid, under its CPU's trace ID (the pid of the timeline)."""
    cmd = [a.etmkit, "profile", data, "--format", "chrome"]
    for e in elfs:
        cmd += ["--elf", e]
    events = json.loads(run(cmd).stdout)["traceEvents"]
    names = {(ev["pid"], ev["tid"]): ev["args"]["name"] for ev in events
             if ev.get("ph") == "M" and ev.get("name") == "thread_name"}
    for i, e in enumerate(elfs):
        key = (0x10 + 2 * (i % ncpu), 1000 + i)
        want_name = f"{os.path.basename(e)[:15]} (tid {1000 + i})"
        if names.get(key) != want_name:
            fail(f"{name}: chrome thread {key}: {names.get(key)!r}, "
                 f"expected {want_name!r}")


def check_profile(a, data, name, elfs, recs, bids):
    """`etmkit profile FILE --elf BIN...` (and the same by --symfs): per
    binary, block path = the
    recorded (MMAP2) path, build id = the ELF note, ranges and branches =
    digest 4a's counts from the execution records of the processes that ran
    it, at ELF vaddrs (linked where they ran, no bias) written less the
    first PT_LOAD's p_vaddr as simpleperf's AutoFDO writer does (digest 4a
    "Address base"; a branch target below it is 0)."""
    cmd = [a.etmkit, "profile", data]
    for e in elfs:
        cmd += ["--elf", e]
    text = run(cmd).stdout
    got = profile_blocks(text)
    # the same binaries found by --symfs at their recorded paths
    symfs = data + ".symfs"
    for e in elfs:
        link = symfs + os.path.realpath(e)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.realpath(e), link)
    if run([a.etmkit, "profile", data, "--symfs", symfs]).stdout != text:
        fail(f"{name}: profile --symfs differs from --elf")
    want = {}
    for e, rec in zip(elfs, recs):
        path = os.path.realpath(e)
        base = first_load_vaddr(e)
        r, b = cli_profile.record_profile(rec)
        wr, wb = want.setdefault(path, ({}, {}))
        for (f, t), v in r.items():
            if f >= base:
                wr[(f - base, t - base)] = wr.get((f - base, t - base), 0) + v
        for (f, t), v in b.items():
            if f >= base:
                k = (f - base, t - base if t >= base else 0)
                wb[k] = wb.get(k, 0) + v
    if sorted(got) != sorted(want):
        fail(f"{name}: profile blocks {sorted(got)}, want {sorted(want)}")
        return
    for path, (wr, wb) in want.items():
        bid, gr, gb = got[path]
        note = bids[path]
        if not bid or not bid.startswith("0x" + note) or \
                set(bid[2 + len(note):]) - {"0"}:
            fail(f"{name}: {path}: profile build id {bid}, ELF note {note}")
        for what, g, w in (("ranges", gr, wr), ("branches", gb, wb)):
            if g != w:
                only_g = sorted((k, v) for k, v in g.items()
                                if w.get(k) != v)[:5]
                only_w = sorted((k, v) for k, v in w.items()
                                if g.get(k) != v)[:5]
                fail(f"{name}: {path}: profile {what} differ from the "
                     f"record's ({len(g)} vs {len(w)}): profile "
                     f"{[(hex(x), hex(y), n) for (x, y), n in only_g]}, "
                     f"record {[(hex(x), hex(y), n) for (x, y), n in only_w]}")
    print(f"{name}: profile: {len(want)} binaries, " + ", ".join(
        f"{os.path.basename(p)} {len(got[p][1])} ranges {len(got[p][2])} "
        f"branches" for p in sorted(want)))


def text_base(elf):
    """The address of file offset 0: the PT_LOAD from offset 0."""
    for off, va in load_segments(elf):
        if off == 0:
            return va
    sys.exit(f"{elf}: no PT_LOAD from offset 0")


def check_ocsd(a, data, elfs, name):
    """OpenCSD's decode of the same AUX data (tests/perf/perf_ocsd.c, reset
    at each AUX record as perf does) against etmkit's, range for range and
    exactly, per trace ID (compare_perf_ocsd.py: ETMv3 a range per
    instruction; its one named OpenCSD departure printed where used)."""
    cmd = [sys.executable, os.path.join(HERE, "compare_perf_ocsd.py"),
           "--etmkit", a.etmkit, "--ocsd", a.ocsd, "--min-ranges", "100",
           data]
    for e in elfs:
        cmd += ["--mem", f"{e}@{text_base(e):#x}", "--elf", e]
    p = subprocess.run(cmd, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("  exception") or line.startswith(
                os.path.basename(data)):
            print(f"{name}: {line.strip()[:240]}")
    if p.returncode != 0:
        fail(f"{name}: OpenCSD differs\n{p.stdout[-1500:]}{p.stderr[-500:]}")


def decode_by_process(etmkit, data, elfs):
    """{(trace id, context id): [instructions]} in decode order."""
    cmd = [etmkit, "decode", data, "--json"]
    for e in elfs:
        cmd += ["--elf", e]
    p = run(cmd)
    out, ctx, kinds = {}, {}, {}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
        if e["kind"] == "context" and "context_id" in e:
            ctx[e["id"]] = int(e["context_id"], 16)
        elif e["kind"] == "insn":
            key = (e["id"], ctx.get(e["id"]))
            out.setdefault(key, []).append(
                (int(e["addr"], 16), e["size"], e["isa"], e["exec"]))
    return out, kinds


# ---- the layout, from the digest's tables ----------------------------------

def snapshot_regs(tmp, tag):
    """The registers `etmkit encode` wrote to a snapshot's source_0.ini."""
    regs = {}
    with open(os.path.join(tmp, "snap-" + tag, "source_0.ini")) as f:
        for line in f:
            if "(" in line and "=" in line:
                regs[line.split("(")[0]] = int(line.split("=")[1], 16)
    return regs


# Metadata parameters (digest 3.2) and the snapshot register of each.
PARAMS = {"etmv3": ["ETMCR", None, "ETMCCER", "ETMIDR"],
          "ptm": ["ETMCR", None, "ETMCCER", "ETMIDR"],
          "etmv4": ["TRCCONFIGR", None, "TRCIDR0", "TRCIDR1", "TRCIDR2",
                    "TRCIDR8", None],
          "ete": ["TRCCONFIGR", None, "TRCIDR0", "TRCIDR1", "TRCIDR2",
                  "TRCIDR8", None, "TRCDEVARCH"]}


def check_layout(path, ncpu, nproc, protocol, build_ids, what, regs):
    d = open(path, "rb").read()
    magic, hsize, attr_size = struct.unpack_from("<8sQQ", d, 0)
    a_off, a_size, d_off, d_size, et_off, et_size = struct.unpack_from(
        "<6Q", d, 24)
    feats = d[72:104]
    bits = [n for n in range(256) if feats[n // 8] >> (n % 8) & 1]

    def want(cond, msg):
        if not cond:
            fail(f"{what}: {msg}")

    want(magic == b"PERFILE2" and hsize == 104, "header magic/size (1.2)")
    want(attr_size == 144 and a_size == 144, "attr_size 144, one attr (1.3)")
    want((et_off, et_size) == (0, 0), "event_types zero (1.2)")
    # 1.1: ids right after the header, then attrs, then data
    want(a_off == 104 + 8 * ncpu, f"attrs at {a_off}, not after {ncpu} ids")
    want(d_off == a_off + a_size, "data right after the attrs (1.1)")
    atype, asz, config = struct.unpack_from("<IIQ", d, a_off)
    st, _rf, flags = struct.unpack_from("<QQQ", d, a_off + 24)
    ids_off, ids_size = struct.unpack_from("<QQ", d, a_off + 128)
    want(asz == 128, f"attr.size {asz}, not 128 (VER7)")
    want((ids_off, ids_size) == (104, 8 * ncpu), "attr ids descriptor")
    ids = struct.unpack_from(f"<{ncpu}Q", d, 104)
    want(len(set(ids)) == ncpu and 0 not in ids, "one distinct id per CPU")
    # TID | TIME | ID | CPU | IDENTIFIER; sample_id_all (bit 18)
    want(st == 0x100C6, f"sample_type {st:#x}")
    want(flags >> 18 & 1 and flags >> 23 & 1 and flags >> 5 & 1,
         f"attr flags {flags:#x}: sample_id_all, mmap2, exclude_kernel")
    want(bits == [2, 7, 16, 18], f"feature bits {bits} (BUILD_ID, NRCPUS, "
         "PMU_MAPPINGS, AUXTRACE)")
    tab = d_off + d_size
    secs = {b: struct.unpack_from("<QQ", d, tab + 16 * i)
            for i, b in enumerate(bits)}
    want(min(o for o, _ in secs.values()) >= tab + 16 * len(bits),
         "feature sections after the table (1.4)")
    # walk the records
    pos, end = d_off, d_off + d_size
    recs, auxtrace_at = [], []
    while pos < end:
        typ, misc, size = struct.unpack_from("<IHH", d, pos)
        want(size >= 8 and size % 8 == 0, f"record at {pos}: size {size}")
        recs.append((pos, typ, misc, size))
        if typ == 71:
            psize, = struct.unpack_from("<Q", d, pos + 8)
            want(size == 48 and psize % 8 == 0, f"AUXTRACE at {pos}")
            auxtrace_at.append(pos)
            pos += size + psize
        else:
            pos += size
    want(pos == end, "records end at the data section's end")
    # 1.6: 40-byte trailer, CPU at -16 and IDENTIFIER (= the CPU's id) last
    for (p, typ, misc, size) in recs:
        if typ in (1, 3, 10, 11, 12):
            cpu, = struct.unpack_from("<I", d, p + size - 16)
            ident, idv = struct.unpack_from("<QQ", d, p + size - 32)[1], \
                struct.unpack_from("<Q", d, p + size - 8)[0]
            want(cpu < ncpu and idv == ids[cpu] and ident == ids[cpu],
                 f"record {typ} at {p}: trailer cpu {cpu} id {idv}")
        if typ == 3:
            want(misc & 0x2000 and misc & 7 == 2, f"COMM at {p}: misc {misc:#x}")
        if typ == 10:
            prot, = struct.unpack_from("<I", d, p + 64)
            want(misc & 0x4000 and prot & 4, f"MMAP2 at {p}: misc/prot")
            bsz = d[p + 40]
            bid = d[p + 44:p + 44 + bsz].hex()
            name = d[p + 72:d.index(b"\0", p + 72)].decode()
            want(build_ids.get(name) == bid, f"MMAP2 {name}: build id {bid}")
        if typ == 11:
            want(size == 8 + 24 + 40, f"AUX at {p}: size {size}")
        if typ == 12:
            want(size == 16 + 40, f"ITRACE_START at {p}: size {size}")
    want(sum(1 for r in recs if r[1] == 12) == nproc, "an ITRACE_START each")
    # AUXTRACE_INFO: type 3, version 1, pmu << 32 | ncpu, blocks (3.1, 3.2)
    info = [r for r in recs if r[1] == 70]
    want(len(info) == 1, "one AUXTRACE_INFO")
    if info:
        p = info[0][0]
        typ3, = struct.unpack_from("<I", d, p + 8)
        ver, pc, snap = struct.unpack_from("<QQQ", d, p + 16)
        want(typ3 == 3 and ver == 1 and pc == (atype << 32 | ncpu) and
             snap == 0, "AUXTRACE_INFO header")
        # PTM writes the ETMv3 block, its ETMIDR saying PTM (3.2)
        magic = {"etmv3": 0x3030303030303030, "ptm": 0x3030303030303030,
                 "etmv4": 0x4040404040404040,
                 "ete": 0x5050505050505050}[protocol]
        nparams = {"etmv3": 4, "ptm": 4, "etmv4": 7, "ete": 8}[protocol]
        w = p + 40
        for c in range(ncpu):
            m, cpu, n = struct.unpack_from("<QQQ", d, w)
            params = struct.unpack_from(f"<{n}Q", d, w + 24)
            want(m == magic and cpu == c and n == nparams,
                 f"metadata block {c}: magic/cpu/params")
            want(params[1] == 0x10 + 2 * c, f"CPU {c}: TRACEIDR {params[1]:#x}")
            for k, reg in enumerate(PARAMS[protocol]):
                want(reg is None or params[k] == regs[reg],
                     f"CPU {c}: param {k} {params[k]:#x}, the encoder's "
                     f"{reg} is {regs.get(reg, 0):#x}")
            if protocol in ("etmv3", "ptm"):
                want(config == params[0], "ETMv3: attr.config is ETMCR (3.3)")
            else:
                cfgr = params[0]
                mapped = sum(1 << o for (i, o) in ((3, 8), (4, 12), (6, 14),
                                                   (7, 15), (11, 28), (12, 29))
                             if cfgr >> i & 1)
                want(config == mapped and config & (1 << 14),
                     f"attr.config {config:#x} from TRCCONFIGR {cfgr:#x}")
            w += 24 + 8 * n
        want(w == p + info[0][3], "metadata fills AUXTRACE_INFO")
    # 1.4 AUXTRACE: u64 nr, then (offset, 48) pairs, each an AUXTRACE record
    o, s = secs.get(18, (0, 0))
    nr, = struct.unpack_from("<Q", d, o)
    pairs = [struct.unpack_from("<QQ", d, o + 8 + 16 * i) for i in range(nr)]
    want(s == 8 + 16 * nr and [q for q, _ in pairs] == auxtrace_at and
         all(z == 48 for _, z in pairs), "AUXTRACE index")
    # BUILD_ID entries: type 0, misc user | BUILD_ID_SIZE, pid -1, names
    # padded to 64 (1.4)
    o, s = secs.get(2, (0, 0))
    seen = {}
    q = o
    while q < o + s:
        typ, misc, size = struct.unpack_from("<IHH", d, q)
        pid, = struct.unpack_from("<i", d, q + 8)
        bid = d[q + 12:q + 12 + d[q + 32]].hex()
        name = d[q + 36:d.index(b"\0", q + 36)].decode()
        want(typ == 0 and misc == 0x8002 and pid == -1 and
             (size - 36) % 64 == 0, f"BUILD_ID entry at {q}")
        seen[name] = bid
        q += size
    want(seen == build_ids, f"BUILD_ID entries {seen}")
    o, s = secs.get(7, (0, 0))
    want(struct.unpack_from("<II", d, o) == (ncpu, ncpu), "NRCPUS")
    o, s = secs.get(16, (0, 0))
    nr, typ, ln = struct.unpack_from("<III", d, o)
    want(nr == 1 and typ == atype and
         d[o + 12:o + 12 + ln].rstrip(b"\0") == b"cs_etm", "PMU_MAPPINGS")


def opcodes(rec):
    """{address: opcode hex} of an execution record's instructions."""
    out = {}
    for line in open(rec):
        t = line.split("#", 1)[0].split()
        if len(t) >= 3 and t[0].startswith("0x"):
            out[int(t[0], 16)] = t[2]
    return out


def case(a, tmp, name, protocol, builds, ncpu, extra, same_text=False):
    """@builds: [(log, elf)], one process each. With @same_text, the
    programs share their text addresses: OpenCSD is not asked (perf_ocsd
    has one memory image for every process)."""
    data = os.path.join(tmp, name + ".data")
    cmd = [a.etmkit, "encode", "--protocol", protocol, "--format",
           "perf-data", "-o", data, "--cpus", str(ncpu), "-q"] + extra
    for log, elf in builds:
        cmd += ["--from-qemu", log, "--elf", elf]
    run(cmd)
    # 1: decode, per CPU trace ID and context ID = pid
    got, kinds = decode_by_process(a.etmkit, data, [e for _, e in builds])
    if a.ocsd and not same_text:
        check_ocsd(a, data, [e for _, e in builds], name)
    recs = []
    for i, (log, elf) in enumerate(builds):
        want, rec = record_of(a.etmkit, log, protocol, tmp, f"{name}{i}")
        recs.append(rec)
        key = (0x10 + 2 * (i % ncpu), 1000 + i)
        bad = round_trip.compare(want, got.pop(key, []),
                                 f"{name} process {i} ({os.path.basename(elf)})"
                                 f" on CPU {i % ncpu}")
        if bad:
            fail(f"{name}: process {i} decodes differently")
    if got:
        fail(f"{name}: instructions under unexpected (id, context): "
             f"{sorted(got)}")
    if same_text:
        # the case is one only if the programs ran different instructions
        # at the same addresses: one image could not decode both
        ops = [opcodes(r) for r in recs]
        clash = [x for x in ops[0] if x in ops[1] and ops[0][x] != ops[1][x]]
        if len(clash) < 100:
            fail(f"{name}: the processes ran different instructions at "
                 f"only {len(clash)} common addresses")
        print(f"{name}: {len(clash)} addresses executed by both processes "
              f"hold different instructions")
    # 2: our reader and the independent parser agree, and see what was asked
    facts = run([sys.executable, os.path.join(HERE, "perf_facts.py"), data,
                 "--compare", a.summary])
    if facts.returncode != 0:
        fail(f"{name}: reader and perf_facts.py differ")
    summ = run([a.summary, data]).stdout
    bids = {os.path.realpath(e): elf_build_id(e) for _, e in builds}
    lines = summ.splitlines()
    rec = [l for l in lines if l.startswith("records ")][0]
    counts = dict(t.split("=") for t in rec.split()[1:])
    naux = int(counts.get("AUX", 0))
    if (counts.get("COMM") != str(len(builds)) or
            counts.get("ITRACE_START") != str(len(builds)) or
            counts.get("AUXTRACE") != str(naux) or naux < 2 * ncpu):
        fail(f"{name}: records {counts}")
    for e, b in bids.items():
        if f"build_id {b} {e}" not in lines:
            fail(f"{name}: reader misses build id {b} {e}")
    if f"cs_etm version 1 pmu 8 cpus {ncpu} snapshot 0" not in lines:
        fail(f"{name}: cs_etm header: {summ}")
    for c in range(ncpu):
        kind = {"etmv3": "etm3", "ptm": "ptm", "etmv4": "etm4",
                "ete": "ete"}[protocol]
        if not any(l.startswith(f"cpu {c} {kind} ") and
                   f"trace_id {0x10 + 2 * c:#x}" in l for l in lines):
            fail(f"{name}: CPU {c} metadata")
        aux = [l.split() for l in lines if l.startswith(f"aux cpu {c} ")]
        flags = int(aux[0][aux[0].index("flags") + 1], 16) if aux else 0
        if "--truncate-every" in extra and not flags & 1:
            fail(f"{name}: CPU {c}: no TRUNCATED AUX record")
        # digest 3.6: FORMAT_RAW (0x100) on the raw records, none framed
        if bool(flags & 0x100) != ("none" in extra):
            fail(f"{name}: CPU {c}: AUX flags {flags:#x}")
    # 3: Linux perf's layout
    check_layout(data, ncpu, len(builds), protocol, bids, name,
                 snapshot_regs(tmp, f"{name}0"))
    # 4: the profile of the recording against the records
    check_profile(a, data, name, [e for _, e in builds], recs, bids)
    check_chrome_names(a, data, name, [e for _, e in builds], ncpu)
    print(f"{name}: {len(builds)} processes on {ncpu} CPUs, {naux} AUX "
          f"records; decode {dict(sorted(kinds.items()))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--summary", required=True, help="tests/perf_summary")
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--ocsd", help="tests/perf_ocsd: also compare OpenCSD's "
                    "decode (built with libopencsd-dev)")
    a = ap.parse_args()
    for t in ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc",
              "arm-linux-gnueabihf-gcc"):
        if not shutil.which(t):
            skip(f"{t} not installed")
    with tempfile.TemporaryDirectory() as tmp:
        a64 = [build(a.qemu_trace, a.workloads, tmp, "loops", "a64", 0),
               build(a.qemu_trace, a.workloads, tmp, "calls", "a64", 0x800000),
               build(a.qemu_trace, a.workloads, tmp, "condexec", "a64",
                     0xc00000)]
        a32 = [build(a.qemu_trace, a.workloads, tmp, "loops", "a32", 0),
               build(a.qemu_trace, a.workloads, tmp, "calls", "t32", 0x800000),
               build(a.qemu_trace, a.workloads, tmp, "interwork", "a32",
                     0xc00000)]
        case(a, tmp, "a64_ete", "ete", a64, 2,
             ["--aux-size", "1024", "--truncate-every", "3"])
        case(a, tmp, "a64_etmv4", "etmv4", a64, 2, ["--aux-size", "2048"])
        case(a, tmp, "a32_t32_etmv3", "etmv3", a32, 2,
             ["--aux-size", "512", "--truncate-every", "2"])
        case(a, tmp, "a32_t32_ptm", "ptm", a32, 2,
             ["--aux-size", "512", "--truncate-every", "2"])
        # raw AUX data, as a TRBE writes it (digest 3.6): no frames,
        # FORMAT_RAW, records of any byte count
        case(a, tmp, "a64_ete_raw", "ete", a64, 2,
             ["--frames", "none", "--aux-size", "1000",
              "--truncate-every", "3"])
        # two programs linked at the same text address, taking turns on
        # one CPU: only the side-band's image per process (switched by
        # context ID) decodes both
        same = [a64[1],  # calls, at 0x800000
                build(a.qemu_trace, a.workloads, tmp, "condexec", "a64",
                      0x800000, "-same")]
        case(a, tmp, "a64_same_text_etmv4", "etmv4", same, 1,
             ["--aux-size", "512"], same_text=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
