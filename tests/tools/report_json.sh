#!/bin/sh
# tests/tools/report_json.sh - `hyprof report --json` and `hyprof compare
# --json` on synthetic profiles whose facts are known (tests/tools/synth.c):
# the documented members and types, names resolved from DWARF, exact calls,
# seconds, percentages of the root total, tree sums, folding, probe-only
# nodes, per-thread and per-rank parts; the text report prints the same.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}"
T=$(mktemp -d /tmp/hyprof-rj.XXXXXX)
trap 'rm -rf "$T"' EXIT
S="$HYPROF_TEST_BIN/hp_synth"
for s in hybrid sampled measured mpi; do
	"$S" write $s "$T/$s" || { echo "FAIL: hp_synth write $s"; exit 1; }
done
fail=0
run() { # run NAME command...: keep stdout in $T/NAME.out, fail on non-zero exit
	n=$1; shift
	"$@" >"$T/$n.out" 2>"$T/$n.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "FAIL: $*: exit $st"; cat "$T/$n.err"; fail=1
	fi
}
run hybrid "$HYPROF_BIN" report --json --threads --ranks "$T/hybrid"
run sampled "$HYPROF_BIN" report --json "$T/sampled"
run measured "$HYPROF_BIN" report --json "$T/measured"
run mpi "$HYPROF_BIN" report --json --ranks "$T/mpi"
run cmp "$HYPROF_BIN" compare --json "$T/sampled" "$T/measured"
run text "$HYPROF_BIN" report --threads --ranks --min-pct 0 "$T/hybrid"
run mtext "$HYPROF_BIN" report --raw "$T/measured"
run ctext "$HYPROF_BIN" compare "$T/sampled" "$T/measured"
# a measured-mode run of a program without probes (a shell loop): its tree
# is the sampled one, and compare projects nothing onto it
run mnp_run "$HYPROF_BIN" run -q --mode measured -o "$T/mnp" -- /bin/sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
run cmp_np "$HYPROF_BIN" compare --json "$T/sampled" "$T/mnp"
run mnp_text "$HYPROF_BIN" report "$T/mnp"
# --compact: one line, ended by a newline (it had none: wc -l said 0)
run compact "$HYPROF_BIN" report --json --compact "$T/hybrid"
[ "$(wc -l < "$T/compact.out")" = 1 ] && [ "$(tail -c 1 "$T/compact.out" | od -An -c | tr -d ' ')" = '\n' ] ||
	{ echo "FAIL: report --json --compact is not one line ended by a newline ($(wc -l < "$T/compact.out") newlines)"; fail=1; }
# compare of real runs: outer() only calls inner(), so its sampled (and
# compensated) self time is 0 and its probes cost more: the reason gives
# the cost in seconds, not a ratio printed as "infx"
cat > "$T/zs.c" <<'EOF'
static volatile double sink;
__attribute__((noinline)) static void inner(void) { for (int i = 0; i < 20000000; i++) sink += i * 0.5; }
__attribute__((noinline)) static void outer(void) { inner(); }
int main(void) { for (int i = 0; i < 8; i++) outer(); return 0; }
EOF
if cc -O1 -g -finstrument-functions -o "$T/zs" "$T/zs.c"; then
	run zs_s "$HYPROF_BIN" run -q --mode sampled -o "$T/zs_s" -- "$T/zs"
	run zs_m "$HYPROF_BIN" run -q --mode measured -o "$T/zs_m" -- "$T/zs"
	run zs_cmp "$HYPROF_BIN" compare --json "$T/zs_s" "$T/zs_m"
	run zs_ctext "$HYPROF_BIN" compare "$T/zs_s" "$T/zs_m"
	if grep -q -i -e "infx" -e "nanx" "$T/zs_cmp.out" "$T/zs_ctext.out"; then
		echo "FAIL: compare printed a ratio of a zero self time: $(grep -h -i -e infx -e nanx "$T/zs_ctext.out")"; fail=1
	fi
fi
grep -q "^total .* of sampled time" "$T/mnp_text.out" ||
	{ echo "FAIL: a measured run without probes: '$(grep '^total' "$T/mnp_text.out")', want sampled time"; fail=1; }
[ $fail -eq 0 ] || exit 1

python3 - "$T" <<'PY'
import json, sys, math
T = sys.argv[1]
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
def load(n):
    with open(f"{T}/{n}.out") as f:
        return json.load(f)
def near(a, b, tol=1e-6):
    return a is not None and abs(a - b) <= tol
def fn(doc, name, module=None):
    for f in doc["functions"]:
        if f["name"] == name and (module is None or f["module"] == module):
            return f
    return None
def child(node, name):
    for c in node["children"]:
        if c["name"] == name:
            return c
    return None
def walk(node, visit, depth=0):
    visit(node, depth)
    for c in node["children"]:
        walk(c, visit, depth + 1)

# --- hybrid: members and types of the stable interface
h = load("hybrid")
members = {"program": str, "mode": str, "source": str, "period": int, "unit": str, "samples": int,
           "dropped": int, "dropped_by": dict, "processes": int, "threads": int,
           "duration": (int, float), "partial": bool, "join": str, "functions": list, "tree": dict}
for k, t in members.items():
    check(k in h and isinstance(h[k], t), f"member {k} missing or not {t}: {h.get(k)!r}")
check(h["mode"] == "hybrid" and h["source"] == "task-clock" and h["unit"] == "ns" and h["period"] == 1000000,
      f"header {h['mode']} {h['source']} {h['unit']} {h['period']}")
check(h["samples"] == 715 and h["dropped"] == 5 and h["dropped_by"] == {"reentrant": 3, "loader": 2},
      f"samples {h['samples']} dropped {h['dropped']} {h['dropped_by']}")
check(h["processes"] == 1 and h["threads"] == 2 and near(h["duration"], 2.0), "processes/threads/duration")
for f in h["functions"]:
    for k in ("name", "module", "file", "line", "self", "total", "self_pct", "total_pct", "calls",
              "self_raw", "total_raw"):
        check(k in f, f"function member {k} missing in {f.get('name')}")
a = fn(h, "synth_a")
check(a and near(a["self"], 0.5) and a["calls"] == 1500 and near(a["self_pct"], 100 * 0.5 / 0.715, 1e-3),
      f"synth_a {a}")
check(a and a["module"] == "hp_synth" and a["file"].endswith("synth.c") and a["line"] > 0, f"synth_a location {a}")
check(fn(h, "synth_c")["calls"] == 7 and fn(h, "synth_c")["self"] == 0, "probe-only synth_c in functions")
# tree: root percentages and sums (regions that could not be placed, "overlay", excluded from sums)
root = h["tree"]
check(near(root["total_pct"], 100.0) and near(root["total"], 0.715), f"root {root['total']} {root['total_pct']}")
def sums(node, depth):
    kids = [c for c in node["children"] if "overlay" not in c.get("flags", [])]
    s = node["self"] + sum(c["total"] for c in kids)
    check(near(s, node["total"], 1e-9), f"tree sum at {node['name']}: {s} != {node['total']}")
    check(node["self"] <= node["total"] + 1e-12 and node["self"] >= 0, f"self > total at {node['name']}")
walk(root, sums)
sm = child(root, "synth_main")
rec = child(sm, "synth_rec")
check(rec and rec["folded"] is True and rec["calls"] == 30 and child(rec, "synth_rec") is None and
      child(rec, "synth_b")["calls"] == 10, f"folded recursion {rec}")
sc = child(sm, "synth_c")
check(sc and "probe-only" in sc.get("flags", []) and sc["calls"] == 7, f"probe-only node {sc}")
st = child(root, "synth_thread")
rg = child(st, "solver_loop")
check(rg and "region" in rg.get("flags", []) and "overlay" in rg.get("flags", []) and rg["calls"] == 4 and
      near(rg["total"], 0.02), f"region {rg}")
# per thread and per rank
pt = h.get("per_thread", [])
check(len(pt) == 2 and near(sum(t["total"] for t in pt), 0.715), f"per_thread {[t.get('total') for t in pt]}")
check(len(h.get("per_rank", [])) == 1, "per_rank of a non-MPI run: one part (rank -1)")

# --- sampled: calls are null everywhere
s = load("sampled")
check(all(f["calls"] is None for f in s["functions"]), "sampled: calls not null")
nulls = []
walk(s["tree"], lambda n, d: nulls.append(n["calls"] is None))
check(all(nulls), "sampled: tree calls not null")

# --- measured: compensated self/total, raw beside
m = load("measured")
ma = fn(m, "synth_a")
check(m["mode"] == "measured" and near(ma["self"], 0.57) and near(ma["self_raw"], 0.6) and ma["calls"] == 1000000,
      f"measured synth_a {ma}")
check(near(m["tree"]["total"], 0.9), f"measured total {m['tree']['total']}")

# --- mpi: two processes, per-rank parts
p = load("mpi")
check(p["processes"] == 2 and near(p["duration"], 2.5), f"mpi processes {p['processes']} duration {p['duration']}")
ranks = {r["rank"]: r for r in p.get("per_rank", [])}
check(set(ranks) == {0, 1}, f"per_rank ranks {list(ranks)}")
if set(ranks) == {0, 1}:
    b1 = [f for f in ranks[1]["functions"] if f["name"] == "synth_b"][0]
    check(near(b1["self"], 0.4) and b1["calls"] == 60, f"rank 1 synth_b {b1}")
check(fn(p, "synth_a")["calls"] == 2000, "mpi merged calls")

# --- compare: no projection onto a measured side where no probe ran
cn = load("cmp_np")
check(cn["b"]["mode"] == "measured" and not cn["projection"], f"compare projected onto a run without probes: {cn['projection']}")
# --- compare: the tiny hot function is flagged, sorted by |diff|
c = load("cmp")
check(c["a"]["mode"] == "sampled" and c["b"]["mode"] == "measured" and c["projection"], "compare header")
fc = [f for f in c["functions"] if f["name"] == "synth_c"]
check(fc and fc[0]["distorted"] and "probes cost" in fc[0]["reason"] and fc[0]["calls_b"] == 10000000,
      f"synth_c not flagged: {fc}")
diffs = [abs(f["diff"]) for f in c["functions"]]
check(diffs == sorted(diffs, reverse=True), "compare functions not sorted by |diff|")
fa = [f for f in c["functions"] if f["name"] == "synth_a"][0]
check(near(fa["share_a"], 100 * 0.5 / 0.715, 1e-3) and near(fa["share_b"], 100 * 0.57 / 0.9, 1e-3),
      f"synth_a shares {fa}")
check(any(x["path"] == "synth_main;synth_a" for x in c["paths"]), "compare paths")

for f in fails:
    print("FAIL:", f)
print(f"report_json: {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
rc=$?
# the text report says the same things
for pat in "mode      hybrid" "task-clock" "synth_a" "synth_main" "\[folded\]" "\[probe-only\]" \
	"Flat profile" "Thread 1 of rank -1" "why: perf-hw"; do
	grep -q -- "$pat" "$T/text.out" || { echo "FAIL: text report lacks '$pat'"; rc=1; }
done
grep -q "synth_c.*distorted\|distorted.*synth_c" "$T/ctext.out" || { echo "FAIL: compare text lacks synth_c distorted"; rc=1; }
grep -q "1.400 s" "$T/mtext.out" || { echo "FAIL: report --raw of measured lacks raw total 1.400 s"; rc=1; }
exit $rc
