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

from pyhelp import DATA, jsonl, run
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
        # --elf, --ranges and --pid (decode's, not packets') left out
        with self.trace(ranges=True, pid="1000") as t:
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

    def test_error_details(self):
        """An error's detail lines (a snapshot's sources after an --id
        that matched none) follow it in the Error's text, as the CLI
        prints them, and not on stderr."""
        snap = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "examples", "etmv3-program")
        code, _, err = run("decode", "--snapshot", snap, "--id", "0x55",
                           check=False)
        lines = err.rstrip("\n").split("\n")
        self.assertEqual(code, 3)
        self.assertGreater(len(lines), 2)
        with tempfile.TemporaryFile() as errf:
            sys.stderr.flush()
            saved = os.dup(2)
            try:
                os.dup2(errf.fileno(), 2)
                with self.assertRaises(etmkit.Error) as cm:
                    etmkit.open(None, snapshot=snap, id=0x55).elements()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            errf.seek(0)
            self.assertEqual(errf.read(), b"")
        self.assertEqual(cm.exception.exit_class, 3)
        self.assertEqual(str(cm.exception).split("\n"),
                         [lines[0].split(": ", 1)[1]] + lines[1:])

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
        self.assertFalse(t.closed)
        t.close()
        self.assertEqual(list(s), [])
        self.assertTrue(t.closed)
        for it in (t.elements, t.blocks, t.instructions, t.packets):
            with self.assertRaises(ValueError):
                it()
        with self.trace() as t2:
            pass
        with self.assertRaises(ValueError):
            t2.packets()

    def test_finished_streams_dropped(self):
        """A Trace keeps only the iterators not yet finished."""
        t = self.trace()
        for _ in range(5):
            s = t.packets(batch=1 << 20)
            self.assertFalse(s.finished)
            list(s)
            self.assertTrue(s.finished)
        live = t.packets()
        self.assertEqual(t._streams, [live])
        stopped = t.packets()
        stopped.close()
        self.assertTrue(stopped.finished)
        t.packets()
        self.assertEqual(len(t._streams), 2)
        t.close()
        self.assertTrue(live.finished)


class Etm2Test(unittest.TestCase):
    """An ETMv2 snapshot the encoder writes (tests/data/records/
    a32_data.txt): its packet rows are `etmkit packets --json`'s records,
    offsets being cycle indexes (docs/etmv2.md 1)."""

    def test_packets(self):
        with tempfile.TemporaryDirectory(prefix="etmkit-py-") as d:
            snap = os.path.join(d, "e2")
            run("encode", "--from-record",
                os.path.join(DATA, "records", "a32_data.txt"),
                "--protocol", "etmv2", "--out", snap)
            recs = jsonl("packets", "--snapshot", snap)
            with etmkit.open(None, snapshot=snap) as t:
                _, a = cat(t.packets())
        self.assertGreater(len(recs), 10)
        self.assertEqual(len(a), len(recs))
        for row, rec in zip(a, recs):
            where = str(rec)
            self.assertEqual(row["offset"], rec["offset"], where)
            self.assertEqual(etmkit.packet_type_name(int(row["proto"]),
                                                     int(row["type"])),
                             rec["type"], where)
            if "bytes" in rec:
                self.assertEqual(bytes(row["raw"][:row["size"]]).hex(),
                                 rec["bytes"], where)


if __name__ == "__main__":
    unittest.main()
