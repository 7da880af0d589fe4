/* test_stats.c - kb_stats_compute, kb_median, kb_quantile and kb_mad on
 * samples worked out by hand. */
#include "drivers/stats.h"

#include "check.h"

#include <math.h>

static void test_odd_count(void)
{
    double x[] = {3.0, 1.0, 2.0};
    kb_stats s;
    kb_stats_compute(x, 3, &s);
    CHECK(s.min == 1.0 && s.max == 3.0);
    CHECK(s.median == 2.0);
    CHECK_NEAR(s.mean, 2.0, 1e-15);
    CHECK_NEAR(s.stddev, 1.0, 1e-15);          /* sum sq dev 2, / (n-1) */
    CHECK_NEAR(s.cv, 0.5, 1e-15);
    CHECK(x[0] == 3.0 && x[1] == 1.0 && x[2] == 2.0);   /* not reordered */
}

static void test_even_count(void)
{
    double x[] = {4.0, 1.0, 3.0, 2.0, 10.0, 0.5};
    kb_stats s;
    kb_stats_compute(x, 6, &s);
    CHECK(s.min == 0.5 && s.max == 10.0);
    CHECK(s.median == 2.5);                    /* (2 + 3) / 2 */
    CHECK_NEAR(s.mean, 20.5 / 6.0, 1e-15);
    /* sum of squares 130.25; sum sq dev = 130.25 - 20.5^2/6 = 60.208333.. */
    CHECK_NEAR(s.stddev, sqrt((130.25 - 20.5 * 20.5 / 6.0) / 5.0), 1e-14);
    CHECK_NEAR(s.cv, s.stddev / s.mean, 1e-15);
    CHECK(x[0] == 4.0 && x[4] == 10.0 && x[5] == 0.5);
}

static void test_single_sample(void)
{
    double x = 0.125;
    kb_stats s;
    kb_stats_compute(&x, 1, &s);
    CHECK(s.min == x && s.median == x && s.mean == x && s.max == x);
    CHECK(s.stddev == 0.0 && s.cv == 0.0);
}

/* Close samples far from zero: a naive sum-of-squares formula loses all
 * digits here, Welford's does not. */
static void test_no_cancellation(void)
{
    double x[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    kb_stats s;
    kb_stats_compute(x, 3, &s);
    CHECK_NEAR(s.stddev, 1.0, 1e-9);
    CHECK(s.median == 1e9 + 2);
}

/* kb_median and kb_mad by hand: {1, 2, 3, 4, 100} has median 3 and
 * absolute deviations {2, 1, 0, 1, 97}, whose median is 1: the outlier
 * moves neither. */
static void test_median_and_mad(void)
{
    double x[] = {100.0, 2.0, 3.0, 1.0, 4.0};
    CHECK(kb_median(x, 5) == 3.0);
    CHECK_NEAR(kb_mad(x, 5), 1.4826, 1e-15);
    CHECK(x[0] == 100.0 && x[3] == 1.0);       /* not reordered */

    double e[] = {1.0, 2.0, 4.0, 7.0};         /* median 3; deviations */
    CHECK(kb_median(e, 4) == 3.0);             /* {2, 1, 1, 4} -> 1.5 */
    CHECK_NEAR(kb_mad(e, 4), 1.5 * 1.4826, 1e-15);

    double one = 5.0;
    CHECK(kb_median(&one, 1) == 5.0 && kb_mad(&one, 1) == 0.0);
}

/* kb_quantile, type 7 by hand: {10, 20, 30, 40} (given unsorted) has h =
 * q x 3; q = 0.5: h = 1.5, 20 + 0.5 x 10 = 25 (the median); q = 0.99: h =
 * 2.97, 30 + 0.97 x 10 = 39.7, where nearest rank would say 40; q = 0 and
 * 1 are the min and max; outside [0, 1] is NaN. */
static void test_quantile_type7(void)
{
    double v[] = {40.0, 10.0, 30.0, 20.0};
    CHECK(kb_quantile(v, 4, 0.5) == 25.0);
    CHECK(kb_quantile(v, 4, 0.5) == kb_median(v, 4));
    CHECK_NEAR(kb_quantile(v, 4, 0.99), 39.7, 1e-12);
    CHECK(kb_quantile(v, 4, 0.0) == 10.0 && kb_quantile(v, 4, 1.0) == 40.0);
    CHECK_NEAR(kb_quantile(v, 4, 0.25), 17.5, 1e-12);   /* h = 0.75 */
    CHECK(v[0] == 40.0 && v[1] == 10.0);                /* not reordered */
    CHECK(isnan(kb_quantile(v, 4, 1.5)) && isnan(kb_quantile(v, 4, -0.1)));
    double one = 7.0;
    CHECK(kb_quantile(&one, 1, 0.99) == 7.0);
}

static const check_test tests[] = {
    CHECK_TEST(odd_count),
    CHECK_TEST(even_count),
    CHECK_TEST(single_sample),
    CHECK_TEST(no_cancellation),
    CHECK_TEST(median_and_mad),
    CHECK_TEST(quantile_type7),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
