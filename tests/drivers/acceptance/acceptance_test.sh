#!/usr/bin/env bash
# acceptance_test.sh - `kbench baseline` and `kbench check` end to end on
# small real results from `kbench run`, edited into slow, failing, missing
# or broken nodes; one function per ctest case.
# Usage: acceptance_test.sh CASE KBENCH JUNIT_CHECK|none
set -uo pipefail

case_name=$1 kbench=$2 junit_check=$3
KB_TEST_PREFIX=accept
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../../test_lib.sh"

# results FILE: a small real run, a GEMM and a convolution, its samples
# then made tight around their median (+-0.5 %), so that the verdicts these
# tests expect do not depend on how busy the machine was while it ran.
results() {
    "$kbench" run --desc m64n64k64 --desc mb1ic8ih16oc8kh3ph1 --backend omp \
        --reps 10 --min-time 0 --quiet --json "$1.raw" >/dev/null ||
        fail "kbench run --json $1 failed"
    edit "$1.raw" "$1" '
if r["type"] == "case" and r.get("samples_s"):
    m = sorted(r["samples_s"])[len(r["samples_s"]) // 2]
    r["samples_s"] = [m * (1 + 0.001 * (i - 5)) for i in range(10)]
    r["gflops"] = r["flops"] / m * 1e-9'
}

# A node named HOST whose every sample took FACTOR times as long.
SCALE='
if r["type"] == "run": r["host"] = HOST
if r["type"] == "case": r["samples_s"] = [s * FACTOR for s in r["samples_s"]]'
scaled() {   # scaled IN OUT HOST FACTOR
    edit "$1" "$2" "HOST, FACTOR = '$3', $4
$SCALE"
}

GEMM='r.get("kernel") == "gemm"'

test_pass() {
    results "$tmp/n1.jsonl"
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/bands.jsonl"
    expect "$tmp/out" '2 bands \(mad\) from 1 result file'
    python3 - "$tmp/bands.jsonl" "$tmp/n1.jsonl" <<'PY' || fail "bands file content"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
run = json.loads(open(sys.argv[2]).readline())
h = lines[0]
assert h["type"] == "bands" and h["schema"] == "kbench.bands/1", h
assert h["method"] == "mad" and h["k"] == 3 and h["roof_fraction"] is None, h
assert h["min_spread"] == 0.01, h
assert h["command_line"][:2] == ["kbench", "baseline"], h
assert h["kbench_version"] and h["git_commit"] and h["date"].endswith("Z"), h
(r,) = h["runs"]
for k in ("host", "date", "git_commit", "cpu_model", "kbench_version"):
    assert r[k] == run[k], (k, r[k], run[k])
assert r["path"] == sys.argv[2] and r["cases"] == 2, r
bands = [l for l in lines if l["type"] == "band"]
assert [b["kernel"] for b in bands] == ["gemm", "conv2d"], bands
for b in bands:
    assert b["over"] == "samples" and b["n"] == 10, b
    assert b["lower"] <= b["centre"] <= b["upper"], b
    assert abs(b["lower"] - (b["centre"] - 3 * b["spread"])) < 1e-9 * b["centre"], b
    assert b["spread"] >= 0.01 * b["centre"] * (1 - 1e-12), b
assert lines[-1] == {"type": "end", "bands": 2, "left_out": 0}, lines[-1]
PY
    run_kb 0 check "$tmp/n1.jsonl" --bands "$tmp/bands.jsonl"
    expect "$tmp/out" '^vm|^[^ ]+ +m64n64k64\|gemm\|omp\|f32\|row-major\|FWD_D +PASSED .* PASS '
    expect "$tmp/out" '^NODE [^ ]+ PASS cases=2 passed=2 failed=0 errors=0 unjudged=0$'
    expect "$tmp/out" '^CHECK_STATUS PASS nodes=1 passed=1 failed=0$'
}

test_several_nodes() {
    results "$tmp/n1.jsonl"
    scaled "$tmp/n1.jsonl" "$tmp/n2.jsonl" n2 1.02
    scaled "$tmp/n1.jsonl" "$tmp/n3.jsonl" n3 0.98
    run_kb 0 baseline "$tmp/n1.jsonl" "$tmp/n2.jsonl" "$tmp/n3.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/b.jsonl" '"type":"band".*"over":"nodes","n":3' "bands over nodes"
    run_kb 0 check "$tmp/n2.jsonl" "$tmp/n3.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" '^NODE n2 PASS cases=2'
    expect "$tmp/out" '^NODE n3 PASS cases=2'
    # The same host twice: the nodes are told apart by their paths.
    cp "$tmp/n2.jsonl" "$tmp/again.jsonl"
    run_kb 0 check "$tmp/n2.jsonl" "$tmp/again.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" "^NODE n2 \\($tmp/n2.jsonl\\) PASS"
    expect "$tmp/out" "^NODE n2 \\($tmp/again.jsonl\\) PASS"
}

test_slow_node() {
    results "$tmp/n1.jsonl"
    scaled "$tmp/n1.jsonl" "$tmp/n2.jsonl" n2 1.01
    scaled "$tmp/n1.jsonl" "$tmp/n3.jsonl" n3 0.99
    scaled "$tmp/n1.jsonl" "$tmp/slow.jsonl" slow 3
    run_kb 0 baseline "$tmp/n1.jsonl" "$tmp/n2.jsonl" "$tmp/n3.jsonl" --bands "$tmp/b.jsonl"
    run_kb 1 check "$tmp/n2.jsonl" "$tmp/slow.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" '^NODE n2 PASS'
    expect "$tmp/out" '^NODE slow FAIL cases=2 passed=0 failed=2'
    expect "$tmp/out" '^slow +m64n64k64.* FAIL +below band: [0-9.e-]+ GFLOP/s < lower bound [0-9.e-]+ \(centre'
    expect "$tmp/out" '^CHECK_STATUS FAIL nodes=2 passed=1 failed=1$'
    # From one node's samples too.
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/one.jsonl"
    run_kb 1 check "$tmp/slow.jsonl" --bands "$tmp/one.jsonl"
    expect "$tmp/out" 'below band'
}

test_correctness() {
    results "$tmp/n1.jsonl"
    # So wide a band that every figure is inside it.
    run_kb 0 baseline "$tmp/n1.jsonl" --k 1e9 --bands "$tmp/b.jsonl"
    edit "$tmp/n1.jsonl" "$tmp/failed.jsonl" "if $GEMM:
    r['status'] = 'FAILED'; r['reason'] = 'dst[0,3]: got 1.5, expected 2'"
    run_kb 1 check "$tmp/failed.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" 'm64n64k64.* FAILED .* FAIL +validation failed: dst\[0,3\]: got 1.5, expected 2$'
    expect "$tmp/out" '^NODE [^ ]+ FAIL cases=2 passed=1 failed=1 errors=0'
    edit "$tmp/n1.jsonl" "$tmp/error.jsonl" "if $GEMM:
    r['status'] = 'ERROR'; r['reason'] = 'backend exploded'
    for k in ('samples_s', 'stats', 'gflops', 'gbps', 'timer', 'warmup'): r.pop(k, None)"
    run_kb 1 check "$tmp/error.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" ' FAIL +error: backend exploded$'
    expect "$tmp/out" '^NODE [^ ]+ FAIL cases=2 passed=1 failed=0 errors=1'
    edit "$tmp/n1.jsonl" "$tmp/mistrusted.jsonl" "if $GEMM:
    r['status'] = 'MISTRUSTED'; r['reason'] = '160 % of its roof (10 GFLOP/s)'"
    run_kb 1 check "$tmp/mistrusted.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" ' MISTRUSTED .* FAIL +mistrusted: 160 % of its roof'
    # A case with no band fails too when it FAILED.
    edit "$tmp/n1.jsonl" "$tmp/gemm_only.jsonl" "if r.get('kernel') == 'conv2d': r.clear()"
    run_kb 0 baseline "$tmp/gemm_only.jsonl" --bands "$tmp/g.jsonl"
    edit "$tmp/n1.jsonl" "$tmp/conv_failed.jsonl" "if r.get('kernel') == 'conv2d':
    r['status'] = 'FAILED'; r['reason'] = 'wrong'"
    run_kb 1 check "$tmp/conv_failed.jsonl" --bands "$tmp/g.jsonl"
    expect "$tmp/out" 'conv2d.* FAIL +validation failed: wrong'
}

test_missing_case() {
    results "$tmp/n1.jsonl"
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl"
    edit "$tmp/n1.jsonl" "$tmp/nogemm.jsonl" "if $GEMM: r.clear()"
    run_kb 1 check "$tmp/nogemm.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" 'm64n64k64\|gemm.*\(missing\) .* FAIL +missing: banded \(bands file line 2\), no record'
    expect "$tmp/out" '^NODE [^ ]+ FAIL cases=2 passed=1 failed=1'
}

test_skipped() {
    results "$tmp/n1.jsonl"
    SKIP="if $GEMM:
    r['status'] = 'SKIPPED'; r['reason'] = 'no such layout here'
    for k in ('samples_s', 'stats', 'gflops', 'gbps', 'timer', 'warmup', 'validation', 'roofline'): r.pop(k, None)"
    edit "$tmp/n1.jsonl" "$tmp/skipped.jsonl" "$SKIP"
    # Banded and SKIPPED: fails.
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl"
    run_kb 1 check "$tmp/skipped.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" ' SKIPPED .* FAIL +skipped: no such layout here$'
    # SKIPPED where the bands were made: no band, listed; not judged.
    run_kb 0 baseline "$tmp/skipped.jsonl" --bands "$tmp/s.jsonl"
    expect "$tmp/err" 'no band for m64n64k64\|gemm.*: no PASSED record to make a band from; vm has it SKIPPED: no such layout here'
    expect "$tmp/s.jsonl" '"type":"left_out".*"why":"no PASSED record'
    run_kb 0 check "$tmp/skipped.jsonl" --bands "$tmp/s.jsonl"
    expect "$tmp/out" ' SKIPPED .* -- +no band: SKIPPED, not judged$'
    expect "$tmp/out" '^NODE [^ ]+ PASS cases=2 passed=1 failed=0 errors=0 unjudged=1$'
}

test_roof_fraction() {
    results "$tmp/n1.jsonl"
    # Placed at 50 % of the roof: the attainable is twice the figure.
    PLACE="if r['type'] == 'case': r['roofline'] = {'placed': True, 'attainable_gflops': 2 * r['gflops'], 'pct_of_attainable': 50.0}"
    edit "$tmp/n1.jsonl" "$tmp/placed.jsonl" "$PLACE"
    run_kb 0 baseline "$tmp/placed.jsonl" --roof-fraction 0.4 --bands "$tmp/b.jsonl"
    expect "$tmp/b.jsonl" '"method":"roof-fraction","k":null,"roof_fraction":0.4,"min_spread":0.01'
    python3 - "$tmp/b.jsonl" <<'PY' || fail "roof-fraction bands"
import json, sys
for b in (json.loads(l) for l in open(sys.argv[1])):
    if b["type"] == "band":
        assert abs(b["lower"] - 0.4 * b["attainable"]) < 1e-9 * b["attainable"], b
        assert b["upper"] == b["attainable"], b
        assert abs(b["attainable"] - 2 * b["centre"]) < 0.05 * b["centre"], b
PY
    run_kb 0 check "$tmp/placed.jsonl" --bands "$tmp/b.jsonl"   # at 0.5 > 0.4
    scaled "$tmp/placed.jsonl" "$tmp/slow.jsonl" slow 1.5      # at 0.33 < 0.4
    run_kb 1 check "$tmp/slow.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/out" '^NODE slow FAIL cases=2 passed=0 failed=2'
    # Unplaced results cannot make roofline bands.
    run_kb 2 baseline "$tmp/n1.jsonl" --roof-fraction 0.4 --bands "$tmp/none.jsonl"
    expect "$tmp/err" 'not placed on the roofline'
    expect "$tmp/err" "$tmp/n1.jsonl:2: no case to make a band from"
    [ ! -e "$tmp/none.jsonl" ] || fail "a bands file written with no band"
}

test_junit() {
    [ "$junit_check" != none ] || { echo "libxml2 not found: skipped"; exit 77; }
    results "$tmp/n1.jsonl"
    scaled "$tmp/n1.jsonl" "$tmp/n2.jsonl" n2 1.01
    scaled "$tmp/n1.jsonl" "$tmp/n3.jsonl" n3 0.99
    run_kb 0 baseline "$tmp/n1.jsonl" "$tmp/n2.jsonl" "$tmp/n3.jsonl" --bands "$tmp/b.jsonl"
    # A host and a reason full of what XML must escape, and bytes it
    # cannot hold at all (a control character, invalid UTF-8).
    edit "$tmp/n1.jsonl" "$tmp/odd.jsonl" "
if r['type'] == 'run': r['host'] = 'n<&\"\\'>\\x01'
if $GEMM: r['status'] = 'FAILED'; r['reason'] = 'a < b & \"c\"\\nnext line'"
    printf '%s' "$(sed 's/n<&/n\\u00e9<\&/' "$tmp/odd.jsonl")" > "$tmp/odd2.jsonl"
    echo >> "$tmp/odd2.jsonl"
    scaled "$tmp/n1.jsonl" "$tmp/slow.jsonl" slow 3
    edit "$tmp/n2.jsonl" "$tmp/err.jsonl" "
if r['type'] == 'run': r['host'] = 'e1'
if $GEMM:
    r['status'] = 'ERROR'; r['reason'] = 'boom'
    for k in ('samples_s', 'stats', 'gflops', 'gbps', 'timer', 'warmup'): r.pop(k, None)"
    run_kb 1 check "$tmp/n2.jsonl" "$tmp/odd2.jsonl" "$tmp/slow.jsonl" "$tmp/err.jsonl" \
        --bands "$tmp/b.jsonl" --junit "$tmp/j.xml"
    # 4 suites, 8 cases: odd fails 1 (FAILED), slow 2, err 1 error.
    "$junit_check" "$tmp/j.xml" 4 8 3 1 0 >"$tmp/jc" 2>&1 || fail "junit_check: $(cat "$tmp/jc")"
    expect "$tmp/jc" '^suite n2 tests=2 failures=0 errors=0 skipped=0$'
    expect "$tmp/jc" '^suite slow tests=2 failures=2 errors=0 skipped=0$'
    expect "$tmp/jc" '^suite e1 tests=2 failures=0 errors=1 skipped=0$'
    expect "$tmp/j.xml" 'name="n.&lt;&amp;&quot;&apos;&gt;\?"' "escaped host"
    expect "$tmp/j.xml" '<failure message="validation failed: a &lt; b &amp; &quot;c&quot;&#10;next line" type="validation failed"/>'
    expect "$tmp/j.xml" '<failure message="below band: .*" type="below band"/>'
    expect "$tmp/j.xml" '<error message="error: boom" type="error"/>'
    expect "$tmp/j.xml" '<property name="bands" value="'"$tmp"'/b.jsonl"/>'
    # Unjudged cases are <skipped>.
    edit "$tmp/n1.jsonl" "$tmp/gemm_only.jsonl" "if r.get('kernel') == 'conv2d': r.clear()"
    run_kb 0 baseline "$tmp/gemm_only.jsonl" --bands "$tmp/g.jsonl"
    run_kb 0 check "$tmp/n1.jsonl" --bands "$tmp/g.jsonl" --junit "$tmp/j.xml"
    "$junit_check" "$tmp/j.xml" 1 2 0 0 1 >"$tmp/jc" 2>&1 || fail "junit_check skipped: $(cat "$tmp/jc")"
    expect "$tmp/j.xml" '<skipped message="no band: PASSED, not judged"/>'
    # Written atomically: a check refused for bad input leaves the old
    # file whole, and nothing is left beside it.
    cp "$tmp/j.xml" "$tmp/j.before"
    : > "$tmp/empty.jsonl"
    run_kb 2 check "$tmp/empty.jsonl" --bands "$tmp/g.jsonl" --junit "$tmp/j.xml"
    cmp -s "$tmp/j.xml" "$tmp/j.before" || fail "junit file changed by a refused check"
    run_kb 3 check "$tmp/n1.jsonl" --bands "$tmp/g.jsonl" --junit "$tmp/nodir/j.xml"
    expect "$tmp/err" "cannot create $tmp/nodir/j.xml.tmp"
    ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left behind"
}

# bad_input VERB FILE REGEX: every verb refuses FILE with exit 2, naming
# it with a line, and writes nothing.
bad_input() {
    run_kb 2 baseline "$tmp/n1.jsonl" "$1" --bands "$tmp/new_bands.jsonl"
    expect "$tmp/err" "^kbench baseline: $1:[0-9]+: $2" "baseline $1"
    [ ! -e "$tmp/new_bands.jsonl" ] || fail "baseline wrote bands from $1"
    run_kb 2 check "$tmp/n1.jsonl" "$1" --bands "$tmp/b.jsonl" --junit "$tmp/new.xml"
    expect "$tmp/err" "^kbench check: $1:[0-9]+: $2" "check $1"
    [ ! -e "$tmp/new.xml" ] || fail "check wrote JUnit for $1"
    [ ! -s "$tmp/out" ] || fail "check printed a table for $1"
}

test_bad_results() {
    results "$tmp/n1.jsonl"
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl"
    : > "$tmp/empty.jsonl"
    bad_input "$tmp/empty.jsonl" 'empty'
    sed '2s/.*/{"type":"case", broken/' "$tmp/n1.jsonl" > "$tmp/malformed.jsonl"
    bad_input "$tmp/malformed.jsonl" ''
    expect "$tmp/err" 'malformed.jsonl:2:'
    head -c -40 "$tmp/n1.jsonl" > "$tmp/cut.jsonl"      # inside the summary
    bad_input "$tmp/cut.jsonl" ''
    expect "$tmp/err" 'cut.jsonl:4: truncated'
    head -n 3 "$tmp/n1.jsonl" > "$tmp/nosummary.jsonl"  # cut between lines
    bad_input "$tmp/nosummary.jsonl" 'ends after this case without the summary record'
    expect "$tmp/err" 'nosummary.jsonl:3:'
    sed '1s#"kbench.results/2"#"kbench.results/1"#' "$tmp/n1.jsonl" > "$tmp/schema.jsonl"
    bad_input "$tmp/schema.jsonl" ''
    expect "$tmp/err" 'schema.jsonl:1: .*kbench.results/1'
    sed -n '1p;$p' "$tmp/n1.jsonl" > "$tmp/nocases.jsonl"
    bad_input "$tmp/nocases.jsonl" 'a run record and no case record'
    bad_input "$tmp/b.jsonl" ''                           # bands as results
    expect "$tmp/err" 'b.jsonl:1:'
    run_kb 2 check "$tmp/absent.jsonl" --bands "$tmp/b.jsonl"
    expect "$tmp/err" 'absent.jsonl.*cannot open'
    # One node given twice, under two names.
    bad_input "$tmp/./n1.jsonl" "the same file as $tmp/n1.jsonl, given twice"
}

test_bad_bands() {
    results "$tmp/n1.jsonl"
    run_kb 0 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl"
    local n=0
    while IFS='|' read -r how want; do
        n=$((n + 1))
        eval "$how" > "$tmp/bad$n.jsonl"
        run_kb 2 check "$tmp/n1.jsonl" --bands "$tmp/bad$n.jsonl" --junit "$tmp/new.xml"
        expect "$tmp/err" "^kbench check: $tmp/bad$n.jsonl:$want" "bands: $how"
        [ ! -e "$tmp/new.xml" ] || fail "check wrote JUnit with bad bands ($how)"
    done <<'CASES'
: |1: empty
sed '2s/.*/{oops/' "$tmp/b.jsonl"|2: not JSON
head -c -10 "$tmp/b.jsonl"|4: truncated
head -n 3 "$tmp/b.jsonl"|3: truncated: no end record
sed '1s#kbench.bands/1#kbench.bands/9#' "$tmp/b.jsonl"|1: schema "kbench.bands/9"
cat "$tmp/n1.jsonl"|1: first record is "run"
sed '2s/"lower":[^,]*,//' "$tmp/b.jsonl"|2: band without a number "lower"
sed '3s/"desc":"[^"]*"/"desc":"m64n64k64"/;3s/"kernel":"conv2d"/"kernel":"gemm"/;3s/"layout":"NCHW"/"layout":"row-major"/;3s/"dir":"FWD_B"/"dir":"FWD_D"/' "$tmp/b.jsonl"|3: a second band for case m64n64k64
CASES
    run_kb 2 check "$tmp/n1.jsonl" --bands "$tmp/absent.jsonl"
    expect "$tmp/err" 'absent.jsonl.*cannot open'
}

test_no_match() {
    results "$tmp/n1.jsonl"
    edit "$tmp/n1.jsonl" "$tmp/gemm.jsonl" "if r.get('kernel') == 'conv2d': r.clear()"
    edit "$tmp/n1.jsonl" "$tmp/conv.jsonl" "if $GEMM: r.clear()"
    run_kb 0 baseline "$tmp/gemm.jsonl" --bands "$tmp/b.jsonl"
    run_kb 2 check "$tmp/conv.jsonl" --bands "$tmp/b.jsonl" --junit "$tmp/j.xml"
    expect "$tmp/err" "^kbench check: $tmp/b.jsonl:2: none of its 1 bands matches a case of the 1 result file"
    [ ! -e "$tmp/j.xml" ] && [ ! -s "$tmp/out" ] || fail "output written for bands matching nothing"
    # Another backend is another case.
    edit "$tmp/n1.jsonl" "$tmp/other.jsonl" "if r['type'] == 'case': r['backend'] = 'openblas'"
    run_kb 2 check "$tmp/other.jsonl" --bands "$tmp/b.jsonl"
}

test_usage() {
    results "$tmp/n1.jsonl"
    run_kb 0 baseline --help
    expect "$tmp/out" '^usage: kbench baseline'
    run_kb 0 check --help
    expect "$tmp/out" '^usage: kbench check'
    run_kb 2 baseline "$tmp/n1.jsonl"
    expect "$tmp/err" '\-\-bands BANDS is required'
    run_kb 2 baseline --bands "$tmp/b.jsonl"
    expect "$tmp/err" '0 arguments given'
    expect "$tmp/err" '^usage: kbench baseline RESULTS'
    for k in 0 -1 abc 1x inf; do
        run_kb 2 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl" --k "$k"
        expect "$tmp/err" "\-\-k '$k': expected a number >= 0\.01"
    done
    for f in 0 1.5 -0.1 x; do
        run_kb 2 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl" --roof-fraction "$f"
        expect "$tmp/err" "\-\-roof-fraction '$f': expected a number from 0\.001 to 1$"
    done
    run_kb 2 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl" --k 2 --roof-fraction 0.5
    expect "$tmp/err" 'exclude each other'
    run_kb 2 baseline "$tmp/n1.jsonl" --bands "$tmp/b.jsonl" --frobnicate
    expect "$tmp/err" "unknown option '\-\-frobnicate'"
    [ ! -e "$tmp/b.jsonl" ] || fail "bands written after a usage error"
    run_kb 2 check "$tmp/n1.jsonl"
    expect "$tmp/err" '\-\-bands BANDS is required'
    run_kb 2 check --bands "$tmp/n1.jsonl"
    expect "$tmp/err" '0 arguments given'
    run_kb 2 check "$tmp/n1.jsonl" --bands
    expect "$tmp/err" '\-\-bands needs a value'
    # --k=v as --k v; and the old spelling of --bands, with its notice.
    run_kb 0 baseline "$tmp/n1.jsonl" --k=2 --bands="$tmp/b.jsonl"
    expect "$tmp/b.jsonl" '"k":2,'
    run_kb 0 baseline "$tmp/n1.jsonl" --out "$tmp/old.jsonl"
    expect "$tmp/err" '^kbench baseline: \-\-out is now \-\-bands'
    [ -s "$tmp/old.jsonl" ] || fail "baseline --out wrote no bands file"
    run_kb 0 --help
    expect "$tmp/out" 'baseline +reference bands'
    expect "$tmp/out" 'check +judge nodes'
}

run_case "$case_name"
