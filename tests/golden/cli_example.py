#!/usr/bin/env python3
"""Decode the shipped example snapshot with `etmkit packets --json` and
compare every record, per trace ID and in order, with expected.jsonl, which
tools/make_example.py wrote while encoding the trace (independently of the
C decoder): type, input offset, bytes and the fields it lists."""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--examples", required=True)
    a = ap.parse_args()
    snap = a.examples + "/etmv3-two-sources"
    out = subprocess.run([a.etmkit, "packets", "--snapshot", snap, "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print("etmkit failed (%d): %s" % (out.returncode, out.stderr))
        return 1
    got = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        got.setdefault(r["id"], []).append(r)
    want = {}
    with open(snap + "/expected.jsonl") as f:
        for line in f:
            r = json.loads(line)
            want.setdefault(r["id"], []).append(r)
    bad = 0
    for sid in sorted(set(got) | set(want)):
        g, w = got.get(sid, []), want.get(sid, [])
        if len(g) != len(w):
            print("id 0x%02x: %d records, expected %d" % (sid, len(g), len(w)))
            bad += 1
        for i, (gr, wr) in enumerate(zip(g, w)):
            for k, v in wr.items():
                if gr.get(k) != v:
                    print("id 0x%02x record %d: %s = %r, expected %r\n  got %s"
                          % (sid, i, k, gr.get(k), v, json.dumps(gr)))
                    bad += 1
    n = sum(len(v) for v in want.values())
    print("%d passed, %d failed" % (n - min(bad, n), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
