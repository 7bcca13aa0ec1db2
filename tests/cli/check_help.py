#!/usr/bin/env python3
"""The help of every command against the parser's option table.

`etmkit help --options` lists every option the parsers take (the table in
cli/options.c). Each must appear as an option line of its command's help,
and as an item of the man page (docs/etmkit.1): OPTIONS for decode, packets,
frames, profile and coverage, ENCODE for encode. `CMD --help`, `CMD -h` and
`etmkit help CMD` must print the same help, with lines of at most 79 columns; decode's and
packets' help must name the three protocols they decode.

--options-from FILE takes the listing from FILE instead (to check an older
etmkit's help against today's table)."""
import argparse
import re
import subprocess
import sys

COMMANDS = ("decode", "packets", "frames", "encode", "profile", "coverage",
            "flame")
MAN_SECTION = {"decode": "OPTIONS", "packets": "OPTIONS", "frames": "OPTIONS",
               "encode": "ENCODE", "profile": "OPTIONS", "coverage": "OPTIONS",
               "flame": "OPTIONS"}


def run(etmkit, args):
    p = subprocess.run([etmkit] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def man_items(path):
    """{section: set of option words in its .TP item tags}."""
    items, section, tag_next = {}, None, False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".SH "):
            section = line[4:].strip('"')
            items.setdefault(section, set())
            continue
        if line.startswith(".TP"):
            tag_next = True
            continue
        if tag_next and section:
            text = line.replace("\\-", "-")
            items[section].update(re.findall(r"(?<![\w-])(--?[a-z0-9][a-z0-9-]*)", text))
        tag_next = False
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etmkit", required=True)
    ap.add_argument("--man", required=True)
    ap.add_argument("--options-from")
    a = ap.parse_args()
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL: " + msg)

    if a.options_from:
        listing = open(a.options_from).read()
    else:
        rc, listing, err = run(a.etmkit, ["help", "--options"])
        if rc != 0:
            print("FAIL: etmkit help --options: status %d: %s" % (rc, err.strip()))
            return 1
    table = {}
    for line in listing.splitlines():
        w = line.split()
        if len(w) < 2 or w[0] not in COMMANDS or not w[1].startswith("--"):
            fail("etmkit help --options: bad line %r" % line)
            continue
        short = w[2] if len(w) > 2 and re.fullmatch(r"-[a-zA-Z]", w[2]) else None
        table.setdefault(w[0], []).append((w[1], short))
    for cmd in COMMANDS:
        if cmd not in table:
            fail("%s: no options listed" % cmd)
    for cmd in COMMANDS:
        names = [n for n, _ in table.get(cmd, [])]
        for n in set(names):
            if names.count(n) > 1:
                fail("%s: %s listed %d times" % (cmd, n, names.count(n)))

    man = man_items(a.man)
    for cmd, opts in table.items():
        outs = []
        for args in ([cmd, "--help"], [cmd, "-h"], ["help", cmd]):
            rc, out, err = run(a.etmkit, args)
            if rc != 0 or err:
                fail("etmkit %s: status %d, stderr %r" % (" ".join(args), rc, err.strip()))
            outs.append(out)
        if outs[1] != outs[0] or outs[2] != outs[0]:
            fail("%s: --help, -h and 'etmkit help %s' differ" % (cmd, cmd))
        text = outs[0]
        for line in text.splitlines():
            if len(line) > 79:
                fail("%s --help: line longer than 79 columns: %r" % (cmd, line))
        option_lines = [l for l in text.splitlines() if re.match(r"  -", l)]
        for name, short in opts:
            want = r"^  (-[a-zA-Z], )?%s(\s|$)" % re.escape(name)
            if not any(re.match(want, l) for l in option_lines):
                fail("%s --help: no line for %s" % (cmd, name))
            if short and not any(l.startswith("  %s, %s" % (short, name)) for l in option_lines):
                fail("%s --help: %s is not shown with %s" % (cmd, name, short))
            section = MAN_SECTION[cmd]
            if name not in man.get(section, set()):
                fail("%s: %s is not an item of %s's section %s" % (a.man, name, cmd, section))
            if short and short not in man.get(section, set()):
                fail("%s: %s is not an item of section %s" % (a.man, short, section))
        if cmd in ("decode", "packets"):
            about = text.split("\n\n")[1] if "\n\n" in text else text
            for proto in ("ETMv3", "ETMv4", "ETE"):
                if proto not in about:
                    fail("%s --help: what it does does not name %s: %r" % (cmd, proto, about))
    rc, out, err = run(a.etmkit, ["help"])
    if rc != 0 or "ETMv4 and ETE packets" in out:
        fail("etmkit help: status %d or the old description" % rc)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("help and man page list every option of %d commands" % len(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
