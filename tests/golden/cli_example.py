#!/usr/bin/env python3
"""Decode each shipped example snapshot with `etmkit packets --json` and
compare every record, per trace ID and in order, with its expected.jsonl,
which tools/make_example.py wrote while encoding the trace from the
specification (independently of the C decoder): type, input offset, bytes
and the fields it lists. Where the example has a program
(expected_decode.jsonl), also decode it with `etmkit decode --json` and
compare every element, in order, with the instructions and events the
generator's execution list says the trace encodes.

When OpenCSD's trc_pkt_lister is installed, its packet listing of the same
examples is printed beside the expected packets, with the first place where
it departs from them. That part is a record of where OpenCSD and the
specification disagree (e.g. its packet processor reads a value after a
normal data packet whose SS field is 00), not a pass/fail check."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)

OCSD_TYPES = {"A_SYNC": "a_sync", "I_SYNC": "i_sync", "I_SYNC_CYCLE": "i_sync_cycle",
              "P_HDR": "p_header", "BRANCH_ADDRESS": "branch_address",
              "CYCLE_COUNT": "cycle_count", "NORM_DATA": "normal_data",
              "OOO_DATA": "ooo_data", "OOO_ADDR_PLC": "ooo_placeholder",
              "VAL_NOT_TRACED": "value_not_traced", "STORE_FAIL": "store_failed",
              "DATA_SUPPRESSED": "data_suppressed", "TIMESTAMP": "timestamp",
              "CONTEXT_ID": "context_id", "VMID": "vmid", "TRIGGER": "trigger",
              "EXCEPTION_EXIT": "exception_exit", "EXCEPTION_ENTRY": "exception_entry",
              "IGNORE": "ignore"}


def check(etmkit, snap):
    out = subprocess.run([etmkit, "packets", "--snapshot", snap, "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print("%s: etmkit failed (%d): %s" % (snap, out.returncode, out.stderr))
        return 0, 1, {}
    got, want = {}, {}
    for r in etmkit_json.lines(out.stdout, "packets", snap):
        got.setdefault(r["id"], []).append(r)
    with open(os.path.join(snap, "expected.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            want.setdefault(r["id"], []).append(r)
    bad = 0
    for sid in sorted(set(got) | set(want)):
        g, w = got.get(sid, []), want.get(sid, [])
        if len(g) != len(w):
            print("%s id 0x%02x: %d records, expected %d" % (snap, sid, len(g), len(w)))
            bad += 1
        for i, (gr, wr) in enumerate(zip(g, w)):
            for k, v in wr.items():
                if gr.get(k) != v:
                    print("%s id 0x%02x record %d: %s = %r, expected %r\n  got %s"
                          % (snap, sid, i, k, gr.get(k), v, json.dumps(gr)))
                    bad += 1
    n = sum(len(v) for v in want.values())
    return n, bad, want


def check_decode(etmkit, snap):
    """Elements of `etmkit decode` against expected_decode.jsonl: every
    element in order with exactly the fields listed (the offset aside).
    Returns (count, bad)."""
    path = os.path.join(snap, "expected_decode.jsonl")
    out = subprocess.run([etmkit, "decode", "--snapshot", snap, "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print("%s: etmkit decode failed (%d): %s" % (snap, out.returncode, out.stderr))
        return 0, 1
    got = etmkit_json.lines(out.stdout, "elements", snap)
    with open(path) as f:
        want = [json.loads(l) for l in f]
    bad = 0
    if len(got) != len(want):
        print("%s: %d elements, expected %d" % (snap, len(got), len(want)))
        bad += 1
    for i, (g, w) in enumerate(zip(got, want)):
        # Every field but the byte offset (which the encoder does not
        # track) must be expected: a flag etmkit adds is a difference too.
        for k in sorted(set(w) | (set(g) - {"offset"})):
            if g.get(k) != w.get(k):
                print("%s element %d: %s = %r, expected %r\n  got %s"
                      % (snap, i, k, g.get(k), w.get(k), json.dumps(g)))
                bad += 1
    return len(want), bad


RANGE = re.compile(r"Idx:\d+; ID:([0-9a-f]+); OCSD_GEN_TRC_ELEM_INSTR_RANGE\(exec range="
                   r"0x([0-9a-f]+):\[0x([0-9a-f]+)\] num_i\((\d+)\).*?\(ISA=(\w+)\)")


def opencsd_decode_view(snap):
    """Print where trc_pkt_lister -decode's instructions depart from
    expected_decode.jsonl (informational)."""
    lister = shutil.which("trc_pkt_lister")
    if not lister:
        return
    with open(os.path.join(snap, "expected_decode.jsonl")) as f:
        exp = [(etmkit_json.num(r["addr"]), r["isa"])
               for r in map(json.loads, f) if r["kind"] == "insn"]
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([lister, "-ss_dir", os.path.abspath(snap), "-decode",
                            "-logstdout"], capture_output=True, text=True, cwd=tmp)
    got = []
    isas = {"A32": "arm", "T32": "thumb"}
    for m in RANGE.finditer(p.stdout):
        if m.group(4) == "1":
            got.append((int(m.group(2), 16), isas.get(m.group(5), m.group(5))))
        else:
            got.append((int(m.group(2), 16), "range of %s" % m.group(4)))
    i = 0
    while i < min(len(got), len(exp)) and got[i] == exp[i]:
        i += 1
    name = os.path.basename(snap)
    if i == len(exp) == len(got):
        print("  opencsd decode of %s: the same %d instructions" % (name, len(exp)))
    else:
        print("  opencsd decode of %s: departs at instruction %d: expected %s, "
              "OpenCSD has %s (%d instructions expected, %d listed)"
              % (name, i, [(hex(a), s) for a, s in exp[i:i + 2]],
                 [(hex(a), s) for a, s in got[i:i + 2]], len(exp), len(got)))


def opencsd_view(snap, want):
    """Print where trc_pkt_lister's packet listing departs from the
    expected packets (informational)."""
    lister = shutil.which("trc_pkt_lister")
    if not lister:
        return
    snap = os.path.abspath(snap)
    for sid, recs in sorted(want.items()):
        # It writes trc_pkt_lister.ppl into its working folder regardless.
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([lister, "-ss_dir", snap, "-id", "0x%x" % sid,
                                "-logstdout"], capture_output=True, text=True, cwd=tmp)
        types = []
        for line in p.stdout.splitlines():
            m = re.match(r"Idx:\d+; ID:[0-9a-fA-F]+;\s*(\w+)", line)
            if m and m.group(1) != "NOTSYNC":
                types.append(OCSD_TYPES.get(m.group(1), m.group(1)))
        exp = [r["type"] for r in recs if r["type"] != "unsynced"]
        i = 0
        while i < min(len(types), len(exp)) and types[i] == exp[i]:
            i += 1
        if i == len(exp) and len(types) == len(exp):
            print("  opencsd on %s id 0x%02x: the same %d packet types"
                  % (os.path.basename(snap), sid, len(exp)))
        else:
            print("  opencsd on %s id 0x%02x: departs at packet %d: expected %s, "
                  "OpenCSD lists %s (%d packets listed, %d encoded)"
                  % (os.path.basename(snap), sid, i, exp[i:i + 3], types[i:i + 3],
                     len(types), len(exp)))


def check_generated(examples):
    """The committed examples are what tools/make_example.py writes today:
    an edit to one without the other is a failure. Returns the number of
    differing files."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "tools", "make_example.py")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, tool, tmp], capture_output=True,
                           text=True)
        if p.returncode != 0:
            print("make_example.py failed: " + p.stderr)
            return 1
        for root, _, files in os.walk(tmp):
            for fn in sorted(files):
                made = os.path.join(root, fn)
                rel = os.path.relpath(made, tmp)
                kept = os.path.join(examples, rel)
                with open(made, "rb") as f:
                    want = f.read()
                try:
                    with open(kept, "rb") as f:
                        same = f.read() == want
                except OSError:
                    same = False
                if not same:
                    print("%s differs from what tools/make_example.py writes "
                          "(rerun it)" % rel)
                    bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--examples", required=True)
    a = ap.parse_args()
    total = bad = 0
    bad += check_generated(a.examples)
    for name in sorted(os.listdir(a.examples)):
        snap = os.path.join(a.examples, name)
        if not os.path.isfile(os.path.join(snap, "expected.jsonl")):
            continue
        n, b, want = check(a.etmkit, snap)
        print("%s: %d records, %d differences" % (name, n, b))
        opencsd_view(snap, want)
        total += n
        bad += b
        if os.path.isfile(os.path.join(snap, "expected_decode.jsonl")):
            n, b = check_decode(a.etmkit, snap)
            print("%s: %d elements decoded, %d differences" % (name, n, b))
            opencsd_decode_view(snap)
            total += n
            bad += b
    if not total:
        print("no example with expected.jsonl in " + a.examples)
        return 1
    print("%d passed, %d failed" % (total - min(bad, total), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
