#!/bin/sh
# tests/html/html_check.sh synth|real OUTDIR NODE_DIR
# Open hyprof's HTML pages in headless Chromium (browser_check.mjs): no
# console error, no network request, click-to-zoom, reset, search, tooltip,
# sortable table, the cost and ranks sections when their data exists.
#   synth  the report, the comparison and the flame graph SVG of the
#          synthetic model (tests/export/synth.c), hybrid and measured
#   real   `hyprof report --html` of a real run (threads) and of a 2-rank
#          MPI run, and `hyprof compare --html` of two runs
# Screenshots go to OUTDIR/screenshots.  Exit 77 with the reason when
# chromium or node is missing.
set -u
what=$1
out=$2
nodedir=$3
here=$(cd "$(dirname "$0")" && pwd)
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}" "${HYPROF_LIB:?}"
if [ ! -x /usr/bin/chromium ]; then
  echo "SKIP: /usr/bin/chromium is not installed (scripts/install-deps.sh --browser, or apt-get install chromium)"
  exit 77
fi
sh "$here/../export/node_setup.sh" "$nodedir" "$here/package.json" || exit $?
rm -rf "$out"
mkdir -p "$out/screenshots"
fail=0
selfcontained() { # no external script, style, font or image
  if grep -E -i -q '<script[^>]+src=|<link[^>]+href="(https?:)?//|url\((https?:)?//|@import|<img[^>]+src="(https?:)?//' "$1"; then
    echo "FAIL: $1 references something outside the file:"
    grep -E -i -o '<script[^>]+src=[^>]*>|<link[^>]+href="[^"]*"|url\([^)]*\)|@import[^;]*' "$1" | head -3
    fail=1
  fi
}
browse() { # browse KIND FILE [PROGRAM]
  selfcontained "$2"
  echo "== $1 $2 ($(wc -c <"$2") bytes)"
  node "$here/browser_check.mjs" "$nodedir" "$out/screenshots" "$@" || fail=1
}

if [ "$what" = synth ]; then
  for mode in hybrid measured; do
    "$HYPROF_TEST_BIN/hp_export_synth" "$mode" "$out/$mode" >/dev/null || exit 1
    for f in report compare; do mv "$out/$mode/$f.html" "$out/$mode/$f-$mode.html"; done
    mv "$out/$mode/flame.svg" "$out/$mode/flame-$mode.svg"
    browse report "$out/$mode/report-$mode.html" /opt/synth/bin/synth
    HYPROF_EXPECT_TOP=kernel_3 browse compare "$out/$mode/compare-$mode.html"
    browse svg "$out/$mode/flame-$mode.svg"
  done
  exit $fail
fi

# ---- real profiles -------------------------------------------------------------
if [ ! -r "$HYPROF_LIB/libhyprof.so" ]; then
  echo "SKIP: $HYPROF_LIB/libhyprof.so is not built"; exit 77
fi
if ! "$HYPROF_BIN" report --help 2>/dev/null | grep -q -- "--html"; then
  echo "SKIP: this hyprof's report has no --html option yet"; exit 77
fi
H=$HYPROF_BIN
"$H" run --quiet -o "$out/h" --freq 1000 -- "$HYPROF_TEST_BIN/hp_export_work_instr" >/dev/null || exit 1
"$H" run --quiet -o "$out/s" --freq 1000 -- "$HYPROF_TEST_BIN/hp_export_work" >/dev/null || exit 1
"$H" report --html -o "$out/report.html" "$out/h" || { echo "FAIL: hyprof report --html exits $?"; exit 1; }
browse report "$out/report.html" hp_export_work_instr
if "$H" compare --help 2>/dev/null | grep -q -- "--html"; then
  "$H" compare --html "$out/s" "$out/h" -o "$out/compare.html" || { echo "FAIL: hyprof compare --html exits $?"; fail=1; }
  [ -f "$out/compare.html" ] && browse compare "$out/compare.html"
else
  echo "note: hyprof compare has no --html option yet: comparison page not checked"
fi
if command -v mpirun >/dev/null 2>&1 && [ -x "$HYPROF_TEST_BIN/hp_mpi_demo" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  if mpirun -np 2 --oversubscribe "$H" run --quiet -o "$out/mpi" -- "$HYPROF_TEST_BIN/hp_mpi_demo" 0.05 \
      >"$out/mpi.stdout" 2>"$out/mpi.stderr"; then
    "$H" report --html -o "$out/mpi.html" "$out/mpi" || { echo "FAIL: report --html of the MPI run"; fail=1; }
    [ -f "$out/mpi.html" ] && browse report "$out/mpi.html" hp_mpi_demo
  else
    echo "FAIL: mpirun: $(tail -3 "$out/mpi.stderr")"; fail=1
  fi
else
  echo "note: mpirun or hp_mpi_demo missing: the MPI page is not checked"
fi
exit $fail
