/* test_mannwhitney.c - the compare statistics against values worked out by
 * hand and by enumerating every ordering of small samples. */
#include "check.h"

#include "drivers/compare/mannwhitney.h"

#include <stdint.h>
#include <stdlib.h>

#define N(a) ((int64_t)(sizeof a / sizeof a[0]))

/* Samples fully separated: U = 0, p = 2 / C(n1 + n2, n1). */
static void test_separated(void)
{
    double x3[] = {1, 2, 3}, y3[] = {4, 5, 6};
    kb_mw_result r;
    CHECK(kb_mw_test(x3, 3, y3, 3, &r) == 0);
    CHECK(r.method == KB_MW_EXACT && !r.ties);
    CHECK_NEAR(r.u, 0, 0);
    CHECK_NEAR(r.p, 0.1, 1e-15);            /* 2 / 20 */
    CHECK(kb_mw_test(y3, 3, x3, 3, &r) == 0);
    CHECK_NEAR(r.u, 9, 0);                  /* the other side's U */
    CHECK_NEAR(r.p, 0.1, 1e-15);

    double x5[] = {1, 2, 3, 4, 5}, y5[] = {6, 7, 8, 9, 10};
    CHECK(kb_mw_test(x5, 5, y5, 5, &r) == 0);
    CHECK_NEAR(r.p, 2.0 / 252.0, 1e-15);
}

/* x = {1, 3, 5}, y = {2, 4, 6, 7}: U = 0 + 1 + 2 = 3; of the 35
 * orderings, 1 + 1 + 2 + 3 = 7 have U <= 3 (partitions of 0..3 into at
 * most 3 parts of at most 4), so p = 2 x 7 / 35 = 0.4. */
static void test_interleaved(void)
{
    double x[] = {5, 1, 3}, y[] = {7, 2, 6, 4};
    kb_mw_result r;
    CHECK(kb_mw_test(x, N(x), y, N(y), &r) == 0);
    CHECK_NEAR(r.u, 3, 0);
    CHECK_NEAR(r.p, 0.4, 1e-15);
}

/* Wikipedia's tortoise and hare race, order of finish T H H H H H T T T T
 * T H (n1 = n2 = 6): U_T = 6 + 5 x 1 = 11 pairs where the tortoise beat
 * the hare, U_H = 25; p = 2 P(U <= 11) = 2 x 143 / 924 = 0.3095 (SciPy:
 * 0.30952380952380953). */
static void test_tortoise_and_hare(void)
{
    double t[] = {1, 7, 8, 9, 10, 11}, h[] = {2, 3, 4, 5, 6, 12};
    kb_mw_result r;
    /* U counts x_i > y_j: with finishing places, U(hare, tortoise)
     * counts the pairs where the hare came after the tortoise: U_T. */
    CHECK(kb_mw_test(h, 6, t, 6, &r) == 0);
    CHECK_NEAR(r.u, 11, 0);
    CHECK_NEAR(r.p, 2.0 * 143 / 924, 1e-14);
    CHECK_NEAR(r.p, 0.30952380952380953, 1e-14);
    CHECK(kb_mw_test(t, 6, h, 6, &r) == 0);
    CHECK_NEAR(r.u, 25, 0);
}

/* Every ordering of n1 x's and n2 y's (bit i of mask set: position i
 * holds an x): the exact two-sided p of each against the count of
 * orderings at least as extreme. */
static void enumerate(int n1, int n2)
{
    int n = n1 + n2, mn = n1 * n2, total = 0;
    int *freq = calloc((size_t)mn + 1, sizeof *freq);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t mask = 0; mask < (1u << n); mask++) {
            if (__builtin_popcount(mask) != n1)
                continue;
            double x[32], y[32];
            int nx = 0, ny = 0, u = 0;
            for (int i = 0; i < n; i++) {
                if (mask >> i & 1) {
                    x[nx++] = i;
                    u += ny;   /* x at i beats the ys before it */
                } else {
                    y[ny++] = i;
                }
            }
            if (pass == 0) {
                freq[u]++, total++;
                continue;
            }
            int lo = u < mn - u ? u : mn - u, tail = 0;
            for (int k = 0; k <= lo; k++)
                tail += freq[k];
            double want = 2.0 * tail / total;
            kb_mw_result r;
            CHECK(kb_mw_test(x, nx, y, ny, &r) == 0);
            CHECK_NEAR(r.u, u, 0);
            CHECK_NEAR(r.p, want > 1 ? 1 : want, 1e-13);
        }
    free(freq);
}

/* Ties force the normal approximation.  x = {1, 2, 2, 3}, y = {2, 3, 4,
 * 4, 5}: pooled ranks 1 | 2 2 2 -> 3 | 3 3 -> 5.5 | 4 4 -> 7.5 | 5 -> 9;
 * R_x = 1 + 3 + 3 + 5.5 = 12.5, U = 12.5 - 10 = 2.5; ties t = 3, 2, 2
 * give sum(t^3 - t) = 24 + 6 + 6 = 36; sigma^2 = 20/12 (10 - 36/72) =
 * 15.8333; z = (|2.5 - 10| - 0.5) / sigma = 1.7592; p = 2 (1 - Phi(z)) =
 * 0.078546 (SciPy 1.10's mannwhitneyu(x, y): 0.07854585095119067). */
static void test_ties_normal(void)
{
    double x[] = {1, 2, 2, 3}, y[] = {2, 3, 4, 4, 5};
    kb_mw_result r;
    CHECK(kb_mw_test(x, N(x), y, N(y), &r) == 0);
    CHECK(r.method == KB_MW_NORMAL && r.ties);
    CHECK_NEAR(r.u, 2.5, 0);
    double z = 7.0 / sqrt(20.0 / 12.0 * 9.5);
    CHECK_NEAR(r.p, erfc(z / sqrt(2.0)), 1e-14);
    CHECK_NEAR(r.p, 0.07854585095119067, 1e-12);

    double same[] = {3, 3, 3};   /* nothing tells them apart */
    CHECK(kb_mw_test(same, 3, same, 3, &r) == 0);
    CHECK_NEAR(r.p, 1.0, 0);
}

/* More than KB_MW_EXACT_MAX values on a side: normal, even without ties;
 * the two halves of 0..2n-1 interleaved give U = n1 n2 / 2 exactly and
 * p = 1 (the continuity correction pushes z below 0). */
static void test_large_normal(void)
{
    enum { n = KB_MW_EXACT_MAX + 1 };
    double x[n], y[n];
    for (int i = 0; i < n; i++)
        x[i] = 2 * i, y[i] = 2 * i + 1;
    kb_mw_result r;
    CHECK(kb_mw_test(x, n, y, n, &r) == 0);
    CHECK(r.method == KB_MW_NORMAL && !r.ties);
    /* U of x: x_i = 2i beats y_0 .. y_{i-1}: sum of i = n(n-1)/2. */
    CHECK_NEAR(r.u, n * (n - 1) / 2.0, 0);
    double sigma = sqrt(n * (double)n * (2 * n + 1) / 12.0);
    CHECK_NEAR(r.p, erfc((n / 2.0 - 0.5) / sigma / sqrt(2.0)), 1e-14);
}

/* Hodges-Lehmann, exact: x = {1..5}, y = {0, .1, .2, .3, .4}; the 25
 * differences i - j/10 sorted come in groups of five (0.6..1.0, 1.6..2.0,
 * ...), so the median (13th) is 2.8.  n1 = n2 = 5: P(U <= 2) = 4/252 <
 * 0.025 <= P(U <= 3) = 7/252, so k = 3: the 3rd smallest 0.8 and the 3rd
 * largest 4.8, at confidence 1 - 2 x 4/252 = 0.968 (R's wilcox.test says
 * the same). */
static void test_hl_exact(void)
{
    double x[] = {3, 1, 4, 5, 2}, y[] = {0.4, 0, 0.2, 0.1, 0.3};
    kb_hl_result h;
    CHECK(kb_hl_shift(x, 5, y, 5, &h) == 0);
    CHECK(h.method == KB_MW_EXACT);
    CHECK_NEAR(h.estimate, 2.8, 1e-15);
    CHECK_NEAR(h.lo, 0.8, 1e-15);
    CHECK_NEAR(h.hi, 4.8, 1e-15);
    CHECK_NEAR(h.confidence, 1.0 - 8.0 / 252.0, 1e-15);

    /* n1 = n2 = 3: even P(U <= 0) = 0.05 > 0.025, so k = 1, the whole
     * range of differences, at 90 %. */
    double a[] = {10, 11, 12}, b[] = {1, 2, 3};
    CHECK(kb_hl_shift(a, 3, b, 3, &h) == 0);
    CHECK_NEAR(h.lo, 7, 0);
    CHECK_NEAR(h.hi, 11, 0);
    CHECK_NEAR(h.estimate, 9, 0);
    CHECK_NEAR(h.confidence, 0.9, 1e-15);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The order statistics found by counting against every difference
 * stored and sorted, for the normal k (ties from rounding the data):
 * k = round(n1 n2 / 2 - 1.96 sigma). */
static void test_hl_normal_brute(void)
{
    enum { n1 = 37, n2 = 44 };
    double x[n1], y[n2], d[n1 * n2];
    srand(7);
    for (int i = 0; i < n1; i++)
        x[i] = round(100.0 * rand() / RAND_MAX) / 10;
    for (int j = 0; j < n2; j++)
        y[j] = round(100.0 * rand() / RAND_MAX) / 10 - 0.7;
    for (int i = 0; i < n1; i++)
        for (int j = 0; j < n2; j++)
            d[i * n2 + j] = x[i] - y[j];
    qsort(d, n1 * n2, sizeof *d, cmp_double);
    kb_mw_result r;
    kb_hl_result h;
    CHECK(kb_mw_test(x, n1, y, n2, &r) == 0 && r.ties);
    CHECK(kb_hl_shift(x, n1, y, n2, &h) == 0);
    CHECK(h.method == KB_MW_NORMAL);
    /* sigma from the test's z: recover it as the test defines it. */
    double pooled[n1 + n2];
    for (int i = 0; i < n1; i++)
        pooled[i] = x[i];
    for (int j = 0; j < n2; j++)
        pooled[n1 + j] = y[j];
    qsort(pooled, n1 + n2, sizeof *pooled, cmp_double);
    double ties = 0;
    for (int i = 0, j; i < n1 + n2; i = j) {
        for (j = i; j < n1 + n2 && pooled[j] == pooled[i]; j++)
            ;
        ties += pow(j - i, 3) - (j - i);
    }
    double nn = n1 + n2;
    double sigma = sqrt(n1 * n2 / 12.0 * (nn + 1 - ties / (nn * (nn - 1))));
    int k = (int)floor(n1 * n2 / 2.0 - 1.959963984540054 * sigma + 0.5);
    CHECK_NEAR(h.lo, d[k - 1], 0);
    CHECK_NEAR(h.hi, d[n1 * n2 - k], 0);
    CHECK_NEAR(h.estimate, 0.5 * (d[n1 * n2 / 2 - 1] + d[n1 * n2 / 2]), 0);
    CHECK_NEAR(h.confidence, 0.95, 0);
}

/* every split of a few small samples, enumerated exactly */
static void test_enumerate(void)
{
    enumerate(3, 3);
    enumerate(4, 5);
    enumerate(6, 6);
    enumerate(7, 3);
    enumerate(1, 8);
}

static const check_test tests[] = {
    CHECK_TEST(separated),
    CHECK_TEST(interleaved),
    CHECK_TEST(tortoise_and_hare),
    CHECK_TEST(enumerate),
    CHECK_TEST(ties_normal),
    CHECK_TEST(large_normal),
    CHECK_TEST(hl_exact),
    CHECK_TEST(hl_normal_brute),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
