#!/usr/bin/env python3
"""Round trip: execution record -> `etmkit encode` -> snapshot -> decoders.

The record (docs/exec-record.md) is the truth. This script encodes it (or a
QEMU log, keeping the record the importer made with --record-out), decodes
the snapshot with `etmkit decode --json` and checks, exactly, that the
decoded instructions are the record's: the same sequence of address, size
and instruction set, and whether each executed. An instruction "executed"
unless it is a branch that was not taken (an N atom, in every protocol)
or, in ETMv3, its condition failed (`x`; an N atom too: ETMv4 and ETE
trace no condition of a non-branch instruction).

For ETMv3 with data trace (ETMCR[3:2], in order: not data-ooo), the data
elements must be exactly the record's transfers (compare_etm3_data). With
--qemu-data (data transfers derived from a state-mode QEMU log), the
record's transfers must also agree with themselves (check_memory).

For ETMv2 (without --overflow) the decode must also be exactly the rest of
the record, by the rules docs/etmv2.md 7a states (compare_etm2): data
transfers and load misses, exceptions, context IDs and, cycle-accurate
without phantoms, every instruction's cycles. ETMv1 (--etm-version 1,
a source of type ETM1) by 7b's.

With --overflow (ETMv2, a FIFO that overflows), the encoder's warning says
how many instructions it could not trace; the decode must report an
overflow element before each run it lacks (or lack only the record's tail)
and show every other instruction exactly, the runs it lacks adding up to
the encoder's count.

With --ocsd, OpenCSD's trc_pkt_lister (Debian libopencsd-bin) decodes the
same snapshot, and its INSTR_RANGE elements must cover the record's
instructions exactly, in order: each range's first address, end address,
count and instruction set, and E/N of its last instruction.

The record is read here with this script's own parser, not etmkit's.

Exit status: 0 match, 1 mismatch or failure, 77 a tool is missing (fails
with CI=true).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)
from verdict import skip  # noqa: E402  (tests/verdict.py)
from ocsd_ranges import covers, read_ranges, run_lister  # noqa: E402  (tests/ocsd_ranges.py)

ISAS = ("arm", "thumb", "thumbee", "jazelle", "a64")


def read_record(path, etm3):
    """The record's instructions: (addr, size, isa, executed). ETMv4 and
    ETE trace no condition of a non-branch instruction: it "executed"
    there whatever its condition."""
    out = []
    header = False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            tok = line.split("#", 1)[0].split()
            if not tok:
                continue
            if not header:
                if tok != ["etmkit-exec", "1"]:
                    sys.exit(f"{path}:{n}: not an execution record")
                header = True
                continue
            if tok[0] in ("exc", "gap", "ctx", "ts", "ld", "st"):
                continue
            addr = int(tok[0], 0)
            isa = tok[1]
            if isa not in ISAS:
                sys.exit(f"{path}:{n}: bad instruction set {isa}")
            size = len(tok[2]) // 2
            rest = tok[3:]
            branch = "b" in rest or "bi" in rest
            taken = any(t.startswith("->") for t in rest)
            failed = "x" in rest
            out.append((addr, size, isa,
                        not (failed and (etm3 or branch)) and
                        not (branch and not taken)))
    return out


# ---- ETMv2: the record exactly (docs/etmv2.md 7 and 7a) ------------------

def etm2_setup(snap, args):
    """ETMCR as the snapshot's source_0.ini gives it, the port width from
    its ETMCR[6:4] (docs/etmv2.md 3), whether the encode options ask
    for phantoms (an encoder choice, in no register), and whether the
    source is an ETMv1 (type ETM1, docs/etmv2-capture.md)."""
    cr, v1 = None, False
    with open(os.path.join(snap, "source_0.ini")) as f:
        for line in f:
            m = re.match(r"\s*ETMCR\(0x000\)\s*=\s*(\S+)", line)
            if m:
                cr = int(m.group(1), 0)
            if re.match(r"\s*type\s*=\s*ETM1\s*$", line):
                v1 = True
    if cr is None:
        sys.exit(f"{snap}/source_0.ini: no ETMCR")
    phantoms = any(args[i] == "--preset" and "phantoms" in
                   args[i + 1].split(",") for i in range(len(args) - 1))
    return cr, phantoms, {0: 4, 1: 8, 2: 16}[(cr >> 4) & 7], v1


def read_items(path):
    """The record's items, in order: ("insn", addr, size, isa, flags,
    cycles), ("data", store, addr, size, value), ("exc", ret),
    ("gap",), ("ctx", cid or None)."""
    out = []
    with open(path) as f:
        for line in f:
            tok = line.split("#", 1)[0].split()
            if not tok or tok[0] in ("etmkit-exec", "ts"):
                continue
            if tok[0] in ("ld", "st"):
                out.append(("data", tok[0] == "st", int(tok[1], 0),
                            int(tok[2], 0), int(tok[3], 0)))
            elif tok[0] == "exc":
                ret = [t for t in tok if t.startswith("ret=")]
                out.append(("exc", int(ret[0][4:], 0) if ret else None))
            elif tok[0] == "gap":
                out.append(("gap",))
            elif tok[0] == "ctx":
                cid = [t for t in tok if t.startswith("cid=")]
                out.append(("ctx", int(cid[0][4:], 0) if cid else None))
            else:
                cyc = [t for t in tok if t.startswith("c=")]
                out.append(("insn", int(tok[0], 0), len(tok[2]) // 2,
                            tok[1], tok[3:],
                            int(cyc[0][2:], 0) if cyc else 1))
    return out


def vector_of(addr):
    """docs/etmv2.md 7: the exception number from the handler address."""
    v = addr - 0xFFFF0000 if addr >= 0xFFFF0000 else addr
    return v >> 2 if v <= 0x1C and not v & 3 else 0xFFFF


def value_bytes(v):
    """Table 6.3: the fewest of 0, 1, 2, 4 bytes that hold the value."""
    return 0 if v == 0 else 1 if v < 0x100 else 2 if v < 0x10000 else 4


def compare_etm2(items, elems, cr, phantoms, width, what, v1=False):
    """0 when the decoded elements @elems are exactly the record @items
    beyond the instructions (compare() checks those), by the rules of
    docs/etmv2.md 7a (ETMv1, @v1: 7b, "What the ETMv1 encoder writes":
    one data element per instruction with a transfer, its 4-byte value
    and its address; no exception elements, a restart instead; cycles
    at least 3 after a BE or BD: after trace_on, after a taken branch
    that gives an address, and maybe after any other taken branch, a
    periodic address's); else 1 (printed). Checked, per instruction:
    - data: its transfers as packets, a doubleword as two (low word
      first); the first packet with the data address (ETMCR[3]), every
      one with the value and its Table 6.3 size (ETMCR[2]); the
      instruction's address on each. Or, for one load of at most 4
      bytes with values traced, a load miss: an element with the address
      alone (ETMCR[3]; none without it), and later an ETMKIT_DATA_OOO
      element with the value, for the same instruction, before the
      record ends or trace restarts. ETMv2 traces neither the direction
      nor the transfer size;
    - exceptions: an exception element (number from the handler address,
      docs/etmv2.md 7; the record's return address) before the handler's
      first instruction, unless trace restarts there (7a: a gap between,
      or no instruction traced before it); no other exception elements;
    - context IDs (ETMCR[15:14] bytes of them): from the first ctx item
      with a cid on, the context of every instruction is the record's;
    - cycles, cycle-accurate without phantoms: each instruction's cycles
      are the record's c= (1 when absent or 0), counted from the
      previous instruction or TFO (docs/etmv2.md 7); but at least 1 +
      the cycles without instruction the trace must place after that
      (7a): a DW cycle when an exception or a context element (not a
      TFO's) comes before it, and on a 4-bit port the second cycle of the
      trace-on TFO before it.
    """
    cid_bytes = (0, 1, 2, 4)[(cr >> 14) & 3]
    cid_mask = (1 << (8 * cid_bytes)) - 1
    daddr, dvalue = bool(cr & 8), bool(cr & 4)
    check_cycles = bool(cr & (1 << 12)) and not phantoms
    k = 0                  # next decoded element
    rec_cid = dec_cid = None
    pending = []           # load misses owed: [insn addr, value]
    exc_want = None        # ret of an exception to show before the next insn
    traced_before = False  # an instruction since the record began or a gap
    n = 0
    prev_br = prev_taken = False  # ETMv1: the instruction before gave an
    #                               address surely / maybe (periodic)

    def bad(msg):
        print(f"{what}: {msg} (record instruction {n}, decoded element "
              f"{k})")
        return 1

    def take_ooo(e):
        ia = etmkit_json.num(e["insn_addr"]) if "insn_addr" in e else None
        for m in pending:
            if m[0] == ia:
                pending.remove(m)
                if etmkit_json.num(e["value"]) != m[1] or \
                        e["size"] != value_bytes(m[1]):
                    return f"load miss data {e} for 0x{ia:x}: record " \
                           f"value 0x{m[1]:x}"
                return None
        return f"load miss data {e} owed to no instruction"

    i = 0
    while i < len(items):
        it = items[i]
        if it[0] == "gap":
            exc_want, traced_before = None, False
            if pending:
                return bad(f"load miss data owed at a gap: {pending}")
        elif it[0] == "exc":
            exc_want = it[1] if traced_before and not v1 else None
        elif it[0] == "ctx":
            if it[1] is not None:
                rec_cid = it[1] & cid_mask
        elif it[0] == "data":
            return bad("a data item before any instruction")
        if it[0] != "insn":
            i += 1
            continue
        _, addr, size, isa, rest, cyc = it
        xfers = []
        i += 1
        while i < len(items) and items[i][0] == "data":
            xfers.append(items[i])
            i += 1
        # The elements before this instruction's: contexts, the
        # exception, trace_on, load miss data.
        exc_seen = tfo = dw = False
        while k < len(elems) and elems[k]["kind"] != "insn":
            e = elems[k]
            if e["kind"] in ("context", "exception") and not tfo and \
                    not v1:
                dw = True
            if e["kind"] == "context":
                dec_cid = etmkit_json.num(e.get("context_id", "0"))
            elif e["kind"] == "exception":
                if exc_want is None or exc_seen:
                    return bad(f"exception element {e} the record lacks")
                if etmkit_json.num(e["ret_addr"]) != exc_want or \
                        etmkit_json.num(e["addr"]) != addr or \
                        e["number"] != vector_of(addr):
                    return bad(f"exception {e}: record handler 0x{addr:x}"
                               f" (vector {vector_of(addr)}), return "
                               f"0x{exc_want:x}")
                exc_seen = True
            elif e["kind"] == "data" and e.get("ooo"):
                why = take_ooo(e)
                if why:
                    return bad(why)
            elif e["kind"] == "trace_on":
                tfo = True
                if pending:
                    return bad(f"trace restarts with load miss data owed:"
                               f" {pending}")
            else:
                return bad(f"unexpected element {e}")
            k += 1
        if exc_want is not None and not exc_seen:
            return bad(f"no exception element before the handler 0x{addr:x}")
        exc_want = None
        traced_before = True
        if k == len(elems):
            return bad(f"no instruction for 0x{addr:x}")
        e = elems[k]
        k += 1
        if cid_bytes and rec_cid is not None and dec_cid != rec_cid:
            return bad(f"instruction 0x{addr:x} decoded in context "
                       f"{dec_cid}, record 0x{rec_cid:x}")
        least = 1 + dw + (tfo and width == 4)
        maybe = None
        if v1:
            least = 3 if tfo or prev_br else 1
            maybe = max(cyc, 3) if prev_taken else None
            taken = [t for t in rest if t.startswith("->")]
            prev_taken = bool(taken) and "x" not in rest
            prev_br = prev_taken and ("bi" in rest or ":" in taken[0] or
                                      bool(cr & 0x100))
        if check_cycles and e.get("cycles") != max(cyc, least) and \
                e.get("cycles") != maybe:
            return bad(f"instruction 0x{addr:x}: {e.get('cycles')} cycles,"
                       f" record {cyc}" + (f" (at least {least})"
                                           if least > 1 else ""))
        got, ooo = [], []  # load miss data: owed, or this one's (a DW)
        while k < len(elems) and elems[k]["kind"] == "data":
            (ooo if elems[k].get("ooo") else got).append(elems[k])
            k += 1
        for g in got:
            if "insn_addr" not in g or etmkit_json.num(g["insn_addr"]) != addr:
                return bad(f"data element {g} not of 0x{addr:x}")
        if not (daddr or dvalue):
            if got or ooo:
                return bad(f"data elements without data trace: {got}")
            n += 1
            continue
        want = []
        if v1:
            # docs/etmv2.md 7b: one 4-byte transfer (the encoder refuses
            # others), its address and its value
            for (_, _st, a, sz, v) in xfers[:1]:
                d = {}
                if daddr:
                    d["data_addr"] = a
                if dvalue:
                    d["value"], d["size"] = v & 0xFFFFFFFF, 4
                want.append(d)
            xfers = []
        for j, (_, _st, a, sz, v) in enumerate(xfers):
            words = [v & 0xFFFFFFFF] + ([v >> 32] if sz == 8 else [])
            for w_i, w in enumerate(words):
                d = {}
                if daddr and j == 0 and w_i == 0:
                    d["data_addr"] = a
                if dvalue:
                    d["value"], d["size"] = w, value_bytes(w)
                want.append(d)
        norm = [{key: (etmkit_json.num(g[key]) if key != "size" else g[key])
                 for key in ("data_addr", "value", "size") if key in g}
                for g in got]
        miss_ok = dvalue and len(xfers) == 1 and not xfers[0][1] and \
            xfers[0][3] <= 4
        if norm != want:
            if not miss_ok or norm != ([{"data_addr": xfers[0][2]}]
                                       if daddr else []):
                return bad(f"instruction 0x{addr:x}: data {norm}, record "
                           f"{want}" + (" (or a load miss)" if miss_ok
                                        else ""))
            pending.append([addr, xfers[0][4]])
        for o in ooo:
            why = take_ooo(o)
            if why:
                return bad(why)
        n += 1
    for e in elems[k:]:
        if e["kind"] == "data" and e.get("ooo"):
            why = take_ooo(e)
            if why:
                return bad(why)
        elif e["kind"] == "insn" or e["kind"] == "exception" or \
                e["kind"] == "data":
            return bad(f"element {e} after the record's end")
    if pending:
        return bad(f"load miss data never came: {pending}")
    return 0


# ---- ETMv3: data transfers (IHI 0014Q 7.4) -------------------------------

def read_etmcr(snap):
    """ETMCR as the snapshot's source_0.ini gives it."""
    with open(os.path.join(snap, "source_0.ini")) as f:
        for line in f:
            m = re.match(r"\s*ETMCR\(0x000\)\s*=\s*(\S+)", line)
            if m:
                return int(m.group(1), 0)
    sys.exit(f"{snap}/source_0.ini: no ETMCR")


def compare_etm3_data(items, elems, cr, what):
    """0 when the ETMv3 decode's data elements are exactly the record's
    transfers (in-order data only: not the data-ooo preset), else 1
    (printed). The n-th decoded instruction is the record's n-th
    (compare() checked that); the data elements after it, up to the next
    instruction, must name it (insn_addr) and be its transfers in order,
    a doubleword as two words (low first, 7.4.2): with ETMCR[2] each
    one's value (the 32-bit word, zero-extended); with ETMCR[3] the
    instruction's first word carries its address, and any later word
    either carries its own or lies right after the previous word (the
    address the decoder infers). A condition-failed instruction, and any
    without transfers, has no data element."""
    daddr, dvalue = bool(cr & 8), bool(cr & 4)
    rec = []  # (addr, failed, [(word addr, word, step)])
    for it in items:
        if it[0] == "insn":
            rec.append((it[1], "x" in it[4], []))
        elif it[0] == "data":
            if not rec:
                print(f"{what}: a data item before any instruction")
                return 1
            _, _st, a, sz, v = it
            if sz == 8:
                rec[-1][2].extend([(a, v & 0xFFFFFFFF, 4),
                                   (a + 4, v >> 32, 4)])
            else:
                rec[-1][2].append((a, v, sz))
    dec = []  # (insn element, [data elements])
    for e in elems:
        if e["kind"] == "insn":
            dec.append((e, []))
        elif e["kind"] == "data":
            if not dec or e.get("ooo"):
                print(f"{what}: data element {e} not after an instruction"
                      " or out of order")
                return 1
            dec[-1][1].append(e)
    if len(dec) != len(rec):
        print(f"{what}: {len(dec)} instructions decoded, record {len(rec)}")
        return 1
    words = 0
    for n, ((addr, failed, want), (e, got)) in enumerate(zip(rec, dec)):
        if failed or not (daddr or dvalue):
            want = []
        if len(got) != len(want):
            print(f"{what}: instruction {n} (0x{addr:x}): {len(got)} data "
                  f"elements, record {len(want)} words: {got} {want}")
            return 1
        prev = None
        for j, (g, (a, v, step)) in enumerate(zip(got, want)):
            ok = etmkit_json.num(g.get("insn_addr", "-1")) == addr
            if dvalue:
                ok = ok and etmkit_json.num(g["value"]) == v
            if daddr and "data_addr" in g:
                ok = ok and etmkit_json.num(g["data_addr"]) == a
            elif daddr:
                ok = ok and j > 0 and prev == a
            if not ok:
                print(f"{what}: instruction {n} (0x{addr:x}) word {j}: "
                      f"{g}, record address 0x{a:x} value 0x{v:x}")
                return 1
            prev = a + step
            words += 1
    print(f"{what}: {words} data words match")
    return 0


def check_memory(items, what):
    """The record's transfers agree with themselves: a load of a byte
    whose last access (load or store) was traced returns that byte. The
    kernel writes memory during system calls: forgotten at each exception
    and gap. Checks the importer's derived values (docs/qemu-log.md) on a
    real run; 0 or 1 (printed)."""
    mem, checked = {}, 0
    for it in items:
        if it[0] in ("exc", "gap"):
            mem.clear()
        if it[0] != "data":
            continue
        _, st, a, sz, v = it
        for b in range(sz):
            byte = v >> (8 * b) & 0xFF
            if not st and (a + b) in mem:
                checked += 1
                if mem[a + b] != byte:
                    print(f"{what}: load of 0x{a:x} ({sz} bytes) gives "
                          f"byte {b} 0x{byte:x}, memory held 0x"
                          f"{mem[a + b]:x}")
                    return 1
            mem[a + b] = byte
    print(f"{what}: {checked} loaded bytes agree with earlier transfers")
    # a run whose loads never reread a traced byte checked nothing
    return 0 if checked else 1


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{what} failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
        sys.exit(1)
    return p


def decode(etmkit, snap):
    p = subprocess.run([etmkit, "decode", "--snapshot", snap, "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"etmkit decode failed ({p.returncode}):\n{p.stderr[:2000]}")
        sys.exit(1)
    insns, other = [], {}
    try:
        elems = etmkit_json.lines(p.stdout, "elements", snap)
    except etmkit_json.SchemaMismatch as e:
        print(e)
        sys.exit(1)
    for e in elems:
        if e["kind"] == "insn":
            insns.append((etmkit_json.num(e["addr"]), e["size"], e["isa"], e["exec"]))
        else:
            other[e["kind"]] = other.get(e["kind"], 0) + 1
            if e["kind"] == "overflow":
                insns.append(None)  # instructions may be missing here
    return insns, other, elems


def show(i):
    return f"0x{i[0]:x}/{i[1]}/{i[2]}/{'E' if i[3] else 'N'}"


def compare_overflow(want, got, lost, what):
    """0 when @got is @want but for runs it lacks right after an overflow
    marker (None) or at its end, @lost instructions in all; else 1.
    Each run of decoded instructions between markers must be a run of the
    record, placed at the earliest position after the run before it (the
    first at the start): a loop repeats its instructions, so a few of them
    do not tell where trace restarted; the whole run does, and the
    earliest place leaves the most room for the runs after it."""
    runs, cur = [], []
    for g in got:
        if g is None:
            runs.append(cur)
            cur = []
        else:
            cur.append(g)
    runs.append(cur)
    i = skipped = 0
    for n, run in enumerate(runs):
        if n == 0:
            if want[:len(run)] != run:
                k = next(k for k, (w, g) in enumerate(zip(want, run))
                         if w != g) if len(run) <= len(want) else len(want)
                print(f"{what}: decoded instruction {k} "
                      f"{show(run[k]) if k < len(run) else 'ended'}, "
                      f"record {show(want[k]) if k < len(want) else 'ended'}")
                return 1
            i = len(run)
            continue
        at = i
        while at + len(run) <= len(want) and want[at:at + len(run)] != run:
            at += 1
        if at + len(run) > len(want):
            print(f"{what}: the {len(run)} instructions decoded after "
                  f"overflow {n} (from {show(run[0])}) are no run of the "
                  f"record after its instruction {i}")
            return 1
        skipped += at - i
        i = at + len(run)
    skipped += len(want) - i
    if skipped != lost:
        print(f"{what}: {skipped} instructions missing, the encoder lost "
              f"{lost}")
        return 1
    return 0


def compare(want, got, what):
    got = [g for g in got if g is not None]
    for k, (w, g) in enumerate(zip(want, got)):
        if w != g:
            print(f"{what}: instruction {k} differs: record {show(w)}, "
                  f"decoded {show(g)}")
            lo = max(0, k - 3)
            print("  record : " + " ".join(show(x) for x in want[lo:k + 3]))
            print("  decoded: " + " ".join(show(x) for x in got[lo:k + 3]))
            return 1
    if len(want) != len(got):
        print(f"{what}: record has {len(want)} instructions, decoded "
              f"{len(got)}")
        return 1
    return 0


def lister(snap, tid):
    if not shutil.which("trc_pkt_lister"):
        skip("trc_pkt_lister not installed (Debian libopencsd-bin)")
    text = run_lister(snap, tid)
    ranges, notes = read_ranges(text, tid), {}
    for line in text.splitlines():
        if "INSTR_RANGE" not in line:
            m = re.search(r"OCSD_GEN_TRC_ELEM_([A-Z_]+)", line)
            if m:
                notes[m.group(1)] = notes.get(m.group(1), 0) + 1
            if "ERROR" in line.upper() and "OCSD_OK" not in line:
                notes.setdefault("error lines", 0)
                notes["error lines"] += 1
                if notes["error lines"] <= 5:
                    print("OpenCSD: " + line.strip())
    return ranges, notes


def compare_ranges(want, ranges):
    """0 when the ranges cover the record exactly, else 1 (printed)."""
    i = 0
    for n, (start, end, count, isa, executed) in enumerate(ranges):
        chunk = want[i:i + count]
        if not covers(chunk, (start, end, count, isa, executed)):
            print(f"OpenCSD range {n}: 0x{start:x}-0x{end:x} num_i={count} "
                  f"{isa} {'E' if executed else 'N'}; record from "
                  f"instruction {i}: " + " ".join(show(x) for x in chunk[:8]))
            return 1
        i += count
    if i != len(want):
        print(f"OpenCSD ranges cover {i} instructions, the record has "
              f"{len(want)}")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--record")
    src.add_argument("--qemu-log")
    ap.add_argument("--protocol", required=True)
    ap.add_argument("--ocsd", action="store_true",
                    help="also check OpenCSD's trc_pkt_lister decode")
    ap.add_argument("--keep", help="write the snapshot here and keep it")
    ap.add_argument("--overflow", action="store_true",
                    help="ETMv2: the FIFO may overflow (see above)")
    ap.add_argument("encode_args", nargs="*",
                    help="more `etmkit encode` options (after --)")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = a.keep or os.path.join(tmp, "snap")
        os.makedirs(out, exist_ok=True)
        cmd = [a.etmkit, "encode", "--protocol", a.protocol, "--out", out]
        if a.record:
            record = a.record
            cmd += ["--from-record", record]
        else:
            record = os.path.join(out, "record.txt")
            cmd += ["--from-qemu", a.qemu_log, "--record-out", record]
        p = run(cmd + a.encode_args, "etmkit encode")
        # ETMv3 and ETMv2 trace a condition failure (N atom, IN status)
        want = read_record(record, a.protocol in ("etmv3", "etmv2"))
        got, other, elems = decode(a.etmkit, out)
        what = f"{os.path.basename(a.record or a.qemu_log)} {a.protocol}"
        if a.overflow:
            m = re.search(r"overflowed \d+ times: (\d+) instructions",
                          p.stderr)
            lost = int(m.group(1)) if m else 0
            bad = compare_overflow(want, got, lost, what + " etmkit")
            what += f" ({lost} lost to overflows)"
        else:
            bad = compare(want, got, what + " etmkit")
            if not bad and a.protocol == "etmv2":
                cr, phantoms, width, v1 = etm2_setup(out, a.encode_args)
                bad = compare_etm2(read_items(record), elems, cr, phantoms,
                                   width, what + " etmkit", v1)
            if not bad and a.protocol == "etmv3" and \
                    read_etmcr(out) & 0xC and "data-ooo" not in \
                    " ".join(a.encode_args):
                bad = compare_etm3_data(read_items(record), elems,
                                        read_etmcr(out), what + " etmkit")
            if not bad and "--qemu-data" in a.encode_args:
                bad = check_memory(read_items(record), what + " record")
        print(f"{what}: {len(want)} instructions; etmkit decode "
              + ("matches" if not bad else "DIFFERS")
              + f" (other elements: {dict(sorted(other.items()))})")
        if a.ocsd:
            ranges, notes = lister(out, 0x10)
            b = compare_ranges(want, ranges)
            print(f"{what}: OpenCSD {len(ranges)} ranges "
                  + ("match" if not b else "DIFFER")
                  + f" (other elements: {dict(sorted(notes.items()))})")
            bad |= b
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
