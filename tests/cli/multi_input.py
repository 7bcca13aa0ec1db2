#!/usr/bin/env python3
"""`etmkit profile` and `etmkit coverage` over several inputs (issue 21;
cli/core.c, cli/inputs.c): each input counted alone into a part, the parts
merged, the merged part written.

Recordings written by `etmkit encode --format perf-data` from QEMU logs of
three workloads (tests/workloads, built by tools/qemu-trace): A holds
loops and calls on two CPUs, B hot and calls (the same calls binary: the
same recorded path and build id, one binary once merged) on one CPU with
small AUX records. Checked against what each input gives alone, parsed
here:
1. autofdo `profile A B`: every (binary, build id, range or branch) count
   is the sum of `profile A`'s and `profile B`'s; bolt with --binary the
   same per line; bolt without --binary refused (3 binaries have counts);
   one --elf list naming every binary of both gives the --symfs output
   (an --elf a recording did not record never shadows one it did);
2. the order of inputs does not change the bytes (profile and coverage);
3. a damaged input (truncated: exit 3 alone) among good ones is named
   "left out", the summary says "1 of 3 inputs left out", exit 1, and the
   output is that of the good ones; alone it fails as before, with no
   summary; only damaged ones: exit 3, nothing written; an input whose
   AUX bytes are damaged (decode errors, exit 1 alone) is counted, not
   left out: exit 1, the sum of the errors said, the counts A' + B;
4. expansion: a directory gives its perf.data files (by magic, other files
   skipped, recursively) sorted bytewise by path (seen in the order of the
   left-out lines of damaged ones); a directory holding snapshot.ini is a
   snapshot; @LIST with comments, blank lines and paths relative to the
   list's directory gives the same output as the paths; a list naming a
   missing file fails naming the list file and line; a directory without
   recordings fails naming it.

5. with CORE_API (tests/cli/core_api.c), the core's entry points
   (cli/core.h) in one process: cli_part_make() + cli_part_write() write
   the bytes `etmkit profile` / `etmkit coverage` write (autofdo, bolt,
   lcov), three times in a row (-q in the second: no notes; the first and
   third give the CLI's notes: -q and the notes given do not stick), and
   through the saved part form, and on 4 threads at once (each thread's
   notes its own); an input refused gives the CLI's exit and
   message, to the sink, nothing on stderr; cli_trace_step() counts per
   trace ID and element kind what `etmkit decode --json` lists, per
   instruction and --ranges, the same on a second pass, on the perf.data
   recordings and on a snapshot the encoder wrote (its buffer read in
   pieces); cli_trace_packets_step() counts per trace ID the records
   `etmkit packets --json` lists; cli_inputs_expand() lists what the CLI
   reads.

Usage: multi_input.py ETMKIT QEMU_TRACE WORKLOADS_DIR WORK_DIR [CORE_API]
Exit: 0 pass, 1 fail, 77 qemu-user or the cross compiler missing (fails
with CI=true)."""
import collections
import json
import os
import shutil
import subprocess
import sys

ETMKIT, QEMU_TRACE, WORKLOADS, WORK = sys.argv[1:5]
CORE_API = sys.argv[5] if len(sys.argv) > 5 else None
LOOPS = None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run([ETMKIT] + args, capture_output=True, text=True,
                          **kw)


def must(args):
    p = run(args)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): etmkit {' '.join(args)}\n"
                 f"{p.stderr}")
    return p


def build(name):
    out = os.path.join(WORK, name)
    log = os.path.join(out, "qemu.log")
    p = subprocess.run([QEMU_TRACE, "--no-install", "--no-encode", "--arch",
                        "a64", "--out", out, "--log", log,
                        os.path.join(WORKLOADS, name + ".c")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"qemu-trace {name} failed:\n{p.stdout}{p.stderr}")
    return log, os.path.join(out, name + ".a64")


def encode(path, progs, extra):
    args = ["encode", "--protocol", "ete", "--format", "perf-data", "-o",
            path, "-q"] + extra
    for log, elf in progs:
        args += ["--from-qemu", log, "--elf", elf]
    must(args)


def parse_autofdo(text):
    """{(name, build id, 'R'|'B', key): count} of an AutoFDO text
    profile: per block its ranges, 0, its branches, then '// build id'
    and '// name' lines."""
    d = collections.Counter()
    lines = text.split("\n")
    i = 1 if lines and lines[0].startswith("//") else 0
    while i < len(lines) and lines[i] != "":
        n = int(lines[i])
        ranges = lines[i + 1:i + 1 + n]
        i += 1 + n
        assert lines[i] == "0", lines[i]
        m = int(lines[i + 1])
        branches = lines[i + 2:i + 2 + m]
        i += 2 + m
        bid, name = lines[i], lines[i + 1]
        i += 2
        while i < len(lines) and lines[i] == "":
            i += 1
            break
        for kind, rows in (("R", ranges), ("B", branches)):
            for r in rows:
                k, c = r.rsplit(":", 1)
                d[(name, bid, kind, k)] += int(c)
    return d


def parse_bolt(text):
    d = collections.Counter()
    for line in text.splitlines():
        p = line.split()
        d[tuple(p[:-1])] += int(p[-1])
    return d


def profile(args):
    return run(["profile"] + args)


def core(args):
    return subprocess.run([CORE_API] + args, capture_output=True, text=True)


def part_runs(cmd, args, name):
    outs = [os.path.join(WORK, f"{name}.{i}") for i in (1, 2, 3)]
    cli = run([cmd] + args)
    p = core(["part", cmd] + outs + args)
    runs = [l.split() for l in p.stdout.splitlines() if l.startswith("run ")]
    want_notes = cli.stderr.count(": note: ")
    check(p.returncode == 0 and p.stderr == "" and
          [r[3] for r in runs] == [str(cli.returncode)] * 3,
          f"{name}: core_api {p.returncode} {runs} {p.stderr}")
    for o in outs + [outs[0] + ".reload"]:
        got = open(o).read() if os.path.exists(o) else None
        check(got == cli.stdout, f"{name}: {o} differs from etmkit {cmd}")
    check([r[5] for r in runs] ==
          [str(2 * want_notes), "0", str(want_notes)],
          f"{name}: notes per run {[r[5] for r in runs]}, the CLI "
          f"{want_notes}")
    return want_notes


def decode_counts(args):
    c = collections.Counter()
    for line in run(["decode", "--json"] + args).stdout.splitlines():
        d = json.loads(line)
        c[(d["id"], d["kind"])] += 1
    return c


def core_api(a, b, bad, lst, top):
    sym = ["--symfs", "/"]
    part_runs("profile", [a] + sym, "api_autofdo")
    part_runs("profile", [b, "--format", "bolt", "--binary", "calls"] + sym,
              "api_bolt")
    part_runs("coverage", [a] + sym, "api_lcov")
    n = part_runs("coverage", [a], "api_lcov_nobin")
    check(n == 1, f"coverage without binaries: {n} notes")
    for cmd, args in (("profile", [a] + sym), ("coverage", [b] + sym)):
        cli = run([cmd] + args)
        out = os.path.join(WORK, "api_threads")
        p = core(["threads", cmd, out] + args + ["--jobs", "2"])
        want = [f"thread {i} rc 0 notes {cli.stderr.count(': note: ')}"
                for i in range(4)]
        check(p.stdout.splitlines() == want and p.stderr == "",
              f"threads {cmd}: {p.stdout} {p.stderr}")
        for i in range(4):
            got = open(f"{out}.{i}").read() if os.path.exists(
                f"{out}.{i}") else None
            check(got == cli.stdout, f"threads {cmd}: {out}.{i} differs")
    # refused input: the CLI's exit and text, to the sink only
    cli = run(["profile", bad])
    p = core(["part", "profile"] +
             [os.path.join(WORK, f"api_bad.{i}") for i in (1, 2, 3)] + [bad])
    first = cli.stderr.splitlines()[0].split(": ", 1)[1]
    check(cli.returncode == 3 and p.stderr == "" and
          p.stdout.count("run ") == 3 and
          p.stdout.count(f" rc 3 ") == 3 and
          p.stdout.count(f"err: {first}\n") == 3 and
          p.stdout.count("sink: ") == 0,
          f"refused: {p.stdout} {p.stderr} / {cli.stderr}")
    # element and packet streams
    snap = os.path.join(WORK, "snap")
    log, elf = LOOPS
    must(["encode", "--from-qemu", log, "--protocol", "ete", "--out", snap,
          "-q"])
    for args in ([b], ["--snapshot", snap]):
        want = collections.Counter()
        for line in run(["packets", "--json"] + args).stdout.splitlines():
            want[json.loads(line)["id"]] += 1
        p = core(["packets"] + args)
        got = {int(l.split()[0]): int(l.split()[2])
               for l in p.stdout.splitlines()}
        check(p.returncode == 0 and got == dict(want) and len(want),
              f"packets {args}: {got} != {dict(want)} {p.stderr}")
    for args in ([a] + sym, [b] + sym + ["--ranges"],
                 ["--snapshot", snap, "--elf", elf]):
        want = decode_counts(args)
        p = core(["trace"] + args)
        got = collections.Counter()
        for line in p.stdout.splitlines()[:-1]:
            i, k, c = line.split()
            got[(int(i), k)] = int(c)
        check(p.returncode == 0 and got == want and len(want) > 3 and
              p.stdout.endswith("passes same\n"),
              f"trace {args}: {sorted(got.items())} != "
              f"{sorted(want.items())}; {p.stdout[-40:]} {p.stderr}")
    p = core(["expand", "@" + lst.replace(".txt", "2.txt"), top])
    got = p.stdout.splitlines()
    check(got[:2] == [b.replace(WORK, WORK + "/lists/.."), a] and
          len(got) == 11 and got[2:] == sorted(got[2:]),
          f"expand: {p.stdout}")


def main():
    if not (shutil.which("qemu-aarch64") and
            shutil.which("aarch64-linux-gnu-gcc")):
        print("qemu-aarch64 or aarch64-linux-gnu-gcc missing")
        return 1 if os.environ.get("CI") == "true" else 77
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    global LOOPS
    loops, calls, hot = build("loops"), build("calls"), build("hot")
    LOOPS = loops
    a = os.path.join(WORK, "A.data")
    b = os.path.join(WORK, "B.data")
    encode(a, [loops, calls], ["--cpus", "2"])
    encode(b, [hot, calls], ["--aux-size", "4096"])
    # the recordings name the binaries by their real paths (encode --elf)
    elfs = ["--symfs", "/"]

    # 1. sums
    pa, pb = profile([a] + elfs), profile([b] + elfs)
    pab = profile([a, b] + elfs)
    check(pa.returncode == 0 and pb.returncode == 0 and pab.returncode == 0,
          f"exit {pa.returncode} {pb.returncode} {pab.returncode}: "
          f"{pab.stderr}")
    sa, sb, sab = (parse_autofdo(p.stdout) for p in (pa, pb, pab))
    check(len(sab) > 100 and sab == sa + sb,
          f"autofdo A B is not A + B ({len(sab)} keys, {len(sa + sb)})")
    names = {k[0] for k in sab}
    check(len(names) == 3, f"autofdo A B: binaries {sorted(names)}")
    check(pab.stdout.count("\n// " + calls[1]) <= 1 and
          sum(1 for k in sab if k[0].endswith("/calls.a64")) > 0,
          "calls is one block")
    ba = profile([a, "--format", "bolt", "--binary", "calls"] + elfs)
    bb = profile([b, "--format", "bolt", "--binary", "calls"] + elfs)
    bab = profile([a, b, "--format", "bolt", "--binary", "calls"] + elfs)
    check(bab.returncode == 0 and parse_bolt(bab.stdout) ==
          parse_bolt(ba.stdout) + parse_bolt(bb.stdout) and
          len(parse_bolt(bab.stdout)) > 10, "bolt A B is not A + B")
    p = profile([a, b, "--format", "bolt"] + elfs)
    check(p.returncode == 2 and "3 have counts" in p.stderr and
          p.stdout == "", f"bolt A B without --binary: {p.returncode} "
          f"{p.stderr}")

    # 1b. one --elf list for several inputs: the files a recording did
    # not record (hot for A) are mapped under its recorded maps, never
    # over them (the workloads are static, linked at the same address):
    # the output equals that of --symfs
    byelf = ["--elf", loops[1], "--elf", calls[1], "--elf", hot[1]]
    pe = profile([a, b] + byelf)
    check(pe.returncode == 0 and pe.stdout == pab.stdout,
          f"A B with --elf for every binary differs from --symfs "
          f"({pe.returncode}: {pe.stderr})")

    # 2. order
    pba = profile([b, a] + elfs)
    check(pba.stdout == pab.stdout, "profile B A differs from A B")
    ca = run(["coverage", a, b] + elfs)
    cb = run(["coverage", b, a] + elfs)
    check(ca.returncode == 0 and ca.stdout == cb.stdout,
          f"coverage B A differs from A B ({ca.returncode}: {ca.stderr})")

    # 3. damaged
    bad = os.path.join(WORK, "bad.data")
    with open(a, "rb") as f:
        d = f.read()
    with open(bad, "wb") as f:
        f.write(d[:len(d) // 2])
    p1 = profile([bad] + elfs)
    check(p1.returncode == 3 and "left out" not in p1.stderr,
          f"bad alone: {p1.returncode} {p1.stderr}")
    p = profile([a, bad, b] + elfs)
    check(p.returncode == 1 and p.stdout == pab.stdout,
          f"A bad B: exit {p.returncode}, same output "
          f"{p.stdout == pab.stdout}")
    check(f"etmkit profile: {bad}: left out" in p.stderr and
          "etmkit profile: 1 of 3 inputs left out" in p.stderr,
          f"A bad B: {p.stderr}")
    out = os.path.join(WORK, "none.txt")
    p = profile([bad, bad, "-o", out] + elfs)
    check(p.returncode == 3 and not os.path.exists(out) and
          "2 of 2 inputs left out" in p.stderr,
          f"bad bad: {p.returncode} {p.stderr}")

    # AUX payload bytes overwritten (offsets of packets: file offsets)
    offs = [json.loads(l)["offset"] for l in
            run(["packets", "--json", a]).stdout.splitlines()]
    aux = bytearray(d)
    for o in offs[len(offs) // 3:len(offs) // 3 + 400:7]:
        aux[o] ^= 0x5a
    dmg = os.path.join(WORK, "aux.data")
    with open(dmg, "wb") as f:
        f.write(aux)
    p1 = profile([dmg] + elfs)
    p = profile([dmg, b] + elfs)
    errs = p1.stderr.split(" decode error")[0].rsplit(" ", 1)[-1]
    check(p1.returncode == 1 and errs.isdigit() and int(errs) > 0 and
          p.returncode == 1 and "left out" not in p.stderr and
          f": {errs} decode error" in p.stderr and
          parse_autofdo(p.stdout) == parse_autofdo(p1.stdout) + sb,
          f"AUX damaged: {p1.returncode} {p.returncode} {p1.stderr} "
          f"{p.stderr}")
    p = profile([dmg, b, dmg] + elfs)
    check(p.returncode == 1 and errs.isdigit() and
          f": {2 * int(errs)} decode errors" in p.stderr,
          f"AUX damaged twice: {p.stderr}")

    # 4. expansion
    top = os.path.join(WORK, "dir")
    os.makedirs(os.path.join(top, "sub", "deeper"))
    shutil.copy(a, os.path.join(top, "sub", "deeper", "a.data"))
    shutil.copy(b, os.path.join(top, "b.data"))
    with open(os.path.join(top, "notes.txt"), "w") as f:
        f.write("not a recording\n")
    # damaged ones, made in an order that is not the sorted one
    damaged = ["z.data", "sub/c.data", "m.data", "sub/deeper/b.data",
               "b2.data", "sub/a.data", "c.data"]
    for x in damaged:
        shutil.copy(bad, os.path.join(top, x))
    p = profile([top] + elfs)
    check(p.returncode == 1 and p.stdout == pab.stdout and
          "7 of 9 inputs left out" in p.stderr,
          f"directory: exit {p.returncode}: {p.stderr}")
    lo = [l for l in p.stderr.splitlines() if l.endswith(": left out")]
    want = [f"etmkit profile: {top}/{x}: left out"
            for x in sorted(damaged)]
    check(lo == want, f"directory order: {lo}")
    lists = os.path.join(WORK, "lists")
    os.makedirs(lists)
    lst = os.path.join(lists, "inputs.txt")
    with open(lst, "w") as f:
        f.write("# the recordings\n\n  ../B.data  \n# A next\n"
                f"{os.path.abspath(a)}\n")
    p = profile(["@" + lst] + elfs)
    check(p.returncode == 0 and p.stdout == pab.stdout,
          f"@LIST: exit {p.returncode}: {p.stderr}")
    shutil.copy(lst, lst.replace(".txt", "2.txt"))
    with open(lst, "a") as f:
        f.write("missing.data\n")
    p = profile(["@" + lst] + elfs)
    check(p.returncode == 3 and p.stdout == "" and
          f"{lst}:6: {lists}/missing.data: no such file or directory"
          in p.stderr, f"@LIST missing: {p.returncode} {p.stderr}")
    empty = os.path.join(WORK, "empty")
    os.makedirs(os.path.join(empty, "sub"))
    p = profile([empty] + elfs)
    check(p.returncode == 3 and f"{empty}: no perf.data file under" in
          p.stderr, f"empty directory: {p.returncode} {p.stderr}")

    if CORE_API:
        core_api(a, b, bad, lst, top)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
