#!/bin/sh
# stream-compare.sh - benchmark (not a test): run `kbench peaks` and
# McCalpin's STREAM side by side, built with the same compiler and flags,
# and write results/peaks/stream-compare.md.
#
# Usage: scripts/stream-compare.sh [--stream-c PATH] [--kbench CMD] [--out FILE]
#   --stream-c PATH  McCalpin's stream.c (https://www.cs.virginia.edu/stream/).
#                    It is not packaged in Debian and not shipped with kbench:
#                    supply your own copy.  Without it only kbench's figures are
#                    reported and no ratio is claimed.
#   --kbench CMD     the kbench program (default: build/default/kbench);
#                    it is run as `CMD peaks --out FILE`.
#   --out FILE       the Markdown table (default: results/peaks/stream-compare.md)
# Environment: CC (default gcc), CFLAGS (default: kbench's Release flags
# "-O3 -march=native -fopenmp"), OMP_NUM_THREADS (default: all CPUs).
#
# STREAM is sized by its own rule: each array 4 x the last-level cache
# (taken from the ceilings kbench just measured, i.e. from hwloc/sysfs),
# NTIMES=11 like kbench (first repetition discarded, best reported).
# Goals: kbench triad within 5 % of STREAM triad; fp64 FMA peak >= 90 % of
# cores x lanes x 2 x FMA ports x observed clock.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
stream_c=""
kbench="$root/build/default/kbench"
out="$root/results/peaks/stream-compare.md"
while [ $# -gt 0 ]; do
    case "$1" in
    --stream-c) stream_c=$2; shift 2 ;;
    --kbench) kbench=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "stream-compare.sh: unknown argument \"$1\" (see the header of $0)" >&2; exit 2 ;;
    esac
done
for tool in jq "${CC:-gcc}"; do
    command -v "$tool" >/dev/null || { echo "stream-compare.sh: $tool not found" >&2; exit 2; }
done
[ -z "$stream_c" ] || [ -r "$stream_c" ] ||
    { echo "stream-compare.sh: cannot read $stream_c" >&2; exit 2; }

cc=${CC:-gcc}
cflags=${CFLAGS:-"-O3 -march=native -fopenmp"}
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== kbench peaks ($threads threads)" >&2
$kbench peaks --threads "$threads" --out "$work/peaks.json" >"$work/peaks.txt"
cat "$work/peaks.txt" >&2
dev='.devices[] | select(.kind == "cpu")'
ceil() {  # ceil KIND LEVEL KERNEL FIELD: one ceiling's field, or "null"
    jq -r "[$dev | .ceilings[] | select(.kind == \"$1\" and .level == \"$2\" and .kernel == \"$3\") | .$4][0]" \
        "$work/peaks.json"
}
llc=$(jq -r "[$dev | .topology.l3_bytes][0]" "$work/peaks.json")
n=$(awk -v b="$llc" 'BEGIN { n = 4 * b / 8; if (n < 10000000) n = 10000000; printf "%.0f", n }')

stream_triad=""
if [ -n "$stream_c" ]; then
    echo "== STREAM: $cc $cflags -DSTREAM_ARRAY_SIZE=$n -DNTIMES=11" >&2
    # STREAM's arrays are static: above 2 GiB they need -mcmodel=medium
    $cc $cflags -mcmodel=medium -DSTREAM_ARRAY_SIZE="$n" -DNTIMES=11 "$stream_c" \
        -o "$work/stream" -lm
    "$work/stream" >"$work/stream.txt"
    cat "$work/stream.txt" >&2
    grep -q "Solution Validates" "$work/stream.txt" ||
        { echo "stream-compare.sh: STREAM did not validate" >&2; exit 1; }
    # "Triad:  12345.6  ..." best rate in MB/s (10^6 bytes/s) -> GB/s
    stream_rate() { awk -v k="$1:" '$1 == k { printf "%.2f", $2 / 1000 }' "$work/stream.txt"; }
    stream_triad=$(stream_rate Triad)
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
mkdir -p "$(dirname "$out")"
{
    echo "# kbench peaks vs STREAM"
    echo
    echo "Benchmark, not a test.  Produced by:"
    echo
    echo '```'
    echo "scripts/stream-compare.sh ${stream_c:+--stream-c $stream_c} --kbench $kbench"
    echo '```'
    echo
    echo "- machine: $(jq -r "[$dev | .model][0]" "$work/peaks.json"), host $(jq -r .host "$work/peaks.json")," \
         "$(jq -r "[$dev | .cores][0]" "$work/peaks.json") cores, $threads threads pinned" \
         "($(jq -r "[$dev | .affinity][0]" "$work/peaks.json"); STREAM the same)"
    echo "- clock: $(jq -r "[$dev | .clock_ghz * 100 | round / 100][0]" "$work/peaks.json") GHz" \
         "($(jq -r "[$dev | .clock_source][0]" "$work/peaks.json")), FMA ports assumed:" \
         "$(jq -r "[$dev | .fma_ports][0]" "$work/peaks.json")"
    echo "- date: $(jq -r .date "$work/peaks.json"); build: $(jq -r .build.compiler "$work/peaks.json")," \
         "$(jq -r .build.flags "$work/peaks.json"), commit $(jq -r .build.git_commit "$work/peaks.json")"
    echo "- STREAM: ${stream_c:-not run (no stream.c supplied)}; $cc $cflags," \
         "STREAM_ARRAY_SIZE=$n (4 x LLC of $llc bytes), NTIMES=11"
    echo
    echo "## Memory (best of the repetitions after the first, STREAM byte counting)"
    echo
    echo "| kernel | kbench GB/s | STREAM GB/s | kbench / STREAM |"
    echo "|---|---|---|---|"
    for k in copy scale add triad; do
        kb=$(ceil memory DRAM "stream-$k" value)
        K=$(echo "$k" | sed 's/^./\U&/')
        st=$( [ -n "$stream_c" ] && stream_rate "$K" || echo "-")
        echo "| $k | $(printf '%.2f' "$kb") | $st | $(ratio "$kb" "${st#-}") |"
    done
    echo "| read | $(printf '%.2f' "$(ceil memory DRAM stream-read value)") | (no STREAM kernel) | - |"
    echo
    echo "## Compute (all threads, widest FMA kernel)"
    echo
    echo "| precision | kernel | measured GFLOP/s | theoretical GFLOP/s | measured / theoretical |"
    echo "|---|---|---|---|---|"
    jq -r "$dev | .ceilings[] | select(.kind == \"compute\") |
           \"| \(.level) | \(.kernel) | \(.value * 10 | round / 10) | \(.theoretical * 10 | round / 10) |\" +
           \" \(if .theoretical then (.value / .theoretical * 1000 | round / 1000) else \"-\" end) |\"" \
        "$work/peaks.json"
    echo
    echo "## Goals"
    echo
    fma=$(jq -r "[$dev | .ceilings[] | select(.kind == \"compute\" and .level == \"fp64\") |
                 .value / .theoretical * 1000 | round / 1000][0]" "$work/peaks.json")
    echo "- fp64 FMA peak / theoretical at the observed clock: $fma (goal >= 0.90)"
    if [ -n "$stream_triad" ]; then
        echo "- kbench triad / STREAM triad: $(ratio "$(ceil memory DRAM stream-triad value)" "$stream_triad") (goal 0.95 - 1.05)"
    else
        echo "- kbench triad / STREAM triad: not measured (no stream.c supplied; see the script header)"
    fi
    echo
    echo "## kbench peaks output"
    echo
    echo '```'
    cat "$work/peaks.txt"
    echo '```'
} >"$out"
echo "wrote $out" >&2
