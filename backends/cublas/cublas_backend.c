/* cublas_backend.c - the `cublas` backend: kbench's GEMM on cuBLAS's
 * cublasGemmEx, in f32, f64, f16, bf16, f16:f16:f32 and bf16:bf16:f32.
 *
 * prepare() makes a handle, its workspace and the device copies of the
 * tensors (uploaded untimed, gpu_device.h); run() times the call with
 * events.  f32 stays f32 (CUBLAS_COMPUTE_32F under CUBLAS_DEFAULT_MATH,
 * which never rounds inputs to TF32) unless --fpmath allows less. */
#include "backends/gpu/gpu_device.h"
#include "backends/gpu/gpu_registry.h"
#include "backends/gpu/blas_geometry.h"

#include <cublas_v2.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* cuBLAS's own workspace, given to it so that device_bytes is exact:
 * NVIDIA's recommended size for Hopper (smaller is enough elsewhere). */
#define CB_WORKSPACE_BYTES ((size_t)32 << 20)

/* The storage types cublasGemmEx takes (A and B alike), as data. */
typedef struct {
    kb_dts dt;
    cudaDataType ab, c;
    const char *ab_name, *c_name;
} cb_types;

static const cb_types types[] = {
    {{KB_F32, KB_F32, KB_F32}, CUDA_R_32F, CUDA_R_32F, "CUDA_R_32F", "CUDA_R_32F"},
    {{KB_F64, KB_F64, KB_F64}, CUDA_R_64F, CUDA_R_64F, "CUDA_R_64F", "CUDA_R_64F"},
    {{KB_F16, KB_F16, KB_F16}, CUDA_R_16F, CUDA_R_16F, "CUDA_R_16F", "CUDA_R_16F"},
    {{KB_F16, KB_F16, KB_F32}, CUDA_R_16F, CUDA_R_32F, "CUDA_R_16F", "CUDA_R_32F"},
    {{KB_BF16, KB_BF16, KB_BF16}, CUDA_R_16BF, CUDA_R_16BF, "CUDA_R_16BF", "CUDA_R_16BF"},
    {{KB_BF16, KB_BF16, KB_F32}, CUDA_R_16BF, CUDA_R_32F, "CUDA_R_16BF", "CUDA_R_32F"},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* The compute type and what it means for the record. */
typedef struct {
    cublasComputeType_t type;
    const char *name;
    const char *math;
} cb_compute;

/* f32 problems, by --fpmath: strict is f32 arithmetic; the others let
 * cuBLAS round the inputs for its tensor cores. */
static const cb_compute f32_compute[] = {
    [KB_FPMATH_STRICT] = {CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F",
                          "fp32 FMA, no TF32 (--fpmath strict)"},
    [KB_FPMATH_TF32] = {CUBLAS_COMPUTE_32F_FAST_TF32,
                        "CUBLAS_COMPUTE_32F_FAST_TF32",
                        "TF32 tensor cores allowed (--fpmath tf32)"},
    [KB_FPMATH_BF16] = {CUBLAS_COMPUTE_32F_FAST_16BF,
                        "CUBLAS_COMPUTE_32F_FAST_16BF",
                        "inputs may be rounded to bf16 (--fpmath bf16)"},
    [KB_FPMATH_ANY] = {CUBLAS_COMPUTE_32F_FAST_TF32,
                       "CUBLAS_COMPUTE_32F_FAST_TF32",
                       "TF32 tensor cores allowed (--fpmath any)"},
};
static const cb_compute f64_compute = {CUBLAS_COMPUTE_64F, "CUBLAS_COMPUTE_64F",
                                       "fp64 (DMMA or FMA), no emulation"};
static const cb_compute low_compute = {CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F",
                                       "16-bit inputs on tensor cores, fp32 "
                                       "accumulation"};

/* Every call keeps its reductions in the compute type: a split-K GEMM
 * with a 16-bit C may otherwise sum its partial results in 16 bits. */
#define CB_MATH_MODE (CUBLAS_DEFAULT_MATH | \
                      CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)

typedef struct {
    const kb_problem *p;
    kb_gpu_tensors d;
    cublasHandle_t handle;     /* NULL until created */
    void *workspace;
    const cb_types *ty;
    const cb_compute *comp;
    kb_blas_geometry geo;
    union {
        float f;
        double d;
    } alpha, beta;             /* the compute type's scalars */
    int launches;
} cb_plan;

/* "cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested
 * is not supported)".  Returns -1. */
static int cb_fail(const char *call, cublasStatus_t s, char *err, size_t len)
{
    snprintf(err, len, "%s: %s (%s)", call, cublasGetStatusName(s),
             cublasGetStatusString(s));
    return -1;
}

/* Check a cuBLAS call named `what`; on failure fill err and return -1
 * from the enclosing function. */
#define CB_TRY(what, call, err, len)                                      \
    do {                                                                  \
        cublasStatus_t cb_s_ = (call);                                    \
        if (cb_s_ != CUBLAS_STATUS_SUCCESS)                               \
            return cb_fail((what), cb_s_, (err), (len));                  \
    } while (0)

static const cb_types *types_of(const kb_dts *dt)
{
    for (int i = 0; i < NTYPES; i++)
        if (types[i].dt.src == dt->src && types[i].dt.wei == dt->wei &&
            types[i].dt.dst == dt->dst)
            return &types[i];
    return NULL;
}

static const cb_compute *compute_of(const kb_problem *p)
{
    if (p->dt.src == KB_F64)
        return &f64_compute;
    if (p->dt.src == KB_F32)
        return &f32_compute[p->fpmath];
    return &low_compute;
}

/* cuBLAS's bf16 GEMMs need Ampere or later.  Returns false with why. */
static bool device_has_bf16(char *why, size_t len)
{
    int dev = KB_GPU(config)()->device, major = 0, minor = 0;
    gpuError_t e = gpuDeviceGetAttribute(&major,
                                         gpuDevAttrComputeCapabilityMajor, dev);
    if (e == gpuSuccess)
        e = gpuDeviceGetAttribute(&minor, gpuDevAttrComputeCapabilityMinor,
                                  dev);
    if (e != gpuSuccess) {
        KB_GPU(fail)("gpuDeviceGetAttribute(compute capability)", e, why,
                     len);
        return false;
    }
    if (major < 8) {
        snprintf(why, len, "cublas: bf16 GEMMs need compute capability 8.0 "
                 "or later, the device has %d.%d", major, minor);
        return false;
    }
    return true;
}

static bool cb_supports(const kb_problem *p, char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return false;
    if (p->kind != KB_GEMM) {
        snprintf(why, len, "cublas: GEMM only (conv and bnorm run on cudnn)");
        return false;
    }
    if (!types_of(&p->dt)) {
        char dts[32];
        kb_dts_format(&p->dt, dts, sizeof dts);
        snprintf(why, len, "cublas: cublasGemmEx takes f32, f64, f16, bf16, "
                 "f16:f16:f32 and bf16:bf16:f32, not %s", dts);
        return false;
    }
    const kb_gemm_desc *g = &p->gemm;
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX) {
        snprintf(why, len, "cublas: M=%lld N=%lld K=%lld: cublasGemmEx's "
                 "sizes are int", (long long)g->m, (long long)g->n,
                 (long long)g->k);
        return false;
    }
    if (kb_dts_has(&p->dt, KB_BF16) && !device_has_bf16(why, len))
        return false;
    return true;
}

static size_t cb_device_bytes(const kb_problem *p)
{
    size_t t = kb_problem_tensor_bytes(p);
    return t > SIZE_MAX - CB_WORKSPACE_BYTES ? SIZE_MAX
                                             : t + CB_WORKSPACE_BYTES;
}

static void cb_release(void *plan)
{
    cb_plan *c = plan;
    if (!c)
        return;
    if (c->handle)
        (void)cublasDestroy(c->handle);   /* nothing to do about a failure */
    KB_GPU(free)(c->workspace);
    KB_GPU(tensors_free)(&c->d);
    free(c);
}

/* The handle on the selected device, with the math mode pinned and its
 * workspace ours.  Returns 0, or -1 with err. */
static int make_handle(cb_plan *c, char *err, size_t len)
{
    cublasStatus_t s = cublasCreate(&c->handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
        c->handle = NULL;   /* nothing for release to destroy */
        return cb_fail("cublasCreate", s, err, len);
    }
    CB_TRY("cublasSetMathMode", cublasSetMathMode(c->handle, CB_MATH_MODE),
           err, len);
    if (KB_GPU(alloc)(&c->workspace, CB_WORKSPACE_BYTES, err, len) != 0)
        return -1;
    CB_TRY("cublasSetWorkspace",
           cublasSetWorkspace(c->handle, c->workspace, CB_WORKSPACE_BYTES),
           err, len);
    return 0;
}

static int cb_prepare(const kb_problem *p, const kb_tensors *host,
                      void **plan, char *err, size_t len)
{
    cb_plan *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    c->p = p;
    c->ty = types_of(&p->dt);
    if (!c->ty) {   /* supports() says why */
        snprintf(err, len, "cublas: no cublasGemmEx types for this problem");
        free(c);
        return -1;
    }
    c->comp = compute_of(p);
    c->launches = KB_GPU(plan_launches)(p);
    kb_blas_geometry_of(&p->gemm, &c->geo);
    if (c->comp->type == CUBLAS_COMPUTE_64F) {
        c->alpha.d = p->gemm.alpha;
        c->beta.d = p->gemm.beta;
    } else {
        c->alpha.f = (float)p->gemm.alpha;
        c->beta.f = (float)p->gemm.beta;
    }
    if (make_handle(c, err, len) != 0 ||
        KB_GPU(tensors_alloc)(p, host, ~0u, &c->d, err, len) != 0 ||
        KB_GPU(tensors_upload)(&c->d, true, err, len) != 0) {
        cb_release(c);
        return -1;
    }
    *plan = c;
    return 0;
}

static cublasOperation_t op(bool trans)
{
    return trans ? CUBLAS_OP_T : CUBLAS_OP_N;
}

/* One cublasGemmEx (kb_gpu_launch_fn): C^T = op(B)^T op(A)^T. */
static int cb_launch(void *ctx, char *err, size_t len)
{
    cb_plan *c = ctx;
    const kb_blas_geometry *g = &c->geo;
    CB_TRY("cublasGemmEx",
           cublasGemmEx(c->handle, op(g->trans_first), op(g->trans_second),
                        (int)g->m, (int)g->n, (int)g->k, &c->alpha,
                        c->d.dev[g->first], c->ty->ab, (int)g->ld_first,
                        c->d.dev[g->second], c->ty->ab, (int)g->ld_second,
                        &c->beta, c->d.dev[KB_ARG_DST], c->ty->c,
                        (int)g->ldc, c->comp->type, CUBLAS_GEMM_DEFAULT),
           err, len);
    return 0;
}

static int cb_run(void *plan, double *elapsed, char *err, size_t len)
{
    cb_plan *c = plan;
    return KB_GPU(time_launches)(cb_launch, c, c->launches, elapsed, err,
                                 len);
}

static int cb_read_output(void *plan, char *err, size_t len)
{
    cb_plan *c = plan;
    return KB_GPU(tensors_download)(&c->d, err, len);
}

static int cb_write_input(void *plan, char *err, size_t len)
{
    cb_plan *c = plan;
    return KB_GPU(tensors_upload)(&c->d, true, err, len);
}

static void cb_describe(kb_info *info)
{
    int v[3];
    static const libraryPropertyType prop[3] = {MAJOR_VERSION, MINOR_VERSION,
                                                PATCH_LEVEL};
    for (int i = 0; i < 3; i++)
        if (cublasGetProperty(prop[i], &v[i]) != CUBLAS_STATUS_SUCCESS)
            v[i] = -1;
    kb_info_add(info, "library", "cuBLAS %d.%d.%d (cublasGetProperty; built "
                "against %d.%d.%d)", v[0], v[1], v[2], CUBLAS_VER_MAJOR,
                CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
    kb_info_add(info, "math", "f32: CUBLAS_COMPUTE_32F under "
                "CUBLAS_DEFAULT_MATH, no TF32, unless --fpmath tf32|bf16|any; "
                "f16/bf16: fp32 accumulation, no reduced-precision "
                "reductions");
    KB_GPU(describe)(info);
}

static void cb_plan_info(void *plan, kb_info *info)
{
    cb_plan *c = plan;
    const kb_blas_geometry *g = &c->geo;
    kb_info_add(info, "algorithm", "cublasGemmEx, CUBLAS_GEMM_DEFAULT "
                "(cuBLAS's heuristic)");
    kb_info_add(info, "call", "C^T = op(B)^T op(A)^T column-major: "
                "op(B)=%c op(A)=%c m=%lld n=%lld k=%lld ldb=%lld lda=%lld "
                "ldc=%lld", g->trans_first ? 'T' : 'N',
                g->trans_second ? 'T' : 'N', (long long)g->m,
                (long long)g->n, (long long)g->k, (long long)g->ld_first,
                (long long)g->ld_second, (long long)g->ldc);
    kb_info_add(info, "types", "A and B %s, C %s", c->ty->ab_name,
                c->ty->c_name);
    kb_info_add(info, "compute_type", "%s", c->comp->name);
    kb_info_add(info, "math", "%s; CUBLAS_DEFAULT_MATH | "
                "CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION",
                c->comp->math);
    kb_info_add(info, "workspace_bytes", "%zu (cublasSetWorkspace)",
                CB_WORKSPACE_BYTES);
    KB_GPU(math_env_info)(info);
    KB_GPU(timing_info)(c->launches, info);
}

const kb_backend kb_backend_cublas = {
    .name = "cublas",
    .kind = "vendor",
    .device = KB_GPU_NAME,
    .supports = cb_supports,
    .prepare = cb_prepare,
    .run = cb_run,
    .read_output = cb_read_output,
    .write_input = cb_write_input,
    .release = cb_release,
    .describe = cb_describe,
    .configure = KB_GPU(configure),   /* no named tunings: --tuning is not
                                         for it */
    .device_bytes = cb_device_bytes,
    .device_free = KB_GPU(device_free),
    .plan_info = cb_plan_info,
};
