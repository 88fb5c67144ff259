#!/usr/bin/env python3
"""tests/export/go_pprof_check.py PROFILE.pb.gz EXPECT.JSON FACTOR

Read a pprof export with Go's own pprof (`go tool pprof -top`, which also
validates the profile as it loads it) and compare each function's flat and
cumulative sample counts with the synthetic model.  Exits 77 when `go` is
not installed (the check is optional: Go is not one of hyprof's
dependencies), 1 on a failure.
"""
import json
import re
import shutil
import subprocess
import sys


def pprof_display(name):
    """The name as pprof prints it: C++ template arguments dropped."""
    prev = None
    while prev != name:
        prev = name
        name = re.sub(r"<[^<>]*>", "", name)
    return name


def main():
    prof, expect, factor = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if not shutil.which("go"):
        print("SKIP: go is not installed (apt-get install golang-go to run this check)")
        return 77
    E = json.load(open(expect))
    nodes = E["nodes"]
    kids = {}
    for n in nodes:
        kids.setdefault(tuple(n["path"][:-1]), []).append(n)

    def isamples(n):
        return n["samples"] + sum(isamples(k) for k in kids.get(tuple(n["path"]), []))

    want = {}
    for n in nodes:
        f = want.setdefault(pprof_display(n["path"][-1]), [0, 0])
        f[0] += n["samples"] * factor
        f[1] += isamples(n) * factor
    env = {"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": "/tmp", "PPROF_TMPDIR": "/tmp",
           "PPROF_BINARY_PATH": "/nonexistent"}
    p = subprocess.run(["go", "tool", "pprof", "-top", "-sample_index=samples", "-nodecount=100000",
                        "-nodefraction=0", "-edgefraction=0", prof],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        print("FAIL: go tool pprof exited %d: %s" % (p.returncode, p.stderr.strip()[:500]))
        return 1
    row = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*)$")
    got = {}
    for line in p.stdout.splitlines():
        m = row.match(line)
        if m:
            name = re.sub(r" \(inline\)$", "", m.group(3))
            got[name] = (int(m.group(1)), int(m.group(2)))
    fails = checks = 0
    for name, (flat, cum) in want.items():
        checks += 1
        g = got.get(name)
        if g != (flat, cum):
            fails += 1
            print("FAIL: go pprof %s flat/cum %s want %s" % (name, g, (flat, cum)))
    checks += 1
    if len(got) != len(want):
        fails += 1
        print("FAIL: go pprof lists %d functions, want %d" % (len(got), len(want)))
    print("%d passed, %d failed" % (checks - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
