#!/bin/sh
# bench/tools/run.sh BUILD_DIR [NODES] [RANKS]
# Each export and the HTML report of a synthetic profile of NODES call-path
# nodes (default 1000000) merged from RANKS ranks (default 64), each in its
# own process so the peak memory is that format's (bench/tools/big_export.c).
BUILD=${1:-build}
NODES=${2:-1000000}
RANKS=${3:-64}
bin="$BUILD/bench/tools/hp_bench_export"
[ -x "$bin" ] || { echo "bench/tools: $bin is not built"; exit 1; }
out=$(mktemp -d /tmp/hyprof-bench-export.XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "synthetic profile: $NODES call-path nodes merged from $RANKS ranks (generated in memory)"
"$bin" none "$out/none" "$NODES" "$RANKS" || exit 1
for f in pprof folded speedscope tau tau2 svg html; do
  "$bin" $f "$out/$f.out" "$NODES" "$RANKS" || echo "bench/tools: $f failed"
  rm -rf "$out/$f.out"
done
