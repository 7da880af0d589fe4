/* omp_ukernel_avx512bf16_8x32.c - the 8x32 bf16 micro-kernel on
 * AVX512-BF16's dot-product instruction (vdpbf16ps), on the pair panels
 * of omp_bf16_pairs.c.  Compiled for that ISA whatever the build's flags;
 * called only when the CPU has it (omp_ukernels_x86.c). */
#include "omp_kernels.h"

#include <immintrin.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };

/* acc[MR][NR] = the kc-deep product of one A and one B pair panel: per
 * pair of k, two B vectors (16 columns each) and MR broadcast A pairs,
 * 16 accumulators in registers as in the f32 kernel. */
__attribute__((target("avx512bf16,avx512f,avx512bw,avx512vl")))
void kb_omp_ukernel_avx512bf16_8x32(int64_t kc, const void *pa,
                                    const void *pb, kb_v16sf acc[][NV])
{
    const uint32_t *a = pa;
    const __m512i *b = pb;
    __m512 c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            c[i][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kc; k += 2, a += MR, b += NV) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(b);
        __m512bh b1 = (__m512bh)_mm512_load_si512(b + 1);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            __m512bh ai = (__m512bh)_mm512_set1_epi32((int)a[i]);
            c[i][0] = _mm512_dpbf16_ps(c[i][0], ai, b0);
            c[i][1] = _mm512_dpbf16_ps(c[i][1], ai, b1);
        }
    }
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            _mm512_store_ps((float *)&acc[i][v], c[i][v]);
}
