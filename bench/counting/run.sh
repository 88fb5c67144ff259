#!/bin/sh
# bench/counting/run.sh BUILD - what the probes cost and how well local
# compensation removes it.  Everything from one run: R rounds (R=7), each
# round runs every variant once, interleaved, pinned to one CPU (CPU=N,
# default the last), and the figures are medians over the rounds.
#  1. probe cost: ns per call of an empty instrumented function
#     (probe_loop.c: medians of 301 trials of 20000 calls inside each
#     process), uninstrumented, with no-op probes (libhyprof_nop.so) and
#     under each mode.  A pair's cost is the call under a mode minus the
#     call with no-op probes in the same round (what hyprof's probe code
#     adds to the calls -finstrument-functions makes anyway); the timed
#     pair is also divided by two TSC reads measured in the same process.
#     Targets: count-only pair <= 3 ns, timed pair <= 1.3 x two TSC reads.
#  2. compensation error |compensated - uninstrumented| / uninstrumented
#     for the probe-heavy program's total and its heavy functions'
#     exclusive times, raw error beside it (tests/counting/comp_check.py,
#     which says how errors against CPU time and against wall time are
#     formed): (a) comp.c against the same program built without probes,
#     run alternately; (b) comp_twin.c, instrumented and uninstrumented
#     copies in one process, sampling at 1 Hz.  Target <= 2%.
#  3. hybrid mode (count-only probes + default sampling) and measured mode
#     on comp.c: wall and CPU time over the uninstrumented build.
set -u
BUILD=$(cd "${1:-build}" && pwd)
BIN=$BUILD/bench/bin; LIB=$BUILD/lib; H=$BUILD/bin/hyprof; KV=$BUILD/tests/bin/hp_kv
TB=$BUILD/tests/bin
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CC="python3 $SRC/tests/counting/comp_check.py"
R=${R:-7}
CPU=${CPU:-$(($(nproc) - 1))}
PIN="taskset -c $CPU"
T=$(mktemp -d /tmp/hyprof-bench.XXXXXX); trap 'rm -rf "$T"' EXIT
under() { mode=$1; out=$2; shift 2; rm -rf "$out"; HYPROF_MODE=$mode HYPROF_QUIET=1 HYPROF_OUTPUT=$out LD_PRELOAD=$LIB/libhyprof.so $PIN "$@"; }
kv() { "$KV" "$1" "$2" | sed -n "s/^$3=//p" | head -n 1; }

echo "hyprof bench/counting: $(nproc) CPUs, pinned to CPU $CPU, $R rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "1. probe cost"
for i in $(seq "$R"); do
  p=$($PIN "$BIN/bench_pl_plain")
  n=$(LD_PRELOAD=$LIB/libhyprof_nop.so $PIN "$BIN/bench_pl_instr")
  s=$(under sampled "$T/s" "$BIN/bench_pl_instr")
  h=$(under hybrid "$T/h" "$BIN/bench_pl_instr")
  m=$(under measured "$T/m" "$BIN/bench_pl_instr")
  echo "$p | $n | $s | $h | $m | $(kv "$T/h" calib count_probe_ns.median) $(kv "$T/m" calib timed_probe_ns.median) \
$(kv "$T/m" counting comp.insitu_pair_cycles.mean) $(kv "$T/m" counting tsc_hz)"
done > "$T/pc"
python3 - "$T/pc" <<'PY'
import sys, statistics as st
rows = []
for line in open(sys.argv[1]):
    f = [x.split() for x in line.split("|")]
    rows.append(f)
med = lambda xs: st.median(list(xs))
call = lambda r, i: float(r[i][0])        # ns per call (median of trials)
tsc = lambda r, i: float(r[i][2])         # ns per TSC read in that process
plain, nop, samp, hyb, meas = (med(call(r, i) for r in rows) for i in range(5))
count = med(call(r, 3) - call(r, 1) for r in rows)
count_p10 = med(float(r[3][1]) - float(r[1][1]) for r in rows)
timed = med(call(r, 4) - call(r, 1) for r in rows)
ratio = med((call(r, 4) - call(r, 1)) / (2 * tsc(r, 4)) for r in rows)
tread = med(tsc(r, 4) for r in rows)
cal_count = med(float(r[5][0]) for r in rows)
cal_timed = med(float(r[5][1]) for r in rows)
insitu = med(float(r[5][2]) / float(r[5][3]) * 1e9 for r in rows) if len(rows[0][5]) >= 4 else float("nan")
print("   ns per call: uninstrumented %.2f, no-op probes %.2f, sampled %.2f, hybrid %.2f, measured %.2f"
      % (plain, nop, samp, hyb, meas))
print("   count-only pair: %.2f ns over no-op probes (p10 of trials: %.2f; target <= 3 ns); %.2f ns over uninstrumented"
      % (count, count_p10, hyb - plain))
print("   timed pair:      %.2f ns over no-op probes = %.2fx two TSC reads (%.2f ns each; target <= 1.3x); %.2f ns over uninstrumented"
      % (timed, ratio, tread, meas - plain))
print("   sampled mode:    %.2f ns per pair over no-op probes" % (samp - nop))
print("   calibrated (probes + the calls around them, null function): count pair %.2f ns, timed pair %.2f ns at start-up, %.2f ns in situ (mean)"
      % (cal_count, cal_timed, insitu))
PY

echo "2. compensation error (median of $R runs; errors against CPU time, wall time in brackets)"
for i in $(seq "$R"); do
  $PIN "$TB/cnt_comp_plain" > "$T/p"
  rm -rf "$T/c"; HYPROF_QUIET=1 $PIN "$H" run -q -o "$T/c" --mode measured -- "$TB/cnt_comp_instr" > "$T/i"
  "$H" report --json "$T/c" > "$T/c.json"
  $CC sep "$T/c.json" "$T/p" "$T/i" >> "$T/sep"
  echo "$(kv "$T/c" counting comp.recal_bursts) $(kv "$T/c" counting comp.insitu_pair_cycles.min) \
$(kv "$T/c" counting comp.insitu_pair_cycles.max) $(kv "$T/c" counting comp.insitu_pair_cycles.mean) $(kv "$T/c" counting comp.pair_cycles)" >> "$T/recal"
  rm -rf "$T/w"; HYPROF_QUIET=1 HYPROF_FREQ=1 $PIN "$H" run -q -o "$T/w" --mode measured -- "$TB/cnt_comp_twin" > "$T/wo"
  "$H" report --json "$T/w" > "$T/w.json"
  $CC twin "$T/w.json" "$T/wo" >> "$T/twin"
done
echo " (a) comp.c against the same program built without probes (default sampling):"
$CC summary "$T/sep"
echo " (b) comp_twin.c, uninstrumented copy in the same process (sampling at 1 Hz: probes alone):"
$CC summary "$T/twin"
python3 - "$T/recal" <<'PY'
import sys, statistics as st
r = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
if not r or len(r[0]) < 5:
    sys.exit(0) # a runtime without in-situ recalibration
print("   in-situ recalibration (comp.c runs): %d bursts per run; F from %.0f to %.0f cycles within a run, mean %.0f, start-up %.0f"
      % (st.median(x[0] for x in r), st.median(x[1] for x in r), st.median(x[2] for x in r),
         st.median(x[3] for x in r), st.median(x[4] for x in r)))
PY

echo "3. overhead on comp.c (2M tiny calls) over the uninstrumented build (median of $R)"
for i in $(seq "$R"); do
  a=$($PIN "$TB/cnt_comp_plain")
  b=$(under hybrid "$T/hy" "$TB/cnt_comp_instr")
  c=$(under measured "$T/me" "$TB/cnt_comp_instr")
  echo "$a | $b | $c"
done > "$T/ho"
python3 - "$T/ho" <<'PY'
import sys, statistics as st
rows = [[[float(x) for x in p.split()] for p in l.split("|")] for l in open(sys.argv[1])]
med = lambda xs: st.median(list(xs))
for name, i in (("hybrid", 1), ("measured", 2)):
    w = med(r[i][0] / r[0][0] - 1 for r in rows)
    c = med(r[i][4] / r[0][4] - 1 for r in rows)
    print("   %-9s +%.1f%% CPU time (+%.1f%% wall)" % (name + ":", 100 * c, 100 * w))
PY
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
