/* test_stats.c - kb_stats_compute on samples worked out by hand. */
#include "drivers/stats.h"

#include "check.h"

static void odd_count(void)
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

static void even_count(void)
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

static void single_sample(void)
{
    double x = 0.125;
    kb_stats s;
    kb_stats_compute(&x, 1, &s);
    CHECK(s.min == x && s.median == x && s.mean == x && s.max == x);
    CHECK(s.stddev == 0.0 && s.cv == 0.0);
}

/* Close samples far from zero: a naive sum-of-squares formula loses all
 * digits here, Welford's does not. */
static void no_cancellation(void)
{
    double x[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    kb_stats s;
    kb_stats_compute(x, 3, &s);
    CHECK_NEAR(s.stddev, 1.0, 1e-9);
    CHECK(s.median == 1e9 + 2);
}

int main(void)
{
    odd_count();
    even_count();
    single_sample();
    no_cancellation();
    return CHECK_DONE();
}
