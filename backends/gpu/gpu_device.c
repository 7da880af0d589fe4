/* gpu_device.c - the GPU runtime layer (gpu_device.h), written once and
 * compiled by the C compiler three times: with KB_GPU_CUDA against CUDA's
 * runtime API, with KB_GPU_HIP against HIP's, with KB_GPU_SIM against
 * gpusim's (the CPU). */
#include "backends/gpu/gpu_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device state of the process: asked once, shared by every backend
 * of this runtime (a run selects one device for all of them). */
static struct {
    bool counted;
    int count;
    char why[192];             /* no device: why */
    kb_backend_config cfg;
    bool selected;
    void *flush_buf;           /* L2-sized scratch, allocated on first use */
    size_t flush_bytes;
} state = {.cfg = {.device = 0, .launches = 1, .flush_l2 = true}};

int KB_GPU(fail)(const char *call, gpuError_t e, char *err, size_t len)
{
    if (strncmp(call, "gpu", 3) == 0)
        snprintf(err, len, "%s%s: %s", KB_GPU_API, call + 3,
                 gpuGetErrorString(e));
    else
        snprintf(err, len, "%s: %s", call, gpuGetErrorString(e));
    return -1;
}

int KB_GPU(device_count)(char *why, size_t len)
{
    if (!state.counted) {
        state.counted = true;
        int n = 0;
        gpuError_t e = gpuGetDeviceCount(&n);
        if (e != gpuSuccess || n <= 0) {
            char call[160];
            if (e != gpuSuccess)
                KB_GPU(fail)("gpuGetDeviceCount", e, call, sizeof call);
            else
                snprintf(call, sizeof call, "%sGetDeviceCount: 0 devices",
                         KB_GPU_API);
            snprintf(state.why, sizeof state.why, "no %s device (%s)",
                     KB_GPU_VENDOR_NAME, call);
            n = 0;
        }
        state.count = n;
    }
    if (state.count == 0 && why)
        snprintf(why, len, "%s", state.why);
    return state.count;
}

int KB_GPU(configure)(const kb_backend_config *cfg, char *err, size_t len)
{
    int n = KB_GPU(device_count)(NULL, 0);
    if (n > 0 && (cfg->device < 0 || cfg->device >= n)) {
        snprintf(err, len, "--device %d: %d %s device%s visible (0 to %d)",
                 cfg->device, n, KB_GPU_VENDOR_NAME, n == 1 ? "" : "s",
                 n - 1);
        return -1;
    }
    if (cfg->launches < 1) {
        snprintf(err, len, "--launches %d: expected at least 1",
                 cfg->launches);
        return -1;
    }
    if (state.selected && cfg->device != state.cfg.device) {
        KB_GPU(free)(state.flush_buf);   /* it lives on the old device */
        state.flush_buf = NULL;
        state.selected = false;
    }
    state.cfg = *cfg;
    state.cfg.tuning = NULL;   /* per backend; not kept here */
    return 0;
}

const kb_backend_config *KB_GPU(config)(void)
{
    return &state.cfg;
}

int KB_GPU(select)(int index, char *err, size_t len)
{
    KB_GPU_TRY(gpuSetDevice(index), err, len);
    return 0;
}

bool KB_GPU(ready)(char *why, size_t len)
{
    if (KB_GPU(device_count)(why, len) == 0)
        return false;
    if (!state.selected) {
        if (KB_GPU(select)(state.cfg.device, why, len) != 0)
            return false;
        state.selected = true;
    }
    return true;
}

/* An attribute, or 0 when the runtime does not answer. */
static int attribute(int attr, int index)
{
    int v = 0;
    if (gpuDeviceGetAttribute(&v, attr, index) != gpuSuccess)
        return 0;
    return v;
}

/* nvidia-smi's spelling of a 16-byte UUID. */
static void format_uuid(const unsigned char b[16], char *dst, size_t len)
{
    snprintf(dst, len,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
             b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void format_version(int v, char *dst, size_t len);

int KB_GPU(props)(int index, kb_gpu_props *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    out->index = index;
    gpuDeviceProp prop;
    KB_GPU_TRY(gpuGetDeviceProperties(&prop, index), err, len);
    snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, prop.name);
    out->mem_bytes = prop.totalGlobalMem;
#if defined(KB_GPU_HIP)
    hipUUID id;
    if (hipDeviceGetUuid(&id, index) == hipSuccess)
        format_uuid((const unsigned char *)id.bytes, out->uuid,
                    sizeof out->uuid);
    snprintf(out->arch, sizeof out->arch, "%.*s",
             (int)strcspn(prop.gcnArchName, ":"), prop.gcnArchName);
#else
    format_uuid((const unsigned char *)prop.uuid.bytes, out->uuid,
                sizeof out->uuid);
#endif
    if (gpuDeviceGetPCIBusId(out->pci_bus_id, sizeof out->pci_bus_id,
                             index) != gpuSuccess)
        out->pci_bus_id[0] = '\0';
    out->cc_major = attribute(gpuDevAttrComputeCapabilityMajor, index);
    out->cc_minor = attribute(gpuDevAttrComputeCapabilityMinor, index);
#if defined(KB_GPU_CUDA)
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", out->cc_major,
             out->cc_minor);
#elif defined(KB_GPU_SIM)
    snprintf(out->arch, sizeof out->arch, "gpusim-w%d", prop.warpSize);
#endif
    out->sm_count = attribute(gpuDevAttrMultiProcessorCount, index);
    /* kHz; CUDA 13 dropped cudaDeviceProp's clock fields */
    out->clock_ghz = attribute(gpuDevAttrClockRate, index) * 1e-6;
    out->mem_clock_ghz = attribute(gpuDevAttrMemoryClockRate, index) * 1e-6;
    out->mem_bus_bits = attribute(gpuDevAttrGlobalMemoryBusWidth, index);
    out->l2_bytes = attribute(gpuDevAttrL2CacheSize, index);
    int ecc = 0;
    out->ecc = gpuDeviceGetAttribute(&ecc, gpuDevAttrEccEnabled, index) ==
                       gpuSuccess ? ecc != 0 : -1;
    if (gpuDriverGetVersion(&out->driver_version) != gpuSuccess)
        out->driver_version = 0;
    else
        format_version(out->driver_version, out->driver, sizeof out->driver);
    if (gpuRuntimeGetVersion(&out->runtime_version) != gpuSuccess)
        out->runtime_version = 0;
    return 0;
}

int KB_GPU(free_bytes)(uint64_t *free_bytes, uint64_t *total_bytes,
                       char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return -1;
    size_t f = 0, t = 0;
    KB_GPU_TRY(gpuMemGetInfo(&f, &t), why, len);
    *free_bytes = f;
    if (total_bytes)
        *total_bytes = t;
    return 0;
}

/* "13.0" from CUDA's 13000; HIP encodes major*10^7 + minor*10^5 + patch. */
static void format_version(int v, char *dst, size_t len)
{
#if defined(KB_GPU_HIP)
    snprintf(dst, len, "%d.%d.%d", v / 10000000, v / 100000 % 100, v % 100000);
#else
    snprintf(dst, len, "%d.%d", v / 1000, v % 1000 / 10);
#endif
}

void KB_GPU(describe)(kb_info *info)
{
    char v[32], why[192] = "";
    int rt = 0;
    if (gpuRuntimeGetVersion(&rt) == gpuSuccess) {
        format_version(rt, v, sizeof v);
        kb_info_add(info, "runtime", "%s %s", KB_GPU_VENDOR_NAME, v);
    }
#if defined(KB_GPU_SIM)
    kb_info_add(info, "timings", "%s", KB_GPUSIM_TIMINGS);
#else
    const char *env = getenv(strcmp(KB_GPU_NAME, "hip") == 0
                                 ? "HIP_VISIBLE_DEVICES"
                                 : "CUDA_VISIBLE_DEVICES");
    kb_info_add(info, "visible_devices", "%s", env ? env : "(unset: all)");
#endif
    if (!KB_GPU(ready)(why, sizeof why)) {
        kb_info_add(info, "device", "none");
        kb_info_add(info, "no_device", "%s", why);
        kb_info_add(info, "warning", "%s: its cases are SKIPPED", why);
        return;
    }
    kb_gpu_props p;
    if (KB_GPU(props)(state.cfg.device, &p, why, sizeof why) != 0) {
        kb_info_add(info, "device", "unknown (%s)", why);
        return;
    }
    format_version(p.driver_version, v, sizeof v);
    kb_info_add(info, "driver", "%s", v);
    kb_info_add(info, "device", "%d: %s", p.index, p.name);
    kb_info_add(info, "device_uuid", "%s", p.uuid);
    kb_info_add(info, "pci_bus_id", "%s", p.pci_bus_id);
    kb_info_add(info, "arch", "%s (compute capability %d.%d)", p.arch,
                p.cc_major, p.cc_minor);
    kb_info_add(info, "sm_count", "%d", p.sm_count);
    kb_info_add(info, "clock_ghz", "%.3f (peak, from the device attribute)",
                p.clock_ghz);
    kb_info_add(info, "memory", "%.1f GiB, %d-bit, %.3f GHz",
                (double)p.mem_bytes / (1024.0 * 1024 * 1024), p.mem_bus_bits,
                p.mem_clock_ghz);
    kb_info_add(info, "l2_bytes", "%lld", (long long)p.l2_bytes);
    kb_info_add(info, "ecc", "%s",
                p.ecc < 0 ? "unknown" : p.ecc ? "on" : "off");
}

int KB_GPU(alloc)(void **p, size_t bytes, char *err, size_t len)
{
    *p = NULL;
    gpuError_t e = gpuMalloc(p, bytes ? bytes : 1);
    if (e != gpuSuccess) {
        char call[64];
        snprintf(call, sizeof call, "gpuMalloc(%zu bytes)", bytes);
        *p = NULL;
        return KB_GPU(fail)(call, e, err, len);
    }
    return 0;
}

void KB_GPU(free)(void *p)
{
    if (p)
        (void)gpuFree(p);   /* nothing to do about a failure here */
}

int KB_GPU(upload)(void *dst, const void *src, size_t bytes, char *err,
                   size_t len)
{
    KB_GPU_TRY(gpuMemcpy(dst, src, bytes, gpuMemcpyHostToDevice), err, len);
    return 0;
}

int KB_GPU(download)(void *dst, const void *src, size_t bytes, char *err,
                     size_t len)
{
    KB_GPU_TRY(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToHost), err, len);
    return 0;
}

int KB_GPU(pinned_alloc)(void **p, size_t bytes, char *err, size_t len)
{
    *p = NULL;
    gpuError_t e = gpuMallocHost(p, bytes ? bytes : 1);
    if (e != gpuSuccess) {
        *p = NULL;
        return KB_GPU(fail)("gpuMallocHost", e, err, len);
    }
    return 0;
}

void KB_GPU(pinned_free)(void *p)
{
    if (p)
        (void)gpuFreeHost(p);
}

size_t KB_GPU(arg_bytes)(const kb_arg_info *a)
{
    return (size_t)a->nelems * kb_dtype_size(a->dt);
}

void KB_GPU(tensors_free)(kb_gpu_tensors *d)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        KB_GPU(free)(d->dev[a]);
        d->dev[a] = NULL;
    }
}

int KB_GPU(tensors_alloc)(const kb_problem *p, const kb_tensors *host,
                          unsigned manage, kb_gpu_tensors *d, char *err,
                          size_t len)
{
    memset(d, 0, sizeof *d);
    kb_problem_args(p, d->info);
    d->host = host;
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!d->info[a].used || !(manage & (1u << a)))
            continue;
        char why[192];
        if (KB_GPU(alloc)(&d->dev[a], KB_GPU(arg_bytes)(&d->info[a]), why,
                          sizeof why) != 0) {
            snprintf(err, len, "%s: %s", d->info[a].name, why);
            KB_GPU(tensors_free)(d);
            return -1;
        }
        d->from[a] = host->ptr[a];
    }
    return 0;
}

int KB_GPU(tensors_upload)(const kb_gpu_tensors *d, bool outputs, char *err,
                           size_t len)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *i = &d->info[a];
        if (!d->dev[a] || (!i->is_input && !outputs))
            continue;
        if (KB_GPU(upload)(d->dev[a], d->from[a], KB_GPU(arg_bytes)(i), err,
                           len) != 0)
            return -1;
    }
    return 0;
}

int KB_GPU(tensors_download)(const kb_gpu_tensors *d, char *err, size_t len)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *i = &d->info[a];
        if (d->dev[a] && i->is_output &&
            KB_GPU(download)(d->host->ptr[a], d->dev[a], KB_GPU(arg_bytes)(i),
                             err, len) != 0)
            return -1;
    }
    return 0;
}

int KB_GPU(plan_launches)(const kb_problem *p)
{
    bool repeatable = !(p->kind == KB_GEMM && p->gemm.beta != 0);
    return repeatable ? state.cfg.launches : 1;
}

void KB_GPU(math_env_info)(kb_info *info)
{
    static const char *const vars[] = {
#if defined(KB_GPU_CUDA)
        "NVIDIA_TF32_OVERRIDE",   /* 0 turns TF32 off in cuBLAS and cuDNN */
#elif defined(KB_GPU_HIP)
        /* 1 runs fp16 on gfx90a's bf16 instructions (rocBLAS, MIOpen) */
        "ROCBLAS_INTERNAL_FP16_ALT_IMPL",
        "MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL",
#endif
        NULL,
    };
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            kb_info_add(info, vars[i], "%s", v);
    }
}

int KB_GPU(device_free)(uint64_t *bytes, char *why, size_t len)
{
    return KB_GPU(free_bytes)(bytes, NULL, why, len);
}

/* Write twice the L2's size so that no input of the last sample is left
 * in it.  Returns 0, or -1 with err. */
static int flush_l2(char *err, size_t len)
{
    if (!state.flush_buf) {
        int l2 = attribute(gpuDevAttrL2CacheSize, state.cfg.device);
        state.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        if (KB_GPU(alloc)(&state.flush_buf, state.flush_bytes, err, len) != 0)
            return -1;
    }
    KB_GPU_TRY(gpuMemset(state.flush_buf, 0x5a, state.flush_bytes), err, len);
    return 0;
}

int KB_GPU(time_launches)(kb_gpu_launch_fn launch, void *ctx, int launches,
                          double *elapsed, char *err, size_t len)
{
    if (state.cfg.flush_l2 && flush_l2(err, len) != 0)
        return -1;
    gpuEvent_t ev[2] = {0, 0};
    int rc = -1;
    gpuError_t e;
    float ms = 0;
    if ((e = gpuEventCreate(&ev[0])) != gpuSuccess ||
        (e = gpuEventCreate(&ev[1])) != gpuSuccess) {
        KB_GPU(fail)("gpuEventCreate", e, err, len);
        goto out;
    }
    if ((e = gpuEventRecord(ev[0], 0)) != gpuSuccess) {
        KB_GPU(fail)("gpuEventRecord(start)", e, err, len);
        goto out;
    }
    for (int i = 0; i < launches; i++)
        if (launch(ctx, err, len) != 0)
            goto out;
    if ((e = gpuEventRecord(ev[1], 0)) != gpuSuccess ||
        (e = gpuEventSynchronize(ev[1])) != gpuSuccess) {
        /* an asynchronous kernel fault surfaces here */
        KB_GPU(fail)("gpuEventSynchronize(stop)", e, err, len);
        goto out;
    }
    if ((e = gpuEventElapsedTime(&ms, ev[0], ev[1])) != gpuSuccess) {
        KB_GPU(fail)("gpuEventElapsedTime", e, err, len);
        goto out;
    }
    *elapsed = ms * 1e-3 / launches;
    rc = 0;
out:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            (void)gpuEventDestroy(ev[i]);
    return rc;
}

void KB_GPU(timing_info)(int launches, kb_info *info)
{
#if defined(KB_GPU_SIM)
    gpusim_mode mode;
    int warp;
    char why[160];
    if (gpusim_settings(&mode, &warp, why, sizeof why) == 0) {
        kb_info_add(info, "gpusim_mode", "%s", gpusim_mode_name(mode));
        kb_info_add(info, "gpusim_warp", "%d", warp);
    }
    kb_info_add(info, "timings", "%s", KB_GPUSIM_TIMINGS);
#endif
    kb_info_add(info, "timer", "%s events around each sample", KB_GPU_VENDOR_NAME);
    kb_info_add(info, "launches_per_sample", "%d%s", launches,
                launches > 1 ? " (back-to-back between two events, the "
                               "sample is their time / launches)" : "");
    if (launches != state.cfg.launches)
        kb_info_add(info, "launches_note", "beta != 0 accumulates into dst: "
                    "one launch per sample");
    if (state.cfg.flush_l2)
        kb_info_add(info, "l2_flush", "yes (%zu bytes written before each "
                    "sample, untimed)", state.flush_bytes);
    else
        kb_info_add(info, "l2_flush", "no (--flush-l2 no)");
}

/* Through pointers, for the drivers. */
const kb_gpu_runtime KB_GPU(runtime) = {
    .name = KB_GPU_NAME,
#if defined(KB_GPU_SIM)
    .correctness_only = true,
#endif
    .device_count = KB_GPU(device_count),
    .select = KB_GPU(select),
    .props = KB_GPU(props),
    .alloc = KB_GPU(alloc),
    .free = KB_GPU(free),
    .upload = KB_GPU(upload),
    .pinned_alloc = KB_GPU(pinned_alloc),
    .pinned_free = KB_GPU(pinned_free),
    .stream = KB_GPU(stream),
    .fma_peak = KB_GPU(fma_peak),
};
