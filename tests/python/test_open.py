"""etmkit.open() and its iterators against `etmkit decode --json`,
`etmkit decode --ranges --json` and `etmkit packets --json` of the same
encoder-written perf.data (two CPUs, two processes: side-band, images per
process), row by row and field by field; batch sizes; the CLI's errors."""

import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

import etmkit

from pyhelp import jsonl, run
from test_cli import recordings
from test_stream import Compare


def cat(stream):
    arrays = list(stream)
    return arrays, (np.concatenate(arrays) if arrays else None)


class OpenTest(Compare, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = recordings()
        cls.cli = [cls.r.a, *cls.r.elf_args()]

    @classmethod
    def tearDownClass(cls):
        cls.r.tmp.cleanup()

    def trace(self, **kw):
        return etmkit.open(self.r.a, elf=self.r.elfs, **kw)

    def test_elements(self):
        recs = jsonl("decode", *self.cli)
        self.assertGreater(len({r["id"] for r in recs}), 1)
        with self.trace() as t:
            _, a = cat(t.elements())
        self.check_all(a, recs, self.check_elem)

    def test_elements_ranges(self):
        recs = jsonl("decode", *self.cli, "--ranges")
        with self.trace(ranges=True) as t:
            _, a = cat(t.elements())
        self.check_all(a, recs, self.check_elem)

    def test_blocks(self):
        recs = [r for r in jsonl("decode", *self.cli, "--ranges")
                if r["kind"] == "insn_range"]
        with self.trace() as t:
            _, a = cat(t.blocks())

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.check_insn_fields(row, rec, where)
        self.check_all(a, recs, check)
        self.assertEqual(a["end"].tolist(),
                         [int(r["end"], 16) for r in recs])
        self.assertEqual(a["count"].tolist(), [r["count"] for r in recs])

    def test_instructions(self):
        recs = [r for r in jsonl("decode", *self.cli)
                if r["kind"] == "insn"]
        with self.trace(ranges=True) as t:       # dropped for insns
            _, a = cat(t.instructions())

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.check_insn_fields(row, rec, where)
        self.check_all(a, recs, check)

    def test_packets(self):
        recs = jsonl("packets", self.r.a)
        with self.trace() as t:                  # --elf left out
            _, a = cat(t.packets())

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.assertEqual(etmkit.packet_type_name(int(row["proto"]),
                                                     int(row["type"])),
                             rec["type"], where)
            if "bytes" in rec:
                self.assertEqual(bytes(row["raw"][:row["size"]]).hex(),
                                 rec["bytes"], where)
        self.check_all(a, recs, check)

    def test_batch_sizes(self):
        """1 and 1,000,000 rows: the same rows."""
        with self.trace() as t:
            for rows in ("blocks", "packets"):
                ones, a = cat(getattr(t, rows)(batch=1))
                self.assertTrue(all(len(x) == 1 for x in ones))
                big, b = cat(getattr(t, rows)(batch=1_000_000))
                self.assertEqual(len(big), 1)
                self.assertEqual(a.tobytes(), b.tobytes(), rows)

    def test_errors(self):
        """The CLI's message and exit class, from open's first step."""
        missing = os.path.join(self.r.tmp.name, "missing.data")
        code, _, err = run("decode", missing, check=False)
        with self.assertRaises(etmkit.Error) as cm:
            list(etmkit.open(missing).blocks())
        self.assertEqual(cm.exception.exit_class, code)
        self.assertIn(str(cm.exception), err)
        code, _, err = run("decode", self.r.a, "--no-such", check=False)
        self.assertEqual(code, 2)
        with self.assertRaises(etmkit.Error) as cm:
            etmkit.open(self.r.a, no_such=True).elements()
        self.assertEqual(cm.exception.exit_class, 2)
        self.assertIn(str(cm.exception), err)

    def test_step_error(self):
        """An error in a step (the snapshot's buffer gone after open):
        etmkit.Error with the CLI's text naming the file, and nothing on
        stderr (the error goes to the exception only)."""
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "examples", "etmv3-program")
        with tempfile.TemporaryDirectory(prefix="etmkit-step-") as d:
            snap = os.path.join(d, "snap")
            shutil.copytree(src, snap)
            buf = os.path.join(snap, "trace.bin")
            with tempfile.TemporaryFile() as errf:
                sys.stderr.flush()
                saved = os.dup(2)
                try:
                    os.dup2(errf.fileno(), 2)
                    s = etmkit.open(None, snapshot=snap).elements()
                    os.remove(buf)
                    with self.assertRaises(etmkit.Error) as cm:
                        next(s)
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
                errf.seek(0)
                stderr = errf.read().decode()
        self.assertEqual(cm.exception.exit_class, 3)
        self.assertEqual(str(cm.exception),
                         f"{buf}: cannot open: No such file or directory"
                         .replace("No such", "no such"))
        self.assertEqual(stderr, "")

    def test_snapshot(self):
        """A snapshot (path None, snapshot=DIR): the CLI's elements."""
        snap = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "examples", "etmv3-program")
        recs = jsonl("decode", "--snapshot", snap)
        _, a = cat(etmkit.open(None, snapshot=snap).elements(batch=4))
        self.check_all(a, recs, self.check_elem)

    def test_close(self):
        t = self.trace()
        s = t.elements(batch=3)
        self.assertEqual(len(next(s)), 3)
        t.close()
        self.assertEqual(list(s), [])


if __name__ == "__main__":
    unittest.main()
