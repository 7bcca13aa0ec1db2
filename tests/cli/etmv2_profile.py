#!/usr/bin/env python3
"""etmkit profile / flame / coverage on ETMv2 captures, --progress and the
summary lines (cli/counting.c, cli/input_etm2.c).

1. Same instructions, same profile: each armhf QEMU log of tests/data/qemu
   is encoded twice, by the ETMv3 encoder and by the ETMv2 one, into
   snapshot directories of the same relative name (v3/LOG/snap and
   v2/LOG/snap, each run from its own folder, so that the binary's name,
   the dump's path, is the same). profile --format autofdo, bolt,
   profgen, profgen --stacks, folded, and flame (the SVG) must be byte for
   byte the same from both. The one expected difference: chrome's pid and
   process name are the trace ID, 0x10 for the ETMv3 encoder's source and
   0x00 for an ETMv2 capture (one source a capture, no trace ID,
   docs/etmv2-capture.md), and its thread metadata follows from it: only
   the function slices (name, ts, dur, depth) are compared. Not compared:
   --weight cycles (cycle counts are each protocol's own). ETMv2 traces
   what ETMv3 does for these (every instruction's condition, IE / IN, and
   every taken indirect branch's address), so there is no branch record
   ETMv2 lacks here.
   The raw FILE form (--protocol etmv2 with --image at the dump's address)
   gives the snapshot's autofdo profile.
2. --progress: a 4 MiB binary capture of WT cycles (never synced) through
   decode and profile with stderr a pipe: a progress line "N of 4.2 MB of
   trace", then the health warning in cycles (1048576 cycles, no sync).
3. Summary lines as for ETMv3: the snapshot with its dump cut to 0x140 bytes
   gives decode's no_image note (the same count as the ETMv3 snapshot cut
   the same way, exit 0); a capture with PIPESTAT damaged gives gap lines
   and "N decode errors in the trace (gap lines)" with N the gap lines of a
   decode error, exit 1, and profile exits 1 with "N decode errors" too.

Usage: etmv2_profile.py --etmkit ETMKIT --work DIR"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail as verdict_fail  # noqa: E402  (tests/verdict.py)
QEMU = os.path.join(HERE, "..", "data", "qemu")
LOGS = ("tiny-a32-state", "tiny-a32-block", "tiny-a32-cpu")
FORMATS = (("autofdo", ["--format", "autofdo"]),
           ("bolt", ["--format", "bolt"]),
           ("profgen", ["--format", "profgen"]),
           ("profgen-cs", ["--format", "profgen", "--stacks"]),
           ("folded", ["--format", "folded"]),
           ("chrome", ["--format", "chrome"]),
           ("flame", None))
CUT = 0x140  # bytes of the dump at 0x10000 kept (tiny's code: 0x100f4 on)
PROGRESS = re.compile(r"\r(\d+\.\d) of 4\.2 MB of trace \(\d+%\)")


def fail(what, why):
    verdict_fail("%s: %s" % (what, why))


def run(etmkit, args, cwd=None):
    p = subprocess.run([etmkit] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120, cwd=cwd)
    return p.returncode, p.stdout.decode(errors="replace"), \
        p.stderr.decode(errors="replace")


def slices(chrome):
    """The function slices of a chrome timeline, without pid and tid."""
    return "\n".join(re.sub(r',"pid":\d+,"tid":\d+', "", l)
                     for l in chrome.splitlines() if '"ph":"X"' in l)


def profile(e, what, cwd, fmt, args):
    cmd = ["flame"] if args is None else ["profile"] + args
    rc, out, err = run(e, cmd + ["--snapshot", "snap"], cwd)
    if rc != 0:
        fail(what, "exit %d: %s" % (rc, err.strip()))
    return out


def same_profiles(e, w):
    for log in LOGS:
        dirs = {}
        for p in ("etmv3", "etmv2"):
            d = os.path.join(w, p, log)
            os.makedirs(d)
            rc, _, err = run(e, ["encode", "--from-qemu",
                                 os.path.join(QEMU, log + ".log"),
                                 "--protocol", p, "--out", "snap", "-q"], d)
            if rc != 0:
                fail("encode %s %s" % (log, p), err.strip())
            dirs[p] = d
        for fmt, args in FORMATS:
            what = "%s %s" % (log, fmt)
            v3 = profile(e, what + " etmv3", dirs["etmv3"], fmt, args)
            v2 = profile(e, what + " etmv2", dirs["etmv2"], fmt, args)
            if fmt == "chrome":
                v3, v2 = slices(v3), slices(v2)
            if len(v2) < 100:
                fail(what, "ETMv2 profile nearly empty: %r" % v2)
            if v2 != v3:
                fail(what, "ETMv2 differs from ETMv3:\n%s\n---\n%s" %
                     (v2[:600], v3[:600]))
        # The raw FILE form, the dump at its address (cpu_0.ini).
        rc, out, err = run(e, ["profile", "snap/trace.bin", "--protocol",
                               "etmv2", "--image",
                               "snap/mem/mem_10000.bin@0x10000"],
                           dirs["etmv2"])
        snap = profile(e, log + " autofdo", dirs["etmv2"], "autofdo", [])
        if rc != 0 or out != snap:
            fail(log + " raw FILE", "exit %d, %s; differs from the "
                 "snapshot's: %r" % (rc, err.strip(), out[:300]))
    return dirs


# docs/etmv2-capture.md "Binary": a 32-byte header (ETMv2, 8-bit port).
HEADER = b"ETM2CAP\0" + struct.pack("<HHBBBBII8x", 1, 32, 2, 8, 0, 0, 0, 0)


def progress(e, w):
    cap = os.path.join(w, "wt.e2b")
    with open(cap, "wb") as f:
        # 1 Mi WT cycles (natural table: WT = 4): 4 MiB + 32 bytes.
        f.write(HEADER + struct.pack("<HBB", 0, 4, 0) * (1 << 20))
    warn = ("ETMv2 capture " + cap + ": 1048576 cycles and not one "
            "synchronisation point found: --etm-version, --etmcr")
    for cmd in (["decode"], ["profile", "-o", os.devnull]):
        rc, out, err = run(e, cmd + [cap, "--protocol", "etmv2", "--image",
                                     cap + "@0x10000", "--progress"])
        what = cmd[0] + " --progress"
        if rc != 0:
            fail(what, "exit %d: %s" % (rc, err))
        if not PROGRESS.search(err):
            fail(what, "no progress line: %r" % err)
        if cmd[0] == "decode" and warn not in err:
            fail(what, "no health warning in cycles: %r" % err)
        rc, out, err = run(e, cmd + [cap, "--protocol", "etmv2", "--image",
                                     cap + "@0x10000"])
        if "\r" in err:
            fail(cmd[0], "progress on a pipe without --progress")


def summary(e, w, dirs):
    # no_image: the dump cut short, in both snapshots.
    notes = {}
    for p in ("etmv3", "etmv2"):
        src = os.path.join(dirs[p], "snap")
        cut = os.path.join(w, "cut-" + p)
        shutil.copytree(src, cut)
        dump = os.path.join(cut, "mem", "mem_10000.bin")
        with open(dump, "rb") as f:
            data = f.read()
        with open(dump, "wb") as f:
            f.write(data[:CUT])
        ini = os.path.join(cut, "cpu_0.ini")
        with open(ini) as f:
            text = f.read()
        with open(ini, "w") as f:
            f.write(re.sub(r"length=0x[0-9a-f]+", "length=0x%x" % CUT, text))
        rc, out, err = run(e, ["decode", "--snapshot", cut, "--json"])
        n = sum(1 for l in out.splitlines()
                if json.loads(l)["kind"] == "no_image")
        notes[p] = (rc, [l for l in err.splitlines() if "no_image" in l], n)
    rc, lines, n = notes["etmv2"]
    if rc != 0 or n == 0 or lines != ["etmkit decode: note: %d place%s where "
                                      "the image has no code (no_image)" %
                                      (n, "" if n == 1 else "s")]:
        fail("no_image note", "exit %d, %d no_image, stderr %r" % (rc, n, lines))
    if notes["etmv2"] != notes["etmv3"]:
        fail("no_image note", "ETMv2 %r, ETMv3 %r" % (notes["etmv2"],
                                                      notes["etmv3"]))
    # Decode errors: PIPESTAT of every 7th cycle after the header set to
    # TR (natural table: 6), a trigger in place of an instruction's status;
    # and every 11th TRACEPKT byte flipped.
    snap = os.path.join(dirs["etmv2"], "snap")
    with open(os.path.join(snap, "trace.bin"), "rb") as f:
        data = bytearray(f.read())
    for i in range(32 + 4 * 40, len(data) - 4, 4 * 7):
        data[i + 2] = 6
    for i in range(32 + 4 * 41, len(data) - 4, 4 * 11):
        data[i] ^= 0x5a
    bad = os.path.join(w, "bad.e2b")
    with open(bad, "wb") as f:
        f.write(data)
    img = os.path.join(snap, "mem", "mem_10000.bin") + "@0x10000"
    rc, out, err = run(e, ["decode", bad, "--protocol", "etmv2", "--image",
                           img, "--json"])
    gaps = [json.loads(l) for l in out.splitlines()
            if json.loads(l)["kind"] == "gap"]
    errors = [g for g in gaps if g.get("reason") not in ("no_address",
                                                         "truncated")]
    want = "%d decode error%s in the trace (gap lines)" % (
        len(errors), "" if len(errors) == 1 else "s")
    if not errors or rc != 1 or want not in err:
        fail("decode errors", "exit %d, %d error gaps, stderr %r" %
             (rc, len(errors), err))
    rc, out, err = run(e, ["profile", bad, "--protocol", "etmv2", "--image",
                           img, "-o", os.devnull])
    want = "%d decode error%s in the trace (gaps)" % (
        len(errors), "" if len(errors) == 1 else "s")
    if rc != 1 or want not in err:
        fail("profile decode errors", "exit %d, stderr %r; expected %r" %
             (rc, err, want))


def jobs(e, dirs):
    """--jobs N: one source a capture, decoded on one thread; decode's
    listing is formatted on N - 1 threads (cli/format_pool.c) and must be
    byte for byte that of --jobs 1, as profile's output."""
    cwd = dirs["etmv2"]
    for cmd in (["decode"], ["decode", "--json"], ["decode", "--ranges"],
                ["profile", "--format", "folded"]):
        runs = [run(e, cmd + ["--snapshot", "snap", "--jobs", n], cwd)
                for n in ("1", "2", "3")]
        if runs[0][0] != 0 or len(runs[0][1]) < 100 or \
           any(r != runs[0] for r in runs[1:]):
            fail(" ".join(cmd) + " --jobs", "differs from --jobs 1 (exit "
                 "%s)" % [r[0] for r in runs])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.etmkit = os.path.abspath(a.etmkit)
    w = os.path.abspath(a.work)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    dirs = same_profiles(a.etmkit, w)
    progress(a.etmkit, w)
    summary(a.etmkit, w, dirs)
    jobs(a.etmkit, dirs)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
