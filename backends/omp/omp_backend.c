/* omp_backend.c - the hand-written OpenMP C backend: the kb_backend table
 * that puts the kernels of omp_gemm.c, omp_conv.c and omp_bnorm.c behind
 * backends/backend.h.  run() works directly on the host tensors. */
#include "omp_backend.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_kernels.h"

typedef struct {
    kb_problem p;
    kb_tensors t;              /* the driver's host tensors, not owned */
    int nthreads;              /* OpenMP's at prepare(), >= 1 */
    kb_omp_workspace ws;       /* packing buffers (GEMM, conv's GEMM path) */
    void *wei_nxc;             /* reordered weights (NXC conv GEMM), or NULL */
    kb_omp_conv_bwd_plan *bwd; /* backward conv's own plan, or NULL */
} omp_plan;

/* Both ask the dispatcher's own question (kb_omp_conv_path_of), so every
 * path that packs gets its buffers and no other pays for them. */
static bool needs_workspace(const kb_problem *p)
{
    return p->kind == KB_GEMM ||
           (p->kind == KB_CONV && !kb_dir_is_backward(p->dir) &&
            kb_omp_conv_path_of(p) == KB_OMP_CONV_GEMM);
}

/* Backward convolutions size and own their buffers (omp_conv_bwd.c). */
static bool is_conv_bwd(const kb_problem *p)
{
    return p->kind == KB_CONV && kb_dir_is_backward(p->dir);
}

static bool needs_wei_nxc(const kb_problem *p)
{
    return p->kind == KB_CONV && needs_workspace(p) &&
           p->layout == KB_LAYOUT_NXC;
}

/* f32, or for GEMM and the forward conv bf16/f16 inputs (both alike)
 * with a dst of their type or f32 (omp_ukernels.c picks how they are
 * multiplied); the backward conv and bnorm take one type for all. */
static bool dts_supported(const kb_problem *p)
{
    const kb_dts *d = &p->dt;
    if (kb_dts_all(d, KB_F32))
        return true;
    if (p->kind == KB_CONV && kb_dir_is_backward(p->dir))
        return kb_omp_conv_bwd_supports(d);
    if (p->kind == KB_BNORM)
        return kb_omp_bnorm_supports(d);
    return p->kind != KB_BNORM && !kb_dir_is_backward(p->dir) &&
           (d->src == KB_BF16 || d->src == KB_F16) && d->wei == d->src &&
           (d->dst == d->src || d->dst == KB_F32);
}

/* Writes the reason to why when refusing. */
static bool omp_supports(const kb_problem *p, char *why, size_t len)
{
    if (!dts_supported(p)) {
        char dt[32];
        kb_dts_format(&p->dt, dt, sizeof dt);
        snprintf(why, len, "omp: f32 only, or bf16/f16 for GEMM, conv "
                 "(forward: dst alike or f32; backward: all alike) and "
                 "bnorm; not %s %s %s", dt,
                 kb_problem_kernel_name(p), kb_dir_name(p->dir));
        return false;
    }
    return true;
}

/* What the workspace holds: panels for the operand types, and f32
 * partial sums when C is bf16/f16. */
static kb_omp_ws_need ws_need(const kb_problem *p)
{
    return p->kind == KB_GEMM ? kb_omp_gemm_problem_need(p)
                              : kb_omp_conv_need(p);
}

static size_t omp_extra_bytes(const kb_problem *p)
{
    size_t bytes = 0;
    if (needs_workspace(p)) {
        kb_omp_ws_need need = ws_need(p);
        bytes += kb_omp_workspace_bytes_for(omp_get_max_threads(), &need);
    }
    if (needs_wei_nxc(p))
        bytes += (size_t)kb_omp_conv_nxc_weight_elems(p) *
                 kb_dtype_size(p->dt.wei);
    if (is_conv_bwd(p))
        bytes += kb_omp_conv_bwd_extra_bytes(p, omp_get_max_threads());
    return bytes;
}

static void omp_release(void *plan)
{
    omp_plan *pl = plan;
    if (!pl)
        return;
    kb_omp_workspace_free(&pl->ws);
    free(pl->wei_nxc);
    kb_omp_conv_bwd_free(pl->bwd);
    free(pl);
}

/* Fails (-1, message in err) only when memory runs out or p is not
 * supported. */
static int omp_prepare(const kb_problem *p, const kb_tensors *host,
                       void **plan, char *err, size_t len)
{
    omp_plan *pl = NULL;
    *plan = NULL;
    if (!omp_supports(p, err, len))
        return -1;
    if (kb_omp_ukernel_env_error()) {
        snprintf(err, len, "omp: %s", kb_omp_ukernel_env_error());
        return -1;
    }
    pl = calloc(1, sizeof(*pl));
    if (!pl)
        goto oom;
    pl->p = *p;
    pl->t = *host;
    pl->nthreads = omp_get_max_threads();
    kb_omp_ws_need need = needs_workspace(p) ? ws_need(p)
                                             : (kb_omp_ws_need){0};
    if (needs_workspace(p) &&
        kb_omp_workspace_init_for(&pl->ws, pl->nthreads, &need) != 0)
        goto oom;
    if (needs_wei_nxc(p)) {
        pl->wei_nxc = malloc((size_t)kb_omp_conv_nxc_weight_elems(p) *
                             kb_dtype_size(p->dt.wei));
        if (!pl->wei_nxc)
            goto oom;
        kb_omp_conv_reorder_weights(p, host->ptr[KB_ARG_WEI], pl->wei_nxc);
    }
    if (is_conv_bwd(p) &&
        kb_omp_conv_bwd_prepare(p, host, pl->nthreads, &pl->bwd) != 0)
        goto oom;
    *plan = pl;
    return 0;
oom:
    snprintf(err, len, "omp: out of memory allocating %zu bytes of "
             "workspace", omp_extra_bytes(p));
    omp_release(pl);
    return -1;
}

/* Cannot fail once prepared. */
static int omp_run(void *plan, double *elapsed, char *err, size_t len)
{
    omp_plan *pl = plan;
    (void)err;
    (void)len;
    *elapsed = -1.0;
    switch (pl->p.kind) {
    case KB_GEMM:
        kb_omp_gemm_problem(&pl->p, &pl->t, &pl->ws);
        break;
    case KB_CONV:
        if (pl->bwd)
            kb_omp_conv_bwd(pl->bwd);
        else
            kb_omp_conv(&pl->p, &pl->t, pl->wei_nxc, &pl->ws, pl->nthreads);
        break;
    case KB_BNORM:
        kb_omp_bnorm(&pl->p, &pl->t, pl->nthreads);
        break;
    }
    return 0;
}

static void omp_describe(kb_info *info)
{
    kb_info_add(info, "library", "kbench hand-written OpenMP C");
    kb_info_add(info, "openmp", "%d", _OPENMP);
    kb_info_add(info, "max_threads", "%d", omp_get_max_threads());
    /* The start-up choice (omp_ukernels.c; KBENCH_OMP_UKERNEL=portable
     * forces the fallback). */
    kb_info_add(info, "micro_kernel", "%s",
                kb_omp_ukernel_for(KB_F32, KB_F32)->name);
    kb_info_add(info, "ukernel_bf16", "%s",
                kb_omp_ukernel_for(KB_BF16, KB_BF16)->name);
    kb_info_add(info, "ukernel_f16", "%s",
                kb_omp_ukernel_for(KB_F16, KB_F16)->name);
    kb_info_add(info, "blocking", "MC=%d KC=%d NC=%d A_IN_PLACE_PANELS=%d",
                KB_OMP_MC, KB_OMP_KC, KB_OMP_NC, KB_OMP_A_IN_PLACE_PANELS);
#if defined(__AVX512F__)
    kb_info_add(info, "vector_isa", "AVX-512 (512-bit)");
#elif defined(__AVX2__)
    kb_info_add(info, "vector_isa", "AVX2 (256-bit)");
#elif defined(__SSE2__)
    kb_info_add(info, "vector_isa", "SSE2 (128-bit)");
#else
    kb_info_add(info, "vector_isa", "generic (compiler-lowered vectors)");
#endif
    kb_info_add(info, "conv", "f32 NCX (and bf16, where the bf16 "
                "micro-kernel has a direct form): direct, the micro-kernel "
                "over the taps of a padded stride-phase copy (bf16: of "
                "channel pairs); otherwise implicit GEMM "
                "(im2col packed per panel; deep 2D stride-1 layers on a "
                "padded copy); direct depthwise");
    kb_info_add(info, "conv_bwd", "BWD_D: the transposed forward (stride "
                "1), GEMM + col2im (strided); BWD_W: a GEMM per group over "
                "all images; direct depthwise");
}

const kb_backend kb_backend_omp = {
    .name = "omp",
    .kind = "hand",
    .device = "cpu",
    .supports = omp_supports,
    .extra_bytes = omp_extra_bytes,
    .prepare = omp_prepare,
    .run = omp_run,
    .read_output = NULL,
    .release = omp_release,
    .describe = omp_describe,
    .set_threads = NULL,
};
