"""A symfs folder for perf.data comparisons (issue 15): the recording's
binaries where `--symfs DIR` looks for them, DIR + the path the side-band
recorded (an MMAP2 or FILE2 name; docs/perf-data.md), as a user gives a
copy of the device's files to perf, simpleperf or etmkit."""
import os


def make_symfs(folder, pairs):
    """Link each FILE of @pairs ("RECORDED_PATH=FILE") at
    @folder/RECORDED_PATH. Returns the FILEs that do not exist (nothing is
    linked for them)."""
    missing = []
    for sf in pairs:
        rec, f = sf.split("=", 1)
        if not os.path.exists(f):
            missing.append(f)
            continue
        dst = os.path.join(folder, rec.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.symlink(os.path.abspath(f), dst)
    return missing
