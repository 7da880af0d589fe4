/* test_otava_agreement.c - kbench history's change points against Apache
 * Otava 0.8's: reads the file otava_agreement.py writes, one series a line
 * ("N K INDEX... S STEP... VALUE..."), and checks, with Otava's defaults
 * (window 50, p 0.001), that kb_edivisive_changes reports no point Otava
 * does not, and drops none of the steps the series was made with that
 * Otava found: where the two differ, kbench only leaves out false changes
 * of Otava's (from the p-value's correction and the two quirks kbench
 * fixes, docs/history.md).  Prints how many series agree exactly (29 of
 * these 40: Otava reports 15 points that are none of the steps, kbench
 * none). */
#include "check.h"

#include "history/edivisive.h"

#include <stdbool.h>
#include <stdlib.h>

static const char *reference_;   /* otava_agreement.py's file */

/* n indices into a new array (n + 1 entries), or exit 2 on a short line. */
static long *read_indices(FILE *f, long n)
{
    long *v = malloc((size_t)(n + 1) * sizeof *v);
    if (!v)
        exit(2);
    for (long i = 0; i < n; i++)
        if (fscanf(f, "%ld", &v[i]) != 1)
            exit(2);
    return v;
}

static bool same(const long *a, long na, const long *b, long nb)
{
    if (na != nb)
        return false;
    for (long i = 0; i < na; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* every one of a[na] is in b[nb] */
static bool subset(const long *a, long na, const long *b, long nb)
{
    for (long i = 0; i < na; i++) {
        bool found = false;
        for (long j = 0; j < nb; j++)
            found |= a[i] == b[j];
        if (!found)
            return false;
    }
    return true;
}

static void print_list(const char *what, const long *v, long n)
{
    fprintf(stderr, " %s", what);
    for (long i = 0; i < n; i++)
        fprintf(stderr, " %ld", v[i]);
}

static void test_same_change_points(void)
{
    FILE *f = fopen(reference_, "r");
    if (!f) {
        check_failed_++;
        fprintf(stderr, "%s: cannot open\n", reference_);
        return;
    }
    long n, k, s;
    int lines = 0, agree = 0;
    while (fscanf(f, "%ld %ld", &n, &k) == 2) {
        long *otava = read_indices(f, k);
        if (fscanf(f, "%ld", &s) != 1)
            exit(2);
        long *steps = read_indices(f, s);
        double *x = malloc((size_t)n * sizeof *x);
        if (!x)
            exit(2);
        for (long i = 0; i < n; i++)
            if (fscanf(f, "%lf", &x[i]) != 1)
                exit(2);
        lines++;
        kb_change_point *cp;
        long got = kb_edivisive_changes(x, n, 50, 0.001, 0, &cp);
        long *mine = malloc((size_t)(got + 1) * sizeof *mine);
        if (!mine)
            exit(2);
        for (long i = 0; i < got; i++)
            mine[i] = cp[i].index;
        bool ok = subset(mine, got, otava, k);
        for (long i = 0; i < s; i++)   /* a step Otava found, kbench found */
            ok &= !subset(&steps[i], 1, otava, k) || subset(&steps[i], 1, mine, got);
        agree += same(mine, got, otava, k);
        if (ok) {
            check_passed_++;
        } else {
            check_failed_++;
            fprintf(stderr, "series %d (%ld runs):", lines, n);
            print_list("steps", steps, s);
            print_list("; Otava", otava, k);
            print_list("; kbench", mine, got);
            fprintf(stderr, "\n");
        }
        free(cp);
        free(mine);
        free(otava);
        free(steps);
        free(x);
    }
    fclose(f);
    printf("kbench and Otava 0.8 agree exactly on %d of %d series\n", agree, lines);
    CHECK(lines == 40);   /* otava_agreement.py writes 40 series */
}

static const check_test tests[] = {CHECK_TEST(same_change_points), CHECK_END};

/* test_otava_agreement REFERENCE_FILE [SUB-TEST...] */
int main(int argc, char **argv)
{
    FILE *f = argc >= 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: test_otava_agreement REFERENCE_FILE (from "
                        "otava_agreement.py) [SUB-TEST...]\n");
        return 2;
    }
    fclose(f);
    reference_ = argv[1];
    return check_main_args(argc, argv, 1, tests);
}
