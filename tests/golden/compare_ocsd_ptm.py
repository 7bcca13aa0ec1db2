#!/usr/bin/env python3
"""Compare etmkit's PTM packets with OpenCSD's trc_pkt_lister, packet by packet.

Runs
    trc_pkt_lister -ss_dir DIR -id ID -decode -logstdout
    ETMKIT packets --snapshot DIR --id ID --json
(or reads OpenCSD's saved listing, --ocsd-log: the ocsd-1.8.0-decode.ppl
beside each shared capture) and compares, for every packet from the first
A-sync on: the bytes (exact), the type, and the fields OpenCSD prints (the
atoms and cycle counts of atom packets; the full addresses, instruction
sets, reasons, security state and cycle counts of I-syncs; the addresses,
instruction sets, exceptions and cycle counts of branch address and
waypoint update packets; timestamps and their cycle counts; context IDs,
VMIDs). The pairing, the offset checks against the capture file and the
report are tests/golden/compare_ocsd.py's (ETMv3), with PTM's packet names
(IHI 0035B chapter 4; digest ../shared/spec/ptm.md).

OpenCSD is a second opinion, not the truth: where the specification shows
it wrong for some packet kind, name it with --allow TYPE:FIELD (see
compare_ocsd.py).

Exit status: 0 all matched; 1 mismatches or errors; 77 skipped (no
trc_pkt_lister, or no snapshot; in CI, CI=true, these fail with 1 instead).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_ocsd as co  # noqa: E402

# OpenCSD's PTM packet names (its PTM packet printer) -> etmkit's
# (ptm_pkt_type_name()).
PTM_TYPES = {
    "ASYNC": "a_sync",
    "ISYNC": "i_sync",
    "ATOM": "atom",
    "BRANCH_ADDRESS": "branch_address",
    "WP_UPDATE": "waypoint_update",
    "TRIGGER": "trigger",
    "CTXTID": "context_id",
    "VMID": "vmid",
    "TIMESTAMP": "timestamp",
    "ERET": "exception_return",
    "IGNORE": "ignore",
    "RESERVED": "reserved",
}
PTM_ERRORS = {"BAD_SEQUENCE", "INCOMPLETE_EOT", "INCOMPLETE_EOT."}

# "Excep=Debug Halt [01]": the number, in hex, between brackets.
EXCEP_RE = re.compile(r"^(.*?)\s*\[([0-9a-fA-F]+)\]$")


class PtmComparison(co.Comparison):
    """The printed fields of OpenCSD's PTM packets against etmkit's
    members (docs/json.md, PTM packets)."""

    def f_atom(self, etype, f, o, k):
        self.field(etype, "atoms", f.get("atoms", ""), k, "atoms", o, True,
                   conv=None)
        if "Cycles" in f:
            self.field(etype, "cycles", int(f["Cycles"]), k, "cycles", o, True)

    def f_branch_address(self, etype, f, o, k):
        value, mask = co.parse_addr(f["Addr"]) if "Addr" in f else (None, None)
        if k.get("partial") and k.get("isa") == "unknown":
            # Before the first I-sync the instruction set, which places the
            # address bits (IHI 0035B 4.5.4: A[7:2] ARM, A[6:1] Thumb), is
            # not known: OpenCSD guesses Thumb, etmkit says unknown.
            self.skip(etype, "addr(isa unknown before an I-sync)")
            value = False
        elif value is None:
            self.diff(etype, "addr", "OpenCSD printed no address", o, k)
        elif value is not False:
            self.field(etype, "addr", value, k, "addr", o, True, mask=mask)
        self.isa(etype, f, o, k)
        if "ns" in f:
            self.field(etype, "ns", f["ns"], k, "ns", o, True, conv=bool)
        if f.get("hyp"):
            self.field(etype, "hyp", True, k, "hyp", o, True, conv=bool)
        if "Excep" in f:
            m = EXCEP_RE.match(f["Excep"])
            if not m:
                self.diff(etype, "exception", f"OpenCSD printed {f['Excep']!r}", o, k)
            else:
                self.field(etype, "exception", int(m.group(2), 16), k,
                           "exception", o, True)
        if "Cycles" in f:
            self.field(etype, "cycles", int(f["Cycles"]), k, "cycles", o, True)

    f_waypoint_update = f_branch_address

    def f_i_sync(self, etype, f, o, k):
        super().f_i_sync(etype, f, o, k)
        if "Cycles" not in f and "cycles" in k:
            self.diff(etype, "cycles", f"etmkit {k['cycles']}, OpenCSD none", o, k)

    def f_timestamp(self, etype, f, o, k):
        super().f_timestamp(etype, f, o, k)
        if "Cycles" in f:
            self.field(etype, "cycles", int(f["Cycles"]), k, "cycles", o, True)


def timestamps_rise(opkts, krecs):
    """A source's timestamps never go back (IHI 0035B 4.5.9: the value of
    a timestamp counter). Where etmkit and OpenCSD disagree on values (the
    Gray-coded timestamps of a PFTv1.0, ETMCCER[28] = 0, which OpenCSD reads
    as binary: --allow timestamp:timestamp), this says which side is
    right: etmkit's must rise, and OpenCSD's are counted."""
    def falls(values):
        return sum(1 for a, b in zip(values, values[1:]) if b < a)

    k_ts = [r["timestamp"] for r in krecs
            if r.get("type") == "timestamp" and "error" not in r]
    o_ts = []
    for p in opkts:
        m = re.match(r"0x([0-9a-fA-F]+)", p["fields"].get("TS", ""))
        if p["otype"] == "TIMESTAMP" and m:
            o_ts.append(int(m.group(1), 16))
    print(f"  timestamps that go back: etmkit {falls(k_ts)} of {len(k_ts)}, "
          f"OpenCSD {falls(o_ts)} of {len(o_ts)}")
    if falls(k_ts):
        return [f"{falls(k_ts)} etmkit timestamps lower than the one before"]
    return []


PTM = co.Protocol("compare_ocsd_ptm", "packets-ptm", PTM_TYPES, PTM_ERRORS,
                  "ASYNC", "ISYNC", "ATOM", PtmComparison, timestamps_rise)

if __name__ == "__main__":
    sys.exit(co.main(PTM, __doc__))
