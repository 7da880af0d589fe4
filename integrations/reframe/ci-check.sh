#!/usr/bin/env bash
# ci-check.sh - runs the ReFrame package for real against a built kbench: local scheduler, or Slurm with --distribute.
#
#   integrations/reframe/ci-check.sh [--slurm] [KBENCH_BIN]    (KBENCH_BIN default: build/default/kbench)
#
# Installs reframe-hpc from PyPI into a virtual environment (kept in
# build/reframe-venv when build/ exists, else a temporary one), measures the
# roofline (`kbench peaks --quick`) and runs every model on every backend the
# binary has, its GEMM layers only, with the site configuration's `local`
# system. It then proves the judging is real: kbench output with a failed
# case, or without its SUITE_STATUS line, both exiting 0, must fail sanity,
# and an unmeetable reference must fail the performance stage. The passing
# run also adds every test's results to a history database
# (-S history_db), which `kbench history export` must give back, a run per
# test, each tagged with it; a database that refuses the run must fail the
# test.
# --slurm instead starts the test cluster (integrations/slurm/local-cluster.sh,
# stopped on exit) and runs the same tests on the `slurm-local` system with
# --distribute=all: one job per test per node, every node must be used.
# Exits non-zero on any failure. Extra ReFrame options: $KB_RFM_OPTS.
set -euo pipefail

die() { echo "ci-check: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=local
if [ "${1:-}" = --slurm ]; then
    mode=slurm
    shift
fi
[ $# -le 1 ] || die "usage: $0 [--slurm] [KBENCH_BIN]"
bin=${1:-$root/build/default/kbench}
[ -x "$bin" ] || die "no kbench binary at $bin: build it (cmake --workflow --preset default) or pass its path"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

work=$(mktemp -d "${TMPDIR:-/tmp}/kbench-rfm.XXXXXX")
cluster=""
cleanup() {
    if [ -n "$cluster" ]; then
        "$root/integrations/slurm/local-cluster.sh" stop "$cluster" || echo "ci-check: stopping the Slurm cluster failed" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

if [ -d "$root/build" ]; then
    venv=$root/build/reframe-venv
else
    venv=$work/venv
fi
if ! "$venv/bin/reframe" --version >/dev/null 2>&1; then
    echo "ci-check: installing reframe-hpc into $venv"
    rm -rf "$venv"
    # Debian's python3 makes no venv (no ensurepip) without python3-venv.
    if ! python3 -m venv "$venv"; then
        if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
            die "python3 -m venv failed (on Debian, as root: apt-get install python3-venv)"
        fi
        rm -rf "$venv"
        apt-get update -qq >/dev/null || die "apt-get update failed"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null \
            || die "apt-get install python3-venv failed"
        python3 -m venv "$venv" || die "python3 -m venv failed, even with python3-venv installed"
    fi
    # >= 4.10: references.yaml is read through reference = {'$ref': ...}.
    "$venv/bin/pip" install -q 'reframe-hpc>=4.10,<5' || die "pip install reframe-hpc failed"
fi
echo "ci-check: ReFrame $("$venv/bin/reframe" --version), kbench $bin"

# the CPU backends: this machine has no GPU, whose backends only SKIP here
backends=$("$bin" list backends | awk '/ kind=/ && / device=cpu/ {print $1}' | paste -sd, -)
[ -n "$backends" ] || die "$bin list backends names no backend"
"$bin" peaks --quick --json "$work/peaks.json" >/dev/null || die "kbench peaks failed"

# reframe NAME SYSTEM [OPTION...]: one run into $work/NAME, report in $work/NAME.json.
reframe() {
    local name=$1 system=$2
    shift 2
    # shellcheck disable=SC2086  # KB_RFM_OPTS is a list of options
    "$venv/bin/reframe" -C "$here/config/site.py" -c "$here/kbench_checks.py" -r \
        --system "$system" --prefix "$work/$name" --report-file "$work/$name.json" \
        -S kernel=gemm -S reps=3 -S min_time=0.05 -S peaks="$work/peaks.json" \
        ${KB_RFM_OPTS:-} "$@"
}

# report_check NAME EXPECT: the run's report says EXPECT ('pass' N, or
# 'fail' PHASE: every test failed, in that pipeline stage).
report_check() {
    "$venv/bin/python" - "$work/$1.json" "$2" "$3" <<'EOF'
import json, sys
report, expect, arg = sys.argv[1:]
cases = [c for run in json.load(open(report))['runs'][:1] for c in run['testcases']
         if c['name'].startswith('KbenchModelCheck')]
failed = [c for c in cases if c['result'] != 'pass']
if expect == 'pass':
    ok = len(cases) == int(arg) and not failed
    why = f'{len(cases)} tests (expected {arg}), {len(failed)} failed'
else:
    phases = sorted({c['fail_phase'] for c in failed})
    ok = cases and len(failed) == len(cases) and phases == [arg]
    why = (f'{len(failed)} of {len(cases)} tests failed, in {phases or "no"} phase (expected {arg})'
           + ''.join(f'; {c["fail_reason"]}' for c in failed[:1]))
print(f'ci-check: {report}: {why}')
sys.exit(0 if ok else 1)
EOF
}

# history_check N: the history database holds N runs, one per test, each
# tagged with its test's name.
history_check() {
    "$bin" history export --db "$work/history.db" --jsonl "$work/history.jsonl" \
        || die "kbench history export failed"
    "$venv/bin/python" - "$work/history.jsonl" "$1" <<'EOF'
import collections, json, sys
runs = [r for r in map(json.loads, open(sys.argv[1])) if r['type'] == 'history_run']
tests = collections.Counter(r['tags'].get('reframe_test') for r in runs)
ok = len(runs) == int(sys.argv[2]) and None not in tests
print(f'ci-check: history: {len(runs)} runs (expected {sys.argv[2]}), from {len(tests)} tests'
      + ('' if ok else f': {dict(tests)}'))
sys.exit(0 if ok else 1)
EOF
}

nb=$(echo "$backends" | tr ',' '\n' | wc -l)
start=$SECONDS
if [ $mode = local ]; then
    KBENCH_BACKENDS=$backends reframe local local -S kbench_bin="$bin" --report-junit "$work/junit.xml" \
        -S history_db="$work/history.db" || die "ReFrame run failed (local, backends $backends)"
    report_check local pass $((3 * nb)) || die "local run: unexpected report"
    history_check $((3 * nb)) || die "local run: the history does not hold every test's run"

    # Lost exit status: output that says failure, from a process that exits 0.
    # stub NAME FILTER: a kbench whose `run` output goes through FILTER, exiting 0.
    stub() {
        # shellcheck disable=SC2016  # $1 and $@ are the stub's own
        printf '#!/bin/sh\n[ "$1" = run ] || exec %q "$@"\n%q "$@" | %s\nexit 0\n' \
            "$bin" "$bin" "$2" >"$work/stub/$1"
        chmod +x "$work/stub/$1"
    }
    mkdir -p "$work/stub"
    stub flips-valid 'sed s/valid=PASS/valid=FAIL/'
    stub no-marker 'grep -v ^SUITE_STATUS'
    # shellcheck disable=SC2016  # $index is YAML
    printf 'KbenchModelCheck:\n  $index: [model]\n  resnet50:\n    fc_gflops: [1.0e+12, -0.5, null, GFLOP/s]\n' \
        >"$work/stub/references.yaml"
    for stub in flips-valid no-marker; do
        KBENCH_BACKENDS=${backends%%,*} reframe "$stub" local -n '%model=resnet50' -S kbench_bin="$work/stub/$stub" \
            >"$work/$stub.log" 2>&1 && die "ReFrame passed kbench output with $stub (log: $(cat "$work/$stub.log"))"
        report_check "$stub" fail sanity || die "$stub: not failed by sanity"
    done
    KBENCH_BACKENDS=${backends%%,*} RFM_REFERENCE_PREFIX="$work/stub" reframe unmet-ref local -n '%model=resnet50' \
        -S kbench_bin="$bin" >"$work/unmet-ref.log" 2>&1 && die "ReFrame passed a reference of 1e12 GFLOP/s"
    report_check unmet-ref fail performance || die "unmet reference: not failed by performance"
    # A history that refuses the run (not a kbench database) fails the test.
    echo "not a database" >"$work/not-a.db"
    KBENCH_BACKENDS=${backends%%,*} reframe bad-history local -n '%model=resnet50' -S kbench_bin="$bin" \
        -S history_db="$work/not-a.db" >"$work/bad-history.log" 2>&1 \
        && die "ReFrame passed a test whose history add failed"
    report_check bad-history fail sanity || die "failed history add: not failed by sanity"
else
    cluster=$work/slurm
    "$root/integrations/slurm/local-cluster.sh" start "$cluster" || die "the Slurm test cluster did not start"
    export SLURM_CONF=$cluster/slurm.conf
    nodes=$(sinfo -h -N -o '%N' | sort -u | wc -l)
    KBENCH_BACKENDS=$backends reframe slurm slurm-local -S kbench_bin="$bin" --distribute=all \
        -S history_db="$work/history.db" --report-junit "$work/junit.xml" \
        || die "ReFrame run failed (Slurm, backends $backends)"
    report_check slurm pass $((3 * nb * nodes)) || die "Slurm run: unexpected report"
    history_check $((3 * nb * nodes)) || die "Slurm run: the history does not hold every test's run"
    # Every test ran on every node, by the controller's own record: the
    # report's node list is empty for jobs that ended between two squeue polls.
    "$venv/bin/python" - "$work/slurm.json" "$cluster/log/slurmctld.log" \
        "$(sinfo -h -N -o '%N' | sort -u | paste -sd, -)" <<'EOF' || die "--distribute=all did not run every test on every node"
import collections, json, re, sys
report, log, nodes = sys.argv[1], sys.argv[2], set(sys.argv[3].split(','))
pat = r'(?:Allocate JobId=(\d+) NodeList=|Started JobId=(\d+) in \S+ on )(\S+)'
ran_on = {a or b: n for a, b, n in re.findall(pat, open(log).read())}
per_test = collections.defaultdict(set)
for c in json.load(open(report))['runs'][0]['testcases']:
    if c['name'].startswith('KbenchModelCheck'):
        per_test[re.sub(r' %\.(part|nid)=\S+', '', c['name'])].add(ran_on.get(str(c['jobid'])))
bad = {t: sorted(map(str, n)) for t, n in per_test.items() if n != nodes}
print(f'ci-check: {len(per_test)} tests, each ran on {sorted(nodes)} (slurmctld log)'
      + (f'; not so: {bad}' if bad else ''))
sys.exit(1 if bad or not per_test else 0)
EOF
fi
echo "ci-check: ReFrame $mode run passed ($backends; $((SECONDS - start)) s)"
