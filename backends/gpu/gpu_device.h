/* gpu_device.h - the GPU runtime layer every GPU backend shares: which
 * device, what it is, its memory, checked allocations and copies, and
 * timing with events.
 *
 * Written once for both runtimes (gpu_runtime.h): a file compiled with
 * KB_GPU_CUDA sees kb_cuda_*, with KB_GPU_HIP kb_hip_*.  The hand-written
 * backend (gpu_backend.c) and the vendor ones (cublas, cudnn, rocblas,
 * miopen) call these; drivers reach them through kb_gpu_runtime, the
 * table of one runtime, listed in backends/registry.c.
 *
 * Every function that calls the runtime checks what it returns: a
 * failure names the call as the runtime spells it ("cudaMalloc(...)"),
 * and the error the runtime gave, in err. */
#ifndef KB_GPU_DEVICE_H
#define KB_GPU_DEVICE_H

#include "backends/backend.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(KB_GPU_CUDA) || defined(KB_GPU_HIP) || defined(KB_GPU_SIM)
#include "backends/gpu/gpu_runtime.h"   /* C++ inside: not under extern "C" */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One device's identity and the attributes the theoretical ceilings are
 * computed from (0 or "" when the runtime does not say). */
typedef struct {
    int index;                 /* among the visible devices */
    char name[128];
    char uuid[48];             /* "GPU-xxxxxxxx-..." (nvidia-smi's form) */
    char pci_bus_id[32];       /* "0000:17:00.0" */
    char arch[32];             /* "sm_90", "gfx90a" */
    int cc_major, cc_minor;    /* CUDA compute capability; HIP's equivalent */
    int sm_count;              /* SMs or CUs */
    double clock_ghz;          /* peak SM clock */
    double mem_clock_ghz;      /* peak memory clock */
    int mem_bus_bits;
    uint64_t mem_bytes;
    int64_t l2_bytes;
    int ecc;                   /* 1 on, 0 off, -1 unknown */
    int driver_version, runtime_version;   /* as the runtime encodes them */
    char driver[32];           /* driver_version as written: "13.0" */
} kb_gpu_props;

/* BabelStream's kernels over device arrays of fp64 (gpu_stream.cu). */
typedef enum { KB_GPU_COPY, KB_GPU_MUL, KB_GPU_ADD, KB_GPU_TRIAD, KB_GPU_DOT,
               KB_GPU_STREAM_KERNELS } kb_gpu_stream_kernel;
typedef struct {
    const char *name;          /* "copy", "mul", "add", "triad", "dot" */
    double bytes;              /* moved per pass, BabelStream's count */
    double gbps;               /* best pass */
    double min_s, avg_s, max_s;   /* over the passes after the first */
} kb_gpu_stream_result;

/* The FMA peak of one precision (gpu_fma.cu). */
typedef struct {
    const char *precision;     /* "fp64", "fp32", "fp16", "bf16" */
    const char *kernel;        /* "gpu-fma-fp32", "gpu-hfma2-fp16", ... */
    double gflops;             /* best trial */
} kb_gpu_fma_result;

/* One runtime, for the drivers (peaks, the I/O stage's host-to-device
 * copies): the same functions as below, through pointers. */
typedef struct {
    const char *name;          /* "cuda", "hip" or "gpusim": the kind of its
                                  devices in a ceilings file, b->device */
    bool correctness_only;     /* gpusim: its device is simulated, its
                                  times are not performance (no ceilings) */
    int (*device_count)(char *why, size_t len);
    int (*select)(int index, char *err, size_t len);
    int (*props)(int index, kb_gpu_props *out, char *err, size_t len);
    int (*alloc)(void **p, size_t bytes, char *err, size_t len);
    void (*free)(void *p);
    int (*upload)(void *dst, const void *src, size_t bytes, char *err,
                  size_t len);
    int (*pinned_alloc)(void **p, size_t bytes, char *err, size_t len);
    void (*pinned_free)(void *p);
    /* BabelStream's five kernels on n fp64 elements per array, `reps`
     * passes each (the first untimed), results checked.  Returns 0, or
     * -1 with err (memory, a failed call, wrong results). */
    int (*stream)(size_t n, int reps,
                  kb_gpu_stream_result out[KB_GPU_STREAM_KERNELS],
                  char *err, size_t len);
    /* FMA peaks per precision the device has; returns how many results,
     * or -1 with err. */
    int (*fma_peak)(kb_gpu_fma_result *out, int max, char *err, size_t len);
} kb_gpu_runtime;

#if defined(KB_GPU_CUDA) || defined(KB_GPU_HIP) || defined(KB_GPU_SIM)
extern const kb_gpu_runtime KB_GPU(runtime);

/* Visible devices (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES apply).
 * 0 with why ("no CUDA device: cudaGetDeviceCount: ...") when there is
 * none, including when no driver is installed.  Asked once, then cached. */
int KB_GPU(device_count)(char *why, size_t len);

/* The settings of the run (kbench run --device, --launches, --flush-l2),
 * shared by every backend of this runtime.  Returns 0, or -1 with err
 * when cfg->device is past the visible devices (only checked when there
 * are devices at all). */
int KB_GPU(configure)(const kb_backend_config *cfg, char *err, size_t len);
const kb_backend_config *KB_GPU(config)(void);

/* Select the configured device; false with why when there is none (the
 * backend's supports() then SKIPs with it).  Cheap after the first call. */
bool KB_GPU(ready)(char *why, size_t len);

/* Select device index (peaks measures every visible device). */
int KB_GPU(select)(int index, char *err, size_t len);

/* Identity and attributes of device index.  Returns 0, or -1 with err. */
int KB_GPU(props)(int index, kb_gpu_props *out, char *err, size_t len);

/* Free and total bytes on the selected device.  Returns 0, or -1 with why. */
int KB_GPU(free_bytes)(uint64_t *free_bytes, uint64_t *total_bytes,
                       char *why, size_t len);

/* describe(): the runtime and driver versions, the visible-devices
 * variable, and the configured device's identity (name, UUID, PCI bus,
 * architecture, SM/CU count, clocks, memory, ECC); with no device,
 * "device: none", "no_device" (why) and a "warning" (printed once per
 * run that names the backend). */
void KB_GPU(describe)(kb_info *info);

/* Checked device memory, copies (synchronous) and pinned host memory. */
int KB_GPU(alloc)(void **p, size_t bytes, char *err, size_t len);
void KB_GPU(free)(void *p);              /* NULL is fine */
int KB_GPU(upload)(void *dst, const void *src, size_t bytes, char *err,
                   size_t len);
int KB_GPU(download)(void *dst, const void *src, size_t bytes, char *err,
                     size_t len);
int KB_GPU(pinned_alloc)(void **p, size_t bytes, char *err, size_t len);
void KB_GPU(pinned_free)(void *p);

/* Device copies of a problem's tensors, as every GPU backend keeps them:
 * one buffer per tensor the problem uses, uploaded from `from` (the
 * driver's host tensor, unless a backend points it at its own reordered
 * copy), outputs downloaded into the driver's host tensors. */
typedef struct {
    kb_arg_info info[KB_ARG_MAX];
    const kb_tensors *host;
    void *dev[KB_ARG_MAX];           /* NULL: unused, or kept by the backend */
    const void *from[KB_ARG_MAX];
} kb_gpu_tensors;

/* Bytes of one tensor of the table. */
size_t KB_GPU(arg_bytes)(const kb_arg_info *a);

/* A buffer for every used tensor of p whose bit (1u << arg) is in
 * `manage` (~0u: all; a backend keeps the others itself), each to be
 * uploaded from host.  Returns 0, or -1 with err naming the tensor, and
 * nothing left allocated. */
int KB_GPU(tensors_alloc)(const kb_problem *p, const kb_tensors *host,
                          unsigned manage, kb_gpu_tensors *d, char *err,
                          size_t len);
void KB_GPU(tensors_free)(kb_gpu_tensors *d);   /* a zeroed d is fine */

/* Upload every input and, with `outputs`, the output buffers too
 * (poisoned by the driver, so that a kernel that writes nothing cannot
 * pass); download every output.  Both return 0, or -1 with err. */
int KB_GPU(tensors_upload)(const kb_gpu_tensors *d, bool outputs, char *err,
                           size_t len);
int KB_GPU(tensors_download)(const kb_gpu_tensors *d, char *err, size_t len);

/* Launches per sample for p: the run's --launches, or 1 when a launch is
 * not idempotent (a GEMM with beta != 0 accumulates into dst), so that
 * every launch of a sample does the same work.  timing_info notes it. */
int KB_GPU(plan_launches)(const kb_problem *p);

/* plan_info() facts for the vendor libraries: each environment variable
 * of this runtime that overrides a library's math mode behind its API
 * (CUDA: NVIDIA_TF32_OVERRIDE; HIP: ROCBLAS_INTERNAL_FP16_ALT_IMPL,
 * MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL), when it is set. */
void KB_GPU(math_env_info)(kb_info *info);

/* kb_backend.device_free: the selected device's free bytes. */
int KB_GPU(device_free)(uint64_t *bytes, char *why, size_t len);

/* One timed sample: flush the L2 when the run asks (outside the timed
 * region), record an event, call launch(ctx) `launches` times, record a
 * second event, wait, and store the time between them divided by
 * launches in *elapsed (seconds).  launch enqueues work on the default
 * stream and returns 0, or -1 with err.  Returns 0, or -1 with err. */
typedef int (*kb_gpu_launch_fn)(void *ctx, char *err, size_t len);
int KB_GPU(time_launches)(kb_gpu_launch_fn launch, void *ctx, int launches,
                          double *elapsed, char *err, size_t len);

/* plan_info() facts of the timing: "timer" (events), "launches_per_sample"
 * (with "launches_note" when it is below the run's: plan_launches),
 * and "l2_flush" (yes, with the bytes written, or no). */
void KB_GPU(timing_info)(int launches, kb_info *info);

/* The peak kernels behind kb_gpu_runtime's stream and fma_peak
 * (gpu_stream.cu, gpu_fma.cu), on the selected device. */
int KB_GPU(stream)(size_t n, int reps,
                   kb_gpu_stream_result out[KB_GPU_STREAM_KERNELS],
                   char *err, size_t len);
int KB_GPU(fma_peak)(kb_gpu_fma_result *out, int max, char *err, size_t len);

/* Format a failed call: "cudaMalloc(&p, bytes): out of memory".  `call`
 * is the gpu* spelling (the macro's text); the runtime's prefix replaces
 * "gpu".  Returns -1, for `return KB_GPU(fail)(...)`. */
int KB_GPU(fail)(const char *call, gpuError_t e, char *err, size_t len);

/* Check a runtime call; on failure fill err and return -1 from the
 * enclosing function. */
#define KB_GPU_TRY(call, err, len)                                        \
    do {                                                                  \
        gpuError_t kb_e_ = (call);                                        \
        if (kb_e_ != gpuSuccess)                                          \
            return KB_GPU(fail)(#call, kb_e_, (err), (len));              \
    } while (0)

#endif /* KB_GPU_CUDA || KB_GPU_HIP || KB_GPU_SIM */

#ifdef __cplusplus
}
#endif

#endif
