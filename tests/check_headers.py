#!/usr/bin/env python3
"""The public headers say what they are for and where they belong (issue 17).

Checks, for include/etmkit/:
- every header opens with "/* etmkit: <what it is for>" and, in the first
  lines of that comment, a line " * Layer: <layer> ..." naming one of the
  layers (the folders of src/);
- the umbrella header etmkit.h lists every other header in its leading
  comment, one line each under the heading of the header's own layer, and
  includes every one of them.

Usage: check_headers.py INCLUDE_DIR. Exit 0 when all holds, else 1 with one
line per problem.
"""
import os
import re
import sys

LAYERS = ("common", "transport", "packets", "isa", "image", "flow", "parallel",
          "session", "snapshot", "perf", "profile", "encode")
# How far into the leading comment the Layer line may be.
FIRST_LINES = 14


def leading_comment(text):
    end = text.find("*/")
    return text[:end].split("\n") if text.startswith("/*") and end > 0 else []


def main():
    inc = sys.argv[1]
    names = sorted(n for n in os.listdir(inc) if n.endswith(".h"))
    problems = []
    layer_of = {}
    for name in names:
        with open(os.path.join(inc, name), encoding="utf-8") as f:
            text = f.read()
        lines = leading_comment(text)
        if not lines or not re.match(r"/\* etmkit: \S", lines[0]):
            problems.append(f"{name}: does not open with '/* etmkit: "
                            "<what it is for>'")
            continue
        if name == "etmkit.h":
            continue
        layer = None
        for line in lines[:FIRST_LINES]:
            m = re.match(r" \* Layer: (\w+)", line)
            if m:
                layer = m.group(1)
                break
        if layer is None:
            problems.append(f"{name}: no ' * Layer: ...' line in the first "
                            f"{FIRST_LINES} lines of its leading comment")
        elif layer not in LAYERS:
            problems.append(f"{name}: layer '{layer}' is none of "
                            + ", ".join(LAYERS))
        else:
            layer_of[name] = layer

    with open(os.path.join(inc, "etmkit.h"), encoding="utf-8") as f:
        umbrella = f.read()
    listed = {}
    heading = None
    for line in leading_comment(umbrella):
        m = re.match(r" \* (\w+)$", line)
        if m and m.group(1) in LAYERS:
            heading = m.group(1)
            continue
        m = re.match(r" \*   (\w+\.h) +\S", line)
        if m:
            if m.group(1) in listed:
                problems.append(f"etmkit.h: {m.group(1)} listed twice")
            listed[m.group(1)] = heading
    included = set(re.findall(r'^#include "etmkit/(\w+\.h)"', umbrella, re.M))
    for name in names:
        if name == "etmkit.h":
            continue
        if name not in listed:
            problems.append(f"etmkit.h: its comment does not list {name}")
        elif name in layer_of and listed[name] != layer_of[name]:
            problems.append(f"etmkit.h: {name} is listed under "
                            f"'{listed[name]}', its own comment says "
                            f"'{layer_of[name]}'")
        if name not in included:
            problems.append(f"etmkit.h: does not include etmkit/{name}")
    for name in listed:
        if name not in names:
            problems.append(f"etmkit.h: lists {name}, which is not in "
                            f"{inc}")

    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
