"""The package's pure parts: version, options to argv, the error type,
the dtypes' layout."""

import unittest

import numpy as np

import etmkit

from pyhelp import run


class VersionTest(unittest.TestCase):
    def test_version_is_the_cli_s(self):
        _, out, _ = run("--version")
        self.assertEqual(out.decode().split(), ["etmkit", etmkit.__version__])


class CliArgsTest(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(
            etmkit.cli_args("f.data", elf=["a", "b"], id=0x10,
                            frames="none", cycles=True, quiet=False,
                            symfs=None, buildid_dir="/d"),
            ["f.data", "--elf", "a", "--elf", "b", "--id", "16",
             "--frames", "none", "--cycles", "--buildid-dir", "/d"])

    def test_tuple_and_order(self):
        self.assertEqual(etmkit.cli_args(binary="x", cpu=(0, 2)),
                         ["--binary", "x", "--cpu", "0", "--cpu", "2"])


class ErrorTest(unittest.TestCase):
    def test_exit_class(self):
        self.assertTrue(issubclass(etmkit.Error, Exception))
        self.assertEqual(etmkit.Error.exit_class, 3)
        self.assertEqual(etmkit.Error.__module__, "etmkit")


class DtypeTest(unittest.TestCase):
    def test_no_padding(self):
        """Every byte of a row is a field (np.concatenate keeps the
        dtype as it is)."""
        for d in (etmkit.BLOCK_DTYPE, etmkit.INSN_DTYPE, etmkit.ELEM_DTYPE,
                  etmkit.PACKET_DTYPE):
            used = sum(d.fields[n][0].itemsize for n in d.names)
            self.assertEqual(used, d.itemsize, d)
            a = np.zeros(2, d)
            self.assertEqual(np.concatenate([a, a]).dtype, d)

    def test_fields(self):
        self.assertEqual(
            etmkit.BLOCK_DTYPE.names,
            ("offset", "addr", "end", "count", "repeats", "opcode",
             "class_flags", "cycles", "id", "isa", "size", "flags"))
        self.assertEqual(
            etmkit.INSN_DTYPE.names,
            ("offset", "addr", "opcode", "class_flags", "cycles", "id",
             "isa", "size", "flags"))

    def test_names(self):
        self.assertEqual(etmkit.elem_kind_name(1), "insn")
        self.assertEqual(etmkit.isa_name(0), etmkit.isa_name(0))


if __name__ == "__main__":
    unittest.main()
