#!/usr/bin/env python3
"""Progress on stderr (cli/progress.c; issue 16: "Long runs show progress
on stderr when it is a terminal ..., and never when it is not").

A sparse file of zeros (raw ETMv4 with --frames none: read and searched
for a sync all through) is decoded with stderr on a pseudo-terminal and
stdout on /dev/null, and with stderr a pipe:
- terminal, 160 MiB: at least one progress line ("\\r", "N of T MB of
  trace (P%), R MB/s, S s left", T the file's size in MB), the last one
  wiped ("\\r", spaces, "\\r") before the warning that follows, and at most
  ~4 lines a second;
- pipe, the same file: no progress (stderr holds only the warning);
- terminal with --no-progress, with -q, or a 1 MiB file: none;
- pipe with --progress and a 2 MiB file: shown (forced);
- terminal with stdout a terminal too (a listing would be garbled): none.
With --repeat and SHARED/testdata (tests/perf/perf_repeat): a 32 MiB
perf.data through `etmkit profile --progress` (cli_perf_stream()): shown,
and the profile the same as without it.

Usage: progress.py --etmkit ETMKIT [--repeat PERF_REPEAT --shared DIR]"""
import argparse
import os
import pty
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from verdict import FAILS, fail  # noqa: E402  (tests/verdict.py)
LINE = re.compile(r"\r(\d+\.\d) of (\d+\.\d) MB of trace \((\d+)%\), "
                  r"(\d+\.\d) MB/s(, \d+ s left)? *")


def on_pty(cmd, stdout_tty=False):
    """Run @cmd with stderr (and with @stdout_tty stdout) on a new
    pseudo-terminal: (stderr bytes, seconds)."""
    master, slave = pty.openpty()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=slave if stdout_tty else subprocess.DEVNULL,
                         stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:
            break
        if not b:
            break
        out += b
    p.wait()
    os.close(master)
    return out.decode(errors="replace"), time.monotonic() - t0


def piped(cmd):
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p.stderr.decode(errors="replace")


def progress_lines(err):
    return list(LINE.finditer(err))


def check_shown(what, err, size, secs=None):
    lines = progress_lines(err)
    if not lines:
        fail(f"{what}: no progress line in {err[:300]!r}")
        return
    total = float(lines[0].group(2))
    if abs(total - size / 1e6) > 0.1:
        fail(f"{what}: total {total} MB, the file has {size / 1e6:.1f}")
    done = [float(m.group(1)) for m in lines]
    if done != sorted(done) or done[-1] > total:
        fail(f"{what}: bytes done {done} not rising to at most {total}")
    last = lines[-1]
    rest = err[last.end():]
    if not re.match(r"\r +\r", rest):
        fail(f"{what}: last progress line not wiped: {rest[:80]!r}")
    if secs is not None and len(lines) > 4 * secs + 2:
        fail(f"{what}: {len(lines)} lines in {secs:.1f} s (more than "
             "four a second)")
    print(f"{what}: {len(lines)} progress lines, last "
          f"{last.group(0).strip()!r}")


def check_none(what, err):
    # a terminal's "\r\n" is its newline (onlcr), not a rewritten line
    if re.search(r"\r(?!\n)", err) or "MB of trace" in err:
        fail(f"{what}: progress shown: {err[:300]!r}")
    else:
        print(f"{what}: no progress")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--repeat")
    ap.add_argument("--shared")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big, small, tiny = (os.path.join(tmp, n) for n in
                            ("big.bin", "small.bin", "tiny.bin"))
        for f, mb in ((big, 160), (small, 2), (tiny, 1)):
            with open(f, "wb") as fh:
                fh.truncate(mb << 20)
        dec = [a.etmkit, "decode", "--protocol", "etmv4", "--frames", "none"]
        err, secs = on_pty(dec + [big])
        size = 160 << 20
        if secs < 1 and not progress_lines(err):
            # a machine fast enough to read it all before the first line
            # (half a second in): four times the file
            size = 640 << 20
            with open(big, "wb") as fh:
                fh.truncate(size)
            err, secs = on_pty(dec + [big])
        check_shown("terminal", err, size, secs)
        if "warning:" not in err:
            fail(f"terminal: the warning is missing: {err[-300:]!r}")
        check_none("pipe", piped(dec + [big]))
        check_none("terminal --no-progress",
                   on_pty(dec + [big, "--no-progress"])[0])
        check_none("terminal -q", on_pty(dec + [big, "-q"])[0])
        check_none("terminal, 1 MiB", on_pty(dec + [tiny])[0])
        check_none("terminal, stdout a terminal too",
                   on_pty(dec + [big], stdout_tty=True)[0])
        check_shown("pipe --progress, 2 MiB",
                    piped(dec + [small, "--progress"]), 2 << 20)
        check_none("--progress --no-progress",
                   piped(dec + [small, "--progress", "--no-progress"]))
        data = os.path.join(a.shared or "", "testdata", "perf",
                            "perf_etm.data")
        if a.repeat and os.path.exists(data):
            rep = os.path.join(tmp, "32mb.data")
            subprocess.run([a.repeat, data, rep, "32"], check=True,
                           capture_output=True)
            elf = os.path.join(os.path.dirname(data), "etm_test_loop")
            prof = [a.etmkit, "profile", rep, "--elf", elf, "-o"]
            err = piped(prof + [os.path.join(tmp, "p1"), "--progress"])
            check_shown("profile perf.data --progress", err,
                        os.path.getsize(rep))
            subprocess.run(prof + [os.path.join(tmp, "p2")], check=True)
            if open(os.path.join(tmp, "p1")).read() != \
                    open(os.path.join(tmp, "p2")).read():
                fail("profile: --progress changes the profile")
        else:
            print("perf.data case skipped (no --repeat or testdata)")
    print(f"{len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
