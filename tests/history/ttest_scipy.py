#!/usr/bin/env python3
"""ttest_scipy.py - reference p-values for kbench history's Student t-test
from SciPy's ttest_ind_from_stats (equal variances, two-sided), on random
summary statistics, checked by test_ttest_scipy.

usage: ttest_scipy.py TEST_TTEST_SCIPY OUT_FILE
Writes one line per test, "P M1 S1 N1 M2 S2 N2", then runs
TEST_TTEST_SCIPY OUT_FILE and exits with its status.  Exits 77 (ctest:
skipped) when SciPy is missing.
"""
import random
import subprocess
import sys

try:
    from scipy.stats import ttest_ind_from_stats
except ImportError:
    print("ttest_scipy.py: SciPy is missing (Debian: python3-scipy); skipped")
    sys.exit(77)


def main():
    rng = random.Random(20261202)
    lines = []
    # small and large samples; means from equal to far apart (p from ~1
    # down to far below 1e-10)
    for _ in range(200):
        n1, n2 = rng.randint(2, 60), rng.randint(2, 60)
        m1 = rng.uniform(0.5, 2.0)
        m2 = m1 * (1 + rng.choice([0.0, 0.001, 0.01, 0.05, 0.2]) * rng.uniform(-1, 1))
        s1, s2 = m1 * rng.uniform(0.001, 0.05), m2 * rng.uniform(0.001, 0.05)
        p = ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=True,
                                 alternative="two-sided").pvalue
        # float(): NumPy 2 (Debian 13) reprs a scalar as np.float64(...)
        lines.append(f"{float(p)!r} {m1!r} {s1!r} {n1} {m2!r} {s2!r} {n2}\n")
    with open(sys.argv[2], "w") as f:
        f.writelines(lines)
    sys.exit(subprocess.run([sys.argv[1], sys.argv[2]]).returncode)


if __name__ == "__main__":
    main()
