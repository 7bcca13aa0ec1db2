#!/usr/bin/env python3
"""`etmkit encode` on bad and good input (cli/cmd_encode.c, cli/code_map.c).

Bad input: every case checks the exit status (2 usage, 3 input) and that
the message names the file and the line (record) or the path at fault.
Good input: the snapshot's files are there and well-formed, its memory
dumps hold exactly the record's opcode bytes at the recorded addresses,
--record-out reads back as the input record, --frames none writes the raw
stream.

Usage: cli_encode.py --etmkit build/etmkit --records tests/data/records
Exit status: 0 pass, 1 a check failed.
"""
import argparse
import configparser
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import msg_style  # noqa: E402  (the one style of etmkit's messages)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from verdict import FAILS, fail  # noqa: E402  (tests/verdict.py)

TMP = None
ETMKIT = None
RECORDS = None

GOOD = """etmkit-exec 1
0x10000 arm e3a00001
0x10004 arm e3500001
0x10008 arm eb00000c b ->0x10040
0x10040 arm e2800001
0x10044 arm e12fff1e bi ->0x1000c
0x1000c arm e12fff1e bi ->0x10020
"""


def check(ok, what):
    if not ok:
        fail(what)


def path(name):
    return os.path.join(TMP, name)


def write(name, text, mode="w"):
    p = path(name)
    with open(p, mode) as f:
        f.write(text)
    return p


def encode(args, stdin=None):
    p = subprocess.run([ETMKIT, "encode"] + args, input=stdin,
                       capture_output=True, text=True, timeout=60)
    for prob in msg_style.problems(p.stderr, strict=True):
        check(False, "message style: " + prob)
    return p.returncode, p.stderr


def bad(name, args, status, *needles, stdin=None):
    """The command fails with @status and its message holds @needles."""
    rc, err = encode(args, stdin)
    check(rc == status, f"{name}: exit {rc}, expected {status}: {err.strip()}")
    for n in needles:
        check(n in err, f"{name}: message lacks '{n}': {err.strip()}")
    check("AddressSanitizer" not in err and "runtime error" not in err,
          f"{name}: sanitizer report")


def bad_record(name, text, line, *needles, protocol="etmv4", extra=()):
    """A record that fails at @line (FILE:LINE in the message)."""
    rec = write(name + ".txt", text)
    bad(name, ["--from-record", rec, "--protocol", protocol, "--out",
               path(name + ".out")] + list(extra), 3, f"{rec}:{line}:",
        *needles)


def bad_records():
    hdr = "etmkit-exec 1\n"
    bad_record("bad_addr", hdr + "0xzz arm e3a00001\n", 2, "address")
    bad_record("bad_isa", hdr + "# c\n0x10000 mips e3a00001\n", 3,
               "instruction set")
    bad_record("bad_opcode_size", hdr + "0x10000 arm e3a0\n", 2, "opcode")
    bad_record("bad_opcode_hex", hdr + "0x10000 a64 d50320zz\n", 2, "opcode")
    bad_record("bad_field", hdr + "0x10000 arm e3a00001 q=1\n", 2,
               "unknown instruction field")
    bad_record("taken_not_branch", hdr + "0x10000 arm e3a00001 ->0x20\n",
               2, "branch")
    bad_record("short_insn", hdr + "0x10000 arm\n", 2, "ADDRESS ISA OPCODE")
    bad_record("bad_exc", hdr + GOOD.split("\n", 1)[1] +
               "exc nmi ret=0x10020\n", 8, "exc KIND")
    bad_record("bad_ctx", hdr + "ctx el=1\n" + GOOD.split("\n", 1)[1], 2,
               "el and ns")
    bad_record("bad_ts", hdr + "ts\n", 2, "ts TIME")
    bad_record("long_line", hdr + "0x10000 arm e3a00001" + " " * 600 +
               "\n", 2, "too long")
    bad_record("nul_byte", hdr + "0x10000 arm e3a0\0\n", 2, "NUL byte")
    # a NUL byte first in a line longer than the reader's buffer: the
    # line, not a later one (fgets() read it in two pieces)
    bad_record("nul_first", hdr + "\0" + "y" * 800 + "\n", 2, "NUL byte")
    bad_record("no_header", "0x10000 arm e3a00001\n", 1, "etmkit-exec 1")
    bad_record("version", "etmkit-exec 2\n", 1, "version")
    # the flow breaks: 0x10004 follows 0x10000, not 0x10008
    bad_record("discontinuous", hdr + "0x10000 arm e3a00001\n"
               "0x10008 arm e3500001\n", 3, "does not follow")
    # the ISA changes without a branch saying so
    bad_record("isa_change", hdr + "0x10000 arm e3a00001\n"
               "0x10004 thumb 2300\n", 3, "does not follow")
    # 0x10000 seen twice with different bytes
    bad_record("two_opcodes", hdr + "0x10000 arm e3a00001\ngap\n"
               "0x10000 arm e3a00002\n", 4, "differs", "0x10000")
    # the record contradicts its opcodes (insn.h)
    bad_record("not_a_branch", hdr + "0x10000 arm e3a00001 b ->0x10040\n",
               2, "not a branch")
    bad_record("unmarked_branch", hdr + "0x10014 arm eb000009\n", 2,
               "direct branch")
    bad_record("wrong_target", hdr + "0x10014 arm eb000009 b ->0x10080\n",
               2, "0x10040")
    bad_record("wrong_size", hdr + "0x10000 thumb f8d0\n", 2,
               "not a whole instruction")
    bad_record("wrong_kind", hdr + "0x10000 a64 d65f03c0 b ->0x10\n", 2,
               "indirect")
    # an exception whose return address is not where execution stands
    bad_record("exc_ret", hdr + "0x10000 arm e3a00001\nexc irq "
               "ret=0x10040\n0x18000 arm e3a00001\n", 3, "return address")
    bad_record("a64_etmv3", hdr + "0x400000 a64 d503201f\n", 2, "ETMv3",
               "A64", protocol="etmv3")
    bad_record("a64_ptm", hdr + "0x400000 a64 d503201f\n", 2, "PTM",
               "A64", protocol="ptm")
    # Jazelle: no I-sync states it (digest ptm.md 4.2)
    bad_record("jazelle_ptm", hdr + "0x10000 jazelle 00\n", 2, "PTM",
               "not supported", protocol="ptm")
    # empty and instruction-less records
    rec = write("empty.txt", "")
    bad("empty", ["--from-record", rec, "--protocol", "ete", "--out",
                  path("empty.out")], 3, rec, "etmkit-exec 1")
    rec = write("header_only.txt", "etmkit-exec 1\n# nothing\n")
    bad("header_only", ["--from-record", rec, "--protocol", "ete", "--out",
                        path("header_only.out")], 3, rec, "no instruction")
    # from stdin: named <stdin>
    bad("stdin_bad", ["--from-record", "-", "--protocol", "ete", "--out",
                      path("stdin_bad.out")], 3, "<stdin>:3:",
        stdin=hdr + "0x10000 arm e3a00001\n0x10040 arm e3a00001\n")


def bad_qemu():
    with open(os.path.join(RECORDS, "..", "qemu", "tiny-a32-block.log")) as f:
        log = write("trunc.log", f.read()[:300])
    bad("qemu_truncated", ["--from-qemu", log, "--protocol", "ete",
                           "--out", path("q1.out")], 3, log + ":")
    log = write("garbage.log", "hello\x01\x02world\n\xff\xfe\n" * 20)
    bad("qemu_garbage", ["--from-qemu", log, "--protocol", "ete",
                         "--out", path("q2.out")], 3, log)
    bad("qemu_missing", ["--from-qemu", path("no-such.log"), "--protocol",
                         "ete", "--out", path("q3.out")], 3,
        path("no-such.log"))


def bad_options():
    rec = write("good.txt", GOOD)
    base = ["--from-record", rec, "--out", path("opt.out")]
    bad("unknown_option", base + ["--protocol", "ete", "--frobnicate"], 2,
        "--frobnicate")
    bad("unknown_short", base + ["--protocol", "ete", "-Z"], 2, "-Z")
    bad("missing_value", base + ["--protocol"], 2, "--protocol")
    bad("unknown_protocol", base + ["--protocol", "etmv5"], 2, "etmv5")
    bad("unknown_preset", base + ["--protocol", "etmv4", "--preset",
                                  "cycles,turbo"], 2, "cycles,turbo")
    bad("preset_other_proto", base + ["--protocol", "etmv3", "--preset",
                                      "spec"], 2, "spec")
    bad("unknown_register", base + ["--protocol", "etmv4", "--trcidr9",
                                    "1"], 2, "--trcidr9")
    bad("register_value", base + ["--protocol", "etmv4", "--trcconfigr",
                                  "0xg"], 2, "trcconfigr", "0xg")
    bad("register_of_etmv3", base + ["--protocol", "etmv4", "--etmcr",
                                     "0x1000"], 2, "etmcr", "ETMv4")
    bad("register_of_etmv4", base + ["--protocol", "etmv3", "--trcidr0",
                                     "1"], 2, "trcidr0", "ETMv3")
    bad("spec_on_etmv3", base + ["--protocol", "etmv3", "--spec-depth",
                                 "2"], 2, "spec-depth")
    bad("preset_ptm", base + ["--protocol", "ptm", "--preset",
                              "alt-branch"], 2, "alt-branch", "PTM")
    bad("register_of_ptm", base + ["--protocol", "ptm", "--trcidr0",
                                   "1"], 2, "trcidr0", "PTM")
    bad("spec_on_ptm", base + ["--protocol", "ptm", "--q-every", "2"], 2,
        "q-every")
    # an ETMIDR that names no PTM
    bad("ptm_etmidr", base + ["--protocol", "ptm", "--etmidr",
                              "0x410CF250"], 2, "register set-up")
    bad("trace_id", base + ["--protocol", "ete", "--trace-id", "0x70"], 2,
        "trace-id")
    # ETMv2: its options, and only its
    bad("etmv2_width", base + ["--protocol", "etmv2", "--port-width", "12"],
        2, "port-width", "12")
    bad("etmv2_depth", base + ["--protocol", "etmv2", "--fifo-depth", "8"],
        2, "fifo-depth")
    bad("etmv2_capfmt", base + ["--protocol", "etmv2", "--capture-format",
                                "etb"], 2, "capture-format", "etb")
    bad("etmv2_etmccer", base + ["--protocol", "etmv2", "--etmccer", "1"],
        2, "etmccer", "ETMv2")
    bad("etmv2_perf", base + ["--protocol", "etmv2", "--format",
                              "perf-data"], 2, "perf-data", "ETMv2")
    bad("width_not_etmv2", base + ["--protocol", "ptm", "--port-width",
                                   "4"], 2, "ETMv2 options")
    bad("etmv2_preset", base + ["--protocol", "etmv2", "--preset",
                                "return-stack"], 2, "return-stack")
    # ETMv1 (docs/etmv2.md 7b): no 16-bit port, phantoms or load misses;
    # --etm-version is ETMv2's
    bad("etmv1_version", base + ["--protocol", "etmv2", "--etm-version",
                                 "3"], 2, "etm-version", "3")
    bad("etmv1_width16", base + ["--protocol", "etmv2", "--etm-version",
                                 "1", "--port-width", "16"], 2, "ETMv1",
        "16-bit")
    bad("etmv1_phantoms", base + ["--protocol", "etmv2", "--etm-version",
                                  "1", "--preset", "phantoms"], 2,
        "ETMv1", "phantoms")
    bad("etmv1_etmidr16", base + ["--protocol", "etmv2", "--etmidr",
                                  "0x41000030", "--port-width", "16"], 2,
        "ETMv1")
    bad("version_not_etmv2", base + ["--protocol", "ptm", "--etm-version",
                                     "1"], 2, "ETMv2 options")
    # ETMv1 data: one 4-byte transfer an instruction; the error names
    # the item that broke the rule and the instruction
    v1 = write("v1.txt", "etmkit-exec 1\n0x8000 arm e5910000\n"
               "ld 0x100 4 0x1\n0x8004 arm e8910030\nld 0x100 4 0x7\n"
               "ld 0x104 4 0x8\n0x8008 arm e1a00000\n")
    bad("etmv1_ldm", ["--from-record", v1, "--out", path("v1.out"),
                      "--protocol", "etmv2", "--etm-version", "1",
                      "--preset", "data"], 3, v1 + ":6", "0x8004",
        "several", "data preset")
    bad("frames", base + ["--protocol", "ete", "--frames", "tpiu"], 2,
        "tpiu")
    bad("both_inputs", base + ["--protocol", "ete", "--from-qemu", rec], 2,
        "--from-record")
    bad("no_input", ["--protocol", "ete", "--out", path("x")], 2,
        "--from-record")
    bad("no_out", ["--from-record", rec, "--protocol", "ete"], 2, "--out")
    bad("extra_arg", base + ["--protocol", "ete", "stray"], 2, "stray")
    bad("long_out", ["--from-record", rec, "--protocol", "ete", "--out",
                     path("d" * 1100)], 2, "--out")
    bad("missing_input", ["--from-record", path("none.txt"), "--protocol",
                          "ete", "--out", path("m.out")], 3,
        path("none.txt"))
    # --out cannot be created: its parent is a file
    bad("out_not_dir", ["--from-record", rec, "--protocol", "ete", "--out",
                        os.path.join(rec, "sub")], 3,
        os.path.join(rec, "sub"))
    bad("record_out_unwritable", ["--from-record", rec, "--out",
                                  path("rec_out.out"), "--protocol", "ete",
                                         "--record-out",
                                         os.path.join(rec, "r.txt")], 3,
        os.path.join(rec, "r.txt"))
    # --record-out the input: refused before it is emptied
    same = write("same.txt", GOOD)
    bad("record_out_is_input", ["--from-record", same, "--out",
                                path("same.out"), "--protocol", "ete",
                                "--record-out", same], 2, same)
    with open(same) as f:
        check(f.read() == GOOD, "--record-out emptied the input")
    # usage errors create nothing
    check(not os.path.exists(path("opt.out")),
          "a usage error created --out")
    # a failed run into an earlier snapshot leaves no snapshot.ini that
    # would describe the new, partial trace.bin
    out = path("reuse.out")
    rc, err = encode(["--from-record", rec, "--protocol", "ete", "--out",
                      out])
    check(rc == 0 and os.path.exists(os.path.join(out, "snapshot.ini")),
          f"reuse: first run: {rc} {err}")
    broken = write("broken.txt", GOOD + "0x30000 arm e3a00001\n")
    bad("reuse_failed", ["--from-record", broken, "--protocol", "ete",
                         "--out", out], 3, broken + ":8:")
    check(not os.path.exists(os.path.join(out, "snapshot.ini")),
          "a failed run left an earlier snapshot.ini in --out")


def bad_perf_options():
    """--format perf-data: its options, refused where they do not apply."""
    rec = write("perf_good.txt", GOOD)
    out = path("p.data")
    base = ["--from-record", rec, "--protocol", "ete", "-o", out]
    perf = base + ["--format", "perf-data"]
    bad("format_value", base + ["--format", "elf"], 2, "elf")
    bad("two_inputs_snapshot", base + ["--from-record", rec], 2,
        "perf-data")
    bad("cpus_snapshot", base + ["--cpus", "2"], 2, "--cpus")
    bad("elf_snapshot", base + ["--elf", rec], 2, "--elf")
    bad("elf_first", ["--elf", rec] + perf, 2, "--elf")
    # --elf repeats (a process's program and libraries), 16 at most
    bad("elf_17", perf + ["--elf", rec] * 17, 2, "more than 16 binaries")
    host = os.path.realpath(ETMKIT)      # an ELF file with a build id
    bad("elf_second_not_elf", perf + ["--elf", host, "--elf", rec], 3, rec)
    bad("cpus_zero", perf + ["--cpus", "0"], 2, "cpus")
    bad("aux_size_odd", perf + ["--aux-size", "1000"], 2, "--aux-size 1000")
    bad("record_out", perf + ["--record-out", path("r.txt")], 2,
        "--record-out")
    bad("stdin_twice", ["--from-record", "-", "--from-record", "-",
                        "--protocol", "ete", "-o", out, "--format",
                        "perf-data"], 2, "stdin")
    bad("no_context_id", perf + ["--trcconfigr", "0"], 2, "context ID")
    bad("elf_not_elf", perf + ["--elf", rec], 3, rec)
    check(not os.path.exists(out), "a refused perf-data run left " + out)
    # a run that fails half-way leaves no file behind
    broken = write("perf_broken.txt", GOOD + "0x30000 arm e3a00001\n")
    bad("perf_broken", ["--from-record", rec, "--from-record", broken,
                        "--protocol", "ete", "-o", out, "--format",
                        "perf-data"], 3, broken + ":8:")
    check(not os.path.exists(out), "a failed perf-data run left " + out)
    rc, err = encode(perf + ["--from-record", rec, "--cpus", "2"])
    check(rc == 0 and os.path.getsize(out) > 104,
          f"perf-data from two records: {rc} {err}")
    # two binaries for one process: each one's MMAP2 (its path), its
    # build id once (tests/perf/debian_program.py decodes such a file)
    os.unlink(out)
    rc, err = encode(perf + ["--elf", host, "--elf", f"{host}@0x10000000"])
    data = open(out, "rb").read() if rc == 0 else b""
    times = data.count(host.encode() + b"\0")
    check(rc == 0 and times == 3,
          f"perf-data, --elf twice: {rc} {err}, {host} {times} times, "
          "not in 2 MMAP2 records and 1 BUILD_ID entry")
    # raw AUX records (TRBE, digest perf-data.md 3.6) hold bytes, not
    # 16-byte frames: any --aux-size (tests/perf/cli_perf.py reads them)
    os.unlink(out)
    rc, err = encode(perf + ["--frames", "none", "--aux-size", "1000"])
    check(rc == 0 and os.path.getsize(out) > 104 and "FORMAT_RAW" in err,
          f"perf-data --frames none: {rc} {err}")


def ini(p):
    c = configparser.ConfigParser(strict=True)
    c.optionxform = str
    with open(p) as f:
        c.read_file(f)
    return c


def record_items(p):
    """The record's items, normalized: numbers as ints, comments gone."""
    def norm(t, isa):
        if t.startswith("->"):
            a, _, tisa = t[2:].partition(":")
            return ("->", int(a, 0), tisa or isa)
        k, sep, v = t.partition("=")
        if sep and k != "sw":
            return (k, int(v, 0))
        if t[:2] == "0x" or t.isdigit():
            return int(t, 0)
        return t.lower()

    out = []
    with open(p) as f:
        for line in f:
            tok = line.split("#", 1)[0].split()
            if not tok or tok == ["etmkit-exec", "1"]:
                continue
            isa = tok[1] if len(tok) > 1 else ""
            items = [norm(t, isa) for t in tok]
            if tok[0] not in ("exc", "gap", "ctx", "ts"):
                items[2] = tok[2].lower()  # the opcode's hex digits
            out.append(tuple(items))
    return out


def insn_bytes(isa, op):
    v = int(op, 16)
    if isa in ("thumb", "thumbee") and len(op) == 8:
        return (v >> 16).to_bytes(2, "little") + \
            (v & 0xffff).to_bytes(2, "little")
    if isa == "jazelle":
        return v.to_bytes(len(op) // 2, "big")
    return v.to_bytes(len(op) // 2, "little")


def check_snapshot(name, rec, out, proto, regs):
    for f in ("snapshot.ini", "trace.ini", "source_0.ini", "cpu_0.ini",
              "trace.bin"):
        check(os.path.isfile(os.path.join(out, f)), f"{name}: no {f}")
    snap = ini(os.path.join(out, "snapshot.ini"))
    check(snap["device_list"]["device0"] == "cpu_0.ini" and
          snap["device_list"]["device1"] == "source_0.ini" and
          snap["trace"]["metadata"] == "trace.ini",
          f"{name}: snapshot.ini")
    tr = ini(os.path.join(out, "trace.ini"))
    check(tr["buffer0"]["file"] == "trace.bin", f"{name}: trace.ini")
    src = ini(os.path.join(out, "source_0.ini"))
    check(src["device"]["class"] == "trace_source", f"{name}: source class")
    got = {k.split("(")[0].lower(): int(v, 0)
           for k, v in src["regs"].items()}
    for k, v in regs.items():
        check(got.get(k) == v, f"{name}: source_0.ini {k}={got.get(k)}, "
              f"expected {v:#x}")
    cpu = ini(os.path.join(out, "cpu_0.ini"))
    dumps = []
    for sec in cpu.sections():
        if sec.startswith("dump"):
            d = cpu[sec]
            with open(os.path.join(out, d["file"]), "rb") as f:
                data = f.read()
            check(len(data) == int(d["length"], 0),
                  f"{name}: {sec} length {len(data)} != {d['length']}")
            dumps.append((int(d["address"], 0), data))
    check(dumps, f"{name}: cpu_0.ini has no [dumpN]")
    want = {}
    for it in record_items(rec):
        if it[0] in ("exc", "gap", "ctx", "ts"):
            continue
        addr = it[0]
        for i, b in enumerate(insn_bytes(it[1], it[2])):
            want[addr + i] = b
    have = {}
    for base, data in dumps:
        for i, b in enumerate(data):
            check(base + i not in have, f"{name}: dumps overlap")
            have[base + i] = b
    for a, b in want.items():
        if have.get(a) != b:
            check(False, f"{name}: dump byte at {a:#x} is {have.get(a)}, "
                  f"the record's is {b:#x}")
            break
    nonzero = {a for a, b in have.items() if b}
    check(nonzero <= set(want), f"{name}: dump bytes the record has not")


def good():
    for rec_name, proto, extra, regs in (
            ("a64_flow.txt", "ete", [], {"trcconfigr": 0x40}),
            ("a64_flow.txt", "etmv4", ["--preset", "cycles,timestamps",
                                       "--trcidr8", "4"],
             {"trcconfigr": 0x850, "trcidr8": 4}),
            ("a32_t32_flow.txt", "etmv3", ["--etmcr", "0x1000c000",
                                           "--trace-id", "0x22"],
             {"etmcr": 0x1000c000, "etmtraceidr": 0x22}),
            ("a32_t32_flow.txt", "etmv4", [], {"trctraceidr": 0x10}),
            ("a32_t32_flow.txt", "ptm", ["--preset",
                                         "cycle-accurate,return-stack"],
             {"etmcr": 0x2000d000, "etmidr": 0x411CF312,
              "etmccer": 0x34C01AC2, "etmtraceidr": 0x10}),
            # ETMv2: ETMCR[6:4] port size (0 = 4-bit), [12] CA, [3:2] data
            ("a32_t32_flow.txt", "etmv2", ["--preset",
                                           "cycle-accurate,data,phantoms",
                                           "--port-width", "4"],
             {"etmcr": 0x0000d00c, "etmidr": 0x41012100}),
            ("a32_t32_flow.txt", "etmv2", ["--port-width", "16",
                                           "--fifo-depth", "16",
                                           "--capture-format", "text"],
             {"etmcr": 0x0000c020, "etmidr": 0x41012100}),
            # ETMv1: an ETMv1.3 ETMIDR ([11:8] = 0), a source of type ETM1
            ("a32_t32_flow.txt", "etmv2", ["--etm-version", "1",
                                           "--port-width", "4"],
             {"etmcr": 0x0000c000, "etmidr": 0x41000030})):
        rec = os.path.join(RECORDS, rec_name)
        name = f"{rec_name}/{proto}"
        out = path(name.replace("/", "_") + ".out")
        back = out + ".record"
        rc, err = encode(["--from-record", rec, "--protocol", proto,
                          "--out", out, "--record-out", back] + extra)
        check(rc == 0, f"{name}: exit {rc}: {err}")
        if rc:
            continue
        check("warning" not in err, f"{name}: {err.strip()}")
        check_snapshot(name, rec, out, proto, regs)
        if proto == "etmv2":
            # docs/etmv2-capture.md: an ETM2 source, an etmv2-capture
            # buffer in the binary or text form the options chose
            src = ini(os.path.join(out, "source_0.ini"))
            tr = ini(os.path.join(out, "trace.ini"))
            v1 = "--etm-version" in extra
            check(src["device"]["type"] == ("ETM1" if v1 else "ETM2") and
                  tr["buffer0"]["format"] == "etmv2-capture",
                  f"{name}: ETMv2 snapshot")
            with open(os.path.join(out, "trace.bin"), "rb") as f:
                head = f.read(16)
            text = "text" in extra
            check(head.startswith(b"etmv2-capture 1\n") if text
                  else head.startswith(b"ETM2CAP"),
                  f"{name}: capture starts {head!r}")
        check(record_items(back) == record_items(rec),
              f"{name}: --record-out does not read back as the record")
    # from stdin, raw stream
    with open(os.path.join(RECORDS, "a32_t32_flow.txt")) as f:
        text = f.read()
    for proto in ("etmv3", "ptm", "etmv4"):
        out = path("raw_" + proto)
        rc, err = encode(["--from-record", "-", "--protocol", proto,
                          "--out", out, "--frames", "none"], stdin=text)
        check(rc == 0, f"raw {proto}: exit {rc}: {err}")
        if rc:
            continue
        tr = ini(os.path.join(out, "trace.ini"))
        check(tr["buffer0"]["format"] == "source_data",
              f"raw {proto}: format {tr['buffer0']['format']}")
        with open(os.path.join(out, "trace.bin"), "rb") as f:
            data = f.read()
        # an A-sync first: ETMv3 5 zeros then 0x80, ETMv4 11 then 0x80
        nz = 11 if proto == "etmv4" else 5
        check(data.startswith(b"\0" * nz + b"\x80"),
              f"raw {proto}: trace.bin starts {data[:12].hex()}")
        snap = ini(os.path.join(out, "snapshot.ini"))
        check("<stdin>" in snap["snapshot"]["description"],
              f"raw {proto}: description")
        rc2, err2 = encode(["--from-record", "-", "--protocol", proto,
                            "--out", out + ".cs"], stdin=text)
        with open(os.path.join(out + ".cs", "trace.bin"), "rb") as f:
            framed = f.read()
        check(rc2 == 0 and len(framed) % 16 == 0 and framed != data,
              f"raw {proto}: framed trace.bin")
    # ETMv4 cannot show instructions after the last branch before the
    # end: said, not an error
    rec = write("tail.txt", "etmkit-exec 1\n0x10000 arm e3a00001\n")
    rc, err = encode(["--from-record", rec, "--protocol", "ete", "--out",
                      path("tail.out")])
    check(rc == 0 and "warning: 1 items" in err, f"tail: {rc} {err}")


def doc_example():
    """docs/exec-record.md's example is data/records/doc_example.txt
    (which the round trips check)."""
    doc = os.path.join(RECORDS, "..", "..", "..", "docs", "exec-record.md")
    with open(doc) as f:
        text = f.read()
    block = text.split("```\n", 2)[1]
    with open(os.path.join(RECORDS, "doc_example.txt")) as f:
        check(f.read() == block, "docs/exec-record.md's example differs "
              "from tests/data/records/doc_example.txt")


def main():
    global TMP, ETMKIT, RECORDS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--records", required=True)
    a = ap.parse_args()
    ETMKIT = os.path.abspath(a.etmkit)
    RECORDS = a.records
    with tempfile.TemporaryDirectory(prefix="cli_encode.") as t:
        TMP = t
        bad_records()
        bad_qemu()
        bad_options()
        bad_perf_options()
        good()
        doc_example()
    if FAILS:
        print(f"{len(FAILS)} checks failed")
        return 1
    print("cli_encode: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
