#!/usr/bin/env python3
"""otava_agreement.py - kbench history's change points against Apache
Otava 0.8's on generated series with clear steps, checked by
test_otava_agreement.

usage: otava_agreement.py TEST_OTAVA_AGREEMENT OUT_FILE
Writes one series a line, "N K INDEX... S STEP... VALUE..." (Otava's K
change points with its defaults: window 50, p 0.001, no minimum magnitude;
the S steps the series was made with), then runs
TEST_OTAVA_AGREEMENT OUT_FILE and exits with its status.  Exits 77 (ctest:
skipped) when Otava is missing: it lives in a virtual environment made for
this test only (python3 -m venv DIR && DIR/bin/pip install apache-otava==0.8.0,
then configure with -DKB_OTAVA_PYTHON=DIR/bin/python).
"""
import random
import subprocess
import sys

try:
    from otava.analysis import compute_change_points
except ImportError:
    print("otava_agreement.py: apache-otava is missing; skipped")
    sys.exit(77)


def series(rng):
    """100 to 300 runs around 1.0 with 1 % noise and 1 to 3 steps of 5 to
    20 % (up or down), at least 40 runs apart and from the ends; the
    values and the steps."""
    n = rng.randint(100, 300)
    nsteps = rng.randint(1, min(3, (n - 80) // 40 + 1))   # room for them
    while True:
        at = sorted(rng.sample(range(40, n - 40), nsteps))
        if all(b - a >= 40 for a, b in zip(at, at[1:])):
            break
    level, values = 1.0, []
    for i in range(n):
        if i in at:
            level *= 1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.20)
        values.append(level * (1 + 0.01 * rng.gauss(0, 1)))
    return values, at


def main():
    rng = random.Random(20261202)
    lines = []
    for _ in range(40):
        x, steps = series(rng)
        cps, _ = compute_change_points(list(x), window_len=50, max_pvalue=0.001,
                                       min_magnitude=0.0)
        idx = sorted(int(c.index) for c in cps)
        lines.append(" ".join([str(len(x)), str(len(idx))] + [str(i) for i in idx] +
                              [str(len(steps))] + [str(i) for i in steps] +
                              [repr(v) for v in x]) + "\n")
    with open(sys.argv[2], "w") as f:
        f.writelines(lines)
    sys.exit(subprocess.run([sys.argv[1], sys.argv[2]]).returncode)


if __name__ == "__main__":
    main()
