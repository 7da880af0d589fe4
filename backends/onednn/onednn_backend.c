/* onednn_backend.c - the oneDNN backend (C API, 2.6 and 3.x through
 * onednn_compat.h): convolution, matmul and batch normalization, forward
 * and backward, in two variants.
 * The primitive descriptors are made in onednn_desc.c and the per-kernel
 * files, the tensors bound in onednn_bind.c; this file is the plan's
 * life and the kb_backend table.
 *
 * `onednn` lets each primitive pick its preferred memory format
 * (format_tag any) and converts inputs in prepare() and outputs in
 * read_output(), outside the timing: the cost of the kernel alone.
 * `onednn_reorder` runs the same primitive but times the reorders from and
 * to the plain layouts too (inputs, weights and outputs): the cost a
 * caller holding NCHW data pays on every call. */
#include "onednn_backend.h"
#include "onednn_internal.h"

#include <stdio.h>
#include <stdlib.h>

static int run_primitive(dn_plan *pl, char *err, size_t len)
{
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_exec_arg_t args[KB_ARG_MAX];
    int n = 0;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (pl->t[a].mem)
            args[n++] = (dnnl_exec_arg_t){pl->t[a].dnnl_arg, pl->t[a].mem};
    if (dn_check(dnnl_primitive_execute(pl->prim, strm, n, args), "execute", err,
                 len))
        return -1;
    return dn_check(dnnl_stream_wait(strm), "stream_wait", err, len);
}

/* SKIPPED where oneDNN cannot express the problem (f64; f32 under
 * --fpmath tf32 before 3.0) or has no implementation of it on this CPU,
 * which only creating its primitive descriptor tells.  A descriptor that fails
 * otherwise is an error for prepare() to report, not a reason to skip. */
static bool dn_supports(const kb_problem *p, char *why, size_t len)
{
    const dnnl_version_t *v = dnnl_version();
    char err[256];
    dn_desc d;

    if (kb_dts_has(&p->dt, KB_F64)) {
        snprintf(why, len, "oneDNN %d.%d.%d has no f64 data type (it has f32, "
                 "bf16, f16)", v->major, v->minor, v->patch);
        return false;
    }
    /* --fpmath governs f32 arithmetic only: tf32 cannot be honoured where
     * there is f32 to compute, and changes nothing where there is none. */
    dnnl_fpmath_mode_t mode;
    if (!dn_fpmath_mode(p->fpmath, &mode) && kb_dts_has(&p->dt, KB_F32)) {
        snprintf(why, len, "oneDNN %d.%d.%d has no %s fpmath mode (it has "
                 "strict, bf16, f16, any)", v->major, v->minor, v->patch,
                 kb_fpmath_name(p->fpmath));
        return false;
    }
    int rc = dn_make_desc(p, &d, err, sizeof err);
    if (rc == DN_UNIMPLEMENTED) {
        snprintf(why, len, "%s", err);
        return false;
    }
    if (rc == 0)
        dn_desc_free(&d);
    return true;
}

/* Convolutions keep a copy of each tensor in oneDNN's blocked format,
 * whose channels are padded to the block (16 on AVX-512): twice the plain
 * size bounds that for all but the thinnest inputs.  Matmul uses the
 * plain buffers; backward batchnorm one scratch vector of C floats. */
static size_t dn_extra_bytes(const kb_problem *p)
{
    if (p->kind == KB_CONV)
        return 2 * kb_problem_tensor_bytes(p);
    if (p->kind == KB_BNORM && kb_dir_is_backward(p->dir))
        return (size_t)p->bnorm.ic * sizeof(float);
    return 0;
}

static void dn_release(void *plan)
{
    dn_plan *pl = plan;
    if (!pl)
        return;
    dn_unbind_all(pl);
    if (pl->prim)
        dnnl_primitive_destroy(pl->prim);
    dn_desc_free(&pl->d);
    free(pl);
}

static int prepare_variant(const kb_problem *p, const kb_tensors *host,
                           void **plan, bool timed_reorders, char *err, size_t len)
{
    dn_plan *pl = calloc(1, sizeof(*pl));
    int rc;

    if (!pl) {
        snprintf(err, len, "onednn: out of memory for the plan");
        return -1;
    }
    pl->p = *p;
    pl->timed_reorders = timed_reorders;
    /* supports() said there is an implementation: DN_UNIMPLEMENTED here
     * is an error like any other. */
    rc = dn_make_desc(p, &pl->d, err, len) ? -1 : 0;
    if (rc == 0)
        rc = dn_bind_all(pl, host, err, len);
    if (rc == 0)
        rc = dn_check(dnnl_primitive_create(&pl->prim, pl->d.pd), "primitive_create",
                      err, len);
    /* The untimed variant converts its inputs once, here. */
    if (rc == 0 && !timed_reorders)
        rc = dn_run_reorders(pl, DN_INPUTS_IN, err, len);
    if (rc) {
        dn_release(pl);
        return -1;
    }
    *plan = pl;
    return 0;
}

static int dn_prepare(const kb_problem *p, const kb_tensors *host, void **plan,
                      char *err, size_t len)
{
    return prepare_variant(p, host, plan, false, err, len);
}

static int dn_prepare_reorder(const kb_problem *p, const kb_tensors *host,
                              void **plan, char *err, size_t len)
{
    return prepare_variant(p, host, plan, true, err, len);
}

static int dn_run(void *plan, double *elapsed, char *err, size_t len)
{
    dn_plan *pl = plan;

    *elapsed = -1;
    if (pl->timed_reorders && dn_run_reorders(pl, DN_INPUTS_IN, err, len))
        return -1;
    if (run_primitive(pl, err, len))
        return -1;
    if (pl->timed_reorders)
        return dn_run_reorders(pl, DN_OUTPUTS_OUT, err, len);
    return 0;
}

static int dn_read_output(void *plan, char *err, size_t len)
{
    dn_plan *pl = plan;
    /* The timed variant already wrote the plain outputs in run(). */
    return pl->timed_reorders ? 0 : dn_run_reorders(pl, DN_OUTPUTS_OUT, err, len);
}

/* Outputs too: both variants keep the primitive's output in `mem`, and a
 * primitive that skipped its work would otherwise hand back the last
 * result instead of the poison. */
static int dn_write_input(void *plan, char *err, size_t len)
{
    return dn_run_reorders(plan, DN_ALL_IN, err, len);
}

static void dn_describe(kb_info *info)
{
    const dnnl_version_t *v = dnnl_version();

    kb_info_add(info, "library", "oneDNN");
    kb_info_add(info, "version", "%d.%d.%d (%s)", v->major, v->minor, v->patch,
                v->hash ? v->hash : "no hash");
    kb_info_add(info, "cpu_runtime", "%s",
                v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
    kb_info_add(info, "isa", "%s", dn_isa_name());
    dnnl_fpmath_mode_t mode;
    bool tf32 = dn_fpmath_mode(KB_FPMATH_TF32, &mode);
    kb_info_add(info, "fpmath", "set on every primitive: strict (f32 stays f32), "
                "or --fpmath %s as the dnnl_fpmath_mode of that name%s",
                tf32 ? "bf16|any|tf32" : "bf16|any",
                tf32 ? "" : "; tf32 SKIPPED (no such mode before oneDNN 3.0)");
}

const kb_backend kb_backend_onednn = {
    .name = "onednn",
    .kind = "vendor",
    .device = "cpu",
    .supports = dn_supports,
    .extra_bytes = dn_extra_bytes,
    .prepare = dn_prepare,
    .run = dn_run,
    .read_output = dn_read_output,
    .write_input = dn_write_input,
    .release = dn_release,
    .describe = dn_describe,
};

const kb_backend kb_backend_onednn_reorder = {
    .name = "onednn_reorder",
    .kind = "vendor",
    .device = "cpu",
    .supports = dn_supports,
    .extra_bytes = dn_extra_bytes,
    .prepare = dn_prepare_reorder,
    .run = dn_run,
    .read_output = dn_read_output,
    .write_input = dn_write_input,
    .release = dn_release,
    .describe = dn_describe,
};
