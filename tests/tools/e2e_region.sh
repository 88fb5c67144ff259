#!/bin/sh
# tests/tools/e2e_region.sh - a function sampled inside a region shows under
# the region in the report's tree (tests/tools/region.c): main -> solver
# [region] -> solve holds solve()'s time, prepare() (called before the
# region's BEGIN) stays directly under main, the region has its 30 calls and
# about 75% of the time.  Region API only, and with compiler-inserted probes
# (then solve's 30 calls show under the region too).
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
	echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"; exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
T=$(mktemp -d /tmp/hyprof-region.XXXXXX)
trap 'rm -rf "$T"' EXIT
rc=0
for prog in hp_region hp_region_instr; do
	if ! "$HYPROF_BIN" run --quiet --mode hybrid --freq 1000 -o "$T/$prog" -- \
		"$HYPROF_TEST_BIN/$prog" 2500000 >"$T/$prog.out" 2>"$T/$prog.err"; then
		echo "FAIL: $prog: hyprof run"; cat "$T/$prog.err"; rc=1; continue
	fi
	"$HYPROF_BIN" report --json "$T/$prog" >"$T/$prog.json" 2>"$T/$prog.rerr" ||
		{ echo "FAIL: $prog: report: $(cat "$T/$prog.rerr")"; rc=1; continue; }
	python3 - "$T/$prog.json" "$prog" <<'PY' || rc=1
import json, sys
d = json.load(open(sys.argv[1]))
prog = sys.argv[2]
instr = prog.endswith("_instr")
fails = []
def kids(n, name):
    return [c for c in n["children"] if c["name"] == name]
def find_all(n, name, path=()):
    out = []
    for c in n["children"]:
        p = path + (c["name"],)
        if c["name"] == name:
            out.append((p, c))
        out += find_all(c, name, p)
    return out
mains = find_all(d["tree"], "main")
if len(mains) != 1:
    fails.append(f"{len(mains)} main nodes")
    main = None
else:
    main = mains[0][1]
flat = {f["name"]: f for f in d["functions"]}
if main and "solve" in flat and "prepare" in flat:
    reg = kids(main, "solver")
    if len(reg) != 1 or "region" not in reg[0].get("flags", []):
        fails.append(f"no region node solver under main: {[c['name'] for c in main['children']]}")
    else:
        r = reg[0]
        if r["calls"] != 30:
            fails.append(f"region calls {r['calls']}, want 30")
        share = r["total"] / main["total"] if main["total"] else 0
        if not 0.62 <= share <= 0.88:
            fails.append(f"region holds {share:.1%} of main, want about 75%")
        s_in = sum(c["total"] for c in kids(r, "solve"))
        s_all = flat["solve"]["total"]
        if s_in < 0.9 * s_all:
            fails.append(f"solve under the region {s_in:.3f} s of its {s_all:.3f} s")
        if instr:
            sc = kids(r, "solve")
            if not sc or sc[0]["calls"] != 30:
                fails.append(f"solve under the region: calls {sc[0]['calls'] if sc else None}, want 30")
        # the region's total is in main's: children of main add up to it
        kid_sum = sum(c["total"] for c in main["children"]) + main["self"]
        if abs(kid_sum - main["total"]) > 1e-6 * max(1, main["total"]):
            fails.append(f"main total {main['total']} != self + children {kid_sum}")
    out_solve = sum(c["total"] for c in kids(main, "solve"))
    if out_solve > 0.1 * flat["solve"]["total"]:
        fails.append(f"solve directly under main still has {out_solve:.3f} s")
    p_out = sum(c["total"] for c in kids(main, "prepare"))
    if p_out < 0.9 * flat["prepare"]["total"]:
        fails.append(f"prepare directly under main {p_out:.3f} s of {flat['prepare']['total']:.3f} s")
    if instr and flat["solve"]["calls"] != 30:
        fails.append(f"flat solve calls {flat['solve']['calls']}")
else:
    fails.append(f"functions: {sorted(flat)[:20]}")
for f in fails:
    print(f"FAIL: {prog}: {f}")
print(f"e2e_region {prog}: {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
done
exit $rc
