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


def ptm_flow_seeds(outdir, shared):
    """fuzz_ptm_flow: header (ETMCR and ETMIDR/ETMCCER selectors, chunk,
    element count, image address, image length), image, trace. Every PTM
    source of the shared captures with windows of its core's code: TC2
    0x13 (PFTv1.1, cycle-accurate, timestamps), Snowball 0x10 and 0x11
    (PFTv1.0, cycle-accurate, timestamps), tc2-ptm-rstk-t32 (PFTv1.1,
    return stack, T32; its raw buffer, its code dump)."""
    def hdr(cr, idr, addr, ilen, chunk=7, count=5):
        return bytes([cr, idr, chunk, count]) + struct.pack("<IH", addr, ilen)
    td = os.path.join(shared, "testdata")
    for snap, ids, cr, idr in (("etmv3/TC2", (0x13,), 0x11, 0x1d),
                               ("ptm/Snowball", (0x10, 0x11), 0x11, 0x00)):
        tb = os.path.join(td, snap, "cstrace.bin")
        kd = os.path.join(td, snap, "kernel_dump.bin")
        if not (os.path.isfile(tb) and os.path.isfile(kd)):
            continue
        streams = deformat(open(tb, "rb").read())
        kernel = open(kd, "rb").read()
        for sid in ids:
            trace = bytes(streams.get(sid, b"")[:4096])
            for lo in (0xC0010000, 0xC0036000, 0xC0052000):
                img = kernel[lo - 0xC0008000:lo - 0xC0008000 + 0x4000]
                write(outdir, "fuzz_ptm_flow", "%s-%02x-%x" % (
                    snap.split("/")[1], sid, lo),
                    hdr(cr, idr, lo, len(img)) + img + trace)
    rs = os.path.join(td, "ptm", "tc2-ptm-rstk-t32")
    code = os.path.join(rs, "mem_Cortex-A15_0_1_RO_CODE.bin")
    tb = os.path.join(rs, "PTM_0_2.bin")
    if os.path.isfile(code) and os.path.isfile(tb):
        img = open(code, "rb").read()
        trace = open(tb, "rb").read()
        for at in (0, 8192, 20000):
            write(outdir, "fuzz_ptm_flow", "rstk-%d" % at,
                  hdr(0x20, 0x1d, 0x80000278, len(img)) + img +
                  trace[at:at + 4096])


def etm4_hdr(ete=1, maxspec=0, commopt=1, rs=0, q=0, cci=0, tsmark=0, wfx=1,
             vmid=0, cid=0, ts64=1, ia64=1, commtrans=0, minor=0, chunk=7,
             count=5):
    """fuzz_etm4_flow's five header bytes (see the target's comment)."""
    ms = [0, 1, 2, 3, 4, 6, 16, 255]
    idx = ms.index(maxspec) if maxspec in ms else min(
        range(8), key=lambda i: abs(ms[i] - maxspec))
    vm = {0: 0, 1: 1, 2: 2, 4: 3}.get(vmid, 0)
    b0 = ete | idx << 1 | commopt << 4 | rs << 5 | q << 6 | cci << 7
    b1 = tsmark | wfx << 1 | vm << 2 | (1 if cid else 0) << 4 | ts64 << 5 | \
        ia64 << 6 | commtrans << 7
    return bytes([b0, b1, minor & 7, (chunk - 1) & 0xFF, (count - 1) & 63])


def etm4_pkt_hdr(regs, ete, flags, chunk):
    """fuzz_etm4_pkt's 16 header bytes (see the target's comment): flags
    (ETE, atom runs 0x02, offsets array 0x08), chunk size, TRCIDR0, the
    ETMv4 minor / ETE revision, TRCIDR2, TRCCONFIGR, TRCIDR8."""
    le = lambda v: (v & 0xFFFFFFFF).to_bytes(4, "little")
    minor = (regs.get("TRCIDR1", 0) >> 4) & 0xF
    return bytes([ete | flags, (chunk - 1) & 0xFF]) + \
        le(regs.get("TRCIDR0", 0)) + bytes([minor << 4]) + \
        le(regs.get("TRCIDR2", 0)) + le(regs.get("TRCCONFIGR", 0)) + \
        bytes([regs.get("TRCIDR8", 0) & 0xFF])


def etm4_regs_hdr(regs, ete):
    """The header nearest to a snapshot's ETMv4/ETE registers."""
    i0, i2 = regs.get("TRCIDR0", 0), regs.get("TRCIDR2", 0)
    cf, da = regs.get("TRCCONFIGR", 0), regs.get("TRCDEVARCH", 0)
    minor = (da >> 16) & 0xF if ete else (regs.get("TRCIDR1", 0) >> 4) & 0xF
    return etm4_hdr(ete=ete, maxspec=regs.get("TRCIDR8", 0),
                    commopt=(i0 >> 29) & 1, rs=(cf >> 12) & 1,
                    q=1 if (cf >> 13) & 3 else 0, cci=(cf >> 4) & 1,
                    tsmark=(i0 >> 23) & 1, wfx=(i2 >> 31) & 1,
                    vmid=(i2 >> 10) & 0x1F, cid=(i2 >> 5) & 0x1F,
                    ts64=1 if ((i0 >> 24) & 0x1F) == 8 else 0,
                    ia64=1 if (i2 & 0x1F) == 8 else 0,
                    commtrans=(i0 >> 30) & 1, minor=minor, chunk=64, count=17)


def etm4_program_traces():
    """ETMv4/ETE streams (digest section 5) that walk fuzz_etm4_flow's
    fixed image: its A64 program at 0x1000 and T32 one at 0x1800."""
    a_sync = bytes(11) + b"\x80"

    def long32(hdr, addr, thumb=False):
        if thumb:
            return bytes([hdr, (addr >> 1) & 0x7F, (addr >> 8) & 0xFF,
                          (addr >> 16) & 0xFF, (addr >> 24) & 0xFF])
        return bytes([hdr, (addr >> 2) & 0x7F, (addr >> 9) & 0x7F,
                      (addr >> 16) & 0xFF, (addr >> 24) & 0xFF])

    def short(addr, hdr=0x95):  # two bytes: A[16:2] of an IS0 address
        return bytes([hdr, 0x80 | ((addr >> 2) & 0x7F), (addr >> 9) & 0xFF])

    start_a64 = a_sync + b"\x01\x00\x04" + long32(0x82, 0x1000) + b"\x11"
    start_t32 = a_sync + b"\x01\x00\x04" + long32(0x83, 0x1800, True) + b"\x01"
    walk = (b"\xf7\xf6\xf7\xf7" + short(0x1048) +   # cbz E, tbz N, tbnz E, blr
            b"\xf7" + short(0x1018) +                # ret
            b"\xf7\xfc\xf7\xf7" + short(0x106c) +   # cbnz, N N E, bl, ret
            b"\xf6\xf7" +                            # b.eq N, b.al E -> retaa
            b"\x06\x1d" + short(0x1054) + short(0x1098) +  # IRQ, vector
            b"\xdb\x02\x81\x01\x71" +               # E E, timestamp, event
            short(0x1038) + b"\xf7\x0a\xf7\x0b" +   # tstart, txn, b, commit
            b"\xc2" + short(0x1094))                 # 4 E atoms on b .
    ete_only = (short(0x1000) + b"\xb4\x92\x08" +       # source address 0x1048
                b"\x09\x01\xff\xff\x0f\x00\x00\x00\x00\x00" +  # ITE
                b"\x06\x31" + short(0x103c) + b"\x88\x02\x82\x01")  # txn fail
    q = short(0x1000) + b"\xa5\x92\x08\x05" + b"\xf7"   # Q 5 insns at 0x1048
    t32 = b"\xf7\xf7\xfc\xf6\xf7\xd9"
    spec = b"".join(bytes([a]) + b"\x2d\x01" for a in walk[:4]) + \
        b"\xf6\x30\x2d\x01\xdb\x2e\x01\x2d\x01\xff\x34\x2d\x03\x00\x03"
    overflow = b"\x00\x05" + start_t32 + t32
    return {
        "a64": start_a64 + walk + overflow,
        "a64-ete": start_a64 + walk + ete_only + overflow,
        "a64-q": start_a64 + q + walk,
        "a64-spec": start_a64 + spec + start_a64 + walk[:8],
        "t32": start_t32 + t32 + b"\x00\x03" + start_a64 + walk,
    }


def etm4_flow_seeds(outdir, shared):
    """fuzz_etm4_flow: the program traces under several configurations;
    the first 4 KiB of each ETE capture (raw source_data) and of the
    ETMv4 ones (deformatted) with the nearest header to their registers."""
    tr = etm4_program_traces()
    for name, hdr in (("ete", etm4_hdr()),
                      ("ete-rs-cci", etm4_hdr(rs=1, cci=1, commopt=0, chunk=3)),
                      ("ete-q", etm4_hdr(q=1, tsmark=1, minor=1, count=1)),
                      ("etm4", etm4_hdr(ete=0, vmid=1, cid=4, chunk=200)),
                      ("etm4-spec", etm4_hdr(ete=0, maxspec=255, chunk=1))):
        for tname, t in tr.items():
            if name.startswith("etm4") and tname == "a64-ete":
                continue
            write(outdir, "fuzz_etm4_flow", "prog-%s-%s" % (tname, name), hdr + t)
    for snap in snapshots(shared):
        tag = os.path.relpath(snap, os.path.join(shared, "testdata")).replace("/", "_")
        if not (tag.startswith("ete_") or tag.startswith("etmv4_")):
            continue
        tini = os.path.join(snap, "trace.ini")
        bfile = ini_value(tini, "file") if os.path.isfile(tini) else None
        fmt = ini_value(tini, "format") if os.path.isfile(tini) else None
        if not bfile or not os.path.isfile(os.path.join(snap, bfile)):
            continue
        data = open(os.path.join(snap, bfile), "rb").read()
        ids = deformat(data[:65536]) if fmt == "coresight" else None
        # The first ETMv4/ETE device with trace in the buffer.
        for fn in sorted(os.listdir(snap)):
            if not fn.endswith(".ini"):
                continue
            text = open(os.path.join(snap, fn), errors="replace").read()
            m = re.search(r"^type\s*=\s*(ETE|ETM4)", text, re.M | re.I)
            if not m:
                continue
            regs = {k.upper(): int(v, 0) for k, v in re.findall(
                r"^(TRC\w+?)(?:\([^)]*\))?\s*=\s*(0x[0-9a-fA-F]+|\d+)", text, re.M)}
            stream = data if ids is None else bytes(
                ids.get(regs.get("TRCTRACEIDR", 0) & 0x7F, b""))
            if stream:
                ete = 1 if m.group(1).upper() == "ETE" else 0
                write(outdir, "fuzz_etm4_flow", tag,
                      etm4_regs_hdr(regs, ete) + stream[:4096])
                for name, flags, chunk in (("", 0, 256), ("-runs", 2, 7),
                                           ("-runs-framed", 0x0A, 3)):
                    write(outdir, "fuzz_etm4_pkt", tag + name,
                          etm4_pkt_hdr(regs, ete, flags, chunk) +
                          stream[:4096])
                break


def encode_seeds(outdir):
    """fuzz_encode: a header (see the target's comment) and walks of a few
    thousand steps, random bytes from a fixed seed, for each protocol and a
    few configurations: long walks with every kind of event."""
    import random
    rng = random.Random(20261123)
    # (name, header bytes 0-5): protocol and code, then the protocol's
    # registers; bytes 6-11 (image seed, chunks, framing) are filled below.
    cfgs = (
        ("etm3-v35-ca-cid-ts", [0x20, 0x0f, 0x75, 0, 0, 40]),
        ("etm3-v35-alt-bo", [0x00, 0x32, 0x0d, 0, 0, 0]),
        ("etm3-v32-arm", [0x24, 0x01, 0x02, 0, 0, 8]),
        ("etm3-v30-thumb", [0x08, 0x04, 0x00, 0, 0, 0]),
        ("etm3-v34-alt-ca", [0x2c, 0x13, 0x0c, 0, 0, 3]),
        ("etm4-a64", [0x01, 0x00, 0x00, 0x0e, 0, 0]),
        ("etm4-a64-spec", [0x61, 0x35, 0x35, 0x43, 2, 20]),
        ("ete-a64", [0x82, 0x00, 0x00, 0x06, 0, 0]),
        ("ete-a64-spec-cci", [0xa2, 0x46, 0x47, 0x2f, 1, 0]),
        ("ete-a64-max-bb", [0x22, 0xff, 0x9b, 0x7b, 255, 60]),
        ("etm4-a32", [0x03, 0x00, 0x00, 0x06, 0, 0]),
        ("etm4-a32-ia32-spec", [0x33, 0x2c, 0x23, 0x2b, 0, 12]),
        # PTM: [2] bit 7; PFTv1.1 64-bit binary timestamps, Hyp
        ("ptm-v11-ca-cid-ts-rs", [0x20, 0x4f, 0xf1, 0, 0, 40]),
        ("ptm-v10-bb-vmid-thumb", [0x08, 0x32, 0x80, 0, 0, 0]),
        ("ptm-v11-arm-sync-rs-dmb", [0x24, 0x6c, 0xc9, 0, 0, 3]),
        # ETMv2: [1] bit 7; 4-bit port, CA, CID, data, phantoms, misses
        ("etm2-p4-ca-cid-data-ph", [0x20, 0xef, 0x14, 0, 0, 4]),
        ("etm2-p16-bo-alt-thumb", [0x08, 0x92, 0x42, 0, 0, 0]),
        ("etm2-p8-arm-lat0", [0x04, 0x80, 0x01, 0, 0, 1]),
        # ETMv1: [3] bit 0; 4-bit port, CA, CID, data; 8-bit, branch
        # output, Thumb, short sync periods (reason 4 addresses)
        ("etm1-p4-ca-cid-data", [0x20, 0xaf, 0x00, 1, 0, 4]),
        ("etm1-p8-bo-thumb", [0x08, 0x92, 0x01, 1, 0, 1]),
    )
    for i, (name, h) in enumerate(cfgs):
        for n, length in ((0, 6000), (1, 1500)):
            hdr = bytes(h) + bytes([rng.randrange(256), rng.randrange(256),
                                    (7, 255, 63)[(i + n) % 3],
                                    rng.randrange(256), 0x10 + i,
                                    (0, 3, 17)[(i + n) % 3]])
            walk = bytes(rng.randrange(256) for _ in range(length))
            write(outdir, "fuzz_encode", "%s-%d" % (name, n), hdr + walk)


def parallel_seeds(outdir):
    """fuzz_parallel: a header (see the target's comment) and a walk, for
    each protocol, both forms, encoder streams (mutated or not) and random
    bytes as the trace; random bytes from a fixed seed."""
    import random
    rng = random.Random(20261127)
    for proto in range(4):
        for mode in (0, 4, 8, 12):
            opt = [rng.randrange(256) for _ in range(4)]
            hdr = bytes([proto | mode] + opt + [8 + proto * 4,
                                                 (0, 5)[proto & 1],
                                                 rng.randrange(256)])
            walk = bytes(rng.randrange(256) for _ in range(3000))
            write(outdir, "fuzz_parallel", "p%d-m%d" % (proto, mode),
                  hdr + walk)
    # PTM ([0] bit 4): the options that outlive an I-sync on in turn
    # (opt bytes [1..4]: return stack 0x8000, timestamps 0x2000, VMID
    # 0x4000, context IDs 0x300; par_gen.h), both forms.
    rng = random.Random(20261129)
    for n, extra in enumerate((0x8000, 0x2000, 0x4000, 0x300, 0xf301)):
        for mode in (0, 4):
            o = rng.randrange(1 << 32) | extra
            hdr = bytes([16 | mode] + list(o.to_bytes(4, "little")) +
                        [12, rng.randrange(4), rng.randrange(256)])
            walk = bytes(rng.randrange(256) for _ in range(3000))
            write(outdir, "fuzz_parallel", "ptm%d-m%d" % (n, mode),
                  hdr + walk)


def exec_text_seeds(outdir, root):
    """fuzz_exec_text: the example of docs/exec-record.md, and records
    with every item kind and field of the text form, one with CRLF line
    ends and comments, one broken."""
    doc = os.path.join(root, "docs", "exec-record.md")
    if os.path.isfile(doc):
        m = re.search(r"```\n(etmkit-exec 1\n.*?)```", open(doc).read(), re.S)
        if m:
            write(outdir, "fuzz_exec_text", "doc-example", m.group(1).encode())
    every = "\n".join((
        "etmkit-exec 1",
        "ctx cid=0x1234 vmid=7 el=2 ns=0",
        "0x8000 arm e3a00001 c=0",
        "0x8004 arm 1a000001 x b",
        "0x8008 arm e12fff13 bi ->0x9001:thumb c=4294967295",
        "0x9000 thumb f000f802 b ->0x9008",
        "0x9008 thumbee c000 sw=thumb",
        "0xa000 jazelle 10ff",
        "0xffffffc000080000 a64 d69f03e0 bi ->0xffffffc000080400",
        "exc reset ret=0x0", "exc undef ret=0x8004", "exc call ret=4",
        "exc pabort ret=0x10", "exc dabort ret=0x20", "exc irq ret=0x30",
        "exc fiq ret=0x40", "exc debug ret=0x50",
        "gap", "ts 0xffffffffffffffff", "ts 12", "ctx el=0 ns=1",
        "ctx vmid=0", ""))
    write(outdir, "fuzz_exec_text", "every-item", every.encode())
    crlf = "# comment\r\n\r\netmkit-exec 1\r\n  # indented\r\n" \
        "0x400580 a64 d503201f\r\n0x400584 a64 94000010 b ->0x4005c4\r\n" \
        "0x4005c4 a64 d65f03c0 bi ->0x400588\r\n"
    write(outdir, "fuzz_exec_text", "crlf-comments", crlf.encode())
    write(outdir, "fuzz_exec_text", "broken",
          b"etmkit-exec 1\n0x10 arm e1a00000\n0x14 thumb 123 b\nexc nmi ret=0\n")


def etm2_cap_seeds(outdir):
    """fuzz_etm2_cap: byte 0 selects the form and options (see the
    target); a text capture as docs/etmv2-capture.md, an ETMv1 and a
    demultiplexed one, a binary capture and ETB words of each width."""
    text = (b"etmv2-capture 1\nversion 2\nport-width 8\netmcr 0x0000100c\n"
            b"pipestat-table natural\ncycles\nIE\n0x1 0x21\nTR/DE\n"
            b"TD 0x0b\nWT x12\nPNDN 0xff # end\n")
    write(outdir, "fuzz_etm2_cap", "text", b"\x00" + text)
    write(outdir, "fuzz_etm2_cap", "text-1", b"\x41" + text)
    write(outdir, "fuzz_etm2_cap", "text-v1", b"\x01" + (
        b"etmv2-capture 1\nversion 1\nport-width 4\ncycles\n"
        b"IE 0x04 sync\nBE 0x9 sync\nTR/BD\nID\nWT x2\n7 1\n"))
    write(outdir, "fuzz_etm2_cap", "text-demux", b"\x00" + (
        b"etmv2-capture 1\nport-width 16\nport-mode demultiplexed\n"
        b"demux-order b-first\npipestat-table alt\ncycles\n"
        b"IE | DE 0x3\nWT | TD 0x1 x2\nTR/PNIE 0xfffa | PTDN\n"))
    hdr = (b"ETM2CAP\x00\x01\x00\x20\x00\x02\x08\x02\x0e"
           b"\x0c\x10\x02\x00\x00\x21\x01\x41" + bytes(8))
    recs = bytes([0x21, 0, 1, 0, 0x0b, 0, 7, 0, 1, 0, 0, 0, 2, 0, 1, 0])
    write(outdir, "fuzz_etm2_cap", "binary", b"\x00" + hdr + recs)
    for sel, name in ((0x07, "etb-4"), (0x0b, "etb-8"), (0x0f, "etb-16"),
                      (0x17, "etb-4-v1")):
        write(outdir, "fuzz_etm2_cap", name, bytes([sel]) + bytes(
            [0x0f, 0xd4, 0x0e, 0x00, 0x09, 0xf1, 0xff, 0x00, 0x78, 0xf7, 0xfd, 0xff]))


def etm2_pkt_seeds(outdir, root):
    """fuzz_etm2_pkt: byte 0 the configuration (port width code [1:0]:
    4/8/16, [2] latency 0, [3] alt table, [4] ETMv1, [5] stop on error),
    byte 1 ETMCR bits (cid size, [2] data address, [3] value), two seed
    bytes, then 3 bytes a cycle (the first's bit 7: ETMv1 TRACESYNC). One seed per hand-worked case of
    tests/etmv2/pkt/ (names through its PIPESTAT table)."""
    natural = ["IE", "DE", "IN", "DN", "WT", "DW", "TR", "TD", "PTIE",
               "PTDE", "PTIN", "PTDN", "PNIE", "PNDE", "PNIN", "PNDN"]
    alt = natural[:10] + ["PNIE", "PNDE", "PTIN", "PTDN"] + natural[14:]
    folder = os.path.join(root, "tests", "etmv2", "pkt")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".e2t"):
            continue
        conf, cycles, section = {}, [], None
        with open(os.path.join(folder, name)) as f:
            for line in f:
                line = line.split("#")[0].strip()
                if not line:
                    continue
                if line.startswith("config"):
                    conf = dict(kv.split("=", 1) for kv in line.split()[1:])
                elif line in ("cycles", "expect"):
                    section = line
                elif section == "cycles":
                    cycles.append(line.split())
        table = alt if conf.get("pipestat") == "alt" else natural
        v1 = conf.get("version") == "1"
        if v1:
            table = ["IE", "ID", "IN", "WT", "BE", "BD", "TR", "TD"]

        def code(tok):
            return int(tok, 16) if tok.startswith("0x") else table.index(tok)
        width = {"4": 0, "8": 1, "16": 2}[conf.get("port-width", "8")]
        etmcr = int(conf.get("etmcr", "0"), 0)
        b0 = width | (4 if conf.get("latency") == "0" else 0) | (
            8 if table is alt else 0) | (0x10 if v1 else 0)
        b1 = (etmcr >> 14 & 3) | (4 if etmcr & 8 else 0) | (8 if etmcr & 4 else 0)
        body = bytearray([b0, b1, 0x5a, 0xa5])
        for tok in cycles:
            if "/" in tok[0]:
                ps, pkt = code(tok[0].split("/")[0]), code(tok[0].split("/")[1])
            else:
                ps = code(tok[0])
                pkt = int(tok[1], 0) if len(tok) > 1 and tok[1][0] not in "xs" else 0
            if "sync" in tok:
                ps |= 0x80  # ETMv1 TRACESYNC
            rep = int(tok[-1][1:]) if tok[-1].startswith("x") else 1
            body += bytes([ps, pkt & 0xff, pkt >> 8]) * rep
        write(outdir, "fuzz_etm2_pkt", name[:-4], bytes(body))


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


def perf_seeds(outdir, shared):
    """fuzz_perf: the simpleperf recordings under 64 KiB as they are, one
    relabelled as Linux perf's variant (feature bit 129 cleared), and
    perf_kernel.data's header and first records cut to 64 KiB."""
    d = os.path.join(shared, "testdata", "perf")
    for name in ("perf_etm.data", "perf_with_missing_aux_data.data",
                 "perf_kernel.data"):
        p = os.path.join(d, name)
        if not os.path.isfile(p):
            continue
        blob = open(p, "rb").read()
        write(outdir, "fuzz_perf", name, blob[:65536])
        if name == "perf_etm.data":
            linux = bytearray(blob)
            linux[72 + 16] &= ~0x02  # bit 129 (digest 1.4)
            write(outdir, "fuzz_perf", "linux-" + name, bytes(linux))


def elf_file_seeds(outdir, shared):
    """fuzz_elf_file: the recordings' binaries as they are (a stripped
    AArch64 executable and a kernel module with symbols), both < 64 KiB."""
    d = os.path.join(shared, "testdata", "perf")
    for name in ("etm_test_loop", "rq_stats.ko"):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            write(outdir, "fuzz_elf_file", name, open(p, "rb").read()[:65536])


def lines_seeds(outdir, root):
    """fuzz_lines: tests/lines/inlined.c linked without libc, DWARF 4 and
    5 (a few KiB each), by the AArch64 cross compiler or the host's."""
    import shutil
    import subprocess
    import tempfile
    cc = shutil.which("aarch64-linux-gnu-gcc") or shutil.which("cc")
    if not cc:
        return
    src = os.path.join(root, "tests", "lines", "inlined.c")
    with tempfile.TemporaryDirectory() as tmp:
        for dw in (4, 5):
            out = os.path.join(tmp, "a.out")
            if subprocess.run([cc, "-g", f"-gdwarf-{dw}", "-O2", "-nostdlib",
                               "-static", "-Wl,-e,main", "-o", out, src],
                              capture_output=True).returncode == 0:
                write(outdir, "fuzz_lines", f"inlined-dwarf{dw}",
                      open(out, "rb").read()[:65536])



def etm2_flow_seeds(outdir):
    """fuzz_etm2_flow: header (ETMCR selector, records per feed, image
    length), an A32 image at 0x8000, then 8-byte records (type, status,
    address or value, flags, cycle step; see the target's comment): a
    TFO at 0x8000, then statuses (IE, DE with data, DW with a branch
    address, a phantom), in each ETMCR form."""
    code = struct.pack("<8I", 0xe1a00000, 0xe5901000, 0xe12fff13,
                       0xea000000, 0xe1a00000, 0xe8900006, 0xe1a00000,
                       0xe1a00000)
    fold = 0x100 + 2 * len(code) + 4

    def rec(typ, st=0, a=0x8000, flags=0, step=1):
        v = (a - 0x7F00) % fold if a < 0x80000000 else a
        return bytes([typ, st]) + struct.pack("<I", v) + bytes([flags, step])
    tfo, status, branch, data = 1, 2, 5, 6
    recs = (rec(tfo, 7, 0x8000, 4) + rec(status, 0) + rec(status, 1) +
            rec(data, 0, 0x20000, 0x62) + rec(status, 1) +
            rec(branch, 0, 0x8010) + rec(status, 8) + rec(status, 5) +
            rec(branch, 0, 0x8000) + rec(status, 0) + rec(status, 2) +
            rec(tfo, 7, 0x8014, 2))
    for cr in range(8):
        for chunk in (0, 2, 64 + 6):
            write(outdir, "fuzz_etm2_flow", "cr%d-%d" % (cr, chunk),
                  bytes([cr, chunk]) + struct.pack("<H", len(code)) +
                  code + recs)
    # Cycles (bit 7): the phantom flow case's capture (8-bit port,
    # natural PIPESTAT codes), over its code at 0x8000 (the image the
    # target maps there).
    names = ["IE", "DE", "IN", "DN", "WT", "DW", "TR", "TD"]
    cyc = []
    for line in ("TD 0x01", "WT 0x20", "WT 0x00", "WT 0x80", "WT 0x00",
                 "WT 0x00", "0x8 0x00", "0xd 0x00", "WT 0x21", "0xb 0x00",
                 "WT 0x6e", "0xe 0x00", "TD 0x00"):
        st, pkt = line.split()
        ps = names.index(st) if st in names else int(st, 16)
        cyc.append(struct.pack("<HBB", int(pkt, 16), ps, 0))
    pcode = struct.pack("<7I", 0xea000002, 0xe1a00000, 0xe1a00000,
                        0xe1a00000, 0xe1a00000, 0x1a000010, 0xe12fff13)
    for chunk in (0, 1, 5):
        write(outdir, "fuzz_etm2_flow", "cycles-%d" % chunk,
              bytes([0x80, chunk]) + struct.pack("<H", len(pcode)) +
              pcode + b"".join(cyc))
    # ETMv1 (bit 15 of the image length; docs/etmv2.md 7b): records
    # (statuses ID 16, BE 17, BD 18; branch flags: 0x02 first, 0x20 a
    # reason, 0x04 reason 1, 0x40 reason 4, 0x08 reason 2): a start, an
    # ID with data, a BE, a BD to a vector, a periodic address, a
    # restart.
    v1recs = (rec(status, 17) + rec(branch, 0, 0x8000, 0x26) +
              rec(status, 0) + rec(status, 16) + rec(data, 0, 0x20000, 0x62) +
              rec(status, 17) + rec(branch, 0, 0x8010) + rec(status, 18) +
              rec(data, 0, 0x20004, 0x62) + rec(branch, 0, 0x18) +
              rec(status, 17) + rec(branch, 0, 0x8000, 0x60) +
              rec(status, 0) + rec(status, 17) +
              rec(branch, 0, 0x8004, 0x28) + rec(status, 0))
    for cr in (0, 2, 3, 4):
        write(outdir, "fuzz_etm2_flow", "v1-cr%d" % cr,
              bytes([cr, 3]) + struct.pack("<H", len(code) | 0x8000) +
              code + v1recs)
    # ETMv1 cycles: tests/etmv2/flow/v1_sync8.e2t (8-bit port, ETMv1
    # codes IE 0, BE 4, TD 7; flags bit 0 TRACESYNC) over its code.
    v1cyc = [(0, 0, 0), (4, 0, 0), (0, 0x80, 1), (0, 0x80, 0), (0, 0x82, 0),
             (0, 0x80, 0), (0, 0x10, 0), (4, 0, 0), (0, 0x11, 1), (0, 0, 0),
             (0, 0, 0), (7, 0, 0)]
    v1code = struct.pack("<4IH", 0xe1a00000, 0xe1a00000, 0xe1a00000,
                         0xe12fff10, 0x46c0)
    for chunk in (0, 1):
        write(outdir, "fuzz_etm2_flow", "v1-cycles-%d" % chunk,
              bytes([0x80, chunk]) + struct.pack("<H", len(v1code) | 0x8000) +
              v1code + b"".join(struct.pack("<HBB", k, ps, f)
                                for ps, k, f in v1cyc))

def profile_part(kind, bins, ranges, second, inputs=1, errors=0, flags=0):
    """A saved partial profile (docs/profile-part.md, version 1), written
    from the page, not from the library: bins (name, file, build id,
    has_elf, base, text_base) in sorted order; ranges and second: lists of
    (bin, from, to_or_outcomes, count_or_passed), sorted."""
    body = b""
    for name, file, bid, elf, base, tbase in bins:
        body += struct.pack("<IIBB20sHQQ", len(name), len(file), len(bid),
                            elf, bid, 0, base, tbase) + name + file
    for e in ranges + second:
        body += struct.pack("<IIQQQ", e[0], 0, e[1], e[2], e[3])
    size = 64 + len(body)
    return b"ETMKPART" + struct.pack("<IIIIQQQQQ", 1, kind, flags, len(bins),
                                     inputs, errors, len(ranges), len(second),
                                     size) + body


def profile_part_seeds(outdir):
    """fuzz_profile_part: small parts of each kind, an empty one, and one
    of a few thousand entries."""
    prog = (b"/usr/bin/prog", b"/symfs/usr/bin/prog", bytes(range(1, 21)), 1,
            0x400000, 0x401000)
    lib = (b"/usr/lib/libc.so.6", b"", bytes([0xab, 0xcd, 0xef, 0x01]), 1,
           0, 0)
    dump = (b"dump.bin", b"dump.bin", b"", 0, 0, 0)
    rng = [(0, 0x401000, 0x401010, 5), (0, 0x401020, 0x401020, 1),
           (1, 0x1000, 0x1008, 3)]
    brn = [(0, 0x401010, 0x401020, 5), (0, 0x401020, 0, 1),
           (1, 0x1008, 0x400, 3)]
    write(outdir, "fuzz_profile_part", "tally",
          profile_part(1, [prog, lib], rng, brn, 2, 1))
    write(outdir, "fuzz_profile_part", "traces",
          profile_part(2, [prog, dump], rng, brn, 1, 0, 1))
    cov = [(0, 0x401000, 0x401014, 7), (1, 0x1000, 0x1004, 2 ** 64 - 1)]
    conds = [(0, 0x401010, 7, 3), (1, 0x1000, 2, 2)]
    write(outdir, "fuzz_profile_part", "coverage",
          profile_part(3, [prog, lib, dump], cov, conds, 3, 4, 3))
    write(outdir, "fuzz_profile_part", "empty", profile_part(1, [], [], []))
    many = [(i % 2, 0x401000 + 4 * i, 0x401004 + 4 * i, i + 1)
            for i in range(2000)]
    many.sort()
    write(outdir, "fuzz_profile_part", "many",
          profile_part(1, [prog, lib], many, []))


def inputs_seeds(outdir):
    """fuzz_inputs: @LIST files naming what its private folder holds (the
    list itself, the folder, a nested @list), comments, blank lines, CR
    line ends, a NUL byte, a missing name."""
    for name, blob in (
            ("one", b"list\n"),
            ("comments", b"# inputs\n\n   # more\n\t list \r\n"),
            ("folder", b".\n"),
            ("nested", b"@list\n"),
            ("empty", b"# nothing\n"),
            ("nul", b"list\0x\n"),
            ("missing", b"list\nnot-there.data\n")):
        write(outdir, "fuzz_inputs", name, blob)


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


def ptm_pkt_seeds(outdir, shared):
    """fuzz_ptm_pkt: header (ETMCR, ETMIDR[7:4], ETMCCER[29:22], flags,
    chunking seed), then one PTM source's bytes: TC2 0x13 (PFTv1.1,
    cycle-accurate, 64-bit binary timestamps), Snowball 0x10/0x11 (PFTv1.0,
    cycle-accurate, Gray timestamps, waypoint updates), tc2-ptm-rstk-t32
    (PFTv1.1, return stack, T32, raw)."""
    def hdr(cr, minor, ccer, flags=0, seed=7):
        return struct.pack("<I", cr) + bytes([minor << 4, (ccer >> 22) & 0xff,
                                              flags, seed])
    for snap, ids, cr, minor, ccer in (
            ("etmv3/TC2", (0x13, 0x14), 0x10001000, 1, 0x34C01AC2),
            ("ptm/Snowball", (0x10, 0x11), 0x10001000, 0, 0x000008EA)):
        tb = os.path.join(shared, "testdata", snap, "cstrace.bin")
        if not os.path.isfile(tb):
            continue
        streams = deformat(open(tb, "rb").read())
        for sid in ids:
            if sid in streams and streams[sid]:
                tag = "%s-%02x" % (snap.replace("/", "_"), sid)
                body = bytes(streams[sid][:8192])
                write(outdir, "fuzz_ptm_pkt", tag, hdr(cr, minor, ccer) + body)
                write(outdir, "fuzz_ptm_pkt", tag + "-stop",
                      hdr(cr, minor, ccer, 4, 99) + body)
    raw = os.path.join(shared, "testdata", "ptm", "tc2-ptm-rstk-t32", "PTM_0_2.bin")
    if os.path.isfile(raw):
        with open(raw, "rb") as f:
            write(outdir, "fuzz_ptm_pkt", "rstk-t32",
                  hdr(0x20000400, 1, 0x34C01AC2) + f.read(8192))
    # 4-byte context IDs and VMID (no capture has them): an I-sync with a
    # context ID, a context ID packet, a VMID, atoms, a branch.
    body = (bytes([0, 0, 0, 0, 0, 0x80, 0x08, 0x01, 0x10, 0, 0x80, 0x29,
                   0x78, 0x56, 0x34, 0x12, 0x6e, 1, 2, 3, 4, 0x3c, 7, 0xc8,
                   0x94, 0xb3, 0x1e, 0x72, 0x79, 0x0c, 0x66, 0x76]))
    write(outdir, "fuzz_ptm_pkt", "cid4-vmid",
          hdr(0x4000C000, 1, 0x34C01AC2) + body)


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
            # fuzz_session_jobs: coresight frames, ETMv3 on 0x10, ETMv4
            # on 0x11, ETE on 0x12; breaks every 3rd feed, on_elems,
            # losses; then the same with frame events and stop_on_error.
            knobs = bytes([0x31, 40, 0, 1, 2, 0, 0x10, 0, 0, 3, 2, 0])
            write(outdir, "fuzz_session_jobs", d, knobs + data)
            write(outdir, "fuzz_session_jobs", d + "-stop",
                  bytes([0x0d]) + knobs[1:] + data)
        if os.path.isfile(os.path.join(examples, d, "snapshot.ini")):
            write(outdir, "fuzz_snapshot", d, snapshot_seed(os.path.join(examples, d)))
    image_seeds(outdir)
    encode_seeds(outdir)
    parallel_seeds(outdir)
    # Execution records and QEMU logs of the project's own tests.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exec_text_seeds(outdir, root)
    etm2_cap_seeds(outdir)
    etm2_pkt_seeds(outdir, root)
    lines_seeds(outdir, root)
    for sub, target in (("tests/data/records", "fuzz_exec_text"),
                        ("tests/data/qemu", "fuzz_qemu_log")):
        d = os.path.join(root, sub)
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else ():
            with open(os.path.join(d, fn), "rb") as f:
                write(outdir, target, fn, f.read(65536))
    # Real captures, when ../shared is there.
    # PTM: TC2's formatted buffer with PTM sources on 0x10-0x12 (its
    # ETMv3 bytes decoded as PTM: errors and resyncs) and one source with
    # split_source ([9] bit 7); Snowball's, its PTM 0x10 with the
    # cycle-accurate PFTv1.0 registers, alone with split_source.
    for snap, knobs in (("etmv3/TC2", [0x01, 100, 0, 0, 0, 0x10, 0x10, 0x10,
                                       0, 1, 2, 0]),
                        ("etmv4/juno_r1_1", [0x21, 140, 1, 1, 1, 0, 0, 0, 0,
                                             5, 2, 0]),
                        ("etmv3/TC2", [0x01, 100, 8, 12, 8, 0x91, 0x31, 0x13,
                                       0, 0x81, 2, 0]),
                        ("ptm/Snowball", [0x01, 60, 8, 0, 0, 0x11, 0, 0, 0,
                                          0x81, 0, 0]),
                        ("ptm/Snowball", [0x21, 60, 12, 0, 0, 0x11, 0, 0, 0,
                                          0x81, 0, 0])):
        tb = os.path.join(shared, "testdata", snap, "cstrace.bin")
        if os.path.isfile(tb):
            with open(tb, "rb") as f:
                write(outdir, "fuzz_session_jobs", "%s-%02x%02x" % (
                    snap.replace("/", "-"), knobs[0], knobs[2]),
                      bytes(knobs) + f.read(16384))
    perf_seeds(outdir, shared)
    elf_file_seeds(outdir, shared)
    profile_part_seeds(outdir)
    inputs_seeds(outdir)
    ptm_pkt_seeds(outdir, shared)
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
    etm4_flow_seeds(outdir, shared)
    ptm_flow_seeds(outdir, shared)
    etm2_flow_seeds(outdir)
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
        if tag == "ptm_Snowball":
            # ID 0x11 as the PTM it is (byte 8 bit 6): cycle-accurate,
            # timestamps, PFTv1.0 (Snowball's ETMCR 0x10001000).
            write(outdir, "fuzz_session", tag + "-ptm",
                  bytes([1, 0x10, 0x00, 0x50, 0x3c, 0x02, 0x10, 0x00, 0x44, 40]) + data)
        if "etmv3" in tag:
            for sid, stream in deformat(data).items():
                write(outdir, "fuzz_etm3_pkt", "%s-%02x" % (tag, sid),
                      TC2_REGS + bytes([0x50, 0, 0xD1, 0, 0x40]) + bytes(stream[:8192]))
        n += 1
    print("seeds from %d real captures and %d examples" % (n, len(os.listdir(examples))))


if __name__ == "__main__":
    main()
