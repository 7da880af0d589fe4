#!/usr/bin/env bash
# configure_broken_test.sh CMAKE SRC - configure must not fail because an
# optional backend's package is broken: with dnnl_DIR pointing at
# tests/cmake/broken_dnnl (a dnnl-config.cmake whose REQUIRED dependency is
# missing), configure exits 0 and the summary skips onednn, saying why.
set -euo pipefail
cmake=$1 src=$2
fake=$src/tests/cmake/broken_dnnl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
"$cmake" -S "$src" -B "$tmp/build" -Ddnnl_DIR="$fake" -DBUILD_TESTING=OFF \
    >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
if [ "$rc" -ne 0 ]; then
    echo "configure_broken_test: configure exited $rc" >&2
    exit 1
fi
want="kbench backends skipped: .*onednn (dnnl package in $fake: Could NOT find KbMissingOpenCL (missing: KbMissingOpenCL_LIBRARY KbMissingOpenCL_INCLUDE_DIR)"
if ! grep -q -- "$want" "$tmp/out"; then
    echo "configure_broken_test: no line matching: $want" >&2
    exit 1
fi
if grep -q "kbench backends built: .*onednn" "$tmp/out"; then
    echo "configure_broken_test: onednn built from a broken package" >&2
    exit 1
fi
echo "configure_broken_test: PASSED"
