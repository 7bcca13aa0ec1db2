"""The verdict of a test script: its failures and its skip.

A script calls fail() for each check that does not hold and goes on with
the next one; the failures are collected in FAILS, one list for every
module of the run (a script and the scripts it imports alike, so a failure
counts once whichever module found it), and the script exits 1 if FAILS is
not empty at the end, 0 otherwise.

skip() is for a missing prerequisite (QEMU, a cross compiler, a reader tool
such as llvm-profgen, an input file): the script exits 77, which ctest
reports as skipped (the SKIP_RETURN_CODE of its test in tests/CMakeLists.txt),
except under CI=true, where everything must run: there a missing
prerequisite is a failure, exit 1.
"""
import os
import sys

CI = os.environ.get("CI") == "true"
SKIP = 77
FAILS = []


def fail(msg):
    """Record a failed check and print it (its first 3000 characters: a
    message may quote a whole listing)."""
    FAILS.append(msg)
    print("FAIL: " + msg[:3000])


def skip(msg):
    """A prerequisite is missing: exit 77 (skipped), or 1 under CI=true."""
    if CI:
        print("FAIL (CI=true): " + msg)
        sys.exit(1)
    print("SKIP: " + msg)
    sys.exit(SKIP)
