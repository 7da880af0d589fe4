#!/usr/bin/env bash
# run-suite.sh [kbench run options] - set up, build (Release) and run the
# default suite: measure the machine's ceilings, run every model catalog at
# mb 1 on every backend built (each case validated and placed on the
# roofline), and write the roofline report.  Outputs in out/:
#   peaks.json      the measured ceilings (kbench peaks)
#   results.jsonl   every case (results/SCHEMA.md); results.csv alike
#   report/         roofline.svg, report.md, report.html
# Extra arguments go to `kbench run` (e.g. --model resnet50).
# Run as root or as a user with sudo: only setup-debian.sh's apt-get is
# run as root; the build and out/ belong to whoever runs this.
# To keep every run in a performance history and fail on a regression
# (docs/history.md), follow it with:
#   build/default/kbench history add out/results.jsonl --db history.db
#   build/default/kbench history changes --db history.db --fail-on regression
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake --preset default
cmake --build --preset default
mkdir -p out
build/default/kbench peaks --json out/peaks.json
status=0
build/default/kbench run --peaks out/peaks.json --json out/results.jsonl \
    --csv out/results.csv "$@" || status=$?
# The report shows whatever finished, even after a failed case.
build/default/kbench report out/results.jsonl --peaks out/peaks.json --outdir out/report
echo "results: $(pwd)/out/results.jsonl (JSON Lines, results/SCHEMA.md)," \
     "$(pwd)/out/results.csv; roofline report: $(pwd)/out/report/report.html;" \
     "kbench run exit code $status"
exit "$status"
