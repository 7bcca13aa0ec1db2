"""The one style of etmkit's messages (cli/cli.h, etmkit(1) DIAGNOSTICS):

    etmkit COMMAND: [FILE[:LINE]: ]text
    etmkit COMMAND: warning: text
    etmkit COMMAND: note: text

("etmkit:" before a command is known); text starts in lower case unless
with a name (--option, REGISTER, a path), has no final period, and a reason
after ": " (strerror, the library's) is lower case too."""
import re

LINE = re.compile(r"^etmkit(?: (decode|packets|frames|encode|profile|help))?: "
                  r"(?:(warning|note): )?(.+)$")


def problems(stderr, strict=False):
    """What in @stderr breaks the style. Lines that do not start with
    'etmkit' (tables of --stats) are left alone unless @strict."""
    out = []
    for line in stderr.splitlines():
        if not line.startswith("etmkit") and not strict:
            continue
        m = LINE.match(line)
        if not m:
            out.append("not 'etmkit COMMAND: text': %r" % line)
            continue
        text = m.group(3)
        if re.match(r"[A-Z][a-z]", text):
            out.append("starts with a capital: %r" % line)
        if re.search(r": [A-Z][a-z]+ [a-z]", text):
            out.append("a reason starts with a capital: %r" % line)
        if text.endswith("."):
            out.append("ends with a period: %r" % line)
        if re.match(r"(error|warning|note|etmkit)\b", text):
            out.append("a second prefix: %r" % line)
    return out
