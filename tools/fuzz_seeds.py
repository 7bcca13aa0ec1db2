#!/usr/bin/env python3
"""Write seed corpora for etmkit's fuzz targets into OUTDIR/<target>/, from
the real captures in SHARED/testdata (when present) and the project's own
examples. Nothing here is committed: the seeds are rebuilt at run time.

Usage: fuzz_seeds.py OUTDIR SHARED EXAMPLES"""
import os
import re
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
    for name, fn in (("ex10", ex.source_10), ("ex11", ex.source_11),
                     ("data10", ex.source_data_10), ("data11", ex.source_data_11)):
        junk, pk = fn()
        stream = junk + b"".join(p["bytes"] for p in pk)
        # The examples' own registers (etm_*.ini): ETMv3.5 data trace,
        # context ID, 64-bit timestamps; ETMv3.4 alternative encoding;
        # ETMv3.0 cycle-accurate.
        for cfg_name, cfg in (("v35", bytes([0x0C, 0xD0, 0x00, 0x10, 0x50, 0, 0xD1, 0, 0x10])),
                              ("v34alt", bytes([0, 0, 0, 0, 0x40, 1, 0, 0, 0x40])),
                              ("v30", bytes([0, 0x10, 0, 0, 0x00, 0, 0, 0, 0x10]))):
            write(outdir, "fuzz_etm3_pkt", "%s-%s" % (name, cfg_name), cfg + stream)
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
    # Real captures, when ../shared is there.
    n = 0
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
