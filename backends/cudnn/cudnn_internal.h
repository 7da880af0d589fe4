/* cudnn_internal.h - what the cudnn backend's files share: the plan, the
 * process's cuDNN handle, the math policy, checked calls.
 *
 * cudnn_backend.c is the kb_backend table and what every kind shares;
 * cudnn_conv.c and cudnn_bnorm.c build, run and describe their kind's
 * plan; backends/gpu/dnn_shape.c turns kbench's tensors into descriptor
 * dims (shared with miopen).
 * cuDNN 9 still has the legacy cudnnConvolution* and
 * cudnnBatchNormalization* calls used here (deprecated, warned about only
 * under CUDNN_WARN_DEPRECATED). */
#ifndef KB_CUDNN_INTERNAL_H
#define KB_CUDNN_INTERNAL_H

#include "backends/gpu/gpu_device.h"

#include <cudnn.h>

/* The most workspace a convolution's algorithm may have (less when the
 * device has less free): the algorithm search is restricted to it. */
#define CDN_WORKSPACE_MAX ((size_t)1 << 30)

/* What a problem's arithmetic may use: the math type set on the
 * convolution descriptor, and whether only algorithms that report
 * CUDNN_FMA_MATH are taken (f32 under --fpmath strict). */
typedef struct {
    cudnnMathType_t set;
    bool fma_only;
    const char *policy;        /* for the record */
} cdn_math;

typedef struct {
    cudnnTensorDescriptor_t x, y, bias;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} cdn_conv_desc;

typedef struct {
    cudnnTensorDescriptor_t x;   /* src and dst alike */
    cudnnTensorDescriptor_t stats;   /* [1, C, 1, 1(, 1)]: scale, shift,
                                        mean, var */
} cdn_bnorm_desc;

typedef struct {
    const kb_problem *p;
    cudnnHandle_t handle;      /* the process's (cdn_handle) */
    kb_gpu_tensors d;
    int launches;
    const cdn_math *math;
    union {
        float f;
        double d;
    } one, zero;               /* alpha and beta, in cuDNN's scaling type */

    /* conv */
    cdn_conv_desc cd;
    void *wei_nxc;             /* NXC: the filter channels-last (host) */
    void *workspace;
    size_t workspace_bytes, workspace_cap;
    cudnnConvolutionFwdAlgo_t algo;
    cudnnMathType_t algo_math;
    float algo_ms;             /* the search's time of the chosen one */
    int algos_measured;

    /* bnorm */
    cdn_bnorm_desc bd;
    void *running;             /* training: running mean, running var and
                                  saved inverse std, [C] each */
} cdn_plan;

/* "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM (cuDNN's last error
 * message)".  Returns -1. */
int cdn_fail(const char *call, cudnnStatus_t s, char *err, size_t len);

/* Check a cuDNN call named `what`; on failure fill err and return -1 from
 * the enclosing function. */
#define CDN_TRY(what, call, err, len)                                     \
    do {                                                                  \
        cudnnStatus_t cdn_s_ = (call);                                    \
        if (cdn_s_ != CUDNN_STATUS_SUCCESS)                               \
            return cdn_fail((what), cdn_s_, (err), (len));                \
    } while (0)

/* The process's handle, on the configured device (created on first use;
 * supports() needs it for cuDNN's heuristics).  Returns 0, or -1 with
 * err. */
int cdn_handle(cudnnHandle_t *h, char *err, size_t len);

/* cuDNN's type for a kbench element type, and the convolution's compute
 * type for p (double for f64, else float). */
cudnnDataType_t cdn_dtype(kb_dtype t);
cudnnDataType_t cdn_compute_type(const kb_problem *p);
const char *cdn_dtype_name(cudnnDataType_t t);

/* The math policy of p (cudnn_backend.c's table). */
const cdn_math *cdn_math_of(const kb_problem *p);
const char *cdn_math_name(cudnnMathType_t m);

/* Results of the kind-specific checks and builds: 0 done, -1 a failed
 * call (err), CDN_UNSUPPORTED cuDNN cannot do it (err says why). */
#define CDN_UNSUPPORTED 1

/* conv (cudnn_conv.c) */
int cdn_conv_desc_make(const kb_problem *p, cdn_conv_desc *cd, char *err,
                      size_t len);
void cdn_conv_desc_free(cdn_conv_desc *cd);
int cdn_conv_check(const kb_problem *p, char *why, size_t len);
size_t cdn_conv_workspace_cap(const kb_problem *p);
int cdn_conv_prepare(cdn_plan *pl, char *err, size_t len);
int cdn_conv_launch(cdn_plan *pl, char *err, size_t len);
void cdn_conv_release(cdn_plan *pl);
void cdn_conv_info(const cdn_plan *pl, kb_info *info);

/* bnorm (cudnn_bnorm.c) */
int cdn_bnorm_check(const kb_problem *p, char *why, size_t len);
int cdn_bnorm_prepare(cdn_plan *pl, char *err, size_t len);
int cdn_bnorm_launch(cdn_plan *pl, char *err, size_t len);
int cdn_bnorm_read_output(cdn_plan *pl, char *err, size_t len);
int cdn_bnorm_write_input(cdn_plan *pl, char *err, size_t len);
void cdn_bnorm_release(cdn_plan *pl);
void cdn_bnorm_info(const cdn_plan *pl, kb_info *info);

#endif
