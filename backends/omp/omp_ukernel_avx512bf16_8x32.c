/* omp_ukernel_avx512bf16_8x32.c - the 8x32 bf16 micro-kernel on
 * AVX512-BF16's dot-product instruction (vdpbf16ps): on the pair panels
 * of omp_bf16_pairs.c (the GEMM), and on pairs read in place by offset
 * (the direct convolution).  Compiled for that ISA whatever the build's
 * flags; called only when the CPU has it (omp_ukernels_x86.c). */
#include "omp_kernels.h"

#include <immintrin.h>
#include <string.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };

#define KB_TARGET_BF16 __attribute__((target("avx512bf16,avx512f,avx512bw,avx512vl")))

/* acc[MR][NR] = the product over npairs pairs of k: per pair, two B
 * vectors (16 columns each) and MR broadcast A pairs, 16 accumulators in
 * registers as in the f32 kernel.  Row i's pair k of A is a[i*a_rs +
 * k*a_ks]; B's is the NR words at b + k*NR (a packed panel, aligned), or
 * at b + b_off[k] when b_off is not NULL.  Callers pass constants for
 * a_ks and for b_off's being NULL, so each use is its own loop. */
static inline __attribute__((always_inline)) KB_TARGET_BF16 void
dot_body(int64_t npairs, const uint32_t *restrict a, int64_t a_rs,
         int64_t a_ks, const uint32_t *restrict b,
         const int64_t *restrict b_off, kb_v16sf acc[][NV])
{
    /* The empty reduction apart: on the same path gcc kept the
     * accumulators on the stack too, zeroed them there first and copied
     * them to acc at the end, 48 extra 64-byte moves a tile against 8
     * cycles of work a pair (ResNet-50's bf16 res2 1x1 layers: 32 pairs). */
    if (npairs <= 0) {
        memset(acc, 0, MR * NR * sizeof(float));
        return;
    }
    __m512 c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            c[i][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < npairs; k++, a += a_ks) {
        const uint32_t *bk = b_off ? b + b_off[k] : b + k * NR;
        __m512bh b0, b1;
        if (b_off) {
            b0 = (__m512bh)_mm512_loadu_si512(bk);
            b1 = (__m512bh)_mm512_loadu_si512(bk + 16);
        } else {
            b0 = (__m512bh)_mm512_load_si512(bk);
            b1 = (__m512bh)_mm512_load_si512(bk + 16);
        }
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            __m512bh ai = (__m512bh)_mm512_set1_epi32((int)a[i * a_rs]);
            c[i][0] = _mm512_dpbf16_ps(c[i][0], ai, b0);
            c[i][1] = _mm512_dpbf16_ps(c[i][1], ai, b1);
        }
    }
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            _mm512_store_ps((float *)&acc[i][v], c[i][v]);
}

/* The GEMM's: one A and one B pair panel, kc deep (the panels padded
 * to whole pairs). */
KB_TARGET_BF16
void kb_omp_ukernel_avx512bf16_8x32(int64_t kc, const void *pa,
                                    const void *pb, kb_v16sf acc[][NV])
{
    dot_body((kc + 1) / 2, pa, 1, MR, pb, NULL, acc);
}

/* The direct convolution's (kb_omp_direct_fn). */
KB_TARGET_BF16
void kb_omp_direct_avx512bf16_8x32(int64_t kc, const uint32_t *a,
                                   int64_t a_rs, const uint32_t *b,
                                   const int64_t *b_off, kb_v16sf acc[][NV])
{
    if (!b_off)   /* never: keeps the offset loop alone */
        __builtin_unreachable();
    dot_body(kc, a, a_rs, 1, b, b_off, acc);
}
