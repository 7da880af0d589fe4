/* gpu_gemm.cu - placeholder until the tiled GEMM lands: no tunings, and
 * every launch refuses. */
#include "backends/gpu/gpu_kernels.h"

#include <stdio.h>

static const kb_gpu_tuning tunings[] = {{"tile_128x64", 128, 64, 8, 8, 4}};

extern "C" int KB_GPU(tuning_count)(void) { return 1; }
extern "C" const kb_gpu_tuning *KB_GPU(tuning_at)(int i)
{
    return i == 0 ? &tunings[0] : NULL;
}

extern "C" int KB_GPU(gemm)(const kb_problem *, const kb_gpu_tuning *,
                            void *const *, char *err, size_t len)
{
    snprintf(err, len, "gemm: not implemented yet");
    return -1;
}
