#!/bin/sh
# tests/cost/budget_injected.sh - the overhead budget keeps the measured
# probe time under the budget.
#
# Each probe pair costs an injected 400 ns (HYPROF_TEST_PROBE_DELAY_NS):
# without a budget the probes take a large share of the run (at least 4x the
# budget, checked, so the budget has something to regulate: the share
# itself depends on how fast the machine runs the leaves' work); with --max-overhead 5 the probe time the sampler measures must
# stay at or under 5% of the program's own time (within the sampling error),
# the regulated functions must be named and their counts marked partial.
. "$(dirname "$0")/common.sh"

run() { # name rounds extra-options...
	name=$1 rounds=$2
	shift 2
	if ! HYPROF_TEST_PROBE_DELAY_NS=400 HYPROF_QUIET=1 "$HYPROF_BIN" run --mode hybrid "$@" \
		-o "$out/$name" -- "${PROG:-$BIN}" "$rounds" 200 >"$out/$name.out" 2>"$out/$name.err"; then
		echo "FAIL: hyprof run ($name) failed:"; cat "$out/$name.err"; exit 1
	fi
	if ! "$HYPROF_BIN" report --json "$out/$name" >"$out/$name.json" 2>"$out/$name.rerr"; then
		echo "FAIL: hyprof report ($name) failed:"; cat "$out/$name.rerr"; exit 1
	fi
}
run free 2
run budget 20 --max-overhead 5
# leaf_add with an instrumented function inlined into it (its probes come
# from leaf_add's frame): skipped with it while it is regulated
PROG=$HYPROF_TEST_BIN/cost_probe_heavy_inl run inl 20 --max-overhead 5
# a void leaf whose exit probe is a tail call (gcc -O2: epilogue, then
# jmp __cyg_profile_func_exit), so it runs above its entry probe's frame
PROG=$HYPROF_TEST_BIN/cost_probe_tailexit run tail 20 --max-overhead 5

python3 - "$out/free.json" "$out/budget.json" "$out/inl.json" "$out/tail.json" <<'PY'
import json, sys
free, bud = (json.load(open(p)) for p in sys.argv[1:3])
b = bud["cost"].get("budget")
if b is None:
    print("FAIL: no budget section in the regulated run"); sys.exit(1)
if not b["applied"]:
    print("skip: the probes of this build do not call the budget hooks (calib/budget.h)")
    sys.exit(77)
fail = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fail.append(what)
cf = free["cost"]
ff = cf["direct"] / max(cf["cpu_time"] - cf["direct"], 1e-9)
check(ff > 0.2, "without a budget the probes cost %.0f%% of the program's time" % (100 * ff))
c = bud["cost"]
work = c["cpu_time"] - c["direct"]
lo = c["direct"] - 2 * c["direct_err"]
check(lo <= 0.05 * work,
      "with a 5%% budget: probe time %.4f s (-2 sd %.4f s) for %.4f s of work: %.1f%% (at most 5%%)"
      % (c["direct"], lo, work, 100 * c["direct"] / work))
names = {r["function"] for r in b["regulated"]}
check({"leaf_add", "leaf_mix"} <= names, "the hot leaves were regulated: %s" % sorted(names))
true_calls = 20 * 50000
for r in b["regulated"]:
    if r["function"] in ("leaf_add", "leaf_mix"):
        check(r["calls_counted"] < true_calls and r["regulated_s"] > 0,
              "%s: %d of %d calls counted, regulated %.3f s" %
              (r["function"], r["calls_counted"], true_calls, r["regulated_s"]))
        # counted + skipped (its own and under a regulated caller) estimate
        # the true count: within 10% (the marks are refreshed every interval)
        check(abs(r["calls_estimated"] - true_calls) <= 0.1 * true_calls,
              "%s: estimated %d calls (true %d)" % (r["function"], r["calls_estimated"], true_calls))
def partial(n):
    return "partial" in n.get("flags", []) or any(partial(k) for k in n.get("children", []))
tree = bud["tree"] if isinstance(bud["tree"], list) else [bud["tree"]]
check(any(partial(t) for t in tree), "regulated call paths are flagged partial in the tree")
# an instrumented function inlined into a regulated one: its probes are
# called from the regulated function's frame and belong to its skip region
# (they once reopened the region: every skipped leaf_add's exit then matched
# no entry and twist's estimate was 3x its calls)
inl = json.load(open(sys.argv[3]))
ib = inl["cost"]["budget"] or {}
est = {r["function"]: r["calls_estimated"] for r in ib.get("regulated", [])}
check(inl["probe_stack"]["exit_mismatch"] == 0 and ib.get("skip_resets", 0) == 0,
      "inlined helper: %d exits matched no entry, %d skip regions reset (want 0, 0)"
      % (inl["probe_stack"]["exit_mismatch"], ib.get("skip_resets", 0)))
if "twist" in est:
    check(abs(est["twist"] - true_calls) <= 0.1 * true_calls,
          "inlined helper twist: estimated %d calls (true %d, one per leaf_add)" % (est["twist"], true_calls))
# a regulated void leaf whose exit probe is a tail call: its exit closes its
# skip region (it once reset it instead: one exit mismatch per skipped call)
tail = json.load(open(sys.argv[4]))
tb = tail["cost"]["budget"] or {}
treg = {r["function"]: r for r in tb.get("regulated", [])}
check(tail["probe_stack"]["exit_mismatch"] == 0 and tb.get("skip_resets", 0) == 0,
      "tail-called exit probe: %d exits matched no entry, %d skip regions reset (want 0, 0)"
      % (tail["probe_stack"]["exit_mismatch"], tb.get("skip_resets", 0)))
if "leaf_store" in treg:
    r = treg["leaf_store"]
    print("     leaf_store regulated: %d root activations skipped" % r["skipped"])
    check(abs(r["calls_estimated"] - 2 * true_calls) <= 0.1 * 2 * true_calls,
          "tail-called exit leaf_store: estimated %d calls (true %d)" % (r["calls_estimated"], 2 * true_calls))
sys.exit(1 if fail else 0)
PY
