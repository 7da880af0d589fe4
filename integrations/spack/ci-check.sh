#!/usr/bin/env bash
# integrations/spack/ci-check.sh [BUILD-DIR] - CI for the Spack recipe,
# without Spack: package.py compiles (py_compile) and check-recipe.py,
# importing it through the stand-in modules in stub/, finds its variants
# equal to the backend options in this checkout's CMake and its data
# directories equal to those CMake installs.  With BUILD-DIR (a configured
# and built kbench) the build is also installed into a temporary prefix and
# the recipe's sanity paths and backend check run on it.  Each check is also
# shown to fail on a broken recipe (a renamed variant, an unmapped GPU
# target list, a oneDNN range wider than the backend's) or a CMake that
# has moved on (a new option, a renamed GPU option, a new data directory).
# Exit 0 when all pass, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "ci-check: FAIL $*"; failed=1; }

python3 - "$here/package.py" "$tmp/package.pyc" <<'EOF' || fail "package.py does not compile"
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)
EOF
install=()
[ -n "$build" ] && install=(--install "$build")
python3 "$here/check-recipe.py" "$here/package.py" "$src" "${install[@]}" ||
  fail "the recipe does not match the CMake"

# refused IN: check-recipe must fail on IN, saying WHAT (a grep pattern)
refused() {
  local what=$1 out
  shift
  if out=$(python3 "$here/check-recipe.py" "$@"); then
    fail "check-recipe accepted $what"
  elif ! grep -q "FAIL .*$what" <<<"$out"; then
    fail "check-recipe refused but did not name $what: $out"
  fi
}
# A variant renamed in the recipe (the first), its option left behind.
sed -E '0,/variant\("([a-z]+)"/s//variant("renamed_\1"/' "$here/package.py" \
  >"$tmp/renamed.py"
refused "no variant '" "$tmp/renamed.py" "$src"
# CMake files only, copied so that new options can be added to them.
mkdir "$tmp/cmake-only"
(cd "$src" && find . \( -name build -o -name .git -o -name out \) -prune -o \
  \( -name CMakeLists.txt -o -name '*.cmake' \) -print0 |
  xargs -0 cp --parents -t "$tmp/cmake-only")
(cd "$src" && cp --parents backends/backends.txt "$tmp/cmake-only")
cp -r "$tmp/cmake-only" "$tmp/new-option"
echo 'option(KB_WITH_FOO "a backend without a variant" ON)' \
  >>"$tmp/new-option/backends/CMakeLists.txt"
refused "KB_WITH_FOO" "$here/package.py" "$tmp/new-option"
# A GPU target list left unmapped (amdgpu_target's KBENCH_HIP_ARCHITECTURES).
grep -v '"amdgpu_target": ' "$here/package.py" >"$tmp/untargeted.py"
refused "KBENCH_HIP_ARCHITECTURES" "$tmp/untargeted.py" "$src"
# A GPU variant whose CMake option is gone (KBENCH_HIP renamed in CMake).
cp -r "$tmp/cmake-only" "$tmp/hip-renamed"
sed -i 's/KBENCH_HIP\b/KBENCH_ROCM/g' "$tmp/hip-renamed/cmake/KbGpu.cmake"
refused "KBENCH_HIP, which no CMake file declares" "$here/package.py" \
  "$tmp/hip-renamed"
# A backend whose switch no variant sets (backends/backends.txt).
cp -r "$tmp/cmake-only" "$tmp/new-backend"
{ cat "$src/backends/backends.txt"; echo "foo KB_WITH_FOO cpu"; } \
  >"$tmp/new-backend/backends/backends.txt"
refused "KB_WITH_FOO (backends/backends.txt) is no variant" \
  "$here/package.py" "$tmp/new-backend"
# A oneDNN the backend cannot build against, allowed by the recipe.
sed 's/"onednn@[0-9.:]*"/"onednn@2.6:"/' "$here/package.py" >"$tmp/any-onednn.py"
refused "CMake builds against @2.6:3" "$tmp/any-onednn.py" "$src"
# A data directory the recipe's sanity check does not know.
cp -r "$tmp/cmake-only" "$tmp/new-data"
echo 'kb_data(bands results/bands.jsonl)' >>"$tmp/new-data/CMakeLists.txt"
refused "sanity_check_is_dir" "$here/package.py" "$tmp/new-data"

[ "$failed" -eq 0 ] && echo "ci-check: Spack recipe checked${build:+, install of $build checked}"
exit "$failed"
