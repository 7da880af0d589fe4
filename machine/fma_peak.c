/* fma_peak.c - compute ceilings: per precision, the preferred FMA kernel
 * the CPU supports (fma_kernels.h; chosen at run time), all cores.  The
 * kernels themselves are per architecture (fma_kernels_<arch>.c). */
#include "drivers/common/clock.h"
#include "machine/fma_kernels.h"
#include "machine/machine.h"

#include <stdbool.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Results land here so the compiler cannot drop the work. */
static volatile double fma_sink;

/* Iterations that take about trial_s on one thread, from a short run. */
static int64_t calibrate(const kb_fma_kernel *k, double trial_s)
{
    int64_t iters = 1 << 14;
    for (;;) {
        double t0 = kb_now();
        fma_sink = k->run(iters, 1e-3);
        double dt = kb_now() - t0;
        if (dt > 0.01 || iters > ((int64_t)1 << 40))
            return (int64_t)((double)iters * trial_s / dt) + 1;
        iters *= 4;
    }
}

/* Timings of the dependent-add chain per clock estimate, the fastest
 * kept: about 2 ms, short beside a trial. */
#define CHAIN_TRIES 5

/* One thread's clock source across its trials. */
typedef struct {
    kb_cycle_counter counter;
    double cycles, running_s;   /* counter reading before the trial */
    double chain_ghz;           /* add-chain estimate before the trial */
} trial_clock;

/* Open c for the calling thread and check that it counts: some VMs open
 * a counter that stays at 0.  Returns 1, or 0 with c closed. */
static int counter_works(kb_cycle_counter *c)
{
    double cycles = 0, running_s;
    if (kb_cycles_open(c) != 0)
        return 0;
    kb_add_chain_ghz(1);   /* 1e6 cycles to count */
    if (kb_cycles_read(c, &cycles, &running_s) != 0 || cycles <= 0) {
        kb_cycles_close(c);
        return 0;
    }
    return 1;
}

static void clock_before(trial_clock *c, bool perf)
{
    if (perf)
        kb_cycles_read(&c->counter, &c->cycles, &c->running_s);
}

/* This thread's GHz during the trial just run. */
static double clock_after(trial_clock *c, bool perf)
{
    if (perf) {
        double cycles, running_s;
        if (kb_cycles_read(&c->counter, &cycles, &running_s) != 0 ||
            running_s <= c->running_s)
            return 0;
        return 1e-9 * (cycles - c->cycles) / (running_s - c->running_s);
    }
    /* no counter: the chains either side of the trial; the one after
     * serves as the one before the next trial */
    double after = kb_add_chain_ghz(CHAIN_TRIES);
    double ghz = (c->chain_ghz + after) / 2;
    c->chain_ghz = after;
    return ghz;
}

/* Best GFLOP/s of k over `trials` timings, every thread pinned and
 * starting together; the time spans the first start to the last finish.
 * Keeps r's figure when it is better (r->gflops 0: none yet); the clock
 * is that of the best trial. */
static void measure(const kb_fma_kernel *k, int threads, double trial_s, int trials,
                    kb_fma_result *r)
{
    int cpus[1024];
    int ncpu = kb_allowed_cpus(cpus, 1024);
    int64_t iters = calibrate(k, trial_s);
    double best = 1e300, ghz[KB_FMA_MAX_TRIALS] = {0};
    int best_r = 0, opened = 0, team = 1;
    trials = trials < KB_FMA_MAX_TRIALS ? trials : KB_FMA_MAX_TRIALS;
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        if (ncpu > 0)
            kb_pin_self(cpus[t % ncpu]);
        /* opened inside the thread: a counter counts its own thread */
        trial_clock c = {.counter = {-1}};
        int mine = counter_works(&c.counter);
#pragma omp atomic
        opened += mine;
#pragma omp barrier
#pragma omp master
        team = omp_get_num_threads();
#pragma omp barrier
        /* one source for the whole team, so the mean is of like values */
        bool perf = opened == team;
        if (!perf)
            c.chain_ghz = kb_add_chain_ghz(CHAIN_TRIES);
        for (int tr = 0; tr < trials; tr++) {
            double t0 = 0;
#pragma omp barrier
#pragma omp master
            t0 = kb_now();
            clock_before(&c, perf);
            double s = k->run(iters, 1e-3 * (t + 1));
#pragma omp atomic
            fma_sink += s;
#pragma omp barrier
#pragma omp master
            {
                double dt = kb_now() - t0;
                if (dt < best) {
                    best = dt;
                    best_r = tr;
                }
            }
            double g = clock_after(&c, perf);
#pragma omp atomic
            ghz[tr] += g;
        }
        kb_cycles_close(&c.counter);
    }
    double flops = (double)team * (double)iters * k->chains * r->lanes * 2.0;
    double gflops = flops / best * 1e-9;
    r->trials += trials;
    if (gflops <= r->gflops)
        return;
    r->gflops = gflops;
    r->clock_ghz = ghz[best_r] / team;
    r->clock_source = !(r->clock_ghz > 0) ? "none"
                    : opened == team ? "perf_event cycles" : "dependent-add chain";
}

/* The kernel of the table that measured r. */
static const kb_fma_kernel *kernel_of(const kb_fma_result *r)
{
    for (int i = 0; i < kb_fma_nkernels; i++)
        if (kb_fma_kernels[i].kernel == r->kernel &&
            kb_fma_kernels[i].precision == r->precision)
            return &kb_fma_kernels[i];
    return NULL;
}

/* Flag the fastest of out[from, to) (the first, preferred, on a tie),
 * give it `trials` more timings, and return it. */
static void choose(kb_fma_result *out, int from, int to, int threads, double trial_s,
                   int trials)
{
    int won = from;
    for (int i = from + 1; i < to; i++)
        if (out[i].gflops > out[won].gflops)
            won = i;
    measure(kernel_of(&out[won]), threads, trial_s, trials, &out[won]);
    out[won].won = true;
}

int kb_fma_peaks(int threads, double trial_s, int trials, kb_fma_result *out,
                 int max)
{
    int n = 0, from = 0;   /* out[from, n): the current precision's */
    int scout = trials / 4 > 2 ? trials / 4 : 2;
    for (int i = 0; i < kb_fma_nkernels && n < max; i++) {
        const kb_fma_kernel *k = &kb_fma_kernels[i];
        if (n > from && strcmp(k->precision, out[from].precision) != 0) {
            choose(out, from, n, threads, trial_s, trials);
            from = n;
        }
        if (!k->supported())
            continue;
        out[n] = (kb_fma_result){.precision = k->precision, .kernel = k->kernel,
                                 .chains = k->chains, .lanes = k->lanes(),
                                 .flops_per_op = 2.0, .clock_source = "none"};
        measure(k, threads, trial_s, scout, &out[n]);
        n++;
    }
    if (n > from)
        choose(out, from, n, threads, trial_s, trials);
    return n;
}
