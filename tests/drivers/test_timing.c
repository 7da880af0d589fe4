/* test_timing.c - the clock, its resolution and the repetition loop on
 * fake callbacks: both the repetition count and the minimum time are
 * met, warm-up runs are not sampled, a backend's own timer is used,
 * errors and stop requests end the loop, the hook before the last
 * sample runs once, right before it, the warm-up lasts its time, and the
 * wait for other threads happens only when asked. */
#include "drivers/timing.h"

#include "check.h"

typedef struct {
    int calls;
    int fail_at;               /* fail on this call (1-based), 0: never */
    double self_time;          /* report this as elapsed when >= 0 */
    double busy;               /* seconds to spin per call */
    int before_last_calls;     /* times before_last ran */
    int calls_at_before_last;  /* f->calls when it last ran */
    bool fail_before_last;
} fake;

static int fake_run(void *ctx, double *elapsed, char *err, size_t len)
{
    fake *f = ctx;
    f->calls++;
    if (f->calls == f->fail_at) {
        snprintf(err, len, "fake failure on call %d", f->calls);
        return -1;
    }
    double t0 = kb_now();
    while (kb_now() - t0 < f->busy)
        ;
    *elapsed = f->self_time;
    return 0;
}

static int fake_before_last(void *ctx, char *err, size_t len)
{
    fake *f = ctx;
    f->before_last_calls++;
    f->calls_at_before_last = f->calls;
    if (f->fail_before_last) {
        snprintf(err, len, "fake before_last failure");
        return -1;
    }
    return 0;
}

static void test_clock_and_resolution(void)
{
    double t0 = kb_now(), t1 = kb_now();
    CHECK(t1 >= t0);
    double r = kb_timer_resolution();
    CHECK(r > 0.0 && r < 1e-3);
    CHECK(kb_timer_resolution() == r);        /* measured once */
}

/* Many fast runs: the repetition count is what stops the loop. */
static void test_reps_bound(void)
{
    fake f = {.self_time = -1};
    kb_rep_opts o = {.warmup = 2, .reps = 50, .min_time = 0.0};
    kb_samples s;
    char err[128];
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.n == 50);
    CHECK(f.calls == 52);                      /* warm-up not sampled */
    CHECK(!s.self_timed);
    for (int64_t i = 0; i < s.n; i++)
        CHECK(s.v[i] >= 0.0);
    kb_samples_free(&s);
}

/* Slow-ish runs: the minimum time is what stops the loop. */
static void test_min_time_bound(void)
{
    /* min_time of 100 spins: a loaded machine that preempts the first two
     * for 30 ms (seen at load 15 on 2 cores) still leaves many to time */
    fake f = {.self_time = -1, .busy = 2e-3};
    kb_rep_opts o = {.warmup = 0, .reps = 2, .min_time = 0.2};
    kb_samples s;
    char err[128];
    double t0 = kb_now();
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    double wall = kb_now() - t0;
    CHECK(wall >= 0.2);
    CHECK(s.n > 2);
    double sum = 0;
    for (int64_t i = 0; i < s.n; i++) {
        CHECK(s.v[i] >= 2e-3);                 /* each sample covers the spin */
        sum += s.v[i];
    }
    CHECK(sum >= 0.2 - 2e-3 * 2);             /* samples cover the time */
    kb_samples_free(&s);
}

/* A self-timing callback's figure is used, not the clock's. */
static void test_self_timed(void)
{
    fake f = {.self_time = 0.25};
    kb_rep_opts o = {.warmup = 1, .reps = 4, .min_time = 0.0};
    kb_samples s;
    char err[128];
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.n == 4 && s.self_timed);
    for (int64_t i = 0; i < s.n; i++)
        CHECK(s.v[i] == 0.25);
    kb_samples_free(&s);
}

static void test_failure(void)
{
    fake f = {.self_time = -1, .fail_at = 4};
    kb_rep_opts o = {.warmup = 1, .reps = 10, .min_time = 0.0};
    kb_samples s;
    char err[128] = "";
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == -1);
    CHECK_STR(err, "fake failure on call 4");
    CHECK(s.n == 2);
    kb_samples_free(&s);
}

static int stop_calls;
static bool stop_after_three(void)
{
    return ++stop_calls > 3;
}

static void test_stopped(void)
{
    fake f = {.self_time = -1};
    kb_rep_opts o = {.warmup = 0, .reps = 100, .min_time = 0.0,
                     .stop = stop_after_three};
    kb_samples s;
    char err[128];
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 1);
    CHECK(s.n == 3 && f.calls == 3);
    kb_samples_free(&s);
}

/* A cap on samples ends a loop the minimum time would keep going, but
 * never below the repetition count. */
static void test_max_reps_cap(void)
{
    fake f = {.self_time = -1};
    kb_rep_opts o = {.warmup = 0, .reps = 5, .min_time = 60.0,
                     .max_reps = 40};
    kb_samples s;
    char err[128];
    double t0 = kb_now();
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.n == 40 && kb_now() - t0 < 30.0);
    kb_samples_free(&s);
    o = (kb_rep_opts){.warmup = 0, .reps = 12, .min_time = 0.0,
                      .max_reps = 3};
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.n == 12);
    kb_samples_free(&s);
}

/* The hook runs once, after every sample but the last: with the count
 * as the bound, with the minimum time as the bound (the count then still
 * covers the time) and at the cap. */
static void test_before_last(void)
{
    static const kb_rep_opts cases[] = {
        {.warmup = 2, .reps = 5, .min_time = 0.0},
        {.warmup = 0, .reps = 2, .min_time = 0.02},
        {.warmup = 1, .reps = 3, .min_time = 60.0, .max_reps = 7},
        {.warmup = 0, .reps = 1, .min_time = 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake f = {.self_time = -1, .busy = 1e-3};
        kb_rep_opts o = cases[i];
        o.before_last = fake_before_last;
        kb_samples s;
        char err[128];
        double t0 = kb_now();
        CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
        double wall = kb_now() - t0;
        CHECK(f.before_last_calls == 1);
        CHECK(f.calls_at_before_last == f.calls - 1);   /* right before it */
        CHECK(s.n >= o.reps && f.calls == o.warmup + s.n);
        if (o.max_reps > 0)
            CHECK(s.n == o.max_reps);
        else if (o.min_time == 0.0)
            CHECK(s.n == o.reps);       /* the checked sample is one of them */
        else
            CHECK(wall >= o.min_time);
        kb_samples_free(&s);
    }
}

/* A failing hook ends the loop before the last sample; a stop before the
 * last sample means the hook never runs. */
static void test_before_last_fails_or_stops(void)
{
    fake f = {.self_time = -1, .fail_before_last = true};
    kb_rep_opts o = {.warmup = 0, .reps = 4, .min_time = 0.0,
                     .before_last = fake_before_last};
    kb_samples s;
    char err[128] = "";
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == -1);
    CHECK_STR(err, "fake before_last failure");
    CHECK(s.n == 3 && f.calls == 3);
    kb_samples_free(&s);

    fake g = {.self_time = -1};
    stop_calls = 0;
    o = (kb_rep_opts){.warmup = 0, .reps = 100, .min_time = 0.0,
                      .stop = stop_after_three,
                      .before_last = fake_before_last};
    CHECK(kb_time_reps(fake_run, &g, &o, &s, err, sizeof err) == 1);
    CHECK(s.n == 3 && g.before_last_calls == 0);
    kb_samples_free(&s);
}

/* The warm-up lasts --warmup-time too, counted in warmup_runs; with no
 * warm-up runs asked for, the time asks for none either. */
static void test_warmup_time(void)
{
    fake f = {.self_time = -1, .busy = 1e-3};
    kb_rep_opts o = {.warmup = 1, .warmup_time = 0.05, .reps = 2};
    kb_samples s;
    char err[128];
    double t0 = kb_now();
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(kb_now() - t0 >= 0.05);
    CHECK(s.warmup_runs >= 2 && f.calls == s.warmup_runs + s.n);
    kb_samples_free(&s);

    fake g = {.self_time = -1, .busy = 1e-3};
    o.warmup = 0;
    CHECK(kb_time_reps(fake_run, &g, &o, &s, err, sizeof err) == 0);
    CHECK(s.warmup_runs == 0 && g.calls == s.n && s.n == 2);
    kb_samples_free(&s);

    fake h = {.self_time = -1};
    o = (kb_rep_opts){.warmup = 3, .reps = 1};
    CHECK(kb_time_reps(fake_run, &h, &o, &s, err, sizeof err) == 0);
    CHECK(s.warmup_runs == 3 && h.calls == 4);
    kb_samples_free(&s);
}

/* The loop waits for other threads only when asked (test_settle tests
 * the wait itself). */
static void test_settle_asked(void)
{
    fake f = {.self_time = -1};
    kb_rep_opts o = {.reps = 1};
    kb_samples s;
    char err[128];
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.settle == KB_SETTLE_OFF && s.settle_s == 0);
    kb_samples_free(&s);
    o.settle_max = 1.0;
    CHECK(kb_time_reps(fake_run, &f, &o, &s, err, sizeof err) == 0);
    CHECK(s.settle == KB_SETTLE_QUIET || s.settle == KB_SETTLE_UNAVAILABLE);
    kb_samples_free(&s);
}

static const check_test tests[] = {
    CHECK_TEST(clock_and_resolution),
    CHECK_TEST(reps_bound),
    CHECK_TEST(min_time_bound),
    CHECK_TEST(self_timed),
    CHECK_TEST(failure),
    CHECK_TEST(stopped),
    CHECK_TEST(max_reps_cap),
    CHECK_TEST(before_last),
    CHECK_TEST(before_last_fails_or_stops),
    CHECK_TEST(warmup_time),
    CHECK_TEST(settle_asked),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
