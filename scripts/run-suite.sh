#!/usr/bin/env bash
# run-suite.sh [kbench run options] - set up, build (Release) and run the
# default suite: every model catalog at mb 1 on every backend built, each
# case validated.  Results go to out/results.jsonl and out/results.csv;
# extra arguments are passed to `kbench run` (e.g. --model resnet50).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake --preset default
cmake --build --preset default
mkdir -p out
status=0
build/default/kbench run --json out/results.jsonl --csv out/results.csv "$@" || status=$?
echo "results: $(pwd)/out/results.jsonl (JSON Lines, results/SCHEMA.md)," \
     "$(pwd)/out/results.csv; kbench exit code $status"
exit "$status"
