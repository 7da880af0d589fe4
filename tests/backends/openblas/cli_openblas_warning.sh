#!/usr/bin/env bash
# cli_openblas_warning.sh KBENCH JSONL_CHECK - forcing OpenBLAS onto its
# generic Prescott kernels must make `kbench run` warn on stderr, naming
# the fix, and record the fallback in the run record.
set -euo pipefail
kbench=$1
check=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! grep -qw avx2 /proc/cpuinfo; then
    echo "CPU without AVX2: nothing to fall back from"
    exit 77
fi
OPENBLAS_CORETYPE=Prescott "$kbench" run --backend openblas --desc m8n8k8 \
    --reps 1 --min-time 0 --quiet --json "$tmp/r.jsonl" 2> "$tmp/err"
grep -q "warning: openblas: .*'Prescott'.*OPENBLAS_CORETYPE=" "$tmp/err" ||
    { echo "no warning on stderr:"; cat "$tmp/err"; exit 1; }
"$check" "$tmp/r.jsonl" --cases 1 --status PASSED
head -1 "$tmp/r.jsonl" | grep -q '"core_fallback":"true"' ||
    { echo "run record lacks core_fallback true"; head -1 "$tmp/r.jsonl"; exit 1; }
head -1 "$tmp/r.jsonl" | grep -q '"corename":"Prescott"' ||
    { echo "run record lacks the core name"; exit 1; }

# With a matching core there is no warning.
OPENBLAS_CORETYPE=SkylakeX "$kbench" run --backend openblas --desc m8n8k8 \
    --reps 1 --min-time 0 --quiet 2> "$tmp/err2" > /dev/null
if grep -q "warning: openblas" "$tmp/err2" && grep -qw avx512f /proc/cpuinfo; then
    echo "unexpected warning with SkylakeX on an AVX-512 CPU:"; cat "$tmp/err2"; exit 1
fi
echo "1 passed, 0 failed"
