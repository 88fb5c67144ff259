#!/bin/sh
# bench/core/run.sh BUILD - calling context tree and profile file speed:
#  1. lookup cost with the sibling reordering of core/cct.c / without it,
#     for children visited round-robin, skewed 80/20 and uniformly (ratio
#     < 1: the reordering helps; it should never be far above 1);
#  2. merge (Mnodes/s), write with fsync and read with every check (MB/s).
set -u
BUILD=$(cd "${1:-build}" && pwd)
echo "(load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs: ratios are best of 5)"
exec "$BUILD/bench/bin/bench_cct"
