/* test_ttest_scipy.c - kbench history's Student t-test p-values against
 * SciPy's: reads the file ttest_scipy.py writes, one test a line
 * ("P M1 S1 N1 M2 S2 N2"), and checks p to 1e-9 relative (absolute below
 * 1e-300, where SciPy's p underflows). */
#include "check.h"

#include "history/student_t.h"

static const char *reference_;   /* ttest_scipy.py's file */

static void test_scipy_pvalues(void)
{
    FILE *f = fopen(reference_, "r");
    if (!f) {
        check_failed_++;
        fprintf(stderr, "%s: cannot open\n", reference_);
        return;
    }
    double p, m1, s1, m2, s2;
    long n1, n2;
    int lines = 0;
    while (fscanf(f, "%lf %lf %lf %ld %lf %lf %ld", &p, &m1, &s1, &n1, &m2, &s2,
                  &n2) == 7) {
        lines++;
        double mine = kb_student_t_test(m1, s1, n1, m2, s2, n2);
        if (fabs(mine - p) > 1e-9 * p + 1e-300) {
            check_failed_++;
            fprintf(stderr, "line %d: p %.17g, SciPy %.17g\n", lines, mine, p);
        } else {
            check_passed_++;
        }
    }
    fclose(f);
    CHECK(lines == 200);   /* ttest_scipy.py writes 200 tests */
}

static const check_test tests[] = {CHECK_TEST(scipy_pvalues), CHECK_END};

/* test_ttest_scipy REFERENCE_FILE [SUB-TEST...] */
int main(int argc, char **argv)
{
    FILE *f = argc >= 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: test_ttest_scipy REFERENCE_FILE (from "
                        "ttest_scipy.py) [SUB-TEST...]\n");
        return 2;
    }
    fclose(f);
    reference_ = argv[1];
    return check_main_args(argc, argv, 1, tests);
}
