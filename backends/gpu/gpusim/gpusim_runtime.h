/* gpusim_runtime.h - the CUDA spelling kbench's GPU code uses, on the CPU.
 *
 * gpu_runtime.h maps its gpu* names onto gpusim* with KB_GPU_SIM, so
 * the very .cu files nvcc and hipcc build are compiled by the host C++
 * compiler and run on the CPU, for correctness only (the backend
 * `gpusim`, docs/gpus.md).  Two halves:
 *
 *  - the runtime API (C and C++): a named simulated device over host
 *    memory, events, device attributes (gpusim_api.c);
 *  - the device side (C++ only): thread and block indices as
 *    thread-locals, __shared__ as one static per kernel that the blocks,
 *    run one after another, take in turn (a global: the sanitizers see its
 *    bounds), __syncthreads as a real barrier, atomics on the compiler's
 *    __atomic builtins, __half2 on _Float16 and the bf16 pair on
 *    kernels/convert.h's conversions, and the launch (gpusim_launch.cc).
 *
 * KBENCH_GPUSIM_MODE picks how a block's threads run: `ordered` (the
 * default) runs them one after another up to each barrier, each a
 * coroutine (ucontext), deterministic; `threads` makes each a pthread, so
 * that ThreadSanitizer sees a missing barrier.  KBENCH_GPUSIM_WARP (32 or
 * 64) is the warp size the device reports.  Only what kbench's kernels
 * use is here: add a line when a kernel needs more. */
#ifndef KB_GPUSIM_RUNTIME_H
#define KB_GPUSIM_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    gpusimSuccess = 0,
    gpusimErrorInvalidValue,
    gpusimErrorMemoryAllocation,
    gpusimErrorInvalidDevice,
    gpusimErrorInvalidConfiguration,
    gpusimErrorInvalidResourceHandle,
    gpusimErrorInitialization,        /* bad KBENCH_GPUSIM_MODE or _WARP */
} gpusimError_t;

typedef enum {
    gpusimMemcpyHostToDevice = 1,
    gpusimMemcpyDeviceToHost = 2,
} gpusimMemcpyKind;

typedef enum {
    gpusimDevAttrClockRate,
    gpusimDevAttrMemoryClockRate,
    gpusimDevAttrGlobalMemoryBusWidth,
    gpusimDevAttrEccEnabled,
    gpusimDevAttrL2CacheSize,
    gpusimDevAttrMultiProcessorCount,
    gpusimDevAttrComputeCapabilityMajor,
    gpusimDevAttrComputeCapabilityMinor,
    gpusimDevAttrMaxSharedMemoryPerBlock,
    gpusimDevAttrWarpSize,
} gpusimDeviceAttr;

typedef struct { unsigned char bytes[16]; } gpusimUUID;

struct gpusimDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    gpusimUUID uuid;
    int warpSize;
};

typedef struct gpusim_event *gpusimEvent_t;
typedef void *gpusimStream_t;         /* only the default stream, 0 */

/* What a gpusim record says of its times (describe, plan_info). */
#define KB_GPUSIM_TIMINGS "mean nothing: the GPU kernels simulated on " \
                          "the CPU, for correctness only"

/* How the simulated device runs blocks: from KBENCH_GPUSIM_MODE. */
typedef enum { GPUSIM_ORDERED, GPUSIM_THREADS } gpusim_mode;

const char *gpusimGetErrorString(gpusimError_t e);
gpusimError_t gpusimGetLastError(void);
gpusimError_t gpusimGetDeviceCount(int *n);
gpusimError_t gpusimSetDevice(int index);
gpusimError_t gpusimGetDevice(int *index);
gpusimError_t gpusimDeviceGetAttribute(int *v, gpusimDeviceAttr attr,
                                       int index);
gpusimError_t gpusimDeviceGetPCIBusId(char *id, int len, int index);
gpusimError_t gpusimGetDeviceProperties(struct gpusimDeviceProp *p,
                                        int index);
gpusimError_t gpusimDriverGetVersion(int *v);
gpusimError_t gpusimRuntimeGetVersion(int *v);
gpusimError_t gpusimDeviceSynchronize(void);
gpusimError_t gpusimMalloc(void **p, size_t bytes);
gpusimError_t gpusimFree(void *p);
gpusimError_t gpusimMallocHost(void **p, size_t bytes);
gpusimError_t gpusimFreeHost(void *p);
gpusimError_t gpusimMemset(void *p, int value, size_t bytes);
gpusimError_t gpusimMemcpy(void *dst, const void *src, size_t bytes,
                           gpusimMemcpyKind kind);
gpusimError_t gpusimMemGetInfo(size_t *free_bytes, size_t *total_bytes);
gpusimError_t gpusimEventCreate(gpusimEvent_t *ev);
gpusimError_t gpusimEventDestroy(gpusimEvent_t ev);
gpusimError_t gpusimEventRecord(gpusimEvent_t ev, gpusimStream_t stream);
gpusimError_t gpusimEventSynchronize(gpusimEvent_t ev);
gpusimError_t gpusimEventElapsedTime(float *ms, gpusimEvent_t start,
                                     gpusimEvent_t stop);

/* The run's mode and warp size, from the environment (read once).
 * Returns 0, or -1 with err naming the bad variable and its value. */
int gpusim_settings(gpusim_mode *mode, int *warp, char *err, size_t len);
const char *gpusim_mode_name(gpusim_mode mode);   /* "ordered", "threads" */

/* A launch the runtime refused (block too large, empty grid), for
 * gpusimGetLastError. */
void gpusim_set_error(gpusimError_t e);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include "backends/gpu/gpusim/gpusim_device.hh"
#endif

#endif
