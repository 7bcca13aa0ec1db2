#!/usr/bin/env python3
"""PTM in a perf.data recording (cli/input_perf.c): an ETMv3/PTM metadata
block (digest perf-data.md 3.2: ETMCR, TRACEIDR, CCER, IDR) whose ETMIDR
names PFT (ETMIDR[11:8] = 3, IHI 0035B 3.16.28) is a PTM source.

No real PTM recording is at hand, so one is made: `etmkit encode --format
perf-data` writes an ETMv3 recording (tests/data/records/a32_t32_flow.txt),
whose metadata block is then given tc2-ptm-rstk-t32's PTM registers
(ETMCR 0x20000400, ETMCCER 0x34C01AC2, ETMIDR 0x411CF312), and whose AUX
bytes are replaced by CoreSight frames (IHI 0029 D4.2) carrying the first
bytes of that capture's PTM stream under the block's trace ID. Then:

1. `etmkit packets FILE --json` lists the source with PTM's records
   (docs/schema/packets-ptm.schema.json), and they are, type and bytes, the
   records of the same PTM bytes given as a raw file with --protocol ptm
   and the same registers;
2. the recording as written (ETMIDR 0x410CF250) stays ETMv3;
3. with ETMIDR[11:8] = 2 but the other registers PTM's it is ETMv3 again
   (the protocol comes from ETMIDR, not from the other registers).

Exit 0 pass, 1 fail, 77 without the shared captures (fails with CI=true)."""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402
from verdict import FAILS, fail, skip  # noqa: E402

MAGIC_ETM3 = struct.pack("<Q", 0x3030303030303030)
PTM_REGS = {"etmcr": 0x20000400, "etmccer": 0x34C01AC2, "etmidr": 0x411CF312}


def etmkit(exe, *args):
    p = subprocess.run([exe] + list(args), capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("etmkit %s: status %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def auxtrace_payloads(d):
    """(offset, size) of each AUXTRACE record's data (digest 1.5, 2.1)."""
    pos = struct.unpack_from("<Q", d, 40)[0]   # data section offset
    end = pos + struct.unpack_from("<Q", d, 48)[0]
    out = []
    while pos < end:
        typ, _misc, sz = struct.unpack_from("<IHH", d, pos)
        if typ == 71:
            size = struct.unpack_from("<Q", d, pos + 8)[0]
            out.append((pos + sz, size))
            sz += size
        if sz == 0:
            break
        pos += sz
    return out


def frames(trace_id, stream, size):
    """@size bytes of CoreSight frames carrying @stream for @trace_id, as
    many bytes of it as they hold (14 a frame): each frame an ID byte at
    byte 0 (applies at once), then data; an even byte's bit 0 in the
    auxiliary byte 15."""
    out, used = bytearray(), 0
    while len(out) < size:
        chunk = stream[used:used + 14]
        used += len(chunk)
        chunk = chunk + bytes(14 - len(chunk))
        f = bytearray(16)
        f[0] = trace_id << 1 | 1
        f[1] = chunk[0]
        aux = 0
        for k in range(1, 8):
            b = chunk[2 * k - 1]
            f[2 * k] = b & 0xFE
            aux |= (b & 1) << k
            if 2 * k + 1 < 15:
                f[2 * k + 1] = chunk[2 * k]
        f[15] = aux
        out += f
    return bytes(out[:size]), used


def patched(base, regs, stream):
    """@base with its ETM3 block's registers set to @regs and, when
    @stream, its AUX data replaced by frames of @stream. Returns the file
    and how many bytes of @stream it carries."""
    d = bytearray(base)
    at = d.find(MAGIC_ETM3)
    if at < 0:
        raise SystemExit("no ETMv3/PTM metadata block in the encoded file")
    p = at + 24                      # magic, cpu, nr_params (version 1)
    params = list(struct.unpack_from("<4Q", d, p))   # ETMCR, TRACEIDR, CCER, IDR
    params[0], params[2], params[3] = regs["etmcr"], regs["etmccer"], regs["etmidr"]
    struct.pack_into("<4Q", d, p, *params)
    used = 0
    if stream:
        for off, size in auxtrace_payloads(bytes(d)):
            data, used = frames(params[1] & 0x7F, stream, size)
            d[off:off + size] = data
    return bytes(d), params[1] & 0x7F, used


def records(text, schema):
    """(type, bytes, id) of each record, each checked against @schema."""
    try:
        recs = etmkit_json.lines(text, schema)
    except etmkit_json.SchemaMismatch as e:
        fail(str(e))
        return []
    return [(r["type"], r.get("bytes"), r.get("id")) for r in recs if r["type"] != "gap"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--records", required=True, help="tests/data/records")
    a = ap.parse_args()
    rstk = os.path.join(a.shared, "testdata", "ptm", "tc2-ptm-rstk-t32", "PTM_0_2.bin")
    if not os.path.isfile(rstk):
        skip(rstk + " not found")
    stream = open(rstk, "rb").read()
    with tempfile.TemporaryDirectory(prefix="cli_perf_ptm_") as tmp:
        base = os.path.join(tmp, "etm3.data")
        subprocess.run([a.etmkit, "encode", "--from-record",
                        os.path.join(a.records, "a32_t32_flow.txt"), "--protocol", "etmv3",
                        "--format", "perf-data", "-o", base, "-q"], check=True)
        base_bytes = open(base, "rb").read()
        # 2. as written: ETMv3
        recs = records(etmkit(a.etmkit, "packets", base, "--json"), "packets-etmv3")
        if not any(t == "p_header" for t, _, _ in recs):
            fail("the ETMv3 recording as written lists no P-header")
        # 1. PTM registers and PTM bytes
        data, tid, used = patched(base_bytes, PTM_REGS, stream)
        ptm = os.path.join(tmp, "ptm.data")
        open(ptm, "wb").write(data)
        got = records(etmkit(a.etmkit, "packets", ptm, "--json"), "packets-ptm")
        raw = os.path.join(tmp, "ptm.bin")
        open(raw, "wb").write(stream[:used])
        want = records(etmkit(a.etmkit, "packets", raw, "--protocol", "ptm", "--frames",
                              "none", "--id", str(tid),
                              *sum((["--" + k, hex(v)] for k, v in PTM_REGS.items()), []),
                              "--json"), "packets-ptm")
        kinds = {t for t, _, _ in got}
        if got != want or not {"a_sync", "i_sync", "atom", "branch_address"} <= kinds:
            fail("PTM perf.data: %d records %s, the raw file's %d (first differing: %s)" % (
                len(got), sorted(kinds), len(want),
                next((g, w) for g, w in zip(got + [None], want + [None]) if g != w)
                if got != want else "none"))
        else:
            print("ok   PTM metadata block: %d PTM records of ID 0x%02x (%d bytes of "
                  "tc2-ptm-rstk-t32), as from the raw file" % (len(got), tid, used))
        # 3. ETMIDR[11:8] = 2 with PTM's other registers: ETMv3
        regs = dict(PTM_REGS, etmidr=0x410CF250)
        data, _, _ = patched(base_bytes, regs, None)
        v3 = os.path.join(tmp, "v3.data")
        open(v3, "wb").write(data)
        recs = records(etmkit(a.etmkit, "packets", v3, "--json"), "packets-etmv3")
        if not recs:
            fail("ETMIDR 0x410CF250 with PTM's ETMCR/ETMCCER: no ETMv3 record")
        else:
            print("ok   ETMIDR[11:8] = 2: ETMv3 (%d records)" % len(recs))
    print("%d failure%s" % (len(FAILS), "" if len(FAILS) == 1 else "s"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
