/* cudnn_conv.c - convolution forward on cuDNN: 2D and 3D, groups,
 * stride, padding, dilation, NCX and NXC, with the bias added by
 * cudnnAddTensor in the same timed launch.
 *
 * supports() asks cuDNN's heuristics whether any algorithm fits the math
 * policy and the workspace cap; prepare() measures them all
 * (cudnnFindConvolutionForwardAlgorithmEx, on the plan's own buffers)
 * and keeps the fastest that fits. */
#include "backends/cudnn/cudnn_internal.h"
#include "backends/gpu/dnn_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NALGOS CUDNN_CONVOLUTION_FWD_ALGO_COUNT

static const char *const algo_names[NALGOS] = {
    [CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM] = "IMPLICIT_GEMM",
    [CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM] = "IMPLICIT_PRECOMP_GEMM",
    [CUDNN_CONVOLUTION_FWD_ALGO_GEMM] = "GEMM",
    [CUDNN_CONVOLUTION_FWD_ALGO_DIRECT] = "DIRECT",
    [CUDNN_CONVOLUTION_FWD_ALGO_FFT] = "FFT",
    [CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING] = "FFT_TILING",
    [CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD] = "WINOGRAD",
    [CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED] = "WINOGRAD_NONFUSED",
};

static const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
    return (unsigned)a < NALGOS && algo_names[a] ? algo_names[a] : "unknown";
}

void cdn_conv_desc_free(cdn_conv_desc *cd)
{
    /* destroying can fail only on a bad descriptor: nothing to do then */
    if (cd->x)
        (void)cudnnDestroyTensorDescriptor(cd->x);
    if (cd->y)
        (void)cudnnDestroyTensorDescriptor(cd->y);
    if (cd->bias)
        (void)cudnnDestroyTensorDescriptor(cd->bias);
    if (cd->w)
        (void)cudnnDestroyFilterDescriptor(cd->w);
    if (cd->conv)
        (void)cudnnDestroyConvolutionDescriptor(cd->conv);
    memset(cd, 0, sizeof *cd);
}

/* The bias as [1, K, 1, 1(, 1)] (dnn_shape.h), broadcast over y by
 * cudnnAddTensor. */
static int bias_desc(const kb_problem *p, cdn_conv_desc *cd, char *err,
                     size_t len)
{
    kb_dnn_shape b;
    if (kb_dnn_shape_of(p, KB_ARG_BIA, &b, "cudnn", err, len) != 0)
        return -1;   /* K fits: y's descriptor has it */
    CDN_TRY("cudnnCreateTensorDescriptor(bias)",
           cudnnCreateTensorDescriptor(&cd->bias), err, len);
    CDN_TRY("cudnnSetTensorNdDescriptor(bias)",
           cudnnSetTensorNdDescriptor(cd->bias, cdn_dtype(p->dt.dst), b.nbdims,
                                      b.dims, b.strides), err, len);
    return 0;
}

/* "8x64x56x56" */
static void format_dims(const int *d, int n, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "x" : "", d[i]);
}

int cdn_conv_desc_make(const kb_problem *p, cdn_conv_desc *cd, char *err,
                      size_t len)
{
    kb_dnn_shape x, y, w;
    kb_dnn_conv cv;
    int out[KB_MAX_DIMS];

    memset(cd, 0, sizeof *cd);
    if (kb_dnn_shape_of(p, KB_ARG_SRC, &x, "cudnn", err, len) != 0 ||
        kb_dnn_shape_of(p, KB_ARG_DST, &y, "cudnn", err, len) != 0 ||
        kb_dnn_shape_of(p, KB_ARG_WEI, &w, "cudnn", err, len) != 0 ||
        kb_dnn_conv_of(&p->conv, &cv, "cudnn", err, len) != 0)
        return CDN_UNSUPPORTED;
    const cudnnDataType_t t = cdn_dtype(p->dt.src);
    CDN_TRY("cudnnCreateTensorDescriptor(x)",
           cudnnCreateTensorDescriptor(&cd->x), err, len);
    CDN_TRY("cudnnCreateTensorDescriptor(y)",
           cudnnCreateTensorDescriptor(&cd->y), err, len);
    CDN_TRY("cudnnCreateFilterDescriptor", cudnnCreateFilterDescriptor(&cd->w),
           err, len);
    CDN_TRY("cudnnCreateConvolutionDescriptor",
           cudnnCreateConvolutionDescriptor(&cd->conv), err, len);
    CDN_TRY("cudnnSetTensorNdDescriptor(x)",
           cudnnSetTensorNdDescriptor(cd->x, t, x.nbdims, x.dims,
                                      x.strides), err, len);
    CDN_TRY("cudnnSetTensorNdDescriptor(y)",
           cudnnSetTensorNdDescriptor(cd->y, t, y.nbdims, y.dims,
                                      y.strides), err, len);
    /* dims are K, C/G, (T,) R, S whatever the format; NHWC says the
     * memory is channels-last (prepare reorders kbench's filter) */
    CDN_TRY("cudnnSetFilterNdDescriptor",
           cudnnSetFilterNdDescriptor(cd->w, t,
                                      p->layout == KB_LAYOUT_NXC
                                          ? CUDNN_TENSOR_NHWC
                                          : CUDNN_TENSOR_NCHW,
                                      w.nbdims, w.dims), err, len);
    CDN_TRY("cudnnSetConvolutionNdDescriptor",
           cudnnSetConvolutionNdDescriptor(cd->conv, cv.nbdims, cv.pad,
                                           cv.stride, cv.dilation,
                                           CUDNN_CROSS_CORRELATION,
                                           cdn_compute_type(p)), err, len);
    CDN_TRY("cudnnSetConvolutionGroupCount",
           cudnnSetConvolutionGroupCount(cd->conv, cv.groups), err, len);
    CDN_TRY("cudnnSetConvolutionMathType",
           cudnnSetConvolutionMathType(cd->conv, cdn_math_of(p)->set), err,
           len);
    if (kb_problem_has_bias(p) && bias_desc(p, cd, err, len) != 0)
        return -1;
    /* kbench's output size must be the one cuDNN's symmetric padding
     * gives */
    CDN_TRY("cudnnGetConvolutionNdForwardOutputDim",
           cudnnGetConvolutionNdForwardOutputDim(cd->conv, cd->x, cd->w,
                                                 y.nbdims, out), err, len);
    if (memcmp(out, y.dims, sizeof(int) * (size_t)y.nbdims) != 0) {
        char want[64], got[64];
        format_dims(y.dims, y.nbdims, want, sizeof want);
        format_dims(out, y.nbdims, got, sizeof got);
        snprintf(err, len, "cudnn: dst is %s, cuDNN's symmetric padding "
                 "gives %s", want, got);
        return CDN_UNSUPPORTED;
    }
    return 0;
}

/* Half the room the device has after the tensors, at most
 * CDN_WORKSPACE_MAX: cuDNN's own allocations and the L2 flush need some. */
static size_t cap_of_room(uint64_t room)
{
    return room / 2 < CDN_WORKSPACE_MAX ? (size_t)(room / 2) : CDN_WORKSPACE_MAX;
}

/* Before the tensors exist: what device_bytes adds to them.  0 when the
 * device says nothing (the case then fails its memory check). */
size_t cdn_conv_workspace_cap(const kb_problem *p)
{
    uint64_t free_bytes = 0;
    char why[192];
    if (KB_GPU(free_bytes)(&free_bytes, NULL, why, sizeof why) != 0)
        return 0;
    size_t t = kb_problem_tensor_bytes(p);
    return t < free_bytes ? cap_of_room(free_bytes - t) : 0;
}

/* The first of cuDNN's ranked results (fastest first) that succeeded,
 * fits the cap and obeys the math policy; NULL with why naming how many
 * failed each way. */
static const cudnnConvolutionFwdAlgoPerf_t *
pick(const cdn_math *m, const cudnnConvolutionFwdAlgoPerf_t *perf, int n,
     size_t cap, char *why, size_t len)
{
    int failed = 0, too_big = 0, not_fma = 0;
    for (int i = 0; i < n; i++) {
        const cudnnConvolutionFwdAlgoPerf_t *r = &perf[i];
        if (r->status != CUDNN_STATUS_SUCCESS)
            failed++;
        else if (r->memory > cap)
            too_big++;
        else if (m->fma_only && r->mathType != CUDNN_FMA_MATH)
            not_fma++;
        else
            return r;
    }
    snprintf(why, len, "no forward algorithm of %d: %d not supported, %d "
             "over the %zu-byte workspace cap, %d not CUDNN_FMA_MATH", n,
             failed, too_big, cap, not_fma);
    return NULL;
}

int cdn_conv_check(const kb_problem *p, char *why, size_t len)
{
    cdn_conv_desc cd;
    cudnnHandle_t h;
    cudnnConvolutionFwdAlgoPerf_t perf[NALGOS];
    int n = 0;
    int rc = cdn_conv_desc_make(p, &cd, why, len);
    if (rc == 0)
        rc = cdn_handle(&h, why, len);
    if (rc == 0) {
        cudnnStatus_t s = cudnnGetConvolutionForwardAlgorithm_v7(
            h, cd.x, cd.w, cd.conv, cd.y, NALGOS, &n, perf);
        if (s != CUDNN_STATUS_SUCCESS) {
            rc = cdn_fail("cudnnGetConvolutionForwardAlgorithm_v7", s, why,
                         len);
        } else {
            char no[160];
            if (!pick(cdn_math_of(p), perf, n, cdn_conv_workspace_cap(p), no,
                      sizeof no)) {
                snprintf(why, len, "cudnn: %s (cuDNN's heuristics)", no);
                rc = CDN_UNSUPPORTED;
            }
        }
    }
    cdn_conv_desc_free(&cd);
    return rc;
}

/* Measure every algorithm on the plan's buffers within the cap, keep the
 * fastest allowed, and its workspace only.  Returns 0, or -1 with err. */
static int choose_algorithm(cdn_plan *pl, char *err, size_t len)
{
    uint64_t free_bytes;
    void *search = NULL;
    cudnnConvolutionFwdAlgoPerf_t perf[NALGOS];
    int n = 0;

    if (KB_GPU(free_bytes)(&free_bytes, NULL, err, len) != 0)
        return -1;
    pl->workspace_cap = cap_of_room(free_bytes);   /* tensors allocated */
    if (pl->workspace_cap &&
        KB_GPU(alloc)(&search, pl->workspace_cap, err, len) != 0)
        return -1;
    void *const *dev = pl->d.dev;
    cudnnStatus_t s = cudnnFindConvolutionForwardAlgorithmEx(
        pl->handle, pl->cd.x, dev[KB_ARG_SRC], pl->cd.w, dev[KB_ARG_WEI],
        pl->cd.conv, pl->cd.y, dev[KB_ARG_DST], NALGOS, &n, perf, search,
        pl->workspace_cap);
    KB_GPU(free)(search);
    if (s != CUDNN_STATUS_SUCCESS)
        return cdn_fail("cudnnFindConvolutionForwardAlgorithmEx", s, err,
                       len);
    char why[160];
    const cudnnConvolutionFwdAlgoPerf_t *best =
        pick(pl->math, perf, n, pl->workspace_cap, why, sizeof why);
    if (!best) {
        snprintf(err, len, "cudnnFindConvolutionForwardAlgorithmEx: %s", why);
        return -1;
    }
    pl->algos_measured = n;
    pl->algo = best->algo;
    pl->algo_math = best->mathType;
    pl->algo_ms = best->time;
    pl->workspace_bytes = best->memory;
    /* run under the math type the algorithm was measured with */
    CDN_TRY("cudnnSetConvolutionMathType",
           cudnnSetConvolutionMathType(pl->cd.conv, best->mathType), err, len);
    if (pl->workspace_bytes &&
        KB_GPU(alloc)(&pl->workspace, pl->workspace_bytes, err, len) != 0)
        return -1;
    return 0;
}

int cdn_conv_prepare(cdn_plan *pl, char *err, size_t len)
{
    const kb_problem *p = pl->p;
    if (cdn_conv_desc_make(p, &pl->cd, err, len) != 0)
        return -1;   /* CDN_UNSUPPORTED too: supports() said yes */
    if (p->layout == KB_LAYOUT_NXC) {
        const kb_arg_info *w = &pl->d.info[KB_ARG_WEI];
        pl->wei_nxc = malloc(KB_GPU(arg_bytes)(w));
        if (!pl->wei_nxc) {
            snprintf(err, len, "out of memory for the channels-last filter");
            return -1;
        }
        kb_dnn_filter_nxc(p, pl->d.host->ptr[KB_ARG_WEI], pl->wei_nxc);
        pl->d.from[KB_ARG_WEI] = pl->wei_nxc;
    }
    if (KB_GPU(tensors_upload)(&pl->d, true, err, len) != 0)
        return -1;
    return choose_algorithm(pl, err, len);
}

int cdn_conv_launch(cdn_plan *pl, char *err, size_t len)
{
    void *const *dev = pl->d.dev;
    const cdn_conv_desc *cd = &pl->cd;
    CDN_TRY("cudnnConvolutionForward",
           cudnnConvolutionForward(pl->handle, &pl->one, cd->x,
                                   dev[KB_ARG_SRC], cd->w, dev[KB_ARG_WEI],
                                   cd->conv, pl->algo, pl->workspace,
                                   pl->workspace_bytes, &pl->zero, cd->y,
                                   dev[KB_ARG_DST]), err, len);
    if (cd->bias)   /* y += bias, broadcast over N and the spatial dims */
        CDN_TRY("cudnnAddTensor",
               cudnnAddTensor(pl->handle, &pl->one, cd->bias, dev[KB_ARG_BIA],
                              &pl->one, cd->y, dev[KB_ARG_DST]), err, len);
    return 0;
}

void cdn_conv_release(cdn_plan *pl)
{
    cdn_conv_desc_free(&pl->cd);
    free(pl->wei_nxc);
    KB_GPU(free)(pl->workspace);
}

void cdn_conv_info(const cdn_plan *pl, kb_info *info)
{
    kb_info_add(info, "algorithm", "CUDNN_CONVOLUTION_FWD_ALGO_%s (the "
                "fastest allowed of %d measured by "
                "cudnnFindConvolutionForwardAlgorithmEx: %.4f ms)",
                algo_name(pl->algo), pl->algos_measured, pl->algo_ms);
    kb_info_add(info, "workspace_bytes", "%zu (cap %zu: half the device's "
                "free memory after the tensors, at most %zu)",
                pl->workspace_bytes, pl->workspace_cap, CDN_WORKSPACE_MAX);
    kb_info_add(info, "math", "%s; %s", cdn_math_name(pl->algo_math),
                pl->math->policy);
    kb_info_add(info, "compute_type", "%s",
                cdn_dtype_name(cdn_compute_type(pl->p)));
    kb_info_add(info, "filter", "%s", pl->wei_nxc
                ? "KRSC (CUDNN_TENSOR_NHWC), reordered on the host, untimed"
                : "KCRS (CUDNN_TENSOR_NCHW)");
    if (pl->cd.bias)
        kb_info_add(info, "bias", "cudnnAddTensor after "
                    "cudnnConvolutionForward, in the timed launch");
}
