#!/usr/bin/env python3
"""Run tests/workloads/*.c under QEMU user mode (tools/qemu-trace) in block
and state mode for A64, A32 and T32, import each log with qemu_log_cat, and
check the records: the workload's own exit status, continuity (each
instruction follows the previous one's fall-through or taken target unless
a gap is between), SVC -> exception + gap, state-mode COND_FAIL never on a
taken branch, and block-mode items equal to state-mode items apart from
COND_FAIL. Exits 77 (skipped) when QEMU or the cross compilers are
missing."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ARCHS = {"a64": ("qemu-aarch64", "aarch64-linux-gnu-gcc"),
         "a32": ("qemu-arm", "arm-linux-gnueabihf-gcc"),
         "t32": ("qemu-arm", "arm-linux-gnueabihf-gcc")}


def items(cat, log):
    out = subprocess.run([cat, log], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{log}: importer failed: {out.stderr.strip()}")
    return out.stdout.splitlines()


def insn_size(t):
    if t[1] == "thumb":
        return 2 if len(t[3]) == 4 else 4
    return 4


def check(name, lines, state):
    errors = []
    prev = None
    gap = False
    for i, line in enumerate(lines):
        t = line.split()
        if t[0] == "gap":
            gap = True
            continue
        if t[0] != "I":
            continue
        addr = int(t[2], 16)
        if prev is not None and not gap:
            pa, ps, target = prev
            want = target if target is not None else pa + ps
            if addr != want:
                errors.append(f"{name}:{i}: {line} after {pa:x}, want {want:x}")
        taken = [x for x in t if x.startswith("T>")]
        if state and "FAIL" in t and taken:
            errors.append(f"{name}:{i}: failed condition yet taken: {line}")
        svc = (t[1] == "a64" and t[3] == "d4000001") or \
              (t[1] == "arm" and t[3][1:2] == "f" and t[3][0] != "f") or \
              (t[1] == "thumb" and len(t[3]) == 4 and t[3][:2] == "df")
        if svc and "FAIL" not in t and i + 2 < len(lines):
            if not (lines[i + 1].startswith("exc call") and lines[i + 2] == "gap"):
                errors.append(f"{name}:{i}: SVC without exception and gap")
        prev = (addr, insn_size(t), int(taken[0][2:], 16) if taken else None)
        gap = False
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cat", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--workloads", required=True)
    a = ap.parse_args()
    for qemu, gcc in ARCHS.values():
        if not shutil.which(qemu) or not shutil.which(gcc):
            print(f"skipped: {qemu} or {gcc} not installed")
            return 77
    errors = []
    os.environ["ITER"] = "1"
    work = tempfile.mkdtemp(prefix="qemu-workloads-")
    # busy.c (the speed workload) and hot.c (AutoFDO's, 1.2 million
    # instructions: tests/perf/autofdo_tools.py) are too long for
    # state-mode logs here
    srcs = sorted(f for f in os.listdir(a.workloads)
                  if f.endswith(".c") and f not in ("busy.c", "hot.c"))
    for src in srcs:
        for arch in ARCHS:
            logs = {}
            for mode in ("block", "state"):
                out = os.path.join(work, f"{src[:-2]}-{arch}-{mode}")
                # tiny.c has no libc: its own _start, raw system calls
                cflags = "-O1 -nostdlib -ffreestanding" if src == "tiny.c" else "-O2"
                r = subprocess.run([a.tool, "--no-encode", "--no-install",
                                    "--arch", arch, "--mode", mode, "--out", out,
                                    "--cflags", cflags,
                                    os.path.join(a.workloads, src)],
                                   capture_output=True, text=True)
                if r.returncode != 0 or "exit status 0" not in r.stderr:
                    errors.append(f"{src} {arch} {mode}: run failed: {r.stderr.strip()}")
                    continue
                logs[mode] = items(a.cat, os.path.join(out, "qemu.log"))
                errors += check(f"{src}/{arch}/{mode}", logs[mode], mode == "state")
            if len(logs) == 2:
                plain = [x.replace(" FAIL", "") for x in logs["state"]]
                if plain != logs["block"]:
                    errors.append(f"{src} {arch}: block and state records differ")
                n = sum(1 for x in logs["block"] if x.startswith("I "))
                f = sum(1 for x in logs["state"] if x.endswith("FAIL"))
                print(f"{src:14} {arch}: {n} instructions, {f} condition fails")
    shutil.rmtree(work)
    for e in errors[:50]:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
