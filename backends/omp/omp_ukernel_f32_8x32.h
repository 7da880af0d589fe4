/* omp_ukernel_f32_8x32.h - the portable 8x32 f32 micro-kernel (GCC vector
 * extensions, AVX-512 under -march=native) as an inline body: the engine
 * inlines it into its loop, so the accumulators go straight from
 * registers to the store; the table's entry (omp_ukernel_f32_8x32.c)
 * calls the same body. */
#ifndef KB_OMP_UKERNEL_F32_8X32_H
#define KB_OMP_UKERNEL_F32_8X32_H

#include <string.h>

#include "omp_kernels.h"

/* acc[MR][NR] = sum over k of A's MR rows at k (outer) B's row k, with
 * A's element (i, k) at a[i*a_rs + k*a_ks]: a packed micro-panel (a_rs 1,
 * a_ks MR), or MR rows of a row-major f32 matrix read in place (a_rs its
 * row stride, a_ks 1; the engine's A_IN_PLACE case).  B's row k is the
 * NR floats at b + k*NR, a packed micro-panel (64-byte aligned), or, when
 * b_off is not NULL, at b + b_off[k]: rows gathered by offset, as the
 * direct convolution reads the taps of a padded image in place
 * (omp_conv_direct.c).  The accumulators are an array indexed by
 * compile-time constants only, so gcc keeps all 16 in registers; callers
 * pass constant a_ks and a constant NULL or not for b_off, so each use is
 * its own specialised loop.  nv (a constant too): the vectors of B's row
 * computed, NR/16, or 1 for a tile whose columns past 16 are dropped
 * (acc's second vectors are then left alone).  b_ahead (a constant 0, or
 * with b_off): each gathered row's words b_ahead further on are
 * prefetched, a later tile's row of a B read in place from memory, whose
 * scattered rows the hardware prefetcher does not follow. */
static inline __attribute__((always_inline)) void
kb_omp_f32_8xn_general_body(int64_t kc, const float *restrict a,
                            int64_t a_rs, int64_t a_ks,
                            const float *restrict b,
                            const int64_t *restrict b_off, int nv,
                            int64_t b_ahead, kb_v16sf acc[][KB_OMP_NR / 16])
{
    enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };
    kb_v16sf c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < nv; v++)
            c[i][v] = (kb_v16sf){0};
    for (int64_t k = 0; k < kc; k++, a += a_ks) {
        kb_v16sf bv[NV];
        for (int v = 0; v < nv; v++) {
            if (b_off) {   /* unaligned rows */
                memcpy(&bv[v], b + b_off[k] + 16 * v, sizeof bv[v]);
                if (b_ahead)
                    __builtin_prefetch(b + b_off[k] + b_ahead + 16 * v);
            } else {
                bv[v] = *(const kb_v16sf *)(b + k * NR + 16 * v);
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            /* a broadcast; `(kb_v16sf){0} + x` would be an add (0 + -0
             * is +0) on the FMA ports, a third of the kernel's uops */
            float x = a[i * a_rs];
            kb_v16sf ai = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
            for (int v = 0; v < nv; v++)
                c[i][v] += ai * bv[v];
        }
    }
    if (nv == NV) {
        memcpy(acc, c, sizeof(c));
        return;
    }
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < nv; v++)
            acc[i][v] = c[i][v];
}

/* The whole tile. */
static inline __attribute__((always_inline)) void
kb_omp_f32_8x32_general_body(int64_t kc, const float *restrict a,
                             int64_t a_rs, int64_t a_ks,
                             const float *restrict b,
                             const int64_t *restrict b_off,
                             kb_v16sf acc[][KB_OMP_NR / 16])
{
    kb_omp_f32_8xn_general_body(kc, a, a_rs, a_ks, b, b_off, KB_OMP_NR / 16,
                                0, acc);
}

/* The micro-kernel on a packed B (b_off NULL above). */
static inline __attribute__((always_inline)) void
kb_omp_f32_8x32_strided_body(int64_t kc, const float *restrict a,
                             int64_t a_rs, int64_t a_ks,
                             const float *restrict b,
                             kb_v16sf acc[][KB_OMP_NR / 16])
{
    kb_omp_f32_8x32_general_body(kc, a, a_rs, a_ks, b, NULL, acc);
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
