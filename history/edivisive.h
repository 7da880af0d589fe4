/* edivisive.h - change points in one series by E-Divisive means with the
 * Student t-test and the merge step, the method of Apache Otava 0.8
 * (Fleming et al., "Hunter", ICPE 2023), written anew in C.
 *
 * Split: E-Divisive runs on windows of W points that step by W/2 (the
 * next window starts at the last point found, if that is further); in
 * each window the candidate that maximises the energy statistic Q is
 * kept while its t-test p-value is at most a looser first-pass p (10 x p
 * below 0.05).  Merge: while some point has p >= the threshold, or the
 * smallest magnitude is at most the minimum, that point is dropped and
 * its neighbours' statistics recomputed.
 *
 * Three places where kbench differs from Otava 0.8 (docs/history.md):
 * each point's p is the t-test's corrected (Sidak) for the split
 * positions E-Divisive chose it among, where Otava uses the t-test's p as
 * if the split had been fixed in advance (so noise gives false changes);
 * the t-test gets sample standard deviations (n-1), where Otava passes
 * NumPy's population ones; and after dropping a point, both neighbours
 * (left and right) are recomputed, where Otava recomputes the right
 * neighbour and the one after it, leaving the left one stale. */
#ifndef KB_EDIVISIVE_H
#define KB_EDIVISIVE_H

/* One change point: the run at index is the first after the change. */
typedef struct {
    long index;
    double mean_before, mean_after;   /* of the segments either side */
    double std_before, std_after;     /* sample standard deviations */
    double pvalue;                    /* two-sided Student t-test, corrected
                                         for the split positions */
} kb_change_point;

/* Otava's forward change: mean_after / mean_before - 1, in percent (0
 * when mean_before is 0). */
double kb_change_forward_percent(const kb_change_point *c);

/* Otava's magnitude: the larger of |after/before - 1| and
 * |before/after - 1| (a ratio, not percent). */
double kb_change_magnitude(const kb_change_point *c);

/* Q(tau, kappa) of x[start..kappa): the E-Divisive energy statistic
 * (alpha 1) between x[start..tau) and x[tau..kappa), for
 * start < tau < kappa.  For tests; O((kappa - start)^2). */
double kb_edivisive_q(const double *x, long start, long tau, long kappa);

/* The change points of x[0..n), sorted by index, into *out (malloc'd,
 * *out NULL when none).  window >= 2, p in (0, 1), min_magnitude >= 0.
 * Returns the count, or -1 when out of memory. */
long kb_edivisive_changes(const double *x, long n, long window, double p,
                          double min_magnitude, kb_change_point **out);

#endif
