#!/usr/bin/env python3
"""`etmkit profile` (cli/cmd_profile.c, src/profile/).

1. Golden: perf_etm.data with etm_test_loop found by --symfs at its
   recorded path (/data/local/tmp/etm_test_loop; the side-band maps it as
   the recording's MMAP2 records say, digest perf-data.md 3.11) gives, byte
   for byte, perf_inject.data, the profile simpleperf's inject wrote for
   that recording (digest 4a's worked check); so does --elf naming the file
   (matched to the recorded binary by its build id). --binary keeps it when
   the recorded path matches, writes nothing when not.
   The kernel recording's ranges go to rq_stats.ko (found by --symfs at
   /vendor/lib/modules/rq_stats.ko): one block, with the recorded path and
   the module's own build id (its ELF note, read here), every range inside
   its .text (ELF addresses from 0, the section's size read here).
2. Round trips: execution records encoded as ETMv3, ETMv4 and ETE trace
   (etmkit encode; ETMv4/ETE are profiled from instruction range elements) and profiled from the snapshot; the ranges and branches are
   computed here from the record alone, by the rules of digest 4a (a range
   ends at every branch, taken or not; a taken direct branch goes to the
   next range's start, an indirect one to 0; gaps and exceptions cut), and
   must equal the profile's (summed over its binaries: the snapshot's
   dumps are raw files, whose addresses are the run-time ones).
3. Bad input: clear errors and exit statuses.

Usage: cli_profile.py ETMKIT SHARED_DIR RECORDS_DIR
(77 when SHARED_DIR/testdata is absent)"""
import os
import re
import subprocess
import sys
import tempfile

# Imported by tests/perf/perf_write_rt.py for record_profile() and
# parse_autofdo(): the arguments only when run.
ETMKIT, SHARED, RECORDS = (sys.argv[1:4] if __name__ == "__main__"
                           else (None, None, None))
PERF = os.path.join(SHARED or "", "testdata", "perf")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([ETMKIT, "profile"] + list(args), capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def symfs_with(tmp, recorded, f):
    dst = os.path.join(tmp, "symfs", recorded.lstrip("/"))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if not os.path.exists(dst):
        os.symlink(os.path.abspath(f), dst)
    return os.path.join(tmp, "symfs")


def golden(tmp):
    data = os.path.join(PERF, "perf_etm.data")
    symfs = symfs_with(tmp, "/data/local/tmp/etm_test_loop",
                       os.path.join(PERF, "etm_test_loop"))
    want = open(os.path.join(PERF, "perf_inject.data"), "rb").read()
    out = os.path.join(tmp, "out.txt")
    rc, _, err = run(data, "--symfs", symfs, "--format", "autofdo", "-o", out)
    check(rc == 0, "golden: exit %d (%s)" % (rc, err.strip()))
    got = open(out, "rb").read() if os.path.exists(out) else b""
    check(got == want, "golden: output differs from perf_inject.data:\n"
          + got.decode(errors="replace"))
    elf = os.path.join(PERF, "etm_test_loop")
    rc, stdout, err = run(data, "--elf", elf)
    check(rc == 0 and stdout.encode() == want,
          "golden with --elf: exit %d (%s)" % (rc, err.strip()))
    rc, stdout, _ = run(data, "--symfs", symfs, "--binary", "etm_test")
    check(rc == 0 and stdout.encode() == want, "--binary matching")
    rc, stdout, _ = run(data, "--symfs", symfs, "--binary", "^/system/")
    check(rc == 0 and stdout == "", "--binary matching nothing: %r" % stdout)


def elf_build_id_and_text(path):
    """The GNU build id note and .text's size of ELF file @path, by
    readelf (not etmkit)."""
    notes = subprocess.run(["readelf", "-n", path], capture_output=True,
                           text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", notes)
    secs = subprocess.run(["readelf", "-SW", path], capture_output=True,
                          text=True).stdout
    t = re.search(r"\] \.text\s+PROGBITS\s+\S+\s+\S+\s+(\S+)", secs)
    return (m.group(1) if m else ""), (int(t.group(1), 16) if t else 0)


def kernel_module(tmp):
    data = os.path.join(PERF, "perf_kernel.data")
    ko = os.path.join(PERF, "rq_stats.ko")
    symfs = symfs_with(tmp, "/vendor/lib/modules/rq_stats.ko", ko)
    rc, out, err = run(data, "--symfs", symfs)
    check(rc == 0, "kernel: exit %d (%s)" % (rc, err.strip()))
    bid, text = elf_build_id_and_text(ko)
    lines = out.splitlines()
    check(("// build_id: 0x" + bid.ljust(40, "0")) in lines and
          "// /vendor/lib/modules/rq_stats.ko" in lines and
          sum(l.startswith("// build_id") for l in lines) == 1,
          "kernel: not one rq_stats.ko block with build id %s:\n%s" %
          (bid, out))
    n = int(lines[0]) if lines and lines[0].isdigit() else 0
    ranges = [l.split(":")[0].split("-") for l in lines[1:1 + n]]
    check(n > 0 and text > 0 and
          all(0 <= int(a, 16) <= int(b, 16) < text for a, b in ranges),
          "kernel: %d ranges, not all inside .text (size %#x): %r" %
          (n, text, ranges))


def record_profile(path):
    """Ranges and branches from an execution record (docs/exec-record.md),
    by digest 4a's rules: {(from, to): count} twice."""
    ranges, branches = {}, {}
    run_start = None
    pend = None    # [start, end, taken, direct, target]

    def flush():
        nonlocal pend
        if pend:
            ranges[(pend[0], pend[1])] = ranges.get((pend[0], pend[1]), 0) + 1
            if pend[2]:
                k = (pend[1], pend[4] if pend[3] else 0)
                branches[k] = branches.get(k, 0) + 1
        pend = None

    def close(end, taken, direct, target):
        nonlocal run_start, pend
        if pend and pend[2] and pend[3]:
            pend[4] = run_start   # a direct branch goes where the next starts
        flush()
        pend = [run_start, end, taken, direct, target]
        run_start = None

    last = None
    for line in open(path):
        f = line.split("#")[0].split()
        if not f or f[0] == "etmkit-exec":
            continue
        if f[0] in ("gap", "exc"):
            if run_start is not None:
                close(last, False, False, 0)
            flush()
            continue
        if not f[0].startswith("0x"):
            continue          # ctx, ts: no change of path
        addr = int(f[0], 16)
        if run_start is None:
            run_start = addr
        last = addr
        rest = f[3:]
        tgt = [w for w in rest if w.startswith("->")]
        if "b" in rest or "bi" in rest:
            target = int(tgt[0][2:].split(":")[0], 16) if tgt else 0
            close(addr, bool(tgt), "b" in rest, target)
    if run_start is not None:
        close(last, False, False, 0)
    flush()
    return ranges, branches


def parse_autofdo(text):
    """All blocks of an AutoFDO text profile, counts summed by key."""
    ranges, branches = {}, {}
    for line in text.splitlines():
        m = re.fullmatch(r"([0-9a-f]+)-([0-9a-f]+):(\d+)", line)
        if m:
            k = (int(m.group(1), 16), int(m.group(2), 16))
            ranges[k] = ranges.get(k, 0) + int(m.group(3))
        m = re.fullmatch(r"([0-9a-f]+)->([0-9a-f]+):(\d+)", line)
        if m:
            k = (int(m.group(1), 16), int(m.group(2), 16))
            branches[k] = branches.get(k, 0) + int(m.group(3))
    return ranges, branches


def etm3_round_trip(tmp):
    for name, proto in (("a32_t32_flow.txt", "etmv3"),
                        ("a64_flow.txt", "etmv4"), ("a64_flow.txt", "ete")):
        rec = os.path.join(RECORDS, name)
        snap = os.path.join(tmp, "snap_%s_%s" % (proto, name))
        p = subprocess.run([ETMKIT, "encode", "--from-record", rec,
                            "--protocol", proto, "--out", snap],
                           capture_output=True, text=True)
        check(p.returncode == 0, "encode %s: %s" % (name, p.stderr))
        rc, out, err = run("--snapshot", snap)
        check(rc == 0, "profile %s: exit %d (%s)" % (name, rc, err.strip()))
        got = parse_autofdo(out)
        want = record_profile(rec)
        check(want[0] and got[0] == want[0],
              "%s ranges: got %s, want %s" % (name, sorted(got[0].items()),
                                               sorted(want[0].items())))
        check(got[1] == want[1],
              "%s branches: got %s, want %s" % (name, sorted(got[1].items()),
                                                 sorted(want[1].items())))


def bad_input(tmp):
    data = os.path.join(PERF, "perf_etm.data")
    rc, _, err = run(data, "--format", "lbr")
    check(rc == 2 and "unknown profile format 'lbr'" in err,
          "--format lbr: %d %s" % (rc, err))
    rc, _, err = run(data, "--binary", "(")
    check(rc == 2 and "invalid regular expression '('" in err,
          "--binary (: %d %s" % (rc, err))
    missing = os.path.join(tmp, "missing.data")
    rc, _, err = run(missing, "--protocol", "etmv4", "--frames", "none",
                     "--image",
                     missing + "@0x1000")
    check(rc == 3 and missing in err, "missing input: %d %s" % (rc, err))
    out = os.path.join(tmp, "no", "such", "dir", "out.txt")
    rc, _, err = run(data, "--elf", os.path.join(PERF, "etm_test_loop"),
                     "-o", out)
    check(rc == 3 and out in err and "cannot write" in err,
          "unwritable output: %d %s" % (rc, err))
    garbage = os.path.join(tmp, "garbage.data")
    with open(garbage, "wb") as f:
        f.write(b"PERFILE2" + b"\xff" * 100)
    rc, _, err = run(garbage)
    check(rc == 3 and garbage in err, "malformed perf.data: %d %s" % (rc, err))


def main():
    if not os.path.isdir(os.path.join(SHARED, "testdata")):
        print("no %s/testdata: skipped" % SHARED)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        golden(tmp)
        kernel_module(tmp)
        etm3_round_trip(tmp)
        bad_input(tmp)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
