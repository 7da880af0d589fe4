#!/usr/bin/env bash
# gpu_peaks_test.sh - `kbench peaks --quick` on the GPUs of every runtime
# built in: exit 0, and per runtime either its no-device line ("no CUDA
# device (...): GPU ceilings skipped") or a table of its device 0.
# Usage: gpu_peaks_test.sh KBENCH RUNTIME... (CUDA, HIP: those built)
set -uo pipefail
kbench=$1
shift
out=$("$kbench" peaks --quick --threads 1 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: kbench peaks --quick exited $rc" >&2; exit 1; }
if [ $# -eq 0 ]; then
    grep -q '^no CUDA or HIP runtime built in.*: GPU ceilings skipped$' <<<"$out" ||
        { echo "FAIL: no line saying no GPU runtime is built" >&2; exit 1; }
fi
for name in "$@"; do
    lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
    if grep -q "^no $name device (.*): GPU ceilings skipped\$" <<<"$out"; then
        continue
    fi
    grep -q "^$lower device 0: " <<<"$out" ||
        { echo "FAIL: neither \"no $name device (...): GPU ceilings skipped\"" \
               "nor a $lower device 0 table" >&2; exit 1; }
done
echo PASS
