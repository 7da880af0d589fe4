/* clock.c - the core clock observed under load, for the theoretical peaks:
 * timed from a chain of dependent integer adds, or read from cpuinfo. */
#include "drivers/peaks/peaks.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__x86_64__)
/* Each `add` depends on the previous one and has a latency of one cycle
 * on every x86-64 core, so 1000 of them take 1000 cycles; the loop branch
 * runs beside them for free.  Returns the GHz seen by this thread. */
static double add_chain_ghz(int64_t blocks)
{
    uint64_t x = 0;
    double t0 = now_s();
    for (int64_t b = 0; b < blocks; b++)
        __asm__ volatile(".rept 1000\n\taddq $1, %0\n\t.endr" : "+r"(x));
    double dt = now_s() - t0;
    return x == (uint64_t)blocks * 1000 && dt > 0 ? 1e-9 * (double)x / dt : 0;
}
#endif

/* Mean of the "cpu MHz" lines of /proc/cpuinfo in GHz, 0 without any.
 * The kernel reports a recent sample, not the clock under our load. */
static double cpuinfo_ghz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[256];
    double sum = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (strncmp(line, "cpu MHz", 7) == 0 && v) {
            sum += atof(v + 1);
            n++;
        }
    }
    fclose(f);
    return n ? sum / n / 1000.0 : 0;
}

double kb_observed_clock_ghz(int threads, char *source, size_t len)
{
#if defined(__x86_64__)
    int cpus[1024];
    int ncpu = kb_allowed_cpus(cpus, 1024);
    double sum = 0;
    /* 200000 blocks = 2e8 cycles: about 50-100 ms per thread. */
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    {
        int t = omp_get_thread_num();
        if (ncpu > 0)
            kb_pin_self(cpus[t % ncpu]);
        add_chain_ghz(20000);   /* wake the core up to its load clock */
        sum += add_chain_ghz(200000);
    }
    if (sum > 0) {
        snprintf(source, len, "add-chain");
        return sum / threads;
    }
#endif
    snprintf(source, len, "cpuinfo");
    return cpuinfo_ghz();
}
