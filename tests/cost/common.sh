# tests/cost/common.sh - the prologue the cost tests share.  Source it; it
# gives $BIN (the probe-heavy program) and $out (a scratch directory removed
# at exit), and skips (exit 77) without python3, which reads the reports.
set -u
: "${HYPROF_BIN:?}" "${HYPROF_TEST_BIN:?}"
BIN=$HYPROF_TEST_BIN/cost_probe_heavy
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
command -v python3 >/dev/null || { echo "skip: python3 is needed to read the JSON report"; exit 77; }
