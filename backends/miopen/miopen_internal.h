/* miopen_internal.h - what the miopen backend's files share: the plan,
 * the checked-call helper, and the conv and bnorm halves
 * (miopen_conv.c, miopen_bnorm.c) that miopen_backend.c dispatches to. */
#ifndef KB_MIOPEN_INTERNAL_H
#define KB_MIOPEN_INTERNAL_H

#include "backends/gpu/gpu_device.h"
#include "backends/gpu/dnn_shape.h"

/* MIOpen's miopen.h is not C since the find API 2.0 (seen in MIOpen 3.4,
 * ROCm 6.4.3): miopenRunSolution's prototype uses miopenTensorArgument_t
 * without `struct`, and every C file that includes it fails.  This
 * typedef of the struct tag comes first and makes it valid C; it is
 * harmless where it is not needed: a version without the struct leaves
 * it unused, and one that has the same typedef repeats it, which C11
 * allows.  C++ needs nothing: there the tag is already a type name. */
#ifndef __cplusplus
typedef struct miopenTensorArgument_t miopenTensorArgument_t;
#endif
#include <miopen/miopen.h>

/* The most the find step and the runs are given as workspace: MIOpen's
 * query answers the largest any of its algorithms wants, which can be
 * many times the tensors; find then picks among those that fit. */
#define KB_MIOPEN_WORKSPACE_CAP ((size_t)1 << 30)

/* Forward algorithms find may rank (miopenConvFwdAlgorithm_t has 5). */
#define KB_MIOPEN_ALGOS 5

typedef struct {
    const kb_problem *p;
    kb_gpu_tensors d;
    miopenHandle_t h;                            /* NULL until created */
    miopenTensorDescriptor_t desc[KB_ARG_MAX];   /* per used tensor */
    int launches;
    /* conv */
    void *wei_nxc;               /* NXC: the weights channels-last (host) */
    miopenConvolutionDescriptor_t conv;
    miopenConvAlgoPerf_t perf;   /* find's fastest */
    int found;                   /* algorithms find ranked */
    void *ws;
    size_t ws_bytes;             /* given to find and to every run */
    size_t ws_wanted;            /* MIOpen's query, before the cap */
    /* bnorm training: MIOpen's running mean and variance and saved
     * 1/sqrt(var + eps), [C] each, f32 */
    void *running;
    size_t running_bytes;
} mi_plan;

/* A failed MIOpen call named `call`, with miopenGetErrorString's text.
 * Returns 0 on success, else -1 with err. */
int mi_check(miopenStatus_t s, const char *call, char *err, size_t len);

/* Device bytes beyond the tensors (workspace, scratch), at most. */
size_t mi_conv_extra_bytes(const kb_problem *p);
size_t mi_bnorm_extra_bytes(const kb_problem *p);

/* Before the upload: an NXC problem's weights reordered channels-last
 * into a host copy the upload takes them from (MIOpen takes one layout
 * for x, w and y).  Returns 0, or -1 with err. */
int mi_conv_stage(mi_plan *m, char *err, size_t len);

/* After the tensors are uploaded and their descriptors made: the
 * convolution descriptor, the workspace and the find step / the
 * training scratch.  Return 0, or -1 with err (release() frees what was
 * made). */
int mi_conv_prepare(mi_plan *m, char *err, size_t len);
int mi_bnorm_prepare(mi_plan *m, char *err, size_t len);

/* The tensors kb_gpu_tensors keeps for bnorm (tensors_alloc's manage
 * mask: all but training's VAR, which comes from the running variance). */
unsigned mi_bnorm_managed(const kb_problem *p);

/* bnorm's part of read_output and write_input, after the common
 * download and upload: training's VAR from the running variance, and the
 * running statistics zeroed. */
int mi_bnorm_read_output(mi_plan *m, char *err, size_t len);
int mi_bnorm_write_input(mi_plan *m, char *err, size_t len);

/* One execution, enqueued on the default stream (kb_gpu_launch_fn's
 * contract).  Return 0, or -1 with err. */
int mi_conv_launch(mi_plan *m, char *err, size_t len);
int mi_bnorm_launch(mi_plan *m, char *err, size_t len);

/* plan_info() facts of each half. */
void mi_conv_info(const mi_plan *m, kb_info *info);
void mi_bnorm_info(const mi_plan *m, kb_info *info);

#endif
