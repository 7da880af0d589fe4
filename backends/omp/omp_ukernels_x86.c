/* omp_ukernels_x86.c - the omp backend's x86 micro-kernels: AMX and
 * AVX512-BF16 for bf16, AVX-512's F16C conversions for f16, each run
 * where CPUID (and, for AMX, Linux) says the CPU can (the choice:
 * omp_ukernels.c). */
#define _GNU_SOURCE   /* syscall */
#include "omp_ukernels_arch.h"
#include "omp_ukernel_f32_8x32.h"

#include <cpuid.h>
#include <immintrin.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

void kb_omp_ukernel_avx512bf16_8x32(int64_t kc, const void *a,
                                    const void *b,
                                    kb_v16sf acc[][KB_OMP_NR / 16]);
void kb_omp_direct_avx512bf16_8x32(int64_t kc, const uint32_t *a,
                                   int64_t a_rs, const uint32_t *b,
                                   const int64_t *b_off,
                                   kb_v16sf acc[][KB_OMP_NR / 16]);
void kb_omp_ukernel_amx_bf16_16x32(int64_t kc, const void *a, const void *b,
                                   kb_v16sf acc[][KB_OMP_NR / 16]);
void kb_omp_amx_a_panels(const float *panels, int64_t width, int64_t extent,
                         int64_t kc, int64_t kd, uint32_t *out);
void kb_omp_amx_begin(void);
void kb_omp_amx_end(void);

/* The pair buffers hold KC-deep panels: a kpad must divide KC. */
_Static_assert(KB_OMP_KC % 32 == 0, "AMX pads k to 32");
/* A's pair buffer holds MC rows: a kernel's mr must divide MC. */
_Static_assert(KB_OMP_MC % KB_OMP_MR_MAX == 0, "AMX takes 16 rows");

/* ---- f16 conversions for the packers and the stores ---- */

/* vcvtph2ps, 16 at a time (exact, like the scalar conversion). */
__attribute__((target("avx512f,f16c")))
static void widen_f16_avx512(const uint16_t *src, int64_t n, float *dst)
{
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        _mm512_storeu_ps(dst + j, _mm512_cvtph_ps(_mm256_loadu_si256(
                                      (const __m256i *)(src + j))));
    for (; j < n; j++)
        dst[j] = kb_f16_to_f32(src[j]);
}

/* vcvtps2ph with round-to-nearest-even, 16 at a time.  A NaN keeps its
 * payload's top bits where kb_f32_to_f16 gives the plain quiet NaN: both
 * are NaN. */
__attribute__((target("avx512f,f16c")))
static void narrow_f16_avx512(const float *src, int64_t n, uint16_t *dst)
{
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        _mm256_storeu_si256((__m256i *)(dst + j),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + j),
                                            _MM_FROUND_TO_NEAREST_INT |
                                            _MM_FROUND_NO_EXC));
    for (; j < n; j++)
        dst[j] = kb_f32_to_f16(src[j]);
}

/* ---- what the CPU has ---- */

/* Whether CPUID (leaf, sub) sets bit of register reg (0-3: EAX, EBX,
 * ECX, EDX).  Asked directly because clang 14's __builtin_cpu_supports
 * knows neither F16C, AVX512-BF16 nor AMX. */
enum { EAX, EBX, ECX, EDX };
static bool cpuid_bit(unsigned leaf, unsigned sub, int reg, unsigned bit)
{
    unsigned r[4];
    if (!__get_cpuid_count(leaf, sub, &r[EAX], &r[EBX], &r[ECX], &r[EDX]))
        return false;
    return (r[reg] >> bit) & 1u;
}

/* avx512f also says the OS saves the AVX-512 state; F16C is CPUID 1's
 * ECX bit 29, AVX512-BF16 leaf 7.1's EAX bit 5. */
static bool has_avx512_bf16(void)
{
    return __builtin_cpu_supports("avx512f") && cpuid_bit(7, 1, EAX, 5);
}

static bool has_avx512_f16c(void)
{
    return __builtin_cpu_supports("avx512f") && cpuid_bit(1, 0, ECX, 29);
}

/* AMX-TILE and AMX-BF16 (EDX bits 24 and 22), and Linux granting the
 * process the tile state (arch_prctl ARCH_REQ_XCOMP_PERM for
 * XFEATURE_XTILEDATA), which a kernel or hypervisor without it refuses. */
static bool has_amx_bf16(void)
{
    enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
    return cpuid_bit(7, 0, EDX, 24) && cpuid_bit(7, 0, EDX, 22) &&
           syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
                   XFEATURE_XTILEDATA) == 0;
}

static const kb_omp_ukernel table[] = {
    { .isa = "amx_bf16",
      .name = "amx_bf16 tdpbf16ps 16x32 (two 16x16 C tiles)",
      .dt = KB_BF16, .available = has_amx_bf16,
      .kernel = kb_omp_ukernel_amx_bf16_16x32,
      .to_pairs_a = kb_omp_amx_a_panels, .to_pairs_b = kb_omp_bf16_to_pairs,
      .kpad = 32, .thread_begin = kb_omp_amx_begin,
      .thread_end = kb_omp_amx_end, .mr = 16, .nr = KB_OMP_NR },
    { .isa = "avx512_bf16", .name = "avx512_bf16 vdpbf16ps 8x32",
      .dt = KB_BF16, .available = has_avx512_bf16,
      .kernel = kb_omp_ukernel_avx512bf16_8x32,
      .to_pairs_a = kb_omp_bf16_to_pairs, .to_pairs_b = kb_omp_bf16_to_pairs,
      .kpad = 2, .direct = kb_omp_direct_avx512bf16_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "avx512_f16c",
      .name = "avx512f vcvtph2ps/vcvtps2ph (F16C) conversions, f32 FMA 8x32",
      .dt = KB_F16, .available = has_avx512_f16c,
      .kernel = kb_omp_ukernel_f32_8x32, .widen_f16 = widen_f16_avx512,
      .narrow_f16 = narrow_f16_avx512, .mr = KB_OMP_MR, .nr = KB_OMP_NR },
};

const kb_omp_ukernel *kb_omp_arch_ukernels(int *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}
