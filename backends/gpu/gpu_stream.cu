/* gpu_stream.cu - device-memory bandwidth, BabelStream's way: copy, mul,
 * add, triad and dot over three fp64 arrays in device memory, each pass
 * timed with events, the first untimed, results checked against the
 * scalar replay of the same sequence.  One source for nvcc and hipcc.
 *
 * Bytes are counted as BabelStream does: copy and mul move 2 arrays, add
 * and triad 3, dot reads 2; write-allocate traffic is not counted.  The
 * kernels are grid-stride loops with 64-bit indices, so any n fits. */
#include "backends/gpu/gpu_device.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* BabelStream's start values and scalar: the arrays keep changing from
 * pass to pass, but stay in a range where fp64 rounding is tiny. */
#define START_A 0.1
#define START_B 0.2
#define START_C 0.0
#define SCALAR 0.4

#define THREADS 256              /* per block; a power of two (reductions) */
#define BLOCKS_PER_SM 16         /* grid-stride: enough blocks to fill */
#define DOT_BLOCKS_PER_SM 4

/* Relative error allowed per element: the device may fuse b + s*c into
 * one FMA where the host replay rounds twice; a wrong kernel is off by
 * far more.  dot sums n products in another order than n*a*b. */
#define ARRAY_TOL 1e-12
#define DOT_TOL 1e-8

/* The kernels have internal linkage: the CUDA and the HIP build of this
 * file link into one kbench. */
namespace {

__global__ void init_kernel(double *a, double *b, double *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        a[i] = START_A;
        b[i] = START_B;
        c[i] = START_C;
    }
}

__global__ void copy_kernel(const double *a, double *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i];
}

__global__ void mul_kernel(double *b, const double *c, double s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = s * c[i];
}

__global__ void add_kernel(const double *a, const double *b, double *c,
                           size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

__global__ void triad_kernel(double *a, const double *b, const double *c,
                             double s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}

/* Tree reduction of one value per thread in shared memory; thread 0
 * returns the block's sum.  Through shared memory, not warp shuffles, so
 * a 64-lane wavefront reduces the same way as a 32-lane warp. */
__device__ double block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    return sh[0];
}

/* First pass of dot: one partial sum per block. */
__global__ void dot_kernel(const double *a, const double *b, double *partial,
                           size_t n)
{
    __shared__ double sh[THREADS];
    double sum = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        sum += a[i] * b[i];
    sum = block_sum(sum, sh);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sum;
}

/* Second pass: one block sums the partials into *out. */
__global__ void dot_final_kernel(const double *partial, int nblocks,
                                 double *out)
{
    __shared__ double sh[THREADS];
    double sum = 0;
    for (int i = threadIdx.x; i < nblocks; i += blockDim.x)
        sum += partial[i];
    sum = block_sum(sum, sh);
    if (threadIdx.x == 0)
        *out = sum;
}

/* Count the elements of x further than tol (relative) from gold into
 * *bad: the check of BabelStream, on the device instead of copying 6 GiB
 * back. */
__global__ void check_kernel(const double *x, double gold, double tol,
                             size_t n, unsigned long long *bad)
{
    __shared__ double sh[THREADS];
    double wrong = 0;   /* counts in a double: block_sum is shared */
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (!(fabs(x[i] - gold) <= tol * fabs(gold)))
            wrong += 1;   /* NaN counts too */
    wrong = block_sum(wrong, sh);
    if (threadIdx.x == 0 && wrong > 0)
        atomicAdd(bad, (unsigned long long)wrong);
}

}  // namespace

/* Everything one measurement holds, freed by release(). */
typedef struct {
    double *a, *b, *c, *partial, *dot;
    unsigned long long *bad;
    gpuEvent_t start, stop;
    size_t n;
    int blocks, dot_blocks;
} stream_ctx;

static void release(stream_ctx *s)
{
    KB_GPU(free)(s->a);
    KB_GPU(free)(s->b);
    KB_GPU(free)(s->c);
    KB_GPU(free)(s->partial);
    KB_GPU(free)(s->dot);
    KB_GPU(free)(s->bad);
    if (s->start)
        (void)gpuEventDestroy(s->start);
    if (s->stop)
        (void)gpuEventDestroy(s->stop);
}

/* Launch kernel k once (for dot: both passes).  Returns 0, or -1 with
 * err naming the launch. */
static int launch(stream_ctx *s, int k, char *err, size_t len)
{
    switch (k) {
    case KB_GPU_COPY:
        KB_GPU_LAUNCH(s->blocks, THREADS, copy_kernel)(s->a, s->c, s->n);
        break;
    case KB_GPU_MUL:
        KB_GPU_LAUNCH(s->blocks, THREADS, mul_kernel)(s->b, s->c, SCALAR,
                                                      s->n);
        break;
    case KB_GPU_ADD:
        KB_GPU_LAUNCH(s->blocks, THREADS, add_kernel)(s->a, s->b, s->c, s->n);
        break;
    case KB_GPU_TRIAD:
        KB_GPU_LAUNCH(s->blocks, THREADS, triad_kernel)(s->a, s->b, s->c,
                                                        SCALAR, s->n);
        break;
    default:
        KB_GPU_LAUNCH(s->dot_blocks, THREADS, dot_kernel)(s->a, s->b,
                                                          s->partial, s->n);
        KB_GPU_TRY(gpuGetLastError(), err, len);
        KB_GPU_LAUNCH(1, THREADS, dot_final_kernel)(s->partial,
                                                    s->dot_blocks, s->dot);
        break;
    }
    KB_GPU_TRY(gpuGetLastError(), err, len);
    return 0;
}

/* One timed launch of kernel k: seconds into *t.  Returns 0, or -1. */
static int timed(stream_ctx *s, int k, double *t, char *err, size_t len)
{
    float ms = 0;
    KB_GPU_TRY(gpuEventRecord(s->start, 0), err, len);
    if (launch(s, k, err, len) != 0)
        return -1;
    KB_GPU_TRY(gpuEventRecord(s->stop, 0), err, len);
    /* an asynchronous kernel fault surfaces here */
    KB_GPU_TRY(gpuEventSynchronize(s->stop), err, len);
    KB_GPU_TRY(gpuEventElapsedTime(&ms, s->start, s->stop), err, len);
    *t = ms * 1e-3;
    return 0;
}

/* Elements of x (n) off their expected value gold.  Returns 0, or -1. */
static int count_wrong(stream_ctx *s, const double *x, double gold, double tol,
                       unsigned long long *wrong, char *err, size_t len)
{
    KB_GPU_TRY(gpuMemset(s->bad, 0, sizeof *s->bad), err, len);
    KB_GPU_LAUNCH(s->blocks, THREADS, check_kernel)(x, gold, tol, s->n,
                                                    s->bad);
    KB_GPU_TRY(gpuGetLastError(), err, len);
    KB_GPU_TRY(gpuMemcpy(wrong, s->bad, sizeof *wrong, gpuMemcpyDeviceToHost),
               err, len);
    return 0;
}

/* BabelStream's check: replay the `reps` passes on scalars, then compare
 * every element of a, b and c, and the last dot.  Returns 0, or -1 with
 * err naming the array and how many elements are wrong. */
static int check(stream_ctx *s, int reps, char *err, size_t len)
{
    double ga = START_A, gb = START_B, gc = START_C;
    for (int r = 0; r < reps; r++) {
        gc = ga;
        gb = SCALAR * gc;
        gc = ga + gb;
        ga = gb + SCALAR * gc;
    }
    const double gold[3] = {ga, gb, gc};
    const double *arr[3] = {s->a, s->b, s->c};
    for (int i = 0; i < 3; i++) {
        unsigned long long wrong = 0;
        if (count_wrong(s, arr[i], gold[i], ARRAY_TOL, &wrong, err, len) != 0)
            return -1;
        if (wrong) {
            snprintf(err, len, "device-memory bandwidth: %llu of %zu elements "
                     "of %c differ from %.17g by more than %g (relative)",
                     wrong, s->n, "abc"[i], gold[i], ARRAY_TOL);
            return -1;
        }
    }
    double dot = 0, gdot = ga * gb * (double)s->n;
    KB_GPU_TRY(gpuMemcpy(&dot, s->dot, sizeof dot, gpuMemcpyDeviceToHost), err,
               len);
    if (!(fabs(dot - gdot) <= DOT_TOL * fabs(gdot))) {
        snprintf(err, len, "device-memory bandwidth: dot gave %.17g, expected "
                 "%.17g (relative error above %g)", dot, gdot, DOT_TOL);
        return -1;
    }
    return 0;
}

/* Refuse, with the numbers, arrays that do not fit in the free device
 * memory.  Returns 0, or -1. */
static int fits(size_t n, int dot_blocks, char *err, size_t len)
{
    size_t f = 0, t = 0;
    KB_GPU_TRY(gpuMemGetInfo(&f, &t), err, len);
    /* 3 arrays, overflow-checked: n * 8 * 3 must fit in a size_t */
    if (n > (size_t)-1 / (3 * sizeof(double))) {
        snprintf(err, len, "device-memory bandwidth: 3 arrays of %zu doubles "
                 "overflow a size", n);
        return -1;
    }
    double need = 3.0 * (double)n * sizeof(double) +
                  (double)dot_blocks * sizeof(double) + 64;
    if (need > (double)f) {
        snprintf(err, len, "device-memory bandwidth: 3 arrays of %zu doubles "
                 "need %.2f GiB, the device has %.2f GiB free of %.2f GiB",
                 n, need / (1 << 30), (double)f / (1 << 30),
                 (double)t / (1 << 30));
        return -1;
    }
    return 0;
}

/* The passes: kernels in BabelStream's order, `reps` times; pass 0 is
 * untimed.  Returns 0, or -1. */
static int measure(stream_ctx *s, int reps,
                   kb_gpu_stream_result out[KB_GPU_STREAM_KERNELS], char *err,
                   size_t len)
{
    static const char *const names[KB_GPU_STREAM_KERNELS] = {
        "copy", "mul", "add", "triad", "dot"};
    static const int arrays[KB_GPU_STREAM_KERNELS] = {2, 2, 3, 3, 2};
    for (int k = 0; k < KB_GPU_STREAM_KERNELS; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].name = names[k];
        out[k].bytes = (double)arrays[k] * sizeof(double) * (double)s->n;
        out[k].min_s = INFINITY;
    }
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < KB_GPU_STREAM_KERNELS; k++) {
            double t = 0;
            if (timed(s, k, &t, err, len) != 0)
                return -1;
            if (r == 0)
                continue;
            out[k].min_s = fmin(out[k].min_s, t);
            out[k].max_s = fmax(out[k].max_s, t);
            out[k].avg_s += t / (reps - 1);
        }
    for (int k = 0; k < KB_GPU_STREAM_KERNELS; k++) {
        if (!(out[k].min_s > 0)) {
            snprintf(err, len, "device-memory bandwidth: %s timed at %g s",
                     names[k], out[k].min_s);
            return -1;
        }
        out[k].gbps = out[k].bytes / out[k].min_s * 1e-9;
    }
    return check(s, reps, err, len);
}

extern "C" int KB_GPU(stream)(size_t n, int reps,
                              kb_gpu_stream_result out[KB_GPU_STREAM_KERNELS],
                              char *err, size_t len)
{
    if (n < 1 || reps < 2) {
        snprintf(err, len, "device-memory bandwidth: %zu elements, %d passes: "
                 "expected at least 1 and 2 (the first is untimed)", n, reps);
        return -1;
    }
    int dev = 0, sms = 0;
    KB_GPU_TRY(gpuGetDevice(&dev), err, len);
    KB_GPU_TRY(gpuDeviceGetAttribute(&sms, gpuDevAttrMultiProcessorCount, dev),
               err, len);
    stream_ctx s;
    memset(&s, 0, sizeof s);
    s.n = n;
    size_t need_blocks = (n + THREADS - 1) / THREADS;
    size_t blocks = (size_t)(sms > 0 ? sms : 1) * BLOCKS_PER_SM;
    s.blocks = (int)(blocks < need_blocks ? blocks : need_blocks);
    s.dot_blocks = (sms > 0 ? sms : 1) * DOT_BLOCKS_PER_SM;
    if (fits(n, s.dot_blocks, err, len) != 0)
        return -1;
    int rc = -1;
    gpuError_t e;
    if (KB_GPU(alloc)((void **)&s.a, n * sizeof(double), err, len) != 0 ||
        KB_GPU(alloc)((void **)&s.b, n * sizeof(double), err, len) != 0 ||
        KB_GPU(alloc)((void **)&s.c, n * sizeof(double), err, len) != 0 ||
        KB_GPU(alloc)((void **)&s.partial, s.dot_blocks * sizeof(double), err,
                      len) != 0 ||
        KB_GPU(alloc)((void **)&s.dot, sizeof(double), err, len) != 0 ||
        KB_GPU(alloc)((void **)&s.bad, sizeof *s.bad, err, len) != 0)
        goto out;
    if ((e = gpuEventCreate(&s.start)) != gpuSuccess ||
        (e = gpuEventCreate(&s.stop)) != gpuSuccess) {
        KB_GPU(fail)("gpuEventCreate", e, err, len);
        goto out;
    }
    KB_GPU_LAUNCH(s.blocks, THREADS, init_kernel)(s.a, s.b, s.c, n);
    if ((e = gpuGetLastError()) != gpuSuccess ||
        (e = gpuDeviceSynchronize()) != gpuSuccess) {
        KB_GPU(fail)("init_kernel", e, err, len);
        goto out;
    }
    rc = measure(&s, reps, out, err, len);
out:
    release(&s);
    return rc;
}
