#!/bin/bash
# tests/critpath/run.sh CASE - the online critical path against programs
# whose critical path is known by construction (cp_progs.c).
#
#   pipeline     3 ranks, rank 1's stage1_work is the bottleneck (function
#                and region "bottleneck" selected by name); point to point
#   create_seq   3 ranks, the NAS IS case: create_seq, small in CPU time,
#                is sequential and takes a large share of the path; Bcast,
#                Allreduce, Reduce
#   nbr          3 ranks, a chain handed on by neighbourhood collectives
#                (Neighbor_allgather on a distributed graph)
#   zeroing      3 ranks, two branches: zeroing f helps only until g's
#                branch is critical; Isend/Irecv/Waitall and Allreduce
#   auto         the two-branch program with --critical-path auto:3: the
#                ranks agree on f, g, h at an Allreduce after the warm-up
#   auto_open    --critical-path auto:1 with the main loop inside one call
#                that is still open when the ranks agree: it is selected
#   fmain        a Fortran main program's loop (cp_fmain.f90) with auto: it
#                is selected by its symbol, MAIN__, and its time in the
#                profile (named from the debug information) is found
#   fmodule      a Fortran module procedure selected by the name the
#                profile gives it, cpf::spin (symbol __cpf_MOD_spin)
#   length_only  --critical-path auto:0 in hybrid mode: the length alone,
#                against the wall time it covers, and each rank's length
#                as `hyprof watch` shows it from the live files
#                (view_critpath_length); a name that matches nothing is
#                reported, not fatal
#   warmup_env   a bad HYPROF_CRITICAL_PATH_WARMUP without the launcher:
#                one line per rank, and the default warm-up used
#   names_max    33 names: one line names the first one ignored
#   cxx          C++ functions selected by qualified name (every overload)
#                and by their mangled name (cp_cxx.cpp)
#   live         intermediate values (the paper's Appendix A): the live
#                files copied while the pipeline runs read as a path so
#                far, consistent and shorter than the final one
# Each runs `hyprof run --critical-path ...` under mpirun and checks
# `hyprof report --json --view critical-path` with check.py against the
# lengths the construction implies.  Work in cp_progs sleeps to a deadline,
# so the programs' lengths hold on a loaded machine; the tolerances cover
# the timer's slack and the scheduling of 3 ranks on 2 cores.
# Environment (set by ctest): HYPROF_BIN, HYPROF_TEST_BIN, HYPROF_SRC.
set -u
case_=$1
H=$HYPROF_BIN
P=$HYPROF_TEST_BIN/cp_progs
CHK="python3 $HYPROF_SRC/tests/critpath/check.py"
T=$(mktemp -d /tmp/hyprof-cp.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

command -v mpirun > /dev/null || skip "no mpirun"
[ -x "$P" ] || skip "cp_progs was not built (no MPI)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Waiting ranks yield the CPU: 3 ranks share 2 cores.
export OMPI_MCA_mpi_yield_when_idle=1

# run NP DIR [hyprof run options] -- ARGS...
run() {
  np=$1; dir=$2; shift 2
  timeout 60 mpirun --oversubscribe -np "$np" "$H" run -q -o "$dir" "$@" > "$dir.out" 2> "$dir.err" ||
    { cat "$dir.err"; fail "hyprof run $*"; }
  grep -q '^done' "$dir.out" || { cat "$dir.out" "$dir.err"; fail "the program did not finish: $*"; }
  "$H" report --json --view critical-path "$dir" > "$dir.json" 2> "$dir.json.err" ||
    { cat "$dir.json.err"; fail "hyprof report --json --view critical-path"; }
  "$H" report --view critical-path "$dir" > "$dir.txt" 2>&1 || fail "hyprof report --view critical-path"
  sed -n '/^Critical path/,$p' "$dir.txt"
}

case $case_ in
pipeline)
  # N=20 items, A=10 B=30 C=5 ms
  run 3 "$T/p" --mode measured --critical-path stage0_work,stage1_work,stage2_work,bottleneck -- \
    "$P" pipeline 20 10 30 5
  $CHK pipeline "$T/p.json" 20 10 30 5 || fail "pipeline" ;;
create_seq)
  # S=300 ms of create_seq on rank 0, then I=10 x R=40 ms of do_rank on every rank
  run 3 "$T/i" --mode measured --critical-path create_seq,do_rank -- "$P" is 300 10 40
  $CHK create_seq "$T/i.json" 300 10 40 3 || fail "create_seq" ;;
nbr)
  # S=200 ms on rank 0, R=150 ms on ranks 1 and 2, handed on by
  # neighbourhood collectives down a chain
  run 3 "$T/c" --mode measured --critical-path chain_head,chain_link -- "$P" nbr 200 150
  $CHK nbr "$T/c.json" 200 150 || fail "neighbourhood collectives" ;;
zeroing)
  # N=10 rounds, F=60 G=20 H=5 ms (g's branch 40 ms shorter: it stays
  # shorter on a loaded machine)
  run 3 "$T/z" --mode measured --critical-path f,g,h -- "$P" branch 10 60 20 5
  $CHK zeroing "$T/z.json" 10 60 20 5 || fail "zeroing" ;;
auto)
  # 20 rounds of 65 ms; the selection after a 0.3 s warm-up
  HYPROF_CRITICAL_PATH_WARMUP=0.3 run 3 "$T/a" --mode measured --critical-path auto:3 -- \
    "$P" branch 20 60 20 5
  $CHK auto "$T/a.json" 20 60 20 5 || fail "auto" ;;
auto_open)
  # 16 rounds of 40 ms in solver, open from before the 0.3 s warm-up to the end
  HYPROF_CRITICAL_PATH_WARMUP=0.3 run 2 "$T/o" --mode measured --critical-path auto:1 -- "$P" loop 16 40
  # auto:1 selects solver: open, with its own time
  $CHK selected "$T/o.json" solver || fail "auto with the main loop in an open call" ;;
fmain)
  F=$HYPROF_TEST_BIN/cp_fmain
  [ -x "$F" ] || skip "cp_fmain was not built (no MPI Fortran)"
  P=$F HYPROF_CRITICAL_PATH_WARMUP=0.3 run 2 "$T/f" --mode measured --critical-path auto -- "$F" 16 20
  python3 - "$T/f.json" <<'EOF2' || fail "a Fortran main program on the critical path"
import json, sys
cp = json.load(open(sys.argv[1]))["critical_path"]
m = [f for f in cp["functions"] if f["name"] == "MAIN__"]
if not m or m[0].get("cpu") is None:
    print("FAIL: MAIN__ %s; want it selected with its time in the profile (%s)" % (m, cp["functions"]))
    sys.exit(1)
print("ok: MAIN__ selected, %.3f s in the profile" % m[0]["cpu"])
EOF2
  ;;
fmodule)
  F=$HYPROF_TEST_BIN/cp_fmain
  [ -x "$F" ] || skip "cp_fmain was not built (no MPI Fortran)"
  P=$F run 2 "$T/m" --mode measured --critical-path cpf::spin -- "$F" 8 20
  python3 - "$T/m.json" <<'EOF2' || fail "a Fortran module procedure selected by its profile name"
import json, sys
cp = json.load(open(sys.argv[1]))["critical_path"]
f = cp["functions"]
if len(f) != 1 or f[0]["name"] != "cpf::spin" or not f[0]["seen"] or f[0]["region"] or not f[0]["share"]:
    print("FAIL: --critical-path cpf::spin gave %s (unresolved: %s)" % (f, cp.get("unresolved")))
    sys.exit(1)
print("ok: cpf::spin found, path share %.3f s" % f[0]["share"])
EOF2
  ;;
length_only)
  # live snapshots every 0.1 s: the last one (at exit) has the final path
  HYPROF_LIVE_INTERVAL=0.1 run 3 "$T/l" --mode hybrid --critical-path auto:0 -- "$P" pipeline 10 10 30 5
  $CHK length "$T/l.json" 10 10 30 5 || fail "length only (auto:0, hybrid)"
  "$H" watch --once -n 0 "$T/l" > "$T/l.watch" 2>&1 || { cat "$T/l.watch"; fail "hyprof watch --once"; }
  cat "$T/l.watch"
  $CHK watch "$T/l.json" 10 10 30 5 "$T/l.watch" || fail "hyprof watch: the ranks' critical-path lengths"
  # auto outside measured mode: shares need timed probes, so no slots
  # travel (the piggyback is auto:0's) and the report says why
  run 3 "$T/h" --mode hybrid --critical-path auto -- "$P" pipeline 10 10 30 5
  python3 - "$T/h.json" "$T/l.json" <<'EOF2' || fail "auto in hybrid mode"
import json, sys
h, l = (json.load(open(f))["critical_path"] for f in sys.argv[1:3])
bad = []
if h["piggyback_bytes"] != l["piggyback_bytes"]:
    bad.append("piggyback %s bytes, auto:0's is %s" % (h["piggyback_bytes"], l["piggyback_bytes"]))
if "not timed" not in h["shares"] or h["functions"]:
    bad.append("shares %r, %d functions: want none, probes not timed" % (h["shares"], len(h["functions"])))
for b in bad:
    print("FAIL:", b)
if not bad:
    print("ok: auto in hybrid mode carries %d bytes (the length only): %s" % (h["piggyback_bytes"], h["shares"]))
sys.exit(1 if bad else 0)
EOF2
  # a name that matches nothing is listed as never seen; the others work
  run 3 "$T/n" --mode measured --critical-path stage1_work,no_such_function -- "$P" pipeline 10 10 30 5
  $CHK unresolved "$T/n.json" 10 10 30 5 || fail "an unknown name" ;;
warmup_env)
  # HYPROF_CRITICAL_PATH_WARMUP out of its bounds in a run without the
  # launcher (which would refuse it): runtime/config.c reports it once
  # per rank and uses the default, 1 s, and so must the critical path
  # (it read the variable again: a second line for "x", and 5000000 s
  # of warm-up for "5000000", the selection pending for ever)
  L=$(dirname "$H")/../lib
  for w in x 5000000; do
    dir=$T/w$w
    timeout 60 mpirun --oversubscribe -np 2 -x LD_PRELOAD="$L/libhyprof.so:$L/libhyprof_mpi.so" \
      -x HYPROF_OUTPUT="$dir" -x HYPROF_QUIET=1 -x HYPROF_MODE=measured -x HYPROF_CRITICAL_PATH=auto:1 \
      -x HYPROF_CRITICAL_PATH_WARMUP=$w "$P" loop 40 40 > "$dir.out" 2> "$dir.err" ||
      { cat "$dir.err"; fail "the program under LD_PRELOAD (warm-up $w)"; }
    n=$(grep -c HYPROF_CRITICAL_PATH_WARMUP "$dir.err")
    [ "$n" = 2 ] || { cat "$dir.err"; fail "HYPROF_CRITICAL_PATH_WARMUP=$w: $n lines on stderr, want one per rank (2)"; }
    "$H" report --json --view critical-path "$dir" > "$dir.json" || fail "hyprof report (warm-up $w)"
  done
  # with the default warm-up (1 s) of a 1.6 s loop, auto:1 selects solver
  $CHK selected "$T/w5000000.json" solver || fail "the default warm-up after a bad HYPROF_CRITICAL_PATH_WARMUP" ;;
names_max)
  # 33 names: the 33rd and the rest are ignored, and the line names it
  # (hp_log has no %.*s: the line read "more than 32 names: '%.*s'")
  names=solver
  i=0; while [ $i -lt 32 ]; do names="$names,f$i"; i=$((i + 1)); done
  dir=$T/x33
  timeout 60 mpirun --oversubscribe -np 2 "$H" run -q -o "$dir" --critical-path "$names" -- "$P" loop 4 10 \
    > "$dir.out" 2> "$dir.err" || { cat "$dir.err"; fail "hyprof run with 33 names"; }
  grep -q "more than 32 names: 'f31' and the rest are ignored" "$dir.err" ||
    { cat "$dir.err"; fail "33 names: no line naming the first name ignored (f31)"; }
  ! grep -q '%' "$dir.err" || { cat "$dir.err"; fail "33 names: a format directive printed as is"; } ;;
cxx)
  # C++: app::Stage::consume by its qualified name (both overloads), the
  # template app::produce<double> as in the symbol table, then by its name
  # with its arguments (the demangled name starts with its return type,
  # "void app::produce<double>(double)": it once matched nothing);
  # N=12 items, A=3, B=30 ms
  [ -x "$HYPROF_TEST_BIN/cp_cxx" ] || skip "cp_cxx was not built"
  run 2 "$T/x" --mode measured --critical-path 'app::Stage::consume,_ZN3app7produceIdEEvT_' -- \
    "$HYPROF_TEST_BIN/cp_cxx" 12 3 30
  $CHK cxx "$T/x.json" 12 3 30 || fail "C++ names"
  run 2 "$T/y" --mode measured --critical-path 'app::Stage::consume,app::produce<double>' -- \
    "$HYPROF_TEST_BIN/cp_cxx" 12 3 30
  $CHK cxx "$T/y.json" 12 3 30 || fail "C++ template by name" ;;
live)
  # 60 items of 5, 30, 5 ms: about 1.8 s of path; copies of the live
  # files (each written whole, then renamed) are taken every 0.1 s until
  # one reads as 360 ms of path or more, not final.  Until rank 0 has done
  # its 60 x 5 ms the longest path so far is rank 0's own (the job's path
  # is the longest of the ranks' paths at their last events); past
  # 60 x 5 + 2 x 30 ms it can only be on stage 1 or 2.  The window from
  # 360 ms to the end (~1.4 s) leaves a slow host several tries (each
  # copy-and-report takes ~0.2 s here, up to 4 times that on CI's hosts).
  dir=$T/v
  HYPROF_LIVE_INTERVAL=0.1 timeout 60 mpirun --oversubscribe -np 3 "$H" run -q -o "$dir" --mode measured \
    --critical-path stage0_work,stage1_work,stage2_work -- "$P" pipeline 60 5 30 5 > "$dir.out" 2> "$dir.err" &
  job=$!
  got=0
  while kill -0 "$job" 2> /dev/null; do
    sleep 0.1
    rm -rf "$T/snap"; mkdir "$T/snap"
    cp "$dir/.live/"*.hyp "$T/snap/" 2> /dev/null || continue
    "$H" report --json --view critical-path "$T/snap" > "$T/snap.json" 2> /dev/null || continue
    if python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["critical_path"]
sys.exit(0 if c and not c["final"] and c["length"] >= 0.36 else 1)' "$T/snap.json"; then
      got=1; break
    fi
  done
  wait "$job" || { cat "$dir.err"; fail "hyprof run (live)"; }
  grep -q '^done' "$dir.out" || { cat "$dir.out" "$dir.err"; fail "the program did not finish (live)"; }
  [ $got = 1 ] || skip "no live snapshot with 360 ms of path was caught before the job ended (machine too slow?)"
  "$H" report --view critical-path "$T/snap" 2>&1 | sed -n '/^Critical path/,$p'
  "$H" report --json --view critical-path "$dir" > "$dir.json" 2> "$dir.json.err" ||
    { cat "$dir.json.err"; fail "hyprof report --json --view critical-path (final)"; }
  $CHK live "$T/snap.json" 60 5 30 5 "$dir.json" || fail "live: the path so far" ;;
*)
  fail "unknown case $case_" ;;
esac
echo "ok $case_"
