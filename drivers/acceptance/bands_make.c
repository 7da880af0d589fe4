/* bands_make.c - reference bands from result files (bands.h): per case
 * key, the GFLOP/s of the nodes (or of one node's samples) pooled into a
 * median and a MAD, or the attainable from the roofline. */
#define _GNU_SOURCE   /* strdup, asprintf */
#include "drivers/acceptance/bands.h"

#include "drivers/results/results.h"
#include "drivers/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One case record of one file, found by its key. */
typedef struct {
    char *key;
    size_t file;
    size_t order;     /* position over all files, in order: first appearance */
    const kb_result_case *c;
} ref;

static int cmp_ref(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->order > y->order) - (x->order < y->order);
}

/* A run of refs with one key: [first, end). */
typedef struct {
    size_t first, end;
} group;

static int cmp_group(const void *a, const void *b, void *refs)
{
    size_t x = ((ref *)refs)[((const group *)a)->first].order;
    size_t y = ((ref *)refs)[((const group *)b)->first].order;
    return (x > y) - (x < y);
}

static const char *node_name(const kb_result_file *f)
{
    return f->host && *f->host ? f->host : f->path;
}

static int copy_identity(kb_band *b, const kb_result_case *c, const char *key)
{
    b->desc = strdup(c->desc), b->kernel = strdup(c->kernel);
    b->backend = strdup(c->backend), b->dtype = strdup(c->dtype);
    b->layout = strdup(c->layout), b->dir = strdup(c->dir);
    b->model = strdup(c->model), b->layer = strdup(c->layer);
    b->key = strdup(key);
    return b->desc && b->kernel && b->backend && b->dtype && b->layout &&
                   b->dir && b->model && b->layer && b->key ? 0 : -1;
}

/* The values a band is made of, from the group's PASSED records t[nt]
 * (sorted by file): with two nodes or more, each node's median GFLOP/s
 * (node to node spread is what a node is judged by); with one, every
 * sample's GFLOP/s (that node's run to run spread).  roof: each node's
 * median attainable, GFLOP/s / (roof_pct / 100), from placed records.
 * Returns the count written to v (sized for every sample), or -1 when
 * out of memory. */
static int64_t pool(const ref *t, size_t nt, bool roof, double *v,
                    size_t *nodes)
{
    size_t distinct = 0;
    for (size_t i = 0; i < nt; i++)
        distinct += i == 0 || t[i].file != t[i - 1].file;
    *nodes = distinct;
    int64_t n = 0;
    if (distinct == 1 && !roof) {
        for (size_t i = 0; i < nt; i++)
            for (int64_t s = 0; s < t[i].c->nsamples; s++)
                v[n++] = t[i].c->flops / t[i].c->samples[s] / 1e9;
        return n;
    }
    double *node = malloc(nt * sizeof *node);
    if (!node)
        return -1;
    for (size_t i = 0; i < nt;) {
        size_t m = 0, j = i;
        for (; j < nt && t[j].file == t[i].file; j++) {
            double pct = t[j].c->roof_pct;
            if (!roof)
                node[m++] = t[j].c->gflops;
            else if (isfinite(pct) && pct > 0)
                node[m++] = t[j].c->gflops / (pct / 100.0);
        }
        if (m)
            v[n++] = kb_median(node, (int64_t)m);
        i = j;
    }
    free(node);
    return n;
}

/* b left out: no node PASSED it; names the first node's status.
 * Returns 0, or -1 when out of memory. */
static int no_pass(kb_band *b, const kb_result_file *files, const ref *r)
{
    const kb_result_case *c = r->c;
    if (asprintf(&b->why, "no PASSED record to make a band from; %s has it "
                 "%s%s%s", node_name(&files[r->file]), c->status,
                 *c->reason ? ": " : "", c->reason) < 0) {
        b->why = NULL;
        return -1;
    }
    return 0;
}

/* b's figures from the PASSED records t[nt] (nt >= 1), v as pool()
 * needs.  Unplaced for roof-fraction: left out.  0, or -1 out of memory. */
static int figures(kb_band *b, const ref *t, size_t nt,
                   const kb_band_rule *rule, double *v)
{
    size_t nodes;
    int64_t nv = pool(t, nt, false, v, &nodes);
    if (nv < 0 || !(b->over = strdup(nodes > 1 ? "nodes" : "samples")))
        return -1;
    b->centre = kb_median(v, nv);
    b->spread = fmax(kb_mad(v, nv), rule->min_spread * fabs(b->centre));
    b->n = nv;
    b->attainable = NAN;
    if (strcmp(rule->method, "mad") == 0) {
        b->lower = b->centre - rule->k * b->spread;
        b->upper = b->centre + rule->k * b->spread;
        return 0;
    }
    if ((nv = pool(t, nt, true, v, &nodes)) < 0)
        return -1;
    if (nv == 0) {
        b->why = strdup("not placed on the roofline (no pct_of_attainable: "
                        "run kbench run with --peaks FILE)");
        return b->why ? 0 : -1;
    }
    b->attainable = kb_median(v, nv);
    b->lower = rule->fraction * b->attainable;
    b->upper = b->attainable;
    return 0;
}

/* Fill b (zeroed) for the refs r[n] of one key.  Returns 0, or -1 when
 * out of memory. */
static int make_band(const kb_result_file *files, const ref *r, size_t n,
                     const kb_band_rule *rule, kb_band *b)
{
    if (copy_identity(b, r[0].c, r[0].key) != 0)
        return -1;
    ref *t = malloc(n * sizeof *t);
    size_t nt = 0, total = 0;
    for (size_t i = 0; t && i < n; i++)
        if (kb_result_case_timed(r[i].c, false)) {
            t[nt++] = r[i];
            total += (size_t)r[i].c->nsamples;
        }
    double *v = t ? malloc((total + nt) * sizeof *v) : NULL;
    int rc = !v ? -1 : nt == 0 ? no_pass(b, files, &r[0])
                               : figures(b, t, nt, rule, v);
    free(v);
    free(t);
    return rc;
}

/* Append *b to the bands or the cases left out; consumes b.  0 or -1. */
static int keep(kb_band_set *out, kb_band *b, size_t *cap_bands,
                size_t *cap_left)
{
    kb_band **v = b->why ? &out->left : &out->bands;
    size_t *n = b->why ? &out->nleft : &out->nbands;
    size_t *cap = b->why ? cap_left : cap_bands;
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        kb_band *p = realloc(*v, c * sizeof *p);
        if (!p)
            return -1;
        *v = p, *cap = c;
    }
    (*v)[(*n)++] = *b;
    return 0;
}

int kb_bands_make(const kb_result_file *files, size_t nfiles,
                  const kb_band_rule *rule, kb_band_set *out, char *err,
                  size_t len)
{
    memset(out, 0, sizeof *out);
    size_t nrefs = 0, ngroups = 0, cap_bands = 0, cap_left = 0;
    for (size_t f = 0; f < nfiles; f++)
        nrefs += files[f].ncases;
    ref *refs = calloc(nrefs ? nrefs : 1, sizeof *refs);
    group *groups = calloc(nrefs ? nrefs : 1, sizeof *groups);
    int rc = refs && groups ? 0 : -1;
    for (size_t f = 0, k = 0; rc == 0 && f < nfiles; f++)
        for (size_t i = 0; rc == 0 && i < files[f].ncases; i++, k++) {
            refs[k] = (ref){kb_result_case_key_dup(&files[f].cases[i]), f, k,
                            &files[f].cases[i]};
            rc = refs[k].key ? 0 : -1;
        }
    if (rc == 0) {
        qsort(refs, nrefs, sizeof *refs, cmp_ref);
        for (size_t i = 0; i < nrefs; i++)
            if (i == 0 || strcmp(refs[i].key, refs[i - 1].key) != 0)
                groups[ngroups++] = (group){i, i};
        for (size_t g = 0; g < ngroups; g++)
            groups[g].end = g + 1 < ngroups ? groups[g + 1].first : nrefs;
        /* Bands in the order the cases first appear, as a run lists them. */
        qsort_r(groups, ngroups, sizeof *groups, cmp_group, refs);
    }
    for (size_t g = 0; rc == 0 && g < ngroups; g++) {
        kb_band b = {0};
        rc = make_band(files, &refs[groups[g].first],
                       groups[g].end - groups[g].first, rule, &b);
        if (rc == 0)
            rc = keep(out, &b, &cap_bands, &cap_left);
        if (rc)
            kb_band_free(&b);
    }
    for (size_t i = 0; refs && i < nrefs; i++)
        free(refs[i].key);
    free(refs);
    free(groups);
    if (rc) {
        snprintf(err, len, "out of memory making bands for %zu case records",
                 nrefs);
        kb_band_set_free(out);
    }
    return rc;
}
