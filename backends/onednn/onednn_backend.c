/* onednn_backend.c - the oneDNN (DNNL 2.x C API) backend: convolution,
 * matmul and batch normalization, in two variants.
 *
 * `onednn` lets each primitive pick its preferred memory format
 * (format_tag any) and converts inputs in prepare() and outputs in
 * read_output(), outside the timing: the cost of the kernel alone.
 * `onednn_reorder` runs the same primitive but times the reorders from and
 * to the plain layouts too (inputs, weights and outputs): the cost a
 * caller holding NCHW data pays on every call. */
#include "onednn_backend.h"
#include "onednn_internal.h"

#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <stdlib.h>

int dn_check(dnnl_status_t s, const char *what, char *err, size_t len)
{
    if (s == dnnl_success)
        return 0;
    snprintf(err, len, "oneDNN %s: %s", what, dnnl_status2str(s));
    return -1;
}

int dn_engine(dnnl_engine_t *eng, dnnl_stream_t *strm, char *err, size_t len)
{
    /* One engine and stream for the process: creating them per problem
     * would re-detect the CPU every time.  They live until exit. */
    static dnnl_engine_t engine;
    static dnnl_stream_t stream;

    if (!engine) {
        if (dn_check(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine_create",
                     err, len))
            return -1;
        if (dn_check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
                     "stream_create", err, len)) {
            dnnl_engine_destroy(engine);
            engine = NULL;
            return -1;
        }
    }
    *eng = engine;
    *strm = stream;
    return 0;
}

/* A reorder primitive from one layout to another.  Returns 0, or -1 with
 * err. */
static int make_reorder(dnnl_primitive_t *r, const dnnl_memory_desc_t *from,
                        const dnnl_memory_desc_t *to, dnnl_engine_t eng,
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

int dn_bind(dn_plan *pl, kb_arg a, int dnnl_arg, const dnnl_memory_desc_t *user_md,
            void *ptr, const dnnl_memory_desc_t *want, bool output,
            char *err, size_t len)
{
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dn_tensor *t = &pl->t[a];

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    t->output = output;
    t->dnnl_arg = dnnl_arg;
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
    return output ? make_reorder(&t->to_user, want, user_md, eng, err, len) : 0;
}

int dn_create_primitive(dn_plan *pl, dnnl_primitive_desc_t pd, char *err,
                        size_t len)
{
    int rc = dn_check(dnnl_primitive_create(&pl->prim, pd), "primitive_create",
                      err, len);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

/* Which reorders run_reorders runs. */
typedef enum {
    DN_INPUTS_IN,    /* inputs, plain -> preferred: before the primitive */
    DN_ALL_IN,       /* every tensor, plain -> preferred: write_input */
    DN_OUTPUTS_OUT,  /* outputs, preferred -> plain: after the primitive */
} dn_reorders;

static int run_reorders(dn_plan *pl, dn_reorders which, char *err, size_t len)
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

static bool dn_supports(const kb_problem *p, char *why, size_t len)
{
    if (!kb_dts_all(&p->dt, KB_F32)) {
        char dt[32];
        kb_dts_format(&p->dt, dt, sizeof dt);
        snprintf(why, len, "the onednn backend implements f32 only, not %s", dt);
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "the onednn backend has no %s pass",
                 kb_dir_name(p->dir));
        return false;
    }
    return true;
}

/* Convolutions keep a copy of each tensor in oneDNN's blocked format,
 * whose channels are padded to the block (16 on AVX-512): twice the plain
 * size bounds that for all but the thinnest inputs.  Matmul and batchnorm
 * use the plain buffers. */
static size_t dn_extra_bytes(const kb_problem *p)
{
    return p->kind == KB_CONV ? 2 * kb_problem_tensor_bytes(p) : 0;
}

static void dn_release(void *plan)
{
    dn_plan *pl = plan;
    if (!pl)
        return;
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
    }
    if (pl->prim)
        dnnl_primitive_destroy(pl->prim);
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
    switch (p->kind) {
    case KB_CONV: rc = dn_build_conv(pl, host, err, len); break;
    case KB_GEMM: rc = dn_build_matmul(pl, host, err, len); break;
    default: rc = dn_build_bnorm(pl, host, err, len); break;
    }
    /* The untimed variant converts its inputs once, here. */
    if (rc == 0 && !timed_reorders)
        rc = run_reorders(pl, DN_INPUTS_IN, err, len);
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
    if (pl->timed_reorders && run_reorders(pl, DN_INPUTS_IN, err, len))
        return -1;
    if (run_primitive(pl, err, len))
        return -1;
    if (pl->timed_reorders)
        return run_reorders(pl, DN_OUTPUTS_OUT, err, len);
    return 0;
}

static int dn_read_output(void *plan, char *err, size_t len)
{
    dn_plan *pl = plan;
    /* The timed variant already wrote the plain outputs in run(). */
    return pl->timed_reorders ? 0 : run_reorders(pl, DN_OUTPUTS_OUT, err, len);
}

/* Outputs too: both variants keep the primitive's output in `mem`, and a
 * primitive that skipped its work would otherwise hand back the last
 * result instead of the poison. */
static int dn_write_input(void *plan, char *err, size_t len)
{
    return run_reorders(plan, DN_ALL_IN, err, len);
}

static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "all";
    }
}

static void dn_describe(kb_info *info)
{
    const dnnl_version_t *v = dnnl_version();

    kb_info_add(info, "library", "oneDNN");
    kb_info_add(info, "version", "%d.%d.%d (%s)", v->major, v->minor, v->patch,
                v->hash ? v->hash : "no hash");
    kb_info_add(info, "cpu_runtime", "%s",
                v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
    kb_info_add(info, "isa", "%s", isa_name(dnnl_get_effective_cpu_isa()));
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
