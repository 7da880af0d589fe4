/* omp_ukernels.c - the omp backend's micro-kernel table and the choice
 * made from it once at start-up: per operand type, the first entry this
 * CPU can run, or the one KBENCH_OMP_UKERNEL names (portable: the
 * fallbacks).  The table is the target architecture's entries
 * (omp_ukernels_<arch>.c, each with its CPU test) followed by the
 * portable ones here; nothing else in the backend knows which CPU it
 * runs on. */
#include "omp_ukernels_arch.h"
#include "omp_ukernel_f32_8x32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- f16 widening for the packers, rounding for the stores ---- */

static void widen_f16_portable(const uint16_t *src, int64_t n, float *dst)
{
    for (int64_t j = 0; j < n; j++)
        dst[j] = kb_f16_to_f32(src[j]);
}

static void narrow_f16_portable(const float *src, int64_t n, uint16_t *dst)
{
    for (int64_t j = 0; j < n; j++)
        dst[j] = kb_f32_to_f16(src[j]);
}

/* ---- the table ---- */

/* Each type's entry that runs on any CPU (available == NULL, isa
 * "portable"), after the architecture's. */
static const kb_omp_ukernel portable[] = {
    { .isa = "portable", .name = "f32 FMA 8x32 (GCC vectors)",
      .dt = KB_F32, .kernel = kb_omp_ukernel_f32_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "portable", .name = "portable: widen to f32, f32 FMA 8x32",
      .dt = KB_BF16, .kernel = kb_omp_ukernel_f32_8x32,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
    { .isa = "portable",
      .name = "portable: scalar f16 conversions, f32 FMA 8x32",
      .dt = KB_F16, .kernel = kb_omp_ukernel_f32_8x32,
      .widen_f16 = widen_f16_portable, .narrow_f16 = narrow_f16_portable,
      .mr = KB_OMP_MR, .nr = KB_OMP_NR },
};
enum { NPORTABLE = sizeof portable / sizeof portable[0] };

/* Entry i of the whole table: the architecture's, then the portable. */
static const kb_omp_ukernel *arch;
static int narch;

static int nentries(void)
{
    return narch + NPORTABLE;
}

static const kb_omp_ukernel *entry(int i)
{
    return i < narch ? &arch[i] : &portable[i - narch];
}

/* The choice, per type (indexed by kb_dtype; f64 never reaches the
 * engine, it takes the f32 entry). */
static const kb_omp_ukernel *chosen[KB_DTYPE_COUNT];
static char env_error[320];   /* the longest message: 101 + names (159) */

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
    for (int i = 0; isa && i < nentries(); i++)
        if (entry(i)->dt == dt && strcmp(entry(i)->isa, isa) == 0) {
            if (runs_here(entry(i)))
                return entry(i);
            *refused = true;
        }
    for (int i = 0; i < nentries(); i++)
        if (entry(i)->dt == dt && runs_here(entry(i)))
            return entry(i);
    return &portable[0];
}

/* Whether some entry is called isa. */
static bool known_isa(const char *isa)
{
    for (int i = 0; i < nentries(); i++)
        if (strcmp(entry(i)->isa, isa) == 0)
            return true;
    return false;
}

/* "auto, portable, NAME, ...": every name KBENCH_OMP_UKERNEL takes here. */
static void isa_names(char *dst, size_t len)
{
    snprintf(dst, len, "auto, portable");
    for (int i = 0; i < narch; i++) {
        int first = 1;   /* an isa may have an entry per type */
        for (int j = 0; j < i; j++)
            first = first && strcmp(arch[j].isa, arch[i].isa) != 0;
        if (first)
            snprintf(dst + strlen(dst), len - strlen(dst), ", %s", arch[i].isa);
    }
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
    arch = kb_omp_arch_ukernels(&narch);
    for (int dt = 0; dt < KB_DTYPE_COUNT; dt++)
        chosen[dt] = choose((kb_dtype)dt, isa, &refused);
    if (isa && !known_isa(isa)) {
        char names[160];
        isa_names(names, sizeof names);
        snprintf(env_error, sizeof env_error, "KBENCH_OMP_UKERNEL=%.64s: "
                 "expected one of %s", isa, names);
    }
    else if (refused)
        snprintf(env_error, sizeof env_error, "KBENCH_OMP_UKERNEL=%.64s: "
                 "this CPU (or its OS) cannot run it", isa);
}

const kb_omp_ukernel *kb_omp_ukernel_for(kb_dtype a_dt, kb_dtype b_dt)
{
    return a_dt == b_dt ? chosen[a_dt] : &portable[0];
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
