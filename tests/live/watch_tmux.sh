#!/bin/bash
# tests/live/watch_tmux.sh - `hyprof watch` in a real terminal (a tmux pane on
# a private tmux server) against running programs:
#   A. one process (`hyprof run`, 2 threads): two captures 2.5 s apart show
#      the elapsed time and the samples advancing, hot_kernel as the top
#      path's function, one frame redrawn in place; `q` and Ctrl-C quit
#      (exit 0) while the program runs; another watch ends by itself when
#      the program ends, showing it `ended`.
#   B. an MPI job (`mpirun -np 2 hyprof run`): both ranks shown, each
#      advancing, hot_kernel on top; the watch ends with the job.
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (scripts/install-deps.sh installs it)"; exit 77; }
NAME=watch_tmux
. "$(dirname "$0")/common.sh"
TM="tmux -L hyprof-live-test-$$ -f /dev/null"
cleanup_more() { $TM kill-server 2>/dev/null; }

# capture NAME: the pane's text into $T/NAME.txt and its parse into $T/NAME.json
capture() {
	$TM capture-pane -p -t "$WIN" >"$T/$1.txt"
	python3 "$HERE/pane.py" "$T/$1.txt" >"$T/$1.json"
}

# wait_screen SECONDS PYTHON-EXPR: until the expression over the parse `s`
# is true (e.g. "len(s['procs']) == 2")
wait_screen() {
	local n=$(( $1 * 4 )) i=0
	while [ $i -lt $n ]; do
		capture wait
		python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$T/wait.json" 2>/dev/null && return 0
		sleep 0.25
		i=$((i + 1))
	done
	return 1
}

# watch_in NAME ARGS...: start `hyprof watch ARGS` in a new window
watch_in() {
	WIN=$1
	shift
	local cmd="'$HYPROF_BIN' watch $*; echo WATCH-EXIT=\$?; sleep 600"
	if $TM has-session -t live 2>/dev/null; then
		$TM new-window -t live -n "$WIN" "$cmd"
	else
		$TM new-session -d -s live -n "$WIN" -x 200 -y 50 "$cmd"
	fi
	WIN=live:$WIN
}

# compare A B PID-OR-RANK-FIELD: per process in A and B (matched by pid),
# elapsed and samples advance and the top function is hot_kernel
compare() {
	python3 - "$T/$1.json" "$T/$2.json" "$3" <<'PY'
import json, sys
a, b, want = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3]))
fails = []
if b["headers"] != 1:
    fails.append(f"{b['headers']} frame headers on the screen: the frame is not redrawn in place")
pa = {p["pid"]: p for p in a["procs"]}
pb = {p["pid"]: p for p in b["procs"]}
if len(pb) != want:
    fails.append(f"{len(pb)} processes shown, want {want}")
for pid, q in pb.items():
    p = pa.get(pid)
    who = f"rank {q['rank']} pid {pid}" if q["rank"] >= 0 else f"pid {pid}"
    if not p:
        fails.append(f"{who}: not in the first capture")
        continue
    if q["state"] != "running" or p["state"] != "running":
        fails.append(f"{who}: state {p['state']} then {q['state']}")
    if not q["elapsed"] >= p["elapsed"] + 1.0:
        fails.append(f"{who}: elapsed {p['elapsed']} -> {q['elapsed']} (2.5 s apart)")
    if not q["samples"] > p["samples"]:
        fails.append(f"{who}: samples {p['samples']} -> {q['samples']}")
    for cap, r in (("first", p), ("second", q)):
        top = r["top"][0]["leaf"] if r["top"] else None
        if top != "hot_kernel":
            fails.append(f"{who}: {cap} capture's top path ends in {top}, want hot_kernel")
    print(f"  {who}: elapsed {p['elapsed']} -> {q['elapsed']} s, samples {p['samples']} -> "
          f"{q['samples']}, top {q['top'][0]['path'] if q['top'] else None}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
}

# ---- A. one process -----------------------------------------------------------
HYPROF_LIVE_INTERVAL=0.5 "$HYPROF_BIN" run -q -o "$T/a" -- "$SPIN" 20 1 &
P=$!
PIDS="$PIDS $P"
watch_in a --wait 10 --interval 0.5 "$T/a"
if ! wait_screen 15 "any(p['pid'] == $P and p['state'] == 'running' and p['samples'] > 0 for p in s['procs'])"; then
	fail "A: the watch never showed pid $P running:"; cat "$T/wait.txt"
else
	capture a1
	sleep 2.5
	capture a2
	compare a1 a2 1 || { fail "A: see above; the second screen:"; cat "$T/a2.txt"; }
	kill -0 "$P" 2>/dev/null || fail "A: the program ended too early for the q test"
	$TM send-keys -t "$WIN" q
	if wait_screen 5 "True" && grep -q "WATCH-EXIT=" "$T/wait.txt"; then
		grep -q "WATCH-EXIT=0" "$T/wait.txt" || fail "A: q: $(grep WATCH-EXIT "$T/wait.txt")"
	fi
	i=0; while ! $TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=" && [ $i -lt 20 ]; do sleep 0.25; i=$((i + 1)); done
	$TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=0" || fail "A: q did not end the watch with 0"
	kill -0 "$P" 2>/dev/null && ok "A: q quit while the program runs" || fail "A: the program was not running at q"
	# Ctrl-C quits too, with status 0 and the terminal given back
	watch_in actl --interval 0.5 "$T/a"
	if wait_screen 10 "len(s['procs']) == 1"; then
		$TM send-keys -t "$WIN" C-c
		i=0; while ! $TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=" && [ $i -lt 20 ]; do sleep 0.25; i=$((i + 1)); done
		$TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=0" || fail "A: Ctrl-C did not end the watch with 0"
	else
		fail "A: the Ctrl-C watch showed nothing"
	fi
	# a second watch ends by itself with the program
	watch_in a2 --interval 0.5 "$T/a"
	i=0; while ! $TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=" && [ $i -lt 120 ]; do sleep 0.25; i=$((i + 1)); done
	capture a3
	grep -q "WATCH-EXIT=0" "$T/a3.txt" || { fail "A: the watch did not end with the program (30 s)"; cat "$T/a3.txt"; }
	python3 -c "import json,sys; s=json.load(open(sys.argv[1])); p=s['procs']; sys.exit(0 if len(p)==1 and p[0]['state']=='ended' and p[0]['top'] and p[0]['top'][0]['leaf']=='hot_kernel' else 1)" "$T/a3.json" ||
		{ fail "A: last frame:"; cat "$T/a3.txt"; }
	ok "A: single process"
fi
wait "$P" 2>/dev/null

# ---- B. mpirun -np 2 -------------------------------------------------------------
MPISPIN=$HYPROF_TEST_BIN/hp_live_mpi_spin
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$MPISPIN" ]; then
	echo "note: part B skipped (no mpirun or $MPISPIN)"
else
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	HYPROF_LIVE_INTERVAL=0.5 mpirun -np 2 --oversubscribe "$HYPROF_BIN" run -q -o "$T/m" -- "$MPISPIN" 25 \
		>"$T/mpirun.out" 2>&1 &
	M=$!
	PIDS="$PIDS $M"
	watch_in m --wait 15 --interval 0.5 "$T/m"
	if ! wait_screen 20 "sorted(p['rank'] for p in s['procs'] if p['state'] == 'running' and p['samples'] > 0) == [0, 1]"; then
		fail "B: the watch never showed ranks 0 and 1 running:"; cat "$T/wait.txt"; cat "$T/mpirun.out"
	else
		capture m1
		sleep 2.5
		capture m2
		compare m1 m2 2 || { fail "B: see above; the second screen:"; cat "$T/m2.txt"; }
		i=0; while ! $TM capture-pane -p -t "$WIN" | grep -q "WATCH-EXIT=" && [ $i -lt 120 ]; do sleep 0.25; i=$((i + 1)); done
		capture m3
		grep -q "WATCH-EXIT=0" "$T/m3.txt" || { fail "B: the watch did not end with the job"; cat "$T/m3.txt"; }
		python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if sorted((p['rank'],p['state']) for p in s['procs'])==[(0,'ended'),(1,'ended')] else 1)" "$T/m3.json" ||
			{ fail "B: last frame:"; cat "$T/m3.txt"; }
		ok "B: mpirun -np 2"
	fi
	wait "$M" || { fail "B: mpirun exit $?"; cat "$T/mpirun.out"; }
fi

finish
