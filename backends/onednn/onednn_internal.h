/* onednn_internal.h - what the oneDNN backend's files share: the plan,
 * the primitive descriptors a problem needs, tensor binding with
 * reorders, and status checking. */
#ifndef KB_ONEDNN_INTERNAL_H
#define KB_ONEDNN_INTERNAL_H

#include "backends/backend.h"

#include "onednn_compat.h"

/* A tensor as the primitive sees it.  `mem` is in the primitive's
 * preferred format; when that differs from the user's plain layout, `user`
 * wraps the host buffer, `to_mem` converts user -> mem (inputs in prepare,
 * and every tensor in write_input, so a poisoned output reaches the
 * private copy) and `to_user` converts mem -> user (outputs only).  A
 * scratch tensor (dn_desc.scratch) has `mem` only: the host never sees
 * it. */
typedef struct {
    dnnl_memory_t user, mem;
    dnnl_primitive_t to_mem, to_user;
    bool output;
    int dnnl_arg;              /* DNNL_ARG_SRC, ... */
} dn_tensor;

/* What a problem's primitive is made from, built by the per-kernel
 * files and used both by supports() (is there an implementation?) and by
 * prepare().  `hint` is the forward primitive descriptor a backward one
 * is created against; it lives as long as `pd`, because oneDNN 2.x keeps
 * a pointer to it.  `user` holds each host tensor's plain layout (in its
 * storage type); `scratch` is the set (1 << kb_arg) of tensors the
 * primitive takes that the problem has no host buffer for: the plan
 * allocates them, zeroed, and never validates them.  dn_desc_free frees
 * the descriptors too (handles in oneDNN 3). */
typedef struct {
    dnnl_primitive_desc_t pd, hint;
    dnnl_memory_desc_t user[KB_ARG_MAX];
    unsigned scratch;
} dn_desc;

typedef struct {
    kb_problem p;
    bool timed_reorders;       /* the "onednn_reorder" variant */
    dn_desc d;
    dnnl_primitive_t prim;
    dn_tensor t[KB_ARG_MAX];
} dn_plan;

/* dn_make_desc and the per-kernel builders return 0, -1 with err, or
 * this: oneDNN has no implementation of the problem on this CPU, err
 * saying so ("oneDNN 2.6.3 has no f16 convolution forward on
 * avx512_core_amx"), which supports() turns into SKIPPED. */
#define DN_UNIMPLEMENTED 1

/* The process-wide CPU engine and stream, created on first use.
 * Returns 0, or -1 with err. */
int dn_engine(dnnl_engine_t *eng, dnnl_stream_t *strm, char *err, size_t len);

/* 0 when s is dnnl_success, else -1 with "oneDNN <what>: <status>". */
int dn_check(dnnl_status_t s, const char *what, char *err, size_t len);

/* oneDNN's element type for a storage type; f64, which oneDNN 2.6 lacks,
 * maps to undef (supports() refuses it first). */
dnnl_data_type_t dn_dtype(kb_dtype dt);

/* A new attribute with p's --fpmath set explicitly, strict included, so
 * that an environment default (ONEDNN_DEFAULT_FPMATH_MODE) never lets f32
 * use reduced precision under strict.  Returns 0, or -1 with err (also
 * for a mode this oneDNN lacks, which supports() refuses first). */
int dn_attr_create(const kb_problem *p, dnnl_primitive_attr_t *attr,
                   char *err, size_t len);

/* Create *pd for op with attr (NULL: dn_attr_create's) and hint.
 * `what` names the operation for messages ("convolution backward_data").
 * Returns 0, DN_UNIMPLEMENTED, or -1 with err. */
int dn_pd_create(dnnl_primitive_desc_t *pd, const dn_op *op,
                 const_dnnl_primitive_attr_t attr, const_dnnl_primitive_desc_t hint,
                 const kb_problem *p, const char *what, char *err, size_t len);

/* Fill d for p (dispatching on the kernel kind).  Returns 0,
 * DN_UNIMPLEMENTED or -1 with err; on anything but 0, d holds nothing to
 * free.  dn_desc_free frees what it holds. */
int dn_make_desc(const kb_problem *p, dn_desc *d, char *err, size_t len);
void dn_desc_free(dn_desc *d);

/* Per-kernel builders of dn_desc (onednn_conv.c with onednn_conv_bwd.c,
 * onednn_matmul.c, onednn_bnorm.c with onednn_bnorm_bwd.c).  Same
 * returns as dn_make_desc; on failure they leave d->pd and d->hint as
 * they found them or NULL (dn_make_desc frees whatever is set). */
int dn_conv_desc(const kb_problem *p, dn_desc *d, char *err, size_t len);
int dn_matmul_desc(const kb_problem *p, dn_desc *d, char *err, size_t len);
int dn_bnorm_desc(const kb_problem *p, dn_desc *d, char *err, size_t len);

/* The two halves of batch normalization.  dn_bnorm_fwd_pd: a forward
 * primitive descriptor on the plain data_md with these flags, the FWD_*
 * passes' and the backward ones' hint (`what` names it for messages);
 * dn_bnorm_bwd_desc: d->pd and d->hint for BWD_D and BWD_DW.  Same
 * returns as dn_make_desc. */
int dn_bnorm_fwd_pd(const kb_problem *p, const dnnl_memory_desc_t *data_md,
                    dnnl_prop_kind_t prop, unsigned flags, const char *what,
                    dnnl_primitive_desc_t *pd, char *err, size_t len);
int dn_bnorm_bwd_desc(const kb_problem *p, const dnnl_memory_desc_t *data_md,
                      dn_desc *d, char *err, size_t len);

/* Bind every tensor of pl->d: host tensors in the formats pl->d.pd chose
 * (reorders where those differ from the plain layouts), scratch tensors
 * allocated and zeroed.  onednn_bind.c.  Returns 0, or -1 with err. */
int dn_bind_all(dn_plan *pl, const kb_tensors *host, char *err, size_t len);

/* Which reorders dn_run_reorders runs. */
typedef enum {
    DN_INPUTS_IN,    /* inputs, plain -> preferred: before the primitive */
    DN_ALL_IN,       /* every tensor, plain -> preferred: write_input */
    DN_OUTPUTS_OUT,  /* outputs, preferred -> plain: after the primitive */
} dn_reorders;

/* Run those reorders and wait.  Returns 0, or -1 with err. */
int dn_run_reorders(dn_plan *pl, dn_reorders which, char *err, size_t len);

/* Destroy the tensors' memories and reorders (onednn_bind.c). */
void dn_unbind_all(dn_plan *pl);

#endif
