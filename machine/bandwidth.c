/* bandwidth.c - memory ceilings: STREAM's kernels under STREAM's rules for
 * the DRAM figure, and a working-set sweep for the cache plateaus. */
#include "drivers/common/clock.h"
#include "machine/machine.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_SCALAR 3.0

static volatile double bw_sink;

/* Pin every thread of a team of `threads` to its own allowed CPU.  GNU
 * OpenMP keeps its pool, so later regions of the same size run on the
 * same pinned threads (the effect of OMP_PROC_BIND=close). */
static void pin_team(int threads)
{
    int cpus[1024];
    int ncpu = kb_allowed_cpus(cpus, 1024);
#pragma omp parallel num_threads(threads)
    if (ncpu > 0)
        kb_pin_self(cpus[omp_get_thread_num() % ncpu]);
}

/* 64-byte aligned doubles, or NULL. */
static double *alloc_doubles(size_t n)
{
    void *p = NULL;
    if (n > SIZE_MAX / sizeof(double) || posix_memalign(&p, 64, n * sizeof(double)))
        return NULL;
    return p;
}

/* ---- STREAM ----------------------------------------------------------- */

/* Words moved per element, counted as STREAM does: reads plus writes,
 * without the write-allocate reads of the stored lines. */
static const char *const stream_names[KB_STREAM_KERNELS] = {
    "copy", "scale", "add", "triad", "read"};
static const double stream_words[KB_STREAM_KERNELS] = {2, 2, 3, 3, 1};

/* One repetition of the five kernels; times[k] gets kernel k's seconds.
 * Each loop has the static schedule of the first touch, so every thread
 * works on the pages it placed.  Returns the read kernel's sum. */
static double stream_rep(int threads, double *a, double *b, double *c,
                         size_t n, double times[KB_STREAM_KERNELS])
{
    const double s = STREAM_SCALAR;
    double sum = 0, t;
    t = kb_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
    times[0] = kb_now() - t;
    t = kb_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        b[i] = s * c[i];
    times[1] = kb_now() - t;
    t = kb_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    times[2] = kb_now() - t;
    t = kb_now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
    times[3] = kb_now() - t;
    t = kb_now();
#pragma omp parallel for simd num_threads(threads) schedule(static) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += a[i];
    times[4] = kb_now() - t;
    return sum;
}

/* STREAM's check: replay the kernels on scalars and compare the mean
 * relative error of each array (and the read sum) with a tolerance.
 * Returns 0, or -1 with err naming the array. */
static int stream_check(const double *a, const double *b, const double *c,
                        size_t n, int reps, double sum, char *err, size_t errlen)
{
    const double s = STREAM_SCALAR;
    double aj = 1, bj = 2, cj = 0;
    for (int r = 0; r < reps; r++) {
        cj = aj;
        bj = s * cj;
        cj = aj + bj;
        aj = bj + s * cj;
    }
    const double *arr[3] = {a, b, c};
    const double want[3] = {aj, bj, cj};
    for (int k = 0; k < 3; k++) {
        double e = 0;
        for (size_t i = 0; i < n; i++)
            e += fabs(arr[k][i] - want[k]);
        if (e / (double)n > 1e-13 * fabs(want[k])) {
            snprintf(err, errlen, "STREAM check failed: array %c off by %g on average",
                     "abc"[k], e / (double)n);
            return -1;
        }
    }
    if (fabs(sum - (double)n * aj) > 1e-9 * (double)n * aj) {
        snprintf(err, errlen, "STREAM check failed: read sum %.17g, expected %.17g",
                 sum, (double)n * aj);
        return -1;
    }
    return 0;
}

int kb_stream(int threads, size_t n, int reps,
              kb_stream_result out[KB_STREAM_KERNELS], char *err, size_t errlen)
{
    double *a = alloc_doubles(n), *b = alloc_doubles(n), *c = alloc_doubles(n);
    double times[KB_STREAM_KERNELS], sum = 0;
    int rc = -1;
    if (!a || !b || !c || reps < 2) {
        snprintf(err, errlen, reps < 2 ? "STREAM needs at least 2 repetitions"
                 : "out of memory for 3 STREAM arrays of %zu doubles", n);
        goto done;
    }
    pin_team(threads);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1;
        b[i] = 2;
        c[i] = 0;
    }
    for (int k = 0; k < KB_STREAM_KERNELS; k++)
        out[k] = (kb_stream_result){stream_names[k], 0, 1e300, 0, 0};
    for (int r = 0; r < reps; r++) {
        sum = stream_rep(threads, a, b, c, n, times);
        for (int k = 0; r > 0 && k < KB_STREAM_KERNELS; k++) {  /* r = 0 discarded */
            out[k].min_s = fmin(out[k].min_s, times[k]);
            out[k].max_s = fmax(out[k].max_s, times[k]);
            out[k].avg_s += times[k] / (reps - 1);
        }
    }
    for (int k = 0; k < KB_STREAM_KERNELS; k++)
        out[k].gbps = stream_words[k] * sizeof(double) * (double)n / out[k].min_s * 1e-9;
    rc = stream_check(a, b, c, n, reps, sum, err, errlen);
done:
    free(a);
    free(b);
    free(c);
    return rc;
}

/* ---- working-set sweep ----------------------------------------------- */

/* `passes` in-place updates of a[0..m): one load and one store a word. */
static void update_passes(double *a, size_t m, int64_t passes)
{
    for (int64_t p = 0; p < passes; p++)
#pragma omp simd
        for (size_t i = 0; i < m; i++)
            a[i] = a[i] * 0.5 + 1.0;
}

/* Best seconds over `trials` of every thread updating m words of its own
 * buffer `passes` times, all starting together. */
static double time_update(int threads, double **bufs, size_t m, int64_t passes,
                          int trials)
{
    double best = 1e300;
#pragma omp parallel num_threads(threads)
    {
        double *a = bufs[omp_get_thread_num()];
        for (int r = 0; r < trials; r++) {
            double t0 = 0;
#pragma omp barrier
#pragma omp master
            t0 = kb_now();
            update_passes(a, m, passes);
#pragma omp barrier
#pragma omp master
            best = fmin(best, kb_now() - t0);
        }
#pragma omp atomic
        bw_sink += a[0];
    }
    return best;
}

int kb_bandwidth_sweep(int threads, double min_bytes, double max_bytes,
                       int steps_per_octave, double trial_s,
                       kb_sweep_point *out, int max, char *err, size_t errlen)
{
    /* each thread owns max_bytes / threads, first-touched by itself */
    size_t per_thread = (size_t)(max_bytes / threads / sizeof(double)) + 8;
    double **bufs = calloc((size_t)threads, sizeof *bufs);
    int n = -1, fail = 0;
    if (!bufs) {
        snprintf(err, errlen, "out of memory for %d sweep buffers", threads);
        return -1;
    }
    pin_team(threads);
#pragma omp parallel num_threads(threads) reduction(| : fail)
    {
        double *a = alloc_doubles(per_thread);
        bufs[omp_get_thread_num()] = a;
        fail = !a;
        for (size_t i = 0; a && i < per_thread; i++)
            a[i] = 1;
    }
    if (fail) {
        snprintf(err, errlen, "out of memory for a %g-byte sweep", max_bytes);
        goto done;
    }
    n = 0;
    for (int i = 0; n < max; i++) {
        double bytes = min_bytes * pow(2.0, (double)i / steps_per_octave);
        /* whole cache lines per thread */
        size_t m = ((size_t)(bytes / threads / sizeof(double)) + 7) & ~(size_t)7;
        if (bytes > max_bytes * 1.0001 || m > per_thread)
            break;
        double total = (double)m * sizeof(double) * threads;
        /* one probe sizes the passes so a trial lasts about trial_s */
        int64_t probe = (int64_t)(1 + (1 << 24) / total);
        double dt = time_update(threads, bufs, m, probe, 1);
        int64_t passes = (int64_t)fmax(1.0, (double)probe * trial_s / fmax(dt, 1e-9));
        dt = time_update(threads, bufs, m, passes, 3);
        out[n++] = (kb_sweep_point){total, 2.0 * total * (double)passes / dt * 1e-9};
    }
done:
    for (int t = 0; t < threads; t++)
        free(bufs[t]);
    free(bufs);
    return n;
}
