"""The extension's arrays against `etmkit decode --json` and `etmkit
packets --json` of the same raw capture: the batch filler and the dtypes,
over the library's own session (etmkit._etmkit._raw_stream)."""

import unittest

import numpy as np

import etmkit
from etmkit import _etmkit

from pyhelp import EncodedEte, Juno, hexnum, jsonl

INSN_EXEC, INSN_COND_FAIL, INSN_P0 = 0x01, 0x02, 0x20


def arrays(src, rows, batch=65536, **kw):
    with open(src.trace, "rb") as f:
        data = f.read()
    proto = "ete" if isinstance(src, EncodedEte) else "etmv4"
    return list(_etmkit._raw_stream(data, rows, proto, src.REGS, id=0x10,
                                    images=src.images, batch=batch, **kw))


def one(src, rows, **kw):
    a = arrays(src, rows, **kw)
    return np.concatenate(a) if a else np.zeros(0, etmkit.ELEM_DTYPE)


class Compare:
    """Rows equal to the CLI's records, field by field."""

    def check_insn_fields(self, row, rec, where):
        self.assertEqual(row["addr"], hexnum(rec["addr"]), where)
        self.assertEqual(row["size"], rec["size"], where)
        self.assertEqual(etmkit.isa_name(int(row["isa"])), rec["isa"], where)
        self.assertEqual(row["opcode"], hexnum(rec["opcode"]), where)
        flags = int(row["flags"])
        self.assertEqual(bool(flags & INSN_EXEC), rec.get("exec", False),
                         where)
        self.assertEqual(bool(flags & INSN_COND_FAIL),
                         rec.get("cond_fail", False), where)
        self.assertEqual(bool(flags & INSN_P0), rec.get("p0", False), where)

    def check_common(self, row, rec, where):
        self.assertEqual(row["id"], rec["id"], where)
        self.assertEqual(row["offset"], rec["offset"], where)

    def check_elem(self, row, rec, where):
        kind = rec["kind"]
        self.assertEqual(etmkit.elem_kind_name(int(row["kind"])), kind, where)
        self.check_common(row, rec, where)
        if kind in ("insn", "insn_range"):
            self.check_insn_fields(row, rec, where)
        if kind == "insn_range":
            self.assertEqual(row["end"], hexnum(rec["end"]), where)
            self.assertEqual(row["count"], rec["count"], where)
        elif kind == "context":
            flags = int(row["flags"])
            self.assertEqual(bool(flags & 1), "context_id" in rec, where)
            self.assertEqual(bool(flags & 2), "vmid" in rec, where)
            self.assertEqual(bool(flags & 4), "el" in rec, where)
            self.assertEqual(row["context_id"],
                             hexnum(rec.get("context_id", 0)), where)
            self.assertEqual(row["vmid"], hexnum(rec.get("vmid", 0)), where)
            if "el" in rec:
                self.assertEqual(row["el"], rec["el"], where)
                self.assertEqual(bool(row["aarch64"]), rec["aarch64"],
                                 where)
                self.assertEqual(etmkit.sec_name(int(row["sec"])),
                                 rec["sec"], where)
        elif kind == "exception":
            self.assertEqual(row["number"], rec["number"], where)
            self.assertEqual(bool(row["flags"] & 1), "ret_addr" in rec,
                             where)
            if "ret_addr" in rec:
                self.assertEqual(row["ret_addr"], hexnum(rec["ret_addr"]),
                                 where)
        elif kind in ("gap", "no_image"):
            self.assertEqual(etmkit.loss_name(int(row["reason"])),
                             rec["reason"], where)
            if "addr" in rec:
                self.assertEqual(row["addr"], hexnum(rec["addr"]), where)
        elif kind == "timestamp":
            self.assertEqual(row["value"], hexnum(rec["value"]), where)
        elif kind == "cycle_count":
            self.assertEqual(row["cycles"], rec.get("cycles", 0), where)
            self.assertEqual(bool(row["flags"] & 1), rec.get("unknown", False),
                             where)
        elif kind == "trace_on":
            self.assertEqual(etmkit.trace_on_reason_name(int(row["reason"])),
                             rec["reason"], where)

    def check_all(self, a, recs, check):
        self.assertGreater(len(recs), 0)
        self.assertEqual(len(a), len(recs))
        for i, (row, rec) in enumerate(zip(a, recs)):
            check(row, rec, f"record {i}: {rec}")


class EncodedTest(Compare, unittest.TestCase):
    """The encoder's ETE capture: every row checked."""

    @classmethod
    def setUpClass(cls):
        cls.src = EncodedEte()

    @classmethod
    def tearDownClass(cls):
        cls.src.close()

    def test_elements(self):
        recs = jsonl("decode", *self.src.cli)
        kinds = {r["kind"] for r in recs}
        self.assertTrue({"context", "exception", "timestamp", "cycle_count",
                         "trace_on", "insn"} <= kinds, kinds)
        self.assertTrue(any(r.get("vmid", "0x0") != "0x0" for r in recs))
        self.check_all(one(self.src, "elements"), recs, self.check_elem)

    def test_elements_ranges(self):
        self.check_all(one(self.src, "elements", ranges=True),
                       jsonl("decode", *self.src.cli, "--ranges"),
                       self.check_elem)

    def test_blocks(self):
        recs = [r for r in jsonl("decode", *self.src.cli, "--ranges")
                if r["kind"] == "insn_range"]
        a = one(self.src, "blocks")
        self.assertEqual(a.dtype, etmkit.BLOCK_DTYPE)

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.check_insn_fields(row, rec, where)
            self.assertEqual(row["end"], hexnum(rec["end"]), where)
            self.assertEqual(row["count"], rec["count"], where)
        self.check_all(a, recs, check)

    def test_instructions(self):
        recs = [r for r in jsonl("decode", *self.src.cli)
                if r["kind"] == "insn"]
        a = one(self.src, "instructions")
        self.assertEqual(a.dtype, etmkit.INSN_DTYPE)

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.check_insn_fields(row, rec, where)
        self.check_all(a, recs, check)

    def test_packets(self):
        a = one(self.src, "packets")
        self.assertEqual(a.dtype, etmkit.PACKET_DTYPE)

        def check(row, rec, where):
            self.check_common(row, rec, where)
            self.assertEqual(etmkit.packet_type_name(int(row["proto"]),
                                                     int(row["type"])),
                             rec["type"], where)
            if "bytes" in rec:
                self.assertEqual(
                    bytes(row["raw"][:row["size"]]).hex(), rec["bytes"],
                    where)
        cli = [a for a in self.src.cli
               if not (a == "--image" or "@0x" in a)]
        self.check_all(a, jsonl("packets", *cli), check)


class JunoTest(Compare, unittest.TestCase):
    """A real ETMv4 capture (../shared): tens of thousands of elements,
    so batches are cut everywhere."""

    @classmethod
    def setUpClass(cls):
        cls.src = Juno()
        if not cls.src.ok:
            raise unittest.SkipTest("no ../shared/testdata/etmv4/juno_r1_1")

    def test_elements(self):
        self.check_all(one(self.src, "elements"),
                       jsonl("decode", *self.src.cli), self.check_elem)

    def test_blocks_count(self):
        recs = [r for r in jsonl("decode", *self.src.cli, "--ranges")
                if r["kind"] == "insn_range"]
        a = one(self.src, "blocks")
        self.assertEqual(len(a), len(recs))
        self.assertEqual(int(a["count"].sum()),
                         sum(r["count"] for r in recs))
        self.assertEqual(a["addr"].tolist(), [hexnum(r["addr"]) for r in recs])
        self.assertEqual(a["end"].tolist(), [hexnum(r["end"]) for r in recs])

    def test_batch_sizes(self):
        """Batches of 1, 7 and 1,000,000 rows: the same rows, each array
        full but the last."""
        for rows in ("blocks", "instructions", "elements", "packets"):
            whole = arrays(self.src, rows, batch=1_000_000)
            self.assertEqual(len(whole), 1, rows)
            for batch in (1, 7):
                parts = arrays(self.src, rows, batch=batch)
                self.assertTrue(all(len(p) == batch for p in parts[:-1]),
                                rows)
                self.assertLessEqual(len(parts[-1]), batch)
                self.assertEqual(np.concatenate(parts).tobytes(),
                                 whole[0].tobytes(), (rows, batch))


class StreamTest(unittest.TestCase):
    def test_empty_input(self):
        """No rows: no array (not an empty one)."""
        self.assertEqual(list(_etmkit._raw_stream(b"", "blocks", "ete",
                                                  EncodedEte.REGS)), [])

    def test_close(self):
        """close() stops the decode: nothing after it, though the input
        (over 1 MiB, the step) had more."""
        src = EncodedEte()
        try:
            with open(src.trace, "rb") as f:
                data = f.read() * (1024 * 1024 // 336 + 200)
            s = _etmkit._raw_stream(data, "elements", "ete", src.REGS,
                                    images=src.images, batch=5)
            self.assertEqual(len(next(s)), 5)
            s.close()
            self.assertEqual(list(s), [])
            # A batch far above the rows: one array, grown as rows came
            # (not 2**30 rows allocated), equal to arrays of 65536 rows.
            whole = list(_etmkit._raw_stream(data, "elements", "ete",
                                             src.REGS, images=src.images,
                                             batch=1 << 30))
            self.assertEqual(len(whole), 1)
            self.assertGreater(len(whole[0]), 119 * 3000)
            parts = list(_etmkit._raw_stream(data, "elements", "ete",
                                             src.REGS, images=src.images,
                                             batch=65536))
            self.assertEqual(np.concatenate(parts).tobytes(),
                             whole[0].tobytes())
        finally:
            src.close()


class ErrorTest(unittest.TestCase):
    def test_bad_image(self):
        with self.assertRaises(etmkit.Error) as cm:
            _etmkit._raw_stream(b"", "blocks", "ete", {},
                                images=[("/nonexistent/x", 0)])
        self.assertEqual(cm.exception.exit_class, 3)
        self.assertIn("/nonexistent/x", str(cm.exception))

    def test_bad_batch(self):
        with self.assertRaises(etmkit.Error) as cm:
            _etmkit._raw_stream(b"", "blocks", "ete", {}, batch=0)
        self.assertEqual(cm.exception.exit_class, 2)


if __name__ == "__main__":
    unittest.main()
