#!/bin/sh
# tests/calib/calib.sh CASE - calibration checks (facts and relations, no
# timing thresholds beyond the documented 50 ms start-up budget).
set -u
H=$HYPROF_BIN; B=$HYPROF_TEST_BIN
T=$(mktemp -d /tmp/hyprof-calib-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case $1 in
cli)
  "$H" calibrate --json --quick > "$T/c.json" 2> "$T/err" || { cat "$T/err"; fail "hyprof calibrate --json"; }
  python3 - "$T/c.json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))
for k in ("timer_ns", "count_probe_ns", "timed_probe_ns", "sample_us", "tsc_hz", "di_ns", "de_ns"):
    assert k in c, "missing key %s" % k
for k in ("timer_ns", "count_probe_ns", "timed_probe_ns", "di_ns"):
    assert c[k] > 0, "%s = %r" % (k, c[k])
    d = c["distributions"][k]
    assert d["min"] <= d["median"] and d["spread"] >= 0 and d["n"] >= 100, "%s distribution %r" % (k, d)
assert c["timed_probe_ns"] > c["count_probe_ns"], "a timed pair must cost more than a count-only pair"
assert c["timed_probe_ns"] > c["timer_ns"], "a timed pair reads the TSC twice"
# di and de are parts of the pair (medians of per-trial values: loose)
assert abs(c["di_ns"] + c["de_ns"] - c["timed_probe_ns"]) < 0.25 * c["timed_probe_ns"], "di + de != pair"
assert 1e8 < c["tsc_hz"] < 1e10, "tsc_hz %r" % c["tsc_hz"]
if c["sample_us"] is not None:
    assert c["sample_us"] > 0 or c["distributions"]["sample_us"]["n"] > 0
assert len(c["threads"]) == 2, "per-thread results missing"
print("ok: timer %.1f ns, count pair %.1f ns, timed pair %.1f ns, sample %s us, tsc %.0f Hz" % (
    c["timer_ns"], c["count_probe_ns"], c["timed_probe_ns"], c["sample_us"], c["tsc_hz"]))
PY
  "$H" calibrate --quick > "$T/c.txt" || fail "text output"
  for k in timer_ns count_probe_ns timed_probe_ns sample_us tsc_hz; do
    grep -q "$k" "$T/c.txt" || fail "text output lacks $k"
  done ;;
startup)
  "$H" run -q -o "$T/p" -- "$B/cnt_counts" 1 10 > /dev/null || fail "run"
  "$B/hp_kv" "$T/p" calib > "$T/kv"
  ms=$(sed -n 's/^calib_ms=//p' "$T/kv")
  python3 -c "import sys; ms=float(sys.argv[1]); print('start-up calibration %.1f ms' % ms); sys.exit(not ms < 50)" "$ms" ||
    fail "start-up calibration took ${ms} ms (budget 50 ms)"
  for k in timer_ns.median count_probe_ns.median timed_probe_ns.median di_ns.median de_ns.median \
           sample_us.median sample_us.method tsc_hz tsc_hz.method method; do
    grep -q "^$k=" "$T/kv" || fail "CALIB lacks $k"
  done
  grep -q "^method=startup$" "$T/kv" || fail "method is not startup"
  HYPROF_CALIBRATE=0 "$H" run -q -o "$T/q" -- "$B/cnt_counts" 1 10 > /dev/null || fail "run HYPROF_CALIBRATE=0"
  "$B/hp_kv" "$T/q" calib | grep -q "^method=skipped" || fail "HYPROF_CALIBRATE=0 not recorded" ;;
esac
echo "ok: $1"
