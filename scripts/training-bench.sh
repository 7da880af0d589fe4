#!/usr/bin/env bash
# training-bench.sh - the training-step benchmark of results/training/:
# each model's step (kbench run --training) on the hand-written and the
# vendor backend, in f32 and bf16, over alternating rounds, summarised by
# scripts/training_table.py into a Markdown table.
#
# usage: scripts/training-bench.sh [--out DIR] [--rounds N] [--kbench PATH]
#                                  [--models M:MB,...] [--backends H,V]
#                                  [--dts T,...] [--reps N]
#   --out DIR        default results/training: runs/MODEL-DT.rR.jsonl, the
#                    records of each run, and README.md, the table
#   --rounds N       default 3; the order of the data types is reversed
#                    every other round, so a drift of the machine's speed
#                    falls on both alike.  Within one run the two backends
#                    alternate layer by layer (kbench runs every problem on
#                    each backend in turn), so their ratio is a same-run one.
#   --kbench PATH    default build/default/kbench
#   --models         default resnet50:8,cosmoflow:1 (model:batch)
#   --backends       default omp,onednn: the hand-written one first
#   --dts            default f32,bf16: the first is the speed-up's base
#   --reps N         timed repetitions of each pass (default 3)
# Every pass is validated as in any kbench run.  Exit status: 0, 1 when a
# run had a FAILED or ERROR case (the table still says so), 2 usage, 3 a
# run or the summary could not be written.
set -euo pipefail
cd "$(dirname "$0")/.."

out=results/training rounds=3 kbench=build/default/kbench reps=3
models=resnet50:8,cosmoflow:1 backends=omp,onednn dts=f32,bf16
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
    --out) out=$2 ;;
    --rounds) rounds=$2 ;;
    --kbench) kbench=$2 ;;
    --models) models=$2 ;;
    --backends) backends=$2 ;;
    --dts) dts=$2 ;;
    --reps) reps=$2 ;;
    *) usage ;;
    esac
    shift 2
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "training-bench: --rounds '$rounds': expected a positive integer" >&2; exit 2; }
[ -x "$kbench" ] || { echo "training-bench: no kbench at $kbench (build it: cmake --workflow --preset default)" >&2; exit 2; }

mkdir -p "$out/runs"
IFS=, read -r -a model_list <<<"$models"
IFS=, read -r -a dt_list <<<"$dts"
status=0
for ((r = 1; r <= rounds; r++)); do
    order=("${dt_list[@]}")
    if ((r % 2 == 0)); then
        order=()
        for ((i = ${#dt_list[@]} - 1; i >= 0; i--)); do order+=("${dt_list[i]}"); done
    fi
    for mm in "${model_list[@]}"; do
        model=${mm%%:*} mb=${mm#*:}
        for dt in "${order[@]}"; do
            json="$out/runs/$model-${dt//:/_}.r$r.jsonl"
            echo "training-bench: round $r: $model mb $mb $dt on $backends" >&2
            rc=0
            "$kbench" run --model "$model" --mb "$mb" --training --dt "$dt" \
                --backend "$backends" --reps "$reps" --min-time 0 --quiet \
                --json "$json" || rc=$?
            case $rc in
            0) ;;
            1 | 3) status=1 ;;
            *) echo "training-bench: kbench exited $rc on $model $dt" >&2; exit 3 ;;
            esac
        done
    done
done
python3 scripts/training_table.py --base-dt "${dt_list[0]}" \
    --command "scripts/training-bench.sh --out $out --rounds $rounds --models $models --backends $backends --dts $dts --reps $reps" \
    "$out"/runs/*.jsonl > "$out/README.md.tmp" || exit 3
mv "$out/README.md.tmp" "$out/README.md"
echo "training-bench: wrote $out/README.md" >&2
exit $status
