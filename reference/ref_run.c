/* ref_run.c - reference dispatch, per-point expected values and logical
 * index helpers shared by the reference kernels and the comparison. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_internal.h"

/* Strides of tensor a's logical dims, as (n, c, d, h, w) for conv
 * tensors (d's stride 0 in 2D) or (row, col) for GEMM.  Offsets are
 * linear in the logical index for every layout and transpose
 * (tensors.c), so a unit index's offset minus the origin's is its dim's
 * stride. */
static void strides(const kb_ref_ctx *ctx, kb_arg a, int64_t *st)
{
    const kb_arg_info *info = &ctx->info[a];
    int64_t idx[KB_MAX_DIMS] = {0}, s[KB_MAX_DIMS];
    const int64_t origin = kb_arg_offset(ctx->p, a, idx);

    for (int d = 0; d < info->ndims; d++) {
        idx[d] = 1;
        s[d] = kb_arg_offset(ctx->p, a, idx) - origin;
        idx[d] = 0;
    }
    memcpy(st, s, sizeof(int64_t) * (size_t)info->ndims);
    if (ctx->p->kind == KB_CONV && ctx->p->conv.ndims == 2 && info->ndims == 4) {
        st[2] = 0;
        st[3] = s[2];
        st[4] = s[3];
    }
}

void kb_ref_ctx_init(kb_ref_ctx *ctx, const kb_problem *p,
                     const kb_tensors *in)
{
    ctx->p = p;
    ctx->in = in;
    kb_problem_args(p, ctx->info);
    memset(ctx->stride, 0, sizeof ctx->stride);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (ctx->info[a].used)
            strides(ctx, (kb_arg)a, ctx->stride[a]);
    ctx->mean = NULL;
    ctx->var = NULL;
    ctx->grads = NULL;
}

int kb_ref_ctx_stats(kb_ref_ctx *ctx)
{
    if (ctx->p->kind != KB_BNORM)
        return 0;
    int64_t channels = ctx->p->bnorm.ic;
    /* calloc checks channels * size for overflow. */
    if (kb_dir_is_backward(ctx->p->dir)) {
        ctx->grads = calloc((size_t)channels, sizeof(kb_ref_bnorm_grads));
        if (!ctx->grads)
            return -1;
        /* Each channel reads only its own slices: independent work. */
#pragma omp parallel for schedule(dynamic)
        for (int64_t c = 0; c < channels; c++)
            kb_ref_bnorm_channel_grads(ctx, c, &ctx->grads[c]);
        return 0;
    }
    ctx->mean = calloc((size_t)channels, sizeof(double));
    ctx->var = calloc((size_t)channels, sizeof(double));
    if (!ctx->mean || !ctx->var) {
        kb_ref_ctx_free(ctx);
        return -1;
    }
    /* Each channel reads only its own slice of src, as above. */
#pragma omp parallel for schedule(dynamic)
    for (int64_t c = 0; c < channels; c++)
        kb_ref_bnorm_channel_stats(ctx, c, &ctx->mean[c], &ctx->var[c]);
    return 0;
}

void kb_ref_ctx_free(kb_ref_ctx *ctx)
{
    free(ctx->mean);
    free(ctx->var);
    free(ctx->grads);
    ctx->mean = NULL;
    ctx->var = NULL;
    ctx->grads = NULL;
}

static double conv_expected(const kb_ref_ctx *ctx, kb_arg a,
                            const int64_t *idx)
{
    switch (a) {
    case KB_ARG_DIFF_SRC: return kb_ref_conv_bwd_d_point(ctx, idx);
    case KB_ARG_DIFF_WEI: return kb_ref_conv_bwd_w_point(ctx, idx);
    case KB_ARG_DIFF_BIA: return kb_ref_conv_bwd_b_point(ctx, idx);
    default: return kb_ref_conv_point(ctx, idx);
    }
}

/* bnorm outputs: MEAN and VAR (training) and the diff_scale/diff_shift
 * gradients are [C]; DST and DIFF_SRC are src-shaped with the channel at
 * index 1. */
static double bnorm_expected(const kb_ref_ctx *ctx, kb_arg a,
                             const int64_t *idx, double *terms)
{
    *terms = 0.0;
    switch (a) {
    case KB_ARG_MEAN: return ctx->mean[idx[0]];
    case KB_ARG_VAR: return ctx->var[idx[0]];
    case KB_ARG_DIFF_SHIFT: return ctx->grads[idx[0]].dshift;
    case KB_ARG_DIFF_SCALE:
        *terms = ctx->grads[idx[0]].dscale_abs;
        return ctx->grads[idx[0]].dscale;
    case KB_ARG_DIFF_SRC:
        return kb_ref_bnorm_diff_src(ctx, &ctx->grads[idx[1]], idx, terms);
    default:
        break;
    }
    int64_t c = idx[1];
    double x = kb_load(ctx->info[KB_ARG_SRC].dt, ctx->in->ptr[KB_ARG_SRC],
                       kb_arg_offset(ctx->p, KB_ARG_SRC, idx));
    return kb_ref_bnorm_value(ctx, c, ctx->mean[c], ctx->var[c], x);
}

double kb_ref_expected(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx)
{
    double terms;
    switch (ctx->p->kind) {
    case KB_CONV:
        return conv_expected(ctx, a, idx);
    case KB_GEMM:
        return kb_ref_gemm_point(ctx, idx);
    case KB_BNORM:
        break;
    }
    return bnorm_expected(ctx, a, idx, &terms);
}

double kb_ref_terms(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx)
{
    double terms = 0.0;
    if (ctx->p->kind == KB_BNORM && kb_dir_is_backward(ctx->p->dir))
        bnorm_expected(ctx, a, idx, &terms);
    return terms;
}

void kb_ref_write_all(const kb_ref_ctx *ctx, kb_arg a, kb_tensors *out)
{
    const kb_arg_info *info = &ctx->info[a];
    /* Dynamic schedule: conv points near the border have shorter dot
     * products than interior ones. */
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < info->nelems; i++) {
        int64_t idx[KB_MAX_DIMS];
        kb_ref_unravel(info, i, idx);
        kb_store(info->dt, out->ptr[a], kb_arg_offset(ctx->p, a, idx),
                 kb_ref_expected(ctx, a, idx));
    }
}

void kb_ref_run(const kb_problem *p, const kb_tensors *in, kb_tensors *out)
{
    kb_ref_ctx ctx;
    kb_ref_ctx_init(&ctx, p, in);
    /* conv and GEMM points are independent dot products; bnorm needs
     * each channel's statistics first (ref_bnorm.c). */
    if (p->kind == KB_BNORM) {
        kb_ref_bnorm(&ctx, out);
        return;
    }
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (ctx.info[a].used && ctx.info[a].is_output)
            kb_ref_write_all(&ctx, (kb_arg)a, out);
}

void kb_ref_unravel(const kb_arg_info *a, int64_t linear, int64_t *idx)
{
    for (int d = a->ndims - 1; d >= 0; d--) {
        idx[d] = linear % a->dims[d];
        linear /= a->dims[d];
    }
}

void kb_ref_next_index(const kb_arg_info *a, int64_t *idx)
{
    for (int d = a->ndims - 1; d >= 0; d--) {
        if (++idx[d] < a->dims[d])
            return;
        idx[d] = 0;
    }
}

void kb_ref_format_index(const kb_arg_info *a, const int64_t *idx, char *buf,
                         size_t len)
{
    /* snprintf returns the length it wanted; once that reaches len the
     * text is truncated and the rest is skipped. */
    size_t used = (size_t)snprintf(buf, len, "%s[", a->name);
    for (int d = 0; d < a->ndims && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, d ? ",%lld" : "%lld",
                                 (long long)idx[d]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
}
