#!/usr/bin/env python3
"""etmkit decode names an exception by its source's protocol (text and
JSON): PTM's numbers after IHI 0035B Table 5.6 (ptm_exception_name()),
whose 5 is "thumbee_check_fail" where ETMv3's ARMv7-A/R table (IHI 0014Q
Table 7-12) says "jazelle_thumbee_check". A hand-made raw PTM stream (the
A32 case of tests/unit/test_ptm_flow.c, its exception byte made number 5)
and its code as an image; no shared data needed.

Usage: exc_names.py --etmkit ETMKIT --work DIR"""
import argparse
import json
import os
import struct
import subprocess
import sys

# A32 code at 0x8000, 0x8100 and a handler at 0x9000 (test_ptm_flow.c).
CODE = {
    0x8000: [0xe3a00001, 0xe3500002, 0x0a000003, 0xeb000004, 0xe2800001,
             0xe12fff13, 0xe1a00000, 0xe1a00000, 0xe1a00000, 0xe2822001,
             0xe12fff1e],
    0x8100: [0xe1a00000, 0xe320f000, 0xe1a00000, 0xea000000, 0xe1a00000,
             0xe12fff1e],
    0x9000: [0xe1a00000, 0xe25ef004],
}

# ETMCR[29] return stack on (digest ptm.md 1), no cycle counts.
TRACE = bytes([
    0, 0, 0, 0, 0, 0x80,            # A-sync (4.1)
    0x08, 0x00, 0x80, 0x00, 0x00,   # I-sync at 0x8000 (4.2)
    0x21,                           # reason trace on, S
    0x98,                           # atoms N, E, E (4.3)
    0x81, 0x01,                     # branch to 0x8100 (4.4)
    0x72, 0x03,                     # waypoint update 0x8104 (4.5)
    0x81, 0x50, 0x0a,               # branch to 0x9000, exception byte:
                                    # Exception[3:0] = 5 in b4..b1, NS 0
    0x85, 0x01,                     # branch to 0x8108
    0x76,                           # exception return (4.6)
    0x84,                           # atom E
])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    img = bytearray(0x1008)
    for base, words in CODE.items():
        for i, w in enumerate(words):
            struct.pack_into("<I", img, base - 0x8000 + 4 * i, w)
    img_path = os.path.join(a.work, "code.bin")
    trace_path = os.path.join(a.work, "ptm.bin")
    with open(img_path, "wb") as f:
        f.write(img)
    with open(trace_path, "wb") as f:
        f.write(TRACE)
    args = [a.etmkit, "decode", trace_path, "--frames", "none",
            "--protocol", "ptm", "--etmcr", "0x20000000",
            "--etmidr", "0x411CF312", "--image", img_path + "@0x8000"]
    failures = []
    text = subprocess.run(args, stdout=subprocess.PIPE, check=True,
                          timeout=60).stdout.decode()
    lines = [l for l in text.splitlines() if " exception " in l]
    want = "exception 5(thumbee_check_fail) handler=0x00009000"
    if len(lines) != 1 or want not in lines[0]:
        failures.append("text: want one line with %r, got %r"
                        % (want, lines))
    out = subprocess.run(args + ["--json"], stdout=subprocess.PIPE,
                         check=True, timeout=60).stdout.decode()
    excs = [r for r in map(json.loads, out.splitlines())
            if r["kind"] == "exception"]
    if len(excs) != 1 or excs[0].get("number") != 5 or \
            excs[0].get("name") != "thumbee_check_fail" or \
            excs[0].get("ret_addr") != "0x8108":
        failures.append("json: want number 5 thumbee_check_fail ret "
                        "0x8108, got %r" % excs)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
