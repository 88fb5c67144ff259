#!/bin/sh
# tests/tools/damaged.sh - profiles damaged behind a valid checksum (found by
# fuzzing the readers): every command reading one must end, by itself, with
# exit 0 (a benign damage still gives a report) or exit 1 and one line on
# stderr; never a signal, a hang or a sanitizer report.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_SRC:?}"
H=$HYPROF_BIN
D="python3 $HYPROF_SRC/tests/tools/damage.py"
T=$(mktemp -d /tmp/hyprof-damaged.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# run DESC -- command: ends within 60 s (a hang does not), exit 0, or exit 1
# with one line on stderr
run() {
	desc=$1; shift 2
	timeout -s KILL 60 "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	lines=$(wc -l <"$T/err")
	if [ "$rc" -gt 1 ] || { [ "$rc" -eq 1 ] && [ "$lines" -ne 1 ]; } ||
	   grep -q "runtime error\|Sanitizer" "$T/err"; then
		echo "FAIL: $desc: exit $rc, $lines stderr lines (137 = killed after 60 s)"
		echo "  command: $*"
		sed 's/^/  stderr: /' "$T/err" | head -5
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

# case NAME SCENARIO OP...: hp_synth's SCENARIO, its first file damaged by
# damage.py's OPs, through every reader
case_() {
	name=$1; scen=$2; shift 2
	dir="$T/$name"
	"$HYPROF_TEST_BIN/hp_synth" write "$scen" "$dir" || { echo "FAIL: hp_synth write $scen"; exit 1; }
	f=$(ls "$dir"/*.hyp | head -1)
	$D "$f" "$@" || { echo "FAIL: damage.py $name"; exit 1; }
	run "$name: report" -- "$H" report "$dir"
	run "$name: report --json --ranks --threads" -- "$H" report --json --ranks --threads "$dir"
	for fmt in pprof folded speedscope tau svg; do
		run "$name: export $fmt" -- "$H" export --format "$fmt" -o "$T/out.$fmt" "$dir"
	done
	run "$name: report --html" -- "$H" report --html -o "$T/out.html" "$dir"
}

# MPI_SITES (mpiwrap/records.h): record arrays whose count * size products
# wrap 64 bits in their sum (4 x 2^31 x 2^31 = 2^64) read far past the
# section; a record size 0 with 2^32-1 records fits any section and loops
MPI="addkv 16 rank=0 pid=4000"
case_ sites_wrap mpi $MPI add 17 12I 1 0x80000000 0x80000000 0x80000000 0x80000000 80 \
	0x80000000 0x80000000 0x80000000 0x80000000 0 0
case_ sites_size0 mpi $MPI add 17 12I 1 0 64 80 24 80 0xffffffff 0 0 0 0 0

# has NAME TEXT: report --json --compact of case NAME holds TEXT
has() {
	if "$H" report --json --compact "$T/$1" 2>/dev/null | grep -q -F -- "$2"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1: report --json lacks '$2'"
		fail=$((fail + 1))
	fi
}

# a matrix record from rank INT_MAX, which no world has: maxr + 1 overflowed
# (matrix nranks -2147483648, an empty matrix in the text); it is skipped
case_ mat_intmax mpi $MPI add 17 12I2iQQ 1 168 64 80 24 80 0 0 0 1 0 0 0x7fffffff 0 1 8
has mat_intmax '"mpi_matrix":{"nranks":1,'

# no THREAD section (only the merged tree): the speedscope export freed the
# pointer one past its group array (invalid free; valgrind, ASan)
case_ no_threads hybrid drop 4
if command -v valgrind >/dev/null; then
	run "no_threads: export speedscope under valgrind" -- valgrind -q --error-exitcode=3 \
		"$H" export --format speedscope -o "$T/out.speedscope" "$T/no_threads"
else
	echo "note: valgrind not installed, no_threads checked without it"
fi

# one path of 60000 nodes (the runtime writes at most 4096 probe frames):
# the model's recursive walks overflowed the stack (SIGSEGV); nodes deeper
# than tools/model.c MODEL_MAX_DEPTH are left out.  (--compact: indented
# JSON of a path that deep is gigabytes.)
for tree in sample probe; do
	dir="$T/deep_$tree"
	"$HYPROF_TEST_BIN/hp_synth" write hybrid "$dir" || { echo "FAIL: hp_synth write hybrid"; exit 1; }
	$D "$dir"/*.hyp chain 4 60000 $tree || { echo "FAIL: damage.py chain"; exit 1; }
	run "deep_$tree: report" -- "$H" report "$dir"
	run "deep_$tree: report --json --compact" -- "$H" report --json --compact "$dir"
	run "deep_$tree: export folded" -- "$H" export --format folded -o "$T/out.folded" "$dir"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
