"""The stand-in API (fleet_fakeapi) with two faults, for the fleet's
handling of them:

- trace_ids lists one more trace ID, 0x30, for rec-0000: no CPU of the
  recording has it, so its decode task is refused (`--id 0x30`) while
  the recording's other IDs decode;
- every partial profile holds a binary "prog" whose placement is
  "base-B" for rec-0001 and "base-A" for the others: merging rec-0001's
  part with another's is refused, as etmkit refuses two parts whose
  binary of the same name and build id was placed differently.
"""
import fleet_fakeapi as _f
from fleet_fakeapi import Error, Profile, expand_inputs  # noqa: F401


def trace_ids(path):
    ids = _f.trace_ids(path)
    return ids + [0x30] if path.endswith("/rec-0000.data") else ids


def profile(inputs, *args, format="autofdo"):
    p = _f.profile(inputs, *args, format=format)
    path = inputs if isinstance(inputs, str) else list(inputs)[0]
    base = "base-B" if path.endswith("/rec-0001.data") else "base-A"
    p.entries["binary prog"] = [1, base]
    return p
