/* stats.c - summary statistics over timing samples (see stats.h). */
#include "drivers/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A sorted copy of v[0, n), so that the caller's order (run order, which
 * compare/report may use) is kept; NULL when it cannot be allocated. */
static double *sorted_copy(const double *v, int64_t n)
{
    double *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return NULL;
    memcpy(sorted, v, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    return sorted;
}

/* Median of n >= 1 samples: the middle one, or the average of the middle
 * two when n is even.  Returns NaN when the sorted copy cannot be
 * allocated: a visible hole rather than a wrong figure. */
double kb_median(const double *samples, int64_t n)
{
    double *sorted = sorted_copy(samples, n);
    if (!sorted)
        return NAN;
    double m = (n % 2) ? sorted[n / 2]
                       : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    free(sorted);
    return m;
}

/* Type 7: h = q (n - 1); the value at rank floor(h), plus the fraction
 * h - floor(h) of the step to the next rank. */
double kb_quantile(const double *v, int64_t n, double q)
{
    if (!(q >= 0 && q <= 1))
        return NAN;
    double *sorted = sorted_copy(v, n);
    if (!sorted)
        return NAN;
    double h = q * (double)(n - 1);
    int64_t lo = (int64_t)floor(h);
    double x = sorted[lo];
    if (lo + 1 < n)
        x += (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
    free(sorted);
    return x;
}

/* Can't fail, except that the median is NaN when out of memory. */
void kb_stats_compute(const double *samples, int64_t n, kb_stats *s)
{
    memset(s, 0, sizeof *s);
    if (n < 1)
        return;
    /* Welford's update: one pass, no cancellation when samples are close
     * together, which timing samples usually are. */
    double mean = 0.0, m2 = 0.0;
    s->min = s->max = samples[0];
    for (int64_t i = 0; i < n; i++) {
        double x = samples[i];
        double delta = x - mean;
        mean += delta / (double)(i + 1);
        m2 += delta * (x - mean);
        if (x < s->min)
            s->min = x;
        if (x > s->max)
            s->max = x;
    }
    s->mean = mean;
    s->stddev = (n > 1) ? sqrt(m2 / (double)(n - 1)) : 0.0;
    s->cv = (mean != 0.0) ? s->stddev / mean : 0.0;
    s->median = kb_median(samples, n);
}

/* Median of |v[i] - median|, times 1.4826 (1 / the normal distribution's
 * 0.75 quantile) so that it estimates sigma.  Returns NaN when out of
 * memory, like kb_median. */
double kb_mad(const double *v, int64_t n)
{
    double m = kb_median(v, n);
    double *dev = malloc((size_t)n * sizeof *dev);
    if (!dev || isnan(m)) {
        free(dev);
        return NAN;
    }
    for (int64_t i = 0; i < n; i++)
        dev[i] = fabs(v[i] - m);
    double mad = 1.4826 * kb_median(dev, n);
    free(dev);
    return mad;
}
