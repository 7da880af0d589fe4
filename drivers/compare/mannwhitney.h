/* mannwhitney.h - the statistics behind `kbench compare`: the two-sided
 * Mann-Whitney U test and the Hodges-Lehmann shift with its confidence
 * interval, both from the distribution of U. */
#ifndef KB_MANNWHITNEY_H
#define KB_MANNWHITNEY_H

#include <stdbool.h>
#include <stdint.h>

/* The exact distribution of U is used when the pooled sample has no ties
 * and both samples hold at most this many values; otherwise the normal
 * approximation, with the tie correction of the variance. */
#define KB_MW_EXACT_MAX 100

typedef enum { KB_MW_EXACT, KB_MW_NORMAL } kb_mw_method;
const char *kb_mw_method_name(kb_mw_method m);   /* "exact", "normal" */

typedef struct {
    double u;              /* U of x: pairs x_i > y_j, a tie counting 1/2 */
    double p;              /* two-sided p-value */
    kb_mw_method method;
    bool ties;             /* some value occurs more than once */
} kb_mw_result;

/* Two-sided Mann-Whitney U test of x[n1] against y[n2] (n1, n2 >= 1).
 * Exact: p = 2 P(U <= min(U, n1 n2 - U)), at most 1.  Normal:
 * z = (|U - n1 n2 / 2| - 1/2) / sigma, the 1/2 a continuity correction,
 * sigma^2 = n1 n2 / 12 (N + 1 - sum(t^3 - t) / (N (N - 1))) over the tie
 * groups t (N = n1 + n2); p = 1 when every value is equal.  The same
 * figures as SciPy's mannwhitneyu(method='exact' or 'asymptotic').
 * Returns 0, or -1 when out of memory. */
int kb_mw_test(const double *x, int64_t n1, const double *y, int64_t n2,
               kb_mw_result *r);

/* The confidence level of every interval compare reports. */
#define KB_HL_CONFIDENCE 0.95

typedef struct {
    double estimate;       /* median of every x_i - y_j */
    double lo, hi;         /* the KB_HL_CONFIDENCE interval of the shift */
    double confidence;     /* achieved: exact, the level the chosen order
                              statistics give (at least 95 % when the
                              samples allow it); normal, the nominal 95 % */
    kb_mw_method method;   /* chosen as for the test */
} kb_hl_result;

/* Hodges-Lehmann estimate of the shift between x[n1] and y[n2] (n1, n2
 * >= 1) and its confidence interval: the k-th smallest and the k-th
 * largest of the n1 n2 differences x_i - y_j, k from U's distribution.
 * Exact (as R's wilcox.test): k is the smallest u with P(U <= u) >=
 * alpha / 2, at least 1, and the achieved confidence 1 - 2 P(U <= k - 1).
 * Normal: k = n1 n2 / 2 - 1.96 sigma (sigma as for the test), rounded to
 * the nearest integer, at least 1.  The differences are never stored:
 * each order statistic is found by counting, so memory stays O(n1 + n2).
 * Returns 0, or -1 when out of memory. */
int kb_hl_shift(const double *x, int64_t n1, const double *y, int64_t n2,
                kb_hl_result *r);

#endif
