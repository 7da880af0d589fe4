#!/usr/bin/env bash
# install_test.sh BUILD SRC - an installed kbench works with no source tree.
# Installs BUILD into a temporary prefix and moves the prefix (so no path
# known at build time leads to it); as root, hides SRC and BUILD under an
# empty tmpfs in a private mount namespace.  From there `list`, `io gen`
# and `run` must work from share/kbench alone, KBENCH_DATA_DIR must
# override it, and without it every verb must say where it looked: exit 2
# for `list` and `run --model` (catalog unreadable, like a batch file),
# 3 for `kbench io` (runtime).
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/prefix"
kb=$tmp/prefix/bin/kbench
share=$tmp/prefix/share/kbench
for f in "$kb" "$share/catalog/resnet50.txt" "$share/io/profiles.conf" \
         "$share/io/dlio_keys.conf"; do
    [ -e "$f" ] || fail "not installed: $f"
done
# No data path into the source tree is compiled in any more (whole
# strings: debug info names the sources, kernels/catalog.c among them).
for p in "$src/kernels/catalog" "$src/iostage/profiles.conf"; do
    ! strings "$kb" | grep -qxF "$p" || fail "$kb still names $p"
done

# KB_TEST_EMULATOR: the command that runs a cross-built kbench
# (tests/cmake/cmake.cmake), e.g. "qemu-aarch64-static -L SYSROOT".
read -ra emulator <<<"${KB_TEST_EMULATOR:-}"
hide=()
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
    trees=("$src")
    case "$build/" in "$src"/*) ;; *) trees+=("$build") ;; esac
    # an emulator's sysroot may lie in the source tree (.cache/): then
    # the build tree alone is hidden
    [ ${#emulator[@]} -eq 0 ] || trees=("$build")
    # sh -c 'SCRIPT' N TREES... KBENCH ARGS...
    # shellcheck disable=SC2016  # expanded by that sh
    hide=(unshare --mount sh -c 'n=$0; while [ "$n" -gt 0 ]; do
        mount -t tmpfs none "$1" || exit 99; shift; n=$((n - 1)); done
        exec "$@"' "${#trees[@]}" "${trees[@]}")
    echo "install_test: ${trees[*]} hidden"
fi
# kb EXPECTED-RC ARGS...: runs the installed kbench from outside both
# trees with no data overrides; output in $tmp/out.
kb() {
    local want=$1 rc=0
    local envargs=(-u KBENCH_CATALOG_DIR -u KBENCH_IO_PROFILES -u KBENCH_DATA_DIR)
    shift
    [ -z "$KB_DATA" ] || envargs+=("KBENCH_DATA_DIR=$KB_DATA")
    (cd "$tmp" && env "${envargs[@]}" "${hide[@]}" "${emulator[@]}" "$kb" "$@") \
        >"$tmp/out" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$tmp/out" >&2; fail "kbench $* exited $rc, expected $want"; }
}

KB_DATA=""
kb 0 list models
grep -q '^ *resnet50' "$tmp/out" || fail "list models does not list resnet50"
kb 0 list layers --model resnet50
grep -q conv "$tmp/out" || fail "list layers --model resnet50 lists no conv"
kb 0 io gen --profile cosmoflow --dir "$tmp/gen" --scale 0.000001
[ -f "$tmp/gen/kbench-io.manifest" ] || fail "io gen wrote no manifest"
# a DLIO workload YAML, read through the installed key table
cp "$src/tests/inputs/dlio/unet3d_h100.yaml" "$tmp/"
kb 0 io gen --dlio-config "$tmp/unet3d_h100.yaml" dataset.num_files_train=2 \
    dataset.record_length=4096 dataset.record_length_stdev=0 --dir "$tmp/dlio"
[ -f "$tmp/dlio/train/img_0_of_2.npz" ] || fail "io gen --dlio-config wrote no train/img_0_of_2.npz"
kb 0 run --model resnet50 --kernel gemm --backend omp --reps 1 --quiet

# KBENCH_DATA_DIR wins; without any data directory, the errors say where.
mv "$share" "$tmp/data"
KB_DATA=$tmp/data
kb 0 list models
KB_DATA=""
for args in "2 list models" "2 run --model resnet50" \
            "3 io gen --profile cosmoflow --dir $tmp/gen2"; do
    # shellcheck disable=SC2086  # the words are the command line
    kb $args
    grep -q "no kbench data directory: set KBENCH_DATA_DIR or install kbench (looked for $share" "$tmp/out" ||
        { cat "$tmp/out" >&2; fail "kbench ${args#* }: unclear error"; }
done
echo "install_test: PASSED"
