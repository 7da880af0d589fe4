/* fma_register_only.c - an independent FMA peak, to check kbench's
 * compute ceiling against (scripts/fma-compare.sh): nothing of kbench,
 * built on its own.  Every OpenMP thread runs 10 chains of 512-bit
 * (AVX-512) or 256-bit (AVX2) FMAs from intrinsics, operands in local
 * variables the compiler keeps in registers (fma-compare.sh checks the
 * object code for a memory operand in the loop).  Prints, per precision,
 * "fp32 GFLOPS" and "fp64 GFLOPS" lines: the best of TRIALS timings of
 * all threads together.
 * Usage: fma_register_only [ITERS [TRIALS]]  (default 2000000 and 500:
 * many short trials, as kbench times them, so that on a shared machine
 * some run unpreempted) */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#define VPS __m512
#define VPD __m512d
#define FMA_PS _mm512_fmadd_ps
#define FMA_PD _mm512_fmadd_pd
#define SET_PS _mm512_set1_ps
#define SET_PD _mm512_set1_pd
#define FIRST_PS(v) _mm512_cvtss_f32(v)
#define FIRST_PD(v) _mm512_cvtsd_f64(v)
#define LANES_PS 16
#elif defined(__AVX2__) && defined(__FMA__)
#define VPS __m256
#define VPD __m256d
#define FMA_PS _mm256_fmadd_ps
#define FMA_PD _mm256_fmadd_pd
#define SET_PS _mm256_set1_ps
#define SET_PD _mm256_set1_pd
#define FIRST_PS(v) _mm256_cvtss_f32(v)
#define FIRST_PD(v) _mm256_cvtsd_f64(v)
#define LANES_PS 8
#else
#error "needs AVX2 and FMA, or AVX-512 (build with -march=native)"
#endif

static volatile double sink;

/* 10 chains written out: x = x * m + a converges to 4a. */
__attribute__((noinline)) static double run_ps(long iters, float a0)
{
    VPS m = SET_PS(0.75f), a = SET_PS(a0);
    VPS x0 = SET_PS(1), x1 = SET_PS(2), x2 = SET_PS(3), x3 = SET_PS(4), x4 = SET_PS(5);
    VPS x5 = SET_PS(6), x6 = SET_PS(7), x7 = SET_PS(8), x8 = SET_PS(9), x9 = SET_PS(10);
    for (long i = 0; i < iters; i++) {
        x0 = FMA_PS(x0, m, a); x1 = FMA_PS(x1, m, a); x2 = FMA_PS(x2, m, a);
        x3 = FMA_PS(x3, m, a); x4 = FMA_PS(x4, m, a); x5 = FMA_PS(x5, m, a);
        x6 = FMA_PS(x6, m, a); x7 = FMA_PS(x7, m, a); x8 = FMA_PS(x8, m, a);
        x9 = FMA_PS(x9, m, a);
    }
    return FIRST_PS(x0) + FIRST_PS(x1) + FIRST_PS(x2) + FIRST_PS(x3) + FIRST_PS(x4) +
           FIRST_PS(x5) + FIRST_PS(x6) + FIRST_PS(x7) + FIRST_PS(x8) + FIRST_PS(x9);
}

__attribute__((noinline)) static double run_pd(long iters, double a0)
{
    VPD m = SET_PD(0.75), a = SET_PD(a0);
    VPD x0 = SET_PD(1), x1 = SET_PD(2), x2 = SET_PD(3), x3 = SET_PD(4), x4 = SET_PD(5);
    VPD x5 = SET_PD(6), x6 = SET_PD(7), x7 = SET_PD(8), x8 = SET_PD(9), x9 = SET_PD(10);
    for (long i = 0; i < iters; i++) {
        x0 = FMA_PD(x0, m, a); x1 = FMA_PD(x1, m, a); x2 = FMA_PD(x2, m, a);
        x3 = FMA_PD(x3, m, a); x4 = FMA_PD(x4, m, a); x5 = FMA_PD(x5, m, a);
        x6 = FMA_PD(x6, m, a); x7 = FMA_PD(x7, m, a); x8 = FMA_PD(x8, m, a);
        x9 = FMA_PD(x9, m, a);
    }
    return FIRST_PD(x0) + FIRST_PD(x1) + FIRST_PD(x2) + FIRST_PD(x3) + FIRST_PD(x4) +
           FIRST_PD(x5) + FIRST_PD(x6) + FIRST_PD(x7) + FIRST_PD(x8) + FIRST_PD(x9);
}

/* Best GFLOP/s over trials, all threads started together. */
static double best_gflops(int dp, long iters, int trials)
{
    double best = 1e300;
    int threads = 1;
    for (int t = 0; t < trials; t++) {
        double t0 = 0, t1;
#pragma omp parallel
        {
#pragma omp barrier
#pragma omp master
            {
                threads = omp_get_num_threads();
                t0 = omp_get_wtime();
            }
            double s = dp ? run_pd(iters, 1e-3) : run_ps(iters, 1e-3f);
#pragma omp atomic
            sink += s;
        }
        t1 = omp_get_wtime();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    int lanes = dp ? LANES_PS / 2 : LANES_PS;
    return 2.0 * 10 * lanes * (double)iters * threads / best * 1e-9;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 2000000;
    int trials = argc > 2 ? atoi(argv[2]) : 500;
    if (iters < 1 || trials < 1) {
        fprintf(stderr, "usage: %s [ITERS >= 1 [TRIALS >= 1]]\n", argv[0]);
        return 2;
    }
    printf("fp64 %.1f\n", best_gflops(1, iters, trials));
    printf("fp32 %.1f\n", best_gflops(0, iters, trials));
    return 0;
}
