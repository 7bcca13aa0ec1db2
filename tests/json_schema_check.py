#!/usr/bin/env python3
"""Every JSON output of etmkit against its JSON Schema (docs/schema/, the
rules of docs/json.md).

1. The schemas are valid draft 2020-12 schemas, and strict: for records
   etmkit wrote, the same record with a hex member ("addr": "0x8000") as a
   number (32768), in upper case, with leading zeros, or with a member the
   schema does not list, is rejected. A schema that let numbers through
   where strings are due would pass nothing here. The hex members the
   schemas require are the ones tests/etmkit_json.py and
   tools/make_example.py write and read as hex.
2. `etmkit packets --json` and `etmkit decode --json` over every shipped
   example, a damaged copy of one (a dropped formatter frame: `frame_error`
   and records with `error`), and, when ../shared/testdata is there, a
   set of real ETMv3, ETMv4 and ETE captures: every line must be a record
   of its schema. The first records of each run are also checked against
   the whole schema files, references between the files included, as a
   user of the installed schemas would.

Prints the record kinds seen per schema (and those no input gave).
Usage: json_schema_check.py --etmkit EXE --examples DIR [--shared DIR]
"""
import argparse
import copy
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etmkit_json as ej  # noqa: E402

# Real captures (under --shared/testdata) that hold the members the rules
# are about: 64-bit addresses, context IDs, VMIDs, timestamps, data values,
# the ITE value, Q elements, transactions.
SHARED = ["etmv3/TC2", "etmv4/juno_r1_1", "etmv4/juno-uname-001",
          "etmv4/armv8_1m_branches", "ete/ete-ite-instr", "ete/trace_file_vmid",
          "ete/q_elem", "ete/tme_test", "ete/src_addr", "ete/ts_marker",
          "ete/event_test", "ete/ete_spec_1", "ptm/Snowball", "ptm/tc2-ptm-rstk-t32"]
WHOLE_PER_RUN = 100  # records per run also checked against the whole files


class Check:
    def __init__(self, etmkit):
        self.etmkit = etmkit
        self.bad = 0
        self.records = 0
        self.seen = {}
        self.samples = {}  # (schema, kind, member set) -> a record

    def fail(self, msg):
        print("FAIL " + msg)
        self.bad += 1

    def run(self, cmd, schema, what):
        p = subprocess.run([self.etmkit] + cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            self.fail("%s: etmkit %s exited %d: %s" % (what, " ".join(cmd), p.returncode,
                                                      p.stderr.strip()[-500:]))
            return
        key = "kind" if schema == "elements" else "type"
        whole = ej.whole_validator(schema)
        n = 0
        for i, line in enumerate(p.stdout.splitlines()):
            try:
                r = ej.loads(line, schema, "%s line %d:" % (what, i + 1))
            except (ej.SchemaMismatch, ValueError) as e:
                self.fail(str(e)[:1500])
                if self.bad > 20:
                    sys.exit("too many failures")
                continue
            if i < WHOLE_PER_RUN:
                err = ej.jsonschema.exceptions.best_match(whole.iter_errors(r))
                if err is not None:
                    self.fail("%s line %d: valid by record but not by the whole "
                              "docs/schema/%s.schema.json: %s" % (what, i + 1, schema,
                                                                  err.message))
            n += 1
            self.seen.setdefault(schema, set()).add(r.get(key))
            self.samples.setdefault((schema, r.get(key), frozenset(r)), r)
        self.records += n
        print("ok   %-52s %6d records (%s)" % (what, n, schema))

    def strictness(self):
        """Every sample record, spoiled in the ways the rules forbid, must
        be rejected; otherwise the schema would not catch the mistake."""
        spoiled = 0
        for (schema, kind, _), r in sorted(self.samples.items(), key=str):
            for m, v in r.items():
                if m not in ej.HEX_MEMBERS:
                    continue
                for bad in (ej.num(v), "0x" + v[2:].upper(), "0x0" + v[2:],
                            v[2:], str(ej.num(v))):
                    if bad == v:
                        continue
                    s = dict(r)
                    s[m] = bad
                    spoiled += 1
                    if ej.problem(s, schema) is None:
                        self.fail("docs/schema/%s.schema.json accepts %s %s = %r "
                                  "(etmkit writes %r)" % (schema, kind, m, bad, v))
            s = copy.deepcopy(r)
            s["no_such_member"] = 1
            spoiled += 1
            if ej.problem(s, schema) is None:
                self.fail("docs/schema/%s.schema.json accepts a member it does not "
                          "list in a %s record" % (schema, kind))
        print("ok   %d spoiled records rejected (hex members as numbers, upper "
              "case, leading zeros, no 0x; unknown members)" % spoiled)
        if spoiled < 50:
            self.fail("only %d spoiled records: too few hex members in the inputs "
                      "to show the schemas are strict" % spoiled)


def hex_members(c):
    """The members the schemas require as hex strings are those
    tests/etmkit_json.py and tools/make_example.py convert: one list."""
    in_schemas = set()
    for name in ej.KINDS:
        for d in ej.schema(name).get("$defs", {}).values():
            for m, ps in d.get("properties", {}).items():
                if ps == {"$ref": "#/$defs/hex"}:
                    in_schemas.add(m)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "tools"))
    import make_example
    for where, names in (("tests/etmkit_json.py", ej.HEX_MEMBERS),
                         ("tools/make_example.py", set(make_example.HEX_MEMBERS))):
        if set(names) != in_schemas:
            c.fail("%s: hex members %s, the schemas %s" % (
                where, sorted(names), sorted(in_schemas)))
    print("ok   hex members: %s" % " ".join(sorted(in_schemas)))


# Cycles of tests/etmv2/pkt/data.e2t, then a branch address and a trigger.
ETMV2_CAPTURE = """etmv2-capture 1
port-width 8
etmcr 0x400c
cycles
WT x2
TD 0x01
WT 0x20
WT 0x05
WT 0x00
WT 0x00
WT 0x01
DE 0x00
WT 0xae
DN 0x80
WT 0xa0
WT 0x80
WT 0x80
WT 0x02
WT 0xef
DW 0xbe
WT 0xad
WT 0xde
WT 0x02
WT 0x26
WT 0x04
WT 0x7f
WT 0xea
WT 0x6e
WT 0x07
DE
WT 0x03
IE
TR/IE
TD x2
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--shared", default=None)
    a = ap.parse_args()
    c = Check(a.etmkit)
    for name in ej.KINDS:
        ej.schema(name)  # parses it and checks it against its metaschema
    print("ok   %s: valid JSON Schemas" % ", ".join(
        "docs/schema/%s.schema.json" % k for k in ej.KINDS))
    hex_members(c)

    for ex in sorted(os.listdir(a.examples)):
        snap = os.path.join(a.examples, ex)
        if not os.path.isfile(os.path.join(snap, "snapshot.ini")):
            continue
        c.run(["packets", "--snapshot", snap, "--json"], "packets", ex + " packets")
        c.run(["decode", "--snapshot", snap, "--json"], "elements", ex + " decode")
    with tempfile.TemporaryDirectory() as tmp:
        # A frame with the invalid trace ID 0x7F: frame_error and packets
        # cut by the loss (IHI 0029 D4.2; docs/recovery.md).
        snap = shutil.copytree(os.path.join(a.examples, "etmv3-two-sources"),
                               os.path.join(tmp, "damaged"))
        with open(os.path.join(snap, "trace.bin"), "r+b") as f:
            f.seek(32)
            f.write(b"\xff\xff")
        c.run(["packets", "--snapshot", snap, "--json"], "packets", "damaged example packets")
        c.run(["decode", "--snapshot", snap, "--json"], "elements", "damaged example decode")
        # PTM forms no capture has (digest ptm.md 4.4, 4.5): a waypoint
        # update whose 5th address byte flags the AltIS byte after it,
        # a branch with two exception bytes (exception 5), raw
        # (--frames none) with the return stack, Hyp and VMID on.
        raw = os.path.join(tmp, "ptm_forms.bin")
        with open(raw, "wb") as f:
            f.write(bytes([0, 0, 0, 0, 0, 0x80,          # A-sync
                           0x08, 0x01, 0x80, 0, 0, 0x21,  # I-sync 0x8000 T32
                           0x72, 0x81, 0x80, 0x80, 0x80, 0x50, 0x40,
                           0x81, 0x80, 0x80, 0x80, 0x48, 0x8a, 0x20,
                           0x3c, 0x05, 0x76]))
        c.run(["packets", raw, "--frames", "none", "--protocol", "ptm",
               "--etmcr", "0x40000000", "--etmidr", "0x411CF312",
               "--etmccer", "0x34C01AC2", "--json"], "packets",
              "hand-made PTM forms packets")
        # An ETMv2 capture (docs/etmv2-capture.md): cycles before sync,
        # a TFO with a context ID, data with addresses and values, value
        # not traced, a context ID, a branch address, a trigger.
        cap = os.path.join(tmp, "etmv2.e2c")
        with open(cap, "w") as f:
            f.write(ETMV2_CAPTURE)
        c.run(["packets", cap, "--protocol", "etmv2", "--json"], "packets",
              "hand-made ETMv2 capture packets")
        c.run(["packets", cap, "--protocol", "etmv2", "--json"], "packets-etmv2",
              "hand-made ETMv2 capture packets")
    if "frame_error" not in c.seen.get("packets", set()):
        c.fail("the damaged example gave no frame_error record")

    testdata = os.path.join(a.shared, "testdata") if a.shared else None
    if testdata and os.path.isdir(testdata):
        for rel in SHARED:
            snap = os.path.join(testdata, rel)
            if not os.path.isdir(snap):
                c.fail("%s: not found" % snap)
                continue
            c.run(["packets", "--snapshot", snap, "--json"], "packets", rel + " packets")
            c.run(["decode", "--snapshot", snap, "--json"], "elements", rel + " decode")
            c.run(["decode", "--snapshot", snap, "--json", "--ranges"],
                  "elements", rel + " decode --ranges")
        # A perf.data recording with TRUNCATED AUX records: `gap` records
        # and elements of reason aux_truncated (perf-data.md 3.7).
        perf = os.path.join(testdata, "perf", "perf_kernel.data")
        if os.path.isfile(perf):
            c.run(["packets", perf, "--json"], "packets", "perf_kernel.data packets")
            c.run(["decode", perf, "--json"], "elements", "perf_kernel.data decode")
        # An ELF file for the recording's program: "dso" members.
        perf = os.path.join(testdata, "perf", "perf_etm.data")
        prog = os.path.join(testdata, "perf", "etm_test_loop")
        if os.path.isfile(perf) and os.path.isfile(prog):
            c.run(["decode", perf, "--elf", prog + "@0x582b2b0000", "--json"],
                  "elements", "perf_etm.data decode --elf")
    else:
        print("note: no shared captures (%s): examples only" % testdata)

    c.strictness()
    for schema in ("packets", "elements"):
        key = "kind" if schema == "elements" else "type"
        names = set()
        for f in (("packets-etmv3", "packets-ptm", "packets-etmv4", "packets-etmv2")
                  if schema == "packets"
                  else (schema,)):
            names |= set(ej.schema(f)["properties"][key]["enum"])
        seen = c.seen.get(schema, set())
        print("     %s kinds seen: %s" % (schema, " ".join(sorted(seen))))
        print("     %s kinds no input gave: %s" % (schema, " ".join(sorted(names - seen))))
    print("%d records checked, %d failures" % (c.records, c.bad))
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main())
