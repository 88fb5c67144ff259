#!/bin/sh
# bench/sampler/run.sh BUILD_DIR - sampler figures, measured in one run:
#   per-sample cost of hyprof and of the bare kernel path (same event, empty
#   handler), overhead at the default rate, hyprof vs `perf record -g` at
#   1 kHz and 10 kHz (libunwind and --unwind kernel), memory per thread,
#   profile bytes per call path.
# Prints tables of ratios; bench.py says how each figure is computed.
# REPS=N sets the repetitions per configuration (default 5).
BUILD=$(cd "${1:-build}" && pwd)
exec python3 "$(dirname "$0")/bench.py" "$BUILD"
