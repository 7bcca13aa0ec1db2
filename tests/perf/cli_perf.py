#!/usr/bin/env python3
"""`etmkit packets FILE` on the shared perf.data recordings (cli/input_perf.c).
Expected values from the digest's verified notes (../shared/spec/perf-data.md
3.3, 3.6) and the recordings' README, not from etmkit's own output:
perf_etm.data's AUX data is CPU 7's (trace ID 0x1E), four chunks each
starting with an A-sync and a Trace Info; the program runs as pid 17235
(context ID 0x4353) with its text mapped at 0x582b2b1000; the
missing-AUX recording has no data to list: its six AUX records (digest 3.7;
the README: a reader must accept it) give one warning and exit 0, and with
its CPUs' trace IDs asked for, an aux_missing gap each.

AUX record boundaries (digest 3.7, 3.10): each AUX record is a piece of its
own, listed at the file offsets of its bytes. Where the pieces are is read
here from the file itself (AUX and AUXTRACE records, digest 1.5, 2.1), not
from etmkit: perf_etm.data's four chunks (0,80), (80,80), (160,80), (240,144)
of its one AUXTRACE payload each start with the ID byte and an A-sync, so the
A-syncs sit one byte after each chunk start, and nothing is lost (no gap);
perf_kernel.data's two TRUNCATED AUX records (CPU 6's first, CPU 0's) end
with a gap of reason aux_truncated for the trace ID whose packets fill
them, at the end of their bytes, and that ID's next record (CPU 6's second
chunk) is an A-sync or an unsynced run: nothing joined across.

Raw (TRBE) AUX data (digest 3.6, flag FORMAT_RAW 0x100): a file written by
`etmkit encode --format perf-data --frames none` from an execution record
(ETE, two processes on two CPUs, small AUX records): every record is flagged
raw (read here), each record's bytes are its CPU's packets alone (trace ID
0x10 + 2 x CPU, the encoder's, digest 3.5) numbered by file offset, the
first an A-sync at the record's first byte (no frame ID byte before it),
every packet inside a record of its CPU; with the metadata of CPU 1
renumbered (CPU 1's records then belong to no described CPU) the file is
refused, naming the AUX record's offset.

Usage: cli_perf.py ETMKIT SHARED_DIR   (77 when SHARED_DIR/testdata is absent)"""
import json
import os
import struct
import subprocess
import sys
import tempfile

RECORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "data", "records")


def aux_chunks(path):
    """(file offset of the bytes, size, flags, cpu) of every AUX record
    whose bytes an AUXTRACE record of the same CPU holds (digest 3.10)."""
    f = open(path, "rb").read()
    off, size = struct.unpack_from("<QQ", f, 40)
    aux, traces, p = [], [], off
    while p < off + size:
        t, _, sz = struct.unpack_from("<IHH", f, p)
        if t == 11:   # AUX: aux_offset, aux_size, flags; trailer ends u32 cpu, u32 res
            ao, asz, fl = struct.unpack_from("<QQQ", f, p + 8)
            cpu = struct.unpack_from("<I", f, p + sz - 8)[0]
            aux.append((ao, asz, fl, cpu))
        elif t == 71:  # AUXTRACE: size, offset, reference, idx, tid, cpu; payload after 48
            s2, o, _, _, _, cpu = struct.unpack_from("<QQQIII", f, p + 8)
            traces.append((o, s2, cpu, p + 48))
            p += sz + s2
            continue
        p += sz
    out = []
    for ao, asz, fl, cpu in aux:
        for o, s2, tcpu, pay in traces:
            if tcpu == cpu and o <= ao and ao + asz <= o + s2:
                out.append((pay + ao - o, asz, fl, cpu))
                break
    return out


def aux_records(path):
    """(file offset, aux_size, cpu) of every AUX record (digest 2.1)."""
    f = open(path, "rb").read()
    off, size = struct.unpack_from("<QQ", f, 40)
    out, p = [], off
    while p < off + size:
        t, _, sz = struct.unpack_from("<IHH", f, p)
        if t == 11:
            out.append((p, struct.unpack_from("<Q", f, p + 16)[0],
                        struct.unpack_from("<I", f, p + sz - 8)[0]))
        elif t == 71:
            p += struct.unpack_from("<Q", f, p + 8)[0]
        p += sz
    return out


def packets_json(etmkit, path, *opts):
    r = subprocess.run([etmkit, "packets", "--json", *opts, path],
                       capture_output=True, text=True)
    return r, [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


def check_frames(etmkit, d):
    """`etmkit frames PERF.DATA`: a line per AUX record at its file offset
    (with "truncated" for TRUNCATED ones, "no data" for those without
    bytes), then that record's frames, at file offsets, 16-byte aligned from
    the record's first byte (digest 3.6) and inside its bytes."""
    bad = []
    for name in ("perf_etm.data", "perf_kernel.data",
                 "perf_with_missing_aux_data.data"):
        path = os.path.join(d, name)
        r = subprocess.run([etmkit, "frames", path], capture_output=True,
                           text=True)
        recs = [l.split() for l in r.stdout.splitlines() if "AUX record" in l]
        want = aux_records(path)
        chunks = {c[0]: c for c in aux_chunks(path)}
        if r.returncode != 0 or [int(x[0]) for x in recs] != [a[0] for a in want]:
            bad.append("frames %s: AUX lines at %r, records at %r (exit %d)" %
                       (name, [x[0] for x in recs], [a[0] for a in want],
                        r.returncode))
            continue
        cur = None
        nframes = 0
        for l in r.stdout.splitlines():
            w = l.split()
            if "AUX record" in l:
                at = int(l.split("data at ")[1]) if "data at" in l else None
                cur = chunks.get(at)
                if at is not None and cur is None:
                    bad.append("frames %s: data at %d is no AUX chunk" % (name, at))
                if cur and ("truncated" in l) != bool(cur[2] & 1):
                    bad.append("frames %s: flags of %r: %s" % (name, cur, l))
                if at is None and "no data in the file" not in l:
                    bad.append("frames %s: %s" % (name, l))
            elif len(w) > 1 and w[1] == "frame":
                off = int(w[0])
                nframes += 1
                if not cur or not (cur[0] <= off < cur[0] + cur[1]) or \
                        (off - cur[0]) % 16:
                    bad.append("frames %s: frame at %d outside its record %r"
                               % (name, off, cur))
                    break
        if nframes != sum(c[1] // 16 for c in chunks.values()):
            bad.append("frames %s: %d frames, the AUX records hold %d" %
                       (name, nframes, sum(c[1] // 16 for c in chunks.values())))
    return bad


def raw_chunks(path):
    """(file offset of the bytes, size, flags, cpu, AUX record offset) of
    every AUX record, its CPU that of the AUXTRACE record holding its
    range (digest 3.10; the AUX record's own sample_id layout depends on
    the attr's sample_type)."""
    f = open(path, "rb").read()
    off, size = struct.unpack_from("<QQ", f, 40)
    aux, out, p = [], [], off
    while p < off + size:
        t, _, sz = struct.unpack_from("<IHH", f, p)
        if t == 11:
            aux.append((p,) + struct.unpack_from("<QQQ", f, p + 8))
        elif t == 71:
            s2, o, _, _, _, cpu = struct.unpack_from("<QQQIII", f, p + 8)
            for a in aux:
                if o <= a[1] and a[1] + a[2] <= o + s2:
                    out.append((p + 48 + a[1] - o, a[2], a[3], cpu, a[0]))
            aux = [a for a in aux if not (o <= a[1] and a[1] + a[2] <= o + s2)]
            p += sz + s2
            continue
        p += sz
    return out


def check_raw(etmkit):
    bad = []
    rec = os.path.join(RECORDS, "a64_flow.txt")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "raw.data")
        r = subprocess.run([etmkit, "encode", "--protocol", "ete", "--format",
                            "perf-data", "--frames", "none", "--cpus", "2",
                            "--aux-size", "40", "-q", "-o", path,
                            "--from-record", rec, "--from-record", rec],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return ["raw: encode: %s" % r.stderr]
        chunks = raw_chunks(path)
        if len(chunks) < 4 or {c[3] for c in chunks} != {0, 1} or any(
                c[2] & 0xFF00 != 0x100 for c in chunks):
            bad.append("raw: AUX records %r: want raw ones of CPUs 0 and 1"
                       % chunks)
        r, recs = packets_json(etmkit, path)
        pk = [x for x in recs if x.get("type") != "gap"]
        if r.returncode != 0 or not pk:
            bad.append("raw: packets: exit %d: %s" % (r.returncode, r.stderr))
        for x in pk:
            inside = [c for c in chunks if c[0] <= x["offset"] < c[0] + c[1]]
            if not inside or x["id"] != 0x10 + 2 * inside[0][3]:
                bad.append("raw: packet %r outside its CPU's records" % x)
                break
        starts = {x["offset"]: x for x in pk}
        for c in chunks:
            x = starts.get(c[0])
            if not x or x["type"] != "a_sync":
                bad.append("raw: no A-sync at the record bytes at %d: %r"
                           % (c[0], x))
        # renumber the second cs_etm block's CPU (digest 3.2: magic, cpu)
        d = bytearray(open(path, "rb").read())
        magic = struct.pack("<Q", 0x5050505050505050)
        first = d.find(magic)
        second = d.find(magic, first + 8)
        if first < 0 or second < 0 or \
                struct.unpack_from("<Q", d, second + 8)[0] != 1:
            return bad + ["raw: no ETE metadata block of CPU 1"]
        struct.pack_into("<Q", d, second + 8, 5)
        bad_path = os.path.join(tmp, "raw-cpu5.data")
        open(bad_path, "wb").write(bytes(d))
        first_cpu1 = [c[4] for c in chunks if c[3] == 1][0]
        r = subprocess.run([etmkit, "decode", bad_path],
                           capture_output=True, text=True)
        want = ("the AUX record at offset %d holds raw trace of CPU 1, which "
                "the cs_etm metadata does not describe" % first_cpu1)
        if r.returncode != 3 or want not in r.stderr:
            bad.append("raw, CPU 1 undescribed: exit %d: %s" %
                       (r.returncode, r.stderr))
    return bad


def main():
    etmkit, shared = sys.argv[1:3]
    d = os.path.join(shared, "testdata", "perf")
    if not os.path.isdir(d):
        print("cli_perf: %s missing: skipped" % d)
        return 77
    bad = []
    r = subprocess.run([etmkit, "packets", os.path.join(d, "perf_etm.data")],
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    ids = {l.split()[1] for l in lines if l.strip()}
    if r.returncode != 0:
        bad.append("perf_etm.data: exit %d: %s" % (r.returncode, r.stderr))
    if ids != {"1e"}:
        bad.append("perf_etm.data: trace IDs %s, expected only 1e" % sorted(ids))
    if sum("a_sync" in l for l in lines) != 4:
        bad.append("perf_etm.data: expected 4 A-syncs (one per AUX chunk)")
    if not any("context_id=0x4353" in l and "addr=0x582b2b1000" in l for l in lines):
        bad.append("perf_etm.data: no address_context 0x582b2b1000 / 0x4353")
    # perf_etm.data: A-syncs at the file offsets of the chunks, no gap.
    path = os.path.join(d, "perf_etm.data")
    chunks = aux_chunks(path)
    if [c[1] for c in chunks] != [80, 80, 80, 144]:
        bad.append("perf_etm.data: AUX chunks %r, expected 80 80 80 144" % chunks)
    r, recs = packets_json(etmkit, path)
    syncs = [x["offset"] for x in recs if x.get("type") == "a_sync"]
    if r.returncode != 0 or syncs != [c[0] + 1 for c in chunks]:
        bad.append("perf_etm.data: A-syncs at %r, expected one byte after each "
                   "chunk start %r (exit %d)" % (syncs, [c[0] for c in chunks],
                                                 r.returncode))
    if any(x.get("type") == "gap" or "error" in x for x in recs):
        bad.append("perf_etm.data: a gap or an error at a chunk boundary")
    # perf_kernel.data: a gap aux_truncated ending each TRUNCATED chunk.
    path = os.path.join(d, "perf_kernel.data")
    chunks = aux_chunks(path)
    trunc = [c for c in chunks if c[2] & 1]
    if len(trunc) != 2 or sorted(c[3] for c in trunc) != [0, 6]:
        bad.append("perf_kernel.data: TRUNCATED AUX records %r, expected "
                   "CPU 6's and CPU 0's" % trunc)
    r, recs = packets_json(etmkit, path)
    if r.returncode != 0:
        bad.append("perf_kernel.data: exit %d: %s" % (r.returncode, r.stderr))
    gaps = [x for x in recs if x.get("type") == "gap"]
    if len(gaps) != len(trunc):
        bad.append("perf_kernel.data: %d gaps, expected %d" % (len(gaps), len(trunc)))
    for start, size, _, cpu in trunc:
        inside = {x["id"] for x in recs
                  if x.get("type") != "gap" and start <= x["offset"] < start + size}
        g = [x for x in gaps if x["offset"] == start + size]
        if len(inside) != 1 or len(g) != 1 or g[0]["id"] not in inside or \
                g[0]["reason"] != "aux_truncated":
            bad.append("perf_kernel.data: CPU %d's chunk [%d, %d): IDs %r, "
                       "gaps there %r" % (cpu, start, start + size, inside, g))
            continue
        after = [x for x in recs if x["id"] == g[0]["id"]
                 and x["offset"] >= start + size and x.get("type") != "gap"]
        if after and after[0]["type"] not in ("a_sync", "unsynced"):
            bad.append("perf_kernel.data: ID %#x after the gap goes on with %s "
                       "(joined?)" % (g[0]["id"], after[0]["type"]))
    r = subprocess.run([etmkit, "packets",
                        os.path.join(d, "perf_with_missing_aux_data.data")],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stdout or \
            "6 AUX records (1535344 bytes of trace) with no trace data" not in r.stderr:
        bad.append("missing-aux: exit %d, %r" % (r.returncode, r.stderr))
    # With its CPUs asked for (--id over every ID a CPU may have), each of
    # the six AUX records (CPU 7 and 4, no AUXTRACE at all: digest 3.10)
    # is an aux_missing gap at the record's file offset.
    path = os.path.join(d, "perf_with_missing_aux_data.data")
    ids = [a for i in range(0x10, 0x20) for a in ("--id", hex(i))]
    r, recs = packets_json(etmkit, path, *ids)
    want = [a[0] for a in aux_records(path) if a[1]]
    got = [x["offset"] for x in recs
           if x.get("type") == "gap" and x["reason"] == "aux_missing"]
    cpus = sorted({a[2] for a in aux_records(path)})
    if r.returncode != 0 or len(want) != 6 or got != want or cpus != [4, 7] or \
            len({x["id"] for x in recs}) != 2:
        bad.append("missing-aux --id: gaps at %r, AUX records at %r (CPUs %r), "
                   "exit %d" % (got, want, cpus, r.returncode))
    r = subprocess.run([etmkit, "packets", "--id", "0x10",
                        os.path.join(d, "perf_kernel.data")],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout or any(
            l.split()[1] != "10" for l in r.stdout.splitlines()):
        bad.append("perf_kernel.data --id 0x10: exit %d" % r.returncode)
    bad += check_frames(etmkit, d)
    bad += check_raw(etmkit)
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("cli_perf: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
