#!/usr/bin/env bash
# cli_cuda_vendor_nodevice.sh KBENCH JSONL_CHECK - with no CUDA device,
# `kbench list backends` shows cublas and cudnn with "(no device)", and a
# catalog run on them exits 0 with every case SKIPPED naming "no CUDA
# device", the warning said once for both.  Skipped (77) on a machine
# that has a device: there the backends' own tests apply.
set -euo pipefail
kbench=$1
check=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$kbench" list backends > "$tmp/list"
for b in cublas cudnn; do
    line=$(grep "^$b " "$tmp/list") ||
        { echo "$b is not listed:"; cat "$tmp/list"; exit 1; }
    case $line in
    *"(no device)"*) ;;
    *) echo "$b has a device ($line): nothing to check here"; exit 77 ;;
    esac
done

rc=0
"$kbench" run --model resnet50 --backend cublas,cudnn --quiet \
    --json "$tmp/r.jsonl" > "$tmp/out" 2> "$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { echo "kbench run exited $rc:"; cat "$tmp/err"; exit 1; }
"$check" "$tmp/r.jsonl" --status SKIPPED
n=$(grep -c '"status":"SKIPPED"' "$tmp/r.jsonl")
m=$(grep '"status":"SKIPPED"' "$tmp/r.jsonl" | grep -c 'no CUDA device' || true)
[ "$n" -gt 0 ] || { echo "no cases ran"; exit 1; }
[ "$m" -eq "$n" ] ||
    { echo "$((n - m)) of $n cases SKIPPED without naming 'no CUDA device'"; exit 1; }
[ "$(grep -c 'warning: cublas, cudnn: no CUDA device' "$tmp/err")" -eq 1 ] ||
    { echo "not one shared warning on stderr:"; cat "$tmp/err"; exit 1; }
echo "$n cases SKIPPED (no CUDA device), exit 0"
