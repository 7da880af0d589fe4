/* gpu_tile.cuh - the tile engine of the GPU GEMM and implicit-GEMM
 * convolution, and the named tunings it is instantiated for.
 *
 * One block computes a bm x bn tile of C = A B (A is M x K, B K x N):
 * it walks K in steps of bk, staging an A tile (bm x bk) and a B tile
 * (bk x bn) in shared memory, each thread accumulating a tm x tn
 * register tile of C with FMAs in T (no tensor cores).  The next step's
 * tiles are loaded from global memory into registers while the current
 * one is multiplied, into the other of two shared buffers, so one
 * __syncthreads() per step separates writers from readers.  Elements
 * past M, N or K load as zero and are never stored.
 *
 * What the operands are is the Op's business (gpu_gemm.cu: dense A and
 * B; gpu_conv.cu: A gathered from src, B the weights), through:
 *   a_kfast, b_kfast        which way the tile loads walk (true: along
 *                           k), chosen so neighbouring threads read
 *                           neighbouring addresses;
 *   row(m), col(n)          per-thread state for a row of A / a column
 *                           of B, computed once (types a_row, b_col);
 *   stage(buf, k0)          called by every thread before the loads of
 *                           the step starting at k0 (buf = step & 1) are
 *                           made, a __syncthreads() in between: the
 *                           conv tabulates the step's taps there;
 *   a(row, k, kl, buf), b(col, k, kl, buf)
 *                           op(A)[m,k] and op(B)[k,n], in range only
 *                           (kl = k - k0);
 *   out_row(m), out(r, n, v) store the result v of C[m,n].
 * Everything is internal (anonymous namespace): the CUDA and the HIP
 * builds of these files link into one kbench. */
#ifndef KB_GPU_TILE_CUH
#define KB_GPU_TILE_CUH

#include "backends/gpu/gpu_kernels.h"
#include "backends/gpu/gpu_device.h"

#include <stdint.h>
#include <stdio.h>

#include <utility>

namespace {

/* The tunings, the default first: data, each instantiated at compile
 * time (tile<I>).  Threads per block (bm/tm)*(bn/tn) = 256 each; shared
 * memory 2*bk*(bm+bn+8) elements, 33 KiB in f64 for 128x128. */
constexpr kb_gpu_tuning tunings[] = {
    {"tile_128x128", 128, 128, 8, 8, 8},
    {"tile_128x64", 128, 64, 8, 8, 4},
    {"tile_64x64", 64, 64, 8, 4, 4},
};
constexpr int tuning_count = sizeof tunings / sizeof tunings[0];

/* Shared rows are padded so that a k-fast store (eight k of one row, for
 * neighbouring threads) hits distinct banks: row stride = 4 mod 32. */
constexpr int smem_pad = 4;

template <int I>
struct tile {
    static constexpr int bm = tunings[I].bm, bn = tunings[I].bn,
                         bk = tunings[I].bk, tm = tunings[I].tm,
                         tn = tunings[I].tn;
    static constexpr int threads = (bm / tm) * (bn / tn);
    static constexpr int a_per = bm * bk / threads;   /* A loads a thread */
    static constexpr int b_per = bk * bn / threads;
    static_assert(bm % tm == 0 && bn % tn == 0, "thread tiles divide");
    static_assert(threads <= 256, "at most 256 threads a block");
    static_assert(bm * bk % threads == 0 && bk * bn % threads == 0,
                  "every thread loads as many elements");
    static_assert(2 * bk * (bm + bn + 2 * smem_pad) * sizeof(double) <=
                      48 * 1024,
                  "f64 tiles within 48 KiB of shared memory");
};

/* Call f(tile<I>{}) for the I with t == &KB_GPU(tuning_at)(I); -1 with
 * err when t is none of them. */
template <int I = 0, class F>
int with_tile(const kb_gpu_tuning *t, F &&f, char *err, size_t len)
{
    if constexpr (I < tuning_count) {
        if (t == KB_GPU(tuning_at)(I))
            return f(tile<I>{});
        return with_tile<I + 1>(t, std::forward<F>(f), err, len);
    } else {
        snprintf(err, len, "%s: unknown tuning %s", KB_GPU_NAME,
                 t ? t->name : "(none)");
        return -1;
    }
}

/* Tiles of the grid: nbx along N (fastest, so consecutive blocks share an
 * A panel), nby along M, nbz groups.  Launched as (gx, gy) with both at
 * most 65535 (CUDA's limit for y, and within HIP's 32-bit work-item
 * count for x); blocks past the count exit. */
struct tile_grid {
    uint32_t nbx, nby, nbz;
    __host__ __device__ uint32_t count() const { return nbx * nby * nbz; }
};

constexpr uint32_t grid_max = 65535;

/* The grid of an M x N x groups problem; false with err when it has more
 * than grid_max^2 blocks. */
static bool tile_grid_of(int64_t m, int64_t n, int64_t groups, int bm,
                         int bn, tile_grid *g, dim3 *launch, char *err,
                         size_t len)
{
    const int64_t nbx = (n + bn - 1) / bn, nby = (m + bm - 1) / bm;
    const int64_t blocks = nbx * nby * groups;
    if (blocks > (int64_t)grid_max * grid_max) {
        snprintf(err, len, "%s: %lld x %lld tiles x %lld groups exceed the "
                 "grid (%u^2 blocks)", KB_GPU_NAME, (long long)nby,
                 (long long)nbx, (long long)groups, grid_max);
        return false;
    }
    *g = tile_grid{(uint32_t)nbx, (uint32_t)nby, (uint32_t)groups};
    const uint32_t gx = blocks < grid_max ? (uint32_t)blocks : grid_max;
    *launch = dim3(gx, (uint32_t)((blocks + gx - 1) / gx), 1);
    return true;
}

/* This block's tile: row tile, column tile and group; false for the
 * blocks past the count. */
struct tile_pos {
    int64_t m0, n0, g;
};

__device__ inline bool tile_of(const tile_grid &grid, int bm, int bn,
                               tile_pos *p)
{
    uint32_t b = blockIdx.y * gridDim.x + blockIdx.x;
    if (b >= grid.count())
        return false;
    p->n0 = (int64_t)(b % grid.nbx) * bn;
    b /= grid.nbx;
    p->m0 = (int64_t)(b % grid.nby) * bm;
    p->g = b / grid.nby;
    return true;
}

/* Load element e of a thread's share of a rows x bk (A) or bk x cols (B)
 * tile: its row (or column) and its k within the tile. */
template <bool KFAST, int BK, int SPAN>
__device__ inline void tile_elem(int e, int *mn, int *kl)
{
    if (KFAST) {
        *kl = e % BK;
        *mn = e / BK;
    } else {
        *mn = e % SPAN;
        *kl = e / SPAN;
    }
}

/* The block's m0..m0+bm x n0..n0+bn tile of op's C (M x N, reduction K).
 * Every thread of the block must call it (it synchronises). */
template <typename T, class S, class Op>
__device__ void tile_run(const Op &op, int64_t m0, int64_t n0, int64_t M,
                         int64_t N, int64_t K)
{
    constexpr int BM = S::bm, BN = S::bn, BK = S::bk, TM = S::tm,
                  TN = S::tn, NT = S::threads;
    __shared__ T as[2][BK][BM + smem_pad];
    __shared__ T bs[2][BK][BN + smem_pad];
    const int tid = threadIdx.x;
    /* the thread's C elements: rows ty + i*BM/TM, columns tx + j*BN/TN,
     * so a warp's (wavefront's) shared reads are broadcasts or
     * consecutive and its stores of C consecutive columns */
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);

    typename Op::a_row ar[S::a_per];
    typename Op::b_col bc[S::b_per];
    bool a_ok[S::a_per], b_ok[S::b_per];
    T ra[S::a_per], rb[S::b_per];
#pragma unroll
    for (int e = 0; e < S::a_per; e++) {
        int ml, kl;
        tile_elem<Op::a_kfast, BK, BM>(tid + e * NT, &ml, &kl);
        a_ok[e] = m0 + ml < M;
        ar[e] = op.row(a_ok[e] ? m0 + ml : 0);
    }
#pragma unroll
    for (int e = 0; e < S::b_per; e++) {
        int nl, kl;
        tile_elem<Op::b_kfast, BK, BN>(tid + e * NT, &nl, &kl);
        b_ok[e] = n0 + nl < N;
        bc[e] = op.col(b_ok[e] ? n0 + nl : 0);
    }

    /* global -> registers, for the step at k0 (taps in buf) */
    auto fetch = [&](int64_t k0, int buf) {
#pragma unroll
        for (int e = 0; e < S::a_per; e++) {
            int ml, kl;
            tile_elem<Op::a_kfast, BK, BM>(tid + e * NT, &ml, &kl);
            ra[e] = a_ok[e] && k0 + kl < K ? op.a(ar[e], k0 + kl, kl, buf)
                                           : T(0);
        }
#pragma unroll
        for (int e = 0; e < S::b_per; e++) {
            int nl, kl;
            tile_elem<Op::b_kfast, BK, BN>(tid + e * NT, &nl, &kl);
            rb[e] = b_ok[e] && k0 + kl < K ? op.b(bc[e], k0 + kl, kl, buf)
                                           : T(0);
        }
    };
    /* registers -> shared buffer buf */
    auto put = [&](int buf) {
#pragma unroll
        for (int e = 0; e < S::a_per; e++) {
            int ml, kl;
            tile_elem<Op::a_kfast, BK, BM>(tid + e * NT, &ml, &kl);
            as[buf][kl][ml] = ra[e];
        }
#pragma unroll
        for (int e = 0; e < S::b_per; e++) {
            int nl, kl;
            tile_elem<Op::b_kfast, BK, BN>(tid + e * NT, &nl, &kl);
            bs[buf][kl][nl] = rb[e];
        }
    };

    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = T(0);

    const int64_t steps = (K + BK - 1) / BK;
    op.stage(0, 0);
    if (steps > 1)
        op.stage(1, BK);
    __syncthreads();               /* the first two steps' stage visible */
    fetch(0, 0);
    put(0);
    __syncthreads();               /* step 0 in buffer 0 */
    for (int64_t s = 0; s < steps; s++) {
        const int cur = (int)(s & 1);
        const bool more = s + 1 < steps;
        /* step s+1's loads are in flight while step s is multiplied */
        if (more)
            fetch((s + 1) * BK, cur ^ 1);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            T a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = as[cur][kk][ty + i * (BM / TM)];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = bs[cur][kk][tx + j * (BN / TN)];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        /* buffer cur^1 was last read in step s-1, before the barrier
         * that ended it; stage buffer cur last served fetch(s), made in
         * step s-1 (or before the loop) */
        if (more)
            put(cur ^ 1);
        if (s + 2 < steps)
            op.stage(cur, (s + 2) * BK);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int64_t m = m0 + ty + i * (BM / TM);
        if (m >= M)
            continue;
        const auto r = op.out_row(m);
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int64_t n = n0 + tx + j * (BN / TN);
            if (n < N)
                op.out(r, n, acc[i][j]);
        }
    }
}

/* After a launch: 0, or -1 with err naming the kernel and the problem
 * (what) and the runtime's error. */
static int launched(const char *kernel, const char *what, char *err,
                    size_t len)
{
    gpuError_t e = gpuGetLastError();
    if (e == gpuSuccess)
        return 0;
    char call[320];
    snprintf(call, sizeof call, "%s<<<>>> (%s)", kernel, what);
    return KB_GPU(fail)(call, e, err, len);
}

} /* namespace */

#endif
