/* projected.c - the projected check: every element of a large conv or GEMM
 * output covered by exact weighted sums, at a fraction of the reference's
 * cost (Freivalds).
 *
 * dst is cut into groups of elements that share their inputs, and each
 * group's elements get nonzero random integer weights (+-1..4).  The
 * weighted sum of the exact results follows from the inputs far more
 * cheaply than the results themselves:
 *   GEMM, row i:  sum_n r[n] dst[i,n]
 *                   = alpha sum_k A[i,k] (B r)[k] + beta sum_n r[n] C[i,n]
 *     O(MK + KN + MN) for all rows.
 *   conv, (image n, group g, output position x):
 *     sum_{oc in g} u[oc] dst[n,oc,x]
 *       = sum_{c, taps} W'_g[c,taps] src[n, g*IC/G + c, x's taps]
 *         + sum_{oc in g} u[oc] bia[oc],
 *     W'_g[c,taps] = sum_{oc in g} u[oc] wei[oc,c,taps]
 *     one projected filter per group: 1/(OC/G) of the reference's work.
 * Comparing each position's sum, rather than one sum over positions
 * weighted by v[n,pos] (the rank-1 weighting u[oc] v[n,pos]), costs the
 * same, as the correlation is computed at every position either way, and
 * a failing sum then names its row or pixel, which compare.c compares
 * point by point.
 *
 * Exactness.  The sums are compared for equality, which is sound when:
 * 1. The inputs are integers (VALIDATION data, fill.c) and, for GEMM,
 *    alpha and beta are multiples of a power of two q = 2^-s (q = 1 for
 *    conv).  Every exact dst value is then a multiple of q, at most
 *    E = max|src| max|wei| L + max|bia| in magnitude (GEMM:
 *    |alpha| max|A| max|B| K + |beta| max|C|), maxima read from the
 *    inputs (kb_proj_init scans them).
 * 2. tol * max(E, 1) < q/2, tol being compare.c's per-point tolerance.
 *    A correct element, |got - exact| <= tol * max(|exact|, 1), then
 *    rounds to its exact value at the nearest multiple of q.  Each
 *    element is rounded so (x), the per-point test is applied to
 *    (got, x), and the sums use x.  When the sums show x to be the exact
 *    value, that is the full comparison's test for every element: a
 *    correct output never fails, and an element beyond tolerance always
 *    does, either by its own test (it rounds to its exact value) or by
 *    its group's sum, off by weight * (x - exact) != 0.
 * 3. Every sum, in units of q, stays below 2^53, so double adds these
 *    integers exactly in any order: 4 (OC/G) E for conv (4 (OC/G) max|wei|
 *    bounds W', times max|src| L), 4 N E/q for GEMM.  An element with
 *    |x| > E is wrong anyway: it fails, and stays out of the sums.
 * 4. Every multiple of q up to E is exact in dst's storage type (E/q at
 *    most 1/u: 2^24 in f32, 2^8 in bf16, 2^11 in f16), so a correct
 *    element is stored as its exact value and the sums can use it: a
 *    bf16 or f16 dst of larger values is not checked by projection.
 * It is the forward algebra: the backward passes are never projected.
 * Several wrong elements of one group cancel only when the weights happen
 * to: for each weighting, fixing all weights but one of a wrong element,
 * at most one of its 8 values cancels, so probability <= 1/8; two
 * independent weightings make it <= 1/64.  A single wrong element is never
 * cancelled.  When a condition fails, kb_proj_init says so and compare.c
 * falls back to a full or sampled comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/ref_internal.h"

/* Weights of one sum: a group of one element has nothing to cancel. */
static int weightings(int64_t group_size)
{
    return group_size > 1 ? KB_PROJ_MAX_WEIGHTINGS : 1;
}

/* Weight number i of weighting w: +-1..4, from the seed. */
static double weight_value(uint64_t seed, int w, int64_t i)
{
    uint64_t h = kb_ref_hash(seed ^ 0x9e0c7edull, (uint64_t)w, (uint64_t)i);
    double mag = (double)(1 + h % 4);
    return (h >> 32) & 1 ? -mag : mag;
}

double kb_proj_cost(const kb_problem *p)
{
    if (kb_dir_is_backward(p->dir))
        return 0.0;
    if (p->kind == KB_GEMM) {
        const kb_gemm_desc *g = &p->gemm;
        const double mk = (double)g->m * g->k, kn = (double)g->k * g->n;
        const double mn = (double)g->m * g->n, c = g->beta != 0.0;
        /* Reading A, B (and C) once to check them; then per weighting
         * B r, A (B r), dst r (and C r). */
        return mk + kn + c * mn +
               weightings(g->n) * (kn + mk + (1.0 + c) * mn);
    }
    if (p->kind == KB_CONV) {
        const kb_conv_desc *c = &p->conv;
        const double icg = (double)(c->ic / c->g);
        const double taps = (double)c->kd * c->kh * c->kw;
        const double pos = (double)c->mb * c->od * c->oh * c->ow;
        const double src = (double)c->mb * c->ic * c->id * c->ih * c->iw;
        const double wei = c->oc * icg * taps;
        /* Reading the inputs once; then per weighting the projected
         * filters, their correlation with src, and dst weighted. */
        return src + wei + c->oc +
               weightings(c->oc / c->g) *
                   (wei + pos * c->g * icg * taps + pos * c->oc);
    }
    return 0.0;
}

/* Largest |x| over tensor a (every physical offset: tensors are dense),
 * or -1 when an element is not an integer (NaN included). */
static double integer_max(const kb_ref_ctx *ctx, kb_arg a)
{
    const void *base = ctx->in->ptr[a];
    double mx = 0.0;
    int fraction = 0;

#pragma omp parallel for schedule(static) reduction(max : mx) \
    reduction(| : fraction) if (ctx->info[a].nelems >= KB_REF_PARALLEL_MIN)
    for (int64_t i = 0; i < ctx->info[a].nelems; i++) {
        double x = kb_load(ctx->info[a].dt, base, i);
        if (x != nearbyint(x))
            fraction = 1;
        else
            mx = fmax(mx, fabs(x));
    }
    return fraction ? -1.0 : mx;
}

/* ldexp scales exactly. */
double kb_ref_dyadic_quantum(double a, double b)
{
    for (int s = 0; s <= 64; s++) {
        double as = ldexp(a, s), bs = ldexp(b, s);
        if (as == nearbyint(as) && bs == nearbyint(bs))
            return ldexp(1.0, -s);
    }
    return 0.0;
}

/* Conditions 2, 3 and 4 of the header comment, for groups of `terms`
 * elements of type dt (false for an infinite or NaN bound). */
static bool exact(double tol, double q, double bound, int64_t terms,
                  kb_dtype dt)
{
    return tol * fmax(bound, 1.0) < q / 2 &&
           bound / q * 4.0 * (double)terms < 0x1p53 &&
           bound / q <= 1.0 / kb_dtype_epsilon(dt);
}

/* Draw the weights and allocate proj (and bias); -1 when out of memory. */
static int alloc_weights(kb_proj *pj, int64_t nweights, int64_t nproj,
                         int64_t nbias, uint64_t seed)
{
    pj->weight = calloc((size_t)(pj->nw * nweights), sizeof(double));
    pj->proj = calloc((size_t)nproj, sizeof(double));
    pj->bias = nbias ? calloc((size_t)nbias, sizeof(double)) : NULL;
    if (!pj->weight || !pj->proj || (nbias && !pj->bias))
        return -1;
    for (int w = 0; w < pj->nw; w++)
        for (int64_t i = 0; i < nweights; i++)
            pj->weight[w * nweights + i] = weight_value(seed, w, i);
    return 0;
}

static int gemm_init(const kb_ref_ctx *ctx, double tol, uint64_t seed,
                     kb_proj *pj)
{
    const kb_gemm_desc *g = &ctx->p->gemm;
    const bool has_c = g->beta != 0.0;
    const double ma = integer_max(ctx, KB_ARG_SRC);
    const double mb = integer_max(ctx, KB_ARG_WEI);
    const double mc = has_c ? integer_max(ctx, KB_ARG_DST) : 0.0;
    const double q = kb_ref_dyadic_quantum(g->alpha, g->beta);
    if (ma < 0 || mb < 0 || mc < 0 || q == 0.0)
        return 1;
    pj->quantum = q;
    pj->bound = fabs(g->alpha) * ma * mb * (double)g->k + fabs(g->beta) * mc;
    if (!exact(tol, q, pj->bound, g->n, ctx->info[KB_ARG_DST].dt))
        return 1;
    pj->nw = weightings(g->n);
    pj->groups = g->m;
    pj->group_size = g->n;
    memcpy(pj->st_src, ctx->stride[KB_ARG_SRC], sizeof pj->st_src);
    memcpy(pj->st_wei, ctx->stride[KB_ARG_WEI], sizeof pj->st_wei);
    memcpy(pj->st_dst, ctx->stride[KB_ARG_DST], sizeof pj->st_dst);
    if (alloc_weights(pj, g->n, pj->nw * g->k, 0, seed) != 0)
        return -1;
    /* proj[w][k] = (B r_w)[k]. */
    const void *b = ctx->in->ptr[KB_ARG_WEI];
#pragma omp parallel for schedule(static) \
    if (g->k * g->n >= KB_REF_PARALLEL_MIN)
    for (int64_t k = 0; k < g->k; k++)
        for (int w = 0; w < pj->nw; w++) {
            const double *r = pj->weight + w * g->n;
            double acc = 0.0;
            for (int64_t n = 0; n < g->n; n++)
                acc += kb_load(ctx->p->dt.wei, b,
                               k * pj->st_wei[0] + n * pj->st_wei[1]) * r[n];
            pj->proj[w * g->k + k] = acc;
        }
    return 0;
}

static int conv_init(const kb_ref_ctx *ctx, double tol, uint64_t seed,
                     kb_proj *pj)
{
    const kb_problem *p = ctx->p;
    const kb_conv_desc *c = &p->conv;
    const bool has_bias = kb_problem_has_bias(p);
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t taps = c->kd * c->kh * c->kw;
    const double ms = integer_max(ctx, KB_ARG_SRC);
    const double mw = integer_max(ctx, KB_ARG_WEI);
    const double mbias = has_bias ? integer_max(ctx, KB_ARG_BIA) : 0.0;
    if (ms < 0 || mw < 0 || mbias < 0)
        return 1;
    pj->quantum = 1.0;
    pj->bound = ms * mw * (double)(icg * taps) + mbias;
    if (!exact(tol, 1.0, pj->bound, ocg, ctx->info[KB_ARG_DST].dt))
        return 1;
    pj->nw = weightings(ocg);
    pj->groups = c->mb * c->g * c->od * c->oh * c->ow;
    pj->group_size = ocg;
    memcpy(pj->st_src, ctx->stride[KB_ARG_SRC], sizeof pj->st_src);
    memcpy(pj->st_wei, ctx->stride[KB_ARG_WEI], sizeof pj->st_wei);
    memcpy(pj->st_dst, ctx->stride[KB_ARG_DST], sizeof pj->st_dst);
    if (alloc_weights(pj, c->oc, c->g * taps * icg * pj->nw,
                      has_bias ? c->g * pj->nw : 0, seed) != 0)
        return -1;

    /* proj[g][tap][c][w] = W'_g[c, tap] for weighting w. */
    const void *wei = ctx->in->ptr[KB_ARG_WEI];
    const int64_t *s = pj->st_wei;
#pragma omp parallel for schedule(static) \
    if (c->oc * icg * taps >= KB_REF_PARALLEL_MIN)
    for (int64_t e = 0; e < c->g * taps * icg; e++) {
        const int64_t ci = e % icg, t = e / icg % taps, g = e / icg / taps;
        const int64_t kw = t % c->kw, kh = t / c->kw % c->kh,
                      kd = t / c->kw / c->kh;
        for (int64_t oc = g * ocg; oc < (g + 1) * ocg; oc++) {
            double x = kb_load(p->dt.wei, wei, oc * s[0] + ci * s[1] +
                                               kd * s[2] + kh * s[3] +
                                               kw * s[4]);
            for (int w = 0; w < pj->nw; w++)
                pj->proj[e * pj->nw + w] += pj->weight[w * c->oc + oc] * x;
        }
    }
    for (int64_t g = 0; has_bias && g < c->g; g++)
        for (int64_t oc = g * ocg; oc < (g + 1) * ocg; oc++) {
            int64_t bidx[1] = {oc};
            double x = kb_load(p->dt.dst, ctx->in->ptr[KB_ARG_BIA],
                               kb_arg_offset(p, KB_ARG_BIA, bidx));
            for (int w = 0; w < pj->nw; w++)
                pj->bias[g * pj->nw + w] += pj->weight[w * c->oc + oc] * x;
        }
    return 0;
}

int kb_proj_init(const kb_ref_ctx *ctx, double tol, uint64_t seed,
                 kb_proj *pj)
{
    int rc = 1;
    memset(pj, 0, sizeof *pj);
    if (ctx->p->kind == KB_GEMM)
        rc = gemm_init(ctx, tol, seed, pj);
    else if (ctx->p->kind == KB_CONV && !kb_dir_is_backward(ctx->p->dir))
        rc = conv_init(ctx, tol, seed, pj);
    if (rc != 0)
        kb_proj_free(pj);
    return rc;
}

void kb_proj_free(kb_proj *pj)
{
    free(pj->weight);
    free(pj->proj);
    free(pj->bias);
    memset(pj, 0, sizeof *pj);
}

/* Running state of one group's check. */
typedef struct {
    double want[KB_PROJ_MAX_WEIGHTINGS], have[KB_PROJ_MAX_WEIGHTINGS];
    bool elements_ok;
    double max_abs, max_rel;
} group_sums;

/* One dst element x with weight index i: rounded to the nearest multiple
 * of q, tested as compare.c tests a point against that value, and, when
 * it passes, added to the weighted sums in units of q.  Runs for every
 * element, hence comparisons rather than fmax calls. */
static void add_element(const kb_proj *pj, double tol, double x,
                        int64_t i, int64_t nweights, group_sums *gs)
{
    const double units = nearbyint(x / pj->quantum);
    const double r = fabs(units * pj->quantum);
    const double err = fabs(x - units * pj->quantum);
    const double rel = err / (r > 1.0 ? r : 1.0);
    if (!(r <= pj->bound) || !(rel <= tol)) {
        gs->elements_ok = false;
        return;
    }
    if (err > gs->max_abs)
        gs->max_abs = err;
    if (rel > gs->max_rel)
        gs->max_rel = rel;
    for (int w = 0; w < pj->nw; w++)
        gs->have[w] += units * pj->weight[w * nweights + i];
}

/* The group's verdict; *sum_diff as kb_proj_group says. */
static bool group_verdict(const kb_proj *pj, const group_sums *gs,
                          double *sum_diff)
{
    *sum_diff = 0.0;
    if (!gs->elements_ok)
        return false;
    for (int w = 0; w < pj->nw; w++)
        if (gs->have[w] != gs->want[w]) {
            *sum_diff = (gs->have[w] - gs->want[w]) * pj->quantum;
            return false;
        }
    return true;
}

/* GEMM row i: want = alpha/q A[i,:] (B r) + beta/q C[i,:] r, integers. */
static void gemm_sums(const kb_ref_ctx *ctx, const kb_proj *pj,
                      const void *got, int64_t i, double tol,
                      group_sums *gs)
{
    const kb_problem *p = ctx->p;
    const kb_gemm_desc *g = &p->gemm;
    const void *a = ctx->in->ptr[KB_ARG_SRC];
    double cr[KB_PROJ_MAX_WEIGHTINGS] = {0};

    for (int64_t k = 0; k < g->k; k++) {
        double x = kb_load(p->dt.src, a, i * pj->st_src[0] + k * pj->st_src[1]);
        for (int w = 0; w < pj->nw; w++)
            gs->want[w] += x * pj->proj[w * g->k + k];
    }
    for (int64_t n = 0; g->beta != 0.0 && n < g->n; n++) {
        double x = kb_load(p->dt.dst, ctx->in->ptr[KB_ARG_DST],
                           i * pj->st_dst[0] + n * pj->st_dst[1]);
        for (int w = 0; w < pj->nw; w++)
            cr[w] += x * pj->weight[w * g->n + n];
    }
    for (int w = 0; w < pj->nw; w++)
        gs->want[w] = g->alpha / pj->quantum * gs->want[w] +
                      g->beta / pj->quantum * cr[w];
    for (int64_t n = 0; n < g->n; n++)
        add_element(pj, tol,
                    kb_load(p->dt.dst, got, i * pj->st_dst[0] +
                                            n * pj->st_dst[1]),
                    n, g->n, gs);
}

/* A conv group number as (image, group, output position). */
typedef struct {
    int64_t n, g, od, oh, ow;
} conv_group_pos;

static conv_group_pos conv_pos(const kb_conv_desc *c, int64_t group)
{
    conv_group_pos q;
    q.ow = group % c->ow;
    group /= c->ow;
    q.oh = group % c->oh;
    group /= c->oh;
    q.od = group % c->od;
    group /= c->od;
    q.g = group % c->g;
    q.n = group / c->g;
    return q;
}

/* conv (n, g, position): want = projected filters over src + bias. */
static void conv_sums(const kb_ref_ctx *ctx, const kb_proj *pj,
                      const void *got, int64_t group, double tol,
                      group_sums *gs)
{
    const kb_problem *p = ctx->p;
    const kb_conv_desc *c = &p->conv;
    const conv_group_pos x = conv_pos(c, group);
    const int64_t icg = c->ic / c->g, ocg = c->oc / c->g;
    const int64_t *s = pj->st_src, *d = pj->st_dst;
    const void *src = ctx->in->ptr[KB_ARG_SRC];

    for (int w = 0; pj->bias && w < pj->nw; w++)
        gs->want[w] = pj->bias[x.g * pj->nw + w];
    for (int64_t kd = 0; kd < c->kd; kd++) {
        int64_t id = kb_ref_conv_input_coord(x.od, kd, c->sd, c->pd, c->dd,
                                             c->id);
        for (int64_t kh = 0; id >= 0 && kh < c->kh; kh++) {
            int64_t ih = kb_ref_conv_input_coord(x.oh, kh, c->sh, c->ph,
                                                 c->dh, c->ih);
            for (int64_t kw = 0; ih >= 0 && kw < c->kw; kw++) {
                int64_t iw = kb_ref_conv_input_coord(x.ow, kw, c->sw, c->pw,
                                                     c->dw, c->iw);
                if (iw < 0)
                    continue;
                const int64_t tap = (kd * c->kh + kh) * c->kw + kw;
                const double *wp =
                    pj->proj + (x.g * c->kd * c->kh * c->kw + tap) * icg *
                                   pj->nw;
                const int64_t off = x.n * s[0] + x.g * icg * s[1] +
                                    id * s[2] + ih * s[3] + iw * s[4];
                for (int64_t ci = 0; ci < icg; ci++) {
                    double v = kb_load(p->dt.src, src, off + ci * s[1]);
                    for (int w = 0; w < pj->nw; w++)
                        gs->want[w] += wp[ci * pj->nw + w] * v;
                }
            }
        }
    }
    for (int64_t oc = x.g * ocg; oc < (x.g + 1) * ocg; oc++)
        add_element(pj, tol,
                    kb_load(p->dt.dst, got, x.n * d[0] + oc * d[1] +
                                            x.od * d[2] + x.oh * d[3] +
                                            x.ow * d[4]),
                    oc, c->oc, gs);
}

bool kb_proj_group(const kb_ref_ctx *ctx, const kb_proj *pj, double tol,
                   const void *got, int64_t group, double *max_abs,
                   double *max_rel, double *sum_diff)
{
    group_sums gs = {.elements_ok = true};
    if (ctx->p->kind == KB_GEMM)
        gemm_sums(ctx, pj, got, group, tol, &gs);
    else
        conv_sums(ctx, pj, got, group, tol, &gs);
    *max_abs = gs.max_abs;
    *max_rel = gs.max_rel;
    return group_verdict(pj, &gs, sum_diff);
}

void kb_proj_group_index(const kb_ref_ctx *ctx, const kb_proj *pj,
                         int64_t group, int64_t j, int64_t *idx)
{
    const kb_conv_desc *c = &ctx->p->conv;
    if (ctx->p->kind == KB_GEMM) {
        idx[0] = group;
        idx[1] = j;
        return;
    }
    conv_group_pos x = conv_pos(c, group);
    kb_ref_conv_index(idx, c->ndims, x.n, x.g * pj->group_size + j, x.od,
                      x.oh, x.ow);
}

void kb_proj_describe(const kb_ref_ctx *ctx, const kb_proj *pj,
                      int64_t group, char *buf, size_t len)
{
    const kb_conv_desc *c = &ctx->p->conv;
    if (ctx->p->kind == KB_GEMM) {
        snprintf(buf, len, "dst row %lld", (long long)group);
        return;
    }
    conv_group_pos x = conv_pos(c, group);
    const long long lo = (long long)(x.g * pj->group_size);
    const long long hi = lo + (long long)pj->group_size - 1;
    if (c->ndims == 3)
        snprintf(buf, len, "dst[%lld,%lld..%lld,%lld,%lld,%lld]",
                 (long long)x.n, lo, hi, (long long)x.od, (long long)x.oh,
                 (long long)x.ow);
    else
        snprintf(buf, len, "dst[%lld,%lld..%lld,%lld,%lld]", (long long)x.n,
                 lo, hi, (long long)x.oh, (long long)x.ow);
}
