/* ref_internal.h - declarations shared inside reference/: the expected value
 * of one output element, and logical-index iteration over a tensor.
 *
 * The reference kernels (kb_ref_run) and the comparison (kb_validate) are
 * built on the same per-point functions, so a full run and a sampled check
 * can never disagree about what an element should be. */
#ifndef KB_REF_INTERNAL_H
#define KB_REF_INTERNAL_H

#include "reference/reference.h"

/* What the per-point functions need: the problem, its inputs, its tensor
 * table, and for bnorm the per-channel statistics used to normalise. */
typedef struct {
    const kb_problem *p;
    const kb_tensors *in;
    kb_arg_info info[KB_ARG_MAX];
    double *mean;              /* bnorm: [C] given (FWD_I) or batch (FWD_D) */
    double *var;               /* bnorm: [C]; both NULL for conv and GEMM */
} kb_ref_ctx;

/* Fill ctx for p over the inputs in `in`; computes nothing and allocates
 * nothing, so it cannot fail.  kb_ref_expected needs kb_ref_ctx_stats
 * first for bnorm. */
void kb_ref_ctx_init(kb_ref_ctx *ctx, const kb_problem *p,
                     const kb_tensors *in);

/* For bnorm, allocate and compute every channel's statistics once
 * (O(elements)).  No-op for other kinds.  Returns 0, or -1 when the
 * allocation fails (ctx then holds no statistics). */
int kb_ref_ctx_stats(kb_ref_ctx *ctx);
void kb_ref_ctx_free(kb_ref_ctx *ctx);

/* Expected value of output tensor a at logical index idx.  Cannot fail;
 * a must be an output of ctx->p. */
double kb_ref_expected(const kb_ref_ctx *ctx, kb_arg a, const int64_t *idx);

/* Per-kind expected values (ref_conv.c, ref_gemm.c, ref_bnorm.c). */
double kb_ref_conv_point(const kb_ref_ctx *ctx, const int64_t *dst_idx);
double kb_ref_gemm_point(const kb_ref_ctx *ctx, const int64_t *dst_idx);

/* bnorm: channel c's mean and biased variance: read from MEAN/VAR for
 * inference, computed over N and the spatial dims for training. */
void kb_ref_bnorm_channel_stats(const kb_ref_ctx *ctx, int64_t c,
                                double *mean, double *var);
/* bnorm: one normalised value of channel c. */
double kb_ref_bnorm_value(const kb_ref_ctx *ctx, int64_t c, double mean,
                          double var, double x);

/* bnorm reference kernel behind kb_ref_run: channel by channel, so it
 * needs no allocation (kb_ref_run cannot report a failure). */
void kb_ref_bnorm(const kb_ref_ctx *ctx, kb_tensors *out);

/* Write kb_ref_expected of every element of output a into out (in
 * parallel over elements): the conv and GEMM reference kernels. */
void kb_ref_write_all(const kb_ref_ctx *ctx, kb_arg a, kb_tensors *out);

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
