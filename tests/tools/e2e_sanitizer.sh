#!/bin/sh
# tests/tools/e2e_sanitizer.sh - `hyprof run` of hp_split built with
# -fsanitize=address (hp_split_asan) and -fsanitize=thread (hp_split_tsan).
# A sanitizer runtime must be the first object of the process, and
# LD_PRELOAD objects come before the program's own: ASan aborts otherwise
# ("ASan runtime does not come first in initial library list"), TSan runs
# but hyprof's samples mostly never arrive.  hyprof run must put the runtime
# ahead of libhyprof.so, so the program runs as it does alone (exit 0, its
# output) and its CPU time is sampled (at least half of it: the rest is
# start-up and noise).  ASan also with libasan already in the user's
# LD_PRELOAD.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
T=$(mktemp -d /tmp/hyprof-san.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
ran=0
check() { # check NAME: the run in $T/NAME of the program whose output is $T/$2.alone
	n=$1
	if [ "$st" -ne 0 ]; then
		echo "FAIL: $n: hyprof run exit $st, want 0"; sed 's/^/  stderr: /' "$T/$n.err" | head -5
		fail=1; return
	fi
	if ! cmp -s "$T/$2.alone" "$T/$n.out"; then
		echo "FAIL: $n: the program's output changed: $(head -c 200 "$T/$n.out")"; fail=1
	fi
	if grep -q "does not come first" "$T/$n.err"; then
		echo "FAIL: $n: the sanitizer refused the library order"; fail=1
	fi
	"$HYPROF_BIN" report --json "$T/$n" >"$T/$n.json" && python3 - "$n" "$T/$n.json" <<'PY' || fail=1
import json, sys
n, d = sys.argv[1], json.load(open(sys.argv[2]))
cpu = d["cost"]["cpu_time"]
heavy = any(f["name"] == "heavy" for f in d["functions"])
print(f"{n}: {d['samples']} samples, {d['total']:.3f} s sampled of {cpu:.3f} s CPU, heavy {heavy}")
if not heavy or d["total"] < 0.5 * cpu:
    print(f"FAIL: {n}: want heavy and at least half the CPU time sampled")
    sys.exit(1)
PY
}
for san in asan tsan; do
	P="$HYPROF_TEST_BIN/hp_split_$san"
	if [ ! -x "$P" ]; then
		echo "note: no hp_split_$san (the compiler cannot build it)"
		continue
	fi
	if ! "$P" 1000000 >"$T/$san.alone" 2>"$T/$san.alone.err"; then
		echo "note: hp_split_$san does not run alone here: $(head -c 300 "$T/$san.alone.err")"
		continue
	fi
	ran=$((ran + 1))
	"$HYPROF_BIN" run -q --freq 1000 -o "$T/$san" -- "$P" 1000000 >"$T/$san.out" 2>"$T/$san.err"
	st=$?; check $san $san
	rt=$(LD_TRACE_LOADED_OBJECTS=1 "$P" | awk '/lib'$san'/ { print $3; exit }')
	if [ "$san" = asan ] && [ -n "$rt" ]; then
		LD_PRELOAD="$rt" "$HYPROF_BIN" run -q --freq 1000 -o "$T/user" -- "$P" 1000000 >"$T/user.out" 2>"$T/user.err"
		st=$?; check user $san
	fi
done
if [ $ran -eq 0 ]; then
	echo "SKIP: no sanitizer build of hp_split runs here"
	exit 77
fi
[ $fail -eq 0 ] && echo "e2e_sanitizer: ok" || echo "e2e_sanitizer: failed"
exit $fail
