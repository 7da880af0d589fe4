/* gpu_conv.cu - placeholder until the implicit-GEMM convolution lands. */
#include "backends/gpu/gpu_kernels.h"

#include <stdio.h>

extern "C" int KB_GPU(conv_fwd)(const kb_problem *, const kb_gpu_tuning *,
                                void *const *, char *err, size_t len)
{
    snprintf(err, len, "conv: not implemented yet");
    return -1;
}

extern "C" bool KB_GPU(conv_is_depthwise)(const kb_problem *) { return false; }

extern "C" int KB_GPU(conv_depthwise)(const kb_problem *, void *const *,
                                      char *err, size_t len)
{
    snprintf(err, len, "depthwise conv: not implemented yet");
    return -1;
}
