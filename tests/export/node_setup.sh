#!/bin/sh
# tests/export/node_setup.sh NODE_DIR PACKAGE_JSON
# Install the node packages a test needs into NODE_DIR (in the build tree),
# from the npm registry, once per package.json content.  Exit 77 (skip) with
# the reason when node or npm is missing or the registry cannot be reached.
# Tests running at the same time share NODE_DIR under a lock.
dir=$1
pkg=$2
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (scripts/install-deps.sh --browser installs it)"
  exit 77
fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
if [ -z "$major" ] || [ "$major" -lt 18 ]; then
  echo "SKIP: node $(node --version 2>/dev/null) is too old (18 or later needed)"
  exit 77
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "SKIP: npm is not installed"
  exit 77
fi
mkdir -p "$dir" || exit 1
(
  flock 9
  if [ -d "$dir/node_modules" ] && cmp -s "$pkg" "$dir/package.json"; then
    exit 0
  fi
  cp "$pkg" "$dir/package.json" || exit 1
  rm -f "$dir/.installed"
  if ! (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --loglevel=error \
        >"$dir/npm-install.log" 2>&1); then
    rm -f "$dir/package.json"
    echo "SKIP: npm install failed (is the npm registry reachable?); see $dir/npm-install.log:"
    tail -5 "$dir/npm-install.log"
    exit 77
  fi
  exit 0
) 9>"$dir.lock"
