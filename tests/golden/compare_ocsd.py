#!/usr/bin/env python3
"""Compare etmkit's ETMv3 packets with OpenCSD's trc_pkt_lister, packet by packet.

Runs
    trc_pkt_lister -ss_dir DIR -id ID -decode -logstdout
    ETMKIT packets --snapshot DIR --id ID --json
and compares, for every packet from the first A-sync on: the bytes (exact),
the type, and the fields OpenCSD prints (atoms and cycles of P-headers, full
addresses of I-syncs and branches, cycle counts, timestamps, the ISA when
OpenCSD prints it, reasons, context IDs, exceptions, data values).

Bytes outside sync (OpenCSD's NOTSYNC lines, etmkit's `unsynced` records)
are not packets: they are skipped, but they still count towards the stream
position that pairs the packets of both sides, so one wrong packet length
shows up as one mismatch instead of shifting every later comparison.

Also checks every etmkit record's `offset` against the framed capture file:
file[offset] | 1 == bytes[0] | 1 (bit 0 of a frame's even bytes is carried
in the frame's auxiliary byte).

OpenCSD is a second opinion, not the truth: where the specification (ARM IHI
0014Q) shows OpenCSD wrong for some packet kind, name it with --allow
TYPE:FIELD; such differences are still listed, but do not fail the run.

Exit status: 0 all matched; 1 mismatches or errors; 77 skipped (no
trc_pkt_lister, or no snapshot; in CI, CI=true, these fail with 1 instead).
"""

import argparse
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)

SKIP = 77
MAX_ADDR = 0xFFFFFFFF

# OpenCSD packet names (trc_pkt_elem_etmv3.cpp, packetTypeName) -> etmkit's.
OCSD_TYPES = {
    "A_SYNC": "a_sync",
    "P_HDR": "p_header",
    "CYCLE_COUNT": "cycle_count",
    "I_SYNC": "i_sync",
    "I_SYNC_CYCLE": "i_sync_cycle",
    "BRANCH_ADDRESS": "branch_address",
    "TRIGGER": "trigger",
    "CONTEXT_ID": "context_id",
    "VMID": "vmid",
    "TIMESTAMP": "timestamp",
    "EXCEPTION_ENTRY": "exception_entry",
    "EXCEPTION_EXIT": "exception_exit",
    "IGNORE": "ignore",
    "NORM_DATA": "normal_data",
    "OOO_ADDR_PLC": "ooo_placeholder",
    "OOO_DATA": "ooo_data",
    "VAL_NOT_TRACED": "value_not_traced",
    "DATA_SUPPRESSED": "data_suppressed",
    "STORE_FAIL": "store_failed",
    "I_RESERVED": "reserved",
}
# OpenCSD's error packets: etmkit reports those bytes as a record carrying
# an `error` (of whatever type its header named).
OCSD_ERRORS = {"BAD_SEQUENCE", "BAD_TRACEMODE", "INCOMPLETE_EOT", "INCOMPLETE_EOT."}
OCSD_NOTSYNC = "NOTSYNC"

OCSD_ISA = {
    "ARM(32)": "arm",
    "Thumb2": "thumb",
    "ThumbEE": "thumbee",
    "Jazelle": "jazelle",
    "AArch64": "a64",
    "Unknown": "unknown",
}
OCSD_REASON = {
    "Periodic": ("periodic", 0),
    "Trace Enable": ("trace_on", 1),
    "Restart Overflow": ("overflow", 2),
    "Debug Exit": ("debug_exit", 3),
}
# Exception names as OpenCSD prints them, indexed by exception number
# (ARMv7-A/R, IHI 0014Q Table 7-12), and etmkit's names for the same numbers.
OCSD_EXC_AR = [
    "No Exception", "Debug Halt", "SMC", "Hyp", "Async Data Abort", "Jazelle",
    "Reserved", "Reserved", "PE Reset", "Undefined Instr", "SVC",
    "Prefetch Abort", "Data Fault", "Generic", "IRQ", "FIQ",
]
ETMKIT_EXC_AR = [
    "none", "halting_debug", "secure_monitor_call", "hyp_trap",
    "async_data_abort", "jazelle_thumbee_check", "reserved_6", "reserved_7",
    "reset", "undefined_instruction", "svc", "prefetch_abort", "data_abort",
    "generic", "irq", "fiq",
]

# OpenCSD may print a log message and a packet on one line (the message has
# no newline), so the packet is searched for, not anchored at the start
# (messages say "TrcIdx=", never "Idx:N; ID:").
PKT_RE = re.compile(
    r"Idx:(\d+); ID:([0-9a-fA-F]+); "
    r"\[((?:0x[0-9a-fA-F]{1,2} )*)\];\t(\S+) : (.*)$")
OCSD_FATAL = "Data Path fatal error"
ADDR_RE = re.compile(
    r"^0x([0-9A-Fa-f?]+)(?: \((\d+):0\))?(?: ~\[0x([0-9A-Fa-f]+)\])?$")


class Fail(Exception):
    """A fatal problem: print it and exit 1."""


def skip_or_fail(why, tool="compare_ocsd"):
    """Missing prerequisite: skipped locally, a failure in CI."""
    if os.environ.get("CI", "").lower() == "true":
        print(f"{tool}: FAIL (CI=true): {why}")
        sys.exit(1)
    print(f"{tool}: SKIPPED: {why}")
    sys.exit(SKIP)


# ---- OpenCSD side ---------------------------------------------------------

def parse_addr(text):
    """'0x??C0FFEE (23:0) ~[0x3EE]' -> (value, mask of the bits OpenCSD knows)."""
    m = ADDR_RE.match(text.strip())
    if not m:
        raise ValueError(f"unparsed address {text!r}")
    digits = m.group(1)
    known = digits.lstrip("?")
    value = int(known, 16) if known else 0
    if m.group(2) is not None:
        mask = (1 << (int(m.group(2)) + 1)) - 1
    else:
        mask = (1 << (4 * len(known))) - 1 if "?" in digits else MAX_ADDR
    return value & mask, mask & MAX_ADDR


def parse_ocsd_fields(otype, parts, proto):
    """The '; '-separated fields after the description -> dict."""
    f = {}
    for raw in parts:
        p = raw.strip()
        if not p:
            continue
        if p.startswith("(") and p.endswith(")") and otype.startswith(proto.i_sync):
            f["reason"] = p[1:-1]
        elif p in ("S", "NS"):
            f["ns"] = p == "NS"
        elif p == "Hyp":
            f["hyp"] = True
        elif p == "Cancel prev instr":
            f["cancel"] = True
        elif "=" in p:
            key, val = p.split("=", 1)
            f[key.strip()] = val.strip()
        elif otype == proto.atom and re.fullmatch(r"[EWN]+", p):
            f["atoms"] = p
        else:
            f.setdefault("unparsed", []).append(p)
    return f


def parse_ocsd(text, want_id, proto):
    """Packet lines of trace ID @want_id, in order, as dicts."""
    pkts, other = [], []
    for line in text.splitlines():
        if "Idx:" not in line or "OCSD_GEN_TRC_ELEM" in line:
            continue
        m = PKT_RE.search(line)
        if not m:
            other.append(line)
            continue
        if int(m.group(2), 16) != want_id:
            continue
        data = bytes(int(b, 16) for b in m.group(3).split())
        otype, rest = m.group(4), m.group(5)
        parts = rest.split("; ")
        pkts.append({
            "idx": int(m.group(1)),
            "bytes": data.hex(),
            "otype": otype,
            "fields": parse_ocsd_fields(otype, parts[1:], proto),
            "line": line,
        })
    return pkts, other


def run_ocsd(lister, snapshot, id_text, mode):
    """trc_pkt_lister's listing of source @id_text (None: of every source)."""
    cmd = [lister, "-ss_dir", snapshot] + (["-id", id_text] if id_text else []) + \
        ["-" + mode, "-logstdout"]
    # trc_pkt_lister also writes trc_pkt_lister.ppl into its working folder.
    with tempfile.TemporaryDirectory(prefix="compare_ocsd_") as tmp:
        try:
            res = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=600)
        except subprocess.TimeoutExpired:
            raise Fail(f"timed out: {' '.join(cmd)}")
    out = res.stdout.decode("utf-8", "replace")
    if res.returncode != 0:
        raise Fail(f"{' '.join(cmd)} exited {res.returncode}:\n{out[-2000:]}")
    return out, " ".join(cmd)


# ---- etmkit side ----------------------------------------------------------

def run_etmkit(exe, snapshot, id_text):
    cmd = [exe, "packets", "--snapshot", snapshot, "--id", id_text, "--json"]
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=600)
    except OSError as e:
        raise Fail(f"cannot run {exe}: {e}")
    except subprocess.TimeoutExpired:
        raise Fail(f"timed out: {' '.join(cmd)}")
    # Exit 1 means "the trace had decode errors (reported)": the listing is
    # complete and is compared; main() checks that it does hold errors.
    if res.returncode not in (0, 1):
        raise Fail(f"{' '.join(cmd)} exited {res.returncode}:\n"
                   + res.stderr.decode("utf-8", "replace")[-2000:])
    return (res.stdout.decode("utf-8", "replace"), " ".join(cmd), res.returncode,
            res.stderr.decode("utf-8", "replace").strip())


def parse_etmkit(text, want_id, schema="packets-etmv3"):
    recs, skipped = [], 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise Fail(f"etmkit JSON line {n} does not parse ({e}): {line[:200]}")
        why = etmkit_json.problem(obj, schema)
        if why:
            raise Fail(f"etmkit JSON line {n} does not match "
                       f"docs/schema/{schema}.schema.json: {why}: {line[:200]}")
        obj = etmkit_json.ints(obj)
        if not isinstance(obj, dict) or "type" not in obj:
            skipped += 1
            continue
        if obj.get("id") != want_id:
            if "id" not in obj:
                raise Fail(f"etmkit JSON line {n} has no id: {line[:200]}")
            continue
        # unsynced runs carry their length, not their bytes.
        need = ("offset", "length") if obj["type"] == "unsynced" else ("offset", "bytes")
        for key in need:
            if key not in obj:
                raise Fail(f"etmkit JSON line {n} has no {key}: {line[:200]}")
        b = obj.get("bytes", "")
        # "..." ends the bytes of a record longer than etmkit keeps.
        m = re.fullmatch(r"((?:[0-9a-f]{2})*)(\.\.\.)?", b) if isinstance(b, str) else None
        if not m:
            raise Fail(f"etmkit JSON line {n}: bytes is not lower-case hex: {line[:200]}")
        obj["bytes"] = m.group(1)
        obj["_cut"] = bool(m.group(2))
        if obj["_cut"] and not isinstance(obj.get("length"), int):
            raise Fail(f"etmkit JSON line {n}: bytes cut short but no length: {line[:200]}")
        obj["_line"] = line
        recs.append(obj)
    return recs, skipped


def etmkit_length(rec):
    """Bytes a record covers: `length` if given (unsynced runs can be longer
    than the bytes listed), else the bytes listed."""
    n = len(rec["bytes"]) // 2
    length = rec.get("length")
    return length if isinstance(length, int) and length >= n else n


# ---- Snapshot: the buffer file --------------------------------------------

def read_ini(path):
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str
    with open(path, encoding="utf-8", errors="replace") as f:
        cp.read_file(f)
    return cp


def buffer_file(snapshot, want_id):
    """The capture file holding trace ID @want_id (trace.ini, and with several
    buffers the device whose ETMTRACEIDR is the ID)."""
    snap = read_ini(os.path.join(snapshot, "snapshot.ini"))
    meta = snap.get("trace", "metadata", fallback="trace.ini")
    trace = read_ini(os.path.join(snapshot, meta))
    names = [b.strip() for b in trace.get("trace_buffers", "buffers").split(",")]
    buffers = {trace.get(b, "name", fallback=b): trace.get(b, "file") for b in names}
    if len(buffers) == 1:
        return os.path.join(snapshot, next(iter(buffers.values())))
    for _, dev in snap.items("device_list") if snap.has_section("device_list") else []:
        d = read_ini(os.path.join(snapshot, dev))
        if not d.has_section("regs") or not d.has_section("device"):
            continue
        for key, val in d.items("regs"):
            if key.upper().startswith("ETMTRACEIDR") and int(val, 0) & 0x7F == want_id:
                name = d.get("device", "name")
                buf = trace.get("source_buffers", name, fallback=None)
                if buf in buffers:
                    return os.path.join(snapshot, buffers[buf])
    raise Fail(f"cannot tell which buffer of {meta} holds ID 0x{want_id:02x}")


def check_offsets(recs, capture):
    """etmkit offsets point at each record's first byte in the framed file."""
    errors = []
    prev = -1
    for r in recs:
        off, b = r["offset"], r["bytes"]
        if not isinstance(off, int) or off < 0 or off >= len(capture):
            errors.append(f"offset {off!r} outside the {len(capture)}-byte file: {r['_line']}")
        elif not b:
            if r.get("type") != "unsynced":
                errors.append(f"record without bytes: {r['_line']}")
        elif capture[off] | 1 != int(b[:2], 16) | 1:
            errors.append(f"file[{off}] = 0x{capture[off]:02x} but first byte is "
                          f"0x{b[:2]}: {r['_line']}")
        elif off <= prev:
            errors.append(f"offset {off} not after the previous record's {prev}: "
                          f"{r['_line']}")
        if isinstance(off, int):
            prev = off
    return errors


# ---- Pairing and comparison ------------------------------------------------

def from_first_async(items, is_async):
    for i, it in enumerate(items):
        if is_async(it):
            return items[i:], i
    return [], len(items)


def with_positions(items, length_of, is_async, anchor):
    """(position, item) for every item: the position is (segment, byte within
    the segment), segments starting at each A-sync when @anchor (both sides
    have as many A-syncs), else one segment. Anchoring keeps a decoder that
    lost or invented bytes from shifting every later pairing."""
    seg, pos, out = -1 if anchor else 0, 0, []
    for it in items:
        if anchor and is_async(it):
            seg, pos = seg + 1, 0
        out.append(((seg, pos), it))
        pos += length_of(it)
    return out


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return None
    return None


class Comparison:
    def __init__(self, allow, proto):
        self.allow = allow
        self.proto = proto     # struct Protocol: OpenCSD's names
        self.mismatches = []   # (etype, [(field, detail)], ocsd pkt, etmkit rec)
        self.fields = {}       # (etype, field) -> mismatches
        self.allowed = {}      # (etype, field) -> count
        self.current = []      # field differences of the packet being compared
        self.not_compared = {} # (etype, field) -> count: etmkit lacks the key
        self.compared_fields = 0

    def diff(self, etype, field, detail, o, k):
        if (etype, field) in self.allow or (etype, "*") in self.allow:
            self.allowed[(etype, field)] = self.allowed.get((etype, field), 0) + 1
            return
        self.fields[(etype, field)] = self.fields.get((etype, field), 0) + 1
        self.current.append((field, detail))

    def close(self, etype, o, k):
        """One mismatch per packet pair, listing every field that differs."""
        if self.current:
            self.mismatches.append((etype, self.current, o, k))
        self.current = []

    def skip(self, etype, field):
        self.not_compared[(etype, field)] = self.not_compared.get((etype, field), 0) + 1

    def field(self, etype, name, ocsd_val, k, key, o, required, conv=as_int, mask=None):
        """Compare OpenCSD's @ocsd_val with etmkit's k[key]."""
        if key not in k:
            if required:
                self.diff(etype, name, f"etmkit record has no '{key}' "
                          f"(OpenCSD: {ocsd_val!r})", o, k)
            else:
                self.skip(etype, name)
            return
        kv = conv(k[key]) if conv else k[key]
        ov = ocsd_val
        if mask is not None and isinstance(kv, int):
            kv_cmp = kv & mask
        else:
            kv_cmp = kv
        self.compared_fields += 1
        if kv_cmp != ov:
            def show(v):
                return f"0x{v:x}" if isinstance(v, int) and name in (
                "addr", "next_addr", "data_addr", "timestamp", "context_id",
                "value") else repr(v)
            extra = f" (OpenCSD knows bits mask 0x{mask:x} only)" if mask not in (None, MAX_ADDR) else ""
            self.diff(etype, name, f"etmkit {show(kv)} != OpenCSD {show(ov)}{extra}", o, k)

    def packet(self, o, k):
        """Compare one OpenCSD packet with the etmkit record at its position."""
        etype = self.packet_fields(o, k)
        self.close(etype, o, k)

    def packet_fields(self, o, k):
        otype = o["otype"]
        ktype = k.get("type")
        is_err = otype in self.proto.errors
        etype = self.proto.types.get(otype, "error" if is_err else otype)
        if k.get("_cut"):
            same = (o["bytes"].startswith(k["bytes"])
                    and len(o["bytes"]) // 2 == k["length"])
        else:
            same = o["bytes"] == k["bytes"]
        if not same:
            cut = f"... ({k.get('length')} bytes)" if k.get("_cut") else ""
            self.diff(etype, "bytes", f"etmkit {k['bytes']}{cut} != OpenCSD {o['bytes']}", o, k)
        if is_err:
            if "error" not in k:
                self.diff(etype, "type", f"OpenCSD {otype} (an error) but etmkit "
                          f"{ktype} without error", o, k)
            return etype
        if etype != ktype:
            self.diff(etype, "type", f"etmkit {ktype} != OpenCSD {otype} ({etype})", o, k)
            return etype
        if "error" in k and etype != "reserved":
            self.diff(etype, "error", f"etmkit reports error {k['error']!r}, OpenCSD "
                      f"a valid {otype}", o, k)
        getattr(self, "f_" + etype, self.f_none)(etype, o["fields"], o, k)
        for p in o["fields"].get("unparsed", []):
            self.skip(etype, f"ocsd:{p}")
        return etype

    def f_none(self, etype, f, o, k):
        pass

    def f_p_header(self, etype, f, o, k):
        self.field(etype, "atoms", f.get("atoms", ""), k, "atoms", o, True, conv=None)
        if "Cycles" in f:
            self.field(etype, "cycles", int(f["Cycles"]), k, "cycles", o, False)

    def isa(self, etype, f, o, k):
        if "ISA" in f:
            want = OCSD_ISA.get(f["ISA"], f"ocsd:{f['ISA']}")
            self.field(etype, "isa", want, k, "isa", o, True, conv=None)

    def f_i_sync(self, etype, f, o, k):
        if "reason" in f and f["reason"] in OCSD_REASON:
            name, num = OCSD_REASON[f["reason"]]
            self.field(etype, "reason", name, k, "reason", o, False,
                       conv=lambda v: v if isinstance(v, str) else
                       {n: s for s, n in OCSD_REASON.values()}.get(v, v))
        for key in ("Addr", "Data Instr Addr"):
            if key in f:
                value, mask = parse_addr(f[key])
                self.field(etype, "addr", value, k, "addr", o, True, mask=mask)
        self.isa(etype, f, o, k)
        if "Cycles" in f:
            self.field(etype, "cycles", int(f["Cycles"]), k, "cycles", o, True)
        if "ns" in f:
            self.field(etype, "ns", f["ns"], k, "ns", o, False, conv=bool)
        self.field(etype, "hyp", f.get("hyp", False), k, "hyp", o, False, conv=bool)
        if "CtxtID" in f:
            # I-sync prints the context ID in hex without 0x.
            self.field(etype, "context_id", int(f["CtxtID"], 16), k, "context_id", o, True)
        if "Curr Instr Addr" in f:
            # LSiP: OpenCSD's "Data Instr Addr" is etmkit's addr, its "Curr
            # Instr Addr" the compressed address etmkit calls next_addr.
            value, mask = parse_addr(f["Curr Instr Addr"])
            self.field(etype, "next_addr", value, k, "next_addr", o, True, mask=mask)

    f_i_sync_cycle = f_i_sync

    def f_branch_address(self, etype, f, o, k):
        value, mask = parse_addr(f["Addr"]) if "Addr" in f else (None, None)
        if value is None:
            self.diff(etype, "addr", "OpenCSD printed no address", o, k)
        else:
            self.field(etype, "addr", value, k, "addr", o, True, mask=mask)
        self.isa(etype, f, o, k)
        if "ns" in f:
            self.field(etype, "ns", f["ns"], k, "ns", o, False, conv=bool)
        if "Exception" in f:
            self.exception(etype, f["Exception"], o, k)
        if f.get("cancel"):
            self.field(etype, "cancel", True, k, "cancel", o, False, conv=bool)

    def exception(self, etype, name, o, k):
        name = name.strip()
        if name in OCSD_EXC_AR and name != "Reserved":
            num = OCSD_EXC_AR.index(name)
        else:
            # M-profile names, IRQn, Reserved: no single number to check.
            self.skip(etype, f"exception:{name}")
            return
        kv = k.get("exception")
        if kv is None and "exception_number" not in k:
            self.diff(etype, "exception", f"etmkit has no exception, OpenCSD {name}", o, k)
            return
        if "exception_number" in k:
            kv = k["exception_number"]
        if isinstance(kv, int):
            ok = kv == num
        else:
            ok = str(kv) == ETMKIT_EXC_AR[num]
        self.compared_fields += 1
        if not ok:
            self.diff(etype, "exception", f"etmkit {kv!r} != OpenCSD {name} "
                      f"(number {num}, etmkit name {ETMKIT_EXC_AR[num]})", o, k)

    def f_cycle_count(self, etype, f, o, k):
        self.field(etype, "cycles", int(f.get("Cycles", "-1")), k, "cycles", o, True)

    def f_timestamp(self, etype, f, o, k):
        ts = f.get("TS", "")
        m = re.match(r"0x([0-9a-fA-F]+)", ts)
        if not m:
            self.diff(etype, "timestamp", f"OpenCSD printed {ts!r}", o, k)
            return
        self.field(etype, "timestamp", int(m.group(1), 16), k, "timestamp", o, True)

    def f_context_id(self, etype, f, o, k):
        self.field(etype, "context_id", int(f["CtxtID"], 16), k, "context_id", o, True)

    def f_vmid(self, etype, f, o, k):
        v = f.get("VMID", "")
        # Older OpenCSD streams the uint8_t VMID as a character after "0x".
        m = re.fullmatch(r"0x([0-9a-fA-F]+)", v)
        if m:
            self.field(etype, "vmid", int(m.group(1), 16), k, "vmid", o, True)
        else:
            self.skip(etype, "vmid(unprintable in OpenCSD)")

    def data(self, etype, f, o, k):
        if "Addr" in f:
            value, mask = parse_addr(f["Addr"])
            self.field(etype, "data_addr", value, k, "data_addr", o, True, mask=mask)
        if "Val" in f:
            self.field(etype, "value", int(f["Val"], 16), k, "value", o, True)
        if "OO_Tag" in f:
            self.field(etype, "tag", int(f["OO_Tag"], 16), k, "tag", o, True)

    f_normal_data = data
    f_ooo_data = data
    f_ooo_placeholder = data
    f_value_not_traced = data


class Protocol:
    """What differs between the protocols compared: OpenCSD's packet names
    and how they map to etmkit's, the etmkit JSON schema, the Comparison
    class with a f_TYPE method per etmkit packet type."""

    def __init__(self, tool, schema, types, errors, a_sync, i_sync, atom,
                 comparison, check=None):
        self.tool = tool              # the script's name in its messages
        self.schema = schema          # tests/etmkit_json.py schema name
        self.types = types            # OpenCSD packet name -> etmkit type
        self.errors = errors          # OpenCSD's error packet names
        self.a_sync = a_sync          # OpenCSD's A-sync packet name
        self.i_sync = i_sync          # prefix of its I-sync packet names
        self.atom = atom              # its atom packet (E/N/W fields)
        self.comparison = comparison
        # check(opkts, krecs): more checks of both listings (from the first
        # A-sync), printing what they find; returns the failures
        self.check = check


ETMV3 = Protocol("compare_ocsd", "packets-etmv3", OCSD_TYPES, OCSD_ERRORS,
                 "A_SYNC", "I_SYNC", "P_HDR", Comparison)


def compare(opkts, krecs, allow, proto):
    """Pair packets by stream position; returns (Comparison, paired, opos, kpos)."""
    cmp = proto.comparison(allow, proto)
    o_async = lambda p: p["otype"] == proto.a_sync
    k_async = lambda r: r.get("type") == "a_sync"
    anchor = sum(map(o_async, opkts)) == sum(map(k_async, krecs))
    opos = with_positions(opkts, lambda p: len(p["bytes"]) // 2, o_async, anchor)
    kpos = with_positions(krecs, etmkit_length, k_async, anchor)
    o_at = {pos: p for pos, p in opos if p["otype"] != OCSD_NOTSYNC}
    k_at = {pos: r for pos, r in kpos if r.get("type") != "unsynced"}
    paired = 0
    for pos in sorted(set(o_at) | set(k_at)):
        o, k = o_at.get(pos), k_at.get(pos)
        if o and k:
            paired += 1
            cmp.packet(o, k)
        elif o:
            etype = proto.types.get(o["otype"], o["otype"])
            cmp.diff(etype, "missing", "no etmkit packet starts at this byte", o, None)
            cmp.close(etype, o, None)
        else:
            cmp.diff(k.get("type"), "extra", "no OpenCSD packet starts at this byte", None, k)
            cmp.close(k.get("type"), None, k)
    return cmp, paired, opos, kpos, anchor


# ---- Report -----------------------------------------------------------------

def context_lines(seq, item, key, before=2):
    """The lines of the @before items preceding @item in @seq."""
    for i, (_, it) in enumerate(seq):
        if it is item:
            return [key(x) for _, x in seq[max(0, i - before):i]]
    return []


def report(cmp, opos, kpos, limit):
    pos_of = {}
    for pos, it in opos + kpos:
        pos_of[id(it)] = pos
    for n, (etype, diffs, o, k) in enumerate(cmp.mismatches[:limit], 1):
        anchor = o if o is not None else k
        seg, at = pos_of.get(id(anchor), ("?", "?"))
        where = f"A-sync #{seg} + {at} bytes"
        if k is not None:
            where += f", etmkit offset {k['offset']}"
        print(f"\nmismatch {n}: {etype} at {where}")
        for field, detail in diffs:
            print(f"  {field}: {detail}")
        if o is not None:
            for line in context_lines(opos, o, lambda x: x["line"]):
                print(f"    opencsd (before): {line}")
        if k is not None:
            for line in context_lines(kpos, k, lambda x: x["_line"]):
                print(f"    etmkit  (before): {line}")
        print(f"  opencsd: {o['line'] if o is not None else '(none)'}")
        print(f"  etmkit : {k['_line'] if k is not None else '(none)'}")
    if len(cmp.mismatches) > limit:
        print(f"\n... and {len(cmp.mismatches) - limit} more mismatched packets")


def count_types(items, key):
    counts = {}
    for it in items:
        t = key(it)
        counts[t] = counts.get(t, 0) + 1
    return counts


def main(proto=ETMV3, doc=__doc__):
    """The comparison for @proto; @doc: the calling script's docstring."""
    tool = proto.tool
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--etmkit", required=True, help="the etmkit CLI")
    ap.add_argument("--snapshot", required=True, help="trace snapshot folder")
    ap.add_argument("--id", required=True, help="trace ID, e.g. 0x10")
    ap.add_argument("--allow", action="append", default=[], metavar="TYPE:FIELD",
                    help="a difference where OpenCSD is known wrong (spec "
                    "reference in the caller); repeatable or comma-separated; "
                    "FIELD may be *. Listed, not failed.")
    ap.add_argument("--max-report", type=int, default=20,
                    help="mismatches shown in full (default 20)")
    ap.add_argument("--trc-pkt-lister", default=None,
                    help="path of trc_pkt_lister (default: from PATH)")
    ap.add_argument("--ocsd-mode", choices=("decode", "pkt_mon"), default="decode",
                    help="trc_pkt_lister mode: decode (default; packets and "
                    "elements) or pkt_mon (packets only: goes on where the full "
                    "decoder stops on a fatal error)")
    ap.add_argument("--ocsd-log", default=None,
                    help="use this saved trc_pkt_lister output instead of running it")
    ap.add_argument("--etmkit-json", default=None,
                    help="use this saved etmkit JSON instead of running --etmkit")
    ap.add_argument("--ocsd-id", default=None,
                    help="the ID OpenCSD lists the source under, when not --id: "
                    "0 for a raw (source_data) buffer, whose source "
                    "trc_pkt_lister's -id does not select (it then runs without "
                    "-id)")
    args = ap.parse_args()

    try:
        want_id = int(args.id, 0)
        ocsd_id = int(args.ocsd_id, 0) if args.ocsd_id else want_id
    except ValueError:
        print(f"{tool}: bad --id {args.id!r}")
        return 1
    allow = set()
    for item in args.allow:
        for a in item.split(","):
            a = a.strip()
            if not a:
                continue
            if ":" not in a:
                print(f"{tool}: --allow wants TYPE:FIELD, got {a!r}")
                return 1
            allow.add(tuple(a.split(":", 1)))

    snapshot = os.path.abspath(args.snapshot)
    if not os.path.isfile(os.path.join(snapshot, "snapshot.ini")):
        skip_or_fail(f"no snapshot at {snapshot} (snapshot.ini missing)", tool)

    try:
        if args.ocsd_log:
            with open(args.ocsd_log, encoding="utf-8", errors="replace") as f:
                ocsd_text, ocsd_cmd = f.read(), f"(saved) {args.ocsd_log}"
        else:
            lister = args.trc_pkt_lister or shutil.which("trc_pkt_lister")
            if not lister:
                skip_or_fail("trc_pkt_lister not on PATH (Debian: libopencsd-bin)", tool)
            ocsd_text, ocsd_cmd = run_ocsd(lister, snapshot,
                                           None if args.ocsd_id else args.id,
                                           args.ocsd_mode)
        if args.etmkit_json:
            with open(args.etmkit_json, encoding="utf-8") as f:
                k_text, k_cmd = f.read(), f"(saved) {args.etmkit_json}"
            k_rc, k_err = None, ""
        else:
            k_text, k_cmd, k_rc, k_err = run_etmkit(args.etmkit, snapshot, args.id)

        opkts_all, o_other = parse_ocsd(ocsd_text, ocsd_id, proto)
        krecs_all, k_skipped = parse_etmkit(k_text, want_id, proto.schema)
        capture_path = buffer_file(snapshot, want_id)
        with open(capture_path, "rb") as f:
            capture = f.read()
    except Fail as e:
        print(f"{tool}: FAIL: {e}")
        return 1

    print(f"{tool}: ID 0x{want_id:02x}, snapshot {snapshot}")
    print(f"  opencsd: {ocsd_cmd}")
    print(f"  etmkit : {k_cmd}")
    failed = []

    if o_other:
        print(f"  note: {len(o_other)} OpenCSD 'Idx:' lines that are not packets, e.g.:")
        for line in o_other[:3]:
            print(f"    {line}")
    k_errors = sum(1 for r in krecs_all if "error" in r)
    if k_rc is not None:
        print(f"  etmkit exit status {k_rc}, {k_errors} records with an error"
              + (f" ({k_err.splitlines()[-1]})" if k_err else ""))
        if (k_rc == 1) != (k_errors > 0):
            failed.append(f"etmkit exited {k_rc} but listed {k_errors} error records "
                          "(exit 1 means: the trace had decode errors)")
    if k_skipped:
        print(f"  note: {k_skipped} etmkit JSON lines without a 'type' (not records)")

    # Offsets of every etmkit record (before sync too) against the file.
    off_errors = check_offsets(krecs_all, capture)
    if off_errors:
        failed.append(f"{len(off_errors)} etmkit offsets do not point at their packet")
        print(f"\netmkit offsets wrong in {os.path.basename(capture_path)} "
              f"({len(off_errors)}), first ones:")
        for e in off_errors[:10]:
            print(f"  {e}")

    ocsd_stopped = [line for line in ocsd_text.splitlines() if OCSD_FATAL in line]
    if ocsd_stopped:
        failed.append("OpenCSD stopped early (fatal datapath error); compared only "
                      "up to there" + (": try --ocsd-mode pkt_mon"
                                       if args.ocsd_mode == "decode" else ""))
        print(f"  OpenCSD STOPPED after Idx:{opkts_all[-1]['idx'] if opkts_all else '?'}:"
              f" {ocsd_stopped[0].strip()[:300]}")

    if not opkts_all and not krecs_all and not failed:
        # The buffer holds no byte of the ID: both say nothing.
        print(f"\n{tool}: OK: no trace of ID 0x{want_id:02x} in the buffer "
              "(no OpenCSD packet line, no etmkit record)")
        return 0
    opkts, o_pre = from_first_async(opkts_all, lambda p: p["otype"] == proto.a_sync)
    krecs, k_pre = from_first_async(krecs_all, lambda r: r.get("type") == "a_sync")
    if not opkts:
        print(f"{tool}: FAIL: OpenCSD printed no {proto.a_sync} for ID 0x{want_id:02x} "
              f"({len(opkts_all)} packet lines): nothing to compare")
        return 1
    if not krecs:
        print(f"{tool}: FAIL: etmkit reported no a_sync for ID 0x{want_id:02x} "
              f"({len(krecs_all)} records)")
        return 1
    o_bytes_pre = sum(len(p["bytes"]) // 2 for p in opkts_all[:o_pre])
    k_bytes_pre = sum(etmkit_length(r) for r in krecs_all[:k_pre])
    print(f"  first A-sync: stream byte {o_bytes_pre} (OpenCSD, Idx:{opkts[0]['idx']}), "
          f"{k_bytes_pre} (etmkit, file offset {krecs[0]['offset']})")
    if o_bytes_pre != k_bytes_pre:
        if ("notsync", "length") in allow:
            print("  first A-sync at different stream positions: allowed by "
                  f"--allow notsync:length ({o_bytes_pre - k_bytes_pre:+d} bytes)")
        else:
            failed.append("first A-sync at different stream positions")

    if ocsd_stopped:
        # Only the part of the stream OpenCSD listed can be compared.
        o_len, k_keep, at = sum(len(p["bytes"]) // 2 for p in opkts), [], 0
        for r in krecs:
            if at >= o_len:
                break
            k_keep.append(r)
            at += etmkit_length(r)
        print(f"  compared: the first {o_len} bytes from the first A-sync "
              f"({len(k_keep)} of {len(krecs)} etmkit records)")
        krecs = k_keep
    cmp, paired, opos, kpos, anchored = compare(opkts, krecs, allow, proto)
    o_real = [p for p in opkts if p["otype"] != OCSD_NOTSYNC]
    k_real = [r for r in krecs if r.get("type") != "unsynced"]
    o_end = sum(len(p["bytes"]) // 2 for p in opkts)
    k_end = sum(etmkit_length(r) for r in krecs)

    # Counts per type (etmkit names), with mismatches per type.
    oc = count_types(o_real, lambda p: proto.types.get(p["otype"], p["otype"]))
    kc = count_types(k_real, lambda r: r.get("type"))
    mc = count_types(cmp.mismatches, lambda m: m[0])
    print(f"\n  {'type':<18} {'opencsd':>8} {'etmkit':>8} {'mismatch':>8}")
    for t in sorted(set(oc) | set(kc) | set(mc)):
        print(f"  {t!s:<18} {oc.get(t, 0):>8} {kc.get(t, 0):>8} {mc.get(t, 0):>8}")
    print(f"  {'packets':<18} {len(o_real):>8} {len(k_real):>8} {len(cmp.mismatches):>8}")
    o_err = sum(1 for p in o_real if p["otype"] in proto.errors)
    k_err = sum(1 for r in k_real if "error" in r)
    if o_err or k_err:
        print(f"  {'(with an error)':<18} {o_err:>8} {k_err:>8}   "
              "(OpenCSD: BAD_*/INCOMPLETE_EOT; etmkit: records with 'error')")
    o_uns = sum(1 for p in opkts if p["otype"] == OCSD_NOTSYNC)
    k_uns = sum(1 for r in krecs if r.get("type") == "unsynced")
    print(f"  out of sync after the first A-sync: OpenCSD {o_uns} NOTSYNC lines, "
          f"etmkit {k_uns} unsynced records (not compared: OpenCSD splits them per block)")
    print(f"  stream bytes from the first A-sync: OpenCSD {o_end}, etmkit {k_end}")
    print(f"  paired packets {paired}, fields compared {cmp.compared_fields}; "
          + ("positions counted from each A-sync" if anchored else
             "A-sync counts differ: positions counted from the first A-sync only"))
    if cmp.fields:
        print("  differing fields: " + ", ".join(
            f"{t}.{f} {n}" for (t, f), n in sorted(cmp.fields.items(), key=str)))
    if cmp.not_compared:
        print("  not compared (etmkit JSON has no such field, or OpenCSD prints no "
              "checkable value):")
        for (t, f), n in sorted(cmp.not_compared.items(), key=str):
            print(f"    {t}.{f}: {n}")
    if cmp.allowed:
        print("  differences allowed by --allow (OpenCSD known wrong):")
        for (t, f), n in sorted(cmp.allowed.items(), key=str):
            print(f"    {t}.{f}: {n}")
    unused = {a for a in allow if a not in cmp.allowed and (a[0], "*") not in cmp.allowed
              and not (a == ("notsync", "length") and o_bytes_pre != k_bytes_pre)}
    if unused:
        print(f"  note: --allow entries that matched nothing: "
              f"{', '.join(':'.join(a) for a in sorted(unused))}")

    if proto.check:
        failed += proto.check(o_real, k_real)
    if len(o_real) != len(k_real):
        failed.append(f"packet counts differ: OpenCSD {len(o_real)}, etmkit {len(k_real)}")
    if o_end != k_end:
        failed.append(f"stream lengths differ: OpenCSD {o_end}, etmkit {k_end} bytes")
    if cmp.mismatches:
        failed.append(f"{len(cmp.mismatches)} mismatched packets")
        report(cmp, opos, kpos, args.max_report)

    if failed:
        print(f"\n{tool}: FAIL: {'; '.join(failed)}")
        return 1
    print(f"\n{tool}: OK: {len(k_real)} packets match from the first A-sync")
    return 0


if __name__ == "__main__":
    sys.exit(main())
