/* check.h - the smallest test harness: CHECK(cond) records a failure with
 * file and line and goes on; CHECK_DONE() prints "N passed, N failed" and
 * returns the exit status for main.
 *
 * Sub-tests are named, as in libuv's test/test-list.h: each is a
 * `static void test_NAME(void)`, listed once in a table that ends with
 * CHECK_END, and main hands the table to check_main:
 *
 *     static const check_test tests[] = {
 *         CHECK_TEST(median), CHECK_TEST(quantile), CHECK_END};
 *     int main(int argc, char **argv) { return check_main(argc, argv, tests); }
 *
 * `./test_stats` runs them all in order, `./test_stats quantile median` only
 * those (in the order named), `./test_stats --list` prints the names.  An
 * unknown name, or an option other than --list, runs nothing and exits 2
 * naming it.  A test with arguments of its own hands them over first
 * (check_main_args, check_nargs); a sub-test that cannot run here ends
 * with CHECK_SKIP, and a run where every sub-test skipped exits 77. */
#ifndef KB_CHECK_H
#define KB_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed_, check_failed_;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (cond) {                                                        \
            check_passed_++;                                               \
        } else {                                                           \
            check_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                      \
        }                                                                  \
    } while (0)

/* Doubles equal within a relative tolerance. */
#define CHECK_NEAR(a, b, rel)                                              \
    do {                                                                   \
        double a_ = (a), b_ = (b);                                         \
        if (fabs(a_ - b_) <= (rel) * fmax(1.0, fabs(b_))) {                \
            check_passed_++;                                               \
        } else {                                                           \
            check_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, "       \
                    "expected %.17g\n", __FILE__, __LINE__, #a, a_, b_);    \
        }                                                                  \
    } while (0)

#define CHECK_STR(a, b)                                                    \
    do {                                                                   \
        const char *a_ = (a), *b_ = (b);                                   \
        if (a_ && b_ && strcmp(a_, b_) == 0) {                             \
            check_passed_++;                                               \
        } else {                                                           \
            check_failed_++;                                               \
            fprintf(stderr, "%s:%d: CHECK_STR failed: \"%s\" != \"%s\"\n", \
                    __FILE__, __LINE__, a_ ? a_ : "(null)",                \
                    b_ ? b_ : "(null)");                                   \
        }                                                                  \
    } while (0)

#define CHECK_DONE()                                                       \
    (printf("%d passed, %d failed\n", check_passed_, check_failed_),       \
     check_failed_ ? 1 : 0)

/* One sub-test: its name and its function. */
typedef struct {
    const char *name;
    void (*fn)(void);
} check_test;

#define CHECK_TEST(name) {#name, test_##name}
#define CHECK_END {NULL, NULL}

/* The sub-test running now, and what check_main counts of the run. */
static const char *check_current_;
static int check_ran_, check_skipped_, check_skip_now_;

/* Ends the current sub-test as skipped (a device, a library or a file it
 * needs is missing), saying why on stdout as "SKIP NAME: why".  When every
 * sub-test that ran skipped and no CHECK failed, check_main returns 77
 * (ctest's SKIP_RETURN_CODE).  Only in a test_NAME function, which it
 * returns from. */
#define CHECK_SKIP(...)                                                    \
    do {                                                                   \
        check_skip_now_ = 1;                                               \
        printf("SKIP %s: ", check_current_ ? check_current_ : "test");    \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
        fflush(stdout);                                                    \
        return;                                                            \
    } while (0)

static inline void check_run_(const check_test *t)
{
    check_current_ = t->name;
    check_skip_now_ = 0;
    t->fn();
    check_ran_++;
    check_skipped_ += check_skip_now_;
    check_current_ = NULL;
}

/* How many of argv[1..argc-1] come before a `--` (all of them when there
 * is none): the count of a test's own arguments when it takes a variable
 * number of them, for check_main_args. */
static inline int check_nargs(int argc, char **argv)
{
    int n = 0;
    while (n + 1 < argc && strcmp(argv[n + 1], "--") != 0)
        n++;
    return n;
}

/* check_main for a test that takes its own arguments: argv[1..nfixed] are
 * the test's (it has read them before), then an optional `--`, then the
 * sub-test names or --list as for check_main:
 *
 *     ./test_fill_fine fp32_strict.txt bound_fp32
 *     ./test_backend omp coverage.txt a.txt b.txt -- cases   (check_nargs)
 *
 * Runs the sub-tests named, or all of them when none is named.  Returns
 * main's exit status: 0 when every CHECK passed, 1 when one failed, 2 for
 * an unknown name or option (nothing run), 77 when every sub-test that ran
 * skipped (CHECK_SKIP) and none failed. */
static inline int check_main_args(int argc, char **argv, int nfixed,
                                  const check_test *tests)
{
    int first = 1 + nfixed;
    if (first < argc && strcmp(argv[first], "--") == 0)
        first++;
    int named = 0;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0) {
            for (const check_test *t = tests; t->name; t++)
                printf("%s\n", t->name);
            return 0;
        }
        const check_test *t = tests;
        while (t->name && strcmp(t->name, argv[i]) != 0)
            t++;
        if (!t->name) {
            fprintf(stderr, "%s: unknown %s '%s' (--list names the "
                    "sub-tests)\n", argv[0],
                    argv[i][0] == '-' ? "option" : "sub-test", argv[i]);
            return 2;
        }
        named++;
    }
    if (named == 0) {
        for (const check_test *t = tests; t->name; t++)
            check_run_(t);
    } else {
        for (int i = first; i < argc; i++)
            for (const check_test *t = tests; t->name; t++)
                if (strcmp(t->name, argv[i]) == 0)
                    check_run_(t);
    }
    int status = CHECK_DONE();
    if (status == 0 && check_ran_ > 0 && check_skipped_ == check_ran_)
        return 77;
    return status;
}

/* Runs the sub-tests named in argv[1..argc-1], or all of them when none is
 * named; --list prints the names.  Returns main's exit status as
 * check_main_args does. */
static inline int check_main(int argc, char **argv, const check_test *tests)
{
    return check_main_args(argc, argv, 0, tests);
}

#endif
