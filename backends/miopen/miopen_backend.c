/* miopen_backend.c - the `miopen` backend: kbench's forward convolution
 * (2D and 3D) and batchnorm forward (inference and training) on MIOpen,
 * over the HIP runtime layer (gpu_device.h).
 *
 * prepare() uploads every tensor (untimed; an NHWC convolution's
 * weights reordered channels-last first), makes the handle and one
 * descriptor per tensor, then the kind's own setup (miopen_conv.c: the
 * find step MIOpen requires before a convolution runs; miopen_bnorm.c);
 * run() times the calls with events; read_output() downloads the
 * outputs.  Only compiled where CMake finds MIOpen: written against its
 * documented C API, not built on Debian 12. */
#include "backends/gpu/gpu_registry.h"
#include "backends/miopen/miopen_internal.h"

#include <stdio.h>
#include <stdlib.h>

int mi_check(miopenStatus_t s, const char *call, char *err, size_t len)
{
    if (s == miopenStatusSuccess)
        return 0;
    snprintf(err, len, "%s: %s", call, miopenGetErrorString(s));
    return -1;
}

/* The storage types MIOpen's convolutions and batchnorm take. */
static bool mi_dtype(kb_dtype t, miopenDataType_t *out)
{
    switch (t) {
    case KB_F32: *out = miopenFloat; return true;
    case KB_F16: *out = miopenHalf; return true;
    case KB_BF16: *out = miopenBFloat16; return true;
    case KB_F64: return false;
    }
    return false;
}

/* Why not, for the kind's data types, or NULL. */
static const char *dtype_refusal(const kb_problem *p)
{
    miopenDataType_t t;
    if (p->kind == KB_CONV &&
        (p->dt.src != p->dt.wei || p->dt.src != p->dt.dst ||
         !mi_dtype(p->dt.src, &t)))
        return "miopen: convolutions take one type for src, wei and dst, "
               "f32, f16 or bf16 (miopen.h lists fp32, fp16, bfp16 and "
               "int8)";
    if (p->kind == KB_CONV && kb_problem_has_bias(p) && p->dt.dst == KB_BF16)
        return "miopen: miopenConvolutionForwardBias has no bf16 (MIOpen "
               "answers miopenStatusNotImplemented): FWD_B in f32 or f16";
    if (p->kind == KB_BNORM && !mi_dtype(p->dt.src, &t))
        return "miopen: batchnorm in f32, f16 or bf16 (miopen.h marks "
               "miopenDouble partially supported without naming the "
               "operations)";
    return NULL;
}

/* A convolution's parameters as MIOpen's descriptor takes them. */
static bool conv_fits(const kb_conv_desc *c, char *why, size_t len)
{
    kb_dnn_conv cv;
    if (kb_dnn_conv_of(c, &cv, "miopen", why, len) != 0)
        return false;
    if (c->g > 1 && (c->dd || c->dh || c->dw)) {
        snprintf(why, len, "miopen: a grouped convolution with dilation: "
                 "miopen.h supports only dilation 1 for group/depthwise "
                 "convolutions");
        return false;
    }
    return true;
}

static bool mi_supports(const kb_problem *p, char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return false;
    if (p->kind == KB_GEMM) {
        snprintf(why, len, "miopen: conv and bnorm (GEMM runs on rocblas)");
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "miopen: forward passes only, not %s (its "
                 "backward calls are not wired up)", kb_dir_name(p->dir));
        return false;
    }
    const char *no = dtype_refusal(p);
    if (no) {
        char dts[32];
        kb_dts_format(&p->dt, dts, sizeof dts);
        snprintf(why, len, "%s, not %s", no, dts);
        return false;
    }
    if (p->fpmath != KB_FPMATH_STRICT && p->fpmath != KB_FPMATH_ANY) {
        snprintf(why, len, "miopen: computes f32 in f32; --fpmath %s asks "
                 "for a reduced-precision path this backend does not "
                 "enable", kb_fpmath_name(p->fpmath));
        return false;
    }
    if (p->kind == KB_BNORM && p->layout == KB_LAYOUT_NXC) {
        snprintf(why, len, "miopen: batchnorm in NCHW/NCDHW only: miopen.h "
                 "documents its batchnorm tensors "
                 "(miopenDeriveBNTensorDescriptor) for NCHW and NCDHW "
                 "inputs");
        return false;
    }
    if (p->kind == KB_CONV && !conv_fits(&p->conv, why, len))
        return false;
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        kb_dnn_shape s;
        if (info[a].used &&
            kb_dnn_shape_of(p, (kb_arg)a, &s, "miopen", why, len) != 0)
            return false;
    }
    return true;
}

static size_t mi_device_bytes(const kb_problem *p)
{
    size_t t = kb_problem_tensor_bytes(p);
    size_t extra = p->kind == KB_CONV ? mi_conv_extra_bytes(p)
                                      : mi_bnorm_extra_bytes(p);
    return t > SIZE_MAX - extra ? SIZE_MAX : t + extra;
}

static void mi_release(void *plan)
{
    mi_plan *m = plan;
    if (!m)
        return;
    /* nothing to do about a failure to destroy */
    if (m->conv)
        (void)miopenDestroyConvolutionDescriptor(m->conv);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (m->desc[a])
            (void)miopenDestroyTensorDescriptor(m->desc[a]);
    if (m->h)
        (void)miopenDestroy(m->h);
    free(m->wei_nxc);
    KB_GPU(free)(m->ws);
    KB_GPU(free)(m->running);
    KB_GPU(tensors_free)(&m->d);
    free(m);
}

/* One descriptor per tensor p uses (dnn_shape.h). */
static int make_descriptors(mi_plan *m, char *err, size_t len)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *t = &m->d.info[a];
        kb_dnn_shape s;
        miopenDataType_t dt;
        if (!t->used)
            continue;
        if (!mi_dtype(t->dt, &dt)) {   /* supports() says why */
            snprintf(err, len, "miopen: %s: no MIOpen type for %s", t->name,
                     kb_dtype_name(t->dt));
            return -1;
        }
        if (kb_dnn_shape_of(m->p, (kb_arg)a, &s, "miopen", err, len) != 0)
            return -1;
        if (mi_check(miopenCreateTensorDescriptor(&m->desc[a]),
                     "miopenCreateTensorDescriptor", err, len) != 0) {
            m->desc[a] = NULL;
            return -1;
        }
        if (mi_check(miopenSetTensorDescriptor(m->desc[a], dt, s.nbdims,
                                               s.dims, s.strides),
                     "miopenSetTensorDescriptor", err, len) != 0)
            return -1;
    }
    return 0;
}

static int mi_prepare(const kb_problem *p, const kb_tensors *host,
                      void **plan, char *err, size_t len)
{
    mi_plan *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    m->p = p;
    m->launches = KB_GPU(plan_launches)(p);
    /* the outputs go up too: the driver's poison, so that a call that
     * writes nothing cannot pass */
    unsigned manage = p->kind == KB_BNORM ? mi_bnorm_managed(p) : ~0u;
    if (KB_GPU(tensors_alloc)(p, host, manage, &m->d, err, len) != 0 ||
        (p->kind == KB_CONV && mi_conv_stage(m, err, len) != 0) ||
        KB_GPU(tensors_upload)(&m->d, true, err, len) != 0)
        goto fail;
    /* on the default stream, where time_launches records its events */
    if (mi_check(miopenCreateWithStream(&m->h, 0), "miopenCreateWithStream",
                 err, len) != 0) {
        m->h = NULL;
        goto fail;
    }
    if (make_descriptors(m, err, len) != 0 ||
        (p->kind == KB_CONV ? mi_conv_prepare(m, err, len)
                            : mi_bnorm_prepare(m, err, len)) != 0)
        goto fail;
    *plan = m;
    return 0;
fail:
    mi_release(m);
    return -1;
}

/* One execution (kb_gpu_launch_fn). */
static int launch(void *ctx, char *err, size_t len)
{
    mi_plan *m = ctx;
    return m->p->kind == KB_CONV ? mi_conv_launch(m, err, len)
                                 : mi_bnorm_launch(m, err, len);
}

static int mi_run(void *plan, double *elapsed, char *err, size_t len)
{
    mi_plan *m = plan;
    return KB_GPU(time_launches)(launch, m, m->launches, elapsed, err, len);
}

static int mi_read_output(void *plan, char *err, size_t len)
{
    mi_plan *m = plan;
    if (KB_GPU(tensors_download)(&m->d, err, len) != 0)
        return -1;
    return m->p->kind == KB_BNORM ? mi_bnorm_read_output(m, err, len) : 0;
}

static int mi_write_input(void *plan, char *err, size_t len)
{
    mi_plan *m = plan;
    if (KB_GPU(tensors_upload)(&m->d, true, err, len) != 0)
        return -1;
    return m->p->kind == KB_BNORM ? mi_bnorm_write_input(m, err, len) : 0;
}

static void mi_describe(kb_info *info)
{
    size_t major = 0, minor = 0, patch = 0;
    if (miopenGetVersion(&major, &minor, &patch) == miopenStatusSuccess)
        kb_info_add(info, "library", "MIOpen %zu.%zu.%zu", major, minor,
                    patch);
    else
        kb_info_add(info, "library", "MIOpen (miopenGetVersion failed)");
    kb_info_add(info, "math", "f32 in f32: MIOpen has no reduced-precision "
                "f32 mode in its C API; conv FP16_ALT_IMPL pinned to 0");
    KB_GPU(describe)(info);
}

static void mi_plan_info(void *plan, kb_info *info)
{
    mi_plan *m = plan;
    if (m->p->kind == KB_CONV)
        mi_conv_info(m, info);
    else
        mi_bnorm_info(m, info);
    KB_GPU(math_env_info)(info);
    KB_GPU(timing_info)(m->launches, info);
}

const kb_backend kb_backend_miopen = {
    .name = "miopen",
    .kind = "vendor",
    .device = KB_GPU_NAME,
    .supports = mi_supports,
    .prepare = mi_prepare,
    .run = mi_run,
    .read_output = mi_read_output,
    .write_input = mi_write_input,
    .release = mi_release,
    .describe = mi_describe,
    .configure = KB_GPU(configure),   /* no named tunings: --tuning is not
                                         for it */
    .device_bytes = mi_device_bytes,
    .device_free = KB_GPU(device_free),
    .plan_info = mi_plan_info,
};
