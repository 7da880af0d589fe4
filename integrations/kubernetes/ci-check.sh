#!/usr/bin/env bash
# integrations/kubernetes/ci-check.sh [KBENCH] - CI for the Kubernetes
# manifests: gen-jobs.py writes them for CPU nodes, NVIDIA nodes and AMD
# nodes (and once without PyYAML, as JSON); kubernetes-validate (PyPI, in a
# throw-away venv, offline schemas) validates them strictly against the
# oldest and newest Kubernetes it ships; check-manifests.py checks the
# fields the run depends on.  With KBENCH (a built kbench) the Jobs' own
# scripts also run here against it.  Each check is also shown to fail on a
# broken manifest or a bad argument.  Exit 0 when all pass, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kbench=${1:-}
if [ -n "$kbench" ] && [ ! -x "$kbench" ]; then
  echo "ci-check: $kbench is not an executable kbench" >&2
  exit 1
fi
validator_version=1.37.0
k8s_versions="1.25.0 1.37.0"   # the oldest and newest kubernetes-validate ships
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! python3 -m venv "$tmp/venv" 2>/dev/null; then
  # Debian's python3 has no venv module (nor ensurepip) without python3-venv
  apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$tmp/venv"
fi
"$tmp/venv/bin/pip" install --quiet "kubernetes-validate==$validator_version"
py=$tmp/venv/bin/python   # has PyYAML: kubernetes-validate needs it

failed=0
fail() { echo "ci-check: FAIL $*"; failed=1; }

# gen NAME NODES GPU-ARGS PYTHON: manifests in $tmp/NAME, a tiny selection
gen() {
  local name=$1 nodes=$2 gpu=$3 python
  read -ra python <<<"$4"
  # shellcheck disable=SC2086  # nodes and gpu are word lists
  "${python[@]}" "$here/gen-jobs.py" --image registry.example.org/kbench:0.1 \
    --pvc kbench-results --cpu 4 --memory 8Gi $gpu --run-id "ci-$name" \
    --out "$tmp/$name" $nodes \
    -- --desc m64n64k64 --kernel gemm --backend omp --reps 3 --min-time 0
}

validate() {
  local dir=$1 v
  for v in $k8s_versions; do
    "$tmp/venv/bin/kubernetes-validate" --strict --quiet -k "$v" \
      "$dir"/nodes/*.yaml "$dir/collector.yaml" "$dir/fetch.yaml" ||
      fail "$dir does not validate against Kubernetes $v"
  done
}

check() {  # check DIR NODES GPU-ARGS [--run KBENCH]
  local dir=$1 nodes=$2 gpu=$3
  shift 3
  # shellcheck disable=SC2086
  "$py" "$here/check-manifests.py" "$dir" --nodes "${nodes// /,}" \
    --pvc kbench-results --cpu 4 --memory 8Gi $gpu "$@"
}

cpu_nodes="node01 node02 node03.cluster.example.org"
nv_nodes="gpu01 gpu02"
amd_nodes="mi300-node-with-a-rather-long-name-that-must-be-cut.rack12.example.org"
run=()
[ -n "$kbench" ] && run=(--run "$kbench")

# one_set NAME NODES GPU-ARGS PYTHON [--run KBENCH]: generate, validate, check
one_set() {
  gen "$1" "$2" "$3" "$4" && validate "$tmp/$1" &&
    check "$tmp/$1" "$2" "$3" "${@:5}"
}
one_set cpu "$cpu_nodes" "" "$py" "${run[@]}" || fail "CPU nodes"
one_set nvidia "$nv_nodes" "--gpus 4 --gpu-vendor nvidia" "$py" ||
  fail "NVIDIA nodes"
one_set amd "$amd_nodes" "--gpus 8 --gpu-vendor amd" "$py" || fail "AMD nodes"
# -S: no site-packages, so no PyYAML: gen-jobs.py writes JSON
one_set json "$nv_nodes" "--gpus 1 --gpu-vendor nvidia" "python3 -S" ||
  fail "JSON manifests"
grep -q '^{' "$tmp/json/collector.yaml" ||
  fail "python3 -S wrote YAML: the JSON path was not exercised"

# The checks have teeth: each broken input must be refused.
cp -r "$tmp/cpu" "$tmp/bad"
sed -i '0,/memory: 8Gi/s//memory: 4Gi/' "$tmp/bad/nodes/kbench-node01.yaml"
check "$tmp/bad" "$cpu_nodes" "" >/dev/null &&
  fail "check-manifests accepted a memory request below its limit"
cp "$tmp/cpu/nodes/kbench-node01.yaml" "$tmp/bad/nodes/kbench-node01.yaml"
check "$tmp/bad" "$cpu_nodes" "--gpus 1 --gpu-vendor amd" >/dev/null &&
  fail "check-manifests accepted node Jobs without the GPUs asked for"
rm "$tmp/bad/nodes/kbench-node02.yaml"
check "$tmp/bad" "$cpu_nodes" "" >/dev/null &&
  fail "check-manifests accepted a node without a Job"
sed 's/^  backoffLimit: 0/  backoffLimit: 0\n  retries: 3/' \
  "$tmp/cpu/collector.yaml" >"$tmp/unknown-field.yaml"
"$tmp/venv/bin/kubernetes-validate" --strict --quiet "$tmp/unknown-field.yaml" \
  >/dev/null 2>&1 && fail "kubernetes-validate accepted an unknown field"
for bad in "Node_1" "--gpus 2 n1" "--cpu 0 n1" "n1 n1"; do
  rc=0
  # shellcheck disable=SC2086  # $bad is a word list
  "$py" "$here/gen-jobs.py" --image i --pvc p --cpu 1 --memory 1Gi \
    --out "$tmp/refused" $bad -- --model resnet50 2>/dev/null || rc=$?
  [ "$rc" -eq 2 ] || fail "gen-jobs.py $bad: exit $rc, expected 2"
done
[ ! -e "$tmp/refused" ] || fail "gen-jobs.py wrote files for a refused run"

if [ "$failed" -eq 0 ]; then
  echo "ci-check: Kubernetes manifests: 4 sets validated against" \
    "Kubernetes $k8s_versions and checked${kbench:+, Job scripts run with $kbench}"
fi
exit "$failed"
