/* omp_ukernels.c - the omp backend's micro-kernel table and the choice
 * made from it once at start-up: per operand type, the first entry this
 * CPU can run, or the one KBENCH_OMP_UKERNEL names (portable: the
 * fallbacks).  Nothing else in the backend knows which CPU it runs on. */
#define _GNU_SOURCE   /* syscall */
#include "omp_kernels.h"
#include "omp_ukernel_f32_8x32.h"

#include <cpuid.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void kb_omp_ukernel_avx512bf16_8x32(int64_t kc, const void *a,
                                    const void *b,
                                    kb_v16sf acc[][KB_OMP_NR / 16]);
void kb_omp_bf16_to_pairs(const float *panels, int64_t width,
                          int64_t extent, int64_t kc, int64_t kd,
                          uint32_t *out);
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

/* ---- f16 widening for the packers, rounding for the stores ---- */

static void widen_f16_portable(const uint16_t *src, int64_t n, float *dst)
{
    for (int64_t j = 0; j < n; j++)
        dst[j] = kb_f16_to_f32(src[j]);
}

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

static void narrow_f16_portable(const float *src, int64_t n, uint16_t *dst)
{
    for (int64_t j = 0; j < n; j++)
        dst[j] = kb_f32_to_f16(src[j]);
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

/* ---- the table ---- */

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

/* Per type, the preferred entry first; each type's last entry runs on
 * any CPU (available == NULL, isa "portable"). */
static const kb_omp_ukernel table[] = {
    { .isa = "portable", .name = "f32 FMA 8x32 (GCC vectors)",
      .dt = KB_F32, .kernel = kb_omp_ukernel_f32_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
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
      .kpad = 2, .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "portable", .name = "portable: widen to f32, f32 FMA 8x32",
      .dt = KB_BF16, .kernel = kb_omp_ukernel_f32_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "avx512_f16c",
      .name = "avx512f vcvtph2ps/vcvtps2ph (F16C) conversions, f32 FMA 8x32",
      .dt = KB_F16, .available = has_avx512_f16c,
      .kernel = kb_omp_ukernel_f32_8x32, .widen_f16 = widen_f16_avx512,
      .narrow_f16 = narrow_f16_avx512, .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "portable",
      .name = "portable: scalar f16 conversions, f32 FMA 8x32",
      .dt = KB_F16, .kernel = kb_omp_ukernel_f32_8x32,
      .widen_f16 = widen_f16_portable, .narrow_f16 = narrow_f16_portable,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
};
enum { NENTRIES = sizeof table / sizeof table[0] };

/* The choice, per type (indexed by kb_dtype; f64 never reaches the
 * engine, it takes the f32 entry). */
static const kb_omp_ukernel *chosen[KB_DTYPE_COUNT];
static char env_error[256];

static bool runs_here(const kb_omp_ukernel *e)
{
    return !e->available || e->available();
}

/* The entry of type dt: the one named isa if the table has it for dt,
 * else the first this CPU runs.  *refused is set when the named one
 * exists but this CPU cannot run it. */
static const kb_omp_ukernel *choose(kb_dtype dt, const char *isa,
                                    bool *refused)
{
    for (int i = 0; isa && i < NENTRIES; i++)
        if (table[i].dt == dt && strcmp(table[i].isa, isa) == 0) {
            if (runs_here(&table[i]))
                return &table[i];
            *refused = true;
        }
    for (int i = 0; i < NENTRIES; i++)
        if (table[i].dt == dt && runs_here(&table[i]))
            return &table[i];
    return &table[0];
}

/* Whether some entry is called isa. */
static bool known_isa(const char *isa)
{
    for (int i = 0; i < NENTRIES; i++)
        if (strcmp(table[i].isa, isa) == 0)
            return true;
    return false;
}

/* Runs before main: the choice is made once, before any thread exists.
 * KBENCH_OMP_UKERNEL=ISA takes that entry for each type the table has it
 * for (portable: every type's fallback); unset or "auto": the first this
 * CPU runs. */
__attribute__((constructor)) static void choose_all(void)
{
    const char *env = getenv("KBENCH_OMP_UKERNEL");
    const char *isa = env && *env && strcmp(env, "auto") != 0 ? env : NULL;
    bool refused = false;
    for (int dt = 0; dt < KB_DTYPE_COUNT; dt++)
        chosen[dt] = choose((kb_dtype)dt, isa, &refused);
    if (isa && !known_isa(isa))
        snprintf(env_error, sizeof env_error, "KBENCH_OMP_UKERNEL=%.64s: "
                 "expected auto, portable, amx_bf16, avx512_bf16 or "
                 "avx512_f16c", isa);
    else if (refused)
        snprintf(env_error, sizeof env_error, "KBENCH_OMP_UKERNEL=%.64s: "
                 "this CPU (or its OS) cannot run it", isa);
}

const kb_omp_ukernel *kb_omp_ukernel_for(kb_dtype a_dt, kb_dtype b_dt)
{
    return a_dt == b_dt ? chosen[a_dt] : &table[0];
}

const char *kb_omp_ukernel_env_error(void)
{
    return env_error[0] ? env_error : NULL;
}

void kb_omp_widen_f16(const uint16_t *src, int64_t n, float *dst)
{
    chosen[KB_F16]->widen_f16(src, n, dst);
}

void kb_omp_narrow_f16(const float *src, int64_t n, uint16_t *dst)
{
    chosen[KB_F16]->narrow_f16(src, n, dst);
}
