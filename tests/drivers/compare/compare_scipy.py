#!/usr/bin/env python3
"""compare_scipy.py - reference p-values for kbench compare's Mann-Whitney
test from SciPy, on random samples, checked by test_mw_scipy.

usage: compare_scipy.py TEST_MW_SCIPY OUT_FILE
Writes one line per sample pair, "METHOD P N1 N2 X... Y..." (METHOD as
kbench picks it: exact without ties and up to EXACT_MAX values a side,
else normal), then runs TEST_MW_SCIPY OUT_FILE and exits with its status.
Exits 77 (ctest: skipped) when SciPy is missing.
"""
import random
import subprocess
import sys

try:
    from scipy.stats import mannwhitneyu
except ImportError:
    print("compare_scipy.py: SciPy is missing (Debian: python3-scipy); skipped")
    sys.exit(77)

EXACT_MAX = 100   # KB_MW_EXACT_MAX in drivers/compare/mannwhitney.h


def sample(rng, n, shift, digits):
    """n log-normal times around 1 ms, times exp(shift); rounded to digits
    significant decimals (ties) when digits is not None."""
    v = [1e-3 * rng.lognormvariate(shift, 0.05) for _ in range(n)]
    return [float(f"{x:.{digits}g}") for x in v] if digits else v


def main():
    rng = random.Random(20261201)
    lines = []
    # (sizes, shifts, ties): small exact samples, large normal ones, ties.
    plans = [((3, 30), None), ((101, 400), None), ((5, 200), 2), ((4, 12), 2)]
    for (lo, hi), digits in plans:
        for _ in range(20):
            n1, n2 = rng.randint(lo, hi), rng.randint(lo, hi)
            shift = rng.choice([0.0, 0.01, 0.03, 0.1])
            x, y = sample(rng, n1, 0.0, digits), sample(rng, n2, shift, digits)
            ties = len(set(x + y)) < n1 + n2
            exact = not ties and max(n1, n2) <= EXACT_MAX
            p = mannwhitneyu(x, y, alternative="two-sided",
                             method="exact" if exact else "asymptotic").pvalue
            values = " ".join(repr(v) for v in x + y)
            # float(): NumPy 2 (Debian 13) reprs its scalars as np.float64(...)
            lines.append(f"{'exact' if exact else 'normal'} {float(p)!r} {n1} {n2} "
                         f"{values}\n")
    with open(sys.argv[2], "w") as f:
        f.writelines(lines)
    sys.exit(subprocess.run([sys.argv[1], sys.argv[2]]).returncode)


if __name__ == "__main__":
    main()
