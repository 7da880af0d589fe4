/* omp_ukernel_f32_8x32.h - the portable 8x32 f32 micro-kernel (GCC vector
 * extensions, AVX-512 under -march=native) as an inline body: the engine
 * inlines it into its loop, so the accumulators go straight from
 * registers to the store; the table's entry (omp_ukernel_f32_8x32.c)
 * calls the same body. */
#ifndef KB_OMP_UKERNEL_F32_8X32_H
#define KB_OMP_UKERNEL_F32_8X32_H

#include "omp_kernels.h"

/* acc[MR][NR] = sum over k of a[k][0..MR) (outer) b[k][0..NR).  a and b
 * are packed f32 micro-panels, 64-byte aligned.  The accumulators are an
 * array indexed by compile-time constants only, so gcc keeps all 16 in
 * registers. */
static inline __attribute__((always_inline)) void
kb_omp_f32_8x32_body(int64_t kc, const void *pa, const void *pb,
                     kb_v16sf acc[][KB_OMP_NR / 16])
{
    enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };
    const float *restrict a = pa, *restrict b = pb;
    kb_v16sf c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            c[i][v] = (kb_v16sf){0};
    for (int64_t k = 0; k < kc; k++, a += MR, b += NR) {
        kb_v16sf b0 = *(const kb_v16sf *)b;
        kb_v16sf b1 = *(const kb_v16sf *)(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            kb_v16sf ai = (kb_v16sf){0} + a[i];   /* broadcast */
            c[i][0] += ai * b0;
            c[i][1] += ai * b1;
        }
    }
    memcpy(acc, c, sizeof(c));
}

/* The table's entry point (the same body, out of line). */
void kb_omp_ukernel_f32_8x32(int64_t kc, const void *a, const void *b,
                             kb_v16sf acc[][KB_OMP_NR / 16]);

#endif
