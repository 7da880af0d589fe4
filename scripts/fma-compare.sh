#!/bin/sh
# fma-compare.sh - benchmark (not a test): kbench's FMA compute ceilings
# beside an independent register-only FMA program (scripts/fma/
# fma_register_only.c: intrinsics, 10 chains, nothing of kbench), built
# separately with the same compiler.  A ceiling well below the independent
# figure is the failure this exists to catch: a kernel loop that takes an
# operand from memory (issue 20: `vfmadd213ps -0x78(%rsp)`).
#
# Usage: scripts/fma-compare.sh [--kbench CMD]
#   --kbench CMD  the kbench program (default: build/default/kbench), run
#                 as `CMD peaks --no-gpu --json FILE`.
# Environment: CC (default gcc), CFLAGS (default "-O2 -march=native
# -fopenmp"), OMP_NUM_THREADS (default: all CPUs, for both), ROUNDS
# (default 3) of the two, alternating, the best of each kept: on a shared
# machine the rounds that ran undisturbed are the ones to compare.
#
# Prints per precision (fp64, fp32): kbench's ceiling and its winning
# variant, the independent figure, and kbench / independent.  Exit codes:
# 0 compared; 1 kbench's fp32 or fp64 ceiling below 0.95 x the
# independent figure; 2 usage; 3 a build or run failed, or the independent
# program's loop takes an FMA operand from memory.
set -eu
kbench=build/default/kbench
while [ $# -gt 0 ]; do
    case "$1" in
    --kbench) [ $# -ge 2 ] || { echo "fma-compare.sh: --kbench needs a value" >&2; exit 2; }
              kbench=$2; shift 2 ;;
    *) echo "fma-compare.sh: unknown argument '$1' (see the header)" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-gcc}
# shellcheck disable=SC2086  # CFLAGS is a list of flags
"$cc" ${CFLAGS:--O2 -march=native -fopenmp} "$here/fma/fma_register_only.c" \
    -o "$tmp/fma_register_only" || exit 3
# the independent figure is only worth comparing if its loop is register-only
if objdump -d --no-show-raw-insn "$tmp/fma_register_only" |
    awk '/<run_p[sd][.>]/,/ret/' | grep -q 'vfmadd.*(%'; then
    echo "fma-compare.sh: the independent program's FMA loop reads memory" >&2
    exit 3
fi
export OMP_PROC_BIND="${OMP_PROC_BIND:-true}"
for r in $(seq "${ROUNDS:-3}"); do
    "$tmp/fma_register_only" >> "$tmp/independent.txt" || exit 3
    "$kbench" peaks --no-gpu --json "$tmp/peaks$r.json" > /dev/null || exit 3
done
python3 - "$tmp" <<'PY'
import glob, json, sys
tmp = sys.argv[1]
indep = {}
for line in open(tmp + "/independent.txt"):
    prec, g = line.split()
    indep[prec] = max(indep.get(prec, 0.0), float(g))
best = {}
for path in glob.glob(tmp + "/peaks*.json"):
    cpu = [d for d in json.load(open(path))["devices"] if d["kind"] == "cpu"][0]
    for c in cpu["ceilings"]:
        if c["kind"] == "compute" and not c.get("vendor_gemm"):
            if c["value"] > best.get(c["level"], (0, ""))[0]:
                best[c["level"]] = (c["value"], c["kernel"])
low = False
print("| precision | kbench ceiling (variant) | independent | kbench / independent |")
print("|---|---|---|---|")
for prec in ("fp64", "fp32"):
    k, name = best.get(prec, (0.0, "none"))
    ratio = k / indep[prec] if indep.get(prec) else 0.0
    low |= ratio < 0.95
    print("| %s | %.1f GFLOP/s (%s) | %.1f GFLOP/s | %.3f |" % (prec, k, name, indep.get(prec, 0), ratio))
sys.exit(1 if low else 0)
PY
