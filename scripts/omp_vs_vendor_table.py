#!/usr/bin/env python3
"""omp_vs_vendor_table.py - the Markdown table of scripts/omp-vs-vendor.sh.

Reads the kbench JSON Lines files RUNS/SET.rROUND.jsonl of the sets named
and scripts/omp-vs-vendor.conf (each set's backends, base and goals), and
prints:
  - the machine (the CPU identity line `kbench peaks` prints), the build,
    OpenBLAS's core, oneDNN's version and ISA, the FMA ceilings, the
    command and what the measuring cost;
  - a summary per set and vendor: the geometric mean of the per-layer
    ratios (each layer's median over the rounds), per kernel and per
    catalog, the worst layer, the layers below 0.5, the goal and by how
    much it is missed;
  - per set, per layer: omp's GFLOP/s and fraction of the FMA ceiling
    (medians over the rounds), and per vendor the ratio vendor_time /
    omp_time of each round as min / median / max (above 1: omp faster);
  - per catalog of a forward set, its three costliest layers on omp and
    their fraction of the ceiling (the issue's goal: 60 %);
  - for a speed-up set (a base set in the conf), each backend's whole-set
    time of the base over this set's, min / median / max over rounds.
A ratio is taken within one round (one kbench run), never across runs.
Only PASSED cases give figures; any other status is shown as it is.
With --csv it also writes every case's figures, one row per round.
Standard library only.

usage: omp_vs_vendor_table.py --conf CONF --sets S,... --rounds N
           [--command CMD] [--seconds S] [--csv FILE] RUNS_DIR > table.md
       omp_vs_vendor_table.py --cpu-tag RESULTS.jsonl   (the file name's CPU)
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import sys


def die(msg):
    sys.exit(f"omp_vs_vendor_table: {msg}")


def read_conf(path):
    """set -> {backends, base, goals: {backend: (geomean, min or None)}}"""
    sets = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) < 6:
                die(f"{path}:{n}: expected: set modes backends base goals arguments...")
            goals = {}
            if fields[4] != "-":
                for g in fields[4].split(","):
                    b, _, v = g.partition("=")
                    gm, _, mn = v.partition("/")
                    goals[b] = (float(gm), float(mn) if mn else None)
            sets[fields[0]] = {"backends": fields[2].split(","),
                               "base": None if fields[3] == "-" else fields[3],
                               "goals": goals, "args": " ".join(fields[5:])}
    return sets


def read_jsonl(path):
    run, cases = None, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                die(f"{path}:{n}: not JSON ({e})")
            if rec.get("type") == "run" and run is None:
                run = rec
            elif rec.get("type") == "case":
                cases.append(rec)
    return run, cases


def cpu_line(cpu):
    """The identity `kbench peaks` prints for a CPU."""
    if not cpu:
        return "unknown CPU"
    fam, mod = cpu.get("family"), cpu.get("model")
    hexed = lambda v: f"0x{v:x}" if isinstance(v, int) else str(v)
    return (f"{cpu.get('vendor', '?')} family {hexed(fam)} model {hexed(mod)} "
            f"stepping {cpu.get('stepping', '?')}, microcode "
            f"{cpu.get('microcode', '?')}, microarchitecture "
            f"{cpu.get('microarch') or 'unknown'}")


def cpu_tag(run):
    cpu = (run or {}).get("cpu_id") or {}
    tag = cpu.get("microarch") or cpu.get("model_name") or "cpu"
    return re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-") or "cpu"


def case_key(c):
    return (c.get("model", ""), c.get("layer", "") or c.get("desc", ""),
            c.get("kernel", ""), c.get("mb"), c.get("dir", ""),
            c.get("dtype", ""))


def fraction_of_peak(c):
    roof = c.get("roofline") or {}
    peak = roof.get("peak_gflops")
    return c["gflops"] / peak if peak and c.get("gflops") else None


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def f2(x):
    return "—" if x is None else f"{x:.2f}"


def mmm(xs):
    """min / median / max, or a dash."""
    if not xs:
        return "—"
    return f"{min(xs):.2f} / {statistics.median(xs):.2f} / {max(xs):.2f}"


def pct(x):
    return "—" if x is None else f"{100 * x:.0f} %"


def load_set(runs_dir, name, rounds):
    """(first run record, {key: {round: {backend: case}}}, key order)"""
    first, table, order = None, {}, []
    for r in range(1, rounds + 1):
        path = os.path.join(runs_dir, f"{name}.r{r}.jsonl")
        if not os.path.exists(path):
            die(f"{path}: missing (set {name}, round {r})")
        run, cases = read_jsonl(path)
        first = first or run
        for c in cases:
            k = case_key(c)
            if k not in table:
                table[k] = {}
                order.append(k)
            table[k].setdefault(r, {})[c["backend"]] = c
    return first, table, order


def passed(c):
    return c is not None and c.get("status") == "PASSED" and c.get("stats")


def vendor_ratios(rounds_of_case, vendor):
    """vendor_time / omp_time for each round both PASSED in."""
    out = []
    for by_backend in rounds_of_case.values():
        h, v = by_backend.get("omp"), by_backend.get(vendor)
        if passed(h) and passed(v):
            out.append(v["stats"]["median"] / h["stats"]["median"])
    return out


def status_of(rounds_of_case, backend):
    """A status other than PASSED this backend had in some round, or None."""
    for by_backend in rounds_of_case.values():
        c = by_backend.get(backend)
        if c is None:
            return "absent"
        if c.get("status") != "PASSED":
            return c.get("status", "?")
    return None


def omp_figures(rounds_of_case):
    """(median GFLOP/s, median fraction of the FMA ceiling, median time s)"""
    cs = [b["omp"] for b in rounds_of_case.values() if passed(b.get("omp"))]
    if not cs:
        return None, None, None
    fr = [x for x in map(fraction_of_peak, cs) if x is not None]
    return (statistics.median(c["gflops"] for c in cs),
            statistics.median(fr) if fr else None,
            statistics.median(c["stats"]["median"] for c in cs))


def goal_text(goal, gm, worst):
    """'met', or what is missed and by how much."""
    if goal is None:
        return "—"
    want_gm, want_min = goal
    missed = []
    if gm is None or gm < want_gm:
        missed.append(f"geomean {f2(gm)} < {want_gm} (by {f2(want_gm - gm) if gm else '—'})")
    if want_min is not None and (worst is None or worst < want_min):
        missed.append(f"worst {f2(worst)} < {want_min}")
    goal_s = f"≥ {want_gm}" + (f", none < {want_min}" if want_min is not None else "")
    return f"{goal_s}: " + ("met" if not missed else "missed: " + "; ".join(missed))


def vendor_section(name, spec, table, order, summary, costly):
    vendors = spec["backends"][1:]
    head = ["model", "layer", "kernel", "mb", "dir", "omp GFLOP/s",
            "omp of FMA ceiling"] + [f"{v}/omp (min / med / max)" for v in vendors]
    out = [f"### {name}", "", f"`kbench run {spec['args']}`", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    per_vendor = {v: [] for v in vendors}   # (key, median ratio)
    for k in order:
        g, frac, t = omp_figures(table[k])
        row = [k[0] or "—", k[1] or "—", k[2], "—" if k[3] is None else str(k[3]), k[4],
               "—" if g is None else f"{g:.1f}", pct(frac)]
        if g is not None and k[0] and k[2].startswith("conv"):
            count = next(iter(table[k].values()))["omp"].get("count", 1) or 1
            costly.setdefault((name, k[0]), []).append((t * count, k[1], frac))
        for v in vendors:
            rs = vendor_ratios(table[k], v)
            bad = status_of(table[k], v) or status_of(table[k], "omp")
            cell = mmm(rs)
            if rs:
                per_vendor[v].append((k, statistics.median(rs)))
                if statistics.median(rs) < 0.5:
                    cell = f"**{cell}**"
            if bad:
                cell += f" ({bad} in a round)"
            row.append(cell)
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    for v in vendors:
        pairs = per_vendor[v]
        groups = [("all", pairs)]
        for idx in (2, 0):   # per kernel, then per catalog
            vals = list(dict.fromkeys(k[idx] for k, _ in pairs))
            for val in vals if len(vals) > 1 else []:   # one: the same as all
                groups.append((val or "(no catalog)",
                               [(k, r) for k, r in pairs if k[idx] == val]))
        for label, ps in groups:
            rs = [r for _, r in ps]
            worst = min(ps, key=lambda p: p[1]) if ps else None
            gm = geomean(rs)
            summary.append([name, v, label, str(len(rs)), f2(gm),
                            f"{f2(worst[1])} ({worst[0][1]})" if worst else "—",
                            str(sum(r < 0.5 for r in rs)),
                            goal_text(spec["goals"].get(v), gm, worst[1] if worst else None)
                            if label == "all" else ""])
    return out


def set_times(table, backend):
    """round -> the set's time on backend: sum of count x median, or None
    when a case did not pass in that round."""
    out = {}
    for rounds_of_case in table.values():
        for r, by_backend in rounds_of_case.items():
            c = by_backend.get(backend)
            if not passed(c):
                out[r] = None
            elif out.get(r, 0) is not None:
                out[r] = out.get(r, 0) + c["stats"]["median"] * (c.get("count", 1) or 1)
    return out


def speedup_section(name, spec, table, base_table, summary):
    out = [f"### {name} (speed-up over {spec['base']})", "",
           f"`kbench run {spec['args']}`; the figure is {spec['base']}'s time "
           f"over this set's, each backend against itself, per round; a "
           f"catalog's time is the sum over its layers of count × median.", "",
           "| backend | whole set (min / med / max) | rounds |", "|---|---|---|"]
    for b in spec["backends"]:
        mine, base = set_times(table, b), set_times(base_table, b)
        rs = [base[r] / mine[r] for r in mine
              if mine.get(r) and base.get(r)]
        out.append(f"| {b} | {mmm(rs)} | {len(rs)} |")
        gm = statistics.median(rs) if rs else None
        goal = spec["goals"].get(b)
        summary.append([name, b, "whole set", str(len(table)), f2(gm), "—", "—",
                        goal_text(goal, gm, None) if goal else ""])
    out.append("")
    return out


def write_csv(path, sets_loaded):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["set", "round", "model", "layer", "kernel", "mb", "dir",
                    "dtype", "backend", "status", "count", "median_s",
                    "gflops", "peak_gflops"])
        for name, (_, table, order) in sets_loaded.items():
            for k in order:
                for r, by_backend in sorted(table[k].items()):
                    for b, c in by_backend.items():
                        st = c.get("stats") or {}
                        roof = c.get("roofline") or {}
                        w.writerow([name, r, *k, b, c.get("status"),
                                    c.get("count", 1), st.get("median", ""),
                                    c.get("gflops", ""), roof.get("peak_gflops", "")])


def short_commit(commit):
    """12 hex digits, keeping "-dirty": a build with local changes says so."""
    head, dirty, _ = commit.partition("-dirty")
    return head[:12] + dirty


def header(run, args):
    r = run or {}
    bk = r.get("backends") or {}
    ob, dn = bk.get("openblas") or {}, bk.get("onednn") or {}
    cpu = r.get("cpu_id") or {}
    lines = [
        "# omp against the vendor libraries (scripts/omp-vs-vendor.sh)", "",
        f"- CPU: `{cpu_line(cpu)}` ({r.get('cpu_model', '?')}, "
        f"{r.get('cores_online', '?')} cores, {r.get('threads', '?')} threads, "
        f"affinity {r.get('affinity', '?')}), host {r.get('host', '?')}",
        f"- kbench commit {short_commit(r.get('git_commit', '?'))}, {r.get('compiler', '?')} "
        f"{r.get('build_type', '')} `{r.get('build_flags', '')}`; first run "
        f"{r.get('date', '?')}",
    ]
    if ob:
        lines.append(f"- OpenBLAS: core **{ob.get('corename', '?')}** "
                     f"(OPENBLAS_CORETYPE={ob.get('OPENBLAS_CORETYPE', 'unset')}), "
                     f"`{ob.get('config', '?')}`")
    if dn:
        lines.append(f"- oneDNN {dn.get('version', '?')}, ISA {dn.get('isa', '?')}")
    om = bk.get("omp") or {}
    if om:
        lines.append(f"- omp: {om.get('micro_kernel', '?')}; {om.get('blocking', '')}; "
                     f"conv {om.get('conv', '?')}")
    lines += [
        f"- command: `{args.command}`; {args.rounds} round(s), "
        f"{args.seconds} s of measuring",
        "- ratio: vendor_time / omp_time of one round (the cases' median "
        "repetitions; above 1: omp faster), min / median / max over the rounds; "
        "a layer's figure in the summary is its median; **bold**: below 0.5. "
        "Fraction of the FMA ceiling: omp's GFLOP/s over the ceiling of its "
        "precision in the `--peaks` file (`kbench peaks`), median over the rounds.",
        "",
    ]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conf", default="scripts/omp-vs-vendor.conf")
    ap.add_argument("--sets", default="")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--command", default="")
    ap.add_argument("--seconds", default="?")
    ap.add_argument("--csv")
    ap.add_argument("--cpu-tag", metavar="JSONL")
    ap.add_argument("runs", nargs="?")
    a = ap.parse_args()
    if a.cpu_tag:
        print(cpu_tag(read_jsonl(a.cpu_tag)[0]))
        return
    if not a.runs or not a.sets:
        die("need --sets and a runs folder (see --help)")
    conf = read_conf(a.conf)
    names = a.sets.split(",")
    for n in names:
        if n not in conf:
            die(f"set '{n}' is not in {a.conf}")
    loaded = {}
    for n in names:
        loaded[n] = load_set(a.runs, n, a.rounds)
        base = conf[n]["base"]
        if base and base not in loaded:
            if base not in names:
                die(f"set '{n}' is a speed-up over '{base}', which was not run")
    out = header(loaded[names[0]][0], a)
    summary, costly, body = [], {}, []
    for n in names:
        spec = conf[n]
        _, table, order = loaded[n]
        if spec["base"]:
            body += speedup_section(n, spec, table, loaded[spec["base"]][1], summary)
        else:
            body += vendor_section(n, spec, table, order, summary, costly)
    out += ["## Summary", "",
            "| set | against | layers of | layers | geomean | worst (layer) | below 0.5 | goal |",
            "|---|---|---|---|---|---|---|---|"]
    out += ["| " + " | ".join(row) + " |" for row in summary]
    out += ["", "## The three costliest layers of each catalog (omp's time × count)", "",
            "Goal: each at 60 % of the FMA ceiling or more.", "",
            "| set | catalog | layer | share of the catalog's omp time | of FMA ceiling |",
            "|---|---|---|---|---|"]
    for (setname, model), layers in costly.items():
        total = sum(t for t, _, _ in layers)
        for t, layer, frac in sorted(layers, reverse=True)[:3]:
            out.append(f"| {setname} | {model} | {layer} | {100 * t / total:.0f} % | {pct(frac)} |")
    out += ["", "## Per layer", ""] + body
    print("\n".join(out))
    if a.csv:
        write_csv(a.csv, loaded)


if __name__ == "__main__":
    main()
