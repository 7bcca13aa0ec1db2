#!/usr/bin/env python3
"""`etmkit packets FILE` on the shared perf.data recordings (cli/input_perf.c).
Expected values from the digest's verified notes (../shared/spec/perf-data.md
3.3, 3.6) and the recordings' README, not from etmkit's own output:
perf_etm.data's AUX data is CPU 7's (trace ID 0x1E), four chunks each
starting with an A-sync and a Trace Info; the program runs as pid 17235
(context ID 0x4353) with its text mapped at 0x582b2b1000; the
missing-AUX recording has no data to list: its six AUX records (digest 3.7;
the README: a reader must accept it) give one warning and exit 0.

Usage: cli_perf.py ETMKIT SHARED_DIR   (77 when SHARED_DIR/testdata is absent)"""
import os
import subprocess
import sys


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
    r = subprocess.run([etmkit, "packets",
                        os.path.join(d, "perf_with_missing_aux_data.data")],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stdout or \
            "6 AUX records (1535344 bytes of trace) with no trace data" not in r.stderr:
        bad.append("missing-aux: exit %d, %r" % (r.returncode, r.stderr))
    r = subprocess.run([etmkit, "packets", "--id", "0x10",
                        os.path.join(d, "perf_kernel.data")],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout or any(
            l.split()[1] != "10" for l in r.stdout.splitlines()):
        bad.append("perf_kernel.data --id 0x10: exit %d" % r.returncode)
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("cli_perf: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
