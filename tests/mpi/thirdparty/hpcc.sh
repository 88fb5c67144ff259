#!/bin/sh
# tests/mpi/thirdparty/hpcc.sh BUILD_DIR - HPC Challenge (Debian package
# `hpcc`: HPL, PTRANS, RandomAccess, STREAM, FFT, DGEMM, latency/bandwidth,
# each self-verifying) on 2 ranks, plain and under hyprof in measured mode
# with --compensate parallel (every message carries the piggyback) and in
# hybrid mode.  Passes when every run exits 0, every verification line of
# every run passes, the results that do not depend on timing are identical
# to the plain run's, and `hyprof report` shows an MPI section with calls
# and a matrix.  Exit 77 (SKIP) without hpcc or mpirun.  About 15 to 30 s.
set -u
B=${1:?usage: hpcc.sh BUILD_DIR}
B=$(cd "$B" && pwd) || exit 1
H=$B/bin/hyprof
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v hpcc > /dev/null || skip "hpcc is not installed (apt-get install hpcc)"
command -v mpirun > /dev/null || skip "no mpirun"
command -v python3 > /dev/null || skip "no python3"
[ -x "$H" ] || fail "no $H"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d /tmp/hyprof-hpcc.XXXXXX)
trap 'rm -rf "$T"' EXIT

# A tiny problem: HPL N=500 NB=64 on a 1x2 grid; the other tests size
# themselves from HPL's memory.
inf() {
	cat <<'INF'
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
500          Ns
1            # of NBs
64           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
INF
}

# The verification of one hpccoutf.txt: every check present and passed.
verify() {
	f=$1
	[ -s "$f" ] || { echo "no output $f"; return 1; }
	if grep -nE 'FAILED|\(failed\)|Failed Validation' "$f"; then return 1; fi
	grep -q 'Success=1' "$f" || { echo "no Success=1"; return 1; }
	# HPL's residual check and PTRANS's (5 repetitions x WALL/CPU)
	grep -qE '^\|\|Ax-b\|\|.*PASSED' "$f" || { echo "HPL not PASSED"; return 1; }
	[ "$(grep -cE '^(WALL|CPU) .* PASSED ' "$f")" -ge 2 ] || { echo "PTRANS not PASSED"; return 1; }
	# RandomAccess (MPI, Star; LCG and not): 4 lines, all passed, 0 errors
	[ "$(grep -cE '^Found 0 errors in [0-9]+ locations \(passed\)' "$f")" -eq 4 ] ||
		{ echo "RandomAccess verification"; return 1; }
	grep -q 'Solution Validates' "$f" || { echo "STREAM not validated"; return 1; }
	if grep -nE '^Node\(s\) with error [^0]' "$f"; then return 1; fi
	return 0
}

# What must not change with hyprof: verification lines and the results that
# do not depend on timing (residuals, norms, errors, sizes).  PTRANS's CPU
# lines are left out: hpcc prints one only when the CPU clock saw the
# transpose take time (a plain run printed 4 of 5 now and then).
facts() {
	grep -E 'PASSED|FAILED|Found [0-9]+ errors|Node\(s\) with error|Solution Validates|max\(\|x-x0\|\)|^\|\|Ax-b\|\|' "$1" |
		grep -vE '^CPU +[0-9]' |
		sed -E 's/^(WALL|CPU) +([0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+) +[0-9.]+ +(PASSED|FAILED) +[0-9.]+ +([0-9.]+).*/\1 \2 \3 \4/'
	grep -E '^(Success|HPL_(RnormI|Anorm1|AnormI|Xnorm1|XnormI|BnormI|N|NB|nprow|npcol)|PTRANS_(residual|n|nb|nprow|npcol)|.*_Errors|.*_ErrorsFraction|.*_ExeUpdates|MPIFFT_maxErr|MPIFFT_N|FFT_N|DGEMM_N|CommWorldProcs|STREAM_VectorSize|.*RandomAccess.*_N)=' "$1"
}

# run NAME [hyprof run options]: hpcc in $T/NAME, plain when no option is given
run() {
	name=$1
	shift
	mkdir "$T/$name" || fail "mkdir $T/$name"
	inf > "$T/$name/hpccinf.txt"
	if [ $# -eq 0 ]; then
		(cd "$T/$name" && timeout 120 mpirun --oversubscribe -np 2 hpcc > out 2> err)
	else
		(cd "$T/$name" && timeout 120 mpirun --oversubscribe -np 2 "$H" run -q -o prof "$@" -- hpcc > out 2> err)
	fi
	rc=$?
	[ $rc -eq 0 ] || { cat "$T/$name/err"; fail "$name: exit $rc"; }
	verify "$T/$name/hpccoutf.txt" || fail "$name: verification"
	echo "ok: $name verified"
}

# report NAME COMPENSATE PBBYTES: the MPI section of the run's report (- -: any compensation)
report() {
	d=$T/$1/prof
	"$H" report "$d" > "$d.txt" 2> "$d.err" || { cat "$d.err"; fail "$1: hyprof report"; }
	grep -q '^MPI: 2 ranks' "$d.txt" || fail "$1: no MPI section in the report"
	grep -q '^Point-to-point matrix' "$d.txt" || fail "$1: no matrix in the report"
	"$H" report --json "$d" > "$d.json" 2> "$d.err" || { cat "$d.err"; fail "$1: hyprof report --json"; }
	python3 - "$d.json" "$2" "$3" <<'PY' || fail "$1: MPI section of the JSON report"
import json, sys
j = json.load(open(sys.argv[1]))
m = j.get('mpi') or {}
ok = True
def need(cond, what):
    global ok
    if not cond:
        print('report:', what); ok = False
need(m.get('nranks') == 2, 'mpi.nranks %r' % m.get('nranks'))
if sys.argv[2] != '-':
    need(m.get('compensate') == sys.argv[2], 'compensate %r' % m.get('compensate'))
    need(m.get('piggyback_bytes') == int(sys.argv[3]), 'piggyback_bytes %r' % m.get('piggyback_bytes'))
ranks = j.get('ranks') or []
need(len(ranks) == 2 and all(r.get('mpi_calls', 0) > 0 for r in ranks), 'ranks %r' % ranks)
calls = {}
for s in j.get('mpi_sites') or []:
    calls[s['function']] = calls.get(s['function'], 0) + s['calls']
for f in ('MPI_Send', 'MPI_Recv', 'MPI_Sendrecv', 'MPI_Isend', 'MPI_Irecv', 'MPI_Waitall', 'MPI_Allreduce', 'MPI_Bcast', 'MPI_Alltoall'):
    need(calls.get(f, 0) > 0, 'no calls of %s' % f)
pairs = (j.get('mpi_matrix') or {}).get('pairs') or []
need(sorted((p['from'], p['to']) for p in pairs) == [(0, 1), (1, 0)] and all(p['messages'] > 0 and p['bytes'] > 0 for p in pairs),
     'matrix %r' % pairs)
sys.exit(0 if ok else 1)
PY
	echo "ok: $1 report has the MPI section"
}

run plain
facts "$T/plain/hpccoutf.txt" > "$T/plain.facts"
run measured --mode measured --compensate parallel
report measured parallel 16
run hybrid --mode hybrid
report hybrid - -
for r in measured hybrid; do
	facts "$T/$r/hpccoutf.txt" > "$T/$r.facts"
	diff "$T/plain.facts" "$T/$r.facts" || fail "$r: results differ from the plain run's"
done
echo "PASS: hpcc verified plain, measured (--compensate parallel) and hybrid, same results"
exit 0
