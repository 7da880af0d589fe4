/* gpu_bnorm.cu - batchnorm forward on the GPU: inference (FWD_I, the given
 * mean and var) and training (FWD_D, the batch statistics by a parallel
 * reduction, written to MEAN and VAR), 2D and 3D, NCX and NXC, f32 and
 * f64, for the `cuda` and `hip` backends (one source, gpu_runtime.h).
 *
 * Per channel c over its M = N x spatial values, as ref_bnorm.c:
 *   training:  mean = sum(x) / M, var = sum((x - mean)^2) / M (biased);
 *   dst = (x - mean) * (scale / sqrt(var + eps)) + shift,
 * scale 1 and shift 0 where the problem has none (arg NULL).
 *
 * Geometry (bnorm_split, for every kernel but finalize): a block is tx
 * channels x ty rows, a row being one (image, spatial point) of a channel.
 * Where channels are contiguous (NXC, or one spatial point) tx of them sit
 * side by side, so a row of the block reads 128 contiguous bytes of f32;
 * in NCX tx = 1 and the ty threads walk along the contiguous spatial
 * points.  A channel's M rows are cut into `parts` of part_rows; block
 * (tile, part) owns them, and thread (x, y) visits rows y, y + ty, y +
 * 2 ty, ... of its part in register tiles of ROWS loads (ROWS in flight).
 * An odometer keeps (image, point) so no element costs a division.
 *
 * Training statistics, numerically sound and in a fixed order
 * (deterministic):
 *   bnorm_stats     each register tile's sum and squared deviations from
 *                   the tile's own mean (two passes over registers), merged
 *                   per thread, then across the block in a shared-memory
 *                   tree; each (channel, part) writes its (sum, M2) to the
 *                   workspace;
 *   bnorm_finalize  one block per channel merges its parts the same way:
 *                   mean = the sum of sums / M (exact on integer data),
 *                   var = M2 / M;
 *   bnorm_normalise dst, reading mean and var (FWD_I: the given ones).
 * Merging is Chan's pairwise formula,
 *   M2 = M2_a + M2_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b),
 * which has none of E[x^2] - E[x]^2's cancellation.  Everything is
 * computed in the storage type, the accumulation type (f32 or f64).
 * Reductions go through shared memory: no warp or wavefront size is
 * assumed. */
#include "backends/gpu/gpu_kernels.h"
#include "backends/gpu/gpu_device.h"

#include <stdio.h>

/* Internal linkage throughout (static as well: nvcc gives an anonymous
 * namespace external, if unique, names), so that the cuda and hip builds
 * link into one kbench. */
namespace {

constexpr int THREADS = KB_GPU_BNORM_THREADS;
constexpr int ROWS = 8;              /* loads a thread keeps in registers */
constexpr int TX_MAX = 32;           /* channels side by side: 128 B of f32 */
/* Blocks a grid aims at: a few waves on a large GPU (132 SMs x 8 blocks
 * of 256 threads resident on an H200), and a bound on the workspace and
 * on the parts finalize merges per channel. */
constexpr int64_t BLOCKS_TARGET = 4096;

static_assert((THREADS & (THREADS - 1)) == 0 && THREADS >= TX_MAX,
              "the block trees need a power-of-two block of >= TX_MAX");

/* What every kernel needs of the problem and the split. */
struct geom {
    int64_t C, S, M;                 /* channels, spatial points, rows */
    int64_t stride_n, stride_c, stride_s;
    int64_t part_rows, parts;
    int64_t dn, ds;                  /* ty rows as (images, points) */
};

/* The rows one thread visits: from `row`, every ty-th (blockDim.y), with
 * its (image n, point s) kept incrementally (ds < S: one carry at most). */
struct walk {
    int64_t row, n, s;

    __device__ walk(int64_t first, const geom &g)
        : row(first), n(first / g.S), s(first - first / g.S * g.S) {}
    __device__ void step(const geom &g)
    {
        row += blockDim.y;
        n += g.dn;
        s += g.ds;
        if (s >= g.S) {
            s -= g.S;
            n++;
        }
    }
    __device__ int64_t offset(int64_t c, const geom &g) const
    {
        return n * g.stride_n + c * g.stride_c + s * g.stride_s;
    }
};

/* Count, sum and squared deviations of a set of values. */
template <typename T> struct moments {
    int64_t n;
    T sum, m2;
};

/* a += b, Chan's pairwise merge. */
template <typename T>
__device__ void merge(moments<T> &a, const moments<T> &b)
{
    if (b.n == 0)
        return;
    if (a.n == 0) {
        a = b;
        return;
    }
    const T d = b.sum / (T)b.n - a.sum / (T)a.n;
    const int64_t n = a.n + b.n;
    a.m2 += b.m2 + d * d * ((T)a.n * (T)b.n / (T)n);
    a.sum += b.sum;
    a.n = n;
}

/* Merge every thread's m into thread 0's along threadIdx.y (stride tx
 * apart in the flat index), or along the whole block with tx = 1 and a
 * 1D block.  All threads must call it. */
template <typename T>
__device__ moments<T> block_merge(moments<T> m, int tid, int lanes, int tx)
{
    __shared__ int64_t sh_n[THREADS];
    __shared__ T sh_sum[THREADS], sh_m2[THREADS];
    sh_n[tid] = m.n;
    sh_sum[tid] = m.sum;
    sh_m2[tid] = m.m2;
    __syncthreads();
    const int lane = tid / tx;
    for (int half = lanes / 2; half > 0; half /= 2) {
        if (lane < half) {
            moments<T> a = {sh_n[tid], sh_sum[tid], sh_m2[tid]};
            const int o = tid + half * tx;
            merge(a, moments<T>{sh_n[o], sh_sum[o], sh_m2[o]});
            sh_n[tid] = a.n;
            sh_sum[tid] = a.sum;
            sh_m2[tid] = a.m2;
        }
        __syncthreads();
    }
    return moments<T>{sh_n[tid], sh_sum[tid], sh_m2[tid]};
}

/* The part of the rows block (tile, part) owns: [first, end). */
static __device__ int64_t part_end(const geom &g, int64_t first)
{
    return first + g.part_rows < g.M ? first + g.part_rows : g.M;
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
bnorm_stats(const geom g, const T *__restrict__ src, T *__restrict__ ws)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t first = (int64_t)blockIdx.y * g.part_rows;
    const int64_t end = part_end(g, first);
    moments<T> acc = {0, 0, 0};
    if (c < g.C) {
        walk w(first + threadIdx.y, g);
        while (w.row < end) {
            T x[ROWS];
            int k = 0;
#pragma unroll
            for (int j = 0; j < ROWS; j++)
                if (w.row < end) {
                    x[j] = src[w.offset(c, g)];
                    k = j + 1;
                    w.step(g);
                }
            moments<T> tile = {k, 0, 0};
#pragma unroll
            for (int j = 0; j < ROWS; j++)
                if (j < k)
                    tile.sum += x[j];
            const T mean = tile.sum / (T)k;
#pragma unroll
            for (int j = 0; j < ROWS; j++)
                if (j < k)
                    tile.m2 += (x[j] - mean) * (x[j] - mean);
            merge(acc, tile);
        }
    }
    acc = block_merge(acc, tid, blockDim.y, blockDim.x);
    if (threadIdx.y == 0 && c < g.C) {
        ws[c * g.parts + blockIdx.y] = acc.sum;
        ws[(g.C + c) * g.parts + blockIdx.y] = acc.m2;
    }
}

/* One block (1D, THREADS) per channel: its parts merged into mean, var. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
bnorm_finalize(const geom g, const T *__restrict__ ws, T *__restrict__ mean,
               T *__restrict__ var)
{
    const int64_t c = blockIdx.x;
    moments<T> acc = {0, 0, 0};
    for (int64_t p = threadIdx.x; p < g.parts; p += blockDim.x) {
        const int64_t first = p * g.part_rows;
        merge(acc, moments<T>{part_end(g, first) - first,
                              ws[c * g.parts + p],
                              ws[(g.C + c) * g.parts + p]});
    }
    acc = block_merge(acc, threadIdx.x, blockDim.x, 1);
    if (threadIdx.x == 0) {
        mean[c] = acc.sum / (T)g.M;
        var[c] = acc.m2 / (T)g.M;
    }
}

__device__ inline float root(float x) { return sqrtf(x); }
__device__ inline double root(double x) { return sqrt(x); }

template <typename T>
__global__ void __launch_bounds__(THREADS)
bnorm_normalise(const geom g, T eps, const T *__restrict__ src,
                T *__restrict__ dst, const T *__restrict__ mean,
                const T *__restrict__ var, const T *__restrict__ scale,
                const T *__restrict__ shift)
{
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.C)
        return;
    /* the mean subtracted first, as ref_bnorm.c: folding it into the
     * shift would cancel two large terms where x is close to it */
    const T m = mean[c];
    const T a = (scale ? scale[c] : (T)1) / root(var[c] + eps);
    const T b = shift ? shift[c] : (T)0;
    const int64_t first = (int64_t)blockIdx.y * g.part_rows;
    const int64_t end = part_end(g, first);
    walk w(first + threadIdx.y, g);
    while (w.row < end) {
        int64_t off[ROWS];
        T x[ROWS];
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            off[j] = -1;
            if (w.row < end) {
                off[j] = w.offset(c, g);
                x[j] = src[off[j]];
                w.step(g);
            }
        }
#pragma unroll
        for (int j = 0; j < ROWS; j++)
            if (off[j] >= 0)
                dst[off[j]] = (x[j] - m) * a + b;
    }
}

static int64_t spatial_points(const kb_bnorm_desc *b)
{
    return (b->ndims == 3 ? b->id : 1) * b->ih * b->iw;
}

static geom make_geom(const kb_problem *p, const kb_gpu_bnorm_split *s)
{
    const kb_bnorm_desc *b = &p->bnorm;
    geom g;
    g.C = b->ic;
    g.S = spatial_points(b);
    g.M = b->mb * g.S;
    /* kb_arg_offset: NCX [N][C][S], NXC [N][S][C] */
    const bool nxc = p->layout == KB_LAYOUT_NXC;
    g.stride_n = g.C * g.S;
    g.stride_c = nxc ? 1 : g.S;
    g.stride_s = nxc ? g.C : 1;
    g.part_rows = s->part_rows;
    g.parts = s->parts;
    g.dn = s->ty / g.S;
    g.ds = s->ty % g.S;
    return g;
}

/* "bnorm_stats<<<(x, y), (tx, ty)>>>" failed: err.  Returns -1. */
static int launch_failed(const char *kernel, dim3 grid, dim3 block,
                         gpuError_t e, char *err, size_t len)
{
    char call[96];
    snprintf(call, sizeof call, "%s<<<(%u, %u), (%u, %u)>>>", kernel, grid.x,
             grid.y, block.x, block.y);
    return KB_GPU(fail)(call, e, err, len);
}

/* The launches of one direction, checked one by one. */
template <typename T>
static int bnorm_run(const kb_problem *p, void *const arg[KB_ARG_MAX],
                     void *ws, char *err, size_t len)
{
    kb_gpu_bnorm_split s;
    KB_GPU(bnorm_split)(p, &s);
    const geom g = make_geom(p, &s);
    /* grid x is at most 2^31 - 1 blocks; y is bounded by BLOCKS_TARGET */
    if (s.tiles > 0x7fffffff || g.C > 0x7fffffff) {
        snprintf(err, len, "bnorm: %lld channels are more than one grid "
                 "holds", (long long)g.C);
        return -1;
    }
    const dim3 grid((unsigned)s.tiles, (unsigned)s.parts);
    const dim3 block((unsigned)s.tx, (unsigned)s.ty);
    const T *src = (const T *)arg[KB_ARG_SRC];
    T *mean = (T *)arg[KB_ARG_MEAN], *var = (T *)arg[KB_ARG_VAR];
    gpuError_t e;
    if (p->dir == KB_FWD_D) {
        if (!ws) {
            snprintf(err, len, "bnorm: training needs a workspace of %zu "
                     "bytes (kb_gpu_bnorm_split) and got none",
                     s.workspace_bytes);
            return -1;
        }
        KB_GPU_LAUNCH(grid, block, bnorm_stats<T>)(g, src, (T *)ws);
        if ((e = gpuGetLastError()) != gpuSuccess)
            return launch_failed("bnorm_stats", grid, block, e, err, len);
        const dim3 channels((unsigned)g.C), line(THREADS);
        KB_GPU_LAUNCH(channels, line, bnorm_finalize<T>)(g, (const T *)ws,
                                                         mean, var);
        if ((e = gpuGetLastError()) != gpuSuccess)
            return launch_failed("bnorm_finalize", channels, line, e, err,
                                 len);
    }
    KB_GPU_LAUNCH(grid, block, bnorm_normalise<T>)(
        g, (T)p->bnorm.eps, src, (T *)arg[KB_ARG_DST], mean, var,
        (const T *)arg[KB_ARG_SCALE], (const T *)arg[KB_ARG_SHIFT]);
    if ((e = gpuGetLastError()) != gpuSuccess)
        return launch_failed("bnorm_normalise", grid, block, e, err, len);
    return 0;
}

} // namespace

extern "C" void KB_GPU(bnorm_split)(const kb_problem *p,
                                    kb_gpu_bnorm_split *s)
{
    const kb_bnorm_desc *b = &p->bnorm;
    const int64_t S = spatial_points(b), M = b->mb * S;
    int tx = 1;
    if (p->layout == KB_LAYOUT_NXC || S == 1)   /* channels contiguous */
        while (tx < TX_MAX && tx < b->ic)
            tx *= 2;
    s->tx = tx;
    s->ty = THREADS / tx;
    s->rows = ROWS;
    s->tiles = (b->ic + tx - 1) / tx;
    /* As many parts as register tiles fill, up to BLOCKS_TARGET blocks in
     * all; then the fewest parts of whole register tiles that cover M. */
    const int64_t tile_rows = (int64_t)s->ty * ROWS;
    int64_t parts = (M + tile_rows - 1) / tile_rows;
    const int64_t cap = BLOCKS_TARGET / s->tiles > 1 ? BLOCKS_TARGET / s->tiles
                                                      : 1;
    if (parts > cap)
        parts = cap;
    const int64_t tiles_a_part = (M + parts * tile_rows - 1) /
                                 (parts * tile_rows);
    s->part_rows = tiles_a_part * tile_rows;
    s->parts = (M + s->part_rows - 1) / s->part_rows;
    s->workspace_bytes = p->dir == KB_FWD_D
        ? 2 * (size_t)b->ic * (size_t)s->parts *
              kb_dtype_size(kb_problem_acc_dtype(p))
        : 0;
}

extern "C" int KB_GPU(bnorm_fwd)(const kb_problem *p,
                                 void *const arg[KB_ARG_MAX], void *workspace,
                                 char *err, size_t len)
{
    if (p->dir != KB_FWD_D && p->dir != KB_FWD_I) {
        snprintf(err, len, "bnorm: forward only (FWD_D, FWD_I), not %s",
                 kb_dir_name(p->dir));
        return -1;
    }
    if (kb_dts_all(&p->dt, KB_F64))
        return bnorm_run<double>(p, arg, workspace, err, len);
    if (kb_dts_all(&p->dt, KB_F32))
        return bnorm_run<float>(p, arg, workspace, err, len);
    snprintf(err, len, "bnorm: f32 and f64 only");
    return -1;
}
