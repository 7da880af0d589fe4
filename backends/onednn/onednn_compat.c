/* onednn_compat.c - onednn_compat.h for oneDNN 3.x and for 2.x (2.6 and
 * later): the only file of the backend that asks which one it has. */
#include "onednn_compat.h"

#include <stddef.h>

/* Names of the ISAs oneDNN reports, most specific last: 3.0 dropped the
 * Xeon Phi ones and added others. */
static const struct {
    dnnl_cpu_isa_t isa;
    const char *name;
} isa_names[] = {
    {dnnl_cpu_isa_sse41, "sse41"},
    {dnnl_cpu_isa_avx, "avx"},
    {dnnl_cpu_isa_avx2, "avx2"},
    {dnnl_cpu_isa_avx2_vnni, "avx2_vnni"},
    {dnnl_cpu_isa_avx512_core, "avx512_core"},
    {dnnl_cpu_isa_avx512_core_vnni, "avx512_core_vnni"},
    {dnnl_cpu_isa_avx512_core_bf16, "avx512_core_bf16"},
    {dnnl_cpu_isa_avx512_core_amx, "avx512_core_amx"},
#if DNNL_VERSION_MAJOR >= 3
    {dnnl_cpu_isa_avx2_vnni_2, "avx2_vnni_2"},
    {dnnl_cpu_isa_avx512_core_fp16, "avx512_core_fp16"},
    {dnnl_cpu_isa_avx512_core_amx_fp16, "avx512_core_amx_fp16"},
#else
    {dnnl_cpu_isa_avx512_mic, "avx512_mic"},
    {dnnl_cpu_isa_avx512_mic_4ops, "avx512_mic_4ops"},
#endif
};

const bool dn_bnorm_bwd_takes_shift = DNNL_VERSION_MAJOR < 3;

const char *dn_isa_name(void)
{
#if defined(__x86_64__)
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    for (size_t i = 0; i < sizeof isa_names / sizeof isa_names[0]; i++)
        if (isa_names[i].isa == isa)
            return isa_names[i].name;
    return "all";
#elif defined(__aarch64__)
    /* dnnl_cpu_isa_t names x86's ISAs only: elsewhere oneDNN returns its
     * own architecture's values through it, which read as x86 names */
    return "aarch64";
#else
    return "this architecture";
#endif
}

bool dn_fpmath_mode(kb_fpmath f, dnnl_fpmath_mode_t *mode)
{
    switch (f) {
    case KB_FPMATH_STRICT: *mode = dnnl_fpmath_mode_strict; return true;
    case KB_FPMATH_BF16: *mode = dnnl_fpmath_mode_bf16; return true;
    case KB_FPMATH_ANY: *mode = dnnl_fpmath_mode_any; return true;
    case KB_FPMATH_TF32:
#if DNNL_VERSION_MAJOR >= 3
        *mode = dnnl_fpmath_mode_tf32;
        return true;
#else
        break;
#endif
    }
    return false;
}

dn_md_ref dn_md(const dnnl_memory_desc_t *md)
{
#if DNNL_VERSION_MAJOR >= 3
    return md ? *md : NULL;
#else
    return md;
#endif
}

#if DNNL_VERSION_MAJOR >= 3

dnnl_status_t dn_md_tag(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                        dnnl_data_type_t dt, dnnl_format_tag_t tag)
{
    return dnnl_memory_desc_create_with_tag(md, ndims, dims, dt, tag);
}

dnnl_status_t dn_md_strides(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                            dnnl_data_type_t dt, const dnnl_dims_t strides)
{
    return dnnl_memory_desc_create_with_strides(md, ndims, dims, dt, strides);
}

dnnl_status_t dn_md_copy(dnnl_memory_desc_t *to, const dnnl_memory_desc_t *from)
{
    return dnnl_memory_desc_clone(to, *from);
}

void dn_md_free(dnnl_memory_desc_t *md)
{
    if (*md)
        dnnl_memory_desc_destroy(*md);
    *md = NULL;
}

int dn_md_ndims(dn_md_ref md)
{
    int nd = 0;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success)
        return 0;
    return nd;
}

dnnl_status_t dn_op_pd_create(dnnl_primitive_desc_t *pd, const dn_op *op,
                              const_dnnl_primitive_attr_t attr, dnnl_engine_t eng,
                              const_dnnl_primitive_desc_t hint)
{
    dn_md_ref src = dn_md(op->src), wei = dn_md(op->wei), bia = dn_md(op->bia),
              dst = dn_md(op->dst);
    switch (op->kind) {
    case DN_CONV_FWD:
        return dnnl_convolution_forward_primitive_desc_create(
            pd, eng, op->prop, dnnl_convolution_direct, src, wei, bia, dst,
            op->strides, op->dilates, op->pad_l, op->pad_r, attr);
    case DN_CONV_BWD_DATA:
        return dnnl_convolution_backward_data_primitive_desc_create(
            pd, eng, dnnl_convolution_direct, src, wei, dst, op->strides,
            op->dilates, op->pad_l, op->pad_r, hint, attr);
    case DN_CONV_BWD_WEIGHTS:
        return dnnl_convolution_backward_weights_primitive_desc_create(
            pd, eng, dnnl_convolution_direct, src, wei, bia, dst, op->strides,
            op->dilates, op->pad_l, op->pad_r, hint, attr);
    case DN_MATMUL:
        return dnnl_matmul_primitive_desc_create(pd, eng, src, wei, bia, dst, attr);
    case DN_BNORM_FWD:
        return dnnl_batch_normalization_forward_primitive_desc_create(
            pd, eng, op->prop, src, src, op->eps, op->flags, attr);
    case DN_BNORM_BWD:
        return dnnl_batch_normalization_backward_primitive_desc_create(
            pd, eng, op->prop, dst, dst, src, op->eps, op->flags, hint, attr);
    }
    return dnnl_invalid_arguments;
}

dnnl_status_t dn_post_ops_scale(dnnl_post_ops_t ops, float alpha)
{
    return dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_linear, alpha, 0.0f);
}

dnnl_status_t dn_post_ops_sum(dnnl_post_ops_t ops, float beta)
{
    return dnnl_post_ops_append_sum(ops, beta, 0, dnnl_data_type_undef);
}

#else /* oneDNN 2.x */

dnnl_status_t dn_md_tag(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                        dnnl_data_type_t dt, dnnl_format_tag_t tag)
{
    return dnnl_memory_desc_init_by_tag(md, ndims, dims, dt, tag);
}

dnnl_status_t dn_md_strides(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                            dnnl_data_type_t dt, const dnnl_dims_t strides)
{
    return dnnl_memory_desc_init_by_strides(md, ndims, dims, dt, strides);
}

dnnl_status_t dn_md_copy(dnnl_memory_desc_t *to, const dnnl_memory_desc_t *from)
{
    *to = *from;
    return dnnl_success;
}

void dn_md_free(dnnl_memory_desc_t *md)
{
    (void)md;  /* a struct: nothing was allocated */
}

int dn_md_ndims(dn_md_ref md)
{
    return md ? md->ndims : 0;
}

dnnl_status_t dn_op_pd_create(dnnl_primitive_desc_t *pd, const dn_op *op,
                              const_dnnl_primitive_attr_t attr, dnnl_engine_t eng,
                              const_dnnl_primitive_desc_t hint)
{
    union {
        dnnl_convolution_desc_t conv;
        dnnl_matmul_desc_t matmul;
        dnnl_batch_normalization_desc_t bnorm;
    } d;
    dnnl_status_t s = dnnl_invalid_arguments;
    switch (op->kind) {
    case DN_CONV_FWD:
        s = dnnl_dilated_convolution_forward_desc_init(
            &d.conv, op->prop, dnnl_convolution_direct, op->src, op->wei, op->bia,
            op->dst, op->strides, op->dilates, op->pad_l, op->pad_r);
        break;
    case DN_CONV_BWD_DATA:
        s = dnnl_dilated_convolution_backward_data_desc_init(
            &d.conv, dnnl_convolution_direct, op->src, op->wei, op->dst, op->strides,
            op->dilates, op->pad_l, op->pad_r);
        break;
    case DN_CONV_BWD_WEIGHTS:
        s = dnnl_dilated_convolution_backward_weights_desc_init(
            &d.conv, dnnl_convolution_direct, op->src, op->wei, op->bia, op->dst,
            op->strides, op->dilates, op->pad_l, op->pad_r);
        break;
    case DN_MATMUL:
        s = dnnl_matmul_desc_init(&d.matmul, op->src, op->wei, op->bia, op->dst);
        break;
    case DN_BNORM_FWD:
        s = dnnl_batch_normalization_forward_desc_init(&d.bnorm, op->prop, op->src,
                                                       op->eps, op->flags);
        break;
    case DN_BNORM_BWD:
        s = dnnl_batch_normalization_backward_desc_init(&d.bnorm, op->prop, op->dst,
                                                        op->src, op->eps, op->flags);
        break;
    }
    if (s != dnnl_success)
        return s;
    return dnnl_primitive_desc_create(pd, &d, attr, eng, hint);
}

dnnl_status_t dn_post_ops_scale(dnnl_post_ops_t ops, float alpha)
{
    return dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_linear, alpha, 0.0f);
}

dnnl_status_t dn_post_ops_sum(dnnl_post_ops_t ops, float beta)
{
    return dnnl_post_ops_append_sum(ops, beta);
}

#endif
