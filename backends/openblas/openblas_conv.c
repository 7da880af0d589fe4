/* openblas_conv.c - the forward convolution: vol2col of each image and
 * group, then one sgemm with that group's weights (bias preloaded). */
#include "openblas_internal.h"

#include <cblas.h>

void ob_conv_fwd(ob_plan *pl)
{
    const kb_conv_desc *c = &pl->p.conv;
    const float *src = pl->host.ptr[KB_ARG_SRC];
    const float *wei = pl->host.ptr[KB_ARG_WEI];
    const float *bia = pl->host.ptr[KB_ARG_BIA];
    float *dst = pl->host.ptr[KB_ARG_DST];
    const int64_t kg = c->oc / c->g;
    const int64_t spatial = ob_col_cols(c), krows = ob_col_rows(c);

    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t g = 0; g < c->g; g++) {
            float *out = dst + (n * c->oc + g * kg) * spatial;
            /* With a bias, start from it and accumulate (beta = 1). */
            if (bia)
                for (int64_t k = 0; k < kg; k++)
                    for (int64_t i = 0; i < spatial; i++)
                        out[k * spatial + i] = bia[g * kg + k];
            const float *b = ob_columns(pl, src, n, g);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)kg,
                        (int)spatial, (int)krows, 1.0f, wei + g * kg * krows,
                        (int)krows, b, (int)spatial, bia ? 1.0f : 0.0f, out,
                        (int)spatial);
        }
}
