#!/usr/bin/env python3
"""device_goals.py - the GPU goals of scripts/device-check.sh, read off its
JSON (stdlib only):

    device_goals.py --ceilings CEILINGS.json --gemm GEMM.jsonl
                    --conv CONV.jsonl [--catalog MODEL.jsonl]...
                    [--device cuda] [--hand cuda] [--gemm-vendor cublas]
                    [--conv-vendor cudnn]

- triad: the device's measured triad bandwidth >= 85 % of its theoretical;
- GEMM: the hand-written fp32 GEMM >= 50 % of the vendor's on large shapes
  (M, N, K >= 4096: the smallest ratio of those);
- conv: the hand-written conv >= 30 % of the vendor's, by time: the
  vendor's total time over the hand-written one's for the conv cases both
  PASSED (count-weighted, as a model runs them), per catalog, in the conv
  sweep, and over all of them;
- vendor cases: every vendor case of the catalogs placed on the roofline,
  none MISTRUSTED.
Prints one line per goal, `MET`, `NOT MET` or `UNKNOWN (why)`, with the
figures.  Exit 0 (the goals are measurements, not a test).
"""
import argparse
import json
import re
import sys


def records(path):
    """The case records of a JSON Lines file ([] when it is missing)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print(f"device_goals: {path}: {e}", file=sys.stderr)
        return []
    return [r for r in lines if r.get("type") == "case"]


def verdict(ok, text):
    return f"{'MET' if ok else 'NOT MET'}: {text}"


def triad(ceilings, kind):
    try:
        with open(ceilings, encoding="utf-8") as f:
            devices = json.load(f).get("devices", [])
    except (OSError, ValueError) as e:
        return f"UNKNOWN ({ceilings}: {e})"
    lines = []
    for d in devices:
        if d.get("kind") != kind:
            continue
        for c in d.get("ceilings", []):
            if c.get("kind") != "memory" or "triad" not in c.get("kernel", ""):
                continue
            name = f"{d.get('model', kind)} {c['kernel']} {c.get('level', '')}"
            theo = c.get("theoretical")
            if not theo:
                why = c.get("note") or "no theoretical bandwidth"
                lines.append(f"UNKNOWN ({name}: {c['value']:.0f} GB/s, {why})")
            else:
                pct = 100.0 * c["value"] / theo
                lines.append(verdict(pct >= 85.0, f"{name}: {c['value']:.0f} "
                                     f"of {theo:.0f} GB/s = {pct:.1f} % (goal 85 %)"))
    return "\n  ".join(lines) or f"UNKNOWN (no {kind} triad ceiling in {ceilings})"


def passed(cases, backend):
    """desc -> case, the PASSED (or MISTRUSTED: timed) cases of backend."""
    return {r["desc"]: r for r in cases if r.get("backend") == backend
            and r.get("status") in ("PASSED", "MISTRUSTED")}


def gemm(cases, hand, vendor):
    h, v = passed(cases, hand), passed(cases, vendor)
    rows, large = [], []
    for desc in sorted(set(h) & set(v), key=lambda d: h[d]["flops"]):
        ratio = h[desc]["gflops"] / v[desc]["gflops"]
        rows.append(f"    {desc}: {hand} {h[desc]['gflops']:.0f}, {vendor} "
                    f"{v[desc]['gflops']:.0f} GFLOP/s, ratio {ratio:.2f}")
        dims = re.match(r"m(\d+)n(\d+)k(\d+)", desc)
        if dims and min(int(x) for x in dims.groups()) >= 4096:
            large.append(ratio)
    if not large:
        head = f"UNKNOWN (no large f32 GEMM PASSED on both {hand} and {vendor})"
    else:
        head = verdict(min(large) >= 0.5, f"smallest {hand}/{vendor} ratio on "
                       f"large shapes {min(large):.2f} (goal 0.50)")
    return "\n".join([head] + rows)


def conv_ratio(cases, hand, vendor):
    """vendor time / hand time over the conv cases both timed, or None."""
    h, v = passed(cases, hand), passed(cases, vendor)
    both = [d for d in set(h) & set(v) if h[d].get("kernel", "").startswith("conv")]
    if not both:
        return None, 0
    th = sum(h[d].get("count", 1) * h[d]["stats"]["median"] for d in both)
    tv = sum(v[d].get("count", 1) * v[d]["stats"]["median"] for d in both)
    return tv / th, len(both)


def conv(sets, hand, vendor):
    rows, every = [], []
    for name, cases in sets:
        ratio, n = conv_ratio(cases, hand, vendor)
        every += cases
        rows.append(f"    {name}: " + (f"{ratio:.2f} over {n} layers"
                                       if ratio is not None else "no conv case timed on both"))
    ratio, n = conv_ratio(every, hand, vendor)
    if ratio is None:
        head = f"UNKNOWN (no conv PASSED on both {hand} and {vendor})"
    else:
        head = verdict(ratio >= 0.30, f"{hand} at {ratio:.2f} of {vendor}'s "
                       f"speed over {n} conv cases (goal 0.30)")
    return "\n".join([head] + rows)


def vendor_cases(sets, vendors):
    cases = [r for _, cs in sets for r in cs if r.get("backend") in vendors]
    timed = [r for r in cases if r.get("status") in ("PASSED", "MISTRUSTED")]
    if not timed:
        return f"UNKNOWN (no {'/'.join(vendors)} case timed)"
    unplaced = [r for r in timed if not r.get("roofline", {}).get("placed")]
    mistrusted = [r for r in timed if r["status"] == "MISTRUSTED"]
    text = (f"{len(timed)} vendor cases timed, {len(unplaced)} not placed, "
            f"{len(mistrusted)} MISTRUSTED")
    for r in (unplaced + mistrusted)[:5]:
        text += (f"\n    {r['backend']} {r['desc']}: {r['status']} "
                 f"{r.get('roofline', {}).get('note') or r.get('reason', '')}")
    return verdict(not unplaced and not mistrusted, text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ceilings", required=True)
    p.add_argument("--gemm", required=True)
    p.add_argument("--conv", required=True)
    p.add_argument("--catalog", action="append", default=[])
    p.add_argument("--device", default="cuda")
    p.add_argument("--hand", default="cuda")
    p.add_argument("--gemm-vendor", default="cublas")
    p.add_argument("--conv-vendor", default="cudnn")
    a = p.parse_args()
    catalogs = [(path, records(path)) for path in a.catalog]
    conv_sets = catalogs + [(a.conv, records(a.conv))]
    print(f"triad >= 85 % of theoretical ({a.device}):\n  "
          + triad(a.ceilings, a.device))
    print(f"hand-written fp32 GEMM >= 50 % of {a.gemm_vendor} (large shapes):\n  "
          + gemm(records(a.gemm), a.hand, a.gemm_vendor))
    print(f"hand-written conv >= 30 % of {a.conv_vendor}:\n  "
          + conv(conv_sets, a.hand, a.conv_vendor))
    print("every vendor case on the roofline, none MISTRUSTED:\n  "
          + vendor_cases(catalogs, (a.gemm_vendor, a.conv_vendor)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
