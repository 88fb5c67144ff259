#!/bin/sh
# tests/cost/live_cost.sh - the cost system in live snapshots
# (runtime/live.c, `hyprof watch`).
#
# A probe-heavy run with a snapshot every 0.2 s.  A snapshot taken while the
# program runs is copied aside, then the run ends.  Checks:
#  - the mid-run snapshot has a COST section (the cost so far: non-zero
#    range, less CPU time and fewer controller intervals than the end);
#  - taking snapshots does not stop the cost controller: the final profile
#    has at least a quarter of the controller intervals the wall time after
#    the snapshot allows (the controller wakes every 50 ms; a controller
#    stopped by the snapshot would add none);
#  - the snapshots' own CPU time is in the reported cost: `live` > 0, part
#    of `fixed` (= startup + control + live) and so of both bounds, and at
#    least what the last snapshot saw.
. "$(dirname "$0")/common.sh"

HYPROF_QUIET=1 HYPROF_LIVE=1 HYPROF_LIVE_INTERVAL=0.2 "$HYPROF_BIN" run --mode hybrid \
	-o "$out/p" -- "$BIN" 60 40 >"$out/run.out" 2>"$out/run.err" &
pid=$!
# Wait for the first snapshot (at most 30 s on a loaded machine), copy it.
mkdir -p "$out/mid"
i=0
while [ $i -lt 300 ]; do
	f=$(ls "$out/p/.live/"*.hyp 2>/dev/null | head -n 1)
	if [ -n "$f" ] && cp "$f" "$out/mid/" 2>/dev/null; then
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
if ! wait $pid; then
	echo "FAIL: hyprof run failed:"; cat "$out/run.err"; exit 1
fi
if ! ls "$out/mid/"*.hyp >/dev/null 2>&1; then
	echo "skip: the run ended before its first live snapshot could be copied (machine too fast?)"
	exit 77
fi
for d in mid p p/.live; do
	n=$(echo $d | tr / _)
	if ! "$HYPROF_BIN" report --json "$out/$d" >"$out/$n.json" 2>"$out/$n.err"; then
		echo "FAIL: hyprof report $d:"; cat "$out/$n.err"; exit 1
	fi
done

python3 - "$out/mid.json" "$out/p.json" "$out/p_.live.json" <<'PY'
import json, sys
mid, fin, ended = (json.load(open(p)).get("cost") for p in sys.argv[1:4])
fail = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fail.append(what)
check(mid is not None, "the mid-run live snapshot has a cost section")
check(fin is not None and ended is not None, "the final profile and the last live file have one")
if fail:
    sys.exit(1)
check(0 < mid["low"] <= mid["high"], "snapshot range %.4f .. %.4f s" % (mid["low"], mid["high"]))
check(mid["cpu_time"] < fin["cpu_time"] and mid["probe_events"] < fin["probe_events"],
      "snapshot is of the run so far: cpu %.3f < %.3f s, pairs %d < %d"
      % (mid["cpu_time"], fin["cpu_time"], mid["probe_events"], fin["probe_events"]))
ni_mid, ni_fin = mid["predicted_parts"]["intervals"], fin["predicted_parts"]["intervals"]
after = fin["run_time"] - mid["run_time"]
expect = after / 0.05
check(ni_fin - ni_mid >= 0.25 * expect and ni_fin > ni_mid,
      "the controller went on after the snapshot: %d -> %d intervals in %.2f s (>= %.0f)"
      % (ni_mid, ni_fin, after, 0.25 * expect))
check(fin["live"] > 0, "final profile: live snapshots cost %.6f s" % fin["live"])
check(abs(fin["fixed"] - (fin["startup"] + fin["control"] + fin["live"])) <= 1e-9 + 1e-6 * fin["fixed"],
      "fixed %.6f = startup %.6f + control %.6f + live %.6f"
      % (fin["fixed"], fin["startup"], fin["control"], fin["live"]))
check(fin["low"] >= fin["live"] and fin["high"] >= fin["low"], "the range includes it")
check(fin["live"] >= ended["live"] >= mid["live"],
      "live cost grows: mid %.6f <= last snapshot %.6f <= final %.6f"
      % (mid["live"], ended["live"], fin["live"]))
sys.exit(1 if fail else 0)
PY
