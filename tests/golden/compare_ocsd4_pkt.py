#!/usr/bin/env python3
"""Compare etmkit's ETMv4/ETE packets with OpenCSD 1.8.0's listing, packet by packet.

Runs
    ETMKIT packets --json --snapshot DIR --buffer NAME
(NAME: the buffer OpenCSD read, its "Using NAME as trace source" line) and
compares every packet line of DIR/ocsd-1.8.0-decode.ppl
    Idx:N; ID:X; [0x.. 0x.. ];<TAB>I_NAME : description; fields
(ID in hex; element lines, which hold no '[', are ignored) with etmkit's
records of that trace ID, in order, every one:
  - the same offset: OpenCSD's Idx (see below) and etmkit's `offset`;
  - the same bytes;
  - etmkit's type is the one OpenCSD's I_ name maps to (TYPES below, with the
    format, address form and instruction set the name implies);
  - the values OpenCSD prints: atoms, addresses, context, exception type,
    timestamps, cycle counts, commit and cancel counts, Q counts, Trace Info,
    instrumentation payloads.

Offsets. For a source_data buffer (one unformatted source; OpenCSD lists it
as ID 0) Idx is the file offset. For a CoreSight-formatted buffer OpenCSD
numbers the bytes of each run of one ID inside a 16-byte frame from the
run's start: the frame's first byte when the run goes on from the previous
frame, else the ID byte that opened it; a byte's Idx is that plus the run's
bytes before it in the frame (a delayed ID change gives the byte after the
ID byte to the old run; an ID byte naming the current ID does not start a
run). ocsd_index_map() rebuilds that numbering from the capture file, and
etmkit's file offsets are translated through it.

Bytes outside sync: OpenCSD cuts each run into I_NOT_SYNC lines of up to 8
bytes, numbering all but the first by byte count, not by frame position; both
sides' runs are merged and compared by length (and, for unformatted buffers,
start offset).

Where OpenCSD and the specification digest (spec/etmv4-ete.md) part, the
difference is handled explicitly below (EXCEPTIONS), with the digest section;
such cases are counted and printed, not failed.

Exit status: 0 all matched; 1 mismatches or errors; 77 skipped (no snapshot
or listing; with CI=true that fails with 1 instead).
"""

import argparse
import configparser
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)

SKIP = 77
PPL = "ocsd-1.8.0-decode.ppl"

# OpenCSD's packet names (trc_pkt_elem_etmv4i.cpp, packetTypeName; ETE's in
# the same file of 1.8.0) -> etmkit's type and what else the name implies.
TYPES = {
    "I_ASYNC": ("a_sync", {}),
    "I_TRACE_INFO": ("trace_info", {}),
    "I_TRACE_ON": ("trace_on", {}),
    "I_TIMESTAMP": ("timestamp", {}),
    "I_TS_MARKER": ("ts_marker", {}),
    "I_EXCEPT": ("exception", {}),
    # ETE: an Exception packet of type 0x18 or 0 (digest 5.5), which
    # OpenCSD names apart.
    "I_TRANS_FAIL": ("exception", {"exception": 0x18}),
    "I_PE_RESET": ("exception", {"exception": 0}),
    "I_EXCEPT_RTN": ("exception_return", {}),
    "I_FUNC_RET": ("function_return", {}),
    "I_CCNT_F1": ("cycle_count", {"format": 1}),
    "I_CCNT_F2": ("cycle_count", {"format": 2}),
    "I_CCNT_F3": ("cycle_count", {"format": 3}),
    "I_COMMIT": ("commit", {}),
    "I_CANCEL_F1": ("cancel", {"format": 1, "mispredict": False}),
    "I_CANCEL_F1_MISPRED": ("cancel", {"format": 1, "mispredict": True}),
    "I_CANCEL_F2": ("cancel", {"format": 2, "mispredict": True}),
    "I_CANCEL_F3": ("cancel", {"format": 3, "mispredict": True}),
    "I_MISPREDICT": ("mispredict", {}),
    "I_DISCARD": ("discard", {}),
    "I_OVERFLOW": ("overflow", {}),
    "I_ATOM_F1": ("atom", {"format": 1}),
    "I_ATOM_F2": ("atom", {"format": 2}),
    "I_ATOM_F3": ("atom", {"format": 3}),
    "I_ATOM_F4": ("atom", {"format": 4}),
    "I_ATOM_F5": ("atom", {"format": 5}),
    "I_ATOM_F6": ("atom", {"format": 6}),
    "I_Q": ("q", {}),
    "I_CTXT": ("context", {}),
    "I_ADDR_CTXT_L_32IS0": ("address_context", {"form": "long32", "is": 0}),
    "I_ADDR_CTXT_L_32IS1": ("address_context", {"form": "long32", "is": 1}),
    "I_ADDR_CTXT_L_64IS0": ("address_context", {"form": "long64", "is": 0}),
    "I_ADDR_CTXT_L_64IS1": ("address_context", {"form": "long64", "is": 1}),
    "I_ADDR_MATCH": ("address", {"form": "exact"}),
    "I_ADDR_S_IS0": ("address", {"form": "short", "is": 0}),
    "I_ADDR_S_IS1": ("address", {"form": "short", "is": 1}),
    "I_ADDR_L_32IS0": ("address", {"form": "long32", "is": 0}),
    "I_ADDR_L_32IS1": ("address", {"form": "long32", "is": 1}),
    "I_ADDR_L_64IS0": ("address", {"form": "long64", "is": 0}),
    "I_ADDR_L_64IS1": ("address", {"form": "long64", "is": 1}),
    "I_SRC_ADDR_MATCH": ("source_address", {"form": "exact"}),
    "I_SRC_ADDR_S_IS0": ("source_address", {"form": "short", "is": 0}),
    "I_SRC_ADDR_S_IS1": ("source_address", {"form": "short", "is": 1}),
    # OpenCSD 1.8.0 spells the long source-address names "SCR".
    "I_SCR_ADDR_L_32IS0": ("source_address", {"form": "long32", "is": 0}),
    "I_SCR_ADDR_L_32IS1": ("source_address", {"form": "long32", "is": 1}),
    "I_SCR_ADDR_L_64IS0": ("source_address", {"form": "long64", "is": 0}),
    "I_SCR_ADDR_L_64IS1": ("source_address", {"form": "long64", "is": 1}),
    "I_SRC_ADDR_L_32IS0": ("source_address", {"form": "long32", "is": 0}),
    "I_SRC_ADDR_L_32IS1": ("source_address", {"form": "long32", "is": 1}),
    "I_SRC_ADDR_L_64IS0": ("source_address", {"form": "long64", "is": 0}),
    "I_SRC_ADDR_L_64IS1": ("source_address", {"form": "long64", "is": 1}),
    "I_EVENT": ("event", {}),
    "I_ITE": ("instrumentation", {}),
    "I_TRANS_ST": ("transaction_start", {}),
    "I_TRANS_COMMIT": ("transaction_commit", {}),
    "I_IGNORE": ("ignore", {}),
    "I_COND_I_F1": ("cond_instr", {"format": 1}),
    "I_COND_I_F2": ("cond_instr", {"format": 2}),
    "I_COND_I_F3": ("cond_instr", {"format": 3}),
    "I_COND_RES_F1": ("cond_result", {"format": 1}),
    "I_COND_RES_F2": ("cond_result", {"format": 2}),
    "I_COND_RES_F3": ("cond_result", {"format": 3}),
    "I_COND_RES_F4": ("cond_result", {"format": 4}),
    "I_COND_FLUSH": ("cond_flush", {}),
    "I_NUM_DS_MKR": ("data_sync", {}),
    "I_UNNUM_DS_MKR": ("data_sync", {}),
}
# OpenCSD's error packets: etmkit reports the same bytes as a record
# carrying `error` (of whatever type its header named, or `reserved`).
ERRORS = {"I_RESERVED", "I_RESERVED_CFG", "I_BAD_SEQUENCE", "I_BAD_TRACEMODE",
          "I_INCOMPLETE_EOT"}
NOT_SYNC = "I_NOT_SYNC"

# OpenCSD's exception names (A-profile table) -> type (digest 5.5).
OCSD_EXC = {
    "PE Reset": 0x0, "Debug Halt": 0x1, "Call": 0x2, "Trap": 0x3,
    "System Error": 0x4, "Inst Debug": 0x6, "Data Debug": 0x7,
    "Alignment": 0xA, "Inst Fault": 0xB, "Data Fault": 0xC, "IRQ": 0xE,
    "FIQ": 0xF,
}
OCSD_EXC_ADDR = {"Ret Addr Follows": "follows",
                 "Ret Addr Follows, Match Prev": "prev_target"}

# Where the listing and etmkit may part on purpose (counted, printed).
EXCEPTIONS = {
    # Digest 3 (item 5): after a reserved header or a malformed packet the
    # parser has lost sync and discards bytes up to the next A-sync.
    # OpenCSD's packet processor instead goes on decoding the bytes after
    # an I_RESERVED_CFG / I_BAD_SEQUENCE as packets (its element decoder
    # is what waits for the next A-sync). etmkit reports those bytes as one
    # unsynced run; the listing's packets in that run are not compared.
    "resync": "bytes after an error up to the next A-sync: OpenCSD lists "
              "packets, etmkit one unsynced run (digest 3, item 5)",
}

PKT_RE = re.compile(
    r"Idx:(\d+); ID:([0-9a-fA-F]+); "
    r"\[((?:0x[0-9a-fA-F]{1,2} )*)\];\t(\S+) : (.*)$")
USING_RE = re.compile(r"Using (\S+) as trace source")
PRINTER_RE = re.compile(r"Protocol printer (\S+) on Trace ID 0x([0-9a-fA-F]+)")


class Fail(Exception):
    """A fatal problem: print it and exit 1."""


def skip_or_fail(why):
    if os.environ.get("CI", "").lower() == "true":
        print(f"compare_ocsd4_pkt: FAIL (CI=true): {why}")
        sys.exit(1)
    print(f"compare_ocsd4_pkt: SKIPPED: {why}")
    sys.exit(SKIP)


# ---- OpenCSD's listing -------------------------------------------------------

def parse_ppl(text):
    """(buffer name, [(protocol, id)], {id: [packet dicts]})."""
    buffer, printers, pkts = None, [], {}
    for line in text.splitlines():
        m = USING_RE.search(line)
        if m and buffer is None:
            buffer = m.group(1)
        m = PRINTER_RE.search(line)
        if m:
            printers.append((m.group(1), int(m.group(2), 16)))
        if "Idx:" not in line or "[" not in line:
            continue
        # A log message may precede the packet on its line.
        m = PKT_RE.search(line)
        if not m:
            continue
        tid = int(m.group(2), 16)
        data = bytes(int(b, 16) for b in m.group(3).split())
        pkts.setdefault(tid, []).append({
            "idx": int(m.group(1)), "bytes": data.hex(), "name": m.group(4),
            "rest": m.group(5), "line": line.strip(),
        })
    return buffer, printers, pkts


# ---- The snapshot: which file, which framing ---------------------------------

def read_ini(path):
    cp = configparser.ConfigParser(strict=False, interpolation=None,
                                   inline_comment_prefixes=(";", "#"))
    cp.optionxform = str
    with open(path, encoding="utf-8", errors="replace") as f:
        cp.read_file(f)
    return cp


def buffer_info(snapshot, name):
    """(file path, format) of trace buffer @name."""
    snap = read_ini(os.path.join(snapshot, "snapshot.ini"))
    meta = snap.get("trace", "metadata", fallback="trace.ini")
    trace = read_ini(os.path.join(snapshot, meta))
    for sec in trace.sections():
        if trace.get(sec, "name", fallback=None) == name:
            return (os.path.join(os.path.dirname(os.path.join(snapshot, meta)),
                                 trace.get(sec, "file")),
                    trace.get(sec, "format", fallback="coresight"))
    raise Fail(f"{meta} names no buffer {name!r}")


def ocsd_index_map(data):
    """Every data byte of CoreSight frames (from offset 0): file offset ->
    (trace ID, OpenCSD's Idx). See the module comment."""
    m, cur = {}, None
    for f in range(0, len(data) - 15, 16):
        frame, aux = data[f:f + 16], data[f + 15]
        base, n = f, 0
        for k in range(8):
            even, pos = frame[2 * k], f + 2 * k
            has_odd = k < 7
            if even & 1 and (even >> 1) != cur:
                new = even >> 1
                if has_odd and (aux >> k) & 1:
                    # delayed: the next byte still belongs to the old ID
                    m[pos + 1] = (cur, base + n)
                    cur, base, n = new, pos, 0
                else:
                    cur, base, n = new, pos, 0
                    if has_odd:
                        m[pos + 1] = (cur, base + n)
                        n += 1
                continue
            if not even & 1:
                m[pos] = (cur, base + n)
                n += 1
            if has_odd:
                m[pos + 1] = (cur, base + n)
                n += 1
    return m


# ---- etmkit ------------------------------------------------------------------

def run_etmkit(exe, snapshot, buffer):
    cmd = [exe, "packets", "--json", "--snapshot", snapshot, "--buffer", buffer]
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=600)
    except OSError as e:
        raise Fail(f"cannot run {exe}: {e}")
    except subprocess.TimeoutExpired:
        raise Fail(f"timed out: {' '.join(cmd)}")
    err = res.stderr.decode("utf-8", "replace").strip()
    # 1: the trace had decode errors (listed): the listing is complete.
    if res.returncode not in (0, 1):
        raise Fail(f"{' '.join(cmd)} exited {res.returncode}:\n{err[-2000:]}")
    return res.stdout.decode("utf-8", "replace"), " ".join(cmd), res.returncode, err


def parse_etmkit(text):
    """{id: [records]} in output order."""
    recs = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise Fail(f"etmkit JSON line {n} does not parse ({e}): {line[:200]}")
        if not isinstance(obj, dict) or "type" not in obj:
            raise Fail(f"etmkit JSON line {n} is not a record: {line[:200]}")
        why = etmkit_json.problem(obj, "packets-etmv4")
        if why:
            raise Fail(f"etmkit JSON line {n} does not match "
                       f"docs/schema/packets-etmv4.schema.json: {why}: {line[:200]}")
        obj = etmkit_json.ints(obj)
        if obj["type"] == "frame_error":
            obj["id"] = None
        elif not isinstance(obj.get("id"), int) or not isinstance(obj.get("offset"), int):
            raise Fail(f"etmkit JSON line {n} lacks id or offset: {line[:200]}")
        b = obj.get("bytes", "")
        m = re.fullmatch(r"((?:[0-9a-f]{2})*)(\.\.\.)?", b) if isinstance(b, str) else None
        if not m:
            raise Fail(f"etmkit JSON line {n}: bytes is not lower-case hex: {line[:200]}")
        obj["bytes"], obj["_cut"], obj["_line"] = m.group(1), bool(m.group(2)), line
        if obj["type"] == "unsynced" and not isinstance(obj.get("length"), int):
            raise Fail(f"etmkit JSON line {n}: unsynced record without length")
        recs.setdefault(obj["id"], []).append(obj)
    return recs


# ---- Runs: NOT_SYNC chunks and unsynced records merged -----------------------

def ocsd_items(pkts):
    items = []
    for p in pkts:
        if p["name"] == NOT_SYNC:
            if items and items[-1]["kind"] == "unsynced":
                items[-1]["length"] += len(p["bytes"]) // 2
                continue
            items.append({"kind": "unsynced", "idx": p["idx"],
                          "length": len(p["bytes"]) // 2, "line": p["line"]})
        else:
            items.append(dict(p, kind="packet"))
    return items


def etmkit_items(recs, index_of):
    items = []
    for r in recs:
        idx = index_of(r)
        if r["type"] == "unsynced":
            if items and items[-1]["kind"] == "unsynced":
                items[-1]["length"] += r["length"]
                continue
            items.append({"kind": "unsynced", "idx": idx, "length": r["length"],
                          "line": r["_line"]})
        else:
            items.append({"kind": "packet", "idx": idx, "rec": r,
                          "line": r["_line"]})
    return items


def item_length(it):
    if it["kind"] == "unsynced":
        return it["length"]
    if "rec" in it:
        r = it["rec"]
        return r["length"] if r["_cut"] else len(r["bytes"]) // 2
    return len(it["bytes"]) // 2


# ---- Field checks ----------------------------------------------------------------

def hexint(text):
    return int(text, 16)


def rec_int(rec, key):
    v = rec.get(key)
    if isinstance(v, str):
        return int(v, 16) if v.startswith("0x") else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def check_fields(o, rec, implied):
    """Differences between OpenCSD's printed values and etmkit's record."""
    diffs = []
    rest = o["rest"]

    def show(key, v):
        if isinstance(v, int) and not isinstance(v, bool) and key in (
                "addr", "timestamp", "value", "context_id", "vmid"):
            return hex(v)
        return repr(v)

    def want(key, value, got=None):
        got = rec.get(key) if got is None else got
        if got != value:
            diffs.append(f"{key}: etmkit {show(key, got)} != OpenCSD {show(key, value)}")

    for key, value in implied.items():
        want(key, value)
    name = o["name"]
    m = re.search(r"Addr=0x([0-9A-Fa-f]+)", rest)
    if m:
        want("addr", hexint(m.group(1)), rec_int(rec, "addr"))
    if name.startswith("I_ATOM_F"):
        want("atoms", rest.split("; ")[-1].strip())
    m = re.search(r"Atom: ([EN]+),", rest)
    if m:
        want("atoms", m.group(1))
    m = re.search(r"Ctxt: (AArch64|AArch32),\s*EL(\d), (NS|S);", rest)
    if m:
        want("sf", 1 if m.group(1) == "AArch64" else 0)
        want("el", int(m.group(2)))
        want("ns", 1 if m.group(3) == "NS" else 0)
    m = re.search(r"CID=0x([0-9a-fA-F]+)", rest)
    if m:
        want("context_id", hexint(m.group(1)))
    m = re.search(r"VMID=0x([0-9a-fA-F]+)", rest)
    if m:
        want("vmid", hexint(m.group(1)))
    if name == "I_EXCEPT":
        parts = [p.strip() for p in rest.split(";")]
        if len(parts) > 1 and parts[1] in OCSD_EXC:
            want("exception", OCSD_EXC[parts[1]])
        if len(parts) > 2 and parts[2] in OCSD_EXC_ADDR:
            want("addr_interp", OCSD_EXC_ADDR[parts[2]])
    m = re.search(r"Updated val = 0x([0-9a-fA-F]+)", rest)
    if m:
        want("timestamp", hexint(m.group(1)))
    m = re.search(r"; CC=0x([0-9a-fA-F]+)", rest)
    if m and name == "I_TIMESTAMP":
        want("cycles", hexint(m.group(1)))
    m = re.search(r"Count=0x([0-9a-fA-F]+)", rest)
    if m:
        # OpenCSD prints an unknown count (format 1, U bit) as 0.
        want("cycles", hexint(m.group(1)), 0 if rec.get("unknown") else rec.get("cycles"))
    m = re.search(r"Commit\((\d+)\)", rest)
    if m:
        want("commit", int(m.group(1)))
    m = re.search(r"Cancel\((\d+)\)", rest)
    if m:
        want("cancel", int(m.group(1)))
    m = re.search(r"Count\((\d+)\)", rest)
    if m and name == "I_Q":
        want("count", int(m.group(1)))
    m = re.search(r"INFO=0x([0-9a-fA-F]+)", rest)
    if m:
        want("info", hexint(m.group(1)), rec.get("info", 0))
    m = re.search(r"CC_THRESHOLD=0x([0-9a-fA-F]+)", rest)
    if m:
        want("cyct", hexint(m.group(1)), rec.get("cyct", 0))
    m = re.search(r"EL(\d); Payload=0x([0-9a-fA-F]+)", rest)
    if m and name == "I_ITE":
        want("el", int(m.group(1)))
        want("value", hexint(m.group(2)), rec_int(rec, "value"))
    return diffs


# ---- Comparison --------------------------------------------------------------

class Result:
    def __init__(self):
        self.mismatches = []    # (what, [details], ocsd line, etmkit line)
        self.compared = 0
        self.excepted = {}      # EXCEPTIONS key -> count
        self.types = {}         # etmkit type -> [opencsd, etmkit]

    def bad(self, what, details, o, k):
        self.mismatches.append((what, details, o["line"] if o else None,
                                k["line"] if k else None))


def compare_packet(res, o, k):
    rec = k["rec"]
    details = []
    if o["idx"] != k["idx"]:
        details.append(f"offset: etmkit Idx {k['idx']} (file offset "
                       f"{rec['offset']}) != OpenCSD {o['idx']}")
    same = (o["bytes"].startswith(rec["bytes"]) and len(o["bytes"]) // 2 == rec["length"]) \
        if rec["_cut"] else o["bytes"] == rec["bytes"]
    if not same:
        details.append(f"bytes: etmkit {rec['bytes']}{'...' if rec['_cut'] else ''} "
                       f"!= OpenCSD {o['bytes']}")
    name = o["name"]
    if name in ERRORS:
        if "error" not in rec:
            details.append(f"type: OpenCSD {name} (an error) but etmkit "
                           f"{rec['type']} without error")
    elif name not in TYPES:
        details.append(f"type: OpenCSD {name} is not in this script's table")
    else:
        etype, implied = TYPES[name]
        res.types.setdefault(etype, [0, 0])[0] += 1
        if rec["type"] != etype:
            details.append(f"type: etmkit {rec['type']} != OpenCSD {name} ({etype})")
        elif "error" in rec:
            details.append(f"error: etmkit reports {rec['error']!r}, OpenCSD a "
                           f"valid {name}")
        else:
            details += check_fields(o, rec, implied)
    if "error" not in rec:
        res.types.setdefault(rec["type"], [0, 0])[1] += 1
    res.compared += 1
    if details:
        res.bad(f"{name} at Idx {o['idx']}", details, o, k)


def skip_to_async(oitems, i):
    """Index of OpenCSD's next A-sync at or after @i, and the bytes before."""
    n = 0
    while i < len(oitems) and not (oitems[i]["kind"] == "packet"
                                   and oitems[i]["name"] == "I_ASYNC"):
        n += item_length(oitems[i])
        i += 1
    return i, n


def compare_id(res, oitems, kitems, exact_unsynced):
    i = j = 0
    while i < len(oitems) or j < len(kitems):
        o = oitems[i] if i < len(oitems) else None
        k = kitems[j] if j < len(kitems) else None
        if o and k and o["kind"] == k["kind"] == "unsynced":
            d = []
            if o["length"] != k["length"]:
                d.append(f"length: etmkit {k['length']} != OpenCSD {o['length']}")
            if exact_unsynced and o["idx"] != k["idx"]:
                d.append(f"offset: etmkit {k['idx']} != OpenCSD {o['idx']}")
            if d:
                res.bad(f"unsynced run at Idx {o['idx']}", d, o, k)
            res.compared += 1
            i, j = i + 1, j + 1
            continue
        if o and k and o["kind"] == k["kind"] == "packet" and o["idx"] == k["idx"]:
            compare_packet(res, o, k)
            i, j = i + 1, j + 1
            # EXCEPTIONS["resync"]: etmkit drops sync at an error record
            # and lists the bytes up to the next A-sync as one run.
            if ("error" in k["rec"] and o["name"] in ERRORS and j < len(kitems)
                    and kitems[j]["kind"] == "unsynced"):
                i2, n = skip_to_async(oitems, i)
                if n == kitems[j]["length"]:
                    res.excepted["resync"] = res.excepted.get("resync", 0) + 1
                    i, j = i2, j + 1
                else:
                    res.bad(f"unsynced run after the error at Idx {o['idx']}",
                            [f"length: etmkit {kitems[j]['length']} != {n} bytes "
                             "OpenCSD lists up to its next A-sync"], oitems[i] if i < len(oitems) else None,
                            kitems[j])
                    i, j = i2, j + 1
            continue
        # Out of step: report the earlier item as missing on the other side.
        if k is None or (o is not None and o["idx"] < k["idx"]) or \
                (o is not None and o["idx"] == k["idx"] and o["kind"] == "unsynced"):
            res.bad(f"{o.get('name', 'unsynced run')} at Idx {o['idx']}",
                    ["missing: etmkit has no record at this offset"
                     + (f" (next etmkit record at Idx {k['idx']})" if k else "")], o, None)
            i += 1
        else:
            res.bad(f"etmkit {k['rec']['type'] if 'rec' in k else 'unsynced run'} "
                    f"at Idx {k['idx']}",
                    ["extra: OpenCSD lists no packet at this offset"
                     + (f" (next OpenCSD packet at Idx {o['idx']})" if o else "")],
                    None, k)
            j += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--etmkit", required=True, help="the etmkit CLI")
    ap.add_argument("--snapshot", required=True, help="trace snapshot folder")
    ap.add_argument("--ppl", default=None, help=f"OpenCSD listing (default DIR/{PPL})")
    ap.add_argument("--etmkit-json", default=None,
                    help="use this saved etmkit JSON instead of running --etmkit")
    ap.add_argument("--max-report", type=int, default=20,
                    help="mismatches shown in full (default 20)")
    args = ap.parse_args()

    snapshot = os.path.abspath(args.snapshot)
    ppl = args.ppl or os.path.join(snapshot, PPL)
    if not os.path.isfile(os.path.join(snapshot, "snapshot.ini")):
        skip_or_fail(f"no snapshot at {snapshot} (snapshot.ini missing; "
                     "../shared/testdata absent?)")
    if not os.path.isfile(ppl):
        skip_or_fail(f"no OpenCSD listing {ppl}")

    try:
        with open(ppl, encoding="utf-8", errors="replace") as f:
            buffer, printers, opkts = parse_ppl(f.read())
        if not buffer or not printers:
            raise Fail(f"{ppl}: no 'Using ... as trace source' or 'Protocol "
                       "printer' line")
        path, fmt = buffer_info(snapshot, buffer)
        with open(path, "rb") as f:
            capture = f.read()
        if args.etmkit_json:
            with open(args.etmkit_json, encoding="utf-8") as f:
                ktext, kcmd, krc, kerr = f.read(), f"(saved) {args.etmkit_json}", None, ""
        else:
            ktext, kcmd, krc, kerr = run_etmkit(args.etmkit, snapshot, buffer)
        krecs = parse_etmkit(ktext)
    except (Fail, OSError, configparser.Error) as e:
        print(f"compare_ocsd4_pkt: FAIL: {e}")
        return 1

    print(f"compare_ocsd4_pkt: {snapshot}, buffer {buffer} ({fmt}, "
          f"{len(capture)} bytes), IDs "
          + ", ".join(f"0x{t:02x} ({p})" for p, t in printers))
    print(f"  etmkit : {kcmd}" + (f" (exit {krc})" if krc is not None else ""))
    failed = []
    if None in krecs:
        failed.append(f"{len(krecs[None])} frame errors in etmkit's listing")
    framed = fmt.lower() != "source_data"
    if framed:
        index_map = ocsd_index_map(capture)

        def index_of(r):
            hit = index_map.get(r["offset"])
            if hit is None or hit[0] != r["id"]:
                raise Fail(f"etmkit offset {r['offset']} is no data byte of ID "
                           f"0x{r['id']:02x} in {path}: {r['_line'][:200]}")
            return hit[1]
    else:
        def index_of(r):
            return r["offset"]

    res = Result()
    try:
        for proto, tid in printers:
            if framed:
                mine = krecs.get(tid, [])
            else:
                # One unformatted source: OpenCSD calls it ID 0, etmkit
                # uses the device's TRCTRACEIDR.
                ids = [i for i in krecs if i is not None]
                if len(ids) > 1:
                    raise Fail(f"etmkit lists IDs {ids} from one unformatted buffer")
                mine = krecs[ids[0]] if ids else []
            oitems = ocsd_items(opkts.get(tid, []))
            kitems = etmkit_items(mine, index_of)
            before = len(res.mismatches)
            compare_id(res, oitems, kitems, exact_unsynced=not framed)
            print(f"  ID 0x{tid:02x}: OpenCSD {len(oitems)} items "
                  f"({sum(1 for x in oitems if x['kind'] == 'packet')} packets), "
                  f"etmkit {len(kitems)} ({sum(1 for x in kitems if x['kind'] == 'packet')}"
                  f" packets), {len(res.mismatches) - before} mismatches")
    except Fail as e:
        print(f"compare_ocsd4_pkt: FAIL: {e}")
        return 1

    print(f"\n  {'type':<20} {'opencsd':>8} {'etmkit':>8}")
    for t in sorted(res.types):
        o, k = res.types[t]
        print(f"  {t:<20} {o:>8} {k:>8}")
    for key, n in sorted(res.excepted.items()):
        print(f"  exception '{key}' applied {n} times: {EXCEPTIONS[key]}")
    print(f"  items compared: {res.compared}")
    if krc is not None and kerr:
        print(f"  etmkit stderr: {kerr.splitlines()[-1][:200]}")
    if res.mismatches:
        failed.append(f"{len(res.mismatches)} mismatches")
        for n, (what, details, oline, kline) in enumerate(res.mismatches[:args.max_report], 1):
            print(f"\nmismatch {n}: {what}")
            for d in details:
                print(f"  {d}")
            print(f"  opencsd: {oline or '(none)'}")
            print(f"  etmkit : {kline or '(none)'}")
        if len(res.mismatches) > args.max_report:
            print(f"\n... and {len(res.mismatches) - args.max_report} more")
    if failed:
        print(f"\ncompare_ocsd4_pkt: FAIL: {'; '.join(failed)}")
        return 1
    print(f"\ncompare_ocsd4_pkt: OK: {res.compared} items match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
