/* onednn_conv.c - forward convolution (2D and 3D, groups, dilation) as a
 * oneDNN primitive that chooses its own memory formats. */
#include "onednn_internal.h"

/* Right padding that makes oneDNN's output size equal ours: kbench pads
 * symmetrically and floors, so the high side may need less. */
static dnnl_dim_t pad_right(int64_t in, int64_t out, int64_t k, int64_t s,
                            int64_t d0, int64_t pl)
{
    return (out - 1) * s - in + (k - 1) * (d0 + 1) + 1 - pl;
}

int dn_build_conv(dn_plan *pl, const kb_tensors *host, char *err, size_t len)
{
    const kb_conv_desc *c = &pl->p.conv;
    const bool is3d = c->ndims == 3, grouped = c->g > 1;
    const bool nxc = pl->p.layout == KB_LAYOUT_NXC;
    const bool bias = kb_problem_has_bias(&pl->p);
    const int nd = is3d ? 5 : 4;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_memory_desc_t src_md, wei_md, bia_md, dst_md, src_any, wei_any, dst_any;
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd = NULL;

    if (dn_engine(&eng, &strm, err, len))
        return -1;

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
    if (!is3d) {
        /* Shift the spatial arrays so H, W come first. */
        src_dims[2] = c->ih, src_dims[3] = c->iw;
        dst_dims[2] = c->oh, dst_dims[3] = c->ow;
        wei_dims[3] = c->kh, wei_dims[4] = c->kw;
        for (int i = 0; i < 2; i++) {
            strides[i] = strides[i + 1];
            dilates[i] = dilates[i + 1];
            pad_l[i] = pad_l[i + 1];
            pad_r[i] = pad_r[i + 1];
        }
    }
    /* Ungrouped weights are [K, C, (T,) R, S]: drop the leading G. */
    dnnl_dim_t *wd = grouped ? wei_dims : wei_dims + 1;
    int wnd = grouped ? nd + 1 : nd;
    dnnl_format_tag_t act_tag = is3d ? (nxc ? dnnl_ndhwc : dnnl_ncdhw)
                                     : (nxc ? dnnl_nhwc : dnnl_nchw);
    dnnl_format_tag_t wei_tag = grouped ? (is3d ? dnnl_goidhw : dnnl_goihw)
                                        : (is3d ? dnnl_oidhw : dnnl_oihw);

    if (dn_check(dnnl_memory_desc_init_by_tag(&src_md, nd, src_dims, dnnl_f32, act_tag),
                 "src md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&dst_md, nd, dst_dims, dnnl_f32, act_tag),
                 "dst md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&wei_md, wnd, wd, dnnl_f32, wei_tag),
                 "weights md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&bia_md, 1, bia_dims, dnnl_f32, dnnl_a),
                 "bias md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&src_any, nd, src_dims, dnnl_f32,
                                              dnnl_format_tag_any), "src md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&dst_any, nd, dst_dims, dnnl_f32,
                                              dnnl_format_tag_any), "dst md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&wei_any, wnd, wd, dnnl_f32,
                                              dnnl_format_tag_any), "weights md", err, len))
        return -1;
    if (dn_check(dnnl_dilated_convolution_forward_desc_init(
                     &cd, dnnl_forward_inference, dnnl_convolution_direct, &src_any,
                     &wei_any, bias ? &bia_md : NULL, &dst_any, strides, dilates,
                     pad_l, pad_r),
                 "convolution desc", err, len) ||
        dn_check(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL),
                 "convolution primitive desc", err, len))
        return -1;

    int rc = dn_bind(pl, KB_ARG_SRC, DNNL_ARG_SRC, &src_md, host->ptr[KB_ARG_SRC],
                     dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), false,
                     err, len);
    if (!rc)
        rc = dn_bind(pl, KB_ARG_WEI, DNNL_ARG_WEIGHTS, &wei_md, host->ptr[KB_ARG_WEI],
                     dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                     false, err, len);
    if (!rc && bias)
        rc = dn_bind(pl, KB_ARG_BIA, DNNL_ARG_BIAS, &bia_md, host->ptr[KB_ARG_BIA],
                     dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1),
                     false, err, len);
    if (!rc)
        rc = dn_bind(pl, KB_ARG_DST, DNNL_ARG_DST, &dst_md, host->ptr[KB_ARG_DST],
                     dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), true,
                     err, len);
    if (rc) {
        dnnl_primitive_desc_destroy(pd);
        return -1;
    }
    return dn_create_primitive(pl, pd, err, len);
}
