#!/usr/bin/env python3
"""Format coverage of the trace encoders: every packet form they can emit.

A corpus is generated with `etmkit encode`: the committed QEMU logs
(--logs, tests/data/qemu: tiny-a64-* for ETE and ETMv4, tiny-a32-* for
ETMv3, ETMv4 and ETE) and the hand-written execution records in --records
(tests/data/records) that force the rare forms, each under several
register set-ups. Every snapshot is listed with `etmkit packets --stats`,
whose "records by form" lines are summed per protocol, and decoded with
`etmkit decode --json`, which must report no gap, overflow or missing
code and give back the record's instructions exactly.

Then every form in FORMS (per protocol: the forms the encoders in
src/encode/ can emit, read from their sources) must have appeared at least
once, and no form outside it may appear: a form that disappears, or one
the list does not know, fails the test. NEVER lists the forms the encoders
never emit, and why.

Exit status: 0 every form seen, 1 a form missing or unexpected, a decode
error or a failed command.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import round_trip  # noqa: E402  (read_record, compare)
sys.path.insert(0, os.path.join(HERE, ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)

# ---- The forms ------------------------------------------------------------
# Names as `etmkit packets --stats` prints them (cli/packet_forms.c).

# ETMv3 (src/encode/etm3_enc.c; IHI 0014Q chapter 7).
ETM3_FORMS = [
    "a_sync",
    # P-headers, Table 7.2 (normal) and 7.3 (cycle-accurate).
    "p_header format=1", "p_header format=2",
    "p_header cycle_accurate format=1", "p_header cycle_accurate format=2",
    "p_header cycle_accurate format=3", "p_header cycle_accurate format=4",
    # I-sync with and without context ID; with a cycle count (0x70) for
    # the non-periodic ones of cycle-accurate trace.
    "i_sync", "i_sync context_id", "i_sync_cycle", "i_sync_cycle context_id",
    "context_id bytes=1", "context_id bytes=2", "context_id bytes=4",
    "vmid", "timestamp",
]
# Branch addresses (7.3.5), original and alternative (alt) encodings: 1 to
# 5 address bytes; 5 bytes when the instruction set changes (ARM, Thumb,
# ThumbEE by AltISA, Jazelle) or, in the original encoding, with exception
# information; exception information byte 0 for an exception or a change
# of NS or AltISA, byte 1 too when Hyp is or was set.
for _enc in ("", "alt "):
    ETM3_FORMS += [f"branch_address {_enc}bytes={n}" for n in range(1, 5)]
    ETM3_FORMS += [f"branch_address {_enc}bytes=5 isa={i}"
                   for i in ("arm", "thumb", "jazelle")]
    ETM3_FORMS += [f"branch_address {_enc}bytes=5 isa=thumb exc_bytes=1",
                   f"branch_address {_enc}bytes=5 isa=thumb exc_bytes=1 exception",
                   f"branch_address {_enc}bytes=5 isa=thumbee exc_bytes=1"]
ETM3_FORMS += [
    "branch_address bytes=5 isa=arm exc_bytes=1",
    "branch_address bytes=5 isa=arm exc_bytes=1 exception",
    "branch_address bytes=5 isa=arm exc_bytes=2",
    "branch_address bytes=5 isa=arm exc_bytes=2 exception",
    # The alternative encoding carries exception bytes after 2 to 4
    # address bytes (digest etmv3.md 4.5.2).
    "branch_address alt bytes=2 exc_bytes=1 exception",
    "branch_address alt bytes=3 exc_bytes=2",
    "branch_address alt bytes=3 exc_bytes=2 exception",
    "branch_address alt bytes=4 exc_bytes=1",
    "branch_address alt bytes=4 exc_bytes=1 exception",
]

# ETMv4 (src/encode/ete_enc.c; digest etmv4-ete.md 5).
ETM4_FORMS = [
    "a_sync", "trace_on",
    # Trace Info: no sections, or INFO and CYCT with cycle counting.
    "trace_info sections=none", "trace_info sections=info,cyct",
    "timestamp",
    "exception bytes=2",
    # Cycle counts at commit points, commit mode 1 (TRCIDR0.COMMOPT).
    "cycle_count format=1", "cycle_count format=1 unknown",
    "cycle_count format=2", "cycle_count format=3",
    "commit",
    # Synthesized mis-speculation (--mispredict-every, --cancel-every).
    "cancel format=1", "cancel format=1 mispredict",
    "cancel format=2 atoms=E", "cancel format=2 atoms=N",
    "cancel format=3", "cancel format=3 atoms=E",
    "mispredict", "mispredict atoms=E", "mispredict atoms=N",
    "context updated", "context updated context_id",
    "context updated vmid context_id",
    "address exact hist=0", "address exact hist=1", "address exact hist=2",
    "address short is=0 bits=9", "address short is=0 bits=17",
    "address short is=1 bits=8", "address short is=1 bits=16",
    "address long32 is=0", "address long32 is=1", "address long64 is=0",
    "address_context long32 is=0", "address_context long32 is=1",
    "address_context long64 is=0",
    "address_context long32 is=0 context_id",
    "address_context long32 is=1 context_id",
    "address_context long64 is=0 context_id",
    "address_context long32 is=0 vmid context_id",
    "address_context long32 is=1 vmid context_id",
    "address_context long64 is=0 vmid context_id",
] + [f"atom format={n}" for n in range(1, 7)]

# ETE: ETMv4's, and timestamp markers (TRCIDR0.TSMARK, ETE 1.1) and the
# three-byte Exception packet of a PE reset (no address).
ETE_FORMS = ETM4_FORMS + ["ts_marker", "exception bytes=3"]

FORMS = {"etmv3": ETM3_FORMS, "etmv4": ETM4_FORMS, "ete": ETE_FORMS}

# Forms the encoders never emit (documentation: not checked). Not every
# combination of a branch address's parts is listed above (a Hyp handler
# in Thumb code would be "bytes=5 isa=thumb exc_bytes=2 exception"): each
# part's encoding is, and a combination the corpus starts to make fails
# the test until it is added.
NEVER = {
    "etmv3": [
        ("p_header cycle_accurate format=0", "ETMv3.0 only; one W is "
         "format 3 with one W"),
        ("cycle_count", "the cycle count of a trace restart goes in the "
         "I-sync (0x70)"),
        ("i_sync lsip, i_sync data_only, data packets",
         "data trace is not encoded (alloc refuses it)"),
        ("branch_address ... cancel / resume / legacy_exception",
         "no instruction is cancelled; resume is ARMv7-M (refused); the "
         "deprecated exception-in-address form is never chosen"),
        ("exception_entry, exception_exit", "ARMv7-M only (refused)"),
        ("trigger, ignore", "no trigger or ignore items in a record"),
        ("timestamp clock_change", "a record has no clock changes"),
        ("branch_address bytes=5 isa=thumbee exc_bytes=1 exception",
         "no exception is taken to a ThumbEE handler"),
    ],
    "etmv4": [
        ("context unchanged", "a Context packet is sent only when the "
         "context changed, so always with its payload (0x81)"),
        ("address long64 is=1, address_context long64 is=1",
         "an AArch32 (IS1) address fits the 32-bit form; only "
         "ETE_ENC_NO_COMPRESS, which the CLI does not set, forces it"),
        ("address_context ... vmid (no context_id)", "the runs that "
         "trace the VMID also trace the context ID"),
        ("timestamp cycles", "timestamps never carry a cycle count (0x02)"),
        ("cycle_count ... commit", "commit mode 0 is refused with cycle "
         "counting (TRCIDR0.COMMOPT 1 needed)"),
        ("trace_info sections=key/spec/wndw", "everything is committed "
         "before a resync; no keys (data trace) or windows"),
        ("mispredict atoms=EE, cancel format=2 atoms=EE / no atoms",
         "the synthesized corrections use the other headers"),
        ("exception_return, function_return, discard, overflow, q, event,"
         " ignore, source_address, instrumentation, transaction_*, "
         "cond_*, data_sync", "not in an execution record, or the "
         "configuration is refused (return stack, conditional and data "
         "trace, Q)"),
        ("ts_marker (ETMv4, ETE 1.0)", "markers exist from ETE 1.1 "
         "(TRCDEVARCH revision 1); the encoder emits them whenever "
         "TRCIDR0.TSMARK is set, and the decoder rejects 0x88 before ETE "
         "1.1, so the corpus sets TSMARK only with ETE 1.1"),
    ],
}

# ---- The corpus -----------------------------------------------------------

ETM4_OPTS = [
    [],
    ["--preset", "spec,cycles,timestamps", "--trcconfigr", "0x8d0",
     "--timestamp-every", "7"],
    # Each synthesized correction takes the next of its forms (ete_enc.c
    # synth_mispredict(), synth_cancel()): one kind at a time, so that
    # every form comes round.
    ["--preset", "spec", "--mispredict-every", "2", "--cancel-every", "0"],
    ["--preset", "spec", "--mispredict-every", "0", "--cancel-every", "2"],
    ["--trcconfigr", "0", "--sync-period", "64"],
]
ETE_ONLY_OPTS = [
    # Timestamp markers: TRCIDR0.TSMARK, ETE 1.1 (TRCDEVARCH revision 1).
    ["--preset", "timestamps", "--trcidr0", "0x2881CEA1",
     "--trcdevarch", "0x47715A13", "--timestamp-every", "11"],
]
ETM3_LOG_OPTS = [
    [],
    ["--preset", "cycle-accurate,timestamps", "--timestamp-every", "7"],
    ["--preset", "alt-branch,branch-output", "--sync-period", "128"],
]
# --etmcr replaces the preset's ETMCR: [15:14] context ID size, [12]
# cycle-accurate, [28] timestamps, [30] VMID.
ETM3_REC_OPTS = [
    ["--etmcr", "0x5000C000"],
    ["--preset", "alt-branch", "--etmcr", "0x4000"],
    ["--etmcr", "0x8000", "--sync-period", "64"],
    ["--preset", "cycle-accurate"],
    ["--preset", "alt-branch", "--etmcr", "0x1000"],
    ["--etmcr", "0"],
]


def corpus(logs, records):
    """(protocol, --from-qemu or --from-record, path, options) cases."""
    cases = []
    for name in sorted(os.listdir(logs)):
        path = os.path.join(logs, name)
        if not name.endswith(".log"):
            continue
        if "a64" in name:
            protos = ["ete", "etmv4"]
        else:
            protos = ["etmv3", "ete", "etmv4"]
        for p in protos:
            opts = ETM3_LOG_OPTS if p == "etmv3" else ETM4_OPTS
            if p == "ete":
                opts = opts + ETE_ONLY_OPTS
            cases += [(p, "--from-qemu", path, o) for o in opts]
    for p, name in (("etmv3", "etm3-forms.rec"), ("ete", "ete-a64-forms.rec"),
                    ("etmv4", "ete-a64-forms.rec"),
                    ("ete", "ete-a32-forms.rec"),
                    ("etmv4", "ete-a32-forms.rec")):
        opts = ETM3_REC_OPTS if p == "etmv3" else ETM4_OPTS
        if p == "ete":
            opts = opts + ETE_ONLY_OPTS
        cases += [(p, "--from-record", os.path.join(records, name), o)
                  for o in opts]
    return cases


# ---- Running --------------------------------------------------------------

def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def parse_forms(stderr):
    """The "records by form" counts and the per-type total of each ID."""
    forms, totals, where = collections.Counter(), 0, None
    for line in stderr.splitlines():
        if line.startswith("id "):
            where = "forms" if line.endswith("records by form") else "types"
            if where == "types":
                totals += int(line.split()[2])
            continue
        if where == "forms" and line.startswith("  "):
            name, n = line.strip().rsplit(None, 1)
            forms[name] += int(n)
    return forms, totals


def check_decode(etmkit, snap, record, etm3, what):
    """No gap, overflow or missing code; the record's instructions."""
    p = run([etmkit, "decode", "--snapshot", snap, "--json"])
    if p.returncode != 0:
        return f"{what}: etmkit decode exit {p.returncode}: {p.stderr[:500]}"
    insns, bad = [], collections.Counter()
    try:
        elems = etmkit_json.lines(p.stdout, "elements", what)
    except etmkit_json.SchemaMismatch as e:
        return str(e)
    for e in elems:
        if e["kind"] == "insn":
            insns.append((etmkit_json.num(e["addr"]), e["size"], e["isa"], e["exec"]))
        elif e["kind"] in ("gap", "overflow", "no_image"):
            bad[e["kind"]] += 1
    if bad:
        return f"{what}: decode reports {dict(bad)}"
    if round_trip.compare(round_trip.read_record(record, etm3), insns, what):
        return f"{what}: decoded instructions differ from the record"
    return None


def one_case(etmkit, tmp, n, case, seen):
    proto, how, path, opts = case
    what = f"{os.path.basename(path)} {proto} {' '.join(opts)}".strip()
    snap = os.path.join(tmp, f"s{n}")
    record = path
    cmd = [etmkit, "encode", how, path, "--protocol", proto, "--out", snap]
    if how == "--from-qemu":
        record = os.path.join(tmp, f"r{n}.rec")
        cmd += ["--record-out", record]
    p = run(cmd + opts)
    if p.returncode != 0:
        return [f"{what}: etmkit encode exit {p.returncode}: {p.stderr}"]
    p = run([etmkit, "packets", "--snapshot", snap, "--stats"])
    if p.returncode != 0:
        return [f"{what}: etmkit packets exit {p.returncode}: "
                f"{p.stderr[-500:]}"]
    forms, total = parse_forms(p.stderr)
    errors = []
    if sum(forms.values()) != total or not total:
        errors.append(f"{what}: {total} records by type, "
                      f"{sum(forms.values())} by form")
    seen[proto].update(forms)
    bad = check_decode(etmkit, snap, record, proto == "etmv3", what)
    if bad:
        errors.append(bad)
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--logs", required=True, help="tests/data/qemu")
    ap.add_argument("--records", default=os.path.join(
        HERE, "..", "data", "records"), help="tests/data/records")
    a = ap.parse_args()
    seen = {p: collections.Counter() for p in FORMS}
    errors = []
    cases = corpus(a.logs, a.records)
    with tempfile.TemporaryDirectory() as tmp:
        for n, case in enumerate(cases):
            errors += one_case(a.etmkit, tmp, n, case, seen)
    for proto, want in FORMS.items():
        missing = [f for f in want if not seen[proto][f]]
        extra = sorted(set(seen[proto]) - set(want))
        print(f"{proto}: {len(want)} forms listed, "
              f"{len(want) - len(missing)} seen")
        for f in missing:
            errors.append(f"{proto}: form never emitted: {f}")
        for f in extra:
            errors.append(f"{proto}: form not in the list (add it, or find "
                          f"why it appears): {f} ({seen[proto][f]})")
    print(f"{len(cases)} snapshots")
    for e in errors:
        print("FAIL " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
