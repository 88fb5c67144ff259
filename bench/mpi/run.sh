#!/bin/sh
# bench/mpi/run.sh BUILD - the MPI wrappers' numbers (issue 5), each
# measured in this run (figures: bench/mpi/RESULTS.md):
#  1. pingpong: one-way latency and bandwidth, 8 B to 4 MB.  Each run of
#     bench_mpi_pingpong interleaves, batch by batch, the wrapped entry points
#     (MPI_Send/Recv) with the PMPI_ ones (which no wrapper sees): their
#     paired difference is what the wrappers add, in the same process under
#     the same conditions.  Four configurations, run in turn REPS times:
#     plain MPI (the difference is the method's noise); hyprof without the
#     wrappers (HYPROF_MPI=0: the runtime alone, compared with plain across
#     runs); the wrappers with --compensate none (bookkeeping only); with the
#     piggyback (--compensate parallel).  Medians over the runs.  Targets:
#     the wrappers add at most 100 ns per call; the piggyback at most 10% of
#     the latency at 8 B and 1% from 64 KB.  Then the same with non-blocking
#     calls (Isend/Irecv/Wait/Waitall) up to 64 KB, and memory per rank.
#  2. designs: the piggyback designs on their own (bench_mpi_designs: struct
#     datatype built per message or cached, packed copy, a second message).
#  3. crossover: the wrappers' two ways forced (HYPROF_MPI_PACK_MAX huge or
#     0), each run's piggyback cost paired against its own PMPI_ batches, to
#     place HYPROF_MPI_PACK_MAX (default 2048).
#  4. table1: the paper's Table 1 with the master-worker Monte Carlo pi:
#     master and worker times uninstrumented, measured, locally and parallel
#     compensated, with the probes' own overhead and with an injected one.
#  5. merge: the merge at MPI_Finalize for 2, 4, 8 and 16 ranks
#     (oversubscribed), median of 3 runs.
# HP_BENCH_ONLY=pingpong|nonblocking|designs|crossover|table1|merge runs one
# section; HP_BENCH_MIN/MAX bound the ping-pong sizes, HP_BENCH_REPS (5) the
# runs of each configuration of section 1, HP_BENCH_REPS2 (3) those of 1b and
# 3, HP_BENCH_T1_REPS (3) those of Table 1, HP_BENCH_PI_POINTS (10 M) and
# HP_BENCH_PI_POINTS_INJ (2 M) its points without and with the injected delay.
set -u
BUILD=$(cd "${1:-build}" && pwd)
B=$BUILD/bench/bin
H=$BUILD/bin/hyprof
T=$(mktemp -d /tmp/hyprof-bench-mpi.XXXXXX)
# HP_BENCH_KEEP=DIR keeps the raw outputs there
trap '[ -n "${HP_BENCH_KEEP:-}" ] && mkdir -p "$HP_BENCH_KEEP" && cp -p "$T"/*.[0-9]* "$HP_BENCH_KEEP"/ 2>/dev/null; rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$B/bench_mpi_pingpong" ] || { echo "bench/mpi: not built (no MPI)"; exit 0; }
command -v mpirun > /dev/null || { echo "bench/mpi: no mpirun"; exit 0; }
ONLY=${HP_BENCH_ONLY:-all}
want() { [ "$ONLY" = all ] || [ "$ONLY" = "$1" ]; }
MIN=${HP_BENCH_MIN:-8}
MAX=${HP_BENCH_MAX:-4194304}
REPS=${HP_BENCH_REPS:-5}
REPS2=${HP_BENCH_REPS2:-3}
FAILED=0
# HP_BENCH_NICE=-10 (root) runs the ranks at that nice value: compensation
# assumes a rank has its CPU, which a loaded shared machine does not give.
MPIRUN=mpirun
[ -n "${HP_BENCH_NICE:-}" ] && MPIRUN="nice -n $HP_BENCH_NICE mpirun"
load() { echo "(load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs, $(date -u +%H:%M:%S) UTC)"; }
echo "bench/mpi: $(mpirun --version 2>/dev/null | head -1); ranks at nice $(nice -n "${HP_BENCH_NICE:-0}" nice)"
load

# pp NAME OUT MIN MAX MODE [mpirun args...]: one ping-pong run; NAME plain runs without hyprof
pp() {
  name=$1 out=$2 lo=$3 hi=$4 mode=$5; shift 5
  case $name in
  plain) $MPIRUN -np 2 "$B/bench_mpi_pingpong" "$lo" "$hi" "$mode" > "$out" 2> "$out.err" ;;
  *) $MPIRUN -np 2 "$@" "$H" run -q -o "$T/prof" -- "$B/bench_mpi_pingpong" "$lo" "$hi" "$mode" > "$out" 2> "$out.err" ;;
  esac
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q '^mem 1 ' "$out"; then
    echo "bench/mpi: ping-pong run $name ($mode, $lo..$hi B) failed (exit $rc):"; tail -5 "$out.err"
    FAILED=1
  elif [ "$name" != plain ]; then
    # the wrappers' calibrated costs, as the profile reports them
    "$H" report --json "$T/prof" 2> /dev/null | python3 -c "
import json, sys
m = json.load(sys.stdin).get('mpi') or {}
print('cal %s %s %s %s %s' % tuple(m.get(k, 'nan') for k in ('wrapper_ns', 'piggyback_packed_ns', 'piggyback_struct_ns', 'piggyback_struct_new_ns', 'piggyback_bytes')))" >> "$out"
  fi
  rm -rf "$T/prof"
}
# configurations: name, then mpirun args
cfg_args() {
  case $1 in
  plain) ;;
  runtime) echo "-x HYPROF_MPI=0" ;;
  none) echo "-x HYPROF_MPI=1 -x HYPROF_COMPENSATE=none" ;;
  pb) echo "-x HYPROF_MPI=1 -x HYPROF_COMPENSATE=parallel" ;;
  packed) echo "-x HYPROF_MPI=1 -x HYPROF_COMPENSATE=parallel -x HYPROF_MPI_PACK_MAX=1073741824" ;;
  struct) echo "-x HYPROF_MPI=1 -x HYPROF_COMPENSATE=parallel -x HYPROF_MPI_PACK_MAX=0" ;;
  esac
}
# series TAG MIN MAX MODE CONFIGS...: REPS runs of each configuration, in turn
series() {
  tag=$1 lo=$2 hi=$3 mode=$4; shift 4
  for rep in $(seq 1 "$REPS"); do
    for c in "$@"; do
      # shellcheck disable=SC2046
      pp "$c" "$T/$tag.$c.$rep" "$lo" "$hi" "$mode" $(cfg_args "$c")
    done
  done
}

# The analysis of the ping-pong runs: python3 $T TAG CONFIGS...
cat > "$T/pp.py" <<'PY'
import glob, sys, statistics as st
T, tag, cfgs = sys.argv[1], sys.argv[2], sys.argv[3:]
calls = 3.5 if tag == "nb" else 2  # calls per one-way message
med = st.median
def load(c):
    runs = []
    for f in sorted(glob.glob("%s/%s.%s.[0-9]*" % (T, tag, c))):
        if f.endswith(".err"):
            continue
        r = {"sz": {}, "mem": {}, "cal": None}
        for line in open(f):
            w = line.split()
            if len(w) == 7 and w[0].isdigit():
                r["sz"][int(w[0])] = [float(x) for x in w[1:6]]
            elif w[:1] == ["mem"] and len(w) == 4:
                r["mem"][int(w[1])] = int(w[2])
            elif w[:1] == ["cal"]:
                r["cal"] = [float(x) for x in w[1:]]
        if r["sz"]:
            runs.append(r)
    return runs
R = {c: load(c) for c in cfgs}
def col(c, s, i):  # median over the runs of column i at size s (0 pmpi best, 1 mpi best, 2 pmpi med, 3 mpi med, 4 diff ns)
    v = [r["sz"][s][i] for r in R[c] if s in r["sz"]]
    return med(v) if v else float("nan")
def spread(c, s, i):
    v = [r["sz"][s][i] for r in R[c] if s in r["sz"]]
    return (max(v) - min(v)) / 2 if len(v) > 1 else float("nan")
sizes = sorted(set().union(*[set(r["sz"]) for r in R[cfgs[0]]])) if R[cfgs[0]] else []
print("runs: " + ", ".join("%s %d" % (c, len(R[c])) for c in cfgs))
if "plain" in cfgs:
    print("\nOne-way latency, us (best batch of a run / median batch of a run; medians over the runs).")
    print("plain: no hyprof; runtime: hyprof, no wrappers; none: wrappers, --compensate none; pb: --compensate parallel.")
    rt = "runtime" in cfgs
    print(("%9s" + " %15s" * len(cfgs) + (" %13s" if rt else "")) % ("bytes", *cfgs, *(["runtime-plain"] if rt else [])))
    for s in sizes:
        print(("%9d" + " %15s" * len(cfgs) + (" %13s" if rt else "")) % (s,
              *["%7.3f/%-7.3f" % (col(c, s, 1), col(c, s, 3)) for c in cfgs],
              *(["%+7.0f ns" % ((col("runtime", s, 3) - col("plain", s, 3)) * 1e3)] if rt else [])))
def bd(c, s):  # median over the runs of (best MPI_ batch - best PMPI_ batch), ns
    v = [(r["sz"][s][1] - r["sz"][s][0]) * 1e3 for r in R[c] if s in r["sz"]]
    return med(v) if v else float("nan")
wr = "none" in cfgs and "pb" in cfgs
if wr:
    print("\nPaired in each run: MPI_ batch minus the PMPI_ batch beside it, ns per one-way message (median over")
    print("the rounds of a run, then over the runs; +- half the range over the runs).  A one-way message is one")
    print("send and one receive call (blocking; non-blocking: 7 calls per round trip); 'per call' divides by that.")
    print("pb-none: the piggyback's added latency (pb minus none: two runs' paired differences), pb%: over the")
    print("latency with the wrappers alone (none: PMPI median + its difference); 'best': the same from each run's")
    print("best MPI_ batch minus its best PMPI_ batch (less disturbed by the host at large sizes).")
    print("%9s %14s %14s %14s %8s %7s %8s %8s %9s %8s %10s %10s" % ("bytes", "plain (noise)", "runtime", "none", "per call",
          "pb", "pb-none", "pb%", "best p-n", "best pb%", "MB/s plain", "MB/s pb"))
    for s in sizes:
        dn, dp = col("none", s, 4), col("pb", s, 4)
        base = col("none", s, 2) + dn / 1e3
        bn, bp = bd("none", s), bd("pb", s)
        bbase = col("none", s, 1)
        f = lambda c: "%6.0f +-%-5.0f" % (col(c, s, 4), spread(c, s, 4)) if c in cfgs else "-"
        print("%9d %14s %14s %14s %8.0f %7.0f %8.0f %7.2f%% %9.0f %7.2f%% %10.1f %10.1f" % (s, f("plain"), f("runtime"),
              f("none"), dn / calls, dp, dp - dn, 100 * (dp - dn) / 1e3 / base, bp - bn, 100 * (bp - bn) / 1e3 / bbase,
              s / col("plain", s, 1) if "plain" in cfgs else float("nan"), s / col("pb", s, 1)))
if "packed" in cfgs and "struct" in cfgs:
    print("\nThe piggyback's two ways forced (parallel compensation): each run's MPI_ minus PMPI_, ns per one-way")
    print("message (medians), and the PMPI_ latency of those runs (us)")
    print("%9s %10s %10s %10s %10s %8s" % ("bytes", "PMPI us", "packed", "struct", "str-pack", "faster"))
    cross = None
    for s in sizes:
        a, b = col("packed", s, 4), col("struct", s, 4)
        fast = "packed" if a <= b else "struct"
        if fast == "struct" and cross is None:
            cross = s
        elif fast == "packed":
            cross = None
        print("%9d %10.3f %10.0f %10.0f %10.0f %8s" % (s, col("packed", s, 2), a, b, b - a, fast))
    print("the struct datatype is faster from %s bytes on (HYPROF_MPI_PACK_MAX default 2048)" % cross)
mems = [(c, [max(r["mem"].values()) for r in R[c] if r["mem"]]) for c in cfgs]
print("\nPeak RSS per rank (VmHWM after MPI_Finalize, the larger rank, median over runs): " +
      ", ".join("%s %.1f MB" % (c, med(v) / 1024) for c, v in mems if v))
cal = [(c, [r["cal"] for r in R[c] if r["cal"]]) for c in cfgs]
for c, v in cal:
    if v and v[0][0] == v[0][0]:
        print("calibrated by hyprof at MPI_Init (%s; medians): wrapper %.0f ns/call, packed %.0f ns, struct %.0f ns, "
              "struct built anew %.0f ns, piggyback %.0f B" % (c, *[med(x[i] for x in v) for i in range(4)], v[0][4]))
PY

if want pingpong; then
  echo
  echo "== 1. ping-pong, blocking (MPI_Send/MPI_Recv), $MIN to $MAX bytes, $REPS runs of each configuration"
  series bl "$MIN" "$MAX" blocking plain runtime none pb
  python3 "$T/pp.py" "$T" bl plain runtime none pb
  load
fi
if want nonblocking; then
  echo
  REPS=$REPS2
  echo "== 1b. ping-pong, non-blocking (Isend/Irecv/Wait/Waitall), 8 to 65536 bytes, $REPS runs"
  series nb 8 65536 nonblocking plain none pb
  python3 "$T/pp.py" "$T" nb plain none pb | sed -n '/^Paired/,/^$/p'
  load
fi

if want designs; then
  echo
  echo "== 2. the piggyback designs on their own (no hyprof), interleaved batch by batch: plain, plain with"
  echo "16 bytes more (the floor of any in-message piggyback), struct datatype built per message,"
  echo "cached, packed copy (16-byte and 2-byte piggyback), a second message on a duplicate communicator"
  $MPIRUN -np 2 "$B/bench_mpi_designs" 1048576 8 4 || { echo "bench/mpi: bench_mpi_designs failed"; FAILED=1; }
  echo "around the crossover:"
  $MPIRUN -np 2 "$B/bench_mpi_designs" 4096 1024 2 || FAILED=1
  for n in 2560 3584 4032 1048576; do $MPIRUN -np 2 "$B/bench_mpi_designs" $n $n 2 | tail -1 || FAILED=1; done
  load
fi

if want crossover; then
  echo
  REPS=$REPS2
  echo "== 3. the wrappers' two ways, forced, 8 to 65536 bytes, $REPS runs of each"
  series cx 8 65536 blocking packed struct
  python3 "$T/pp.py" "$T" cx packed struct | sed -n '/^The piggyback/,/^the struct/p'
  load
fi

if want table1; then
  T1=${HP_BENCH_T1_REPS:-3}
  # 10 M points: ~0.7 s of uninstrumented work, long enough for this
  # machine's wake-up and scheduling noise to stay below a few percent
  # (2 M points gave paired errors from -28 % to +131 %); the injected
  # delay's runs are 30 times longer per point, so they keep 2 M
  PTS=${HP_BENCH_PI_POINTS:-10000000}
  PTS_INJ=${HP_BENCH_PI_POINTS_INJ:-2000000}
  echo
  echo "== 4. the paper's Table 1: Monte Carlo pi ($PTS points, chunks of 200), 1 master and 1 worker, one rank"
  echo "per CPU (compensation assumes a rank has its CPU; 'cpu share': each rank's CPU time over mpirun's whole"
  echo "span, start-up included, so telling only for runs of seconds: well below 1, the machine took time from"
  echo "them).  Seconds, median of $T1 interleaved runs."
  # each rank's CPU share, when GNU time is there (else no share is printed)
  TIMECMD=
  [ -x /usr/bin/time ] && TIMECMD="/usr/bin/time -f cpu:%U:%S:%e"
  t1() { # TAG POINTS [mpirun args]: T1 runs, plain and instrumented in turn
    tag=$1 pts=$2; shift 2
    for rep in $(seq 1 "$T1"); do
      $MPIRUN -np 2 $TIMECMD "$B/bench_mpi_pi_plain" "$pts" > "$T/$tag.u.$rep" 2> "$T/$tag.u.$rep.err" ||
        { echo "bench/mpi: plain pi failed"; FAILED=1; }
      $MPIRUN -np 2 "$@" $TIMECMD "$H" run -q -o "$T/t1" --mode measured --compensate parallel -- \
        "$B/bench_mpi_pi" "$pts" > "$T/$tag.m.$rep.out" 2> "$T/$tag.m.$rep.err" || { echo "bench/mpi: hyprof run of pi failed"; tail -3 "$T/$tag.m.$rep.err"; FAILED=1; }
      "$H" report --json "$T/t1" > "$T/$tag.m.$rep" 2> /dev/null || { echo "bench/mpi: hyprof report of pi failed"; FAILED=1; }
      rm -rf "$T/t1"
    done
    python3 - "$T" "$tag" "$T1" <<'PY'
import json, sys, statistics as st
T, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = {"Master": [], "Worker": []}
cpu, ucpu = [], []
def shares(path, out):
    try:
        for l in open(path):
            w = l.strip().split(":")
            if w[:1] == ["cpu"] and len(w) == 4 and float(w[3]) > 0:
                out.append((float(w[1]) + float(w[2])) / float(w[3]))
    except OSError:
        pass
for k in range(1, n + 1):
    shares("%s/%s.u.%d.err" % (T, tag, k), ucpu)
    shares("%s/%s.m.%d.err" % (T, tag, k), cpu)
    try:
        plain = {int(l.split()[1]): float(l.split()[2]) for l in open("%s/%s.u.%d" % (T, tag, k)) if l.startswith("time ")}
        rep = {r["rank"]: r for r in json.load(open("%s/%s.m.%d" % (T, tag, k)))["ranks"]}
    except (OSError, ValueError, KeyError):
        continue
    for name, rs in (("Master", [0]), ("Worker", [r for r in plain if r])):
        u = min(plain[r] for r in rs)
        m, l, p = (min(rep[r][key] for r in rs) for key in ("wall_raw", "wall_local", "wall_parallel"))
        rows[name].append((u, m, l, p))
# errors: each instrumented run against the plain run just before it (the
# pair saw the same machine), median over the pairs
print("%-8s %15s %16s %19s %22s %10s %10s" % ("Task", "Uninstrumented", "No compensation", "Local compensation",
      "Parallel compensation", "par. err", "local err"))
for name, v in rows.items():
    if not v:
        continue
    u, m, l, p = (st.median(x[i] for x in v) for i in range(4))
    errs = sorted(100 * (x[3] / x[0] - 1) for x in v)
    lerrs = [100 * (x[2] / x[0] - 1) for x in v]
    print("%-8s %15.3f %16.3f %19.3f %22.3f %9.1f%% %9.1f%%   (parallel error per pair of runs: %s)" % (name, u, m,
          l, p, st.median(errs), st.median(lerrs), " ".join("%.1f%%" % e for e in errs)))
print("cpu share of the ranks per run (CPU time / elapsed, mpirun's whole span): instrumented %s; plain %s" %
      (" ".join("%.2f" % c for c in sorted(cpu)), " ".join("%.2f" % c for c in sorted(ucpu))))
PY
  }
  echo "probes' own overhead (measured mode):"
  t1 own "$PTS"
  echo "with 1 us injected per probe pair (HYPROF_TEST_PROBE_DELAY_NS=1000), $PTS_INJ points:"
  t1 inj "$PTS_INJ" -x HYPROF_TEST_PROBE_DELAY_NS=1000
  load
fi

if want merge; then
  echo
  echo "== 5. the merge at MPI_Finalize (Monte Carlo pi, 200000 points; ranks oversubscribed on $(nproc) CPUs;"
  echo "median of 3 runs; merge_time as rank 0 reports it)"
  printf "%6s %12s %14s %8s %14s %10s\n" ranks "merge ms" "(min..max)" levels "merged bytes" "ms/level"
  for np in 2 4 8 16; do
    for rep in 1 2 3; do
      if $MPIRUN -np "$np" --oversubscribe "$H" run -q -o "$T/m" -- "$B/bench_mpi_pi" 200000 > /dev/null 2> "$T/m.err"; then
        sz=$(cat "$T/m"/*.merged.*.hyp | wc -c)
        "$H" report --json "$T/m" | python3 -c "import json,sys; m=json.load(sys.stdin)['mpi']; print(m['merge_time'], m['merge_levels'], $sz)" >> "$T/merge.$np"
      else
        echo "bench/mpi: merge run with $np ranks failed:"; tail -3 "$T/m.err"; FAILED=1
      fi
      rm -rf "$T/m"
    done
    [ -s "$T/merge.$np" ] && python3 - "$T/merge.$np" "$np" <<'PY'
import sys, statistics as st
v = [l.split() for l in open(sys.argv[1])]
t = sorted(float(x[0]) * 1e3 for x in v)
lv = int(v[0][1])
print("%6s %12.2f %14s %8d %14d %10.2f" % (sys.argv[2], st.median(t), "(%.1f..%.1f)" % (t[0], t[-1]), lv,
      int(st.median(int(x[2]) for x in v)), st.median(t) / max(lv, 1)))
PY
  done
  load
fi
[ "$FAILED" = 0 ] || { echo "bench/mpi: some runs failed (above)"; exit 1; }
