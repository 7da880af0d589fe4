#!/usr/bin/env python3
"""vendor_table.py - Markdown table of hand-written vs vendor GFLOP/s.

Reads kbench JSON Lines result files (results/SCHEMA.md) and writes one
row per (model, layer, kernel): the median GFLOP/s of each backend, the
ratio hand-written / vendor for each vendor backend, and per model the
geometric mean of each ratio.  Only PASSED cases count; a layer a backend
skipped shows its status instead of a number.

usage: vendor_table.py --hand omp --vendor openblas,onednn --title T
                       --command CMD RESULTS.jsonl... > table.md
"""
import argparse
import json
import math
import sys


def load(paths):
    runs, cases = [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{n}: not JSON: {e}")
                if rec.get("type") == "run":
                    runs.append(rec)
                elif rec.get("type") == "case":
                    cases.append(rec)
    return runs, cases


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def gflops_range(c):
    """(median, min, max) GFLOP/s of a case: the median from its record,
    min and max from its slowest and fastest timed repetition."""
    st = c.get("stats") or {}
    f = c.get("flops") or 0
    lo = f / st["max"] * 1e-9 if st.get("max") else None
    hi = f / st["min"] * 1e-9 if st.get("min") else None
    return c.get("gflops"), lo, hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hand", default="omp")
    ap.add_argument("--vendor", default="openblas,onednn")
    ap.add_argument("--title", default="Hand-written vs vendor")
    ap.add_argument("--command", default="")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args()
    vendors = [v for v in a.vendor.split(",") if v]
    backends = [a.hand] + vendors
    runs, cases = load(a.results)

    # (model, layer, kernel, mb) -> backend -> case
    table, order = {}, []
    for c in cases:
        key = (c.get("model", ""), c.get("layer", ""), c.get("kernel", ""), c.get("mb"))
        if key not in table:
            table[key] = {}
            order.append(key)
        table[key][c["backend"]] = c

    out = [f"# {a.title}", ""]
    if runs:
        r = runs[0]
        out.append(f"- machine: {r.get('host', '?')}, {r.get('cpu_model', '?')}, "
                   f"{r.get('cores_online', '?')} cores, {r.get('threads', '?')} threads, "
                   f"affinity {r.get('affinity', '?')}")
        out.append(f"- build: {r.get('compiler', '?')} {r.get('build_type', '')} "
                   f"`{r.get('build_flags', '')}`, commit {r.get('git_commit', '?')}")
        ob = (r.get("backends") or {}).get("openblas") or {}
        if ob:
            out.append(f"- OpenBLAS core: **{ob.get('corename', '?')}** "
                       f"(OPENBLAS_CORETYPE={ob.get('OPENBLAS_CORETYPE', 'unset')}); "
                       f"config `{ob.get('config', '?')}`")
        dn = (r.get("backends") or {}).get("onednn") or {}
        if dn:
            out.append(f"- oneDNN {dn.get('version', '?')}, ISA {dn.get('isa', '?')}")
        out.append(f"- date: {r.get('date', '?')}")
    if a.command:
        out.append(f"- command: `{a.command}`")
    out.append("- figures: GFLOP/s of the median repetition, with [slowest–fastest] "
               "repetition; ratio = hand-written / vendor of the medians (above 1: "
               "hand-written is faster), with [worst–best] from the slowest and "
               "fastest repetitions of each")
    out.append("")

    head = ["model", "layer", "kernel", "mb"] + [f"{b} GFLOP/s" for b in backends] + \
           [f"{a.hand}/{v}" for v in vendors]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    ratios = {}   # (model, vendor) -> [ratio]
    for key in order:
        row = [str(k) for k in key]
        g = {}
        for b in backends:
            c = table[key].get(b)
            if c is None:
                row.append("—")
            elif c.get("status") == "PASSED":
                g[b] = gflops_range(c)
                med, lo, hi = g[b]
                row.append(f"{fmt(med)} [{fmt(lo)}–{fmt(hi)}]")
            else:
                row.append(c.get("status", "?"))
        for v in vendors:
            if a.hand in g and v in g and g[v][0]:
                (hm, hl, hh), (vm, vl, vh) = g[a.hand], g[v]
                r = hm / vm
                ratios.setdefault((key[0], v), []).append(r)
                worst = hl / vh if hl and vh else None
                best = hh / vl if hh and vl else None
                row.append(f"{r:.2f} [{fmt(worst, 2)}–{fmt(best, 2)}]")
            else:
                row.append("—")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append(f"## Geometric mean of {a.hand}/vendor per model")
    out.append("")
    out.append("| model | " + " | ".join(f"{a.hand}/{v}" for v in vendors) + " | layers |")
    out.append("|---|" + "---|" * (len(vendors) + 1))
    for model in dict.fromkeys(k[0] for k in order):
        cells = [fmt(geomean(ratios.get((model, v), [])), 2) for v in vendors]
        n = max((len(ratios.get((model, v), [])) for v in vendors), default=0)
        out.append(f"| {model} | " + " | ".join(cells) + f" | {n} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
