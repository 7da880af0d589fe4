#!/usr/bin/env bash
# cli_test.sh - end-to-end tests of the kbench program, one function per
# ctest case.  Usage: cli_test.sh CASE KBENCH JSONL_CHECK
set -uo pipefail

case_name=$1 kbench=$2 jsonl_check=$3
KB_TEST_PREFIX=cli
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

# no_cases FILE: a results file from a refused run holds no case record.
no_cases() {
    if [ -e "$1" ] && grep -q '"type":"case"' "$1"; then
        fail "$1 holds case records after a refused run"
    fi
}

test_help() {
    run_kb 0 --help
    expect "$tmp/out" '^Exit codes' "--help"
    expect "$tmp/out" '130, 143' "--help"
    expect "$tmp/out" 'kbench list layers --model M' "--help"
    run_kb 0
    expect "$tmp/out" '^Usage: kbench VERB' "no arguments"
    run_kb 0 --version
    expect "$tmp/out" '^kbench [0-9]+\.[0-9]+\.[0-9]+ ' "--version"
}

test_unknown_verb() {
    run_kb 2 frobnicate
    expect "$tmp/err" "unknown verb 'frobnicate'.*run.*list"
    run_kb 2 --frobnicate
    expect "$tmp/err" "unknown option '--frobnicate'.*run.*list"
}

test_list_models() {
    run_kb 0 list models
    for m in resnet50 cosmoflow deepcam; do
        expect "$tmp/out" "^$m +[0-9]+ +[0-9]+" "list models"
    done
    run_kb 2 list nope
    expect "$tmp/err" "unknown sub-verb 'nope'"
}

test_list_kernels_backends() {
    run_kb 0 list kernels
    for k in conv2d conv3d gemm bnorm; do expect "$tmp/out" "^$k " "list kernels"; done
    run_kb 0 list backends
    expect "$tmp/out" '^omp +kind=hand device=cpu' "list backends"
}

test_list_layers() {
    # Totals in bounds (conv taps on the padding not counted), then dense.
    run_kb 0 list layers --model resnet50
    expect "$tmp/out" '^  conv +7\.89 +8\.17$' "resnet50 conv total"
    expect "$tmp/out" '^  conv\+gemm +7\.90 +8\.18$' "resnet50 conv+gemm total"
    expect "$tmp/out" '^conv1 +conv2d +1 ' "resnet50 conv1 row"
    run_kb 0 list layers --model cosmoflow
    expect "$tmp/out" '^  conv +65\.14 +68\.85$' "cosmoflow conv total"
    run_kb 0 list layers --model deepcam
    # 283.33 GMAC in shapes.md's table: 566.67 GFLOP ("566.7" rounded)
    expect "$tmp/out" '^  conv +540\.68 +566\.67$' "deepcam conv total"
    # Totals are per sample whatever --mb says; rows scale with it.
    run_kb 0 list layers --model resnet50 --mb 4
    expect "$tmp/out" '^  conv +7\.89 +8\.17$' "resnet50 --mb 4 conv total"
    expect "$tmp/out" '^model resnet50, mb 4' "resnet50 --mb 4 header"
}

test_list_layers_bad() {
    run_kb 2 list layers --model nope
    expect "$tmp/err" 'nope' "unknown model message"
    expect "$tmp/err" 'resnet50' "unknown model message"
    run_kb 2 list layers
    expect "$tmp/err" '--model' "missing --model message"
    run_kb 2 list layers --model resnet50 --mb 0
    expect "$tmp/err" "--mb '0'" "bad --mb message"
}

# Each refused run: exit 2, a message naming the problem, no case records.
test_run_bad_inputs() {
    local j="$tmp/bad.jsonl"
    bad() {   # bad REGEX ARGS...
        local re=$1; shift
        rm -f "$j"
        run_kb 2 run --quiet --reps 1 --min-time 0 --json "$j" "$@"
        expect "$tmp/err" "$re" "kbench run $*"
        no_cases "$j"
    }
    bad 'qq.*(column|col)|(column|col).*qq' --desc mb1ic4ih8oc4kh3qq5
    bad 'oh.*(<= 0|at least 1)' --desc mb1ic4ih2oc4kh5
    bad 'group' --desc g3mb1ic4ih8oc6kh3
    bad 'oh.*5.*6' --desc mb1ic4ih8oc4kh3oh5
    bad 'bytes' --desc mb100000ic1024ih1024oc1024kh1
    bad 'nope.*omp|omp.*nope' --backend nope --desc m8n12k16
    bad 'nope.*conv2d|conv2d.*nope' --kernel nope --desc m8n12k16
    bad 'nope.*resnet50|resnet50.*nope' --model nope
    bad '/nonexistent/batch\.txt' --batch /nonexistent/batch.txt
    bad "roof-level 'L4'.*auto" --roof-level L4 --desc m8n12k16
    bad "max-reps '-1'" --max-reps -1 --desc m8n12k16
    # directions and data types (issue 12): each names its token
    bad "--dir 'BWD_X'.*BWD_WB" --dir BWD_X --desc m8n12k16
    bad 'BWD_W does not apply to gemm' --dir BWD_W --desc m8n12k16
    bad 'BWD_DW does not apply to conv2d' --dir BWD_DW --desc mb1ic4ih8oc4kh3
    bad "--dt 'bf16:f32': two types" --dt bf16:f32 --desc m8n12k16
    bad "unknown type 'f8'" --dt bf16:f8:f32 --desc m8n12k16
    bad "f64 does not mix" --dt f64:f64:f32 --desc m8n12k16
    bad 'bnorm takes one data type.*bf16:bf16:f32' --dt bf16:bf16:f32 --desc mb2ic8ih4
    bad "--fpmath 'tf16'" --fpmath tf16 --desc m8n12k16
    # the option parser's own refusals (drivers/common/options.c)
    bad "unknown option '--frobnicate'" --frobnicate --desc m8n12k16
    bad "--training takes no value, got 'yes'" --training=yes --desc m8n12k16
    bad "--seed needs a value" --desc m8n12k16 --seed
    bad "unknown option '-x'.*--name" -x --desc m8n12k16
    bad "--flush-l2 'maybe': expected one of no, yes" --flush-l2=maybe --desc m8n12k16
    bad "run: 1 argument given" --desc m8n12k16 stray
}

test_run_valid() {
    local j="$tmp/ok.jsonl" c="$tmp/ok.csv"
    run_kb 0 run --quiet --backend omp --reps 2 --min-time 0 \
        --desc mb1ic4ih8oc8kh3ph1 --desc m8n12k16 --desc mb2ic4ih4iw4 \
        --json "$j" --csv "$c" --result-lines
    "$jsonl_check" "$j" --cases 3 --status PASSED --summary || fail "jsonl_check $j"
    local rows
    rows=$(cat "$c" 2>/dev/null | wc -l)
    [ "$rows" -eq 4 ] || fail "$c has $rows lines, expected 4"
    [ "$(grep -c '^RESULT .* valid=PASS status=PASSED$' "$tmp/out")" -eq 3 ] ||
        fail "expected 3 passing RESULT lines"
    [ "$(grep -E '^(RESULT|SUITE_STATUS)' "$tmp/out" | tail -n 1)" = "SUITE_STATUS PASS" ] ||
        fail "RESULT lines do not end with SUITE_STATUS PASS"
}

# Before each warm-up the driver waits for its other threads to go idle,
# and records how long (settle_s); --settle 0 does not wait.  A pool that
# never sleeps (OpenMP's, told to spin) makes the wait give up once, with
# a warning, and the cases after it are timed without waiting.  The
# warm-up lasts --warmup-time, counted in the record's warmup.
test_run_settle() {
    local j="$tmp/settle.jsonl" d=(--desc m8n12k16 --desc m9n7k3)
    run_kb 0 run --quiet --backend omp --reps 1 --min-time 0 --threads 2 \
        "${d[@]}" --json "$j"
    "$jsonl_check" "$j" --cases 2 --summary || fail "jsonl_check $j"
    expect "$j" '"settle_max_s":1,' "run record"
    [ "$(grep -c '"settle_s":[0-9]' "$j")" -eq 2 ] || fail "cases without settle_s: $(cat "$j")"
    run_kb 0 run --quiet --backend omp --reps 1 --min-time 0 --settle 0 \
        "${d[@]}" --json "$j"
    expect "$j" '"settle_max_s":0,' "--settle 0"
    [ "$(grep -c '"settle_s":null' "$j")" -eq 2 ] || fail "--settle 0 waited: $(cat "$j")"
    OMP_WAIT_POLICY=active run_kb 0 run --quiet --backend omp --reps 1 \
        --min-time 0 --threads 2 --settle 0.05 "${d[@]}" --json "$j"
    expect "$tmp/err" "case 1 \(m8n12k16 on omp\): kbench's other threads still ran after --settle 0.05 s"
    [ "$(grep -c 'still ran' "$tmp/err")" -eq 1 ] || fail "warned more than once: $(cat "$tmp/err")"
    [ "$(grep -c '"settle_s":null' "$j")" -eq 2 ] || fail "active pool: $(cat "$j")"
    run_kb 0 run --quiet --backend omp --reps 1 --min-time 0 --warmup 1 \
        --warmup-time 0.05 --desc m8n12k16 --json "$j"
    expect "$j" '"warmup":([2-9]|[1-9][0-9]+),' "--warmup-time 0.05 on a microsecond GEMM"
    run_kb 0 run --quiet --backend omp --reps 1 --min-time 0 --warmup 0 \
        --warmup-time 0.05 --desc m8n12k16 --json "$j"
    expect "$j" '"warmup":0,' "--warmup 0"
}

# The byte counts' last-level cache comes from --peaks and is recorded; a
# training bnorm whose src does not fit in it is counted reading src twice.
test_run_llc() {
    local j="$tmp/llc.jsonl"
    cat >"$tmp/peaks.json" <<'EOF'
{"schema": "kbench.ceilings/1", "host": "t", "date": "2026-01-01T00:00:00Z",
 "devices": [{"kind": "cpu", "model": "t", "cores": 1, "threads": 1,
  "topology": {"source": "sysfs", "l1d_bytes": 1024, "l2_bytes": 4096, "l3_bytes": 65536},
  "ceilings": [
   {"kind": "compute", "kernel": "t", "level": "fp32", "unit": "GFLOP/s", "value": 1e9},
   {"kind": "memory", "kernel": "t", "level": "DRAM", "unit": "GB/s", "value": 1e9}]}]}
EOF
    # one channel of 16x2x32x32 f32 is 16*1024*4 = 65536 bytes, which fits:
    # src read once, 4*(2*32768 + 4*2); a channel of 17x2x32x32 does not:
    # src read twice, 4*(3*34816 + 4*2)
    run_kb 0 run --quiet --backend omp --reps 1 --min-time 0 --peaks "$tmp/peaks.json" \
        --desc mb16ic2ih32 --desc mb17ic2ih32 --json "$j"
    "$jsonl_check" "$j" --cases 2 --summary || fail "jsonl_check $j"
    expect "$j" '"desc":"mb16ic2_ih32iw32",.*"bytes":262176,"llc_bytes":65536,' "channel that fits"
    expect "$j" '"desc":"mb17ic2_ih32iw32",.*"bytes":417824,"llc_bytes":65536,' "channel that does not fit"
}

# SIGINT mid-run: exit 130, every line written is complete and valid,
# and not every case ran.
test_sigint() {
    local j="$tmp/int.jsonl" b="$tmp/batch.txt" n=40
    for i in $(seq $n); do echo "m384n384k384"; done >"$b"
    set -m   # a background job must not start with SIGINT ignored
    "$kbench" run --quiet --backend omp --reps 3 --min-time 0.05 \
        --batch "$b" --json "$j" >"$tmp/out" 2>"$tmp/err" &
    local pid=$!
    set +m
    # until the first case is written, however long that takes (under an
    # emulator, minutes: ctest's TIMEOUT bounds it)
    until grep -q '"type":"case"' "$j" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -INT "$pid" 2>/dev/null || fail "kbench ended before SIGINT"
    wait "$pid"
    local rc=$?
    [ "$rc" -eq 130 ] || fail "interrupted run exited $rc, expected 130"
    "$jsonl_check" "$j" || fail "jsonl_check $j after SIGINT"
    local cases
    cases=$(cat "$j" 2>/dev/null | grep -c '"type":"case"')
    [ "$cases" -ge 1 ] && [ "$cases" -lt $n ] ||
        fail "$cases case records after SIGINT, expected 1..$((n - 1))"
}

run_case "$case_name"
