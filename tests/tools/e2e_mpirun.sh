#!/bin/sh
# tests/tools/e2e_mpirun.sh - `mpirun -np 2 hyprof run -- prog` without -o:
# both ranks agree on one output directory named from the launcher's job id,
# one profile per rank lands there, and the report merges two processes.  With
# libhyprof_mpi.so built, the MPI program is detected and the ranks are known.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
	echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"; exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
T=$(mktemp -d /tmp/hyprof-mpi.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
if ! mpirun -np 2 --oversubscribe --allow-run-as-root "$HYPROF_BIN" run --quiet -- \
	"$HYPROF_TEST_BIN/hp_mpi_demo" 0.05 >"$T/stdout" 2>"$T/stderr"; then
	echo "FAIL: mpirun exit $?"; cat "$T/stderr"; exit 1
fi
dirs=$(ls -d hyprof-hp_mpi_demo-* 2>/dev/null)
n=$(echo "$dirs" | grep -c .)
if [ "$n" -ne 1 ]; then echo "FAIL: $n output directories: $dirs"; exit 1; fi
files=$(ls "$dirs"/*.hyp 2>/dev/null | wc -l)
if [ "$files" -lt 1 ]; then echo "FAIL: no profile in $dirs"; ls -la "$dirs"; exit 1; fi
"$HYPROF_BIN" report --json --ranks "$dirs" >"$T/r.json" || { echo "FAIL: report"; exit 1; }
python3 - "$T/r.json" "$HYPROF_LIB" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
fails = []
if d["processes"] != 2:
    fails.append(f"processes {d['processes']}, want 2")
names = {f["name"] for f in d["functions"]}
for want in ("compute_interior", "main"):
    if want not in names:
        fails.append(f"{want} not among the functions")
if os.path.exists(os.path.join(sys.argv[2], "libhyprof_mpi.so")):
    ranks = sorted(r["rank"] for r in d.get("per_rank", []))
    if ranks != [0, 1]:
        fails.append(f"ranks {ranks}, want [0, 1] (libhyprof_mpi.so should have been preloaded)")
for f in fails:
    print("FAIL:", f)
print(f"e2e_mpirun: processes {d['processes']}, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
