/* test_mw_scipy.c - kbench compare's Mann-Whitney p-values against SciPy's
 * on random samples: reads the file compare_scipy.py writes, one sample
 * pair a line ("METHOD P N1 N2 X... Y..."), and checks the method chosen
 * and p to 1e-9 relative. */
#include "check.h"

#include "drivers/compare/mannwhitney.h"

#include <stdlib.h>

static const char *reference_;   /* compare_scipy.py's file */

/* every line's method and p-value, and the count of lines */
static void test_scipy_pvalues(void)
{
    FILE *f = fopen(reference_, "r");
    if (!f) {
        check_failed_++;
        fprintf(stderr, "%s: cannot open\n", reference_);
        return;
    }
    char method[16];
    double p;
    long n1, n2;
    int lines = 0;
    while (fscanf(f, "%15s %lf %ld %ld", method, &p, &n1, &n2) == 4) {
        double *x = malloc((size_t)(n1 + n2) * sizeof *x);
        if (!x)
            exit(2);
        for (long i = 0; i < n1 + n2; i++)
            if (fscanf(f, "%lf", &x[i]) != 1) {
                fprintf(stderr, "line %d: short of values\n", lines + 1);
                exit(2);
            }
        kb_mw_result r;
        lines++;
        CHECK(kb_mw_test(x, n1, x + n1, n2, &r) == 0);
        CHECK_STR(kb_mw_method_name(r.method), method);
        if (fabs(r.p - p) > 1e-9 * p) {
            check_failed_++;
            fprintf(stderr, "line %d (%s, n1 %ld, n2 %ld): p %.17g, SciPy %.17g\n",
                    lines, method, n1, n2, r.p, p);
        } else {
            check_passed_++;
        }
        free(x);
    }
    fclose(f);
    CHECK(lines == 80);   /* compare_scipy.py writes 4 x 20 pairs */
}

static const check_test tests[] = {CHECK_TEST(scipy_pvalues), CHECK_END};

/* test_mw_scipy REFERENCE_FILE [SUB-TEST...] */
int main(int argc, char **argv)
{
    FILE *f = argc >= 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: test_mw_scipy REFERENCE_FILE (from compare_scipy.py) "
                "[SUB-TEST...]\n");
        return 2;
    }
    fclose(f);
    reference_ = argv[1];
    return check_main_args(argc, argv, 1, tests);
}
