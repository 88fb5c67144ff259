#!/bin/sh
# tests/export/synth_check.sh MODE OUTDIR NODE_DIR
# Export the synthetic model (hp_export_synth MODE) in every format and read
# each export back with a real reader: TAU's grammar and the SVG in Python,
# pprof (npm pprof-format, and Go's pprof when go is installed), speedscope
# (its published schema, through ajv) and folded stacks in node.
# Exit 0 all passed, 1 a check failed, 77 skipped (reason printed).
mode=$1
out=$2
nodedir=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed"
  exit 77
fi
rm -rf "$out"
"$HYPROF_TEST_BIN/hp_export_synth" "$mode" "$out" || exit 1
fail=0
echo "== TAU profile.N.C.T grammar and values"
python3 "$here/tau_check.py" "$out/tau" "$out/expect.json" || fail=1
python3 "$here/tau_check.py" "$out/tau2" "$out/expect.json" --depth 2 || fail=1
echo "== flame graph SVG"
python3 "$here/svg_check.py" "$out/flame.svg" "$out/expect.json" || fail=1
echo "== Go's pprof (optional)"
for sel in "merged 10" "r1t0 3"; do
  set -- $sel
  python3 "$here/go_pprof_check.py" "$out/$1.pb.gz" "$out/expect.json" "$2"
  rc=$?
  [ $rc -eq 77 ] && break
  [ $rc -ne 0 ] && fail=1
done
echo "== pprof (pprof-format), speedscope (schema), folded"
sh "$here/node_setup.sh" "$nodedir" "$here/package.json"
rc=$?
if [ $rc -eq 77 ]; then
  # the node readers cannot run here: a skip only if everything else passed
  [ $fail -ne 0 ] && exit 1
  exit 77
fi
[ $rc -ne 0 ] && exit 1
node "$here/check_exports.mjs" "$out" "$nodedir" || fail=1
exit $fail
