/* ref_gemm.c - reference GEMM: dst[m,n] = alpha * sum_k A[m,k] * B[k,n]
 * + beta * C[m,n], one dot product per output element.  Logical indices
 * go through kb_arg_offset, which applies the ta/tb transposes. */
#include "reference/ref_internal.h"

double kb_ref_gemm_point(const kb_ref_ctx *ctx, const int64_t *dst_idx)
{
    const kb_problem *p = ctx->p;
    const kb_gemm_desc *g = &p->gemm;
    const int64_t m = dst_idx[0], n = dst_idx[1];
    const void *a = ctx->in->ptr[KB_ARG_SRC];
    const void *b = ctx->in->ptr[KB_ARG_WEI];
    double acc = 0.0;

    for (int64_t k = 0; k < g->k; k++) {
        int64_t aidx[2] = {m, k}, bidx[2] = {k, n};
        acc += kb_load(p->dt.src, a, kb_arg_offset(p, KB_ARG_SRC, aidx)) *
               kb_load(p->dt.wei, b, kb_arg_offset(p, KB_ARG_WEI, bidx));
    }
    double result = g->alpha * acc;
    /* With beta == 0 the initial dst is not an input (it may hold the NaN
     * poison), so it must not be read: 0 * NaN would be NaN. */
    if (g->beta != 0.0)
        result += g->beta * kb_load(p->dt.dst, ctx->in->ptr[KB_ARG_DST],
                                    kb_arg_offset(p, KB_ARG_DST, dst_idx));
    return result;
}
