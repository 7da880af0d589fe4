/* blas_geometry.h - kbench's row-major GEMM as the column-major BLAS call
 * that computes it (cuBLAS, rocBLAS).  Plain C, no GPU runtime: built
 * with every configuration, and tested on the CPU. */
#ifndef KB_BLAS_GEOMETRY_H
#define KB_BLAS_GEOMETRY_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

/* cuBLAS and rocBLAS compute C = op(X) op(Y) column-major.  A row-major C[M,N] is a
 * column-major C^T[N,M], and C^T = op(B)^T op(A)^T: the call takes B
 * first, A second, and swaps M and N.  Each stored operand, read
 * column-major, already is its own transpose, so op is "transpose"
 * exactly where kbench's ta/tb are set. */
typedef struct {
    kb_arg first, second;       /* KB_ARG_WEI (B), KB_ARG_SRC (A) */
    bool trans_first, trans_second;
    int64_t m, n, k;            /* N, M, K */
    int64_t ld_first, ld_second, ldc;
} kb_blas_geometry;

void kb_blas_geometry_of(const kb_gemm_desc *g, kb_blas_geometry *c);

#endif
