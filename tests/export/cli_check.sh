#!/bin/sh
# tests/export/cli_check.sh OUTDIR NODE_DIR
# `hyprof export` end to end: the command-line conventions (help lists every
# option, one-line errors, exit 1 error / 2 usage), then real profiles of
# tests/export/work.c (`hyprof run` in hybrid, sampled and measured modes)
# exported in every format and read back: TAU by its grammar, the SVG by an
# XML parser, pprof and speedscope in node (check_real.mjs), folded here.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
out=$1
nodedir=$2
here=$(cd "$(dirname "$0")" && pwd)
H=$HYPROF_BIN
fail=0
say() { echo "$*"; }
bad() { echo "FAIL: $*"; fail=1; }

if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed"; exit 77
fi
rm -rf "$out"
mkdir -p "$out"

# ---- conventions ----------------------------------------------------------
"$H" export --help >"$out/help.txt" 2>&1 || bad "export --help exits $?"
for o in --format --output --rank --thread --value --split --min-width --width --title --quiet --help; do
  grep -q -- "$o" "$out/help.txt" || bad "export --help does not list $o"
done
expect_status() { # expect_status WANT DESCRIPTION cmd...
  want=$1; what=$2; shift 2
  "$@" >"$out/o.txt" 2>"$out/e.txt"
  st=$?
  [ "$st" -eq "$want" ] || bad "$what: exit $st, want $want"
  [ "$(wc -l <"$out/e.txt")" -eq 1 ] || bad "$what: want one line on stderr, got: $(cat "$out/e.txt")"
  [ -s "$out/o.txt" ] && bad "$what: printed on stdout"
}
expect_status 2 "no --format" "$H" export /tmp
expect_status 2 "unknown format" "$H" export --format foo /tmp
expect_status 2 "no directory" "$H" export --format folded
expect_status 2 "tau without -o" "$H" export --format tau /tmp
expect_status 2 "bad --value" "$H" export --format folded --value bytes /tmp
expect_status 2 "unknown option" "$H" export --format folded --bogus /tmp
expect_status 1 "missing profile" "$H" export --format folded "$out/nothing-here"
expect_status 1 "cube" "$H" export --format cube "$out"

# ---- real profiles ------------------------------------------------------------
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
  echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"; exit 77
fi
run() { # run NAME [options] -- program
  n=$1; shift
  "$H" run --quiet -o "$out/$n" "$@" >"$out/$n.stdout" 2>"$out/$n.stderr" || {
    bad "hyprof run $*: $(tail -3 "$out/$n.stderr")"; return 1; }
}
run h --freq 1000 -- "$HYPROF_TEST_BIN/hp_export_work_instr" || exit 1
run s --freq 1000 -- "$HYPROF_TEST_BIN/hp_export_work" || exit 1
run m --freq 1000 --mode measured -- "$HYPROF_TEST_BIN/hp_export_work_instr" || exit 1

x() { "$H" export --quiet "$@" || bad "hyprof export $* exits $?"; }
x -f pprof -o "$out/h.pb.gz" "$out/h"
x -f pprof -o "$out/m.pb.gz" "$out/m"
x -f speedscope -o "$out/h.ss.json" "$out/h"
x -f folded -o "$out/h.folded" "$out/h"
x -f folded --value calls -o "$out/h.calls.folded" "$out/h"
x -f folded --thread 1 -o "$out/h.t1.folded" "$out/h"
x -f svg -o "$out/h.svg" "$out/h"
x -f tau -o "$out/h.tau" "$out/h"
x -f tau -o "$out/s.tau" "$out/s"
x -f svg -o "$out/s.svg" "$out/s"
expect_status 1 "--value calls without probes" "$H" export -f folded --value calls "$out/s"
expect_status 1 "--rank 5 of a single process" "$H" export -f folded --rank 5 "$out/h"
"$H" export -f folded "$out/h" >"$out/stdout.folded" 2>"$out/e.txt" || bad "folded to stdout"
cmp -s "$out/stdout.folded" "$out/h.folded" || bad "folded to stdout differs from -o"

echo "== folded"
python3 - "$out" <<'PY' || fail=1
import re, sys
out = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("FAIL: " + what)
def read(name):
    rows = []
    for ln in open(f"{out}/{name}"):
        m = re.match(r"^(.+) (\d+)$", ln.rstrip("\n"))
        check(m is not None, f"{name}: bad line {ln!r}")
        if m:
            rows.append((m.group(1).split(";"), int(m.group(2))))
    return rows
rows = read("h.folded")
heavy = sum(v for f, v in rows if "heavy" in f)
light = sum(v for f, v in rows if "light" in f)
share = heavy / max(1, heavy + light)
check(abs(share - 0.75) <= 0.05, f"folded: heavy {100*share:.1f}% of heavy+light samples, want 75 +- 5")
calls = {}
for f, v in read("h.calls.folded"):
    calls[f[-1]] = calls.get(f[-1], 0) + v
check((calls.get("heavy"), calls.get("light"), calls.get("unit")) == (20, 20, 80),
      f"folded --value calls: heavy/light/unit {calls.get('heavy')}/{calls.get('light')}/{calls.get('unit')}, want 20/20/80")
t1 = read("h.t1.folded")
check(len(t1) > 0 and all("heavy" not in f for f, v in t1) and any("light" in f for f, v in t1),
      "folded --thread 1 has the worker's light() and not main's heavy()")
print("folded: %s" % ("ok" if not fails else "%d failed" % fails))
sys.exit(1 if fails else 0)
PY
echo "== TAU"
python3 "$here/tau_check.py" "$out/h.tau" --grammar "main => heavy=20" "heavy => unit=60" "worker => light=20" \
  "light => unit=20" || fail=1
[ -f "$out/h.tau/profile.0.0.0" ] && [ -f "$out/h.tau/profile.0.0.1" ] || bad "TAU: one file per thread"
python3 "$here/tau_check.py" "$out/s.tau" --grammar || fail=1
echo "== SVG"
python3 "$here/svg_check.py" "$out/h.svg" --names main heavy light unit || fail=1
python3 "$here/svg_check.py" "$out/s.svg" --names heavy light unit || fail=1
echo "== Go's pprof (optional)"
if command -v go >/dev/null 2>&1; then
  HOME=/tmp PPROF_TMPDIR=/tmp go tool pprof -top -nodefraction=0 "$out/h.pb.gz" >"$out/go.txt" 2>&1 ||
    bad "go tool pprof cannot read h.pb.gz: $(tail -2 "$out/go.txt")"
  grep -q " heavy$" "$out/go.txt" || bad "go tool pprof does not list heavy"
else
  echo "go is not installed: skipped"
fi
echo "== pprof (pprof-format), speedscope (schema)"
sh "$here/node_setup.sh" "$nodedir" "$here/package.json"
rc=$?
if [ $rc -eq 77 ]; then
  [ $fail -ne 0 ] && exit 1
  exit 77
fi
[ $rc -ne 0 ] && exit 1
node "$here/check_real.mjs" "$out" "$nodedir" || fail=1
[ $fail -eq 0 ] && echo "export_cli: all passed"
exit $fail
