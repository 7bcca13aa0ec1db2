#!/usr/bin/env python3
"""Run etmkit's flow tests: tests/flow/*.ftt.

Each .ftt file describes one case, in the spirit of libipt's .ptt files:

    # what the case shows, with the spec sections it rests on
    config etmcr=0x... etmidr=0x... [etmccer=0x...] [m-profile]
    code 0x8000 arm          assembly, linked at 0x8000 (GNU as syntax;
      ...                    'arm' or 'thumb' selects the start state)
    end
    bytes 0x9000             raw bytes, hex
      10 05 a7 ...
    end
    trace                    packets, one per line (see PACKETS below)
      async
      isync 0x8000 arm reason=trace_on
      p EEN
    end
    expect                   the elements etmkit must report, compacted
      trace_on trace_enable 0x8000 arm
      ...
    end

The trace is encoded by tests/flow/etm3enc.py (written from IHI 0014Q, not
from etmkit's decoder), decoded by `etmkit decode --json`, and each element
is rendered as one compact line (render() below) and compared with the
expect block, which is written by hand from the specification.

Exit status: 0 all pass, 1 a failure, 77 the ARM assembler is missing
(a failure with CI=true).
"""
import argparse
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etm3enc  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import etmkit_json  # noqa: E402  (tests/etmkit_json.py: schema check of every record)

CROSS = "arm-linux-gnueabihf-"


def num(s):
    return int(s, 0)


# ---- Parsing ---------------------------------------------------------------

def parse(path):
    case = {"config": {}, "code": [], "bytes": [], "trace": [], "expect": []}
    block = None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            stripped = line.strip()
            if block is None:
                if not stripped or stripped.startswith("#"):
                    continue
                words = stripped.split()
                if words[0] == "config":
                    for w in words[1:]:
                        k, _, v = w.partition("=")
                        case["config"][k] = v if v else True
                elif words[0] in ("code", "bytes"):
                    block = (words[0], [num(words[1])] + words[2:], [])
                elif words[0] in ("trace", "expect"):
                    block = (words[0], [], [])
                else:
                    raise SystemExit(f"{path}:{lineno}: unknown line: {stripped}")
                continue
            if stripped == "end":
                kind, args, lines = block
                if kind in ("code", "bytes"):
                    case[kind].append((args, lines))
                else:
                    case[kind] = lines
                block = None
                continue
            # Comments inside blocks: '#' at the start (assembly keeps '@').
            if stripped and not stripped.startswith("#"):
                block[2].append((lineno, stripped if block[0] != "code" else line))
    if block is not None:
        raise SystemExit(f"{path}: block '{block[0]}' has no 'end'")
    return case


# ---- Image -----------------------------------------------------------------

def assemble(args, lines, work, idx):
    addr, mode = args[0], (args[1] if len(args) > 1 else "arm")
    src = os.path.join(work, f"code{idx}.s")
    obj = os.path.join(work, f"code{idx}.o")
    elf = os.path.join(work, f"code{idx}.elf")
    out = os.path.join(work, f"code{idx}.bin")
    with open(src, "w") as f:
        f.write("\t.syntax unified\n\t.arch armv7-a\n\t.arch_extension sec\n"
                "\t.arch_extension virt\n\t.fpu neon\n")
        f.write("\t.thumb\n" if mode == "thumb" else "\t.arm\n")
        f.write("\t.global _start\n_start:\n")
        for _, l in lines:
            f.write(l + "\n")
    subprocess.run([CROSS + "as", "-o", obj, src], check=True)
    subprocess.run([CROSS + "ld", "-o", elf, f"-Ttext=0x{addr:x}", "-e", "_start",
                    "--no-warn-rwx-segments", obj], check=True)
    subprocess.run([CROSS + "objcopy", "-O", "binary", "-j", ".text", elf, out],
                   check=True)
    return f"{out}@0x{addr:x}"


def raw_bytes(args, lines, work, idx):
    out = os.path.join(work, f"bytes{idx}.bin")
    data = bytes(int(b, 16) for _, l in lines for b in l.split())
    with open(out, "wb") as f:
        f.write(data)
    return f"{out}@0x{args[0]:x}"


# ---- Trace -----------------------------------------------------------------
# PACKETS (one per line; numbers decimal or 0x hex):
#   async
#   isync ADDR ISA [reason=R] [ns=1] [hyp=1] [cid=N] [cycles=N]
#         [lsip=ADDR:ISA [lsip_ns=N] [lsip_hyp=N]]   (ISA: arm thumb
#         thumbee jazelle; lsip_ns/lsip_hyp: the 6-byte current address
#         with exception bytes giving its security state)
#   isync_data [reason=R] [ns=1] [hyp=1] [cid=N]     data-only I-sync
#   p ATOMS                          one P-header, e.g. p EEN, p WEWN
#   branch ADDR [ISA] [bytes=N] [exc=N] [cancel=1] [ns=1] [hyp=1]
#          [altisa=1] [resume=N] [excbytes=1]   (excbytes: exception
#          bytes with exception 0, for a state change)
#   cc N                             cycle count packet
#   data [addr=A] [value=V] [size=S] [be=1]     normal data
#   placeholder TAG [addr=A]
#   ooo TAG VALUE [size=S]
#   vnt [addr=A]                     value not traced
#   store_failed | suppressed | trigger | ignore | exc_exit | exc_entry
#   ts VALUE [clock_change=1]
#   cid VALUE | vmid VALUE
#   hex BYTES...                     raw bytes


def kv(words):
    d = {}
    for w in words:
        k, _, v = w.partition("=")
        d[k] = v
    return d


def encode(case, enc):
    out = bytearray()
    for lineno, line in case["trace"]:
        w = line.split()
        op, rest = w[0], w[1:]
        try:
            if op == "async":
                out += enc.async_()
            elif op == "isync":
                o = kv(rest[2:])
                lsip = None
                if "lsip" in o:
                    a, _, i = o["lsip"].partition(":")
                    lsip = (num(a), i)
                    if "lsip_ns" in o or "lsip_hyp" in o:
                        lsip += ({"number": 0, "ns": int(o.get("lsip_ns", 0)),
                                  "hyp": int(o.get("lsip_hyp", 0)),
                                  "hyp_given": "lsip_hyp" in o},)
                out += enc.isync(num(rest[0]), rest[1], o.get("reason", "periodic"),
                                 int(o.get("ns", 0)), int(o.get("hyp", 0)),
                                 num(o.get("cid", "0")),
                                 num(o["cycles"]) if "cycles" in o else None, lsip)
            elif op == "isync_data":
                o = kv(rest)
                out += enc.isync(0, "arm", o.get("reason", "periodic"),
                                 int(o.get("ns", 0)), int(o.get("hyp", 0)),
                                 num(o.get("cid", "0")), data_only=True)
            elif op == "p":
                out += enc.p_header(rest[0] if rest else "")
            elif op == "branch":
                isa = rest[1] if len(rest) > 1 and "=" not in rest[1] else None
                o = kv(rest[2:] if isa else rest[1:])
                exc = None
                if any(k in o for k in ("exc", "cancel", "excbytes", "resume", "hyp",
                                        "altisa", "ns")):
                    exc = {"number": num(o.get("exc", "0")),
                           "cancel": int(o.get("cancel", 0)),
                           "ns": int(o.get("ns", 0)), "hyp": int(o.get("hyp", 0)),
                           "altisa": int(o.get("altisa", 0))}
                    if "resume" in o:
                        exc["resume"] = num(o["resume"])
                    exc["hyp_given"] = "hyp" in o
                out += enc.branch(num(rest[0]), isa,
                                  num(o["bytes"]) if "bytes" in o else None, exc)
            elif op == "cc":
                out += enc.cycle_count(num(rest[0]))
            elif op == "data":
                o = kv(rest)
                out += enc.normal_data(num(o["addr"]) if "addr" in o else None,
                                       num(o["value"]) if "value" in o else None,
                                       num(o["size"]) if "size" in o else None,
                                       int(o.get("be", 0)))
            elif op == "placeholder":
                o = kv(rest[1:])
                out += enc.placeholder(num(rest[0]),
                                       num(o["addr"]) if "addr" in o else None)
            elif op == "ooo":
                o = kv(rest[2:])
                out += enc.ooo_data(num(rest[0]), num(rest[1]),
                                    num(o["size"]) if "size" in o else None)
            elif op == "vnt":
                o = kv(rest)
                out += enc.value_not_traced(num(o["addr"]) if "addr" in o else None)
            elif op in etm3enc.SINGLE:
                out += enc.single(op)
            elif op == "ts":
                o = kv(rest[1:])
                out += enc.timestamp(num(rest[0]), int(o.get("clock_change", 0)))
            elif op == "cid":
                out += enc.context_id(num(rest[0]))
            elif op == "vmid":
                out += enc.vmid(num(rest[0]))
            elif op == "hex":
                out += bytes(int(b, 16) for b in rest)
            else:
                raise etm3enc.EncodeError("unknown packet " + op)
        except (etm3enc.EncodeError, KeyError, ValueError, IndexError) as e:
            raise SystemExit(f"trace line {lineno}: {line}: {e}")
    return bytes(out)


# ---- Rendering -------------------------------------------------------------

def h(v):
    return f"0x{v:x}"


def render(e):
    """One compact line per element (the expect block's language)."""
    k = e["kind"]
    if k == "insn":
        st = "C" if e.get("cancel") else "N" if e.get("cond_fail") else \
            "I" if e.get("implied") else "E"
        s = f"insn {h(e['addr'])} {e['isa']} {st}"
        if "cycles" in e:
            s += f" c={e['cycles']}"
        return s
    if k == "trace_on":
        s = f"trace_on {e['reason']}"
        if "addr" in e:
            s += f" {h(e['addr'])} {e['isa']}"
        if "gap_cycles" in e:
            s += f" gap={e['gap_cycles']}"
        return s
    if k == "context":
        s = f"context ns={e['ns']} hyp={e['hyp']}"
        if "context_id" in e:
            s += f" cid={h(e['context_id'])}"
        if "vmid" in e:
            s += f" vmid={e['vmid']}"
        return s
    if k == "exception":
        s = f"exception {e['number']} {e['name']} handler={h(e['addr'])} {e['isa']}"
        if "ret_addr" in e:
            s += f" ret={h(e['ret_addr'])}"
        for f in ("cancel", "legacy"):
            if e.get(f):
                s += " " + f
        if "resume" in e:
            s += f" resume={e['resume']}"
        return s
    if k == "timestamp":
        return f"timestamp {e['value']}" + (" clock_change" if e.get("clock_change") else "")
    if k == "cycle_count":
        return "cycle_count unknown" if e.get("unknown") else f"cycle_count {e['cycles']}"
    if k == "data":
        s = "data"
        if "insn_addr" in e:
            s += f" insn={h(e['insn_addr'])}"
        if "data_addr" in e:
            s += f" addr={h(e['data_addr'])}" + (" be" if e.get("be") else "")
        if "value" in e:
            s += f" value={h(e['value'])} size={e['size']}"
        if e.get("ooo"):
            s += f" ooo tag={e['tag']}" + (f" half={e['half']}" if "half" in e else "")
        for f in ("store_failed", "suppressed"):
            if e.get(f):
                s += " " + f
        return s
    if k == "gap":
        return f"gap {e['reason']}"
    if k == "no_image":
        return f"no_image {h(e['addr'])} {e['isa']} {e['reason']}"
    if k == "exception_return" and e.get("cancel"):
        return "exception_return cancel"
    return k


# ---- Opcodes -----------------------------------------------------------------

def load_images(images):
    """{address: byte} of every FILE@ADDR image (later ones win, as in
    etmkit)."""
    mem = {}
    for im in images:
        path, _, addr = im.rpartition("@")
        with open(path, "rb") as f:
            for i, b in enumerate(f.read()):
                mem[int(addr, 0) + i] = b
    return mem


def check_insn(e, mem):
    """An instruction's size and opcode, read from the image bytes the way
    DDI 0406C says they are laid out (A32: a little-endian word; T32 and
    ThumbEE: halfwords, 32 bits when the first one's bits [15:11] are
    0b11101, 0b11110 or 0b11111, A6.1; Jazelle: bytes, the first highest,
    at most 4). Returns a problem or None."""
    a, isa = e["addr"], e["isa"]

    def byte(x):
        if x not in mem:
            raise KeyError(x)
        return mem[x]
    try:
        if isa == "arm":
            size = 4
            op = sum(byte(a + i) << (8 * i) for i in range(4))
        elif isa in ("thumb", "thumbee"):
            hw1 = byte(a) | byte(a + 1) << 8
            size = 4 if hw1 >> 11 in (0x1D, 0x1E, 0x1F) else 2
            op = hw1 if size == 2 else hw1 << 16 | byte(a + 2) | byte(a + 3) << 8
        elif isa == "jazelle":
            size = e["size"]  # bytecode lengths: tests/unit/test_insn.c
            op = 0
            for i in range(min(size, 4)):
                op = op << 8 | byte(a + i)
        else:
            return f"insn 0x{a:x}: unexpected isa {isa}"
    except KeyError as k:
        return f"insn 0x{a:x}: byte 0x{k.args[0]:x} is not in the image"
    if e["size"] != size or e["opcode"] != op:
        return (f"insn 0x{a:x} {isa}: size {e['size']} opcode 0x{e['opcode']:x}, "
                f"the image says size {size} opcode 0x{op:x}")
    return None


# ---- Running ---------------------------------------------------------------

def run_case(path, etmkit, work):
    case = parse(path)
    cfg = case["config"]
    etmcr, etmidr = num(cfg["etmcr"]), num(cfg["etmidr"])
    etmccer = num(cfg.get("etmccer", "0"))
    minor = (etmidr >> 4) & 0xF
    cid_bytes = [0, 1, 2, 4][(etmcr >> 14) & 3]
    enc = etm3enc.Encoder(alt=bool(etmidr & (1 << 20)) and minor >= 4,
                          cid_bytes=cid_bytes,
                          ts_bits=64 if etmccer & (1 << 29) else 48,
                          ca=bool(etmcr & (1 << 12)), minor=minor)
    images = [assemble(a, l, work, i) for i, (a, l) in enumerate(case["code"])]
    images += [raw_bytes(a, l, work, i) for i, (a, l) in enumerate(case["bytes"])]
    trace = os.path.join(work, "trace.bin")
    with open(trace, "wb") as f:
        f.write(encode(case, enc))
    cmd = [etmkit, "decode", trace, "--protocol", "etmv3", "--frames", "none",
           "--etmcr", hex(etmcr), "--etmidr", hex(etmidr), "--etmccer", hex(etmccer),
           "--json"]
    if cfg.get("m-profile"):
        cmd.append("--m-profile")
    for im in images:
        cmd += ["--image", im]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode >= 2:
        return [f"etmkit exited {p.returncode}: {p.stderr.strip()}",
                "command: " + " ".join(shlex.quote(c) for c in cmd)]
    try:
        elems = [etmkit_json.ints(e) for e in etmkit_json.lines(p.stdout, "elements")]
    except etmkit_json.SchemaMismatch as e:
        return [str(e), "command: " + " ".join(shlex.quote(c) for c in cmd)]
    got = [render(e) for e in elems]
    want = [" ".join(l.split()) for _, l in case["expect"]]
    # The expect lines leave opcode and size out: they are checked against
    # the image instead.
    mem = load_images(images)
    wrong = [w for w in (check_insn(e, mem) for e in elems
                         if e["kind"] == "insn") if w]
    if got == want and not wrong:
        return []
    out = wrong + ["expected vs got:"]
    for i in range(max(len(got), len(want))):
        w = want[i] if i < len(want) else "(nothing)"
        g = got[i] if i < len(got) else "(nothing)"
        out.append(f"  {'  ' if w == g else '!!'} {w:<60} | {g}")
    out.append("command: " + " ".join(shlex.quote(c) for c in cmd))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--tests", required=True, help="folder of .ftt files")
    ap.add_argument("cases", nargs="*", help="run only these (file names)")
    a = ap.parse_args()
    if not shutil.which(CROSS + "as"):
        msg = f"{CROSS}as not found (Debian binutils-arm-linux-gnueabihf)"
        if os.environ.get("CI") == "true":
            print("FAIL: " + msg)
            return 1
        print("SKIP: " + msg)
        return 77
    files = sorted(glob.glob(os.path.join(a.tests, "*.ftt")))
    if a.cases:
        files = [f for f in files if os.path.basename(f) in a.cases]
    if not files:
        print("no .ftt files")
        return 1
    failed = 0
    for path in files:
        with tempfile.TemporaryDirectory() as work:
            problems = run_case(path, a.etmkit, work)
        name = os.path.basename(path)
        print(("FAIL " if problems else "ok   ") + name)
        for l in problems:
            print("     " + l)
        failed += bool(problems)
    print(f"{len(files) - failed}/{len(files)} flow tests pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
