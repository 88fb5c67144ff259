#!/usr/bin/env python3
"""tests/sampler/check.py - facts about `hyprof report --json` output.

Each command prints what it checked and exits 1 on a failed check:
  path  REPORT.json main/a/... WANT_PCT TOL   total%% of that call path
  func  REPORT.json NAME [MIN_PCT [MODULE]]   function present (total%% >= MIN)
  nofunc REPORT.json NAME                      function absent (no time)
  field REPORT.json KEY VALUE                  top-level field equals VALUE
  ge    REPORT.json KEY N                      top-level number >= N
  drops REPORT.json MAX_PCT                    dropped <= MAX_PCT%% of samples
  cpu   REPORT.json CPUFILE TOL                each thread function's total%%
        against its share of the CPU time the threads measured themselves
        (CPUFILE: lines "FUNCTION NS", summed per function over runs)
A path starts at the first node named like its first element (the frames
above main, libc's start-up, are not part of what a test constructs).
"""
import json
import re
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def find(node, name):
    if node.get("name") == name:
        return node
    for c in node.get("children", []):
        r = find(c, name)
        if r:
            return r
    return None


def walk_path(tree, parts):
    node = find(tree, parts[0])
    for p in parts[1:]:
        if node is None:
            return None
        node = next((c for c in node.get("children", []) if c.get("name") == p), None)
    return node


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main(argv):
    cmd, rep = argv[1], load(argv[2])
    if cmd == "path":
        parts, want, tol = argv[3].split("/"), float(argv[4]), float(argv[5])
        node = walk_path(rep["tree"], parts)
        if node is None:
            fail("call path %s not in the tree" % argv[3])
        got = node["total_pct"]
        ok = abs(got - want) <= tol
        print("%s path %s: %.1f%% (want %.1f +- %.1f)" % ("ok" if ok else "FAIL", argv[3], got, want, tol))
        return 0 if ok else 1
    if cmd == "cpu":
        used = {}
        with open(argv[3]) as f:
            for line in f:
                name, ns = line.split()
                used[name] = used.get(name, 0) + int(ns)
        tol, total, bad = float(argv[4]), sum(used.values()), 0
        if not used or total <= 0:
            fail("no CPU times in " + argv[3])
        for name in sorted(used):
            want = 100.0 * used[name] / total
            node = find(rep["tree"], name)
            got = node["total_pct"] if node else 0.0
            ok = abs(got - want) <= tol
            bad += not ok
            print("%s %s: %.1f%% of the samples, %.1f%% of the threads' CPU time (%.0f ms; +- %.1f)"
                  % ("ok" if ok else "FAIL", name, got, want, used[name] / 1e6, tol))
        return 1 if bad else 0
    if cmd in ("func", "nofunc"):
        name = argv[3]
        fs = [f for f in rep["functions"] if f["name"] == name]
        if cmd == "nofunc":
            if fs and any(f["total"] > 0 for f in fs):
                fail("function %s present with %.1f%%" % (name, fs[0]["total_pct"]))
            print("ok no %s" % name)
            return 0
        if not fs:
            fail("function %s absent; functions: %s" % (name, [f["name"] for f in rep["functions"]][:20]))
        f = fs[0]
        minpct = float(argv[4]) if len(argv) > 4 else 0.0
        if f["total_pct"] < minpct:
            fail("function %s at %.1f%% < %.1f%%" % (name, f["total_pct"], minpct))
        if len(argv) > 5 and f["module"] != argv[5]:
            fail("function %s in module %s, want %s" % (name, f["module"], argv[5]))
        print("ok %s %.1f%% in %s" % (name, f["total_pct"], f["module"]))
        return 0
    if cmd == "field":
        got, want = rep.get(argv[3]), argv[4]
        if isinstance(got, bool):
            ok = str(got).lower() == want
        elif isinstance(got, (int, float)):
            ok = float(got) == float(want)
        else:
            ok = got == want
        if not ok:
            fail("%s is %r, want %s" % (argv[3], got, want))
        print("ok %s = %s" % (argv[3], want))
        return 0
    if cmd == "ge":
        got = rep.get(argv[3])
        if not isinstance(got, (int, float)) or got < float(argv[4]):
            fail("%s is %r, want >= %s" % (argv[3], got, argv[4]))
        print("ok %s = %s >= %s" % (argv[3], got, argv[4]))
        return 0
    if cmd == "drops":
        d, n, cap = rep["dropped"], rep["samples"], float(argv[3])
        if n <= 0 or d > cap / 100.0 * n:
            fail("%d samples dropped of %d (more than %s%%): %s" % (d, n, argv[3], rep.get("dropped_by")))
        print("ok %d dropped of %d samples" % (d, n))
        return 0
    if cmd == "programs":
        # programs REPORT NAME:PROCS,...: the distinct programs in the order
        # they first started, with their process counts
        got = ",".join("%s:%d" % (p["name"], p["processes"]) for p in rep["programs"])
        if got != argv[3]:
            fail("programs %s, want %s (program %s)" % (got, argv[3], rep.get("program")))
        if rep["program"] != rep["programs"][0]["name"]:
            fail("program %s is not the first started, %s" % (rep["program"], got))
        print("ok programs %s" % got)
        return 0
    if cmd == "symnames":
        # symnames REPORT NM_OUTPUT MODULE OUT: every "[MODULE+0xADDR]" frame of
        # a stripped object must start exactly where the unstripped object
        # has a function symbol (nm); OUT is the report with those names put
        # back, for the path checks
        syms = {}
        for line in open(argv[3]):
            w = line.split()
            if len(w) == 3 and w[1] in "tTwW":
                syms.setdefault(int(w[0], 16), w[2])
        pat = re.compile(r"^\[" + re.escape(argv[4]) + r"\+0x([0-9a-f]+)\]$")
        named, bad = set(), set()

        def fix(node):
            m = pat.match(node.get("name") or "")
            if m:
                a = int(m.group(1), 16)
                if a in syms:
                    named.add(syms[a])
                    node["name"] = syms[a]
                else:
                    bad.add(node["name"])
            for c in node.get("children", []):
                fix(c)
        fix(rep["tree"])
        if bad or not named:
            fail("frames of the stripped %s not at a function's start: %s (named: %s)"
                 % (argv[4], sorted(bad), sorted(named)))
        print("ok %d functions of the stripped %s named by their start: %s"
              % (len(named), argv[4], " ".join(sorted(named))))
        with open(argv[5], "w") as f:
            json.dump(rep, f)
        return 0
    fail("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
