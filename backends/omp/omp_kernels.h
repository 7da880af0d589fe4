/* omp_kernels.h - internals of the omp backend: the blocked GEMM engine
 * that GEMM and convolution share, and the kernel entry points.
 *
 * The engine follows BLIS: C[m,n] is split into NC-wide column blocks,
 * KC-deep slices and MC-high row blocks; each A block is packed into
 * MR-row micro-panels and each B block into NR-column micro-panels, and a
 * register-tiled MR x NR micro-kernel multiplies one pair.  Operands are
 * reached only through a packer callback, so a convolution can build its
 * im2col panels on the fly instead of materialising the whole matrix. */
#ifndef KB_OMP_KERNELS_H
#define KB_OMP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/problem.h"
#include "kernels/tensors.h"

/* Blocking parameters, all in one place (elements of fp32).
 * MR x NR: 8 rows x two 16-float vectors = 16 accumulator registers, half
 *   of AVX-512's 32, leaving room for the B loads and A broadcasts.
 * KC: a KC x NR packed B micro-panel (32 KiB) stays in the 48 KiB L1d
 *   while the macro-kernel streams the A micro-panels past it.
 * MC: the MC x KC packed A block (192 KiB) stays in the 1 MiB L2.
 * NC: the KC x NC packed B block (2 MiB) is per thread; two threads' worth
 *   stay well inside the 32 MiB L3.
 * MC must be a multiple of MR and NC of NR. */
enum {
    KB_OMP_MR = 8,
    KB_OMP_NR = 32,
    KB_OMP_KC = 256,
    KB_OMP_MC = 192,
    KB_OMP_NC = 2048
};

/* 16 floats: one AVX-512 register; gcc splits it on narrower ISAs.
 * Loads and stores go through memcpy, which compiles to unaligned vector
 * moves. */
typedef float kb_v16sf __attribute__((vector_size(64)));

/* One GEMM operand as the engine sees it.  pack() copies the block of
 * rows [r0, r0+rows) and columns [c0, c0+cols) into buf, in the engine's
 * packed format: for A (rows = M side) MR-row micro-panels, each stored
 * k-major with MR values per k; for B (rows = K side) NR-column
 * micro-panels, each stored k-major with NR values per k.  Rows/columns
 * past the block's end inside the last micro-panel are written as zero.
 * Packers cannot fail. */
typedef struct kb_omp_operand kb_omp_operand;
typedef void (*kb_omp_pack_fn)(const kb_omp_operand *op, int64_t r0,
                               int64_t c0, int64_t rows, int64_t cols,
                               float *buf);
struct kb_omp_operand {
    kb_omp_pack_fn pack;
    const float *ptr;          /* strided packers: (r,c) at ptr[r*rs + c*cs] */
    int64_t rs, cs;
    const void *ctx;           /* packer-specific geometry (convolution) */
};

/* Packers for a plain strided matrix, in A and B format. */
void kb_omp_pack_a_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf);
void kb_omp_pack_b_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf);

/* C = alpha * A * B + beta * C + bias.  beta == 0 means C is not read (it
 * may hold NaN).  bias, when not NULL, adds bias[i*bias_rs + j*bias_cs] to
 * C[i,j] (a per-row bias has bias_cs == 0, a per-column one bias_rs == 0). */
typedef struct {
    int64_t m, n, k;
    kb_omp_operand a, b;
    float *c;
    int64_t rs_c, cs_c;
    float alpha, beta;
    const float *bias;
    int64_t bias_rs, bias_cs;
} kb_omp_gemm_args;

/* Per-thread packing buffers, allocated once per plan (untimed). */
typedef struct {
    int nthreads;
    float **abuf;              /* nthreads x MC*KC floats */
    float **bbuf;              /* nthreads x KC*NC floats */
} kb_omp_workspace;

/* Bytes kb_omp_workspace_init allocates for nthreads. */
size_t kb_omp_workspace_bytes(int nthreads);
/* Returns 0, or -1 (out of memory) with nothing left allocated. */
int kb_omp_workspace_init(kb_omp_workspace *ws, int nthreads);
void kb_omp_workspace_free(kb_omp_workspace *ws);

/* Run one GEMM with ws->nthreads OpenMP threads.  Cannot fail. */
void kb_omp_gemm(const kb_omp_gemm_args *g, const kb_omp_workspace *ws);

/* The ways a convolution is computed (omp_conv.c states each one's
 * limits): a direct depthwise loop per layout, or the grouped implicit
 * GEMM, the only one that needs the workspace and, for NXC, the weight
 * reorder.  The dispatcher and the plan's sizing both ask this. */
typedef enum {
    KB_OMP_CONV_DW_NCX,
    KB_OMP_CONV_DW_NXC,
    KB_OMP_CONV_GEMM
} kb_omp_conv_path;
kb_omp_conv_path kb_omp_conv_path_of(const kb_problem *p);

/* Kernel entry points over the host tensors of p (f32).  Each cannot
 * fail once prepared.  nthreads >= 1 (OpenMP's num_threads must be
 * positive).  conv: ws and wei_nxc (the weight reorder, see
 * kb_omp_conv_reorder_weights) are read only on the GEMM path, wei_nxc
 * only for NXC; there ws->nthreads == nthreads. */
void kb_omp_gemm_problem(const kb_problem *p, const kb_tensors *t,
                         const kb_omp_workspace *ws);
void kb_omp_conv(const kb_problem *p, const kb_tensors *t,
                 const float *wei_nxc, const kb_omp_workspace *ws,
                 int nthreads);
void kb_omp_bnorm(const kb_problem *p, const kb_tensors *t, int nthreads);

/* NXC convolution multiplies by the weights as [G][T*R*S*C/G][K/G]
 * (channel fastest in the reduction, as NXC stores src).  Elements of
 * that buffer, and the reorder itself, done in prepare(). */
int64_t kb_omp_conv_nxc_weight_elems(const kb_problem *p);
void kb_omp_conv_reorder_weights(const kb_problem *p, const float *wei,
                                 float *out);

#endif
