/* gpu_registry.h - the GPU runtimes registry.c lists, by their
 * per-runtime names (KB_GPU(runtime)).  Plain C: no runtime header
 * needed. */
#ifndef KB_GPU_REGISTRY_H
#define KB_GPU_REGISTRY_H

#include "backends/gpu/gpu_device.h"

extern const kb_gpu_runtime kb_cuda_runtime, kb_hip_runtime,
    kb_gpusim_runtime;

/* The runtimes built in (cuda, hip, then gpusim); NULL past the end or
 * for an unknown name ("cuda", "hip", "gpusim": a backend's device). */
int kb_gpu_runtime_count(void);
const kb_gpu_runtime *kb_gpu_runtime_at(int i);
const kb_gpu_runtime *kb_gpu_runtime_find(const char *name);

#endif
