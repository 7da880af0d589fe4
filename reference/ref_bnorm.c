/* ref_bnorm.c - reference batchnorm forward, inference (given statistics)
 * and training (batch statistics computed and written to MEAN/VAR):
 * dst = scale[c] * (src - mean[c]) / sqrt(var[c] + eps) + shift[c]. */
#include <math.h>

#include "reference/ref_internal.h"

/* Anything but inference computes batch statistics, as in tensors.c. */
static bool is_training(const kb_problem *p)
{
    return p->dir != KB_FWD_I;
}

/* Src's table with the channel dim collapsed to one: walking it visits N
 * and the spatial dims of a single channel. */
static kb_arg_info channel_slice(const kb_ref_ctx *ctx)
{
    kb_arg_info s = ctx->info[KB_ARG_SRC];
    s.dims[1] = 1;
    s.nelems /= ctx->p->bnorm.ic;
    return s;
}

/* Next element of channel c: the odometer wraps the collapsed channel
 * index to 0 on every carry through it, so put c back. */
static void next_in_channel(const kb_arg_info *slice, int64_t *idx,
                            int64_t c)
{
    kb_ref_next_index(slice, idx);
    idx[1] = c;
}

/* One [C]-shaped tensor's value at channel c, or dflt when the problem
 * does not have that tensor. */
static double channel_param(const kb_ref_ctx *ctx, kb_arg a, int64_t c,
                            double dflt)
{
    if (!ctx->info[a].used)
        return dflt;
    int64_t idx[1] = {c};
    return kb_load(ctx->info[a].dt, ctx->in->ptr[a],
                   kb_arg_offset(ctx->p, a, idx));
}

void kb_ref_bnorm_channel_stats(const kb_ref_ctx *ctx, int64_t c,
                                double *mean, double *var)
{
    const kb_problem *p = ctx->p;
    if (!is_training(p)) {
        *mean = channel_param(ctx, KB_ARG_MEAN, c, 0.0);
        *var = channel_param(ctx, KB_ARG_VAR, c, 1.0);
        return;
    }
    /* Two passes (mean, then the mean of squared deviations): the
     * one-pass E[x^2] - E[x]^2 loses digits to cancellation. */
    const kb_arg_info slice = channel_slice(ctx);
    const void *src = ctx->in->ptr[KB_ARG_SRC];
    int64_t idx[KB_MAX_DIMS] = {0};
    double sum = 0.0, sq = 0.0;

    idx[1] = c;
    for (int64_t i = 0; i < slice.nelems; i++) {
        sum += kb_load(p->dt.src, src, kb_arg_offset(p, KB_ARG_SRC, idx));
        next_in_channel(&slice, idx, c);
    }
    *mean = sum / (double)slice.nelems;
    for (int64_t i = 0; i < slice.nelems; i++) {
        double d = kb_load(p->dt.src, src, kb_arg_offset(p, KB_ARG_SRC, idx)) -
                   *mean;
        sq += d * d;
        next_in_channel(&slice, idx, c);
    }
    *var = sq / (double)slice.nelems;   /* biased, as the kernels use it */
}

double kb_ref_bnorm_value(const kb_ref_ctx *ctx, int64_t c, double mean,
                          double var, double x)
{
    double scale = channel_param(ctx, KB_ARG_SCALE, c, 1.0);
    double shift = channel_param(ctx, KB_ARG_SHIFT, c, 0.0);
    return scale * (x - mean) / sqrt(var + ctx->p->bnorm.eps) + shift;
}

void kb_ref_bnorm(const kb_ref_ctx *ctx, kb_tensors *out)
{
    const kb_problem *p = ctx->p;
    const kb_arg_info slice = channel_slice(ctx);

#pragma omp parallel for schedule(dynamic)
    for (int64_t c = 0; c < p->bnorm.ic; c++) {
        double mean, var;
        int64_t idx[KB_MAX_DIMS] = {0}, cidx[1] = {c};

        kb_ref_bnorm_channel_stats(ctx, c, &mean, &var);
        idx[1] = c;
        for (int64_t i = 0; i < slice.nelems; i++) {
            double x = kb_load(p->dt.src, ctx->in->ptr[KB_ARG_SRC],
                               kb_arg_offset(p, KB_ARG_SRC, idx));
            kb_store(p->dt.dst, out->ptr[KB_ARG_DST],
                     kb_arg_offset(p, KB_ARG_DST, idx),
                     kb_ref_bnorm_value(ctx, c, mean, var, x));
            next_in_channel(&slice, idx, c);
        }
        if (is_training(p)) {
            kb_store(ctx->info[KB_ARG_MEAN].dt, out->ptr[KB_ARG_MEAN],
                     kb_arg_offset(p, KB_ARG_MEAN, cidx), mean);
            kb_store(ctx->info[KB_ARG_VAR].dt, out->ptr[KB_ARG_VAR],
                     kb_arg_offset(p, KB_ARG_VAR, cidx), var);
        }
    }
}
