/* fma_kernels_x86.c - the x86 FMA ceiling kernels (fma_kernels.h):
 * AVX-512, AVX2+FMA and SSE2 widths, AVX512-BF16 and AVX512-FP16, each
 * compiled for its ISA whatever the build's flags and run where CPUID
 * says the CPU has it. */
#include "drivers/machine/fma_kernel_vec.h"
#include "drivers/machine/fma_kernels.h"

#include <cpuid.h>
#include <immintrin.h>

typedef double v8d __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef _Float16 v32h __attribute__((vector_size(64)));

FMA_KERNEL(fma_f64_avx512, v8d, double, __attribute__((target("avx512f"))))
FMA_KERNEL(fma_f64_avx2, v4d, double, __attribute__((target("avx2,fma"))))
FMA_KERNEL(fma_f64_vec128, v2d, double, __attribute__((target("sse2"))))
FMA_KERNEL(fma_f32_avx512, v16f, float, __attribute__((target("avx512f"))))
FMA_KERNEL(fma_f32_avx2, v8f, float, __attribute__((target("avx2,fma"))))
FMA_KERNEL(fma_f32_vec128, v4f, float, __attribute__((target("sse2"))))
FMA_KERNEL(fma_f16_avx512, v32h, _Float16, __attribute__((target("avx512fp16"))))

/* bf16 has no plain FMA on x86: vdpbf16ps multiplies pairs of bf16 and
 * adds both products into an fp32 lane, i.e. 2 flops per bf16 element,
 * the same count as an FMA per lane.  The products are 2^-12 each, so the
 * accumulators stay finite for any run length we use. */
__attribute__((target("avx512f,avx512bf16"), noinline))
static double dp_bf16_avx512(int64_t iters, double seed)
{
    __m512 acc[KB_FMA_CHAINS];
    __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1.0f / 64), _mm512_set1_ps(1.0f / 64));
    __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps((float)seed / 64),
                                     _mm512_set1_ps((float)seed / 64));
    for (int c = 0; c < KB_FMA_CHAINS; c++)
        acc[c] = _mm512_set1_ps((float)c);
    for (int64_t i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int c = 0; c < KB_FMA_CHAINS; c++)
            acc[c] = _mm512_dpbf16_ps(acc[c], x, y);
    }
    double sum = 0;
    for (int c = 0; c < KB_FMA_CHAINS; c++)
        sum += _mm512_reduce_add_ps(acc[c]);
    return sum;
}

/* __builtin_cpu_supports takes only a literal, hence one function each.
 * __builtin_cpu_init first: these may run before any constructor. */
static int has_avx512f(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx512f"); }
static int has_avx2_fma(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static int has_sse2(void) { __builtin_cpu_init(); return __builtin_cpu_supports("sse2"); }
static int has_avx512bf16(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx512bf16"); }
/* AVX512-FP16 from CPUID (leaf 7, EDX bit 23): clang before 16 rejects
 * "avx512fp16" in __builtin_cpu_supports.  Its register state is
 * AVX-512's, which the avx512f test checks the OS enables. */
static int has_avx512fp16(void)
{
    unsigned a, b, c, d;
    return has_avx512f() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 23 & 1);
}

FMA_LANES(lanes_2, 2)
FMA_LANES(lanes_4, 4)
FMA_LANES(lanes_8, 8)
FMA_LANES(lanes_16, 16)
FMA_LANES(lanes_32, 32)

/* Per precision, widest first: the first supported one is measured. */
const kb_fma_kernel kb_fma_kernels[] = {
    {"fp64", "fma-avx512", KB_FMA_CHAINS, lanes_8, has_avx512f, fma_f64_avx512},
    {"fp64", "fma-avx2", KB_FMA_CHAINS, lanes_4, has_avx2_fma, fma_f64_avx2},
    {"fp64", "vec128", KB_FMA_CHAINS, lanes_2, has_sse2, fma_f64_vec128},
    {"fp32", "fma-avx512", KB_FMA_CHAINS, lanes_16, has_avx512f, fma_f32_avx512},
    {"fp32", "fma-avx2", KB_FMA_CHAINS, lanes_8, has_avx2_fma, fma_f32_avx2},
    {"fp32", "vec128", KB_FMA_CHAINS, lanes_4, has_sse2, fma_f32_vec128},
    {"bf16", "dpbf16-avx512", KB_FMA_CHAINS, lanes_32, has_avx512bf16, dp_bf16_avx512},
    {"fp16", "fma-avx512fp16", KB_FMA_CHAINS, lanes_32, has_avx512fp16, fma_f16_avx512},
};
const int kb_fma_nkernels = sizeof kb_fma_kernels / sizeof kb_fma_kernels[0];
