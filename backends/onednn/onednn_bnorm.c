/* onednn_bnorm.c - forward batch normalization: training (statistics
 * computed and written) or inference with the given statistics. */
#include "onednn_internal.h"

int dn_build_bnorm(dn_plan *pl, const kb_tensors *host, char *err, size_t len)
{
    const kb_bnorm_desc *b = &pl->p.bnorm;
    const bool is3d = b->ndims == 3, nxc = pl->p.layout == KB_LAYOUT_NXC;
    const bool training = pl->p.dir != KB_FWD_I;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_memory_desc_t data_md, vec_md;
    dnnl_batch_normalization_desc_t bd;
    dnnl_primitive_desc_t pd = NULL;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    dnnl_dims_t dims = {b->mb, b->ic, b->id, b->ih, b->iw};
    dnnl_dims_t vec_dims = {b->ic};
    if (!is3d)
        dims[2] = b->ih, dims[3] = b->iw;
    dnnl_format_tag_t tag = is3d ? (nxc ? dnnl_ndhwc : dnnl_ncdhw)
                                 : (nxc ? dnnl_nhwc : dnnl_nchw);
    unsigned flags = dnnl_use_scale | dnnl_use_shift;
    if (!training)
        flags |= dnnl_use_global_stats;

    if (dn_check(dnnl_memory_desc_init_by_tag(&data_md, is3d ? 5 : 4, dims, dnnl_f32,
                                              tag), "data md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_tag(&vec_md, 1, vec_dims, dnnl_f32, dnnl_a),
                 "vector md", err, len) ||
        dn_check(dnnl_batch_normalization_forward_desc_init(
                     &bd, training ? dnnl_forward_training : dnnl_forward_inference,
                     &data_md, (float)b->eps, flags),
                 "batch_normalization desc", err, len) ||
        dn_check(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, NULL),
                 "batch_normalization primitive desc", err, len))
        return -1;

    /* Plain layouts throughout; mean and variance are outputs in training. */
    static const struct { kb_arg arg; int dnnl_arg; } vecs[] = {
        {KB_ARG_MEAN, DNNL_ARG_MEAN}, {KB_ARG_VAR, DNNL_ARG_VARIANCE},
        {KB_ARG_SCALE, DNNL_ARG_SCALE}, {KB_ARG_SHIFT, DNNL_ARG_SHIFT}};
    int rc = dn_bind(pl, KB_ARG_SRC, DNNL_ARG_SRC, &data_md, host->ptr[KB_ARG_SRC],
                     &data_md, false, err, len) ||
             dn_bind(pl, KB_ARG_DST, DNNL_ARG_DST, &data_md, host->ptr[KB_ARG_DST],
                     &data_md, true, err, len);
    for (size_t i = 0; !rc && i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        bool out = training && (vecs[i].arg == KB_ARG_MEAN || vecs[i].arg == KB_ARG_VAR);
        rc = dn_bind(pl, vecs[i].arg, vecs[i].dnnl_arg, &vec_md, host->ptr[vecs[i].arg],
                     &vec_md, out, err, len);
    }
    if (rc) {
        dnnl_primitive_desc_destroy(pd);
        return -1;
    }
    return dn_create_primitive(pl, pd, err, len);
}
