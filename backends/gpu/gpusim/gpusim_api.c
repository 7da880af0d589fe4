/* gpusim_api.c - the runtime API of the simulated device
 * (gpusim_runtime.h): device memory is host memory, copies are memcpy,
 * launches are synchronous, so an event is the time it was recorded.
 *
 * The device has a name and attributes like a real one ("gpusim: 4 SMs,
 * 228 KiB shared per SM, warp 32, 4 MiB L2"), so that its identity, the
 * device-memory check, the tunings and the ceilings file go through the
 * paths a GPU takes; it is small, so that the ceiling kernels (sized by
 * the SM count and the L2) stay quick on a CPU. */
#include "backends/gpu/gpusim/gpusim_runtime.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_SMS 4
#define SIM_SHARED_PER_SM (228 * 1024)
#define SIM_SHARED_PER_BLOCK (48 * 1024)
#define SIM_L2_BYTES (4 * 1024 * 1024)
#define SIM_MEMORY_BYTES (4ull << 30)   /* what MemGetInfo calls total */
#define SIM_VERSION 1000                /* "1.0" in CUDA's encoding */

struct gpusim_event {
    struct timespec t;
    int recorded;
};

static gpusimError_t last_error;
static size_t allocated;   /* bytes, through __atomic */

static struct {
    pthread_once_t once;
    gpusim_mode mode;
    int warp;
    char err[160];
} settings = {.once = PTHREAD_ONCE_INIT};

extern int warpSize;   /* gpusim_launch.cc: what kernels read */

static void read_settings(void)
{
    const char *m = getenv("KBENCH_GPUSIM_MODE");
    const char *w = getenv("KBENCH_GPUSIM_WARP");
    settings.mode = GPUSIM_ORDERED;
    settings.warp = 32;
    if (m && *m && strcmp(m, "ordered") != 0) {
        if (strcmp(m, "threads") == 0)
            settings.mode = GPUSIM_THREADS;
        else
            snprintf(settings.err, sizeof settings.err,
                     "KBENCH_GPUSIM_MODE=%s: ordered or threads", m);
    }
    if (w && *w && strcmp(w, "32") != 0) {
        if (strcmp(w, "64") == 0)
            settings.warp = 64;
        else
            snprintf(settings.err, sizeof settings.err,
                     "KBENCH_GPUSIM_WARP=%s: 32 or 64", w);
    }
    warpSize = settings.warp;
}

int gpusim_settings(gpusim_mode *mode, int *warp, char *err, size_t len)
{
    pthread_once(&settings.once, read_settings);
    if (settings.err[0]) {
        snprintf(err, len, "%s", settings.err);
        return -1;
    }
    *mode = settings.mode;
    *warp = settings.warp;
    return 0;
}

const char *gpusim_mode_name(gpusim_mode mode)
{
    return mode == GPUSIM_THREADS ? "threads" : "ordered";
}

void gpusim_set_error(gpusimError_t e)
{
    last_error = e;
}

const char *gpusimGetErrorString(gpusimError_t e)
{
    switch (e) {
    case gpusimSuccess: return "no error";
    case gpusimErrorInvalidValue: return "invalid argument";
    case gpusimErrorMemoryAllocation: return "out of memory";
    case gpusimErrorInvalidDevice: return "invalid device ordinal";
    case gpusimErrorInvalidConfiguration:
        return "invalid configuration argument (block of 1 to 1024 "
               "threads, a non-empty grid)";
    case gpusimErrorInvalidResourceHandle: return "invalid resource handle";
    case gpusimErrorInitialization:
        return settings.err[0] ? settings.err : "initialization error";
    }
    return "unknown error";
}

gpusimError_t gpusimGetLastError(void)
{
    gpusimError_t e = last_error;
    last_error = gpusimSuccess;
    return e;
}

/* One device, unless the settings are wrong: then none, and the reason
 * says which variable. */
gpusimError_t gpusimGetDeviceCount(int *n)
{
    gpusim_mode mode;
    int warp;
    char err[160];
    if (gpusim_settings(&mode, &warp, err, sizeof err) != 0) {
        *n = 0;
        return gpusimErrorInitialization;
    }
    *n = 1;
    return gpusimSuccess;
}

gpusimError_t gpusimSetDevice(int index)
{
    return index == 0 ? gpusimSuccess : gpusimErrorInvalidDevice;
}

gpusimError_t gpusimGetDevice(int *index)
{
    *index = 0;
    return gpusimSuccess;
}

gpusimError_t gpusimDeviceGetAttribute(int *v, gpusimDeviceAttr attr,
                                       int index)
{
    if (index != 0)
        return gpusimErrorInvalidDevice;
    switch (attr) {
    case gpusimDevAttrClockRate: *v = 1000000; break;        /* kHz */
    case gpusimDevAttrMemoryClockRate: *v = 1000000; break;
    case gpusimDevAttrGlobalMemoryBusWidth: *v = 256; break;
    case gpusimDevAttrEccEnabled: *v = 0; break;
    case gpusimDevAttrL2CacheSize: *v = SIM_L2_BYTES; break;
    case gpusimDevAttrMultiProcessorCount: *v = SIM_SMS; break;
    /* every precision of the FMA ceiling (packed bf16 from 8.0) */
    case gpusimDevAttrComputeCapabilityMajor: *v = 9; break;
    case gpusimDevAttrComputeCapabilityMinor: *v = 0; break;
    case gpusimDevAttrMaxSharedMemoryPerBlock: *v = SIM_SHARED_PER_BLOCK; break;
    case gpusimDevAttrWarpSize: *v = warpSize; break;
    default: return gpusimErrorInvalidValue;
    }
    return gpusimSuccess;
}

gpusimError_t gpusimDeviceGetPCIBusId(char *id, int len, int index)
{
    if (index != 0)
        return gpusimErrorInvalidDevice;
    snprintf(id, (size_t)len, "gpusim:0");
    return gpusimSuccess;
}

gpusimError_t gpusimGetDeviceProperties(struct gpusimDeviceProp *p,
                                        int index)
{
    gpusim_mode mode;
    int warp;
    char err[160];
    if (index != 0)
        return gpusimErrorInvalidDevice;
    if (gpusim_settings(&mode, &warp, err, sizeof err) != 0)
        return gpusimErrorInitialization;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name,
             "gpusim: %d SMs, %d KiB shared per SM, warp %d, %d MiB L2",
             SIM_SMS, SIM_SHARED_PER_SM / 1024, warp, SIM_L2_BYTES >> 20);
    p->totalGlobalMem = SIM_MEMORY_BYTES;
    /* one identity per warp size: they are two different devices */
    memcpy(p->uuid.bytes, "gpusim-sim-dev", 14);
    p->uuid.bytes[15] = (unsigned char)warp;
    p->warpSize = warp;
    return gpusimSuccess;
}

gpusimError_t gpusimDriverGetVersion(int *v)
{
    *v = SIM_VERSION;
    return gpusimSuccess;
}

gpusimError_t gpusimRuntimeGetVersion(int *v)
{
    *v = SIM_VERSION;
    return gpusimSuccess;
}

gpusimError_t gpusimDeviceSynchronize(void)
{
    return gpusimSuccess;   /* every launch and copy is synchronous */
}

/* Aligned as cudaMalloc's, and exactly `bytes` long, so that the
 * sanitizers see a kernel that reads past a buffer. */
gpusimError_t gpusimMalloc(void **p, size_t bytes)
{
    *p = NULL;
    size_t used = __atomic_load_n(&allocated, __ATOMIC_RELAXED);
    if (bytes > SIM_MEMORY_BYTES - used || posix_memalign(p, 256, bytes))
        return gpusimErrorMemoryAllocation;
    __atomic_fetch_add(&allocated, malloc_usable_size(*p), __ATOMIC_RELAXED);
    return gpusimSuccess;
}

gpusimError_t gpusimFree(void *p)
{
    if (p)
        __atomic_fetch_sub(&allocated, malloc_usable_size(p),
                           __ATOMIC_RELAXED);
    free(p);
    return gpusimSuccess;
}

gpusimError_t gpusimMallocHost(void **p, size_t bytes)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? gpusimSuccess : gpusimErrorMemoryAllocation;
}

gpusimError_t gpusimFreeHost(void *p)
{
    free(p);
    return gpusimSuccess;
}

gpusimError_t gpusimMemset(void *p, int value, size_t bytes)
{
    memset(p, value, bytes);
    return gpusimSuccess;
}

gpusimError_t gpusimMemcpy(void *dst, const void *src, size_t bytes,
                           gpusimMemcpyKind kind)
{
    if (kind != gpusimMemcpyHostToDevice && kind != gpusimMemcpyDeviceToHost)
        return gpusimErrorInvalidValue;
    memcpy(dst, src, bytes);
    return gpusimSuccess;
}

gpusimError_t gpusimMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = SIM_MEMORY_BYTES;
    *free_bytes = SIM_MEMORY_BYTES -
                  __atomic_load_n(&allocated, __ATOMIC_RELAXED);
    return gpusimSuccess;
}

gpusimError_t gpusimEventCreate(gpusimEvent_t *ev)
{
    *ev = calloc(1, sizeof **ev);
    return *ev ? gpusimSuccess : gpusimErrorMemoryAllocation;
}

gpusimError_t gpusimEventDestroy(gpusimEvent_t ev)
{
    free(ev);
    return gpusimSuccess;
}

gpusimError_t gpusimEventRecord(gpusimEvent_t ev, gpusimStream_t stream)
{
    if (!ev || stream)
        return gpusimErrorInvalidResourceHandle;
    clock_gettime(CLOCK_MONOTONIC, &ev->t);
    ev->recorded = 1;
    return gpusimSuccess;
}

gpusimError_t gpusimEventSynchronize(gpusimEvent_t ev)
{
    return ev && ev->recorded ? gpusimSuccess
                              : gpusimErrorInvalidResourceHandle;
}

gpusimError_t gpusimEventElapsedTime(float *ms, gpusimEvent_t start,
                                     gpusimEvent_t stop)
{
    if (!start || !stop || !start->recorded || !stop->recorded)
        return gpusimErrorInvalidResourceHandle;
    *ms = (float)((stop->t.tv_sec - start->t.tv_sec) * 1e3 +
                  (stop->t.tv_nsec - start->t.tv_nsec) * 1e-6);
    return gpusimSuccess;
}
