"""What the Python package's tests share: the `etmkit` command of the
same build, its JSON Lines output, and test inputs made with it."""

import json
import os
import subprocess
import tempfile

CLI = os.environ.get("ETMKIT_CLI", "etmkit")
DATA = os.environ.get("ETMKIT_TEST_DATA", "")
SHARED = os.environ.get("ETMKIT_SHARED_DIR", "")


def run(*args, check=True):
    """`etmkit ARGS`: (exit status, stdout bytes, stderr text)."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"etmkit {' '.join(map(str, args))}: "
                             f"{p.returncode}: {p.stderr.decode()}")
    return p.returncode, p.stdout, p.stderr.decode()


def jsonl(*args):
    """The records of `etmkit ARGS --json`."""
    _, out, _ = run(*args, "--json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def hexnum(v):
    """A JSON number field: "0x..." text or a number."""
    return int(v, 16) if isinstance(v, str) else int(v)


class EncodedEte:
    """An ETE capture the encoder writes from an execution record of rare
    packet forms (tests/data/records/ete-a64-forms.rec: several exception
    levels, context IDs and VMIDs, exceptions, timestamps, cycle counts):
    trace.bin in CoreSight frames, trace ID 0x10, the code in mem/."""

    REGS = dict(trcidr0=0x2801CEA1, trcidr1=0x4100FFF0,
                trcidr2=0xD0001088, trcconfigr=0x8D0, trcdevarch=0x47705A13)

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="etmkit-py-")
        out = os.path.join(self.tmp.name, "enc")
        run("encode", "--from-record",
            os.path.join(DATA, "records", "ete-a64-forms.rec"),
            "--protocol", "ete", "--preset", "cycles,timestamps",
            "--trcconfigr", "0x8d0", "--out", out)
        self.trace = os.path.join(out, "trace.bin")
        mem = os.path.join(out, "mem")
        self.images = [(os.path.join(mem, f), int(f[4:-4], 16))
                       for f in sorted(os.listdir(mem))]
        self.cli = [self.trace, "--protocol", "ete", "--trcconfigr", "0x8d0",
                    "--id", "0x10"]
        for path, addr in self.images:
            self.cli += ["--image", f"{path}@{addr:#x}"]

    def close(self):
        self.tmp.cleanup()


class Juno:
    """The shared Juno r1 ETMv4 capture (../shared/testdata): trace ID
    0x10's raw buffer and the kernel dump it ran from, or None."""

    REGS = dict(trcidr0=0x28000EA1, trcidr1=0x4100F402,
                trcidr2=0x00000488, trcconfigr=0xC1)

    def __init__(self):
        d = os.path.join(SHARED, "testdata", "etmv4", "juno_r1_1")
        self.trace = os.path.join(d, "cstrace.bin")
        self.dump = os.path.join(d, "kernel_dump.bin")
        self.ok = os.path.exists(self.trace) and os.path.exists(self.dump)
        self.images = [(self.dump, 0xFFFFFFC000081000)]
        self.cli = [self.trace, "--protocol", "etmv4", "--id", "0x10",
                    "--trcidr0", "0x28000EA1", "--trcidr1", "0x4100F402",
                    "--trcidr2", "0x488", "--trcconfigr", "0xC1",
                    "--image", f"{self.dump}@0xFFFFFFC000081000"]
