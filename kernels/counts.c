/* counts.c - FLOPs and compulsory bytes of a problem (shared/design/roofline.md).
 *
 * Conventions (documented in results/SCHEMA.md):
 * - 2 FLOPs per multiply-add; a conv bias adds one FLOP per output element.
 * - Minimum bytes count each tensor once: what must cross from memory at
 *   least once, whatever the backend's layout, reorders or write-allocate.
 * - bnorm training (FWD_D) counts 5 FLOPs per element (sum, sum of squares,
 *   normalise) and the same minimum traffic as inference, 2 passes over
 *   the data (read src, write dst) plus 4 per-channel vectors: the
 *   statistics passes are assumed to stay in cache.
 * Counts are doubles: large models at large batches exceed 2^53 only in
 * the last bits, which no figure needs. */
#include "kernels/problem.h"

/* Output elements of a conv (per the whole batch). */
static double conv_dst(const kb_conv_desc *c)
{
    return (double)c->mb * c->oc * c->od * c->oh * c->ow;
}

static double bnorm_elems(const kb_bnorm_desc *b)
{
    return (double)b->mb * b->ic * b->id * b->ih * b->iw;
}

/* Returns true for a conv run with bias (FWD_B). */
bool kb_problem_has_bias(const kb_problem *p)
{
    return p->kind == KB_CONV && p->dir == KB_FWD_B;
}

/* Can't fail. */
bool kb_conv_is_pointwise(const kb_conv_desc *c)
{
    return c->kd == 1 && c->kh == 1 && c->kw == 1 && c->sd == 1 &&
           c->sh == 1 && c->sw == 1 && c->pd == 0 && c->ph == 0 &&
           c->pw == 0;
}

/* Returns the length of one output's dot product (>= 1 for a valid
 * problem).  For bnorm, the number of values behind each mean. */
int64_t kb_problem_accumulation_length(const kb_problem *p)
{
    const kb_conv_desc *c = &p->conv;
    const kb_bnorm_desc *b = &p->bnorm;
    switch (p->kind) {
    case KB_CONV: return c->ic / c->g * c->kd * c->kh * c->kw;
    case KB_GEMM: return p->gemm.k;
    case KB_BNORM: return b->mb * b->id * b->ih * b->iw;
    }
    return 0;
}

/* FLOPs without the conv bias; can't fail. */
double kb_problem_flops_nobias(const kb_problem *p)
{
    const kb_gemm_desc *g = &p->gemm;
    switch (p->kind) {
    case KB_CONV:
        return 2.0 * conv_dst(&p->conv) * kb_problem_accumulation_length(p);
    case KB_GEMM:
        /* beta * C costs one FLOP per element of C */
        return 2.0 * g->m * g->n * g->k + (g->beta != 0.0 ? (double)g->m * g->n : 0);
    case KB_BNORM:
        return (p->dir == KB_FWD_I ? 2.0 : 5.0) * bnorm_elems(&p->bnorm);
    }
    return 0;
}

/* FLOPs including the conv bias; can't fail. */
double kb_problem_flops(const kb_problem *p)
{
    double f = kb_problem_flops_nobias(p);
    return kb_problem_has_bias(p) ? f + conv_dst(&p->conv) : f;
}

/* Minimum bytes; can't fail. */
double kb_problem_bytes(const kb_problem *p)
{
    double e = (double)kb_dtype_size(p->dt);
    const kb_conv_desc *c = &p->conv;
    const kb_gemm_desc *g = &p->gemm;
    switch (p->kind) {
    case KB_CONV: {
        double src = (double)c->mb * c->ic * c->id * c->ih * c->iw;
        double wei = (double)c->oc * (c->ic / c->g) * c->kd * c->kh * c->kw;
        double bias = kb_problem_has_bias(p) ? (double)c->oc : 0;
        return e * (src + wei + conv_dst(c) + bias);
    }
    case KB_GEMM:
        /* C is read as well as written when beta != 0 */
        return e * ((double)g->m * g->k + (double)g->k * g->n +
                    (double)g->m * g->n * (g->beta != 0.0 ? 2 : 1));
    case KB_BNORM:
        /* src read, dst written; mean, variance, scale, shift per channel */
        return e * (2.0 * bnorm_elems(&p->bnorm) + 4.0 * p->bnorm.ic);
    }
    return 0;
}
