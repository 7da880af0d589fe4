#!/usr/bin/env bash
# history-screenshot.sh - a picture of `kbench history show`'s page, taken
# in headless Chromium, from a generated database with known steps (not a
# test: Chromium is needed by this script only, never by CI or ctest).
#
# usage: scripts/history-screenshot.sh [--kbench PATH] [--out PNG] [--dir DIR]
#   defaults: --kbench build/cpu/kbench, --out results/history/show.png,
#   --dir a new temporary folder (removed)
#
# The database: 100 runs on node n1, an hour apart from 2026-01-01, made
# from one small real `kbench run` (a GEMM and a convolution on omp) with
# every sample scaled by 1 % normal noise and these known steps:
#   the GEMM 8 % slower from run 40 (a regression of `median`), after the
#   event "BIOS 2.3" on n1 (2026-01-02T15:30Z, before run 40, 16:00);
#   the convolution 6 % faster from run 70 (an improvement), after the
#   site-wide event "oneDNN 3.4" (2026-01-03T21:30Z, before run 70, 22:00).
# Needs chromium (Debian 12: apt-get install chromium).  Exits 1 when a
# step is not found where it was made, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
kbench=build/cpu/kbench out=results/history/show.png dir=""
while [ $# -gt 0 ]; do
    case $1 in
    --kbench) kbench=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
command -v chromium >/dev/null || { echo "history-screenshot: no chromium (apt-get install chromium)" >&2; exit 2; }
[ -n "$dir" ] || { dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; }
mkdir -p "$dir/runs"
rm -f "$dir/h.db"

"$kbench" run --desc m64n64k64 --desc mb1ic8ih16oc8kh3ph1 --backend omp \
    --reps 5 --min-time 0 --quiet --json "$dir/template.jsonl" >/dev/null
# The template's case of KERNEL scales by FACTOR from run AT on: "KERNEL:AT:FACTOR".
python3 - "$dir/template.jsonl" "$dir/runs" 100 gemm:40:1.08 conv2d:70:0.94 <<'PY'
import json, random, sys
src, out, n, *steps = sys.argv[1:]
steps = {k: (int(a), float(f)) for k, a, f in (s.split(":") for s in steps)}
recs = [json.loads(line) for line in open(src)]
rng = random.Random(20261202)
for i in range(int(n)):
    with open(f"{out}/run_{i:03d}.jsonl", "w") as o:
        for r in json.loads(json.dumps(recs)):
            if r["type"] == "run":
                r["date"] = f"2026-01-{1 + i // 24:02d}T{i % 24:02d}:00:00Z"
                r["host"] = "n1"
            if r["type"] == "case" and r.get("samples_s"):
                at, f = steps.get(r["kernel"], (0, 1.0))
                scale = (f if i >= at else 1.0) * (1 + 0.01 * rng.gauss(0, 1))
                r["samples_s"] = [s * scale for s in r["samples_s"]]
            o.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
"$kbench" history add "$dir"/runs/*.jsonl --db "$dir/h.db" >/dev/null
"$kbench" history event --db "$dir/h.db" --at 2026-01-02T15:30Z --text "BIOS 2.3" --node n1
"$kbench" history event --db "$dir/h.db" --at 2026-01-03T21:30Z --text "oneDNN 3.4"
"$kbench" history changes --db "$dir/h.db" --json "$dir/changes.json" | tee "$dir/changes.md"
python3 - "$dir/changes.json" <<'PY' || { echo "history-screenshot: the steps were not found as made" >&2; exit 1; }
import json, sys
got = sorted((c["case"].split("|")[1], c["time"], c["kind"]) for c in json.load(open(sys.argv[1])))
assert got == [("conv2d", "2026-01-03T22:00:00Z", "improvement"),
               ("gemm", "2026-01-02T16:00:00Z", "regression")], got
PY
"$kbench" history show --db "$dir/h.db" --out "$dir/page"
# --virtual-time-budget: let the page settle before the picture; the
# window is as wide as the charts and tall enough for the table and both.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=2000 --window-size=1100,1000 \
    --screenshot="$(realpath -m "$out")" "file://$(realpath "$dir/page/index.html")" 2>"$dir/chromium.log" \
    || { cat "$dir/chromium.log" >&2; exit 1; }
echo "history-screenshot: $out ($(chromium --version 2>/dev/null))"
