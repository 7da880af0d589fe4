#!/usr/bin/env bash
# test.sh [PRESET] - set up a Debian machine and pass the tests:
# configure, build and run ctest through the CMake workflow preset
# (default: Release in build/default; asan: sanitised Debug in build/asan).
# Run as root or as a user with sudo: only setup-debian.sh's apt-get is
# run as root; the build belongs to whoever runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake --workflow --preset "${1:-default}"
