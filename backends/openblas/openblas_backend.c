/* openblas_backend.c - the vendor CPU BLAS: GEMM through cblas_?gemm and
 * convolution (every direction) as explicit im2col / vol2col or col2im
 * around sgemm (openblas_conv.c, openblas_conv_bwd.c).
 *
 * The transform is part of the timed work (it is what a GEMM-based
 * framework pays on every call); its workspace is reported through
 * extra_bytes.  1x1 stride-1 unpadded convolutions skip it: the input
 * already is the column matrix.  Batchnorm is not a BLAS operation. */
#include "openblas_backend.h"
#include "openblas_internal.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>

/* Why bf16 and f16 are SKIPPED: the backend calls only cblas_sgemm and
 * cblas_dgemm, having nothing narrower to call. */
static const char *const no_half_gemm[] = {
    [KB_BF16] = "openblas has no bf16 path: cblas_sbgemm exists only in an "
                "OpenBLAS built with BUILD_BFLOAT16, which Debian's (0.3.21 "
                "in 12, 0.3.29 in 13) is not (it exports no sbgemm)",
    [KB_F16] = "openblas has no f16 path: Debian's OpenBLAS (0.3.21 in 12, "
               "0.3.29 in 13) exports no half-precision GEMM",
};

static bool ob_supports(const kb_problem *p, char *why, size_t len)
{
    if (p->kind == KB_BNORM) {
        snprintf(why, len, "OpenBLAS offers no batch normalization");
        return false;
    }
    if (kb_dts_has(&p->dt, KB_BF16) || kb_dts_has(&p->dt, KB_F16)) {
        snprintf(why, len, "%s",
                 no_half_gemm[kb_dts_has(&p->dt, KB_BF16) ? KB_BF16 : KB_F16]);
        return false;
    }
    if (p->kind == KB_GEMM) {
        if (kb_dts_all(&p->dt, KB_F32) || kb_dts_all(&p->dt, KB_F64))
            return true;   /* cblas_sgemm and cblas_dgemm */
        snprintf(why, len, "openblas GEMM is cblas_sgemm/cblas_dgemm: f32 "
                 "and f64 only");
        return false;
    }
    if (!kb_dts_all(&p->dt, KB_F32)) {
        snprintf(why, len, "openblas convolution is im2col + sgemm: f32 only");
        return false;
    }
    if (p->layout != KB_LAYOUT_NCX) {
        snprintf(why, len, "openblas convolution implements NCHW/NCDHW only");
        return false;
    }
    return true;
}

/* Column matrix of one image and group, the same for every direction. */
static size_t ob_extra_bytes(const kb_problem *p)
{
    if (p->kind != KB_CONV || kb_conv_is_pointwise(&p->conv))
        return 0;
    return (size_t)ob_col_rows(&p->conv) * (size_t)ob_col_cols(&p->conv) *
           sizeof(float);
}

static int ob_prepare(const kb_problem *p, const kb_tensors *host, void **plan,
                      char *err, size_t len)
{
    ob_plan *pl = calloc(1, sizeof(*pl));
    if (!pl) {
        snprintf(err, len, "openblas: out of memory for the plan");
        return -1;
    }
    pl->p = *p;
    pl->host = *host;
    size_t bytes = ob_extra_bytes(p);
    if (bytes) {
        pl->col = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        if (!pl->col) {
            snprintf(err, len, "openblas: cannot allocate %zu bytes of "
                     "column-matrix workspace", bytes);
            free(pl);
            return -1;
        }
    }
    *plan = pl;
    return 0;
}

static void gemm_run(ob_plan *pl)
{
    const kb_gemm_desc *g = &pl->p.gemm;
    enum CBLAS_TRANSPOSE ta = g->ta ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = g->tb ? CblasTrans : CblasNoTrans;
    int lda = (int)(g->ta ? g->m : g->k), ldb = (int)(g->tb ? g->k : g->n);

    if (pl->p.dt.src == KB_F64)
        cblas_dgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k,
                    g->alpha, pl->host.ptr[KB_ARG_SRC], lda,
                    pl->host.ptr[KB_ARG_WEI], ldb, g->beta,
                    pl->host.ptr[KB_ARG_DST], (int)g->n);
    else
        cblas_sgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k,
                    (float)g->alpha, pl->host.ptr[KB_ARG_SRC], lda,
                    pl->host.ptr[KB_ARG_WEI], ldb, (float)g->beta,
                    pl->host.ptr[KB_ARG_DST], (int)g->n);
}

static int ob_run(void *plan, double *elapsed, char *err, size_t len)
{
    ob_plan *pl = plan;
    (void)err;
    (void)len;
    *elapsed = -1;
    if (pl->p.kind == KB_GEMM)
        gemm_run(pl);
    else if (pl->p.dir == KB_BWD_D)
        ob_conv_bwd_d(pl);
    else if (pl->p.dir == KB_BWD_W || pl->p.dir == KB_BWD_WB)
        ob_conv_bwd_w(pl);
    else
        ob_conv_fwd(pl);
    return 0;
}

static void ob_release(void *plan)
{
    ob_plan *pl = plan;
    if (pl)
        free(pl->col);
    free(pl);
}

/* The widest SIMD an OpenBLAS core's kernels use: 0 below AVX2, 2 for
 * AVX2, 3 for AVX-512.  Names as openblas_get_corename() returns them;
 * unknown names count as current (no warning rather than a false one). */
static int core_simd_level(const char *core)
{
    static const char *const pre_avx2[] = {
        "prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
        "katmai", "coppermine", "northwood", "banias", "opteron",
        "opteron_sse3", "barcelona", "bobcat", "sandybridge", "bulldozer",
        "piledriver", "steamroller", "generic"};
    static const char *const avx2[] = {"haswell", "zen", "excavator"};

    for (size_t i = 0; i < sizeof(pre_avx2) / sizeof(pre_avx2[0]); i++)
        if (strcasecmp(core, pre_avx2[i]) == 0)
            return 0;
    for (size_t i = 0; i < sizeof(avx2) / sizeof(avx2[0]); i++)
        if (strcasecmp(core, avx2[i]) == 0)
            return 2;
    return 3;
}

bool kb_openblas_core_fallback(const char *core, bool cpu_has_avx2,
                               bool cpu_has_avx512, char *fix, size_t len)
{
    int cpu = cpu_has_avx512 ? 3 : cpu_has_avx2 ? 2 : 0;
    int lib = core_simd_level(core);
    const char *want = cpu == 3 ? "SkylakeX" : "Haswell";

    if (lib >= cpu)
        return false;
    if (lib == 0)
        /* 0.3.21 falls back to Prescott on CPUs it does not recognise,
         * about 5x below what SkylakeX reaches on AVX-512 machines. */
        snprintf(fix, len,
                 "OpenBLAS runs its generic '%s' kernels on this %s CPU (about "
                 "5x slower than it can); set OPENBLAS_CORETYPE=%s",
                 core, cpu == 3 ? "AVX-512" : "AVX2", want);
    else
        snprintf(fix, len,
                 "OpenBLAS runs its AVX2 '%s' kernels on this AVX-512 CPU; set "
                 "OPENBLAS_CORETYPE=%s for its AVX-512 kernels",
                 core, want);
    return true;
}

static void ob_describe(kb_info *info)
{
    const char *core = openblas_get_corename();
    const char *coretype = getenv("OPENBLAS_CORETYPE");
    char fix[256];

    kb_info_add(info, "library", "OpenBLAS");
    kb_info_add(info, "config", "%s", openblas_get_config());
    kb_info_add(info, "corename", "%s", core);
    kb_info_add(info, "OPENBLAS_CORETYPE", "%s", coretype ? coretype : "unset");
    kb_info_add(info, "threads", "%d", openblas_get_num_threads());
    kb_info_add(info, "conv", "im2col/vol2col (col2im for BWD_D) + sgemm, "
                "transform timed");
    /* the fallback is x86's (AVX2 kernels on an AVX-512 CPU); elsewhere
     * OpenBLAS's core name is recorded as it is */
#if defined(__x86_64__)
    __builtin_cpu_init();
    bool fallback = kb_openblas_core_fallback(
        core, __builtin_cpu_supports("avx2"), __builtin_cpu_supports("avx512f"),
        fix, sizeof(fix));
#else
    bool fallback = false;
#endif
    kb_info_add(info, "core_fallback", "%s", fallback ? "true" : "false");
    if (fallback)
        kb_info_add(info, "warning", "%s", fix);
}

static void ob_set_threads(int threads)
{
    openblas_set_num_threads(threads);
}

const kb_backend kb_backend_openblas = {
    .name = "openblas",
    .kind = "vendor",
    .device = "cpu",
    .supports = ob_supports,
    .extra_bytes = ob_extra_bytes,
    .prepare = ob_prepare,
    .run = ob_run,
    .read_output = NULL,
    .release = ob_release,
    .describe = ob_describe,
    .set_threads = ob_set_threads,
};
