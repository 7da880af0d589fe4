/* omp_ukernel_f32_8x32.h - the portable 8x32 f32 micro-kernel (GCC vector
 * extensions, AVX-512 under -march=native) as an inline body: the engine
 * inlines it into its loop, so the accumulators go straight from
 * registers to the store; the table's entry (omp_ukernel_f32_8x32.c)
 * calls the same body. */
#ifndef KB_OMP_UKERNEL_F32_8X32_H
#define KB_OMP_UKERNEL_F32_8X32_H

#include "omp_kernels.h"

/* acc[MR][NR] = sum over k of A's MR rows at k (outer) b[k][0..NR), with
 * A's element (i, k) at a[i*a_rs + k*a_ks]: a packed micro-panel (a_rs 1,
 * a_ks MR), or MR rows of a row-major f32 matrix read in place (a_rs its
 * row stride, a_ks 1; the engine's A_IN_PLACE case).  b is a packed f32
 * micro-panel, 64-byte aligned.  The accumulators are an array indexed by
 * compile-time constants only, so gcc keeps all 16 in registers; callers
 * pass constant a_ks, so each use is its own specialised loop. */
static inline __attribute__((always_inline)) void
kb_omp_f32_8x32_strided_body(int64_t kc, const float *restrict a,
                             int64_t a_rs, int64_t a_ks,
                             const float *restrict b,
                             kb_v16sf acc[][KB_OMP_NR / 16])
{
    enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };
    kb_v16sf c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            c[i][v] = (kb_v16sf){0};
    for (int64_t k = 0; k < kc; k++, a += a_ks, b += NR) {
        kb_v16sf b0 = *(const kb_v16sf *)b;
        kb_v16sf b1 = *(const kb_v16sf *)(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            /* a broadcast; `(kb_v16sf){0} + x` would be an add (0 + -0
             * is +0) on the FMA ports, a third of the kernel's uops */
            float x = a[i * a_rs];
            kb_v16sf ai = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
            c[i][0] += ai * b0;
            c[i][1] += ai * b1;
        }
    }
    memcpy(acc, c, sizeof(c));
}

/* The micro-kernel on packed panels (kb_omp_ukernel_fn). */
static inline __attribute__((always_inline)) void
kb_omp_f32_8x32_body(int64_t kc, const void *pa, const void *pb,
                     kb_v16sf acc[][KB_OMP_NR / 16])
{
    kb_omp_f32_8x32_strided_body(kc, pa, 1, KB_OMP_MR, pb, acc);
}

/* The table's entry point (the same body, out of line). */
void kb_omp_ukernel_f32_8x32(int64_t kc, const void *a, const void *b,
                             kb_v16sf acc[][KB_OMP_NR / 16]);

#endif
