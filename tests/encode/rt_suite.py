#!/usr/bin/env python3
"""Round trips of real program runs through `etmkit encode`, in bulk.

  --logs DIR        every QEMU log in DIR (tests/data/qemu: A64, and A32
                    with T32 interworking)
  --records DIR     the ETMv1 data records in DIR (tests/data/records,
                    *_v1.txt): ETMv1 data trace (one 4-byte transfer an
                    instruction, docs/etmv2.md 7b)
  --workloads DIR   every workload in DIR (tests/workloads), compiled and
                    run under QEMU by tools/qemu-trace for A64, A32 and T32
                    (state mode: conditions from the CPU state)

Each log is encoded for every protocol that can trace its instructions
(A64: ETE, ETMv4; A32/T32: ETMv3, PTM, ETMv4, ETE, ETMv2) under several
register presets (PTM: return stack and cycle-accurate tracing on and off;
ETMv2: port widths, data trace, cycle-accurate tracing; ETMv1: port
widths, cycle-accurate tracing, an overflowing FIFO; for the
workloads also ETMv2 and ETMv3 data trace of the transfers derived from
the CPU dumps, --qemu-data), and round_trip.py
checks `etmkit decode` and OpenCSD's trc_pkt_lister (no ETMv2: etmkit
alone) against the record. Exit: 0 all match, 1 a difference, 77
a tool is missing (qemu-user, the cross compilers, trc_pkt_lister; fails
with CI=true).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import skip  # noqa: E402  (tests/verdict.py)

# (protocol, encode options) per instruction set family.
CASES_A64 = [("ete", []), ("ete", ["--preset", "spec,cycles,timestamps",
                                   "--timestamp-every", "97"]),
             ("etmv4", []), ("etmv4", ["--preset", "cycles",
                                       "--sync-period", "256"])]
CASES_A32 = [("etmv3", []),
             ("etmv3", ["--preset", "cycle-accurate,timestamps",
                        "--timestamp-every", "61"]),
             ("etmv3", ["--preset", "alt-branch,branch-output",
                        "--sync-period", "128", "--frames", "none"]),
             ("ptm", []),
             ("ptm", ["--preset", "cycle-accurate,return-stack,timestamps",
                      "--timestamp-every", "61"]),
             ("ptm", ["--preset", "return-stack,branch-broadcast,vmid",
                      "--sync-period", "128", "--frames", "none"]),
             ("ete", ["--preset", "spec"]), ("etmv4", []),
             # ETMv2: 4/8/16-bit ports, data trace and cycle-accurate
             # tracing on and off, phantoms, load misses, periodic TFOs
             ("etmv2", []),
             ("etmv2", ["--overflow", "--preset",
                        "cycle-accurate,data,phantoms", "--port-width", "4"]),
             # cycle-accurate without phantoms: every instruction's
             # cycles checked against the record (round_trip.py)
             ("etmv2", ["--preset", "cycle-accurate,data", "--sync-period",
                        "48", "--fifo-depth", "4096"]),
             ("etmv2", ["--preset", "data,load-miss,branch-output",
                        "--port-width", "16", "--sync-period", "64",
                        "--capture-format", "text"]),
             # a 4-bit port and a small FIFO: overflows where branches
             # come faster than the port drains them (round_trip.py
             # --overflow: reported, the rest exactly the record)
             ("etmv2", ["--overflow", "--preset", "data,phantoms",
                        "--port-width", "4", "--fifo-depth", "16"]),
             # ETMv1 (docs/etmv2.md 7b): 8 and 4-bit ports, cycle-accurate
             # on and off, periodic reason 4 addresses, and a small FIFO
             # that overflows (restarts of reason 2, reported as gaps).
             # Data trace only in CASES_A32_DATA_V1 (one 4-byte transfer
             # an instruction: these runs have others)
             ("etmv2", ["--etm-version", "1"]),
             ("etmv2", ["--etm-version", "1", "--preset",
                        "cycle-accurate,branch-output", "--sync-period",
                        "64"]),
             ("etmv2", ["--etm-version", "1", "--preset", "cycle-accurate",
                        "--port-width", "4", "--sync-period", "48",
                        "--fifo-depth", "4096"]),
             ("etmv2", ["--overflow", "--etm-version", "1", "--preset",
                        "branch-output", "--port-width", "4",
                        "--fifo-depth", "16", "--sync-period", "16"])]
# State-mode workload logs only (not the committed block-mode ones): data
# transfers derived from the CPU dumps (--qemu-data, docs/qemu-log.md),
# traced by ETMv2 (a 16-bit port and a FIFO that does not overflow; a
# 4-bit port whose FIFO does) and ETMv3, and checked word by word against
# the record (round_trip.py compare_etm2, compare_etm3_data; with
# --overflow the instructions only) and against themselves
# (check_memory).
CASES_A32_DATA = [("etmv2", ["--qemu-data", "--preset", "data",
                             "--port-width", "16", "--fifo-depth", "4096"]),
                  # a 4-bit port: the largest FIFO fills (a backlog of
                  # thousands of cycles the decoder holds) and overflows
                  ("etmv2", ["--overflow", "--qemu-data", "--preset",
                             "cycle-accurate,data,load-miss",
                             "--port-width", "4", "--fifo-depth", "4096"]),
                  ("etmv3", ["--qemu-data", "--preset", "data"])]


# ETMv1 data trace of the records that only move single 32-bit words
# (QEMU runs have LDM, byte and halfword transfers: the encoder refuses
# those with ETMv1 data on).
# The exact data round trips of that record are tests/CMakeLists.txt's
# encode_record_data_etmv1*; here, the one that overflows.
CASES_V1_DATA = [("etmv2", ["--overflow", "--etm-version", "1", "--preset",
                            "data", "--port-width", "4", "--fifo-depth",
                            "24"])]


def round_trip(etmkit, log, protocol, opts):
    src = "--record" if log.endswith(".txt") else "--qemu-log"
    cmd = [sys.executable, os.path.join(HERE, "round_trip.py"), "--etmkit",
           etmkit, src, log, "--protocol", protocol]
    # OpenCSD has no ETMv2 decoder, and its ETMv3 decoder refuses a
    # configuration with data trace (trc_pkt_lister: "OCSD_ERR_NOT_INIT
    # ... No decoder configuration information")
    if protocol != "etmv2" and "--qemu-data" not in opts:
        cmd.append("--ocsd")
    if "--overflow" in opts:
        cmd.append("--overflow")
        opts = [o for o in opts if o != "--overflow"]
    if opts:
        cmd += ["--"] + opts
    p = subprocess.run(cmd, capture_output=True, text=True)
    what = f"{os.path.basename(log)} {protocol} {' '.join(opts)}".strip()
    if p.returncode == 77:
        skip(p.stdout.strip())
    if p.returncode != 0:
        print(f"FAIL {what}\n{p.stdout}{p.stderr}")
        return 1
    print(f"ok   {what}")
    return 0


def is_a64(log):
    """The committed logs say their instruction set in their name."""
    return "a64" in os.path.basename(log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--logs")
    ap.add_argument("--records")
    ap.add_argument("--workloads")
    ap.add_argument("--qemu-trace")
    a = ap.parse_args()
    if not shutil.which("trc_pkt_lister"):
        skip("trc_pkt_lister not installed (Debian libopencsd-bin)")
    bad = 0
    if a.logs:
        for name in sorted(os.listdir(a.logs)):
            log = os.path.join(a.logs, name)
            for proto, opts in CASES_A64 if is_a64(log) else CASES_A32:
                bad += round_trip(a.etmkit, log, proto, opts)
    if a.records:
        for name in sorted(os.listdir(a.records)):
            if name.endswith("_v1.txt"):
                for proto, opts in CASES_V1_DATA:
                    bad += round_trip(a.etmkit, os.path.join(a.records, name),
                                      proto, opts)
    if a.workloads:
        for tool in ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc",
                     "arm-linux-gnueabihf-gcc"):
            if not shutil.which(tool):
                skip(f"{tool} not installed (tools/setup-debian installs "
                     "qemu-user and the cross compilers)")
        with tempfile.TemporaryDirectory() as tmp:
            for name in sorted(os.listdir(a.workloads)):
                # busy.c is the long run for speed; hot.c, AutoFDO's (1.2
                # million instructions), too long a state-mode log here
                # (tests/perf/autofdo_tools.py); tiny.c is in --logs
                if not name.endswith(".c") or name in ("busy.c", "hot.c",
                                                       "tiny.c"):
                    continue
                for arch in ("a64", "a32", "t32"):
                    out = os.path.join(tmp, f"{name[:-2]}-{arch}")
                    p = subprocess.run(
                        [a.qemu_trace, "--arch", arch, "--mode", "state",
                         "--no-encode", "--no-install", "--out", out,
                         os.path.join(a.workloads, name)],
                        capture_output=True, text=True)
                    if p.returncode != 0:
                        print(f"FAIL qemu-trace {name} {arch}:\n{p.stderr}")
                        bad += 1
                        continue
                    log = os.path.join(out, "qemu.log")
                    renamed = os.path.join(out, f"{name[:-2]}-{arch}.log")
                    os.rename(log, renamed)
                    for proto, opts in (CASES_A64 if arch == "a64"
                                        else CASES_A32 + CASES_A32_DATA):
                        bad += round_trip(a.etmkit, renamed, proto, opts)
                    shutil.rmtree(out)
    print("all round trips match" if not bad else f"{bad} round trips differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
