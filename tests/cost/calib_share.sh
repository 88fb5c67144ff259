#!/bin/sh
# tests/cost/calib_share.sh - one start-up calibration per host for the
# processes of a run (calib/calib_share.c).
#
# A shell that runs a program four times: the first process to calibrate
# leaves its figures in the output directory and the others use them (their
# CALIB method names that process); HYPROF_CALIBRATE_SHARE=0 has each
# calibrate; a damaged file, or one made with another injected probe delay,
# is never used; the shared figures are the calibrating process's own.
. "$(dirname "$0")/common.sh"
KV=$HYPROF_TEST_BIN/hp_kv
P=$HYPROF_TEST_BIN/split
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run4() { # DIR [VAR=value...]
	d=$1; shift
	env "$@" HYPROF_QUIET=1 "$HYPROF_BIN" run -o "$d" -- sh -c "$P 20; $P 20; $P 20; $P 20" >/dev/null ||
		fail "hyprof run ($*) failed"
}
method() { "$KV" "$1" calib | sed -n 's/^method=//p'; }
# methods DIR: one line per profile, "startup" or "shared <pid>"
methods() {
	for f in "$1"/*.hyp; do
		m=$(method "$f")
		case $m in
		startup) echo startup ;;
		"startup, shared (pid "*) echo "shared $(echo "$m" | sed 's/.*pid \([0-9]*\).*/\1/')" ;;
		*) echo "other: $m" ;;
		esac
	done
}

run4 "$out/a"
n_own=$(methods "$out/a" | grep -c '^startup$')
n_shared=$(methods "$out/a" | grep -c '^shared ')
if [ "$n_own" -eq 1 ] && [ "$n_shared" -eq 4 ]; then
	echo "ok   5 processes: 1 calibrated, 4 used its figures"
else
	fail "5 processes: $n_own calibrated, $n_shared shared ($(methods "$out/a" | tr '\n' ';'))"
fi
# the shared figures are the calibrating process's own
owner=$(methods "$out/a" | sed -n 's/^shared //p' | sort -u)
own_file=$(ls "$out/a"/*."$owner".hyp 2>/dev/null | head -1)
if [ -n "$own_file" ] && [ "$(method "$own_file")" = startup ]; then
	want=$("$KV" "$own_file" calib | grep -E '^(tsc_hz|timed_probe_ns.median|sample_kernel_us.median)=')
	for f in "$out/a"/*.hyp; do
		got=$("$KV" "$f" calib | grep -E '^(tsc_hz|timed_probe_ns.median|sample_kernel_us.median)=')
		[ "$got" = "$want" ] || fail "$(basename "$f"): figures differ from pid $owner's: $got"
	done
	echo "ok   the 4 carry pid $owner's tsc_hz, probe and sample costs"
else
	fail "the shared figures name pid '$owner', whose profile did not calibrate ($own_file)"
fi

run4 "$out/b" HYPROF_CALIBRATE_SHARE=0
n_own=$(methods "$out/b" | grep -c '^startup$')
[ "$n_own" -eq 5 ] && echo "ok   HYPROF_CALIBRATE_SHARE=0: each of 5 calibrated" ||
	fail "HYPROF_CALIBRATE_SHARE=0: $n_own of 5 calibrated"

# a damaged file: ignored, replaced by the next calibration
mkdir -p "$out/c"
for f in "$out/a"/.calib.*; do head -c 300 "$f" >"$out/c/$(basename "$f")"; done
run4 "$out/c"
[ "$(methods "$out/c" | grep -c '^startup$')" -eq 1 ] && echo "ok   a truncated file is not used" ||
	fail "truncated file: $(methods "$out/c" | tr '\n' ';')"
mkdir -p "$out/d"
for f in "$out/a"/.calib.*; do
	python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[200:260]=b'\xff'*60; open(sys.argv[2],'wb').write(d)" \
		"$f" "$out/d/$(basename "$f")"
done
run4 "$out/d"
[ "$(methods "$out/d" | grep -c '^startup$')" -eq 1 ] && echo "ok   a corrupted file is not used" ||
	fail "corrupted file: $(methods "$out/d" | tr '\n' ';')"

# another injected probe delay: another calibration
mkdir -p "$out/e"
cp "$out/a"/.calib.* "$out/e/"
run4 "$out/e" HYPROF_TEST_PROBE_DELAY_NS=100
[ "$(methods "$out/e" | grep -c '^startup$')" -eq 1 ] && echo "ok   a file made without the injected delay is not used with it" ||
	fail "injected delay: $(methods "$out/e" | tr '\n' ';')"
exit $((fails > 0))
