/* rocblas_backend.c - the `rocblas` backend: kbench's GEMM on rocBLAS's
 * rocblas_gemm_ex, over the HIP runtime layer (gpu_device.h).
 *
 * prepare() uploads every tensor (untimed) and makes the plan's handle;
 * run() times rocblas_gemm_ex with events; read_output() downloads dst.
 * kbench's row-major GEMM is the column-major call with the operands
 * swapped (backends/gpu/blas_geometry.h, shared with cublas).
 * Only compiled where CMake finds rocBLAS: written against its
 * documented C API, not built on Debian 12. */
#include "backends/gpu/gpu_device.h"
#include "backends/gpu/gpu_registry.h"
/* the row-major to column-major mapping cuBLAS uses too: plain C */
#include "backends/gpu/blas_geometry.h"

#include <rocblas/rocblas.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* One precision rocblas_gemm_ex takes (its documented type table):
 * kbench's a = b and dst types, and what rocBLAS calls them. */
typedef struct {
    kb_dtype ab, c;
    rocblas_datatype ab_type;
    const char *ab_name;
    rocblas_datatype c_type;
    const char *c_name;
    rocblas_datatype compute;
    const char *compute_name;
} rb_precision;

#define RB_F16 rocblas_datatype_f16_r, "rocblas_datatype_f16_r"
#define RB_BF16 rocblas_datatype_bf16_r, "rocblas_datatype_bf16_r"
#define RB_F32 rocblas_datatype_f32_r, "rocblas_datatype_f32_r"
#define RB_F64 rocblas_datatype_f64_r, "rocblas_datatype_f64_r"
static const rb_precision precisions[] = {
    /* f32 computes in f32, f64 in f64, the 16-bit types in f32 */
    {KB_F32, KB_F32, RB_F32, RB_F32, RB_F32},
    {KB_F64, KB_F64, RB_F64, RB_F64, RB_F64},
    {KB_F16, KB_F16, RB_F16, RB_F16, RB_F32},
    {KB_F16, KB_F32, RB_F16, RB_F32, RB_F32},
    {KB_BF16, KB_BF16, RB_BF16, RB_BF16, RB_F32},
    {KB_BF16, KB_F32, RB_BF16, RB_F32, RB_F32},
};
#undef RB_F16
#undef RB_BF16
#undef RB_F32
#undef RB_F64

static const rb_precision *precision_of(const kb_problem *p)
{
    if (p->dt.src != p->dt.wei)
        return NULL;
    for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++)
        if (precisions[i].ab == p->dt.src && precisions[i].c == p->dt.dst)
            return &precisions[i];
    return NULL;
}

typedef struct {
    const kb_problem *p;
    kb_gpu_tensors d;
    rocblas_handle h;          /* NULL until created */
    const rb_precision *prec;
    kb_blas_geometry cm;
    float alpha_f, beta_f;     /* the scalars in the compute type */
    double alpha_d, beta_d;
    int launches;
} rb_plan;

/* A failed rocBLAS call, named, with rocBLAS's spelling of the status. */
static int rb_check(rocblas_status s, const char *call, char *err,
                    size_t len)
{
    if (s == rocblas_status_success)
        return 0;
    snprintf(err, len, "%s: %s", call, rocblas_status_to_string(s));
    return -1;
}

static bool rb_supports(const kb_problem *p, char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return false;
    if (p->kind != KB_GEMM) {
        snprintf(why, len, "rocblas: GEMM only (conv and bnorm run on "
                 "miopen)");
        return false;
    }
    if (!precision_of(p)) {
        char dts[32];
        kb_dts_format(&p->dt, dts, sizeof dts);
        snprintf(why, len, "rocblas: rocblas_gemm_ex takes f32, f64, and "
                 "f16 or bf16 inputs with an output of the same type or "
                 "f32, not %s", dts);
        return false;
    }
    if (p->fpmath != KB_FPMATH_STRICT && p->fpmath != KB_FPMATH_ANY) {
        snprintf(why, len, "rocblas: computes f32 in f32; --fpmath %s asks "
                 "for a reduced-precision path this backend does not "
                 "enable (rocBLAS's xf32 math mode)",
                 kb_fpmath_name(p->fpmath));
        return false;
    }
    kb_blas_geometry cm;
    kb_blas_geometry_of(&p->gemm, &cm);
    const struct { const char *name; int64_t v; } sizes[] = {
        {"M", p->gemm.m}, {"N", p->gemm.n}, {"K", p->gemm.k},
        {"lda", cm.ld_first}, {"ldb", cm.ld_second}, {"ldc", cm.ldc}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].v > INT_MAX) {
            snprintf(why, len, "rocblas: %s = %lld is past rocblas_int "
                     "(32-bit)", sizes[i].name, (long long)sizes[i].v);
            return false;
        }
    return true;
}

/* a, b and c on the device; rocBLAS's own workspace lives in the
 * handle and is not counted. */
static size_t rb_device_bytes(const kb_problem *p)
{
    return kb_problem_tensor_bytes(p);
}

static void rb_release(void *plan)
{
    rb_plan *r = plan;
    if (!r)
        return;
    if (r->h)
        (void)rocblas_destroy_handle(r->h);   /* nothing to do about it */
    KB_GPU(tensors_free)(&r->d);
    free(r);
}

/* The handle: on the default stream, where time_launches records its
 * events, with the scalars read from the host. */
static int make_handle(rb_plan *r, char *err, size_t len)
{
    if (rb_check(rocblas_create_handle(&r->h), "rocblas_create_handle", err,
                 len) != 0) {
        r->h = NULL;
        return -1;
    }
    if (rb_check(rocblas_set_stream(r->h, 0), "rocblas_set_stream", err,
                 len) != 0 ||
        rb_check(rocblas_set_pointer_mode(r->h, rocblas_pointer_mode_host),
                 "rocblas_set_pointer_mode", err, len) != 0)
        return -1;
    return 0;
}

static int rb_prepare(const kb_problem *p, const kb_tensors *host,
                      void **plan, char *err, size_t len)
{
    rb_plan *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    r->p = p;
    r->prec = precision_of(p);
    if (!r->prec) {   /* supports() says why */
        snprintf(err, len, "rocblas: no rocblas_gemm_ex types for this "
                 "problem");
        free(r);
        return -1;
    }
    kb_blas_geometry_of(&p->gemm, &r->cm);
    r->alpha_f = (float)p->gemm.alpha;
    r->beta_f = (float)p->gemm.beta;
    r->alpha_d = p->gemm.alpha;
    r->beta_d = p->gemm.beta;
    r->launches = KB_GPU(plan_launches)(p);
    /* dst goes up too: C when beta != 0, else the driver's poison */
    if (KB_GPU(tensors_alloc)(p, host, ~0u, &r->d, err, len) != 0 ||
        KB_GPU(tensors_upload)(&r->d, true, err, len) != 0 ||
        make_handle(r, err, len) != 0) {
        rb_release(r);
        return -1;
    }
    *plan = r;
    return 0;
}

static rocblas_operation op(bool trans)
{
    return trans ? rocblas_operation_transpose : rocblas_operation_none;
}

/* One rocblas_gemm_ex (kb_gpu_launch_fn): dst is both C and D. */
static int launch(void *ctx, char *err, size_t len)
{
    rb_plan *r = ctx;
    const kb_blas_geometry *c = &r->cm;
    const bool f64 = r->prec->compute == rocblas_datatype_f64_r;
    const void *alpha = f64 ? (const void *)&r->alpha_d : (const void *)&r->alpha_f;
    const void *beta = f64 ? (const void *)&r->beta_d : (const void *)&r->beta_f;
    return rb_check(
        rocblas_gemm_ex(r->h, op(c->trans_first), op(c->trans_second),
                        (rocblas_int)c->m, (rocblas_int)c->n, (rocblas_int)c->k,
                        alpha, r->d.dev[c->first], r->prec->ab_type,
                        (rocblas_int)c->ld_first, r->d.dev[c->second],
                        r->prec->ab_type, (rocblas_int)c->ld_second, beta,
                        r->d.dev[KB_ARG_DST], r->prec->c_type,
                        (rocblas_int)c->ldc, r->d.dev[KB_ARG_DST],
                        r->prec->c_type, (rocblas_int)c->ldc,
                        r->prec->compute, rocblas_gemm_algo_standard, 0,
                        rocblas_gemm_flags_none),
        "rocblas_gemm_ex", err, len);
}

static int rb_run(void *plan, double *elapsed, char *err, size_t len)
{
    rb_plan *r = plan;
    return KB_GPU(time_launches)(launch, r, r->launches, elapsed, err, len);
}

static int rb_read_output(void *plan, char *err, size_t len)
{
    rb_plan *r = plan;
    return KB_GPU(tensors_download)(&r->d, err, len);
}

static int rb_write_input(void *plan, char *err, size_t len)
{
    rb_plan *r = plan;
    return KB_GPU(tensors_upload)(&r->d, true, err, len);
}

static void rb_describe(kb_info *info)
{
    char v[128];
    size_t need = 0;
    if (rocblas_get_version_string_size(&need) == rocblas_status_success &&
        need <= sizeof v &&
        rocblas_get_version_string(v, sizeof v) == rocblas_status_success)
        kb_info_add(info, "library", "rocBLAS %s", v);
    else
        kb_info_add(info, "library", "rocBLAS (rocblas_get_version_string "
                    "failed)");
    kb_info_add(info, "math", "f32: rocblas_datatype_f32_r compute under "
                "rocblas_default_math, no xf32; f16/bf16: f32 compute");
    KB_GPU(describe)(info);
}

static void rb_plan_info(void *plan, kb_info *info)
{
    rb_plan *r = plan;
    const kb_blas_geometry *g = &r->cm;
    kb_info_add(info, "algorithm", "rocblas_gemm_ex, "
                "rocblas_gemm_algo_standard (solution index 0: rocBLAS's "
                "own choice)");
    kb_info_add(info, "call", "C^T = op(B)^T op(A)^T column-major: "
                "op(B)=%c op(A)=%c m=%lld n=%lld k=%lld ldb=%lld lda=%lld "
                "ldc=%lld", g->trans_first ? 'T' : 'N',
                g->trans_second ? 'T' : 'N', (long long)g->m,
                (long long)g->n, (long long)g->k, (long long)g->ld_first,
                (long long)g->ld_second, (long long)g->ldc);
    kb_info_add(info, "types", "A and B %s, C %s", r->prec->ab_name,
                r->prec->c_name);
    kb_info_add(info, "compute_type", "%s", r->prec->compute_name);
    kb_info_add(info, "math", "%s; rocblas_gemm_flags_none (no "
                "fp16_alt_impl); the math mode of a new handle, "
                "rocblas_default_math (xf32 is never set)",
                r->prec->compute == rocblas_datatype_f64_r
                    ? "fp64"
                    : r->prec->ab == KB_F32 ? "fp32 FMA or fp32 matrix "
                                              "instructions, no xf32"
                                            : "16-bit inputs, fp32 "
                                              "accumulation");
    kb_info_add(info, "workspace", "rocBLAS's own, allocated with the "
                "handle (kbench sets none)");
    KB_GPU(math_env_info)(info);
    KB_GPU(timing_info)(r->launches, info);
}

const kb_backend kb_backend_rocblas = {
    .name = "rocblas",
    .kind = "vendor",
    .device = KB_GPU_NAME,
    .supports = rb_supports,
    .prepare = rb_prepare,
    .run = rb_run,
    .read_output = rb_read_output,
    .write_input = rb_write_input,
    .release = rb_release,
    .describe = rb_describe,
    .configure = KB_GPU(configure),   /* no named tunings: --tuning is not
                                         for it */
    .device_bytes = rb_device_bytes,
    .device_free = KB_GPU(device_free),
    .plan_info = rb_plan_info,
};
