/* compare_match.c - pairs the cases of two runs by their key and judges
 * each pair: medians, ratio, Hodges-Lehmann interval, Mann-Whitney p,
 * verdict; then the geometric means and the --fail-if-slower gate. */
#define _GNU_SOURCE   /* strdup, asprintf */
#include "drivers/compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a key: a descriptor of a few hundred characters and five short
 * names (a longer one is cut, and compared cut). */
#define KEY_LEN 2048

/* The cases of one side: those of its file, or of one backend of it. */
typedef struct {
    const kb_result_case **c;
    char **key;
    bool *used;
    size_t n;
} side;

static void side_free(side *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->key[i]);
    free(s->c);
    free(s->key);
    free(s->used);
}

/* The cases of f, or of its backend when one is given.  Returns 0, or -1
 * when out of memory. */
static int side_collect(const kb_result_file *f, const char *backend, side *s)
{
    char buf[KEY_LEN];
    memset(s, 0, sizeof *s);
    s->c = calloc(f->ncases + 1, sizeof *s->c);
    s->key = calloc(f->ncases + 1, sizeof *s->key);
    s->used = calloc(f->ncases + 1, sizeof *s->used);
    if (!s->c || !s->key || !s->used)
        return -1;
    for (size_t i = 0; i < f->ncases; i++) {
        const kb_result_case *rc = &f->cases[i];
        if (backend && strcmp(rc->backend, backend) != 0)
            continue;
        s->key[s->n] = strdup(kb_result_case_key(rc, !backend, buf, sizeof buf));
        if (!s->key[s->n])
            return -1;
        s->c[s->n++] = rc;
    }
    return 0;
}

/* The first case of s before index end with this key, or -1. */
static long find_key(const side *s, const char *key, size_t end, bool unused_only)
{
    for (size_t j = 0; j < end; j++)
        if ((!unused_only || !s->used[j]) && strcmp(s->key[j], key) == 0)
            return (long)j;
    return -1;
}

static int add_unmatched(kb_compare *c, const kb_result_case *rc, char side_name,
                         long first_line)
{
    kb_cmp_unmatched *v = realloc(c->unmatched, (c->nunmatched + 1) * sizeof *v);
    if (!v)
        return -1;
    c->unmatched = v;
    v[c->nunmatched++] = (kb_cmp_unmatched){rc, side_name, first_line};
    return 0;
}

/* Natural logs of a case's samples, in new memory; NULL when out of memory. */
static double *log_samples(const kb_result_case *rc)
{
    double *v = malloc((size_t)rc->nsamples * sizeof *v);
    for (int64_t i = 0; v && i < rc->nsamples; i++)
        v[i] = log(rc->samples[i]);
    return v;
}

/* The statistics of a pair with samples on both sides.  The test runs on
 * the times, the interval on log times: the shift of logs is the log of a
 * ratio of times (U would be the same on logs, but rounding could merge
 * two close times into one log, a tie that is not there).  Returns 0, or
 * -1 when out of memory. */
static int judge(kb_cmp_row *r)
{
    double *la = log_samples(r->a), *lb = log_samples(r->b);
    int rc = -1;
    if (la && lb &&
        kb_mw_test(r->a->samples, r->a->nsamples, r->b->samples, r->b->nsamples,
                   &r->mw) == 0 &&
        kb_hl_shift(la, r->a->nsamples, lb, r->b->nsamples, &r->hl) == 0)
        rc = 0;
    free(la);
    free(lb);
    if (rc)
        return -1;
    r->compared = true;
    r->ratio = r->a->median_s / r->b->median_s;
    r->hl_ratio = exp(r->hl.estimate);
    r->lo = exp(r->hl.lo);
    r->hi = exp(r->hl.hi);
    bool significant = r->mw.p < KB_COMPARE_ALPHA && (r->lo > 1 || r->hi < 1);
    r->verdict = !significant ? "~" : r->lo > 1 ? "faster" : "slower";
    r->few = r->a->nsamples < KB_COMPARE_MIN_SAMPLES ||
             r->b->nsamples < KB_COMPARE_MIN_SAMPLES;
    return 0;
}

/* Why a matched pair is not compared: a side that did not run, did not
 * validate, or has no samples. */
static bool side_timed(const kb_result_case *rc, char name, char *why, size_t len)
{
    if (kb_result_case_timed(rc, true))
        return true;
    snprintf(why, len, "%c: %s%s", name, rc->status,
             rc->nsamples ? "" : ", no samples");
    return false;
}

static int add_row(kb_compare *c, const kb_result_case *a, const kb_result_case *b)
{
    kb_cmp_row *v = realloc(c->rows, (c->nrows + 1) * sizeof *v);
    if (!v)
        return -1;
    c->rows = v;
    kb_cmp_row *r = &v[c->nrows++];
    memset(r, 0, sizeof *r);
    r->a = a, r->b = b;
    r->verdict = "n/a";
    r->ratio = r->lo = r->hi = r->hl_ratio = NAN;
    int n = a->model[0] ? asprintf(&r->label, "%s:%s", a->model, a->layer)
                        : asprintf(&r->label, "%s", a->desc);
    if (n < 0) {
        r->label = NULL;
        return -1;
    }
    if (!side_timed(a, 'A', r->why, sizeof r->why) ||
        !side_timed(b, 'B', r->why, sizeof r->why))
        return 0;
    return judge(r);
}

/* Pair every case of a with the first unused case of b with its key; a
 * key seen before on its own side is a duplicate, left uncompared. */
static int match(kb_compare *c, side *a, side *b)
{
    for (size_t i = 0; i < a->n; i++) {
        long dup = find_key(a, a->key[i], i, false);
        long j = dup >= 0 ? -1 : find_key(b, a->key[i], b->n, true);
        int rc;
        if (j >= 0) {
            b->used[j] = true;
            rc = add_row(c, a->c[i], b->c[j]);
        } else {
            rc = add_unmatched(c, a->c[i], 'A', dup >= 0 ? a->c[dup]->line : 0);
        }
        if (rc)
            return -1;
    }
    for (size_t j = 0; j < b->n; j++) {
        if (b->used[j])
            continue;
        long first = find_key(b, b->key[j], j, false);
        if (add_unmatched(c, b->c[j], 'B', first >= 0 ? b->c[first]->line : 0))
            return -1;
    }
    return 0;
}

static kb_cmp_group *group_of(kb_compare *c, const char *model)
{
    for (size_t i = 0; i < c->ngroups; i++)
        if (strcmp(c->groups[i].model, model) == 0)
            return &c->groups[i];
    kb_cmp_group *v = realloc(c->groups, (c->ngroups + 1) * sizeof *v);
    if (!v)
        return NULL;
    c->groups = v;
    v[c->ngroups] = (kb_cmp_group){model, 0, 0};
    return &v[c->ngroups++];
}

/* Geometric means: the sums of log ratios first, then their means. */
static int geomeans(kb_compare *c)
{
    c->overall = (kb_cmp_group){"", 0, 0};
    for (size_t i = 0; i < c->nrows; i++) {
        const kb_cmp_row *r = &c->rows[i];
        if (!r->compared)
            continue;
        kb_cmp_group *g = group_of(c, r->a->model);
        if (!g)
            return -1;
        g->geomean += log(r->ratio), g->n++;
        c->overall.geomean += log(r->ratio), c->overall.n++;
    }
    for (size_t i = 0; i < c->ngroups; i++)
        c->groups[i].geomean = exp(c->groups[i].geomean / c->groups[i].n);
    c->overall.geomean = c->overall.n ? exp(c->overall.geomean / c->overall.n) : NAN;
    return 0;
}

/* --fail-if-slower PCT: B slower by more than PCT % is a ratio below
 * 1 / (1 + PCT / 100).  A case fails when its verdict is "slower" and its
 * ratio is below that; with --summary only the overall geometric mean is
 * gated (it has no test of its own). */
static void gate(kb_compare *c)
{
    if (isnan(c->gate_pct))
        return;
    double limit = 1.0 / (1.0 + c->gate_pct / 100.0);
    if (c->gate_summary) {
        c->gate_failed = c->overall.n > 0 && c->overall.geomean < limit;
        return;
    }
    for (size_t i = 0; i < c->nrows; i++) {
        kb_cmp_row *r = &c->rows[i];
        r->gated = r->compared && strcmp(r->verdict, "slower") == 0 && r->ratio < limit;
        c->gate_failed |= r->gated;
    }
}

int kb_compare_build(kb_compare *c)
{
    side a = {0}, b = {0};
    int rc = -1;
    if (side_collect(c->fa, c->backend_a, &a) == 0 &&
        side_collect(c->fb, c->backend_b, &b) == 0 &&
        match(c, &a, &b) == 0 && geomeans(c) == 0)
        rc = 0;
    side_free(&a);
    side_free(&b);
    if (rc)
        return -1;
    for (size_t i = 0; c->backend_a && i < c->fa->ncases; i++) {
        const char *be = c->fa->cases[i].backend;
        c->nother += strcmp(be, c->backend_a) != 0 && strcmp(be, c->backend_b) != 0;
    }
    for (size_t i = 0; i < c->nrows; i++)
        c->nfew += c->rows[i].few;
    gate(c);
    return 0;
}

void kb_compare_describe(double ratio, char *buf, size_t len)
{
    if (isnan(ratio))
        snprintf(buf, len, "n/a");
    else if (ratio >= 1)
        snprintf(buf, len, "B faster by %.1f %%", 100.0 * (ratio - 1.0));
    else
        snprintf(buf, len, "B slower by %.1f %%", 100.0 * (1.0 / ratio - 1.0));
}

void kb_compare_free(kb_compare *c)
{
    for (size_t i = 0; i < c->nrows; i++)
        free(c->rows[i].label);
    free(c->rows);
    free(c->unmatched);
    for (size_t i = 0; i < c->ndiffs; i++) {
        free(c->diffs[i].key);
        free(c->diffs[i].a);
        free(c->diffs[i].b);
    }
    free(c->diffs);
    free(c->groups);
}
