"""Writable copies of snapshot directories for the tests that damage or
cut them (robustness.py, cli_errors.py): the shared captures are read-only."""
import os
import shutil


def copy_snapshot(src, dst):
    """Copy snapshot @src to @dst (replacing it), files writable."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    for dp, dn, fn in os.walk(dst):
        for n in dn + fn:
            os.chmod(os.path.join(dp, n), 0o755 if n in dn else 0o644)
    return dst


def buffer_file(snap):
    """The path of the first trace buffer file that @snap's trace.ini names."""
    with open(os.path.join(snap, "trace.ini")) as f:
        for line in f:
            if line.startswith("file="):
                return os.path.join(snap, line.strip()[5:])
    raise SystemExit("no buffer file in " + snap)
