#!/usr/bin/env python3
"""`etmkit decode PERF.DATA` finding the recording's binaries (cli/
perf_sideband.c, src/perf/perf_maps.c, perf_binaries.c).

Expected values come from the files themselves, parsed here, not from
etmkit's output:
- the MMAP/MMAP2 records (digest perf-data.md 2.1): where each binary's
  executable map starts, its length and file offset (pgoff); COMM and
  AUXTRACE records for the pid and CPU;
- the binaries' ELF headers (section and note headers, parsed here): the
  build id, rq_stats.ko's .text offset and size;
- simpleperf's FILE2 feature (digest 1.4, bit 132), parsed here: the
  module's memory_offset_of_min_vaddr;
- the instruction words: every instruction etmkit lists inside a binary's
  map must be the 4 bytes of that binary at the file offset the map gives
  (digest 3.11: addr - start + pgoff; a module: .text at start +
  memory_offset_of_min_vaddr).

Binaries are found through a temporary --symfs folder (symbolic links to
../shared), a --buildid-dir folder in perf's layout, and --elf; a file with
another build id is refused with a warning; a binary without a file is
named in a note with its build id.

Usage: cli_perf_binaries.py ETMKIT SHARED_DIR   (77 without SHARED_DIR/testdata)"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile


def records(path):
    """(offset, type, misc, bytes) of every record of the data section."""
    f = open(path, "rb").read()
    off, size = struct.unpack_from("<QQ", f, 40)
    p = off
    while p < off + size:
        t, misc, sz = struct.unpack_from("<IHH", f, p)
        if t >= 32768:
            hi, lo = struct.unpack_from("<HH", f, p + 4)
            sz = hi << 16 | lo
        yield p, t, misc, f[p:p + sz]
        if t == 71:
            p += struct.unpack_from("<Q", f, p + 8)[0]
        p += sz


def cstr(b, at):
    return b[at:b.index(b"\0", at)].decode()


def exec_maps(path):
    """{name: [(start, len, pgoff)]} of the executable maps (MMAP2 with
    PROT_EXEC, MMAP without MMAP_DATA; digest 2.1)."""
    out = {}
    for _, t, misc, b in records(path):
        if t == 10:
            pid, tid, start, ln, pgoff = struct.unpack_from("<IIQQQ", b, 8)
            prot = struct.unpack_from("<I", b, 64)[0]
            if prot & 4:
                out.setdefault(cstr(b, 72), []).append((start, ln, pgoff))
        elif t == 1 and not misc & 0x2000:
            pid, tid, start, ln, pgoff = struct.unpack_from("<IIQQQ", b, 8)
            out.setdefault(cstr(b, 40), []).append((start, ln, pgoff))
    return out


def exec_comm(path, name):
    """The pid of the COMM_EXEC record naming @name."""
    for _, t, misc, b in records(path):
        if t == 3 and misc & 0x2000 and cstr(b, 16) == name:
            return struct.unpack_from("<I", b, 8)[0]
    return None


def auxtrace_cpus(path):
    return {struct.unpack_from("<I", b, 40)[0]
            for _, t, _, b in records(path) if t == 71}


def elf_sections(path):
    """{name: (offset, size)} of an ELF64 little-endian file."""
    f = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", f, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", f, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", f, shoff + i * shentsize)
            for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    return {cstr(f, stroff + h[0]): (h[4], h[5], h[1]) for h in hdrs}


def build_id(path):
    """The GNU build id (note type 3, name GNU) as hex."""
    f = open(path, "rb").read()
    for name, (off, size, typ) in elf_sections(path).items():
        if typ != 7:  # SHT_NOTE
            continue
        p = off
        while p + 12 <= off + size:
            namesz, descsz, ntype = struct.unpack_from("<III", f, p)
            n0 = p + 12
            d0 = n0 + (namesz + 3) // 4 * 4
            if ntype == 3 and f[n0:n0 + namesz] == b"GNU\0":
                return f[d0:d0 + descsz].hex()
            p = d0 + (descsz + 3) // 4 * 4
    return None


def varint(b, p):
    x = s = 0
    while True:
        c = b[p]
        p += 1
        x |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return x, p


def pb_fields(b):
    """(number, value) of a protobuf message: ints or bytes."""
    p = 0
    while p < len(b):
        key, p = varint(b, p)
        wt = key & 7
        if wt == 0:
            v, p = varint(b, p)
        elif wt == 2:
            n, p = varint(b, p)
            v, p = b[p:p + n], p + n
        elif wt == 1:
            v, p = b[p:p + 8], p + 8
        else:
            v, p = b[p:p + 4], p + 4
        yield key >> 3, v


def file2_module_offset(path, name):
    """FILE2 (feature 132): memory_offset_of_min_vaddr of entry @name."""
    f = open(path, "rb").read()
    doff, dsize = struct.unpack_from("<QQ", f, 40)
    feats = f[72:104]
    table = doff + dsize
    k = 0
    for bit in range(256):
        if not feats[bit // 8] >> (bit % 8) & 1:
            continue
        off, size = struct.unpack_from("<QQ", f, table + 16 * k)
        k += 1
        if bit != 132:
            continue
        p = off
        while p < off + size:
            n, = struct.unpack_from("<I", f, p)
            fields = dict(pb_fields(f[p + 4:p + 4 + n]))
            p += 4 + n
            if fields.get(1, b"").decode() == name and 7 in fields:
                return dict(pb_fields(fields[7])).get(1, 0)
    return None


def decode(etmkit, path, *opts):
    r = subprocess.run([etmkit, "decode", "--json", path, *opts],
                       capture_output=True, text=True)
    return r, [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


def insns_in(recs, lo, hi):
    return [x for x in recs if x["kind"] == "insn" and
            lo <= int(x["addr"], 16) < hi]


def check_words(bad, what, insns, blob, file_off_of):
    for x in insns:
        a = int(x["addr"], 16)
        o = file_off_of(a)
        want = struct.unpack_from("<I", blob, o)[0]
        if int(x["opcode"], 16) != want:
            bad.append("%s: 0x%x: opcode %s, the file has 0x%08x at 0x%x"
                       % (what, a, x["opcode"], want, o))
            return


def link(dst, src):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    os.symlink(os.path.abspath(src), dst)


def user_binary(bad, etmkit, d, tmp):
    path = os.path.join(d, "perf_etm.data")
    prog = os.path.join(d, "etm_test_loop")
    name = "/data/local/tmp/etm_test_loop"
    maps = exec_maps(path)
    (start, ln, pgoff), = maps[name]
    blob = open(prog, "rb").read()
    pid = exec_comm(path, "etm_test_loop")
    cpus = auxtrace_cpus(path)
    bid = build_id(prog)

    def off_of(a):
        return a - start + pgoff

    symfs = os.path.join(tmp, "symfs")
    link(symfs + name, prog)
    runs = {"--symfs": ["--symfs", symfs]}
    bdir = os.path.join(tmp, "bid")
    link(os.path.join(bdir, ".build-id", bid[:2], bid[2:], "elf"), prog)
    runs["--buildid-dir"] = ["--buildid-dir", bdir]
    runs["--elf"] = ["--elf", prog]
    counts = {}
    for what, opts in runs.items():
        r, recs = decode(etmkit, path, *opts)
        ins = insns_in(recs, start, start + ln)
        counts[what] = len(ins)
        if r.returncode != 0 or not ins:
            bad.append("perf_etm.data %s: exit %d, %d instructions in the "
                       "program's map: %s" % (what, r.returncode, len(ins),
                                              r.stderr))
            continue
        check_words(bad, "perf_etm.data " + what, ins, blob, off_of)
        lost = [x for x in recs if x["kind"] == "no_image" and
                start <= int(x["addr"], 16) < start + ln]
        if lost:
            bad.append("perf_etm.data %s: no_image inside the program: %r"
                       % (what, lost[0]))
        if any(x.get("pid") != pid or x.get("tid") != pid
               for x in ins) or any(x.get("cpu") not in cpus for x in ins):
            bad.append("perf_etm.data %s: pid/tid/cpu %r, expected %d on "
                       "CPU %r" % (what, ins[0], pid, cpus))
        # Addresses without code lie in other binaries' maps.
        for x in recs:
            if x["kind"] != "no_image":
                continue
            a = int(x["addr"], 16)
            owner = [n for n, ms in maps.items()
                     if any(s <= a < s + l for s, l, _ in ms)]
            for n in owner:
                if n not in r.stderr:
                    bad.append("perf_etm.data: no_image at 0x%x in %s, not "
                               "named in a note" % (a, n))
    if len(set(counts.values())) != 1:
        bad.append("perf_etm.data: instruction counts differ by the way "
                   "the program was found: %r" % counts)
    # Without the program: its addresses are no_image, and a note names it.
    r, recs = decode(etmkit, path)
    if insns_in(recs, start, start + ln) or r.returncode != 0:
        bad.append("perf_etm.data without files: instructions listed or "
                   "exit %d" % r.returncode)
    if not re.search(r"note: .*no file for %s \(build id %s" %
                     (re.escape(name), bid), r.stderr):
        bad.append("perf_etm.data without files: no note naming %s and "
                   "build id %s: %s" % (name, bid, r.stderr))
    # Another build at the recorded path: refused, with a warning.
    wrong = os.path.join(tmp, "wrong")
    link(wrong + name, os.path.join(d, "rq_stats.ko"))
    r, recs = decode(etmkit, path, "--symfs", wrong)
    if insns_in(recs, start, start + ln) or \
            not re.search(r"warning: .*build id %s differs from %s"
                          % (build_id(os.path.join(d, "rq_stats.ko")), bid),
                          r.stderr):
        bad.append("perf_etm.data, a file with another build id: used, or "
                   "no warning: %s" % r.stderr)
    # Filters: --pid, --binary, --cpu.
    base = counts["--symfs"]
    for opts, want in ((["--pid", str(pid)], base),
                       (["--pid", str(pid + 1)], 0),
                       (["--binary", "etm_test"], base),
                       (["--binary", "libc"], 0),
                       (["--cpu", ",".join(map(str, cpus))], base)):
        r, recs = decode(etmkit, path, "--symfs", symfs, *opts)
        n = sum(x["kind"] == "insn" for x in recs)
        if n != want or r.returncode != 0:
            bad.append("perf_etm.data %s: %d instructions, expected %d "
                       "(exit %d)" % (opts, n, want, r.returncode))
    r, recs = decode(etmkit, path, "--symfs", symfs, "--pid", str(pid + 1))
    if recs and all(x["kind"] != "insn" for x in recs) and \
            any(x.get("pid") not in (None, pid + 1) for x in recs):
        bad.append("perf_etm.data --pid: elements of another process listed")
    other = [c for c in range(8) if c not in cpus][0]
    r, _ = decode(etmkit, path, "--cpu", str(other))
    if r.returncode != 3:
        bad.append("perf_etm.data --cpu %d (no trace): exit %d, expected 3"
                   % (other, r.returncode))


def kernel_module(bad, etmkit, d, tmp):
    path = os.path.join(d, "perf_kernel.data")
    ko = os.path.join(d, "rq_stats.ko")
    maps = exec_maps(path)
    names = [n for n in maps if n.endswith("/rq_stats.ko")]
    if len(names) != 1:
        bad.append("perf_kernel.data: rq_stats.ko maps %r" % names)
        return
    name = names[0]
    (start, ln, _), = maps[name]
    text_off, text_size, _ = elf_sections(ko)[".text"]
    moff = file2_module_offset(path, name)
    if moff is None:
        bad.append("perf_kernel.data: no FILE2 entry for %s" % name)
        return
    lo = start + moff
    blob = open(ko, "rb").read()
    symfs = os.path.join(tmp, "ksymfs")
    link(symfs + name, ko)
    r, recs = decode(etmkit, path, "--symfs", symfs)
    ins = insns_in(recs, lo, lo + text_size)
    if not ins:
        bad.append("perf_kernel.data: no instruction of rq_stats.ko's .text "
                   "at 0x%x (exit %d): %s" % (lo, r.returncode, r.stderr))
    check_words(bad, "perf_kernel.data", ins, blob,
                lambda a: a - lo + text_off)
    r, recs = decode(etmkit, path)
    if insns_in(recs, lo, lo + text_size) or \
            not re.search(r"note: .*no file for %s \(build id %s"
                          % (re.escape(name), build_id(ko)), r.stderr):
        bad.append("perf_kernel.data without files: module code listed, or "
                   "no note naming %s: %s" % (name, r.stderr))


def fake_vmlinux(path, vaddr, words):
    """An AArch64 ELF64 executable whose one PT_LOAD (file offset 0x1000)
    holds @words at @vaddr, with a .text section there and a symbol
    _stext (STT_NOTYPE, global) at @vaddr (ELF gABI layouts)."""
    text = struct.pack("<%dI" % len(words), *words)
    strtab = b"\0_stext\0"
    sym = bytes(24) + struct.pack("<IBBHQQ", 1, 0x10, 0, 1, vaddr, 0)
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    off_text = 0x1000
    off_sym = off_text + len(text)
    off_str = off_sym + len(sym)
    off_shstr = off_str + len(strtab)
    off_sh = (off_shstr + len(shstr) + 7) // 8 * 8
    eh = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 2, 183, 1, vaddr, 64, off_sh, 0, 64, 56, 1, 64, 5,
        4)
    ph = struct.pack("<IIQQQQQQ", 1, 5, off_text, vaddr, vaddr, len(text),
                     len(text), 0x1000)

    def sh(name, typ, flags, addr, off, size, link=0, info=0, align=1,
           ent=0):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size,
                           link, info, align, ent)
    shdrs = (bytes(64) + sh(1, 1, 6, vaddr, off_text, len(text), align=4) +
             sh(7, 2, 0, 0, off_sym, len(sym), 3, 1, 8, 24) +
             sh(15, 3, 0, 0, off_str, len(strtab)) +
             sh(23, 3, 0, 0, off_shstr, len(shstr)))
    with open(path, "wb") as f:
        f.write(eh + ph)
        f.write(bytes(off_text - len(eh) - len(ph)))
        f.write(text + sym + strtab + shstr)
        f.write(bytes(off_sh - off_shstr - len(shstr)))
        f.write(shdrs)


def kernel_bias(bad, etmkit, d, tmp):
    """--vmlinux: simpleperf's kernel map ([kernel.kallsyms]_stext, pgoff 0)
    starts at the runtime _stext (digest 1.8, 3.11), so vmlinux's segments
    move by start - _stext. A made-up vmlinux whose word i is RET X(i mod
    31): each kernel instruction listed at address A must be word
    (A - start) / 4 of it."""
    path = os.path.join(d, "perf_kernel.data")
    (start, _, pgoff), = exec_maps(path)["[kernel.kallsyms]_stext"]
    if pgoff:
        bad.append("perf_kernel.data: kernel map pgoff 0x%x, expected 0" % pgoff)
        return
    stext = 0xffffffc010080000
    n = 0x1200000 // 4
    vml = os.path.join(tmp, "vmlinux")
    fake_vmlinux(vml, stext, [0xd65f0000 | (i % 31) << 5 for i in range(n)])
    r, recs = decode(etmkit, path, "--vmlinux", vml)
    ins = insns_in(recs, start, start + 4 * n)
    if not ins or r.returncode not in (0, 1):
        bad.append("perf_kernel.data --vmlinux: %d kernel instructions "
                   "(exit %d): %s" % (len(ins), r.returncode, r.stderr))
    for x in ins:
        a = int(x["addr"], 16)
        want = 0xd65f0000 | ((a - start) // 4 % 31) << 5
        if int(x["opcode"], 16) != want:
            bad.append("perf_kernel.data --vmlinux: 0x%x: opcode %s, "
                       "expected 0x%08x" % (a, x["opcode"], want))
            break
    if "no file for [kernel.kallsyms]" in r.stderr:
        bad.append("perf_kernel.data --vmlinux: the kernel still missing")


def main():
    etmkit, shared = sys.argv[1:3]
    d = os.path.join(shared, "testdata", "perf")
    if not os.path.isdir(d):
        print("cli_perf_binaries: %s missing: skipped" % d)
        return 77
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        user_binary(bad, etmkit, d, tmp)
        kernel_module(bad, etmkit, d, tmp)
        kernel_bias(bad, etmkit, d, tmp)
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
