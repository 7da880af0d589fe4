/* onednn_bind.c - a plan's tensors: host buffers wrapped in oneDNN
 * memories, private copies in the primitive's preferred formats with the
 * reorders between them, and scratch tensors the host never sees. */
#include "onednn_internal.h"

#include <stdio.h>
#include <string.h>

/* oneDNN's execute argument for each kbench tensor. */
static const int dnnl_arg_of[KB_ARG_MAX] = {
    [KB_ARG_SRC] = DNNL_ARG_SRC,
    [KB_ARG_WEI] = DNNL_ARG_WEIGHTS,
    [KB_ARG_BIA] = DNNL_ARG_BIAS,
    [KB_ARG_DST] = DNNL_ARG_DST,
    [KB_ARG_MEAN] = DNNL_ARG_MEAN,
    [KB_ARG_VAR] = DNNL_ARG_VARIANCE,
    [KB_ARG_SCALE] = DNNL_ARG_SCALE,
    [KB_ARG_SHIFT] = DNNL_ARG_SHIFT,
    [KB_ARG_DIFF_SRC] = DNNL_ARG_DIFF_SRC,
    [KB_ARG_DIFF_WEI] = DNNL_ARG_DIFF_WEIGHTS,
    [KB_ARG_DIFF_BIA] = DNNL_ARG_DIFF_BIAS,
    [KB_ARG_DIFF_DST] = DNNL_ARG_DIFF_DST,
    [KB_ARG_DIFF_SCALE] = DNNL_ARG_DIFF_SCALE,
    [KB_ARG_DIFF_SHIFT] = DNNL_ARG_DIFF_SHIFT,
};

/* A reorder primitive from one layout to another.  Returns 0, or -1 with
 * err. */
static int make_reorder(dnnl_primitive_t *r, dn_md_ref from, dn_md_ref to,
                        dnnl_engine_t eng,
                        char *err, size_t len)
{
    dnnl_primitive_desc_t rpd = NULL;
    if (dn_check(dnnl_reorder_primitive_desc_create(&rpd, from, eng, to, eng, NULL),
                 "reorder_primitive_desc_create", err, len))
        return -1;
    int rc = dn_check(dnnl_primitive_create(r, rpd), "reorder create", err, len);
    dnnl_primitive_desc_destroy(rpd);
    return rc;
}

/* Host buffer ptr (plain layout user_md) as tensor a, in the format
 * `want`.  Returns 0, or -1 with err. */
static int bind_host(dn_tensor *t, dn_md_ref user_md, void *ptr, dn_md_ref want,
                     dnnl_engine_t eng,
                     char *err, size_t len)
{
    if (dn_check(dnnl_memory_create(&t->user, user_md, eng, ptr), "memory_create",
                 err, len))
        return -1;
    if (dnnl_memory_desc_equal(user_md, want)) {
        t->mem = t->user;
        return 0;
    }
    if (dn_check(dnnl_memory_create(&t->mem, want, eng, DNNL_MEMORY_ALLOCATE),
                 "memory_create (preferred format)", err, len))
        return -1;
    if (make_reorder(&t->to_mem, user_md, want, eng, err, len))
        return -1;
    return t->output ? make_reorder(&t->to_user, want, user_md, eng, err, len) : 0;
}

/* A zeroed tensor of the primitive's own (want), for an argument the
 * problem has no host buffer for.  Returns 0, or -1 with err. */
static int bind_scratch(dn_tensor *t, dn_md_ref want,
                        dnnl_engine_t eng, char *err, size_t len)
{
    void *data = NULL;
    if (dn_check(dnnl_memory_create(&t->mem, want, eng, DNNL_MEMORY_ALLOCATE),
                 "memory_create (scratch tensor)", err, len) ||
        dn_check(dnnl_memory_get_data_handle(t->mem, &data), "get_data_handle",
                 err, len))
        return -1;
    memset(data, 0, dnnl_memory_desc_get_size(want));
    return 0;
}

int dn_bind_all(dn_plan *pl, const kb_tensors *host, char *err, size_t len)
{
    kb_arg_info info[KB_ARG_MAX];
    dnnl_engine_t eng;
    dnnl_stream_t strm;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    kb_problem_args(&pl->p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        bool scratch = pl->d.scratch & (1u << a);
        if (!info[a].used && !scratch)
            continue;
        dn_tensor *t = &pl->t[a];
        dn_md_ref want =
            dnnl_primitive_desc_query_md(pl->d.pd, dnnl_query_exec_arg_md,
                                         dnnl_arg_of[a]);
        if (dn_md_ndims(want) == 0) {
            snprintf(err, len, "onednn: the %s primitive takes no %s tensor",
                     kb_problem_kernel_name(&pl->p), info[a].name ? info[a].name
                                                                  : "scratch");
            return -1;
        }
        t->dnnl_arg = dnnl_arg_of[a];
        t->output = info[a].is_output;
        if (scratch ? bind_scratch(t, want, eng, err, len)
                    : bind_host(t, dn_md(&pl->d.user[a]), host->ptr[a], want, eng, err,
                                len))
            return -1;
    }
    return 0;
}

int dn_run_reorders(dn_plan *pl, dn_reorders which, char *err, size_t len)
{
    dnnl_engine_t eng;
    dnnl_stream_t strm;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    for (int a = 0; a < KB_ARG_MAX; a++) {
        dn_tensor *t = &pl->t[a];
        bool out = which == DN_OUTPUTS_OUT;
        dnnl_primitive_t r = out ? t->to_user : t->to_mem;
        if (!r || (which == DN_INPUTS_IN && t->output))
            continue;
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, out ? t->mem : t->user},
                                   {DNNL_ARG_TO, out ? t->user : t->mem}};
        if (dn_check(dnnl_primitive_execute(r, strm, 2, args),
                     "reorder execute", err, len))
            return -1;
    }
    return dn_check(dnnl_stream_wait(strm), "stream_wait", err, len);
}

void dn_unbind_all(dn_plan *pl)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        dn_tensor *t = &pl->t[a];
        if (t->to_mem)
            dnnl_primitive_destroy(t->to_mem);
        if (t->to_user)
            dnnl_primitive_destroy(t->to_user);
        if (t->mem && t->mem != t->user)
            dnnl_memory_destroy(t->mem);
        if (t->user)
            dnnl_memory_destroy(t->user);
        memset(t, 0, sizeof *t);
    }
}
