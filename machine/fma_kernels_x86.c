/* fma_kernels_x86.c - the x86-64 FMA kernels behind fma_kernels.h.  Per
 * precision, variants over vector width (512, 256, 128 bits), number of
 * accumulator chains, and how the loop is made: inline assembly with every
 * operand in a named register, or compiler-generated vector code.  The
 * driver measures them all and keeps the best, as ERT does, so that the
 * ceiling does not depend on how one compiler allocates registers (gcc 12
 * for Sapphire Rapids took an FMA operand from the stack each time,
 * `vfmadd213ps -0x78(%rsp)`, and the ceiling came out at half).  Each ISA
 * is compiled with a target attribute, so that one build carries every
 * width.  The only file of the ceilings that includes x86 headers. */
#include "machine/fma_kernel_vec.h"
#include "machine/fma_kernels.h"

#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

/* ---- assembly: the whole loop in one asm statement ----------------------
 * Register 0 holds the multiplier m, register 1 the addend a, registers
 * 2 .. chains+1 the accumulators; the loop counter is the only other
 * operand.  Nothing in the loop can be spilled or taken from memory, and
 * test_fma_kernels_code checks the object code all the same.  Each step
 * is acc = acc * m + a (vfmadd213: dst = src2 * dst + src3), which
 * converges to a / (1 - m): no value overflows or turns denormal however
 * long it runs.  bf16's step is vdpbf16ps, acc += the two products of a
 * pair of bf16, 2 flops per bf16 element like an FMA per lane. */

/* The accumulators' register numbers, for the assembler's .irp. */
#define CHAIN_REGS_8 "2,3,4,5,6,7,8,9"
#define CHAIN_REGS_12 CHAIN_REGS_8 ",10,11,12,13"
#define CHAIN_REGS_16 CHAIN_REGS_12 ",14,15,16,17"
#define CHAIN_REGS_24 CHAIN_REGS_16 ",18,19,20,21,22,23,24,25"
#define CHAIN_REGS(n) CHAIN_REGS_##n

/* Every vector register the asm may write: AVX-512 has 32, AVX2 16. */
#define CLOBBERS_zmm                                                          \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",  \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",   \
    "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",  \
    "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"
#define CLOBBERS_ymm                                                          \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",  \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define VECTOR_BYTES_zmm 64
#define INIT_TO_A(REG) "vmovaps %%" #REG "1, %%" #REG "\\r"
#define INIT_TO_0(REG) "vpxord %%" #REG "\\r, %%" #REG "\\r, %%" #REG "\\r"
#define VECTOR_BYTES_ymm 32

/* ASM_KERNEL defines `static double NAME(int64_t iters, double seed)`:
 * CHAINS chains of INSN on REG (zmm or ymm) registers, compiled for the
 * ISA TARGET.  FILL(m, a, bytes, seed) writes the operands' vectors;
 * INIT(REG) sets accumulator \r: to a (FMA) or to 0 (bf16).  Returns
 * lane 0 of the first accumulator, of type OUT, so that a test can check
 * the arithmetic.  iters must be >= 1. */
#define ASM_KERNEL(NAME, TARGET, INSN, REG, CHAINS, FILL, OUT, INIT)             \
    __attribute__((target(TARGET), noinline))                                    \
    static double NAME(int64_t iters, double seed)                               \
    {                                                                            \
        _Alignas(64) unsigned char m[VECTOR_BYTES_##REG], a[sizeof m];           \
        _Alignas(64) OUT out[sizeof m / sizeof(OUT)];                            \
        FILL(m, a, sizeof m, seed);                                              \
        __asm__ volatile(                                                        \
            "vmovups %[m], %%" #REG "0\n\t"                                      \
            "vmovups %[a], %%" #REG "1\n\t"                                      \
            ".irp r," CHAIN_REGS(CHAINS) "\n\t"                                  \
            INIT(REG) "\n\t"                                                     \
            ".endr\n"                                                            \
            "1:\n\t"                                                             \
            ".irp r," CHAIN_REGS(CHAINS) "\n\t"                                  \
            INSN " %%" #REG "1, %%" #REG "0, %%" #REG "\\r\n\t"                  \
            ".endr\n\t"                                                          \
            "dec %[n]\n\t"                                                       \
            "jnz 1b\n\t"                                                         \
            "vmovups %%" #REG "2, %[out]"                                        \
            : [n] "+r"(iters), [out] "=m"(out)                                   \
            : [m] "m"(m), [a] "m"(a)                                             \
            : CLOBBERS_##REG, "cc");                                             \
        return (double)out[0];                                                   \
    }

/* The operand vectors: m = 0.75 and a = seed per lane (FMA), or the bf16
 * pairs (1/64, 1/64) and (seed/64, seed/64) (the products 2^-12 x seed). */
static void fill_f64(void *m, void *a, size_t bytes, double seed)
{
    for (size_t i = 0; i < bytes / sizeof(double); i++) {
        ((double *)m)[i] = 0.75;
        ((double *)a)[i] = seed;
    }
}

static void fill_f32(void *m, void *a, size_t bytes, double seed)
{
    for (size_t i = 0; i < bytes / sizeof(float); i++) {
        ((float *)m)[i] = 0.75f;
        ((float *)a)[i] = (float)seed;
    }
}

/* _Float16 where the compiler has it on x86 (GCC 12; not clang 14, which
 * builds the fuzzers): without it there is no fp16 ceiling. */
#ifdef __FLT16_MAX__
static void fill_f16(void *m, void *a, size_t bytes, double seed)
{
    for (size_t i = 0; i < bytes / sizeof(_Float16); i++) {
        ((_Float16 *)m)[i] = (_Float16)0.75;
        ((_Float16 *)a)[i] = (_Float16)seed;
    }
}
#endif

/* bf16 is the top half of an fp32: truncation is exact for 1/64 and
 * close enough for seed/64. */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

static void fill_bf16(void *m, void *a, size_t bytes, double seed)
{
    for (size_t i = 0; i < bytes / sizeof(uint16_t); i++) {
        ((uint16_t *)m)[i] = to_bf16(1.0f / 64);
        ((uint16_t *)a)[i] = to_bf16((float)seed / 64);
    }
}

ASM_KERNEL(asm_f64_zmm_x8, "avx512f", "vfmadd213pd", zmm, 8, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f64_zmm_x12, "avx512f", "vfmadd213pd", zmm, 12, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f64_zmm_x16, "avx512f", "vfmadd213pd", zmm, 16, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f64_zmm_x24, "avx512f", "vfmadd213pd", zmm, 24, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f64_ymm_x8, "avx2,fma", "vfmadd213pd", ymm, 8, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f64_ymm_x12, "avx2,fma", "vfmadd213pd", ymm, 12, fill_f64, double, INIT_TO_A)
ASM_KERNEL(asm_f32_zmm_x8, "avx512f", "vfmadd213ps", zmm, 8, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_f32_zmm_x12, "avx512f", "vfmadd213ps", zmm, 12, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_f32_zmm_x16, "avx512f", "vfmadd213ps", zmm, 16, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_f32_zmm_x24, "avx512f", "vfmadd213ps", zmm, 24, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_f32_ymm_x8, "avx2,fma", "vfmadd213ps", ymm, 8, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_f32_ymm_x12, "avx2,fma", "vfmadd213ps", ymm, 12, fill_f32, float, INIT_TO_A)
ASM_KERNEL(asm_bf16_zmm_x8, "avx512f,avx512bf16", "vdpbf16ps", zmm, 8, fill_bf16, float, INIT_TO_0)
ASM_KERNEL(asm_bf16_zmm_x12, "avx512f,avx512bf16", "vdpbf16ps", zmm, 12, fill_bf16, float, INIT_TO_0)
ASM_KERNEL(asm_bf16_zmm_x16, "avx512f,avx512bf16", "vdpbf16ps", zmm, 16, fill_bf16, float, INIT_TO_0)
ASM_KERNEL(asm_bf16_zmm_x24, "avx512f,avx512bf16", "vdpbf16ps", zmm, 24, fill_bf16, float, INIT_TO_0)
#ifdef __FLT16_MAX__
ASM_KERNEL(asm_f16_zmm_x8, "avx512fp16", "vfmadd213ph", zmm, 8, fill_f16, _Float16, INIT_TO_A)
ASM_KERNEL(asm_f16_zmm_x12, "avx512fp16", "vfmadd213ph", zmm, 12, fill_f16, _Float16, INIT_TO_A)
ASM_KERNEL(asm_f16_zmm_x16, "avx512fp16", "vfmadd213ph", zmm, 16, fill_f16, _Float16, INIT_TO_A)
ASM_KERNEL(asm_f16_zmm_x24, "avx512fp16", "vfmadd213ph", zmm, 24, fill_f16, _Float16, INIT_TO_A)
#endif

/* ---- compiler-generated: the same loop in C -----------------------------
 * FMA_KERNEL (fma_kernel_vec.h) is ASM_KERNEL's FMA loop written with GCC
 * vector types, 12 chains, for the compiler to allocate.  It is kept as a
 * variant because a compiler may schedule better than the fixed assembly
 * on some core; where it spills, the assembly wins. */
#define CC_KERNEL(NAME, VTYPE, ETYPE, TARGET) \
    FMA_KERNEL(NAME, VTYPE, ETYPE, __attribute__((target(TARGET))))

typedef double v8d __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef double v2d __attribute__((vector_size(16)));
typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

CC_KERNEL(cc_f64_avx512_x12, v8d, double, "avx512f")
CC_KERNEL(cc_f64_avx2_x12, v4d, double, "avx2,fma")
CC_KERNEL(cc_f64_vec128_x12, v2d, double, "sse2")
CC_KERNEL(cc_f32_avx512_x12, v16f, float, "avx512f")
CC_KERNEL(cc_f32_avx2_x12, v8f, float, "avx2,fma")
CC_KERNEL(cc_f32_vec128_x12, v4f, float, "sse2")
#ifdef __FLT16_MAX__
typedef _Float16 v32h __attribute__((vector_size(64)));
CC_KERNEL(cc_f16_avx512_x12, v32h, _Float16, "avx512fp16")
#endif

/* bf16 with intrinsics: the compiler allocates the registers. */
__attribute__((target("avx512f,avx512bf16"), noinline))
static double cc_bf16_avx512_x12(int64_t iters, double seed)
{
    __m512 acc[KB_FMA_CHAINS];
    __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1.0f / 64), _mm512_set1_ps(1.0f / 64));
    __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps((float)seed / 64),
                                     _mm512_set1_ps((float)seed / 64));
    for (int c = 0; c < KB_FMA_CHAINS; c++)   /* distinct, as in CC_KERNEL */
        acc[c] = _mm512_set1_ps((float)c);
    for (int64_t i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int c = 0; c < KB_FMA_CHAINS; c++)
            acc[c] = _mm512_dpbf16_ps(acc[c], x, y);
    }
    double sum = 0;   /* of every chain, as in CC_KERNEL */
    for (int c = 0; c < KB_FMA_CHAINS; c++)
        sum += _mm512_cvtss_f32(acc[c]);
    return sum / KB_FMA_CHAINS;
}

/* ---- the table ------------------------------------------------------------ */

/* __builtin_cpu_supports takes only a literal, hence one function each. */
static int has_avx512f(void) { return __builtin_cpu_supports("avx512f"); }
static int has_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static int has_sse2(void) { return __builtin_cpu_supports("sse2"); }
static int has_avx512bf16(void) { return __builtin_cpu_supports("avx512bf16"); }
/* AVX512-FP16 from CPUID (leaf 7, EDX bit 23): clang before 16 rejects
 * "avx512fp16" in __builtin_cpu_supports.  Its register state is
 * AVX-512's, which the avx512f test checks the OS enables. */
#ifdef __FLT16_MAX__
static int has_avx512fp16(void)
{
    unsigned a, b, c, d;
    return has_avx512f() && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 23 & 1);
}
#endif

/* Elements per vector: fixed by the ISA on x86. */
static int lanes_2(void) { return 2; }
static int lanes_4(void) { return 4; }
static int lanes_8(void) { return 8; }
static int lanes_16(void) { return 16; }
static int lanes_32(void) { return 32; }

/* Every variant, grouped by precision; the driver measures each one the
 * CPU supports and keeps the best.  Within a precision the widest
 * assembly comes first: the preferred one when figures tie. */
const kb_fma_kernel kb_fma_kernels[] = {
    {"fp64", "fma-avx512-x12", 12, lanes_8, has_avx512f, asm_f64_zmm_x12},
    {"fp64", "fma-avx512-x8", 8, lanes_8, has_avx512f, asm_f64_zmm_x8},
    {"fp64", "fma-avx512-x16", 16, lanes_8, has_avx512f, asm_f64_zmm_x16},
    {"fp64", "fma-avx512-x24", 24, lanes_8, has_avx512f, asm_f64_zmm_x24},
    {"fp64", "fma-avx2-x12", 12, lanes_4, has_avx2_fma, asm_f64_ymm_x12},
    {"fp64", "fma-avx2-x8", 8, lanes_4, has_avx2_fma, asm_f64_ymm_x8},
    {"fp64", "cc-avx512-x12", KB_FMA_CHAINS, lanes_8, has_avx512f, cc_f64_avx512_x12},
    {"fp64", "cc-avx2-x12", KB_FMA_CHAINS, lanes_4, has_avx2_fma, cc_f64_avx2_x12},
    {"fp64", "cc-vec128-x12", KB_FMA_CHAINS, lanes_2, has_sse2, cc_f64_vec128_x12},
    {"fp32", "fma-avx512-x12", 12, lanes_16, has_avx512f, asm_f32_zmm_x12},
    {"fp32", "fma-avx512-x8", 8, lanes_16, has_avx512f, asm_f32_zmm_x8},
    {"fp32", "fma-avx512-x16", 16, lanes_16, has_avx512f, asm_f32_zmm_x16},
    {"fp32", "fma-avx512-x24", 24, lanes_16, has_avx512f, asm_f32_zmm_x24},
    {"fp32", "fma-avx2-x12", 12, lanes_8, has_avx2_fma, asm_f32_ymm_x12},
    {"fp32", "fma-avx2-x8", 8, lanes_8, has_avx2_fma, asm_f32_ymm_x8},
    {"fp32", "cc-avx512-x12", KB_FMA_CHAINS, lanes_16, has_avx512f, cc_f32_avx512_x12},
    {"fp32", "cc-avx2-x12", KB_FMA_CHAINS, lanes_8, has_avx2_fma, cc_f32_avx2_x12},
    {"fp32", "cc-vec128-x12", KB_FMA_CHAINS, lanes_4, has_sse2, cc_f32_vec128_x12},
    {"bf16", "dpbf16-avx512-x12", 12, lanes_32, has_avx512bf16, asm_bf16_zmm_x12},
    {"bf16", "dpbf16-avx512-x8", 8, lanes_32, has_avx512bf16, asm_bf16_zmm_x8},
    {"bf16", "dpbf16-avx512-x16", 16, lanes_32, has_avx512bf16, asm_bf16_zmm_x16},
    {"bf16", "dpbf16-avx512-x24", 24, lanes_32, has_avx512bf16, asm_bf16_zmm_x24},
    {"bf16", "cc-dpbf16-avx512-x12", KB_FMA_CHAINS, lanes_32, has_avx512bf16, cc_bf16_avx512_x12},
#ifdef __FLT16_MAX__
    {"fp16", "fma-avx512fp16-x12", 12, lanes_32, has_avx512fp16, asm_f16_zmm_x12},
    {"fp16", "fma-avx512fp16-x8", 8, lanes_32, has_avx512fp16, asm_f16_zmm_x8},
    {"fp16", "fma-avx512fp16-x16", 16, lanes_32, has_avx512fp16, asm_f16_zmm_x16},
    {"fp16", "fma-avx512fp16-x24", 24, lanes_32, has_avx512fp16, asm_f16_zmm_x24},
    {"fp16", "cc-avx512fp16-x12", KB_FMA_CHAINS, lanes_32, has_avx512fp16, cc_f16_avx512_x12},
#endif
};
const int kb_fma_nkernels = (int)(sizeof kb_fma_kernels / sizeof kb_fma_kernels[0]);
