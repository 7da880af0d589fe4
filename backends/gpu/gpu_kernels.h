/* gpu_kernels.h - the hand-written GPU kernels as the backend glue
 * (gpu_backend.c) launches them.
 *
 * The kernels are CUDA C in gpu_*.cu, built by nvcc for the `cuda`
 * backend and by hipcc for `hip` (gpu_runtime.h maps the names).  Each
 * launcher enqueues its kernels on the default stream and returns at
 * once: 0, or -1 with err naming the launch that failed.  Arguments are
 * device pointers indexed by kb_arg (kernels/tensors.h), laid out as the
 * host tensors are (kb_arg_offset), so one upload and one download per
 * tensor serve every kernel.  f32 and f64; the glue says SKIPPED for the
 * rest.
 *
 * Portability: AMD's wavefront is 64 lanes, NVIDIA's warp 32; reductions
 * go through shared memory or use warpSize, never a literal 32. */
#ifndef KB_GPU_KERNELS_H
#define KB_GPU_KERNELS_H

#include "backends/gpu/gpu_runtime.h"
#include "kernels/problem.h"
#include "kernels/tensors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A named tuning (RAJAPerf's block_256): the block tile of C (bm x bn),
 * its depth per shared-memory stage (bk) and each thread's register tile
 * (tm x tn); a block runs (bm / tm) x (bn / tn) threads.  The GEMM and
 * the implicit-GEMM convolution take it; the name is part of a case's
 * identity (plan_info "tuning"). */
typedef struct {
    const char *name;          /* "tile_128x64" */
    int bm, bn, bk, tm, tn;
} kb_gpu_tuning;

/* The tunings compiled in (gpu_gemm.cu), the default first. */
int KB_GPU(tuning_count)(void);
const kb_gpu_tuning *KB_GPU(tuning_at)(int i);

/* dst = alpha op(A) op(B) + beta dst (kb_gemm_desc), all four transpose
 * cases.  arg[SRC] is A, arg[WEI] B, arg[DST] C. */
int KB_GPU(gemm)(const kb_problem *p, const kb_gpu_tuning *t,
                 void *const arg[KB_ARG_MAX], char *err, size_t len);

/* Forward convolution (FWD_B, FWD_D, FWD_I), 2D and 3D, NCX and NXC,
 * groups, stride, padding and dilation, as an implicit GEMM over the
 * tuning's tiles.  arg[BIA] is NULL without a bias. */
int KB_GPU(conv_fwd)(const kb_problem *p, const kb_gpu_tuning *t,
                     void *const arg[KB_ARG_MAX], char *err, size_t len);

/* Depthwise forward convolution (g == ic == oc), written directly: one
 * thread per output element. */
bool KB_GPU(conv_is_depthwise)(const kb_problem *p);
int KB_GPU(conv_depthwise)(const kb_problem *p, void *const arg[KB_ARG_MAX],
                           char *err, size_t len);

/* Batchnorm forward: FWD_I with the given mean and var, FWD_D (training)
 * computing them first with a parallel reduction per channel; both
 * layouts.  Threads per block: KB_GPU_BNORM_THREADS, as tx channels x ty
 * rows (gpu_bnorm.cu).  kb_gpu_bnorm_split says how p is cut, on the
 * host, without a device: the glue records it and allocates the
 * workspace training needs (NULL for FWD_I). */
#define KB_GPU_BNORM_THREADS 256
typedef struct {
    int tx, ty;                /* block: tx channels x ty rows */
    int rows;                  /* loads a thread holds in registers */
    int64_t tiles;             /* channel tiles, ceil(C / tx): grid x */
    int64_t parts;             /* parts of a channel's rows: grid y */
    int64_t part_rows;         /* rows of a part (the last may have fewer) */
    size_t workspace_bytes;    /* FWD_D: (sum, M2) per channel and part */
} kb_gpu_bnorm_split;
void KB_GPU(bnorm_split)(const kb_problem *p, kb_gpu_bnorm_split *s);
int KB_GPU(bnorm_fwd)(const kb_problem *p, void *const arg[KB_ARG_MAX],
                      void *workspace, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
