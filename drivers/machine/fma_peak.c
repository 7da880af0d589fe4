/* fma_peak.c - compute ceilings: per precision, the widest FMA kernel the
 * CPU supports (chosen at run time), many independent chains, all cores. */
#include "drivers/common/clock.h"
#include "drivers/machine/machine.h"

#include <cpuid.h>
#include <immintrin.h>
#include <stdbool.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Independent accumulators per thread.  An FMA unit keeps latency x ports
 * operations in flight (4 x 2 = 8 on current x86 cores); 12 leaves margin
 * and, with the two operand registers, still fits AVX2's 16 registers. */
#define FMA_CHAINS 12

/* Results land here so the compiler cannot drop the work. */
static volatile double fma_sink;

/* FMA_KERNEL defines `static double NAME(int64_t iters, double seed)`:
 * FMA_CHAINS independent chains acc = acc * m + a of vector type VTYPE
 * (elements ETYPE), iters times, compiled for the ISA TARGET so that one
 * -march=native build carries every width and picks one at run time.
 * The file is built with -ffp-contract=fast, which turns acc * m + a into
 * one FMA instruction.  acc converges to a / (1 - m), so no value
 * overflows or turns denormal, however long it runs.  It is the one
 * piece of code every precision and width shares. */
#define FMA_KERNEL(NAME, VTYPE, ETYPE, TARGET)                               \
    __attribute__((target(TARGET), noinline))                                \
    static double NAME(int64_t iters, double seed)                           \
    {                                                                        \
        VTYPE acc[FMA_CHAINS], m, a;                                         \
        for (int l = 0; l < (int)(sizeof m / sizeof m[0]); l++) {            \
            m[l] = (ETYPE)0.75;                                              \
            a[l] = (ETYPE)seed;                                              \
        }                                                                    \
        for (int c = 0; c < FMA_CHAINS; c++)                                 \
            acc[c] = a * (ETYPE)(c + 1);                                     \
        for (int64_t i = 0; i < iters; i++) {                                \
            _Pragma("GCC unroll 16")                                         \
            for (int c = 0; c < FMA_CHAINS; c++)                             \
                acc[c] = acc[c] * m + a;                                     \
        }                                                                    \
        double sum = 0;                                                      \
        for (int c = 0; c < FMA_CHAINS; c++)                                 \
            sum += (double)acc[c][0];                                        \
        return sum;                                                          \
    }

typedef double v8d __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef _Float16 v32h __attribute__((vector_size(64)));

FMA_KERNEL(fma_f64_avx512, v8d, double, "avx512f")
FMA_KERNEL(fma_f64_avx2, v4d, double, "avx2,fma")
FMA_KERNEL(fma_f64_vec128, v2d, double, "sse2")
FMA_KERNEL(fma_f32_avx512, v16f, float, "avx512f")
FMA_KERNEL(fma_f32_avx2, v8f, float, "avx2,fma")
FMA_KERNEL(fma_f32_vec128, v4f, float, "sse2")
FMA_KERNEL(fma_f16_avx512, v32h, _Float16, "avx512fp16")

/* bf16 has no plain FMA on x86: vdpbf16ps multiplies pairs of bf16 and
 * adds both products into an fp32 lane, i.e. 2 flops per bf16 element,
 * the same count as an FMA per lane.  The products are 2^-12 each, so the
 * accumulators stay finite for any run length we use. */
__attribute__((target("avx512f,avx512bf16"), noinline))
static double dp_bf16_avx512(int64_t iters, double seed)
{
    __m512 acc[FMA_CHAINS];
    __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1.0f / 64), _mm512_set1_ps(1.0f / 64));
    __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps((float)seed / 64),
                                     _mm512_set1_ps((float)seed / 64));
    for (int c = 0; c < FMA_CHAINS; c++)
        acc[c] = _mm512_set1_ps((float)c);
    for (int64_t i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int c = 0; c < FMA_CHAINS; c++)
            acc[c] = _mm512_dpbf16_ps(acc[c], x, y);
    }
    double sum = 0;
    for (int c = 0; c < FMA_CHAINS; c++)
        sum += _mm512_reduce_add_ps(acc[c]);
    return sum;
}

/* __builtin_cpu_supports takes only a literal, hence one function each. */
static int has_avx512f(void) { return __builtin_cpu_supports("avx512f"); }
static int has_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static int has_sse2(void) { return __builtin_cpu_supports("sse2"); }
static int has_avx512bf16(void) { return __builtin_cpu_supports("avx512bf16"); }
/* AVX512-FP16 from CPUID (leaf 7, EDX bit 23): clang before 16 rejects
 * "avx512fp16" in __builtin_cpu_supports.  Its register state is
 * AVX-512's, which the avx512f test checks the OS enables. */
static int has_avx512fp16(void)
{
    unsigned a, b, c, d;
    return has_avx512f() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 23 & 1);
}

typedef struct {
    const char *precision, *kernel;
    int lanes;
    int (*supported)(void);
    double (*run)(int64_t iters, double seed);
} fma_kernel;

/* Per precision, widest first: the first supported one is measured. */
static const fma_kernel kernels[] = {
    {"fp64", "fma-avx512", 8, has_avx512f, fma_f64_avx512},
    {"fp64", "fma-avx2", 4, has_avx2_fma, fma_f64_avx2},
    {"fp64", "vec128", 2, has_sse2, fma_f64_vec128},
    {"fp32", "fma-avx512", 16, has_avx512f, fma_f32_avx512},
    {"fp32", "fma-avx2", 8, has_avx2_fma, fma_f32_avx2},
    {"fp32", "vec128", 4, has_sse2, fma_f32_vec128},
    {"bf16", "dpbf16-avx512", 32, has_avx512bf16, dp_bf16_avx512},
    {"fp16", "fma-avx512fp16", 32, has_avx512fp16, fma_f16_avx512},
};
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])

/* Iterations that take about trial_s on one thread, from a short run. */
static int64_t calibrate(const fma_kernel *k, double trial_s)
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
 * r->clock_ghz is the clock of that best trial. */
static void measure(const fma_kernel *k, int threads, double trial_s, int trials,
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
    double flops = (double)team * (double)iters * FMA_CHAINS * k->lanes * 2.0;
    r->gflops = flops / best * 1e-9;
    r->clock_ghz = ghz[best_r] / team;
    r->clock_source = !(r->clock_ghz > 0) ? "none"
                    : opened == team ? "perf_event cycles" : "dependent-add chain";
}

int kb_fma_peaks(int threads, double trial_s, int trials, kb_fma_result *out,
                 int max)
{
    const char *done = "";   /* precision measured last */
    int n = 0;
    __builtin_cpu_init();
    for (int i = 0; i < NKERNELS && n < max; i++) {
        const fma_kernel *k = &kernels[i];
        /* skip narrower kernels of a precision already measured */
        if (strcmp(k->precision, done) == 0 || !k->supported())
            continue;
        out[n] = (kb_fma_result){k->precision, k->kernel, k->lanes, 2.0, 0, 0, "none"};
        measure(k, threads, trial_s, trials, &out[n]);
        done = k->precision;
        n++;
    }
    return n;
}
