/* onednn_conv.c - convolution (2D and 3D, groups, dilation): the
 * geometry every pass shares, and the forward pass as a oneDNN primitive
 * that chooses its own memory formats. */
#include "onednn_conv.h"

/* Right padding that makes oneDNN's output size equal ours: kbench pads
 * symmetrically and floors, so the high side may need less. */
static dnnl_dim_t pad_right(int64_t in, int64_t out, int64_t k, int64_t s,
                            int64_t d0, int64_t pl)
{
    return (out - 1) * s - in + (k - 1) * (d0 + 1) + 1 - pl;
}

/* A plain descriptor in d->user[a] (and d->user[diff], its gradient's)
 * and one in format any in *any.  Returns 0, or -1 with err. */
static int conv_md(const kb_problem *p, dn_desc *d, kb_arg a, kb_arg diff, int nd,
                   const dnnl_dim_t *dims, dnnl_format_tag_t tag,
                   dnnl_memory_desc_t *any, char *err, size_t len)
{
    dnnl_data_type_t t = dn_dtype(kb_arg_dtype(p, a));
    return dn_check(dn_md_tag(&d->user[a], nd, dims, t, tag), "memory desc", err,
                    len) ||
                   dn_check(dn_md_tag(any, nd, dims, t,
                                      a == KB_ARG_BIA ? tag : dnnl_format_tag_any),
                            "memory desc (any)", err, len) ||
                   dn_check(dn_md_copy(&d->user[diff], &d->user[a]), "memory desc copy",
                            err, len)
               ? -1
               : 0;
}

/* Fill g (zeroed by the caller) and the plain layouts of every conv
 * tensor in d->user.  Returns 0, or -1 with err; dn_conv_geom_free frees
 * g either way. */
static int conv_geom(const kb_problem *p, dn_conv_geom *g, dn_desc *d, char *err,
                     size_t len)
{
    const kb_conv_desc *c = &p->conv;
    const bool is3d = c->ndims == 3, grouped = c->g > 1;
    const bool nxc = p->layout == KB_LAYOUT_NXC;
    const int nd = is3d ? 5 : 4;

    /* Logical dims in oneDNN's order; 2D problems drop the depth. */
    dnnl_dims_t src_dims = {c->mb, c->ic, c->id, c->ih, c->iw};
    dnnl_dims_t dst_dims = {c->mb, c->oc, c->od, c->oh, c->ow};
    dnnl_dims_t wei_dims = {c->g, c->oc / c->g, c->ic / c->g, c->kd, c->kh, c->kw};
    dnnl_dims_t bia_dims = {c->oc};
    dnnl_dims_t strides = {c->sd, c->sh, c->sw};
    dnnl_dims_t dilates = {c->dd, c->dh, c->dw};   /* 0-based, as kbench's */
    dnnl_dims_t pad_l = {c->pd, c->ph, c->pw};
    dnnl_dims_t pad_r = {pad_right(c->id, c->od, c->kd, c->sd, c->dd, c->pd),
                         pad_right(c->ih, c->oh, c->kh, c->sh, c->dh, c->ph),
                         pad_right(c->iw, c->ow, c->kw, c->sw, c->dw, c->pw)};
    int sp0 = is3d ? 0 : 1;   /* 2D: skip the depth entries */
    if (!is3d) {
        src_dims[2] = c->ih, src_dims[3] = c->iw;
        dst_dims[2] = c->oh, dst_dims[3] = c->ow;
        wei_dims[3] = c->kh, wei_dims[4] = c->kw;
    }
    for (int i = 0; i < 3 - sp0; i++) {
        g->strides[i] = strides[i + sp0];
        g->dilates[i] = dilates[i + sp0];
        g->pad_l[i] = pad_l[i + sp0];
        g->pad_r[i] = pad_r[i + sp0];
    }
    /* Ungrouped weights are [K, C, (T,) R, S]: drop the leading G. */
    const dnnl_dim_t *wd = grouped ? wei_dims : wei_dims + 1;
    int wnd = grouped ? nd + 1 : nd;
    dnnl_format_tag_t act_tag = is3d ? (nxc ? dnnl_ndhwc : dnnl_ncdhw)
                                     : (nxc ? dnnl_nhwc : dnnl_nchw);
    dnnl_format_tag_t wei_tag = grouped ? (is3d ? dnnl_goidhw : dnnl_goihw)
                                        : (is3d ? dnnl_oidhw : dnnl_oihw);

    return conv_md(p, d, KB_ARG_SRC, KB_ARG_DIFF_SRC, nd, src_dims, act_tag, &g->src,
                   err, len) ||
           conv_md(p, d, KB_ARG_DST, KB_ARG_DIFF_DST, nd, dst_dims, act_tag, &g->dst,
                   err, len) ||
           conv_md(p, d, KB_ARG_WEI, KB_ARG_DIFF_WEI, wnd, wd, wei_tag, &g->wei,
                   err, len) ||
           conv_md(p, d, KB_ARG_BIA, KB_ARG_DIFF_BIA, 1, bia_dims, dnnl_a, &g->bia,
                   err, len)
               ? -1
               : 0;
}

void dn_conv_geom_free(dn_conv_geom *g)
{
    dn_md_free(&g->src);
    dn_md_free(&g->wei);
    dn_md_free(&g->bia);
    dn_md_free(&g->dst);
}

int dn_conv_fwd_pd(const kb_problem *p, const dn_conv_geom *g, dnnl_prop_kind_t prop,
                   bool bias, const char *what, dnnl_primitive_desc_t *pd,
                   char *err, size_t len)
{
    const dn_op op = {.kind = DN_CONV_FWD, .prop = prop, .src = &g->src,
                      .wei = &g->wei, .bia = bias ? &g->bia : NULL, .dst = &g->dst,
                      .strides = g->strides, .dilates = g->dilates,
                      .pad_l = g->pad_l, .pad_r = g->pad_r};
    return dn_pd_create(pd, &op, NULL, NULL, p, what, err, len);
}

int dn_conv_desc(const kb_problem *p, dn_desc *d, char *err, size_t len)
{
    dn_conv_geom g = {0};
    int rc = conv_geom(p, &g, d, err, len);
    if (rc == 0 && kb_dir_is_backward(p->dir))
        rc = dn_conv_bwd_desc(p, &g, d, err, len);
    else if (rc == 0)
        rc = dn_conv_fwd_pd(p, &g, dnnl_forward_inference, kb_problem_has_bias(p),
                            "convolution forward", &d->pd, err, len);
    dn_conv_geom_free(&g);
    return rc;
}
