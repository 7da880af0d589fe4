#!/usr/bin/env bash
# flag-sweep.sh - build kbench once per compiler and flag set (a config
# file), run the same selection on every build, alternating the builds over
# rounds, and compare each build against the first with `kbench compare`.
#
# usage: scripts/flag-sweep.sh [CONFIG] [--out DIR] [--rounds N] [--jobs N]
#                              [--dry-run] [-- RUN-ARGS...]
#   CONFIG      builds, one a line: NAME COMPILER CFLAGS...
#               (default scripts/flag-sweep.conf, which says more)
#   --out DIR   where everything goes (default results/flags):
#               runs/NAME.rR.jsonl   each build's results in round R
#               NAME-vs-FIRST.rR.md/.svg/.json   the compare reports
#               README.md            the index: machine, date, command,
#                                    compilers, builds and verdicts
#   --rounds N  default 3: each round runs every build once, the order
#               reversed every other round, so a drift in the machine's
#               speed (other jobs, heat) falls on every build alike; each
#               round is compared on its own, so the index shows whether a
#               verdict repeats
#   --jobs N    parallel compile jobs (default: nproc)
#   --dry-run   read the config and print every command; build, run and
#               install nothing
#   RUN-ARGS    the selection every build runs (replaces the default below;
#               --quiet and --json are added)
# Build directories are build/flags-NAME.  Missing compilers are installed
# with apt-get (as root, or through sudo), after scripts/setup-debian.sh.
# Exit status: 0 swept, 1 a kbench run had a FAILED or ERROR case (the
# sweep still finishes and the index counts them), 2 usage or config error
# (kbench refusing RUN-ARGS included), 3 an install, build or compare
# failed, or a run record does not name the build it came from.
set -euo pipefail

cd "$(dirname "$0")/.."
self="scripts/flag-sweep.sh"
command_line=$(printf '%q ' "$self" "$@")
command_line=${command_line% }

config=scripts/flag-sweep.conf
out=results/flags
rounds=3
jobs=$(nproc)
dry=false
# ResNet-50 at batch 1 on the hand-written backend, one layer of each kind:
# strided 7x7 stem, 3x3 at 56 and 14 pixels, 1x1 at 28, strided 1x1, two
# batchnorms, the fully connected GEMM.  Setting up and validating the
# cases costs more than timing them, so a subset keeps a round short; 200
# samples at most keep the microsecond cases' files small.
run_args=(--model resnet50 --backend omp --mb 1 --reps 20 --min-time 0.3 --max-reps 200
          --layer '^(conv1|res2a_branch2b|res3a_branch2c|res4b_branch2b|res5a_branch1|bn_conv1|bn4a_branch2c|fc)$')

usage() { sed -n '6,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit "${1:-2}"; }
die() { echo "flag-sweep: $2" >&2; exit "$1"; }

while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
        --rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
        --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
        --dry-run) dry=true; shift ;;
        --) shift; run_args=("$@"); break ;;
        -h|--help) usage 0 ;;
        -*) echo "flag-sweep: unknown option $1" >&2; usage ;;
        *) config=$1; shift ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die 2 "--rounds wants a positive integer, not '$rounds'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die 2 "--jobs wants a positive integer, not '$jobs'"
[ ${#run_args[@]} -gt 0 ] || die 2 "no RUN-ARGS after --"

# The config: NAME COMPILER CFLAGS..., '#' to the end of a line a comment.
names=() compilers=() cflags=()
[ -r "$config" ] || die 2 "cannot read config $config"
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    read -r name cc flags <<<"$line" || true
    [ -n "${name:-}" ] || continue
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] ||
        die 2 "$config:$lineno: build name '$name' may hold only letters, digits, '.', '_', '-'"
    [ -n "${cc:-}" ] || die 2 "$config:$lineno: build '$name' names no compiler (NAME COMPILER CFLAGS...)"
    for n in "${names[@]}"; do
        [ "$n" != "$name" ] || die 2 "$config:$lineno: build name '$name' given twice"
    done
    names+=("$name") compilers+=("$cc") cflags+=("${flags:-}")
done <"$config"
[ ${#names[@]} -ge 2 ] || die 2 "$config: needs at least two builds (the first is the baseline), has ${#names[@]}"
nb=${#names[@]}

# show CMD...: print it shell-quoted; run CMD...: print it, then run it
# unless --dry-run.
show() { printf '%q ' "$@" | sed 's/ $//'; echo; }
run() { show "$@" >&2; $dry || "$@"; }

# The Debian packages of a compiler: gcc-N and clang-N are packages of
# that name; clang's OpenMP (omp.h, libomp.so) is in libomp-dev, not in
# clang, and CMake's find_package(OpenMP) fails without it.
packages_for() {
    case $1 in
        gcc|gcc-[0-9]*) echo "$1" ;;
        clang) echo "clang libomp-dev" ;;
        clang-[0-9]*) echo "$1 libomp-${1#clang-}-dev" ;;
    esac
}

install_compilers() {
    local missing=() i p
    for ((i = 0; i < nb; i++)); do
        for p in $(packages_for "${compilers[i]}"); do
            dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
                missing+=("$p")
        done
        [ -n "$(packages_for "${compilers[i]}")" ] || command -v "${compilers[i]}" >/dev/null ||
            die 2 "compiler '${compilers[i]}' is not on PATH and not a gcc or clang package to install"
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    local as_root=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die 2 "run as root or install sudo (needed: ${missing[*]})"
        as_root=(sudo)
    fi
    echo "flag-sweep: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { run "${as_root[@]}" apt-get update &&
      run "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; } ||
        die 3 "apt-get could not install ${missing[*]}"
}

if ! $dry; then
    scripts/setup-debian.sh >&2 || die 3 "scripts/setup-debian.sh failed"
    install_compilers
fi

# One build directory per entry.  CMAKE_C_FLAGS is emptied so $CFLAGS from
# the environment cannot slip in; KB_NATIVE is off so -march=native comes
# only from the config; tests are not built.
for ((i = 0; i < nb; i++)); do
    dir=build/flags-${names[i]}
    run cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${compilers[i]}" \
        -DCMAKE_C_FLAGS= -DCMAKE_C_FLAGS_RELEASE="${cflags[i]}" -DKB_NATIVE=OFF -DBUILD_TESTING=OFF \
        >&2 || die 3 "configuring $dir failed (see above)"
    run cmake --build "$dir" -j "$jobs" >&2 || die 3 "building $dir failed (see above)"
done

# The load average before each run goes into runs/load.tsv: other jobs on
# the machine are what the rounds are there to spread.
$dry || { mkdir -p "$out/runs" && : >"$out/runs/load.tsv"; } || die 3 "cannot write $out/runs"
# runs/builds.tsv: what each build was made with, for the index, in
# config order (the first is the baseline).
$dry || for ((i = 0; i < nb; i++)); do
    printf '%s\t%s\t%s\t%s\n' "${names[i]}" "${compilers[i]}" "${cflags[i]}" \
        "$("${compilers[i]}" --version | head -n 1)"
done >"$out/runs/builds.tsv" || die 3 "cannot write $out/runs/builds.tsv"
run_rc=0
for ((r = 1; r <= rounds; r++)); do
    for ((k = 0; k < nb; k++)); do
        i=$(( r % 2 == 1 ? k : nb - 1 - k ))
        json=$out/runs/${names[i]}.r$r.jsonl
        $dry || printf '%s\t%s\t%s\n' "${names[i]}" "$r" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/runs/load.tsv"
        rc=0
        run "build/flags-${names[i]}/kbench" run "${run_args[@]}" --quiet --json "$json" || rc=$?
        case $rc in
            0) ;;
            1|3) echo "flag-sweep: ${names[i]} round $r: kbench exited $rc (see $json)" >&2; run_rc=1 ;;
            2) die 2 "${names[i]} round $r: kbench refused the selection (see above)" ;;
            *) die 3 "${names[i]} round $r: kbench run exited $rc" ;;
        esac
    done
done

# Each build against the first, round by round, with the first's kbench.
first=${names[0]}
for ((i = 1; i < nb; i++)); do
    for ((r = 1; r <= rounds; r++)); do
        base=$out/${names[i]}-vs-$first.r$r
        run "build/flags-$first/kbench" compare "$out/runs/$first.r$r.jsonl" "$out/runs/${names[i]}.r$r.jsonl" \
            --md "$base.md" --svg "$base.svg" --json "$base.json" >/dev/null ||
            die 3 "kbench compare for ${names[i]} round $r failed"
    done
done

# The index, after checking that every run record names its build.
run python3 scripts/flag_sweep_index.py "$out" "$rounds" "$command_line" ||
    die 3 "the index could not be written (see above)"
$dry || echo "flag-sweep: wrote $out/README.md" >&2
exit "$run_rc"
