#!/usr/bin/env python3
"""Write the fleet tests' corpus: N perf.data recordings made by the
encoder from QEMU runs of the workloads, a few of them damaged.

    make_corpus.py --etmkit build/etmkit --qemu-trace tools/qemu-trace
                   --workloads tests/workloads --out DIR [-n 200] [--big]

The QEMU logs are made once (tools/qemu-trace --no-install --no-encode,
-O2 -g: line tables for lcov;
kept in DIR/logs and reused while the workload sources are unchanged).
Then every recording is one `etmkit encode --format perf-data` run whose
options come from a seeded random generator, so the same arguments give
the same files byte for byte (the encoder is deterministic: time stamps
count records, docs/perf-data.md):

* 2 to 5 processes, each a workload's log with its binary (--elf), in a
  random order; a workload may run twice (two processes, one binary);
* --cpus 2..4, --aux-size, --truncate-every (an expected loss: exit 0),
  --frames none (FORMAT_RAW records), --protocol ete or etmv4; about one
  in ten is an A32 pair (loops, calls) as etmv3 or ptm.

Damaged copies replace some of the recordings, one class each (what the
serial `etmkit profile` does with them, plan21-analysis §4.3):

* truncated: the first half of the file (exit 3: the data section runs
  past the end, nothing decoded);
* bad-magic: PERFILE3 at offset 0 (exit 2: no longer a perf.data file,
  so a raw file that needs --protocol);
* bad-header: attr_size (offset 16, digest perf-data.md 2.1) all ones
  (exit 3);
* aux-damaged: trace bytes inverted inside the AUX data only, at packet
  offsets `etmkit packets` gives (exit 1: decode errors; the profile still
  counts the rest of the file, so the fleet must count it too).

DIR/corpus.json lists every recording with its class and the exit status
the serial CLI gives it, the ELF files (absolute paths) and the binary a
BOLT profile is written for. Exits 77 when QEMU or a cross compiler is
missing (the fleet tests are then skipped).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time

A64 = ["loops", "calls", "condexec", "syscalls", "signal"]
A32 = ["loops", "calls"]
BIG = ["hot"]      # --big: the bench's larger recordings (hot.c: 1.2 M insns)
TOOLS = {"a64": ("qemu-aarch64", "aarch64-linux-gnu-gcc"),
         "a32": ("qemu-arm", "arm-linux-gnueabihf-gcc")}
DAMAGE = ["truncated", "bad-magic", "bad-header", "aux-damaged",
          "truncated", "aux-damaged"]
EXPECT = {"good": 0, "truncated": 3, "bad-magic": 2, "bad-header": 3,
          "aux-damaged": 1}
BOLT_BINARY = "/calls\\.a64$"
CFLAGS = "-O2 -g"  # DWARF lines for the lcov profiles


def run(cmd, **kw):
    """Run cmd; its stderr in the exception when it fails."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def make_logs(a, arches, jobs):
    """QEMU logs and static binaries per (arch, workload), made once: a
    stamp holds the hash of the workload's source and the tool."""
    logs = {}
    todo = []
    for arch, names in arches.items():
        d = os.path.join(a.out, "logs", arch)
        os.makedirs(d, exist_ok=True)
        for w in names:
            src = os.path.join(a.workloads, w + ".c")
            with open(src, "rb") as f:
                stamp = hashlib.sha256(f.read()).hexdigest()
            with open(a.qemu_trace, "rb") as f:
                stamp += hashlib.sha256(f.read()).hexdigest()
            stamp += CFLAGS
            log = os.path.join(d, w + ".log")
            binary = os.path.join(d, f"{w}.{arch}")
            logs[(arch, w)] = (log, binary)
            st = log + ".stamp"
            if (os.path.exists(st) and os.path.exists(binary)
                    and open(st).read() == stamp):
                continue
            todo.append((arch, w, src, d, log, st, stamp))

    def one(t):
        arch, w, src, d, log, st, stamp = t
        # one out folder per workload: qemu-trace writes stdout/stderr there
        out = os.path.join(d, w + ".run")
        run([a.qemu_trace, "--no-install", "--no-encode", "--arch", arch,
             "--cflags", CFLAGS, "--out", out, "--log", log, src],
            env=dict(os.environ, ITER="1"))
        os.replace(os.path.join(out, f"{w}.{arch}"),
                   os.path.join(d, f"{w}.{arch}"))
        shutil.rmtree(out)
        with open(st, "w") as f:
            f.write(stamp)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        list(ex.map(one, todo))
    return logs


def plan(n, seed, big):
    """The encoder options of every recording, from a seeded generator."""
    rnd = random.Random(seed)
    recs = []
    for i in range(n):
        if big:
            # ~0.5 s of decode each: hot.c 4-7 times, with timestamps and
            # mis-speculation for more trace per instruction (~10 MB)
            arch, proto = "a64", rnd.choice(["ete", "etmv4"])
            procs = ["hot"] * rnd.randint(4, 7) + rnd.sample(A64, 1)
            rnd.shuffle(procs)
        elif i % 10 == 7:
            arch, proto = "a32", rnd.choice(["etmv3", "ptm"])
            procs = rnd.sample(A32, 2)
        else:
            arch, proto = "a64", rnd.choice(["ete", "etmv4"])
            k = rnd.randint(2, 5)
            procs = [rnd.choice(A64) for _ in range(k)] \
                if rnd.random() < 0.2 else rnd.sample(A64, k)
        raw = arch == "a64" and rnd.random() < 0.25
        opts = ["--protocol", proto, "--cpus", str(rnd.randint(2, 4))]
        if raw:
            opts += ["--frames", "none",
                     "--aux-size", str(rnd.choice([700, 1000, 3000, 8192]))]
        else:
            opts += ["--aux-size", str(rnd.choice([1024, 2048, 4096, 16384]))]
        if rnd.random() < 0.3:
            opts += ["--truncate-every", str(rnd.randint(2, 5))]
        if big:
            opts += ["--preset", "cycles,timestamps,spec",
                     "--timestamp-every", "2", "--mispredict-every", "3"]
        recs.append({"arch": arch, "procs": procs, "opts": opts})
    return recs


def encode(a, logs, i, r):
    """One `etmkit encode --format perf-data` run."""
    path = os.path.join(a.out, "rec", f"rec-{i:04d}.data")
    cmd = [a.etmkit, "encode", "--format", "perf-data", "--out", path,
           "--quiet"] + r["opts"]
    for w in r["procs"]:
        log, binary = logs[(r["arch"], w)]
        cmd += ["--from-qemu", log, "--elf", binary]
    run(cmd)
    return path


def packet_offsets(a, path):
    """File offsets of the trace packets (etmkit packets' first column:
    the AUX bytes' offsets in the file, cli/input_perf.c)."""
    out = subprocess.run([a.etmkit, "packets", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    offs = []
    for line in out.splitlines():
        f = line.split()
        if len(f) > 2 and f[0].isdigit():
            offs.append(int(f[0]))
    return offs


def serial_exit(a, path, elfs):
    p = subprocess.run([a.etmkit, "profile", "--jobs", "1", "-o", os.devnull,
                        path] + [x for e in elfs for x in ("--elf", e)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode


def damage(a, path, kind, elfs, rnd):
    """Damage path in place (one class); return where."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if kind == "truncated":
        data = data[:len(data) // 2]
        where = f"cut to {len(data)} bytes"
    elif kind == "bad-magic":
        data[0:8] = b"PERFILE3"
        where = "magic PERFILE3"
    elif kind == "bad-header":
        data[16:24] = b"\xff" * 8
        where = "attr_size 0xffffffffffffffff at offset 16"
    else:
        offs = packet_offsets(a, path)
        # a few packets in the middle third, inverted; the first choice
        # that makes the serial CLI count decode errors (exit 1) is kept
        mid = offs[len(offs) // 3: 2 * len(offs) // 3]
        orig = bytes(data)
        for attempt in range(20):
            pick = sorted(rnd.sample(mid, min(4, len(mid))))
            data = bytearray(orig)
            for o in pick:
                data[o] ^= 0xFF
            with open(path, "wb") as f:
                f.write(data)
            if serial_exit(a, path, elfs) == 1:
                return f"AUX bytes inverted at {pick}"
        raise RuntimeError(f"{path}: no AUX damage gave decode errors")
    with open(path, "wb") as f:
        f.write(data)
    return where


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--qemu-trace", required=True)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--big", action="store_true",
                    help="the bench's corpus: hot.c processes, no damage")
    a = ap.parse_args()
    a.etmkit = os.path.abspath(a.etmkit)
    a.qemu_trace = os.path.abspath(a.qemu_trace)
    a.out = os.path.abspath(a.out)
    for qemu, gcc in TOOLS.values():
        if not shutil.which(qemu) or not shutil.which(gcc):
            print(f"skipped: {qemu} or {gcc} not installed")
            return 77
    t0 = time.monotonic()
    arches = {"a64": A64 + (BIG if a.big else [])} if a.big \
        else {"a64": A64, "a32": A32}
    logs = make_logs(a, arches, a.jobs)
    t_logs = time.monotonic() - t0
    elfs = sorted(b for _, b in logs.values())
    recdir = os.path.join(a.out, "rec")
    shutil.rmtree(recdir, ignore_errors=True)
    os.makedirs(recdir)
    recs = plan(a.n, a.seed, a.big)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        paths = list(ex.map(lambda ir: encode(a, logs, *ir), enumerate(recs)))
    for r, p in zip(recs, paths):
        r.update(file=p, cls="good", expect=0)
    if not a.big:
        # damage formatted a64 recordings spread over the corpus
        rnd = random.Random(a.seed + 1)
        cand = [r for r in recs if r["arch"] == "a64"
                and "none" not in r["opts"]]
        step = len(cand) // (len(DAMAGE) + 1)
        for k, kind in enumerate(DAMAGE):
            r = cand[(k + 1) * step]
            r["where"] = damage(a, r["file"], kind, elfs, rnd)
            r.update(cls=kind, expect=EXPECT[kind])
    manifest = {"seed": a.seed, "elfs": elfs, "bolt_binary": BOLT_BINARY,
                "recordings": recs}
    with open(os.path.join(a.out, "corpus.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    nbytes = sum(os.path.getsize(p) for p in paths)
    print(f"make_corpus: {len(recs)} recordings, {nbytes} bytes, "
          f"{sum(r['cls'] != 'good' for r in recs)} damaged; logs "
          f"{t_logs:.1f} s, total {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
