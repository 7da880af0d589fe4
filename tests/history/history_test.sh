#!/usr/bin/env bash
# history_test.sh - `kbench history` end to end: results made from one
# small real `kbench run` (series of runs with known steps, written by
# make_series), stored, exported, searched for change points, refused when
# bad, and added by 8 processes at once; one function per ctest case.
# Usage: history_test.sh CASE KBENCH
set -uo pipefail

case_name=$1 kbench=$2
KB_TEST_PREFIX=history
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

# template FILE: a small real run, a GEMM and a convolution on omp.
template() {
    "$kbench" run --desc m64n64k64 --desc mb1ic8ih16oc8kh3ph1 --backend omp \
        --reps 5 --min-time 0 --quiet --json "$1" >/dev/null ||
        fail "kbench run --json $1 failed"
}

# make_series TEMPLATE DIR N STEPS SEED [NODE]: N results files
# DIR/run_NNN.jsonl, an hour apart from 2026-01-01, on host NODE (default
# n1), every sample of run i times the factor of the last step
# "AT:FACTOR" (STEPS: comma-separated) with AT <= i (else 1) and 1 %
# normal noise.
make_series() {
    python3 - "$@" <<'PY' || fail "make_series $*"
import json, os, random, sys
src, out, n, steps, seed = sys.argv[1:6]
node = sys.argv[6] if len(sys.argv) > 6 else "n1"
n = int(n)
steps = [(int(a), float(f)) for a, f in (s.split(":") for s in steps.split(","))]
rng = random.Random(int(seed))
recs = [json.loads(l) for l in open(src)]
os.makedirs(out, exist_ok=True)
for i in range(n):
    f = ([1.0] + [f for a, f in steps if a <= i])[-1] * (1 + 0.01 * rng.gauss(0, 1))
    with open(f"{out}/run_{i:03d}.jsonl", "w") as o:
        for r in recs:
            r = json.loads(json.dumps(r))
            if r["type"] == "run":
                r["date"] = f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00Z"
                r["host"] = node
            if r["type"] == "case" and r.get("samples_s"):
                r["samples_s"] = [s * f for s in r["samples_s"]]
            o.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
}

# json_check FILE CODE: CODE (Python; the JSON as j, or for a .jsonl the
# records as recs) must not raise.
json_check() {
    python3 - "$1" "$2" <<'PY' || fail "json_check $1: $2"
import json, sys
path, code = sys.argv[1:]
if path.endswith(".jsonl"):
    recs = [json.loads(l) for l in open(path)]
else:
    j = json.load(open(path))
exec(code)
PY
}

# Stored once by content, with note and tags; export gives it all back.
test_add_export() {
    template "$tmp/t.jsonl"
    run_kb 0 history add "$tmp/t.jsonl" --db "$tmp/h.db" --note "first" \
        --tag site=x --tag k=v=w
    expect "$tmp/out" '^1 run\(s\) stored' "first add"
    cp "$tmp/t.jsonl" "$tmp/copy.jsonl"
    run_kb 0 history add "$tmp/copy.jsonl" --db "$tmp/h.db"
    expect "$tmp/out" 'copy.jsonl: already stored' "second add of the same content"
    expect "$tmp/out" '^0 run\(s\) stored' "second add"
    run_kb 0 history export --db "$tmp/h.db" --jsonl "$tmp/e.jsonl"
    json_check "$tmp/e.jsonl" '
runs = [r for r in recs if r["type"] == "history_run"]
cases = [r for r in recs if r["type"] == "history_case"]
src = [json.loads(l) for l in open(sys.argv[1].replace("e.jsonl", "t.jsonl"))]
assert len(runs) == 1, runs
r = runs[0]
assert r["note"] == "first" and r["tags"] == {"site": "x", "k": "v=w"}, r
assert r["run"] == src[0] and len(r["hash"]) == 64, r
assert [c["case"] for c in cases] == [s for s in src if s["type"] == "case"]
others = [r["record"] for r in recs if r["type"] == "history_record"]
assert others == [s for s in src if s["type"] not in ("run", "case")], others'
    run_kb 2 history add "$tmp/t.jsonl" --db "$tmp/h.db" --tag novalue
    expect "$tmp/err" "--tag 'novalue': expected KEY=VALUE"
    run_kb 2 history add "$tmp/t.jsonl"
    expect "$tmp/err" "--db FILE is required"
}

# Events: for some nodes, or the whole site (node null).
test_event() {
    run_kb 0 history event --db "$tmp/h.db" --at 2026-01-02T03:04 --text "BIOS 1.2" \
        --node n1 --node n2
    run_kb 0 history event --db "$tmp/h.db" --at 2026-01-03 --text "new compiler"
    run_kb 0 history export --db "$tmp/h.db" --jsonl "$tmp/e.jsonl"
    json_check "$tmp/e.jsonl" '
ev = [(r["time"], r["text"], r["node"]) for r in recs if r["type"] == "history_event"]
assert ev == [("2026-01-02T03:04:00Z", "BIOS 1.2", "n1"),
              ("2026-01-02T03:04:00Z", "BIOS 1.2", "n2"),
              ("2026-01-03T00:00:00Z", "new compiler", None)], ev'
}

# changes_json DB KIND FWD_SIGN [options]: changes --json finds one change
# a series (2 series), at run 40 (2026-01-02T16:00:00Z), of KIND, its
# forward change of sign FWD_SIGN and about 5 %, explained by the event.
changes_json() {
    local db=$1 kind=$2 sign=$3
    shift 3
    run_kb 0 history changes --db "$db" --json "$tmp/c.json" "$@"
    json_check "$tmp/c.json" "
assert len(j) == 2, j
for c in j:
    assert c['kind'] == '$kind', c
    assert c['time'] == '2026-01-02T16:00:00Z', c
    assert 4 < $sign * c['forward_change_percent'] < 6, c
    assert c['pvalue'] < 0.001 and c['magnitude'] > 0.04, c
    assert c['event'] == {'time': '2026-01-02T15:30:00Z', 'text': 'driver 2.0'}, c
    assert c['series'].startswith('n1 / omp / '), c
    for k in ('run', 'mean_before', 'mean_after', 'stddev_before', 'stddev_after'):
        assert k in c, k"
}

# A 5 % step in 1 % noise at run 40 of 60: found there; time up is a
# regression in median and in gflops; time down an improvement in both.
test_steps() {
    template "$tmp/t.jsonl"
    make_series "$tmp/t.jsonl" "$tmp/up" 60 40:1.05 1
    make_series "$tmp/t.jsonl" "$tmp/down" 60 40:0.952 2
    run_kb 0 history add "$tmp"/up/*.jsonl --db "$tmp/up.db"
    run_kb 0 history add "$tmp"/down/*.jsonl --db "$tmp/down.db"
    for db in "$tmp/up.db" "$tmp/down.db"; do
        run_kb 0 history event --db "$db" --at 2026-01-02T15:30:00Z --text "driver 2.0"
        run_kb 0 history event --db "$db" --at 2026-01-01T01:30:00Z --text "older"
        run_kb 0 history event --db "$db" --at 2026-01-02T15:45:00Z --text "other node" \
            --node n9
    done
    changes_json "$tmp/up.db" regression 1
    expect "$tmp/out" '^\| \*\*regression\*\* \| n1 / omp / m64n64k64' "the table"
    changes_json "$tmp/up.db" regression -1 --metric gflops
    changes_json "$tmp/down.db" improvement -1
    changes_json "$tmp/down.db" improvement 1 --metric gflops
    run_kb 1 history changes --db "$tmp/up.db" --fail-on regression
    run_kb 0 history changes --db "$tmp/down.db" --fail-on regression
    run_kb 1 history changes --db "$tmp/down.db" --fail-on any
    run_kb 0 history changes --db "$tmp/up.db" --fail-on any --min-magnitude 0.2
    expect "$tmp/out" '^No change points in 2 series'
    run_kb 0 history changes --db "$tmp/up.db" --fail-on any --until 2026-01-02T12:00
    expect "$tmp/out" '^No change points in 2 series' "--until before the step"
    run_kb 0 history changes --db "$tmp/up.db" --fail-on any --node n2
    expect "$tmp/out" '^No change points in 0 series' "--node filter"
    run_kb 1 history changes --db "$tmp/up.db" --fail-on any --case 'm64n64k64|gemm|f32|row-major|FWD_D'
    [ "$(grep -c '^| \*\*regression' "$tmp/out")" -eq 1 ] || fail "--case: not one series"
    # two steps, one event before the series and one before the first
    # step: the second change is not explained by the first's event
    make_series "$tmp/t.jsonl" "$tmp/two" 90 30:1.08,60:0.97 4
    run_kb 0 history add "$tmp"/two/*.jsonl --db "$tmp/two.db"
    run_kb 0 history event --db "$tmp/two.db" --at 2025-12-31 --text "before the series"
    run_kb 0 history event --db "$tmp/two.db" --at 2026-01-02T05:00 --text "BIOS 2"
    run_kb 0 history changes --db "$tmp/two.db" --json "$tmp/c.json" \
        --case 'm64n64k64|gemm|f32|row-major|FWD_D'
    json_check "$tmp/c.json" "
assert [(c['kind'], c['time']) for c in j] == [
    ('regression', '2026-01-02T06:00:00Z'), ('improvement', '2026-01-03T12:00:00Z')], j
assert j[0]['event']['text'] == 'BIOS 2' and j[1]['event'] is None, j"
}

# The page: well-formed (XML, so HTML too), self-contained, a chart a
# series with its change and the events of its node or the site marked,
# and the table of changes.
test_show() {
    template "$tmp/t.jsonl"
    make_series "$tmp/t.jsonl" "$tmp/up" 60 40:1.05 1
    run_kb 0 history add "$tmp"/up/*.jsonl --db "$tmp/h.db"
    run_kb 0 history event --db "$tmp/h.db" --at 2026-01-02T15:30:00Z --text "driver <2> & co"
    run_kb 0 history event --db "$tmp/h.db" --at 2026-01-02T15:45:00Z --text "other" --node n9
    run_kb 0 history event --db "$tmp/h.db" --at 2025-12-01 --text "before the series"
    run_kb 0 history show --db "$tmp/h.db" --out "$tmp/page"
    expect "$tmp/out" 'index.html: 2 series, 2 change points'
    python3 - "$tmp/page/index.html" <<'PY' || fail "the page"
import re, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding="utf-8").read()
assert not re.search(r'(src|href)="(https?:)?//', text), "an external reference"
root = ET.fromstring(text)
h, s = "{http://www.w3.org/1999/xhtml}", "{http://www.w3.org/2000/svg}"
svgs = list(root.iter(s + "svg"))
assert len(svgs) == 2, len(svgs)
for svg in svgs:
    groups = [g.get("class") for g in svg.iter(s + "g")]
    assert groups.count("change regression") == 1, groups
    assert groups.count("event") == 1, groups
    ev = [g for g in svg.iter(s + "g") if g.get("class") == "event"][0]
    assert ev.find(s + "text").text == "driver <2> & co"
    ch = [g for g in svg.iter(s + "g") if g.get("class") == "change regression"][0]
    assert re.fullmatch(r"\+[45]\.\d %", ch.find(s + "text").text), ch.find(s + "text").text
    runs = {int(re.match(r"run (\d+),", c.find(s + "title").text).group(1)): float(c.get("cx"))
            for c in svg.iter(s + "circle") if c.get("class") == "run"}
    assert len(runs) == 60, len(runs)
    # the x axis is the database's run id, as in the table: each label
    # stands over the run it names, and the change line just before its run
    labels = [t for t in svg.iter(s + "text")
              if t.get("text-anchor") == "middle" and (t.text or "").isdigit()]
    assert labels and all(abs(runs[int(t.text)] - float(t.get("x"))) < 0.2 for t in labels)
    at = int(re.search(r"at run (\d+)", ch.find(s + "title").text).group(1))
    line_x = float(ch.find(s + "line").get("x1"))
    assert runs[at - 1] < line_x < runs[at], (at, line_x)
rows = [tr for tr in root.iter(h + "tr") if tr.get("class") == "regression"]
assert len(rows) == 2, len(rows)
PY
    run_kb 0 history show --db "$tmp/h.db" --out "$tmp/none" --node n2
    python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' \
        "$tmp/none/index.html" || fail "the empty page does not parse"
    expect "$tmp/none/index.html" "No change points"
}

# snapshot DB OUT: the database's content (export), or "absent".
snapshot() {
    if [ -e "$1" ]; then
        "$kbench" history export --db "$1" --jsonl "$2" >/dev/null 2>&1 || echo broken >"$2"
    else
        echo absent >"$2"
    fi
}

# refused EXPECTED_ERR ARGS...: kbench exits 2 naming EXPECTED_ERR, and the
# database ($db) holds what it held before.
refused() {
    local want=$1
    shift
    snapshot "$db" "$tmp/before"
    run_kb 2 "$@"
    expect "$tmp/err" "$want" "kbench $*"
    snapshot "$db" "$tmp/after"
    cmp -s "$tmp/before" "$tmp/after" || fail "kbench $* changed $db"
}

test_bad_inputs() {
    template "$tmp/t.jsonl"
    db=$tmp/h.db
    # truncated: no summary, the last case cut in half
    head -n 2 "$tmp/t.jsonl" >"$tmp/trunc.jsonl"
    sed -n 3p "$tmp/t.jsonl" | head -c 40 >>"$tmp/trunc.jsonl"
    refused 'trunc.jsonl:3:' history add "$tmp/t.jsonl" "$tmp/trunc.jsonl" --db "$db"
    [ -e "$db" ] && fail "a refused first add created the database"
    edit "$tmp/t.jsonl" "$tmp/schema.jsonl" \
        'r.update(schema="kbench.results/99") if r["type"] == "run" else None'
    refused 'schema.jsonl:1:.*schema' history add "$tmp/schema.jsonl" --db "$db"
    edit "$tmp/t.jsonl" "$tmp/date.jsonl" \
        'r.update(date="yesterday") if r["type"] == "run" else None'
    refused "date.jsonl:1: run date 'yesterday'" history add "$tmp/date.jsonl" --db "$db"
    run_kb 0 history add "$tmp/t.jsonl" --db "$db"
    refused 'trunc.jsonl:3:' history add "$tmp/trunc.jsonl" --db "$db"
    refused "--at '2026-13-01'" history event --db "$db" --at 2026-13-01 --text x
    refused "--at '2026-02-30T00:00Z'" history event --db "$db" --at 2026-02-30T00:00Z --text x
    refused "--since 'last week'" history changes --db "$db" --since "last week"
    # a database written by a newer kbench
    python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE metadata SET value = 99 WHERE key = ?", ("schema_version",))
c.commit()' "$db" || fail "could not edit the schema version"
    run_kb 2 history add "$tmp/t.jsonl" --db "$db"
    expect "$tmp/err" 'schema version 99 was written by a newer kbench; this one reads schema version 1'
    run_kb 2 history changes --db "$db"
    expect "$tmp/err" 'schema version 99'
    echo "not a database" >"$tmp/text.db"
    run_kb 2 history changes --db "$tmp/text.db"
    expect "$tmp/err" 'text.db: not a kbench history database'
    run_kb 2 history changes --db "$tmp/missing.db"
    expect "$tmp/err" 'missing.db: cannot open'
    [ -e "$tmp/missing.db" ] && fail "changes created a database"
}

# 8 processes adding at once (3 runs each, and one run all of them add):
# every run stored, once.
test_concurrent() {
    template "$tmp/t.jsonl"
    make_series "$tmp/t.jsonl" "$tmp/s" 24 0:1 3
    local pids=() p
    for p in 0 1 2 3 4 5 6 7; do
        "$kbench" history add "$tmp/s/run_$(printf %03d $((3 * p)))".jsonl \
            "$tmp/s/run_$(printf %03d $((3 * p + 1)))".jsonl \
            "$tmp/s/run_$(printf %03d $((3 * p + 2)))".jsonl \
            "$tmp/t.jsonl" --db "$tmp/h.db" >"$tmp/out.$p" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p" || fail "a concurrent add failed: $(cat "$tmp"/out.*)"
    done
    run_kb 0 history export --db "$tmp/h.db" --jsonl "$tmp/e.jsonl"
    json_check "$tmp/e.jsonl" '
runs = [r for r in recs if r["type"] == "history_run"]
cases = [r for r in recs if r["type"] == "history_case"]
assert len(runs) == 25, len(runs)
assert len({r["hash"] for r in runs}) == 25
assert len(cases) == 25 * 2, len(cases)
assert len({(c["run_id"], c["case"]["seq"]) for c in cases}) == 50'
}

run_case "$case_name"
