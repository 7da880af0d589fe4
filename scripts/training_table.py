#!/usr/bin/env python3
"""training_table.py - the Markdown table of scripts/training-bench.sh.

Reads kbench JSON Lines files named MODEL-DT.rROUND.jsonl (each with its
`run` record and one `training_step` record per backend) and prints:
the machine and the command; each step's estimate as min/median/max over
the rounds; its split by pass; the hand-written backend against the vendor
one per pass (a same-run ratio per round); the speed-up of each data type
over the base one per backend (paired by round).  Only the standard
library: it runs wherever kbench's tests run.
"""
import argparse
import json
import re
import statistics
import sys

PASSES = ["FWD", "BWD_D", "BWD_W", "BWD_DW"]


def load(paths):
    """Returns (run records, steps): steps[(model, dtype, backend)][round]."""
    runs, steps = [], {}
    for path in paths:
        m = re.search(r"\.r(\d+)\.jsonl$", path)
        if not m:
            sys.exit(f"training_table: {path}: expected a name ending .rROUND.jsonl")
        rnd = int(m.group(1))
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"training_table: {path}:{n}: not JSON ({e})")
                if rec.get("type") == "run":
                    runs.append(rec)
                elif rec.get("type") == "training_step":
                    key = (rec["model"], rec["dtype"], rec["backend"])
                    steps.setdefault(key, {})[rnd] = rec
    if not steps:
        sys.exit("training_table: no training_step records in the files given")
    return runs, steps


def mmm(values, fmt="{:.3g}"):
    """min / median / max of the values, or a dash."""
    v = [x for x in values if x is not None]
    if not v:
        return "–"
    return " / ".join(fmt.format(x) for x in (min(v), statistics.median(v), max(v)))


def pass_time(rec, name):
    for p in rec.get("by_pass", []):
        if p["pass"] == name:
            return p["time_s"]
    return None


def machine(runs):
    r = runs[0]
    cid = r.get("cpu_id", {})
    be = r.get("backends", {})
    facts = []
    for name, info in sorted(be.items()):
        keep = {k: v for k, v in info.items()
                if k in ("version", "isa", "ukernel_bf16", "ukernel_f16", "fpmath",
                         "library", "cpu_isa")}
        if keep:
            facts.append(f"{name}: " + ", ".join(f"{k} {v}" for k, v in keep.items()))
    lines = [
        f"- machine: {r.get('host')}, {r.get('cpu_model')} (family {cid.get('family')}, "
        f"model {cid.get('model')}, stepping {cid.get('stepping')}, microarch "
        f"{cid.get('microarch') or 'unknown'}), {r.get('cores_online')} CPUs online, "
        f"{r.get('threads')} threads",
        f"- kbench {r.get('kbench_version')} at {r.get('git_commit')}, {r.get('compiler')}, "
        f"{r.get('build_type')} `{r.get('build_flags')}`",
        f"- first run {min(x.get('date', '') for x in runs)}, last run "
        f"{max(x.get('date', '') for x in runs)}",
    ]
    lines += [f"- {f}" for f in facts]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-dt", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    runs, steps = load(a.files)
    models = sorted({k[0] for k in steps})
    dts = sorted({k[1] for k in steps}, key=lambda d: d != a.base_dt)
    backends = []
    for k in steps:
        if k[2] not in backends:
            backends.append(k[2])
    rounds = sorted({r for v in steps.values() for r in v})

    out = ["# Training steps", ""]
    out += machine(runs)
    out += [f"- command: `{a.command}`", f"- rounds: {len(rounds)}", "",
            "Kernel time of one training step (kbench's roll-up: Σ count × median "
            "of each pass), min / median / max over the rounds. A step is "
            "complete only when every pass ran and validated; an incomplete one "
            "shows its measured part in brackets and what is missing below.", ""]

    out += ["## Step estimate (s)", "",
            "| model | mb | dtype | " + " | ".join(backends) + " |",
            "|---|---|---|" + "---|" * len(backends)]
    missing = []
    for m in models:
        for d in dts:
            cells, mb = [], "?"
            for b in backends:
                recs = steps.get((m, d, b), {})
                if not recs:
                    cells.append("not run")
                    continue
                mb = next(iter(recs.values()))["mb"]
                if all(r["complete"] for r in recs.values()):
                    cells.append(mmm(r["step_s"] for r in recs.values()))
                else:
                    cells.append("incomplete [" + mmm(r["measured_s"] for r in recs.values()) + "]")
                    for r in recs.values():
                        for x in r.get("missing", []):
                            missing.append(f"{m} {d} {b}: {x['layer']} {x['pass']} "
                                           f"{x['status']}: {x['reason']}")
            out.append(f"| {m} | {mb} | {d} | " + " | ".join(cells) + " |")
    out.append("")

    hand, vendor = backends[0], backends[-1]
    out += [f"## By pass: time (s) and {hand} / {vendor}", "",
            f"Per pass the median over rounds of its time per step, and the ratio "
            f"{hand} time / {vendor} time, computed per round (both backends ran "
            f"in the same run, layer by layer): above 1 means {vendor} is faster.", "",
            f"| model | dtype | pass | share ({hand}) | {hand} s | {vendor} s | "
            f"{hand}/{vendor} min / median / max |",
            "|---|---|---|---|---|---|---|"]
    for m in models:
        for d in dts:
            h, v = steps.get((m, d, hand), {}), steps.get((m, d, vendor), {})
            for p in PASSES:
                ht = [pass_time(r, p) for r in h.values()]
                vt = [pass_time(r, p) for r in v.values()]
                if all(x is None for x in ht + vt):
                    continue
                share = [next((q["share"] for q in r["by_pass"] if q["pass"] == p), None)
                         for r in h.values()]
                ratios = [pass_time(h[r], p) / pass_time(v[r], p) for r in rounds
                          if r in h and r in v and pass_time(h[r], p) and pass_time(v[r], p)]
                sh = [x for x in share if x is not None]
                share_txt = f"{statistics.median(sh) * 100:.1f} %" if sh else "–"
                out.append(f"| {m} | {d} | {p} | {share_txt} | {mmm(ht)} | "
                           f"{mmm(vt)} | {mmm(ratios)} |")
    out.append("")

    out += [f"## Speed-up over {a.base_dt} per backend", "",
            f"Step time in {a.base_dt} / step time in the other type, paired by round "
            "(complete steps only).", "",
            "| model | dtype | " + " | ".join(backends) + " |",
            "|---|---|" + "---|" * len(backends)]
    for m in models:
        for d in dts:
            if d == a.base_dt:
                continue
            cells = []
            for b in backends:
                base, other = steps.get((m, a.base_dt, b), {}), steps.get((m, d, b), {})
                ratios = [base[r]["step_s"] / other[r]["step_s"] for r in rounds
                          if r in base and r in other and base[r]["step_s"] and other[r]["step_s"]]
                cells.append(mmm(ratios))
            out.append(f"| {m} | {d} | " + " | ".join(cells) + " |")
    out.append("")
    if missing:
        out += ["## Missing passes", ""] + [f"- {x}" for x in sorted(set(missing))] + [""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
