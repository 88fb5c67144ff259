#!/bin/sh
# tests/cost/cost_report.sh - every mode reports its cost: the exit summary
# line carries the range and the prediction, the report has the cost section
# and its header line, and the JSON "cost" member has the documented keys
# with consistent values (low <= high, fractions of the CPU time, the range
# made of its parts).
. "$(dirname "$0")/common.sh"
fail=0
for mode in sampled hybrid measured; do
	if ! "$HYPROF_BIN" run --mode $mode -o "$out/$mode" -- "$BIN" 3 40 >/dev/null 2>"$out/$mode.err"; then
		echo "FAIL: hyprof run --mode $mode:"; cat "$out/$mode.err"; exit 1
	fi
	if grep -Eq 'overhead [0-9.]+%\.\.[0-9.]+% of [0-9.]+ s( CPU)? \(predicted [0-9.]+%\)' "$out/$mode.err"; then
		echo "ok   $mode: exit summary has the range: $(grep -Eo 'overhead .*' "$out/$mode.err")"
	else
		echo "FAIL $mode: no overhead range in the exit summary:"; cat "$out/$mode.err"; fail=1
	fi
	"$HYPROF_BIN" report "$out/$mode" >"$out/$mode.txt" 2>&1 || { echo "FAIL: report"; cat "$out/$mode.txt"; exit 1; }
	if grep -q '^overhead  ' "$out/$mode.txt" && grep -q '^Measurement cost' "$out/$mode.txt" &&
	   grep -q '^  range ' "$out/$mode.txt"; then
		echo "ok   $mode: report has the cost header line and section"
	else
		echo "FAIL $mode: report lacks the cost section"; fail=1
	fi
	"$HYPROF_BIN" report --json "$out/$mode" >"$out/$mode.json" || { echo "FAIL: report --json"; exit 1; }
done
python3 - "$out" <<'PY' || fail=1
import json, sys
fail = 0
keys = ["low", "high", "predicted", "direct", "ideal", "cache", "sampling"]
for mode in ("sampled", "hybrid", "measured"):
    c = json.load(open("%s/%s.json" % (sys.argv[1], mode)))["cost"]
    miss = [k for k in keys if k not in c or k not in c["fractions"]]
    why = []
    if miss:
        why.append("missing keys %s" % miss)
    elif not (0 < c["low"] <= c["high"] and c["cpu_time"] > 0):
        why.append("not 0 < low <= high")
    elif not all(abs(c["fractions"][k] * c["cpu_time"] - c[k]) <= 1e-6 * abs(c[k]) + 1e-12 for k in keys):
        why.append("fractions are not of cpu_time")
    # both ends are capped at the CPU time (no measurement costs more)
    if not miss and abs(min(c["probes"] + c["sampling_low"] + c["fixed"], c["cpu_time"]) - c["low"]) > 1e-6 * c["low"] + 1e-9:
        why.append("low is not probes + sampling_low + fixed")
    if not miss and abs(min(c["probes_high"] + c["sampling_high"] + c["fixed"], c["cpu_time"]) - c["high"]) > 1e-6 * c["high"] + 1e-9:
        why.append("high is not probes_high + sampling_high + fixed")
    if not (c.get("sampling", 0) > 0 and c.get("samples_taken", 0) > 0):
        why.append("no sampling cost")
    if "mpi" not in c or c["mpi"] is not None:
        why.append("cost.mpi is %r in a program without MPI (want null)" % c.get("mpi", "absent"))
    if (mode == "sampled") != (c.get("probe_events", 0) == 0):
        why.append("probe pairs %d in %s mode" % (c.get("probe_events", 0), mode))
    print(("ok   " if not why else "FAIL ") + "%s: cost %.4f..%.4f s of %.3f s, predicted %.4f %s"
          % (mode, c["low"], c["high"], c["cpu_time"], c["predicted"], "; ".join(why)))
    fail |= bool(why)
sys.exit(fail)
PY
exit $fail
