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
    float *wei_nxc;            /* reordered weights (NXC conv GEMM), or NULL */
} omp_plan;

/* Both ask the dispatcher's own question (kb_omp_conv_path_of), so every
 * path that packs gets its buffers and no other pays for them. */
static bool needs_workspace(const kb_problem *p)
{
    return p->kind == KB_GEMM ||
           (p->kind == KB_CONV && kb_omp_conv_path_of(p) == KB_OMP_CONV_GEMM);
}

static bool needs_wei_nxc(const kb_problem *p)
{
    return p->kind == KB_CONV && needs_workspace(p) &&
           p->layout == KB_LAYOUT_NXC;
}

/* Writes the reason to why when refusing. */
static bool omp_supports(const kb_problem *p, char *why, size_t len)
{
    if (!kb_dts_all(&p->dt, KB_F32)) {
        char dt[32];
        kb_dts_format(&p->dt, dt, sizeof dt);
        snprintf(why, len, "omp implements f32 only, not %s", dt);
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "omp has no %s pass", kb_dir_name(p->dir));
        return false;
    }
    return true;
}

static size_t omp_extra_bytes(const kb_problem *p)
{
    size_t bytes = 0;
    if (needs_workspace(p))
        bytes += kb_omp_workspace_bytes(omp_get_max_threads());
    if (needs_wei_nxc(p))
        bytes += (size_t)kb_omp_conv_nxc_weight_elems(p) * sizeof(float);
    return bytes;
}

static void omp_release(void *plan)
{
    omp_plan *pl = plan;
    if (!pl)
        return;
    kb_omp_workspace_free(&pl->ws);
    free(pl->wei_nxc);
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
    pl = calloc(1, sizeof(*pl));
    if (!pl)
        goto oom;
    pl->p = *p;
    pl->t = *host;
    pl->nthreads = omp_get_max_threads();
    if (needs_workspace(p) &&
        kb_omp_workspace_init(&pl->ws, pl->nthreads) != 0)
        goto oom;
    if (needs_wei_nxc(p)) {
        pl->wei_nxc = malloc((size_t)kb_omp_conv_nxc_weight_elems(p) *
                             sizeof(float));
        if (!pl->wei_nxc)
            goto oom;
        kb_omp_conv_reorder_weights(p, host->ptr[KB_ARG_WEI], pl->wei_nxc);
    }
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
    kb_info_add(info, "micro_kernel", "%dx%d fp32, GCC vector extensions",
                KB_OMP_MR, KB_OMP_NR);
    kb_info_add(info, "blocking", "MC=%d KC=%d NC=%d", KB_OMP_MC, KB_OMP_KC,
                KB_OMP_NC);
#if defined(__AVX512F__)
    kb_info_add(info, "vector_isa", "AVX-512 (512-bit)");
#elif defined(__AVX2__)
    kb_info_add(info, "vector_isa", "AVX2 (256-bit)");
#elif defined(__SSE2__)
    kb_info_add(info, "vector_isa", "SSE2 (128-bit)");
#else
    kb_info_add(info, "vector_isa", "generic (compiler-lowered vectors)");
#endif
    kb_info_add(info, "conv", "implicit GEMM (im2col packed per panel), "
                "direct depthwise");
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
