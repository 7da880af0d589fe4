/* miopen_conv.c - the miopen backend's forward convolution: descriptor,
 * workspace and the find step MIOpen requires before
 * miopenConvolutionForward, then conv (+ bias) per execution. */
#include "backends/miopen/miopen_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* miopenConvolutionForward and ...ForwardBias take only alpha = 1 and
 * beta = 0 (miopen.h); the bias call then adds b to y. */
static const float one = 1.0f, zero = 0.0f;

size_t mi_conv_extra_bytes(const kb_problem *p)
{
    (void)p;   /* find's workspace is capped, whatever the shape */
    return KB_MIOPEN_WORKSPACE_CAP;
}

int mi_conv_stage(mi_plan *m, char *err, size_t len)
{
    if (m->p->layout != KB_LAYOUT_NXC)
        return 0;
    const kb_arg_info *w = &m->d.info[KB_ARG_WEI];
    m->wei_nxc = malloc(KB_GPU(arg_bytes)(w));
    if (!m->wei_nxc) {
        snprintf(err, len, "out of memory for the channels-last weights");
        return -1;
    }
    kb_dnn_filter_nxc(m->p, m->d.host->ptr[KB_ARG_WEI], m->wei_nxc);
    m->d.from[KB_ARG_WEI] = m->wei_nxc;
    return 0;
}

/* The convolution descriptor: padding, stride and dilation per spatial
 * dim (dnn_shape.h: kbench's dilation is 0-based, MIOpen's 1-based),
 * groups, and the fp16 alternative implementation off, so that f16
 * forward runs on fp16 instructions whatever MIOpen's default (the
 * environment variable MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL
 * still overrides it, and plan_info records it when set). */
static int make_conv(mi_plan *m, char *err, size_t len)
{
    kb_dnn_conv cv;
    if (kb_dnn_conv_of(&m->p->conv, &cv, "miopen", err, len) != 0)
        return -1;   /* supports() refused it */
    if (mi_check(miopenCreateConvolutionDescriptor(&m->conv),
                 "miopenCreateConvolutionDescriptor", err, len) != 0) {
        m->conv = NULL;
        return -1;
    }
    if (mi_check(miopenInitConvolutionNdDescriptor(m->conv, cv.nbdims,
                                                   cv.pad, cv.stride,
                                                   cv.dilation,
                                                   miopenConvolution),
                 "miopenInitConvolutionNdDescriptor", err, len) != 0 ||
        mi_check(miopenSetConvolutionGroupCount(m->conv, cv.groups),
                 "miopenSetConvolutionGroupCount", err, len) != 0 ||
        mi_check(miopenSetConvolutionAttribute(
                     m->conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, 0),
                 "miopenSetConvolutionAttribute(FP16_ALT_IMPL, 0)", err,
                 len) != 0)
        return -1;
    return 0;
}

/* MIOpen's output shape must be kbench's: both infer it from the same
 * formula, so a difference means the descriptors say something else. */
static int check_output(mi_plan *m, char *err, size_t len)
{
    int nd = 0, dims[KB_MAX_DIMS] = {0};
    kb_dnn_shape y;
    if (mi_check(miopenGetConvolutionNdForwardOutputDim(
                     m->conv, m->desc[KB_ARG_SRC], m->desc[KB_ARG_WEI], &nd,
                     dims),
                 "miopenGetConvolutionNdForwardOutputDim", err, len) != 0 ||
        kb_dnn_shape_of(m->p, KB_ARG_DST, &y, "miopen", err, len) != 0)
        return -1;
    if (nd == y.nbdims && memcmp(dims, y.dims, sizeof(int) * nd) == 0)
        return 0;
    snprintf(err, len, "miopen: miopenGetConvolutionNdForwardOutputDim "
             "gives %d dims [%d %d %d %d %d], kbench's dst is [%d %d %d %d "
             "%d]", nd, dims[0], dims[1], dims[2], dims[3], dims[4],
             y.dims[0], y.dims[1], y.dims[2], y.dims[3],
             y.nbdims > 4 ? y.dims[4] : 0);
    return -1;
}

/* The workspace MIOpen asks for, capped, then find over the real
 * buffers (it runs the candidates: dst is overwritten, and every run
 * rewrites it).  Non-exhaustive: MIOpen's find-db and heuristics pick
 * the candidates, without tuning every configuration. */
static int find(mi_plan *m, char *err, size_t len)
{
    void *const *dev = m->d.dev;
    const miopenTensorDescriptor_t *d = m->desc;
    miopenConvAlgoPerf_t perf[KB_MIOPEN_ALGOS];

    if (mi_check(miopenConvolutionForwardGetWorkSpaceSize(
                     m->h, d[KB_ARG_WEI], d[KB_ARG_SRC], m->conv,
                     d[KB_ARG_DST], &m->ws_wanted),
                 "miopenConvolutionForwardGetWorkSpaceSize", err, len) != 0)
        return -1;
    m->ws_bytes = m->ws_wanted < KB_MIOPEN_WORKSPACE_CAP
                      ? m->ws_wanted : KB_MIOPEN_WORKSPACE_CAP;
    if (m->ws_bytes && KB_GPU(alloc)(&m->ws, m->ws_bytes, err, len) != 0)
        return -1;
    memset(perf, 0, sizeof perf);
    if (mi_check(miopenFindConvolutionForwardAlgorithm(
                     m->h, d[KB_ARG_SRC], dev[KB_ARG_SRC], d[KB_ARG_WEI],
                     dev[KB_ARG_WEI], m->conv, d[KB_ARG_DST], dev[KB_ARG_DST],
                     KB_MIOPEN_ALGOS, &m->found, perf, m->ws, m->ws_bytes,
                     false),
                 "miopenFindConvolutionForwardAlgorithm", err, len) != 0)
        return -1;
    if (m->found < 1) {
        snprintf(err, len, "miopenFindConvolutionForwardAlgorithm: no "
                 "algorithm within a %zu-byte workspace", m->ws_bytes);
        return -1;
    }
    m->perf = perf[0];   /* sorted, fastest first */
    if (m->perf.memory > m->ws_bytes) {
        snprintf(err, len, "miopenFindConvolutionForwardAlgorithm: its "
                 "pick needs %zu workspace bytes, %zu were given",
                 m->perf.memory, m->ws_bytes);
        return -1;
    }
    return 0;
}

int mi_conv_prepare(mi_plan *m, char *err, size_t len)
{
    if (make_conv(m, err, len) != 0 || check_output(m, err, len) != 0)
        return -1;
    return find(m, err, len);
}

int mi_conv_launch(mi_plan *m, char *err, size_t len)
{
    void *const *dev = m->d.dev;
    const miopenTensorDescriptor_t *d = m->desc;
    if (mi_check(miopenConvolutionForward(
                     m->h, &one, d[KB_ARG_SRC], dev[KB_ARG_SRC],
                     d[KB_ARG_WEI], dev[KB_ARG_WEI], m->conv,
                     m->perf.fwd_algo, &zero, d[KB_ARG_DST], dev[KB_ARG_DST],
                     m->ws, m->ws_bytes),
                 "miopenConvolutionForward", err, len) != 0)
        return -1;
    if (!m->d.info[KB_ARG_BIA].used)
        return 0;
    return mi_check(miopenConvolutionForwardBias(
                        m->h, &one, d[KB_ARG_BIA], dev[KB_ARG_BIA], &zero,
                        d[KB_ARG_DST], dev[KB_ARG_DST]),
                    "miopenConvolutionForwardBias", err, len);
}

static const char *algo_name(miopenConvFwdAlgorithm_t a)
{
    switch (a) {
    case miopenConvolutionFwdAlgoGEMM: return "miopenConvolutionFwdAlgoGEMM";
    case miopenConvolutionFwdAlgoDirect: return "miopenConvolutionFwdAlgoDirect";
    case miopenConvolutionFwdAlgoFFT: return "miopenConvolutionFwdAlgoFFT";
    case miopenConvolutionFwdAlgoWinograd:
        return "miopenConvolutionFwdAlgoWinograd";
    case miopenConvolutionFwdAlgoImplicitGEMM:
        return "miopenConvolutionFwdAlgoImplicitGEMM";
    }
    return "unknown";
}

void mi_conv_info(const mi_plan *m, kb_info *info)
{
    kb_info_add(info, "algorithm", "%s (%d)", algo_name(m->perf.fwd_algo),
                (int)m->perf.fwd_algo);
    kb_info_add(info, "find", "miopenFindConvolutionForwardAlgorithm, not "
                "exhaustive: %d ranked, the fastest took %.4f ms", m->found,
                m->perf.time);
    kb_info_add(info, "workspace_bytes", "%zu given (the pick needs %zu; "
                "MIOpen asked %zu, capped at %zu)", m->ws_bytes,
                m->perf.memory, m->ws_wanted, KB_MIOPEN_WORKSPACE_CAP);
    kb_info_add(info, "filter", "%s", m->wei_nxc
                ? "KRSC (NHWC strides), reordered on the host, untimed"
                : "KCRS (NCHW strides)");
    if (m->d.info[KB_ARG_BIA].used)
        kb_info_add(info, "bias", "miopenConvolutionForwardBias after "
                    "miopenConvolutionForward, in the timed launch");
    kb_info_add(info, "math", "%s; MIOpen has no reduced-precision f32 "
                "convolution mode in its C API (nothing to pin); "
                "MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL set to 0",
                m->p->dt.src == KB_F32 ? "f32 in f32"
                                       : "16-bit data, the accumulation "
                                         "MIOpen's solver chooses");
}
