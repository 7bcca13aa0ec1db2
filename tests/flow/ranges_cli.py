#!/usr/bin/env python3
"""`etmkit decode --ranges` against the per-instruction decode of the same
input, for every protocol (ETMv3, PTM, ETMv4, ETE, and ETMv2: a QEMU armhf log
of tests/data/qemu encoded by `etmkit encode --protocol etmv2`) and input
kind (snapshot, raw buffer, perf.data): in JSON, each insn_range record stands for `count` insn
records of the plain decode, one after another in memory from `addr` to
`end`, with the range's offset (ETMv2: the first one; an instruction's offset is its
status's cycle) and isa, every one but the last executed,
the last with the range's size, opcode and status flags; its cycles are
their sum (docs/json.md); every other record is the plain decode's, in
order, per trace ID. The text listing has one line per JSON record. Exit 77 (skipped)
without the shared captures."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

QEMU_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "data", "qemu", "tiny-a32-state.log")

LAST_KEYS = ("size", "isa", "opcode", "exec", "cond_fail", "cancel",
             "implied", "p0", "undefined")


def run(etmkit, args):
    p = subprocess.run([etmkit, "decode"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode not in (0, 1):
        sys.exit("etmkit decode %s: exit %d: %s" %
                 (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def compare(name, plain, ranges, per_cycle=False):
    """Returns the number of ranges of more than one instruction.
    @per_cycle (ETMv2): an instruction's offset is the cycle of its own
    status, so only the first of a range has the range's offset, the
    others' grow."""
    i = 0
    multi = 0
    for j, r in enumerate(ranges):
        where = "%s: range record %d (plain record %d)" % (name, j, i)
        if r["kind"] == "insn":
            sys.exit(where + ": an insn record with --ranges")
        if r["kind"] != "insn_range":
            if i >= len(plain) or plain[i] != r:
                sys.exit(where + ": not the plain decode's record")
            i += 1
            continue
        n = r["count"]
        insns = plain[i:i + n]
        if n < 1 or len(insns) != n:
            sys.exit(where + ": more instructions than the plain decode")
        addr = int(r["addr"], 16)
        cycles = 0
        for k, q in enumerate(insns):
            at = q["offset"] == r["offset"] if not per_cycle or k == 0 \
                else q["offset"] > insns[k - 1]["offset"]
            if q["kind"] != "insn" or not at or \
               q["isa"] != r["isa"] or int(q["addr"], 16) != addr:
                sys.exit(where + ": instruction %d is not the next in "
                         "the range" % k)
            if k + 1 < n and (not q["exec"] or
                              any(f in q for f in ("cond_fail", "cancel",
                                                   "implied"))):
                sys.exit(where + ": an instruction inside the range was "
                         "not executed")
            addr += q["size"]
            cycles += q.get("cycles", 0)
        last = insns[-1]
        for key in LAST_KEYS:
            if last.get(key) != r.get(key):
                sys.exit(where + ": %s is not the last instruction's" % key)
        if addr != int(r["end"], 16):
            sys.exit(where + ": end is not after the last instruction")
        if ("cycles" in r) != ("cycles" in last) or \
           r.get("cycles", 0) != min(cycles, 0xFFFF0000):
            sys.exit(where + ": cycles are not the sum of its "
                     "instructions'")
        multi += n > 1
        i += n
    if i != len(plain):
        sys.exit("%s: fewer records than the plain decode" % name)
    return multi


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        return check(a, tmp)


def check(a, tmp):
    e2 = os.path.join(tmp, "etmv2")
    subprocess.run([a.etmkit, "encode", "--from-qemu", QEMU_LOG,
                    "--protocol", "etmv2", "--out", e2, "-q"], check=True)
    td = os.path.join(a.shared, "testdata")
    tc2 = os.path.join(td, "etmv3", "TC2")
    perf = os.path.join(td, "perf")
    cases = [
        ("etmv3 snapshot", tc2, ["--snapshot", tc2]),
        ("etmv3 raw", tc2,
         [os.path.join(tc2, "cstrace.bin"), "--protocol", "etmv3",
          "--etmcr", "0x10001860", "--etmidr", "0x410CF250",
          "--etmccer", "0x344008F2", "--id", "0x10",
          "--image", os.path.join(tc2, "kernel_dump.bin") + "@0xC0008000"]),
        ("ptm snapshot", os.path.join(td, "ptm", "Snowball"),
         ["--snapshot", os.path.join(td, "ptm", "Snowball")]),
        ("ptm raw", tc2,
         [os.path.join(tc2, "cstrace.bin"), "--protocol", "ptm",
          "--etmcr", "0x10001000", "--etmidr", "0x411CF312",
          "--etmccer", "0x34C01AC2", "--id", "0x13",
          "--image", os.path.join(tc2, "kernel_dump.bin") + "@0xC0008000"]),
        ("etmv4 snapshot", os.path.join(td, "etmv4", "juno_r1_1"),
         ["--snapshot", os.path.join(td, "etmv4", "juno_r1_1")]),
        ("ete snapshot", os.path.join(td, "ete", "001-ack_test"),
         ["--snapshot", os.path.join(td, "ete", "001-ack_test")]),
        ("etmv2 snapshot", e2, ["--snapshot", e2]),
        ("etmv2 raw", e2,
         [os.path.join(e2, "trace.bin"), "--protocol", "etmv2", "--image",
          os.path.join(e2, "mem", "mem_10000.bin") + "@0x10000"]),
        ("etmv4 perf.data", perf,
         [os.path.join(perf, "perf_etm.data"), "--elf",
          os.path.join(perf, "etm_test_loop")]),
    ]
    if not all(os.path.exists(c[1]) for c in cases):
        print("shared captures missing: skipped")
        return 77
    for name, _, args in cases:
        plain = [json.loads(l) for l in
                 run(a.etmkit, args + ["--json"]).splitlines()]
        ranged = [json.loads(l) for l in
                  run(a.etmkit, args + ["--json", "--ranges"]).splitlines()]
        text = run(a.etmkit, args + ["--ranges", "--no-header"]).splitlines()
        # In order per trace ID (sources interleave as the session's
        # batches fall, which the form changes).
        multi = 0
        for tid in sorted({r["id"] for r in plain + ranged}):
            multi += compare("%s, ID 0x%02x" % (name, tid),
                             [r for r in plain if r["id"] == tid],
                             [r for r in ranged if r["id"] == tid],
                             name.startswith("etmv2"))
        if len(text) != len(ranged):
            sys.exit("%s: %d text lines for %d JSON records" %
                     (name, len(text), len(ranged)))
        if not multi or len(ranged) >= len(plain):
            sys.exit("%s: no range of several instructions" % name)
        print("%s: %d records as %d, %d ranges of several instructions" %
              (name, len(plain), len(ranged), multi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
