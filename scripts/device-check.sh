#!/usr/bin/env bash
# device-check.sh OUTDIR - kbench on a machine with an NVIDIA GPU, within
# 6 minutes on an H200 with 16 cores, from a clean checkout:
#  1. build (Release, CUDAARCHS=90, KBENCH_HIP=OFF, -j$JOBS) into $BUILD;
#  2. the GPU ctests (ctest -L gpu) and the fp32 check: the fine fill
#     (tests/inputs/fp32_strict.txt, `--fill fine`) on cuda, cublas, cudnn;
#  3. kbench peaks --json OUTDIR/ceilings.json;
#  4. the three catalogs on cuda, cublas and cudnn, at batch 32
#     (resnet50), 4 (cosmoflow) and 4 (deepcam), 3 timed repetitions a
#     case after 1 warm-up, placed under the ceilings: OUTDIR/MODEL.jsonl;
#  5. the goals' sweeps: fp32 GEMM cuda vs cublas (1024^3 to 8192^3) and
#     conv cuda vs cudnn (ResNet-50 and CosmoFlow layers at their batch):
#     OUTDIR/gemm-sweep.jsonl, OUTDIR/conv-sweep.jsonl;
#  6. kbench report per catalog into OUTDIR/report/MODEL/, goals.txt
#     (scripts/device_goals.py), nvidia-smi -q into OUTDIR/nvidia-smi.txt,
#     and summary.txt: the device, each command, its exit code and time.
# Every step runs under a deadline (BUDGET_S, default 330 s for the
# whole): a step that would pass it is cut short (kbench keeps the cases
# it finished) or, when less than its minimum is left, not started; the
# report, goals and summary always run.  Exit 0 when every step ran and
# succeeded, 1 otherwise (summary.txt says which).
#
# Needs what scripts/setup-debian.sh installs, and the CUDA toolkit with
# cuBLAS and cuDNN 9 (nvcc on PATH or in /usr/local/cuda).
#   BUILD=build/device-check  JOBS=16  BUDGET_S=330
#   DEVICE_CHECK_DRY=1   no GPU needed: builds (CUDA if nvcc is there),
#                        runs ctest -L gpu (which skips), and runs every
#                        other step on the CPU backends at toy sizes
#                        (omp for cuda, openblas for cublas, onednn for
#                        cudnn), to prove the plumbing.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: scripts/device-check.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/device-check}
JOBS=${JOBS:-16}
BUDGET_S=${BUDGET_S:-330}
dry=${DEVICE_CHECK_DRY:-0}
kb="$BUILD/kbench"
start=$SECONDS
summary="$out/summary.txt"
failed=0
: >"$summary"

if [ "$dry" = 1 ]; then
    hand=omp gemm_vendor=openblas conv_vendor=onednn device=cpu cuda=AUTO
    catalogs=("resnet50 1" "cosmoflow 1" "deepcam 1")
    only=(--kernel gemm)   # one or three small layers a catalog
    gemms=(m64n64k64 m128n128k128)
    convs=(mb2ic16ih14oc32kh3ph1)
    peaks=(--quick)
else
    hand=cuda gemm_vendor=cublas conv_vendor=cudnn device=cuda cuda=ON
    catalogs=("resnet50 32" "cosmoflow 4" "deepcam 4")
    only=()
    gemms=(m1024n1024k1024 m2048n2048k2048 m4096n4096k4096 m8192n8192k8192)
    # ResNet-50's 3x3 stages and CosmoFlow's second 3D layer at their batch
    convs=(mb32ic64ih56oc64kh3ph1 mb32ic128ih28oc128kh3ph1
           mb32ic256ih14oc256kh3ph1 mb32ic512ih7oc512kh3ph1
           mb4ic32id64ih64iw64oc64kd3kh3kw3pd1ph1pw1)
    peaks=()
fi
backends="$hand,$gemm_vendor,$conv_vendor"

note() { echo "$*" | tee -a "$summary"; }

# step NAME MIN_S CMD...: run CMD (output in OUTDIR/logs/NAME.log) under
# the deadline less RESERVE_S, kept for the report, goals and summary;
# not started when less than MIN_S would be left.  Records the command,
# exit code and seconds.
RESERVE_S=20
mkdir -p "$out/logs"
step() {
    local name=$1 min=$2 left rc=0 t0=$SECONDS
    shift 2
    left=$((BUDGET_S - RESERVE_S - (SECONDS - start)))
    if [ "$left" -lt "$min" ]; then
        note "SKIPPED $name: ${left} s left of the budget, it needs $min: $*"
        failed=1
        return 0
    fi
    echo "device-check: $name (at most ${left} s) ..." >&2
    timeout --signal=TERM --kill-after=10 "$left" "$@" \
        >"$out/logs/$name.log" 2>&1 || rc=$?
    note "$(printf '%-14s rc %-3s %4d s  %s' "$name" "$rc" \
            $((SECONDS - t0)) "$*")"
    # kbench run: 1 means some case FAILED, a result like any other here
    if [ "$rc" -ne 0 ]; then
        failed=1
        tail -5 "$out/logs/$name.log" | sed 's/^/    /' | tee -a "$summary"
    fi
    return 0
}

for tool in cmake python3; do
    command -v "$tool" >/dev/null ||
        { echo "device-check: $tool not found (scripts/setup-debian.sh)" >&2; exit 2; }
done
note "device-check.sh $1 ($(date -u +%Y-%m-%dT%H:%M:%SZ), commit" \
     "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "budget ${BUDGET_S} s, dry ${dry})"
if command -v nvidia-smi >/dev/null; then
    note "device: $(nvidia-smi --query-gpu=name,uuid,driver_version,memory.total \
                    --format=csv,noheader 2>&1 | head -4)"
    nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 || true
else
    note "device: no nvidia-smi on this machine"
fi

export CUDAARCHS=90
step configure 10 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DKBENCH_CUDA="$cuda" -DKBENCH_HIP=OFF
# everything: `ctest -L gpu` runs test programs of several folders
step build 30 cmake --build "$BUILD" -j"$JOBS"
[ -x "$kb" ] || { note "no $kb: nothing more can run"; exit 1; }
"$kb" list backends >"$out/backends.txt" 2>&1 || true

step ctest-gpu 20 ctest --test-dir "$BUILD" -L gpu --output-on-failure
step fp32-fine 10 "$kb" run --fill fine --batch tests/inputs/fp32_strict.txt \
    --backend "$backends" --reps 1 --min-time 0 --quiet \
    --json "$out/fp32_fine.jsonl"
step peaks 20 "$kb" peaks "${peaks[@]}" --json "$out/ceilings.json"

common=(--min-time 0 --warmup 1 --quiet)
[ -s "$out/ceilings.json" ] && common+=(--peaks "$out/ceilings.json")
catalog_files=()
for entry in "${catalogs[@]}"; do
    read -r model mb <<<"$entry"
    catalog_files+=("$out/$model.jsonl")
    step "$model" 30 "$kb" run --model "$model" --mb "$mb" "${only[@]}" \
        --backend "$backends" --reps 3 "${common[@]}" --json "$out/$model.jsonl"
done
descs=()
for d in "${gemms[@]}"; do descs+=(--desc "$d"); done
step gemm-sweep 15 "$kb" run "${descs[@]}" --backend "$hand,$gemm_vendor" \
    --reps 5 "${common[@]}" --json "$out/gemm-sweep.jsonl"
descs=()
for d in "${convs[@]}"; do descs+=(--desc "$d"); done
step conv-sweep 15 "$kb" run "${descs[@]}" --backend "$hand,$conv_vendor" \
    --reps 5 "${common[@]}" --json "$out/conv-sweep.jsonl"

# The reserve: reports, goals, summary (cheap; no deadline of their own).
for f in "${catalog_files[@]}"; do
    model=$(basename "$f" .jsonl)
    [ -s "$f" ] || { note "no $f: no report"; failed=1; continue; }
    cmd=("$kb" report "$f" --outdir "$out/report/$model")
    [ -s "$out/ceilings.json" ] && cmd+=(--peaks "$out/ceilings.json")
    rc=0 t0=$SECONDS
    mkdir -p "$out/report"
    "${cmd[@]}" >"$out/logs/report-$model.log" 2>&1 || rc=$?
    note "$(printf '%-14s rc %-3s %4d s  %s' "report" "$rc" \
            $((SECONDS - t0)) "${cmd[*]}")"
    [ "$rc" -eq 0 ] || { failed=1; sed 's/^/    /' "$out/logs/report-$model.log" | tee -a "$summary"; }
done
goal_args=()
for f in "${catalog_files[@]}"; do goal_args+=(--catalog "$f"); done
python3 scripts/device_goals.py --ceilings "$out/ceilings.json" \
    --gemm "$out/gemm-sweep.jsonl" --conv "$out/conv-sweep.jsonl" \
    "${goal_args[@]}" --device "$device" --hand "$hand" \
    --gemm-vendor "$gemm_vendor" --conv-vendor "$conv_vendor" \
    >"$out/goals.txt" || failed=1
note "total $((SECONDS - start)) s of the ${BUDGET_S} s budget;" \
     "$( [ "$failed" -eq 0 ] && echo "every step succeeded" ||
         echo "some step failed or was skipped (above)")"
sed 's/^/  /' "$out/goals.txt" >&2
exit "$failed"
