/* gpu_gemm.cu - the tiled GEMM, dst = alpha op(A) op(B) + beta dst, for
 * all four transpose cases in f32 and f64: gpu_tile.cuh's engine over
 * dense operands addressed by gpu_conv_index.h; and the table of tunings
 * the backend offers. */
#include "backends/gpu/gpu_tile.cuh"
#include "backends/gpu/gpu_conv_index.h"

namespace {

/* The engine's Op (gpu_tile.cuh) for a dense GEMM.  Tile loads walk
 * along each operand's contiguous dimension: k for A [M,K] and B [N,K]
 * (tb), m for A [K,M] (ta), n for B [K,N]. */
template <typename T, bool TA, bool TB>
struct gemm_op {
    static constexpr bool a_kfast = !TA, b_kfast = TB;
    using a_row = int64_t;
    using b_col = int64_t;
    const T *__restrict__ pa;
    const T *__restrict__ pb;
    T *__restrict__ pc;
    int64_t m, n, k;
    T alpha, beta;
    bool read_c;               /* beta != 0: else dst may hold NaN poison */

    __device__ int64_t row(int64_t i) const { return i; }
    __device__ int64_t col(int64_t j) const { return j; }
    __device__ void stage(int, int64_t) const {}
    __device__ T a(int64_t i, int64_t kk, int, int) const
    {
        return pa[kb_gemm_a_at(m, k, TA, i, kk)];
    }
    __device__ T b(int64_t j, int64_t kk, int, int) const
    {
        return pb[kb_gemm_b_at(k, n, TB, kk, j)];
    }
    __device__ int64_t out_row(int64_t i) const { return i * n; }
    __device__ void out(int64_t r, int64_t j, T v) const
    {
        T *d = pc + r + j;
        *d = read_c ? alpha * v + beta * *d : alpha * v;
    }
};

template <typename T, class S, bool TA, bool TB>
__global__ void __launch_bounds__(S::threads)
gemm_kernel(const gemm_op<T, TA, TB> op, const tile_grid grid)
{
    tile_pos p;
    if (!tile_of(grid, S::bm, S::bn, &p))
        return;
    tile_run<T, S>(op, p.m0, p.n0, op.m, op.n, op.k);
}

template <typename T, class S, bool TA, bool TB>
int gemm_launch(const kb_problem *p, void *const arg[KB_ARG_MAX], char *err,
                size_t len)
{
    const kb_gemm_desc *g = &p->gemm;
    tile_grid grid;
    dim3 blocks;
    if (!tile_grid_of(g->m, g->n, 1, S::bm, S::bn, &grid, &blocks, err, len))
        return -1;
    const gemm_op<T, TA, TB> op = {
        (const T *)arg[KB_ARG_SRC], (const T *)arg[KB_ARG_WEI],
        (T *)arg[KB_ARG_DST], g->m, g->n, g->k, (T)g->alpha, (T)g->beta,
        g->beta != 0.0};
    KB_GPU_LAUNCH(blocks, S::threads, gemm_kernel<T, S, TA, TB>)(op, grid);
    char what[160];
    snprintf(what, sizeof what, "%s M=%lld N=%lld K=%lld%s%s",
             kb_dtype_name(p->dt.dst), (long long)g->m, (long long)g->n,
             (long long)g->k, TA ? " ta" : "", TB ? " tb" : "");
    return launched("gemm_kernel", what, err, len);
}

/* The transposes, run-time flags, as template arguments. */
template <typename T, class S>
int gemm_typed(const kb_problem *p, void *const arg[KB_ARG_MAX], char *err,
               size_t len)
{
    const bool ta = p->gemm.ta, tb = p->gemm.tb;
    if (ta)
        return tb ? gemm_launch<T, S, true, true>(p, arg, err, len)
                  : gemm_launch<T, S, true, false>(p, arg, err, len);
    return tb ? gemm_launch<T, S, false, true>(p, arg, err, len)
              : gemm_launch<T, S, false, false>(p, arg, err, len);
}

} /* namespace */

extern "C" int KB_GPU(tuning_count)(void) { return tuning_count; }

extern "C" const kb_gpu_tuning *KB_GPU(tuning_at)(int i)
{
    return i >= 0 && i < tuning_count ? &tunings[i] : NULL;
}

extern "C" int KB_GPU(gemm)(const kb_problem *p, const kb_gpu_tuning *t,
                            void *const arg[KB_ARG_MAX], char *err,
                            size_t len)
{
    const kb_dtype dt = p->dt.dst;
    if (dt != KB_F32 && dt != KB_F64) {
        snprintf(err, len, "gemm: f32 and f64 only, not %s",
                 kb_dtype_name(dt));
        return -1;
    }
    return with_tile(
        t,
        [&](auto s) {
            using S = decltype(s);
            return dt == KB_F64 ? gemm_typed<double, S>(p, arg, err, len)
                                : gemm_typed<float, S>(p, arg, err, len);
        },
        err, len);
}
