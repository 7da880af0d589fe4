#!/usr/bin/env bash
# rocm-compile-check.sh [--suite S] [--cache DIR] - build kbench's HIP,
# rocblas and miopen backends against Debian's own ROCm packages, on a
# machine with no AMD GPU: a full chroot per suite (not headers unpacked
# beside the host's), configured with -DKBENCH_HIP=ON, compiled, linked
# against the real libraries, and their no-device tests run.
#   trixie  Debian 13: hipcc and HIP 5.7.1, rocBLAS 5.5.1    (hip rocblas)
#   sid     Debian unstable: hipcc 7.0, HIP 6.4.3, rocBLAS 6.4.4 and
#           MIOpen 6.4.3                              (hip rocblas miopen)
# It fails unless every backend named is built, kbench and the tests link,
# and the tests pass or skip for want of a device.  rocBLAS's GPU kernel
# files (Tensile code objects, 1.9 GB in Debian 13, only loaded on a
# device) are left out of the install (dpkg path-exclude); its library is
# there, and linked.
#   --suite S    only trixie or sid (default: both)
#   --cache DIR  where the installed chroots (SUITE-rocm-KEY.tar, made
#                again when a week old or when the package list changes)
#                and the downloaded .debs are kept; default
#                /var/cache/kbench/rocm
# Needs root (re-runs itself through sudo when available); network for
# apt only when a chroot is made: the mirror is the one this machine's apt
# uses (scripts/apt-mirror.sh), or KB_DEBIAN_MIRROR.  Prints the time each
# step took.  Exit code: 0 all built and passed, 1 a build or test failed,
# 2 usage or setup.
# shellcheck disable=SC2317  # cleanup runs from the trap
set -euo pipefail

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

src=$(cd "$(dirname "$0")/.." && pwd)
args=("$@")
suites=(trixie sid) cache=/var/cache/kbench/rocm
while [ $# -gt 0 ]; do
    case "$1" in
        --suite)
            [ $# -ge 2 ] || usage
            case "$2" in
                trixie | sid) suites=("$2") ;;
                *) echo "rocm-compile-check.sh: --suite $2: not trixie or sid" >&2
                   exit 2 ;;
            esac
            shift ;;
        --cache) [ $# -ge 2 ] || usage; cache=$(realpath -m "$2"); shift ;;
        *) usage ;;
    esac
    shift
done

. "$src/scripts/debian-chroot.sh"
chroot_as_root "$0" "${args[@]}"

# What kbench needs to configure and build (scripts/setup-debian.sh's
# required part), then each suite's ROCm packages and the backends that
# must come out built.
base_packages=(build-essential cmake pkg-config python3 libcjson-dev zlib1g-dev
               libyaml-dev libturbojpeg0-dev)
declare -A rocm_packages=(
    [trixie]="hipcc libamdhip64-dev librocblas-dev rocm-cmake"
    [sid]="hipcc libamdhip64-dev librocblas-dev libmiopen-dev rocm-cmake")
declare -A want_backends=([trixie]="hip rocblas" [sid]="hip rocblas miopen")
# The tests that need no device (a GPU one skips, exit 77), and what they run.
tests='^(test_registry|backends_table|test_gpu_nodevice|gpu_no_device|gpu_default_run|gpu_fp32_fine|gpu_backend_(hip|rocblas|miopen))$'
targets=(kbench test_backend test_registry test_gpu_nodevice)
# Not unpacked: rocBLAS's device code objects (the library's .so stays).
dpkg_excludes=(/usr/lib/x86_64-linux-gnu/rocblas/*)
layout=1   # raise when what is done to a chroot below changes

mirror=${KB_DEBIAN_MIRROR:-$("$src/scripts/apt-mirror.sh")} || exit 2
mkdir -p "$cache"
start=$SECONDS step_start=$SECONDS step_name="" timings=() root=""
# step NAME: ends the current step (recording its seconds), starts NAME.
step() {
    [ -z "$step_name" ] ||
        timings+=("$(printf '%-40s %5ss' "$step_name" $((SECONDS - step_start)))")
    step_name=$1 step_start=$SECONDS
    [ -z "$1" ] || echo "=== rocm-compile-check: $1"
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e
    step ""
    if [ -n "$root" ]; then
        if chroot_fs_release "$root"; then
            rm -rf --one-file-system "$root" "$root.part"
        else
            echo "rocm-compile-check: still mounted, NOT removing $root" >&2
            rc=2
        fi
    fi
    echo "=== rocm-compile-check: timings"
    printf '  %s\n' "${timings[@]}"
    echo "  total $((SECONDS - start))s, exit $rc"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# in_root CMD: runs CMD in the chroot's checkout, in a clean environment.
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash -c "cd /root/kbench && $1"
}

# make_chroot SUITE TAR: debootstrap SUITE, install its packages, and keep
# the result in TAR (written aside, then renamed).
make_chroot() {
    local suite=$1 tar=$2 debs=$cache/apt-$1 log=$root.debootstrap.log
    command -v debootstrap >/dev/null 2>&1 || {
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -qq -y --no-install-recommends debootstrap ||
            { apt-get update -qq &&
              apt-get install -qq -y --no-install-recommends debootstrap; }
    }
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$log" 2>&1 ||
        { tail -n 30 "$log" >&2; rm -f "$log"; exit 2; }
    rm -f "$log"
    mkdir "$root/root/kbench"   # where in_root runs; the checkout comes later
    # unstable's Release expires within a week: a snapshot mirror's is
    # past it
    echo "deb [check-valid-until=no] $mirror $suite main" >"$root/etc/apt/sources.list"
    printf 'path-exclude=%s\n' "${dpkg_excludes[@]}" >"$root/etc/dpkg/dpkg.cfg.d/kbench-rocm"
    echo force-unsafe-io >>"$root/etc/dpkg/dpkg.cfg.d/kbench-rocm"
    mkdir -p "$debs"
    cp -n "$debs"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
    chroot_fs_mount "$root"
    # shellcheck disable=SC2086  # the package list splits on purpose
    in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -qq -y --no-install-recommends \
        ${base_packages[*]} ${rocm_packages[$suite]} >/dev/null" ||
        { echo "rocm-compile-check: apt-get install failed in $suite" >&2; exit 2; }
    cp -n "$root"/var/cache/apt/archives/*.deb "$debs/" 2>/dev/null || true
    in_root "apt-get clean"
    chroot_fs_release "$root" || exit 2
    tar -cf "$tar.part" --numeric-owner -C "$root" . && mv "$tar.part" "$tar"
}

status=0 did=()
for suite in "${suites[@]}"; do
    key=$(printf '%s\n' "$layout" "$suite" "${base_packages[@]}" \
          "${rocm_packages[$suite]}" "${dpkg_excludes[@]}" | sha256sum | cut -c1-12)
    tar=$cache/$suite-rocm-$key.tar
    root=$(realpath "$(mktemp -d "${TMPDIR:-/var/tmp}/kbench-rocm.XXXXXX")")
    chmod 0755 "$root"
    if [ -n "$(find "$tar" -mtime -7 2>/dev/null)" ]; then
        step "$suite: unpack the cached chroot"
        tar -xpf "$tar" --numeric-owner -C "$root"
    else
        step "$suite: make the chroot (debootstrap, apt)"
        rm -f "$cache/$suite"-rocm-*.tar   # older keys
        make_chroot "$suite" "$tar"
    fi
    chroot_fs_mount "$root"
    in_root "dpkg-query -W -f='  \${Package} \${Version}\n' ${rocm_packages[$suite]}"

    step "$suite: configure, build and link"
    # the working tree as it is: tracked and untracked files git does not
    # ignore, no build dirs
    mkdir -p "$root/root/kbench"
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        (cd "$src" && tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
        tar -xf - -C "$root/root/kbench"
    ok=1
    in_root "mkdir -p build && cmake -S . -B build/rocm -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA=OFF \
             -DKBENCH_HIP=ON -DKBENCH_GPUSIM=OFF >build/configure.log 2>&1" ||
        ok=0
    built=$(sed -n 's/^-- kbench backends built: //p' "$root/root/kbench/build/configure.log" 2>/dev/null || true)
    echo "  built: $built"
    for b in ${want_backends[$suite]}; do
        [[ ";$built" == *";$b "* || ";$built;" == *";$b;"* ]] ||
            { echo "rocm-compile-check: $suite: backend $b not built"; ok=0; }
    done
    if [ "$ok" = 0 ]; then
        grep -E "skipped|Error" -A3 "$root/root/kbench/build/configure.log" || true
    elif ! in_root "cmake --build build/rocm -j$(nproc) --target ${targets[*]} \
                    >build/build.log 2>&1"; then
        grep -E "error|Error" -B2 -A6 "$root/root/kbench/build/build.log" | head -60
        ok=0
    else
        # the libraries kbench was linked with, by the chroot's loader
        in_root "ldd build/rocm/kbench | grep -E 'amdhip64|rocblas|MIOpen' | sed 's/^\s*/  linked: /'"
    fi

    if [ "$ok" = 1 ]; then
        step "$suite: the no-device tests"
        in_root "ctest --test-dir build/rocm -R '$tests' --output-on-failure" || ok=0
    fi
    if [ "$ok" = 1 ]; then
        did+=("$suite: built, linked and tested: $built")
    else
        did+=("$suite: FAILED")
        status=1
    fi
    step ""
    chroot_fs_release "$root" || exit 2
    rm -rf --one-file-system "$root"
    root=""
done

echo "=== rocm-compile-check: full chroot builds, linked against the real libraries"
printf '  %s\n' "${did[@]}"
exit "$status"
