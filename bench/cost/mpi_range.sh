#!/bin/sh
# bench/cost/mpi_range.sh BUILD_DIR [N] [ROUNDTRIPS] - the cost range of an
# MPI run against its timed cost: a 2-rank ping-pong of 400-byte messages
# (tests/mpi/pingpong_check.c; its wrappers' bookkeeping and piggyback are
# most of what hyprof costs it) run plain and under `hyprof run
# --compensate parallel`, rounds interleaved.  The timed cost is the CPU
# time of the whole job (mpirun's process tree, from wait4) under hyprof
# less plain's, which is what the range counts (CPU seconds summed over the
# ranks); the range's MPI part (cost.mpi) beside it.  Medians over N rounds
# (default 7).  Both ranks poll while they wait, so the job's CPU time is
# ~2x its wall time.
BUILD=$(cd "${1:-build}" && pwd)
exec python3 - "$BUILD" "${2:-7}" "${3:-300000}" <<'PY'
import json, os, shutil, statistics as st, subprocess, sys, tempfile, time
B, N, RT = sys.argv[1], int(sys.argv[2]), sys.argv[3]
H, P = B + "/bin/hyprof", B + "/tests/bin/mpi_pingpong_check"
if not os.path.exists(P) or not shutil.which("mpirun"):
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
rows = []
for k in range(N):
    d = os.path.join(T, "p")
    shutil.rmtree(d, ignore_errors=True)
    pw, pc = run(["mpirun", "-np", "2", P, RT])
    hw, hc = run(["mpirun", "-np", "2", H, "run", "-o", d, "--compensate", "parallel", "--", P, RT])
    rep = subprocess.run([H, "report", "--json", d], capture_output=True, text=True)
    c = json.loads(rep.stdout)["cost"]
    rows.append(dict(timed=hc - pc, wall=hw - pw, low=c["low"], high=c["high"], mlo=c["mpi"]["low"],
                     mhi=c["mpi"]["high"], pred=c["predicted"], cpu=c["cpu_time"]))
    r = rows[-1]
    print("round %d: timed %+.3f s CPU (wall %+.3f s); range %.3f .. %.3f s, of which MPI %.3f .. %.3f; %s"
          % (k + 1, r["timed"], r["wall"], r["low"], r["high"], r["mlo"], r["mhi"],
             "inside" if r["low"] <= r["timed"] <= r["high"] else "outside"), flush=True)
shutil.rmtree(T, ignore_errors=True)
med = {k: st.median(r[k] for r in rows) for k in rows[0]}
inside = sum(r["low"] <= r["timed"] <= r["high"] for r in rows)
print("median: timed %.3f s CPU of the job (%.1f%% of its %.3f s profiled); range %.3f .. %.3f s "
      "(MPI part %.3f .. %.3f; without it %.3f .. %.3f); predicted %.3f s; inside in %d of %d rounds"
      % (med["timed"], 100 * med["timed"] / med["cpu"], med["cpu"], med["low"], med["high"], med["mlo"],
         med["mhi"], med["low"] - med["mlo"], med["high"] - med["mhi"], med["pred"], inside, N))
PY
