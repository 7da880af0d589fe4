#!/bin/sh
# stream-compare.sh - benchmark (not a test): run `kbench peaks` and
# McCalpin's STREAM side by side, built with the same compiler and flags,
# and write results/peaks/stream-compare.md.
#
# Usage: scripts/stream-compare.sh [--stream-c PATH | --hpcc-source auto|TARBALL]
#                                  [--kbench CMD] [--out FILE]
#   --stream-c PATH  McCalpin's own stream.c (https://www.cs.virginia.edu/stream/),
#                    if you have a copy: it is not packaged in Debian and not
#                    shipped with kbench.  Built with -DNTIMES=11.
#   --hpcc-source S  the default when --stream-c is not given: HPC Challenge's
#                    STREAM/stream.c, which is McCalpin's stream_mpi.c (5.10)
#                    adapted to HPCC, built as one process with OpenMP threads
#                    against the single-process shim in scripts/stream/ (no MPI).
#                    S = auto: download Debian bookworm's hpcc source package
#                    (its hpcc_*.orig.tar.gz only) with apt-get, from the
#                    Debian mirror this machine's apt uses (scripts/apt-mirror.sh,
#                    or KB_DEBIAN_MIRROR), into this run's temporary folder; S = TARBALL:
#                    use that hpcc-*.tar.gz instead (no network).  stream.c is
#                    never copied into the repository.
#   --kbench CMD     the kbench program (default: build/default/kbench);
#                    it is run as `CMD peaks --json FILE`.
#   --out FILE       the Markdown table (default: results/peaks/stream-compare.md)
# Environment: CC (default gcc), CFLAGS (default: kbench's Release flags
# "-O3 -march=native -fopenmp"), OMP_NUM_THREADS (default: all CPUs),
# ROUNDS (default 3) of kbench peaks and STREAM, alternating.
#
# The download needs apt-get, network access to that mirror and
# /usr/share/keyrings/debian-archive-keyring.gpg, but NOT root (it works as
# an ordinary user, and as root): apt-get gets a private sources file,
# package lists and cache in the temporary folder (-o Dir::Etc::SourceList=...
# -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=...
# -o Dir::Cache=...), so /etc/apt and /var/lib/apt are neither read for
# sources nor written.  apt checks the tarball against
# the signed index.  If the download fails, only kbench's figures are
# reported, with the reason, and no ratio is claimed.
#
# STREAM is sized by its own rule: each array 4 x the last-level cache
# (taken from the ceilings kbench just measured, i.e. from hwloc/sysfs).
# Repetitions: McCalpin's stream.c NTIMES=11 like kbench; HPCC's stream.c
# has NTIMES fixed at 10 in its source.  Either way the first repetition is
# discarded and the best reported.  HPCC prints GB/s, stream.c MB/s
# (10^9 and 10^6 bytes per second); the table is in GB/s.
# Goals: kbench triad within 5 % of STREAM triad; fp64 FMA peak >= 90 % of
# cores x FMA pipes x lanes x 2 x the clock measured during the FMA run
# (pipes and width from microarch.conf; results/CEILINGS.md).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
stream_c=""
hpcc_source=""
kbench="$root/build/default/kbench"
out="$root/results/peaks/stream-compare.md"
while [ $# -gt 0 ]; do
    case "$1" in
    --stream-c) stream_c=$2; shift 2 ;;
    --hpcc-source) hpcc_source=$2; shift 2 ;;
    --kbench) kbench=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "stream-compare.sh: unknown argument \"$1\" (see the header of $0)" >&2; exit 2 ;;
    esac
done
for tool in jq "${CC:-gcc}"; do
    command -v "$tool" >/dev/null || { echo "stream-compare.sh: $tool not found" >&2; exit 2; }
done
if [ -n "$stream_c" ]; then
    [ -z "$hpcc_source" ] ||
        { echo "stream-compare.sh: give --stream-c or --hpcc-source, not both" >&2; exit 2; }
    [ -r "$stream_c" ] || { echo "stream-compare.sh: cannot read $stream_c" >&2; exit 2; }
else
    hpcc_source=${hpcc_source:-auto}
    [ "$hpcc_source" = auto ] || [ -r "$hpcc_source" ] ||
        { echo "stream-compare.sh: cannot read $hpcc_source" >&2; exit 2; }
fi

cc=${CC:-gcc}
cflags=${CFLAGS:-"-O3 -march=native -fopenmp"}
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS="$threads" OMP_PROC_BIND=close OMP_PLACES=cores
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fetch_hpcc DIR: download Debian's hpcc orig tarball into DIR and print its
# path; on failure print why on stderr and return 1.  Nothing outside DIR is
# written, so it runs without root and leaves the system's apt state alone.
fetch_hpcc() {
    d=$1
    command -v apt-get >/dev/null || { echo "apt-get not found" >&2; return 1; }
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    [ -r "$keyring" ] || { echo "$keyring missing (apt-get install debian-archive-keyring)" >&2; return 1; }
    mirror=${KB_DEBIAN_MIRROR:-$("$root/scripts/apt-mirror.sh")} || return 1
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
    printf '%s\n' "Types: deb-src" "URIs: $mirror" "Suites: bookworm" \
        "Components: main" "Signed-By: $keyring" >"$d/hpcc.sources"
    set -- -o Dir::Etc::SourceList="$d/hpcc.sources" -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache"
    # apt-get update only warns when it can't fetch: look for the index
    apt-get "$@" update >"$d/apt.log" 2>&1 || :
    index=""
    for f in "$d"/lists/*_Sources*; do [ -f "$f" ] && index=$f; done
    if [ -z "$index" ]; then
        grep -v unsandboxed "$d/apt.log" | tail -n 5 >&2
        echo "could not fetch bookworm's source index from $mirror" >&2
        return 1
    fi
    # The exit status is ignored on purpose: the mirror may lack the
    # .debian.tar.xz, and then apt-get fails although the orig tarball,
    # the only file used, arrived (checked against the signed index).
    (cd "$d" && apt-get "$@" source --download-only hpcc) >>"$d/apt.log" 2>&1 || :
    for f in "$d"/hpcc_*.orig.tar.gz; do
        [ -f "$f" ] && { echo "$f"; return 0; }
    done
    grep -v unsandboxed "$d/apt.log" | tail -n 5 >&2
    echo "apt-get source --download-only hpcc brought no hpcc_*.orig.tar.gz" >&2
    return 1
}

# Obtain HPCC's stream.c before kbench runs, so no download competes with
# the measurements.  stream_kind: mccalpin, hpcc, or empty (not run, and
# stream_why says why).
stream_kind=""
stream_why="no stream.c supplied"
stream_src=""
if [ -n "$stream_c" ]; then
    stream_kind=mccalpin
    stream_src="McCalpin's stream.c ($stream_c)"
else
    tarball=$hpcc_source
    origin="from $tarball"
    if [ "$hpcc_source" = auto ]; then
        echo "== HPCC source: apt-get source --download-only hpcc (Debian bookworm, private apt state)" >&2
        if tarball=$(fetch_hpcc "$work/apt"); then
            deb_ver=$(sed -n 's/^Version: //p' "$work"/apt/hpcc_*.dsc 2>/dev/null | head -n 1)
            origin="from Debian's hpcc ${deb_ver:+$deb_ver }source"
        else
            tarball=""
            stream_why="downloading Debian's hpcc source failed: no network?"
            echo "stream-compare.sh: $stream_why STREAM not run; reporting kbench only, without a ratio" >&2
        fi
    fi
    if [ -n "$tarball" ]; then
        mkdir "$work/hpcc"
        tar -xzf "$tarball" -C "$work/hpcc"
        for f in "$work"/hpcc/*/STREAM/stream.c; do stream_c=$f; done
        [ -f "$stream_c" ] ||
            { echo "stream-compare.sh: no */STREAM/stream.c in $tarball" >&2; exit 2; }
        hpcc_ver=$(basename "$(dirname "$(dirname "$stream_c")")" | sed 's/^hpcc-//')
        # the newest "Version 5.x" its comments describe, i.e. stream_mpi.c's
        mc_ver=$(grep -o 'Version 5\.[0-9]*' "$stream_c" | sort -t. -k2,2n | tail -n 1 | cut -d' ' -f2)
        stream_kind=hpcc
        stream_src="HPCC $hpcc_ver STREAM/stream.c (McCalpin's stream_mpi.c ${mc_ver:-?}) $origin"
    fi
fi

echo "== kbench peaks ($threads threads)" >&2
# shellcheck disable=SC2086  # CMD may carry its own arguments
$kbench peaks --threads "$threads" --json "$work/peaks.json" >"$work/peaks.txt"
cat "$work/peaks.txt" >&2
dev='.devices[] | select(.kind == "cpu")'
ceil() {  # ceil KIND LEVEL KERNEL FIELD [FILE]: one ceiling's field, or "null"
    jq -r "[$dev | .ceilings[] | select(.kind == \"$1\" and .level == \"$2\" and .kernel == \"$3\") | .$4][0]" \
        "${5:-$work/peaks.json}"
}
llc=$(jq -r "[$dev | .topology.l3_bytes][0]" "$work/peaks.json")
n=$(awk -v b="$llc" 'BEGIN { n = 4 * b / 8; if (n < 10000000) n = 10000000; printf "%.0f", n }')

# $cc and $cflags are split into words on purpose (e.g. CFLAGS="-O3 -fopenmp").
# shellcheck disable=SC2086
case "$stream_kind" in
mccalpin)
    echo "== STREAM: $cc $cflags -DSTREAM_ARRAY_SIZE=$n -DNTIMES=11" >&2
    # STREAM's arrays are static: above 2 GiB they need -mcmodel=medium
    $cc $cflags -mcmodel=medium -DSTREAM_ARRAY_SIZE="$n" -DNTIMES=11 "$stream_c" \
        -o "$work/stream" -lm
    ntimes="NTIMES=11"
    ;;
hpcc)
    echo "== STREAM: $cc $cflags -DSTREAM_ARRAY_SIZE=$n -I scripts/stream (HPCC stream.c + shim)" >&2
    # HPCC mallocs its arrays, so no -mcmodel; the shim stands in for <hpcc.h>
    $cc $cflags -DSTREAM_ARRAY_SIZE="$n" -I "$root/scripts/stream" "$stream_c" \
        "$root/scripts/stream/stream_main.c" -o "$work/stream" -lm
    ntimes="NTIMES=10 (fixed in HPCC's source)"
    ;;
esac
# stream_rate KERNEL [FILE]: STREAM's best rate in GB/s (10^9 bytes/s): HPCC
# prints "Triad:  45.80 ..." in GB/s, McCalpin's stream.c "Triad:  45800.0
# ..." in MB/s
stream_rate() {
    awk -v k="$1:" -v kind="$stream_kind" \
        '$1 == k { printf "%.2f", kind == "hpcc" ? $2 : $2 / 1000 }' "${2:-$work/stream.txt}"
}
# run_stream FILE: one validated STREAM run
run_stream() {
    # stream_main.c exits non-zero when HPCC_Stream() fails or doesn't validate
    "$work/stream" >"$1" ||
        { cat "$1" >&2; echo "stream-compare.sh: STREAM failed" >&2; exit 1; }
    # both versions print this line after checking all three arrays
    grep -q "^Solution Validates" "$1" ||
        { cat "$1" >&2; echo "stream-compare.sh: STREAM did not validate" >&2; exit 1; }
}
# Alternate kbench and STREAM for $rounds rounds (round 1's kbench run is the
# one above), so a drift in the machine's bandwidth between two runs does
# not read as a difference between them; each side reports its best round.
rounds=${ROUNDS:-3}
stream_triad=""
if [ -n "$stream_kind" ]; then
    run_stream "$work/stream.txt"
    cat "$work/stream.txt" >&2
    cp "$work/stream.txt" "$work/stream1.txt"
    cp "$work/peaks.json" "$work/peaks1.json"
    r=2
    while [ "$r" -le "$rounds" ]; do
        echo "== round $r of $rounds: kbench peaks, STREAM" >&2
        # shellcheck disable=SC2086  # CMD may carry its own arguments
        $kbench peaks --threads "$threads" --json "$work/peaks$r.json" >/dev/null
        run_stream "$work/stream$r.txt"
        r=$((r + 1))
    done
    if [ "$stream_kind" = hpcc ]; then
        # HPCC's own count, in case it differs from the NTIMES we assumed
        reps=$(sed -n 's/^Each test is run \([0-9]*\) times.*/\1/p' "$work/stream.txt")
        ntimes="NTIMES=${reps:-?} (fixed in HPCC's source)"
        st_threads=$(sed -n 's/^Number of Threads requested = //p' "$work/stream.txt")
        stream_src="$stream_src, one process, ${st_threads:-$threads} OpenMP threads, via scripts/stream/ shim"
    fi
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
# max_of: the largest of the numbers on stdin
max_of() { sort -g | tail -n 1; }
# best_kbench KERNEL / best_stream KERNEL: the best round, GB/s
best_kbench() {
    if [ -z "$stream_kind" ]; then ceil memory DRAM "stream-$1" value; return; fi
    for f in "$work"/peaks[0-9]*.json; do ceil memory DRAM "stream-$1" value "$f"; done | max_of
}
best_stream() {
    K=$(printf '%s' "$1" | awk '{ print toupper(substr($0, 1, 1)) substr($0, 2) }')
    for f in "$work"/stream[0-9]*.txt; do stream_rate "$K" "$f"; echo; done | max_of
}
[ -z "$stream_kind" ] || stream_triad=$(best_stream triad)
# triad_ratios: kbench/STREAM triad of each round, "min / median / max"
triad_ratios() {
    r=1
    while [ "$r" -le "$rounds" ]; do
        ratio "$(ceil memory DRAM stream-triad value "$work/peaks$r.json")" \
              "$(stream_rate Triad "$work/stream$r.txt")"
        echo
        r=$((r + 1))
    done | sort -g | awk '{ v[NR] = $1 } END { printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
mkdir -p "$(dirname "$out")"
{
    echo "# kbench peaks vs STREAM"
    echo
    echo "Benchmark, not a test.  Produced by:"
    echo
    echo '```'
    if [ "$stream_kind" = mccalpin ]; then
        echo "ROUNDS=$rounds scripts/stream-compare.sh --stream-c $stream_c --kbench $kbench"
    elif [ "$hpcc_source" != auto ]; then
        echo "ROUNDS=$rounds scripts/stream-compare.sh --hpcc-source $hpcc_source --kbench $kbench"
    else
        echo "ROUNDS=$rounds scripts/stream-compare.sh --kbench $kbench"
    fi
    echo '```'
    echo
    echo "- machine: $(jq -r "[$dev | .model][0]" "$work/peaks.json"), host $(jq -r .host "$work/peaks.json")," \
         "$(jq -r "[$dev | .cores][0]" "$work/peaks.json") cores, $threads threads pinned" \
         "($(jq -r "[$dev | .affinity][0]" "$work/peaks.json"); STREAM the same)"
    echo "- clock: measured during each FMA run ($(jq -r "[$dev | .clock_source][0]" "$work/peaks.json"))," \
         "microarchitecture: $(jq -r "[$dev | .cpu_id.microarch // \"unknown\"][0]" "$work/peaks.json")"
    echo "- date: $(jq -r .date "$work/peaks.json"); build: $(jq -r .build.compiler "$work/peaks.json")," \
         "$(jq -r .build.flags "$work/peaks.json"), commit $(jq -r .build.git_commit "$work/peaks.json")"
    if [ -n "$stream_kind" ]; then
        echo "- STREAM: $stream_src; $cc $cflags," \
             "STREAM_ARRAY_SIZE=$n (4 x LLC of $llc bytes), $ntimes; first repetition discarded, best reported"
    else
        echo "- STREAM: not run ($stream_why); would be $cc $cflags," \
             "STREAM_ARRAY_SIZE=$n (4 x LLC of $llc bytes)"
    fi
    echo
    echo "## Memory (best of the repetitions after the first, STREAM byte counting)"
    echo
    if [ -n "$stream_kind" ]; then
        echo "$rounds rounds, kbench peaks and STREAM alternating; each side's best round."
        echo
    fi
    echo "| kernel | kbench GB/s | STREAM GB/s | kbench / STREAM |"
    echo "|---|---|---|---|"
    for k in copy scale add triad; do
        kb=$(best_kbench "$k")
        st=$( [ -n "$stream_kind" ] && best_stream "$k" || echo "-")
        echo "| $k | $(printf '%.2f' "$kb") | $st | $(ratio "$kb" "${st#-}") |"
    done
    echo "| read | $(printf '%.2f' "$(best_kbench read)") | (no STREAM kernel) | - |"
    echo
    echo "## Compute (all threads, widest FMA kernel)"
    echo
    echo "| precision | kernel | measured GFLOP/s | theoretical GFLOP/s | measured / theoretical |"
    echo "|---|---|---|---|---|"
    jq -r "$dev | .ceilings[] | select(.kind == \"compute\") |
           \"| \(.level) | \(.kernel) | \(.value * 10 | round / 10) | \(if .theoretical then (.theoretical * 10 | round / 10) else \"-\" end) |\" +
           \" \(if .theoretical then (.value / .theoretical * 1000 | round / 1000) else \"-\" end) |\"" \
        "$work/peaks.json"
    echo
    echo "## Goals"
    echo
    fma=$(jq -r "[$dev | .ceilings[] | select(.kind == \"compute\" and .level == \"fp64\") |
                 if .theoretical then (.value / .theoretical * 1000 | round / 1000) else \"no theoretical\" end][0]" "$work/peaks.json")
    echo "- fp64 FMA peak / theoretical at the observed clock: $fma (goal >= 0.90)"
    if [ -n "$stream_triad" ]; then
        echo "- kbench triad / STREAM triad: $(ratio "$(best_kbench triad)" "$stream_triad")" \
             "(goal 0.95 - 1.05); per round min / median / max: $(triad_ratios)"
    else
        echo "- kbench triad / STREAM triad: not measured ($stream_why; see the script header)"
    fi
    echo
    echo "## kbench peaks output"
    echo
    echo '```'
    cat "$work/peaks.txt"
    echo '```'
} >"$out"
echo "wrote $out" >&2
