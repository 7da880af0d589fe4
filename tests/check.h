/* check.h - the smallest test harness: CHECK(cond) records a failure with
 * file and line and goes on; CHECK_DONE() prints "N passed, N failed" and
 * returns the exit status for main. */
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

#endif
