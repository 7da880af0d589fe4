#!/usr/bin/env bash
# configure_broken_test.sh CMAKE SRC - configure must not fail because an
# optional backend's package is broken or is a version the backend cannot
# build against: with dnnl_DIR pointing at tests/cmake/broken_dnnl (a
# dnnl-config.cmake whose REQUIRED dependency is missing), then at
# tests/cmake/old_dnnl (oneDNN 2.5.4, older than the 2.6 C API), configure
# exits 0 and the summary skips onednn, saying why.
set -euo pipefail
cmake=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_skipped FAKE_DIR WHY: configure with dnnl_DIR=FAKE_DIR succeeds
# and skips onednn with the reason WHY (a grep pattern).
expect_skipped() {
    local fake=$src/tests/cmake/$1 want rc=0
    want="kbench backends skipped: .*onednn ($2"
    rm -rf "$tmp/build"
    "$cmake" -S "$src" -B "$tmp/build" -Ddnnl_DIR="$fake" -DBUILD_TESTING=OFF \
        >"$tmp/out" 2>&1 || rc=$?
    cat "$tmp/out"
    if [ "$rc" -ne 0 ]; then
        echo "configure_broken_test: $1: configure exited $rc" >&2
        exit 1
    fi
    if ! grep -q -- "${want//FAKE/$fake}" "$tmp/out"; then
        echo "configure_broken_test: $1: no line matching: ${want//FAKE/$fake}" >&2
        exit 1
    fi
    if grep -q "kbench backends built: .*onednn" "$tmp/out"; then
        echo "configure_broken_test: $1: onednn built from it" >&2
        exit 1
    fi
}
expect_skipped broken_dnnl "dnnl package in FAKE: Could NOT find KbMissingOpenCL (missing: KbMissingOpenCL_LIBRARY KbMissingOpenCL_INCLUDE_DIR)"
expect_skipped old_dnnl "oneDNN 2.5.4 in FAKE: the backend builds against oneDNN 2.6 to 3.x only"
echo "configure_broken_test: PASSED"
