"""A stand-in for the etmkit package's profile API (profile,
Profile, expand_inputs, Error, trace_ids), for testing the fleet's
scheduling, merging and fault handling on its own.

A "partial profile" here counts how many times each input (and trace ID)
went in, with a digest of the profile the serial CLI writes for that
input alone: `etmkit profile` (or `coverage`) run as a program, path in
$ETMKIT_CLI. Merging adds the counts, so an input lost or counted twice
by the fleet shows in the written listing.
"""
import hashlib
import json
import os
import re
import subprocess
import tempfile

CLI = os.environ.get("ETMKIT_CLI", "etmkit")


class Error(Exception):
    """The CLI refused: exit_class 2 (usage) or 3 (input)."""

    def __init__(self, message, exit_class):
        super().__init__(message)
        self.exit_class = exit_class


class Profile:
    """Counts per input key, with the digest of its serial profile."""

    def __init__(self, kind, entries, decode_errors=0, inputs=0):
        self.kind = kind
        self.entries = entries          # key -> [count, digest]
        self.decode_errors = decode_errors
        self.inputs = inputs

    def to_bytes(self):
        return json.dumps({"kind": self.kind, "entries": self.entries,
                           "decode_errors": self.decode_errors,
                           "inputs": self.inputs},
                          sort_keys=True).encode()

    __bytes__ = to_bytes

    @classmethod
    def from_bytes(cls, b):
        d = json.loads(b)
        return cls(d["kind"], d["entries"], d["decode_errors"], d["inputs"])

    def merge(self, q):
        if q.kind != self.kind:
            raise Error("parts of different kinds", 3)
        e = {k: list(v) for k, v in self.entries.items()}
        for k, (n, dg) in q.entries.items():
            if k in e and e[k][1] != dg:
                raise Error(f"{k}: different profiles", 3)
            e[k] = [e.get(k, [0, dg])[0] + n, dg]
        return Profile(self.kind, e, self.decode_errors + q.decode_errors,
                       self.inputs + q.inputs)

    def write(self, path, *args, format=None):
        text = "".join(f"{k} {n} {dg}\n"
                       for k, (n, dg) in sorted(self.entries.items()))
        if path is None:
            return text
        with open(path, "w") as f:
            f.write(text)
        return None


def _cli(fmt, args, inputs):
    cmd = "coverage" if fmt == "lcov" else "profile"
    with tempfile.NamedTemporaryFile() as out:
        p = subprocess.run([CLI, cmd, "--format", fmt, "-o", out.name]
                           + list(args) + list(inputs),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        data = out.read()
    return p.returncode, p.stderr.strip(), data


def profile(inputs, *args, format="autofdo"):
    """One input (a path) decoded by the CLI."""
    ins = [inputs] if isinstance(inputs, str) else list(inputs)
    rc, err, data = _cli(format, args, ins)
    if rc >= 2 or not ins:
        raise Error(err.split(": ", 1)[-1], rc)
    m = re.search(r"(\d+) decode errors? in the trace", err)
    key = ins[0]
    if "--id" in args:
        key += "#" + args[list(args).index("--id") + 1]
    return Profile(format, {key: [1, hashlib.sha256(data).hexdigest()[:16]]},
                   int(m.group(1)) if m else 0, 1)


def expand_inputs(inputs):
    """The package's own expansion (the CLI's)."""
    import etmkit
    try:
        return etmkit.expand_inputs(inputs)
    except etmkit.Error as e:
        raise Error(str(e), e.exit_class) from None


def trace_ids(path):
    """The encoder's trace IDs (0x10 + 2 * CPU) the CLI accepts in path."""
    ids = []
    for t in (0x10, 0x12, 0x14, 0x16):
        rc, _, _ = _cli("autofdo", ["--id", hex(t)], [path])
        if rc < 2:
            ids.append(t)
    if not ids:
        raise Error(f"{path}: no trace IDs", 3)
    return ids
