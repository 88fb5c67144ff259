#!/usr/bin/env python3
"""tests/counting/comp_check.py - compensation error of hyprof's measured
mode against the uninstrumented program (tests/counting/e2e.sh and
bench/counting/run.sh).

  comp_check.py sep REPORT.json PLAIN.out INSTR.out   one run of comp.c
  comp_check.py twin REPORT.json TWIN.out             one run of comp_twin.c
      print one JSON line: for each target (main or phase total, heavy_a
      and heavy_b exclusive) the relative errors of the compensated and raw
      values, against wall time and against CPU time (below)
  comp_check.py summary FILE...                       medians over runs
  comp_check.py check cpu|wall TOL RAWFACTOR FILE...  exit 1 unless every
      median |compensated error| (against CPU or wall time) <= TOL and, for
      the probe-heavy total, |compensated| <= |raw| / RAWFACTOR

The truth is the uninstrumented code's own timing: comp.c built without
-finstrument-functions ("sep": a separate run of the same program) or the
uninstrumented twin linked into the same process ("twin", run alternately
with the instrumented copy).  Errors are given two ways:
  wall  (profile - truth wall) / truth wall
  cpu   (profile - preempted - truth cpu) / truth cpu, where preempted is
        wall - CPU time of the instrumented run over the same interval
        (the program times itself both ways) and truth cpu the
        uninstrumented interval's thread CPU time.
On a shared machine a run loses whole time slices to other processes:
wall time then measures the machine, not the program, while CPU time does
not count the slices lost.  The instrumented code runs longer, so it loses
more slices than the uninstrumented one, and no compensation of probe
costs can give those back: wall-time errors grow with the load.  The
checks use the cpu form.  (An injected HYPROF_TEST_PROBE_DELAY_NS wait,
which spins to a TSC deadline, behaves the same: a slice lost inside a wait
ends it late, so the wait stretches by the slice in wall time and loses at
most its own length in CPU time.)
"""
import json
import statistics
import sys


def fn(report, name):
    for f in report["functions"]:
        if f["name"] == name:
            return f
    raise SystemExit("function %s not in the report" % name)


def rows_sep(report, plain, instr):
    # comp.c: main_w heavy_a_w heavy_b_w calls main_c heavy_a_c heavy_b_c nivcsw
    p = [float(x) for x in plain.split()]
    i = [float(x) for x in instr.split()]
    return [("main total", fn(report, "main"), "total", p[0], p[4], i[0] - i[4]),
            ("heavy_a excl", fn(report, "heavy_a"), "self", p[1], p[5], i[1] - i[5]),
            ("heavy_b excl", fn(report, "heavy_b"), "self", p[2], p[6], i[2] - i[6])]


def rows_twin(report, out):
    # comp_twin.c: plain phase_w phase_c a_w a_c b_w b_c, then the same for
    # the instrumented copy, then the tiny calls
    v = [float(x) for x in out.split()]
    p, i = v[0:6], v[6:12]
    return [("phase total", fn(report, "phase"), "total", p[0], p[1], i[0] - i[1]),
            ("heavy_a excl", fn(report, "heavy_a"), "self", p[2], p[3], i[2] - i[3]),
            ("heavy_b excl", fn(report, "heavy_b"), "self", p[4], p[5], i[4] - i[5])]


def one(rows):
    out = {}
    for name, f, key, truth_w, truth_c, preempted in rows:
        comp, raw = f[key], f[key + "_raw"]
        out[name] = {
            "comp_wall": (comp - truth_w) / truth_w,
            "raw_wall": (raw - truth_w) / truth_w,
            "comp_cpu": (comp - preempted - truth_c) / truth_c,
            "raw_cpu": (raw - preempted - truth_c) / truth_c,
            "truth_s": truth_c,
        }
    return out


def load(files):
    runs = []
    for path in files:
        for line in open(path):
            if line.strip():
                runs.append(json.loads(line))
    if not runs:
        raise SystemExit("no runs")
    return runs


def medians(runs):
    names = list(runs[0].keys())
    return {n: {k: statistics.median(r[n][k] for r in runs) for k in runs[0][n]} for n in names}


def summary(runs):
    m = medians(runs)
    for n, v in m.items():
        print("   %-13s compensated %+6.2f%% (wall %+6.1f%%)   raw %+6.2f%% (wall %+6.1f%%)" %
              (n, 100 * v["comp_cpu"], 100 * v["comp_wall"], 100 * v["raw_cpu"], 100 * v["raw_wall"]))
    return m


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    cmd = sys.argv[1]
    if cmd == "sep":
        rep = json.load(open(sys.argv[2]))
        print(json.dumps(one(rows_sep(rep, open(sys.argv[3]).read(), open(sys.argv[4]).read()))))
    elif cmd == "twin":
        rep = json.load(open(sys.argv[2]))
        print(json.dumps(one(rows_twin(rep, open(sys.argv[3]).read()))))
    elif cmd == "summary":
        summary(load(sys.argv[2:]))
    elif cmd == "check":
        form, tol, factor = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
        if form not in ("cpu", "wall"):
            raise SystemExit(__doc__)
        runs = load(sys.argv[5:])
        print("medians of %d run(s), errors against the uninstrumented code's %s time:" %
              (len(runs), "CPU" if form == "cpu" else "wall"))
        m = summary(runs)
        bad = 0
        for n, v in m.items():
            c, r = v["comp_" + form], v["raw_" + form]
            if abs(c) > tol:
                print("FAIL: %s: compensated error %+.1f%% beyond %.0f%%" % (n, 100 * c, 100 * tol))
                bad += 1
            if n.endswith("total") and not abs(c) * factor <= abs(r):
                print("FAIL: %s: compensated error %+.1f%% is not %g times smaller than raw %+.1f%%" %
                      (n, 100 * c, factor, 100 * r))
                bad += 1
        sys.exit(1 if bad else 0)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
