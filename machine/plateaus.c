/* plateaus.c - the flat stretches of a bandwidth sweep, one per memory
 * level (L1, L2, L3, DRAM); a pure function, tested on synthetic data. */
#include "machine/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_RUN 3          /* points that make a plateau */

const char *kb_mem_level_name(int level)
{
    static const char *const names[KB_MEM_LEVELS] = {"L1", "L2", "L3", "DRAM"};
    return level >= 0 && level < KB_MEM_LEVELS ? names[level] : "?";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median bandwidth of pts[from..to); n <= KB_MAX_SWEEP points at most. */
static double median_gbps(const kb_sweep_point *pts, int from, int to)
{
    double v[KB_MAX_SWEEP];
    int n = 0;
    for (int i = from; i < to && n < KB_MAX_SWEEP; i++)
        v[n++] = pts[i].gbps;
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Split pts into maximal runs whose points all lie within rel_tol of the
 * run's median; starts[k], ends[k] bound run k.  Returns the run count. */
static int find_runs(const kb_sweep_point *pts, int n, double rel_tol,
                     int *starts, int *ends)
{
    int nruns = 0, i = 0;
    while (i < n) {
        int j = i + 1;
        while (j < n) {
            double med = median_gbps(pts, i, j + 1);
            int ok = 1;
            for (int k = i; k <= j; k++)
                ok &= fabs(pts[k].gbps - med) <= rel_tol * med;
            if (!ok)
                break;
            j++;
        }
        starts[nruns] = i;
        ends[nruns] = j;
        nruns++;
        i = j;
    }
    return nruns;
}

/* The plateau of the points of run [s, e) whose size is in (lo, hi]. */
static kb_plateau clip_run(const kb_sweep_point *pts, int s, int e, double lo,
                           double hi)
{
    kb_plateau p = {0};
    int from = -1, to = -1;
    for (int k = s; k < e; k++) {
        if (pts[k].bytes > lo && pts[k].bytes <= hi) {
            if (from < 0)
                from = k;
            to = k + 1;
        }
    }
    if (from < 0 || to - from < MIN_RUN)
        return p;
    p.found = true;
    p.npoints = to - from;
    p.gbps = median_gbps(pts, from, to);
    p.from_bytes = pts[from].bytes;
    p.to_bytes = pts[to - 1].bytes;
    return p;
}

void kb_detect_plateaus(const kb_sweep_point *pts, int n, const double caps[3],
                        double rel_tol, kb_plateau out[KB_MEM_LEVELS])
{
    int starts[KB_MAX_SWEEP], ends[KB_MAX_SWEEP];
    memset(out, 0, KB_MEM_LEVELS * sizeof out[0]);
    if (n > KB_MAX_SWEEP)
        n = KB_MAX_SWEEP;
    int nruns = find_runs(pts, n, rel_tol, starts, ends);
    bool known = caps[0] > 0 && caps[1] > caps[0] && caps[2] > caps[1];

    if (!known) {
        /* no cache sizes: the runs in size order are L1, L2, ... and the
         * last one is DRAM only when all four levels showed */
        int level = 0, found[KB_MAX_SWEEP], nfound = 0;
        for (int r = 0; r < nruns; r++)
            if (ends[r] - starts[r] >= MIN_RUN)
                found[nfound++] = r;
        for (int k = 0; k < nfound && level < KB_MEM_LEVELS; k++) {
            if (level == KB_MEM_LEVELS - 1 && nfound != KB_MEM_LEVELS)
                break;
            out[level++] = clip_run(pts, starts[found[k]], ends[found[k]], -1, INFINITY);
        }
        return;
    }
    const double lo[KB_MEM_LEVELS] = {0, caps[0], caps[1], caps[2]};
    const double hi[KB_MEM_LEVELS] = {caps[0], caps[1], caps[2], INFINITY};
    for (int l = 0; l < KB_MEM_LEVELS; l++) {
        for (int r = 0; r < nruns; r++) {
            kb_plateau p = clip_run(pts, starts[r], ends[r], lo[l], hi[l]);
            if (p.found && p.npoints > out[l].npoints)
                out[l] = p;
        }
    }
}
