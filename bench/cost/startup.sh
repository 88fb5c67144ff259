#!/bin/sh
# bench/cost/startup.sh BUILD_DIR [N] - what hyprof's fixed cost is per
# process: wall and CPU time (the process tree's, from wait4) of a process
# that does nothing (/bin/true) and of a script that starts 20 of them,
# plain and under `hyprof run`, with the start-up calibration shared by the
# run's processes (the default) and with every process calibrating
# (HYPROF_CALIBRATE_SHARE=0).  Rounds interleave the configurations;
# medians over N rounds (default 15), and the difference per process
# against plain.
BUILD=$(cd "${1:-build}" && pwd)
exec python3 - "$BUILD/bin/hyprof" "${2:-15}" <<'PY'
import os, shutil, statistics as st, subprocess, sys, tempfile, time
H, N = sys.argv[1], int(sys.argv[2])
T = tempfile.mkdtemp()
os.environ["HYPROF_QUIET"] = "1"
SCRIPT = "for i in $(seq 20); do /bin/true; done"
def run(argv, env=None):
    d = os.path.join(T, "p")
    shutil.rmtree(d, ignore_errors=True)
    argv = [a.replace("DIR", d) for a in argv]
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, **(env or {})))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status:
        sys.exit("bench/cost/startup: %s failed (%d)" % (argv, status))
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3
cfg = [("plain1", "/bin/true, plain", ["/bin/true"], None),
       ("prof1", "/bin/true under hyprof run", [H, "run", "-o", "DIR", "--", "/bin/true"], None),
       ("plain20", "sh + 20 x /bin/true, plain", ["sh", "-c", SCRIPT], None),
       ("prof20", "the same under hyprof (shared calibration)", [H, "run", "-o", "DIR", "--", "sh", "-c", SCRIPT], None),
       ("prof20each", "the same, every process calibrating", [H, "run", "-o", "DIR", "--", "sh", "-c", SCRIPT],
        {"HYPROF_CALIBRATE_SHARE": "0"})]
res = {k: [] for k, *_ in cfg}
for r in range(N):
    for k, _, argv, env in cfg:
        res[k].append(run(argv, env))
shutil.rmtree(T, ignore_errors=True)
med = lambda k, i: st.median(x[i] for x in res[k])
print("hyprof's fixed cost per process (medians of %d interleaved rounds; ms)" % N)
print("%-44s %8s %8s" % ("", "wall", "CPU"))
for k, what, *_ in cfg:
    print("%-44s %8.2f %8.2f" % (what, med(k, 0), med(k, 1)))
for k, n, base in (("prof1", 1, "plain1"), ("prof20", 21, "plain20"), ("prof20each", 21, "plain20")):
    print("added per process, %-25s %8.2f %8.2f" % (k, (med(k, 0) - med(base, 0)) / n, (med(k, 1) - med(base, 1)) / n))
PY
