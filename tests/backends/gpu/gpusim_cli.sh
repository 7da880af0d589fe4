#!/usr/bin/env bash
# gpusim_cli.sh - gpusim is for correctness only, end to end
# (tests/backends/gpu/gpusim.cmake):
#
#   gpusim_cli.sh CASE KBENCH
#
#   default_set:  a run without --backend leaves it out; named, it runs,
#                 and its case record says "performance": false with the
#                 mode, warp size and "timings" in its plan.
#   left_out:     merge leaves its cases out of a file that has others,
#                 and compare and report refuse a file of nothing else,
#                 saying why.
set -uo pipefail

case_name=$1 kbench=$2
KB_TEST_PREFIX=gpusim
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../../test_lib.sh"

opts=(--desc m8n8k8 --reps 1 --warmup 0 --min-time 0 --quiet)

test_default_set() {
    run_kb 0 run "${opts[@]}" --json "$tmp/all.jsonl"
    if grep -q '"backend":"gpusim"' "$tmp/all.jsonl"; then
        fail "the default backend set ran gpusim"
    fi
    KBENCH_GPUSIM_MODE=ordered KBENCH_GPUSIM_WARP=64 \
        run_kb 0 run "${opts[@]}" --backend gpusim --json "$tmp/g.jsonl"
    expect "$tmp/g.jsonl" '"backend":"gpusim","performance":false' "record"
    expect "$tmp/g.jsonl" '"gpusim_mode":"ordered","gpusim_warp":"64"' "plan"
    expect "$tmp/g.jsonl" '"timings":"mean nothing' "plan timings"
    expect "$tmp/g.jsonl" '"status":"PASSED"' "status"
    KBENCH_GPUSIM_MODE=bogus run_kb 0 run "${opts[@]}" --backend gpusim \
        --json "$tmp/bad.jsonl"
    expect "$tmp/bad.jsonl" '"status":"SKIPPED".*KBENCH_GPUSIM_MODE=bogus' \
        "bad mode SKIPPED naming the variable"
}

test_left_out() {
    run_kb 0 run "${opts[@]}" --backend omp,gpusim --json "$tmp/mixed.jsonl"
    run_kb 0 merge "$tmp/mixed.jsonl" --md "$tmp/m.md"
    expect "$tmp/m.md" 'omp' "merge table"
    if grep -Eq '(^|[| ])gpusim([ |]|$)' "$tmp/m.md"; then
        fail "merge kept gpusim's cases"
    fi
    run_kb 0 run "${opts[@]}" --backend gpusim --json "$tmp/g.jsonl"
    run_kb 2 compare "$tmp/g.jsonl" "$tmp/g.jsonl"
    expect "$tmp/err" 'correctness-only backend' "compare refuses"
    run_kb 2 report "$tmp/g.jsonl" --outdir "$tmp/report"
    expect "$tmp/err" 'correctness-only backend' "report refuses"
}

run_case "$case_name"
