/* edivisive.c - E-Divisive means with the t-test and the merge step
 * (edivisive.h). */
#include "history/edivisive.h"
#include "history/student_t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double kb_change_forward_percent(const kb_change_point *c)
{
    return c->mean_before == 0 ? 0 : 100.0 * (c->mean_after / c->mean_before - 1.0);
}

double kb_change_magnitude(const kb_change_point *c)
{
    double fwd = c->mean_before == 0 ? 0 : c->mean_after / c->mean_before - 1.0;
    double back = c->mean_after == 0 ? 0 : c->mean_before / c->mean_after - 1.0;
    return fmax(fabs(fwd), fabs(back));
}

/* Q from the three sums: cross (between the sides), left and right
 * (within each side, every pair once), for sides of n and m points. */
static double q_of_sums(double cross, double left, double right, long n, long m)
{
    double q = 2.0 / (double)(m + n) * cross;
    if (n > 1)
        q -= 2.0 * m / ((double)(m + n) * (n - 1)) * left;
    if (m > 1)
        q -= 2.0 * n / ((double)(m + n) * (m - 1)) * right;
    return q;
}

double kb_edivisive_q(const double *x, long start, long tau, long kappa)
{
    double cross = 0, left = 0, right = 0;
    for (long i = start; i < kappa; i++)
        for (long j = i + 1; j < kappa; j++) {
            double d = fabs(x[i] - x[j]);
            if (j < tau)
                left += d;
            else if (i >= tau)
                right += d;
            else
                cross += d;
        }
    return q_of_sums(cross, left, right, tau - start, kappa - tau);
}

/* A window's distances as row prefix sums: row[j * (n + 1) + i] is the
 * sum of |x[j] - x[k]| over k < i, so any sum of one point's distances
 * over a run of points is one subtraction. */
static double *distance_prefix(const double *x, long n)
{
    double *row = malloc((size_t)(n * (n + 1)) * sizeof *row);
    if (!row)
        return NULL;
    for (long j = 0; j < n; j++) {
        double *r = row + j * (n + 1);
        r[0] = 0;
        for (long k = 0; k < n; k++)
            r[k + 1] = r[k] + fabs(x[j] - x[k]);
    }
    return row;
}

/* The tau in (s, e) that maximises Q(tau, kappa) over kappa in (tau, e],
 * the first on ties (Otava's argmax, tau before kappa); its Q in *q.
 * Each (tau, kappa) costs O(1) from the prefix sums. */
static long best_split(const double *row, long n, long s, long e, double *q)
{
    long best_tau = -1;
    double best = -INFINITY, left = 0;
#define D(J, A, B) (row[(J) * (n + 1) + (B)] - row[(J) * (n + 1) + (A)])
    for (long tau = s + 1; tau < e; tau++) {
        left += D(tau - 1, s, tau - 1);   /* x[tau-1] joins the left side */
        double cross = 0, right = 0;
        for (long kappa = tau + 1; kappa <= e; kappa++) {
            long k = kappa - 1;            /* x[k] joins the right side */
            cross += D(k, s, tau);
            right += D(k, tau, k);
            double v = q_of_sums(cross, left, right, tau - s, kappa - tau);
            if (v > best) {
                best = v;
                best_tau = tau;
            }
        }
    }
#undef D
    *q = best;
    return best_tau;
}

static void mean_std(const double *x, long a, long b, double *mean, double *std)
{
    double sum = 0;
    for (long i = a; i < b; i++)
        sum += x[i];
    *mean = sum / (double)(b - a);
    double ss = 0;
    for (long i = a; i < b; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *std = b - a >= 2 ? sqrt(ss / (double)(b - a - 1)) : 0.0;
}

/* Sidak's correction of a p-value for the best of m tests: the chance
 * that at least one of m independent tests reaches p by luck,
 * 1 - (1 - p)^m (conservative for correlated ones).  m <= 1: p itself. */
static double sidak(double p, long m)
{
    return m <= 1 ? p : -expm1((double)m * log1p(-p));
}

/* The statistics of a change at index between segments [a, index) and
 * [index, b).  Its p is the t-test's corrected for the split positions
 * the point was chosen among: E-Divisive picked it as the best split of
 * its segment, at most a window wide, so the t-test's own p (valid for a
 * split fixed in advance) would call the best of ~W noise splits
 * significant far more often than p says (docs/history.md). */
static kb_change_point compare_sides(const double *x, long a, long index, long b,
                                     long window)
{
    kb_change_point c = {.index = index};
    mean_std(x, a, index, &c.mean_before, &c.std_before);
    mean_std(x, index, b, &c.mean_after, &c.std_after);
    double p = kb_student_t_test(c.mean_before, c.std_before, index - a,
                                 c.mean_after, c.std_after, b - index);
    long positions = (b - a < window ? b - a : window) - 1;
    c.pvalue = sidak(p, positions);
    return c;
}

/* Indices sorted, with the point inserted; cap is known large enough. */
static void insert_sorted(long *idx, long *n, long v)
{
    long i = *n;
    while (i > 0 && idx[i - 1] > v) {
        idx[i] = idx[i - 1];
        i--;
    }
    idx[i] = v;
    (*n)++;
}

/* E-Divisive on w[0..n): significant points (p <= p1) in found[], their
 * count returned; -1 when out of memory.  found has room for n. */
static long divide_window(const double *w, long n, double p1, long *found)
{
    double *row = distance_prefix(w, n);
    if (!row)
        return -1;
    long nf = 0;
    for (;;) {
        /* the best candidate over every segment between points found */
        long best_tau = -1, seg_a = 0, seg_b = 0;
        double best_q = -INFINITY;
        for (long s = 0; s <= nf; s++) {
            long a = s ? found[s - 1] : 0, b = s < nf ? found[s] : n;
            if (b - a < 2)
                continue;
            double q;
            long tau = best_split(row, n, a, b, &q);
            if (tau >= 0 && q > best_q) {
                best_q = q;
                best_tau = tau;
                seg_a = a;
                seg_b = b;
            }
        }
        if (best_tau < 0 || compare_sides(w, seg_a, best_tau, seg_b, n).pvalue > p1)
            break;
        insert_sorted(found, &nf, best_tau);
    }
    free(row);
    return nf;
}

/* The split step: windows of `window` points stepping by half (or to the
 * last point found), the union of their points, sorted.  Returns the
 * count, -1 when out of memory. */
static long split(const double *x, long n, long window, double p1, long *idx)
{
    long *found = malloc((size_t)window * sizeof *found);
    if (!found)
        return -1;
    long count = 0, step = window / 2;
    for (long start = 0; start < n;) {
        long end = start + window < n ? start + window : n;
        long nf = divide_window(x + start, end - start, p1, found);
        if (nf < 0) {
            free(found);
            return -1;
        }
        for (long i = 0; i < nf; i++) {
            long v = found[i] + start, dup = 0;
            for (long k = 0; k < count; k++)
                dup |= idx[k] == v;
            if (!dup)
                insert_sorted(idx, &count, v);
        }
        long last = nf ? found[nf - 1] + start : 0;
        start = last > start + step ? last : start + step;
    }
    free(found);
    return count;
}

/* The statistics of points[i] between its neighbours. */
static void restat(const double *x, long n, long window, kb_change_point *pt,
                   long count, long i)
{
    if (i < 0 || i >= count)
        return;
    long a = i ? pt[i - 1].index : 0, b = i + 1 < count ? pt[i + 1].index : n;
    pt[i] = compare_sides(x, a, pt[i].index, b, window);
}

long kb_edivisive_changes(const double *x, long n, long window, double p,
                          double min_magnitude, kb_change_point **out)
{
    *out = NULL;
    if (n < 3)
        return 0;
    /* Otava's looser first pass */
    double p1 = p < 0.05 ? p * 10 : p < 0.5 ? p * 2 : p;
    long *idx = malloc((size_t)n * sizeof *idx);
    if (!idx)
        return -1;
    long count = split(x, n, window, p1, idx);
    kb_change_point *pt = count > 0 ? malloc((size_t)count * sizeof *pt) : NULL;
    if (count < 0 || (count > 0 && !pt)) {
        free(idx);
        return -1;
    }
    for (long i = 0; i < count; i++)
        pt[i].index = idx[i];
    free(idx);
    for (long i = 0; i < count; i++)
        restat(x, n, window, pt, count, i);
    /* The merge step: drop the weakest until every point passes. */
    while (count > 0) {
        long weak = 0;
        for (long i = 1; i < count; i++)
            if (pt[i].pvalue > pt[weak].pvalue)
                weak = i;
        if (pt[weak].pvalue < p) {
            weak = 0;
            for (long i = 1; i < count; i++)
                if (kb_change_magnitude(&pt[i]) < kb_change_magnitude(&pt[weak]))
                    weak = i;
            if (kb_change_magnitude(&pt[weak]) > min_magnitude)
                break;
        }
        memmove(pt + weak, pt + weak + 1, (size_t)(count - weak - 1) * sizeof *pt);
        count--;
        /* both neighbours of the dropped point (Otava: the right one and
         * the one after it) */
        restat(x, n, window, pt, count, weak - 1);
        restat(x, n, window, pt, count, weak);
    }
    if (count == 0) {
        free(pt);
        pt = NULL;
    }
    *out = pt;
    return count;
}
