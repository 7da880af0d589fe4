/* onednn_matmul.c - GEMM as a oneDNN matmul: transposes as strides, alpha
 * and beta as post-ops (eltwise linear, then sum), A, B and C in their
 * storage types (bf16:bf16:f32 accumulates in f32 and writes f32). */
#include "onednn_internal.h"

int dn_matmul_desc(const kb_problem *p, dn_desc *d, char *err, size_t len)
{
    const kb_gemm_desc *g = &p->gemm;
    dnnl_memory_desc_t *a_md = &d->user[KB_ARG_SRC], *b_md = &d->user[KB_ARG_WEI],
                       *c_md = &d->user[KB_ARG_DST];
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t ops = NULL;
    int rc = -1;

    /* A is [M,K] stored row-major, or as [K,M] when transposed; B alike.
     * Plain strided memory is what matmul runs on: no reorders. */
    dnnl_dims_t a_dims = {g->m, g->k}, b_dims = {g->k, g->n}, c_dims = {g->m, g->n};
    dnnl_dims_t a_str = {g->ta ? 1 : g->k, g->ta ? g->m : 1};
    dnnl_dims_t b_str = {g->tb ? 1 : g->n, g->tb ? g->k : 1};
    dnnl_dims_t c_str = {g->n, 1};
    float alpha = (float)g->alpha;

    if (dn_check(dn_md_strides(a_md, 2, a_dims, dn_dtype(p->dt.src), a_str), "A md",
                 err, len) ||
        dn_check(dn_md_strides(b_md, 2, b_dims, dn_dtype(p->dt.wei), b_str), "B md",
                 err, len) ||
        dn_check(dn_md_strides(c_md, 2, c_dims, dn_dtype(p->dt.dst), c_str), "C md",
                 err, len) ||
        dn_attr_create(p, &attr, err, len))
        goto out;
    /* alpha scales A*B before beta*C is added: the sum comes last. */
    if (alpha != 1.0f || g->beta != 0.0) {
        if (dn_check(dnnl_post_ops_create(&ops), "post_ops create", err, len) ||
            (alpha != 1.0f && dn_check(dn_post_ops_scale(ops, alpha),
                                       "linear post-op (alpha)", err, len)) ||
            (g->beta != 0.0 && dn_check(dn_post_ops_sum(ops, (float)g->beta),
                                        "sum post-op (beta)", err, len)) ||
            dn_check(dnnl_primitive_attr_set_post_ops(attr, ops), "set post_ops", err,
                     len))
            goto out;
    }
    const dn_op op = {.kind = DN_MATMUL, .src = a_md, .wei = b_md, .dst = c_md};
    rc = dn_pd_create(&d->pd, &op, attr, NULL, p, "matmul", err, len);
out:
    if (ops)
        dnnl_post_ops_destroy(ops);
    if (attr)
        dnnl_primitive_attr_destroy(attr);
    return rc;
}
