"""etmkit.profile, Profile.write and expand_inputs against the `etmkit`
command on recordings the encoder writes (etmkit encode --format
perf-data) from QEMU logs of tests/workloads (tools/qemu-trace): the
profiles' bytes (autofdo, bolt, lcov) equal the CLI's; the same through
the saved form and merges; the CLI's errors and their exit classes."""

import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

import etmkit

from pyhelp import CLI, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
QEMU_TRACE = os.path.join(ROOT, "tools", "qemu-trace")
WORKLOADS = os.path.join(ROOT, "tests", "workloads")


def have_tools():
    return shutil.which("qemu-aarch64") and \
        shutil.which("aarch64-linux-gnu-gcc")


class Recordings:
    """A: loops and calls on two CPUs; B: hot and calls, small AUX
    records; the ELF files of the three programs."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="etmkit-pycli-")
        d = self.tmp.name
        progs = {w: self.build(d, w) for w in ("loops", "calls", "hot")}
        self.elfs = [progs[w][1] for w in ("loops", "calls", "hot")]
        self.rec = os.path.join(d, "rec")
        os.makedirs(self.rec)
        self.a = os.path.join(self.rec, "a.data")
        self.b = os.path.join(self.rec, "b.data")
        self.encode(self.a, [progs["loops"], progs["calls"]], ["--cpus", "2"])
        self.encode(self.b, [progs["hot"], progs["calls"]],
                    ["--aux-size", "2048"])

    @staticmethod
    def build(d, name):
        out = os.path.join(d, name)
        log = os.path.join(out, "qemu.log")
        subprocess.run([QEMU_TRACE, "--no-install", "--no-encode", "--arch",
                        "a64", "--out", out, "--log", log,
                        os.path.join(WORKLOADS, name + ".c")],
                       check=True, capture_output=True)
        return log, os.path.join(out, name + ".a64")

    @staticmethod
    def encode(path, progs, extra):
        args = ["encode", "--protocol", "ete", "--format", "perf-data",
                "-o", path, "-q"] + extra
        for log, elf in progs:
            args += ["--from-qemu", log, "--elf", elf]
        code, _, err = run(*args)
        assert code == 0, err

    def cli(self, *args):
        """`etmkit ARGS -o FILE`: (exit status, output bytes, stderr)."""
        out = os.path.join(self.tmp.name, "cli.out")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.run([CLI, *args, "-o", out], capture_output=True)
        data = open(out, "rb").read() if os.path.exists(out) else None
        return p.returncode, data, p.stderr.decode()

    def elf_args(self):
        return [a for e in self.elfs for a in ("--elf", e)]


def recordings():
    """Recordings(), or the test class skipped where qemu-aarch64 or the
    cross compiler is missing (failed with CI=true)."""
    if not have_tools():
        if os.environ.get("CI") == "true":
            raise AssertionError("qemu-aarch64 or the cross compiler is "
                                 "missing")
        raise unittest.SkipTest("qemu-aarch64 or aarch64 gcc missing")
    return Recordings()


class CliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = recordings()

    @classmethod
    def tearDownClass(cls):
        cls.r.tmp.cleanup()

    def written(self, p, *args, **options):
        out = os.path.join(self.r.tmp.name, "py.out")
        self.assertEqual(p.write(out, *args, **options), 0)
        with open(out, "rb") as f:
            return f.read()

    def test_autofdo(self):
        r = self.r
        code, want, _ = r.cli("profile", "--format", "autofdo", r.a, r.b,
                              *r.elf_args())
        self.assertEqual(code, 0)
        self.assertTrue(want)
        p = etmkit.profile([r.a, r.b], elf=r.elfs)
        self.assertEqual(p.kind, "tally")
        self.assertEqual(p.inputs, 2)
        self.assertEqual(self.written(p), want)
        self.assertEqual(p.write(None).encode(), want)
        # through the saved form, and as a merge of one input each
        q = etmkit.Profile.from_bytes(bytes(p))
        self.assertEqual(self.written(q), want)
        a = etmkit.profile(r.a, elf=r.elfs)
        b = etmkit.profile(r.b, elf=r.elfs)
        self.assertEqual(self.written(b + a), want)
        self.assertNotEqual(self.written(a), want)

    def test_bolt(self):
        r = self.r
        code, want, _ = r.cli("profile", "--format", "bolt", "--binary",
                              "calls", r.a, r.b, *r.elf_args())
        self.assertEqual(code, 0)
        p = etmkit.profile([r.b, r.a], format="bolt", elf=r.elfs)
        self.assertEqual(p.kind, "traces")
        self.assertEqual(self.written(p, binary="calls"), want)
        # several binaries with counts and no --binary: the CLI's refusal
        # (its message lists them in the merged table's order: A's first)
        code, _, err = r.cli("profile", "--format", "bolt", r.a, r.b,
                             *r.elf_args())
        self.assertEqual(code, 2)
        q = etmkit.profile([r.a, r.b], format="bolt", elf=r.elfs)
        with self.assertRaises(etmkit.Error) as cm:
            q.write(None)
        self.assertEqual(cm.exception.exit_class, 2)
        self.assertIn(str(cm.exception), err)

    def test_lcov(self):
        r = self.r
        code, want, _ = r.cli("coverage", r.a, r.b, *r.elf_args())
        self.assertEqual(code, 0)
        p = etmkit.profile([r.a, r.b], format="lcov", elf=r.elfs)
        self.assertEqual(p.kind, "coverage")
        self.assertEqual(self.written(p), want)

    def test_coverage_formats(self):
        """write's format for a coverage Profile is coverage's --format:
        text as `etmkit coverage --format text` writes it; autofdo
        refused as the CLI refuses it (exit 2)."""
        r = self.r
        p = etmkit.profile([r.a], format="lcov", elf=r.elfs)
        code, want, _ = r.cli("coverage", "--format", "text", r.a,
                              *r.elf_args())
        self.assertEqual(code, 0)
        got = p.write(None, format="text")
        # the same binaries' blocks; their order is not (the CLI's: as
        # the trace met them; the saved form's: sorted by name)
        self.assertEqual(sorted(got.encode().split(b"\n\n")),
                         sorted(want.split(b"\n\n")))
        self.assertGreater(len(want.split(b"\n\n")), 2)
        self.assertNotEqual(got, p.write(None))
        code, _, err = r.cli("coverage", "--format", "autofdo", r.a)
        self.assertEqual(code, 2)
        with self.assertRaises(etmkit.Error) as cm:
            p.write(None, format="autofdo")
        self.assertEqual(cm.exception.exit_class, 2)
        self.assertIn(str(cm.exception), err)

    def test_expand(self):
        r = self.r
        self.assertEqual(etmkit.expand_inputs([r.rec]), [r.a, r.b])
        lst = os.path.join(r.tmp.name, "list")
        with open(lst, "w") as f:
            f.write("# recordings\nrec/b.data\n\nrec/a.data\n")
        self.assertEqual(etmkit.expand_inputs(["@" + lst]),
                         [os.path.join(r.tmp.name, "rec", "b.data"),
                          os.path.join(r.tmp.name, "rec", "a.data")])

    def test_path_types(self):
        """A str, bytes or os.PathLike is one input (not its letters);
        lists may mix them; other types are a TypeError naming theirs."""
        r = self.r
        pa, ba = pathlib.Path(r.a), os.fsencode(r.a)
        for one in (r.a, pa, ba):
            self.assertEqual(etmkit.expand_inputs(one), [r.a], one)
        self.assertEqual(etmkit.expand_inputs([pa, os.fsencode(r.b), r.a]),
                         [r.a, r.b, r.a])
        self.assertEqual(etmkit.expand_inputs((p for p in [pa])), [r.a])
        for bad in (3, [r.a, 3], None, [None]):
            with self.assertRaises(TypeError) as cm:
                etmkit.expand_inputs(bad)
            self.assertIn(type(bad if not isinstance(bad, list)
                               else bad[-1]).__name__, str(cm.exception))
        want = bytes(etmkit.profile(r.a, elf=r.elfs))
        self.assertEqual(bytes(etmkit.profile(pa, elf=r.elfs)), want)
        self.assertEqual(bytes(etmkit.profile(ba, elf=r.elfs)), want)
        with self.assertRaises(TypeError):
            etmkit.profile(3.5)
        out = os.path.join(r.tmp.name, "pathlike.out")
        p = etmkit.profile(r.a, elf=r.elfs)
        p.write(pathlib.Path(out))
        with open(out) as f:
            self.assertEqual(f.read(), p.write(None))
        with self.assertRaises(ValueError):     # a NUL in a path
            etmkit.expand_inputs([r.a + "\0x"])

    def test_errors(self):
        """The CLI's message and exit class."""
        r = self.r
        missing = os.path.join(r.tmp.name, "missing.data")
        code, _, err = r.cli("profile", missing)
        self.assertIn(code, (2, 3))
        with self.assertRaises(etmkit.Error) as cm:
            etmkit.profile(missing)
        self.assertEqual(cm.exception.exit_class, code)
        self.assertIn(str(cm.exception), err)
        # a damaged recording: its first half (exit 3, "runs past the end")
        half = os.path.join(r.tmp.name, "half.data")
        with open(r.a, "rb") as f, open(half, "wb") as g:
            g.write(f.read()[:os.path.getsize(r.a) // 2])
        code, _, err = r.cli("profile", half, *r.elf_args())
        self.assertEqual(code, 3)
        with self.assertRaises(etmkit.Error) as cm:
            etmkit.profile(half, elf=r.elfs)
        self.assertEqual(cm.exception.exit_class, 3)
        self.assertIn(str(cm.exception), err)
        code, _, err = r.cli("profile", "--no-such-option", r.a)
        self.assertEqual(code, 2)
        with self.assertRaises(etmkit.Error) as cm:
            etmkit.profile(r.a, no_such_option=True)
        self.assertEqual(cm.exception.exit_class, 2)
        self.assertIn(str(cm.exception), err)


if __name__ == "__main__":
    unittest.main()
