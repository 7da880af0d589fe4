/* ref_conv.c - reference convolution (2D and 3D, groups, stride, padding,
 * dilation, bias), forward and backward (data, weights, bias): one direct
 * dot product per element of the tensor a direction writes. */
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

int64_t kb_ref_conv_output_coord(int64_t i, int64_t t, int64_t stride,
                                 int64_t pad, int64_t dil, int64_t out_size)
{
    int64_t num = i + pad - t * (dil + 1);   /* = o * stride */
    if (num < 0 || num % stride != 0)
        return -1;
    return num / stride < out_size ? num / stride : -1;
}

/* The (d, h, w) triple of a conv tensor's logical index (d = 0 in 2D). */
static void spatial_of(int nd, const int64_t *idx, int64_t *d, int64_t *h,
                       int64_t *w)
{
    *d = nd == 3 ? idx[2] : 0;
    *h = idx[nd];
    *w = idx[nd + 1];
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
    int64_t od, oh, ow;
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t g = k / ocg;
    const void *src = ctx->in->ptr[KB_ARG_SRC];
    const void *wei = ctx->in->ptr[KB_ARG_WEI];
    int64_t sidx[KB_MAX_DIMS], widx[KB_MAX_DIMS];
    double acc = 0.0;

    spatial_of(nd, dst_idx, &od, &oh, &ow);
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

/* diff_src[n,c,(i,)j,l] = sum over the output channels k of c's group and
 * the taps t whose output coordinate o (i = o*stride - pad + t*(dil+1))
 * exists, of diff_dst[n,k,o] * wei[k, c mod C/G, t]: the forward's
 * products, gathered by input element.  Offsets go by ctx's strides
 * (the same as kb_arg_offset's, tensors.c being linear). */
double kb_ref_conv_bwd_d_point(const kb_ref_ctx *ctx, const int64_t *src_idx)
{
    const kb_problem *p = ctx->p;
    const kb_conv_desc *c = &p->conv;
    const int64_t n = src_idx[0], ch = src_idx[1];
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t g = ch / icg, ci = ch % icg;
    const kb_dtype ddt = ctx->info[KB_ARG_DIFF_DST].dt;
    const void *diff_dst = ctx->in->ptr[KB_ARG_DIFF_DST];
    const void *wei = ctx->in->ptr[KB_ARG_WEI];
    const int64_t *sd = ctx->stride[KB_ARG_DIFF_DST], *sw = ctx->stride[KB_ARG_WEI];
    int64_t id, ih, iw;
    double acc = 0.0;

    spatial_of(c->ndims, src_idx, &id, &ih, &iw);
    for (int64_t kd = 0; kd < c->kd; kd++) {
        int64_t od = kb_ref_conv_output_coord(id, kd, c->sd, c->pd, c->dd,
                                              c->od);
        for (int64_t kh = 0; od >= 0 && kh < c->kh; kh++) {
            int64_t oh = kb_ref_conv_output_coord(ih, kh, c->sh, c->ph,
                                                  c->dh, c->oh);
            for (int64_t kw = 0; oh >= 0 && kw < c->kw; kw++) {
                int64_t ow = kb_ref_conv_output_coord(iw, kw, c->sw, c->pw,
                                                      c->dw, c->ow);
                if (ow < 0)
                    continue;
                const int64_t doff = n * sd[0] + od * sd[2] + oh * sd[3] +
                                     ow * sd[4];
                const int64_t woff = ci * sw[1] + kd * sw[2] + kh * sw[3] +
                                     kw * sw[4];
                for (int64_t k = g * ocg; k < (g + 1) * ocg; k++)
                    acc += kb_load(ddt, diff_dst, doff + k * sd[1]) *
                           kb_load(p->dt.wei, wei, woff + k * sw[0]);
            }
        }
    }
    return acc;
}

/* diff_wei[k,c,t] = sum over images n and output positions o whose tap t
 * reads an input element i (not the padding) of diff_dst[n,k,o] *
 * src[n, g*C/G + c, i], g being k's group.  Strides as above: each
 * element is a sum over the whole batch and output. */
double kb_ref_conv_bwd_w_point(const kb_ref_ctx *ctx, const int64_t *wei_idx)
{
    const kb_problem *p = ctx->p;
    const kb_conv_desc *c = &p->conv;
    const int64_t k = wei_idx[0], ci = wei_idx[1];
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t ch = k / ocg * icg + ci;
    const kb_dtype ddt = ctx->info[KB_ARG_DIFF_DST].dt;
    const void *diff_dst = ctx->in->ptr[KB_ARG_DIFF_DST];
    const void *src = ctx->in->ptr[KB_ARG_SRC];
    const int64_t *sd = ctx->stride[KB_ARG_DIFF_DST], *ss = ctx->stride[KB_ARG_SRC];
    int64_t kd, kh, kw;
    double acc = 0.0;

    spatial_of(c->ndims, wei_idx, &kd, &kh, &kw);
    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t od = 0; od < c->od; od++) {
            int64_t id = kb_ref_conv_input_coord(od, kd, c->sd, c->pd,
                                                 c->dd, c->id);
            for (int64_t oh = 0; id >= 0 && oh < c->oh; oh++) {
                int64_t ih = kb_ref_conv_input_coord(oh, kh, c->sh, c->ph,
                                                     c->dh, c->ih);
                if (ih < 0)
                    continue;
                const int64_t drow = n * sd[0] + k * sd[1] + od * sd[2] +
                                     oh * sd[3];
                const int64_t srow = n * ss[0] + ch * ss[1] + id * ss[2] +
                                     ih * ss[3];
                for (int64_t ow = 0; ow < c->ow; ow++) {
                    int64_t iw = kb_ref_conv_input_coord(ow, kw, c->sw,
                                                         c->pw, c->dw, c->iw);
                    if (iw >= 0)
                        acc += kb_load(ddt, diff_dst, drow + ow * sd[4]) *
                               kb_load(p->dt.src, src, srow + iw * ss[4]);
                }
            }
        }
    return acc;
}

/* diff_bia[k] = sum over images and output positions of diff_dst[n,k,o]. */
double kb_ref_conv_bwd_b_point(const kb_ref_ctx *ctx, const int64_t *bia_idx)
{
    const kb_conv_desc *c = &ctx->p->conv;
    const kb_dtype ddt = ctx->info[KB_ARG_DIFF_DST].dt;
    const void *diff_dst = ctx->in->ptr[KB_ARG_DIFF_DST];
    const int64_t *sd = ctx->stride[KB_ARG_DIFF_DST];
    double acc = 0.0;

    for (int64_t n = 0; n < c->mb; n++)
        for (int64_t od = 0; od < c->od; od++)
            for (int64_t oh = 0; oh < c->oh; oh++)
                for (int64_t ow = 0; ow < c->ow; ow++)
                    acc += kb_load(ddt, diff_dst,
                                   n * sd[0] + bia_idx[0] * sd[1] +
                                       od * sd[2] + oh * sd[3] + ow * sd[4]);
    return acc;
}
