/* compare.c - the tolerance model and the comparison of a backend's
 * outputs with the reference (full, or on a seeded sample of points). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference/ref_internal.h"

#define DEFAULT_FULL_MAX_MACS (INT64_C(1) << 26)
#define DEFAULT_SAMPLE_POINTS 4096

/* Tolerance model, in units of the dtype's rounding error u (2^-24 for
 * f32, 2^-53 for f64), benchdnn style: each clause is one source of
 * legitimate difference between a correct kernel and the reference.
 * It is meant for VALIDATION data (fill.c), on which conv and GEMM are
 * exact in any summation order; the clauses bound what remains. */
double kb_tolerance(const kb_problem *p)
{
    const double u = p->dt == KB_F32 ? 0x1p-24 : 0x1p-53;
    int64_t len = kb_problem_accumulation_length(p);
    double ulps;

    /* Rounding the result when it is stored, and once more for a value
     * that went through a conversion on the way. */
    ulps = 2.0;
    /* Accumulation: kernels sum in blocks, vectors and trees, in an order
     * of their choosing, with or without FMA.  A summation tree of depth
     * log2(len) adds about one rounding per level; two allow for the
     * FMA/no-FMA difference at each.  A plain sequential fp32 sum of
     * millions of terms (bnorm statistics) can be off by far more, and
     * failing it is intended: it is not an accurate kernel. */
    if (len > 1)
        ulps += 2.0 * ceil(log2((double)len));
    /* Epilogues: conv bias add, GEMM alpha and beta scaling. */
    if (p->kind == KB_GEMM || kb_problem_has_bias(p))
        ulps += 2.0;
    /* bnorm: a sqrt, a division (or a reciprocal square root and a
     * multiply), the scale multiply and the shift add, a few ulps each;
     * the statistics' sums are covered by the accumulation clause. */
    if (p->kind == KB_BNORM)
        ulps += 6.0;
    /* f64: the reference also computes in double, so its own rounding is
     * as large as the kernel's: both count. */
    if (p->dt == KB_F64)
        ulps *= 2.0;
    return ulps * u;
}

/* Reference work per output point, for choosing full or sampled mode:
 * a dot product for conv and GEMM; O(1) for bnorm, whose per-channel
 * statistics are computed once, before comparing. */
static double point_cost(const kb_problem *p)
{
    if (p->kind == KB_BNORM)
        return 1.0;
    int64_t len = kb_problem_accumulation_length(p);
    return len > 1 ? (double)len : 1.0;
}

static void format_value(char *buf, size_t len, kb_dtype dt, double x)
{
    snprintf(buf, len, dt == KB_F32 ? "%.9g" : "%.17g", x);
}

/* Counts and maxima of one thread's share of the comparison; the first
 * mismatch is the one with the lowest point number, so the message does
 * not depend on the thread count. */
typedef struct {
    int64_t checked, mismatches;
    double max_abs, max_rel;
    int64_t first_point;       /* INT64_MAX when none */
    char first[192];
} tally;

static void tally_init(tally *t)
{
    memset(t, 0, sizeof *t);
    t->first_point = INT64_MAX;
}

static void tally_merge(tally *into, const tally *from)
{
    into->checked += from->checked;
    into->mismatches += from->mismatches;
    into->max_abs = fmax(into->max_abs, from->max_abs);
    into->max_rel = fmax(into->max_rel, from->max_rel);
    if (from->first_point < into->first_point) {
        into->first_point = from->first_point;
        memcpy(into->first, from->first, sizeof into->first);
    }
}

/* Compare one point.  rel = |got - exp| / max(|exp|, 1): validation data
 * are integers, many expected values are 0 or +-1, and a pure relative
 * error would blow up there for tiny absolute differences; below 1 the
 * test becomes an absolute one at the same threshold. */
static void compare_point(const kb_ref_ctx *ctx, kb_arg a, const void *got_base,
                          const int64_t *idx, int64_t point, double tol,
                          tally *t)
{
    const kb_problem *p = ctx->p;
    double exp = kb_ref_expected(ctx, a, idx);
    double got = kb_load(p->dt, got_base, kb_arg_offset(p, a, idx));
    double abs_err = fabs(got - exp);
    double rel_err = abs_err / fmax(fabs(exp), 1.0);
    bool finite = isfinite(got) && isfinite(exp);

    t->checked++;
    if (finite) {
        t->max_abs = fmax(t->max_abs, abs_err);
        t->max_rel = fmax(t->max_rel, rel_err);
    }
    if (finite && rel_err <= tol)
        return;
    t->mismatches++;
    if (point < t->first_point) {
        char ix[96], g[32], e[32];
        t->first_point = point;
        kb_ref_format_index(&ctx->info[a], idx, ix, sizeof ix);
        format_value(g, sizeof g, p->dt, got);
        format_value(e, sizeof e, p->dt, exp);
        snprintf(t->first, sizeof t->first, "%s: got %s, expected %s", ix, g,
                 e);
    }
}

/* Linear element number of compared point k out of npoints: all elements
 * in order when npoints covers the tensor; otherwise the first, the last,
 * then seeded random ones (a point may repeat; it is counted each time). */
static int64_t point_element(const kb_arg_info *info, kb_arg a,
                             int64_t npoints, int64_t k, uint64_t seed)
{
    if (npoints == info->nelems || k == 0)
        return k;
    if (k == 1)
        return info->nelems - 1;
    return (int64_t)(kb_ref_hash(seed, (uint64_t)a, (uint64_t)k) %
                     (uint64_t)info->nelems);
}

/* Compare npoints points of output a, merging into total.  Point numbers
 * continue from total->checked, so the first mismatch of an earlier tensor
 * stays the first. */
static void compare_tensor(const kb_ref_ctx *ctx, kb_arg a, const void *got,
                           int64_t npoints, uint64_t seed, double tol,
                           tally *total)
{
    const int64_t base = total->checked;
    const kb_arg_info *info = &ctx->info[a];

#pragma omp parallel
    {
        tally mine;
        tally_init(&mine);
#pragma omp for schedule(dynamic, 256)
        for (int64_t k = 0; k < npoints; k++) {
            int64_t idx[KB_MAX_DIMS];
            kb_ref_unravel(info, point_element(info, a, npoints, k, seed),
                           idx);
            compare_point(ctx, a, got, idx, base + k, tol, &mine);
        }
#pragma omp critical(kb_compare_merge)
        tally_merge(total, &mine);
    }
}

/* Count the NaN/Inf elements of output a (every element, in logical
 * order).  Returns the count; *first gets the lowest logical element
 * number found (INT64_MAX when none). */
static int64_t scan_nonfinite(const kb_ref_ctx *ctx, kb_arg a,
                              const void *base, int64_t *first)
{
    const kb_problem *p = ctx->p;
    const kb_arg_info *info = &ctx->info[a];
    const int64_t chunk = 4096;
    const int64_t nchunks = (info->nelems + chunk - 1) / chunk;
    int64_t count = 0, lowest = INT64_MAX;

#pragma omp parallel for schedule(static) reduction(+ : count) \
    reduction(min : lowest)
    for (int64_t ch = 0; ch < nchunks; ch++) {
        int64_t idx[KB_MAX_DIMS];
        int64_t end = (ch + 1) * chunk < info->nelems ? (ch + 1) * chunk
                                                      : info->nelems;
        kb_ref_unravel(info, ch * chunk, idx);
        for (int64_t i = ch * chunk; i < end; i++) {
            if (!isfinite(kb_load(p->dt, base, kb_arg_offset(p, a, idx)))) {
                count++;
                if (i < lowest)
                    lowest = i;
            }
            kb_ref_next_index(info, idx);
        }
    }
    *first = lowest;
    return count;
}

/* First non-finite element, described for the report when no compared
 * point failed (e.g. an element left unwritten outside the sample). */
static void describe_nonfinite(const kb_ref_ctx *ctx, kb_arg a,
                               const void *base, int64_t element, char *buf,
                               size_t len)
{
    int64_t idx[KB_MAX_DIMS];
    char ix[96], g[32];
    kb_ref_unravel(&ctx->info[a], element, idx);
    kb_ref_format_index(&ctx->info[a], idx, ix, sizeof ix);
    format_value(g, sizeof g, ctx->p->dt,
                 kb_load(ctx->p->dt, base, kb_arg_offset(ctx->p, a, idx)));
    snprintf(buf, len, "%s: got %s (non-finite)", ix, g);
}

bool kb_validate(const kb_problem *p, const kb_tensors *inputs,
                 const kb_tensors *t, const kb_validate_opts *opts,
                 kb_validation *v)
{
    kb_validate_opts o = {0};
    kb_ref_ctx ctx;
    tally total;
    double work = 0.0;

    if (opts)
        o = *opts;
    if (o.full_max_macs <= 0)
        o.full_max_macs = DEFAULT_FULL_MAX_MACS;
    if (o.sample_points <= 0)
        o.sample_points = DEFAULT_SAMPLE_POINTS;
    memset(v, 0, sizeof *v);
    v->tolerance = kb_tolerance(p);

    kb_ref_ctx_init(&ctx, p, inputs);
    if (kb_ref_ctx_stats(&ctx) != 0) {
        snprintf(v->first_mismatch, sizeof v->first_mismatch,
                 "out of memory for the reference statistics of %lld "
                 "channels", (long long)p->bnorm.ic);
        return false;
    }

    /* 1. Non-finite scan of every output element: cheap, and it catches
     *    elements a kernel never wrote even when only a sample is
     *    compared below. */
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!ctx.info[a].used || !ctx.info[a].is_output)
            continue;
        int64_t first;
        int64_t n = scan_nonfinite(&ctx, (kb_arg)a, t->ptr[a], &first);
        if (n > 0 && v->nonfinite == 0)
            describe_nonfinite(&ctx, (kb_arg)a, t->ptr[a], first,
                               v->first_mismatch, sizeof v->first_mismatch);
        v->nonfinite += n;
        /* Double: points * length may exceed int64 for absurd shapes. */
        work += (double)ctx.info[a].nelems * point_cost(p);
    }

    /* 2. Compare every point when the reference work is affordable, else
     *    a seeded sample per tensor (plus its first and last element). */
    v->sampled = work > (double)o.full_max_macs;
    tally_init(&total);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!ctx.info[a].used || !ctx.info[a].is_output)
            continue;
        int64_t npoints = ctx.info[a].nelems;
        if (v->sampled && npoints > o.sample_points + 2)
            npoints = o.sample_points + 2;
        compare_tensor(&ctx, (kb_arg)a, t->ptr[a], npoints, o.seed,
                       v->tolerance, &total);
    }
    kb_ref_ctx_free(&ctx);

    v->checked = total.checked;
    v->mismatches = total.mismatches;
    v->max_abs_err = total.max_abs;
    v->max_rel_err = total.max_rel;
    /* A compared point names the problem better than the scan does. */
    if (total.mismatches > 0)
        memcpy(v->first_mismatch, total.first, sizeof v->first_mismatch);
    return v->mismatches == 0 && v->nonfinite == 0;
}
