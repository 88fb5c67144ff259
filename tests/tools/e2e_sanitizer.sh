#!/bin/sh
# tests/tools/e2e_sanitizer.sh - `hyprof run` of a program built with
# -fsanitize=address (hp_split_asan).  ASan aborts a process whose first
# object is not its runtime ("ASan runtime does not come first in initial
# library list"), and LD_PRELOAD objects come before the program's own:
# hyprof run must put libasan ahead of libhyprof.so, so the program runs as
# it does alone (exit 0, its output) and is profiled.  Also with libasan
# already in the user's LD_PRELOAD.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
P="$HYPROF_TEST_BIN/hp_split_asan"
if [ ! -x "$P" ]; then
	echo "SKIP: no hp_split_asan (the compiler cannot build with -fsanitize=address)"
	exit 77
fi
T=$(mktemp -d /tmp/hyprof-san.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
"$P" 200000 >"$T/alone.out" 2>"$T/alone.err" || {
	echo "SKIP: hp_split_asan does not run alone here: $(head -c 300 "$T/alone.err")"
	exit 77
}
check() { # check NAME: the run in $T/NAME
	n=$1
	if [ "$st" -ne 0 ]; then
		echo "FAIL: $n: hyprof run exit $st, want 0"; sed 's/^/  stderr: /' "$T/$n.err" | head -5
		fail=1; return
	fi
	if ! cmp -s "$T/alone.out" "$T/$n.out"; then
		echo "FAIL: $n: the program's output changed: $(head -c 200 "$T/$n.out")"; fail=1
	fi
	if grep -q "does not come first" "$T/$n.err"; then
		echo "FAIL: $n: ASan refused the library order"; fail=1
	fi
	s=$("$HYPROF_BIN" report --json "$T/$n" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["samples"], any(f["name"] == "heavy" for f in d["functions"]))')
	case "$s" in
	0\ *|*False) echo "FAIL: $n: profile has samples/heavy: $s"; fail=1 ;;
	*) echo "$n: ok (samples, heavy: $s)" ;;
	esac
}
"$HYPROF_BIN" run -q --freq 1000 -o "$T/plain" -- "$P" 200000 >"$T/plain.out" 2>"$T/plain.err"
st=$?; check plain
asan=$(LD_TRACE_LOADED_OBJECTS=1 "$P" | awk '/libasan/ { print $3; exit }')
if [ -n "$asan" ]; then
	LD_PRELOAD="$asan" "$HYPROF_BIN" run -q --freq 1000 -o "$T/user" -- "$P" 200000 >"$T/user.out" 2>"$T/user.err"
	st=$?; check user
fi
[ $fail -eq 0 ] && echo "e2e_sanitizer: ok" || echo "e2e_sanitizer: failed"
exit $fail
