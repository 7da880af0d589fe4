/* timing.h - the timed-repetition loop, on the clock of drivers/common.
 *
 * Measurement is explicit: warm-up runs are discarded, every timed sample
 * is kept, and the loop stops only when both the repetition count and the
 * minimum total time are met, at a cap on samples, or when asked to
 * stop.  The loop knows which sample will be its last before taking it,
 * so the caller can prepare that one for a check of its output. */
#ifndef KB_TIMING_H
#define KB_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/common/clock.h"
#include "drivers/settle.h"

/* One execution of the thing being timed.  Sets *elapsed to the seconds
 * it measured itself (a GPU event timer) or to a negative value to let
 * the loop's clock count.  Returns 0, or -1 with a message in err. */
typedef int (*kb_rep_fn)(void *ctx, double *elapsed, char *err, size_t len);

typedef struct {
    double settle_max;   /* first, wait up to this many seconds for the
                            process's other threads to go idle (settle.h);
                            0: don't */
    int64_t warmup;      /* untimed runs first: at least this many ... */
    double warmup_time;  /* ... and, when warmup > 0, for at least this
                            many seconds, so cores that slept while the
                            driver waited are awake again */
    int64_t reps;        /* at least this many timed runs ... */
    double min_time;     /* ... and at least this many seconds (wall time
                            from the first timed run) ... */
    int64_t max_reps;    /* ... but no more samples than this (0: no cap),
                            so a microsecond kernel does not pile up
                            100,000 samples in the results */
    bool (*stop)(void);  /* polled between runs; NULL = never stop early */
    /* Called untimed, with fn's ctx, right before the sample the loop has
     * decided is its last (the driver restores the inputs and poisons
     * the outputs there, to check that sample).  NULL: nothing to do.
     * Returns 0, or -1 with a message in err, which ends the loop. */
    int (*before_last)(void *ctx, char *err, size_t len);
} kb_rep_opts;

/* Samples of one loop; free with kb_samples_free. */
typedef struct {
    double *v;           /* seconds, in run order */
    int64_t n, cap;
    bool self_timed;     /* every sample came from the callback's *elapsed */
    int64_t warmup_runs;      /* untimed runs before the samples */
    kb_settle_state settle;   /* how the wait before the warm-up ended */
    double settle_s;          /* and the seconds it took */
} kb_samples;

void kb_samples_free(kb_samples *s);

/* Wait for other threads as o->settle_max says, run fn o->warmup times
 * untimed, then timed.  A sample is the last
 * when, counting it, there are o->reps samples and o->min_time seconds of
 * timed running had passed before it started, or there are o->max_reps
 * samples (when not 0; it never cuts below o->reps).  So the loop takes
 * at least one sample, and o->before_last runs once, before the last.
 * Returns 0 when done (the last sample taken), 1 when o->stop asked to
 * stop (the samples so far are kept; the last was not reached), or -1
 * with a message in err when fn or o->before_last failed or memory for
 * the samples ran out. */
int kb_time_reps(kb_rep_fn fn, void *ctx, const kb_rep_opts *o,
                 kb_samples *out, char *err, size_t len);

#endif
