/* gpu_runtime.h - one spelling for the CUDA and HIP runtime APIs.
 *
 * The hand-written kernels and the runtime layer are written once against
 * the gpu* names below; nvcc builds them with KB_GPU_CUDA, hipcc (or gcc,
 * for the C files) with KB_GPU_HIP (BabelStream's and RAJAPerf's way of
 * keeping one source for both).  KB_GPU(x) names a symbol per runtime
 * (kb_cuda_x, kb_hip_x), so both builds link into one kbench.  Only the
 * calls kbench uses are mapped: add a line when a file needs another. */
#ifndef KB_GPU_RUNTIME_H
#define KB_GPU_RUNTIME_H

#if defined(KB_GPU_HIP) == defined(KB_GPU_CUDA)
#error "define exactly one of KB_GPU_CUDA and KB_GPU_HIP"
#endif

#if defined(KB_GPU_HIP)
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
