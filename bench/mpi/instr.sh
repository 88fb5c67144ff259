#!/bin/sh
# bench/mpi/instr.sh BUILD [ROUNDTRIPS [BYTES [nonblocking]]] - instructions the MPI
# wrappers execute per call, counted by callgrind on a blocking ping-pong
# (bench_mpi_pp_loop, 20000 round trips of 8 B by default): MPI_Send's and
# MPI_Recv's wrappers, inclusive, minus the PMPI_ call inside them, with
# --compensate none (the bookkeeping) and parallel (with the piggyback).  A
# count does not move with the machine's load as a time does, so it shows
# what a change to the wrappers' paths saved; bench/mpi/run.sh measures the
# time.  (Waiting inside PMPI_Recv is excluded with the PMPI_ call.)  With
# `nonblocking`: Isend/Irecv/Wait/Waitall (7 calls per round trip).
# Needs valgrind; prints "skipped" without it.
set -u
BUILD=$(cd "${1:-build}" && pwd)
N=${2:-20000}
BYTES=${3:-8}
MODE=${4:-blocking}
if [ "$MODE" = nonblocking ]; then
  TOGGLE="--toggle-collect=MPI_Isend --toggle-collect=MPI_Irecv --toggle-collect=MPI_Wait --toggle-collect=MPI_Waitall"
else
  TOGGLE="--toggle-collect=MPI_Send --toggle-collect=MPI_Recv"
fi
P=$BUILD/bench/bin/bench_mpi_pp_loop
L=$BUILD/lib
command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null || { echo "instr: no valgrind: skipped"; exit 0; }
[ -x "$P" ] || { echo "instr: $P not built (no MPI)"; exit 0; }
T=$(mktemp -d /tmp/hyprof-instr.XXXXXX)
trap '[ -z "${HP_INSTR_KEEP:-}" ] && rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for m in none parallel; do
  # collected only inside the wrapped calls (not the calibration's or the
  # merge's); the PMPI_ calls inside them are subtracted
  mpirun -np 2 env LD_PRELOAD="$L/libhyprof.so $L/libhyprof_mpi.so" HYPROF_QUIET=1 HYPROF_OUTPUT="$T/p.$m" \
    HYPROF_COMPENSATE=$m valgrind --tool=callgrind --collect-atstart=no $TOGGLE \
    --callgrind-out-file="$T/cg.$m.%p" "$P" "$N" "$BYTES" "$MODE" \
    > "$T/out.$m" 2>&1 || { tail -5 "$T/out.$m"; echo "instr: the run with --compensate $m failed"; exit 1; }
  for f in "$T"/cg.$m.*; do
    callgrind_annotate --inclusive=yes --threshold=100 "$f" > "$f.txt" 2> /dev/null
  done
done
python3 - "$T" "$N" "$BYTES" "$MODE" <<'EOF'
import glob, re, statistics, sys
T, n, nbytes, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
num = lambda s: int(s.replace(",", ""))
def per_message(path):
    """Instructions of the wrapped calls outside PMPI, per one-way message."""
    total = pmpi = 0
    for line in open(path):
        if "Auto-annotated source" in line:
            break  # the function list is over
        m = re.match(r"\s*([\d,]+) \(", line)
        if not m:
            continue
        if "PROGRAM TOTALS" in line:
            total = num(m.group(1))
        elif re.search(r"\)\s+\S*:PMPI_(Send|Recv|Isend|Irecv|Wait|Waitall)( |$)", line):
            pmpi += num(m.group(1))
    return (total - pmpi) / n
res = {}
for m in ("none", "parallel"):
    res[m] = statistics.mean(per_message(f) for f in sorted(glob.glob("%s/cg.%s.*.txt" % (T, m))))
calls = "an MPI_Send and an MPI_Recv call" if mode != "nonblocking" else "3.5 of Isend/Irecv/Wait/Waitall"
print("instructions of the wrappers per one-way message (%s), callgrind," % calls)
print("%d round trips of %d B, %s, mean of the 2 ranks:" % (n, nbytes, mode))
print("  --compensate none      %6.0f  (the bookkeeping)" % res["none"])
print("  --compensate parallel  %6.0f  (the piggyback adds %.0f)" % (res["parallel"], res["parallel"] - res["none"]))
EOF
