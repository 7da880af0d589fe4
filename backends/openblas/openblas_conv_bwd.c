/* openblas_conv_bwd.c - the backward convolution passes as sgemm over
 * column matrices: BWD_D is col = wei^T x diff_dst, then col2im into
 * diff_src; BWD_W is diff_wei += diff_dst x col^T over the images, col
 * being vol2col of src.  Pointwise problems use src/diff_src in place of
 * the column matrix, as the forward pass does. */
#include "openblas_internal.h"

#include <cblas.h>

void ob_conv_bwd_d(ob_plan *pl)
{
    const kb_conv_desc *c = &pl->p.conv;
    const float *wei = pl->host.ptr[KB_ARG_WEI];
    const float *diff_dst = pl->host.ptr[KB_ARG_DIFF_DST];
    float *diff_src = pl->host.ptr[KB_ARG_DIFF_SRC];
    const int64_t cg = c->ic / c->g, kg = c->oc / c->g;
    const int64_t spatial = ob_col_cols(c), krows = ob_col_rows(c);

    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t g = 0; g < c->g; g++) {
            float *col = pl->col ? pl->col
                                 : diff_src + (n * c->ic + g * cg) * spatial;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)krows,
                        (int)spatial, (int)kg, 1.0f, wei + g * kg * krows,
                        (int)krows, diff_dst + (n * c->oc + g * kg) * spatial,
                        (int)spatial, 0.0f, col, (int)spatial);
            if (pl->col)
                ob_col2im(c, pl->col, n, g, diff_src);
        }
}

/* diff_bia[k] = the sum of diff_dst over images and output points, in
 * double: a reduction this long in f32 would lose what the GEMM keeps. */
static void bias_grad(const kb_conv_desc *c, const float *diff_dst,
                      float *diff_bia)
{
    const int64_t spatial = ob_col_cols(c);

#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < c->oc; k++) {
        double sum = 0;
        for (int64_t n = 0; n < c->mb; n++) {
            const float *plane = diff_dst + (n * c->oc + k) * spatial;
            for (int64_t i = 0; i < spatial; i++)
                sum += plane[i];
        }
        diff_bia[k] = (float)sum;
    }
}

void ob_conv_bwd_w(ob_plan *pl)
{
    const kb_conv_desc *c = &pl->p.conv;
    const float *src = pl->host.ptr[KB_ARG_SRC];
    const float *diff_dst = pl->host.ptr[KB_ARG_DIFF_DST];
    float *diff_wei = pl->host.ptr[KB_ARG_DIFF_WEI];
    float *diff_bia = pl->host.ptr[KB_ARG_DIFF_BIA];
    const int64_t kg = c->oc / c->g;
    const int64_t spatial = ob_col_cols(c), krows = ob_col_rows(c);

    /* The first image overwrites diff_wei (beta = 0), later ones add. */
    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t g = 0; g < c->g; g++) {
            const float *col = ob_columns(pl, src, n, g);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)kg,
                        (int)krows, (int)spatial, 1.0f,
                        diff_dst + (n * c->oc + g * kg) * spatial,
                        (int)spatial, col, (int)spatial, n ? 1.0f : 0.0f,
                        diff_wei + g * kg * krows, (int)krows);
        }
    if (diff_bia)
        bias_grad(c, diff_dst, diff_bia);
}
