/* reference.h - obviously-correct kernels, deterministic data, validation.
 *
 * Slow on purpose: direct loops, double accumulation.  Everything a
 * backend produces is compared against these. */
#ifndef KB_REFERENCE_H
#define KB_REFERENCE_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

/* ---- data (fill.c) ----
 * VALIDATION: small integers (and exact binary fractions where a kernel
 *   needs them), so fp32 results are exact whenever the accumulation
 *   length allows; bnorm variances are positive.
 * RANDOM: uniform values for timing runs.
 * Both depend only on (seed, problem, tensor, element), never on the
 * number of threads. */
typedef enum { KB_FILL_VALIDATION, KB_FILL_RANDOM } kb_fill_mode;

void kb_fill_inputs(const kb_problem *p, kb_tensors *t, kb_fill_mode mode,
                    uint64_t seed);

/* Set every element of every output tensor to NaN, so an element the
 * kernel never writes fails validation. */
void kb_poison_outputs(const kb_problem *p, kb_tensors *t);

/* ---- reference kernels (ref_conv.c, ref_gemm.c, ref_bnorm.c) ----
 * Compute every output of p from the inputs in `in` into `out` (same
 * problem, same layout).  `out` may be `in` itself, except that GEMM with
 * beta != 0 reads the initial dst, so pass a copy there. */
void kb_ref_run(const kb_problem *p, const kb_tensors *in, kb_tensors *out);

/* ---- comparison (compare.c) ---- */
typedef struct {
    bool sampled;              /* a random sample of output points, not all */
    int64_t checked;           /* output points compared */
    int64_t mismatches;        /* points beyond tolerance (incl. non-finite) */
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
    int64_t sample_points;     /* points per output tensor otherwise */
    uint64_t seed;             /* picks the sample */
} kb_validate_opts;

/* Compare the outputs in t (written by a backend) with the reference
 * computed from the inputs in t.  `inputs` holds the inputs as they were
 * before the run (needed for GEMM with beta != 0, whose dst is both;
 * may equal t otherwise).  Returns true when the result passes. */
bool kb_validate(const kb_problem *p, const kb_tensors *inputs,
                 const kb_tensors *t, const kb_validate_opts *opts,
                 kb_validation *v);

/* Relative tolerance for p: depends on dtype and accumulation length. */
double kb_tolerance(const kb_problem *p);

#endif
