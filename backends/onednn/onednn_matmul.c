/* onednn_matmul.c - GEMM as a oneDNN matmul: transposes as strides, alpha
 * as an output scale and beta as a sum post-op. */
#include "onednn_internal.h"

int dn_build_matmul(dn_plan *pl, const kb_tensors *host, char *err, size_t len)
{
    const kb_gemm_desc *g = &pl->p.gemm;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_memory_desc_t a_md, b_md, c_md;
    dnnl_matmul_desc_t md;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t ops = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int rc = -1;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    /* A is [M,K] stored row-major, or as [K,M] when transposed; B alike. */
    dnnl_dims_t a_dims = {g->m, g->k}, b_dims = {g->k, g->n}, c_dims = {g->m, g->n};
    dnnl_dims_t a_str = {g->ta ? 1 : g->k, g->ta ? g->m : 1};
    dnnl_dims_t b_str = {g->tb ? 1 : g->n, g->tb ? g->k : 1};
    dnnl_dims_t c_str = {g->n, 1};
    float alpha = (float)g->alpha;

    if (dn_check(dnnl_memory_desc_init_by_strides(&a_md, 2, a_dims, dnnl_f32, a_str),
                 "A md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_strides(&b_md, 2, b_dims, dnnl_f32, b_str),
                 "B md", err, len) ||
        dn_check(dnnl_memory_desc_init_by_strides(&c_md, 2, c_dims, dnnl_f32, c_str),
                 "C md", err, len) ||
        dn_check(dnnl_matmul_desc_init(&md, &a_md, &b_md, NULL, &c_md),
                 "matmul desc", err, len) ||
        dn_check(dnnl_primitive_attr_create(&attr), "attr create", err, len))
        goto out;
    if (alpha != 1.0f &&
        dn_check(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha),
                 "output scales (alpha)", err, len))
        goto out;
    if (g->beta != 0.0) {
        if (dn_check(dnnl_post_ops_create(&ops), "post_ops create", err, len) ||
            dn_check(dnnl_post_ops_append_sum(ops, (float)g->beta), "sum post-op (beta)",
                     err, len) ||
            dn_check(dnnl_primitive_attr_set_post_ops(attr, ops), "set post_ops", err,
                     len))
            goto out;
    }
    if (dn_check(dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL),
                 "matmul primitive desc", err, len))
        goto out;
    /* Plain strided memory is what matmul asked for: no reorders. */
    if (dn_bind(pl, KB_ARG_SRC, DNNL_ARG_SRC, &a_md, host->ptr[KB_ARG_SRC], &a_md,
                false, err, len) ||
        dn_bind(pl, KB_ARG_WEI, DNNL_ARG_WEIGHTS, &b_md, host->ptr[KB_ARG_WEI], &b_md,
                false, err, len) ||
        dn_bind(pl, KB_ARG_DST, DNNL_ARG_DST, &c_md, host->ptr[KB_ARG_DST], &c_md,
                true, err, len)) {
        dnnl_primitive_desc_destroy(pd);
        goto out;
    }
    rc = dn_create_primitive(pl, pd, err, len);
out:
    if (ops)
        dnnl_post_ops_destroy(ops);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    return rc;
}
