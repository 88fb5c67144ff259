#!/bin/sh
# Install what hyprof needs to build and test on Debian 12, only what is missing.
# Usage: scripts/install-deps.sh [--browser]   (--browser adds what only the tests use:
# chromium for the HTML tests, hpcc for the third-party MPI application test,
# MPICH for the wrappers' second MPI, Go for its own pprof reader of the pprof
# export, clang for the symbol tests of a compiler without .debug_aranges;
# Open MPI stays the default mpicc/mpirun)
set -e
PKGS="build-essential cmake pkg-config libpapi-dev papi-tools libunwind-dev \
libopenmpi-dev openmpi-bin libdw-dev libelf-dev libpfm4-dev zlib1g-dev \
libprotobuf-c-dev protobuf-c-compiler gfortran python3 tmux linux-perf"
[ "$1" = "--browser" ] && PKGS="$PKGS chromium nodejs npm hpcc mpich libmpich-dev golang-go clang"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# node and go may come from outside Debian (newer ones already on PATH): keep them.
if command -v node >/dev/null 2>&1; then
  missing=$(echo "$missing" | sed 's/ nodejs//; s/ npm//')
fi
command -v go >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ golang-go//')
[ -z "$(echo $missing)" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
