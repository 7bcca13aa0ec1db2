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


class OptionTableTest(unittest.TestCase):
    """_option_takes_value against the rows of cli/options.c as `etmkit
    CMD --help` documents them."""

    def test_profile(self):
        t = etmkit._etmkit._option_takes_value
        self.assertIs(t("profile", "elf"), True)         # --elf FILE[@BIAS]
        self.assertIs(t("profile", "stacks"), False)
        self.assertIs(t("profile", "q"), False)          # -q, --quiet
        self.assertIs(t("profile", "o"), True)           # -o FILE
        self.assertIs(t("profile", "output"), True)
        self.assertIs(t("profile", "format"), True)
        self.assertIs(t("profile", "m-profile"), False)
        self.assertIsNone(t("profile", "bogus"))
        self.assertIsNone(t("profile", ""))
        self.assertIsNone(t("profile", "x"))             # no -x

    def test_other_commands(self):
        t = etmkit._etmkit._option_takes_value
        self.assertIsNone(t("coverage", "stacks"))       # profile's only
        self.assertIs(t("coverage", "format"), True)
        self.assertIs(t("coverage", "o"), True)
        self.assertIs(t("decode", "binary"), True)
        self.assertIsNone(t("decode", "o"))              # decode has no -o
        self.assertIs(t("frames", "snapshot"), True)
        self.assertIsNone(t("frames", "protocol"))
        self.assertIsNone(t("nosuch", "elf"))


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
