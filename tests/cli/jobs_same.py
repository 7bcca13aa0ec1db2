#!/usr/bin/env python3
"""--jobs N (etmkit_session_config.jobs, src/session/session_jobs.c; the
decode listing formatted on N - 1 threads, cli/format_pool.c): the output
of decode, profile and coverage is byte for byte that of --jobs 1
(everything on the main thread) at 2, 3 and 8 threads: stdout, stderr and
the exit status, on every multi-source input the tests have, and the
decode listings (text and --json, per instruction and --ranges) of two
one-source snapshots.

Inputs: the TC2 snapshot (ETMv3, two sources 0x10 and 0x11 in one formatted
buffer, plus sources of protocols not decoded), juno_r1_1 (ETMv4, four
sources), the shared perf.data recordings (simpleperf: one CPU formatted;
a kernel recording with two CPUs and TRUNCATED AUX records; one whose AUX
data is missing), two recordings written by `etmkit encode --format
perf-data` from an execution record (ETE on two CPUs, raw TRBE-like AUX
records and formatted ones), and damaged copies of TC2's buffer (bytes
overwritten: decode errors and frame errors), decoded with and without
--stop-on-error. One-source: tme_test (ETE, 83 000 lines: 40 batches of
the pool's) and juno-uname-001 (ETMv4). PTM: the TC2 snapshot's source
0x13 (decoded with the others), Snowball (two PTM sources, PFTv1.0) and
tc2-ptm-rstk-t32 (one, return stack on, unformatted), decode, profile
and coverage, and a damaged copy of Snowball. Each command line runs at every
thread count; the first difference fails the test with the command line.

Usage: jobs_same.py --etmkit ETMKIT --shared SHARED_DIR --work DIR
(exit 77 when SHARED_DIR/testdata is absent)."""
import argparse
import os
import shutil
import subprocess
import sys

JOBS = ("1", "2", "3", "8")
RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "data", "records", "a64_flow.txt")


def run(etmkit, args):
    p = subprocess.run([etmkit] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr


def same(etmkit, args, failures):
    """Run @args at every --jobs; True when all agree."""
    ref = None
    for j in JOBS:
        got = run(etmkit, [args[0], "--jobs", j] + args[1:])
        if ref is None:
            ref = got
            continue
        if got != ref:
            what = ("exit %d vs %d" % (got[0], ref[0]) if got[0] != ref[0]
                    else "stdout" if got[1] != ref[1] else "stderr")
            failures.append("%s: --jobs %s differs from --jobs 1 (%s)"
                            % (" ".join(args), j, what))
            print("FAIL: " + failures[-1])
            return False
    return True


def decode_forms(inp):
    return [["decode"] + inp, ["decode", "--json"] + inp,
            ["decode", "--ranges", "--stats"] + inp,
            ["decode", "--ranges", "--json"] + inp]


def profile_forms(inp):
    return [["profile", "--format", "autofdo"] + inp,
            ["profile", "--format", "bolt"] + inp,
            ["coverage", "--format", "text"] + inp,
            ["coverage"] + inp]


def damaged(shared, work):
    """Copies of TC2 with bytes of its buffer overwritten: one where the
    packets go wrong (every 997th byte), one where frames do too (a run
    of 0xFF, a bad frame ID, in the middle); and of Snowball (PTM), its
    packets gone wrong."""
    out = []
    xor = lambda b: [b.__setitem__(i, b[i] ^ 0x5A)
                     for i in range(500, len(b), 997)]
    for name, snap, spoil in (
            ("tc2_bytes", "etmv3/TC2", xor),
            ("tc2_frames", "etmv3/TC2", lambda b: b.__setitem__(
                slice(16000, 16100), b"\xff" * 100)),
            ("snowball_bytes", "ptm/Snowball", xor)):
        src = os.path.join(shared, "testdata", *snap.split("/"))
        d = os.path.join(work, name)
        if os.path.exists(d):
            shutil.rmtree(d)
        shutil.copytree(src, d)
        path = os.path.join(d, "cstrace.bin")
        os.chmod(d, 0o755)
        for f in os.listdir(d):
            os.chmod(os.path.join(d, f), 0o644)
        b = bytearray(open(path, "rb").read())
        spoil(b)
        open(path, "wb").write(bytes(b))
        out.append(d)
    return out


def encoded(etmkit, work):
    """perf.data files of ETE on two CPUs from the execution record: raw
    (TRBE-like) AUX records and formatted ones."""
    out = []
    for name, frames in (("raw.data", ["--frames", "none"]),
                         ("framed.data", [])):
        path = os.path.join(work, name)
        rc, _, err = run(etmkit, ["encode", "--protocol", "ete", "--format",
                                  "perf-data", *frames, "--cpus", "2",
                                  "--aux-size", "64", "-q", "-o", path,
                                  "--from-record", RECORD, "--from-record",
                                  RECORD])
        if rc != 0:
            print("FAIL: encode %s: %s" % (name, err.decode()))
            return None
        out.append(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    td = os.path.join(a.shared, "testdata")
    if not os.path.isdir(td):
        print("skip: no %s" % td)
        return 77
    os.makedirs(a.work, exist_ok=True)
    failures = []
    e = a.etmkit
    tc2 = ["--snapshot", os.path.join(td, "etmv3", "TC2")]
    juno = ["--snapshot", os.path.join(td, "etmv4", "juno_r1_1")]
    perf = os.path.join(td, "perf")
    symfs = os.path.join(a.work, "symfs")
    for rec, f in (("data/local/tmp/etm_test_loop", "etm_test_loop"),
                   ("vendor/lib/modules/rq_stats.ko", "rq_stats.ko")):
        dst = os.path.join(symfs, rec)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            os.symlink(os.path.join(perf, f), dst)
    cases = []
    snowball = ["--snapshot", os.path.join(td, "ptm", "Snowball")]
    for inp in (tc2, juno, snowball,
                ["--snapshot", os.path.join(td, "ptm", "tc2-ptm-rstk-t32")]):
        cases += decode_forms(inp) + profile_forms(inp)
    for snap in (os.path.join("ete", "tme_test"),
                 os.path.join("etmv4", "juno-uname-001")):
        cases += decode_forms(["--snapshot", os.path.join(td, snap)])
    for f in ("perf_etm.data", "perf_kernel.data",
              "perf_with_missing_aux_data.data"):
        inp = [os.path.join(perf, f), "--symfs", symfs]
        cases += decode_forms(inp) + profile_forms(inp)
    gen = encoded(e, a.work)
    if gen is None:
        return 1
    for path in gen:
        inp = [path]
        cases += decode_forms(inp) + profile_forms(inp)
        cases.append(["decode", "--ranges", "--cpu", "1", path])
    for d in damaged(a.shared, a.work):
        inp = ["--snapshot", d]
        cases += decode_forms(inp) + profile_forms(inp)
        cases.append(["decode", "--stop-on-error"] + inp)
        cases.append(["decode", "--ranges", "--stop-on-error"] + inp)
    ran = 0
    for c in cases:
        same(e, c, failures)
        ran += 1
    if failures:
        print("%d of %d command lines differ" % (len(failures), ran))
        return 1
    print("%d command lines, the same output at --jobs %s"
          % (ran, ", ".join(JOBS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
