/* blas_geometry.c - the column-major call of a row-major GEMM
 * (blas_geometry.h). */
#include "backends/gpu/blas_geometry.h"

/* A leading dimension as BLAS requires it: at least 1 (an empty K). */
static int64_t ld(int64_t rows)
{
    return rows > 1 ? rows : 1;
}

/* This function can't fail. */
void kb_blas_geometry_of(const kb_gemm_desc *g, kb_blas_geometry *c)
{
    c->first = KB_ARG_WEI;
    c->second = KB_ARG_SRC;
    c->m = g->n;
    c->n = g->m;
    c->k = g->k;
    /* B is stored [K,N] (column-major: N x K, ld N), or [N,K] when tb
     * (column-major: K x N, ld K, to be transposed). */
    c->trans_first = g->tb;
    c->ld_first = ld(g->tb ? g->k : g->n);
    /* A is stored [M,K] (column-major: K x M, ld K), or [K,M] when ta
     * (column-major: M x K, ld M, to be transposed). */
    c->trans_second = g->ta;
    c->ld_second = ld(g->ta ? g->m : g->k);
    c->ldc = ld(g->n);
}
