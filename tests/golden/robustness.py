#!/usr/bin/env python3
"""Run `etmkit packets`, `etmkit frames` and `etmkit decode` on damaged
inputs (damaged program images too): random bytes,
truncated and bit-flipped captures, all-0xFF, all-0x00 and empty files,
broken .ini files, bad options, for ETMv3 and for ETMv4/ETE (bad TRC*
register values in snapshots and on the command line, unknown protocols,
registers of the other protocol family). Every run must end by itself within the time
limit, with an exit status below 128 (no signal), no sanitizer report, and a
message on stderr whenever the status is not 0, and with --json every line
it wrote matching its schema (docs/schema/, records of damaged input too).

Inputs: the shipped example snapshot, and the TC2, ete_spec_1 and
juno_r1_1 captures from ../shared/testdata when present (said so when
not)."""
import argparse
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import msg_style  # noqa: E402  (the one style of etmkit's messages)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)
from snapshot_files import buffer_file, copy_snapshot, ete_registers  # noqa: E402  (same folder)

TIMEOUT = 60


class Runner:
    def __init__(self, etmkit):
        self.etmkit = etmkit
        self.passed = 0
        self.failed = 0

    def run(self, args, what, expect=None):
        try:
            p = subprocess.run([self.etmkit] + args, capture_output=True,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return self.fail(what, "did not end within %d s" % TIMEOUT)
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode < 0 or p.returncode >= 128:
            return self.fail(what, "killed or crashed: status %d\n%s" % (p.returncode, err[-2000:]))
        if "Sanitizer" in err or "runtime error:" in err:
            return self.fail(what, "sanitizer report:\n" + err[-3000:])
        if p.returncode != 0 and not err.strip():
            return self.fail(what, "status %d with nothing on stderr" % p.returncode)
        bad = msg_style.problems(err)
        if bad:
            return self.fail(what, "message style: " + "; ".join(bad[:3]))
        if expect is not None and p.returncode not in expect:
            return self.fail(what, "status %d, expected one of %s; stderr: %s"
                             % (p.returncode, expect, err.strip()))
        if "--json" in args and args[0] in ("packets", "decode") and p.returncode < 2:
            kind = "packets" if args[0] == "packets" else "elements"
            try:
                etmkit_json.lines(p.stdout.decode("utf-8", "replace"), kind)
            except (etmkit_json.SchemaMismatch, ValueError) as e:
                return self.fail(what, str(e)[:2000])
        self.passed += 1
        return p

    def fail(self, what, why):
        print("FAIL %s: %s" % (what, why))
        self.failed += 1
        return None


def damage_buffers(r, snap, work, tag, rng, ids):
    """Truncations, bit flips and replacements of a snapshot's buffer."""
    data = open(buffer_file(snap), "rb").read()
    s = copy_snapshot(snap, os.path.join(work, tag))
    buf = buffer_file(s)
    cuts = sorted(set([0, 1, 15, 16, 17, len(data) - 1] +
                      [rng.randrange(len(data)) for _ in range(24)]))
    variants = [("cut%d" % c, data[:c]) for c in cuts if 0 <= c <= len(data)]
    for k in range(16):
        b = bytearray(data)
        for _ in range(rng.choice([1, 4, 64])):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        variants.append(("flip%d" % k, bytes(b)))
    variants += [("ff", b"\xff" * len(data)), ("zero", b"\x00" * len(data)),
                 ("empty", b""),
                 ("random", bytes(rng.randrange(256) for _ in range(len(data))))]
    for name, blob in variants:
        with open(buf, "wb") as f:
            f.write(blob)
        for i in ids:
            r.run(["packets", "--snapshot", s, "--id", i], "%s/%s packets %s" % (tag, name, i), expect=(0, 1))
            r.run(["packets", "--snapshot", s, "--id", i, "--json"], "%s/%s json %s" % (tag, name, i), expect=(0, 1))
            r.run(["packets", "--snapshot", s, "--id", i, "--stop-on-error"],
                  "%s/%s stop %s" % (tag, name, i), expect=(0, 1))
            r.run(["decode", "--snapshot", s, "--id", i], "%s/%s decode %s" % (tag, name, i),
                  expect=(0, 1))
            r.run(["decode", "--snapshot", s, "--id", i, "--json", "--stop-on-error"],
                  "%s/%s decode json stop %s" % (tag, name, i), expect=(0, 1))
        r.run(["frames", "--snapshot", s, "--summary"], "%s/%s frames" % (tag, name), expect=(0, 1))
    for mode in ("coresight", "tpiu", "tpiu-hsync", "none"):
        for name, blob in variants[-4:] + variants[:3]:
            with open(buf, "wb") as f:
                f.write(blob)
            r.run(["packets", buf, "--protocol", "etmv3", "--etmcr", "0x1000d00c",
                   "--etmidr", "0x410cf250", "--etmccer", "0x344008f2",
                   "--frames", mode, "--id", ids[0]], "%s/%s raw %s" % (tag, name, mode), expect=(0, 1))


def packet_boundaries(r, snap, work, tag, sid, limit):
    """Cut the buffer at the first byte of each of the first @limit packets
    of source @sid (as etmkit reports them), and decode each cut."""
    p = r.run(["packets", "--snapshot", snap, "--id", sid, "--json"], tag + " sample", expect=(0, 1))
    if p is None:
        return
    offs = [r["offset"] for r in etmkit_json.lines(p.stdout.decode(), "packets")][:limit]
    s = copy_snapshot(snap, os.path.join(work, tag + "-cuts"))
    buf = buffer_file(s)
    data = open(buffer_file(snap), "rb").read()
    for off in sorted(set(offs)):
        with open(buf, "wb") as f:
            f.write(data[:off])
        r.run(["packets", "--snapshot", s, "--id", sid, "--json"],
              "%s cut at packet offset %d" % (tag, off), expect=(0, 1))
        r.run(["decode", "--snapshot", s, "--id", sid, "--json"],
              "%s decode cut at packet offset %d" % (tag, off), expect=(0, 1))


def every_kind(r, shared, work, rng):
    """Every snapshot under testdata, whatever its protocol: damaged
    buffers and damaged .ini files must end cleanly (those this version
    does not decode end with status 3 and say why)."""
    root = os.path.join(shared, "testdata")
    for dp, dn, fn in sorted(os.walk(root)):
        if "snapshot.ini" not in fn:
            continue
        tag = os.path.relpath(dp, root).replace("/", "_")
        s = copy_snapshot(dp, os.path.join(work, "kind-" + tag))
        r.run(["packets", "--snapshot", s], tag + " packets", expect=(0, 1, 3))
        r.run(["frames", "--snapshot", s, "--summary"], tag + " frames", expect=(0, 1, 3))
        r.run(["decode", "--snapshot", s], tag + " decode", expect=(0, 1, 3))
        try:
            buf = buffer_file(s)
        except SystemExit:
            continue
        if not os.path.isfile(buf):
            continue
        data = open(buf, "rb").read()
        for name, blob in (("cut", data[:rng.randrange(len(data) + 1)]), ("ff", b"\xff" * 4096),
                           ("empty", b""), ("flip", bytes(b ^ (1 << rng.randrange(8)) if rng.random() < 0.01 else b
                                                          for b in data[:65536]))):
            with open(buf, "wb") as f:
                f.write(blob)
            r.run(["packets", "--snapshot", s], "%s/%s packets" % (tag, name), expect=(0, 1, 3))
            r.run(["frames", "--snapshot", s, "--summary"], "%s/%s frames" % (tag, name), expect=(0, 1, 3))
            r.run(["decode", "--snapshot", s, "--json"], "%s/%s decode" % (tag, name), expect=(0, 1, 3))
        for n in sorted(os.listdir(s)):
            if n.endswith(".ini") and n not in ("snapshot.ini",):
                p = os.path.join(s, n)
                text = open(p, "rb").read()
                with open(p, "wb") as f:
                    f.write(text[:len(text) // 2] + bytes(rng.randrange(256) for _ in range(40)))
                r.run(["packets", "--snapshot", s], "%s/junk-%s" % (tag, n), expect=(0, 1, 3))
                with open(p, "wb") as f:
                    f.write(text)


def damage_ini(r, snap, work, rng):
    """Broken .ini files: each must give a clear error (status 3)."""
    def case(name, edit, expect=(3,)):
        s = copy_snapshot(snap, os.path.join(work, "ini-" + name))
        edit(s)
        p = r.run(["packets", "--snapshot", s], "ini/" + name, expect=expect)
        if p is not None and name != "nodir":
            err = p.stderr.decode()
            if ".ini" not in err and "snapshot" not in err and s not in err:
                r.fail("ini/" + name, "message names no file: " + err)

    def rewrite(path, fn):
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(fn(text))

    def etm_ini(s):
        for n in sorted(os.listdir(s)):
            if n.endswith(".ini") and "ETMCR" in open(os.path.join(s, n)).read():
                return os.path.join(s, n)

    case("no-etmcr", lambda s: rewrite(etm_ini(s), lambda t: "\n".join(
        l for l in t.splitlines() if not l.startswith("ETMCR"))))
    case("bad-number", lambda s: rewrite(etm_ini(s), lambda t: t.replace("ETMIDR(0x079)=0x", "ETMIDR(0x079)=0xZZ")))
    case("junk-device", lambda s: open(etm_ini(s), "wb").write(bytes(rng.randrange(256) for _ in range(300))))
    case("junk-snapshot", lambda s: open(os.path.join(s, "snapshot.ini"), "wb").write(b"\x00\xff[[[\n=\x01"))
    case("junk-trace", lambda s: open(os.path.join(s, "trace.ini"), "wb").write(b"[trace_buffers\nbuffers\n"))
    case("no-snapshot-ini", lambda s: os.remove(os.path.join(s, "snapshot.ini")))
    case("no-device-file", lambda s: os.remove(etm_ini(s)))
    case("no-buffer-file", lambda s: os.remove(buffer_file(s)))
    case("empty-trace-ini", lambda s: open(os.path.join(s, "trace.ini"), "w").close())
    case("bad-format", lambda s: rewrite(os.path.join(s, "trace.ini"), lambda t: t.replace("format=coresight", "format=wobble")))
    # One source left undecodable: the other is still listed (status 0),
    # with a note naming the skipped one.
    case("unknown-types", lambda s: rewrite(etm_ini(s), lambda t: t.replace("type=ETM3", "type=XYZ3")),
         expect=(0,))
    case("not-etmv3-idr", lambda s: rewrite(etm_ini(s), lambda t: t.replace("ETMIDR(0x079)=0x41", "ETMIDR(0x079)=0x40").replace("F250", "F050").replace("f250", "f050")))
    r.run(["packets", "--snapshot", os.path.join(work, "does-not-exist")], "ini/nodir", expect=(3,))


def damage_image(r, snap, work, rng):
    """The program image: dumps cut, emptied, missing, described longer than
    the file, overwritten with junk; files named on the command line that
    are no ELF or cannot be read. Damaged code decodes (maybe to gaps);
    unreadable images are input errors (status 3) naming the file."""
    def dump_of(s):
        for n in sorted(os.listdir(s)):
            p = os.path.join(s, n)
            if n.endswith(".ini") and "[dump]" in open(p, errors="replace").read():
                for line in open(p):
                    if line.startswith("file="):
                        return p, os.path.join(s, line.strip()[5:])
        raise SystemExit("no [dump] in " + s)

    def case(name, edit, expect, extra=()):
        s = copy_snapshot(snap, os.path.join(work, "img-" + name))
        ini, dump = dump_of(s)
        edit(ini, dump)
        p = r.run(["decode", "--snapshot", s] + list(extra), "image/" + name, expect=expect)
        if p is not None and p.returncode == 3 and os.path.basename(dump).encode() not in p.stderr \
                and not extra:
            r.fail("image/" + name, "the message does not name the dump: " + p.stderr.decode())

    def write(path, data):
        with open(path, "wb") as f:
            f.write(data)

    def junk(ini, dump):
        data = bytearray(open(dump, "rb").read())
        for _ in range(len(data) // 8):
            data[rng.randrange(len(data))] = rng.randrange(256)
        write(dump, bytes(data))

    def longer(ini, dump):
        text = open(ini).read()
        write(ini, re.sub(r"length=\S+", "length=0x7fffffff", text).encode())

    case("junk-code", junk, expect=(0, 1))
    case("cut-code", lambda i, d: write(d, open(d, "rb").read()[:37]), expect=(3,))
    case("empty-code", lambda i, d: write(d, b""), expect=(3,))
    # An unreadable dump file is left out with a warning (its addresses
    # become no_image), as OpenCSD does; a damaged one is an error.
    case("missing-code", lambda i, d: os.remove(d), expect=(0, 1))
    case("longer-than-file", longer, expect=(3,))
    case("dir-as-code", lambda i, d: (os.remove(d), os.mkdir(d)), expect=(0, 1))
    notelf = os.path.join(work, "notelf.bin")
    write(notelf, bytes(rng.randrange(256) for _ in range(300)))
    case("elf-junk", lambda i, d: None, expect=(3,), extra=["--elf", notelf])
    case("elf-missing", lambda i, d: None, expect=(3,),
         extra=["--elf", os.path.join(work, "no-such.elf")])
    case("image-missing", lambda i, d: None, expect=(3,),
         extra=["--image", os.path.join(work, "no-such.bin") + "@0x8000"])
    case("image-ok", lambda i, d: None, expect=(0,), extra=["--image", notelf + "@0x40000"])
    for args in (["--image", notelf], ["--image", "@0x10"], ["--image", notelf + "@zz"],
                 ["--elf", "@5"]):
        r.run(["decode", "--snapshot", snap] + args, "image usage " + " ".join(args), expect=(2,))


def bad_usage(r, snap):
    for args in (["packets"], ["packets", "--bogus"], ["packets", "--snapshot"],
                 ["packets", "--snapshot", snap, "--id", "0x80"],
                 ["packets", "--snapshot", snap, "--id", "zz"],
                 ["packets", "x.bin", "--protocol", "etmv4"],
                 ["packets", "x.bin", "--protocol", "etmv3", "--etmcr", "1"],
                 ["packets", "x.bin", "--protocol", "etmv3", "--etmcr", "0x1", "--etmidr", "0x41", "--id", "1"],
                 ["packets", "x.bin", "--frames", "weird"],
                 ["frames"], ["frames", "--wat"], ["nonsense"], [],
                 ["decode"], ["decode", "--json", "--bogus"],
                 ["decode", "x.bin", "--protocol", "etmv3"],
                 ["decode", "--snapshot", snap, "--image"]):
        r.run(args, "usage " + " ".join(args), expect=(2,))
    r.run(["packets", "--snapshot", snap, "--id", "0x33"], "usage absent id", expect=(3,))
    for args in (["help"], ["packets", "--help"], ["frames", "--help"], ["decode", "--help"],
                 ["version"]):
        p = r.run(args, "help " + " ".join(args), expect=(0,))
        if p is not None and not p.stdout.strip():
            r.fail("help " + " ".join(args), "printed nothing")


def damage_ete(r, snap, work, rng, sid):
    """A small ETE capture (unformatted): every truncation, bit flips,
    replacements; listed from the snapshot and as a raw file with its own
    and with the default registers. decode is run too: it must end cleanly
    whatever it makes of ETE."""
    data = open(buffer_file(snap), "rb").read()
    s = copy_snapshot(snap, os.path.join(work, "ete"))
    buf = buffer_file(s)
    regs = ete_registers(snap)
    variants = [("cut%d" % c, data[:c]) for c in range(len(data) + 1)]
    for k in range(24):
        b = bytearray(data)
        for _ in range(rng.choice([1, 2, 8])):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        variants.append(("flip%d" % k, bytes(b)))
    variants += [("ff", b"\xff" * len(data)), ("zero", b"\x00" * len(data)),
                 ("random", bytes(rng.randrange(256) for _ in range(len(data)))),
                 # A-sync, then every header byte once
                 ("headers", b"\x00" * 11 + b"\x80" + bytes(range(256)))]
    for name, blob in variants:
        with open(buf, "wb") as f:
            f.write(blob)
        tag = "ete/" + name
        r.run(["packets", "--snapshot", s, "--json"], tag + " json", expect=(0, 1))
        if name.startswith("cut") and int(name[3:]) % 8:
            continue  # the other runs on every 8th cut only
        r.run(["packets", "--snapshot", s, "--id", sid, "--stats"], tag + " text", expect=(0, 1))
        r.run(["packets", "--snapshot", s, "--stop-on-error"], tag + " stop", expect=(0, 1))
        r.run(["packets", buf, "--protocol", "ete", "--frames", "none"] + regs,
              tag + " raw", expect=(0, 1))
        r.run(["packets", buf, "--protocol", "ete", "--frames", "none", "--json"],
              tag + " raw defaults", expect=(0, 1))
        r.run(["packets", buf, "--protocol", "etmv4", "--frames", "none"],
              tag + " raw as etmv4", expect=(0, 1))
        r.run(["decode", "--snapshot", s, "--json"], tag + " decode", expect=(0, 1, 3))


def damage_ptm(r, snap, work, rng):
    """A PTM capture (tc2-ptm-rstk-t32: PFTv1.1, unformatted): cuts, bit
    flips, replacements and every header byte; listed from the snapshot and
    as a raw file, text, JSON, --stats and --stop-on-error, and decoded
    with the snapshot's image; and the PTM register options' usage
    errors."""
    data = open(buffer_file(snap), "rb").read()[:4096]
    s = copy_snapshot(snap, os.path.join(work, "ptm"))
    buf = buffer_file(s)
    regs = ["--protocol", "ptm", "--frames", "none", "--etmcr", "0x20000400",
            "--etmidr", "0x411CF312", "--etmccer", "0x34C01AC2"]
    # The registers of the device file given as options: the same listing
    # as from the snapshot (the raw file's source is --id's).
    with open(buf, "wb") as f:
        f.write(data)
    snap_out = r.run(["packets", "--snapshot", s, "--json"], "ptm/intact json", expect=(0,))
    raw_out = r.run(["packets", buf, "--id", "0x02"] + regs + ["--json"], "ptm/intact raw json",
                    expect=(0,))
    if snap_out is not None and raw_out is not None and (
            snap_out.stdout != raw_out.stdout or len(snap_out.stdout) < 10000):
        r.fail("ptm/intact raw json", "--protocol ptm with the device's registers lists "
               "other records than the snapshot")
    variants = [("cut%d" % c, data[:c]) for c in
                sorted(set([0, 1, 5, 6, 7] + [rng.randrange(len(data)) for _ in range(24)]))]
    for k in range(16):
        b = bytearray(data)
        for _ in range(rng.choice([1, 2, 8, 64])):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        variants.append(("flip%d" % k, bytes(b)))
    variants += [("ff", b"\xff" * len(data)), ("zero", b"\x00" * len(data)),
                 ("random", bytes(rng.randrange(256) for _ in range(len(data)))),
                 # A-sync, an I-sync, then every header byte once
                 ("headers", b"\x00" * 5 + b"\x80" + bytes([8, 0, 0, 0, 0x80, 0x61]) +
                  bytes(range(256)))]
    for name, blob in variants:
        with open(buf, "wb") as f:
            f.write(blob)
        tag = "ptm/" + name
        r.run(["packets", "--snapshot", s, "--json"], tag + " json", expect=(0, 1))
        r.run(["packets", "--snapshot", s, "--stats"], tag + " text", expect=(0, 1))
        r.run(["packets", "--snapshot", s, "--stop-on-error"], tag + " stop", expect=(0, 1))
        r.run(["packets", buf] + regs, tag + " raw", expect=(0, 1))
        r.run(["packets", buf] + regs[:-2] + ["--etmcr", "0x7000d100"],
              tag + " raw cycle-accurate, 4-byte context IDs, VMID", expect=(0, 1))
        r.run(["decode", "--snapshot", s, "--json"], tag + " decode", expect=(0, 1))
        r.run(["decode", "--snapshot", s, "--ranges", "--stop-on-error"],
              tag + " decode ranges stop", expect=(0, 1))
    raw = ["packets", buf, "--frames", "none"]

    def usage(args, what, needle):
        p = r.run(args, what, expect=(2,))
        if p is not None and needle not in p.stderr.decode():
            r.fail(what, "message does not say %r: %s" % (needle, p.stderr.decode().strip()))

    usage(raw + ["--protocol", "ptm", "--etmcr", "0"], "ptm usage no etmidr", "--etmidr")
    usage(raw + ["--protocol", "ptm", "--etmcr", "0", "--etmidr", "0x410cf250"],
          "ptm usage etmv3 etmidr", "ETMIDR[11:8] must be 3")
    usage(raw + regs[:-2] + ["--trcidr0", "1"], "ptm usage trcidr0 with ptm", "--trcidr0")
    usage(raw + regs[:-2] + ["--m-profile"], "ptm usage m-profile with ptm", "--m-profile")
    r.run(["decode", buf] + regs + ["--image", buf + "@0x80000000"],
          "ptm decode raw with an image", expect=(0, 1))


def ptm_raw_as_snapshot(r, tc2):
    """TC2's PTM 0x13 from the framed buffer with --protocol ptm and its
    device file's registers (timestamps: ETMCCER's 64-bit binary form):
    the snapshot's listing."""
    regs = ["--protocol", "ptm", "--id", "0x13", "--etmcr", "0x10001000",
            "--etmidr", "0x411CF312", "--etmccer", "0x34C01AC2", "--json"]
    snap = r.run(["packets", "--snapshot", tc2, "--id", "0x13", "--json"], "tc2 ptm json",
                 expect=(0,))
    raw = r.run(["packets", buffer_file(tc2)] + regs, "tc2 ptm raw json", expect=(0,))
    if snap is not None and raw is not None and (
            snap.stdout != raw.stdout or b'"timestamp"' not in snap.stdout):
        r.fail("tc2 ptm raw json", "--protocol ptm with the device's registers lists other "
               "records than the snapshot")


def damage_etm4_framed(r, snap, work, rng):
    """An ETMv4 CoreSight-formatted capture: cuts and bit flips, from the
    snapshot and as a raw framed file."""
    data = open(buffer_file(snap), "rb").read()
    s = copy_snapshot(snap, os.path.join(work, "etm4-framed"))
    buf = buffer_file(s)
    variants = [("cut%d" % c, data[:c]) for c in
                sorted(set([1, 15, 16, 17] + [rng.randrange(len(data)) for _ in range(6)]))]
    for k in range(6):
        b = bytearray(data)
        for _ in range(rng.choice([1, 16, 256])):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        variants.append(("flip%d" % k, bytes(b)))
    for name, blob in variants:
        with open(buf, "wb") as f:
            f.write(blob)
        tag = "etm4-framed/" + name
        r.run(["packets", "--snapshot", s, "--json"], tag + " json", expect=(0, 1))
        r.run(["packets", "--snapshot", s, "--id", "0x10", "--stop-on-error"], tag + " stop",
              expect=(0, 1))
        r.run(["packets", buf, "--protocol", "etmv4", "--id", "0x10"], tag + " raw", expect=(0, 1))


def etm4_bad_registers(r, ete_snap, work):
    """ETMv4/ETE registers: bad values on the command line (usage errors,
    status 2, or decoded: 0/1) and in device files (status 3 naming the
    file, or decoded)."""
    buf = buffer_file(ete_snap)
    raw = ["packets", buf, "--frames", "none"]

    def usage(args, what, needle):
        p = r.run(args, what, expect=(2,))
        if p is not None and needle not in p.stderr.decode():
            r.fail(what, "message does not say %r: %s" % (needle, p.stderr.decode().strip()))

    usage(raw + ["--protocol", "etmv5"], "etm4 usage unknown protocol",
          "etmv3, ptm, etmv4, ete or etmv2")
    usage(raw + ["--protocol", "ETE"], "etm4 usage protocol case", "--protocol")
    usage(raw + ["--protocol", "ete", "--etmcr", "0x1000"], "etm4 usage etmcr with ete", "--etmcr")
    usage(raw + ["--protocol", "etmv4", "--etmidr", "0x410cf250", "--etmccer", "0"],
          "etm4 usage etmidr with etmv4", "--etmidr")
    usage(raw + ["--protocol", "etmv3", "--etmcr", "0", "--etmidr", "0x410cf250",
                 "--trcidr0", "1"], "etm4 usage trcidr0 with etmv3", "--trcidr0")
    usage(raw + ["--protocol", "ete", "--m-profile"], "etm4 usage m-profile with ete", "--m-profile")
    usage(raw + ["--protocol", "ete", "--trcidr0", "zz"], "etm4 usage bad number", "--trcidr0")
    usage(raw + ["--protocol", "ete", "--trcidr2", "0x100000000"], "etm4 usage 33 bits", "--trcidr2")
    usage(raw + ["--protocol", "ete", "--trcdevarch", "0x47704a13"], "etm4 usage ete devarch v4",
          "ETE")
    usage(raw + ["--protocol", "etmv4", "--trcidr1", "0"], "etm4 usage etmv4 idr1 0", "ETMv4")
    usage(raw + ["--protocol", "etmv4", "--trcidr1", "0x4100F403", "--buffer", "ETB_1"],
          "etm4 usage buffer with raw file", "--buffer")
    usage(["packets", buf, "--protocol", "etmv4"], "etm4 usage framed without id", "--id")
    # Odd but well-formed values: decoded, or refused with a message.
    for reg, val in (("trcidr0", "0xffffffff"), ("trcidr0", "0"), ("trcidr2", "0xffffffff"),
                     ("trcidr2", "0"), ("trcidr8", "0xffffffff"), ("trcconfigr", "0xffffffff"),
                     ("trcdevarch", "0x47735a13"), ("trcdevarch", "0x477f5a13")):
        for proto in ("ete", "etmv4"):
            r.run(raw + ["--protocol", proto, "--" + reg, val], "etm4 %s %s=%s" % (proto, reg, val),
                  expect=(0, 1, 2))
    p = r.run(["packets", "--snapshot", ete_snap, "--buffer", "NO_SUCH"], "etm4 unknown buffer",
              expect=(3,))
    if p is not None and "NO_SUCH" not in p.stderr.decode():
        r.fail("etm4 unknown buffer", "message does not name the buffer")

    def ete_ini(s):
        for n in sorted(os.listdir(s)):
            if n.endswith(".ini") and "type=ETE" in open(os.path.join(s, n)).read():
                return os.path.join(s, n)

    def case(name, edit, expect, needle=None):
        s = copy_snapshot(ete_snap, os.path.join(work, "ete-ini-" + name))
        path = ete_ini(s)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(edit(text))
        p = r.run(["packets", "--snapshot", s], "ete-ini/" + name, expect=expect)
        if p is not None and p.returncode == 3:
            err = p.stderr.decode()
            if os.path.basename(path) not in err or (needle and needle not in err):
                r.fail("ete-ini/" + name, "message names no file or register: " + err)

    def drop(reg):
        return lambda t: "\n".join(l for l in t.splitlines() if not l.startswith(reg + "="))

    for reg in ("TRCIDR0", "TRCIDR1", "TRCIDR2", "TRCIDR8", "TRCCONFIGR", "TRCTRACEIDR"):
        case("no-" + reg, drop(reg), (3,), reg)
    case("wide-TRCIDR2", lambda t: re.sub(r"TRCIDR2=\S+", "TRCIDR2=0x1d0001088", t), (3,), "TRCIDR2")
    case("junk-TRCIDR0", lambda t: re.sub(r"TRCIDR0=\S+", "TRCIDR0=0xZZ", t), (3,))
    case("devarch-v4", lambda t: re.sub(r"TRCDEVARCH=\S+", "TRCDEVARCH=0x47704a13", t), (3,),
         "TRCDEVARCH")
    # TRCDEVARCH is optional: absent or 0, the source is taken as ETE 1.0.
    case("devarch-0", lambda t: re.sub(r"TRCDEVARCH=\S+", "TRCDEVARCH=0", t), (0, 1))
    case("no-devarch", drop("TRCDEVARCH"), (0, 1))
    case("etmv4-type", lambda t: t.replace("type=ETE", "type=ETM4"), (0, 1, 3))
    for reg, val in (("TRCIDR0", "0xffffffff"), ("TRCIDR2", "0xffffffff"), ("TRCIDR2", "0"),
                     ("TRCIDR8", "0xffffffff"), ("TRCCONFIGR", "0xffffffff")):
        case("%s-%s" % (reg, val), lambda t, reg=reg, val=val: re.sub(reg + r"=\S+", reg + "=" + val, t),
             (0, 1, 3))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    rng = random.Random(20261122)
    os.makedirs(a.work, exist_ok=True)
    r = Runner(a.etmkit)
    here = os.path.dirname(os.path.abspath(__file__))
    example = os.path.join(here, "..", "..", "examples", "etmv3-two-sources")
    damage_buffers(r, example, a.work, "example", rng, ["0x10", "0x11"])
    packet_boundaries(r, example, a.work, "example", "0x10", 1000)
    packet_boundaries(r, example, a.work, "example", "0x11", 1000)
    damage_ini(r, example, a.work, rng)
    bad_usage(r, example)
    program = os.path.join(here, "..", "..", "examples", "etmv3-program")
    damage_buffers(r, program, a.work, "program", rng, ["0x10"])
    packet_boundaries(r, program, a.work, "program", "0x10", 1000)
    damage_image(r, program, a.work, rng)
    tc2 = os.path.join(a.shared, "testdata", "etmv3", "TC2")
    if os.path.isdir(tc2):
        damage_buffers(r, tc2, a.work, "tc2", rng, ["0x10"])
        damage_image(r, tc2, a.work, rng)
        packet_boundaries(r, tc2, a.work, "tc2", "0x10", 150)
        ptm_raw_as_snapshot(r, tc2)
        every_kind(r, a.shared, a.work, rng)
    elif os.environ.get("CI") == "true":
        r.fail("tc2", "%s is missing (needed in CI)" % tc2)
    else:
        print("note: %s not found: TC2 cases not run" % tc2)
    ete = os.path.join(a.shared, "testdata", "ete", "ete_spec_1")
    juno = os.path.join(a.shared, "testdata", "etmv4", "juno_r1_1")
    if os.path.isdir(ete) and os.path.isdir(juno):
        damage_ete(r, ete, a.work, rng, "0x1")
        etm4_bad_registers(r, ete, a.work)
        damage_etm4_framed(r, juno, a.work, rng)
    elif os.environ.get("CI") == "true":
        r.fail("etm4", "%s or %s is missing (needed in CI)" % (ete, juno))
    else:
        print("note: %s or %s not found: ETMv4/ETE cases not run" % (ete, juno))
    ptm = os.path.join(a.shared, "testdata", "ptm", "tc2-ptm-rstk-t32")
    if os.path.isdir(ptm):
        damage_ptm(r, ptm, a.work, rng)
    elif os.environ.get("CI") == "true":
        r.fail("ptm", "%s is missing (needed in CI)" % ptm)
    else:
        print("note: %s not found: PTM cases not run" % ptm)
    print("%d passed, %d failed" % (r.passed, r.failed))
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
