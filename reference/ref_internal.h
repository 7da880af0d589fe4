/* ref_internal.h - declarations shared inside reference/: the expected value
 * of one output element, the projected check, and logical-index iteration
 * over a tensor.
 *
 * The reference kernels (kb_ref_run) and the comparison (kb_validate) are
 * built on the same per-point functions, so a full run and a sampled check
 * can never disagree about what an element should be. */
#ifndef KB_REF_INTERNAL_H
#define KB_REF_INTERNAL_H

#include "reference/reference.h"

/* Work (element operations, roughly) below which a loop of the check runs
 * on one thread: starting a parallel region and its closing barrier cost
 * more, and far more on a machine with more threads than free cores. */
#define KB_REF_PARALLEL_MIN 65536

/* bnorm backward: channel c's statistics and its reductions over N and
 * the spatial dims: dshift = sum diff_dst, dscale = sum diff_dst * x_hat
 * with x_hat = (x - mean) / sqrt(var + eps), and dscale_abs, the sum of
 * the absolute values of dscale's terms. */
typedef struct {
    double mean, var, dshift, dscale, dscale_abs;
} kb_ref_bnorm_grads;

/* What the per-point functions need: the problem, its inputs, its tensor
 * table, and for bnorm the per-channel statistics used to normalise and,
 * for the backward passes, the per-channel reductions of diff_dst. */
typedef struct {
    const kb_problem *p;
    const kb_tensors *in;
    kb_arg_info info[KB_ARG_MAX];
    /* Element strides of each used tensor's logical dims: (n, c, d, h, w)
     * for conv activations and weights (d's 0 in 2D), (row, col) for
     * GEMM; offsets are linear in the logical index for every layout. */
    int64_t stride[KB_ARG_MAX][KB_MAX_DIMS];
    double *mean;              /* bnorm: [C] batch (FWD_D) or given (others) */
    double *var;               /* bnorm: [C]; both NULL for conv and GEMM */
    kb_ref_bnorm_grads *grads; /* bnorm backward: [C]; else NULL */
} kb_ref_ctx;

/* Fill ctx for p over the inputs in `in`; computes nothing but the
 * strides and allocates nothing, so it cannot fail.  kb_ref_expected needs kb_ref_ctx_stats
 * first for bnorm. */
void kb_ref_ctx_init(kb_ref_ctx *ctx, const kb_problem *p,
                     const kb_tensors *in);

/* For bnorm, allocate and compute every channel's statistics (and, for
 * the backward passes, its diff_dst reductions) once (O(elements)).
 * No-op for other kinds.  Returns 0, or -1 when the allocation fails (ctx
 * then holds no statistics). */
int kb_ref_ctx_stats(kb_ref_ctx *ctx);
void kb_ref_ctx_free(kb_ref_ctx *ctx);

/* Expected value of output tensor a at logical index idx.  Cannot fail;
 * a must be an output of ctx->p. */
double kb_ref_expected(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx);

/* The size of the terms behind that expected value, when they can cancel
 * far below it: bnorm's backward results are differences of sums.  0 for
 * every other output (a dot product of VALIDATION data is exact, whatever
 * its terms).  compare.c scales the tolerance by the larger of this and
 * the value.  Cannot fail. */
double kb_ref_terms(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx);

/* How an output tensor is compared (compare.c gives the model): its
 * storage type; whether that is narrower than the accumulation type, so
 * that the reference's interval is rounded to it; the relative bound on a
 * correct value before that rounding; and the largest relative error a
 * passing element can then show (what kb_tolerance reports). */
typedef struct {
    kb_dtype dt;
    bool rounds;
    double tol, shown;
} kb_ref_rule;

kb_ref_rule kb_ref_rule_of(const kb_problem *p, kb_arg a);
/* x rounded to nearest even in dt, by way of f32 for bf16 and f16 (as a
 * kernel accumulating in f32 stores it).  Cannot fail. */
double kb_ref_round(kb_dtype dt, double x);
/* Whether got passes as the stored value of reference x whose terms have
 * size `terms` (kb_ref_terms); *abs_err gets |got - x| (x rounded to a
 * narrower output's type), *rel_err that over max(|x|, 1, terms).  NaN
 * and Inf never pass.  Cannot fail. */
bool kb_ref_accepts(const kb_ref_rule *r, double got, double x, double terms,
                    double *abs_err, double *rel_err);

/* Per-kind expected values (ref_conv.c, ref_gemm.c, ref_bnorm.c).
 * conv: dst (forward), diff_src (BWD_D), diff_wei (BWD_W, BWD_WB) and
 * diff_bia (BWD_WB) at a logical index of that tensor. */
double kb_ref_conv_point(const kb_ref_ctx *ctx, const int64_t *dst_idx);
double kb_ref_conv_bwd_d_point(const kb_ref_ctx *ctx, const int64_t *src_idx);
double kb_ref_conv_bwd_w_point(const kb_ref_ctx *ctx, const int64_t *wei_idx);
double kb_ref_conv_bwd_b_point(const kb_ref_ctx *ctx, const int64_t *bia_idx);
double kb_ref_gemm_point(const kb_ref_ctx *ctx, const int64_t *dst_idx);

/* conv: write a [N or K, C, (D,) H, W] logical index; 2D problems drop
 * D.  Cannot fail. */
void kb_ref_conv_index(int64_t *idx, int ndims, int64_t a, int64_t b,
                       int64_t d, int64_t h, int64_t w);
/* conv: input coordinate read by output coordinate o at kernel tap t, or
 * -1 when it falls in the zero padding.  Dilation is 0-based. */
int64_t kb_ref_conv_input_coord(int64_t o, int64_t t, int64_t stride,
                                int64_t pad, int64_t dil, int64_t in_size);
/* conv: the inverse, the output coordinate whose tap t reads input
 * coordinate i, or -1 when none does (not on the stride, or outside the
 * output). */
int64_t kb_ref_conv_output_coord(int64_t i, int64_t t, int64_t stride,
                                 int64_t pad, int64_t dil, int64_t out_size);

/* bnorm: channel c's mean and biased variance: computed over N and the
 * spatial dims for forward training (FWD_D), read from MEAN/VAR by every
 * other direction. */
void kb_ref_bnorm_channel_stats(const kb_ref_ctx *ctx, int64_t c,
                                double *mean, double *var);
/* bnorm: one normalised value of channel c. */
double kb_ref_bnorm_value(const kb_ref_ctx *ctx, int64_t c, double mean,
                          double var, double x);

/* bnorm backward: channel c's statistics and reductions. */
void kb_ref_bnorm_channel_grads(const kb_ref_ctx *ctx, int64_t c,
                                kb_ref_bnorm_grads *g);
/* bnorm backward: diff_src at idx (channel idx[1]) from its channel's
 * reductions; *terms gets the size of the terms it is the sum of. */
double kb_ref_bnorm_diff_src(const kb_ref_ctx *ctx, const kb_ref_bnorm_grads *g,
                             const int64_t *idx, double *terms);

/* bnorm reference kernel behind kb_ref_run: channel by channel, so it
 * needs no allocation (kb_ref_run cannot report a failure). */
void kb_ref_bnorm(const kb_ref_ctx *ctx, kb_tensors *out);

/* Write kb_ref_expected of every element of output a into out (in
 * parallel over elements): the conv and GEMM reference kernels. */
void kb_ref_write_all(const kb_ref_ctx *ctx, kb_arg a, kb_tensors *out);

/* ---- projected check (projected.c) ----
 * dst is split into groups of elements that share their inputs: a GEMM
 * row, or the OC/G channels of one conv group at one (image, position).
 * Each group is checked by exact weighted sums (see projected.c). */
#define KB_PROJ_MAX_WEIGHTINGS 2

/* Smallest q = 2^-s (s <= 64) of which a and b are integer multiples, or
 * 0 when there is none (GEMM's alpha and beta: projected.c, and the FINE
 * fill's bound in fill.c).  Cannot fail. */
double kb_ref_dyadic_quantum(double a, double b);

typedef struct {
    int nw;                    /* independent weightings */
    double quantum;            /* every exact dst value is a multiple of it */
    double bound;              /* ... of magnitude at most this */
    int64_t groups;            /* GEMM: M rows; conv: MB * G * positions */
    int64_t group_size;        /* GEMM: N; conv: OC/G */
    double *weight;            /* [nw][N] (GEMM) or [nw][OC] (conv) */
    double *proj;              /* GEMM: [nw][K] = B * weight; conv:
                                  [G][taps][IC/G][nw] projected filters */
    double *bias;              /* conv with bias: [G][nw]; else NULL */
    int64_t st_src[5], st_wei[5], st_dst[5]; /* ctx's strides of each */
} kb_proj;

/* Multiply-adds (and input reads) the projected check of p costs; 0 for
 * kinds it does not handle.  Cannot fail. */
double kb_proj_cost(const kb_problem *p);

/* Set up the projected check of ctx's problem for per-point tolerance
 * tol, weights drawn from seed.  Returns 0 (pj ready: kb_proj_free it),
 * 1 when the check would not be exact on these inputs (non-integer data,
 * or sums too large; pj holds nothing), -1 when out of memory. */
int kb_proj_init(const kb_ref_ctx *ctx, double tol, uint64_t seed,
                 kb_proj *pj);
void kb_proj_free(kb_proj *pj);

/* One group's check against the output at `got`.  Returns true when it
 * passes; then *max_abs, *max_rel get the largest error of its elements
 * (exact, as each is then known to round to its exact value).  When it
 * fails, *sum_diff gets got - expected of the first differing weighted
 * sum, in dst units, or 0 when an element failed on its own (not within
 * tolerance of a multiple of the quantum, or beyond the bound).  Cannot
 * fail. */
bool kb_proj_group(const kb_ref_ctx *ctx, const kb_proj *pj, double tol,
                   const void *got, int64_t group, double *max_abs,
                   double *max_rel, double *sum_diff);

/* Logical dst index of element j (0 .. group_size-1) of a group. */
void kb_proj_group_index(const kb_ref_ctx *ctx, const kb_proj *pj,
                         int64_t group, int64_t j, int64_t *idx);

/* "dst row 17" or "dst[0,0..63,12,40]" into buf (truncated to len). */
void kb_proj_describe(const kb_ref_ctx *ctx, const kb_proj *pj,
                      int64_t group, char *buf, size_t len);

/* A well-mixed 64-bit hash of (seed, a, b) (fill.c): seeds a fill chunk's
 * generator, picks a validation sample point. */
uint64_t kb_ref_hash(uint64_t seed, uint64_t a, uint64_t b);

/* Logical index of the linear (row-major over the logical dims) element
 * number `linear` of tensor a. */
void kb_ref_unravel(const kb_arg_info *a, int64_t linear, int64_t *idx);

/* Advance idx to the next logical index in row-major order (wrapping to
 * all zeros after the last). */
void kb_ref_next_index(const kb_arg_info *a, int64_t *idx);

/* Writes "name[i,j,...]" into buf (truncated to len). */
void kb_ref_format_index(const kb_arg_info *a, const int64_t *idx, char *buf,
                         size_t len);

#endif
