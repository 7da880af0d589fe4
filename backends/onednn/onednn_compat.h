/* onednn_compat.h - the one place where oneDNN 2.x (Debian 12: 2.6) and
 * 3.x (Debian 13: 3.7) differ for this backend; every other file is
 * written against what is declared here.
 *
 * 3.0 changed the C API in three ways that matter here: a memory
 * descriptor became an opaque handle (created, cloned, destroyed, passed
 * by value) where 2.x had a struct passed by pointer; operation
 * descriptors and dnnl_primitive_desc_create were replaced by one create
 * call per primitive; and post-ops, fpmath modes and the CPU ISA list
 * changed.  A memory descriptor is kept in a dnnl_memory_desc_t in both
 * (a struct in 2.x, a handle in 3.x, NULL until created), only ever
 * touched through dn_md_* below. */
#ifndef KB_ONEDNN_COMPAT_H
#define KB_ONEDNN_COMPAT_H

#include "kernels/problem.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_version.h>
#include <stdbool.h>

/* The oldest this backend builds against (CMake's probe says so first). */
#if DNNL_VERSION_MAJOR < 2 || (DNNL_VERSION_MAJOR == 2 && DNNL_VERSION_MINOR < 6)
#error "the onednn backend needs oneDNN 2.6 or later"
#endif

/* A memory descriptor as the API's calls take it. */
#if DNNL_VERSION_MAJOR >= 3
typedef const_dnnl_memory_desc_t dn_md_ref;
#else
typedef const dnnl_memory_desc_t *dn_md_ref;
#endif

/* *md: a new plain (tag) or strided descriptor. */
dnnl_status_t dn_md_tag(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                        dnnl_data_type_t dt, dnnl_format_tag_t tag);
dnnl_status_t dn_md_strides(dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                            dnnl_data_type_t dt, const dnnl_dims_t strides);
/* *to: a descriptor of its own equal to *from. */
dnnl_status_t dn_md_copy(dnnl_memory_desc_t *to, const dnnl_memory_desc_t *from);
/* Frees what dn_md_tag, dn_md_strides or dn_md_copy made (or nothing). */
void dn_md_free(dnnl_memory_desc_t *md);
/* md as the API takes it; NULL for NULL (an absent bias). */
dn_md_ref dn_md(const dnnl_memory_desc_t *md);
/* The number of dimensions; 0 for the zero descriptor oneDNN returns for
 * an argument a primitive does not take. */
int dn_md_ndims(dn_md_ref md);

/* An operation, in the same terms for both APIs.  Gradients take their
 * primal's slot: convolution backward_data reads diff_dst as dst and
 * writes diff_src as src; backward_weights writes diff_wei as wei and
 * diff_bia as bia; batch normalization takes the data as src and, going
 * backward, both gradients as dst. */
typedef enum {
    DN_CONV_FWD,
    DN_CONV_BWD_DATA,
    DN_CONV_BWD_WEIGHTS,
    DN_MATMUL,
    DN_BNORM_FWD,
    DN_BNORM_BWD,
} dn_op_kind;

typedef struct {
    dn_op_kind kind;
    dnnl_prop_kind_t prop;                      /* forward ones, bnorm backward */
    const dnnl_memory_desc_t *src, *wei, *bia, *dst;  /* bia may be NULL */
    const dnnl_dim_t *strides, *dilates, *pad_l, *pad_r;  /* conv */
    float eps;                                  /* bnorm */
    unsigned flags;                             /* bnorm: dnnl_use_* */
} dn_op;

/* *pd for op with attr on eng, created against hint (a backward pass's
 * forward primitive descriptor, or NULL). */
dnnl_status_t dn_op_pd_create(dnnl_primitive_desc_t *pd, const dn_op *op,
                              const_dnnl_primitive_attr_t attr, dnnl_engine_t eng,
                              const_dnnl_primitive_desc_t hint);

/* Post-ops: the result times alpha (eltwise linear), and the destination's
 * old value times beta added to it (sum). */
dnnl_status_t dn_post_ops_scale(dnnl_post_ops_t ops, float alpha);
dnnl_status_t dn_post_ops_sum(dnnl_post_ops_t ops, float beta);

/* Whether batch normalization backward with dnnl_use_shift demands the
 * shift as an input, which it does not read: 2.x does, 3.x refuses it
 * ("bad number of inputs"). */
extern const bool dn_bnorm_bwd_takes_shift;

/* oneDNN's fpmath mode for f; false where this version has none (tf32
 * before 3.0). */
bool dn_fpmath_mode(kb_fpmath f, dnnl_fpmath_mode_t *mode);

/* "avx512_core_amx", ...: the name of the ISA oneDNN dispatches to. */
const char *dn_isa_name(void);

#endif
