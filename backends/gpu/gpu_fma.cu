/* gpu_fma.cu - the FMA peak of each precision the device has: fp64 and
 * fp32 scalar FMA, fp16 and bf16 as packed pairs (__hfma2), many
 * independent accumulators per thread, 4 blocks of 1024 threads per SM,
 * each trial timed with events, the best kept.  One source for nvcc and
 * hipcc.
 *
 * Every thread runs `iters` x UNROLL rounds of ACC independent FMA chains,
 * acc = acc * m + a, with m and a kernel arguments the compiler cannot
 * fold, and stores the sum of its chains, so that none can be dropped.
 * m < 1 keeps every chain bounded (it converges to a / (1 - m)), in fp16
 * too. */
#include "backends/gpu/gpu_device.h"

#include <stdio.h>
#include <string.h>

#if defined(KB_GPU_HIP)
#include <hip/hip_fp16.h>
#if __has_include(<hip/hip_bf16.h>)   /* ROCm 5.7 on: __hip_bfloat162, __hfma2 */
#include <hip/hip_bf16.h>
#define KB_FMA_BF16 1
typedef __hip_bfloat162 kb_bf162;
/* HIP (5.7, 6.4) has no __float2bfloat162_rn(float): its float2 form */
#define KB_BF162_SPLAT(x) __float22bfloat162_rn(make_float2((x), (x)))
#endif
#elif defined(KB_GPU_SIM)             /* gpusim_device.hh has both pairs */
#define KB_FMA_BF16 1
typedef gpusim_bf162 kb_bf162;
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define KB_FMA_BF16 1
typedef __nv_bfloat162 kb_bf162;
#endif
#if defined(KB_FMA_BF16) && !defined(KB_BF162_SPLAT)
#define KB_BF162_SPLAT(x) __float2bfloat162_rn(x)   /* CUDA's, gpusim's */
#endif

#define ACC 8                   /* independent chains per thread: covers
                                   the FMA latency (4-6 cycles) x issue */
#define UNROLL 4                /* rounds of ACC FMAs per loop iteration */
#define THREADS 1024
#define BLOCKS_PER_SM 4
#define TRIALS 5                /* after one untimed warm-up */
#define TRIAL_S 0.02            /* aim: each trial about 20 ms */
#define START_ITERS 64
#define MAX_ITERS (1 << 20)

/* The packed 16-bit FMA exists from compute capability 5.3 (fp16) and
 * 8.0 (bf16); where the device code is built for less, the kernel body
 * is empty, and the host never launches it (precision_ok). */
#if defined(KB_GPU_HIP) || !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 530
#define KB_DEVICE_FP16 1
#endif
#if defined(KB_FMA_BF16) && \
    (defined(KB_GPU_HIP) || !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define KB_DEVICE_BF16 1
#endif

/* The kernels have internal linkage: the CUDA and the HIP build of this
 * file link into one kbench. */
namespace {

__device__ inline double kb_fma(double x, double m, double a)
{
    return fma(x, m, a);
}
__device__ inline float kb_fma(float x, float m, float a)
{
    return fmaf(x, m, a);
}

/* One kernel per scalar type: ACC chains, iters x UNROLL rounds. */
template <typename T>
__global__ void fma_kernel(T m, T a, int iters, T *out)
{
    T acc[ACC];
    for (int j = 0; j < ACC; j++)
        acc[j] = (T)(threadIdx.x + j) * (T)1e-3;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int j = 0; j < ACC; j++)
                acc[j] = kb_fma(acc[j], m, a);
    }
    T sum = 0;
    for (int j = 0; j < ACC; j++)
        sum += acc[j];
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = sum;
}

/* The packed 16-bit pairs: the type, and a pair of one float.  A pair
 * whose device code is not built for this architecture (on_device false)
 * gets an empty kernel body, and the host never launches it
 * (precision_ok). */
struct fp16_pair {
    typedef __half2 T;
#if defined(KB_DEVICE_FP16)
    static constexpr bool on_device = true;
#else
    static constexpr bool on_device = false;
#endif
    static __device__ T make(float x) { return __float2half2_rn(x); }
};
#if defined(KB_FMA_BF16)
struct bf16_pair {
    typedef kb_bf162 T;
#if defined(KB_DEVICE_BF16)
    static constexpr bool on_device = true;
#else
    static constexpr bool on_device = false;
#endif
    static __device__ T make(float x) { return KB_BF162_SPLAT(x); }
};
#endif

/* The packed kernel: ACC chains of pairs, iters x UNROLL rounds. */
template <typename P>
__global__ void hfma2_kernel(float m, float a, int iters, float *out)
{
    if constexpr (P::on_device) {
        typename P::T acc[ACC];
        const typename P::T hm = P::make(m), ha = P::make(a);
        for (int j = 0; j < ACC; j++)
            acc[j] = P::make((threadIdx.x % 64 + j) * 1e-3f);
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
#pragma unroll
                for (int j = 0; j < ACC; j++)
                    acc[j] = __hfma2(acc[j], hm, ha);
        }
        float sum = 0;
        for (int j = 0; j < ACC; j++)
            sum += __low2float(acc[j]) + __high2float(acc[j]);
        out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = sum;
    }
}

}  // namespace

/* The precisions, in the order of the results. */
enum { P_FP64, P_FP32, P_FP16, P_BF16, NPREC };
static const struct {
    const char *precision, *kernel;
    double flops_per_fma;      /* per thread and chain: 2, x2 packed */
} prec[NPREC] = {
    {"fp64", "gpu-fma-fp64", 2},
    {"fp32", "gpu-fma-fp32", 2},
    {"fp16", "gpu-hfma2-fp16", 4},
    {"bf16", "gpu-hfma2-bf16", 4},
};

typedef struct {
    int blocks;
    void *out;                 /* blocks x THREADS doubles (fits any type) */
    gpuEvent_t start, stop;
} fma_ctx;

/* Enqueue precision p's kernel.  Returns 0, or -1 with err. */
static int launch(const fma_ctx *c, int p, int iters, char *err, size_t len)
{
    /* m just below 1, a small: the chains converge, never overflow */
    const float m = 0.999f, a = 0.001f;
    switch (p) {
    case P_FP64:
        KB_GPU_LAUNCH(c->blocks, THREADS, fma_kernel<double>)(m, a, iters,
                                                   (double *)c->out);
        break;
    case P_FP32:
        KB_GPU_LAUNCH(c->blocks, THREADS, fma_kernel<float>)(m, a, iters,
                                                  (float *)c->out);
        break;
    case P_FP16:
        KB_GPU_LAUNCH(c->blocks, THREADS, hfma2_kernel<fp16_pair>)(m, a, iters,
                                                        (float *)c->out);
        break;
    default:
#if defined(KB_FMA_BF16)
        KB_GPU_LAUNCH(c->blocks, THREADS, hfma2_kernel<bf16_pair>)(m, a, iters,
                                                        (float *)c->out);
        break;
#else
        snprintf(err, len, "bf16 FMA: this HIP has no packed bf16 type");
        return -1;
#endif
    }
    KB_GPU_TRY(gpuGetLastError(), err, len);
    return 0;
}

/* One launch between two events: seconds into *t.  Returns 0, or -1. */
static int timed(const fma_ctx *c, int p, int iters, double *t, char *err,
                 size_t len)
{
    float ms = 0;
    KB_GPU_TRY(gpuEventRecord(c->start, 0), err, len);
    if (launch(c, p, iters, err, len) != 0)
        return -1;
    KB_GPU_TRY(gpuEventRecord(c->stop, 0), err, len);
    KB_GPU_TRY(gpuEventSynchronize(c->stop), err, len);
    KB_GPU_TRY(gpuEventElapsedTime(&ms, c->start, c->stop), err, len);
    *t = ms * 1e-3;
    return 0;
}

/* Best GFLOP/s of precision p: grow iters until a launch takes about
 * TRIAL_S (the first launches also warm the device up), then TRIALS
 * timed launches.  Returns 0, or -1 with err. */
static int peak(const fma_ctx *c, int p, double *gflops, char *err,
                size_t len)
{
    int iters = START_ITERS;
    double t = 0;
    for (;;) {
        if (timed(c, p, iters, &t, err, len) != 0)
            return -1;
        if (t >= TRIAL_S / 4 || iters >= MAX_ITERS)
            break;
        iters = iters * 4 > MAX_ITERS ? MAX_ITERS : iters * 4;
    }
    if (t > 0 && t < TRIAL_S) {
        double scaled = iters * (TRIAL_S / t);
        iters = scaled > MAX_ITERS ? MAX_ITERS : (int)scaled;
    }
    double best = 0;
    for (int r = 0; r < TRIALS; r++) {
        if (timed(c, p, iters, &t, err, len) != 0)
            return -1;
        if (t > 0 && (best == 0 || t < best))
            best = t;
    }
    if (!(best > 0)) {
        snprintf(err, len, "FMA peak %s: every trial timed at 0 s",
                 prec[p].precision);
        return -1;
    }
    double flops = (double)c->blocks * THREADS * iters * UNROLL * ACC *
                   prec[p].flops_per_fma;
    *gflops = flops / best * 1e-9;
    return 0;
}

/* Does the device have precision p?  fp16 from compute capability 5.3
 * (every gfx9 and later), bf16 from 8.0, and on HIP only where its
 * headers have the packed bf16 FMA (ROCm 6). */
static bool precision_ok(int p, int major, int minor)
{
#if defined(KB_GPU_HIP)
    (void)major, (void)minor;
    bool fp16 = true;
#if defined(KB_FMA_BF16)
    bool bf16 = true;
#else
    bool bf16 = false;
#endif
#else
    bool fp16 = major > 5 || (major == 5 && minor >= 3);
    bool bf16 = major >= 8;
#endif
    return p == P_FP16 ? fp16 : p == P_BF16 ? bf16 : true;
}

extern "C" int KB_GPU(fma_peak)(kb_gpu_fma_result *out, int max, char *err,
                                size_t len)
{
    int dev = 0, sms = 0, major = 0, minor = 0;
    KB_GPU_TRY(gpuGetDevice(&dev), err, len);
    KB_GPU_TRY(gpuDeviceGetAttribute(&sms, gpuDevAttrMultiProcessorCount, dev),
               err, len);
    KB_GPU_TRY(gpuDeviceGetAttribute(&major, gpuDevAttrComputeCapabilityMajor,
                                     dev), err, len);
    KB_GPU_TRY(gpuDeviceGetAttribute(&minor, gpuDevAttrComputeCapabilityMinor,
                                     dev), err, len);
    fma_ctx c;
    memset(&c, 0, sizeof c);
    c.blocks = BLOCKS_PER_SM * (sms > 0 ? sms : 1);
    int n = 0, rc = -1;
    gpuError_t e;
    if (KB_GPU(alloc)(&c.out, (size_t)c.blocks * THREADS * sizeof(double), err,
                      len) != 0)
        return -1;
    if ((e = gpuEventCreate(&c.start)) != gpuSuccess ||
        (e = gpuEventCreate(&c.stop)) != gpuSuccess) {
        KB_GPU(fail)("gpuEventCreate", e, err, len);
        goto done;
    }
    for (int p = 0; p < NPREC && n < max; p++) {
        if (!precision_ok(p, major, minor))
            continue;
        double g = 0;
        if (peak(&c, p, &g, err, len) != 0)
            goto done;
        out[n].precision = prec[p].precision;
        out[n].kernel = prec[p].kernel;
        out[n].gflops = g;
        n++;
    }
    rc = n;
done:
    if (c.start)
        (void)gpuEventDestroy(c.start);
    if (c.stop)
        (void)gpuEventDestroy(c.stop);
    KB_GPU(free)(c.out);
    return rc;
}
