#!/usr/bin/env python3
"""Write seed corpora for etmkit's fuzz targets into OUTDIR/<target>/, from
the real captures in SHARED/testdata (when present) and the project's own
examples. Nothing here is committed: the seeds are rebuilt at run time.

Usage: fuzz_seeds.py OUTDIR SHARED EXAMPLES"""
import os
import re
import struct
import sys

TC2_REGS = bytes([0x60, 0x18, 0x00, 0x10])  # ETMCR 0x10001860, little-endian


def deformat(frames):
    """CoreSight formatter frames -> {id: bytes} (DDI 0314H 8.12.1)."""
    out, cur = {}, None
    for f in range(0, len(frames) - 15, 16):
        fr = frames[f:f + 16]
        aux = fr[15]
        for i in range(8):
            b = fr[2 * i]
            if b & 1:
                new = b >> 1
                if i < 7:
                    if (aux >> i) & 1 and cur is not None:
                        out.setdefault(cur, bytearray()).append(fr[2 * i + 1])
                        cur = new
                    else:
                        cur = new
                        out.setdefault(cur, bytearray()).append(fr[2 * i + 1])
                else:
                    cur = new
            else:
                if cur is not None:
                    out.setdefault(cur, bytearray()).append((b & 0xFE) | ((aux >> i) & 1))
                if i < 7 and cur is not None:
                    out.setdefault(cur, bytearray()).append(fr[2 * i + 1])
    return out


def elf_file(is64, etype, machine, segs=(), secs=(), big=False, size=0x800):
    """A small ELF file: pattern bytes with the file header at 0, program
    headers after it and section headers (a null one first) at 0x600.
    segs: (p_type, p_offset, p_vaddr, p_filesz, p_memsz); secs: (sh_type,
    sh_flags, sh_addr, sh_offset, sh_size)."""
    e = ">" if big else "<"
    w = "Q" if is64 else "I"
    b = bytearray((i * 13 + 7) & 0xFF for i in range(size))
    ehsize, phsize, shsize = (64, 56, 64) if is64 else (52, 32, 40)
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if big else 1, 1]) + bytes(9)
    hdr = ident + struct.pack(e + "HHI" + w * 3 + "IHHHHHH", etype, machine, 1,
                              0x8000, ehsize if segs else 0, 0x600 if secs else 0,
                              0, ehsize, phsize, len(segs), shsize,
                              len(secs) + 1 if secs else 0, 0)
    b[0:len(hdr)] = hdr
    for i, (pt, off, va, fsz, msz) in enumerate(segs):
        if is64:
            ph = struct.pack(e + "IIQQQQQQ", pt, 5, off, va, va, fsz, msz, 4)
        else:
            ph = struct.pack(e + "IIIIIIII", pt, off, va, va, fsz, msz, 5, 4)
        b[ehsize + i * phsize:ehsize + (i + 1) * phsize] = ph
    for i, sec in enumerate(((0, 0, 0, 0, 0),) + tuple(secs)):
        st, fl, addr, off, sz = sec
        sh = struct.pack(e + "II" + w * 4 + "II" + w * 2, 0, st, fl, addr, off, sz,
                         0, 0, 4, 0)
        b[0x600 + i * shsize:0x600 + (i + 1) * shsize] = sh
    return bytes(b)


def image_seeds(outdir):
    """fuzz_image: header (offset, length, address byte, spaces, bias
    pages, buffer delta) then the file."""
    def hdr(off=0, length=0, addr=0, spaces=0, bias=0, delta=0):
        return struct.pack("<HHBBhh", off, length, addr, spaces, bias, delta)
    PT_LOAD, PT_NOTE, ET_REL, ET_EXEC = 1, 4, 1, 2
    arm = elf_file(False, ET_EXEC, 40, segs=((PT_LOAD, 0x100, 0x8000, 0x100, 0x100),
                                             (PT_NOTE, 0x200, 0x9000, 0x20, 0x20),
                                             (PT_LOAD, 0x300, 0x20000, 0x80, 0x400)))
    a64 = elf_file(True, ET_EXEC, 183, segs=((PT_LOAD, 0x100, 0xffffffc000080000, 0x180, 0x200),
                                             (PT_LOAD, 0x400, 0xffffffc000081000, 0x200, 0x200)))
    secs = ((1, 6, 0, 0x100, 0x40), (1, 3, 0x1000, 0x140, 0x20),
            (8, 3, 0x2000, 0x160, 0x100), (1, 0, 0x3000, 0x160, 0x10))
    obj = elf_file(False, ET_REL, 40, secs=secs)
    obj64 = elf_file(True, ET_REL, 183, secs=secs)
    be = elf_file(False, ET_EXEC, 40, segs=((PT_LOAD, 0x100, 0x8000, 0x100, 0x100),), big=True)
    write(outdir, "fuzz_image", "elf32-arm", hdr(0x100, 0x40, 0x04, 0x19, 16, 0x20) + arm)
    write(outdir, "fuzz_image", "elf64", hdr(0, 0, 0xff, 0, -1, -0x10) + a64)
    write(outdir, "fuzz_image", "elf32-rel", hdr(0x7f0, 0x10, 0x10, 0x06, 0, 8) + obj)
    write(outdir, "fuzz_image", "elf64-rel", hdr(0x800, 0, 0x80, 0x02, 2) + obj64)
    write(outdir, "fuzz_image", "elf32-be", hdr(0x10, 0x20, 0x7f, 0x01, 0, -0x100) + be)
    write(outdir, "fuzz_image", "cut", hdr() + arm[:100])


def flow_seeds(outdir, kdump, streams, examples_streams):
    """fuzz_etm3_flow: header (ETMCR and ETMIDR selectors, chunk, element
    count, image address, image length), image, trace. TC2's sources
    (cycle-accurate ETMv3.5, 64-bit binary timestamps) with windows of the
    kernel dump around the code their first I-syncs name; the examples'
    streams, the program example with its code."""
    def hdr(cr, idr, addr, ilen, chunk=7, count=5):
        return bytes([cr, idr, chunk, count]) + struct.pack("<IH", addr, ilen)
    kernel = open(kdump, "rb").read() if kdump and os.path.isfile(kdump) else b""
    for sid, stream in streams.items():
        trace = bytes(stream[:12288])
        for lo in (0xC0021000, 0xC004E000, 0xC000C000):
            off = lo - 0xC0008000
            img = kernel[off:off + 0x8000]
            if img:
                write(outdir, "fuzz_etm3_flow", "tc2-%02x-%x" % (sid, lo),
                      hdr(0x01, 0x45, lo, len(img)) + img + trace)
    for name, stream, cr, idr, img in examples_streams:
        write(outdir, "fuzz_etm3_flow", name,
              hdr(cr, idr, 0x8000, len(img)) + img + stream)


def ini_value(path, key):
    with open(path, errors="replace") as f:
        for line in f:
            if line.strip().startswith(key + "="):
                return line.split("=", 1)[1].strip()
    return None


def snapshots(shared):
    root = os.path.join(shared, "testdata")
    for dp, dn, fn in sorted(os.walk(root)):
        if "snapshot.ini" in fn:
            yield dp


def write(outdir, target, name, blob):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(blob)


def snapshot_seed(snap):
    """snapshot.ini, trace.ini and up to three device files, with the
    device list renamed to d0.ini.. so the fuzz target can write them."""
    text = open(os.path.join(snap, "snapshot.ini"), "rb").read().decode("latin-1")
    devs = re.findall(r"^\s*(device\d+)\s*=\s*(\S+)", text, re.M)[:3]
    parts = []
    new = re.sub(r"^\s*device\d+\s*=.*$", "", text, flags=re.M)
    new = new.replace("[device_list]", "[device_list]\n" + "".join(
        "device%d=d%d.ini\n" % (i, i) for i in range(len(devs))))
    parts.append(new.encode("latin-1"))
    meta = re.search(r"^\s*metadata\s*=\s*(\S+)", text, re.M)
    tpath = os.path.join(snap, meta.group(1)) if meta else None
    parts.append(open(tpath, "rb").read() if tpath and os.path.isfile(tpath) else b"")
    for _, fn in devs:
        p = os.path.join(snap, fn)
        parts.append(open(p, "rb").read() if os.path.isfile(p) else b"")
    return b"\n%%\n".join(parts)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    outdir, shared, examples = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_example as ex
    # Own seeds: the example encoders' streams, and their framed buffers.
    # The examples' streams for the flow target: ETMv3.5 cycle-accurate
    # with data trace and 4-byte context IDs; ETMv3.4 alternative.
    flow_cfg = {"ex10": (0x0f, 0x45), "ex11": (0x00, 0x0c),
                "data10": (0x02, 0x05), "data11": (0x01, 0x00)}
    flow_streams = []
    for name, fn in (("ex10", ex.source_10), ("ex11", ex.source_11),
                     ("data10", ex.source_data_10), ("data11", ex.source_data_11)):
        junk, pk = fn()
        stream = junk + b"".join(p["bytes"] for p in pk)
        flow_streams.append((name, stream) + flow_cfg[name] + (b"",))
        # The examples' own registers (etm_*.ini): ETMv3.5 data trace,
        # context ID, 64-bit timestamps; ETMv3.4 alternative encoding;
        # ETMv3.0 cycle-accurate.
        for cfg_name, cfg in (("v35", bytes([0x0C, 0xD0, 0x00, 0x10, 0x50, 0, 0xD1, 0, 0x10])),
                              ("v34alt", bytes([0, 0, 0, 0, 0x40, 1, 0, 0, 0x40])),
                              ("v30", bytes([0, 0x10, 0, 0, 0x00, 0, 0, 0, 0x10]))):
            write(outdir, "fuzz_etm3_pkt", "%s-%s" % (name, cfg_name), cfg + stream)
    # The program example: ETMv3.5 cycle-accurate (selectors: CA; minor
    # version 5), with its code at 0x8000.
    _, pk, _ = ex.source_program()
    flow_streams.append(("program", b"".join(p["bytes"] for p in pk), 0x01,
                         0x05, ex.program_image()))
    for d in sorted(os.listdir(examples)):
        tb = os.path.join(examples, d, "trace.bin")
        if os.path.isfile(tb):
            data = open(tb, "rb").read()
            write(outdir, "fuzz_deformat", d, bytes([1, 15]) + data)
            # ID 0x10: ETMCR 0x1000D00C, ETMv3.5, ETMCCER timestamps;
            # ID 0x11: ETMv3.4 with the alternative branch encoding.
            write(outdir, "fuzz_session", d, bytes([1, 0x1c, 0x03, 0x50, 0x3c, 0, 0, 0x41, 0, 5]) + data)
        if os.path.isfile(os.path.join(examples, d, "snapshot.ini")):
            write(outdir, "fuzz_snapshot", d, snapshot_seed(os.path.join(examples, d)))
    image_seeds(outdir)
    # Real captures, when ../shared is there.
    n = 0
    kdump = os.path.join(shared, "testdata", "etmv3", "TC2", "kernel_dump.bin")
    if os.path.isfile(kdump):
        # The kernel dump's first 4 KiB as a raw file: 0x100 bytes from 0x10.
        with open(kdump, "rb") as f:
            write(outdir, "fuzz_image", "tc2-kernel",
                  struct.pack("<HHBBhh", 0x10, 0x100, 0x01, 0, 0, 0x40) + f.read(4096))
    tc2 = os.path.join(shared, "testdata", "etmv3", "TC2", "cstrace.bin")
    tc2_streams = deformat(open(tc2, "rb").read()) if os.path.isfile(tc2) else {}
    flow_seeds(outdir, kdump, {k: v for k, v in tc2_streams.items() if k in (0x10, 0x11, 0x12)},
               flow_streams)
    for snap in snapshots(shared):
        tag = os.path.relpath(snap, os.path.join(shared, "testdata")).replace("/", "_")
        write(outdir, "fuzz_snapshot", tag, snapshot_seed(snap))
        tini = os.path.join(snap, "trace.ini")
        bfile = ini_value(tini, "file") if os.path.isfile(tini) else None
        if not bfile or not os.path.isfile(os.path.join(snap, bfile)):
            continue
        data = open(os.path.join(snap, bfile), "rb").read()[:16384]
        write(outdir, "fuzz_deformat", tag, bytes([1, 255]) + data)
        # TC2's ETMs: ETMCR 0x10001860, ETMv3.5, ETMCCER 0x344008F2.
        write(outdir, "fuzz_session", tag, bytes([1, 0x10, 0x00, 0x50, 0x3c, 0x10, 0, 0x50, 0x3c, 40]) + data)
        if "etmv3" in tag:
            for sid, stream in deformat(data).items():
                write(outdir, "fuzz_etm3_pkt", "%s-%02x" % (tag, sid),
                      TC2_REGS + bytes([0x50, 0, 0xD1, 0, 0x40]) + bytes(stream[:8192]))
        n += 1
    print("seeds from %d real captures and %d examples" % (n, len(os.listdir(examples))))


if __name__ == "__main__":
    main()
