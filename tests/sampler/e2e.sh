#!/bin/sh
# tests/sampler/e2e.sh CASE - end-to-end tests of the runtime and the sampler.
#
# Each case runs small programs (tests/sampler/*.c) with libhyprof.so
# preloaded and HYPROF_* set, the way `hyprof run` does, reads the profiles
# back with `hyprof report --json` and checks facts with check.py: shares of
# call paths known by construction (within 3 percentage points), which
# functions appear in which process's profile, exit statuses, partial marks.
# Exit 0 pass, 1 fail, 77 skipped (the reason is printed).
set -u
CASE=${1:?usage: e2e.sh CASE}
T=${HYPROF_TEST_BIN:?}
LIB=${HYPROF_LIB:?}/libhyprof.so
BIN=${HYPROF_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/hyprof-sampler-XXXXXX)
trap 'rm -rf "$W"' EXIT
unset HYPROF_OUTPUT HYPROF_EVENT HYPROF_PERIOD HYPROF_FREQ HYPROF_UNWIND HYPROF_SIGNAL HYPROF_QUIET
fails=0

check() { python3 "$HERE/check.py" "$@" || fails=$((fails + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# prof DIR [VAR=value...] PROGRAM ARGS: run with the runtime preloaded.
prof() { d=$1; shift; env HYPROF_OUTPUT="$d" LD_PRELOAD="$LIB" "$@"; }
# report PATH OUT.json
report() { "$BIN" report --json "$1" >"$2" 2>"$2.err" || { cat "$2.err"; fail "hyprof report $1"; }; }
nfiles() { ls "$1"/*.hyp 2>/dev/null | wc -l; }
# The profile in DIR that has (or lacks) function NAME, via the report.
file_with() {
	for f in "$1"/*.hyp; do
		"$BIN" report --json "$f" >"$f.json" 2>/dev/null || continue
		if python3 "$HERE/check.py" func "$f.json" "$2" >/dev/null; then echo "$f.json"; return; fi
	done
}
# status COMMAND...: run, print the exit status (128+N for signal N, as sh does).
status() { "$@"; echo $?; }

split_checks() { # REPORT [TOL]
	tol=${2:-3}
	check path "$1" main/a 60 "$tol"
	check path "$1" main/b 30 "$tol"
	check path "$1" main/c/d 10 "$tol"
}

case $CASE in
split)
	prof "$W/p" HYPROF_FREQ=1000 "$T/split" 1000 || fail "split exited $?"
	report "$W/p" "$W/r.json"
	split_checks "$W/r.json"
	check field "$W/r.json" source task-clock
	check field "$W/r.json" period 1000000
	check field "$W/r.json" unit ns
	check field "$W/r.json" processes 1
	check field "$W/r.json" threads 1
	check field "$W/r.json" partial false
	check ge "$W/r.json" samples 1000
	# Another signal and a period instead of a frequency.
	rm -rf "$W/p"
	prof "$W/p" HYPROF_SIGNAL=SIGRTMIN+5 HYPROF_PERIOD=2000000 "$T/split" 1000 || fail "split exited $?"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" period 2000000
	split_checks "$W/r.json"
	;;
stripped)
	# A program without symbols (strip --strip-all: .symtab gone, .eh_frame
	# kept as every loader needs it): each function is named by its start,
	# "[split_stripped+0x...]", from the unwind table.  Every such start must
	# be a function symbol of the unstripped program, and with the names put
	# back the split is the known one.
	command -v strip >/dev/null && command -v nm >/dev/null ||
		{ echo "skip: strip and nm (binutils) are needed"; exit 77; }
	strip --strip-all -o "$W/split_stripped" "$T/split" || fail "strip"
	nm "$T/split" >"$W/nm"
	prof "$W/p" HYPROF_FREQ=1000 "$W/split_stripped" 600 || fail "stripped split exited $?"
	report "$W/p" "$W/r.json"
	check nofunc "$W/r.json" a
	check symnames "$W/r.json" "$W/nm" split_stripped "$W/named.json"
	[ -s "$W/named.json" ] && split_checks "$W/named.json"
	;;
short_threads)
	# 400 threads of 3.7 ms each at 200 Hz (5 ms periods), then main for
	# as long: each part's share of the samples is its share of the CPU
	# time (a thread's first period is random; with a whole one the
	# threads got no sample at all).  8 points: ~300 samples each side.
	prof "$W/p" HP_TEST_CPU="$W/cpu" HYPROF_FREQ=200 "$T/short_threads" 400 3.7 ||
		fail "short_threads exited $?"
	report "$W/p" "$W/r.json"
	check cpu "$W/r.json" "$W/cpu" 8
	check ge "$W/r.json" samples 450
	;;
threads)
	# CPU time per thread, main idle: each thread's share of the samples
	# is its share of the CPU time it measured itself (HP_TEST_CPU), within
	# 5 points (3 sigma at 600 samples).  Not 2/3 and 1/3 of the steps: the
	# two threads run side by side on two vCPUs that may share a core or a
	# loaded host, then work1 alone runs faster (CI once measured 61/39).
	prof "$W/p" HP_TEST_CPU="$W/cpu" HYPROF_FREQ=1000 "$T/threads" 300 || fail "threads exited $?"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" threads 3
	check cpu "$W/r.json" "$W/cpu" 5
	check ge "$W/r.json" samples 600
	# Threads created with every signal blocked (liblzma's workers): the
	# sampling signal is unblocked on every sampled thread.
	rm -rf "$W/p" "$W/cpu"
	prof "$W/p" HP_TEST_CPU="$W/cpu" HYPROF_FREQ=1000 "$T/threads" 200 blocked ||
		fail "threads blocked exited $?"
	report "$W/p" "$W/r.json"
	check cpu "$W/r.json" "$W/cpu" 5
	check ge "$W/r.json" samples 400
	# Per-thread POSIX timers: each thread's own CPU clock.
	rm -rf "$W/p" "$W/cpu"
	prof "$W/p" HP_TEST_CPU="$W/cpu" HYPROF_EVENT=posix-timer HYPROF_FREQ=1000 "$T/threads" 500 ||
		fail "threads exited $?"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" source posix-timer
	check cpu "$W/r.json" "$W/cpu" 5
	;;
fork)
	for how in exit _exit; do
		rm -rf "$W/p"
		prof "$W/p" HYPROF_FREQ=1000 "$T/forker" 200 $how || fail "forker ($how) exited $?"
		[ "$(nfiles "$W/p")" -eq 2 ] || fail "forker ($how): $(nfiles "$W/p") profiles, want 2"
		parent=$(file_with "$W/p" parent_after)
		child=$(file_with "$W/p" child_work)
		if [ -z "$parent" ] || [ -z "$child" ] || [ "$parent" = "$child" ]; then
			fail "forker ($how): parent and child profiles not told apart ($parent, $child)"
			continue
		fi
		echo "fork ($how): parent $(basename "$parent"), child $(basename "$child")"
		check func "$parent" parent_before 40
		check func "$parent" parent_after 40
		check nofunc "$parent" child_work
		check func "$child" child_work 90
		check nofunc "$child" parent_before
		check nofunc "$child" parent_after
		# `--ranks` of the directory: one part per process without a rank
		# (the two were once one "Rank -1" part)
		"$BIN" report --json --ranks "$W/p" >"$W/ranks.json" 2>/dev/null || fail "report --ranks"
		python3 - "$W/ranks.json" <<'EOF' || fail "forker ($how): --ranks parts"
import json, sys
parts = json.load(open(sys.argv[1]))["per_rank"]
names = [sorted(f["name"] for f in p["functions"]) for p in parts]
print("--ranks parts:", [(p["rank"], p["pid"]) for p in parts])
ok = (len(parts) == 2 and all(p["rank"] == -1 for p in parts) and parts[0]["pid"] != parts[1]["pid"]
      and sum("child_work" in n for n in names) == 1 and sum("parent_after" in n for n in names) == 1
      and not any("child_work" in n and "parent_after" in n for n in names))
sys.exit(0 if ok else 1)
EOF
	done
	;;
sigprof)
	base=$("$T/sigprof" 500) || fail "sigprof alone failed"
	with=$(prof "$W/p" HYPROF_FREQ=1000 "$T/sigprof" 500) || fail "sigprof under hyprof failed: $with"
	echo "alone: $base; under hyprof: $with"
	b=$(echo "$base" | awk '{print $2}')
	h=$(echo "$with" | awk '{print $2}')
	# Its own profiler still counts its CPU time (same ticks within 30%).
	awk -v b="$b" -v h="$h" 'BEGIN { exit !(b > 0 && h >= 0.7 * b && h <= 1.3 * b) }' ||
		fail "SIGPROF ticks $h under hyprof vs $b alone"
	report "$W/p" "$W/r.json"
	check func "$W/r.json" profiled_work 90
	;;
dlopen)
	prof "$W/p" HYPROF_FREQ=1000 "$T/dlmain" "$T/libplug.so" 300 || fail "dlmain exited $?"
	report "$W/p" "$W/r.json"
	# The plugin was closed before exit: still resolved by name.
	check func "$W/r.json" plug_inner 70 libplug.so
	check path "$W/r.json" main/plug_work/plug_inner 75 4
	check path "$W/r.json" main/after_close 25 4
	;;
posix_timer)
	prof "$W/p" HYPROF_EVENT=posix-timer HYPROF_FREQ=1000 "$T/split" 2000 || fail "split exited $?"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" source posix-timer
	check field "$W/r.json" unit ns
	check ge "$W/r.json" samples 300
	split_checks "$W/r.json"
	;;
crash)
	# Each way of dying: the same status as without hyprof, a partial profile.
	for m in segv:139 abort:134 term:143; do
		mode=${m%%:*} want=${m#*:}
		alone=$(status "$T/crash" $mode 100 2>/dev/null)
		rm -rf "$W/p"
		got=$(status prof "$W/p" "$T/crash" $mode 100 2>"$W/err")
		cat "$W/err"
		[ "$alone" = "$want" ] || fail "crash $mode alone exits $alone, want $want"
		[ "$got" = "$alone" ] || fail "crash $mode under hyprof exits $got, alone $alone"
		report "$W/p" "$W/r.json"
		check field "$W/r.json" partial true
		check func "$W/r.json" crash_work 80
	done
	# Every descriptor the limit allows is the program's: the profile is
	# written all the same, above the soft limit for the moment (a POSIX
	# timer holds no descriptor that the exit could free; a crash frees none).
	for m in fds-exit:3:posix-timer fds-abort:134:task-clock; do
		mode=${m%%:*} want=${m#*:} ev=${want#*:} want=${want%%:*}
		rm -rf "$W/p"
		got=$(status prlimit --nofile=64:4096 env HYPROF_EVENT=$ev HYPROF_OUTPUT="$W/p" \
			LD_PRELOAD="$LIB" "$T/crash" $mode 100 2>"$W/err")
		cat "$W/err"
		[ "$got" = "$want" ] || fail "crash $mode under hyprof exits $got, want $want"
		[ "$(nfiles "$W/p")" = 1 ] || fail "crash $mode: no profile with every descriptor taken"
		report "$W/p" "$W/r.json"
		check func "$W/r.json" crash_work 80
	done
	# The program's own SIGSEGV handler recovers: hyprof writes nothing then,
	# and the profile at exit is complete.
	rm -rf "$W/p"
	got=$(status prof "$W/p" HYPROF_FREQ=1000 "$T/crash" handled 100)
	[ "$got" = 0 ] || fail "crash handled exits $got, want 0"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" partial false
	check func "$W/r.json" crash_work 40
	check func "$W/r.json" after_recovery 40
	# A handler for hyprof's own signal: one warning, sampling goes on.
	rm -rf "$W/p"
	got=$(status prof "$W/p" "$T/crash" sigrt 100 2>"$W/err")
	cat "$W/err"
	[ "$got" = 0 ] || fail "crash sigrt exits $got"
	[ "$(grep -c 'signal hyprof samples with' "$W/err")" = 1 ] || fail "no single warning for SIGRTMIN+3"
	# The SIGIO the kernel sends when the real-time signal queue is full
	# (O_ASYNC fallback) does not end a profiled program; a user's SIGIO
	# still does, as without hyprof.
	alone=$(status "$T/crash" sigio-kernel 10 2>/dev/null)
	[ "$alone" = 157 ] || fail "crash sigio-kernel alone exits $alone, want 157 (SIGIO)"
	rm -rf "$W/p"
	got=$(status prof "$W/p" "$T/crash" sigio-kernel 10 2>"$W/err")
	[ "$got" = 0 ] || fail "crash sigio-kernel under hyprof exits $got, want 0"
	grep -q 'SIGIO from the kernel' "$W/err" || fail "no line about the ignored SIGIO"
	got=$(status prof "$W/p" "$T/crash" sigio-user 10 2>/dev/null)
	[ "$got" = 157 ] || fail "crash sigio-user under hyprof exits $got, want 157"
	# Resetting it to SIG_DFL / SIG_IGN (git before each exec): no warning,
	# and sampling goes on.
	rm -rf "$W/p"
	got=$(status prof "$W/p" HYPROF_FREQ=1000 "$T/crash" sigrt-reset 100 2>"$W/err")
	[ "$got" = 0 ] || fail "crash sigrt-reset exits $got"
	! grep -q 'signal hyprof samples with' "$W/err" || fail "a warning for SIG_DFL/SIG_IGN on SIGRTMIN+3"
	report "$W/p" "$W/r.json"
	check func "$W/r.json" crash_work 90
	report "$W/p" "$W/r.json"
	check func "$W/r.json" crash_work 80
	;;
exit)
	for m in exit3:3 quick:4; do
		mode=${m%%:*} want=${m#*:}
		rm -rf "$W/p"
		got=$(status prof "$W/p" "$T/crash" $mode 100)
		[ "$got" = "$want" ] || fail "crash $mode exits $got, want $want"
		[ "$(nfiles "$W/p")" -eq 1 ] || fail "crash $mode: no profile"
		report "$W/p" "$W/r.json"
		check field "$W/r.json" partial false
		check func "$W/r.json" crash_work 80
	done
	;;
exec)
	for how in execv execvp execl execve; do
		rm -rf "$W/p"
		prof "$W/p" EXEC_HOW=$how "$T/execer" "$T/execee" 200 || fail "execer ($how) exited $?"
		[ "$(nfiles "$W/p")" -eq 2 ] || { fail "exec ($how): $(nfiles "$W/p") profiles, want 2"; continue; }
		before=$(file_with "$W/p" before_exec)
		after=$(file_with "$W/p" exec_target_work)
		[ -n "$before" ] && [ -n "$after" ] && [ "$before" != "$after" ] ||
			{ fail "exec ($how): profiles not told apart"; continue; }
		check field "$before" partial true
		check func "$before" before_exec 90
		check field "$after" partial false
		check func "$after" exec_target_work 90
		check nofunc "$after" before_exec
	done
	# fork then exec at once: the parent's profile and the new image's, no
	# empty partial file from the child between fork and exec.
	rm -rf "$W/p"
	prof "$W/p" EXEC_HOW=fork "$T/execer" "$T/execee" 200 || fail "execer (fork) exited $?"
	[ "$(nfiles "$W/p")" -eq 2 ] || fail "fork+exec: $(nfiles "$W/p") profiles, want 2: $(ls "$W/p")"
	parent=$(file_with "$W/p" after_fork)
	child=$(file_with "$W/p" exec_target_work)
	[ -n "$parent" ] && [ -n "$child" ] && [ "$parent" != "$child" ] || fail "fork+exec: profiles not told apart"
	# the report names the launched program first, then what it ran
	report "$W/p" "$W/r.json"
	check programs "$W/r.json" execer:1,execee:1
	# A failed exec: profiling goes on, one complete profile.
	# Equal steps before and after; the shares are checked against the CPU
	# time each part took (a clean CI run once measured 44.6 / 55.4 %
	# against 50 / 50 by steps), the call paths with a wide tolerance.
	rm -rf "$W/p" "$W/cpu"
	prof "$W/p" HP_TEST_CPU="$W/cpu" "$T/execer" /nonexistent/program 2>/dev/null ||
		fail "execer (failed exec) exited $?"
	[ "$(nfiles "$W/p")" -eq 1 ] || fail "failed exec: $(nfiles "$W/p") profiles, want 1"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" partial false
	check cpu "$W/r.json" "$W/cpu" 5
	check path "$W/r.json" main/before_exec 50 20
	check path "$W/r.json" main/after_failed_exec 50 20
	# Children no preload can reach: one line each says they are not
	# profiled.  A static image run by dash (vfork) and by bash (whose own
	# getenv found no LD_PRELOAD in hyprof's constructor), and bash's
	# `exec -c` (an empty environment).
	for sh in sh bash; do
		command -v $sh >/dev/null || continue
		rm -rf "$W/q"
		got=$(prof "$W/q" HYPROF_QUIET=1 $sh -c "\"$T/execee_static\" 1; echo end" 2>"$W/err")
		cat "$W/err"
		[ "$got" = end ] || fail "$sh running a static program: '$got'"
		grep -q "executes $T/execee_static, which is statically linked" "$W/err" ||
			fail "$sh running a static program: no line says it is not profiled"
	done
	if command -v bash >/dev/null; then
		rm -rf "$W/q"
		prof "$W/q" HYPROF_QUIET=1 bash -c "exec -c \"$T/execee\" 1" 2>"$W/err" || fail "bash exec -c exited $?"
		cat "$W/err"
		grep -q "LD_PRELOAD lacks libhyprof.so" "$W/err" || fail "bash exec -c: no line says the image is lost"
	fi
	;;
badconfig)
	# A bad HYPROF_* value never breaks the program: one line naming the
	# variable, the accepted values and the default, then a profile made
	# with that default (a table of bad values: the variable's line must
	# say what was used instead).
	while read -r var val want; do
		rm -rf "$W/p"
		got=$(status prof "$W/p" HYPROF_QUIET=1 "$var=$val" "$T/crash" none 10 2>"$W/err")
		cat "$W/err"
		[ "$got" = 0 ] || fail "$var=$val: program exits $got"
		[ "$(wc -l <"$W/err")" = 1 ] && grep -qF "$var=\"$val\"" "$W/err" && grep -qF "$want" "$W/err" ||
			fail "$var=$val: want one line naming the variable and \"$want\""
		[ "$(nfiles "$W/p")" = 1 ] || fail "$var=$val: no profile made with the default"
	done <<-EOF
	HYPROF_UNWIND dwarf expected libunwind, fp or kernel; using the default (libunwind)
	HYPROF_FREQ abc expected an integer from 1 to 100000 (samples per second); using the default (200)
	HYPROF_PERIOD -5 expected a positive integer (events, or ns for clocks); using the default (unset)
	HYPROF_MODE fast using the default (hybrid)
	HYPROF_SIGNAL SIGKILL using the default (SIGRTMIN+3)
	HYPROF_MAX_OVERHEAD 300 using the default (0)
	HYPROF_EVENT nosuch unknown event "nosuch"
	EOF
	if [ ! -e /sys/bus/event_source/devices/cpu ]; then
		rm -rf "$W/p"
		got=$(status prof "$W/p" HYPROF_QUIET=1 HYPROF_EVENT=cycles "$T/crash" none 10 2>"$W/err")
		cat "$W/err"
		[ "$got" = 0 ] || fail "refused event: program exits $got"
		grep -q 'no hardware PMU' "$W/err" || fail "refused cycles: no advice"
		[ "$(wc -l <"$W/err")" = 1 ] || fail "refused cycles: want one line"
		[ "$(nfiles "$W/p")" = 1 ] || fail "refused cycles: no profile made with the default source"
	fi
	;;
fp)
	# Every function has a frame (-O0): the frame-pointer walk is exact.
	prof "$W/p" HYPROF_UNWIND=fp HYPROF_FREQ=1000 "$T/split_fp" 300 || fail "split_fp exited $?"
	report "$W/p" "$W/r.json"
	split_checks "$W/r.json"
	# The trap (ALGORITHMS.md section 1): built -O1 -fno-omit-frame-pointer,
	# the leaf spin() still has no frame, so the walk skips the caller of the
	# leaf: a, b and d vanish and their time lands on main/spin and
	# main/c/spin.  libunwind (the split case) gets them right.
	rm -rf "$W/p"
	prof "$W/p" HYPROF_UNWIND=fp HYPROF_FREQ=1000 "$T/split_fpo1" 500 || fail "split_fpo1 exited $?"
	report "$W/p" "$W/r.json"
	check path "$W/r.json" main/spin 90 3
	check path "$W/r.json" main/c/spin 10 3
	check nofunc "$W/r.json" a
	check nofunc "$W/r.json" d
	;;
kernel)
	# --unwind kernel: the kernel walks the frame pointers at each sample
	# (perf record -g's callchains) into a ring that the handler drains:
	# batched in sampled mode (a signal per 64 samples), one signal per
	# sample in hybrid mode.  Every function has a frame (-O0): the split
	# is exact, within the libunwind case's tolerance.
	for mode in sampled hybrid; do
		rm -rf "$W/p"
		prof "$W/p" HYPROF_UNWIND=kernel HYPROF_MODE=$mode HYPROF_FREQ=1000 "$T/split_fp" 300 ||
			fail "split_fp ($mode) exited $?"
		report "$W/p" "$W/r.json"
		split_checks "$W/r.json"
		check drops "$W/r.json" 1
		check ge "$W/r.json" samples 200
		grep -q 'unwind: kernel frame-pointer callchains' "$W/r.json" ||
			fail "kernel ($mode): source_why does not say how call paths were unwound"
	done
	# Frame-pointer quality: the leaf spin() has no frame at -O1 (GCC 12,
	# even with -fno-omit-frame-pointer), so its caller is missing, exactly
	# as for --unwind fp and perf record -g.
	rm -rf "$W/p"
	prof "$W/p" HYPROF_UNWIND=kernel HYPROF_MODE=sampled HYPROF_FREQ=1000 "$T/split_fpo1" 500 ||
		fail "split_fpo1 exited $?"
	report "$W/p" "$W/r.json"
	check path "$W/r.json" main/spin 90 3
	check path "$W/r.json" main/c/spin 10 3
	check nofunc "$W/r.json" a
	# Short threads lose nothing: each thread runs for fewer samples than a
	# batch, so without the drain at thread stop their samples would be
	# missing.  Same CPU work under libunwind: the sample counts agree.
	# Four runs of each, interleaved so the machine's load falls on both,
	# merged: ~400 samples (one run's 100 put the split 1.3 sigma from the
	# tolerance); losing the drain would lose about half of them.
	rm -rf "$W/kernel" "$W/libunwind" "$W/cpu"
	for i in 1 2 3 4; do
		for u in kernel libunwind; do
			cpu=/dev/null
			[ $u = kernel ] && cpu="$W/cpu"
			prof "$W/$u" HP_TEST_CPU="$cpu" HYPROF_UNWIND=$u HYPROF_MODE=sampled HYPROF_FREQ=1000 \
				"$T/threads_fp" 15 || fail "threads_fp ($u) exited $?"
		done
	done
	for u in kernel libunwind; do
		report "$W/$u" "$W/$u.json"
	done
	# The shares against the CPU time the threads measured over the four
	# runs: 8 points is 3.3 sigma at ~400 samples.  A thread whose samples
	# were lost is far out.
	check cpu "$W/kernel.json" "$W/cpu" 8
	check drops "$W/kernel.json" 1
	python3 - "$W/kernel.json" "$W/libunwind.json" <<'PY' || fails=$((fails + 1))
import json, sys
k, l = (json.load(open(p))["samples"] for p in sys.argv[1:3])
ok = l > 0 and abs(k - l) <= 0.2 * l
print("%s short threads: %d samples with --unwind kernel, %d with libunwind" % ("ok" if ok else "FAIL", k, l))
sys.exit(0 if ok else 1)
PY
	;;
deep)
	# Deeper than a path keeps (512 frames): the outermost frames and the
	# leaf are kept, the middle is cut; no sample is lost to it (drops under
	# 1%: the odd sample that lands while the runtime writes at exit), and
	# the walk's cost stays bounded (the run takes seconds, not minutes).
	# The report folds the recursion into one rec node.
	for depth in 2000 100; do
		rm -rf "$W/p"
		prof "$W/p" HYPROF_FREQ=1000 "$T/deep" $depth 500 || fail "deep $depth exited $?"
		report "$W/p" "$W/r.json"
		check path "$W/r.json" main/rec/spin 99 1.5
		check func "$W/r.json" spin 99
		check drops "$W/r.json" 1
	done
	# 300 distinct functions deep (no recursion to fold): the JSON report
	# nests all of them (600 levels)
	rm -rf "$W/p"
	prof "$W/p" HYPROF_FREQ=1000 "$T/chain" 300 || fail "chain exited $?"
	report "$W/p" "$W/r.json"
	python3 -c "
import json, sys
n = json.load(open(sys.argv[1]))['tree']
names = []
while n.get('children'):
    n = max(n['children'], key=lambda c: c['total'])
    names.append(n['name'])
sys.exit(0 if 'c0' in names and 'c299' in names and names.index('c299') - names.index('c0') == 299 else 1)
" "$W/r.json" || fail "chain: the JSON tree does not hold the 300 frames"
	;;
badstack)
	# Stacks an unwinder cannot follow: the program runs to its end and the
	# time stays on the function that ran (bad_* ~70%, then spin, called by
	# good_work, ~30%: -O1 code has no frame pointers, so the fp walk finds
	# the leaf only).  "prot" with fp makes the walk fault inside the
	# handler (a PROT_NONE page inside the stack bounds): the sample keeps
	# its leaf.
	for c in garbage:libunwind garbage:fp prot:libunwind prot:fp; do
		mode=${c%%:*} unw=${c#*:}
		fn=bad_frames
		[ $mode = prot ] && fn=bad_fp
		rm -rf "$W/p"
		got=$(status prof "$W/p" HYPROF_UNWIND=$unw HYPROF_FREQ=1000 "$T/badstack" $mode 300)
		[ "$got" = 0 ] || { fail "badstack $mode ($unw) exits $got"; continue; }
		report "$W/p" "$W/r.json"
		echo "badstack $mode, $unw:"
		check func "$W/r.json" $fn 60
		check func "$W/r.json" spin 20
		check drops "$W/r.json" 1
	done
	;;
jit)
	# Code without unwind information (copied into an anonymous executable
	# page, as a JIT emits it): its samples keep their callers,
	# main/call_jit/[unknown], in each part's share of the CPU time (with
	# libunwind; the frame-pointer walks, fp and kernel, lose the caller of
	# any frameless leaf, as documented).
	[ "$(uname -m)" = x86_64 ] || { echo "skip: the copied code is x86-64"; exit 77; }
	for unw in libunwind; do
		rm -rf "$W/p" "$W/cpu"
		prof "$W/p" HP_TEST_CPU="$W/cpu" HYPROF_UNWIND=$unw HYPROF_FREQ=1000 "$T/jit" 300 >/dev/null ||
			fail "jit ($unw) exited $?"
		report "$W/p" "$W/r.json"
		echo "jit, $unw:"
		check cpu "$W/r.json" "$W/cpu" 6
		check path "$W/r.json" main/call_jit "$(awk '$1 == "call_jit" {j = $2} {t += $2} END {printf "%.1f", 100 * j / t}' "$W/cpu")" 6
	done
	;;
eintr)
	# A user-only event ("task-clock:u") never interrupts a system call.
	# (Kernel-inclusive sampling may, as any SIGPROF profiler: a few per
	# 10,000 here, shown for the record, not checked.)
	out=$(prof "$W/p" HYPROF_EVENT=task-clock:u HYPROF_FREQ=2000 "$T/sleeper" 10000) || fail "sleeper exited $?"
	echo "task-clock:u: $out"
	[ "$out" = "calls 10000 eintr 0" ] || fail "EINTR under a user-only event: $out"
	report "$W/p" "$W/r.json"
	check field "$W/r.json" source task-clock:u
	rm -rf "$W/p"
	out=$(prof "$W/p" HYPROF_FREQ=2000 "$T/sleeper" 10000) || fail "sleeper exited $?"
	echo "task-clock (kernel samples too): $out"
	;;
mainexit)
	# main calls pthread_exit: the process lives on with its other thread
	# and ends with it (glibc runs exit(0) on the last thread).  No helper
	# thread of hyprof's may keep the process alive.
	got=$(status timeout -k 5 60 env HYPROF_OUTPUT="$W/p" LD_PRELOAD="$LIB" HYPROF_FREQ=1000 "$T/mainexit" 150)
	[ "$got" = 0 ] || { fail "mainexit exits $got (124/137: still running after 60 s)"; }
	if [ "$(nfiles "$W/p")" = 1 ]; then
		report "$W/p" "$W/r.json"
		check field "$W/r.json" threads 2
		check path "$W/r.json" main_work 33.3 4
		check path "$W/r.json" thread_work 66.7 4
	else
		fail "mainexit: no profile"
	fi
	;;
perf_hw)
	if [ ! -e /sys/bus/event_source/devices/cpu ]; then
		echo "skip: no hardware PMU (no /sys/bus/event_source/devices/cpu: a VM or container)"
		exit 77
	fi
	prof "$W/p" HYPROF_EVENT=cycles HYPROF_FREQ=1000 "$T/split" 1000 2>"$W/err" || fail "split exited $?"
	if grep -q 'no sample source' "$W/err"; then
		echo "skip: $(cat "$W/err")"
		exit 77
	fi
	report "$W/p" "$W/r.json"
	split_checks "$W/r.json"
	;;
papi)
	tried=0
	for ev in PAPI_TOT_CYC perf::TASK-CLOCK; do
		rm -rf "$W/p"
		prof "$W/p" HYPROF_EVENT=$ev HYPROF_FREQ=1000 "$T/split" 1000 2>"$W/err" || fail "split ($ev) exited $?"
		# refused: one line, then the automatic choice (the default)
		if grep -q "HYPROF_EVENT=\"$ev\" cannot be used" "$W/err"; then
			grep -q 'papi: ' "$W/err" || fail "$ev refused without a PAPI reason: $(cat "$W/err")"
			echo "PAPI cannot sample $ev here: $(cat "$W/err")"
			continue
		fi
		tried=1
		report "$W/p" "$W/r.json"
		check field "$W/r.json" source "$ev"
		split_checks "$W/r.json"
	done
	if [ $tried = 0 ]; then
		echo "skip: PAPI can sample no event on this machine (reasons above)"
		exit 77
	fi
	;;
fsize)
	# RLIMIT_FSIZE below the profile's size: the program's status and its
	# SIGXFSZ disposition are its own (the write used to die of SIGXFSZ,
	# status 153), one line says why there is no profile; with a higher
	# hard limit the profile is written all the same.
	command -v prlimit >/dev/null || { echo "skip: prlimit (util-linux) is needed"; exit 77; }
	for end in exit3:3 none:0; do
		mode=${end%%:*} want=${end#*:}
		rm -rf "$W/p"
		got=$(status prlimit --fsize=2048 env HYPROF_OUTPUT="$W/p" LD_PRELOAD="$LIB" "$T/crash" $mode 10 2>"$W/err")
		cat "$W/err"
		[ "$got" = "$want" ] || fail "crash $mode under a 2 KiB file size limit exits $got, want $want"
		grep -q "file size limit" "$W/err" || fail "crash $mode: no line says the file size limit stopped the profile"
		[ "$(nfiles "$W/p")" = 0 ] || fail "crash $mode: a profile past the file size limit"
		rm -rf "$W/p"
		got=$(status prlimit --fsize=2048:unlimited env HYPROF_OUTPUT="$W/p" LD_PRELOAD="$LIB" "$T/crash" $mode 10 2>"$W/err")
		cat "$W/err"
		[ "$got" = "$want" ] || fail "crash $mode under a 2 KiB soft file size limit exits $got, want $want"
		[ "$(nfiles "$W/p")" = 1 ] || fail "crash $mode: no profile up to the hard file size limit"
	done
	;;
nproc)
	# RLIMIT_NPROC leaves room for the program's main thread and 2 tasks
	# (threads, or child processes): hyprof's helper threads give way, the
	# program gets both, prints and exits as alone, and says why on stderr.
	# A user id of its own, so no other process counts against the limit.
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null ||
		{ echo "skip: needs root, setpriv and prlimit (util-linux)"; exit 77; }
	chmod 755 "$W"
	as_user() { setpriv --reuid=54321 --regid=54321 --clear-groups prlimit --nproc=3 "$@"; }
	for m in thread fork; do
		alone=$(as_user "$T/tasks" $m 2)
		[ "$alone" = "2 of 2" ] || fail "tasks $m alone: $alone"
		rm -rf "$W/p" && mkdir -m 777 "$W/p"
		got=$(as_user env HYPROF_OUTPUT="$W/p" LD_PRELOAD="$LIB" "$T/tasks" $m 2 2>"$W/err"; echo "status $?")
		cat "$W/err"
		[ "$got" = "$alone
status 0" ] || fail "tasks $m under hyprof: $got"
		grep -q "could not create a" "$W/err" || fail "tasks $m: no line says hyprof's threads gave way"
		[ "$(nfiles "$W/p")" -ge 1 ] || fail "tasks $m: no profile"
	done
	;;
*)
	echo "unknown case $CASE"
	exit 2
	;;
esac
[ $fails = 0 ] && echo "PASS $CASE" || echo "FAIL $CASE: $fails checks failed"
[ $fails = 0 ]
