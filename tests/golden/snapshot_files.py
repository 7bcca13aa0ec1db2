"""Snapshot directories in the tests that damage or cut them (robustness.py,
cli_errors.py): writable copies (the shared captures are read-only), the
buffer file, an ETE source's registers as raw-file options."""
import os
import re
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


def ete_registers(snap):
    """The raw-file options giving an ETE snapshot's own registers."""
    args = []
    for n in sorted(os.listdir(snap)):
        p = os.path.join(snap, n)
        if not n.endswith(".ini") or "type=ETE" not in open(p, errors="replace").read():
            continue
        for line in open(p, errors="replace"):
            m = re.match(r"(TRCIDR[0128]|TRCCONFIGR|TRCDEVARCH)(?:\(.*\))?=(\S+)", line.strip())
            if m:
                args += ["--" + m.group(1).lower(), m.group(2)]
        return args
    raise SystemExit("no ETE device in " + snap)
