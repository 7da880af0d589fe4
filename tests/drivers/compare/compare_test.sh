#!/usr/bin/env bash
# compare_test.sh - `kbench compare` end to end on small real results from
# `kbench run`, and on copies edited into slower, unmatched or broken
# files; one function per ctest case.  Usage: compare_test.sh CASE KBENCH
set -uo pipefail

case_name=$1 kbench=$2
KB_TEST_PREFIX=compare
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../../test_lib.sh"

# results FILE [REPS] [run options...]: a small real run, a GEMM and a
# convolution on omp.
results() {
    local out=$1 reps=${2:-12}
    shift $(($# < 2 ? $# : 2))
    "$kbench" run --desc m64n64k64 --desc mb1ic8ih16oc8kh3ph1 --backend omp \
        --reps "$reps" --min-time 0 --quiet --json "$out" "$@" >/dev/null ||
        fail "kbench run --json $out failed"
}

# json_check FILE CODE: CODE (Python, the compare JSON as the dict j)
# must not raise.
json_check() {
    python3 - "$1" "$2" <<'PY' || fail "json_check $1: $2"
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[2])
PY
}

# Two real runs (2 threads, then 1: a provenance difference to warn of):
# a verdict for every case, in the Markdown, the JSON and the chart.
test_two_runs() {
    results "$tmp/a.jsonl" 12 --threads 2
    results "$tmp/b.jsonl" 12 --threads 1
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/b.jsonl" --json "$tmp/c.json" \
        --md "$tmp/c.md" --svg "$tmp/c.svg"
    local rows
    rows=$(grep -cE '^\| (m64n64k64|mb1ic8).*\*\*(faster|slower|~)\*\*' "$tmp/out")
    [ "$rows" -eq 2 ] || fail "$rows table rows with a verdict, expected 2"
    cmp -s "$tmp/out" "$tmp/c.md" || fail "stdout and --md differ"
    expect "$tmp/c.md" 'run setting `threads`: `2` → `1`' "provenance warning"
    expect "$tmp/c.md" '^\| \*\*all\*\* \| 2 \| [0-9.]+ \| B (faster|slower) by' "geomean"
    expect "$tmp/c.md" '\]\(c\.svg\)' "the chart's link"
    json_check "$tmp/c.json" '
assert j["schema"] == "kbench.compare/1" and j["mode"] == "files"
assert len(j["cases"]) == 2 and j["unmatched"] == []
for c in j["cases"]:
    assert c["verdict"] in ("faster", "slower", "~"), c
    assert 0 <= c["p"] <= 1 and c["ci_low"] <= c["hl_ratio"] <= c["ci_high"], c
    assert c["test"] in ("exact", "normal") and c["a"]["n"] == 12, c
assert any(d["key"] == "threads" and d["kind"] == "run setting"
           for d in j["provenance_differences"])
assert j["geomean"]["overall"]["cases"] == 2'
    python3 -c '
import sys, xml.etree.ElementTree as ET
g = [e for e in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}g")
     if e.get("class") == "case"]
assert len(g) == 2, len(g)' "$tmp/c.svg" || fail "the chart does not hold 2 cases"
}

# One run, two backends, when openblas is built.
test_backends() {
    "$kbench" list backends | grep -q '^openblas ' || {
        echo "openblas not built: skipped"
        exit 77
    }
    "$kbench" run --desc m64n64k64 --desc mb1ic8ih16oc8kh3ph1 --backend omp,openblas \
        --reps 12 --min-time 0 --quiet --json "$tmp/r.jsonl" >/dev/null 2>&1 ||
        fail "kbench run omp,openblas failed"
    run_kb 0 compare "$tmp/r.jsonl" --backends omp,openblas --json "$tmp/c.json"
    expect "$tmp/out" '\*\*A\*\* = `omp`, \*\*B\*\* = `openblas`'
    local rows
    rows=$(grep -cE '\| omp → openblas \|.*\*\*(faster|slower|~)\*\*' "$tmp/out")
    [ "$rows" -eq 2 ] || fail "$rows rows omp → openblas with a verdict, expected 2"
    json_check "$tmp/c.json" '
assert j["mode"] == "backends" and j["provenance_differences"] == []
assert [c["b"]["backend"] for c in j["cases"]] == ["openblas"] * 2'
    run_kb 2 compare "$tmp/r.jsonl" --backends omp,nosuch
    expect "$tmp/err" "has no case of backend 'nosuch'; its cases are of: omp openblas"
}

# Cases in one file only, and a case repeated, are listed, not dropped.
test_unmatched() {
    results "$tmp/a.jsonl"
    edit "$tmp/a.jsonl" "$tmp/b.jsonl" '
if r["type"] == "case" and r["kernel"] == "conv2d": r["desc"] = "mb1ic8ih16oc8kh3ph1_other"'
    python3 - "$tmp/a.jsonl" "$tmp/dup.jsonl" <<'PY'
import sys
lines = open(sys.argv[1]).readlines()
open(sys.argv[2], "w").writelines(lines[:2] + lines[1:])   # case 1 twice
PY
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/b.jsonl" --json "$tmp/c.json"
    expect "$tmp/out" '^- A `.*a\.jsonl` line 3: mb1ic8.* — only in A$'
    expect "$tmp/out" '^- B `.*b\.jsonl` line 3: mb1ic8ih16oc8kh3ph1_other .* — only in B$'
    json_check "$tmp/c.json" '
assert len(j["cases"]) == 1 and sorted(u["side"] for u in j["unmatched"]) == ["a", "b"]'
    run_kb 0 compare "$tmp/dup.jsonl" "$tmp/a.jsonl"
    expect "$tmp/out" 'line 3: m64n64k64 .* — repeats the case of line 2, not compared'
    # Nothing in common: an error, not an empty report.
    edit "$tmp/a.jsonl" "$tmp/none.jsonl" 'if r["type"] == "case": r["desc"] += "_x"'
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/none.jsonl"
    expect "$tmp/err" 'no case of A .* matches a case of B'
}

# Every bad input: exit 2, the file and line named, no output written.
test_bad_inputs() {
    results "$tmp/a.jsonl"
    : >"$tmp/empty.jsonl"
    head -c -40 "$tmp/a.jsonl" >"$tmp/truncated.jsonl"
    { head -1 "$tmp/a.jsonl"; echo 'not json'; tail -n +2 "$tmp/a.jsonl"; } >"$tmp/malformed.jsonl"
    edit "$tmp/a.jsonl" "$tmp/schema.jsonl" 'if r["type"] == "run": r["schema"] = "kbench.results/1"'
    edit "$tmp/a.jsonl" "$tmp/norun.jsonl" 'if r["type"] == "run": r.clear()'
    edit "$tmp/a.jsonl" "$tmp/field.jsonl" 'if r["type"] == "case" and r["seq"] == 2: del r["kernel"]'
    edit "$tmp/a.jsonl" "$tmp/type.jsonl" 'if r["type"] == "case" and r["seq"] == 1: r["samples_s"] = "fast"'
    local n
    n=$(wc -l <"$tmp/a.jsonl")
    local -a cases=(
        "empty.jsonl:1: empty"
        "truncated.jsonl:$n: truncated"
        "malformed.jsonl:2: not JSON"
        "schema.jsonl:1: schema \"kbench.results/1\", expected \"kbench.results/2\""
        "norun.jsonl:1: the first record is a \"case\" record"
        "field.jsonl:3: case record without \"kernel\""
        "type.jsonl:2: case field \"samples_s\" is not an array")
    for c in "${cases[@]}"; do
        local file=${c%%:*}
        run_kb 2 compare "$tmp/a.jsonl" "$tmp/$file" --json "$tmp/c.json" --md "$tmp/c.md"
        grep -qF -- "kbench compare: $tmp/$c" "$tmp/err" ||
            fail "$file: stderr lacks '$tmp/$c': $(cat "$tmp/err")"
        [ ! -e "$tmp/c.json" ] && [ ! -e "$tmp/c.md" ] || fail "$file: an output was written"
    done
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/missing.jsonl"
    expect "$tmp/err" "missing\.jsonl: cannot open"
}

# --fail-if-slower: B with every sample twice A's is significantly slower
# by 100 %.
test_gate() {
    results "$tmp/raw.jsonl"
    # Samples made tight around their median (+-0.6 %), so that "twice as
    # slow" is significant whatever the machine was doing during the run.
    edit "$tmp/raw.jsonl" "$tmp/a.jsonl" '
if r["type"] == "case" and r.get("samples_s"):
    m = sorted(r["samples_s"])[len(r["samples_s"]) // 2]
    r["samples_s"] = [m * (1 + 0.001 * (i - 6)) for i in range(12)]'
    edit "$tmp/a.jsonl" "$tmp/slow.jsonl" '
if r["type"] == "case": r["samples_s"] = [2 * s for s in r["samples_s"]]'
    run_kb 1 compare "$tmp/a.jsonl" "$tmp/slow.jsonl" --fail-if-slower 10 --json "$tmp/c.json"
    expect "$tmp/out" '^\*\*FAIL\*\*: 2 case\(s\) significantly slower'
    json_check "$tmp/c.json" '
assert j["gate"]["failed"] and all(c["over_gate"] and c["verdict"] == "slower" for c in j["cases"])
assert all(abs(c["ratio"] - 0.5) < 1e-9 for c in j["cases"])'
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/slow.jsonl" --fail-if-slower 150
    expect "$tmp/out" '^\*\*PASS\*\*'
    run_kb 1 compare "$tmp/a.jsonl" "$tmp/slow.jsonl" --fail-if-slower 10 --summary
    expect "$tmp/out" 'geometric mean of all ratios is 0\.500'
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/slow.jsonl" --fail-if-slower 150 --summary
    # Faster is never a failure, and a file against itself is all "~".
    run_kb 0 compare "$tmp/slow.jsonl" "$tmp/a.jsonl" --fail-if-slower 0
    expect "$tmp/out" '\*\*faster\*\*'
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --fail-if-slower 0 --json "$tmp/same.json"
    json_check "$tmp/same.json" 'assert all(c["verdict"] == "~" and c["p"] == 1 for c in j["cases"])'
}

# Fewer than 10 samples a side: a warning, and the rows marked.
test_few_samples() {
    results "$tmp/a.jsonl" 5
    results "$tmp/b.jsonl" 5
    run_kb 0 compare "$tmp/a.jsonl" "$tmp/b.jsonl"
    expect "$tmp/out" '2 case\(s\) have fewer than 10 samples on a side'
    expect "$tmp/out" '\| 5 / 5 \|.* few samples \|$'
}

test_usage() {
    results "$tmp/a.jsonl"
    run_kb 0 compare --help
    expect "$tmp/out" '^usage: kbench compare A\.jsonl B\.jsonl'
    run_kb 2 compare "$tmp/a.jsonl"
    expect "$tmp/err" 'two result files are needed'
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" "$tmp/a.jsonl"
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --backends omp,omp
    run_kb 2 compare "$tmp/a.jsonl" --backends omp
    expect "$tmp/err" "expected X,Y"
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --summary
    expect "$tmp/err" '--summary goes with --fail-if-slower'
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --fail-if-slower fast
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --json
    run_kb 2 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --bogus
    run_kb 3 compare "$tmp/a.jsonl" "$tmp/a.jsonl" --json "$tmp/no/such/dir/c.json"
}

run_case "$case_name"
