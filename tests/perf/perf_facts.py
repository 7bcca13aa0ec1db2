#!/usr/bin/env python3
"""Independent reading of a perf.data file (Linux perf or simpleperf), written
from docs/../spec/perf-data.md with Python's struct module only, sharing no
code with src/perf/. Prints a summary in the same line format as
tests/perf/perf_summary.c; with --compare PROG the two are diffed.

Usage: perf_facts.py FILE [--compare PERF_SUMMARY_BINARY]
Exit: 0 same (or printed), 1 differ, 77 FILE missing."""
import os
import struct
import subprocess
import sys

NAMES = {1: "MMAP", 3: "COMM", 4: "EXIT", 7: "FORK", 10: "MMAP2", 11: "AUX",
         12: "ITRACE_START", 21: "AUX_OUTPUT_HW_ID", 70: "AUXTRACE_INFO",
         68: "FINISHED_ROUND", 71: "AUXTRACE"}


def summary(path):
    d = open(path, "rb").read()
    out = []
    magic, hsize, attr_size = struct.unpack_from("<8sQQ", d, 0)
    assert magic == b"PERFILE2"
    a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", d, 24)
    feats = d[72:104]
    bits = [n for n in range(256) if feats[n // 8] >> (n % 8) & 1]
    variant = "simpleperf" if any(b >= 128 for b in bits) else "linux"
    out.append("variant %s attrs %d data %d+%d" % (variant, a_size // attr_size,
                                                   d_off, d_size))
    # attr 0: sample_type at 24, flag word at 40 (digest 1.3)
    st = struct.unpack_from("<Q", d, a_off + 24)[0]
    flags = struct.unpack_from("<Q", d, a_off + 40)[0]
    atype = struct.unpack_from("<I", d, a_off)[0]
    out.append("attr0 type %d sample_type 0x%x sample_id_all %d" %
               (atype, st, flags >> 18 & 1))
    # feature table after data (digest 1.4); BUILD_ID is bit 2
    tab = d_off + d_size
    secs = {}
    for i, b in enumerate(bits):
        secs[b] = struct.unpack_from("<QQ", d, tab + 16 * i)
    if 2 in secs:
        o, n = secs[2]
        p = o
        while p < o + n:
            _t, _m, sz = struct.unpack_from("<IHH", d, p)
            bid = d[p + 12:p + 32]
            name = d[p + 36:p + sz].split(b"\0")[0].decode()
            out.append("build_id %s %s" % (bid.hex(), name))
            p += sz
    # records (digest 1.5, 1.6, 2)
    trailer = [(1, 8), (2, 8), (6, 8), (9, 8), (7, 8), (16, 8)]
    tsize = sum(8 for b, _ in trailer if st >> b & 1) if flags >> 18 & 1 else 0
    counts = {}
    aux_by_cpu = {}
    auxtrace = []
    pos, end = d_off, d_off + d_size
    recs = []
    while pos < end:
        typ, misc, sz = struct.unpack_from("<IHH", d, pos)
        if typ >= 32768:
            hi, lo = struct.unpack_from("<HH", d, pos + 4)
            sz = hi << 16 | lo
        counts[typ] = counts.get(typ, 0) + 1
        recs.append((pos, typ, misc, sz))
        nxt = pos + sz
        if typ == 71:
            size, off, _ref, idx, tid, cpu = struct.unpack_from("<QQQIII", d, pos + 8)
            auxtrace.append((pos + 48, size, off, idx, tid, cpu))
            out.append("auxtrace at %d size %d offset %d idx %d tid %d cpu %d" %
                       (pos, size, off, idx, tid, cpu))
            nxt += size
        pos = nxt
    out.append("records " + " ".join("%s=%d" % (NAMES.get(t, str(t)), c)
                                      for t, c in sorted(counts.items())))

    def trailer_cpu_tid(pos, sz):
        vals, p = {}, pos + sz - tsize
        for b, _ in trailer:
            if st >> b & 1:
                vals[b] = struct.unpack_from("<Q", d, p)[0]
                p += 8
        cpu = vals.get(7, 0) & 0xFFFFFFFF
        tid = vals.get(1, 0) >> 32
        return cpu, tid

    for pos, typ, misc, sz in recs:
        if typ == 70:
            ver, pc, snap = struct.unpack_from("<QQQ", d, pos + 16)
            ncpu, pmu = pc & 0xFFFFFFFF, pc >> 32
            out.append("cs_etm version %d pmu %d cpus %d snapshot %d" %
                       (ver, pmu, ncpu, snap))
            p = pos + 40
            for _ in range(ncpu):
                magic, cpu = struct.unpack_from("<QQ", d, p)
                if ver == 0:
                    n = 4 if magic == 0x3030303030303030 else 7
                    p += 16
                else:
                    n = struct.unpack_from("<Q", d, p + 16)[0]
                    p += 24
                w = struct.unpack_from("<%dQ" % n, d, p)
                p += 8 * n
                kind = {0x3030303030303030: "etm3", 0x4040404040404040: "etm4",
                        0x5050505050505050: "ete"}[magic]
                if kind == "etm3" and w[3] & 0x300 == 0x300:
                    kind = "ptm"
                out.append("cpu %d %s params %d trace_id 0x%x config 0x%x" %
                           (cpu, kind, n, w[1] & 0x7F, w[0]))
        elif typ == 10:
            pid, tid, start, ln, pgoff = struct.unpack_from("<IIQQQ", d, pos + 8)
            prot = struct.unpack_from("<I", d, pos + 64)[0]
            name = d[pos + 72:pos + sz].split(b"\0")[0].decode()
            if "etm_test_loop" in name:
                out.append("mmap2 %s start 0x%x len 0x%x pgoff 0x%x prot 0x%x" %
                           (name, start, ln, pgoff, prot))
        elif typ == 11:
            aoff, asz, fl = struct.unpack_from("<QQQ", d, pos + 8)
            cpu, tid = trailer_cpu_tid(pos, sz)
            have = any(c == cpu and o <= aoff and aoff + asz <= o + s
                       for (_fp, s, o, _i, _t, c) in auxtrace)
            e = aux_by_cpu.setdefault(cpu, [0, 0, 0, 0, 0])
            e[0] += 1
            e[1] += asz
            e[2] |= fl
            if asz and have:
                e[3] += asz
            if asz and not have:
                e[4] += 1
    for cpu in sorted(aux_by_cpu):
        n, total, fl, withdata, missing = aux_by_cpu[cpu]
        out.append("aux cpu %d records %d bytes %d flags 0x%x with_data %d missing %d"
                   % (cpu, n, total, fl, withdata, missing))
    return "\n".join(out) + "\n"


def main():
    path = sys.argv[1]
    if not os.path.exists(path):
        print("perf_facts: %s missing: skipped" % path)
        return 77
    mine = summary(path)
    if len(sys.argv) > 3 and sys.argv[2] == "--compare":
        theirs = subprocess.run([sys.argv[3], path], capture_output=True,
                                text=True)
        if theirs.returncode != 0 or theirs.stdout != mine:
            sys.stdout.write("python:\n" + mine + "etmkit:\n" + theirs.stdout +
                             theirs.stderr)
            return 1
        print("same: %d lines" % mine.count("\n"))
        return 0
    sys.stdout.write(mine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
