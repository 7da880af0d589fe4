/* reference.h - obviously-correct kernels, deterministic data, validation.
 *
 * Slow on purpose: direct loops, double accumulation.  Everything a
 * backend produces is compared against these. */
#ifndef KB_REFERENCE_H
#define KB_REFERENCE_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#include <stdbool.h>

/* ---- data (fill.c) ----
 * VALIDATION: small integers (and exact binary fractions where a kernel
 *   needs them), exact in bf16 and f16 too, so fp32 results are exact
 *   whenever the accumulation length allows (fill.c states when); bnorm
 *   variances are positive.
 * FINE (`kbench run --fill fine`): VALIDATION, except that in an f32
 *   conv or GEMM with --fpmath strict one operand of every product
 *   carries fractional bits that TF32 and bf16 inputs round away, while
 *   every f32 product and partial sum stays exact (kb_fill_fine_bits);
 *   other problems get the VALIDATION values.
 * RANDOM: uniform values for timing runs.
 * All depend only on (seed, problem, tensor, element), never on the
 * number of threads. */
typedef enum { KB_FILL_VALIDATION, KB_FILL_RANDOM, KB_FILL_FINE } kb_fill_mode;

void kb_fill_inputs(const kb_problem *p, kb_tensors *t, kb_fill_mode mode,
                    uint64_t seed);

/* The fractional bits s (9 to 12) the FINE fill gives p's fine operand
 * (multiples of 2^-s), or 0 when p gets the VALIDATION values: not f32
 * strict conv or GEMM, or sums too long to stay exact (fill.c).  Cannot
 * fail. */
int kb_fill_fine_bits(const kb_problem *p);

/* "integer", "fine" or "random"; and the inverse for --fill (0, or -1
 * for another name). */
const char *kb_fill_mode_name(kb_fill_mode m);
int kb_fill_mode_parse(const char *s, kb_fill_mode *out);

/* Set every element of every output tensor to NaN, so an element the
 * kernel never writes fails validation.  parallel: on OpenMP's threads
 * (fresh tensors: their pages land where those threads run); false: on
 * the caller's alone, leaving OpenMP's pool asleep. */
void kb_poison_outputs(const kb_problem *p, kb_tensors *t, bool parallel);

/* ---- reference kernels (ref_conv.c, ref_gemm.c, ref_bnorm.c) ----
 * Compute every output of p's direction from the inputs in `in` into
 * `out` (same problem, same layout), each stored in its type.  `out` may be `in` itself, except that GEMM with
 * beta != 0 reads the initial dst, so pass a copy there. */
void kb_ref_run(const kb_problem *p, const kb_tensors *in, kb_tensors *out);

/* ---- comparison (compare.c, projected.c) ----
 * How the outputs were checked:
 * FULL: every element compared point by point with the reference;
 * PROJECTED: every element covered by exact weighted sums (GEMM rows,
 *   conv pixels; projected.c) at a fraction of the reference's cost, the
 *   elements of a failing sum then compared point by point;
 * SAMPLED: distinct random elements compared point by point, when the
 *   full comparison is too costly and the projected one is not exact. */
typedef enum { KB_CHECK_FULL, KB_CHECK_PROJECTED, KB_CHECK_SAMPLED } kb_check_mode;

/* "full", "projected" or "sampled". */
const char *kb_check_mode_name(kb_check_mode m);

typedef struct {
    kb_check_mode mode;
    int64_t points;            /* distinct output elements the check covered */
    int64_t checked;           /* elements compared point by point (projected:
                                  those of the failing sums' diagnosis) */
    int64_t mismatches;        /* elements beyond tolerance (incl. non-finite);
                                  projected: those the diagnosis found, and
                                  each failing sum it did not reach once */
    int64_t nonfinite;         /* NaN/Inf anywhere in the outputs (full scan) */
    double max_abs_err;
    double max_rel_err;
    double tolerance;          /* relative threshold used */
    char first_mismatch[192];  /* "dst[0,3,1,2]: got 1.5, expected 2" or "" */
} kb_validation;

/* Validation policy knobs (0 = default). */
typedef struct {
    int64_t full_max_macs;     /* full comparison when the reference work
                                  is at most this many MACs */
    int64_t sample_points;     /* points per output tensor when sampled (at
                                  most: fewer, but 256 or more, where each
                                  costs a sum over a whole batch, BWD_W),
                                  and the most points the diagnosis of a
                                  failed projected check compares */
    uint64_t seed;             /* picks the sample and the projection weights */
} kb_validate_opts;

/* Compare the outputs in t (written by a backend) with the reference
 * computed from the inputs in t.  Policy: bnorm, and conv/GEMM whose
 * reference costs at most full_max_macs, FULL; beyond that, for a
 * forward pass whose projected check is exact on these inputs
 * (projected.c says when), the cheaper of PROJECTED and FULL, both of
 * which cover every element (FULL wins when a group has few channels,
 * e.g. depthwise); otherwise (and for every backward pass) SAMPLED.  Every output is also scanned for NaN/Inf.  `inputs` holds the inputs as they were
 * before the run (needed for GEMM with beta != 0, whose dst is both;
 * may equal t otherwise).  Returns true when the result passes. */
bool kb_validate(const kb_problem *p, const kb_tensors *inputs,
                 const kb_tensors *t, const kb_validate_opts *opts,
                 kb_validation *v);

/* Relative tolerance for p: the largest relative error a passing element
 * of any of its outputs can show.  It depends on the output and
 * accumulation types and the accumulation length (compare.c gives the
 * model: bf16/f16 outputs are compared with the reference rounded to
 * their type). */
double kb_tolerance(const kb_problem *p);

#endif
