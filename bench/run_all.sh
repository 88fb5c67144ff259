#!/bin/sh
# Run every benchmark area's run.sh with the build directory; each prints
# ratios measured in one run.  Usage: bench/run_all.sh BUILD_DIR
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for area in core sampler counting cost mpi critpath tools; do
  if [ -x "$here/$area/run.sh" ]; then
    echo "== bench/$area =="
    "$here/$area/run.sh" "$BUILD" || echo "bench/$area: failed (exit $?)"
  fi
done
