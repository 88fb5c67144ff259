#!/bin/sh
# bench/cost/mpi_range.sh BUILD_DIR [N] [ROUNDTRIPS] [POINTS] - the cost
# range of MPI runs against their timed cost, two jobs of 2 ranks, each run
# plain and under `hyprof run --compensate parallel`, rounds interleaved:
#  - pingpong: 400-byte messages (tests/mpi/pingpong_check.c), ROUNDTRIPS
#    round trips (default 300000); its wrappers' bookkeeping and piggyback
#    are most of what hyprof costs it;
#  - pi: the master-worker Monte Carlo pi (tests/mpi/pi.c, POINTS points,
#    default 2000000) in measured mode: the worker's probes cost as much as
#    its work, and the master polls in MPI_Recv while the worker is delayed,
#    so the job's CPU time grows by about twice the probes' cost; the
#    range's high bound holds that as the master's induced waiting
#    (cost.mpi.induced_wait, docs/cost.md).
# The timed cost is the CPU time of the whole job (mpirun's process tree,
# from wait4) under hyprof less plain's, which is what the range counts
# (CPU seconds summed over the ranks); the range's MPI part (cost.mpi)
# beside it.  Medians over N rounds (default 7).
BUILD=$(cd "${1:-build}" && pwd)
exec python3 - "$BUILD" "${2:-7}" "${3:-300000}" "${4:-2000000}" <<'PY'
import json, os, shutil, statistics as st, subprocess, sys, tempfile, time
B, N, RT, PTS = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
H = B + "/bin/hyprof"
PP = B + "/tests/bin/mpi_pingpong_check"
PI, PIP = B + "/bench/bin/bench_mpi_pi", B + "/bench/bin/bench_mpi_pi_plain"
if not os.path.exists(PP) or not shutil.which("mpirun"):
    sys.exit("bench/cost/mpi_range: no MPI build or no mpirun: nothing measured")
os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", HYPROF_QUIET="1")
T = tempfile.mkdtemp()
def run(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit("bench/cost/mpi_range: %s failed (%d)" % (" ".join(argv), status))
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime
cases = [("pingpong", [PP, RT], [PP, RT], [])]
if os.path.exists(PI) and os.path.exists(PIP):
    cases.append(("pi", [PIP, PTS], [PI, PTS], ["--mode", "measured"]))
for name, plain, prof, opts in cases:
    print("== %s (%s)" % (name, " ".join(os.path.basename(a) for a in prof)), flush=True)
    rows = []
    for k in range(N):
        d = os.path.join(T, "p")
        shutil.rmtree(d, ignore_errors=True)
        pw, pc = run(["mpirun", "-np", "2"] + plain)
        hw, hc = run(["mpirun", "-np", "2", H, "run", "-o", d, "--compensate", "parallel"] + opts + ["--"] + prof)
        rep = subprocess.run([H, "report", "--json", d], capture_output=True, text=True)
        c = json.loads(rep.stdout)["cost"]
        rows.append(dict(timed=hc - pc, wall=hw - pw, low=c["low"], high=c["high"], mlo=c["mpi"]["low"],
                         mhi=c["mpi"]["high"], ind=c["mpi"]["induced_wait"], pred=c["predicted"],
                         cpu=c["cpu_time"]))
        r = rows[-1]
        print("round %d: timed %+.3f s CPU (wall %+.3f s); range %.3f .. %.3f s, of which MPI %.3f .. %.3f "
              "(induced waiting %.3f); %s" % (k + 1, r["timed"], r["wall"], r["low"], r["high"], r["mlo"],
                                              r["mhi"], r["ind"],
                                              "inside" if r["low"] <= r["timed"] <= r["high"] else "outside"),
              flush=True)
    med = {k: st.median(r[k] for r in rows) for k in rows[0]}
    inside = sum(r["low"] <= r["timed"] <= r["high"] for r in rows)
    inside_wo = sum(r["low"] <= r["timed"] <= r["high"] - r["ind"] for r in rows)
    print("%s median: timed %.3f s CPU of the job (%.1f%% of its %.3f s profiled); range %.3f .. %.3f s "
          "(MPI part %.3f .. %.3f, of which induced waiting %.3f; without the MPI part %.3f .. %.3f); "
          "predicted %.3f s; inside in %d of %d rounds (%d without the induced waiting)"
          % (name, med["timed"], 100 * med["timed"] / med["cpu"], med["cpu"], med["low"], med["high"], med["mlo"],
             med["mhi"], med["ind"], med["low"] - med["mlo"], med["high"] - med["mhi"], med["pred"], inside, N,
             inside_wo), flush=True)
shutil.rmtree(T, ignore_errors=True)
PY
