"""OpenCSD's instruction ranges, read from a trc_pkt_lister -decode log.

Each OCSD_GEN_TRC_ELEM_INSTR_RANGE line of a .ppl log names its trace ID,
the range's first address and end address (the byte after its last
instruction), the number of instructions, the instruction set and whether
the last instruction executed (E) or failed its condition (N). read_ranges()
gives those of one trace ID as tuples (start, end, count, isa, executed),
isa in etmkit's names; covers() tells whether a run of instructions is
exactly one range. Used by tests/golden/compare_flow.py (against `etmkit
decode`) and tests/encode/round_trip.py (against an execution record).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

RANGE = re.compile(r"INSTR_RANGE\(exec range=0x([0-9a-f]+):\[0x([0-9a-f]+)\] "
                   r"num_i\((\d+)\) last_sz\((\d+)\) \(ISA=([^)]*)\)\)? "
                   r"([EN]) ")
# OpenCSD's ISA names ("ARM(32)" has its own parenthesis) as etmkit's.
OCSD_ISA = {"ARM(32": "arm", "A32": "arm", "T32": "thumb", "A64": "a64",
            "Jazelle": "jazelle", "TEE": "thumbee"}


def run_lister(snapshot, tid=None):
    """The text of trc_pkt_lister -decode on @snapshot (the IDs all, or
    @tid alone); the caller has checked that trc_pkt_lister is installed."""
    exe = shutil.which("trc_pkt_lister")
    cmd = [exe, "-ss_dir", os.path.abspath(snapshot), "-decode"]
    if tid is not None:
        cmd += ["-id", hex(tid)]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(cmd + ["-logfilename", "out.ppl"], cwd=d,
                       capture_output=True)
        with open(os.path.join(d, "out.ppl"), errors="replace") as f:
            return f.read()


def read_ranges(text, tid):
    """The ranges of trace ID @tid (an int, or a string such as "0x10") in
    the log @text, in order; exits 1 on a range line it cannot read."""
    tag = f"ID:{int(tid, 0) if isinstance(tid, str) else tid:x};"
    out = []
    for line in text.splitlines():
        if tag in line and "INSTR_RANGE" in line:
            m = RANGE.search(line)
            if not m:
                print("cannot parse: " + line)
                sys.exit(1)
            out.append((int(m.group(1), 16), int(m.group(2), 16),
                        int(m.group(3)), OCSD_ISA.get(m.group(5), m.group(5)),
                        m.group(6) == "E"))
    return out


def covers(chunk, rng):
    """True when @chunk, instructions (addr, size, isa, executed) in order,
    is exactly the range @rng: as many, contiguous, from its start to its
    end, all in its instruction set, the last executed as it says."""
    start, end, count, isa, executed = rng
    return (count > 0 and len(chunk) == count and chunk[0][0] == start and
            chunk[-1][0] + chunk[-1][1] == end and
            all(a[0] + a[1] == b[0] for a, b in zip(chunk, chunk[1:])) and
            all(a[2] == isa for a in chunk) and chunk[-1][3] == executed)
