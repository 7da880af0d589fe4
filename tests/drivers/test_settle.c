/* test_settle.c - the wait for the process's other threads: none to wait
 * for, one that spins a while and stops (the wait lasts about as long),
 * one that never stops (the wait gives up at its limit). */
#include "drivers/settle.h"

#include "drivers/common/clock.h"

#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

static atomic_bool stop_spinning, spinning;

/* Spin until stop_spinning, or for *(double *)arg seconds when > 0. */
static void *spinner(void *arg)
{
    double seconds = *(const double *)arg, t0 = kb_now();
    atomic_store(&spinning, true);
    while (!atomic_load(&stop_spinning) &&
           (seconds <= 0 || kb_now() - t0 < seconds))
        ;
    return NULL;
}

/* Start a spinner (spinner's arg: seconds) and return once it spins, so
 * the wait cannot look before it starts.  false when it could not start. */
static bool start_spinner(pthread_t *t, double *seconds)
{
    atomic_store(&stop_spinning, false);
    atomic_store(&spinning, false);
    if (pthread_create(t, NULL, spinner, seconds) != 0)
        return false;
    while (!atomic_load(&spinning))
        ;
    return true;
}

/* Does this kernel show per-thread CPU time? */
static bool observable(void)
{
    double waited;
    return kb_settle_threads(1.0, &waited) != KB_SETTLE_UNAVAILABLE;
}

#define NOT_OBSERVABLE "no /proc/self/task here"


static void test_nothing_to_wait_for(void)
{
    double waited = -1;
    CHECK(kb_settle_threads(0, &waited) == KB_SETTLE_OFF && waited == 0);
    if (!observable())
        CHECK_SKIP(NOT_OBSERVABLE);
    CHECK(kb_settle_threads(1.0, &waited) == KB_SETTLE_QUIET);
    CHECK(waited == 0);
}

/* A pool's worker spinning 0.2 s after its last task, as OpenBLAS's does
 * for 0.1 s: the wait ends after it stops, not before. */
static void test_waits_for_a_spinner(void)
{
    if (!observable())
        CHECK_SKIP(NOT_OBSERVABLE);
    double spin = 0.2, waited;
    double t0 = kb_now();
    pthread_t t;
    bool started = start_spinner(&t, &spin);
    CHECK(started);
    if (!started)
        return;
    CHECK(kb_settle_threads(5.0, &waited) == KB_SETTLE_QUIET);
    CHECK(waited >= 0.1 && waited < 5.0);
    CHECK(kb_now() - t0 >= 0.1);
    pthread_join(t, NULL);
}

/* A worker told to spin for ever (OMP_WAIT_POLICY=active): BUSY at the
 * limit, without waiting much past it. */
static void test_gives_up_on_a_spinner(void)
{
    if (!observable())
        CHECK_SKIP(NOT_OBSERVABLE);
    double forever = 0, waited;
    pthread_t t;
    bool started = start_spinner(&t, &forever);
    CHECK(started);
    if (!started)
        return;
    CHECK(kb_settle_threads(0.1, &waited) == KB_SETTLE_BUSY);
    CHECK(waited >= 0.1 && waited < 2.0);
    atomic_store(&stop_spinning, true);
    pthread_join(t, NULL);
}

static const check_test tests[] = {
    CHECK_TEST(nothing_to_wait_for),
    CHECK_TEST(waits_for_a_spinner),
    CHECK_TEST(gives_up_on_a_spinner),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
