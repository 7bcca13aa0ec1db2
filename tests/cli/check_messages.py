#!/usr/bin/env python3
"""etmkit's messages in one style (tests/cli/msg_style.py), on error cases
of every command; notes once per run and silenced by -q (--quiet), which
every command takes.

--shared DIR: the shared captures (the TC2 snapshot has an ITM source,
which decode and packets skip with a warning)."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msg_style  # noqa: E402

COMMANDS = ("decode", "packets", "frames", "encode", "profile")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared")
    a = ap.parse_args()
    failures = []
    tmp = tempfile.mkdtemp(prefix="etmkit-msg-")
    missing = os.path.join(tmp, "no-such-file.bin")
    empty = os.path.join(tmp, "empty.bin")
    open(empty, "wb").close()

    def run(args):
        p = subprocess.run([a.etmkit] + args, capture_output=True, timeout=120)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    def check(args, want_rc=None):
        rc, err = run(args)
        what = "etmkit " + " ".join(args)
        for prob in msg_style.problems(err, strict=True):
            failures.append("%s: %s" % (what, prob))
        if want_rc is not None and rc != want_rc:
            failures.append("%s: status %d, expected %d: %s" % (what, rc, want_rc, err.strip()))
        if rc != 0 and not err.strip():
            failures.append("%s: status %d and no message" % (what, rc))
        return rc, err

    cases = [
        ([], 2), (["nonsense"], 2), (["help", "nonsense"], 2),
        (["encode", "--from-record", missing, "--protocol", "ete",
          "--out", os.path.join(tmp, "out")], 3),
        (["encode", "--from-record", empty, "--protocol", "etmv3",
          "--out", os.path.join(tmp, "out")], 3),
        (["encode", "--protocol", "x"], 2),
        (["encode", "--trace-id", "0x99"], 2),
        (["decode", missing, "--protocol", "etmv3", "--etmcr", "0",
          "--etmidr", "0x410cf250", "--frames", "none"], 3),
        (["packets", missing, "--protocol", "ete", "--frames", "none"], 3),
        (["frames", missing], 3),
        (["packets", "--snapshot", missing], 3),
        (["packets", empty, "--protocol", "etmv3", "--etmcr", "0",
          "--etmidr", "0x41"], 2),
        (["packets", empty, "--protocol", "etmv4", "--etmcr", "0",
          "--frames", "none"], 2),
        (["packets", empty, "--protocol", "etmv3", "--trcidr0", "0",
          "--frames", "none"], 2),
        (["decode", empty, "--protocol", "etmv4", "--m-profile",
          "--frames", "none"], 2),
        (["packets", empty, "--snapshot", tmp], 2),
        (["decode", "--image", "nothing"], 2),
        (["profile", "--format", "bolt"], 2),
        (["profile", "--binary", "("], 2),
        (["profile", missing, "--protocol", "etmv4", "--frames", "none",
          "--image", missing + "@0x1000"], 3),
        (["profile", "--snapshot", missing], 3),
    ]
    for cmd in COMMANDS:
        cases += [([cmd, "--bogus"], 2), ([cmd, "-x"], 2), ([cmd, "--frames"], 2),
                  ([cmd, "one", "two"], 2)]
        if cmd != "encode":
            cases += [([cmd], 2), ([cmd, "--frames", "weird"], 2)]
    for args, rc in cases:
        check(args, rc)

    # -q and --quiet: every command takes them.
    for cmd in COMMANDS:
        for q in ("-q", "--quiet"):
            rc, err = run([cmd, q, "--help"])
            if rc != 0:
                failures.append("etmkit %s %s --help: status %d: %s" % (cmd, q, rc, err.strip()))

    # Notes: once each, and none with -q.
    tc2 = os.path.join(a.shared or "", "testdata", "etmv3", "TC2")
    if a.shared and os.path.isdir(tc2):
        for cmd in ("packets", "decode"):
            base = [cmd, "--snapshot", tc2, "--json"]
            rc, err = check(base)
            notes = [l for l in err.splitlines() if ": note: " in l]
            skips = [l for l in err.splitlines()
                     if ": warning: " in l and "skipping" in l]
            if not skips:
                failures.append("%s: no warning of the skipped ITM source: %r" % (cmd, err))
            if len(notes) != len(set(notes)) or len(skips) != len(set(skips)):
                failures.append("%s: a note or warning printed twice: %r" % (cmd, err))
            rc_q, err_q = check(base + ["-q"])
            if rc_q != rc or ": note: " in err_q:
                failures.append("%s -q: status %d (without: %d), notes %r" % (cmd, rc_q, rc, err_q))
    else:
        print("note: %s not found: notes not checked" % tc2)

    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("messages of %d cases in one style" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
