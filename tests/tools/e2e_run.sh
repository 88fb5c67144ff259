#!/bin/sh
# tests/tools/e2e_run.sh - `hyprof run` + `hyprof report --json` on a program
# whose split is known by construction (tests/tools/split.c): heavy() 75%,
# light() 25% of the CPU time, within 3 points; with compiler-inserted probes
# the calls are exact (main 1, heavy 30, light 30, unit 120).
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
	echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"
	exit 77
fi
T=$(mktemp -d /tmp/hyprof-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
rc=0
prof() { # prof NAME [hyprof run options] -- program args
	n=$1; shift
	"$HYPROF_BIN" run --quiet -o "$T/$n" "$@" >"$T/$n.stdout" 2>"$T/$n.stderr"
	st=$?
	if [ $st -ne 0 ]; then
		echo "FAIL: hyprof run $*: exit $st"; cat "$T/$n.stderr"; rc=1; return 1
	fi
	if [ -s "$T/$n.stdout" ]; then
		echo "FAIL: hyprof run $*: the program's stdout got: $(head -c 200 "$T/$n.stdout")"; rc=1
	fi
	if ! "$HYPROF_BIN" report --json "$T/$n" >"$T/$n.json" 2>"$T/$n.rerr"; then
		echo "FAIL: hyprof report $T/$n: $(cat "$T/$n.rerr")"; rc=1; return 1
	fi
}
prof plain --freq 1000 -- "$HYPROF_TEST_BIN/hp_split"
prof instr --freq 1000 -- "$HYPROF_TEST_BIN/hp_split_instr"
prof measured --freq 1000 --mode measured -- "$HYPROF_TEST_BIN/hp_split_instr"
prof inline --freq 1000 -- "$HYPROF_TEST_BIN/hp_inline"
prof inline_lto --freq 1000 -- "$HYPROF_TEST_BIN/hp_inline_lto"
prof inline_split --freq 1000 -- "$HYPROF_TEST_BIN/hp_inline_split"
# the same built by clang (no .debug_aranges), when CMake found one
inlines="inline inline_lto inline_split"
if [ -x "$HYPROF_TEST_BIN/hp_inline_clang" ]; then
	prof inline_clang --freq 1000 -- "$HYPROF_TEST_BIN/hp_inline_clang" && inlines="$inlines inline_clang"
else
	echo "note: no hp_inline_clang (clang++ not found at configure time): clang's DWARF not checked"
fi
[ $rc -eq 0 ] || exit 1

python3 - "$T" $inlines <<'PY'
import json, sys
T = sys.argv[1]
fails = []
def fn(doc, name):
    for f in doc["functions"]:
        if f["name"] == name:
            return f
    return None
for name in ("plain", "instr", "measured"):
    d = json.load(open(f"{T}/{name}.json"))
    h, l = fn(d, "heavy"), fn(d, "light")
    if not h or not l:
        fails.append(f"{name}: heavy/light missing: {[f['name'] for f in d['functions'][:10]]}")
        continue
    print(f"{name}: mode {d['mode']} source {d['source']} samples {d['samples']} "
          f"heavy {h['total_pct']:.1f}% light {l['total_pct']:.1f}% calls {h['calls']}/{l['calls']}")
    if d["samples"] < 200 and name != "measured":
        fails.append(f"{name}: only {d['samples']} samples")
    # the two shares relative to their sum: the rest (start-up, libc) is outside both
    s = h["total"] + l["total"]
    share = 100 * h["total"] / s if s > 0 else 0
    if abs(share - 75) > 3:
        fails.append(f"{name}: heavy is {share:.1f}% of heavy+light, want 75 +- 3")
    if h["total_pct"] + l["total_pct"] < 90:
        fails.append(f"{name}: heavy+light only {h['total_pct'] + l['total_pct']:.1f}% of the total")
    if name == "plain":
        if h["calls"] is not None:
            fails.append(f"plain: calls {h['calls']}, want null (no probes)")
    else:
        want = {"main": 1, "heavy": 30, "light": 30, "unit": 120}
        for k, v in want.items():
            f = fn(d, k)
            if not f or f["calls"] != v:
                fails.append(f"{name}: {k} calls {f and f['calls']}, want {v}")
    u = fn(d, "unit")
    if name != "measured" and (not u or u["self_pct"] < 90):
        fails.append(f"{name}: unit self {u and u['self_pct']}%, want > 90%")
# C++: demangled member functions, and the always-inlined step() shown as
# an inlined frame under its real caller run()
def find(node, name):
    if node["name"] == name:
        return node
    for c in node["children"]:
        r = find(c, name)
        if r:
            return r
    return None
for name in sys.argv[2:]:
    d = json.load(open(f"{T}/{name}.json"))
    run = find(d["tree"], "ns::Solver::run(unsigned long)")
    step = run and [c for c in run["children"] if c["name"] == "ns::Solver::step(unsigned long)"]
    if not run or not step or "inlined" not in step[0].get("flags", []) or step[0]["total_pct"] < 90:
        fails.append(f"{name}: run -> step [inlined] not found: {[f['name'] for f in d['functions'][:6]]}")
    else:
        print(f"{name}: run -> step [inlined] {step[0]['total_pct']:.1f}%")
    # the source position comes from the same compile unit
    f = fn(d, "ns::Solver::step(unsigned long)")
    if not f or not (f.get("file") or "").endswith("inline.cc") or not f.get("line"):
        fails.append(f"{name}: step's file:line {f and f.get('file')}:{f and f.get('line')}, want inline.cc:N")
for f in fails:
    print("FAIL:", f)
print(f"e2e_run: {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
