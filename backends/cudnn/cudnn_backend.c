/* cudnn_backend.c - the `cudnn` backend: convolution forward and
 * batchnorm forward (inference and training) on cuDNN 9, behind
 * backends/backend.h.
 *
 * What every kind shares lives here: what cuDNN is asked for (types,
 * math policy), the handle, the plan's life (device copies of the tensors
 * through gpu_device.h, untimed) and the event timing of its launch.
 * cudnn_conv.c and cudnn_bnorm.c do the rest. */
#include "backends/cudnn/cudnn_internal.h"
#include "backends/gpu/gpu_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cdn_fail(const char *call, cudnnStatus_t s, char *err, size_t len)
{
    char last[160] = "";
    cudnnGetLastErrorString(last, sizeof last);
    if (last[0])
        snprintf(err, len, "%s: %s (%s)", call, cudnnGetErrorString(s), last);
    else
        snprintf(err, len, "%s: %s", call, cudnnGetErrorString(s));
    return -1;
}

/* One handle for the process: cuDNN's set-up is slow, and supports()
 * asks its heuristics before any plan exists.  Made again when --device
 * changes; the process's end frees it. */
static struct {
    cudnnHandle_t h;
    int device;
} handle;

int cdn_handle(cudnnHandle_t *h, char *err, size_t len)
{
    int dev = KB_GPU(config)()->device;
    if (handle.h && handle.device != dev) {
        (void)cudnnDestroy(handle.h);   /* of the old device: nothing to do */
        handle.h = NULL;
    }
    if (!handle.h) {
        cudnnStatus_t s = cudnnCreate(&handle.h);
        if (s != CUDNN_STATUS_SUCCESS) {
            handle.h = NULL;   /* tried again next time */
            return cdn_fail("cudnnCreate", s, err, len);
        }
        handle.device = dev;
    }
    *h = handle.h;
    return 0;
}

cudnnDataType_t cdn_dtype(kb_dtype t)
{
    switch (t) {
    case KB_F64: return CUDNN_DATA_DOUBLE;
    case KB_F16: return CUDNN_DATA_HALF;
    case KB_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
    }
}

/* f16 and bf16 data accumulate in f32 (cuDNN's PSEUDO_HALF and
 * PSEUDO_BFLOAT16 configurations), as kbench's reference does. */
cudnnDataType_t cdn_compute_type(const kb_problem *p)
{
    return p->dt.src == KB_F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

const char *cdn_dtype_name(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: return "CUDNN_DATA_DOUBLE";
    case CUDNN_DATA_HALF: return "CUDNN_DATA_HALF";
    case CUDNN_DATA_BFLOAT16: return "CUDNN_DATA_BFLOAT16";
    case CUDNN_DATA_FLOAT: return "CUDNN_DATA_FLOAT";
    default: return "another cuDNN type";
    }
}

const char *cdn_math_name(cudnnMathType_t m)
{
    switch (m) {
    case CUDNN_DEFAULT_MATH: return "CUDNN_DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "CUDNN_TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
        return "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "CUDNN_FMA_MATH";
    }
    return "unknown math type";
}

/* The math policy, as data: f32 under --fpmath strict is FMA only (no
 * TF32); tf32 and any let cuDNN pick TF32 tensor cores; f64 has no
 * reduced-precision path to rule out; 16-bit data run on tensor cores
 * with f32 accumulation.  (--fpmath bf16 for f32 is SKIPPED: cuDNN has
 * no such mode.) */
static const cdn_math math_f32_strict = {
    CUDNN_FMA_MATH, true, "fp32 FMA only, no TF32 (--fpmath strict): "
    "CUDNN_FMA_MATH, algorithms reporting CUDNN_FMA_MATH"};
static const cdn_math math_f32_tf32 = {
    CUDNN_DEFAULT_MATH, false, "TF32 tensor cores allowed (--fpmath tf32 "
    "or any): CUDNN_DEFAULT_MATH"};
static const cdn_math math_f64 = {
    CUDNN_DEFAULT_MATH, false, "fp64 (CUDNN_DEFAULT_MATH: no reduced "
    "precision exists for it)"};
static const cdn_math math_16bit = {
    CUDNN_TENSOR_OP_MATH, false, "16-bit data on tensor cores, fp32 "
    "accumulation: CUDNN_TENSOR_OP_MATH"};

const cdn_math *cdn_math_of(const kb_problem *p)
{
    switch (p->dt.src) {
    case KB_F64: return &math_f64;
    case KB_F32:
        return p->fpmath == KB_FPMATH_STRICT ? &math_f32_strict
                                             : &math_f32_tf32;
    default: return &math_16bit;
    }
}

static bool cdn_supports(const kb_problem *p, char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return false;
    if (p->kind == KB_GEMM) {
        snprintf(why, len, "cudnn: conv and bnorm (GEMM runs on cublas)");
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "cudnn: forward passes only, not %s (its "
                 "backward calls are not wired up)", kb_dir_name(p->dir));
        return false;
    }
    if (p->dt.src != p->dt.wei || p->dt.src != p->dt.dst) {
        char dts[32];
        kb_dts_format(&p->dt, dts, sizeof dts);
        snprintf(why, len, "cudnn: one data type for every tensor (x, w "
                 "and y alike), not %s", dts);
        return false;
    }
    if (p->dt.src == KB_F32 && p->fpmath == KB_FPMATH_BF16) {
        snprintf(why, len, "cudnn: no math type rounds f32 to bf16 "
                 "(--fpmath bf16); it has FMA and TF32 tensor ops");
        return false;
    }
    char err[256];
    int rc = p->kind == KB_CONV ? cdn_conv_check(p, err, sizeof err)
                                : cdn_bnorm_check(p, err, sizeof err);
    if (rc == CDN_UNSUPPORTED) {
        snprintf(why, len, "%s", err);
        return false;
    }
    /* a failed call is prepare()'s to report, as an ERROR */
    return true;
}

/* Tensors, and the workspace a convolution may have. */
static size_t cdn_device_bytes(const kb_problem *p)
{
    size_t t = kb_problem_tensor_bytes(p);
    size_t extra = p->kind == KB_CONV ? cdn_conv_workspace_cap(p) : 0;
    return t > SIZE_MAX - extra ? SIZE_MAX : t + extra;
}

static void cdn_release(void *plan)
{
    cdn_plan *pl = plan;
    if (!pl)
        return;
    if (pl->p->kind == KB_CONV)
        cdn_conv_release(pl);
    else
        cdn_bnorm_release(pl);
    KB_GPU(tensors_free)(&pl->d);
    free(pl);
}

static int cdn_prepare(const kb_problem *p, const kb_tensors *host,
                      void **plan, char *err, size_t len)
{
    cdn_plan *pl = calloc(1, sizeof *pl);
    if (!pl) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    pl->p = p;
    pl->math = cdn_math_of(p);
    pl->launches = KB_GPU(plan_launches)(p);
    /* alpha = 1, beta = 0: cuDNN scales in double for double data, else
     * in float */
    if (p->dt.src == KB_F64) {
        pl->one.d = 1.0;
        pl->zero.d = 0.0;
    } else {
        pl->one.f = 1.0f;
        pl->zero.f = 0.0f;
    }
    /* bnorm training keeps VAR itself (cudnn_bnorm.c) */
    unsigned manage = p->kind == KB_BNORM && p->dir == KB_FWD_D
                          ? ~(1u << KB_ARG_VAR) : ~0u;
    int rc = cdn_handle(&pl->handle, err, len);
    if (rc == 0)
        rc = KB_GPU(tensors_alloc)(p, host, manage, &pl->d, err, len);
    if (rc == 0)
        rc = p->kind == KB_CONV ? cdn_conv_prepare(pl, err, len)
                                : cdn_bnorm_prepare(pl, err, len);
    if (rc != 0) {
        cdn_release(pl);
        return -1;
    }
    *plan = pl;
    return 0;
}

/* One launch of the plan (kb_gpu_launch_fn). */
static int cdn_launch(void *ctx, char *err, size_t len)
{
    cdn_plan *pl = ctx;
    return pl->p->kind == KB_CONV ? cdn_conv_launch(pl, err, len)
                                  : cdn_bnorm_launch(pl, err, len);
}

static int cdn_run(void *plan, double *elapsed, char *err, size_t len)
{
    cdn_plan *pl = plan;
    return KB_GPU(time_launches)(cdn_launch, pl, pl->launches, elapsed, err,
                                 len);
}

static int cdn_read_output(void *plan, char *err, size_t len)
{
    cdn_plan *pl = plan;
    if (KB_GPU(tensors_download)(&pl->d, err, len) != 0)
        return -1;
    return pl->p->kind == KB_BNORM ? cdn_bnorm_read_output(pl, err, len) : 0;
}

static int cdn_write_input(void *plan, char *err, size_t len)
{
    cdn_plan *pl = plan;
    if (KB_GPU(tensors_upload)(&pl->d, true, err, len) != 0)
        return -1;
    return pl->p->kind == KB_BNORM ? cdn_bnorm_write_input(pl, err, len) : 0;
}

/* cuDNN encodes its version as major * 10000 + minor * 100 + patch, the
 * CUDA runtime's as major * 1000 + minor * 10. */
static void cdn_describe(kb_info *info)
{
    size_t v = cudnnGetVersion(), rt = cudnnGetCudartVersion();
    kb_info_add(info, "library", "cuDNN %zu.%zu.%zu (cudnnGetVersion; built "
                "against %d.%d.%d), for CUDA %zu.%zu", v / 10000,
                v / 100 % 100, v % 100, CUDNN_MAJOR, CUDNN_MINOR,
                CUDNN_PATCHLEVEL, rt / 1000, rt % 1000 / 10);
    kb_info_add(info, "math", "f32: CUDNN_FMA_MATH and only FMA algorithms, "
                "no TF32, unless --fpmath tf32|any (CUDNN_DEFAULT_MATH); "
                "f16/bf16: CUDNN_TENSOR_OP_MATH, fp32 accumulation");
    KB_GPU(describe)(info);
}

static void cdn_plan_info(void *plan, kb_info *info)
{
    cdn_plan *pl = plan;
    if (pl->p->kind == KB_CONV)
        cdn_conv_info(pl, info);
    else
        cdn_bnorm_info(pl, info);
    KB_GPU(math_env_info)(info);
    KB_GPU(timing_info)(pl->launches, info);
}

const kb_backend kb_backend_cudnn = {
    .name = "cudnn",
    .kind = "vendor",
    .device = KB_GPU_NAME,
    .supports = cdn_supports,
    .prepare = cdn_prepare,
    .run = cdn_run,
    .read_output = cdn_read_output,
    .write_input = cdn_write_input,
    .release = cdn_release,
    .describe = cdn_describe,
    .configure = KB_GPU(configure),   /* no named tunings: --tuning is not
                                         for it */
    .device_bytes = cdn_device_bytes,
    .device_free = KB_GPU(device_free),
    .plan_info = cdn_plan_info,
};
