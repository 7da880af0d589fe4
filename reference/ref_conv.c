/* ref_conv.c - reference convolution (2D and 3D, groups, stride, padding,
 * dilation, bias): one direct dot product per output element. */
#include "reference/ref_internal.h"

void kb_ref_conv_index(int64_t *idx, int ndims, int64_t a, int64_t b,
                       int64_t d, int64_t h, int64_t w)
{
    idx[0] = a;
    idx[1] = b;
    if (ndims == 3) {
        idx[2] = d;
        idx[3] = h;
        idx[4] = w;
    } else {
        idx[2] = h;
        idx[3] = w;
    }
}

int64_t kb_ref_conv_input_coord(int64_t o, int64_t t, int64_t stride,
                                int64_t pad, int64_t dil, int64_t in_size)
{
    int64_t i = o * stride - pad + t * (dil + 1);
    return i >= 0 && i < in_size ? i : -1;
}

/* dst[n,k,(o,)p,q] = sum over c in k's group and the taps of
 * src[n, g*C/G + c, input coords] * wei[k, c, taps] (+ bia[k]).  2D
 * problems have od = kd = sd = 1 and pd = dd = 0, so the depth loop runs
 * once with od = id = 0. */
double kb_ref_conv_point(const kb_ref_ctx *ctx, const int64_t *dst_idx)
{
    const kb_problem *p = ctx->p;
    const kb_conv_desc *c = &p->conv;
    const int nd = c->ndims;
    const int64_t n = dst_idx[0], k = dst_idx[1];
    const int64_t od = nd == 3 ? dst_idx[2] : 0;
    const int64_t oh = dst_idx[nd], ow = dst_idx[nd + 1];
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t g = k / ocg;
    const void *src = ctx->in->ptr[KB_ARG_SRC];
    const void *wei = ctx->in->ptr[KB_ARG_WEI];
    int64_t sidx[KB_MAX_DIMS], widx[KB_MAX_DIMS];
    double acc = 0.0;

    for (int64_t ci = 0; ci < icg; ci++)
        for (int64_t kd = 0; kd < c->kd; kd++) {
            int64_t id = kb_ref_conv_input_coord(od, kd, c->sd, c->pd,
                                                 c->dd, c->id);
            if (id < 0)
                continue;
            for (int64_t kh = 0; kh < c->kh; kh++) {
                int64_t ih = kb_ref_conv_input_coord(oh, kh, c->sh, c->ph,
                                                     c->dh, c->ih);
                if (ih < 0)
                    continue;
                for (int64_t kw = 0; kw < c->kw; kw++) {
                    int64_t iw = kb_ref_conv_input_coord(ow, kw, c->sw,
                                                         c->pw, c->dw, c->iw);
                    if (iw < 0)
                        continue;
                    kb_ref_conv_index(sidx, nd, n, g * icg + ci, id, ih, iw);
                    kb_ref_conv_index(widx, nd, k, ci, kd, kh, kw);
                    acc += kb_load(p->dt.src, src,
                                   kb_arg_offset(p, KB_ARG_SRC, sidx)) *
                           kb_load(p->dt.wei, wei,
                                   kb_arg_offset(p, KB_ARG_WEI, widx));
                }
            }
        }
    if (kb_problem_has_bias(p)) {
        int64_t bidx[1] = {k};
        acc += kb_load(p->dt.dst, ctx->in->ptr[KB_ARG_BIA],
                       kb_arg_offset(p, KB_ARG_BIA, bidx));
    }
    return acc;
}
