/* gpu_registry.h - the GPU backends and runtimes registry.c lists, by
 * their per-runtime names (KB_GPU(backend), KB_GPU(runtime)), and the
 * vendor GPU backends' tables.  Plain C: no runtime header needed. */
#ifndef KB_GPU_REGISTRY_H
#define KB_GPU_REGISTRY_H

#include "backends/gpu/gpu_device.h"

extern const kb_backend kb_cuda_backend, kb_hip_backend;
extern const kb_backend kb_backend_cublas, kb_backend_cudnn;
extern const kb_backend kb_backend_rocblas, kb_backend_miopen;
extern const kb_gpu_runtime kb_cuda_runtime, kb_hip_runtime;

/* The runtimes built in (cuda before hip); NULL past the end or for an
 * unknown name ("cuda", "hip": a backend's device). */
int kb_gpu_runtime_count(void);
const kb_gpu_runtime *kb_gpu_runtime_at(int i);
const kb_gpu_runtime *kb_gpu_runtime_find(const char *name);

#endif
