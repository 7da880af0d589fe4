/* timing.c - the timed-repetition loop (the clock: drivers/common). */
#include "drivers/timing.h"

#include <stdio.h>
#include <stdlib.h>

void kb_samples_free(kb_samples *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* Append x, doubling the array when full.  Returns 0, or -1 when out of
 * memory (or when the size would overflow). */
static int samples_push(kb_samples *s, double x)
{
    if (s->n == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 64;
        if ((uint64_t)cap > SIZE_MAX / sizeof *s->v)
            return -1;
        double *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

/* One run of fn; returns its seconds (its own timer when it reports one,
 * else the clock) in *seconds and whether it timed itself. */
static int timed_call(kb_rep_fn fn, void *ctx, double *seconds,
                      bool *self_timed, char *err, size_t len)
{
    double elapsed = -1.0;
    double t0 = kb_now();
    if (fn(ctx, &elapsed, err, len) != 0)
        return -1;
    double t1 = kb_now();
    *self_timed = elapsed >= 0.0;
    *seconds = *self_timed ? elapsed : t1 - t0;
    return 0;
}

int kb_time_reps(kb_rep_fn fn, void *ctx, const kb_rep_opts *o,
                 kb_samples *out, char *err, size_t len)
{
    out->v = NULL;
    out->n = out->cap = 0;
    out->self_timed = true;
    out->warmup_runs = 0;
    out->settle = kb_settle_threads(o->settle_max, &out->settle_s);

    /* Warm up by time too: after the wait above, the cores the other
     * threads left are asleep, and a virtual machine's take milliseconds
     * to wake (a 0.3 ms GEMM's first samples took 4 ms). */
    double warm_start = kb_now();
    while (out->warmup_runs < o->warmup ||
           (o->warmup > 0 && kb_now() - warm_start < o->warmup_time)) {
        if (o->stop && o->stop())
            return 1;
        double ignored = -1.0;
        if (fn(ctx, &ignored, err, len) != 0)
            return -1;
        out->warmup_runs++;
    }

    /* min_time counts wall time from the first timed run, not the sum of
     * the samples: a backend timer that reports 0 could otherwise keep
     * the loop going for ever.  It is judged before a sample starts, so
     * the loop knows that sample is the last before running it. */
    double start = kb_now();
    int64_t cap = o->max_reps <= 0 ? INT64_MAX
                  : o->max_reps > o->reps ? o->max_reps : o->reps;
    for (bool last = false; !last;) {
        if (o->stop && o->stop())
            return 1;
        last = (out->n + 1 >= o->reps && kb_now() - start >= o->min_time) ||
               out->n + 1 >= cap;
        if (last && o->before_last && o->before_last(ctx, err, len) != 0)
            return -1;
        double sec;
        bool self;
        if (timed_call(fn, ctx, &sec, &self, err, len) != 0)
            return -1;
        if (samples_push(out, sec) != 0) {
            snprintf(err, len, "out of memory keeping %lld timing samples",
                     (long long)out->n + 1);
            return -1;
        }
        out->self_timed = out->self_timed && self;
    }
    return 0;
}
