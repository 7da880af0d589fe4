/* ref_run.c - reference dispatch, per-point expected values and logical
 * index helpers shared by the reference kernels and the comparison. */
#include <stdio.h>
#include <stdlib.h>

#include "reference/ref_internal.h"

void kb_ref_ctx_init(kb_ref_ctx *ctx, const kb_problem *p,
                     const kb_tensors *in)
{
    ctx->p = p;
    ctx->in = in;
    kb_problem_args(p, ctx->info);
    ctx->mean = NULL;
    ctx->var = NULL;
}

int kb_ref_ctx_stats(kb_ref_ctx *ctx)
{
    if (ctx->p->kind != KB_BNORM)
        return 0;
    int64_t channels = ctx->p->bnorm.ic;
    /* calloc checks channels * size for overflow. */
    ctx->mean = calloc((size_t)channels, sizeof(double));
    ctx->var = calloc((size_t)channels, sizeof(double));
    if (!ctx->mean || !ctx->var) {
        kb_ref_ctx_free(ctx);
        return -1;
    }
    /* Each channel reads only its own slice of src: channels are
     * independent work items. */
#pragma omp parallel for schedule(dynamic)
    for (int64_t c = 0; c < channels; c++)
        kb_ref_bnorm_channel_stats(ctx, c, &ctx->mean[c], &ctx->var[c]);
    return 0;
}

void kb_ref_ctx_free(kb_ref_ctx *ctx)
{
    free(ctx->mean);
    free(ctx->var);
    ctx->mean = NULL;
    ctx->var = NULL;
}

double kb_ref_expected(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx)
{
    switch (ctx->p->kind) {
    case KB_CONV:
        return kb_ref_conv_point(ctx, idx);
    case KB_GEMM:
        return kb_ref_gemm_point(ctx, idx);
    case KB_BNORM:
        break;
    }
    /* bnorm outputs: MEAN and VAR (training) are [C]; DST is src-shaped
     * with the channel at index 1. */
    if (a == KB_ARG_MEAN)
        return ctx->mean[idx[0]];
    if (a == KB_ARG_VAR)
        return ctx->var[idx[0]];
    int64_t c = idx[1];
    double x = kb_load(ctx->info[KB_ARG_SRC].dt, ctx->in->ptr[KB_ARG_SRC],
                       kb_arg_offset(ctx->p, KB_ARG_SRC, idx));
    return kb_ref_bnorm_value(ctx, c, ctx->mean[c], ctx->var[c], x);
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
    if (p->kind == KB_BNORM)
        kb_ref_bnorm(&ctx, out);
    else
        kb_ref_write_all(&ctx, KB_ARG_DST, out);
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
