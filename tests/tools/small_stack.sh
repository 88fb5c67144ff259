#!/bin/sh
# tests/tools/small_stack.sh - the hyprof command under a small stack limit
# (`ulimit -s 64`), where a small program runs: `hyprof run` runs it with the
# same output, exit status and limit, and `info`, `report` and `export` work.
# They used to die of SIGSEGV (64 KiB of buffers on the stack) before
# saying anything.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
command -v prlimit >/dev/null || { echo "skip: prlimit (util-linux) is needed"; exit 77; }
H=$HYPROF_BIN
T=$(mktemp -d /tmp/hyprof-stack.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
small() { prlimit --stack=65536 "$@"; }
# expect DESCRIPTION WANT -- command...: exit status WANT
expect() {
	d=$1; want=$2; shift 3
	"$@" >"$T/out" 2>"$T/err"
	st=$?
	[ "$st" = "$want" ] || { echo "FAIL: $d: exit $st, want $want"; cat "$T/err"; fail=$((fail + 1)); }
}
# the same output and status as alone, and the limit it was given
alone=$(small sh -c 'ulimit -s; exit 3'; echo "status $?")
got=$(small "$H" run -q -o "$T/p" -- sh -c 'ulimit -s; exit 3'; echo "status $?")
[ "$alone" = "64
status 3" ] || { echo "FAIL: alone under a 64 KiB stack: '$alone'"; fail=$((fail + 1)); }
[ "$got" = "$alone" ] || { echo "FAIL: hyprof run under a 64 KiB stack: '$got', alone '$alone'"; fail=$((fail + 1)); }
expect "info" 0 -- small "$H" info
expect "report" 0 -- small "$H" report "$T/p"
expect "report --json" 0 -- small "$H" report --json "$T/p"
expect "export folded" 0 -- small "$H" export --format folded -o "$T/f.txt" "$T/p"
# an error still exits 1 with its message
expect "report of nothing" 1 -- small "$H" report "$T/none"
grep -q "hyprof" "$T/err" || { echo "FAIL: report of nothing: no message"; fail=$((fail + 1)); }
[ $fail = 0 ] && echo "PASS small_stack" || echo "FAIL small_stack: $fail"
[ $fail = 0 ]
