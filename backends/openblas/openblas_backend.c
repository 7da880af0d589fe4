/* openblas_backend.c - the vendor CPU BLAS: GEMM through cblas_?gemm and
 * convolution as the classic explicit im2col / vol2col followed by sgemm.
 *
 * The transform is part of the timed work (it is what a GEMM-based
 * framework pays on every call); its workspace is reported through
 * extra_bytes.  1x1 stride-1 unpadded convolutions skip it: the input
 * already is the column matrix.  Batchnorm is not a BLAS operation. */
#include "openblas_backend.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>

typedef struct {
    kb_problem p;
    kb_tensors host;
    float *col;                /* im2col workspace, NULL when not needed */
    int64_t col_rows, col_cols;
} ob_plan;

static bool ob_supports(const kb_problem *p, char *why, size_t len)
{
    if (p->kind == KB_BNORM) {
        snprintf(why, len, "OpenBLAS offers no batch normalization");
        return false;
    }
    if (p->kind == KB_GEMM) {
        if (kb_dts_all(&p->dt, KB_F32) || kb_dts_all(&p->dt, KB_F64))
            return true;   /* cblas_sgemm and cblas_dgemm */
        snprintf(why, len, "openblas GEMM is cblas_sgemm/cblas_dgemm: f32 "
                 "and f64 only");
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "openblas has no %s pass", kb_dir_name(p->dir));
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

/* Column matrix of one image and group: (C/G * T * R * S) rows by
 * (O * P * Q) columns. */
static size_t ob_extra_bytes(const kb_problem *p)
{
    if (p->kind != KB_CONV || kb_conv_is_pointwise(&p->conv))
        return 0;
    const kb_conv_desc *c = &p->conv;
    size_t rows = (size_t)(c->ic / c->g) * c->kd * c->kh * c->kw;
    size_t cols = (size_t)c->od * c->oh * c->ow;
    return rows * cols * sizeof(float);
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
        const kb_conv_desc *c = &p->conv;
        pl->col_rows = (c->ic / c->g) * c->kd * c->kh * c->kw;
        pl->col_cols = c->od * c->oh * c->ow;
        pl->col = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        if (!pl->col) {
            snprintf(err, len, "openblas: cannot allocate %zu bytes of im2col workspace",
                     bytes);
            free(pl);
            return -1;
        }
    }
    *plan = pl;
    return 0;
}

/* vol2col of image n, group g: row (c, t, r, s), column (o, p, q) holds
 * the input element that weight tap meets at that output point, or 0 in
 * the padding.  2D problems are the D = T = 1 case. */
static void im2col(const kb_conv_desc *c, const float *src, int64_t n,
                   int64_t g, float *col)
{
    const int64_t cg = c->ic / c->g;
    const int64_t ncols = c->od * c->oh * c->ow;
    const int64_t nrows = cg * c->kd * c->kh * c->kw;

#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < nrows; row++) {
        int64_t s = row % c->kw, r = row / c->kw % c->kh;
        int64_t t = row / (c->kw * c->kh) % c->kd, ch = row / (c->kw * c->kh * c->kd);
        const float *plane = src + ((n * c->ic + g * cg + ch) * c->id) * c->ih * c->iw;
        float *out = col + row * ncols;
        for (int64_t o = 0; o < c->od; o++) {
            int64_t z = o * c->sd - c->pd + t * (c->dd + 1);
            for (int64_t y0 = 0; y0 < c->oh; y0++) {
                int64_t y = y0 * c->sh - c->ph + r * (c->dh + 1);
                float *dst = out + (o * c->oh + y0) * c->ow;
                bool inside = z >= 0 && z < c->id && y >= 0 && y < c->ih;
                for (int64_t x0 = 0; x0 < c->ow; x0++) {
                    int64_t x = x0 * c->sw - c->pw + s * (c->dw + 1);
                    dst[x0] = inside && x >= 0 && x < c->iw
                                  ? plane[(z * c->ih + y) * c->iw + x]
                                  : 0.0f;
                }
            }
        }
    }
}

static void conv_run(ob_plan *pl)
{
    const kb_conv_desc *c = &pl->p.conv;
    const float *src = pl->host.ptr[KB_ARG_SRC];
    const float *wei = pl->host.ptr[KB_ARG_WEI];
    const float *bia = pl->host.ptr[KB_ARG_BIA];
    float *dst = pl->host.ptr[KB_ARG_DST];
    const int64_t cg = c->ic / c->g, kg = c->oc / c->g;
    const int64_t spatial = c->od * c->oh * c->ow;
    const int64_t krows = cg * c->kd * c->kh * c->kw;

    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t g = 0; g < c->g; g++) {
            const float *b = pl->col ? pl->col
                                     : src + (n * c->ic + g * cg) * spatial;
            float *out = dst + (n * c->oc + g * kg) * spatial;
            /* With a bias, start from it and accumulate (beta = 1). */
            if (bia)
                for (int64_t k = 0; k < kg; k++)
                    for (int64_t i = 0; i < spatial; i++)
                        out[k * spatial + i] = bia[g * kg + k];
            if (pl->col)
                im2col(c, src, n, g, pl->col);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)kg,
                        (int)spatial, (int)krows, 1.0f, wei + g * kg * krows,
                        (int)krows, b, (int)spatial, bia ? 1.0f : 0.0f, out,
                        (int)spatial);
        }
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
    else
        conv_run(pl);
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
    kb_info_add(info, "conv", "im2col/vol2col + sgemm (transform timed)");
    __builtin_cpu_init();
    bool fallback = kb_openblas_core_fallback(
        core, __builtin_cpu_supports("avx2"), __builtin_cpu_supports("avx512f"),
        fix, sizeof(fix));
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
