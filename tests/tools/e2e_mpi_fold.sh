#!/bin/sh
# tests/tools/e2e_mpi_fold.sh - hyprof's own frames in the report of an MPI
# job (docs/cmd-report.md "Frames of hyprof").  `mpirun -np 2 hyprof run` of
# the demo; by default the report's tree shows the user's MPI call as one
# node MPI_Xxx with the library below it: no frame of hyprof's code sits
# between a call MPI_Xxx and its PMPI_Xxx, the wrapper layers (hpw_*) are
# gone, no two hyprof nodes follow each other, and hyprof's own work stays
# visible as hyprof's.  `--no-fold` shows every frame.  Both have the same
# total, the same sum of self times, and the same self time in hyprof's code.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -r "$HYPROF_LIB/libhyprof_mpi.so" ]; then
	echo "SKIP: $HYPROF_LIB/libhyprof_mpi.so is not built"; exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
[ -x "$HYPROF_TEST_BIN/hp_mpi_demo" ] || { echo "SKIP: hp_mpi_demo not built"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d /tmp/hyprof-fold.XXXXXX)
trap 'rm -rf "$T"' EXIT
# a short period: enough samples inside MPI and hyprof's wrappers
if ! mpirun -np 2 --oversubscribe --allow-run-as-root "$HYPROF_BIN" run --quiet -o "$T/p" \
	--period 1000000 -- "$HYPROF_TEST_BIN/hp_mpi_demo" 0.3 >"$T/run.out" 2>"$T/run.err"; then
	echo "FAIL: mpirun exit status"; cat "$T/run.err"; exit 1
fi
"$HYPROF_BIN" report --json "$T/p" >"$T/fold.json" 2>"$T/r.err" || { echo "FAIL: report"; cat "$T/r.err"; exit 1; }
"$HYPROF_BIN" report --json --no-fold "$T/p" >"$T/raw.json" 2>"$T/r.err" ||
	{ echo "FAIL: report --no-fold"; cat "$T/r.err"; exit 1; }
"$HYPROF_BIN" report "$T/p" >"$T/fold.txt" 2>"$T/r.err" || { echo "FAIL: text report"; cat "$T/r.err"; exit 1; }
python3 - "$T/fold.json" "$T/raw.json" "$T/fold.txt" <<'PY'
import json, sys
fold, raw = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
fails = []

def own(n):
    return "measurement" in n.get("flags", [])

def walk(n, path=()):
    yield n, path
    for c in n["children"]:
        yield from walk(c, path + (n,))

def sums(d):
    s = h = 0.0
    for n, _ in walk(d["tree"]):
        s += n["self"]
        if own(n):
            h += n["self"]
    return s, h

prog = fold["program"]
def is_user(n):
    return n.get("module") == prog

tol = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
if not tol(fold["total"], raw["total"]):
    fails.append(f"total {fold['total']} folded, {raw['total']} with --no-fold")
(sf, hf), (sr, hr) = sums(fold), sums(raw)
if not tol(sf, sr):
    fails.append(f"sum of self {sf} folded, {sr} raw: time lost or added")
if not tol(hf, hr):
    fails.append(f"hyprof's own self time {hf} folded, {hr} raw: its cost is not kept")

raw_own = [n for n, _ in walk(raw["tree"]) if own(n)]
if not raw_own:
    fails.append("--no-fold shows no frame of hyprof's code: nothing was sampled in the wrappers")
if not any(n["name"].startswith(("hp_w_", "hpw_MPI_")) for n in raw_own):
    fails.append("--no-fold shows no wrapper frame hp_w_*/hpw_MPI_*")

calls = 0
for n, path in walk(fold["tree"]):
    name = n["name"]
    if name.startswith("hpw_MPI_"):
        fails.append(f"wrapper layer {name} in the folded tree")
    if own(n) and any(own(c) for c in n["children"]):
        fails.append(f"two hyprof nodes in a row under {name}")
    if name.startswith("MPI_") and not own(n) and path and is_user(path[-1]):
        calls += 1
    if name.startswith("PMPI_"):
        call = name[1:]
        # the nearest MPI call above it, and what sits between
        for k in range(len(path) - 1, -1, -1):
            if path[k]["name"] == call:
                between = path[k + 1:]
                if any(own(b) for b in between):
                    fails.append(f"{name}: hyprof frame between {call} and it: "
                                 + " > ".join(b["name"] for b in between))
                if not between:
                    fails.append(f"{name} right under {call}: not folded")
                break
# the user's calls: exchange_halo > MPI_Sendrecv, main > MPI_Init, ...
if calls == 0:
    fails.append("no MPI_* call node right under a function of the program")
for n, path in walk(fold["tree"]):
    if n["name"] == "exchange_halo":
        kids = [c["name"] for c in n["children"]]
        if any(k.startswith(("hp_", "hpw_")) for k in kids):
            fails.append(f"exchange_halo's children {kids}")
if "[hyprof]" in text and "hpw_MPI_" in text:
    fails.append("text report shows the inlined wrapper layer")
if "--no-fold" not in fold["join"]:
    fails.append("join note does not say frames were folded")
for f in fails:
    print("FAIL:", f)
print(f"e2e_mpi_fold: total {fold['total']:.3f} s, hyprof's own {hf:.3f} s, {len(raw_own)} raw "
      f"hyprof nodes, {calls} MPI call nodes under the program's functions, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] || exit 1
# the exports and compare fold the same way, and keep every frame with --no-fold
"$HYPROF_BIN" export -f folded --value time "$T/p" >"$T/f.txt" 2>"$T/x.err" || { echo "FAIL: export"; cat "$T/x.err"; exit 1; }
"$HYPROF_BIN" export -f folded --value time --no-fold "$T/p" >"$T/nf.txt" 2>"$T/x.err" ||
	{ echo "FAIL: export --no-fold"; cat "$T/x.err"; exit 1; }
if grep -q 'hpw_MPI_' "$T/f.txt"; then echo "FAIL: folded export shows the wrapper layer"; exit 1; fi
grep -q 'hp_w_\|hpw_MPI_' "$T/nf.txt" || { echo "FAIL: export --no-fold shows no wrapper frame"; exit 1; }
grep -q ' \[hyprof\]' "$T/f.txt" || { echo "FAIL: folded export does not mark hyprof's own frames"; exit 1; }
"$HYPROF_BIN" compare --json --no-fold "$T/p" "$T/p" >"$T/c.json" 2>"$T/x.err" ||
	{ echo "FAIL: compare --no-fold"; cat "$T/x.err"; exit 1; }
echo "e2e_mpi_fold: exports and compare: ok"
exit 0
