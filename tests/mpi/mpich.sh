#!/bin/sh
# tests/mpi/mpich.sh SRC_DIR - the MPI wrappers built against MPICH.
#
# hyprof's wrappers are written for any MPI; Open MPI is the default build.
# MPICH (and the MPIs derived from it: Intel MPI, Cray MPICH, MVAPICH)
# differs where bugs hide: its handles are 32-bit integers (requests,
# communicators and datatypes with the top bit set), MPI_BOTTOM is NULL and
# MPI_Pack/Unpack refuse it, MPI_TAG_UB is 2^29-1, a datatype left at
# MPI_Finalize is reported on stderr.  This builds libhyprof and
# libhyprof_mpi with Debian's MPICH (mpicc.mpich, installed by `make check`)
# in a scratch directory, warnings as errors as CI builds it (MPICH's
# headers bring warnings of their own: its MPI_STATUSES_IGNORE, (MPI_Status
# *)1, is a zero-sized array to GCC 12's -Wstringop-overflow), and checks:
#   - mpi_correct at 2 and 3 ranks prints the same with and without hyprof,
#     piggyback on (parallel) and off (none), nothing on stderr; truncated
#     receives are left out of the comparison (what a truncated receive puts
#     in the buffer and the status count are the MPI's own business: MPICH
#     writes nothing, hyprof copies what its staging buffer got);
#   - the merged report has the ranks and the ranks list;
#   - a Fortran program (`use mpi`) prints the same, its messages carry the
#     piggyback (MPICH's Fortran bindings call the C MPI_ functions);
#   - a job ending in MPI_Abort leaves the aborting rank's profile;
#   - mpi_pi in measured mode: the master's parallel-compensated wall time is
#     below its raw one (the piggyback reached it);
#   - every MPI-4 entry point of MPICH's mpi.h that moves a message is wrapped
#     (check_coverage.py), and mpi4 (Isendrecv, Isendrecv_replace, the
#     large-count MPI_X_c calls, partitioned communication) prints the same
#     at 2 and 3 ranks with and without hyprof, and under --compensate
#     parallel every message carried its piggyback and none came without;
#     one message of 2^31 + 15 chars arrives whole, piggybacked and counted;
#   - a program of MPI 4's Sessions model alone (mpi4 sessions) prints the
#     same, and hyprof says once that its MPI calls are not profiled;
#   - mpi_threads and mpi_threads_icoll (MPI_THREAD_MULTIPLE) print the same;
#   - a PMPI tool linked into the program (pmpi_tool.c) sees every call and
#     prints at its MPI_Finalize, as without hyprof; the program gets the
#     wrappers although the tool's libmpi_pmpi_tool.so comes before libmpich.
# Skips (77) when MPICH is not installed.
set -u
SRC=$1
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null ||
	skip "MPICH is not installed (apt-get install mpich libmpich-dev)"
T=$(mktemp -d /tmp/hyprof-mpich.XXXXXX)
trap 'rm -rf "$T"' EXIT
B=$T/build

echo "building libhyprof, libhyprof_mpi, mpi_correct and mpi_pi with $(mpicc.mpich -show | cut -d' ' -f1) and MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version: *//p')"
cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHYPROF_WERROR=ON -DMPI_C_COMPILER="$(command -v mpicc.mpich)" \
	-DMPI_CXX_COMPILER="$(command -v mpicxx.mpich)" -DMPI_Fortran_COMPILER="$(command -v mpif90.mpich)" \
	> "$T/cmake.log" 2>&1 || { tail -20 "$T/cmake.log"; fail "cmake with MPICH"; }
cmake --build "$B" -j2 --target hyprof-cli hyprof hyprof_mpi mpi_correct mpi_pi mpi_abort mpi4 mpi_threads \
	mpi_threads_icoll bench_mpi_pingpong bench_mpi_pp_loop mpi_pmpi_tool mpi_pmpi_app mpi_pmpi_app_linked \
	> "$T/build.log" 2>&1 ||
	{ grep -E "error" "$T/build.log" | head -20; fail "build with MPICH"; }
H=$B/bin/hyprof
# the launcher takes its libraries from HYPROF_LIB (ctest points it at the
# Open MPI build): this build's own
export HYPROF_LIB="$B/lib"
unset HYPROF_BIN HYPROF_TEST_BIN
# the wrappers must be linked to MPICH's library, not Open MPI's
ldd "$B/lib/libhyprof_mpi.so" | grep -q "libmpich" || fail "libhyprof_mpi.so is not linked with MPICH: $(ldd "$B/lib/libhyprof_mpi.so" | grep -i mpi)"

MPIRUN="timeout 120 mpirun.mpich"
# drop the truncated receives' lines (see above)
keep() { grep -v "truncate" "$1"; }
# plain_run PROG NP: PROG without hyprof into $T/plain; it must finish
plain_run() {
	$MPIRUN -np $2 "$B/tests/bin/$1" > "$T/plain" 2> "$T/plain.err" || { cat "$T/plain.err"; fail "plain $1, $2 ranks"; }
	grep -q "^done $2 ranks" "$T/plain" || fail "$1 did not finish ($2 ranks)"
}
# same_run PROG NP COMP FILTER [VAR=value...]: PROG under hyprof with
# --compensate COMP prints what the plain run printed, both through FILTER
# (a function of a file); nothing on stderr; its report in $T/p.json
same_run() {
	prog=$1 np=$2 comp=$3 filter=$4
	shift 4
	rm -rf "$T/p"
	env "$@" $MPIRUN -np $np "$H" run -q --compensate $comp -o "$T/p" -- "$B/tests/bin/$prog" \
		> "$T/out" 2> "$T/err" || { tail -20 "$T/err"; fail "$prog under hyprof, $np ranks, $comp"; }
	$filter "$T/plain" > "$T/a"
	$filter "$T/out" > "$T/b"
	cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head -20; fail "$prog prints differently under hyprof ($np ranks, --compensate $comp)"; }
	[ -s "$T/err" ] && { cat "$T/err"; fail "hyprof or MPICH wrote to stderr ($prog, $np ranks, $comp)"; }
	"$H" report --json "$T/p" > "$T/p.json" 2> "$T/rep.err" || { cat "$T/rep.err"; fail "report of $prog"; }
}

for np in 2 3; do
	plain_run mpi_correct $np
	for comp in parallel none; do
		same_run mpi_correct $np $comp keep
		python3 "$SRC/tests/mpi/check_mpi.py" fields "$T/p.json" $np || fail "the ranks list ($np ranks, $comp)"
		if [ $comp = parallel ]; then
			python3 "$SRC/tests/mpi/check_mpi.py" applied "$T/p.json" 3 ||
				fail "messages without a piggyback ($np ranks)"
		fi
		echo "ok: mpi_correct, $np ranks, --compensate $comp"
	done
done

# MPI-4: every entry point that moves a message is wrapped, and works
INC=$(mpicc.mpich -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -1)
python3 "$SRC/tests/mpi/check_coverage.py" "$INC/mpi.h" "$SRC/mpiwrap/wrappers.w" || fail "MPICH entry points not wrapped"
# the "truth" lines are checked against the truth, not the plain run
# (MPICH 4.0 gets some wrong by itself: mpi4.c says which)
no_truth() { grep -v " truth " "$1"; }
for np in 2 3; do
	plain_run mpi4 $np
	for comp in parallel none; do
		halves=0
		[ $comp = parallel ] && halves=1
		same_run mpi4 $np $comp no_truth HP_MPI4_HALVES=$halves
		if [ $comp = parallel ]; then
			[ "$(grep -c " truth .*: ok$" "$T/out")" -ge $((np * 5 - 1)) ] && ! grep " truth .*BAD" "$T/out" ||
				{ grep " truth " "$T/out"; fail "mpi4: a result differs from the truth ($np ranks)"; }
			python3 "$SRC/tests/mpi/check_mpi.py" applied "$T/p.json" 10 || fail "mpi4: messages without a piggyback ($np ranks)"
			python3 "$SRC/tests/mpi/check_mpi.py" untracked "$T/p.json" || fail "mpi4: a piggyback missing on one side ($np ranks)"
			# Isendrecv: 3 per rank, 1 against plain calls, 1 cancelled
			# (HP_MPI4_HALVES), 5 pending cases at 2 ranks
			python3 "$SRC/tests/mpi/check_mpi.py" calls "$T/p.json" MPI_Allreduce_c=$np MPI_Bcast_c=$np \
				MPI_Allgather_c=$np MPI_Scan_c=$np MPI_Gather_c=$np MPI_Iallreduce_c=$np MPI_Isendrecv=$((3 * np + 2 + 5 * (np == 2))) ||
				fail "mpi4: calls not counted ($np ranks)"
		fi
		echo "ok: mpi4 (MPI-4 point to point), $np ranks, --compensate $comp"
	done
done

# MPI 4's Sessions model alone (no MPI_Init): the wrappers, which start at
# MPI_Init, pass the calls to MPI; the output is the plain run's, and rank 0
# says once that the MPI calls are not profiled
$MPIRUN -np 3 "$B/tests/bin/mpi4" sessions 2> "$T/err" | sort > "$T/plain" || { cat "$T/err"; fail "plain mpi4 sessions"; }
grep -q "^session rank 2 of 3: got 1 sum 3$" "$T/plain" || { cat "$T/plain"; fail "mpi4 sessions: the plain run"; }
rm -rf "$T/p"
$MPIRUN -np 3 "$H" run -q -o "$T/p" -- "$B/tests/bin/mpi4" sessions 2> "$T/err" | sort > "$T/out" ||
	{ cat "$T/err"; fail "mpi4 sessions under hyprof"; }
cmp -s "$T/plain" "$T/out" || { diff "$T/plain" "$T/out"; fail "mpi4 sessions prints differently under hyprof"; }
[ "$(grep -c "MPI Sessions without MPI_Init: this program's MPI calls are not profiled" "$T/err")" = 1 ] ||
	{ cat "$T/err"; fail "mpi4 sessions: want one line saying the MPI calls are not profiled"; }
echo "ok: mpi4 sessions (the Sessions model alone: not profiled, said once)"

# More than INT_MAX elements in one message (2^31 + 15 chars, 4.3 GB for the
# two ranks): the count and the data arrive, the message carries its
# piggyback, and the statistics count its bytes
rm -rf "$T/p"
$MPIRUN -np 2 "$H" run -q --compensate parallel -o "$T/p" -- "$B/tests/bin/mpi4" big > "$T/out" 2> "$T/err" ||
	{ tail -20 "$T/err"; fail "mpi4 big under hyprof"; }
grep -q "^rank 1: big: count 2147483663 first a last z$" "$T/out" || { grep big "$T/out"; fail "mpi4 big: the message"; }
"$H" report --json "$T/p" > "$T/p.json" 2> "$T/rep.err" || { cat "$T/rep.err"; fail "report of mpi4 big"; }
python3 "$SRC/tests/mpi/check_mpi.py" untracked "$T/p.json" || fail "mpi4 big: a piggyback missing"
python3 - "$T/p.json" <<'EOF' || fail "mpi4 big: the statistics"
import json, sys
big = [s for s in json.load(open(sys.argv[1]))["mpi_sites"]
       if s["function"] in ("MPI_Send_c", "MPI_Recv_c") and s["bytes"] == 2147483663]
assert len(big) == 2, "want MPI_Send_c and MPI_Recv_c sites of 2147483663 bytes, got %r" % big
EOF
echo "ok: mpi4 big (2^31 + 15 chars in one message)"

# MPI_THREAD_MULTIPLE: point to point (mpi_threads) and non-blocking
# collectives (mpi_threads_icoll) from several threads, the same results
for prog in "mpi_threads 150 2" "mpi_threads_icoll 200 3"; do
	set -- $prog
	$MPIRUN -np $3 "$B/tests/bin/$1" $2 2> "$T/err" | sort > "$T/plain" || { cat "$T/err"; fail "plain $1"; }
	grep -q "^skip" "$T/plain" && { echo "skip: $1: $(cat "$T/plain")"; continue; }
	rm -rf "$T/p"
	$MPIRUN -np $3 "$H" run -q --mode measured --compensate parallel -o "$T/p" -- "$B/tests/bin/$1" $2 2> "$T/err" |
		sort > "$T/out" || { tail -20 "$T/err"; fail "$1 under hyprof"; }
	[ -s "$T/plain" ] && cmp -s "$T/plain" "$T/out" || { diff "$T/plain" "$T/out" | head; fail "$1 prints differently under hyprof"; }
	echo "ok: $1 (MPI_THREAD_MULTIPLE), $3 ranks"
done

# A PMPI tool beside hyprof (e2e.sh pmpitool): it sees every MPI_Send and
# MPI_Recv and its MPI_Finalize prints them, as in the plain run
$MPIRUN -np 3 "$B/tests/bin/mpi_pmpi_app_linked" 2> "$T/err" | sort > "$T/plain" || { cat "$T/err"; fail "plain mpi_pmpi_app_linked"; }
grep -q "^tool: rank 1 MPI_Send 6 MPI_Recv 0$" "$T/plain" || { cat "$T/plain"; fail "mpi_pmpi_app_linked: the plain run"; }
rm -rf "$T/p"
$MPIRUN -np 3 "$H" run -q --compensate parallel -o "$T/p" -- "$B/tests/bin/mpi_pmpi_app_linked" 2> "$T/err" | sort > "$T/out" ||
	{ cat "$T/err"; fail "mpi_pmpi_app_linked under hyprof"; }
cmp -s "$T/plain" "$T/out" || { diff "$T/plain" "$T/out"; fail "the PMPI tool beside hyprof prints differently"; }
# the tool is libmpi_pmpi_tool.so, listed before libmpich: the launcher
# once took its name for Open MPI's bindings and left the wrappers out
grep "MPI calls are not profiled" "$T/err" && fail "mpi_pmpi_app_linked: MPICH not recognised beside libmpi_pmpi_tool.so"
"$H" report --json "$T/p" > "$T/p.json" || fail "report of mpi_pmpi_app_linked"
python3 "$SRC/tests/mpi/check_mpi.py" calls "$T/p.json" MPI_Send=12 MPI_Recv=12 || fail "mpi_pmpi_app_linked: hyprof's counts"
echo "ok: a PMPI tool beside hyprof"

# Fortran: MPICH's bindings (libmpichfort) call the C MPI_ functions, so the
# C wrappers see Fortran calls; the same program, same output, piggybacked.
if command -v mpif90.mpich > /dev/null; then
	mpif90.mpich -cpp -O1 "$SRC/tests/mpi/fortran_usempi.f90" -o "$T/fu" > "$T/fc.log" 2>&1 ||
		{ cat "$T/fc.log"; fail "mpif90.mpich fortran_usempi.f90"; }
	$MPIRUN -np 2 "$T/fu" 2> "$T/err" | sort > "$T/plain" || { cat "$T/err"; fail "plain Fortran run"; }
	[ -s "$T/plain" ] || fail "the Fortran program printed nothing"
	rm -rf "$T/p"
	$MPIRUN -np 2 "$H" run -q --compensate parallel -o "$T/p" -- "$T/fu" 2> "$T/err" | sort > "$T/out" ||
		{ cat "$T/err"; fail "Fortran run under hyprof"; }
	cmp -s "$T/plain" "$T/out" || { diff "$T/plain" "$T/out" | head; fail "the Fortran program prints differently under hyprof"; }
	"$H" report --json "$T/p" > "$T/p.json" || fail "report of the Fortran run"
	python3 "$SRC/tests/mpi/check_mpi.py" applied "$T/p.json" 2 || fail "Fortran messages without a piggyback"
	echo "ok: Fortran (use mpi) through MPICH's bindings"
fi

rm -rf "$T/p"
$MPIRUN -np 2 "$H" run -q --mode measured -o "$T/p" -- "$B/tests/bin/mpi_pi" 400000 > "$T/out" 2> "$T/err" ||
	{ cat "$T/err"; fail "mpi_pi under hyprof"; }
grep -q "^pi 3.14" "$T/out" || fail "mpi_pi: $(cat "$T/out")"
"$H" report --json "$T/p" > "$T/p.json" || fail "report of mpi_pi"
python3 - "$T/p.json" <<'EOF' || fail "mpi_pi: parallel compensation under MPICH"
import json, sys
r = {x["rank"]: x for x in json.load(open(sys.argv[1]))["ranks"]}
m = r[0]
print("master: wall raw %.4f s, local %.4f s, parallel %.4f s" % (m["wall_raw"], m["wall_local"], m["wall_parallel"]))
assert m["wall_parallel"] < m["wall_raw"], "the workers' delay did not reach the master"
EOF
# MPI_Abort: hydra kills the other ranks with SIGKILL; the aborting rank
# wrote its profile first
rm -rf "$T/a"
$MPIRUN -np 2 "$H" run -o "$T/a" -- "$B/tests/bin/mpi_abort" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { cat "$T/err"; fail "mpi_abort: exit $rc (want MPI_Abort's failure, no hang)"; }
ls "$T/a"/mpi_abort.00001.*.hyp > /dev/null 2>&1 || { cat "$T/err"; fail "the aborting rank wrote no profile"; }
"$H" report "$T/a" > /dev/null || fail "report of the aborted job"
echo "ok: MPI_Abort leaves the aborting rank's profile"
echo "PASS mpich"
