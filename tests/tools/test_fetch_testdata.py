#!/usr/bin/env python3
"""tools/fetch-testdata without the network: small fake archives laid out
like the real sources (a GitHub tag archive with a top folder, a gitiles
folder archive without one) in a --mirror folder, a manifest naming their
files by SHA-256, then: a fetch, a second run with nothing to do, an
archive with a corrupted file (must fail and leave no bad file), a member
missing from its archive, the project's copy (--shared) used as it is,
damaged or with an unlisted file, and the committed manifest's own shape.

    test_fetch_testdata.py --tool tools/fetch-testdata --manifest tools/testdata-manifest.txt
"""
import argparse
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

FILES = {  # path below testdata/ -> (source, member, content)
    "etmv3/X/cstrace.bin": ("opencsd", "decoder/tests/snapshots/X/cstrace.bin",
                            bytes(range(256)) * 4),
    "etmv3/X/snapshot.ini": ("opencsd", "decoder/tests/snapshots/X/snapshot.ini",
                             b"[snapshot]\nversion=1.0\n"),
    "ete/Y/session1.bin": ("opencsd", "decoder/tests/snapshots-ete/Y/session1.bin",
                           b"\x00" * 11 + b"\x80"),
    "perf/perf_etm.data": ("aosp", "perf.data", b"PERFILE2" + b"\x01" * 40),
}
GENERATED = ("etmv3/X/ocsd-1.8.0-decode.ppl", "generated: a listing")
# What the fake OpenCSD's trc_pkt_lister writes there (--listings).
LISTING = b"listing X -ss_dir . -decode -logfilename ocsd-1.8.0-decode.ppl\n"
# The fake OpenCSD's build: a trc_pkt_lister that writes its folder's name
# and its arguments to the -logfilename file, and a stray file besides.
MAKEFILE = (b"all:\n"
            b"\tmkdir -p ../../tests/bin/builddir ../../lib/builddir\n"
            b"\tprintf '#!/bin/sh\\necho \"listing $$(basename $$(pwd)) $$*\" >\"$$5\"\\n"
            b"echo stray >trc_pkt_lister.ppl\\n' >../../tests/bin/builddir/trc_pkt_lister\n"
            b"\tchmod +x ../../tests/bin/builddir/trc_pkt_lister\n"
            b"\ttouch ../../lib/builddir/libopencsd_c_api.so\n")

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def sha(b):
    return hashlib.sha256(b).hexdigest()


def make_tar(path, top, members):
    with tarfile.open(path, "w:gz") as t:
        if top:
            d = tarfile.TarInfo(top)
            d.type = tarfile.DIRTYPE
            t.addfile(d)
        for name, data in members.items():
            ti = tarfile.TarInfo((top + "/" if top else "") + name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))


def make_mirror(d, corrupt=None, drop=None):
    os.makedirs(d)
    ocsd, aosp = {}, {}
    for path, (src, member, data) in FILES.items():
        if path == drop:
            continue
        if path == corrupt:
            data = data[:-1] + bytes([data[-1] ^ 1])
        (ocsd if src == "opencsd" else aosp)[member] = data
    ocsd["decoder/tests/snapshots/X/unused.txt"] = b"not wanted\n"
    ocsd["decoder/build/linux/makefile"] = MAKEFILE
    make_tar(os.path.join(d, "Fake-1.0.tar.gz"), "Fake-1.0", ocsd)
    make_tar(os.path.join(d, "etm.tar.gz"), None, aosp)


def write_manifest(path, listing_sha=None):
    with open(path, "w") as f:
        f.write("# fake\nsource opencsd Fake-1.0.tar.gz 1 https://invalid.example/ocsd.tar.gz\n"
                "source aosp etm.tar.gz 0 https://invalid.example/etm.tar.gz\n")
        for p, (src, member, data) in FILES.items():
            f.write(f"{sha(data)} {p} {src} {member}\n")
        f.write(f"{listing_sha or sha(LISTING)} {GENERATED[0]} - {GENERATED[1]}\n")


def run(tool, *args):
    env = dict(os.environ)
    env.pop("CI", None)
    r = subprocess.run([sys.executable, tool] + list(args), capture_output=True,
                       text=True, env=env)
    print("  $ fetch-testdata " + " ".join(args) + f"  -> {r.returncode}")
    print("".join("    " + l + "\n" for l in r.stdout.splitlines()), end="")
    return r.returncode, r.stdout + r.stderr


def all_present(out, skip=()):
    for p, (_, _, data) in FILES.items():
        if p in skip:
            continue
        f = os.path.join(out, "testdata", p)
        if not os.path.isfile(f) or open(f, "rb").read() != data:
            return False
    return True


def real_manifest(path):
    sources, entries = set(), []
    with open(path) as f:
        for line in f:
            w = line.strip().split(None, 3)
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "source":
                sources.add(w[1])
                check(w[3].split()[1].startswith("https://"),
                      f"manifest: source {w[1]} has an https URL")
            else:
                entries.append(w)
    check(sources == {"opencsd", "aosp"}, "manifest: sources opencsd and aosp")
    paths = [e[1] for e in entries]
    check(len(paths) == len(set(paths)), "manifest: each path once")
    check(all(len(e) == 4 and len(e[0]) == 64 and e[2] in sources | {"-"}
              for e in entries), "manifest: every file line well formed")
    check(any(e[1] == "etmv3/TC2/cstrace.bin" and e[2] == "opencsd" and
              e[3] == "decoder/tests/snapshots/TC2/cstrace.bin" for e in entries),
          "manifest: TC2's capture from OpenCSD's snapshots")
    check(all(e[2] == "-" for e in entries if e[1].endswith("ocsd-1.8.0-decode.ppl")),
          "manifest: the 1.8.0 listings are marked as in no public source")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--manifest", required=True)
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    work = tempfile.mkdtemp(prefix="fetch-testdata-")
    try:
        man = os.path.join(work, "manifest.txt")
        write_manifest(man)
        good = os.path.join(work, "mirror")
        make_mirror(good)
        common = ["--manifest", man, "--shared", "none"]

        out = os.path.join(work, "out")
        rc, text = run(tool, *common, "--mirror", good, out)
        check(rc == 0 and all_present(out), "fetch from the mirror: every file, verified")
        check("4 of 4 public files verified" in text, "fetch: says how many were verified")
        check(GENERATED[0] in text and not os.path.exists(
            os.path.join(out, "testdata", GENERATED[0])),
              "fetch: the unavailable file is named, not invented")
        check(not os.path.exists(os.path.join(out, "testdata", "etmv3/X/unused.txt")),
              "fetch: only the manifest's files are extracted")

        rc, text = run(tool, *common, "--mirror", os.path.join(work, "none"), out)
        check(rc == 0, "second run: nothing to fetch, no archive needed")
        rc, text = run(tool, *common, "--check", out)
        check(rc == 0, "--check of the fetched folder passes")

        bad = os.path.join(work, "mirror-bad")
        make_mirror(bad, corrupt="etmv3/X/cstrace.bin")
        out2 = os.path.join(work, "out2")
        rc, text = run(tool, *common, "--mirror", bad, out2)
        check(rc == 1, "corrupted file in the archive: fails")
        check("etmv3/X/cstrace.bin: SHA-256 differs" in text, "corrupted: names the file")
        check(not os.path.exists(os.path.join(out2, "testdata", "etmv3/X/cstrace.bin")),
              "corrupted: the bad file is removed")
        check(all_present(out2, skip=("etmv3/X/cstrace.bin",)),
              "corrupted: the good files are kept")

        # A file changed after the fetch is fetched again.
        with open(os.path.join(out, "testdata", "ete/Y/session1.bin"), "ab") as f:
            f.write(b"!")
        rc, text = run(tool, *common, "--check", out)
        check(rc == 1 and "ete/Y/session1.bin: SHA-256 differs" in text,
              "--check: a damaged file fails")
        rc, text = run(tool, *common, "--mirror", good, out)
        check(rc == 0 and all_present(out), "a damaged file is fetched again")

        gone = os.path.join(work, "mirror-gone")
        make_mirror(gone, drop="perf/perf_etm.data")
        out3 = os.path.join(work, "out3")
        rc, text = run(tool, *common, "--mirror", gone, out3)
        check(rc == 1 and "perf/perf_etm.data: not found as perf.data" in text,
              "member missing from its archive: fails, names it")

        # The project's copy beside the clone: used as it is, nothing fetched.
        shared = os.path.join(work, "shared")
        shutil.copytree(os.path.join(out, "testdata"), os.path.join(shared, "testdata"))
        with open(os.path.join(shared, "testdata", "README.md"), "w") as f:
            f.write("about\n")
        nomirror = ["--mirror", os.path.join(work, "none")]
        rc, text = run(tool, "--manifest", man, "--shared", shared, *nomirror)
        check(rc == 0 and "using" in text, "project copy present: used, no download")
        extra = os.path.join(shared, "testdata", "etmv3", "X", "new.bin")
        with open(extra, "wb") as f:
            f.write(b"new")
        rc, text = run(tool, "--manifest", man, "--shared", shared, *nomirror)
        check(rc == 1 and "etmv3/X/new.bin: not in the manifest" in text,
              "project copy: a file the manifest lacks fails")
        os.remove(extra)
        with open(os.path.join(shared, "testdata", "etmv3/X/snapshot.ini"), "a") as f:
            f.write("x=1\n")
        rc, text = run(tool, "--manifest", man, "--shared", shared, *nomirror)
        check(rc == 1 and "etmv3/X/snapshot.ini: SHA-256 differs" in text,
              "project copy: a changed file fails")

        # --listings: OpenCSD built from the same archive lists the snapshot.
        out4 = os.path.join(work, "out4")
        rc, text = run(tool, *common, "--mirror", good, "--listings", out4)
        lst = os.path.join(out4, "testdata", GENERATED[0])
        check(rc == 0 and os.path.isfile(lst) and open(lst, "rb").read() == LISTING,
              "--listings: the listing is made and verified")
        check("1 of 1 OpenCSD listings made and verified" in text,
              "--listings: says so")
        check(not os.path.exists(os.path.join(out4, "testdata", "etmv3/X/trc_pkt_lister.ppl")),
              "--listings: nothing else is left in the snapshot")
        rc, text = run(tool, *common, "--check", out4)
        check(rc == 0, "--listings: --check passes with the listing")
        man2 = os.path.join(work, "manifest2.txt")
        write_manifest(man2, listing_sha="0" * 64)
        out5 = os.path.join(work, "out5")
        rc, text = run(tool, "--manifest", man2, "--shared", "none", "--mirror", good,
                       "--listings", out5)
        check(rc == 1 and "differs from the manifest's SHA-256; removed" in text and
              not os.path.exists(os.path.join(out5, "testdata", GENERATED[0])),
              "--listings: a listing that differs fails and is removed")

        rc, _ = run(tool, "--manifest", man, "--shared", "none", "--check",
                    os.path.join(work, "empty"))
        check(rc == 77, "--check of a folder without testdata/: 77 (skipped)")
        rc, _ = run(tool, "--bogus")
        check(rc == 2, "unknown option: usage, 2")

        real_manifest(a.manifest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"test_fetch_testdata: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
