#!/usr/bin/env python3
"""Call stacks from QEMU runs of the workloads (docs/stacks.md).

tests/workloads/calls.c (function pointers, a jump table, recursion) is
compiled for A64, A32 and T32 and run under QEMU (tools/qemu-trace);
`etmkit encode --from-qemu` writes its execution record and a trace
snapshot: ETMv4 and ETE for A64, ETMv3 for A32 and T32. Then, from the
snapshot with the program as --elf:

1. `etmkit profile --format folded` equals, line for line and count for
   count, the folded stacks computed here from the record alone: calls
   and returns found by opcode (A64 BL, BLR, BLRAA...; RET, RETAA...;
   A32/T32 BL, BLX; BX LR, POP {pc}...) among the record's taken
   branches, functions by the ELF symbol table read here (readelf), the
   rules of docs/stacks.md;
2. `etmkit flame` is well-formed XML (xml.etree) whose frames are the
   prefixes of those stacks, each as wide as its count's share; with node,
   its script zooms, searches and resets (tests/perf/flame_js.js);
3. `etmkit profile --format chrome` is valid JSON in the trace event
   format (fields per phase; X slices nest per pid/tid) and its slices
   are the record's function activations, in order, with their
   instruction-count times.
Bad options give clear errors.

Usage: stacks_rt.py --etmkit ETMKIT --workloads DIR --tool QEMU_TRACE
Exit: 0 pass, 1 fail, 77 qemu-user or the cross compilers missing (fails
with CI=true)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from verdict import FAILS, fail, skip  # noqa: E402  (tests/verdict.py)


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        print(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}"
              f"{p.stderr[-2000:]}")
        sys.exit(1)
    return p


# ---- The record's own view ---------------------------------------------

def a64_kind(op):
    """'call', 'ret', 'eret' or None for A64 opcode @op (Arm ARM C6)."""
    if op & 0xFC000000 == 0x94000000:            # BL
        return "call"
    if op & 0xFFFFFC1F == 0xD63F0000:            # BLR
        return "call"
    if op & 0xFEFFF800 == 0xD63F0800:            # BLRAA(Z), BLRAB(Z)
        return "call"
    if op & 0xFFFFFC1F == 0xD65F0000:            # RET
        return "ret"
    if op in (0xD65F0BFF, 0xD65F0FFF):           # RETAA, RETAB
        return "ret"
    if op in (0xD69F03E0, 0xD69F0BFF, 0xD69F0FFF):   # ERET, ERETAA, ERETAB
        return "eret"
    return None


def a32_kind(op):
    """The same for A32 opcode @op (Arm ARM A8.8): BL, BLX (immediate and
    register); BX LR, MOV PC, LR, LDM SP! / POP with PC, LDR PC, [SP],
    #4; SUBS PC, LR, #imm and ERET for exception returns."""
    cond = op >> 28
    if cond == 0xF:
        return "call" if op & 0x0E000000 == 0x0A000000 else None  # BLX imm
    if op & 0x0F000000 == 0x0B000000 or op & 0x0FFFFFF0 == 0x012FFF30:
        return "call"
    if op & 0x0FFFFFFF in (0x012FFF1E, 0x01A0F00E, 0x049DF004):
        return "ret"
    if op & 0x0FFF8000 == 0x08BD8000:
        return "ret"
    if op & 0x0FFFF000 == 0x025EF000 or op & 0x0FFFFFFF == 0x0160006E:
        return "eret"
    return None


def t32_kind(op, size):
    """The same for T32 (@size 2 or 4, @op as the record writes it: first
    halfword then second): BL, BLX; BX LR, POP {..., pc}, LDM.W SP! with
    PC, LDR.W PC, [SP], #4; SUBS PC, LR, #imm."""
    if size == 2:
        if op & 0xFF87 == 0x4780:
            return "call"
        if op == 0x4770 or op & 0xFF00 == 0xBD00:
            return "ret"
        return None
    hw1, hw2 = op >> 16, op & 0xFFFF
    if hw1 & 0xF800 == 0xF000 and hw2 & 0xC000 == 0xC000:
        return "call"                         # BL (hw2 bit 12), BLX
    if hw1 == 0xE8BD and hw2 & 0x8000:
        return "ret"
    if (hw1, hw2) == (0xF85D, 0xFB04):
        return "ret"
    if hw1 == 0xF3DE and hw2 & 0xFF00 == 0x8F00:
        return "eret"
    return None


def branch_kind(isa, opcode):
    op = int(opcode, 16)
    if isa == "a64":
        return a64_kind(op)
    if isa == "arm":
        return a32_kind(op)
    if isa == "thumb":
        return t32_kind(op, len(opcode) // 2)
    return None


def elf_functions(path):
    """[(addr, size, name)] of the function symbols, by readelf: FUNC, or
    NOTYPE in an executable section; no mapping symbols ($x, $d...)."""
    execs = set()
    arm32 = open(path, "rb").read(5)[4] == 1
    for line in run(["readelf", "-SW", path]).stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+"
                     r"\s+\S+\s+(\S*)", line)
        if m and "X" in m.group(2):
            execs.add(m.group(1))
    out = []
    for line in run(["readelf", "-sW", path]).stdout.splitlines():
        f = line.split()
        if len(f) < 8 or f[6] == "UND" or f[3] not in ("FUNC", "NOTYPE"):
            continue
        if f[3] == "NOTYPE" and f[6] not in execs:
            continue
        if re.fullmatch(r"\$[atdx](\..*)?", f[7]):
            continue
        a = int(f[1], 16)
        if f[3] == "FUNC" and arm32:
            a &= ~1                            # the Thumb bit
        out.append((a, int(f[2], 0), f[7].split("@")[0]))
    return out


class Names:
    """Function of an address: the nearest symbol at or below it, when it
    holds it (addr <= a < addr + size) or has size 0 (the symbols at one
    address are aliases: any of their names)."""

    def __init__(self, funcs):
        self.funcs = sorted(funcs)
        self.cache = {}

    def __call__(self, a):
        if a in self.cache:
            return self.cache[a]
        below = [f for f in self.funcs if f[0] <= a]
        names = set()
        if below:
            at = below[-1][0]
            names = {f[2] for f in below if f[0] == at and
                     (f[1] == 0 or a < at + f[1])}
        r = names if names else {"0x%x" % a}
        self.cache[a] = r
        return r


def record_stacks(rec, names):
    """Folded stacks {tuple of frame-name sets: count} and the frame
    activations [(frame names, begin, end, depth)] of execution record
    @rec, by docs/stacks.md's rules. A frame is the set of names its
    address may go by (aliases at one address)."""
    folded, slices = {}, []
    stack = []          # [names, begin, exc]
    clock = 0
    pending = None

    def pop():
        f = stack.pop()
        slices.append((f[0], f[1], clock, len(stack)))

    def forget():
        nonlocal pending
        while stack:
            pop()
        pending = None

    def push(a, exc=False):
        stack.append([names(a), clock, exc])

    for line in open(rec):
        t = line.split("#", 1)[0].split()
        if not t or t[0] == "etmkit-exec":
            continue
        if t[0] == "gap":
            forget()
            continue
        if t[0] == "exc":
            if stack:
                pending = "exc"
            continue
        if not t[0].startswith("0x"):
            continue                 # ctx, ts, ld, st
        a = int(t[0], 16)
        if not stack:
            stack.append([{"[unknown]"}, clock, False])
            push(a)
        elif pending == "call":
            push(a)
        elif pending == "exc":
            push(a, True)
        elif pending == "ret":
            if len(stack) > 1:
                pop()
            if len(stack) <= 1:
                push(a)
        elif pending == "eret":
            d = len(stack)
            while d > 1 and not stack[d - 1][2]:
                d -= 1
            if d <= 1:
                forget()
                stack.append([{"[unknown]"}, clock, False])
                push(a)
            else:
                while len(stack) >= d:
                    pop()
                if len(stack) <= 1:
                    push(a)
        pending = None
        key = tuple(frozenset(f[0]) for f in stack)
        folded[key] = folded.get(key, 0) + 1
        clock += 1
        taken = any(w.startswith("->") for w in t[3:])
        if taken:
            pending = branch_kind(t[1], t[2])
    forget()
    return folded, slices


def parse_folded(text):
    out = []
    for line in text.splitlines():
        m = re.fullmatch(r"(.+) (\d+)", line)
        if not m:
            fail(f"folded: malformed line {line!r}")
            continue
        out.append((m.group(1).split(";"), int(m.group(2))))
    return out


def check_folded(tag, text, want):
    """etmkit's lines against the record's stacks: each line's frames are
    names of the record's frames (a frame at an address with aliases may
    take any of them), counts equal, nothing left over; sorted, merged."""
    got = parse_folded(text)
    lines = text.splitlines()
    if lines != sorted(lines, key=lambda l: l.rsplit(" ", 1)[0].encode()):
        fail(f"{tag}: folded lines not sorted")
    stacks = [s for s, _ in got]
    if len({";".join(s) for s in stacks}) != len(stacks):
        fail(f"{tag}: folded lines not merged")
    left = dict(want)
    for frames, count in got:
        match = [k for k in left if len(k) == len(frames) and
                 all(f in names for f, names in zip(frames, k))]
        total = sum(left[k] for k in match)
        if total != count:
            fail(f"{tag}: {';'.join(frames)} {count}, the record gives "
                 f"{total} ({len(match)} stacks)")
        for k in match:
            del left[k]
    if left:
        fail(f"{tag}: stacks of the record missing: " + "; ".join(
            ";".join(sorted(f)[0] for f in k) + f" {v}"
            for k, v in list(left.items())[:5]))
    return got


# ---- The flame graph -----------------------------------------------------

def check_svg(tag, path, folded):
    """Well-formed; each frame is a prefix of the folded stacks, at the
    offset and with the count the stacks give (children in name order),
    as wide as that count's share; every frame 0.1 px or wider drawn."""
    ns = "{http://www.w3.org/2000/svg}"
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f"{tag}: SVG not well-formed XML: {e}")
        return
    width = float(root.get("width"))
    if not root.findall(f"{ns}script"):
        fail(f"{tag}: SVG without its script")
    tree = {}
    for frames, count in folded:
        node = tree
        for f in ["all"] + frames:
            node = node.setdefault(f, [0, {}])
            node[0] += count
            node = node[1]
    total = tree["all"][0]
    scale = (width - 20) / total
    want = {}

    def lay(d, lo, name, node):
        want[(d, lo, name)] = node[0]
        at = lo
        for n in sorted(node[1], key=lambda s: s.encode()):
            lay(d + 1, at, n, node[1][n])
            at += node[1][n][0]

    lay(0, 0, "all", tree["all"])
    seen = set()
    for g in root.iter(f"{ns}g"):
        if g.get("class") != "f":
            continue
        title = g.find(f"{ns}title").text
        name = title[:title.rindex(" (")]
        d, lo, n = int(g.get("data-d")), int(g.get("data-lo")), \
            int(g.get("data-n"))
        rect = g.find(f"{ns}rect")
        x, w = float(rect.get("x")), float(rect.get("width"))
        key = (d, lo, name)
        if want.get(key) != n:
            fail(f"{tag}: SVG frame {name} at depth {d} offset {lo}: count "
                 f"{n}, the folded stacks give {want.get(key)}")
        if abs(w - n * scale) > 1e-3 or abs(x - (10 + lo * scale)) > 1e-3:
            fail(f"{tag}: SVG frame {name}: x {x} width {w}, want "
                 f"{10 + lo * scale} {n * scale}")
        seen.add(key)
    missing = [k for k, v in want.items() if v * scale >= 0.1 and
               k not in seen]
    if missing:
        fail(f"{tag}: SVG frames missing: {missing[:5]}")
    check_script(tag, root, folded, total)
    return len(seen)


def check_script(tag, root, folded, total):
    """The embedded script under node (tests/perf/flame_js.js): zoom into a
    frame, search "fib" (the share of instructions under a fib frame, from
    the folded stacks), Escape. Without node: not run (said)."""
    if not shutil.which("node"):
        print(f"{tag}: node missing: the SVG's script not run")
        return
    ns = "{http://www.w3.org/2000/svg}"
    frames = []
    for g in root.iter(f"{ns}g"):
        if g.get("class") == "f":
            frames.append({"attrs": dict(g.attrib),
                           "title": g.find(f"{ns}title").text,
                           "rect": dict(g.find(f"{ns}rect").attrib),
                           "text": g.find(f"{ns}text").text or ""})
    under = sum(c for frames_, c in folded if any("fib" in f
                                                  for f in frames_))
    with tempfile.TemporaryDirectory() as d:
        fj = os.path.join(d, "frames.json")
        js = os.path.join(d, "script.js")
        with open(fj, "w") as f:
            json.dump(frames, f)
        text = root.find(f"{ns}script").text
        with open(js, "w") as f:
            f.write(text)
        p = subprocess.run(["node", os.path.join(HERE, "flame_js.js"), fj,
                            js, "fib", "%.2f" % (100 * under / total),
                            root.get("width")],
                           capture_output=True, text=True)
    if p.returncode:
        fail(f"{tag}: the SVG's script: {p.stdout}{p.stderr}")
    else:
        print(f"{tag}: {p.stdout.strip()}")


# ---- The timeline --------------------------------------------------------

REQUIRED = {"X": ("name", "ph", "ts", "dur", "pid", "tid"),
            "i": ("name", "ph", "ts", "pid", "tid", "s"),
            "M": ("name", "ph", "pid", "args")}


def check_chrome(tag, text, slices):
    try:
        doc = json.loads(text)
    except ValueError as e:
        fail(f"{tag}: chrome output is not JSON: {e}")
        return
    if doc.get("displayTimeUnit") != "ns" or \
            not isinstance(doc.get("traceEvents"), list):
        fail(f"{tag}: chrome: no traceEvents / displayTimeUnit")
        return
    xs, named = [], set()
    for ev in doc["traceEvents"]:
        ph = ev.get("ph")
        if ph not in REQUIRED or any(f not in ev for f in REQUIRED[ph]):
            fail(f"{tag}: chrome: event without its fields: {ev}")
            return
        if ph == "M":
            named.add((ev["name"], ev["pid"], ev.get("tid")))
            if ev["name"] == "process_labels" and \
                    "instructions" not in ev["args"].get("labels", ""):
                fail(f"{tag}: chrome: the clock is not named: {ev}")
        if ph == "X":
            xs.append(ev)
    by = {}
    for ev in xs:
        by.setdefault((ev["pid"], ev["tid"]), []).append(ev)
    for (pid, tid), evs in by.items():
        if ("thread_name", pid, tid) not in named or \
                not any(n == "process_name" and p == pid
                        for n, p, _ in named):
            fail(f"{tag}: chrome: pid {pid} tid {tid} not named")
        # X slices nest: sorted by start (longer first), each inside the
        # one open around it
        open_ = []
        for ev in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            while open_ and open_[-1] <= ev["ts"] and \
                    not (ev["dur"] == 0 and open_[-1] == ev["ts"]):
                open_.pop()
            if open_ and ev["ts"] + ev["dur"] > open_[-1]:
                fail(f"{tag}: chrome: slice {ev} overlaps its parent")
                break
            open_.append(ev["ts"] + ev["dur"])
    got = [(e["name"], e["ts"], e["ts"] + e["dur"], e["args"]["depth"])
           for e in xs]
    if len(got) != len(slices):
        fail(f"{tag}: chrome: {len(got)} slices, the record has "
             f"{len(slices)}")
    for i, (g, w) in enumerate(zip(got, slices)):
        if g[0] not in w[0] or g[1:] != w[1:]:
            fail(f"{tag}: chrome: slice {i} is {g}, the record's is "
                 f"({sorted(w[0])}, {w[1]}, {w[2]}, {w[3]})")
            break
    return len(got)


# ---- Main ----------------------------------------------------------------

def bad_options(a, snap, elf):
    base = [a.etmkit, "profile", "--snapshot", snap, "--elf", elf]
    p = run(base + ["--format", "folded", "--weight", "bytes"], ok=(2,))
    if "unknown weight 'bytes'" not in p.stderr:
        fail(f"--weight bytes: {p.stderr}")
    p = run(base + ["--format", "folded", "--binary", "x"], ok=(2,))
    if "--binary is for the autofdo, bolt and profgen formats" not in p.stderr:
        fail(f"--binary with folded: {p.stderr}")
    p = run([a.etmkit, "flame", "--snapshot", snap, "--elf", elf,
             "--width", "5"], ok=(2,))
    if "invalid width '5'" not in p.stderr:
        fail(f"--width 5: {p.stderr}")


def case(a, tmp, arch, proto, log, elf, names):
    tag = f"calls {arch} {proto}"
    snap = os.path.join(tmp, f"snap-{arch}-{proto}")
    rec = os.path.join(tmp, f"rec-{arch}-{proto}.txt")
    run([a.etmkit, "encode", "--from-qemu", log, "--protocol", proto,
         "--out", snap, "--record-out", rec, "-q"])
    want, slices = record_stacks(rec, names)
    src = ["--snapshot", snap, "--elf", elf]
    text = run([a.etmkit, "profile"] + src + ["--format", "folded"]).stdout
    got = check_folded(tag, text, want)
    if not any("fib;fib;fib" in ";".join(s) for s, _ in got):
        fail(f"{tag}: no recursion of fib in the stacks")
    svg = os.path.join(tmp, f"{arch}-{proto}.svg")
    run([a.etmkit, "flame"] + src + ["-o", svg, "--title", "calls <&>",
                                     "--width", "900"])
    nframes = check_svg(tag, svg, got)
    chrome = run([a.etmkit, "profile"] + src +
                 ["--format", "chrome"]).stdout
    nslices = check_chrome(tag, chrome, slices)
    print(f"{tag}: {len(got)} stacks, {sum(want.values())} instructions, "
          f"{nframes} SVG frames, {nslices} slices")
    if proto == "etmv4":
        bad_options(a, snap, elf)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--tool", required=True)
    a = ap.parse_args()
    if not shutil.which("qemu-aarch64") or \
            not shutil.which("aarch64-linux-gnu-gcc"):
        skip("qemu-aarch64 or aarch64-linux-gnu-gcc missing")
    if not shutil.which("qemu-arm") or \
            not shutil.which("arm-linux-gnueabihf-gcc"):
        skip("qemu-arm or arm-linux-gnueabihf-gcc missing")
    with tempfile.TemporaryDirectory() as tmp:
        for arch, protos in (("a64", ("etmv4", "ete")), ("a32", ("etmv3",)),
                             ("t32", ("etmv3",))):
            out = os.path.join(tmp, "calls-" + arch)
            log = os.path.join(out, "qemu.log")
            run([a.tool, "--no-install", "--no-encode", "--arch", arch,
                 "--out", out, "--log", log,
                 os.path.join(a.workloads, "calls.c")])
            elf = os.path.join(out, "calls." + arch)
            names = Names(elf_functions(elf))
            for proto in protos:
                case(a, tmp, arch, proto, log, elf, names)
    print(f"{len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
