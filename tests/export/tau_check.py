#!/usr/bin/env python3
"""tests/export/tau_check.py TAUDIR EXPECT.JSON
   tests/export/tau_check.py TAUDIR EXPECT.JSON --depth D   (--callpath-depth D)
   tests/export/tau_check.py TAUDIR --grammar [PATH-SUFFIX=CALLS ...]

Parse hyprof's TAU export with TAU's documented profile grammar (the format
TAU's readers accept: ParaProf/PerfDMF's TauDataSource, TAU's pprof, tau2's
TauProfileParser) and compare the numbers with the synthetic model.

    <n> templated_functions_MULTI_<metric>
    # Name Calls Subrs Excl Incl ProfileCalls[ # <metadata>XML</metadata>]
    "<name>" <calls> <subrs> <excl> <incl> <profcalls> GROUP="<g1|g2>"   x n
    <m> aggregates
    (m aggregate lines)
    <u> userevents
    # eventname numevents max min mean sumsqr
    "<name>" <numevents> <max> <min> <mean> <sumsqr>                       x u

ParaProf's reader also needs: integer Calls and Subrs (parsed with
Integer.parseInt), Calls > 0 (it skips timers with 0 calls), no double quote
inside a name, and call paths written "a => b => c".  Prints one line per
failure and "N passed, N failed"; exits 1 when something failed.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

fails = 0
checks = 0


def check(ok, what):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print("FAIL: " + what)


def near(a, b, rel=1e-9, absol=1e-6):
    return abs(a - b) <= max(absol, rel * max(abs(a), abs(b)))


NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
FUNC_RE = re.compile(r'^"([^"]*)" (\d+) (\d+) (' + NUM + r') (' + NUM + r') (\d+) GROUP="([^"]*)"$')
HEAD_RE = re.compile(r"^(\d+) templated_functions_MULTI_(\S+)$")
COLS = "# Name Calls Subrs Excl Incl ProfileCalls"


def parse(path):
    """Return (metric, metadata dict, {name: row}, userevents) or raise ValueError."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    pos = 0

    def take(what):
        nonlocal pos
        if pos >= len(lines):
            raise ValueError("%s: end of file looking for %s" % (path, what))
        pos += 1
        return lines[pos - 1]

    m = HEAD_RE.match(take("the header"))
    if not m:
        raise ValueError("%s: bad first line %r" % (path, lines[0]))
    n, metric = int(m.group(1)), m.group(2)
    cols = take("the column line")
    if not cols.startswith(COLS):
        raise ValueError("%s: bad column line %r" % (path, cols))
    meta = {}
    rest = cols[len(COLS):]
    if rest:
        if not rest.startswith(" # <metadata>") or not rest.endswith("</metadata>"):
            raise ValueError("%s: bad metadata %r" % (path, rest[:80]))
        root = ET.fromstring(rest[3:])
        for a in root.iter("attribute"):
            meta[a.find("name").text] = a.find("value").text or ""
    rows = {}
    for _ in range(n):
        ln = take("a function line")
        fm = FUNC_RE.match(ln)
        if not fm:
            raise ValueError("%s: bad function line %r" % (path, ln))
        name = fm.group(1)
        if name in rows:
            raise ValueError("%s: timer %r twice" % (path, name))
        rows[name] = {
            "calls": int(fm.group(2)), "subrs": int(fm.group(3)),
            "excl": float(fm.group(4)), "incl": float(fm.group(5)),
            "groups": fm.group(7).split("|"),
        }
    am = re.match(r"^(\d+) aggregates$", take("the aggregates line"))
    if not am:
        raise ValueError("%s: bad aggregates line" % path)
    for _ in range(int(am.group(1))):
        take("an aggregate line")
    ue = []
    if pos < len(lines):
        um = re.match(r"^(\d+) userevents$", take("the userevents line"))
        if not um:
            raise ValueError("%s: bad userevents line" % path)
        if take("the userevents columns") != "# eventname numevents max min mean sumsqr":
            raise ValueError("%s: bad userevents columns" % path)
        for _ in range(int(um.group(1))):
            ue.append(take("a user event"))
    if pos != len(lines):
        raise ValueError("%s: %d lines after the end" % (path, len(lines) - pos))
    return metric, meta, rows, ue


def grammar_only(taudir, facts):
    """Real profiles: every file parses; facts are "PATH-SUFFIX=CALLS" pairs:
    a call path ending with PATH-SUFFIX (" => "-joined) has CALLS calls in
    some file."""
    files = sorted(f for f in os.listdir(taudir) if re.match(r"^profile\.\d+\.\d+\.\d+$", f))
    check(len(files) >= 1, "%s has profile.N.C.T files" % taudir)
    rows = {}
    for name in files:
        try:
            metric, meta, r, _ = parse(os.path.join(taudir, name))
        except (ValueError, ET.ParseError) as e:
            check(False, str(e))
            continue
        check(metric == "TIME", "%s: metric %s" % (name, metric))
        for tn, row in r.items():
            check(row["calls"] > 0, "%s: %r has calls > 0" % (name, tn))
            rows[(name, tn)] = row
    for fact in facts:
        suffix, calls = fact.rsplit("=", 1)
        got = [row["calls"] for (f, tn), row in rows.items() if tn.endswith(suffix)]
        check(int(calls) in got, "a call path ending %r has %s calls (found %s)" % (suffix, calls, got))
    print("%d passed, %d failed" % (checks - fails, fails))
    return 1 if fails else 0


def main():
    if sys.argv[2] == "--grammar":
        return grammar_only(sys.argv[1], sys.argv[3:])
    taudir, expect = sys.argv[1], sys.argv[2]
    depth = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--depth" else 0
    E = json.load(open(expect))
    nodes = E["nodes"]
    bykey = {tuple(n["path"]): n for n in nodes}
    kids = {}
    for n in nodes:
        kids.setdefault(tuple(n["path"][:-1]), []).append(n)

    def isamples(n):
        return n["samples"] + sum(isamples(k) for k in kids.get(tuple(n["path"]), []))

    files = sorted(f for f in os.listdir(taudir) if f.startswith("profile."))
    want = sorted("profile.%d.0.%d" % (t["rank"], t["thread"]) for t in E["threads"])
    check(files == want, "files %s, want %s" % (files, want))
    us = E["period_s"] * 1e6  # microseconds per sample
    for t in E["threads"]:
        name = "profile.%d.0.%d" % (t["rank"], t["thread"])
        path = os.path.join(taudir, name)
        if not os.path.exists(path):
            continue
        try:
            metric, meta, rows, _ = parse(path)
        except (ValueError, ET.ParseError) as e:
            check(False, str(e))
            continue
        F = t["factor"]
        check(metric == "TIME", "%s: metric %s" % (name, metric))
        check(meta.get("MPI Rank") == str(t["rank"]), "%s: metadata MPI Rank %r" % (name, meta.get("MPI Rank")))
        check(meta.get("hyprof mode") == E["mode"], "%s: metadata mode" % name)

        def calls_of(n):
            return n["calls"] * F if E["probes"] else max(1, isamples(n) * F)

        flat = {}
        for n in nodes:
            p = n["path"]
            excl = n["samples"] * F * us
            incl = isamples(n) * F * us
            calls = calls_of(n)
            subrs = sum(calls_of(k) for k in kids.get(tuple(p), []))
            f = flat.setdefault(p[-1].replace('"', "'"), [0, 0, 0, 0])
            f[0] += calls
            f[1] += subrs
            f[2] += excl
            f[3] += incl  # no function repeats on a path in the model
            if len(p) < 2:
                continue
            # --callpath-depth D: the last D frames (unique suffixes in the model)
            tname = " => ".join(x.replace('"', "'") for x in (p[-depth:] if depth else p))
            r = rows.get(tname)
            check(r is not None, "%s: call path %r present" % (name, tname))
            if r is None:
                continue
            check("TAU_CALLPATH" in r["groups"], "%s: %r in group TAU_CALLPATH" % (name, tname))
            check(r["calls"] == calls and r["subrs"] == subrs,
                  "%s: %r calls/subrs %d/%d want %d/%d" % (name, tname, r["calls"], r["subrs"], calls, subrs))
            check(near(r["excl"], excl) and near(r["incl"], incl),
                  "%s: %r excl/incl %g/%g want %g/%g" % (name, tname, r["excl"], r["incl"], excl, incl))
        for fname, (calls, subrs, excl, incl) in flat.items():
            r = rows.get(fname)
            check(r is not None, "%s: flat timer %r present" % (name, fname))
            if r is None:
                continue
            check(r["calls"] == calls and r["subrs"] == subrs,
                  "%s: flat %r calls/subrs %d/%d want %d/%d" % (name, fname, r["calls"], r["subrs"], calls, subrs))
            check(near(r["excl"], excl) and near(r["incl"], incl),
                  "%s: flat %r excl/incl %g/%g want %g/%g" % (name, fname, r["excl"], r["incl"], excl, incl))
        check(len(rows) == len(flat) + len(nodes) - 1,
              "%s: %d timers, want %d flat + %d call paths" % (name, len(rows), len(flat), len(nodes) - 1))
        for tn, r in rows.items():
            check(r["calls"] > 0, "%s: %r has calls > 0 (ParaProf drops 0-call timers)" % (name, tn))
            check(r["calls"] < 2 ** 31 and r["subrs"] < 2 ** 31, "%s: %r counts fit Java's int" % (name, tn))
    print("%d passed, %d failed" % (checks - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
