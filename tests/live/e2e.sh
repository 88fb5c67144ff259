#!/bin/bash
# tests/live/e2e.sh - the live files of real runs under `hyprof run`
# (runtime/live.c) and `hyprof watch --once` on them:
#   1. the file appears and is rewritten while the program runs (snapshots,
#      samples and the snapshot time advance), says `ended` at exit, matches
#      the final profile, and the snapshot thread is not a profiled thread;
#      `watch --once --pid` and `report DIR/.live` read it while it runs
#   2. its size does not grow with run time (4x the samples, same size)
#   3. HYPROF_LIVE=0: no live file; a run shorter than the interval: none
#   4. fork: the child gets its own live file
#   5. SIGKILL: the last snapshot remains, readable; watch says `gone`
#   6. a bad HYPROF_LIVE_INTERVAL: one line, the default used
#   7. watch's errors: exit 1 (no such pid, not profiled, no live data),
#      2 (usage)
#   8. the main thread ends with pthread_exit: the snapshot thread leaves
#      when the program's threads are gone (glibc counts it: it must not keep
#      the process alive)
NAME=e2e
. "$(dirname "$0")/common.sh"
HYP="python3 $HERE/hyp.py"

# wait_for FILE SECONDS: until FILE exists
wait_for() {
	local i=0 n=$(( $2 * 10 ))
	while [ ! -e "$1" ] && [ $i -lt $n ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

# ---- 1. rewritten while running, ended at exit ------------------------------
D=$T/run1
HYPROF_LIVE_INTERVAL=0.3 "$HYPROF_BIN" run -q -o "$D" -- "$SPIN" 6 2 &
P=$!
PIDS="$PIDS $P"
L=$D/.live/hp_live_spin.$P.hyp
if ! wait_for "$L" 5; then
	fail "1: no live file $L after 5 s"
else
	read -r s1 n1 e1 st1 < <($HYP "$L" live.snapshots samples meta.end_ns live.state | tr '\n' ' ')
	sleep 1
	read -r s2 n2 e2 st2 < <($HYP "$L" live.snapshots samples meta.end_ns live.state | tr '\n' ' ')
	[ "$st1" = running ] && [ "$st2" = running ] || fail "1: state while running: $st1, $st2"
	[ "${s2:-0}" -gt "${s1:-0}" ] || fail "1: snapshots did not advance: $s1 -> $s2"
	[ "${n2:-0}" -gt "${n1:-0}" ] || fail "1: samples did not advance: $n1 -> $n2"
	[ "${e2:-0}" -gt "${e1:-0}" ] || fail "1: snapshot time did not advance: $e1 -> $e2"
	ok "1: while running: snapshots $s1 -> $s2, samples $n1 -> $n2"
	out=$("$HYPROF_BIN" watch --once --pid "$P" 2>&1); rc=$?
	[ $rc -eq 0 ] || fail "1: watch --once --pid exit $rc: $out"
	echo "$out" | grep -q "^pid $P  hp_live_spin  running" || fail "1: watch --pid shows no running row for $P: $out"
	echo "$out" | grep -q "threads 3" || fail "1: watch: want 3 threads (main + 2; the snapshot thread is not one): $out"
	"$HYPROF_BIN" report "$D/.live" >"$T/r1.txt" 2>&1 || fail "1: report DIR/.live while running: $(head -3 "$T/r1.txt")"
fi
wait "$P"; rc=$?
[ $rc -eq 0 ] || fail "1: program exit $rc"
F=$(ls "$D"/hp_live_spin.*.hyp 2>/dev/null | head -1)
if [ -z "$F" ] || [ ! -e "$L" ]; then
	fail "1: final profile ($F) or live file missing after exit"
else
	read -r st th names nd nl < <($HYP "$L" live.state threads thread_names dropped.nothread live.snapshots | tr '\n' ' ')
	[ "$st" = ended ] || fail "1: state after exit: $st"
	[ "$th" = 3 ] || fail "1: live file has $th threads, want 3 (main + 2 workers)"
	case ",$names," in *hyprof-live*) fail "1: the snapshot thread is in the profile: $names" ;; esac
	[ "$nd" = 0 ] || fail "1: samples dropped on threads without state: $nd (the snapshot thread got signals?)"
	read -r fth fn fst fsnap < <($HYP "$F" threads samples live.state live.snapshots | tr '\n' ' ')
	ln=$($HYP "$L" samples)
	[ "$fth" = 3 ] || fail "1: final profile has $fth threads, want 3"
	[ "$fst" = ended ] || fail "1: the final profile's LIVE section says $fst"
	[ "${fsnap:-0}" -ge 10 ] || fail "1: only ${fsnap} snapshots in 6 s at 0.3 s"
	# the last snapshot is taken just before the final write: same samples
	# but for the few that land in between (at most 5%)
	python3 -c "import sys; l,f=int(sys.argv[1]),int(sys.argv[2]); sys.exit(0 if f>0 and 0.95*f<=l<=f else 1)" "$ln" "$fn" ||
		fail "1: last snapshot has $ln samples, the final profile $fn"
	ok "1: ended: live $ln samples, final $fn, $fsnap snapshots, threads $names"
fi

# ---- 2. size bounded by call paths, not run time ------------------------------
for secs in 1 4; do
	HYPROF_LIVE_INTERVAL=0.2 "$HYPROF_BIN" run -q -o "$T/size$secs" -- "$SPIN" $secs || fail "2: run $secs s"
done
L1=$(ls "$T"/size1/.live/*.hyp 2>/dev/null | head -1)
L4=$(ls "$T"/size4/.live/*.hyp 2>/dev/null | head -1)
if [ -z "$L1" ] || [ -z "$L4" ]; then
	fail "2: live files missing"
else
	b1=$(stat -c %s "$L1"); b4=$(stat -c %s "$L4")
	n1=$($HYP "$L1" samples); n4=$($HYP "$L4" samples)
	python3 -c "import sys; b1,b4,n1,n4=map(int,sys.argv[1:]); sys.exit(0 if n4>=2*n1 and b4<=1.5*b1 else 1)" \
		"$b1" "$b4" "$n1" "$n4" || fail "2: 1 s: $b1 bytes $n1 samples; 4 s: $b4 bytes $n4 samples"
	ok "2: 1 s run: $b1 bytes ($n1 samples), 4 s run: $b4 bytes ($n4 samples)"
fi

# ---- 3. off, and too short ---------------------------------------------------------
HYPROF_LIVE=0 HYPROF_LIVE_INTERVAL=0.2 "$HYPROF_BIN" run -q -o "$T/off" -- "$SPIN" 1 || fail "3: run"
[ ! -e "$T/off/.live" ] || fail "3: HYPROF_LIVE=0 left $(ls "$T/off/.live")"
HYPROF_LIVE_INTERVAL=2 "$HYPROF_BIN" run -q -o "$T/short" -- "$SPIN" 0.3 || fail "3: run"
[ -z "$(ls "$T/short/.live" 2>/dev/null)" ] || fail "3: a 0.3 s run at 2 s left a live file"
Fs=$(ls "$T"/short/*.hyp 2>/dev/null | head -1)
[ -n "$Fs" ] && [ "$($HYP "$Fs" live.snapshots)" = 0 ] || fail "3: short run's profile: snapshots $($HYP "$Fs" live.snapshots 2>&1)"
ok "3: HYPROF_LIVE=0 and a short run leave no live file"

# ---- 4. fork: the child has its own ---------------------------------------------
HYPROF_LIVE_INTERVAL=0.3 "$HYPROF_BIN" run -q -o "$T/fork" -- "$SPIN" 1.5 0 1 &
P=$!
wait "$P" || fail "4: run"
n=0; parent=""; child=""
for f in "$T"/fork/.live/*.hyp; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	read -r pid ppid st < <($HYP "$f" meta.pid meta.ppid live.state | tr '\n' ' ')
	[ "$st" = ended ] || fail "4: $f state $st"
	if [ "$pid" = "$P" ]; then parent=$pid; elif [ "$ppid" = "$P" ]; then child=$pid; fi
done
[ $n -eq 2 ] && [ -n "$parent" ] && [ -n "$child" ] || fail "4: $n live files (parent ${parent:-none}, child ${child:-none}), want both"
ok "4: fork: parent $parent and child $child each have a live file"

# ---- 5. SIGKILL: the last snapshot remains ---------------------------------------
HYPROF_LIVE_INTERVAL=0.3 "$HYPROF_BIN" run -q -o "$T/kill" -- "$SPIN" 10 &
P=$!
PIDS="$PIDS $P"
L=$T/kill/.live/hp_live_spin.$P.hyp
if wait_for "$L" 5; then
	sleep 0.5
	kill -9 "$P"
	wait "$P" 2>/dev/null
	read -r st n < <($HYP "$L" live.state samples | tr '\n' ' ')
	[ "$st" = running ] && [ "${n:-0}" -gt 0 ] || fail "5: after SIGKILL: state $st, samples $n"
	[ -z "$(ls "$T"/kill/*.hyp 2>/dev/null)" ] || fail "5: a final profile after SIGKILL?"
	"$HYPROF_BIN" report "$T/kill/.live" >/dev/null 2>&1 || fail "5: report of the last snapshot"
	out=$("$HYPROF_BIN" watch --once "$T/kill" 2>&1); rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q "^pid $P  hp_live_spin  gone" || fail "5: watch exit $rc: $out"
	ok "5: SIGKILL: last snapshot with $n samples remains; watch says gone"
	# A process that finishes in the same directory (another rank, the
	# next command of a script): its report says the killed one is left
	# out and where its snapshot is (it said nothing).
	"$HYPROF_BIN" run -q -o "$T/kill" -- "$SPIN" 1 || fail "5: the second run"
	out=$("$HYPROF_BIN" report "$T/kill" 2>&1) || fail "5: report beside the snapshot: $out"
	echo "$out" | grep -q "WARNING   1 process left no profile .*hyprof report $T/kill/.live" ||
		fail "5: the report does not say the killed process is missing: $(echo "$out" | head -12)"
	u=$("$HYPROF_BIN" report --json "$T/kill" | python3 -c 'import json,sys; print(json.load(sys.stdin)["unfinished"])')
	[ "$u" = 1 ] || fail "5: report --json unfinished $u, want 1"
	ok "5: the report beside it says 1 process left no profile"
else
	fail "5: no live file"
fi

# ---- 6. bad interval ------------------------------------------------------------------
# preloaded without `hyprof run`, which refuses a bad value before it starts
HYPROF_LIVE_INTERVAL=fast HYPROF_QUIET=1 HYPROF_OUTPUT="$T/bad" LD_PRELOAD="$HYPROF_LIB/libhyprof.so" \
	"$SPIN" 1.3 2>"$T/bad.err" || fail "6: run"
grep -q 'HYPROF_LIVE_INTERVAL="fast": .*using the default (1)' "$T/bad.err" ||
	fail "6: no warning: $(cat "$T/bad.err")"
[ "$(grep -c . "$T/bad.err")" -eq 1 ] || fail "6: want one line: $(cat "$T/bad.err")"
Lb=$(ls "$T"/bad/.live/*.hyp 2>/dev/null | head -1)
[ -n "$Lb" ] && [ "$($HYP "$Lb" live.interval_ns)" = 1000000000 ] || fail "6: default interval not used"
ok "6: bad HYPROF_LIVE_INTERVAL: one line, 1 s used"

# ---- 8. main thread ends with pthread_exit: the snapshot thread must leave ----
# glibc ends the process when its last pthread ends and counts hyprof's
# threads too: once the program's threads are gone, hyprof-live must not be
# what keeps the process alive.
HYPROF_LIVE_INTERVAL=0.3 "$HYPROF_BIN" run -q -o "$T/mainexit" -- "$SPIN" 1.5 1 0 1 &
P=$!
PIDS="$PIDS $P"
i=0
while kill -0 "$P" 2>/dev/null && [ $i -lt 80 ]; do
	sleep 0.1; i=$((i + 1))
	# after the worker's 1.5 s (+ 1 s): who is left?
	if [ $i -ge 25 ]; then
		left=$(for t in /proc/$P/task/*; do [ "$(cut -d' ' -f3 "$t/stat" 2>/dev/null)" != Z ] && cat "$t/comm" 2>/dev/null; done | tr '\n' ' ')
		case " $left " in *" hyprof-live "*) ;; *) break ;; esac
	fi
done
if kill -0 "$P" 2>/dev/null; then
	left=$(for t in /proc/$P/task/*; do [ "$(cut -d' ' -f3 "$t/stat" 2>/dev/null)" != Z ] && cat "$t/comm" 2>/dev/null; done | tr '\n' ' ')
	case " $left " in
	*" hyprof-live "*) fail "8: after the program's threads ended, the snapshot thread is still there: $left" ;;
	*) echo "note: 8: the process is kept alive by: $left(not the snapshot thread)"; ok "8: the snapshot thread left after the program's threads ended" ;;
	esac
	{ kill -9 "$P"; wait "$P"; } 2>/dev/null
else
	wait "$P"
	Lm=$(ls "$T"/mainexit/.live/*.hyp 2>/dev/null | head -1)
	[ -n "$Lm" ] && [ "$($HYP "$Lm" live.state)" = ended ] || fail "8: the process ended but its live file is not marked ended"
	ok "8: pthread_exit in main: the process ended, live file ended"
fi

# ---- 9. measured mode: frames still open at the snapshot ------------------------
# main is open (its exit probe has not run): its time is its closed
# children's at least, not 0 (a snapshot once read "total 0 s")
CNT=$HYPROF_TEST_BIN/cnt_signals
if [ -x "$CNT" ]; then
	HYPROF_LIVE_INTERVAL=0.3 "$HYPROF_BIN" run -q -o "$T/meas" --mode measured -- "$CNT" 2000000000 >/dev/null 2>&1 &
	P=$!
	PIDS="$PIDS $P"
	L=$T/meas/.live/cnt_signals.$P.hyp
	if wait_for "$L" 5; then
		sleep 1
		kill -9 "$P"
		wait "$P" 2>/dev/null
		"$HYPROF_BIN" report --json "$T/meas/.live" >"$T/meas.json" 2>"$T/meas.err" || fail "9: report --json of the snapshot: $(head -2 "$T/meas.err")"
		python3 - "$T/meas.json" <<'EOF' && ok "9: measured snapshot: open main holds its children's time" || fail "9: measured snapshot"
import json, os, sys
r = json.load(open(sys.argv[1]))
sys.path.insert(0, os.path.join(os.environ["HYPROF_SRC"], "tests", "sampler"))
from check import find  # the call tree's node of that name, depth first
main, step = find(r["tree"], "main"), find(r["tree"], "step")
print("main %s, step %s" % (main and (main["calls"], main["total"]), step and (step["calls"], step["total"])))
sys.exit(0 if main and step and step["total"] > 0 and main["total"] >= step["total"] and main["total_pct"] > 90 else 1)
EOF
	else
		fail "9: no live file $L"
	fi
fi

# ---- 7. watch's errors -------------------------------------------------------------
expect() { # expect STATUS PATTERN -- ARGS
	local want=$1 pat=$2; shift 3
	local out rc
	out=$("$HYPROF_BIN" watch "$@" 2>&1 >/dev/null); rc=$?
	[ $rc -eq "$want" ] || { fail "7: watch $*: exit $rc, want $want ($out)"; return; }
	[ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] || fail "7: watch $*: not one line: $out"
	printf '%s\n' "$out" | grep -q -- "$pat" || fail "7: watch $*: '$out' lacks '$pat'"
}
sleep 30 &
S=$!
PIDS="$PIDS $S"
mkdir -p "$T/nolive"
expect 1 "no process 2147483647" -- --pid 2147483647
expect 1 "not profiled by hyprof" -- --pid "$S"
expect 1 "no live statistics" -- "$T/nolive"
expect 1 "no such directory" -- "$T/missing"
expect 2 "no output directory given" --
expect 2 "either DIR or --pid" -- --pid "$S" "$T/nolive"
expect 2 "interval" -- --interval 0 "$T/run1"
expect 2 "--top" -- --top x "$T/run1"
expect 2 "one output directory only" -- "$T/run1" "$T/off"
kill "$S" 2>/dev/null
out=$("$HYPROF_BIN" watch --once "$T/run1"); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "1 process: 0 running, 1 ended" || fail "7: watch of an ended run: $rc $out"
ok "7: watch errors"

finish
