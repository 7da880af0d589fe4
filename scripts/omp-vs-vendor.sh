#!/usr/bin/env bash
# omp-vs-vendor.sh - issue 23's benchmark: the hand-written omp kernels
# against the vendor libraries (oneDNN, oneDNN with reorders timed,
# OpenBLAS) on the sets of scripts/omp-vs-vendor.conf, over alternating
# rounds, summarised by scripts/omp_vs_vendor_table.py into
# results/omp/DATE-CPU[-LABEL].md.
#
# usage: scripts/omp-vs-vendor.sh [--quick | --full] [--rounds N]
#            [--sets S,...] [--label L] [--peaks FILE] [--kbench PATH]
#            [--reps N] [--min-time SEC] [--out FILE] [--runs DIR]
#            [--conf FILE] [--dry-run]
#   --quick          the conf's quick sets (default; about 1.5 minutes on
#                    2 cores at 3 rounds); --full: its full sets (hours:
#                    the conf's header gives the measured costs)
#   --rounds N       default 3.  Round r runs every set once; even rounds
#                    reverse the backends' order, and within a run kbench
#                    runs each case on every backend in turn, so omp and
#                    the vendor alternate case by case
#   --sets S,...     only these sets of the conf (whatever their mode)
#   --label L        appended to the table's name (before, after)
#   --peaks FILE     the ceilings (kbench peaks --json) that give each
#                    layer's fraction of the FMA ceiling; default: measure
#                    them first (kbench peaks --no-gpu, about a minute),
#                    kept as RUNS/peaks.json
#   --kbench PATH    default build/cpu/kbench (CPU-only build, BRIEF.md),
#                    else build/default/kbench
#   --reps N         timed repetitions per case and round (default 3)
#   --min-time SEC   seconds of timed running per case, at least (default 0)
#   --out FILE       the table (default results/omp/DATE-CPU[-LABEL].md)
#   --runs DIR       the kbench records (default: a temporary folder,
#                    deleted; the table's CSV beside it keeps the figures)
#   --conf FILE      default scripts/omp-vs-vendor.conf
#   --dry-run        print the commands, run nothing
# OPENBLAS_CORETYPE and OMP_* are passed through; the table names the
# core OpenBLAS ran.  Exit status: 0; 1 when a case FAILED or ERROR (the
# table says which); 2 usage or a bad conf line (FILE:LINE); 3 kbench or
# the table could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=quick rounds=3 sets= label= peaks= kbench= reps=3 mintime=0 out= runs=
conf=scripts/omp-vs-vendor.conf dry=0
args_given=("$@")
usage() { sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --quick) mode=quick; shift; continue ;;
    --full) mode=full; shift; continue ;;
    --dry-run) dry=1; shift; continue ;;
    -h | --help) usage ;;
    esac
    [ $# -ge 2 ] || usage
    case $1 in
    --rounds) rounds=$2 ;;
    --sets) sets=$2 ;;
    --label) label=$2 ;;
    --peaks) peaks=$2 ;;
    --kbench) kbench=$2 ;;
    --reps) reps=$2 ;;
    --min-time) mintime=$2 ;;
    --out) out=$2 ;;
    --runs) runs=$2 ;;
    --conf) conf=$2 ;;
    *) usage ;;
    esac
    shift 2
done
die() { echo "omp-vs-vendor: $*" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a positive integer"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps '$reps': expected a positive integer"
[ -r "$conf" ] || die "no conf at $conf"
if [ -z "$kbench" ]; then
    kbench=build/cpu/kbench
    [ -x "$kbench" ] || kbench=build/default/kbench
fi
[ "$dry" = 1 ] || [ -x "$kbench" ] || die "no kbench at $kbench (build it: BRIEF.md or cmake --workflow --preset default)"
[ -z "$peaks" ] || [ -r "$peaks" ] || die "--peaks $peaks: not readable"

# The conf: the chosen sets, each as name|backends|args (checked here so
# that a typo stops the run before an hour of measuring).
declare -a set_names=() set_backends=() set_args=()
declare -A known=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    read -r -a f <<<"$line" || true
    [ ${#f[@]} -gt 0 ] || continue
    [ ${#f[@]} -ge 6 ] || die "$conf:$n: expected: set modes backends base goals arguments..."
    name=${f[0]}
    [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || die "$conf:$n: set name '$name': letters, digits, - and _ only"
    [ -z "${known[$name]:-}" ] || die "$conf:$n: set '$name' given twice"
    known[$name]=1
    [[ ${f[1]} =~ ^(quick|full)(,(quick|full))?$ ]] || die "$conf:$n: modes '${f[1]}': quick, full or quick,full"
    [[ ${f[2]} == omp,* ]] || die "$conf:$n: backends '${f[2]}': omp first, then the vendors"
    [ "${f[3]}" = - ] || [ -n "${known[${f[3]}]:-}" ] || die "$conf:$n: base '${f[3]}': not a set above this line"
    [[ ${f[4]} =~ ^(-|([a-z_]+=[0-9.]+(/[0-9.]+)?)(,[a-z_]+=[0-9.]+(/[0-9.]+)?)*)$ ]] ||
        die "$conf:$n: goals '${f[4]}': - or BACKEND=GEOMEAN[/MIN],..."
    if [ -n "$sets" ]; then
        [[ ,$sets, == *,$name,* ]] || continue
    else
        [[ ,${f[1]}, == *,$mode,* ]] || continue
    fi
    set_names+=("$name")
    set_backends+=("${f[2]}")
    set_args+=("${f[*]:5}")
done <"$conf"
[ ${#set_names[@]} -gt 0 ] || die "no set of $conf is in mode '$mode' or --sets '$sets'"
if [ -n "$sets" ]; then
    IFS=, read -r -a want <<<"$sets"
    for s in "${want[@]}"; do
        [ -n "${known[$s]:-}" ] || die "--sets: '$s' is not a set of $conf"
    done
fi

keep_runs=1
if [ -z "$runs" ]; then
    runs=$(mktemp -d)
    keep_runs=0
fi
[ "$keep_runs" = 1 ] || [ "$dry" = 1 ] || trap 'rm -rf "$runs"' EXIT
[ "$dry" = 1 ] && [ "$keep_runs" = 0 ] && rm -rf "$runs"
run() {   # print the command; run it unless --dry-run
    echo "$*"
    [ "$dry" = 1 ] || "$@"
}
[ "$dry" = 1 ] || mkdir -p "$runs"
if [ -z "$peaks" ]; then
    peaks=$runs/peaks.json
    run "$kbench" peaks --no-gpu --json "$peaks" >/dev/null
fi

status=0
start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
    for i in "${!set_names[@]}"; do
        backends=${set_backends[i]}
        if ((r % 2 == 0)); then   # reversed: a drift falls on both alike
            IFS=, read -r -a b <<<"$backends"
            backends=$(printf '%s\n' "${b[@]}" | tac | paste -sd,)
        fi
        read -r -a a <<<"${set_args[i]}"
        echo "omp-vs-vendor: round $r/$rounds: ${set_names[i]} on $backends" >&2
        rc=0
        run "$kbench" run "${a[@]}" --backend "$backends" --peaks "$peaks" \
            --reps "$reps" --min-time "$mintime" --quiet \
            --json "$runs/${set_names[i]}.r$r.jsonl" || rc=$?
        case $rc in
        0) ;;
        1 | 3) status=1 ;;
        *) echo "omp-vs-vendor: kbench exited $rc on set ${set_names[i]}" >&2; exit 3 ;;
        esac
    done
done
[ "$dry" = 0 ] || exit 0
secs=$(($(date +%s) - start))

if [ -z "$out" ]; then
    cpu=$(python3 scripts/omp_vs_vendor_table.py --cpu-tag "$runs/${set_names[0]}.r1.jsonl") || exit 3
    out=results/omp/$(date -u +%F)-$cpu${label:+-$label}.md
fi
mkdir -p "$(dirname "$out")"
python3 scripts/omp_vs_vendor_table.py --conf "$conf" --rounds "$rounds" \
    --seconds "$secs" --csv "${out%.md}.csv" \
    --command "scripts/omp-vs-vendor.sh ${args_given[*]}" \
    --sets "$(IFS=,; echo "${set_names[*]}")" "$runs" >"$out.tmp" || exit 3
mv "$out.tmp" "$out"
echo "omp-vs-vendor: wrote $out and ${out%.md}.csv (${secs} s of measuring)" >&2
exit $status
