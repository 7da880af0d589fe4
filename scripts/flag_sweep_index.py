#!/usr/bin/env python3
"""flag_sweep_index.py - the index (README.md) of a scripts/flag-sweep.sh
output directory: the machine, the date, the command, every build's
compiler and flags, and each build's verdicts against the first, round by
round, read from the run records and the `kbench compare --json` reports.

usage: flag_sweep_index.py OUT ROUNDS COMMAND
  OUT      the sweep's directory: runs/builds.tsv (NAME, COMPILER, CFLAGS,
           `COMPILER --version`), runs/load.tsv, runs/NAME.rR.jsonl and
           NAME-vs-FIRST.rR.json
  ROUNDS   how many rounds the sweep ran
  COMMAND  the sweep's command line, printed as the way to repeat it

Before writing it checks that every run record names its build: its
`build_flags` is the config's CFLAGS plus only the project's warnings and
OpenMP's flag, and its `compiler` version is the one `--version` printed.
Exits 1 naming the file when one does not (nothing is written), 2 on a
missing or unreadable input.
"""
import json
import os
import sys

# What CMakeLists.txt adds to every build besides CMAKE_C_FLAGS_RELEASE
# (KB_NATIVE off, KB_WERROR off), and OpenMP's flag (-fopenmp for GCC,
# -fopenmp=libomp for Clang).
PROJECT_FLAGS = {"-Wall", "-Wextra"}


def fail(code, msg):
    print(f"flag_sweep_index: {msg}", file=sys.stderr)
    sys.exit(code)


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        fail(2, f"{path}: {e}")


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(2, f"{path}: {e}")


def read_tsv(path, fields):
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError as e:
        fail(2, f"{path}: {e}")
    for n, row in enumerate(rows, 1):
        if len(row) != fields:
            fail(2, f"{path}:{n}: {len(row)} fields, expected {fields}")
    return rows


def check_provenance(path, run, cflags, version_line):
    """The run record's build is the config's: flags and compiler version."""
    recorded = run.get("build_flags", "").split()
    rest = [t for t in recorded if t not in PROJECT_FLAGS and not t.startswith("-fopenmp")]
    if rest != cflags.split():
        fail(1, f"{path}: build_flags '{run.get('build_flags')}' is not the config's "
                f"'{cflags}' plus {' '.join(sorted(PROJECT_FLAGS))} and OpenMP's flag")
    version = run.get("compiler", "").split()[-1:]
    if not version or version[0] not in version_line:
        fail(1, f"{path}: compiler '{run.get('compiler')}' is not the one "
                f"`--version` printed ('{version_line}')")


def fmt_ratio(case):
    if case["verdict"] == "n/a":
        return f"n/a ({case.get('why', '')})"
    mark = {"faster": " **faster**", "slower": " **slower**"}.get(case["verdict"], " ~")
    return f"{case['ratio']:.3f}{mark}"


def machine_line(run):
    cid = run.get("cpu_id", {})
    caches = cid.get("caches", {})

    def kib(level):
        c = caches.get(level, {})
        return f"{c.get('bytes', 0) // 1024} KiB × {c.get('instances', 0)}"

    arch = cid.get("microarch") or f"microarchitecture unknown: {cid.get('microarch_note', '')}"
    return (f"`{run['host']}`: {run['cpu_model']} ({cid.get('vendor', '?')} family "
            f"{cid.get('family')} model {cid.get('model')} stepping {cid.get('stepping')}, "
            f"microcode {cid.get('microcode')}, {arch}), {run['cores_online']} logical CPUs, "
            f"L1d {kib('l1d')}, L2 {kib('l2')}, L3 {kib('l3')} ({caches.get('source', '?')}); "
            f"kernel {cid.get('kernel')}, governor {cid.get('governor')}")


def main(argv):
    if len(argv) != 4 or not argv[2].isdigit():
        fail(2, "usage: flag_sweep_index.py OUT ROUNDS COMMAND")
    out, rounds, command = argv[1], int(argv[2]), argv[3]
    builds = read_tsv(os.path.join(out, "runs", "builds.tsv"), 4)
    load = {(n, int(r)): avg for n, r, avg in read_tsv(os.path.join(out, "runs", "load.tsv"), 3)}
    first = builds[0][0]

    runs = {}   # (name, round) -> (run record, summary record or None)
    for name, _cc, cflags, version_line in builds:
        for r in range(1, rounds + 1):
            path = os.path.join(out, "runs", f"{name}.r{r}.jsonl")
            recs = read_lines(path)
            if not recs or recs[0].get("type") != "run":
                fail(2, f"{path}: no run record")
            check_provenance(path, recs[0], cflags, version_line)
            summary = recs[-1] if recs[-1].get("type") == "summary" else None
            runs[name, r] = (recs[0], summary)
    base = runs[first, 1][0]

    w = []
    w.append("# Compiler-flag sweep\n")
    w.append(f"Measured {base['date']} on {machine_line(base)}. "
             f"kbench {base['kbench_version']}, commit `{base['git_commit']}`, "
             f"{base['threads']} threads (affinity {base['affinity']}, "
             f"OMP_PROC_BIND {base['omp_proc_bind']}).\n")
    w.append("Made from the repository root with\n")
    w.append(f"```sh\n{command}\n```\n")
    w.append("(`scripts/flag-sweep.sh`; docs/compare.md, \"Tuning compiler flags\"). "
             "Each round ran every build once, the order reversed every other "
             f"round; {rounds} round{'s' if rounds != 1 else ''}, each compared on its own.\n")

    w.append("## Builds\n")
    w.append(f"The first, `{first}`, is the baseline. *CFLAGS* is the config's line "
             "(`CMAKE_C_FLAGS_RELEASE`, `KB_NATIVE=OFF`, `CMAKE_C_FLAGS` empty); "
             "*build_flags* is what every one of the build's run records says it was "
             "compiled with, checked to be those flags plus the project's warnings and "
             "OpenMP's flag only.\n")
    w.append("| build | compiler | `--version` | CFLAGS | build_flags (run records) | passed / cases per round |")
    w.append("|---|---|---|---|---|---|")
    for name, cc, cflags, version_line in builds:
        run = runs[name, 1][0]
        counts = []
        for r in range(1, rounds + 1):
            s = runs[name, r][1]
            if s is None:
                counts.append("interrupted")
            else:
                total = s["passed"] + s["failed"] + s["skipped"] + s["errors"] + s["mistrusted"]
                counts.append(f"{s['passed']}/{total}")
        w.append(f"| `{name}` | {run['compiler']} (`{cc}`) | {version_line} | `{cflags}` | "
                 f"`{run['build_flags']}` | {', '.join(counts)} |")
    w.append("")
    w.append("Every build ran the same selection:\n")
    sel = base["command_line"].split(" --json ")[0].split(" ", 1)[-1]
    w.append(f"```sh\nkbench {sel}\n```\n")

    w.append(f"## Each build against `{first}`\n")
    w.append(f"Per case, the ratio of `{first}`'s median time to the build's: above 1 "
             "the build is faster. **faster**/**slower**: Mann–Whitney p < 0.05 and "
             "the 95 % Hodges–Lehmann interval excludes 1; `~` otherwise "
             "(docs/compare.md, \"Comparing two runs\"). A verdict that holds in every round "
             "is one to trust on this machine.\n")
    for name, *_ in builds[1:]:
        reports = [read_json(os.path.join(out, f"{name}-vs-{first}.r{r}.json"))
                   for r in range(1, rounds + 1)]
        w.append(f"### `{name}` against `{first}`\n")
        head = " | ".join(f"round {r}" for r in range(1, rounds + 1))
        w.append(f"| case | kernel | {head} |")
        w.append("|---|---|" + "---|" * rounds)
        for case in reports[0]["cases"]:
            cells = []
            for rep in reports:
                match = [c for c in rep["cases"] if c["desc"] == case["desc"]
                         and c["kernel"] == case["kernel"]]
                cells.append(fmt_ratio(match[0]) if match else "missing")
            w.append(f"| {case['label']} | {case['kernel']} | {' | '.join(cells)} |")
        geo = [rep["geomean"]["overall"]["geomean_ratio"] for rep in reports]
        w.append("| **geometric mean** | | " +
                 " | ".join("n/a" if g is None else f"**{g:.3f}**" for g in geo) + " |")
        w.append("")
        links = ", ".join(f"round {r}: [report]({name}-vs-{first}.r{r}.md) "
                          f"([chart]({name}-vs-{first}.r{r}.svg), "
                          f"[JSON]({name}-vs-{first}.r{r}.json))"
                          for r in range(1, rounds + 1))
        w.append(f"Reports: {links}.\n")
        unexpected = sorted({f"`{d['key']}` ({d['kind']})" for rep in reports
                             for d in rep["provenance_differences"] if d["kind"] != "build"})
        if unexpected:
            w.append("Provenance that differs other than the build (mixed into the "
                     f"ratios): {', '.join(unexpected)}.\n")
        else:
            w.append("The two sides' run records differ only in build fields "
                     "(compiler, flags, the backends' facts).\n")

    w.append("## Load\n")
    w.append("The 1, 5 and 15-minute load averages before each run "
             "(`runs/load.tsv`): this machine was shared with other jobs.\n")
    w.append("| build | " + " | ".join(f"round {r}" for r in range(1, rounds + 1)) + " |")
    w.append("|---|" + "---|" * rounds)
    for name, *_ in builds:
        w.append(f"| `{name}` | " +
                 " | ".join(load.get((name, r), "?") for r in range(1, rounds + 1)) + " |")
    w.append("")
    w.append("The raw results, every sample with its run record, are in `runs/`.\n")

    path = os.path.join(out, "README.md")
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(w))
        os.replace(tmp, path)
    except OSError as e:
        fail(2, f"{path}: {e}")


if __name__ == "__main__":
    main(sys.argv)
