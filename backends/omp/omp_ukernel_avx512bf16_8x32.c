/* omp_ukernel_avx512bf16_8x32.c - the 8x32 bf16 micro-kernel on
 * AVX512-BF16's dot-product instruction (vdpbf16ps), and the pair panels
 * it (and AMX's B operand) reads.  Compiled for that ISA whatever the
 * build's flags; called only when the CPU has it (omp_ukernels.c). */
#include "omp_kernels.h"

#include <immintrin.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, NV = NR / 16 };

/* Pair panels: vdpbf16ps multiplies bf16 pairs, (x[2i], x[2i+1]) in each
 * 32-bit lane, so a panel of width w stores, for each pair of k, w words
 * (low half k even, high half k odd); rows past kc, up to kd, are zero.
 * The f32 panels were widened from bf16 (or are zero padding), so each
 * value is a bf16 exactly and taking its upper half is its exact
 * conversion (NaN and inf included).  AMX's B tiles read the same. */
static uint32_t pair_of(const uint32_t *f, int64_t width, int64_t kc,
                        int64_t k, int64_t j)
{
    uint32_t lo = k < kc ? f[k * width + j] >> 16 : 0;
    uint32_t hi = k + 1 < kc ? f[(k + 1) * width + j] & 0xffff0000u : 0;
    return lo | hi;
}

void kb_omp_bf16_to_pairs(const float *panels, int64_t width,
                          int64_t extent, int64_t kc, int64_t kd,
                          uint32_t *out)
{
    int64_t npanels = (extent + width - 1) / width;
    for (int64_t p = 0; p < npanels; p++) {
        const uint32_t *f = (const uint32_t *)(panels + p * kc * width);
        uint32_t *o = out + p * (kd / 2) * width;
        int64_t k = 0;
        for (; k + 1 < kc; k += 2, o += width)      /* full pairs */
            for (int64_t j = 0; j < width; j++)
                o[j] = f[k * width + j] >> 16 |
                       (f[(k + 1) * width + j] & 0xffff0000u);
        for (; k < kd; k += 2, o += width)          /* the padded tail */
            for (int64_t j = 0; j < width; j++)
                o[j] = pair_of(f, width, kc, k, j);
    }
}

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
