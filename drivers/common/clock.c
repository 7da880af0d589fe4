/* clock.c - the monotonic clock, its measured resolution, and the UTC
 * date. */
#include "drivers/common/clock.h"

#include <time.h>

#ifdef CLOCK_MONOTONIC_RAW
#define KB_CLOCK CLOCK_MONOTONIC_RAW
#else
#define KB_CLOCK CLOCK_MONOTONIC
#endif

double kb_now(void)
{
    struct timespec ts;
    /* Cannot fail for a clock id the system defines. */
    clock_gettime(KB_CLOCK, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Smallest positive difference between successive readings over a few
 * tries: what one sample can resolve at best.  clock_getres is not used
 * because it reports the kernel's nominal figure, not what a read costs. */
double kb_timer_resolution(void)
{
    static double cached = 0.0;
    if (cached > 0.0)
        return cached;
    double best = 1.0;
    for (int i = 0; i < 32; i++) {
        double t0 = kb_now(), t1;
        do {
            t1 = kb_now();
        } while (t1 <= t0);
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    cached = best;
    return cached;
}

void kb_utc_date(char *dst, size_t len)
{
    time_t now = time(NULL);
    struct tm utc;
    dst[0] = '\0';
    if (gmtime_r(&now, &utc))
        strftime(dst, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}
