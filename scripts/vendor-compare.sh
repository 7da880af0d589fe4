#!/usr/bin/env bash
# vendor-compare.sh - hand-written (omp) against the vendor CPU libraries
# (openblas, onednn) on the three model catalogs, in one invocation, and a
# Markdown table of GFLOP/s per layer, ratios and geometric means.
#
# usage: scripts/vendor-compare.sh [OUT.md]
#   BUILD=build/default   where kbench was built (cmake --preset default)
#   THREADS=<nproc>       threads for OpenMP, OpenBLAS and oneDNN alike
#   RESNET_MB=8           ResNet-50 batch; CosmoFlow and DeepCAM run at 1
#   DEEPCAM_LAYERS=...    regex: the representative DeepCAM subset
# OPENBLAS_CORETYPE is passed through untouched: run once with and once
# without it to see what OpenBLAS's core detection costs.  The table names
# the core OpenBLAS actually ran.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/default}
THREADS=${THREADS:-$(nproc)}
RESNET_MB=${RESNET_MB:-8}
# DeepCAM at batch 1 is ~560 GFLOP a pass; this subset keeps one of each
# kind: strided stem, dense 3x3, depthwise, pointwise, dilated depthwise,
# ASPP dilated 3x3, decoder 3x3, the pooled-branch GEMM and a batchnorm.
DEEPCAM_LAYERS=${DEEPCAM_LAYERS:-'^(D1|D2|D4|D5|D21|D23|D24|D28|D34|D40|D41)_|gemm|^bn_728'}
core=${OPENBLAS_CORETYPE:-unset}
# how to repeat the run: set the core type, or take it out of the environment
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    envset="OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
else
    envset="env -u OPENBLAS_CORETYPE"
fi
OUT=${1:-results/vendor/vendor-compare-coretype-${core}.md}
KB="$BUILD/kbench"

[ -x "$KB" ] || { echo "vendor-compare: $KB not built (cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--backend omp,openblas,onednn --threads "$THREADS" --reps 5 --min-time 0.5 --quiet)
rc=0
run() {
    local name=$1; shift
    echo "vendor-compare: $name ..." >&2
    "$KB" run "$@" "${common[@]}" --json "$tmp/$name.jsonl" || rc=$?
}
run resnet50 --model resnet50 --mb "$RESNET_MB"
run cosmoflow --model cosmoflow --mb 1
run deepcam --model deepcam --mb 1 --layer "$DEEPCAM_LAYERS"

mkdir -p "$(dirname "$OUT")"
python3 scripts/vendor_table.py --hand omp --vendor openblas,onednn \
    --title "omp vs OpenBLAS and oneDNN (OPENBLAS_CORETYPE=$core)" \
    --command "$envset THREADS=$THREADS RESNET_MB=$RESNET_MB scripts/vendor-compare.sh $*" \
    "$tmp"/resnet50.jsonl "$tmp"/cosmoflow.jsonl "$tmp"/deepcam.jsonl > "$OUT"
echo "vendor-compare: wrote $OUT (kbench exit status $rc)" >&2
exit "$rc"
