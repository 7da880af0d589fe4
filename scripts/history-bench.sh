#!/usr/bin/env bash
# history-bench.sh - the `kbench history` benchmark (not a test): ingest
# RUNS synthetic runs of CASES cases each (scripts/history_bench_gen.py,
# batches of BATCH files, generated outside the timing), then `history
# changes` over every series; prints add's runs/s, the changes time and
# the database's bytes per case record.  The issue's goals: add at least
# 50 runs/s, changes under 60 s, at most 1 KiB a case record.
#
# usage: scripts/history-bench.sh [--runs N] [--cases N] [--batch N]
#                                 [--kbench PATH] [--dir DIR]
#   defaults: --runs 1000 --cases 700 --batch 50
#   --kbench build/cpu/kbench, --dir a new temporary folder (removed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=1000 cases=700 batch=50 kbench=build/cpu/kbench dir=""
while [ $# -gt 0 ]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --kbench) kbench=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[ -n "$dir" ] || { dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; }
mkdir -p "$dir/batch"
"$kbench" run --desc m64n64k64 --backend omp --reps 5 --min-time 0 --quiet \
    --json "$dir/template.jsonl" >/dev/null
now() { date +%s.%N; }
add_s=0
for ((first = 0; first < runs; first += batch)); do
    last=$((first + batch < runs ? first + batch : runs))
    rm -f "$dir"/batch/*.jsonl
    python3 scripts/history_bench_gen.py "$dir/template.jsonl" "$dir/batch" \
        "$first" "$last" "$cases" $((runs * 3 / 4))
    t0=$(now)
    "$kbench" history add "$dir"/batch/*.jsonl --db "$dir/h.db" >/dev/null
    add_s=$(echo "$add_s + $(now) - $t0" | bc)
done
t0=$(now)
"$kbench" history changes --db "$dir/h.db" --json "$dir/changes.json" >/dev/null
changes_s=$(echo "$(now) - $t0" | bc)
bytes=$(stat -c %s "$dir/h.db")
found=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$dir/changes.json")
echo "runs $runs, cases a run $cases ($((runs * cases)) case records)"
echo "add: $add_s s, $(echo "scale=1; $runs / $add_s" | bc) runs/s"
echo "changes: $changes_s s over $cases series, $found change points" \
     "(expected $((cases / 10)): every tenth case steps +5 % at run $((runs * 3 / 4)))"
echo "database: $bytes bytes, $(echo "$bytes / ($runs * $cases)" | bc) bytes a case record"
