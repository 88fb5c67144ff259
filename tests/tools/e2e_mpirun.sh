#!/bin/sh
# tests/tools/e2e_mpirun.sh - `mpirun -np 2 hyprof run -- prog` without -o:
# both ranks agree on one output directory named from the launcher's job id,
# the report merges two processes, and `--ranks` gives each rank its own
# figures.  With libhyprof_mpi.so the merge at MPI_Finalize writes one merged
# file and puts the per-rank files in DIR/.hyprof-ranks; the report must read
# those back for --ranks without counting them twice, also when they sit
# beside the merged file (--per-rank, or copies), and must read the per-rank
# files alone when no merge happened (HYPROF_MPI_MERGE=0, merged file lost).
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
	echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"; exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d /tmp/hyprof-mpi.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
MPI_LIB=0
[ -r "$HYPROF_LIB/libhyprof_mpi.so" ] && MPI_LIB=1
fail=0

# run NAME [run options...]: mpirun into $T/NAME (the default directory,
# made in the working directory); prints the directory
run() {
	name=$1; shift
	mkdir -p "$T/$name" && cd "$T/$name" || exit 1
	if ! mpirun -np 2 --oversubscribe --allow-run-as-root "$HYPROF_BIN" run --quiet "$@" -- \
		"$HYPROF_TEST_BIN/hp_mpi_demo" 0.05 >"$T/$name.out" 2>"$T/$name.err"; then
		echo "FAIL: $name: mpirun exit status" >&2; cat "$T/$name.err" >&2; exit 1
	fi
	dirs=$(ls -d hyprof-hp_mpi_demo-* 2>/dev/null)
	n=$(echo "$dirs" | grep -c .)
	if [ "$n" -ne 1 ]; then echo "FAIL: $name: $n output directories: $dirs" >&2; exit 1; fi
	cd "$T" || exit 1
	echo "$T/$name/$dirs"
}

# check LABEL DIR: the report of DIR has 2 processes, per_rank [0, 1] with
# each rank's total below the job's and their sum near it (each rank's file
# also covers the time after MPI_Finalize), and no function counted twice
check() {
	label=$1 dir=$2
	"$HYPROF_BIN" report --json --ranks "$dir" >"$T/r.json" 2>"$T/r.err" ||
		{ echo "FAIL: $label: report"; cat "$T/r.err"; fail=1; return; }
	python3 - "$T/r.json" "$label" "$MPI_LIB" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
label, mpi = sys.argv[2], sys.argv[3] == "1"
fails = []
if d["processes"] != 2:
    fails.append(f"processes {d['processes']}, want 2")
names = {f["name"] for f in d["functions"]}
for want in ("compute_interior", "main"):
    if want not in names:
        fails.append(f"{want} not among the functions")
per = d.get("per_rank", [])
ranks = sorted(r["rank"] for r in per)
if mpi:
    if ranks != [0, 1]:
        fails.append(f"ranks {ranks}, want [0, 1]")
    pids = {r["pid"] for r in per}
    if len(pids) != len(per):
        fails.append(f"per_rank pids {sorted(pids)} not one per rank")
    tot = d["total"]
    s = sum(r["total"] for r in per)
    for r in per:
        if not r["total"] > 0:
            fails.append(f"rank {r['rank']} total {r['total']}")
        rn = {f["name"] for f in r["functions"]}
        if "main" not in rn:
            fails.append(f"rank {r['rank']}: main not among its functions")
    # each rank's own file runs to its exit, a merged file to MPI_Finalize:
    # the job holds at most what the ranks' files hold (a rank's file read
    # twice would exceed it), and far more than nothing
    if not (0.3 * s <= tot <= s * 1.0001):
        fails.append(f"job total {tot} against the ranks' {s}: counted twice or lost")
    mains = [f for f in d["functions"] if f["name"] == "main"]
    if len(mains) != 1:
        fails.append(f"{len(mains)} rows for main")
for f in fails:
    print(f"FAIL: {label}:", f)
print(f"e2e_mpirun {label}: processes {d['processes']}, total {d['total']:.3f}, "
      f"ranks {[(r['rank'], round(r['total'], 3)) for r in per]}, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
}

total_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$1"; }

# 1. the merge at MPI_Finalize (default)
D=$(run merge) || exit 1
check merge "$D"
if [ "$MPI_LIB" = 1 ]; then
	[ "$(ls "$D"/*.merged.*.hyp 2>/dev/null | wc -l)" -eq 1 ] || { echo "FAIL: merge: no merged file"; ls -la "$D"; fail=1; }
	[ "$(ls "$D"/.hyprof-ranks/*.hyp 2>/dev/null | wc -l)" -eq 2 ] || { echo "FAIL: merge: per-rank files not in .hyprof-ranks"; ls -laR "$D"; fail=1; }
	"$HYPROF_BIN" report --json "$D" >"$T/base.json" || fail=1
	base=$(total_of "$T/base.json")

	# 2. leftover per-rank files beside the merged file are not counted twice
	cp "$D"/.hyprof-ranks/*.hyp "$D"/
	check "merge+copies" "$D"
	"$HYPROF_BIN" report --json "$D" >"$T/copies.json" || fail=1
	python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b) <= 1e-9*max(1,a) else 1)' \
		"$base" "$(total_of "$T/copies.json")" || { echo "FAIL: copies changed the total: $base -> $(total_of "$T/copies.json")"; fail=1; }

	# 3. the merged file lost: the per-rank files are the profile
	rm -f "$D"/*.hyp
	check "ranks-only" "$D"

	# 4. --per-rank: files beside the merged one, each counted once
	D=$(run perrank --per-rank) || exit 1
	[ ! -d "$D/.hyprof-ranks" ] || { echo "FAIL: --per-rank made .hyprof-ranks"; fail=1; }
	check per-rank "$D"

	# 5. no merge: one file per rank, ranks recorded
	D=$(export HYPROF_MPI_MERGE=0; run nomerge) || exit 1
	[ "$(ls "$D"/*.merged.*.hyp 2>/dev/null | wc -l)" -eq 0 ] || { echo "FAIL: HYPROF_MPI_MERGE=0 merged"; fail=1; }
	check no-merge "$D"
fi
exit $fail
