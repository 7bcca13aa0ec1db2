#!/usr/bin/env python3
"""Peak memory of the perf.data commands independent of the file's length
(issue 15; docs/perf-data.md "Memory").

perf_etm.data's last AUX chunk (a whole trace piece: A-sync to a packet
boundary) is repeated by tests/perf/perf_repeat (the project's writer) into
a 2 MiB and a 32 MiB perf.data of 64 KiB AUX records, in the build
directory. `etmkit profile` (every --format), `etmkit flame`, `etmkit
coverage`, `etmkit decode` (every instruction decoded, none listed: --pid
of no process) and `etmkit frames --summary` run on each; each run's peak resident set (tests/perf/peak_rss: the child's
ru_maxrss from wait4) on the
big file must stay within 8 MiB of that on the small one, and decode must
find the same instructions in every AUX record of both (no gap). The file is
mapped, and every pass over its records (the walk at open, the side-band,
the metadata checks, the AUX data) touches pages across all of it: unless
the passes give them back, the peak is the file's size.

Usage: perf_rss.py --etmkit ETMKIT --repeat PERF_REPEAT --peak-rss PEAK_RSS
                   --shared DIR --tmp DIR
Exit: 0 pass, 1 fail, 77 SHARED/testdata absent (fails with CI=true)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SMALL_MB, BIG_MB = 2, 32
SLACK_KIB = 8 * 1024


def peak_kib(peak_rss, tmp, cmd):
    """Run @cmd (stdout discarded) under tests/perf/peak_rss: its peak RSS
    in KiB (a fork of this interpreter would count its own) and stderr."""
    out = os.path.join(tmp, "peak")
    p = subprocess.run([peak_rss, out] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
        sys.exit(1)
    with open(out) as f:
        return int(f.read()), p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--repeat", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--peak-rss", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    perf = os.path.join(a.shared, "testdata", "perf")
    if not os.path.isfile(os.path.join(perf, "perf_etm.data")):
        print(f"no {perf}/perf_etm.data: skipped")
        return 1 if os.environ.get("CI") == "true" else 77
    elf = os.path.join(perf, "etm_test_loop")
    tmp = tempfile.mkdtemp(prefix="perf_rss.", dir=a.tmp)
    fails = []
    try:
        files, records = {}, {}
        for mb in (SMALL_MB, BIG_MB):
            files[mb] = os.path.join(tmp, f"{mb}mb.data")
            p = subprocess.run([a.repeat, os.path.join(perf, "perf_etm.data"),
                                files[mb], str(mb)], check=True,
                               capture_output=True, text=True)
            records[mb] = int(p.stdout.split()[0])
        cmds = {
            "profile": ["profile", "{f}", "--elf", elf, "-o", os.devnull],
            "decode": ["decode", "{f}", "--elf", elf, "--pid", "1",
                       "--stats"],
            "frames": ["frames", "--summary", "{f}"],
        }
        # Every output of issue 16: memory follows the distinct ranges,
        # branches, stacks and instructions, not the trace's length.
        for fmt in ("bolt", "profgen", "folded", "chrome"):
            cmds["profile --format " + fmt] = [
                "profile", "{f}", "--elf", elf, "--format", fmt,
                "-o", os.devnull]
        cmds["flame"] = ["flame", "{f}", "--elf", elf, "-o", os.devnull]
        cmds["coverage"] = ["coverage", "{f}", "--elf", elf, "--format",
                            "text", "-o", os.devnull]
        for name, args in cmds.items():
            rss, stats = {}, {}
            for mb in (SMALL_MB, BIG_MB):
                rss[mb], err = peak_kib(a.peak_rss, tmp, [a.etmkit] + [
                    x.format(f=files[mb]) for x in args])
                m = re.search(r"(\d+) instructions, (\d+) no_image, "
                              r"(\d+) gaps", err)
                stats[mb] = tuple(map(int, m.groups())) if m else None
            if name == "decode":
                # The pages given back come back right: every AUX record
                # (the same piece) decodes to the same instructions.
                s, b = stats[SMALL_MB], stats[BIG_MB]
                if (not s or not b or s[0] == 0 or s[1:] != (0, 0) or
                        b[1:] != (0, 0) or
                        s[0] * records[BIG_MB] != b[0] * records[SMALL_MB]):
                    fails.append(f"decode --stats: {s} on {records[SMALL_MB]}"
                                 f" AUX records, {b} on {records[BIG_MB]}: "
                                 "expected the same instructions per "
                                 "record, no gap")
            size = os.path.getsize(files[BIG_MB]) // 1024
            line = (f"{name}: peak RSS {rss[SMALL_MB]} KiB on "
                    f"{SMALL_MB} MiB, {rss[BIG_MB]} KiB on {BIG_MB} MiB "
                    f"({size} KiB)")
            print(line)
            if rss[BIG_MB] > rss[SMALL_MB] + SLACK_KIB:
                fails.append(f"{line}: grows with the file by more than "
                             f"{SLACK_KIB} KiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
