/* onednn_internal.h - what the oneDNN backend's files share: the plan,
 * tensor binding with reorders, and status checking. */
#ifndef KB_ONEDNN_INTERNAL_H
#define KB_ONEDNN_INTERNAL_H

#include "backends/backend.h"

#include <oneapi/dnnl/dnnl.h>

/* A tensor as the primitive sees it.  `mem` is in the primitive's
 * preferred format; when that differs from the user's plain layout, `user`
 * wraps the host buffer, `to_mem` converts user -> mem (inputs in prepare,
 * and every tensor in write_input, so a poisoned output reaches the
 * private copy) and `to_user` converts mem -> user (outputs only). */
typedef struct {
    dnnl_memory_t user, mem;
    dnnl_primitive_t to_mem, to_user;
    bool output;
    int dnnl_arg;              /* DNNL_ARG_SRC, ... */
} dn_tensor;

typedef struct {
    kb_problem p;
    bool timed_reorders;       /* the "onednn_reorder" variant */
    dnnl_primitive_t prim;
    dn_tensor t[KB_ARG_MAX];
} dn_plan;

/* The process-wide CPU engine and stream, created on first use.
 * Returns 0, or -1 with err. */
int dn_engine(dnnl_engine_t *eng, dnnl_stream_t *strm, char *err, size_t len);

/* Bind host buffer ptr (plain layout user_md) as argument a of the plan,
 * in the format `want` the primitive descriptor chose.  Returns 0, or -1
 * with err. */
int dn_bind(dn_plan *pl, kb_arg a, int dnnl_arg, const dnnl_memory_desc_t *user_md,
            void *ptr, const dnnl_memory_desc_t *want, bool output,
            char *err, size_t len);

/* 0 when s is dnnl_success, else -1 with "oneDNN <what>: <status>". */
int dn_check(dnnl_status_t s, const char *what, char *err, size_t len);

/* Per-kernel builders (onednn_conv.c, onednn_matmul.c, onednn_bnorm.c):
 * create pl->prim and bind its tensors.  Return 0, or -1 with err. */
int dn_build_conv(dn_plan *pl, const kb_tensors *host, char *err, size_t len);
int dn_build_matmul(dn_plan *pl, const kb_tensors *host, char *err, size_t len);
int dn_build_bnorm(dn_plan *pl, const kb_tensors *host, char *err, size_t len);

/* Create pl->prim from pd, then destroy pd (bind tensors first: their
 * formats are queried from pd).  Returns 0, or -1 with err. */
int dn_create_primitive(dn_plan *pl, dnnl_primitive_desc_t pd, char *err,
                        size_t len);

#endif
