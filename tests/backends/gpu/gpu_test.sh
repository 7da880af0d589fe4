#!/usr/bin/env bash
# gpu_test.sh - end-to-end tests of the GPU backends and of fp32 means
# fp32 (the fine validation fill), one function per ctest case
# (tests/backends/gpu/gpu.cmake).  Exit 77 (ctest: skipped) when the case cannot be
# decided on this machine.
#
#   gpu_test.sh CASE KBENCH BATCH
#
# The backends come from `kbench list backends --json`, in the registry's
# order: the CPU ones for fine_cpu, the GPU ones for the others, each with
# the vendor its no-device reason names (its device, upper-cased: CUDA,
# HIP).
set -uo pipefail

case_name=$1 kbench=$2 batch=$3
KB_TEST_PREFIX=gpu
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../../test_lib.sh"

names=() vendors=()
[ "$case_name" = fine_cpu ] && want=cpu || want=gpu
while read -r name device; do
    names+=("$name")
    vendors+=("${device^^}")
done < <("$kbench" list backends --json | python3 -c '
import json, sys
for b in json.load(sys.stdin):
    # a correctness-only backend (a simulated device) has its own tests
    if not b["performance"]:
        continue
    if (b["device"] == "cpu") == (sys.argv[1] == "cpu"):
        print(b["name"], b["device"])' "$want")
if [ ${#names[@]} -eq 0 ]; then
    echo "gpu_test: kbench lists no $want backend"
    [ "$case_name" = default_run ] && exit 77   # a CPU-only build
    exit 1
fi
list=$(IFS=,; echo "${names[*]}")

# has_device NAME: the backend's `kbench list backends` block has a
# device line other than "device none".
has_device() {
    "$kbench" list backends | awk -v b="$1" '
        /^[^ ]/ { mine = ($1 == b) }
        mine && $1 == "device" { found = 1; none = ($2 == "none") }
        END { exit !(found && !none) }'
}

# summarize FILE: "BACKEND STATUS COUNT" per backend and status, and
# "REASON ..." for each SKIPPED case's reason, from the case records.
summarize() {
    python3 - "$1" <<'PY'
import collections, json, sys
n = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "case":
        n[(r["backend"], r["status"])] += 1
        if r["status"] == "SKIPPED":
            print("REASON", r["backend"], r.get("reason", ""))
for (b, s), c in sorted(n.items()):
    print(b, s, c)
PY
}

# bad_status FILE STATUS...: the summary lines (not the reasons) of FILE
# with one of the statuses.
bad_status() {
    local file=$1 re
    shift
    re=$(IFS='|'; echo "$*")
    grep -v '^REASON' "$file" | grep -E " ($re) "
}

# CPU backends, --fill fine: nothing FAILED, the first backend (omp, the
# registry's first, which runs every case) PASSED every case, every other one PASSED some (openblas skips NHWC).
test_fine_cpu() {
    run_kb 0 run --fill fine --batch "$batch" --backend "$list" --reps 1 \
        --warmup 0 --min-time 0 --quiet --json "$tmp/r.jsonl"
    summarize "$tmp/r.jsonl" >"$tmp/sum"
    cat "$tmp/sum"
    expect "$tmp/r.jsonl" '"fill":"fine"' "run record"
    for b in "${names[@]}"; do
        expect "$tmp/sum" "^$b PASSED [1-9]" "$b PASSED some"
    done
    if grep -q "^${names[0]} SKIPPED" "$tmp/sum"; then
        fail "${names[0]} SKIPPED a case"
    fi
    if bad_status "$tmp/sum" FAILED ERROR MISTRUSTED >/dev/null; then
        fail "a case did not pass: $(bad_status "$tmp/sum" FAILED ERROR MISTRUSTED)"
    fi
}

# GPU backends, --fill fine: the vendor libraries' fp32 against TF32.
# Every case PASSED or SKIPPED with a reason, and each backend that has
# its device PASSED some.  Skipped (77) when none has one.
test_fine_gpu() {
    local present=()
    for b in "${names[@]}"; do
        has_device "$b" && present+=("$b")
    done
    if [ ${#present[@]} -eq 0 ]; then
        echo "no GPU backend has a device ($list): skipped"
        exit 77
    fi
    run_kb 0 run --fill fine --batch "$batch" --backend "$list" --reps 1 \
        --warmup 0 --min-time 0 --quiet --json "$tmp/r.jsonl"
    summarize "$tmp/r.jsonl" >"$tmp/sum"
    cat "$tmp/sum"
    for b in "${present[@]}"; do
        expect "$tmp/sum" "^$b PASSED [1-9]" "$b PASSED some"
    done
    if bad_status "$tmp/sum" FAILED ERROR MISTRUSTED >/dev/null; then
        fail "a case did not pass: $(bad_status "$tmp/sum" FAILED ERROR MISTRUSTED)"
    fi
}

# No device: `kbench list backends` marks each GPU backend, and a
# catalog run on them is all SKIPPED, with the vendor's reason, exit 0.
# Skipped (77) where a device is present.
test_no_device() {
    for b in "${names[@]}"; do
        if has_device "$b"; then
            echo "$b has a device: skipped"
            exit 77
        fi
    done
    run_kb 0 list backends
    for i in "${!names[@]}"; do
        local b=${names[$i]}
        expect "$tmp/out" "^$b +kind=[a-z]+ device=[a-z]+ \\(no device\\)" \
            "list backends: $b"
        awk -v b="$b" '/^[^ ]/ { mine = ($1 == b) }
                       mine && $1 == "device" && $2 == "none" { ok = 1 }
                       END { exit !ok }' "$tmp/out" ||
            fail "list backends: $b has no 'device none' line"
    done
    run_kb 0 run --model resnet50 --backend "$list" --reps 1 --min-time 0 \
        --quiet --json "$tmp/r.jsonl"
    summarize "$tmp/r.jsonl" >"$tmp/sum"
    for i in "${!names[@]}"; do
        local b=${names[$i]} v=${vendors[$i]}
        expect "$tmp/sum" "^$b SKIPPED [1-9]" "$b SKIPPED"
        if grep "^REASON $b " "$tmp/sum" | grep -vq "no $v device"; then
            fail "$b: a case SKIPPED without 'no $v device': $(grep "^REASON $b " "$tmp/sum" | grep -v "no $v device" | head -1)"
        fi
    done
    if bad_status "$tmp/sum" PASSED FAILED ERROR MISTRUSTED >/dev/null; then
        fail "a GPU case ran without a device: $(bad_status "$tmp/sum" PASSED FAILED ERROR MISTRUSTED)"
    fi
    expect "$tmp/err" "no (CUDA|HIP) device" "the warning said once"
}

# No device, no --backend: the GPU backends are left out of the default
# set, named on stderr once per reason, with it; none has a case record,
# and the summary counts their cases as left_out, apart from SKIPPED.
# Skipped (77) where a device is present, or no GPU backend is built.
test_default_run() {
    for b in "${names[@]}"; do
        if has_device "$b"; then
            echo "$b has a device: skipped"
            exit 77
        fi
    done
    run_kb 0 run --batch "$batch" --reps 1 --warmup 0 --min-time 0 \
        --json "$tmp/r.jsonl"
    summarize "$tmp/r.jsonl" >"$tmp/sum"
    for i in "${!names[@]}"; do
        local b=${names[$i]} v=${vendors[$i]}
        if grep -q "^$b " "$tmp/sum"; then
            fail "$b has case records: $(grep "^$b " "$tmp/sum")"
        fi
        [ "$(grep -cE "note: (.*, )?$b(,.*)? left out of the default backends: no $v device" "$tmp/err")" -eq 1 ] ||
            fail "$b: not named once, with 'no $v device': $(cat "$tmp/err")"
    done
    if grep -q "warning:.*no (CUDA|HIP) device" "$tmp/err"; then
        fail "the no-device warning is said for a run that left them out"
    fi
    expect "$tmp/out" "[0-9]+ skipped, [0-9]+ errors, [0-9]+ mistrusted, [1-9][0-9]* left out \\(no device: " \
        "the table's summary line"
    python3 - "$tmp/r.jsonl" "${names[@]}" <<'PY' || fail "summary record: left_out"
import collections, json, sys
path, gpus = sys.argv[1], sys.argv[2:]
records = [json.loads(line) for line in open(path)]
per_backend = collections.Counter(r["backend"] for r in records
                                  if r["type"] == "case")
problems = set(per_backend.values())
summary = records[-1]
print("cases per backend:", dict(per_backend), "summary:", summary)
assert len(problems) == 1, "backends ran different numbers of cases"
assert summary["left_out"] == problems.pop() * len(gpus)
assert summary["left_out_backends"] == gpus
assert summary["skipped"] == sum(r["status"] == "SKIPPED" for r in records
                                 if r["type"] == "case")
PY
}

run_case "$case_name"
