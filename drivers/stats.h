/* stats.h - summary statistics over timing samples. */
#ifndef KB_STATS_H
#define KB_STATS_H

#include <stdint.h>

typedef struct {
    double min, median, mean, max, stddev, cv;   /* cv = stddev / mean */
} kb_stats;

/* Statistics of n >= 1 samples (the input is not reordered).  stddev is
 * the sample standard deviation (n - 1); 0 when n == 1. */
void kb_stats_compute(const double *samples, int64_t n, kb_stats *s);

/* Median of n >= 1 values (the input is not reordered). */
double kb_median(const double *v, int64_t n);

/* The q-quantile (0 <= q <= 1) of n >= 1 values (the input is not
 * reordered), interpolated linearly between the two closest ranks:
 * Hyndman and Fan's type 7, the default of R and numpy, so that q = 0.5 is
 * the median of kb_median and q = 0 and 1 are the min and max.  NaN when
 * out of memory or q is outside [0, 1]. */
double kb_quantile(const double *v, int64_t n, double q);

/* Median absolute deviation from the median, scaled by 1.4826 so that it
 * estimates the standard deviation of normal data; 0 when n == 1. */
double kb_mad(const double *v, int64_t n);

#endif
