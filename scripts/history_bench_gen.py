#!/usr/bin/env python3
"""history_bench_gen.py - synthetic results files for scripts/history-bench.sh:
runs FIRST..LAST-1 of a long history, each with CASES case records cloned
from the first case of a real `kbench run` file (its descriptor's k made
unique, samples scaled by 1 % noise and, from run STEP on, by 1.05 for every
tenth case), an hour apart from 2026-01-01.

usage: history_bench_gen.py TEMPLATE.jsonl OUTDIR FIRST LAST CASES STEP
"""
import json
import random
import sys


def main():
    src, out, first, last, ncases, step = sys.argv[1:7]
    first, last, ncases, step = int(first), int(last), int(ncases), int(step)
    recs = [json.loads(line) for line in open(src)]
    run = next(r for r in recs if r["type"] == "run")
    case = next(r for r in recs if r["type"] == "case")
    summary = next(r for r in recs if r["type"] == "summary")
    for i in range(first, last):
        rng = random.Random(i)
        run["date"] = f"2026-{1 + i // 720:02d}-{1 + i // 24 % 30:02d}T{i % 24:02d}:00:00Z"
        with open(f"{out}/run_{i:05d}.jsonl", "w") as o:
            o.write(json.dumps(run, separators=(",", ":")) + "\n")
            for k in range(ncases):
                c = dict(case)
                c["seq"] = k + 1
                c["desc"] = f"m64n64k{64 + k}"
                f = (1.05 if i >= step and k % 10 == 0 else 1.0) * (1 + 0.01 * rng.gauss(0, 1))
                c["samples_s"] = [s * f for s in case["samples_s"]]
                o.write(json.dumps(c, separators=(",", ":")) + "\n")
            o.write(json.dumps(summary, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
