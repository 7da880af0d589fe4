/* fma_kernels_arm.c - the aarch64 FMA ceiling kernels (fma_kernels.h):
 * SVE at whatever vector length the CPU has (vector-length agnostic: the
 * lane count is asked at run time), NEON (ASIMD, every aarch64 CPU), and
 * bf16 through BFMMLA and BFDOT, fp16 through NEON's and SVE's half FMA.
 * Each is compiled for its extension whatever the build's flags and run
 * where the kernel's HWCAP bits say the CPU has it. */
#include "machine/fma_kernel_vec.h"
#include "machine/fma_kernels.h"

#include <arm_neon.h>
#include <sys/auxv.h>

/* The kernel's words for what the CPU has (Linux asm/hwcap.h); defined
 * here too for older headers. */
#ifndef HWCAP_ASIMDHP
#define HWCAP_ASIMDHP (1UL << 10)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP2_SVEBF16
#define HWCAP2_SVEBF16 (1UL << 12)
#endif
#ifndef HWCAP2_I8MM
#define HWCAP2_I8MM (1UL << 13)
#endif
#ifndef HWCAP2_BF16
#define HWCAP2_BF16 (1UL << 14)
#endif

static int has_neon(void) { return 1; }   /* ASIMD is part of AArch64 */
static int has_neon_fp16(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDHP) != 0; }
static int has_neon_bf16(void) { return (getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0; }
static int has_sve(void) { return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0; }
static int has_sve_bf16(void)
{
    return has_sve() && (getauxval(AT_HWCAP2) & HWCAP2_SVEBF16) != 0;
}

/* ---- NEON: 128-bit vectors ---- */

/* X(c, T) for each of the KB_FMA_CHAINS chains c, T passed through (a
 * macro's parameter is not seen by the macros it calls).  The chains are
 * named variables, not an array: SVE's sizeless types cannot be array
 * elements, and gcc keeps an array that asm writes in memory. */
#define CHAINS(X, T) X(0, T) X(1, T) X(2, T) X(3, T) X(4, T) X(5, T) \
    X(6, T) X(7, T) X(8, T) X(9, T) X(10, T) X(11, T)
_Static_assert(KB_FMA_CHAINS == 12, "CHAINS names 12 chains");

/* NEON_KERNEL defines NAME(iters, seed) on NEON vectors V of elements
 * E, T the arrangement (".4s").  Each chain alternates acc += x * y
 * (FMLA) and acc -= x * y (FMLS): the addend is the destination, so no
 * register is copied between FMAs, and the subtraction keeps acc near its
 * start, so no value overflows or turns denormal however long it runs.
 * The FMAs are written in asm: gcc otherwise hoists the loop-invariant
 * product and adds it (FADD, not FMA), even through vfmaq. */
#define NEON_DECL(c, T) vec acc##c = x * (elem)(c + 1);
#define NEON_FMA(OP, T, acc)                                                 \
    __asm__(OP " %0" T ", %1" T ", %2" T : "+w"(acc) : "w"(x), "w"(y));
#define NEON_ADD(c, T) NEON_FMA("fmla", T, acc##c)
#define NEON_SUB(c, T) NEON_FMA("fmls", T, acc##c)
#define NEON_SUM(c, T) sum += (double)acc##c[0];
#define NEON_KERNEL(NAME, V, E, T)                                           \
    __attribute__((noinline))                                                \
    static double NAME(int64_t iters, double seed)                           \
    {                                                                        \
        typedef V vec;                                                       \
        typedef E elem;                                                      \
        vec x = (vec){0} + (elem)0.75, y = (vec){0} + (elem)seed;            \
        CHAINS(NEON_DECL, T)                                                 \
        for (int64_t i = 0; i < iters / 2 * 2; i += 2) {                     \
            CHAINS(NEON_ADD, T)                                              \
            CHAINS(NEON_SUB, T)                                              \
        }                                                                    \
        if (iters % 2) {                                                     \
            CHAINS(NEON_ADD, T)                                              \
        }                                                                    \
        double sum = 0;                                                      \
        CHAINS(NEON_SUM, T)                                                  \
        return sum;                                                          \
    }

NEON_KERNEL(fma_f64_neon, float64x2_t, float64_t, ".2d")
NEON_KERNEL(fma_f32_neon, float32x4_t, float32_t, ".4s")
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+fp16")
NEON_KERNEL(fma_f16_neon, float16x8_t, float16_t, ".8h")
#pragma GCC pop_options

/* bf16 has no plain FMA: BFDOT adds the products of a pair of bf16 into
 * each fp32 lane (2 flops per bf16 element, as an FMA per lane), BFMMLA
 * multiplies a 2x4 by a 4x2 bf16 matrix into a 2x2 fp32 one (32 flops
 * per 8 bf16 elements of an operand: 2 FMA-equivalents per element, so
 * its lane count is 16).  The operands are 2^-6 and seed * 2^-6, so the
 * accumulators grow by 2^-11 * seed per instruction at most and stay
 * finite for any run length. */
#define BF16_DECL(c, OP) float32x4_t acc##c = vdupq_n_f32((float)c);
#define BF16_STEP(c, OP) acc##c = OP(acc##c, x, y);
#define BF16_SUM(c, OP) sum += vgetq_lane_f32(acc##c, 0);
#define BF16_KERNEL(NAME, OP)                                                \
    __attribute__((target("arch=armv8.2-a+bf16"), noinline))                \
    static double NAME(int64_t iters, double seed)                           \
    {                                                                        \
        bfloat16x8_t x = vcvtq_low_bf16_f32(vdupq_n_f32(1.0f / 64));         \
        bfloat16x8_t y = vcvtq_low_bf16_f32(vdupq_n_f32((float)seed / 64));  \
        x = vcvtq_high_bf16_f32(x, vdupq_n_f32(1.0f / 64));                  \
        y = vcvtq_high_bf16_f32(y, vdupq_n_f32((float)seed / 64));           \
        CHAINS(BF16_DECL, OP)                                                \
        for (int64_t i = 0; i < iters; i++) {                                \
            CHAINS(BF16_STEP, OP)                                            \
        }                                                                    \
        double sum = 0;                                                      \
        CHAINS(BF16_SUM, OP)                                                 \
        return sum;                                                          \
    }

BF16_KERNEL(bfmmla_neon, vbfmmlaq_f32)
BF16_KERNEL(bfdot_neon, vbfdotq_f32)

/* ---- SVE: any vector length ---- */

/* As NEON's, acc += x * y then acc -= x * y (FMLA, FMLS: the addend is
 * the destination), in asm. */
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+sve+bf16")
#include <arm_sve.h>

#define SVE_DECL(c, T) vec acc##c = svmul_x(pg, x, (elem)(c + 1));
#define SVE_FMA(OP, T, acc)                                                  \
    __asm__(OP " %0" T ", %1/m, %2" T ", %3" T : "+w"(acc) : "Upl"(pg), "w"(x), "w"(y))
#define SVE_ADD(c, T) SVE_FMA("fmla", T, acc##c);
#define SVE_SUB(c, T) SVE_FMA("fmls", T, acc##c);
#define SVE_SUM(c, T) sum += (double)svlasta(svpfalse(), acc##c);

/* SVE_KERNEL defines NAME(iters, seed) on SVE vectors V of elements E,
 * T the element size (".s"), PTRUE the all-true predicate of E's width,
 * DUP E's broadcast. */
#define SVE_KERNEL(NAME, V, E, T, PTRUE, DUP)                                \
    __attribute__((noinline)) static double NAME(int64_t iters, double seed) \
    {                                                                        \
        typedef V vec;                                                       \
        typedef E elem;                                                      \
        svbool_t pg = PTRUE();                                               \
        vec x = DUP((elem)0.75), y = DUP((elem)seed);                        \
        CHAINS(SVE_DECL, T)                                              \
        for (int64_t i = 0; i < iters / 2 * 2; i += 2) {                     \
            CHAINS(SVE_ADD, T)                                           \
            CHAINS(SVE_SUB, T)                                           \
        }                                                                    \
        if (iters % 2) {                                                     \
            CHAINS(SVE_ADD, T)                                           \
        }                                                                    \
        double sum = 0;                                                      \
        CHAINS(SVE_SUM, T)                                               \
        return sum;                                                          \
    }
SVE_KERNEL(fma_f64_sve, svfloat64_t, float64_t, ".d", svptrue_b64, svdup_n_f64)
SVE_KERNEL(fma_f32_sve, svfloat32_t, float32_t, ".s", svptrue_b32, svdup_n_f32)
SVE_KERNEL(fma_f16_sve, svfloat16_t, float16_t, ".h", svptrue_b16, svdup_n_f16)

/* BFDOT on SVE vectors: as the NEON one, VL/16 bf16 pairs per vector. */
__attribute__((noinline)) static double bfdot_sve(int64_t iters, double seed)
{
    svbfloat16_t x = svdup_n_bf16(vcvth_bf16_f32(1.0f / 64));
    svbfloat16_t y = svdup_n_bf16(vcvth_bf16_f32((float)seed / 64));
#define BF_DECL(c, T) svfloat32_t acc##c = svdup_n_f32((float)c);
#define BF_STEP(c, T) acc##c = svbfdot_f32(acc##c, x, y);
    CHAINS(BF_DECL, )
    for (int64_t i = 0; i < iters; i++) {
        CHAINS(BF_STEP, )
    }
    double sum = 0;
    CHAINS(SVE_SUM, )
    return sum;
}

static int lanes_sve_f64(void) { return (int)svcntd(); }
static int lanes_sve_f32(void) { return (int)svcntw(); }
static int lanes_sve_f16(void) { return (int)svcnth(); }
#pragma GCC pop_options

FMA_LANES(lanes_2, 2)
FMA_LANES(lanes_4, 4)
FMA_LANES(lanes_8, 8)
FMA_LANES(lanes_16, 16)

/* Per precision, preferred first: the first supported one is measured.
 * SVE before NEON: on a 128-bit SVE core (Neoverse N2, V2) both have
 * the same width and run on the same pipes. */
const kb_fma_kernel kb_fma_kernels[] = {
    {"fp64", "fma-sve-x12", KB_FMA_CHAINS, lanes_sve_f64, has_sve, fma_f64_sve},
    {"fp64", "fma-neon-x12", KB_FMA_CHAINS, lanes_2, has_neon, fma_f64_neon},
    {"fp32", "fma-sve-x12", KB_FMA_CHAINS, lanes_sve_f32, has_sve, fma_f32_sve},
    {"fp32", "fma-neon-x12", KB_FMA_CHAINS, lanes_4, has_neon, fma_f32_neon},
    {"bf16", "bfmmla-neon-x12", KB_FMA_CHAINS, lanes_16, has_neon_bf16, bfmmla_neon},
    {"bf16", "bfdot-sve-x12", KB_FMA_CHAINS, lanes_sve_f16, has_sve_bf16, bfdot_sve},
    {"bf16", "bfdot-neon-x12", KB_FMA_CHAINS, lanes_8, has_neon_bf16, bfdot_neon},
    {"fp16", "fma-sve-x12", KB_FMA_CHAINS, lanes_sve_f16, has_sve, fma_f16_sve},
    {"fp16", "fma-neon-x12", KB_FMA_CHAINS, lanes_8, has_neon_fp16, fma_f16_neon},
};
const int kb_fma_nkernels = sizeof kb_fma_kernels / sizeof kb_fma_kernels[0];
