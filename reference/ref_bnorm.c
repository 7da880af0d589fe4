/* ref_bnorm.c - reference batchnorm: forward inference (given statistics)
 * and training (batch statistics computed and written to MEAN/VAR),
 *   dst = scale[c] * (src - mean[c]) / sqrt(var[c] + eps) + shift[c];
 * and the training backward passes, mean and var given as the batch's,
 *   diff_shift[c] = sum diff_dst,  diff_scale[c] = sum diff_dst * x_hat,
 *   diff_src = scale[c] / sqrt(var[c] + eps) * (diff_dst
 *              - diff_shift[c] / M - x_hat * diff_scale[c] / M),
 * x_hat = (src - mean[c]) / sqrt(var[c] + eps), sums over the M = N x
 * spatial values of channel c. */
#include <math.h>

#include "reference/ref_internal.h"

/* Only forward training computes the statistics (tensors.c: it is the
 * direction that writes MEAN and VAR); the others read them. */
static bool computes_stats(const kb_problem *p)
{
    return p->dir == KB_FWD_D;
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
    if (!computes_stats(p)) {
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

/* 1 / sqrt(var + eps), the factor x_hat and diff_src scale by. */
static double inv_std(const kb_ref_ctx *ctx, double var)
{
    return 1.0 / sqrt(var + ctx->p->bnorm.eps);
}

static double load_at(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx)
{
    return kb_load(ctx->info[a].dt, ctx->in->ptr[a],
                   kb_arg_offset(ctx->p, a, idx));
}

void kb_ref_bnorm_channel_grads(const kb_ref_ctx *ctx, int64_t c,
                                kb_ref_bnorm_grads *g)
{
    const kb_arg_info slice = channel_slice(ctx);
    int64_t idx[KB_MAX_DIMS] = {0};

    kb_ref_bnorm_channel_stats(ctx, c, &g->mean, &g->var);
    const double rs = inv_std(ctx, g->var);
    g->dshift = g->dscale = g->dscale_abs = 0.0;
    idx[1] = c;
    for (int64_t i = 0; i < slice.nelems; i++) {
        double dd = load_at(ctx, KB_ARG_DIFF_DST, idx);
        double t = dd * (load_at(ctx, KB_ARG_SRC, idx) - g->mean) * rs;
        g->dshift += dd;
        g->dscale += t;
        g->dscale_abs += fabs(t);
        next_in_channel(&slice, idx, c);
    }
}

/* The three terms' sizes bound what rounding can do to their difference:
 * diff_dst, the mean of diff_dst, and x_hat times diff_scale / M, whose
 * computed value may be off in proportion to dscale_abs, not dscale. */
double kb_ref_bnorm_diff_src(const kb_ref_ctx *ctx, const kb_ref_bnorm_grads *g,
                             const int64_t *idx, double *terms)
{
    const double m = (double)(ctx->info[KB_ARG_SRC].nelems / ctx->p->bnorm.ic);
    const double rs = inv_std(ctx, g->var);
    const double factor = channel_param(ctx, KB_ARG_SCALE, idx[1], 1.0) * rs;
    const double dd = load_at(ctx, KB_ARG_DIFF_DST, idx);
    const double x_hat = (load_at(ctx, KB_ARG_SRC, idx) - g->mean) * rs;
    *terms = fabs(factor) * (fabs(dd) + fabs(g->dshift) / m +
                             fabs(x_hat) * g->dscale_abs / m);
    return factor * (dd - g->dshift / m - x_hat * g->dscale / m);
}

/* Backward, channel c: its reductions, then every diff_src element, and
 * diff_scale and diff_shift when the direction writes them. */
static void bnorm_backward_channel(const kb_ref_ctx *ctx, int64_t c,
                                   kb_tensors *out)
{
    const kb_problem *p = ctx->p;
    const kb_arg_info slice = channel_slice(ctx);
    int64_t idx[KB_MAX_DIMS] = {0}, cidx[1] = {c};
    kb_ref_bnorm_grads g;
    double terms;

    kb_ref_bnorm_channel_grads(ctx, c, &g);
    idx[1] = c;
    for (int64_t i = 0; i < slice.nelems; i++) {
        kb_store(ctx->info[KB_ARG_DIFF_SRC].dt, out->ptr[KB_ARG_DIFF_SRC],
                 kb_arg_offset(p, KB_ARG_DIFF_SRC, idx),
                 kb_ref_bnorm_diff_src(ctx, &g, idx, &terms));
        next_in_channel(&slice, idx, c);
    }
    if (ctx->info[KB_ARG_DIFF_SCALE].used) {
        kb_store(ctx->info[KB_ARG_DIFF_SCALE].dt, out->ptr[KB_ARG_DIFF_SCALE],
                 kb_arg_offset(p, KB_ARG_DIFF_SCALE, cidx), g.dscale);
        kb_store(ctx->info[KB_ARG_DIFF_SHIFT].dt, out->ptr[KB_ARG_DIFF_SHIFT],
                 kb_arg_offset(p, KB_ARG_DIFF_SHIFT, cidx), g.dshift);
    }
}

void kb_ref_bnorm(const kb_ref_ctx *ctx, kb_tensors *out)
{
    const kb_problem *p = ctx->p;
    const kb_arg_info slice = channel_slice(ctx);

    if (kb_dir_is_backward(p->dir)) {
#pragma omp parallel for schedule(dynamic)
        for (int64_t c = 0; c < p->bnorm.ic; c++)
            bnorm_backward_channel(ctx, c, out);
        return;
    }
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
        if (computes_stats(p)) {
            kb_store(ctx->info[KB_ARG_MEAN].dt, out->ptr[KB_ARG_MEAN],
                     kb_arg_offset(p, KB_ARG_MEAN, cidx), mean);
            kb_store(ctx->info[KB_ARG_VAR].dt, out->ptr[KB_ARG_VAR],
                     kb_arg_offset(p, KB_ARG_VAR, cidx), var);
        }
    }
}
