#!/usr/bin/env python3
"""tests/critpath/check.py CASE REPORT.json ARGS... - check the critical-path
view of `hyprof report --json --view critical-path` against the lengths the
construction of tests/critpath/cp_progs.c implies (run.sh gives the same
arguments as the program).  Times in the arguments are milliseconds.  A
failed check prints the fact, the value and the expectation.

The construction gives each length as a formula in the functions'
durations.  On a shared machine with more ranks than cores a 5 ms call can
last 8 ms (the rank waits for a core when its sleep ends), so the formulas
are evaluated with each function's mean duration as the profile measured it
(its time in the flat profile / its calls: the probes, independent of the
critical-path algorithm), after checking those are near the nominal ones.
Time outside the functions (a message's transfer, a rank waiting for a
core after its receive completed) is on the paths too, more on some
branches than on others: checks of a difference of two branches allow
SLACK_MS per round on top of the relative tolerance."""
import json
import sys

failures = []
SLACK_MS = 2.0


def ms(x):
    return x * 1e3


def check(what, ok, got, want):
    line = "%-58s got %-12s want %s" % (what, got, want)
    print(("ok   " if ok else "FAIL ") + line)
    if not ok:
        failures.append(line)


def near(what, got_s, want_ms, rel=0.08, abs_ms=15.0):
    """got (seconds) within rel of want (ms) or abs_ms, whichever is larger."""
    g = ms(got_s)
    tol = max(rel * abs(want_ms), abs_ms)
    check(what, abs(g - want_ms) <= tol, "%.1f ms" % g, "%.1f ms +- %.1f" % (want_ms, tol))


def dur(what, f, calls, nominal):
    """A function's mean duration per call (ms) as the profile measured it."""
    d = ms(f["cpu"]) / calls if f.get("cpu") is not None else float("nan")
    check("%s lasts about its nominal %g ms per call" % (what, nominal),
          nominal * 0.9 <= d <= nominal * 1.6 + 2, "%.2f ms" % d, "%g ms (-10%%, +60%%+2)" % nominal)
    return d


def fn(cp, name):
    for f in cp["functions"]:
        if f["name"] == name:
            return f
    check("function %s is in the view" % name, False, [f["name"] for f in cp["functions"]], name)
    raise SystemExit(1)


def load(path):
    with open(path) as fh:
        doc = json.load(fh)
    cp = doc.get("critical_path")
    check("the report has a critical_path member", cp is not None, type(cp).__name__, "object")
    if cp is None:
        raise SystemExit(1)
    check("the values are final (MPI_Finalize ran)", cp["final"], cp["final"], True)
    return cp


def main():
    case, path = sys.argv[1], sys.argv[2]
    a = [float(x) for x in sys.argv[3:]]
    cp = load(path)
    L = ms(cp["length"])
    if case in ("pipeline", "length", "unresolved"):
        n, A, B, C = a
        want = A + n * B + C
        near("path length = A + N*B + C (nominal)", cp["length"], want, rel=0.15)
        check("the path ends on the last stage (rank 2)", cp["rank"] == 2, cp["rank"], 2)
        if case == "length":
            check("no functions carried (auto:0)", cp["functions"] == [], len(cp["functions"]), 0)
            check("shares say why there are none", "length only" in cp["shares"], cp["shares"],
                  "none: the length only")
        elif case == "unresolved":
            s1 = fn(cp, "stage1_work")
            near("stage1_work's share = N*B", s1["share"], n * B)
            bad = fn(cp, "no_such_function")
            check("an unknown name is reported as never seen", bad["seen"] is False, bad["seen"], False)
            check("and as matching no function or region", bad["resolved"] is False, bad["resolved"], False)
            check("stage1_work was seen and resolved", s1["seen"] and s1["resolved"],
                  (s1["seen"], s1["resolved"]), (True, True))
            check("and has no share", bad["share"] == 0, bad["share"], 0)
        else:
            s0, s1, s2 = fn(cp, "stage0_work"), fn(cp, "stage1_work"), fn(cp, "stage2_work")
            reg = fn(cp, "bottleneck")
            A, B, C = dur("stage0_work", s0, n, A), dur("stage1_work", s1, n, B), dur("stage2_work", s2, n, C)
            near("path length = A + N*B + C (measured durations)", cp["length"], A + n * B + C)
            near("stage1_work's share = N*B", s1["share"], n * B)
            check("stage1_work's share > 90% of the path", s1["share_pct"] > 90, "%.1f%%" % s1["share_pct"], "> 90%")
            near("stage0_work's share = A (the first item only)", s0["share"], A, abs_ms=8)
            near("stage2_work's share = C (the last item only)", s2["share"], C, abs_ms=8)
            check("the region has the function's share (within 2%)",
                  abs(reg["share"] - s1["share"]) <= 0.02 * s1["share"], "%.1f ms" % ms(reg["share"]),
                  "%.1f ms" % ms(s1["share"]))
            check("the region is marked as one", reg["region"] is True, reg["region"], True)
            near("zeroing stage1_work: the run takes N*A + C", s1["zeroing_length"], n * A + C,
                 abs_ms=max(15, SLACK_MS * n))
            near("zeroing stage1_work: reduction = share - (N-1)*A",
                 s1["share"] - s1["zeroing_reduction"], (n - 1) * A, abs_ms=max(15, SLACK_MS * n))
            near("zeroing stage0_work: reduction = A", s0["zeroing_reduction"], A, abs_ms=8)
            check("shares add up to no more than the path",
                  s0["share"] + s1["share"] + s2["share"] <= cp["length"] * 1.001,
                  "%.1f ms" % ms(s0["share"] + s1["share"] + s2["share"]), "<= %.1f ms" % L)
    elif case == "create_seq":
        S, I, R, np_ = a
        cs, dr = fn(cp, "create_seq"), fn(cp, "do_rank")
        S, R = dur("create_seq", cs, 1, S), dur("do_rank", dr, np_ * I, R)
        want = S + I * R
        near("path length = S + I*R", cp["length"], want)
        near("create_seq's share = S", cs["share"], S)
        near("do_rank's share = I*R", dr["share"], I * R)
        check("create_seq's share of the path = S/(S+I*R) +- 4 points",
              abs(cs["share_pct"] - 100 * S / want) <= 4, "%.1f%%" % cs["share_pct"], "%.1f%%" % (100 * S / want))
        check("create_seq: path share > 2 x its share of the profile's time (the paper's point)",
              cs["share_pct"] > 2 * cs["cpu_pct"], "%.1f%% vs %.1f%%" % (cs["share_pct"], cs["cpu_pct"]), "> 2x")
        check("by time do_rank >> create_seq, on the path they are close",
              dr["cpu"] > 2.5 * cs["cpu"] and dr["share"] < 2 * cs["share"],
              "time %.2f, path %.2f" % (dr["cpu"] / cs["cpu"], dr["share"] / cs["share"]),
              "time ratio > 2.5, path ratio < 2")
        near("zeroing create_seq: reduction = S (nothing else runs meanwhile)", cs["zeroing_reduction"], S)
        near("zeroing do_rank: reduction = I*R", dr["zeroing_reduction"], I * R)
    elif case in ("zeroing", "auto"):
        n, F, G, Hh = a
        f_, g_, h_ = fn(cp, "f"), fn(cp, "g"), fn(cp, "h")
        # calls made after the selection (auto): the profile counts them all
        F, G, Hh = dur("f", f_, n, F), dur("g", g_, n, G), dur("h", h_, n, Hh)
        if case == "zeroing":
            cov, rounds = L, n
            near("path length = N*(F+H)", cp["length"], n * (F + Hh))
        else:
            names = sorted(f["name"] for f in cp["functions"])
            check("auto:3 selects f, g, h on every rank", names == ["f", "g", "h"], names, ["f", "g", "h"])
            check("auto: the selection came after the warm-up", cp["start"] is not None and cp["start"] > 0.2,
                  cp["start"], "> 0.2 s")
            if cp["start"] is None:
                raise SystemExit(1)
            near("path length = N*(F+H)", cp["length"], n * (F + Hh), rel=0.08)
            cov = L - ms(cp["start"])
            rounds = cov / (F + Hh)
        check("f's share of the (covered) path = F/(F+H) +- 5 points",
              abs(f_["share_pct"] - 100 * F / (F + Hh)) <= 5, "%.1f%%" % f_["share_pct"], "%.1f%%" % (100 * F / (F + Hh)))
        near("f's share = rounds*F", f_["share"], rounds * F)
        near("h's share = rounds*H", h_["share"], rounds * Hh, abs_ms=10)
        check("g is not on the path", ms(g_["share"]) < 10, "%.1f ms" % ms(g_["share"]), "< 10 ms")
        slack = SLACK_MS * rounds
        near("zeroing f: reduction = rounds*(F-G)", f_["zeroing_reduction"], rounds * (F - G), abs_ms=max(15, slack))
        near("zeroing f helps less than its share by rounds*G (g's branch)",
             f_["share"] - f_["zeroing_reduction"], rounds * G, abs_ms=max(15, slack))
        check("zeroing f < f's share", f_["zeroing_reduction"] < f_["share"],
              "%.1f ms" % ms(f_["zeroing_reduction"]), "< %.1f ms" % ms(f_["share"]))
        check("zeroing g changes nothing", ms(abs(g_["zeroing_reduction"])) < 10,
              "%.1f ms" % ms(g_["zeroing_reduction"]), "< 10 ms")
        near("zeroing h: reduction = its share (it is on both branches)", h_["zeroing_reduction"], rounds * Hh,
             abs_ms=10)
    else:
        check("known case", False, case, "pipeline|create_seq|zeroing|auto|length|unresolved")
    for f in cp["functions"]:
        check("%s: zeroing reduction <= path share" % f["name"],
              f["zeroing_reduction"] <= f["share"] + 1e-3, "%.1f ms" % ms(f["zeroing_reduction"]),
              "<= %.1f ms" % ms(f["share"]))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
