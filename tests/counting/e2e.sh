#!/bin/sh
# tests/counting/e2e.sh CASE - end-to-end tests of the probes: programs with
# counts known by construction run under `hyprof run`, facts checked in
# `hyprof report --json` (check_tree.py) and in the raw profile (hp_kv).
# Environment (set by ctest): HYPROF_BIN, HYPROF_LIB, HYPROF_TEST_BIN, HYPROF_SRC.
set -u
case_=$1
B=$HYPROF_TEST_BIN
H=$HYPROF_BIN
CHK="python3 $HYPROF_SRC/tests/counting/check_tree.py"
CC="$HYPROF_SRC/tests/counting/comp_check.py"
KV=$B/hp_kv
T=$(mktemp -d /tmp/hyprof-cnt.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# run MODE OUTDIR PROG ARGS... (extra HYPROF_* come from the environment)
run() {
  mode=$1; out=$2; shift 2
  "$H" run -q -o "$out" --mode "$mode" -- "$@" > "$out.stdout" 2> "$out.stderr" ||
    { cat "$out.stderr"; fail "hyprof run $*"; }
  "$H" report --json "$out" > "$out.json" || fail "hyprof report --json $out"
}
kv() { "$KV" "$1" "$2" | sed -n "s/^$3=//p" | head -n 1; }

case $case_ in
counts)
  for mode in hybrid measured; do
    run $mode "$T/$mode" "$B/cnt_counts" 4 100000
    $CHK "$T/$mode.json" mode=$mode main=1 main/a=3 main/a/b=6 main/a/b/c=6 main/rec=22 \
      folded:main/rec main/f=4 main/f/g=4 folded:main/f main/c=5 main/jump=1 \
      main/jump/deep=4 folded:main/jump/deep worker=4 worker/leaf=400000 flat:c=11 || exit 1
    [ "$(kv "$T/$mode" counting exit_mismatch)" = 1 ] || fail "$mode: exit_mismatch is not 1 (the longjmp)"
    # the report says so in every mode (JSON probe_stack, a header line)
    python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['probe_stack']; sys.exit(0 if p == {'exit_mismatch': 1, 'stack_overflow': 0, 'nested_lost': 0, 'tree_full': 0} else 1)" \
      "$T/$mode.json" || fail "$mode: probe_stack in the JSON report is not the one longjmp"
    "$H" report "$T/$mode" | grep -q "^probes    1 exits matched no entry" || fail "$mode: no probes line in the report header"
    [ "$(kv "$T/$mode" counting probes_seen)" = 400060 ] || fail "$mode: probes_seen $(kv "$T/$mode" counting probes_seen), want 400060"
    [ "$(kv "$T/$mode" counting mode_effective)" = $mode ] || fail "$mode: mode_effective"
  done ;;
signals)
  # a signal handler's instrumented calls at any instruction of the probes:
  # the handler's frames never take the place of the interrupted ones
  for mode in hybrid measured; do
    run $mode "$T/$mode" "$B/cnt_signals" 3000000
    ticks=$(sed -n 's/^ticks=//p' "$T/$mode.stderr")
    [ "${ticks:-0}" -gt 20 ] || fail "$mode: only ${ticks:-no} timer signals came"
    lost=$(kv "$T/$mode" counting nested_lost)
    $CHK "$T/$mode.json" mode=$mode main/step=3000000 absent:main/handler/step absent:main/step/handler/step \
      flat:handler=$((ticks - ${lost:-0})) || exit 1
    python3 - "$T/$mode.json" "$ticks" "${lost:-0}" <<'EOF' || fail "$mode: handler calls"
import json, sys
r, ticks, lost = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
f = {x["name"]: x["calls"] for x in r["functions"]}
ok = f.get("hwork") == 2 * f.get("handler", -1) and f.get("handler", 0) + lost >= ticks - 0
print("%s %s: handler %s + %d not recorded = %d ticks, hwork %s" % ("ok" if ok else "FAIL", sys.argv[1], f.get("handler"), lost, ticks, f.get("hwork")))
sys.exit(0 if ok else 1)
EOF
    [ "$(kv "$T/$mode" counting exit_mismatch)" = 0 ] || fail "$mode: exit_mismatch $(kv "$T/$mode" counting exit_mismatch), want 0"
    # SIGALRM is process-directed: the program's handler must run on its
    # own thread, never on one of hyprof's (the cost controller's once
    # took it in about half the runs of a measured program)
    python3 -c "import json,sys; n=json.load(open(sys.argv[1]))['threads']; print('threads with samples or probes:', n); sys.exit(n != 1)" \
      "$T/$mode.json" || fail "$mode: the program's signal handler ran on another thread"
  done ;;
wide)
  # 33,824 call paths against a probe tree of 1,024 nodes: the calls that
  # found it full are counted on their callers, and the report says how many
  # (it once showed main with 411,721 calls and only a [truncated] mark)
  for mode in hybrid measured; do
    HYPROF_MAX_NODES=1024 run $mode "$T/$mode" "$B/cnt_wide"
    python3 - "$T/$mode.json" <<'EOF' || fail "$mode: tree_full"
import json, sys
r = json.load(open(sys.argv[1]))
full = r["probe_stack"]["tree_full"]
calls = sum(f["calls"] or 0 for f in r["functions"])
print("tree_full %d; calls in the report %d (the program made 33825 with main)" % (full, calls))
sys.exit(0 if full > 20000 and calls == 33825 else 1)
EOF
    "$H" report "$T/$mode" | grep -q "^probes .* calls found their thread's probe tree full" ||
      fail "$mode: no header line for the full probe tree"
  done ;;
ownhooks)
  # the program's own hooks take its probes: same output as plain, and
  # hyprof says whose they are instead of a silent "no probe ran"
  "$B/cnt_ownhooks" > "$T/plain" || fail "cnt_ownhooks failed without hyprof"
  grep -q "^sum 11 entries 3$" "$T/plain" || fail "cnt_ownhooks: unexpected plain output: $(cat "$T/plain")"
  run hybrid "$T/o" "$B/cnt_ownhooks"
  cmp -s "$T/plain" "$T/o.stdout" || fail "output differs under hyprof: $(cat "$T/o.stdout")"
  grep -q "defines __cyg_profile_func_enter ahead of libhyprof.so" "$T/o.stderr" ||
    fail "no word that the program's own hooks take the probes (stderr: $(cat "$T/o.stderr"))" ;;
threads)
  run hybrid "$T/t" "$B/cnt_counts" 8 25000
  $CHK "$T/t.json" worker=8 worker/leaf=200000 main/a/b/c=6 || exit 1
  [ "$(kv "$T/t" counting threads_with_probes)" = 9 ] || fail "threads_with_probes, want 9" ;;
regions)
  out=$("$B/cnt_regions_plain") || fail "the region program crashed without the runtime"
  [ "$out" = "active -1" ] || fail "without the runtime: '$out', want 'active -1'"
  for mode in hybrid measured; do
    run $mode "$T/$mode" "$B/cnt_regions"
    grep -q "active $([ $mode = hybrid ] && echo 1 || echo 2)" "$T/$mode.stdout" || fail "hyprof_active() in $mode"
    $CHK "$T/$mode.json" main/outer=1 main/outer/loop=100 main/outer/dyn=7 main/nested=5 \
      main/nested/rfold=5 folded:main/nested main/twice=2 worker=3 worker/tregion=150 || exit 1
    "$KV" "$T/$mode" regions > "$T/regions.txt"
    [ "$(wc -l < "$T/regions.txt")" -eq 6 ] || { cat "$T/regions.txt"; fail "6 regions expected"; }
    grep -q "^2 loop .*tests/counting/regions.c:43$" "$T/regions.txt" || { cat "$T/regions.txt"; fail "region loop's file:line"; }
    # Raw tree: the function called inside region `loop` is its child.
    "$KV" "$T/$mode" probe > "$T/probe.txt"
    loop=$(awk '$6 == "0x2" && $8 == "0x2" {print $2; exit}' "$T/probe.txt")
    awk -v p="$loop" '$4 == p && $8 == "0x1" && $12 == 100 {ok=1} END {exit !ok}' "$T/probe.txt" ||
      { cat "$T/probe.txt"; fail "work() is not a child of region loop with 100 calls"; }
    [ "$(kv "$T/$mode" counting exit_mismatch)" = 0 ] || fail "$mode: region ends mismatched"
  done ;;
cxx)
  run hybrid "$T/x" "$B/cnt_cxx"
  $CHK "$T/x.json" "main/Acc::add(long)=10" "main/int sum<int>(int, int)=3" "main/thrower(int)=4" \
    "main/thrower(int)/inner(int)=4" main/cxxregion=1 || exit 1
  [ "$(kv "$T/x" counting exit_mismatch)" = 0 ] || fail "exceptions left unmatched exits" ;;
fortran)
  [ -x "$B/cnt_fregions" ] || { echo "skip: Fortran is not enabled in this build"; exit 77; }
  out=$("$B/cnt_fregions") || fail "the Fortran program crashed without the runtime"
  echo "$out" | grep -q "^active 0" || fail "without the runtime: '$out'"
  run measured "$T/f" "$B/cnt_fregions"
  grep -q "^active 2" "$T/f.stdout" || fail "hyprof_active_f() under the runtime"
  $CHK "$T/f.json" fsolve=1 fsolve/fstep=20 || exit 1
  "$KV" "$T/f" regions | grep -q "^1 fsolve .*fregions.F90:9$" || fail "fsolve's file:line"
  # a module procedure, instrumented: named module::procedure
  run hybrid "$T/fm" "$B/cnt_fmodule"
  $CHK "$T/fm.json" main/fmodule/fmod::fwork=30 absent:main/fmodule/__fmod_MOD_fwork || exit 1 ;;
filter)
  HYPROF_FILTER="b, lea*" run hybrid "$T/fl" "$B/cnt_counts" 2 1000
  # b is not counted and pushes no frame: c is counted under a.
  $CHK "$T/fl.json" main/a=3 main/a/c=6 absent:main/a/b/c worker=2 absent:worker/leaf=2000 \
    main/c=5 || exit 1
  ex=$(kv "$T/fl" counting filter.excluded)
  case ",$ex," in *,b,*) ;; *) fail "filter.excluded='$ex' lacks b" ;; esac
  case ",$ex," in *,leaf,*) ;; *) fail "filter.excluded='$ex' lacks leaf" ;; esac
  # ... and the tree keeps them as excluded nodes (flag 0x80), never missing.
  "$KV" "$T/fl" probe | awk '$NF == "excluded" && $12 == 0 {n++} END {exit n < 2}' ||
    fail "no excluded nodes in the probe tree"
  # their probes counted nothing: calls are unknown (null), not 0, in the
  # tree and in the flat profile (docs/cmd-report.md: null when no probe
  # counted it)
  python3 - "$T/fl.json" <<'EOF' || fail "an excluded function shows a call count"
import json, sys
j = json.load(open(sys.argv[1]))
bad = [("function", f["name"], f["calls"]) for f in j["functions"] if f["name"] in ("b", "leaf") and f["calls"] is not None]
seen = []
def walk(n):
    if "excluded" in (n.get("flags") or []):
        seen.append(n["name"])
        if n["calls"] is not None:
            bad.append(("node", n["name"], n["calls"]))
    for c in n.get("children", []):
        walk(c)
walk(j["tree"])
if bad or not seen:
    print("FAIL: excluded functions with calls %s (excluded nodes seen: %s)" % (bad, seen))
    sys.exit(1)
EOF
  ;;
modes)
  run sampled "$T/s" "$B/cnt_counts" 2 1000
  [ "$(kv "$T/s" counting mode_effective)" = sampled ] || fail "sampled: mode_effective"
  [ "$(kv "$T/s" counting probes_seen)" = 0 ] || fail "sampled: probes ran"
  run hybrid "$T/n" "$B/cnt_noprobes" 1 10 1000
  [ "$(kv "$T/n" counting mode_effective)" = "sampled (no probes ran)" ] ||
    fail "hybrid without probes: mode_effective '$(kv "$T/n" counting mode_effective)'" ;;
nop)
  out=$(LD_PRELOAD="$HYPROF_LIB/libhyprof_nop.so" "$B/cnt_regions") || fail "under libhyprof_nop.so"
  [ "$out" = "active 0" ] || fail "libhyprof_nop.so: '$out', want 'active 0'"
  LD_PRELOAD="$HYPROF_LIB/libhyprof_nop.so" "$B/cnt_counts" 2 1000 > /dev/null || fail "counts under nop" ;;
fork)
  # Probes across fork (fork.c): the child of a fork made with no probed
  # function open gets an empty tree whose node indices are used again, and
  # its child cache must be cleared with it (a stale entry would send the
  # child's calls to a node of the parent's tree).  Sampling at 1 Hz keeps
  # sampled frames out of the hybrid tree's paths.
  for mode in hybrid measured; do
    HYPROF_FREQ=1 "$H" run -q -o "$T/$mode" --mode "$mode" -- "$B/cnt_fork" 10000 > "$T/$mode.stdout" 2> "$T/$mode.stderr" ||
      { cat "$T/$mode.stderr"; fail "$mode: hyprof run cnt_fork"; }
    n=0
    for f in "$T/$mode"/*.hyp; do
      "$H" report --json "$f" > "$T/one.json" || fail "report $f"
      if python3 -c "import json,sys; sys.exit(not any(x['name'] == 'mid' for x in json.load(open(sys.argv[1]))['functions']))" "$T/one.json"; then
        $CHK "$T/one.json" mid=1 mid/leaf=10000 absent:work || fail "$mode: the child's tree"
      else
        $CHK "$T/one.json" work=2 work/leaf=20000 absent:mid || fail "$mode: the parent's tree"
      fi
      n=$((n + 1))
    done
    [ "$n" = 2 ] || fail "$mode: $n profiles, want 2 (parent and child)"
  done ;;
churn)
  # 301 threads, at most 8 exited ones kept apart: the others merge into
  # one "[exited]" record once gone, and their memory serves new
  # threads.  Counts, thread total and samples stay exact; the file holds
  # a bounded number of thread records.  HYPROF_MAX_THREADS=0 keeps all.
  for mt in 8 0; do
    HYPROF_MAX_THREADS=$mt run hybrid "$T/c$mt" "$B/cnt_churn" 300 2000
    $CHK "$T/c$mt.json" flat:main=1 flat:worker=300 flat:leaf=600000 || fail "max_threads $mt: counts"
    python3 -c "import json,sys; n=json.load(open(sys.argv[1]))['threads']; sys.exit(0 if n == 301 else print('threads', n) or 1)" \
      "$T/c$mt.json" || fail "max_threads $mt: the report does not count 301 threads"
    "$KV" "$T/c$mt" threads > "$T/c$mt.threads" || fail "hp_kv threads"
  done
  recs=$(wc -l < "$T/c8.threads")
  merged=$(sed -n 's/.*\[exited\].* merged \([0-9]*\).*/\1/p' "$T/c8.threads")
  echo "max 8: $recs thread records, [exited] holds ${merged:-0}; max 0: $(wc -l < "$T/c0.threads") records"
  [ "$recs" -le 16 ] || fail "max_threads 8: $recs thread records in the file"
  [ "${merged:-0}" -ge 280 ] || fail "max_threads 8: the [exited] record holds ${merged:-0} threads"
  # the report says which record stands for the exited threads
  "$H" report --json --threads "$T/c8" | python3 -c "import json,sys; m=[t['merged_threads'] for t in json.load(sys.stdin)['per_thread'] if t['merged_threads'] > 1]; sys.exit(0 if m == [$merged] else print('merged records', m) or 1)" ||
    fail "max_threads 8: per_thread merged_threads is not one record of $merged"
  "$H" report --threads "$T/c8" | grep -q "\[$merged exited threads\]" || fail "max_threads 8: no [$merged exited threads] title"
  [ "$(wc -l < "$T/c0.threads")" = 301 ] || fail "max_threads 0: not one record per thread" ;;
endings)
  # main never returns (exit, _exit, abort, fatal signals): its frame is
  # closed at the final write, so measured mode gives it the program's time
  # (it was "total 0 s", every share 0.0%).
  # exec: the partial profile written before the exec; exec-fail: the
  # frames closed for that write are reopened, main/work runs twice.
  for how in return exit _exit abort segv term exec exec-fail; do
    "$H" run -q -o "$T/$how" --mode measured -- "$B/cnt_endings" $how > "$T/$how.stdout" 2> "$T/$how.stderr"
    "$H" report --json "$T/$how" > "$T/$how.json" || fail "$how: hyprof report --json"
    python3 - "$T/$how.json" "$how" <<'PY' || exit 1
import json, sys
rep, how = json.load(open(sys.argv[1])), sys.argv[2]
def node(t, path):
    for name in path:
        t = next((c for c in t.get("children", []) if c["name"] == name), None)
        if t is None:
            return None
    return t
m, w = node(rep["tree"], ["main"]), node(rep["tree"], ["main", "work"])
ok = m is not None and w is not None and rep["total"] > 0 and m["total"] >= w["total"] > 0.8 * rep["total"]
calls = w and w.get("calls")
if how == "exec-fail":
    ok = ok and calls == 2 and m.get("calls") == 1
print("%s %s: total %.3f s, main %s s, main/work %s s, %s calls" % ("ok  " if ok else "FAIL", how, rep["total"],
      m and m["total"], w and w["total"], calls))
sys.exit(0 if ok else 1)
PY
  done ;;
comp_delay)
  # A known injected cost: every probe pair waits 2 us more (a TSC deadline,
  # HYPROF_TEST_PROBE_DELAY_NS).  The calibration runs the probes with it,
  # so the pair cost it reports includes it, and compensation must remove
  # it: 40k pairs (~80 ms of waits) in comp_twin's instrumented copy, whose
  # compensated phase time must be within 25% of the uninstrumented copy's
  # in the same process (CPU time, see comp_check.py; medians of 2 runs),
  # while raw is about twice it.
  for i in 1 2; do
    HYPROF_FREQ=1 HYPROF_TEST_PROBE_DELAY_NS=2000 run measured "$T/d$i" "$B/cnt_comp_twin" 20 2000 1000000
    python3 "$CC" twin "$T/d$i.json" "$T/d$i.stdout" >> "$T/err" || fail "comp_check.py twin"
  done
  d=$(kv "$T/d1" calib probe_delay_ns); tp=$(kv "$T/d1" calib timed_probe_ns.median)
  rm_s=$(kv "$T/d1" counting comp.removed_s); pairs=$(kv "$T/d1" counting probes_seen)
  python3 - "$d" "$tp" "$rm_s" "$pairs" <<'EOF' || exit 1
import sys
delay, tp, removed, pairs = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print("removed %.4f s for %d pairs; calibrated pair %.0f ns (delay %.0f ns)" % (removed, pairs, tp, delay))
assert delay == 2000, "calibration did not see the delay"
assert tp >= 0.5 * 2000, "calibrated pair cost %.0f ns does not include the 2000 ns delay (a pair costs ~60 ns without)" % tp
assert removed >= 0.9 * pairs * 2000e-9, "compensation removed %.4f s, less than the %.4f s injected" % (removed, pairs * 2000e-9)
EOF
  python3 "$CC" check cpu 0.25 3 "$T/err" || fail "the injected cost was not removed" ;;
compensation)
  # Local compensation on the probe-heavy program (1M pairs of a tiny
  # function, 2 heavy functions) against the same code without probes,
  # checked two ways by comp_check.py, errors against CPU time (immune to
  # the time slices a shared machine takes from a run; wall time shown):
  #  - sep: the program built without instrumentation, run alternately with
  #    the instrumented one on the same CPU, 3 pairs;
  #  - twin: the uninstrumented copy linked into the same process and run
  #    alternately with the instrumented one (2 runs, sampling at 1 Hz:
  #    probe compensation alone).
  # Medians: |compensated error| <= 20% (sep; runs differ by the host's clock
  # changes: on a second VM of the reference kind, 11 runs of this test gave
  # main total +4.7% to +16.6% compensated with raw +64% to +119%, moving
  # together, while twin gave +0.0% to +3.0%) and <= 10% (twin) for
  # main/phase total and heavy_a/heavy_b exclusive, and the total's
  # compensated error at most a third of its raw error (+60% to +120%).
  # bench/counting/run.sh measures the real errors.
  pin=""; command -v taskset > /dev/null && pin="taskset -c $(($(nproc) - 1))"
  for i in 1 2 3; do
    $pin "$B/cnt_comp_plain" 5 200000 2500000 > "$T/p$i"
    run measured "$T/m$i" $pin "$B/cnt_comp_instr" 5 200000 2500000
    python3 "$CC" sep "$T/m$i.json" "$T/p$i" "$T/m$i.stdout" >> "$T/sep" || fail "comp_check.py sep"
  done
  $CHK "$T/m1.json" main/phase/tiny=1000000 main/phase/heavy_a=5 || exit 1
  echo "same program built without probes:"
  python3 "$CC" check cpu 0.20 3 "$T/sep" || fail "compensation against the uninstrumented build"
  for i in 1 2; do
    HYPROF_FREQ=1 run measured "$T/t$i" "$B/cnt_comp_twin" 20 50000 2500000
    python3 "$CC" twin "$T/t$i.json" "$T/t$i.stdout" >> "$T/twin" || fail "comp_check.py twin"
  done
  $CHK "$T/t1.json" phase=20 phase/tiny=1000000 || exit 1
  echo "uninstrumented twin in the same process:"
  python3 "$CC" check cpu 0.10 3 "$T/twin" || fail "compensation against the uninstrumented twin" ;;
*) echo "unknown case $case_"; exit 2 ;;
esac
echo "ok: $case_"
