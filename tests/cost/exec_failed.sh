#!/bin/sh
# tests/cost/exec_failed.sh - after a failed exec the program goes on, and so
# must the cost controller (stopped by the profile write at the exec): its
# intervals must cover the whole run, not only the part before the exec.
. "$(dirname "$0")/common.sh"
if ! HYPROF_QUIET=1 "$HYPROF_BIN" run -o "$out/p" -- "$HYPROF_TEST_BIN/cost_exec_failed" >"$out/o" 2>"$out/e"; then
	echo "FAIL: hyprof run failed:"; cat "$out/e"; exit 1
fi
"$HYPROF_BIN" report --json "$out/p" >"$out/r.json" || { echo "FAIL: hyprof report"; exit 1; }
python3 - "$out/r.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
n = c["predicted_parts"]["intervals"]
# 4 short first intervals (5, 5, 10, 20 ms), then one per 50 ms of wall time
expect = 4 + max(0.0, c["run_time"] - 0.04) / 0.05
# without the restart: the 0.1 s before the exec, about 5 intervals of ~15
ok = n >= 0.5 * expect
print("%s %d cost intervals over %.3f s of run (about %.0f expected; %.0f without a restart)"
      % ("ok  " if ok else "FAIL", n, c["run_time"], expect, 4 + 0.06 / 0.05))
sys.exit(0 if ok else 1)
PY
