/* tensors.h - the tensors a problem reads and writes, and where each
 * logical element lives in memory.
 *
 * One table drives filling, poisoning, validation, memory checks and
 * --dump, so those never disagree about shapes or layouts. */
#ifndef KB_TENSORS_H
#define KB_TENSORS_H

#include "problem.h"

#ifdef __cplusplus   /* the GPU kernels (.cu) include it */
extern "C" {
#endif

/* Roles, with benchdnn's names.  For GEMM, SRC is A, WEI is B and DST is
 * C (read when beta != 0).  MEAN and VAR are inputs for bnorm inference
 * and the backward passes and outputs for forward training.  The DIFF_
 * tensors are the gradients of the backward directions; each has the
 * shape of the tensor it is the gradient of.  Which a direction reads and
 * writes is one table in tensors.c. */
typedef enum {
    KB_ARG_SRC, KB_ARG_WEI, KB_ARG_BIA, KB_ARG_DST,
    KB_ARG_MEAN, KB_ARG_VAR, KB_ARG_SCALE, KB_ARG_SHIFT,
    KB_ARG_DIFF_SRC, KB_ARG_DIFF_WEI, KB_ARG_DIFF_BIA, KB_ARG_DIFF_DST,
    KB_ARG_DIFF_SCALE, KB_ARG_DIFF_SHIFT,
    KB_ARG_MAX
} kb_arg;

#define KB_MAX_DIMS 5

typedef struct {
    bool used;                 /* the problem has this tensor */
    bool is_input;             /* read by the kernel: filled by the driver */
    bool is_output;            /* written by the kernel: poisoned, validated */
    kb_dtype dt;               /* storage type (kb_arg_dtype) */
    const char *name;          /* "src", "wei", "a", "b", "dst", ... */
    const char *input_name;    /* dump name of the initial content when both
                                  input and output ("c" for GEMM), else NULL */
    int ndims;
    int64_t dims[KB_MAX_DIMS]; /* logical shape, e.g. [N, C, H, W] */
    int64_t nelems;
} kb_arg_info;

/* Fill info[KB_ARG_MAX] for problem p. */
void kb_problem_args(const kb_problem *p, kb_arg_info info[KB_ARG_MAX]);

/* Storage type of tensor a of p: src and diff_src take p->dt.src, wei
 * and diff_wei p->dt.wei, dst, diff_dst and the biases p->dt.dst; bnorm's
 * per-channel tensors (statistics, scale, shift and their gradients) are
 * f32 (f64 for f64 problems), as in oneDNN. */
kb_dtype kb_arg_dtype(const kb_problem *p, kb_arg a);

/* Physical element offset of the logical index idx[0..ndims-1] of arg a,
 * following p's layout and transposes. */
int64_t kb_arg_offset(const kb_problem *p, kb_arg a, const int64_t *idx);

/* Bytes of all tensors of p (used ones, each once); SIZE_MAX when the
 * sum overflows (a shape no machine can hold). */
size_t kb_problem_tensor_bytes(const kb_problem *p);

/* Host buffers, NULL where a tensor is unused. */
typedef struct {
    void *ptr[KB_ARG_MAX];
} kb_tensors;

/* Allocate (64-byte aligned) or free every used tensor of p.
 * kb_tensors_alloc returns 0, or -1 with everything freed. */
int kb_tensors_alloc(const kb_problem *p, kb_tensors *t);
void kb_tensors_free(kb_tensors *t);

/* Element access by physical offset, converting to and from double.
 * Stores round to nearest even (bf16 and f16 by way of f32, whose double
 * rounding is below any tolerance here); an f16 beyond its range becomes
 * inf. */
double kb_load(kb_dtype dt, const void *base, int64_t off);
void kb_store(kb_dtype dt, void *base, int64_t off, double v);

#ifdef __cplusplus
}
#endif

#endif
