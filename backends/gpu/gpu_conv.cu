/* gpu_conv.cu - forward convolution (FWD_B, FWD_D, FWD_I; 2D and 3D; NCX
 * and NXC; groups, stride, padding, dilation) in f32 and f64: an implicit
 * GEMM per group on gpu_tile.cuh's engine, its A tile gathered from src
 * through gpu_conv_index.h; and the depthwise convolution, direct, one
 * thread per output element. */
#include "backends/gpu/gpu_tile.cuh"
#include "backends/gpu/gpu_conv_index.h"

namespace {

/* The engine's Op for group g's GEMM: rows the output positions, columns
 * the group's output channels, reduction (channel, tap).  A tile loads
 * walk along src's contiguous dimension: rows (output positions) in NCX,
 * k (channels) in NXC; B tile loads along k, each weight row's
 * contiguous dimension in NCX.  stage() tabulates each step's bk taps
 * in shared memory, so a gather costs an addition and a bounds check. */
template <typename T, int BK, bool NXC>
struct conv_op {
    static constexpr bool a_kfast = NXC, b_kfast = true;
    using a_row = kb_conv_row;
    using b_col = int64_t;     /* output channel, over all groups */
    kb_conv_geom q;
    const T *__restrict__ src;
    const T *__restrict__ wei;
    const T *__restrict__ bia; /* NULL without a bias */
    T *__restrict__ dst;
    int64_t g;
    kb_conv_tap (*taps)[BK];   /* shared: [2][BK] */

    __device__ kb_conv_row row(int64_t m) const
    {
        return kb_conv_row_of(&q, m, g);
    }
    __device__ int64_t col(int64_t j) const { return g * q.ocg + j; }
    __device__ void stage(int buf, int64_t k0) const
    {
        const int t = threadIdx.x;
        if (t < BK && k0 + t < q.red)
            taps[buf][t] = kb_conv_tap_of(&q, k0 + t);
    }
    __device__ T a(const kb_conv_row &r, int64_t, int kl, int buf) const
    {
        const int64_t off = kb_conv_src_at(&q, &r, &taps[buf][kl]);
        return off < 0 ? T(0) : src[off];
    }
    __device__ T b(int64_t oc, int64_t, int kl, int buf) const
    {
        return wei[kb_conv_wei_at(&q, oc, &taps[buf][kl])];
    }
    __device__ int64_t out_row(int64_t m) const
    {
        return kb_conv_dst_row(&q, m);
    }
    __device__ void out(int64_t r, int64_t j, T v) const
    {
        const int64_t oc = g * q.ocg + j;
        dst[r + oc * q.dst_c] = bia ? v + bia[oc] : v;
    }
};

template <typename T, class S, bool NXC>
__global__ void __launch_bounds__(S::threads)
conv_kernel(const kb_conv_geom q, const T *src, const T *wei, const T *bia,
            T *dst, const tile_grid grid)
{
    static_assert(S::threads >= S::bk, "stage() has a thread per tap");
    __shared__ kb_conv_tap taps[2][S::bk];
    tile_pos p;
    if (!tile_of(grid, S::bm, S::bn, &p))
        return;
    const conv_op<T, S::bk, NXC> op = {q, src, wei, bia, dst, p.g, taps};
    tile_run<T, S>(op, p.m0, p.n0, q.rows, q.ocg, q.red);
}

/* "f32 NHWC mb=2 g=1 ic=3 id=1 ih=5 iw=5 oc=8 ...", for messages. */
static void conv_what(const kb_problem *p, char *buf, size_t len)
{
    const kb_conv_desc *c = &p->conv;
    snprintf(buf, len,
             "%s %s mb=%lld g=%lld ic=%lld id=%lld ih=%lld iw=%lld oc=%lld "
             "od=%lld oh=%lld ow=%lld k=%lldx%lldx%lld",
             kb_dtype_name(p->dt.dst), kb_layout_name(p), (long long)c->mb,
             (long long)c->g, (long long)c->ic, (long long)c->id,
             (long long)c->ih, (long long)c->iw, (long long)c->oc,
             (long long)c->od, (long long)c->oh, (long long)c->ow,
             (long long)c->kd, (long long)c->kh, (long long)c->kw);
}

/* The bias, when the direction has one (FWD_B); -1 with err when it is
 * missing. */
static int conv_bias(const kb_problem *p, void *const arg[KB_ARG_MAX],
              const void **bia, char *err, size_t len)
{
    *bia = p->dir == KB_FWD_B ? arg[KB_ARG_BIA] : NULL;
    if (p->dir == KB_FWD_B && !*bia) {
        snprintf(err, len, "conv FWD_B: no bias buffer");
        return -1;
    }
    return 0;
}

template <typename T, class S, bool NXC>
int conv_launch(const kb_problem *p, void *const arg[KB_ARG_MAX], char *err,
                size_t len)
{
    const void *bia;
    if (conv_bias(p, arg, &bia, err, len) != 0)
        return -1;
    const kb_conv_geom q = kb_conv_geom_of(&p->conv, p->layout);
    tile_grid grid;
    dim3 blocks;
    if (!tile_grid_of(q.rows, q.ocg, q.g, S::bm, S::bn, &grid, &blocks, err,
                      len))
        return -1;
    KB_GPU_LAUNCH(blocks, S::threads, conv_kernel<T, S, NXC>)(
        q, (const T *)arg[KB_ARG_SRC], (const T *)arg[KB_ARG_WEI],
        (const T *)bia, (T *)arg[KB_ARG_DST], grid);
    char what[256];
    conv_what(p, what, sizeof what);
    return launched("conv_kernel", what, err, len);
}

/* dst element e (storage order) of a depthwise convolution: C/G = OC/G
 * = 1, so output channel oc is group oc and reads src channel oc. */
template <typename T>
__global__ void __launch_bounds__(KB_GPU_BNORM_THREADS)
depthwise_kernel(const kb_conv_geom q, const T *__restrict__ src,
                 const T *__restrict__ wei, const T *__restrict__ bia,
                 T *__restrict__ dst, int64_t total)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
         e < total; e += step) {
        int64_t m, oc;
        kb_conv_dst_elem(&q, e, &m, &oc);
        const kb_conv_row r = kb_conv_row_of(&q, m, oc);
        T acc = T(0);
        for (int64_t kd = 0; kd < q.kd; kd++)
            for (int64_t kh = 0; kh < q.kh; kh++)
                for (int64_t kw = 0; kw < q.kw; kw++) {
                    const kb_conv_tap t = kb_conv_tap_at(&q, 0, kd, kh, kw);
                    const int64_t off = kb_conv_src_at(&q, &r, &t);
                    if (off >= 0)
                        acc = fma(src[off], wei[kb_conv_wei_at(&q, oc, &t)],
                                  acc);
                }
        dst[e] = bia ? acc + bia[oc] : acc;
    }
}

template <typename T>
int depthwise_launch(const kb_problem *p, void *const arg[KB_ARG_MAX],
                     char *err, size_t len)
{
    const void *bia;
    if (conv_bias(p, arg, &bia, err, len) != 0)
        return -1;
    const kb_conv_geom q = kb_conv_geom_of(&p->conv, p->layout);
    const int64_t total = q.rows * q.g * q.ocg;
    const int64_t threads = KB_GPU_BNORM_THREADS;
    int64_t blocks = (total + threads - 1) / threads;
    if (blocks > grid_max)
        blocks = grid_max;     /* the grid-stride loop does the rest */
    if (blocks < 1)
        return 0;
    KB_GPU_LAUNCH((unsigned)blocks, (unsigned)threads, depthwise_kernel<T>)(
        q, (const T *)arg[KB_ARG_SRC], (const T *)arg[KB_ARG_WEI],
        (const T *)bia, (T *)arg[KB_ARG_DST], total);
    char what[256];
    conv_what(p, what, sizeof what);
    return launched("depthwise_kernel", what, err, len);
}

/* -1 with err unless p's tensors are all f32 or all f64 (the glue's
 * supports() has refused the rest). */
static int conv_type_check(const kb_problem *p, char *err, size_t len)
{
    const kb_dtype dt = p->dt.dst;
    if ((dt != KB_F32 && dt != KB_F64) || p->dt.src != dt ||
        p->dt.wei != dt) {
        snprintf(err, len, "conv: f32 or f64 throughout only");
        return -1;
    }
    return 0;
}

} /* namespace */

extern "C" int KB_GPU(conv_fwd)(const kb_problem *p, const kb_gpu_tuning *t,
                                void *const arg[KB_ARG_MAX], char *err,
                                size_t len)
{
    if (conv_type_check(p, err, len) != 0)
        return -1;
    const bool f64 = p->dt.dst == KB_F64, nxc = p->layout == KB_LAYOUT_NXC;
    return with_tile(
        t,
        [&](auto s) {
            using S = decltype(s);
            if (f64)
                return nxc ? conv_launch<double, S, true>(p, arg, err, len)
                           : conv_launch<double, S, false>(p, arg, err, len);
            return nxc ? conv_launch<float, S, true>(p, arg, err, len)
                       : conv_launch<float, S, false>(p, arg, err, len);
        },
        err, len);
}

extern "C" bool KB_GPU(conv_is_depthwise)(const kb_problem *p)
{
    return p->kind == KB_CONV && p->conv.g == p->conv.ic &&
           p->conv.g == p->conv.oc;
}

extern "C" int KB_GPU(conv_depthwise)(const kb_problem *p,
                                      void *const arg[KB_ARG_MAX], char *err,
                                      size_t len)
{
    if (!KB_GPU(conv_is_depthwise)(p)) {
        snprintf(err, len, "depthwise conv: needs g == ic == oc");
        return -1;
    }
    if (conv_type_check(p, err, len) != 0)
        return -1;
    return p->dt.dst == KB_F64 ? depthwise_launch<double>(p, arg, err, len)
                               : depthwise_launch<float>(p, arg, err, len);
}
