#!/usr/bin/env python3
"""Decode each shipped example snapshot with `etmkit packets --json` and
compare every record, per trace ID and in order, with its expected.jsonl,
which tools/make_example.py wrote while encoding the trace from the
specification (independently of the C decoder): type, input offset, bytes
and the fields it lists.

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
    for line in out.stdout.splitlines():
        r = json.loads(line)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--examples", required=True)
    a = ap.parse_args()
    total = bad = 0
    for name in sorted(os.listdir(a.examples)):
        snap = os.path.join(a.examples, name)
        if not os.path.isfile(os.path.join(snap, "expected.jsonl")):
            continue
        n, b, want = check(a.etmkit, snap)
        print("%s: %d records, %d differences" % (name, n, b))
        opencsd_view(snap, want)
        total += n
        bad += b
    if not total:
        print("no example with expected.jsonl in " + a.examples)
        return 1
    print("%d passed, %d failed" % (total - min(bad, total), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
