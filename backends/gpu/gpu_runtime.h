/* gpu_runtime.h - one spelling for the CUDA and HIP runtime APIs, and
 * for gpusim, which runs the same kernels on the CPU.
 *
 * The hand-written kernels and the runtime layer are written once against
 * the gpu* names below; nvcc builds them with KB_GPU_CUDA, hipcc (or gcc,
 * for the C files) with KB_GPU_HIP (BabelStream's and RAJAPerf's way of
 * keeping one source for both), and the host C++ compiler with KB_GPU_SIM
 * (backends/gpu/gpusim/gpusim_runtime.h).  KB_GPU(x) names a symbol per
 * runtime (kb_cuda_x, kb_hip_x, kb_gpusim_x), so every build links into
 * one kbench.  A launch is KB_GPU_LAUNCH(grid, block, kernel)(args...):
 * kernel<<<grid, block>>>(args...) for nvcc and hipcc, a call of the CPU
 * runtime for gpusim.  Only the calls kbench uses are mapped: add a line
 * when a file needs another. */
#ifndef KB_GPU_RUNTIME_H
#define KB_GPU_RUNTIME_H

#if defined(KB_GPU_HIP) + defined(KB_GPU_CUDA) + defined(KB_GPU_SIM) != 1
#error "define exactly one of KB_GPU_CUDA, KB_GPU_HIP and KB_GPU_SIM"
#endif

#if defined(KB_GPU_SIM)
#include "backends/gpu/gpusim/gpusim_runtime.h"
#define KB_GPU(x) kb_gpusim_##x
#define KB_GPU_BACKEND kb_backend_gpusim
#define KB_GPU_NAME "gpusim"
#define KB_GPU_API "gpusim"
#define KB_GPU_VENDOR_NAME "gpusim"
#define gpu(x) gpusim##x
#define gpuMallocHost gpusimMallocHost
#define gpuFreeHost gpusimFreeHost
#define gpuDeviceProp struct gpusimDeviceProp
#define gpuDevAttrClockRate gpusimDevAttrClockRate
#define gpuDevAttrMemoryClockRate gpusimDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth gpusimDevAttrGlobalMemoryBusWidth
#define gpuDevAttrEccEnabled gpusimDevAttrEccEnabled
#define gpuDevAttrL2CacheSize gpusimDevAttrL2CacheSize
#define gpuDevAttrMultiProcessorCount gpusimDevAttrMultiProcessorCount
#define gpuDevAttrComputeCapabilityMajor gpusimDevAttrComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor gpusimDevAttrComputeCapabilityMinor
#define gpuDevAttrMaxSharedMemoryPerBlock gpusimDevAttrMaxSharedMemoryPerBlock
#ifdef __cplusplus
#define KB_GPU_LAUNCH(grid, block, ...) \
    gpusim::make_launcher((grid), (block), __VA_ARGS__)
#endif
#elif defined(KB_GPU_HIP)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif
#define KB_GPU(x) kb_hip_##x
#define KB_GPU_BACKEND kb_backend_hip   /* registry.c's kb_backend_NAME */
#define KB_GPU_NAME "hip"          /* backend, device kind */
#define KB_GPU_API "hip"           /* prefix of the runtime's calls */
#define KB_GPU_VENDOR_NAME "HIP"
#define gpu(x) hip##x
#define gpuMallocHost(p, n) hipHostMalloc((p), (n), 0)
#define gpuFreeHost hipHostFree
#define gpuDeviceProp hipDeviceProp_t
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth hipDeviceAttributeMemoryBusWidth
#define gpuDevAttrEccEnabled hipDeviceAttributeEccEnabled
#define gpuDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor
#define gpuDevAttrMaxSharedMemoryPerBlock hipDeviceAttributeMaxSharedMemoryPerBlock
#else
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif
#define KB_GPU(x) kb_cuda_##x
#define KB_GPU_BACKEND kb_backend_cuda
#define KB_GPU_NAME "cuda"
#define KB_GPU_API "cuda"
#define KB_GPU_VENDOR_NAME "CUDA"
#define gpu(x) cuda##x
#define gpuMallocHost cudaMallocHost
#define gpuFreeHost cudaFreeHost
#define gpuDeviceProp struct cudaDeviceProp
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define gpuDevAttrEccEnabled cudaDevAttrEccEnabled
#define gpuDevAttrL2CacheSize cudaDevAttrL2CacheSize
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuDevAttrComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define gpuDevAttrMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#endif

#if !defined(KB_GPU_SIM)
#define KB_GPU_LAUNCH(grid, block, ...) __VA_ARGS__<<<grid, block>>>
#endif

/* The calls whose names differ only in their prefix. */
#define gpuError_t gpu(Error_t)
#define gpuSuccess gpu(Success)
#define gpuGetErrorString gpu(GetErrorString)
#define gpuGetLastError gpu(GetLastError)
#define gpuGetDeviceCount gpu(GetDeviceCount)
#define gpuSetDevice gpu(SetDevice)
#define gpuGetDevice gpu(GetDevice)
#define gpuDeviceGetAttribute gpu(DeviceGetAttribute)
#define gpuDeviceGetPCIBusId gpu(DeviceGetPCIBusId)
#define gpuGetDeviceProperties gpu(GetDeviceProperties)
#define gpuDriverGetVersion gpu(DriverGetVersion)
#define gpuRuntimeGetVersion gpu(RuntimeGetVersion)
#define gpuDeviceSynchronize gpu(DeviceSynchronize)
#define gpuMalloc gpu(Malloc)
#define gpuFree gpu(Free)
#define gpuMemset gpu(Memset)
#define gpuMemcpy gpu(Memcpy)
#define gpuMemcpyHostToDevice gpu(MemcpyHostToDevice)
#define gpuMemcpyDeviceToHost gpu(MemcpyDeviceToHost)
#define gpuMemGetInfo gpu(MemGetInfo)
#define gpuEvent_t gpu(Event_t)
#define gpuEventCreate gpu(EventCreate)
#define gpuEventDestroy gpu(EventDestroy)
#define gpuEventRecord gpu(EventRecord)
#define gpuEventSynchronize gpu(EventSynchronize)
#define gpuEventElapsedTime gpu(EventElapsedTime)

#endif
