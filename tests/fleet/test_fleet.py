#!/usr/bin/env python3
"""The Dask fleet (python/etmkit/fleet.py) on the corpus of
tests/fleet/make_corpus.py, with 2 local worker processes.

    test_fleet.py --etmkit build/etmkit --corpus DIR --python python [-v]

Stand-in API (tests/fleet/fleet_fakeapi.py: each input's serial profile
by the CLI, counted per input): the fleet's scheduling, merging, failure
lists and fault handling. Each good or AUX-damaged recording must be
counted exactly once, the others listed as left out with their file and
reason; a worker SIGKILLed in the middle of the run changes nothing.

The etmkit package (helper py's etmkit.profile) with the multi-input
serial CLI: the fleet's AutoFDO and BOLT files equal `etmkit profile
... @LIST` byte for byte, also when every recording is split per trace
ID and when a worker is killed. Skipped until both are there.

Exits 77 when Dask is missing (fails with CI=true).
"""
import contextlib
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

A = {}


def arg(name):
    i = sys.argv.index(name)
    v = sys.argv[i + 1]
    del sys.argv[i:i + 2]
    return v


def quiet_warnings():
    # tornado 6.2 on Python 3.11, from distributed's event loops
    warnings.filterwarnings("ignore", message="make_current is deprecated",
                            category=DeprecationWarning)


def run_fleet(argv, api):
    """fleet.run in this process: (exit status, stderr text)."""
    from etmkit import fleet
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = fleet.run(argv, api=api)
    return rc, err.getvalue()


def cli(*args):
    return subprocess.run([A["etmkit"]] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def local_cluster():
    from distributed import Client, LocalCluster
    tmp = tempfile.mkdtemp(prefix="fleet-test-")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",
                           worker_dashboard_address="127.0.0.1:0",
                           local_directory=tmp)
    return cluster, Client(cluster)


def pending_decodes(dask_scheduler):
    """Decode tasks of the fleet not yet computed (run on the scheduler)."""
    return sum(1 for k, ts in dask_scheduler.tasks.items()
               if str(k).startswith("etmkit-decode-")
               and ts.state not in ("memory", "erred", "released",
                                    "forgotten"))


def held_by(dask_scheduler, addr):
    """The fleet's tasks a worker holds or runs (run on the scheduler)."""
    ws = dask_scheduler.workers.get(addr)
    if ws is None:
        return []
    return sorted(str(ts.key) for ts in list(ws.has_what)
                  + list(ws.processing) if str(ts.key).startswith("etmkit-"))


def run_with_kill(test, argv, api):
    """Run the fleet on a cluster of ours (tcp://) and SIGKILL one worker
    once some but not all decode tasks are done. Returns (rc, stderr,
    pending when killed)."""
    cluster, client = local_cluster()
    try:
        workers = client.run(os.getpid)
        victim = next(iter(workers))
        pids = [workers[victim]]
        held = []
        result = {}

        def go():
            result["r"] = run_fleet(["--scheduler", cluster.scheduler_address]
                                    + argv, api)
        t = threading.Thread(target=go)
        t.start()
        killed_at = None
        deadline = time.monotonic() + 120
        while t.is_alive() and time.monotonic() < deadline:
            n = client.run_on_scheduler(pending_decodes)
            seen = client.run_on_scheduler(
                lambda dask_scheduler: sum(
                    1 for k in dask_scheduler.tasks
                    if str(k).startswith("etmkit-decode-")))
            if killed_at is None and seen and 20 <= n <= 0.8 * A["ntasks"]:
                held = client.run_on_scheduler(held_by, addr=victim)
                if not held:
                    time.sleep(0.005)
                    continue
                os.kill(pids[0], signal.SIGKILL)
                killed_at = n
                break
            time.sleep(0.02)
        t.join(180)
        test.assertFalse(t.is_alive(), "the fleet did not finish")
        test.assertIsNotNone(killed_at, "no worker was killed mid-run")
        # the scheduler saw it hold (or run) fleet tasks: their results
        # were lost with it and had to be computed again
        test.assertTrue(held, "the killed worker held no fleet task")
        after = list(client.run(os.getpid).values())
        test.assertNotIn(pids[0], after, "the killed worker still runs")
        return result["r"] + (killed_at,)
    finally:
        client.close()
        cluster.close()


class Corpus:
    """The manifest, a list file of all recordings, the ELF options."""

    def __init__(self, d):
        with open(os.path.join(d, "corpus.json")) as f:
            self.m = json.load(f)
        self.recs = self.m["recordings"]
        self.list = os.path.join(d, "all.list")
        with open(self.list, "w") as f:
            f.write("# every recording of corpus.json\n")
            for r in self.recs:
                f.write(os.path.relpath(r["file"], d) + "\n")
        self.elfs = [x for e in self.m["elfs"] for x in ("--elf", e)]
        self.left_out = {r["file"] for r in self.recs if r["expect"] >= 2}
        self.errors = {r["file"] for r in self.recs if r["expect"] == 1}


def listed(err, what):
    """Files the fleet's summary names as left out / with decode errors."""
    out = set()
    for line in err.splitlines():
        if what == "left" and line.startswith("etmkit fleet: left out: "):
            out.add(line.split(": ")[2])
        if what == "errors" and line.endswith("in the trace (gaps); counted"):
            out.add(line.split(": ")[1])
    return out


class StandIn(unittest.TestCase):
    """The fleet's mechanics with the stand-in API."""

    @classmethod
    def setUpClass(cls):
        cls.c = Corpus(A["corpus"])
        # what the fleet must write: each decodable input once, with the
        # digest of its serial profile (the CLI run here, not by the fleet)
        lines = []
        for r in cls.c.recs:
            if r["expect"] >= 2:
                continue
            with tempfile.NamedTemporaryFile() as out:
                p = cli("profile", "--format", "autofdo", "-o", out.name,
                        *cls.c.elfs, r["file"])
                assert p.returncode == r["expect"], (r["file"], p.stderr)
                dg = hashlib.sha256(out.read()).hexdigest()[:16]
            lines.append(f"{r['file']} 1 {dg}\n")
        cls.expected = "".join(sorted(lines))

    def argv(self, out, *extra):
        return ["--format", "autofdo", "-o", out, *self.c.elfs, *extra,
                "@" + self.c.list]

    def check(self, rc, err, out):
        self.assertEqual(rc, 1, err)
        with open(out) as f:
            self.assertEqual(f.read(), self.expected)
        self.assertEqual(listed(err, "left"), self.c.left_out, err)
        self.assertEqual(listed(err, "errors"), self.c.errors, err)
        self.assertIn(f"{len(self.c.left_out)} of {len(self.c.recs)} "
                      "inputs left out", err)

    def test_local(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            rc, err = run_fleet(["--scheduler", "local:2"] + self.argv(out),
                                "fleet_fakeapi")
            self.check(rc, err, out)
            # the reason is the CLI's
            self.assertRegex(err, r"left out: \S+: malformed file "
                             r"at offset 16: attr_size")
            self.assertNotRegex(err, r"left out: (\S+): \1:")

    def test_worker_killed(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            rc, err, when = run_with_kill(self, self.argv(out),
                                          "fleet_fakeapi")
            self.check(rc, err, out)

    def test_split(self):
        # every recording split per trace ID: each (input, ID) once
        few = [r for r in self.c.recs if r["expect"] < 2][:12]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            rc, err = run_fleet(
                ["--scheduler", "local:2", "--format", "autofdo", "-o", out,
                 "--split-above", "1", *self.c.elfs]
                + [r["file"] for r in few], "fleet_fakeapi")
            self.assertIn(rc, (0, 1), err)
            with open(out) as f:
                keys = [line.split() for line in f]
        want = {}
        for r in few:
            cpus = int(r["opts"][r["opts"].index("--cpus") + 1])
            # the encoder's metadata: CPUs 0..--cpus-1, ID 0x10 + 2 CPU
            # (one with no process has no trace, but --id finds it)
            for c in range(cpus):
                want[f"{r['file']}#0x{0x10 + 2 * c:x}"] = "1"
        self.assertEqual({k: n for k, n, _ in keys}, want)

    def good(self, n, skip=()):
        """The files of n recordings the CLI decodes, not those of skip
        (file names)."""
        return [r["file"] for r in self.c.recs if r["expect"] < 2
                and os.path.basename(r["file"]) not in skip][:n]

    def test_split_id_refused(self):
        # rec-0000 split per trace ID, one ID of it refused: the whole
        # recording is left out (no part of it merged), as serially
        files = self.good(4, skip=("rec-0001.data",))
        bad = files[0]
        self.assertTrue(bad.endswith("/rec-0000.data"), bad)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            rc, err = run_fleet(
                ["--scheduler", "local:2", "--format", "autofdo", "-o", out,
                 "--split-above", "1", *self.c.elfs] + files,
                "fleet_fakeapi_faults")
            self.assertEqual(rc, 1, err)
            with open(out) as f:
                keys = {line.split()[0] for line in f} - {"binary"}
        self.assertEqual({k.split("#")[0] for k in keys}, set(files[1:]))
        self.assertEqual(listed(err, "left"), {bad}, err)
        self.assertIn(f"left out: {bad}: no CPU of the recording has a "
                      "wanted trace ID", err)
        self.assertIn("1 of 4 inputs left out", err)

    def test_merge_refused(self):
        # two parts the merge refuses: one input left out with the
        # reason, the other written, exit 1 (which one: merge order)
        files = [self.good(1, skip=("rec-0001.data",))[0],
                 self.good(2)[1]]
        self.assertTrue(files[1].endswith("/rec-0001.data"), files)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            rc, err = run_fleet(
                ["--scheduler", "local:2", "--format", "autofdo", "-o", out,
                 *self.c.elfs] + files, "fleet_fakeapi_faults")
            self.assertEqual(rc, 1, err)
            with open(out) as f:
                keys = {line.split()[0] for line in f} - {"binary"}
        self.assertEqual(len(keys), 1, keys)
        left = listed(err, "left")
        self.assertEqual(left | keys, set(files), err)
        self.assertIn(f"left out: {left.pop()}: binary prog: different "
                      "profiles", err)
        self.assertIn("1 of 2 inputs left out", err)

    def test_no_input(self):
        # a list of comments: refused before the cluster (port 9: a run
        # that got that far would wait for the connection), with the
        # serial CLI's message and exit status
        with tempfile.TemporaryDirectory() as d:
            lst = os.path.join(d, "empty.list")
            with open(lst, "w") as f:
                f.write("# nothing yet\n")
            t0 = time.monotonic()
            rc, err = run_fleet(["--scheduler", "tcp://127.0.0.1:9",
                                 "--format", "autofdo", "-o",
                                 os.path.join(d, "out"), "@" + lst],
                                "fleet_fakeapi")
            serial = cli("profile", "@" + lst)
            self.assertEqual(rc, serial.returncode, err)
            self.assertIn(f"etmkit fleet: @{lst}: the list names no input",
                          err)
            self.assertIn(f"@{lst}: the list names no input", serial.stderr)
            self.assertLess(time.monotonic() - t0, 10)
            self.assertFalse(os.path.exists(os.path.join(d, "out")))

    def test_parse_args(self):
        from etmkit import fleet
        elf = self.c.m["elfs"][0]
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(os.path.dirname(elf))
        base = os.path.basename(elf)
        o = fleet.parse_args(
            ["-q", "in1", "--elf", base + "@0x10", "--scheduler=local:3",
             "-j", "4", "--format", "bolt", "--symfs=.", "--binary", "x",
             "-oOUT", "--split-above", "1k", "--jobs=2", "--", "-in2"],
            api="fleet_fakeapi")
        self.assertEqual(o.cli, ["-q", "--elf", elf + "@0x10",
                                 "--symfs=" + os.path.dirname(elf),
                                 "--binary", "x"])
        self.assertEqual(o.inputs, ["in1", "-in2"])
        self.assertEqual((o.scheduler, o.format, o.out, o.split_above,
                          o.quiet), ("local:3", "bolt", "OUT", 1024, True))

    def test_module(self):
        # python3 -m etmkit.fleet (the main guard: workers re-import it)
        p = subprocess.run([sys.executable, "-m", "etmkit.fleet", "--help"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--scheduler local:N", p.stdout)

    def test_bad_option_fails_first(self):
        # nothing listens on port 9: a run that got past the check would
        # wait for the connection (30 s) instead of failing at once
        t0 = time.monotonic()
        rc, err = run_fleet(["--scheduler", "tcp://127.0.0.1:9", "--bogus"]
                            + self.argv("/nonexistent/out"), "fleet_fakeapi")
        self.assertEqual(rc, 2, err)
        self.assertIn("unknown option '--bogus'", err)
        self.assertLess(time.monotonic() - t0, 10)
        for bad in (["--scheduler", "local:x"], ["--format", "profgen"],
                    ["--split-above", "-3"]):
            rc, err = run_fleet(["--scheduler", "tcp://127.0.0.1:9"]
                                + self.argv("/nonexistent/out") + bad,
                                "fleet_fakeapi")
            self.assertEqual(rc, 2, (bad, err))


class Real(unittest.TestCase):
    """The fleet against the serial CLI, byte for byte."""

    @classmethod
    def setUpClass(cls):
        # the package is built with the test (no skip: a missing piece
        # of its API fails here)
        import etmkit
        from etmkit import fleet
        missing = [n for n in fleet.API if not hasattr(etmkit, n)]
        assert not missing, f"etmkit lacks {missing}"
        cls.c = Corpus(A["corpus"])

    def serial(self, d, fmt, *extra):
        ref = os.path.join(d, "serial." + fmt)
        p = cli("coverage" if fmt == "lcov" else "profile", "--format", fmt,
                "-o", ref, *self.c.elfs, *extra, "@" + self.c.list)
        with open(ref, "rb") as f:
            return p.returncode, f.read()

    def fleet(self, d, fmt, *extra, kill=False):
        out = os.path.join(d, "fleet." + fmt)
        argv = ["--format", fmt, "-o", out, *self.c.elfs, *extra,
                "@" + self.c.list]
        if kill:
            rc, err, _ = run_with_kill(self, argv, "etmkit")
        else:
            rc, err = run_fleet(["--scheduler", "local:2"] + argv, "etmkit")
        with open(out, "rb") as f:
            return rc, err, f.read()

    def same(self, fmt, *extra, kill=False, fleet=()):
        with tempfile.TemporaryDirectory() as d:
            src, ref = self.serial(d, fmt, *extra)
            rc, err, got = self.fleet(d, fmt, *fleet, *extra, kill=kill)
            self.assertEqual(rc, src, err)
            self.assertEqual(got, ref)
            self.assertGreater(len(ref), 1000)
            self.assertEqual(listed(err, "left"), self.c.left_out, err)
            self.assertEqual(listed(err, "errors"), self.c.errors, err)
            return err

    def test_autofdo(self):
        self.same("autofdo")

    def test_bolt(self):
        self.same("bolt", "--binary", self.c.m["bolt_binary"])

    def test_split_per_trace_id(self):
        from etmkit import fleet
        good = [r for r in self.c.recs if r["expect"] < 2]
        ids = fleet.trace_ids_task("etmkit", good[0]["file"])
        if not ids:
            # else the split would not happen and the test prove nothing
            self.assertNotEqual(os.environ.get("CI"), "true",
                                "the package cannot list a recording's "
                                "trace IDs")
            self.skipTest("the package cannot list a recording's trace IDs "
                          "(etmkit.trace_ids, or etmkit.open on perf.data)")
        err = self.same("autofdo", fleet=["--split-above", "1"])
        # more decode tasks than recordings: they were split
        total = re.findall(r"\d+/(\d+) tasks done", err)
        self.assertGreater(int(total[-1]), len(self.c.recs) * 3 // 2, err)

    def test_worker_killed(self):
        self.same("autofdo", kill=True)

    def test_lcov(self):
        self.same("lcov")

    def test_bad_option_fails_first(self):
        # nothing listens on port 9 (see StandIn): the real option table
        for bad in (["--bogus"], ["--binary", "("], ["--weight", "x"],
                    ["--elf"]):
            t0 = time.monotonic()
            rc, err = run_fleet(["--scheduler", "tcp://127.0.0.1:9",
                                 "--format", "autofdo", "-o", "/nonexistent",
                                 "@" + self.c.list] + bad, "etmkit")
            self.assertEqual(rc, 2, (bad, err))
            self.assertLess(time.monotonic() - t0, 10, bad)


def main():
    A["etmkit"] = os.path.abspath(arg("--etmkit"))
    A["corpus"] = os.path.abspath(arg("--corpus"))
    pydir = os.path.abspath(arg("--python"))
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("skipped: python3-distributed is not installed")
        return 1 if os.environ.get("CI") == "true" else 77
    if not os.path.exists(os.path.join(A["corpus"], "corpus.json")):
        print("skipped: no corpus (make_corpus.py skipped: no QEMU)")
        return 1 if os.environ.get("CI") == "true" else 77
    sys.path[:0] = [pydir, here]
    # the spawned workers import the task functions by name
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [pydir, here] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    os.environ["ETMKIT_CLI"] = A["etmkit"]
    with open(os.path.join(A["corpus"], "corpus.json")) as f:
        A["ntasks"] = len(json.load(f)["recordings"])
    quiet_warnings()
    prog = unittest.main(exit=False)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
