/* openblas_im2col.c - vol2col and its adjoint col2im, the transforms that
 * turn NCX convolution passes into sgemm calls. */
#include "openblas_internal.h"

#include <string.h>

int64_t ob_col_rows(const kb_conv_desc *c)
{
    return c->ic / c->g * c->kd * c->kh * c->kw;
}

int64_t ob_col_cols(const kb_conv_desc *c)
{
    return c->od * c->oh * c->ow;
}

/* First channel plane of group g of image n in an NCX tensor of IC
 * channels. */
static int64_t plane_offset(const kb_conv_desc *c, int64_t n, int64_t g,
                            int64_t ch)
{
    return (n * c->ic + g * (c->ic / c->g) + ch) * c->id * c->ih * c->iw;
}

const float *ob_columns(const ob_plan *pl, const float *src, int64_t n,
                        int64_t g)
{
    const kb_conv_desc *c = &pl->p.conv;
    if (!pl->col)   /* pointwise: the input's spatial size is the output's */
        return src + plane_offset(c, n, g, 0);
    ob_im2col(c, src, n, g, pl->col);
    return pl->col;
}

void ob_im2col(const kb_conv_desc *c, const float *src, int64_t n, int64_t g,
               float *col)
{
    const int64_t ncols = ob_col_cols(c), nrows = ob_col_rows(c);

#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < nrows; row++) {
        int64_t s = row % c->kw, r = row / c->kw % c->kh;
        int64_t t = row / (c->kw * c->kh) % c->kd, ch = row / (c->kw * c->kh * c->kd);
        const float *plane = src + plane_offset(c, n, g, ch);
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

/* One thread per channel: the rows of channel ch (its T * R * S taps)
 * scatter into that channel's plane only, so no two threads write the
 * same element. */
void ob_col2im(const kb_conv_desc *c, const float *col, int64_t n, int64_t g,
               float *img)
{
    const int64_t ncols = ob_col_cols(c), cg = c->ic / c->g;
    const int64_t taps = c->kd * c->kh * c->kw;

#pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < cg; ch++) {
        float *plane = img + plane_offset(c, n, g, ch);
        memset(plane, 0, sizeof(float) * (size_t)(c->id * c->ih * c->iw));
        for (int64_t tap = 0; tap < taps; tap++) {
            int64_t s = tap % c->kw, r = tap / c->kw % c->kh, t = tap / (c->kw * c->kh);
            const float *in = col + (ch * taps + tap) * ncols;
            for (int64_t o = 0; o < c->od; o++) {
                int64_t z = o * c->sd - c->pd + t * (c->dd + 1);
                if (z < 0 || z >= c->id)
                    continue;
                for (int64_t y0 = 0; y0 < c->oh; y0++) {
                    int64_t y = y0 * c->sh - c->ph + r * (c->dh + 1);
                    if (y < 0 || y >= c->ih)
                        continue;
                    const float *src = in + (o * c->oh + y0) * c->ow;
                    float *line = plane + (z * c->ih + y) * c->iw;
                    for (int64_t x0 = 0; x0 < c->ow; x0++) {
                        int64_t x = x0 * c->sw - c->pw + s * (c->dw + 1);
                        if (x >= 0 && x < c->iw)
                            line[x] += src[x0];
                    }
                }
            }
        }
    }
}
