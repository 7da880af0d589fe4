/* gpu_fma.cu - placeholder until the FMA peak kernels land. */
#include "backends/gpu/gpu_device.h"

#include <stdio.h>

extern "C" int KB_GPU(fma_peak)(kb_gpu_fma_result *, int, char *err,
                                size_t len)
{
    snprintf(err, len, "FMA peak: not implemented yet");
    return -1;
}
