#!/usr/bin/env bash
# arm-check.sh - prove the aarch64 build on an x86-64 Debian machine:
# cross-compile kbench with Debian's crossbuild-essential-arm64 against an
# arm64 sysroot, run the whole ctest under qemu-aarch64 with SVE-512
# (-cpu max,sve512=on, A64FX-like), the backend, reference and peaks
# tests again on a NEON-only CPU (-cpu neoverse-n1; omp's forced kernels
# only once), then a few catalog
# layers on omp, openblas and onednn, validated, and `kbench peaks
# --quick`.  Emulated timings mean nothing: the records say "emulated",
# and no test asserts a speed.
#
# Needs: crossbuild-essential-arm64 qemu-user-static mmdebstrap (as
# root: apt-get install ...).  The sysroot is made once with mmdebstrap
# --variant=extract from this machine's own apt sources and cached in
# KB_ARM_CACHE (default .cache/arm64, git-ignored); it is made again when
# the package list below changes.  Exit: 0 all passed, 1 a step failed,
# 2 a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${KB_ARM_CACHE:-$PWD/.cache/arm64}
build=${KB_ARM_BUILD:-$PWD/build/arm64}
jobs=$(nproc)
# The arm64 -dev packages of scripts/setup-debian.sh that the build and
# its tests link (extract mode installs no Essential packages: libc6-dev
# and libgcc's are named; ocl-icd-opencl-dev lets oneDNN's CMake package
# load, as on x86).
packages=(libc6-dev libgcc-12-dev libgomp1 libstdc++6 libcjson-dev
          libopenblas-dev libdnnl-dev ocl-icd-opencl-dev libhwloc-dev
          libxml2-dev zlib1g-dev libturbojpeg0-dev libhdf5-dev liburing-dev
          libyaml-dev libisal-dev libsqlite3-dev libssl-dev)

for tool in aarch64-linux-gnu-gcc qemu-aarch64-static mmdebstrap cmake; do
    if ! command -v "$tool" >/dev/null; then
        echo "arm-check.sh: $tool not found: apt-get install crossbuild-essential-arm64 qemu-user-static mmdebstrap cmake" >&2
        exit 2
    fi
done

t_start=$SECONDS
step() { echo "== arm-check: $* ($((SECONDS - t_start)) s so far)"; }

# ---- the sysroot, cached per package list and suite ----
# The suite and the mirror are this machine's (its apt sources), so the
# sysroot's libraries are the same Debian release as the cross compiler.
. /etc/os-release
suite=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
layout=2   # raise when what is done to the sysroot below changes
key=$(printf '%s\n' "$layout" "$suite" "${packages[@]}" | sha256sum | cut -c1-12)
sysroot=$cache/sysroot-$key
if [ -f "$sysroot/.complete" ]; then
    step "sysroot cached: $sysroot"
else
    step "making the arm64 sysroot $sysroot"
    rm -rf "$sysroot" && mkdir -p "$cache"
    shopt -s nullglob
    deb822=(/etc/apt/sources.list.d/*.sources)
    if [ ${#deb822[@]} -gt 0 ]; then
        sources=$(cat "${deb822[@]}")
    else
        sources=$(grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list)
    fi
    include=$(IFS=,; echo "${packages[*]}")
    mmdebstrap --quiet --arch=arm64 --variant=extract --include="$include" \
        "$suite" "$sysroot" - <<<"$sources"
    # what update-alternatives would have linked (extract mode runs no
    # maintainer scripts): OpenBLAS as the BLAS of an installed kbench
    multiarch=$sysroot/usr/lib/aarch64-linux-gnu
    for lib in libopenblas.so.0 libblas.so.3 liblapack.so.3; do
        ln -sf "openblas-pthread/$lib" "$multiarch/$lib"
    done
    touch "$sysroot/.complete"
fi

# ---- cross build ----
step "cross-building in $build"
mkdir -p "$build"   # its logs sit beside it, before cmake makes it
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA=OFF -DKBENCH_HIP=OFF \
      -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake" \
      -DKB_SYSROOT="$sysroot" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
grep -E "kbench (target|backends)" "$build.configure.log"
cmake --build "$build" -j"$jobs" >"$build.build.log" 2>&1 ||
    { tail -50 "$build.build.log"; exit 1; }

status=0
ctest_on() {   # QEMU_CPU ctest-args...
    local cpu=$1; shift
    step "ctest under qemu-aarch64 -cpu $cpu $*"
    QEMU_CPU=$cpu ctest --test-dir "$build" -j"$jobs" --timeout 1500 \
        --output-on-failure "$@" || status=1
}

# oneDNN 2.6 (Debian 12's arm64 build) gives 725 wrong points on one
# grouped, dilated BWD_D convolution under -cpu max,sve512=on and none
# under neoverse-n1: whether oneDNN's SVE-512 code or qemu's emulation of
# it is wrong is not known, so its two tests run here, are shown, and do
# not decide; on NEON (below) they must pass.
ctest_on max,sve512=on -E '^backend_onednn'
step "oneDNN's tests under -cpu max,sve512=on (shown, not deciding: see above)"
QEMU_CPU=max,sve512=on ctest --test-dir "$build" --timeout 1500 --output-on-failure \
    -R '^backend_onednn' || echo "== arm-check: KNOWN: oneDNN under emulated SVE-512 failed (not counted)"
# On NEON only, what the dispatch or a library picks differently from
# SVE-512: omp's own choice (its neon kernel, bf16 without BF16
# instructions), OpenBLAS's and oneDNN's kernels, the peaks.  The forced
# omp kernels (portable, neon) are the same instructions on either CPU and
# ran above; repeating them here cost about 5 of CI's minutes.
ctest_on neoverse-n1 -R 'backend|reference|peaks|fma|cpu_id' -E '^backend_omp_(portable|neon)$'

# ---- catalog layers on the CPU backends, validated, and the peaks ----
kbench=("$build/emulated/kbench")
for cpu in max,sve512=on neoverse-n1; do
    step "kbench run and peaks under -cpu $cpu"
    for backend in omp openblas onednn; do
        QEMU_CPU=$cpu "${kbench[@]}" run --model resnet50 --layer 'res2a_branch2[ab]' \
            --backend "$backend" --reps 1 --min-time 0 --warmup 0 \
            --json "$build/arm-check-$backend.jsonl" || status=1
    done
    QEMU_CPU=$cpu "${kbench[@]}" peaks --quick --no-gpu --json "$build/arm-check-peaks.json" ||
        status=1
done

step "done, exit $status"
exit $status
