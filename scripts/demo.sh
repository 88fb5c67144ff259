#!/bin/sh
# scripts/demo.sh BUILD - profile the bundled MPI example under mpirun and
# print the report.  `make demo` builds first, then runs this.
set -e
BUILD=${1:-build}
HYPROF="$BUILD/bin/hyprof"
DEMO="$BUILD/examples/mpi_demo"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "demo: mpirun not found: install Open MPI (scripts/install-deps.sh does) and rerun make demo" >&2
	exit 1
fi
if [ ! -x "$HYPROF" ] || [ ! -x "$DEMO" ]; then
	echo "demo: $HYPROF or $DEMO is missing: run make build first (MPI must be found by CMake)" >&2
	exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d /tmp/hyprof-demo.XXXXXX)
OUT="$TMP/demo-prof"
echo "demo: mpirun -np 2 $HYPROF run -o $OUT -- $DEMO" >&2
mpirun -np 2 --allow-run-as-root --oversubscribe "$HYPROF" run -o "$OUT" -- "$DEMO"
echo "demo: hyprof report $OUT" >&2
"$HYPROF" report "$OUT"
echo "demo: the profile stays in $OUT (hyprof report --json $OUT, hyprof report --ranks $OUT)" >&2
