#!/usr/bin/env bash
# device-check.sh [--rehearse] OUTDIR - kbench on a machine with an NVIDIA
# GPU, run from the bundle scripts/device-pack.sh makes (this file is its
# device-check.sh; it runs nothing from a checkout or a build), within
# 6 minutes on an H200:
#  1. prerequisites, in seconds, every missing one named at once: python3
#     and the usual tools, compute-sanitizer, the NVIDIA driver
#     (nvidia-smi, libcuda, CUDA 13 or newer), every library bin/ needs
#     (cuBLAS and cuDNN from NVIDIA's Python wheels, site-packages/
#     nvidia/*/lib, or the CUDA toolkit's lib64), glibc as new as the
#     bundle's; exit 2 when one is missing;
#  2. the GPU tests (`ctest -L gpu`, from tests.tsv);
#  3. compute-sanitizer memcheck over the hand-written kernels on the
#     edge inputs (the test gpu_backend_cuda) and over the ceiling kernels
#     (kbench peaks --gpu-only --quick), at most SANITIZER_S each;
#  4. the fp32 check: the fine fill (fp32_strict.txt) on cuda, cublas,
#     cudnn; kbench peaks;
#  5. the three catalogs on cuda, cublas and cudnn, at batch 32
#     (resnet50), 4 (cosmoflow) and 4 (deepcam), 3 timed repetitions a
#     case after 1 warm-up, placed under the ceilings;
#  6. the goals' sweeps: fp32 GEMM cuda vs cublas (1024^3 to 8192^3) and
#     conv cuda vs cudnn (ResNet-50 and CosmoFlow layers at their batch);
#  7. compute-sanitizer racecheck over the hand-written kernels on the
#     edge inputs, with the time left (it is the slowest);
#  8. kbench report per catalog, the goals (device_goals.py).
# OUTDIR gets 7 files (at most 8 come back from the GPU machine):
#   summary.txt     the device, each step's command, exit code and time
#   goals.txt       device_goals.py's verdicts
#   ceilings.json   kbench peaks
#   sanitizer.txt   compute-sanitizer's reports
#   logs.txt        every step's output, one after another
#   nvidia-smi.txt  nvidia-smi -q
#   results.tar.gz  every JSON Lines file and report
# Every step runs under a deadline (BUDGET_S, default 330 s for the
# whole; the memcheck steps at most SANITIZER_S, default 60 s, each): a
# step that would pass it is cut short (kbench keeps the cases it
# finished) or, when less than its minimum is left, not started; reports,
# goals and summary always run.
# --rehearse: no GPU expected (CI, a bare chroot): the driver and
# compute-sanitizer may be missing, and every step must succeed or skip
# (a test's 77) and say it found no (CUDA) device.
# Exit 0 when every step ran and succeeded (--rehearse: ran and found no
# device), 1 otherwise (summary.txt says which), 2 usage or a missing
# prerequisite.
# shellcheck disable=SC2317  # gpu_tests and sanitize run through step
set -euo pipefail

rehearse=0
[ "${1:-}" = --rehearse ] && { rehearse=1; shift; }
[ $# -eq 1 ] || { echo "usage: device-check.sh [--rehearse] OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
bundle=$(cd "$(dirname "$0")" && pwd)
BUDGET_S=${BUDGET_S:-330}
SANITIZER_S=${SANITIZER_S:-60}
kb=$bundle/bin/kbench
if [ ! -x "$kb" ] || [ ! -f "$bundle/tests.tsv" ]; then
    echo "device-check: $bundle is not a bundle: make one with" \
         "scripts/device-pack.sh DIR, then run DIR/device-check.sh" >&2
    exit 2
fi
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
summary=$out/summary.txt
logs=$out/logs.txt
failed=0
: >"$summary"
: >"$logs"

note() { echo "$*" | tee -a "$summary"; }

# ---- 1. prerequisites -------------------------------------------------
missing=() nodevice=()
for tool in python3 timeout tar gzip ldd awk sed grep getconf; do
    command -v "$tool" >/dev/null || missing+=("$tool (command)")
done
sanitizer=$(command -v compute-sanitizer || true)
for f in /usr/local/cuda/bin/compute-sanitizer \
         /usr/local/cuda*/compute-sanitizer/compute-sanitizer; do
    [ -n "$sanitizer" ] || [ ! -x "$f" ] || sanitizer=$f
done
[ -n "$sanitizer" ] || nodevice+=("compute-sanitizer (the CUDA toolkit's; on PATH or in /usr/local/cuda)")
# cuBLAS and cuDNN: NVIDIA's Python wheels first, then the CUDA toolkit.
nvlibs=$(python3 -c '
import glob, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
print(":".join(sorted({d for p in dirs for d in glob.glob(p + "/nvidia/*/lib")})))' \
    2>/dev/null || true)
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && nvlibs+=${nvlibs:+:}$d
done
export LD_LIBRARY_PATH=$nvlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
declare -A unresolved=()
for exe in "$bundle"/bin/*; do
    while read -r lib; do
        unresolved[$lib]+=" ${exe##*/}"
    done < <(ldd "$exe" 2>&1 | awk '/not found/ { print $1 }')
done
for lib in "${!unresolved[@]}"; do
    missing+=("$lib (needed by${unresolved[$lib]}; pip install the NVIDIA wheel, or the CUDA toolkit)")
done
need=$(sed -n 's/^glibc //p' "$bundle/bundle.txt")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
if [ -n "$need" ] && [ "$(printf '%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
    missing+=("glibc $need or newer (this machine has ${have:-none})")
fi
if ! command -v nvidia-smi >/dev/null; then
    nodevice+=("nvidia-smi (the NVIDIA driver)")
elif ! driver=$(nvidia-smi 2>&1); then
    nodevice+=("a working driver: nvidia-smi says: $(echo "$driver" | head -1)")
else
    cuda=$(echo "$driver" | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
    built=$(sed -n 's/^cuda \([0-9]*\).*/\1/p' "$bundle/bundle.txt")
    [ "${cuda%%.*}" -ge "${built:-0}" ] 2>/dev/null ||
        missing+=("a driver for CUDA $built (it supports CUDA ${cuda:-unknown})")
fi
# libcuda.so.1: where the loader would find it (not through grep -q: a
# pipe closed early fails under pipefail)
libcuda=$(ldconfig -p 2>/dev/null | awk '$1 == "libcuda.so.1" { print $NF; exit }')
for d in ${LD_LIBRARY_PATH//:/ } /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64; do
    [ -n "$libcuda" ] || [ ! -e "$d/libcuda.so.1" ] || libcuda=$d/libcuda.so.1
done
[ -n "$libcuda" ] || nodevice+=("libcuda.so.1 (the NVIDIA driver)")
if [ "$rehearse" = 0 ]; then
    missing+=("${nodevice[@]}")
fi
{
    echo "device-check $* ($(date -u +%Y-%m-%dT%H:%M:%SZ), budget ${BUDGET_S} s, rehearse $rehearse)"
    sed 's/^/bundle: /' "$bundle/bundle.txt"
    echo "libraries from: ${nvlibs:-nowhere}"
    ldd "$kb" 2>&1 | awk '/cublas|cudnn|cudart|libcuda\./ { print "  " $1, $2, $3 }'
    for n in "${nodevice[@]}"; do echo "no CUDA device: missing $n"; done
} | tee -a "$summary"
if [ ${#missing[@]} -gt 0 ]; then
    note "device-check: missing, nothing run:"
    for m in "${missing[@]}"; do note "  $m"; done
    exit 2
fi
if command -v nvidia-smi >/dev/null; then
    note "device: $(nvidia-smi --query-gpu=name,uuid,driver_version,memory.total \
                    --format=csv,noheader 2>&1 | head -4)"
    nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 || true
else
    echo "no nvidia-smi on this machine" >"$out/nvidia-smi.txt"
fi

# ---- the steps ----------------------------------------------------------
# step NAME MIN_S MAX_S CMD...: runs CMD (its output appended to logs.txt)
# under the deadline less RESERVE_S, kept for the report, goals and
# summary, and at most MAX_S; not started when less than MIN_S would be
# left.  Records the command, exit code and seconds.  --rehearse: the step
# succeeded only if its output says it found no CUDA device.
RESERVE_S=20
step() {
    local name=$1 min=$2 max=$3 left rc=0 t0=$SECONDS log=$work/$1.log
    shift 3
    left=$((BUDGET_S - RESERVE_S - (SECONDS - start)))
    if [ "$left" -lt "$min" ]; then
        note "SKIPPED $name: ${left} s left of the budget, it needs $min: $*"
        failed=1
        return 0
    fi
    [ "$left" -le "$max" ] || left=$max
    echo "device-check: $name (at most ${left} s) ..." >&2
    # bash -c: CMD may be one of the functions below (exported)
    (cd "$work" && timeout --signal=TERM --kill-after=10 "$left" \
        bash -c '"$@"' "$name" "$@") >"$log" 2>&1 || rc=$?
    { echo "==== $name: $*"; cat "$log"; } >>"$logs"
    if [ "$rehearse" = 1 ]; then
        # a test's skip (77) is its no-device answer; no other one is
        if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then
            grep -Eqi "no (CUDA )?device" "$log" && rc=0 || rc=nodev
        fi
    fi
    note "$(printf '%-14s rc %-5s %4d s  %s' "$name" "$rc" \
            $((SECONDS - t0)) "$*" | sed "s|$bundle/||g; s|$work/||g")"
    # kbench run: 1 means some case FAILED, a result like any other here
    if [ "$rc" != 0 ]; then
        failed=1
        tail -5 "$log" | sed 's/^/    /' | tee -a "$summary"
    fi
    return 0
}

# gpu_tests: each test of tests.tsv, as ctest runs it; a test that exits
# with its skip code is skipped.  --rehearse: each one passes or is skipped
# (and then says no CUDA device).  Exit 1 when one failed.
gpu_tests() {
    local name skip env cmd rc bad=0
    while IFS=$'\t' read -r name skip env cmd; do
        cmd=${cmd//@BUNDLE@/$bundle}
        rc=0
        # shellcheck disable=SC2086,SC2163  # env: NAME=VALUE words
        ( [ "$env" = - ] || export $env
          IFS=$'\t' read -ra argv <<<"$cmd"
          exec "${argv[@]}" ) >"$work/test.log" 2>&1 || rc=$?
        if [ "$rc" = 0 ]; then
            echo "PASSED  $name"
        elif [ "$rc" = "$skip" ]; then
            echo "SKIPPED $name: $(grep -Ei -m1 "no .*device" "$work/test.log" ||
                                   tail -1 "$work/test.log")"
        else
            echo "FAILED  $name (exit $rc):"; sed 's/^/    /' "$work/test.log"
            bad=1
        fi
    done <"$bundle/tests.tsv"
    return "$bad"
}

# the hand-written kernels' test, its command from tests.tsv
cuda_test=$(awk -F'\t' '$1 == "gpu_backend_cuda"' "$bundle/tests.tsv" |
            cut -f4- | sed "s|@BUNDLE@|$bundle|g" | tr '\t' ' ')
# sanitize TOOL CMD...: compute-sanitizer's report goes to sanitizer.txt
# too; an error it finds is exit 86.  Without compute-sanitizer
# (--rehearse), the command alone.
sanitize() {
    local tool=$1
    shift
    echo "==== $tool: $*" >>"$out/sanitizer.txt"
    if [ -z "$sanitizer" ]; then
        "$@" 2>&1 | tee -a "$out/sanitizer.txt"
        return "${PIPESTATUS[0]}"
    fi
    "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 \
        --log-file "$work/$tool.%p.txt" "$@"
    local rc=$?
    cat "$work/$tool".*.txt >>"$out/sanitizer.txt" 2>/dev/null
    rm -f "$work/$tool".*.txt
    return "$rc"
}
: >"$out/sanitizer.txt"
export -f gpu_tests sanitize
export bundle work out sanitizer

hand=cuda gemm_vendor=cublas conv_vendor=cudnn
backends="$hand,$gemm_vendor,$conv_vendor"
catalogs=("resnet50 32" "cosmoflow 4" "deepcam 4")
gemms=(m1024n1024k1024 m2048n2048k2048 m4096n4096k4096 m8192n8192k8192)
# ResNet-50's 3x3 stages and CosmoFlow's second 3D layer at their batch
convs=(mb32ic64ih56oc64kh3ph1 mb32ic128ih28oc128kh3ph1
       mb32ic256ih14oc256kh3ph1 mb32ic512ih7oc512kh3ph1
       mb4ic32id64ih64iw64oc64kd3kh3kw3pd1ph1pw1)
fp32=$bundle/src/tests/inputs/fp32_strict.txt
res=$work/results
mkdir -p "$res"
"$kb" list backends >"$res/backends.txt" 2>&1 || true

step gpu-tests 20 600 gpu_tests
# shellcheck disable=SC2086  # cuda_test is the test's words
step memcheck 10 "$SANITIZER_S" sanitize memcheck $cuda_test
step memcheck-peak 10 "$SANITIZER_S" sanitize memcheck "$kb" peaks --gpu-only --quick
step fp32-fine 10 600 "$kb" run --fill fine --batch "$fp32" \
    --backend "$backends" --reps 1 --min-time 0 --quiet \
    --json "$res/fp32_fine.jsonl"
step peaks 20 600 "$kb" peaks --json "$out/ceilings.json"

common=(--min-time 0 --warmup 1 --quiet)
[ -s "$out/ceilings.json" ] && common+=(--peaks "$out/ceilings.json")
catalog_files=()
for entry in "${catalogs[@]}"; do
    read -r model mb <<<"$entry"
    catalog_files+=("$res/$model.jsonl")
    step "$model" 30 600 "$kb" run --model "$model" --mb "$mb" \
        --backend "$backends" --reps 3 "${common[@]}" --json "$res/$model.jsonl"
done
descs=()
for d in "${gemms[@]}"; do descs+=(--desc "$d"); done
step gemm-sweep 15 600 "$kb" run "${descs[@]}" --backend "$hand,$gemm_vendor" \
    --reps 5 "${common[@]}" --json "$res/gemm-sweep.jsonl"
descs=()
for d in "${convs[@]}"; do descs+=(--desc "$d"); done
step conv-sweep 15 600 "$kb" run "${descs[@]}" --backend "$hand,$conv_vendor" \
    --reps 5 "${common[@]}" --json "$res/conv-sweep.jsonl"

# racecheck last: the slowest tool, it gets what the measurements left
# shellcheck disable=SC2086
step racecheck 20 600 sanitize racecheck $cuda_test

# The reserve: reports, goals, summary (cheap; no deadline of their own).
for f in "${catalog_files[@]}"; do
    model=$(basename "$f" .jsonl)
    [ -s "$f" ] || { note "no $model.jsonl: no report"; failed=1; continue; }
    cmd=("$kb" report "$f" --outdir "$res/report/$model")
    [ -s "$out/ceilings.json" ] && cmd+=(--peaks "$out/ceilings.json")
    rc=0 t0=$SECONDS
    mkdir -p "$res/report"
    "${cmd[@]}" >"$work/report.log" 2>&1 || rc=$?
    { echo "==== report $model"; cat "$work/report.log"; } >>"$logs"
    note "$(printf '%-14s rc %-5s %4d s  %s' "report" "$rc" \
            $((SECONDS - t0)) "kbench report $model.jsonl")"
    [ "$rc" -eq 0 ] || { failed=1; sed 's/^/    /' "$work/report.log" | tee -a "$summary"; }
done
goal_args=()
for f in "${catalog_files[@]}"; do goal_args+=(--catalog "$f"); done
python3 "$bundle/device_goals.py" --ceilings "$out/ceilings.json" \
    --gemm "$res/gemm-sweep.jsonl" --conv "$res/conv-sweep.jsonl" \
    "${goal_args[@]}" --device cuda --hand "$hand" \
    --gemm-vendor "$gemm_vendor" --conv-vendor "$conv_vendor" \
    >"$out/goals.txt" || failed=1
tar -czf "$out/results.tar.gz" -C "$work" results
note "total $((SECONDS - start)) s of the ${BUDGET_S} s budget;" \
     "$( [ "$failed" -eq 0 ] && echo "every step succeeded" ||
         echo "some step failed or was skipped (above)")"
sed 's/^/  /' "$out/goals.txt" >&2
exit "$failed"
