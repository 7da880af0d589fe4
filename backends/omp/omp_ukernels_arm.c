/* omp_ukernels_arm.c - the omp backend's aarch64 micro-kernels, under
 * the engine's packing (8-row A and 32-column B micro-panels): f32 on SVE
 * at any vector length and on NEON, bf16 on BFDOT over the pair panels
 * x86's vdpbf16ps reads, f16 through NEON's conversions.  Each runs where
 * the HWCAP bits say the CPU can (the choice: omp_ukernels.c). */
#include "omp_ukernels_arch.h"

#include <arm_neon.h>
#include <stdbool.h>
#include <sys/auxv.h>

/* Linux asm/hwcap.h's bits, defined here too for older headers. */
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP2_BF16
#define HWCAP2_BF16 (1UL << 14)
#endif

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, QN = 8 };   /* QN: columns per pass */
_Static_assert(MR == 8 && NR % QN == 0, "8-row panels, 8-column passes");

static bool has_sve(void) { return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0; }
static bool has_bf16(void) { return (getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0; }

/* ---- NEON f32: 8x32 in four 8x8 passes ---- */

/* 8x32 floats need 64 NEON registers; a pass over 8 columns keeps its
 * 8x8 in 16, with two of B and two of A (8 rows, used by lane), and
 * re-reads the A panel (8 floats per k, from L1) once per pass. */
static void f32_neon_8x32(int64_t kc, const void *pa, const void *pb,
                          kb_v16sf acc[][NR / 16])
{
    float *out = (float *)acc;
    for (int q = 0; q < NR / QN; q++) {
        const float *a = pa, *b = (const float *)pb + q * QN;
        float32x4_t c[MR][2];
        for (int i = 0; i < MR; i++)
            c[i][0] = c[i][1] = vdupq_n_f32(0);
        for (int64_t k = 0; k < kc; k++, a += MR, b += NR) {
            float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
            float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);
#define ROW(i, av, l)                                                        \
            c[i][0] = vfmaq_laneq_f32(c[i][0], b0, av, l);                   \
            c[i][1] = vfmaq_laneq_f32(c[i][1], b1, av, l);
            ROW(0, a0, 0) ROW(1, a0, 1) ROW(2, a0, 2) ROW(3, a0, 3)
            ROW(4, a1, 0) ROW(5, a1, 1) ROW(6, a1, 2) ROW(7, a1, 3)
#undef ROW
        }
        for (int i = 0; i < MR; i++) {
            vst1q_f32(out + i * NR + q * QN, c[i][0]);
            vst1q_f32(out + i * NR + q * QN + 4, c[i][1]);
        }
    }
}

/* ---- NEON BFDOT bf16: 8x32 in four 8x8 passes ---- */

/* The pair panels (omp_bf16_pairs.c): per pair of k, 8 A words and 32 B
 * words, each word a bf16 pair.  BFDOT adds, per f32 lane, the dot
 * product of a B pair and the A pair of the lane named, as vdpbf16ps. */
__attribute__((target("arch=armv8.2-a+bf16")))
static void bf16_bfdot_8x32(int64_t kc, const void *pa, const void *pb,
                            kb_v16sf acc[][NR / 16])
{
    float *out = (float *)acc;
    for (int q = 0; q < NR / QN; q++) {
        const uint32_t *a = pa, *b = (const uint32_t *)pb + q * QN;
        float32x4_t c[MR][2];
        for (int i = 0; i < MR; i++)
            c[i][0] = c[i][1] = vdupq_n_f32(0);
        for (int64_t k = 0; k < kc; k += 2, a += MR, b += NR) {
            bfloat16x8_t b0 = vreinterpretq_bf16_u32(vld1q_u32(b));
            bfloat16x8_t b1 = vreinterpretq_bf16_u32(vld1q_u32(b + 4));
            bfloat16x8_t a0 = vreinterpretq_bf16_u32(vld1q_u32(a));
            bfloat16x8_t a1 = vreinterpretq_bf16_u32(vld1q_u32(a + 4));
#define ROW(i, av, l)                                                        \
            c[i][0] = vbfdotq_laneq_f32(c[i][0], b0, av, l);                 \
            c[i][1] = vbfdotq_laneq_f32(c[i][1], b1, av, l);
            ROW(0, a0, 0) ROW(1, a0, 1) ROW(2, a0, 2) ROW(3, a0, 3)
            ROW(4, a1, 0) ROW(5, a1, 1) ROW(6, a1, 2) ROW(7, a1, 3)
#undef ROW
        }
        for (int i = 0; i < MR; i++) {
            vst1q_f32(out + i * NR + q * QN, c[i][0]);
            vst1q_f32(out + i * NR + q * QN + 4, c[i][1]);
        }
    }
}

/* ---- SVE f32: 8 rows x 32 columns, any vector length ---- */

#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+sve")
#include <arm_sve.h>

/* Two vectors of columns per pass (32 at 512 bits, 16 at 256, 8 at
 * 128), predicated where a long vector passes column 32; 16 accumulators
 * (SVE's types cannot be array elements, so they are named by ROWS). */
#define ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
static void f32_sve_8x32(int64_t kc, const void *pa, const void *pb,
                         kb_v16sf acc[][NR / 16])
{
    float *out = (float *)acc;
    int64_t vl = (int64_t)svcntw();
    for (int64_t j0 = 0; j0 < NR; j0 += 2 * vl) {
        svbool_t p0 = svwhilelt_b32_s64(j0, NR), p1 = svwhilelt_b32_s64(j0 + vl, NR);
        const float *a = pa, *b = (const float *)pb + j0;
#define DECL(i) svfloat32_t c##i##0 = svdup_n_f32(0), c##i##1 = svdup_n_f32(0);
        ROWS(DECL)
        for (int64_t k = 0; k < kc; k++, a += MR, b += NR) {
            svfloat32_t b0 = svld1_f32(p0, b), b1 = svld1_f32(p1, b + vl);
#define STEP(i)                                                              \
            c##i##0 = svmla_n_f32_x(p0, c##i##0, b0, a[i]);                  \
            c##i##1 = svmla_n_f32_x(p1, c##i##1, b1, a[i]);
            ROWS(STEP)
        }
#define STORE(i)                                                             \
        svst1_f32(p0, out + i * NR + j0, c##i##0);                           \
        svst1_f32(p1, out + i * NR + j0 + vl, c##i##1);
        ROWS(STORE)
#undef DECL
#undef STEP
#undef STORE
    }
}
#pragma GCC pop_options

/* ---- f16: NEON's exact conversions (FCVTL, FCVTN) ---- */

static void widen_f16_neon(const uint16_t *src, int64_t n, float *dst)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4)
        vst1q_f32(dst + j, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(src + j))));
    for (; j < n; j++)
        dst[j] = kb_f16_to_f32(src[j]);
}

/* Round to nearest even (FPCR's default mode), as kb_f32_to_f16; a NaN
 * keeps its payload's top bits: both are NaN. */
static void narrow_f16_neon(const float *src, int64_t n, uint16_t *dst)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4)
        vst1_u16(dst + j, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src + j))));
    for (; j < n; j++)
        dst[j] = kb_f32_to_f16(src[j]);
}

static const kb_omp_ukernel table[] = {
    { .isa = "sve", .name = "sve f32 FMA 8x32 (vector-length agnostic)",
      .dt = KB_F32, .available = has_sve, .kernel = f32_sve_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "neon", .name = "neon f32 FMA 8x32 (four 8x8 passes)",
      .dt = KB_F32, .kernel = f32_neon_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "bf16_bfdot", .name = "bf16 bfdot 8x32 (four 8x8 passes)",
      .dt = KB_BF16, .available = has_bf16, .kernel = bf16_bfdot_8x32,
      .to_pairs_a = kb_omp_bf16_to_pairs, .to_pairs_b = kb_omp_bf16_to_pairs,
      .kpad = 2, .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "neon", .name = "neon f16 conversions, f32 FMA 8x32",
      .dt = KB_F16, .kernel = f32_neon_8x32, .widen_f16 = widen_f16_neon,
      .narrow_f16 = narrow_f16_neon, .mr = KB_OMP_MR, .nr = KB_OMP_NR },
};

const kb_omp_ukernel *kb_omp_arch_ukernels(int *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}
