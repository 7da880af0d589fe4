/* mannwhitney.c - the Mann-Whitney U test and the Hodges-Lehmann interval
 * (mannwhitney.h): ranks, U's exact distribution, and the order
 * statistics of the pairwise differences found without storing them. */
#include "drivers/compare/mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The standard normal's 0.975 quantile, for the 95 % normal interval. */
#define Z_975 1.959963984540054

const char *kb_mw_method_name(kb_mw_method m)
{
    return m == KB_MW_EXACT ? "exact" : "normal";
}

typedef struct {
    double value;
    int from_x;
} pooled;

static int cmp_pooled(const void *a, const void *b)
{
    double x = ((const pooled *)a)->value, y = ((const pooled *)b)->value;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* What the test and the interval need from the pooled ranks. */
typedef struct {
    double u;          /* U of x */
    double tie_sum;    /* sum of t^3 - t over the groups of equal values */
    kb_mw_method method;
} ranks;

/* Mid-ranks of the pooled sample.  Returns 0, or -1 when out of memory. */
static int rank_samples(const double *x, int64_t n1, const double *y,
                        int64_t n2, ranks *r)
{
    int64_t n = n1 + n2;
    pooled *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (int64_t i = 0; i < n; i++)
        v[i] = i < n1 ? (pooled){x[i], 1} : (pooled){y[i - n1], 0};
    qsort(v, (size_t)n, sizeof *v, cmp_pooled);
    double rank_sum_x = 0;
    r->tie_sum = 0;
    for (int64_t i = 0, j; i < n; i = j) {
        int64_t in_x = 0;
        for (j = i; j < n && v[j].value == v[i].value; j++)
            in_x += v[j].from_x;
        double t = (double)(j - i), mid_rank = 0.5 * (double)(i + 1 + j);
        rank_sum_x += mid_rank * (double)in_x;
        r->tie_sum += t * t * t - t;
    }
    free(v);
    r->u = rank_sum_x - 0.5 * (double)n1 * (double)(n1 + 1);
    r->method = (r->tie_sum == 0 && n1 <= KB_MW_EXACT_MAX && n2 <= KB_MW_EXACT_MAX)
                    ? KB_MW_EXACT : KB_MW_NORMAL;
    return 0;
}

/* U's standard deviation under the null, corrected for ties. */
static double u_sigma(int64_t n1, int64_t n2, double tie_sum)
{
    double n = (double)(n1 + n2);
    return sqrt((double)n1 * (double)n2 / 12.0 *
                ((n + 1.0) - tie_sum / (n * (n - 1.0))));
}

/* cdf[u] = P(U <= u), u = 0 .. m n, without ties.  The frequencies of U
 * over the C(m+n, m) orderings are the coefficients of the Gaussian
 * binomial prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), built one factor at a
 * time (after factor i the polynomial is [n+i choose i]_q, of degree i n).
 * A coefficient is computed from lower ones only, so the lower tail that
 * p-values sum keeps full relative precision even where the middle
 * coefficients exceed 2^53.  Returns NULL when out of memory. */
static double *u_cdf(int64_t m, int64_t n)
{
    int64_t top = m * n;
    double *c = calloc((size_t)(top + m + 1), sizeof *c);
    if (!c)
        return NULL;
    c[0] = 1;
    for (int64_t i = 1; i <= m; i++) {
        int64_t deg = (i - 1) * n + n + i;   /* after the multiplication */
        for (int64_t k = deg; k >= n + i; k--)
            c[k] -= c[k - n - i];
        for (int64_t k = i; k <= i * n; k++)
            c[k] += c[k - i];
        for (int64_t k = i * n + 1; k <= deg; k++)
            c[k] = 0;   /* exactly 0 in integers; drop the rounding */
    }
    double total = 0;
    for (int64_t k = 0; k <= top; k++)
        total += c[k];
    double run = 0;
    for (int64_t k = 0; k <= top; k++) {
        run += c[k];
        c[k] = run / total;
    }
    return c;
}

int kb_mw_test(const double *x, int64_t n1, const double *y, int64_t n2,
               kb_mw_result *r)
{
    ranks rk;
    if (rank_samples(x, n1, y, n2, &rk) != 0)
        return -1;
    double mn = (double)n1 * (double)n2;
    r->u = rk.u;
    r->ties = rk.tie_sum > 0;
    r->method = rk.method;
    if (rk.method == KB_MW_EXACT) {
        double *cdf = u_cdf(n1, n2);
        if (!cdf)
            return -1;
        int64_t u_min = (int64_t)fmin(rk.u, mn - rk.u);   /* an integer */
        r->p = fmin(1.0, 2.0 * cdf[u_min]);
        free(cdf);
        return 0;
    }
    double sigma = u_sigma(n1, n2, rk.tie_sum);
    if (!(sigma > 0)) {   /* every value equal: nothing tells them apart */
        r->p = 1.0;
        return 0;
    }
    double z = (fabs(rk.u - 0.5 * mn) - 0.5) / sigma;
    r->p = fmin(1.0, erfc(z / sqrt(2.0)));
    return 0;
}

/* ---- order statistics of the differences xs[i] - ys[j] ---------------- */

/* Doubles mapped to unsigned integers in the same order (negative values
 * have their bits flipped), so that a bisection over the integers visits
 * every double between two values in at most 64 steps. */
static uint64_t order_key(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return (b >> 63) ? ~b : b | (UINT64_C(1) << 63);
}

static double key_value(uint64_t k)
{
    uint64_t b = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* How many xs[i] - ys[j] <= t, both sorted ascending.  The difference
 * grows with i and falls with j (also in floating point), so the first
 * j where it is <= t only moves right: O(m + n). */
static int64_t count_at_most(const double *xs, int64_t m, const double *ys,
                             int64_t n, double t)
{
    int64_t count = 0, j = 0;
    for (int64_t i = 0; i < m; i++) {
        while (j < n && xs[i] - ys[j] > t)
            j++;
        count += n - j;
    }
    return count;
}

/* The k-th smallest difference (1-based): the smallest double t with at
 * least k differences <= t, which is one of the differences. */
static double kth_difference(const double *xs, int64_t m, const double *ys,
                             int64_t n, int64_t k)
{
    uint64_t lo = order_key(xs[0] - ys[n - 1]), hi = order_key(xs[m - 1] - ys[0]);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (count_at_most(xs, m, ys, n, key_value(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return key_value(lo);
}

/* The k of the interval: its ends are the k-th smallest and largest
 * differences.  Returns 0 and the achieved confidence, or -1. */
static int interval_rank(int64_t n1, int64_t n2, const ranks *rk, int64_t *k,
                         double *confidence)
{
    double mn = (double)n1 * (double)n2;
    if (rk->method == KB_MW_NORMAL) {
        *k = (int64_t)floor(0.5 * mn - Z_975 * u_sigma(n1, n2, rk->tie_sum) + 0.5);
        *k = *k < 1 ? 1 : *k;
        *confidence = KB_HL_CONFIDENCE;
        return 0;
    }
    double *cdf = u_cdf(n1, n2);
    if (!cdf)
        return -1;
    double half_alpha = 0.5 * (1.0 - KB_HL_CONFIDENCE);
    int64_t u = 0;
    while (cdf[u] < half_alpha)
        u++;
    *k = u < 1 ? 1 : u;
    *confidence = 1.0 - 2.0 * cdf[*k - 1];
    free(cdf);
    return 0;
}

int kb_hl_shift(const double *x, int64_t n1, const double *y, int64_t n2,
                kb_hl_result *r)
{
    ranks rk;
    double *xs = malloc((size_t)n1 * sizeof *xs);
    double *ys = malloc((size_t)n2 * sizeof *ys);
    int64_t k;
    if (!xs || !ys || rank_samples(x, n1, y, n2, &rk) != 0 ||
        interval_rank(n1, n2, &rk, &k, &r->confidence) != 0) {
        free(xs);
        free(ys);
        return -1;
    }
    memcpy(xs, x, (size_t)n1 * sizeof *xs);
    memcpy(ys, y, (size_t)n2 * sizeof *ys);
    qsort(xs, (size_t)n1, sizeof *xs, cmp_double);
    qsort(ys, (size_t)n2, sizeof *ys, cmp_double);
    int64_t mn = n1 * n2;
    r->method = rk.method;
    r->lo = kth_difference(xs, n1, ys, n2, k);
    r->hi = kth_difference(xs, n1, ys, n2, mn + 1 - k);
    r->estimate = kth_difference(xs, n1, ys, n2, (mn + 1) / 2);
    if (mn % 2 == 0)
        r->estimate = 0.5 * (r->estimate + kth_difference(xs, n1, ys, n2, mn / 2 + 1));
    free(xs);
    free(ys);
    return 0;
}
