#!/usr/bin/env bash
# training_test.sh - `kbench run --training` end to end on a tiny catalog
# (KBENCH_CATALOG_DIR): the roll-up's step time worked out again here
# from the case records it was made of, an incomplete step, the first
# conv without BWD_D, the report's stacked bars and precision colours,
# bad input; one function per ctest case.
# Usage: training_test.sh CASE KBENCH
set -uo pipefail

case_name=$1 kbench=$2
KB_TEST_PREFIX=training
# shellcheck source=tests/test_lib.sh
. "$(dirname "$0")/../../test_lib.sh"

# The tiny model: a first conv, a conv twice, a batchnorm three times
# and a fully connected layer (4 x 8 x 8 = 256 features to 5) with its
# backward GEMMs: 10 passes.
export KBENCH_CATALOG_DIR=$tmp/cat
mkdir -p "$KBENCH_CATALOG_DIR"
cat >"$KBENCH_CATALOG_DIR/tiny.txt" <<'EOF'
--dir=FWD_B
ic3ih8oc4kh3ph1_nc1
ic4ih8oc4kh3ph1_nc2*2
--dir=FWD_D
ic4ih8_nbn*3
n5k256_tb_nfc
EOF
cat >"$KBENCH_CATALOG_DIR/tiny.training" <<'EOF'
n256k5_nfc:BWD_D
m5n256_ta_nfc:BWD_W
EOF

# train JSON BACKENDS [options...]: the tiny model's step at mb 2.
train() {
    local json=$1 backends=$2
    shift 2
    run_kb 0 run --model tiny --training --mb 2 --reps 2 --min-time 0 \
        --backend "$backends" --json "$json" "$@"
}

# has_backend NAME: this build has it.
has_backend() {
    "$kbench" list backends 2>/dev/null | grep -Eq "^ *$1( |$)"
}

# check_steps FILE: every training_step record against its case
# records: complete exactly when every pass ran and validated; then
# step_s is the sum of count x median (the median worked out here from
# samples_s); else step_s is null and `missing` names exactly the passes
# that did not.  The shares by pass and kind and the top layers too.
check_steps() {
    python3 - "$1" <<'PY' || fail "check_steps $1"
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[-1]["type"] == "summary", "the summary is not last"
steps = [r for r in recs if r["type"] == "training_step"]
cases = [r for r in recs if r["type"] == "case"]
assert steps, "no training_step record"
phase = {"FWD_D": "FWD", "FWD_B": "FWD", "FWD_I": "FWD", "BWD_D": "BWD_D",
         "BWD_W": "BWD_W", "BWD_WB": "BWD_W", "BWD_DW": "BWD_DW"}
def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)
for s in steps:
    mine = [c for c in cases if c["model"] == s["model"] and c["backend"] == s["backend"]]
    assert s["passes"] == len(mine) == 10, (s["passes"], len(mine))
    ran = [c for c in mine if c["status"] in ("PASSED", "MISTRUSTED")]
    out = [c for c in mine if c not in ran]
    total = 0.0
    by_pass, by_kind, by_layer = {}, {}, {}
    for c in ran:
        t = c["count"] * statistics.median(c["samples_s"])
        total += t
        by_pass[phase[c["pass"]]] = by_pass.get(phase[c["pass"]], 0) + t
        by_kind[c["kernel"]] = by_kind.get(c["kernel"], 0) + t
        layer = c["layer"].split(":")[0]
        by_layer[layer] = by_layer.get(layer, 0) + t
    assert s["complete"] == (not out and not s["filtered"]), s
    assert close(s["measured_s"], total), (s["measured_s"], total)
    if s["complete"]:
        assert close(s["step_s"], total), (s["step_s"], total)
    else:
        assert s["step_s"] is None, s["step_s"]
    got = sorted((m["layer"], m["pass"], m["status"]) for m in s["missing"])
    want = sorted((c["layer"].split(":")[0], c["pass"], c["status"]) for c in out)
    assert got == want, (got, want)
    for p in s["by_pass"]:
        assert close(p["time_s"], by_pass.get(p["pass"], 0.0)), p
    for k in s["by_kind"]:
        assert close(k["time_s"], by_kind.get(k["kind"], 0.0)), k
    top = sorted(by_layer.items(), key=lambda kv: -kv[1])[:5]
    assert [t["layer"] for t in s["top_layers"]] == [k for k, _ in top], s["top_layers"]
    if total > 0:
        assert close(sum(p["share"] for p in s["by_pass"]), 1.0)
PY
}

# The roll-up of omp's step: complete when every pass PASSED, and its
# time the sum the records give.
test_rollup_sum() {
    train "$tmp/t.jsonl" omp
    check_steps "$tmp/t.jsonl"
    expect "$tmp/out" '^training step: tiny on omp, mb 2, f32: ' "the printed roll-up"
    expect "$tmp/out" '^  by pass.*FWD [0-9.]+%.*BWD_D [0-9.]+%.*BWD_W [0-9.]+%.*BWD_DW' \
        "the printed split by pass"
    expect "$tmp/out" '^  costliest layers' "the printed costliest layers"
    # the table comes first, then the roll-up
    local last_case roll
    last_case=$(grep -n 'fc:BWD_W' "$tmp/out" | tail -1 | cut -d: -f1)
    roll=$(grep -n '^training step:' "$tmp/out" | head -1 | cut -d: -f1)
    [ "${last_case:-0}" -lt "${roll:-0}" ] || fail "the roll-up is not after the table"
    # the printed step time is the record's
    python3 - "$tmp/t.jsonl" "$tmp/out" <<'PY' || fail "printed step time differs from the record"
import json, re, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"training_step"' in l][0]
text = open(sys.argv[2]).read()
if s["complete"]:
    assert re.search(r"f32: %s s of kernel time per step" % re.escape("%.6g" % s["step_s"]), text)
else:
    assert "INCOMPLETE" in text
PY
}

# openblas has no batchnorm: its step misses bn's two passes, says so,
# and gives no step time.
test_incomplete() {
    has_backend openblas || { echo "no openblas backend: skipped"; exit 77; }
    train "$tmp/t.jsonl" openblas
    check_steps "$tmp/t.jsonl"
    python3 - "$tmp/t.jsonl" <<'PY' || fail "openblas's step is not incomplete by bn's passes"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"training_step"' in l][0]
assert s["complete"] is False and s["step_s"] is None, s
assert sorted((m["layer"], m["pass"], m["status"]) for m in s["missing"]) == \
    [("bn", "BWD_DW", "SKIPPED"), ("bn", "FWD_D", "SKIPPED")], s["missing"]
assert s["measured_passes"] == 8
PY
    expect "$tmp/out" 'tiny on openblas, mb 2, f32: INCOMPLETE, no step time: 2 of 10 passes missing' \
        "the printed incomplete step"
    expect "$tmp/out" '^  missing: bn FWD_D \(SKIPPED: ' "the printed missing pass"
}

# The model's first convolution has no backward-data pass; one that
# occurs three times has it twice.
test_first_conv() {
    train "$tmp/t.jsonl" omp
    python3 - "$tmp/t.jsonl" <<'PY' || fail "first conv's BWD_D"
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if '"type":"case"' in l]
passes = {(r["layer"], r["pass"]): r["count"] for r in c}
assert ("c1", "BWD_D") not in passes, passes
assert passes[("c1", "FWD_B")] == 1 and passes[("c1", "BWD_WB")] == 1, passes
assert passes[("c2", "BWD_D")] == 2 and passes[("c2", "BWD_WB")] == 2, passes
assert passes[("bn", "BWD_DW")] == 3 and passes[("fc:BWD_W", "BWD_W")] == 1, passes
assert all(r["dir"] == "FWD_D" for r in c if r["kernel"] == "gemm"), "GEMM dir"
PY
    sed 's/_nc1$/_nc1*3/' "$KBENCH_CATALOG_DIR/tiny.txt" >"$KBENCH_CATALOG_DIR/tiny3.txt"
    run_kb 0 run --model tiny3 --training --mb 1 --reps 1 --min-time 0 --backend omp \
        --layer '^c1$' --json "$tmp/t3.jsonl"
    python3 - "$tmp/t3.jsonl" <<'PY' || fail "a first conv of count 3: BWD_D twice"
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if '"type":"case"' in l]
assert {(r["pass"], r["count"]) for r in c} == {("FWD_B", 3), ("BWD_D", 2), ("BWD_WB", 3)}, c
PY
}

# kbench report: one stacked bar per model and backend in training.svg,
# segments by pass and by kind; the roofline's points in their
# precision's colour, and a precision without a measured roof said so.
test_report_bars() {
    local backends=omp
    has_backend openblas && backends=omp,openblas
    train "$tmp/t.jsonl" "$backends"
    # one case relabelled bf16, for its colour
    edit "$tmp/t.jsonl" "$tmp/p.jsonl" \
        'if r.get("seq") == 1: r["dtype"] = "bf16:bf16:f32"'
    run_kb 0 report "$tmp/p.jsonl" --outdir "$tmp/rep"
    [ -s "$tmp/rep/training.svg" ] || fail "no training.svg"
    python3 - "$tmp/p.jsonl" "$tmp/rep" "$backends" <<'PY' || fail "report charts"
import json, sys
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
res, rep, backends = sys.argv[1:]
steps = [json.loads(l) for l in open(res) if '"training_step"' in l]
t = ET.parse(rep + "/training.svg")
bars = t.findall(".//s:g[@class='step-bar']", ns)
assert len(bars) == len(steps) == len(backends.split(",")), (len(bars), len(steps))
for b, s in zip(bars, steps):
    segs = b.findall("s:rect[@class='segment']", ns)
    parts = [p for p in s["by_pass"] + s["by_kind"] if p["time_s"] > 0]
    assert len(segs) == len(parts), (len(segs), len(parts))
    label = "".join(b.itertext())
    assert ("INCOMPLETE" in label) == (not s["complete"]), label
r = ET.parse(rep + "/roofline.svg")
fills = {}
for p in r.findall(".//s:g[@class='point']", ns):
    title = p.find("s:title", ns).text
    shape = [e for e in p if not e.tag.endswith("title")][0]
    fills.setdefault(shape.get("fill"), []).append(title)
assert set(fills) == {"#0072B2", "#009E73"}, fills.keys()
assert all("bf16" in t for t in fills["#009E73"]) and len(fills["#009E73"]) == 1, fills
assert {e.get("fill") for e in r.findall(".//s:rect[@class='precision']", ns)} == \
    {"#0072B2", "#009E73"}
PY
    expect "$tmp/rep/report.md" '^## Training steps' "the report's training section"
    expect "$tmp/rep/report.md" '\| tiny \| omp \| f32 \|' "the report's training table"
    expect "$tmp/rep/report.md" 'training\.svg' "the link to the bars"
    grep -q 'class="step-bar"' "$tmp/rep/report.html" || fail "the HTML has no stacked bars"
}

# Bad input: each exits 2, names what is wrong, and writes nothing.
test_bad_input() {
    run_kb 2 run --training --desc m4n4k4 --json "$tmp/x.jsonl"
    expect "$tmp/err" "--training works on model catalogs.*--desc 'm4n4k4'"
    echo m4n4k4 >"$tmp/b.txt"
    run_kb 2 run --training --batch "$tmp/b.txt"
    expect "$tmp/err" "--batch '$tmp/b.txt' has no training step"
    run_kb 2 run --training --model tiny --dir BWD_D
    expect "$tmp/err" '--training runs every pass of a step; --dir BWD_D'
    # a training catalog whose backward GEMM has no forward layer
    cp "$KBENCH_CATALOG_DIR/tiny.txt" "$KBENCH_CATALOG_DIR/bad.txt"
    printf 'n256k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\nn4k4_nzz:BWD_D\n' \
        >"$KBENCH_CATALOG_DIR/bad.training"
    run_kb 2 run --training --model bad --json "$tmp/x.jsonl"
    expect "$tmp/err" "bad.training: 'zz:BWD_D' is not a backward GEMM"
    # a backward GEMM of the wrong shape
    printf 'n255k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\n' >"$KBENCH_CATALOG_DIR/bad.training"
    run_kb 2 run --training --model bad --json "$tmp/x.jsonl"
    expect "$tmp/err" "'fc:BWD_D' is not the BWD_D GEMM of the fully connected layer 'fc'"
    [ ! -e "$tmp/x.jsonl" ] || fail "a refused run wrote its --json file"
    # the forward suite never runs the backward GEMMs
    run_kb 0 run --model tiny --backend omp --reps 1 --min-time 0 --json "$tmp/f.jsonl"
    python3 - "$tmp/f.jsonl" <<'PY' || fail "the forward suite ran a backward pass or rolled up"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert not [r for r in recs if r["type"] == "training_step"]
c = [r for r in recs if r["type"] == "case"]
assert len(c) == 4 and all(r["pass"] in ("FWD_B", "FWD_D") for r in c), c
PY
}

# --layer keeps some passes only: the step is partial and says so.
test_filtered() {
    train "$tmp/t.jsonl" omp --layer '^c2$'
    python3 - "$tmp/t.jsonl" <<'PY' || fail "a filtered step is not marked"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"training_step"' in l][0]
assert s["filtered"] is True and s["complete"] is False and s["step_s"] is None, s
assert s["passes"] == 3, s["passes"]
PY
    expect "$tmp/out" 'INCOMPLETE.*--kernel/--layer left passes out'
}

run_case "$case_name"
