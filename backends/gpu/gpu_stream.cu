/* gpu_stream.cu - placeholder until the device-memory kernels land. */
#include "backends/gpu/gpu_device.h"

#include <stdio.h>

extern "C" int KB_GPU(stream)(size_t, int, kb_gpu_stream_result *,
                              char *err, size_t len)
{
    snprintf(err, len, "device-memory bandwidth: not implemented yet");
    return -1;
}
