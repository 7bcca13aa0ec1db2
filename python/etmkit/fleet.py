"""Profiles of many recordings on a Dask cluster (docs/fleet.md).

    python3 -m etmkit.fleet --scheduler local:N|tcp://HOST:PORT
        --format autofdo|bolt|lcov -o OUT [fleet options]
        [etmkit profile / coverage options] INPUT...

The output is byte for byte what the serial
`etmkit profile --format F -o OUT [options] INPUT...` (lcov:
`etmkit coverage`) writes, and the exit status is the serial CLI's: 0; 1
when inputs were left out or had decode errors (the profile is written
from the rest); 3 (2 for usage) when no input could be decoded. One
difference: when two inputs' partial profiles conflict (a binary placed
differently), the serial command leaves out the later in input order,
the fleet the one that reached the merge later (docs/fleet.md).

Fleet options:
  --scheduler local:N   start a local cluster of N worker processes (one
                        thread each) on 127.0.0.1
  --scheduler tcp://HOST:PORT
                        use the running scheduler there (`dask scheduler`)
  --format F            autofdo, bolt (`etmkit profile`) or lcov
                        (`etmkit coverage`)
  -o OUT                the profile, written by this process
  --split-above SIZE    recordings larger than SIZE bytes (K, M, G
                        suffixes; default 64M) are decoded one task per
                        trace ID (a perf.data file's trace IDs are
                        decoded independently), listed by a task first;
                        one ID refused leaves the whole recording out
  --local-directory DIR (local:N) the workers' scratch folder (default: a
                        new temporary folder, removed at the end)

Every other option is an `etmkit profile` (or `etmkit coverage`) option:
checked once before any task, given to every task (file paths made
absolute, `--jobs 1` added) and to the writer.

How it runs: one task per recording (or per trace ID of a large one);
each task decodes its input into a partial profile (`etmkit.profile`) and
returns it serialised, or the reason it was refused; tasks have no side
effects, so Dask may run one again when a worker is lost. Partial
profiles are merged on the workers as they complete, eight at a time
(`Profile.merge`, one part at a time), and only the final one comes back here to be written
(`Profile.write`). The merge adds counts and the serialised form is
canonical, so the result does not depend on which task finished first.

The module's top level only defines things: Dask starts its workers with
the spawn method, and each of them imports this module again.
"""
import contextlib
import importlib
import os
import re
import shutil
import sys
import tempfile
import time
import uuid

PROG = "etmkit fleet"
FAN_IN = 8
DEFAULT_SPLIT_ABOVE = 64 << 20
FORMATS = {"autofdo": "profile", "bolt": "profile", "lcov": "coverage"}
# Options whose value is a file or folder the workers open: made absolute
# (a worker's working directory is not ours). FILE@ADDR / FILE@BIAS forms
# keep their suffix.
PATH_OPTIONS = {"--elf", "--image", "--symfs", "--buildid-dir", "--vmlinux"}
# Options that choose inputs or threads per input: fleet decides those.
REFUSED = {"--snapshot": "give the snapshot folder as an INPUT",
           "--buffer": "give each snapshot as an INPUT (its first buffer)"}
JOBS = {"-j", "--jobs"}
# What the fleet uses of the package.
API = ("profile", "Profile", "expand_inputs", "Error")


class UsageError(Exception):
    """A fleet command line that cannot run (exit 2)."""


# ---- tasks (run on the workers; pure) ------------------------------------

def _api(name):
    return importlib.import_module(name)


def _exit_class(e):
    return int(getattr(e, "exit_class", 3))


def _reason_of(e, path):
    """An etmkit.Error's message as a reason for path: without the path
    the CLI's message starts with (the summary names the file once)."""
    text = str(e)
    return text[len(path) + 2:] if text.startswith(path + ": ") else text


def decode_task(api, fmt, args, index, path, trace_id):
    """Decode one input (one trace ID of it, when trace_id is not None)
    into a partial profile.

    Returns an outcome (part, left_out, decode_errors, inputs): part is
    the serialised partial profile (bytes) or None; left_out a list of
    (index, path, reason, exit_class); decode_errors a list of
    (index, path, count); inputs the (index, path) of what part holds."""
    m = _api(api)
    a = list(args)
    if trace_id is not None:
        a += ["--id", "0x%x" % trace_id]
    try:
        p = m.profile(path, *a, format=fmt)
    except m.Error as e:
        return (None, [(index, path, _reason_of(e, path), _exit_class(e))],
                [], [])
    errors = [(index, path, int(p.decode_errors))] if p.decode_errors else []
    return (bytes(p), [], errors, [(index, path)])


def merge_task(api, *outcomes):
    """Merge outcomes: the partial profiles summed one by one, the lists
    joined. A part the merge refuses (a binary of the same name and build
    id placed differently: different files found) is not merged: its
    inputs go to left_out with the reason, as the serial CLI leaves out
    an input whose part it cannot merge."""
    m = _api(api)
    total, left_out, errors, inputs = None, [], [], []
    for part, lo, errs, ins in outcomes:
        left_out += lo
        if part is None:
            continue
        p = m.Profile.from_bytes(part)
        try:
            total = p if total is None else total.merge(p)
        except m.Error as e:
            left_out += [(i, path, _reason_of(e, path), _exit_class(e))
                         for i, path in ins]
            continue
        errors += errs
        inputs += ins
    return (None if total is None else bytes(total), left_out, errors,
            inputs)


def recording_task(api, index, path, *outcomes):
    """The outcome of a recording split per trace ID, from those of its
    IDs (in ID order): their merge when every ID was decoded and merged;
    else the whole recording left out with the first reason, as the
    serial CLI counts a recording whole or not at all."""
    merged = merge_task(api, *outcomes)
    gone = [x for o in outcomes for x in o[1]] or merged[1]
    if gone:
        _, _, reason, cls = gone[0]
        return (None, [(index, path, reason, cls)], [], [])
    return merged


def trace_ids_task(api, path):
    """The trace IDs of a recording, sorted, for splitting it; None when
    they cannot be listed (the recording is then one task, which says
    what is wrong with it). etmkit.trace_ids when the package has it,
    else the IDs its packets carry (a packet decode: about a third of
    what profiling it costs, docs/fleet.md)."""
    m = _api(api)
    try:
        lister = getattr(m, "trace_ids", None)
        if lister is not None:
            return sorted(set(int(t) for t in lister(path))) or None
        import numpy
        ids = set()
        with m.open(path) as t:
            for a in t.packets():
                ids.update(int(x) for x in numpy.unique(a["id"]))
        return sorted(ids) or None
    except Exception:    # noqa: BLE001 (any refusal: one task reports it)
        return None


# ---- the command line -----------------------------------------------------

def parse_size(text):
    """'64M' -> 67108864 (K, M, G: powers of 1024; a B or iB after them
    is allowed)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmg]?)(i?b)?\s*", text, re.IGNORECASE)
    v = int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[
        m.group(2).lower()] if m else 0
    if v <= 0:
        raise UsageError(f"invalid size '{text}' for --split-above: "
                         "expected a number of bytes above 0, optionally "
                         "with K, M or G")
    return v


class Options:
    """What the fleet's command line says."""

    def __init__(self):
        self.scheduler = None
        self.format = None
        self.out = None
        self.split_above = DEFAULT_SPLIT_ABOVE
        self.local_directory = None
        self.quiet = False
        self.cli = []       # etmkit options, as typed (paths made absolute)
        self.inputs = []


# An input no one has. The CLI parses the options before it looks at its
# input: given this one, options that parse end in its refusal.
NO_INPUT = "/nonexistent/etmkit-fleet-option-check"


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 to /dev/null: the CLI core prints its messages
    there too, and the probes' messages are not the user's business."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def parse_probe(api, fmt, args):
    """The message of the CLI refusing args followed by an input that is
    not there (None if it did not refuse)."""
    m = _api(api)
    try:
        with _quiet_stderr():
            m.profile(NO_INPUT, *args, format=fmt)
    except m.Error as e:
        return str(e) if _exit_class(e) == 2 else ""
    return None


def _takes_value(fmt, opt):
    """Whether the etmkit option opt (as typed: --name or -x) takes a
    separate value, by the CLI's own option table. An option the command
    does not have takes none here: the check refuses it."""
    if opt.startswith("--"):
        name = opt[2:]
    elif len(opt) == 2:
        name = opt[1]
    else:
        return False            # -xVALUE: the value is attached
    table = importlib.import_module("etmkit._etmkit")
    return bool(table._option_takes_value(FORMATS[fmt], name))


def check_options(api, o):
    """Refuse bad etmkit options before any task: only the missing input
    may be refused."""
    text = parse_probe(api, o.format, o.cli)
    if text and "a raw file needs --protocol" not in text:
        if "no input" in text:       # the last option took it as its value
            text = f"option '{o.cli[-1]}' needs a value"
        raise UsageError(text)


def _absolute(value):
    if os.path.exists(value):
        return os.path.abspath(value)
    head, at, tail = value.rpartition("@")
    if at and head and os.path.exists(head):
        return os.path.abspath(head) + "@" + tail
    return value


def parse_args(argv, api="etmkit"):
    """The fleet's options, the etmkit options and the inputs of argv."""
    o = Options()
    # the command (profile or coverage) decides the option table
    for k, a in enumerate(argv):
        if a == "--":
            break
        if a.startswith("--format="):
            o.format = a.split("=", 1)[1]
        elif a == "--format" and k + 1 < len(argv):
            o.format = argv[k + 1]
    i = 0
    only_inputs = False

    def value(name):
        nonlocal i
        if "=" in argv[i] and argv[i].startswith("--"):
            return argv[i].split("=", 1)[1]
        if argv[i] != name:          # -oFILE
            return argv[i][len(name):]
        if i + 1 >= len(argv):
            raise UsageError(f"option '{name}' needs a value")
        i += 1
        return argv[i]
    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0] if a.startswith("--") else a
        if only_inputs or a == "-" or not a.startswith("-"):
            o.inputs.append(a)
        elif a == "--":
            only_inputs = True
        elif name == "--scheduler":
            o.scheduler = value(name)
        elif name == "--format":
            o.format = value(name)
        elif name == "--output":
            o.out = value(name)
        elif a.startswith("-o"):
            o.out = value("-o")
        elif name == "--split-above":
            o.split_above = parse_size(value(name))
        elif name == "--local-directory":
            o.local_directory = value(name)
        elif name in ("-h", "--help"):
            raise UsageError(None)
        elif name in REFUSED:
            raise UsageError(f"{name} is not a fleet option: "
                             f"{REFUSED[name]}")
        else:
            if name in ("-q", "--quiet"):
                o.quiet = True
            takes = "=" not in a and _takes_value(
                o.format if o.format in FORMATS else "autofdo", a)
            if takes and i + 1 < len(argv):
                i += 1
                v = argv[i]
                if name in JOBS:
                    pass                      # tasks run --jobs 1
                else:
                    o.cli += [a, _absolute(v) if name in PATH_OPTIONS else v]
            elif "=" in a and name in PATH_OPTIONS:
                o.cli.append(name + "=" + _absolute(a.split("=", 1)[1]))
            elif name in JOBS or (a.startswith("-j") and a[2:].isdigit()) \
                    or name.startswith("--jobs="):
                pass
            else:
                o.cli.append(a)
        i += 1
    if not o.scheduler:
        raise UsageError("give --scheduler local:N or tcp://HOST:PORT")
    if o.format not in FORMATS:
        raise UsageError(f"--format must be autofdo, bolt or lcov"
                         f"{'' if o.format is None else ', not ' + repr(o.format)}")
    if not o.out:
        raise UsageError("give -o OUT (the profile is written by this process)")
    if not (o.scheduler.startswith("tcp://") or _local_workers(o.scheduler)):
        raise UsageError(f"invalid --scheduler '{o.scheduler}': "
                         "expected local:N or tcp://HOST:PORT")
    if not o.inputs:
        raise UsageError("no input: give perf.data files, folders or @LIST")
    return o


def _local_workers(scheduler):
    if not scheduler.startswith("local:"):
        return 0
    try:
        n = int(scheduler[6:])
    except ValueError:
        return 0
    return n if 0 < n <= 1024 else 0


# ---- the run --------------------------------------------------------------

class Progress:
    """Tasks done / total on stderr: one line updated in place on a
    terminal, else a line every tenth of the run."""

    def __init__(self, quiet):
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.next = 0
        self.shown = None
        self.t0 = time.monotonic()

    def update(self, done, total, failed):
        """done of total decode tasks (total grows as inputs split)."""
        if self.quiet or (done, total, failed) == self.shown:
            return
        self.shown = (done, total, failed)
        text = (f"{PROG}: {done}/{total} tasks done"
                + (f", {failed} failed" if failed else "")
                + f" ({time.monotonic() - self.t0:.1f} s)")
        if self.tty:
            sys.stderr.write("\r" + text + ("\n" if done == total else ""))
            sys.stderr.flush()
        elif done >= self.next or done == total:
            sys.stderr.write(text + "\n")
            self.next = done + max(1, total // 10)


def plan_tasks(o, paths):
    """(index, path, split) per input: split when it is larger than
    --split-above and neither --id nor --cpu already chose the trace."""
    chosen = any(a.split("=", 1)[0] in ("--id", "--cpu") for a in o.cli)
    plan = []
    for index, path in enumerate(paths):
        try:
            big = os.path.isfile(path) and os.path.getsize(path) > o.split_above
        except OSError:
            big = False
        plan.append((index, path, big and not chosen))
    return plan


def _start(o):
    """The client (and the local cluster it owns, or None)."""
    from distributed import Client, LocalCluster
    n = _local_workers(o.scheduler)
    if not n:
        return Client(o.scheduler), None, None
    tmp = None
    if o.local_directory is None:
        tmp = o.local_directory = tempfile.mkdtemp(prefix="etmkit-fleet-")
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",
                           worker_dashboard_address="127.0.0.1:0",
                           local_directory=o.local_directory)
    return Client(cluster), cluster, tmp


def _reason(exc):
    """A failed task's exception as a reason: KilledWorker (the task's
    workers died) says so."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def reduce_tasks(client, api, fmt, args, plan, progress, token):
    """Submit the tasks of plan (for an input to split: a trace-ID
    listing first, then one decode task per ID and a recording task
    taking all of their outcomes) and merge the recordings' outcomes as
    they complete (fan-in FAN_IN); returns the final outcome."""
    from distributed import as_completed
    ac = as_completed()
    # key -> (kind, index, path): kind "leaf" (a recording's decode),
    # "id" (one trace ID's decode), "rec" (a split recording), "list"
    tasks = {}

    def decode(index, path, tid, kind):
        key = f"etmkit-decode-{token}-{index}" + ("" if tid is None
                                                   else f"-{tid:x}")
        f = client.submit(decode_task, api, fmt, args, index, path, tid,
                          key=key, pure=False)
        tasks[f.key] = (kind, index, path)
        ac.add(f)
        return f
    for index, path, split in plan:
        if split:
            f = client.submit(trace_ids_task, api, path,
                              key=f"etmkit-ids-{token}-{index}", pure=False)
            tasks[f.key] = ("list", index, path)
            ac.add(f)
        else:
            decode(index, path, None, "leaf")
    ready, lost = [], []
    done = inflight = merges = 0
    listing = sum(1 for t in tasks.values() if t[0] == "list")
    decodes = len(tasks) - listing
    for f in ac:
        kind, index, path = tasks.pop(f.key, ("merge", None, None))
        if kind == "list":
            listing -= 1
            ids = f.result() if f.status == "finished" else None
            if not ids:
                decode(index, path, None, "leaf")
                decodes += 1
                continue
            futs = [decode(index, path, tid, "id") for tid in ids]
            decodes += len(futs)
            r = client.submit(recording_task, api, index, path, *futs,
                              key=f"etmkit-rec-{token}-{index}", pure=False)
            tasks[r.key] = ("rec", index, path)
            ac.add(r)
            inflight += 1
            continue
        if kind in ("leaf", "id"):
            done += 1
        else:
            inflight -= 1
        if kind == "id":
            pass            # its recording task takes its outcome
        elif f.status == "error":
            exc = f.exception()
            if kind == "merge":
                raise RuntimeError(f"merging partial profiles: {_reason(exc)}")
            # a task that killed its worker allowed-failures + 1 times
            # (a crash on this input), or raised outside etmkit
            lost.append((index, path, _reason(exc), 3))
        else:
            ready.append(f)
        progress.update(done, decodes + listing, len(lost))
        final = not listing and done == decodes and inflight == 0
        while len(ready) >= FAN_IN or (final and len(ready) > 1):
            group, ready = ready[:FAN_IN], ready[FAN_IN:]
            merges += 1
            m = client.submit(merge_task, api, *group,
                              key=f"etmkit-merge-{token}-{merges}", pure=False)
            ac.add(m)
            inflight += 1
            final = False
    if ready:
        part, left_out, errors, _ = ready[0].result()
    else:
        part, left_out, errors = None, [], []
    return part, left_out + lost, errors


def report(o, paths, left_out, errors):
    """The end-of-run summary on stderr: inputs left out (file and
    reason), inputs with decode errors (counted)."""
    out = sys.stderr
    gone = {}
    for index, path, reason, cls in sorted(left_out):
        gone.setdefault(index, (path, reason, cls))
    for index, (path, reason, _) in sorted(gone.items()):
        out.write(f"{PROG}: left out: {path}: {reason}\n")
    counted = {}
    for index, path, n in errors:
        counted[index] = (path, counted.get(index, (path, 0))[1] + n)
    for index, (path, n) in sorted(counted.items()):
        if index in gone:
            continue
        out.write(f"{PROG}: {path}: {n} decode error{'s' * (n != 1)} in "
                  "the trace (gaps); counted\n")
    if gone:
        out.write(f"{PROG}: {len(gone)} of {len(paths)} inputs left out\n")
    return gone, counted


def run(argv, api="etmkit"):
    """The fleet command; returns its exit status. api names the module
    giving profile, Profile, expand_inputs and Error (etmkit; the
    tests pass a stand-in)."""
    missing = [n for n in API if not hasattr(_api(api), n)]
    if missing and not ({"-h", "--help"} & set(argv)):
        sys.stderr.write(f"{PROG}: this {api} package lacks "
                         f"{', '.join(missing)}: build it with the profile "
                         "API (docs/python.md)\n")
        return 2
    try:
        o = parse_args(argv, api)
        check_options(api, o)
    except UsageError as e:
        if e.args[0] is None:
            sys.stdout.write(__doc__)
            return 0
        sys.stderr.write(f"{PROG}: {e} (see python3 -m etmkit.fleet --help)\n")
        return 2
    m = _api(api)
    try:
        paths = m.expand_inputs(o.inputs)
    except m.Error as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return _exit_class(e)
    if not paths:
        # the serial CLI's usage error (exit 2), before any cluster
        sys.stderr.write(f"{PROG}: no input: {' '.join(o.inputs)} gave no "
                         "file (see python3 -m etmkit.fleet --help)\n")
        return 2
    plan = plan_tasks(o, paths)
    args = o.cli + ["--jobs", "1"]
    client = cluster = tmp = None
    try:
        client, cluster, tmp = _start(o)
        part, left_out, errors = reduce_tasks(
            client, api, o.format, args, plan, Progress(o.quiet),
            uuid.uuid4().hex[:12])
    except RuntimeError as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return 3
    except OSError as e:       # the scheduler cannot be reached (timeouts too)
        sys.stderr.write(f"{PROG}: scheduler {o.scheduler}: {e}\n")
        return 3
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    gone, counted = report(o, paths, left_out, errors)
    if part is None:
        classes = {c for _, _, c in gone.values()}
        return 2 if classes == {2} else 3
    fmt = {} if o.format == "lcov" else {"format": o.format}
    try:
        m.Profile.from_bytes(part).write(o.out, *o.cli, **fmt)
    except m.Error as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return _exit_class(e)
    return 1 if gone or counted else 0


def main():
    import warnings
    # tornado 6.2 on Python 3.11, inside distributed (shown with -W default)
    warnings.filterwarnings("ignore", message="make_current is deprecated",
                            category=DeprecationWarning)
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
