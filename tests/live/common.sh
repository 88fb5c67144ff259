# tests/live/common.sh - what the live tests' scripts share.  Source it with
# NAME set (the test's name: the scratch directory and the last line use it).
# It skips (exit 77) when the workload or the runtime is not built, and gives:
#   $T       a scratch directory, removed at exit
#   $PIDS    pids killed at exit (append to it)
#   $SPIN    the workload (spin.c); $HERE, the scripts' directory
#   fail/ok  one line each; fail counts
#   finish   the last line, and exit 1 if anything failed
# A script may define cleanup_more: it runs first at exit.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}" "${NAME:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
SPIN=$HYPROF_TEST_BIN/hp_live_spin
[ -x "$SPIN" ] || { echo "SKIP: $SPIN is not built"; exit 77; }
[ -r "$HYPROF_LIB/libhyprof.so" ] || { echo "SKIP: libhyprof.so is not built"; exit 77; }
T=$(mktemp -d "/tmp/hyprof-live-$NAME.XXXXXX")
PIDS=""
cleanup() {
	if type cleanup_more >/dev/null 2>&1; then cleanup_more; fi
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
finish() {
	if [ $failures -ne 0 ]; then
		echo "live.$NAME: $failures failed"
		exit 1
	fi
	echo "live.$NAME: all passed"
}
