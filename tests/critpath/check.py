#!/usr/bin/env python3
"""tests/critpath/check.py CASE REPORT.json ARGS... [WATCH.txt] - check the critical-path
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
import re
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


UNITS = {"s": 1e3, "ms": 1.0, "us": 1e-3, "\u00b5s": 1e-3, "ns": 1e-6}


def watch_lengths(path):
    """`hyprof watch --once` output: (the job's length so far in ms, its rank,
    {rank: that rank's length in ms})."""
    text = open(path, encoding="utf-8").read()
    job = re.search(r"critical path so far: ([0-9.]+) (\S+) \(longest on rank (-?\d+)\)", text)
    ranks, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"rank (\d+) ", line)
        if m:
            cur = int(m.group(1))
            continue
        m = re.search(r"  critical path ([0-9.]+) (\S+)", line)
        if m and cur is not None and m.group(2) in UNITS:
            ranks[cur] = float(m.group(1)) * UNITS[m.group(2)]
    if not job or job.group(2) not in UNITS:
        return None, None, ranks
    return float(job.group(1)) * UNITS[job.group(2)], int(job.group(3)), ranks


def fn(cp, name):
    for f in cp["functions"]:
        if f["name"] == name:
            return f
    check("function %s is in the view" % name, False, [f["name"] for f in cp["functions"]], name)
    raise SystemExit(1)


def load(path, final=True):
    with open(path) as fh:
        doc = json.load(fh)
    cp = doc.get("critical_path")
    check("the report has a critical_path member", cp is not None, type(cp).__name__, "object")
    if cp is None:
        raise SystemExit(1)
    if final:
        check("the values are final (MPI_Finalize ran)", cp["final"], cp["final"], True)
    else:
        check("a snapshot taken while the job ran: not final", cp["final"] is False, cp["final"], False)
    return cp


def live(snap, fin, n, A, B, C):
    """A copy of the live files taken while the pipeline ran (Appendix A):
    every rank's path is consistent at its last event, the job's so far is
    the longest of them, and it is on its way to the final one."""
    s1, f1 = fn(snap, "stage1_work"), fn(fin, "stage1_work")
    L, Lf = ms(snap["length"]), ms(fin["length"])
    # past n*A + 2*B the path so far can only end on stage 1 or 2
    lo = n * A + 2 * B
    check("the path so far is past rank 0's whole part (run.sh waited for it)", L >= lo,
          "%.1f ms" % L, ">= %.0f ms" % lo)
    check("the path so far is shorter than the final path", L < Lf, "%.1f ms" % L, "< %.1f ms" % Lf)
    check("so far it ends on stage 1 or 2", snap["rank"] in (1, 2), snap["rank"], "1 or 2")
    # A + k*B (+ C): stage1_work is all of it but the first and last stage
    check("stage1_work's share so far > 80% of the path so far", s1["share_pct"] > 80,
          "%.1f%%" % s1["share_pct"], "> 80%")
    check("its share so far <= its final share", s1["share"] <= f1["share"] + 1e-3,
          "%.1f ms" % ms(s1["share"]), "<= %.1f ms" % ms(f1["share"]))
    for f in snap["functions"]:
        check("%s: share so far <= path so far" % f["name"], 0 <= f["share"] <= snap["length"] + 1e-6,
              "%.1f ms" % ms(f["share"]), "0 .. %.1f ms" % L)
        check("%s: zeroing length so far <= path so far" % f["name"],
              f["zeroing_length"] <= snap["length"] + 1e-6, "%.1f ms" % ms(f["zeroing_length"]),
              "<= %.1f ms" % L)
    if snap.get("wall"):
        # each rank's wall counts from its own exit from MPI_Init, and a
        # path that began on rank 0 may end on a rank that left MPI_Init
        # later (3 ranks on 2 CPUs: up to ~15 ms seen), so 25 ms of slack
        check("the wall so far is at least the path so far (less MPI_Init's skew)",
              snap["wall"] * 1.02 + 25e-3 >= snap["length"],
              "%.1f ms" % ms(snap["wall"]), ">= %.1f ms" % L)


def main():
    case, path = sys.argv[1], sys.argv[2]
    if case == "selected":
        # selected FILE NAME...: the functions the selection carried, in order
        cp = load(path)
        names = [f["name"] for f in cp["functions"]]
        check("functions selected (shares: %s)" % cp["shares"], names == sys.argv[3:], names, sys.argv[3:])
        return 1 if failures else 0
    a = [float(x) for x in (sys.argv[3:7] if case in ("watch", "live") else sys.argv[3:])]
    if case == "live":
        live(load(path, final=False), load(sys.argv[7]), *a)
        if failures:
            print("%d check(s) failed" % len(failures))
            return 1
        return 0
    cp = load(path)
    L = ms(cp["length"])
    if case == "watch":
        # view_critpath_length() through `hyprof watch`: each rank's path
        # (pipeline N A B C, no waiting but for the previous stage):
        # rank 0 N*A, rank 1 A + N*B, rank 2 A + N*B + C; the job's is
        # the longest, the report's length
        n, A, B, C = a[:4]
        job, rank, ranks = watch_lengths(sys.argv[7])
        check("watch shows the job's critical path so far", job is not None, job, "a length")
        check("watch shows every rank's length", sorted(ranks) == [0, 1, 2], sorted(ranks), [0, 1, 2])
        if job is None or sorted(ranks) != [0, 1, 2]:
            raise SystemExit(1)
        check("watch: the longest on rank 2", rank == 2, rank, 2)
        check("watch: the job's length is the report's (3 digits)", abs(job - L) <= 0.006 * L + 0.5,
              "%.1f ms" % job, "%.1f ms" % L)
        slack = max(15.0, SLACK_MS * n)
        for r, want in ((0, n * A), (1, A + n * B), (2, A + n * B + C)):
            tol = max(0.15 * want, slack)
            check("watch: rank %d's path (its stages so far)" % r, abs(ranks[r] - want) <= tol,
                  "%.1f ms" % ranks[r], "%.1f ms +- %.1f" % (want, tol))
    elif case == "cxx":
        n, A, B = a
        # the template is shown as selected: by its symbol (demangled) or
        # by its name
        names = [f["name"] for f in cp["functions"]]
        pname = "app::produce<double>" if "app::produce<double>" in names else "void app::produce<double>(double)"
        cons, prod = fn(cp, "app::Stage::consume"), fn(cp, pname)
        for f in (cons, prod):
            check("%s: resolved and seen" % f["name"], f["resolved"] and f["seen"], (f["resolved"], f["seen"]),
                  (True, True))
        # consume(double) B ms and consume(int) 1 ms per item: both overloads
        B1 = dur("app::Stage::consume (both overloads)", cons, n, B + 1)
        A = dur("app::produce<double>", prod, n, A)
        near("path length = A + N*(B+1)", cp["length"], A + n * B1)
        check("the path ends on rank 1", cp["rank"] == 1, cp["rank"], 1)
        near("consume's share = N*(B+1) (both overloads)", cons["share"], n * B1)
        near("produce's share = A (the first item)", prod["share"], A, abs_ms=8)
    elif case == "nbr":
        S, R = a
        near("path length = S + 2R (through two neighbourhood collectives)", cp["length"], S + 2 * R, rel=0.15)
        check("the path ends on rank 2", cp["rank"] == 2, cp["rank"], 2)
        near("chain_head's share = S (rank 0, before the first)", fn(cp, "chain_head")["share"], S)
        near("chain_link's share = 2R (ranks 1 and 2)", fn(cp, "chain_link")["share"], 2 * R)
    elif case in ("pipeline", "length", "unresolved"):
        n, A, B, C = a
        want = A + n * B + C
        near("path length = A + N*B + C (nominal)", cp["length"], want, rel=0.15)
        check("the path ends on the last stage (rank 2)", cp["rank"] == 2, cp["rank"], 2)
        if case == "length":
            # the path covers the wall from MPI_Init to MPI_Finalize: the
            # program is a chain of computation and messages, so almost all
            # of it (not more: path time is time not waiting)
            wall = cp.get("wall")
            check("the wall time the path covers is reported", wall is not None and wall > 0, wall, "> 0 s")
            if wall:
                check("path length <= wall (not waiting is part of the wall)",
                      cp["length"] <= 1.02 * wall + 2e-3, "%.1f ms" % L, "<= %.1f ms" % ms(wall))
                check("path length >= 90% of the wall (the program is one chain)",
                      cp["length"] >= 0.9 * wall, "%.1f%%" % cp["wall_pct"], ">= 90%")
                check("wall_pct = length / wall", abs(cp["wall_pct"] - 100 * cp["length"] / wall) < 0.01,
                      cp["wall_pct"], 100 * cp["length"] / wall)
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
        Hnom = Hh
        f_, g_, h_ = fn(cp, "f"), fn(cp, "g"), fn(cp, "h")
        # calls made after the selection (auto): the profile counts them all
        F, G, Hh = dur("f", f_, n, F), dur("g", g_, n, G), dur("h", h_, n, Hh)
        spread = 0.0  # how far the covered calls' mean duration may be from the mean of all
        if case == "zeroing":
            cov, rounds = L, n
            near("path length = N*(F+H)", cp["length"], n * (F + Hh))
        else:
            names = sorted(f["name"] for f in cp["functions"])
            check("auto:3 selects f, g, h on every rank", names == ["f", "g", "h"], names, ["f", "g", "h"])
            # run.sh sets a warm-up of 0.3 s (HYPROF_CRITICAL_PATH_WARMUP)
            check("auto: the selection came after the warm-up", (cp["selected_at"] or 0) >= 0.3,
                  cp["selected_at"], ">= 0.3 s")
            check("auto: the shares start after some path", cp["start"] is not None and cp["start"] > 0,
                  cp["start"], "> 0 s")
            if not cp["start"]:
                raise SystemExit(1)
            near("path length = N*(F+H)", cp["length"], n * (F + Hh), rel=0.08)
            cov = L - ms(cp["start"])
            # the rounds after the selection: the selection falls on a
            # round's Allreduce; a round is L/N of the path (its functions
            # and the time between them)
            rounds = min(n - 1, max(1, round(n * cov / L)))
            # the covered calls' durations: the mean over every call (the
            # profile's) is all we know; they lie between it and the nominal
            spread = rounds * abs(Hh - Hnom)
        # a round of the path is F + H and the time outside the functions (a
        # message's transfer, a rank waiting for a core): the percentage is
        # of the whole covered path
        check("f's share of the (covered) path = rounds*F / path +- 5 points",
              abs(f_["share_pct"] - 100 * rounds * F / cov) <= 5, "%.1f%%" % f_["share_pct"],
              "%.1f%% +- 5" % (100 * rounds * F / cov))
        near("f's share = rounds*F", f_["share"], rounds * F)
        near("h's share = rounds*H", h_["share"], rounds * Hh, abs_ms=max(10, spread))
        check("g is not on the path", ms(g_["share"]) < 10, "%.1f ms" % ms(g_["share"]), "< 10 ms")
        slack = SLACK_MS * rounds
        near("zeroing f: reduction = rounds*(F-G)", f_["zeroing_reduction"], rounds * (F - G), abs_ms=max(15, slack))
        near("zeroing f helps less than its share by rounds*G (g's branch)",
             f_["share"] - f_["zeroing_reduction"], rounds * G, abs_ms=max(15, slack))
        check("zeroing f < f's share", f_["zeroing_reduction"] < f_["share"],
              "%.1f ms" % ms(f_["zeroing_reduction"]), "< %.1f ms" % ms(f_["share"]))
        check("zeroing g changes nothing", ms(abs(g_["zeroing_reduction"])) < 10,
              "%.1f ms" % ms(g_["zeroing_reduction"]), "< 10 ms")
        near("zeroing h: reduction = its share (it is on both branches)", h_["zeroing_reduction"],
             ms(h_["share"]), rel=0.05, abs_ms=5)
    else:
        check("known case", False, case, "pipeline|create_seq|zeroing|auto|length|unresolved|watch|live|cxx")
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
