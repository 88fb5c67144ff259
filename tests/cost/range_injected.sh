#!/bin/sh
# tests/cost/range_injected.sh - the observed-cost range contains a known,
# injected cost.
#
# HYPROF_TEST_PROBE_DELAY_NS adds a busy-wait of D ns (TSC time) to every
# probe pair (counting/probe.c).  The same deterministic program runs twice
# in hybrid mode, without and with the delay: same work, same N probe pairs,
# so the difference of the two processes' CPU times (recorded in each
# profile) is the CPU time the injected waits really took (on a loaded VM a
# TSC wait costs less CPU when the vCPU is preempted inside it, and more
# when the deadline is overshot, so N x D is only its order of magnitude).
# The ranges [low, high] of the two runs bound their measurement costs, so
# the injected cost must lie in
#     [low(delay) - high(plain), high(delay) - low(plain)]
# within 2% (the program's own CPU time varies that much between runs under
# load), and the delayed run's range must be non-zero.
. "$(dirname "$0")/common.sh"
ROUNDS=20
DELAY=400

run() { # name delay
	if ! HYPROF_TEST_PROBE_DELAY_NS=$2 HYPROF_QUIET=1 "$HYPROF_BIN" run --mode hybrid \
		-o "$out/$1" -- "$BIN" $ROUNDS >"$out/$1.out" 2>"$out/$1.err"; then
		echo "FAIL: hyprof run ($1) failed:"; cat "$out/$1.err"; exit 1
	fi
	if ! "$HYPROF_BIN" report --json "$out/$1" >"$out/$1.json" 2>"$out/$1.rerr"; then
		echo "FAIL: hyprof report ($1) failed:"; cat "$out/$1.rerr"; exit 1
	fi
}
run plain 0
run delay $DELAY

python3 - "$out/plain.json" "$out/delay.json" $ROUNDS $DELAY <<'PY'
import json, sys
plain, delay = (json.load(open(p)) for p in sys.argv[1:3])
rounds, d_ns = int(sys.argv[3]), float(sys.argv[4])
fail = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fail.append(what)
cp, cd = plain.get("cost"), delay.get("cost")
check(cp is not None and cd is not None, "both profiles have a cost section")
if fail:
    sys.exit(1)
pairs = rounds * (1000 + 100000 + 2) + 1
check(cd["probe_events"] == pairs and cp["probe_events"] == pairs,
      "probe pairs counted: %d and %d (expected %d)" % (cp["probe_events"], cd["probe_events"], pairs))
injected = cd["cpu_time"] - cp["cpu_time"]
nominal = pairs * d_ns * 1e-9
check(injected > 0.5 * nominal,
      "the delay was injected: %.4f s more CPU time (nominal %d x %.0f ns = %.4f s)"
      % (injected, pairs, d_ns, nominal))
check(cd["low"] > 0 and cd["high"] >= cd["low"],
      "delayed run: non-zero range %.4f .. %.4f s" % (cd["low"], cd["high"]))
lo, hi = cd["low"] - cp["high"], cd["high"] - cp["low"]
tol = 0.02 * injected
check(lo - tol <= injected <= hi + tol,
      "injected %.4f s inside [%.4f, %.4f] s (+- %.4f)" % (injected, lo, hi, tol))
# The sampler sees the busy-waits as probe time.
check(abs(cd["direct"] - cp["direct"] - injected) <= 2 * (cd["direct_err"] + cp["direct_err"]) + tol,
      "direct (sampled) difference %.4f s +- %.4f matches" % (cd["direct"] - cp["direct"],
                                                          2 * (cd["direct_err"] + cp["direct_err"])))
f = cd["fractions"]
check(abs(f["low"] - cd["low"] / cd["cpu_time"]) < 1e-6 * f["low"], "fractions are of the CPU time")
check(cd["predicted"] > 0.5 * injected,
      "predicted %.4f s is of the injected order (%.4f s)" % (cd["predicted"], injected))
sys.exit(1 if fail else 0)
PY
