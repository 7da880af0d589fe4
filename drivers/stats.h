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

#endif
