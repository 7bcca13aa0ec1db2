"""etmkit: ARM embedded trace decoding and profiles, from Python.

The package is a binding over libetmkit (the C library of the `etmkit`
command). It decodes what `etmkit decode` and `etmkit packets` decode and
gives it in bulk, as NumPy structured arrays made in C (no Python object
per instruction), and it builds the profiles `etmkit profile` and
`etmkit coverage` write as objects that merge and serialise.

docs/python.md describes the API, every dtype field by field, and has
examples.
"""

from __future__ import annotations

import builtins
import os
import tempfile
from typing import Iterable, Union

from . import _etmkit
from ._etmkit import (BLOCK_DTYPE, ELEM_DTYPE, INSN_CANCEL, INSN_COND_FAIL,
                      INSN_CYCLES, INSN_DTYPE, INSN_EXEC, INSN_IMPLIED,
                      INSN_P0, PACKET_DTYPE, Error, Profile, elem_kind_name,
                      isa_name, loss_name, packet_type_name, sec_name,
                      trace_on_reason_name)

__all__ = [
    "__version__", "Error", "BLOCK_DTYPE", "INSN_DTYPE", "PACKET_DTYPE",
    "ELEM_DTYPE", "elem_kind_name", "isa_name", "loss_name",
    "packet_type_name", "sec_name", "trace_on_reason_name", "cli_args",
    "KINDS", "INSN_EXEC", "INSN_COND_FAIL", "INSN_CANCEL", "INSN_IMPLIED",
    "INSN_CYCLES", "INSN_P0", "Profile", "merge", "profile",
    "expand_inputs", "open", "Trace",
]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# The writer's command and --format of each kind, by default.
_KIND_WRITE = {"tally": ("profile", "autofdo"), "traces": ("profile", "bolt"),
               "coverage": ("coverage", None)}


# decode's image options, which `etmkit packets` does not take: each with
# its value.


class Trace:
    """One input (a perf.data recording, a snapshot directory, a raw
    trace file) with `etmkit decode` options, to iterate in bulk.

    Each iterator decodes the input afresh with the CLI's own code, a
    piece at a time (an AUX record of a perf.data, 1 MiB of a raw file),
    and yields NumPy arrays of ``batch`` rows (the last has the rest).
    Errors are etmkit.Error with the CLI's message and exit class; decode
    errors in the trace are gap elements, as in `etmkit decode`.
    """

    def __init__(self, path: Union[PathLike, None], *args: object,
                 **options: object):
        self._argv = ([] if path is None else [_path(path)]) + \
            cli_args(*args, **options)
        # the iterators not yet finished, for close()
        self._streams: list[_etmkit.Stream] = []
        self._closed = False

    def _stream(self, cmd: str, rows: str, argv: list[str],
                batch: int) -> _etmkit.Stream:
        if self._closed:
            raise ValueError("I/O operation on a closed etmkit.Trace")
        # decode: one thread unless told; the caller's thread fills the
        # arrays, and a decode thread beside it only adds hand-over costs
        # (bench_python: 194 against 312 MB/s); the rows are the same
        # whatever --jobs (`etmkit decode --help`).
        if cmd == "decode" and not any(
                a in ("-j", "--jobs") or a.startswith("--jobs=")
                for a in argv):
            argv = argv + ["--jobs", "1"]
        s = _etmkit._cli_stream(cmd, [cmd, *argv], rows, batch)
        self._streams = [t for t in self._streams if not t.finished]
        self._streams.append(s)
        return s

    def _without(self, names: tuple[str, ...], valued: bool) -> list[str]:
        out, skip = [], False
        for a in self._argv:
            if skip:
                skip = False
            elif a in names:
                skip = valued
            elif not any(a.startswith(n + "=") for n in names):
                out.append(a)
        return out

    def _for_packets(self) -> list[str]:
        """The decode options `etmkit packets` also takes (the CLI's
        option table says which): --elf, --ranges, --pid ... left out."""
        out, skip = [], False
        for a in self._argv:
            if skip:
                skip = False
                continue
            if a.startswith("--") and len(a) > 2:
                name = a[2:].split("=", 1)[0]
                if _etmkit._option_takes_value("packets", name) is None:
                    skip = "=" not in a and bool(
                        _etmkit._option_takes_value("decode", name))
                    continue
            out.append(a)
        return out

    def blocks(self, batch: int = 8192) -> _etmkit.Stream:
        """BLOCK_DTYPE arrays: the input decoded as `etmkit decode
        --ranges` decodes it, its insn_range records."""
        argv = self._without(("--ranges",), False) + ["--ranges"]
        return self._stream("decode", "blocks", argv, batch)

    def instructions(self, batch: int = 8192) -> _etmkit.Stream:
        """INSN_DTYPE arrays: the insn records of `etmkit decode`."""
        return self._stream("decode", "instructions",
                            self._without(("--ranges",), False), batch)

    def elements(self, batch: int = 8192) -> _etmkit.Stream:
        """ELEM_DTYPE arrays: every record of `etmkit decode` with the
        options given (``ranges=True``: blocks instead of instructions)."""
        return self._stream("decode", "elements", self._argv, batch)

    def packets(self, batch: int = 8192) -> _etmkit.Stream:
        """PACKET_DTYPE arrays: the records of `etmkit packets` (the
        decode options packets does not take, such as the image options,
        left out)."""
        return self._stream("packets", "packets", self._for_packets(),
                            batch)

    def close(self) -> None:
        """Stop every iterator made so far; the Trace makes no more
        (ValueError)."""
        for s in self._streams:
            s.close()
        self._streams.clear()
        self._closed = True

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._closed

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open(path: Union[PathLike, None], *args: object,
         **options: object) -> Trace:
    """A Trace of PATH with the `etmkit decode` options ARGS and OPTIONS
    (see cli_args: ``elf=["a", "b"]``, ``id=0x10``, ``frames="none"``,
    ``protocol="ete"``, ...); PATH None for ``snapshot=DIR``."""
    return Trace(path, *args, **options)


def _path(p: object, what: str = "input") -> str:
    """Path P (str, bytes or os.PathLike) as a str (os.fsdecode)."""
    if isinstance(p, (str, bytes, os.PathLike)):
        return os.fsdecode(p)
    raise TypeError(f"etmkit: {what} must be a path (str, bytes or "
                    f"os.PathLike), not {type(p).__name__}")


def _paths(inputs: object) -> list[str]:
    """INPUTS, a path or an iterable of paths, as a list of str."""
    if isinstance(inputs, (str, bytes, os.PathLike)):
        return [_path(inputs)]
    try:
        items = iter(inputs)          # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"etmkit: inputs must be a path (str, bytes or "
                        f"os.PathLike) or an iterable of paths, not "
                        f"{type(inputs).__name__}") from None
    return [_path(i) for i in items]


def expand_inputs(inputs: Union[PathLike, Iterable[PathLike]]) -> list[str]:
    """The paths `etmkit profile INPUT...` reads for INPUTS, as the CLI
    expands them: a file as it is; a directory with snapshot.ini as one
    snapshot; any other directory as every perf.data file under it
    (recursively, by its PERFILE2 magic, sorted bytewise); ``@LIST`` as
    the INPUTs listed in file LIST (one a line, # comments, relative to
    the list's folder). INPUTS is one path (str, bytes, os.PathLike) or
    an iterable of them; TypeError for anything else. Error (exit_class
    3) names a list line or directory that gives nothing."""
    return _etmkit._cli_inputs_expand(_paths(inputs))


def profile(inputs: Union[PathLike, Iterable[PathLike]], *args: object,
            format: str = "autofdo", **options: object) -> Profile:
    """The Profile `etmkit profile --format FORMAT` (or, for "lcov",
    `etmkit coverage`) counts from INPUTS with the options ARGS and
    OPTIONS (see cli_args; e.g. ``elf=[...]``, ``symfs=...``).

    INPUTS is a path (str, bytes, os.PathLike) or an iterable of them,
    expanded as the CLI does (expand_inputs). Each input is counted alone, by the CLI's own code,
    and the parts are merged: ``p.write(...)`` then writes what the CLI
    writes for the same inputs. An input that cannot be counted raises
    Error with the CLI's message (exit_class 2 usage, 3 input); decode
    errors in the trace do not: they are counted (``p.decode_errors``).
    """
    cmd = "coverage" if format == "lcov" else "profile"
    opts = cli_args(*args, **options)
    if cmd == "profile":
        opts = ["--format", format] + opts
    parts = [_etmkit._cli_part_make(cmd, [cmd, *opts, path])
             for path in expand_inputs(inputs)]
    if not parts:
        raise Error("no input")
    return parts[0] if len(parts) == 1 else merge(parts)   # no copy of one


def _profile_write(p: Profile, path: Union[PathLike, None],
                   *args: object, format: Union[str, None] = None,
                   **options: object) -> Union[str, int]:
    """Profile.write (see its docstring): the CLI's status (0, or 1 after
    decode errors) when writing to PATH, the text when PATH is None."""
    cmd, default = _KIND_WRITE.get(p.kind, ("profile", None))
    fmt = format or default
    opts = cli_args(*args, **options)
    if fmt:       # coverage's --format too (lcov, text)
        opts = ["--format", fmt] + opts
    if path is not None:
        return _etmkit._cli_part_write(
            cmd, [cmd, *opts, "-o", _path(path, "path")], p)
    with tempfile.TemporaryDirectory(prefix="etmkit-") as tmp:
        out = os.path.join(tmp, "out")
        _etmkit._cli_part_write(cmd, [cmd, *opts, "-o", out], p)
        with builtins.open(out, encoding="utf-8",
                           errors="surrogateescape") as f:
            return f.read()


KINDS: dict[str, int] = {elem_kind_name(k): k
                         for k in range(1, _etmkit.ELEM_KIND_COUNT)}
"""Element kinds by name ("insn", "trace_on", ...): ELEM_DTYPE's kind."""

__version__: str = _etmkit.__version__
"""The library's version (etmkit_version())."""


def merge(profiles: Iterable[Profile]) -> Profile:
    """The merge of PROFILES (at least one), as a new Profile.

    Pairs are merged level by level (a tree: each count is added log2(n)
    times, not n); the result is the same in any order, since counts add
    and the saved form is canonical. The inputs are left as they are.
    """
    level = list(profiles)
    if not level:
        raise ValueError("etmkit.merge() needs at least one Profile")
    if len(level) == 1:
        return Profile.from_bytes(level[0].to_bytes())   # a copy
    while len(level) > 1:
        nxt = [level[i].merge(level[i + 1])
               for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def _option(key: str) -> str:
    return "--" + key.replace("_", "-")


def cli_args(*args: object, **options: object) -> list[str]:
    """The `etmkit` command-line arguments ARGS and OPTIONS stand for.

    ARGS are taken as they are (each made a string). Each keyword becomes
    a long option, its underscores dashes: ``frames="none"`` is
    ``--frames none``, ``id=0x10`` is ``--id 16``; ``True`` is the bare
    flag (``cycles=True``: ``--cycles``); ``False`` and ``None`` leave it
    out; a list or tuple repeats it (``elf=["a", "b"]``: ``--elf a --elf
    b``). Keywords follow the positional arguments, in the order given.
    """
    argv = [str(a) for a in args]
    for key, value in options.items():
        if value is None or value is False:
            continue
        opt = _option(key)
        if value is True:
            argv.append(opt)
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [opt, str(v)]
        else:
            argv += [opt, str(value)]
    return argv
