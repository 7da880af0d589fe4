#!/usr/bin/env bash
# setup-debian.sh [PACKAGE...] - install what kbench needs to build and
# test on Debian (12 or later) or Ubuntu, and the optional PACKAGEs given
# (.ci/run: hipcc libamdhip64-dev, for the HIP backends).  Idempotent:
# nothing is fetched when all are installed.  Runs as root, or through
# sudo when it is available.
set -euo pipefail

# Required: toolchain, cJSON.  Vendor backends: OpenBLAS, oneDNN (CMake
# skips a backend whose library is missing and says so); oneDNN's CMake
# package needs OpenCL's development files (ocl-icd-opencl-dev, which
# brings the headers), only a Recommends of libdnnl-dev.  hwloc: cache
# sizes for `kbench peaks` (sysfs otherwise).  libxml2: the report test
# parses the SVG and HTML.  kbench io: zlib (required), libjpeg-turbo,
# HDF5 and liburing (a profile or engine whose library is missing says so),
# ISA-L (the read path's CRCs with SIMD; without it zlib and a table).
# python3-scipy: reference p-values for the compare and history statistics
# tests only.  libsqlite3-dev, libssl-dev: `kbench history`'s store and content hash
# (CMake skips the verb without them and says so).
# python3-numpy, python3-h5py: the DLIO dataset fixtures (tests/iostage/dlio_fixtures.py).
packages=(build-essential cmake pkg-config git libcjson-dev python3 python3-scipy
          python3-numpy python3-h5py
          libopenblas-dev libdnnl-dev ocl-icd-opencl-dev libhwloc-dev libxml2-dev
          zlib1g-dev libturbojpeg0-dev libhdf5-dev liburing-dev libyaml-dev
          libisal-dev libsqlite3-dev libssl-dev
          "$@")

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "setup-debian.sh: run as root or install sudo (needed: ${packages[*]})" >&2
    exit 1
fi

# Skip apt entirely when everything is already there (fast re-runs,
# offline machines that were set up before).
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup-debian.sh: all packages present (${packages[*]})"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
