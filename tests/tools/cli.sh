#!/bin/sh
# tests/tools/cli.sh - every bad input of the hyprof command gives exactly one
# line on stderr, nothing on stdout, and exit 1 (error) or 2 (usage); --help
# lists every option of `hyprof run` with its HYPROF_* variable, and each of
# those variables is one the runtime reads (runtime/config.h).
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_SRC:?}"
H=$HYPROF_BIN
T=$(mktemp -d /tmp/hyprof-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

S="$HYPROF_TEST_BIN/hp_synth"
for s in hybrid empty corrupt truncated tmponly; do
	"$S" write $s "$T/$s" || { echo "FAIL: hp_synth write $s"; exit 1; }
done

# expect STATUS DESCRIPTION -- command...
expect() {
	want=$1; desc=$2; shift 3
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	lines=$(wc -l <"$T/err")
	outb=$(wc -c <"$T/out")
	if [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || [ "$outb" -ne 0 ]; then
		echo "FAIL: $desc: exit $rc (want $want), $lines stderr lines (want 1), $outb stdout bytes (want 0)"
		echo "  command: $*"
		sed 's/^/  stderr: /' "$T/err" | head -5
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}

# expect_msg STATUS TEXT DESCRIPTION -- command: as expect, and stderr holds TEXT
expect_msg() {
	m_want=$1; m_text=$2; m_desc=$3; shift 4
	expect "$m_want" "$m_desc" -- "$@"
	if ! grep -q -F -- "$m_text" "$T/err"; then
		echo "FAIL: $m_desc: stderr lacks '$m_text': $(cat "$T/err")"
		fail=$((fail + 1))
	fi
}

expect 2 "no command" -- "$H"
expect 2 "unknown command" -- "$H" frobnicate
expect 2 "unknown global option" -- "$H" --frobnicate
expect 2 "report without a directory" -- "$H" report
expect 2 "report unknown option" -- "$H" report --frobnicate "$T/hybrid"
expect 2 "report bad --top" -- "$H" report --top many "$T/hybrid"
expect 2 "report unknown view" -- "$H" report --view nope "$T/hybrid"
expect 2 "report two directories" -- "$H" report "$T/hybrid" "$T/hybrid"
expect_msg 1 "No such file" "report missing directory" -- "$H" report "$T/missing"
expect_msg 1 "empty directory" "report empty directory" -- "$H" report "$T/empty"
expect_msg 1 "checksum mismatch (file corrupt)" "report corrupt file" -- "$H" report "$T/corrupt"
# a FIFO named like a profile: its open blocked for a writer (timeout: 124)
mkdir -p "$T/fifo" && cp "$T/hybrid/hp_synth.4000.hyp" "$T/fifo/" && mkfifo "$T/fifo/x.hyp"
expect_msg 1 "x.hyp: not a regular file" "report directory with a FIFO *.hyp" -- timeout 60 "$H" report "$T/fifo"
expect_msg 1 "hp_synth.4000.hyp" "report truncated file" -- "$H" report "$T/truncated"
expect_msg 1 "temporary" "report directory with only a temporary file" -- "$H" report "$T/tmponly"
mkdir -p "$T/killed/.live" && cp "$T/hybrid/hp_synth.4000.hyp" "$T/killed/.live/"
expect_msg 1 "hyprof report $T/killed/.live" "report directory of a killed run (live snapshot only)" -- "$H" report "$T/killed"
expect_msg 1 "checksum mismatch" "report --json corrupt file" -- "$H" report --json "$T/corrupt"
expect 2 "compare with one profile" -- "$H" compare "$T/hybrid"
expect 2 "compare unknown option" -- "$H" compare --frobnicate "$T/hybrid" "$T/hybrid"
expect_msg 1 "No such file" "compare missing profile" -- "$H" compare "$T/hybrid" "$T/missing"
expect 2 "info unknown option" -- "$H" info --frobnicate
expect 2 "run without a program" -- "$H" run
expect 2 "run unknown option" -- "$H" run --frobnicate -- true
expect 2 "run option missing its argument" -- "$H" run --mode
expect 2 "run bad mode" -- "$H" run --mode fast -- true
expect 2 "run bad compensate" -- "$H" run --compensate some -- true
expect 2 "run bad unwind" -- "$H" run --unwind magic -- true
expect 2 "run zero period" -- "$H" run --period 0 -- true
expect 2 "run period and freq" -- "$H" run --period 5 --freq 5 -- true
expect 2 "run bad signal" -- "$H" run --signal NOPE -- true
expect_msg 2 "--signal needs a signal number or name" "run signal below SIGRTMIN" -- "$H" run --signal SIGRTMIN-1 -- true
# --signal takes what HYPROF_SIGNAL takes (one parser, runtime/config.c):
# the launcher's own list refused SIGPWR, which the variable accepted
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	# the same for numbers: HYPROF_MAX_OVERHEAD=5% is accepted, --max-overhead 5% was not
	if "$H" run -q -o "$T/o16" --max-overhead 5% -- /bin/true >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: run --max-overhead 5%: $(cat "$T/err")"; fail=$((fail + 1))
	fi
	for sig in SIGPWR PWR SIGUSR2 SIGRTMAX-1; do
		if "$H" run -q -o "$T/o15" --signal $sig -- /bin/true >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ]; then
			pass=$((pass + 1))
		else
			echo "FAIL: run --signal $sig: $(cat "$T/err")"; fail=$((fail + 1))
		fi
	done
fi
expect 2 "run bad overhead" -- "$H" run --max-overhead 250 -- true
# a bad option value is a usage error (2), a bad HYPROF_* value from the
# environment an error naming the variable (1): --event and HYPROF_MPI too
expect_msg 2 "--event: unknown event 'nosuch'" "run unknown event" -- "$H" run -o "$T/o6" --event nosuch -- true
expect_msg 1 "HYPROF_EVENT: unknown event 'nosuch'" "run unknown HYPROF_EVENT" -- env HYPROF_EVENT=nosuch "$H" run -o "$T/o7" -- true
expect_msg 1 'HYPROF_MPI="2": expected 0 or 1' "run bad HYPROF_MPI" -- env HYPROF_MPI=2 "$H" run -o "$T/o7" -- true
expect_msg 1 "HYPROF_PERIOD and HYPROF_FREQ are both set" "run HYPROF_PERIOD and HYPROF_FREQ" -- env HYPROF_PERIOD=1000000 HYPROF_FREQ=100 "$H" run -o "$T/o7" -- true
expect_msg 1 "command not found" "run missing program" -- "$H" run -o "$T/o1" -- hyprof_no_such_program_xyz
expect_msg 1 "command not found" "run missing program path" -- "$H" run -o "$T/o2" -- /nonexistent/prog
expect_msg 1 "not executable" "run program not executable" -- "$H" run -o "$T/o3" -- "$T/hybrid/hp_synth.4000.hyp"
# a program hyprof cannot be loaded into: refused, not run unprofiled into
# an empty directory.  A 32-bit i386 ELF header (the loader would refuse the
# 64-bit libhyprof.so, "wrong ELF class", and run the program anyway), and
# a static program when the C library has its archive.
python3 - "$T/elf32" <<'PY'
import struct, sys
# ELF32 header, one PT_LOAD of the whole file at 0x8048000, code: exit(0)
code = bytes([0xb8, 1, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80])
size = 52 + 32 + len(code)
eh = b"\x7fELF\x01\x01\x01" + bytes(9) + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, 0x8048000 + 84, 52, 0, 0, 52, 32, 1, 40, 0, 0)
ph = struct.pack("<IIIIIIII", 1, 0, 0x8048000, 0x8048000, size, size, 5, 0x1000)
open(sys.argv[1], "wb").write(eh + ph + code)
PY
chmod +x "$T/elf32"
expect_msg 1 "is a program for i386, 32-bit" "run 32-bit program" -- "$H" run -o "$T/o10" -- "$T/elf32"
if printf 'int main(void) { return 0; }\n' | cc -static -x c -o "$T/static" - 2>/dev/null; then
	expect_msg 1 "is statically linked" "run static program" -- "$H" run -o "$T/o11" -- "$T/static"
fi
expect_msg 1 "cannot create the output directory" "run output under a file" -- "$H" run -o "$T/hybrid/hp_synth.4000.hyp/x" -- true
expect_msg 1 "HYPROF_LIB" "run without the runtime library" -- env HYPROF_LIB="$T/nolib" "$H" run -o "$T/o4" -- true
expect_msg 2 "--freq needs an integer from 1 to 100000" "run --freq above the maximum" -- "$H" run -o "$T/o9" --freq 1000000 -- true
expect_msg 2 "--max-nodes needs" "run --max-nodes below the minimum" -- "$H" run -o "$T/o9" --max-nodes 3 -- true
# an output directory that exists but cannot be written: refused before the
# program runs (root writes anywhere but in /proc)
expect_msg 1 "cannot write in the output directory" "run output not writable" -- "$H" run -o /proc/self -- true
# a program started with stderr closed gets descriptor 2 from its first
# open(), as without hyprof (libunwind's pipe does not take it)
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	got=$("$H" run -q -o "$T/o12" -- "$HYPROF_TEST_BIN/hp_fdlow" 2>&-)
	if [ "$got" = 2 ]; then pass=$((pass + 1)); else
		echo "FAIL: with stderr closed the program's first open() gave $got, want 2"; fail=$((fail + 1)); fi
fi
# a child started with a cleaned environment is not profiled: one line says so
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	expect_msg 0 "it will not be profiled" "run env -i child" -- "$H" run -q -o "$T/o11" -- env -i /bin/true
fi
# a set-user-ID program of another user: the loader would ignore LD_PRELOAD
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	cp /bin/true "$T/suid" && chown nobody "$T/suid" && chmod 4755 "$T/suid"
	expect_msg 1 "is set-user-ID" "run set-user-ID program" -- "$H" run -o "$T/o10" -- "$T/suid"
fi

# --period or --freq replaces the other's variable from the environment:
# the option chooses the rate (the run is not refused as "both set")
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	expect_msg 0 "@ 3000000" "run --period over HYPROF_FREQ" -- env HYPROF_FREQ=100 "$H" run -o "$T/o13" --period 3000000 -- /bin/true
	expect 0 "run --freq over HYPROF_PERIOD" -- env HYPROF_PERIOD=3000000 "$H" run -o "$T/o14" --freq 100 -- /bin/true
	if grep -q "@ 3000000" "$T/err"; then
		echo "FAIL: --freq 100 sampled with HYPROF_PERIOD's period: $(cat "$T/err")"; fail=$((fail + 1)); fi
fi

# an output file that cannot be created is named as given, not by the
# temporary name written first (x.folded.tmp.PID)
expect_msg 1 "cannot create $T/nodir/x.folded: No such file" "export -o in a missing directory" -- "$H" export --format folded -o "$T/nodir/x.folded" "$T/hybrid"
expect_msg 1 "cannot create $T/nodir/x.html: No such file" "report --html -o in a missing directory" -- "$H" report --html -o "$T/nodir/x.html" "$T/hybrid"

# hyprof info's runtime test under a bad HYPROF_* variable: the reason is
# in runtime_error (it said only "failed (status 1)"), and the prediction
# agrees with the runtime's choice on a machine without a PMU (it
# predicted PAPI, which the runtime does not try there)
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	"$H" info --json >"$T/info_ok.json" 2>/dev/null
	HYPROF_FREQ=abc "$H" info --json >"$T/info_bad.json" 2>/dev/null
	if python3 - "$T/info_ok.json" "$T/info_bad.json" <<'EOF'
import json, sys
ok, bad = (json.load(open(f))["choice"] for f in sys.argv[1:3])
errs = []
if bad["from"] != "prediction" or "HYPROF_FREQ" not in (bad["runtime_error"] or ""):
    errs.append("runtime_error %r, want the reason naming HYPROF_FREQ" % bad["runtime_error"])
if ok["from"] == "runtime" and "no hardware PMU" in (ok["why"] or "") and bad["source"] != ok["source"]:
    errs.append("predicted %s, the runtime chose %s" % (bad["source"], ok["source"]))
for e in errs:
    print("FAIL: hyprof info:", e)
sys.exit(1 if errs else 0)
EOF
	then pass=$((pass + 1)); else fail=$((fail + 1)); fi
fi

# a bad HYPROF_HTML_PRUNE is one line naming it, and the page is written
# with the default pruning (it was ignored without a word)
expect_msg 0 'HYPROF_HTML_PRUNE="0,01": expected a percentage' "report --html bad HYPROF_HTML_PRUNE" -- env HYPROF_HTML_PRUNE=0,01 "$H" report --html -o "$T/p.html" "$T/hybrid"
[ -s "$T/p.html" ] || { echo "FAIL: report --html with a bad HYPROF_HTML_PRUNE wrote no page"; fail=$((fail + 1)); }
if ! HYPROF_HTML_PRUNE=0.01% "$H" report --html -o "$T/p.html" "$T/hybrid" 2>"$T/err" || [ -s "$T/err" ]; then
	echo "FAIL: report --html with HYPROF_HTML_PRUNE=0.01%: $(cat "$T/err")"; fail=$((fail + 1))
fi

# hyprof-cc: a misspelt option or a missing compiler is one clear line
# (the option was run as the compiler: "exec: --hyprof-x: not found")
CC_W=$(dirname "$H")/hyprof-cc
if [ -x "$CC_W" ]; then
	expect_msg 2 "unknown option '--hyprof-exlude-file=x'" "hyprof-cc misspelt option" -- "$CC_W" --hyprof-exlude-file=x cc -c x.c
	expect_msg 2 "no compiler given" "hyprof-cc without a compiler" -- "$CC_W" --hyprof-exclude-file=x
	expect_msg 127 "compiler 'hyprof_no_such_cc' not found" "hyprof-cc missing compiler" -- "$CC_W" hyprof_no_such_cc -c x.c
fi

# the profiled program's stdout is untouched: nothing of hyprof's there
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	out=$("$H" run --quiet -o "$T/o5" -- /bin/echo hello 2>/dev/null)
	if [ "$out" = "hello" ]; then pass=$((pass + 1)); else
		echo "FAIL: stdout of a profiled program is '$out', want 'hello'"; fail=$((fail + 1)); fi
fi

# a program that puts a file of its own on descriptor 2 finds only its own
# data there: hyprof writes to the stderr the program started with only
if [ -r "$HYPROF_LIB/libhyprof.so" ]; then
	rm -f "$T/fd2.txt"
	"$H" run -o "$T/o8" -- sh -c "exec 2>'$T/fd2.txt'; echo data >&2" 2>/dev/null
	if [ "$(cat "$T/fd2.txt" 2>/dev/null)" = "data" ]; then pass=$((pass + 1)); else
		echo "FAIL: the program's own file on fd 2 holds '$(cat "$T/fd2.txt" 2>/dev/null)', want 'data'"; fail=$((fail + 1)); fi
fi

# help and version: exit 0, on stdout
for args in "--help" "--version" "run --help" "report --help" "compare --help" "info --help"; do
	# shellcheck disable=SC2086
	if "$H" $args >"$T/out" 2>"$T/err" && [ -s "$T/out" ] && [ ! -s "$T/err" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: hyprof $args: exit or output wrong"; fail=$((fail + 1))
	fi
done
# commands owned by other parts: either their help, or one line "not available"
for c in calibrate export watch; do
	"$H" $c --help >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "not available" "$T/err"; }; then
		pass=$((pass + 1))
	else
		echo "FAIL: hyprof $c --help: exit $rc"; fail=$((fail + 1))
	fi
done

# every `hyprof run` option is listed with its variable, and the variable is
# one of runtime/config.h's
"$H" run --help >"$T/help"
for opt in output event period freq unwind mode compensate signal filter max-overhead \
	critical-path per-rank quiet max-nodes; do
	line=$(grep -- "--$opt" "$T/help" | head -1)
	var=$(printf '%s\n' "$line" | grep -o 'HYPROF_[A-Z_]*' | head -1)
	if [ -z "$var" ]; then
		echo "FAIL: run --help: --$opt has no HYPROF_ variable: '$line'"; fail=$((fail + 1)); continue
	fi
	if ! grep -q "$var" "$HYPROF_SRC/runtime/config.h"; then
		echo "FAIL: --$opt maps to $var, which runtime/config.h does not read"; fail=$((fail + 1)); continue
	fi
	pass=$((pass + 1))
done
# and no variable is listed twice
dups=$(grep -o 'HYPROF_[A-Z_]*' "$T/help" | grep -v -e HYPROF_LIB -e HYPROF_MPI | sort | uniq -d)
if [ -n "$dups" ]; then echo "FAIL: variables listed twice: $dups"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# every option in the help is one of the list above (a new option needs a test)
n=$(grep -c '^  --\|^  -., --' "$T/help")
if [ "$n" -ne 15 ]; then echo "FAIL: run --help lists $n options, the test knows 14 + --help"; fail=$((fail + 1)); else pass=$((pass + 1)); fi

# every option a command's --help lists is on its page (docs/cmd-*.md),
# and every variable of runtime/config.c's table is in docs/cmd-run.md
for c in run report compare export info watch; do
	"$H" $c --help >"$T/help" 2>/dev/null || continue
	for o in $(sed -n '/^options:/,$p' "$T/help" | grep -o -- '--[a-z][a-z-]*' | grep -v -x -- --help | sort -u); do
		if grep -q -- "$o" "$HYPROF_SRC/docs/cmd-$c.md"; then pass=$((pass + 1)); else
			echo "FAIL: hyprof $c --help lists $o, docs/cmd-$c.md does not"; fail=$((fail + 1)); fi
	done
done
for v in $(grep -o '{{"HYPROF_[A-Z_]*"' "$HYPROF_SRC/runtime/config.c" | tr -d '{"'); do
	if grep -q "\`$v\`" "$HYPROF_SRC/docs/cmd-run.md"; then pass=$((pass + 1)); else
		echo "FAIL: runtime/config.c reads $v, docs/cmd-run.md does not list it"; fail=$((fail + 1)); fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
