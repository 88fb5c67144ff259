#!/bin/sh
# bench/cost/run.sh BUILD_DIR: the cost system's validation (bench/run_all.sh).
BUILD=${1:-build}
shift 2>/dev/null
sh "$(dirname "$0")/startup.sh" "$BUILD"
sh "$(dirname "$0")/mpi_range.sh" "$BUILD"
exec "$BUILD/bench/cost_bounds" "$@"
