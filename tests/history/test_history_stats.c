/* test_history_stats.c - the statistics of `kbench history changes`: the
 * incomplete beta function and Student's t tail against exact values, the
 * E-Divisive Q statistic on hand-worked series, the p-value's correction
 * for the split positions, and change points found in synthetic series
 * (a 5 % step in 1 % noise; stationary noise); and
 * the content hash against FIPS 180-4's examples. */
#include "check.h"

#include "history/edivisive.h"
#include "history/sha256.h"
#include "history/student_t.h"

#include <stdint.h>
#include <stdlib.h>

/* I_x(a, b) for integer a, b is a binomial tail: I_0.5(2, 3) = 11/16;
 * I_x(1, 1) = x; the symmetry I_x(a, b) = 1 - I_{1-x}(b, a). */
static void test_incomplete_beta(void)
{
    CHECK_NEAR(kb_incomplete_beta(2, 3, 0.5), 11.0 / 16, 1e-14);
    CHECK_NEAR(kb_incomplete_beta(1, 1, 0.3), 0.3, 1e-14);
    CHECK_NEAR(kb_incomplete_beta(7.5, 0.5, 0.9),
               1 - kb_incomplete_beta(0.5, 7.5, 0.1), 1e-13);
    CHECK(isnan(kb_incomplete_beta(0, 1, 0.5)));
    CHECK(isnan(kb_incomplete_beta(1, 1, 1.5)));
}

/* Closed forms: df 1 is Cauchy, P(|T| >= 1) = 1/2; df 2,
 * P(|T| >= t) = 1 - t / sqrt(t^2 + 2). */
static void test_student_t(void)
{
    CHECK_NEAR(kb_student_t_two_sided(1.0, 1), 0.5, 1e-13);
    CHECK_NEAR(kb_student_t_two_sided(-2.0, 2), 1 - 2 / sqrt(6.0), 1e-13);
    CHECK_NEAR(kb_student_t_two_sided(0.0, 10), 1.0, 1e-15);
    /* no spread: equal means 1, different means 0; no df: 1 */
    CHECK(kb_student_t_test(1, 0, 5, 1, 0, 5) == 1.0);
    CHECK(kb_student_t_test(1, 0, 5, 2, 0, 5) == 0.0);
    CHECK(kb_student_t_test(1, 0, 1, 2, 0, 1) == 1.0);
}

/* Q by hand.  [0 0 1 1] split 2|2: cross 4, within 0, Q = 2/4 * 4 = 2.
 * [1 2 4] split 1|2: cross |1-2| + |1-4| = 4, right |2-4| = 2,
 * Q = 2/3 * 4 - 2*1/(3*1) * 2 = 4/3.  [5 1 2 4] from 1, split 2|1: the
 * same sides as before, mirrored: left [1 2] within 1, cross 3 + 2 = 5,
 * Q = 2/3 * 5 - 2*1/(3*1) * 1 = 8/3. */
static void test_q_hand(void)
{
    const double a[] = {0, 0, 1, 1}, b[] = {1, 2, 4}, c[] = {5, 1, 2, 4};
    CHECK_NEAR(kb_edivisive_q(a, 0, 2, 4), 2.0, 1e-15);
    CHECK_NEAR(kb_edivisive_q(b, 0, 1, 3), 4.0 / 3, 1e-15);
    CHECK_NEAR(kb_edivisive_q(c, 1, 3, 4), 8.0 / 3, 1e-15);
}

/* A reproducible normal sample (xorshift64*, Box-Muller). */
static uint64_t rng_state;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53 + 0x1.0p-54;
}
static double normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* 100 runs at 1.0, then from run 60 at 1.05, with 1 % noise: one change,
 * at run 60, about +5 %. */
static void test_step_found(void)
{
    double x[100];
    rng_state = 20261202;
    for (int i = 0; i < 100; i++)
        x[i] = (i < 60 ? 1.0 : 1.05) * (1 + 0.01 * normal());
    kb_change_point *cp;
    long n = kb_edivisive_changes(x, 100, 50, 0.001, 0, &cp);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(cp[0].index == 60);
        CHECK(fabs(kb_change_forward_percent(&cp[0]) - 5.0) < 1.0);
        CHECK(cp[0].pvalue < 0.001);
        CHECK(kb_change_magnitude(&cp[0]) > 0.04);
    }
    /* a minimum magnitude above the step drops it */
    free(cp);
    n = kb_edivisive_changes(x, 100, 50, 0.001, 0.10, &cp);
    CHECK(n == 0);
    free(cp);
}

/* A point's p is the t-test's corrected by Sidak for the split positions
 * it was chosen among: 1 - (1 - p_t)^m, m = its segment's length less
 * one, at most window - 1.  20 runs, 1.0 then 1.1 from run 10, with a
 * fixed wobble: one change, at 10, between [0, 10) and [10, 20). */
static void test_sidak_pvalue(void)
{
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = (i < 10 ? 1.0 : 1.1) + 0.01 * (i * 7 % 5 - 2);
    const struct { long window, m; } cases[] = {{50, 19}, {20, 19}, {8, 7}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        kb_change_point *cp;
        long n = kb_edivisive_changes(x, 20, cases[k].window, 0.001, 0, &cp);
        CHECK(n == 1);
        if (n == 1) {
            CHECK(cp[0].index == 10);
            double pt = kb_student_t_test(cp[0].mean_before, cp[0].std_before, 10,
                                          cp[0].mean_after, cp[0].std_after, 10);
            /* for p_t this small, two terms of the binomial expansion are
             * exact to ~(m p_t)^2 (1 - (1 - p_t)^m itself would cancel) */
            double m = (double)cases[k].m, want = m * pt - m * (m - 1) / 2 * pt * pt;
            CHECK(pt > 0 && pt < 1e-6);
            CHECK_NEAR(cp[0].pvalue / want, 1.0, 1e-9);
        }
        free(cp);
    }
}

/* 500 stationary points (1 % noise): no change at p = 0.001 on at least
 * 19 seeds of 20. */
static void test_stationary(void)
{
    double x[500];
    int clean = 0;
    for (int seed = 1; seed <= 20; seed++) {
        rng_state = 0x9e3779b97f4a7c15ULL * (uint64_t)seed;
        for (int i = 0; i < 500; i++)
            x[i] = 1.0 + 0.01 * normal();
        kb_change_point *cp;
        long n = kb_edivisive_changes(x, 500, 50, 0.001, 0, &cp);
        clean += n == 0;
        free(cp);
    }
    printf("stationary: %d of 20 seeds without a change\n", clean);
    CHECK(clean >= 19);
}

/* Short and constant series: nothing to find, nothing crashes. */
static void test_degenerate(void)
{
    double x[10] = {0};
    kb_change_point *cp;
    CHECK(kb_edivisive_changes(x, 2, 50, 0.001, 0, &cp) == 0);
    CHECK(kb_edivisive_changes(x, 10, 50, 0.001, 0, &cp) == 0);
    free(cp);
}

/* FIPS 180-4's examples: one block, two blocks (56 bytes: the length
 * spills into a second block), and a million 'a's. */
static void test_sha256(void)
{
    char hex[65];
    kb_sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    kb_sha256_hex(two, strlen(two), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    if (!a)
        return;
    memset(a, 'a', 1000000);
    kb_sha256_hex(a, 1000000, hex);
    free(a);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    kb_sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static const check_test tests[] = {
    CHECK_TEST(incomplete_beta), CHECK_TEST(student_t), CHECK_TEST(q_hand),
    CHECK_TEST(step_found), CHECK_TEST(sidak_pvalue), CHECK_TEST(stationary),
    CHECK_TEST(degenerate),
    CHECK_TEST(sha256),
    CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
