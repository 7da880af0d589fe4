/* counts.c - FLOPs and compulsory bytes of a problem (results/COUNTING.md).
 *
 * Conventions (results/COUNTING.md states them in full):
 * - 2 FLOPs per multiply-add; a conv bias adds one FLOP per output element
 *   (FWD_B), and so does its gradient, one add per diff_dst element
 *   (BWD_WB's diff_bia).
 * - Conv FLOPs count the taps that fall inside the input, as benchdnn
 *   does: a tap on the zero padding multiplies nothing.  The dense count
 *   (every tap), in which model totals are usually stated, is kept beside
 *   it.  Each backward pass computes the forward's products, regrouped
 *   (BWD_D by input element, BWD_W by weight), so all three directions
 *   count the same multiply-adds, in bounds or dense.
 * - Minimum bytes count each tensor once: what must cross from memory at
 *   least once, whatever the backend's layout, reorders or write-allocate.
 * - bnorm FLOPs per element are those of the cheapest exact algebra, per
 *   channel constants aside: inference 2 (x a + b), training (FWD_D) 5
 *   (sum, sum of squares, normalise), backward (BWD_D and BWD_DW alike, as
 *   both need the sums) 7: the sums of diff_dst and of diff_dst * x (3),
 *   then diff_src = a diff_dst + b x + c (4).  Training and backward read
 *   their activations (src; backward also diff_dst) in two passes, the
 *   second after the channel's sums are complete, so the least a kernel
 *   must keep in cache between its passes is one channel's slices (N x
 *   spatial each): they are read twice from memory when those do not fit
 *   in the last-level cache, once when they do or when the cache size is
 *   unknown (the minimum).
 * Counts are doubles: large models at large batches exceed 2^53 only in
 * the last bits, which no figure needs. */
#include "kernels/problem.h"
#include "kernels/tensors.h"

/* Output elements of a conv (per the whole batch). */
static double conv_dst(const kb_conv_desc *c)
{
    return (double)c->mb * c->oc * c->od * c->oh * c->ow;
}

static double bnorm_elems(const kb_bnorm_desc *b)
{
    return (double)b->mb * b->ic * b->id * b->ih * b->iw;
}

/* Taps of one spatial dim that land inside the input, summed over its
 * outputs: #{(o, k) : 0 <= o*s - p + k*(d+1) < in}.  O(out * k) loops,
 * exact, whatever the stride, padding and dilation. */
static double taps_in_bounds(int64_t in, int64_t out, int64_t k, int64_t s,
                             int64_t p, int64_t d)
{
    double n = 0;
    for (int64_t o = 0; o < out; o++)
        for (int64_t t = 0; t < k; t++) {
            int64_t i = o * s - p + t * (d + 1);
            n += i >= 0 && i < in;
        }
    return n;
}

/* Multiply-adds of a conv, counting only in-bounds taps.  A tap's
 * position is in bounds when it is along every dim, so the count per
 * (image, output channel, input channel) is the product of the dims'. */
static double conv_macs_in_bounds(const kb_conv_desc *c)
{
    return (double)c->mb * c->oc * (c->ic / c->g) *
           taps_in_bounds(c->id, c->od, c->kd, c->sd, c->pd, c->dd) *
           taps_in_bounds(c->ih, c->oh, c->kh, c->sh, c->ph, c->dh) *
           taps_in_bounds(c->iw, c->ow, c->kw, c->sw, c->pw, c->dw);
}

/* Returns true for a conv forward pass with bias (FWD_B): dst gets it. */
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

/* Returns the length of the longest sum behind one output element (>= 1
 * for a valid problem): conv forward, a dst element's C/G x taps; BWD_D,
 * a diff_src element's K/G x taps (a bound: a stride leaves some taps
 * without an output); BWD_W and BWD_WB, a diff_wei (or diff_bia)
 * element's N x output positions.  For bnorm, the N x spatial values
 * behind each channel's mean and, backward, its diff_dst sums. */
int64_t kb_problem_accumulation_length(const kb_problem *p)
{
    const kb_conv_desc *c = &p->conv;
    const kb_bnorm_desc *b = &p->bnorm;
    const int64_t taps = c->kd * c->kh * c->kw;
    switch (p->kind) {
    case KB_CONV:
        if (p->dir == KB_BWD_D)
            return c->oc / c->g * taps;
        if (p->dir == KB_BWD_W || p->dir == KB_BWD_WB)
            return c->mb * c->od * c->oh * c->ow;
        return c->ic / c->g * taps;
    case KB_GEMM: return p->gemm.k;
    case KB_BNORM: return b->mb * b->id * b->ih * b->iw;
    }
    return 0;
}

/* FLOPs without the conv bias, conv taps counted in bounds or dense.
 * Can't fail. */
static double flops_nobias(const kb_problem *p, bool dense)
{
    const kb_gemm_desc *g = &p->gemm;
    switch (p->kind) {
    case KB_CONV:
        return 2.0 * (dense ? conv_dst(&p->conv) * (p->conv.ic / p->conv.g) *
                                  p->conv.kd * p->conv.kh * p->conv.kw
                            : conv_macs_in_bounds(&p->conv));
    case KB_GEMM:
        /* beta * C costs one FLOP per element of C */
        return 2.0 * g->m * g->n * g->k + (g->beta != 0.0 ? (double)g->m * g->n : 0);
    case KB_BNORM:
        return (p->dir == KB_FWD_I ? 2.0 : kb_dir_is_backward(p->dir) ? 7.0 : 5.0) *
               bnorm_elems(&p->bnorm);
    }
    return 0;
}

/* The bias add (FWD_B) or its gradient's reduction (BWD_WB): one FLOP per
 * element of dst, or of diff_dst. */
static double with_bias(const kb_problem *p, double f)
{
    bool bias = kb_problem_has_bias(p) || (p->kind == KB_CONV && p->dir == KB_BWD_WB);
    return bias ? f + conv_dst(&p->conv) : f;
}

/* The four FLOP counts; none can fail. */
double kb_problem_flops_nobias(const kb_problem *p)
{
    return flops_nobias(p, false);
}

double kb_problem_flops(const kb_problem *p)
{
    return with_bias(p, flops_nobias(p, false));
}

double kb_problem_flops_dense_nobias(const kb_problem *p)
{
    return flops_nobias(p, true);
}

double kb_problem_flops_dense(const kb_problem *p)
{
    return with_bias(p, flops_nobias(p, true));
}

/* Can't fail. */
bool kb_problem_bytes_reread(const kb_problem *p, double llc_bytes)
{
    bool two_pass = p->dir == KB_FWD_D || kb_dir_is_backward(p->dir);
    if (p->kind != KB_BNORM || !two_pass || !(llc_bytes > 0))
        return false;
    /* one channel's slices (src, and backward diff_dst, both in src's
     * type): what a kernel finishing a channel at a time keeps in cache
     * between its two passes */
    const kb_bnorm_desc *b = &p->bnorm;
    double slices = kb_dir_is_backward(p->dir) ? 2.0 : 1.0;
    double slice = slices * (double)kb_dtype_size(p->dt.src) * b->mb * b->id *
                   b->ih * b->iw;
    return slice > llc_bytes;
}

/* Minimum bytes: every tensor of the direction once, in its own storage
 * type (tensors.c's table), a tensor both read and written (GEMM's C with
 * beta != 0) twice, and the activations bnorm's two passes read (src,
 * diff_dst) once more when they are re-read.  Can't fail. */
double kb_problem_bytes(const kb_problem *p, double llc_bytes)
{
    kb_arg_info info[KB_ARG_MAX];
    double total = 0;
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used)
            continue;
        double bytes = (double)kb_dtype_size(info[a].dt) * (double)info[a].nelems;
        total += bytes * ((info[a].is_input && info[a].is_output) ? 2.0 : 1.0);
        if ((a == KB_ARG_SRC || a == KB_ARG_DIFF_DST) &&
            kb_problem_bytes_reread(p, llc_bytes))
            total += bytes;
    }
    return total;
}
