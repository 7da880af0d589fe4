#!/usr/bin/env bash
# device-pack.sh DIR - the bundle that scripts/device-check.sh runs from on
# a machine with an NVIDIA GPU that has nothing but its driver, the CUDA
# runtime libraries (cuBLAS, cuDNN: the toolkit's or NVIDIA's Python
# wheels'), python3 and compute-sanitizer: no compiler, no Debian package
# (docs/gpus.md, "The device check").  Built here, where nvcc, cuBLAS and
# cuDNN 9 are, into $BUILD; DIR then holds
#   device-check.sh       the check (scripts/device-check.sh)
#   device_goals.py       its goals (scripts/device_goals.py)
#   bin/                  kbench and the GPU tests' programs
#   lib/                  every shared library they load that is neither
#                         glibc's, GCC's runtime (libstdc++, libgcc_s: the
#                         NVIDIA libraries need the machine's own) nor
#                         NVIDIA's driver, cuBLAS or cuDNN; bin/ finds it
#                         first (RPATH $ORIGIN/../lib)
#   share/kbench/         the data directory (catalogs, peaks tables)
#   src/                  the GPU tests' scripts and inputs, at their paths
#   tests.tsv             the GPU tests (`ctest -L gpu`), with the bundle's
#                         paths: NAME, SKIP_CODE, ENV, then the command
#   bundle.txt            commit, CUDA, the newest glibc symbol needed
# and must fit the 64 MiB that can travel to the GPU machine (checked).
#   BUILD=build/device-pack  JOBS=2  CUDAARCHS=90 (H100/H200)
# Needs what scripts/setup-debian.sh installs, patchelf (.ci/run:
# setup-debian.sh patchelf), nvcc, cuBLAS and cuDNN 9.  Exit 0 packed, 1 build or pack failed, 2 usage.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: scripts/device-pack.sh DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
BUILD=${BUILD:-build/device-pack}
JOBS=${JOBS:-2}
export CUDAARCHS=${CUDAARCHS:-90}
LIMIT_MIB=64
build=$(realpath -m "$BUILD")
command -v patchelf >/dev/null ||
    { echo "device-pack: no patchelf (scripts/setup-debian.sh patchelf)" >&2; exit 2; }

# KB_NATIVE=OFF: the GPU machine's CPU is not this one.  The CPU vendor
# backends and gpusim are of no use there; HDF5 (kbench io's optional
# reader) would bring a dozen libraries (curl, ssl, ...) for nothing.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKB_NATIVE=OFF \
    -DKBENCH_CUDA=ON -DKBENCH_HIP=OFF -DKBENCH_GPUSIM=OFF \
    -DKB_WITH_OPENBLAS=OFF -DKB_WITH_ONEDNN=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON >"$build.configure.log" 2>&1 ||
    { tail -20 "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j"$JOBS" >"$build.build.log" 2>&1 ||
    { tail -30 "$build.build.log" >&2; exit 1; }

rm -rf "${dir:?}"/*
mkdir -p "$dir/bin" "$dir/lib" "$dir/share"
cp scripts/device-check.sh "$dir/device-check.sh"
cp scripts/device_goals.py "$dir/device_goals.py"
cp -r "$build/share/kbench" "$dir/share/kbench"
cp "$build/kbench" "$dir/bin/"
# the test scripts source it
mkdir -p "$dir/src/tests"
cp tests/test_lib.sh "$dir/src/tests/"

# The GPU tests as ctest knows them, each path moved into the bundle:
# programs of the build to bin/, files of the source tree to src/.
ctest --test-dir "$build" -L gpu --show-only=json-v1 2>/dev/null |
python3 -c '
import json, os, shutil, sys
build, src, out = sys.argv[1:4]
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if not t.get("command"):
        sys.exit("device-pack: test %s: no command (not built?)" % t["name"])
    args = []
    for a in t["command"]:
        if a.startswith(build + "/"):
            dest = "bin/" + os.path.basename(a)
        elif a.startswith(src + "/"):
            dest = "src/" + os.path.relpath(a, src)
        elif os.path.isabs(a):
            args.append(os.path.basename(a))   # bash: from PATH there
            continue
        else:
            args.append(a)
            continue
        os.makedirs(os.path.join(out, os.path.dirname(dest)), exist_ok=True)
        shutil.copy2(a, os.path.join(out, dest))
        args.append("@BUNDLE@/" + dest)
    print("\t".join([t["name"], str(props.get("SKIP_RETURN_CODE", "-")),
                     " ".join(props.get("ENVIRONMENT", [])) or "-"] + args))
' "$build" "$src" "$dir" >"$dir/tests.tsv"

# Shared libraries: what ldd resolves for bin/, less the machine's own.
system_lib='^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
nvidia_lib='^(libcuda|libcublas|libcublasLt|libcudnn[a-z_]*|libnvidia-[a-z-]*)\.so'
for exe in "$dir"/bin/*; do
    ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }
                      $2 == "=>" && $3 == "not" { print $1, "MISSING" }'
done | sort -u | while read -r name path; do
    [ "$path" != MISSING ] ||
        { echo "device-pack: $name not found here" >&2; exit 1; }
    [[ $name =~ $system_lib || $name =~ $nvidia_lib ]] && continue
    cp -L "$path" "$dir/lib/$name"
done
# RPATH, not RUNPATH: it also serves the libraries' own dependencies.
# shellcheck disable=SC2016  # $ORIGIN: the loader's, not the shell's
origin='$ORIGIN'
for f in "$dir"/bin/*; do
    patchelf --force-rpath --set-rpath "$origin/../lib" "$f"
done
for f in "$dir"/lib/*; do
    patchelf --force-rpath --set-rpath "$origin" "$f"
done

# The newest glibc version any packed binary asks for: device-check.sh
# compares it with the machine's.
glibc=$(for f in "$dir"/bin/* "$dir"/lib/*; do objdump -T "$f"; done |
        grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
{
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(
        git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
    echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
    echo "cuda $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') (CUDAARCHS $CUDAARCHS)"
    echo "glibc ${glibc#GLIBC_}"
    echo "needs $(for exe in "$dir"/bin/*; do ldd "$exe"; done |
        awk '{ print $1 }' | grep -E "$nvidia_lib" | sort -u | tr '\n' ' ')"
} >"$dir/bundle.txt"

kib=$(du -sk "$dir" | cut -f1)
echo "device-pack: $dir: $((kib / 1024)) MiB ($kib KiB) of $LIMIT_MIB MiB"
if [ "$kib" -gt $((LIMIT_MIB * 1024)) ]; then
    echo "device-pack: the bundle is over $LIMIT_MIB MiB" >&2
    exit 1
fi
