#!/usr/bin/env python3
"""io_vs_dlio_table.py - the helpers and the table of scripts/io-vs-dlio.sh.

  cache evict|warm|residency DIR   evict a dataset from the page cache
        (sync, POSIX_FADV_DONTNEED), or read it whole once (the discarded
        warm-up read), then print its residency as JSON (mincore)
  meta --data DIR --command CMD [--workload NAME CONFIG OVERRIDES]...
        [KEY=VALUE...]           the run's header record: machine, the
        filesystem of DIR, versions, the workloads
  gen KEY=VALUE...               a dataset generation's record (workload,
        written_by, command, seconds)
  record --tool dlio|kbench --src PATH KEY=VALUE...   one measured run's
        record: PATH is DLIO's output folder (summary.json, 0_output.json)
        or kbench's --json file; KEY=VALUE are the run's facts (workload,
        written_by, cache, round, files, samples_per_file, batch,
        dataset_bytes, resident_before, wall_s, command)
  table RAW.jsonl                  the Markdown table on stdout

Figures under DLIO's names are DLIO 2.0.0's definitions, taken as each
tool wrote them (kbench's io_epoch record follows DLIO's for those keys);
kbench's own definitions (kb_*) are computed for DLIO from the per-step
times in its 0_output.json.  Only the standard library.
"""
import argparse
import ctypes
import json
import os
import platform
import statistics
import subprocess
import sys

GIB = 1 << 30


def fail(msg, code=3):
    """Exit code: 1 a tool's output is not what was expected, 2 usage,
    3 the system refused (I/O)."""
    print(f"io_vs_dlio_table: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- page cache ----

def dataset_files(d):
    out = []
    for root, _, names in os.walk(d):
        out += [os.path.join(root, n) for n in sorted(names)]
    if not out:
        fail(f"{d}: no files")
    return out


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
PROT_READ, MAP_SHARED, MAP_FAILED = 1, 1, ctypes.c_void_p(-1).value


def resident_bytes(path, size):
    """Bytes of path in the page cache (mincore over a read-only map)."""
    if size == 0:
        return 0
    page = os.sysconf("SC_PAGE_SIZE")
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, PROT_READ, MAP_SHARED, fd, 0)
        if addr in (None, MAP_FAILED):
            fail(f"{path}: mmap failed: {os.strerror(ctypes.get_errno())}")
        n = (size + page - 1) // page
        vec = ctypes.create_string_buffer(n)
        rc = _libc.mincore(addr, size, vec)
        err = ctypes.get_errno()
        _libc.munmap(addr, size)
        if rc:
            fail(f"{path}: mincore failed: {os.strerror(err)}")
        return sum(b & 1 for b in vec.raw) * page
    finally:
        os.close(fd)


def cache(action, d):
    files = dataset_files(d)
    if action == "evict":
        os.sync()  # dirty pages are not dropped
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            if action == "evict":
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            elif action == "warm":
                buf = bytearray(16 << 20)
                while os.readv(fd, [buf]) > 0:
                    pass
        finally:
            os.close(fd)
    sizes = [os.path.getsize(f) for f in files]
    # a resident last page counts the file's bytes in it only
    res = sum(min(resident_bytes(f, s), s) for f, s in zip(files, sizes))
    total = sum(sizes)
    print(json.dumps({"files": len(files), "bytes": total, "resident_bytes": res,
                      "resident_fraction": res / total if total else 0.0}))


# ---- records ----

def facts(pairs):
    """KEY=VALUE words: a number stays a number, the rest are strings."""
    out = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k:
            fail(f"'{p}': expected KEY=VALUE", 2)
        for conv in (int, float, str):
            try:
                out[k] = conv(v)
                break
            except ValueError:
                pass
    return out


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        return f"unknown ({e})"


def meta(a):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    df = sh(["df", "-T", a.data]).splitlines()[-1].split()
    rec = {"record": "io_vs_dlio_meta", "host": platform.node(), "cpu_model": cpu,
           "cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)),
           "memory_GiB": round(mem_kib / (1 << 20), 1), "kernel": platform.release(),
           "data_dir": os.path.abspath(a.data), "fs_type": df[1], "fs_device": df[0],
           "fs_stat": sh(["stat", "-f", "-c", "%T, block %S B, %b blocks, %a free", a.data]),
           "command": a.command,
           "workloads": {w: {"config": c, "overrides": o.split()} for w, c, o in a.workload or []}}
    rec.update(facts(a.facts))
    print(json.dumps(rec))


def note(a):
    rec = {"record": "io_vs_dlio_gen"}
    rec.update(facts(a.facts))
    print(json.dumps(rec))


def load_jsonl(path):
    recs = []
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError as e:
            fail(f"{path}:{n}: not JSON ({e})", 1)
    return recs


def dlio_record(src):
    """DLIO's summary.json figures (its only epoch) and kbench's
    definitions from the per-step times of 0_output.json."""
    path = os.path.join(src, "summary.json")
    try:
        with open(path) as f:
            s = json.load(f)
        m = s["metric"]
    except (OSError, ValueError, KeyError) as e:
        fail(f"{path}: no DLIO summary with 'metric' ({e})", 1)
    for k in ("train_au_percentage", "train_throughput_samples_per_second"):
        if not isinstance(m.get(k), list) or len(m[k]) != 1:
            fail(f"{path}: metric.{k}: expected one epoch's value, got {m.get(k)!r}", 1)
    out = {"train_au_percentage": m["train_au_percentage"][0],
           "train_throughput_samples_per_second": m["train_throughput_samples_per_second"][0],
           "train_io_mean_MB_per_second": m["train_io_mean_MB_per_second"]}
    raw = {"summary.metric": m}
    path = os.path.join(src, "0_output.json")
    try:
        with open(path) as f:
            o = json.load(f)
        ep = o["1"]
        proc, comp = ep["proc"]["block1"], ep["compute"]["block1"]
    except (OSError, ValueError, KeyError) as e:
        fail(f"{path}: no per-step times of epoch 1 block 1 ({e})", 1)
    if len(ep["proc"]) != 1:
        fail(f"{path}: {len(ep['proc'])} blocks: a checkpoint ran inside the epoch", 1)
    raw["0_output.epoch1"] = {"proc": proc, "compute": comp, "load": ep["load"].get("block1")}
    out["kb_first_step_s"] = proc[0] if proc else None
    steady = sum(proc[1:])
    out["kb_steady_s"] = steady
    out["kb_au_percentage"] = 100 * sum(comp[1:]) / steady if len(proc) > 1 and steady > 0 else None
    out["steps"] = len(proc)
    return out, raw


def kbench_record(src):
    recs = [r for r in load_jsonl(src) if r.get("type") == "io_epoch"]
    if len(recs) != 1:
        fail(f"{src}: expected one io_epoch record, found {len(recs)}", 1)
    r = dict(recs[0])
    r.pop("delivered_bitmap", None)  # a proof, not a figure; kbench checked it
    need = ("train_au_percentage", "train_throughput_samples_per_second",
            "train_io_mean_MB_per_second", "kb_au_percentage", "kb_first_step_s",
            "kb_steady_s", "bytes_read", "wall_s", "steps")
    missing = [k for k in need if k not in r]
    if missing:
        fail(f"{src}: io_epoch record without {', '.join(missing)} (an older kbench?)", 1)
    out = {k: r[k] for k in need[:6]}
    out["steps"] = r["steps"]
    out["kb_steady_samples_per_second"] = r.get("kb_steady_samples_per_second")
    out["read_GiB_per_second"] = r["bytes_read"] / GIB / r["wall_s"] if r["wall_s"] > 0 else None
    return out, {"io_epoch": r}


def record(a):
    tool, src = a.tool, a.src
    f = facts(a.facts)
    need = ("workload", "written_by", "cache", "round", "files", "samples_per_file",
            "batch", "dataset_bytes", "resident_before", "wall_s", "command")
    missing = [k for k in need if k not in f]
    if missing:
        fail(f"record: missing {', '.join(f'{k}=' for k in missing)}", 2)
    fig, raw = dlio_record(src) if tool == "dlio" else kbench_record(src)
    if tool == "dlio":
        # DLIO's steps are full batches (its loaders drop the last):
        # (steps - 1) x batch after the first step
        batch = f["batch"]
        fig["kb_steady_samples_per_second"] = (
            (fig["steps"] - 1) * batch / fig["kb_steady_s"]
            if fig["steps"] > 1 and fig["kb_steady_s"] > 0 else None)
    per_sample = f["dataset_bytes"] / (f["files"] * f["samples_per_file"])
    fig["GiB_per_second_on_disk"] = fig["train_throughput_samples_per_second"] * per_sample / GIB
    rec = {"record": "io_vs_dlio_run", "tool": tool}
    rec.update(f)
    rec["figures"] = fig
    rec["raw"] = raw
    print(json.dumps(rec))


# ---- table ----

def num(x):
    """Three significant digits or more, never an exponent."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.3g}"


def mmm(v, fmt=num):
    """min / median / max, the value alone for one, a dash for none; fmt
    a format string or a function."""
    f = fmt if callable(fmt) else fmt.format
    v = [x for x in v if x is not None]
    if not v:
        return "–"
    if len(v) == 1:
        return f(v[0])
    return " / ".join(f(x) for x in (min(v), statistics.median(v), max(v)))


def span(v):
    """min–max of fractions, one value when they agree to 2 places."""
    lo, hi = f"{min(v):.2f}", f"{max(v):.2f}"
    return lo if lo == hi else f"{lo}–{hi}"


def table(path, name):
    recs = load_jsonl(path)
    metas = [r for r in recs if r.get("record") == "io_vs_dlio_meta"]
    runs = [r for r in recs if r.get("record") == "io_vs_dlio_run"]
    if len(metas) != 1 or not runs:
        fail(f"{path}: expected one io_vs_dlio_meta record and io_vs_dlio_run records, "
             f"found {len(metas)} and {len(runs)}", 1)
    m = metas[0]
    groups = {}
    for r in runs:
        groups.setdefault((r["workload"], r["written_by"], r["cache"]), {}) \
              .setdefault(r["tool"], {})[r["round"]] = r
    out = ["# kbench io vs DLIO 2.0.0 on the same files", ""]
    out += [f"- machine: {m['host']}, {m['cpu_model']}, {m['cpus']} CPUs "
            f"({m['affinity']} usable), {m['memory_GiB']} GiB, Linux {m['kernel']}",
            f"- dataset filesystem: {m['fs_type']} on {m['fs_device']} "
            f"(`stat -f`: {m['fs_stat']}), {m['data_dir']}",
            f"- DLIO {m.get('dlio_version')} (Python {m.get('python')}; {m.get('frameworks')}), "
            f"`{m.get('mpirun')}`",
            f"- kbench: `{m.get('kbench_version')}` (its `--version`)",
            f"- date: {m.get('start')} to {m.get('end')}",
            f"- command: `{m['command']}`",
            f"- rounds: {m.get('rounds')}, DLIO then kbench in each, on the same files; "
            f"train.computation_time {m.get('compute')} s for both "
            "(I/O is what is measured; at 0 DLIO's AU is 0 by its definition)",
            f"- cold: {m.get('cold')}; warm: {m.get('warm')}",
            f"- verification: {m.get('verification')}", ""]
    out += ["## Workloads and commands", ""]
    gens = [r for r in recs if r.get("record") == "io_vs_dlio_gen"]
    for w, desc in sorted(m.get("workloads", {}).items()):
        out.append(f"- **{w}**: DLIO's `{desc['config']}` with `{' '.join(desc['overrides'])}`")
        for g in gens:
            if g["workload"] == w:
                out.append(f"  - {g['written_by']} wrote its dataset in {g['seconds']:.0f} s: "
                           f"`{g['command']}`")
                if g.get("made_empty_valid_folder") == "true":
                    out.append(f"    (it made no `valid/` folder, which DLIO 2.0.0 lists even "
                               f"with no eval files: the script made it, empty)")
        for tool in ("dlio", "kbench"):
            firsts = sorted((r["written_by"], r["cache"], r["round"], r["command"]) for r in runs
                            if r["workload"] == w and r["tool"] == tool)
            if firsts:
                out.append(f"  - {tool} reads ({firsts[0][0]}'s files, {firsts[0][1]}, "
                           f"round {firsts[0][2]}; the others differ in the folder): "
                           f"`{firsts[0][3]}`")
    out += ["", "## Throughput", "",
            "Samples/s is `train_throughput_samples_per_second` as each tool reports it "
            "(DLIO's definition: steps × batch over the block's window, first step included). "
            "GiB/s on disk is that × the dataset's bytes per sample (files' sizes / samples), "
            "the same for both tools; kbench's GiB/s read is the bytes its reads returned "
            "over its epoch. Each cell min / median / max over the rounds; the ratio is "
            "kbench / DLIO per round (DLIO and kbench of the same round), min / median / max.",
            "",
            "| workload | written by | cache | DLIO samples/s | kbench samples/s | "
            "kbench / DLIO | DLIO GiB/s on disk | kbench GiB/s on disk | kbench GiB/s read | "
            "resident before (DLIO, kbench) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    au = ["", "## AU and the first step", "",
          "AU under both definitions, min / median / max over the rounds. "
          "DLIO's (`train_au_percentage`): compute after the first step over the block's "
          "window less the first step, as each tool reports it. kbench's "
          "(`kb_au_percentage`, `kb_steady_samples_per_second`): the same compute over the "
          "window from the end of the first step to the end of the last; for DLIO computed "
          "from its per-step times (0_output.json: Σ proc and compute after step 1), which "
          "DLIO records as requested (sleep) compute. First step: load + compute of step 1 "
          "(DLIO's first proc; kbench's `kb_first_step_s`). Run wall: the tool's process "
          "from start to exit (DLIO's includes importing torch and TensorFlow and starting "
          "its loader).", "",
          "| workload | written by | cache | DLIO AU % (DLIO def) | kbench AU % (DLIO def) | "
          "DLIO AU % (kbench def) | kbench AU % (kbench def) | DLIO steady samples/s | "
          "kbench steady samples/s | DLIO first step s | kbench first step s | "
          "run wall s (DLIO, kbench) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = {"cold": 0, "warm": 1}
    ratio_rows, uneven = [], []
    for key in sorted(groups, key=lambda k: (k[0], k[1], order.get(k[2], 2))):
        g = groups[key]
        d, k = g.get("dlio", {}), g.get("kbench", {})
        fig = lambda runs, name: [r["figures"].get(name) for r in runs.values()]
        ratios = [k[r]["figures"]["train_throughput_samples_per_second"] /
                  d[r]["figures"]["train_throughput_samples_per_second"]
                  for r in sorted(d) if r in k and d[r]["figures"]["train_throughput_samples_per_second"]]
        if ratios:
            ratio_rows.append(statistics.median(ratios))
        steps = {t: sorted({r["figures"]["steps"] for r in runs.values()})
                 for t, runs in (("DLIO", d), ("kbench", k))}
        if steps["DLIO"] != steps["kbench"] or len(steps["DLIO"]) > 1:
            uneven.append(f"{key[0]} ({key[1]}'s files, {key[2]}): steps DLIO {steps['DLIO']}, "
                          f"kbench {steps['kbench']}")
        res = ", ".join(span([r["resident_before"] for r in t.values()]) if t else "–"
                        for t in (d, k))
        sps = "train_throughput_samples_per_second"
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {mmm(fig(d, sps))} | "
                   f"{mmm(fig(k, sps))} | {mmm(ratios, '{:.2f}')} | "
                   f"{mmm(fig(d, 'GiB_per_second_on_disk'))} | "
                   f"{mmm(fig(k, 'GiB_per_second_on_disk'))} | "
                   f"{mmm(fig(k, 'read_GiB_per_second'))} | {res} |")
        au.append(f"| {key[0]} | {key[1]} | {key[2]} | "
                  f"{mmm(fig(d, 'train_au_percentage'))} | "
                  f"{mmm(fig(k, 'train_au_percentage'))} | "
                  f"{mmm(fig(d, 'kb_au_percentage'))} | "
                  f"{mmm(fig(k, 'kb_au_percentage'))} | "
                  f"{mmm(fig(d, 'kb_steady_samples_per_second'))} | "
                  f"{mmm(fig(k, 'kb_steady_samples_per_second'))} | "
                  f"{mmm(fig(d, 'kb_first_step_s'), '{:.3f}')} | "
                  f"{mmm(fig(k, 'kb_first_step_s'), '{:.3f}')} | "
                  f"{mmm([r['wall_s'] for r in d.values()])}, "
                  f"{mmm([r['wall_s'] for r in k.values()])} |")
    met = [r for r in ratio_rows if r >= 1.3]
    out += ["", f"Goal (issue 13): kbench ≥ 1.3 × DLIO's samples/s on the same files. "
            f"Met in {len(met)} of {len(ratio_rows)} rows by the median ratio."]
    out += ["", "Every run took the same steps: " + ("yes." if not uneven else
            "**no**, the rates are of different work: " + "; ".join(uneven) + ".")]
    out += au
    out += ["", "Every run's figures and the tools' own records are in "
            f"`{name}` beside this file (one JSON line a run, after the "
            "header record).", ""]
    print("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    c = sub.add_parser("cache", help="evict, warm or measure a dataset in the page cache")
    c.add_argument("action", choices=["evict", "warm", "residency"])
    c.add_argument("dir")
    m = sub.add_parser("meta", help="the header record")
    m.add_argument("--data", required=True)
    m.add_argument("--command", required=True)
    m.add_argument("--workload", nargs=3, action="append", metavar=("NAME", "CONFIG", "OVERRIDES"))
    m.add_argument("facts", nargs="*", metavar="KEY=VALUE")
    n = sub.add_parser("gen", help="a dataset generation's record")
    n.add_argument("facts", nargs="*", metavar="KEY=VALUE")
    r = sub.add_parser("record", help="one measured run's record")
    r.add_argument("--tool", required=True, choices=["dlio", "kbench"])
    r.add_argument("--src", required=True)
    r.add_argument("facts", nargs="*", metavar="KEY=VALUE")
    t = sub.add_parser("table", help="the Markdown table")
    t.add_argument("--name", help="the raw file's name in the text (default: its own)")
    t.add_argument("raw")
    a = ap.parse_args()
    if a.verb == "cache":
        cache(a.action, a.dir)
    elif a.verb == "meta":
        meta(a)
    elif a.verb == "gen":
        note(a)
    elif a.verb == "record":
        record(a)
    else:
        table(a.raw, a.name or os.path.basename(a.raw))


if __name__ == "__main__":
    main()
