/* onednn_bnorm.c - batch normalization: the plain layouts every pass
 * shares, and the forward pass, training (statistics computed and
 * written) or inference with the given statistics. */
#include "onednn_internal.h"

int dn_bnorm_fwd_pd(const kb_problem *p, const dnnl_memory_desc_t *data_md,
                    dnnl_prop_kind_t prop, unsigned flags, const char *what,
                    dnnl_primitive_desc_t *pd, char *err, size_t len)
{
    const dn_op op = {.kind = DN_BNORM_FWD, .prop = prop, .src = data_md,
                      .eps = (float)p->bnorm.eps, .flags = flags};
    return dn_pd_create(pd, &op, NULL, NULL, p, what, err, len);
}

int dn_bnorm_desc(const kb_problem *p, dn_desc *d, char *err, size_t len)
{
    const kb_bnorm_desc *b = &p->bnorm;
    const bool is3d = b->ndims == 3, nxc = p->layout == KB_LAYOUT_NXC;
    dnnl_memory_desc_t data_md = {0}, vec_md = {0};
    int rc = -1;

    dnnl_dims_t dims = {b->mb, b->ic, b->id, b->ih, b->iw};
    dnnl_dims_t vec_dims = {b->ic};
    if (!is3d)
        dims[2] = b->ih, dims[3] = b->iw;
    dnnl_format_tag_t tag = is3d ? (nxc ? dnnl_ndhwc : dnnl_ncdhw)
                                 : (nxc ? dnnl_nhwc : dnnl_nchw);
    /* Plain layouts throughout, the primitive's own: no reorders.  The
     * per-channel vectors are f32 whatever the data's type. */
    if (dn_check(dn_md_tag(&data_md, is3d ? 5 : 4, dims, dn_dtype(p->dt.src), tag),
                 "data md", err, len) ||
        dn_check(dn_md_tag(&vec_md, 1, vec_dims,
                           dn_dtype(kb_arg_dtype(p, KB_ARG_MEAN)), dnnl_a),
                 "vector md", err, len))
        goto out;
    static const kb_arg data[] = {KB_ARG_SRC, KB_ARG_DST, KB_ARG_DIFF_SRC,
                                  KB_ARG_DIFF_DST};
    static const kb_arg vecs[] = {KB_ARG_MEAN, KB_ARG_VAR, KB_ARG_SCALE,
                                  KB_ARG_SHIFT, KB_ARG_DIFF_SCALE, KB_ARG_DIFF_SHIFT};
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        if (dn_check(dn_md_copy(&d->user[data[i]], &data_md), "data md copy", err, len))
            goto out;
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        if (dn_check(dn_md_copy(&d->user[vecs[i]], &vec_md), "vector md copy", err,
                     len))
            goto out;

    unsigned flags = dnnl_use_scale | dnnl_use_shift;
    if (kb_dir_is_backward(p->dir))
        rc = dn_bnorm_bwd_desc(p, &data_md, d, err, len);
    else if (p->dir == KB_FWD_I)
        rc = dn_bnorm_fwd_pd(p, &data_md, dnnl_forward_inference,
                             flags | dnnl_use_global_stats,
                             "batch_normalization forward_inference", &d->pd, err, len);
    else
        rc = dn_bnorm_fwd_pd(p, &data_md, dnnl_forward_training, flags,
                             "batch_normalization forward_training", &d->pd, err, len);
out:
    dn_md_free(&data_md);
    dn_md_free(&vec_md);
    return rc;
}
