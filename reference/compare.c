/* compare.c - the tolerance model and the comparison of a backend's
 * outputs with the reference: full, projected (projected.c) or on a
 * seeded sample of distinct points; the choice between them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert.h"
#include "reference/ref_internal.h"

#define DEFAULT_FULL_MAX_MACS (INT64_C(1) << 26)
#define DEFAULT_SAMPLE_POINTS 4096
/* A sample costs at most this many times the full budget of reference
 * work, but has at least MIN_SAMPLE points (sample_size). */
#define SAMPLE_WORK_FACTOR 4
#define MIN_SAMPLE 256

/* Tolerance model, benchdnn style: each clause is one source of
 * legitimate difference between a correct kernel and the reference.  It
 * is meant for VALIDATION data (fill.c), on which conv and GEMM are exact
 * in any summation order; the clauses bound what remains.
 *
 * kb_ref_rule_of gives, per output tensor, the relative bound `tol` on a
 * correct kernel's value BEFORE it is stored in the tensor's type, in
 * units of the accumulation type's rounding error u (2^-24 for f32, also
 * for bf16 and f16 problems, which accumulate in f32; 2^-53 for f64).
 * Where the output type is the accumulation type, storing is one more
 * rounding and one clause covers it: |got - x| <= tol * s, x the double
 * reference, s = max(|x|, 1, terms) (kb_ref_terms; below 1 the test is
 * an absolute one).  Where it is narrower (bf16, f16), the final
 * rounding is not a clause but done: the kernel's f32 value lies within
 * tol * s of x, round to nearest even is monotone, so its stored value
 * lies between the ends of that interval rounded to the output type (by
 * way of f32, as the kernel rounds).  That is the comparison with the
 * reference rounded to the output type, exact where the data make the
 * f32 value exact: a truncating conversion fails wherever it differs. */
static double pre_rounding_tolerance(const kb_problem *p)
{
    const double u = kb_dtype_epsilon(kb_problem_acc_dtype(p));
    int64_t len = kb_problem_accumulation_length(p);
    double ulps;

    /* Rounding the result when it is stored (or the accumulator when it
     * is converted to a narrower output), and once more for a value that
     * went through a conversion on the way. */
    ulps = 2.0;
    /* Accumulation: kernels sum in blocks, vectors and trees, in an order
     * of their choosing, with or without FMA.  A summation tree of depth
     * log2(len) adds about one rounding per level; two allow for the
     * FMA/no-FMA difference at each.  A plain sequential fp32 sum of
     * millions of terms (bnorm statistics) can be off by far more, and
     * failing it is intended: it is not an accurate kernel.  The bound is
     * relative to the sum of the terms' sizes where they can cancel
     * (bnorm backward: kb_ref_terms), as a sum's rounding error is. */
    if (len > 1)
        ulps += 2.0 * ceil(log2((double)len));
    /* Epilogues: conv bias add, GEMM alpha and beta scaling. */
    if (p->kind == KB_GEMM || kb_problem_has_bias(p))
        ulps += 2.0;
    /* bnorm: a sqrt, a division (or a reciprocal square root and a
     * multiply), the scale multiply and the shift add, a few ulps each;
     * backward: the same factors and the two products and differences
     * of diff_src, within the same few.  The statistics' sums are
     * covered by the accumulation clause. */
    if (p->kind == KB_BNORM)
        ulps += 6.0;
    /* f64: the reference also computes in double, so its own rounding is
     * as large as the kernel's: both count. */
    if (kb_problem_acc_dtype(p) == KB_F64)
        ulps *= 2.0;
    return ulps * u;
}

kb_ref_rule kb_ref_rule_of(const kb_problem *p, kb_arg a)
{
    kb_ref_rule r;
    r.dt = kb_arg_dtype(p, a);
    r.rounds = kb_dtype_epsilon(r.dt) > kb_dtype_epsilon(kb_problem_acc_dtype(p));
    r.tol = pre_rounding_tolerance(p);
    /* The largest relative error a passing element can show, for the
     * record: x's interval, 2 tol wide, plus one rounding of each end,
     * u_out each (by way of f32: a little more, within a third u_out). */
    r.shown = r.rounds ? 2.0 * r.tol + 3.0 * kb_dtype_epsilon(r.dt) : r.tol;
    return r;
}

double kb_tolerance(const kb_problem *p)
{
    kb_arg_info info[KB_ARG_MAX];
    double tol = 0.0;
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (info[a].used && info[a].is_output)
            tol = fmax(tol, kb_ref_rule_of(p, (kb_arg)a).shown);
    return tol;
}

double kb_ref_round(kb_dtype dt, double x)
{
    switch (dt) {
    case KB_F64: return x;
    case KB_F32: return (float)x;
    case KB_BF16: return kb_bf16_to_f32(kb_f32_to_bf16((float)x));
    case KB_F16: return kb_f16_to_f32(kb_f32_to_f16((float)x));
    }
    return x;
}

bool kb_ref_accepts(const kb_ref_rule *r, double got, double x, double terms,
                    double *abs_err, double *rel_err)
{
    const double s = fmax(fmax(fabs(x), 1.0), terms);
    const double want = r->rounds ? kb_ref_round(r->dt, x) : x;
    *abs_err = fabs(got - want);
    *rel_err = *abs_err / s;
    if (!isfinite(got) || !isfinite(want))
        return false;
    if (!r->rounds)
        return *rel_err <= r->tol;
    return kb_ref_round(r->dt, x - r->tol * s) <= got &&
           got <= kb_ref_round(r->dt, x + r->tol * s);
}

const char *kb_check_mode_name(kb_check_mode m)
{
    switch (m) {
    case KB_CHECK_FULL: return "full";
    case KB_CHECK_PROJECTED: return "projected";
    case KB_CHECK_SAMPLED: return "sampled";
    }
    return "?";
}

/* Reference work per output point, for choosing the mode: a dot product
 * for conv and GEMM, of the direction's length (BWD_W: N x output
 * positions per diff_wei element); O(1) for bnorm, whose per-channel
 * statistics and reductions are computed once, before comparing. */
static double point_cost(const kb_problem *p)
{
    if (p->kind == KB_BNORM)
        return 1.0;
    int64_t len = kb_problem_accumulation_length(p);
    return len > 1 ? (double)len : 1.0;
}

static void format_value(char *buf, size_t len, kb_dtype dt, double x)
{
    snprintf(buf, len, dt == KB_F64 ? "%.17g" : "%.9g", x);
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

/* Compare one point (kb_ref_accepts).  rel = |got - exp| / max(|exp|, 1,
 * terms), exp rounded to a narrower output's type: validation data are
 * integers, many expected values are 0 or +-1, and a pure relative error
 * would blow up there for tiny absolute differences; below 1 the test
 * becomes an absolute one at the same threshold. */
static void compare_point(const kb_ref_ctx *ctx, kb_arg a, const void *got_base,
                          const int64_t *idx, int64_t point,
                          const kb_ref_rule *rule, tally *t)
{
    const kb_problem *p = ctx->p;
    double exp = kb_ref_expected(ctx, a, idx);
    double got = kb_load(rule->dt, got_base, kb_arg_offset(p, a, idx));
    double abs_err, rel_err;
    bool ok = kb_ref_accepts(rule, got, exp, kb_ref_terms(ctx, a, idx),
                             &abs_err, &rel_err);

    t->checked++;
    if (isfinite(abs_err)) {
        t->max_abs = fmax(t->max_abs, abs_err);
        t->max_rel = fmax(t->max_rel, rel_err);
    }
    if (ok)
        return;
    t->mismatches++;
    if (point < t->first_point) {
        char ix[96], g[32], e[32];
        t->first_point = point;
        kb_ref_format_index(&ctx->info[a], idx, ix, sizeof ix);
        format_value(g, sizeof g, ctx->info[a].dt, got);
        format_value(e, sizeof e, ctx->info[a].dt, exp);
        if (rule->rounds) {
            char r[32];
            format_value(r, sizeof r, rule->dt, kb_ref_round(rule->dt, exp));
            /* Precisions keep the longest message within the field. */
            snprintf(t->first, sizeof t->first, "%.80s: got %.24s, expected "
                     "%.24s (%.24s in %.4s)", ix, g, e, r,
                     kb_dtype_name(rule->dt));
        } else {
            snprintf(t->first, sizeof t->first, "%s: got %s, expected %s",
                     ix, g, e);
        }
    }
}

/* A keyed bijection of [0, range): rounds of adding a key, multiplying by
 * an odd constant and xoring the high bits into the low ones, each
 * invertible mod 2^bits; values past range are mapped again (cycle
 * walking), which keeps it a bijection of [0, range). */
typedef struct {
    uint64_t range, mask, key[4];
    int shift;
} permutation;

static permutation permutation_make(uint64_t range, uint64_t seed)
{
    permutation pm = {.range = range};
    int bits = 1;
    while (bits < 63 && (UINT64_C(1) << bits) < range)
        bits++;
    pm.mask = (UINT64_C(1) << bits) - 1;
    pm.shift = (bits + 1) / 2;
    for (int r = 0; r < 4; r++)
        pm.key[r] = kb_ref_hash(seed, 0x5a3e1eull, (uint64_t)r);
    return pm;
}

static uint64_t permute(const permutation *pm, uint64_t x)
{
    do {
        for (int r = 0; r < 4; r++) {
            x = (x + pm->key[r]) & pm->mask;
            x = (x * UINT64_C(0x9e3779b97f4a7c15)) & pm->mask;
            x ^= x >> pm->shift;
        }
    } while (x >= pm->range);
    return x;
}

/* Linear element number of compared point k out of npoints: all elements
 * in order when npoints covers the tensor; otherwise the first, the last,
 * then distinct seeded random ones in between (pm permutes
 * [0, nelems - 2)). */
static int64_t point_element(const kb_arg_info *info, const permutation *pm,
                             int64_t npoints, int64_t k)
{
    if (npoints == info->nelems || k == 0)
        return k;
    if (k == 1)
        return info->nelems - 1;
    return 1 + (int64_t)permute(pm, (uint64_t)(k - 2));
}

/* Compare npoints points of output a, merging into total.  Point numbers
 * continue from total->checked, so the first mismatch of an earlier tensor
 * stays the first. */
static void compare_tensor(const kb_ref_ctx *ctx, kb_arg a, const void *got,
                           int64_t npoints, uint64_t seed, tally *total)
{
    const kb_ref_rule rule = kb_ref_rule_of(ctx->p, a);
    const int64_t base = total->checked;
    const kb_arg_info *info = &ctx->info[a];
    const permutation pm = permutation_make(
        info->nelems > 2 ? (uint64_t)info->nelems - 2 : 1,
        kb_ref_hash(seed, (uint64_t)a, 0));

#pragma omp parallel if ((double)npoints * point_cost(ctx->p) >= \
                         KB_REF_PARALLEL_MIN)
    {
        tally mine;
        tally_init(&mine);
#pragma omp for schedule(dynamic, 256)
        for (int64_t k = 0; k < npoints; k++) {
            int64_t idx[KB_MAX_DIMS];
            kb_ref_unravel(info, point_element(info, &pm, npoints, k), idx);
            compare_point(ctx, a, got, idx, base + k, &rule, &mine);
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
    reduction(min : lowest) if (info->nelems >= KB_REF_PARALLEL_MIN)
    for (int64_t ch = 0; ch < nchunks; ch++) {
        int64_t idx[KB_MAX_DIMS];
        int64_t end = (ch + 1) * chunk < info->nelems ? (ch + 1) * chunk
                                                      : info->nelems;
        kb_ref_unravel(info, ch * chunk, idx);
        for (int64_t i = ch * chunk; i < end; i++) {
            if (!isfinite(kb_load(kb_arg_dtype(p, a), base, kb_arg_offset(p, a, idx)))) {
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
    format_value(g, sizeof g, ctx->info[a].dt,
                 kb_load(ctx->info[a].dt, base, kb_arg_offset(ctx->p, a, idx)));
    snprintf(buf, len, "%s: got %s (non-finite)", ix, g);
}

/* PROJECTED: every group's sums (in parallel), then the point-by-point
 * comparison of the failing groups' elements, lowest group first, until
 * `budget` points are compared.  Fills v's counts, maxima and message;
 * returns -1 when out of memory (v untouched), else 0. */
static int check_projected(const kb_ref_ctx *ctx, const kb_proj *pj,
                           const void *got, int64_t budget, kb_validation *v)
{
    const kb_ref_rule rule = kb_ref_rule_of(ctx->p, KB_ARG_DST);
    const double tol = rule.tol;
    unsigned char *failed = calloc((size_t)pj->groups, 1);
    int64_t nfailed = 0;
    double max_abs = 0.0, max_rel = 0.0;

    if (!failed)
        return -1;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : nfailed) \
    reduction(max : max_abs, max_rel) \
    if (ctx->info[KB_ARG_DST].nelems >= KB_REF_PARALLEL_MIN)
    for (int64_t g = 0; g < pj->groups; g++) {
        double ga, gr, diff;
        if (kb_proj_group(ctx, pj, tol, got, g, &ga, &gr, &diff)) {
            max_abs = fmax(max_abs, ga);
            max_rel = fmax(max_rel, gr);
        } else {
            failed[g] = 1;
            nfailed++;
        }
    }

    /* Diagnosis: which elements of the failing groups are wrong.  A
     * failing group always holds one (projected.c), but count a group
     * whose elements all pass, or that the budget leaves out, once. */
    tally diag;
    tally_init(&diag);
    int64_t unexplained = nfailed, first = -1;
    for (int64_t g = 0; g < pj->groups && diag.checked < budget; g++) {
        if (!failed[g])
            continue;
        int64_t before = diag.mismatches;
        if (first < 0)
            first = g;
        for (int64_t j = 0; j < pj->group_size; j++) {
            int64_t idx[KB_MAX_DIMS];
            kb_proj_group_index(ctx, pj, g, j, idx);
            compare_point(ctx, KB_ARG_DST, got, idx, diag.checked, &rule,
                          &diag);
        }
        if (diag.mismatches > before)
            unexplained--;
    }
    free(failed);

    v->checked = diag.checked;
    v->mismatches = diag.mismatches + unexplained;
    v->max_abs_err = fmax(max_abs, diag.max_abs);
    v->max_rel_err = fmax(max_rel, diag.max_rel);
    if (first >= 0) {
        char where[64];
        double ga, gr, diff;
        kb_proj_describe(ctx, pj, first, where, sizeof where);
        kb_proj_group(ctx, pj, tol, got, first, &ga, &gr, &diff);
        int n = diff != 0.0
                    ? snprintf(v->first_mismatch, sizeof v->first_mismatch,
                               "projected check failed in %s (sum differs "
                               "by %.17g)", where, diff)
                    : snprintf(v->first_mismatch, sizeof v->first_mismatch,
                               "projected check failed in %s (an element is "
                               "not near any possible exact value)", where);
        /* Then the element, truncated to what is left. */
        int left = (int)sizeof v->first_mismatch - n - 3;
        if (n > 0 && left > 0)
            snprintf(v->first_mismatch + n, (size_t)left + 3, "; %.*s", left,
                     diag.mismatches ? diag.first
                                     : "no element beyond tolerance");
    }
    return 0;
}

/* Points per output tensor when SAMPLED: o->sample_points, but no more
 * than SAMPLE_WORK_FACTOR full budgets of reference work buy, and no
 * fewer than MIN_SAMPLE.  Only the backward conv passes reach the cap: a
 * BWD_W point is a sum over the batch and every output position
 * (CosmoFlow's first layer: 2M terms, 4096 of them 8.6 G multiply-adds),
 * where a forward point is at most 18432. */
static int64_t sample_size(const kb_problem *p, const kb_validate_opts *o)
{
    double affordable = SAMPLE_WORK_FACTOR * (double)o->full_max_macs /
                        point_cost(p);
    if (affordable < MIN_SAMPLE)
        affordable = MIN_SAMPLE;
    return affordable < (double)o->sample_points ? (int64_t)affordable
                                                 : o->sample_points;
}

/* FULL or SAMPLED: npoints per output tensor (all, or the sample). */
static void check_points(const kb_ref_ctx *ctx, const kb_tensors *t,
                         int64_t sample, uint64_t seed, kb_validation *v)
{
    tally total;
    tally_init(&total);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!ctx->info[a].used || !ctx->info[a].is_output)
            continue;
        int64_t npoints = ctx->info[a].nelems;
        if (v->mode == KB_CHECK_SAMPLED && npoints > sample + 2)
            npoints = sample + 2;
        compare_tensor(ctx, (kb_arg)a, t->ptr[a], npoints, seed, &total);
    }
    v->points = v->checked = total.checked;
    v->mismatches = total.mismatches;
    v->max_abs_err = total.max_abs;
    v->max_rel_err = total.max_rel;
    /* A compared point names the problem better than the scan does. */
    if (total.mismatches > 0)
        memcpy(v->first_mismatch, total.first, sizeof v->first_mismatch);
}

/* The mode (reference.h gives the policy).  A full comparison costs
 * `work` multiply-adds; the projected one kb_proj_cost, when it is exact
 * on these inputs (kb_proj_init returns 0 and leaves *pj ready only when
 * PROJECTED is chosen).  The projected check rests on the forward
 * algebra (a weighted sum of dst from the inputs), so the backward passes
 * are FULL or SAMPLED.  Returns the mode, or -1 when out of memory. */
static int choose_mode(const kb_ref_ctx *ctx, double work,
                       const kb_validate_opts *o, kb_proj *pj)
{
    if (ctx->p->kind == KB_BNORM || work <= (double)o->full_max_macs)
        return KB_CHECK_FULL;
    if (kb_dir_is_backward(ctx->p->dir))
        return KB_CHECK_SAMPLED;
    int rc = kb_proj_init(ctx, kb_ref_rule_of(ctx->p, KB_ARG_DST).tol,
                          o->seed, pj);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return KB_CHECK_SAMPLED;
    if (kb_proj_cost(ctx->p) < work)
        return KB_CHECK_PROJECTED;
    kb_proj_free(pj);
    return KB_CHECK_FULL;
}

bool kb_validate(const kb_problem *p, const kb_tensors *inputs,
                 const kb_tensors *t, const kb_validate_opts *opts,
                 kb_validation *v)
{
    kb_validate_opts o = {0};
    kb_ref_ctx ctx;
    kb_proj pj;
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

    /* 2. Compare: full, projected or sampled. */
    int mode = choose_mode(&ctx, work, &o, &pj);
    if (mode >= 0)
        v->mode = (kb_check_mode)mode;
    if (mode == KB_CHECK_PROJECTED) {
        v->points = ctx.info[KB_ARG_DST].nelems;
        if (check_projected(&ctx, &pj, t->ptr[KB_ARG_DST], o.sample_points,
                            v) != 0)
            mode = -1;
        kb_proj_free(&pj);
    } else if (mode >= 0) {
        check_points(&ctx, t, sample_size(p, &o), o.seed, v);
    }
    kb_ref_ctx_free(&ctx);
    if (mode < 0) {
        snprintf(v->first_mismatch, sizeof v->first_mismatch,
                 "out of memory for the projected check");
        return false;
    }
    return v->mismatches == 0 && v->nonfinite == 0;
}
