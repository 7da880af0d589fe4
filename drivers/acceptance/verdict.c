/* verdict.c - one node's cases judged against the bands (verdict.h). */
#define _GNU_SOURCE   /* strdup, asprintf */
#include "drivers/acceptance/verdict.h"

#include "drivers/results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set(kb_check_item *it, kb_check_result r, const char *what)
{
    it->result = r;
    it->what = what;
}

void kb_check_case(const kb_band *b, const kb_result_case *c,
                   kb_check_item *it)
{
    memset(it, 0, sizeof *it);
    it->band = b, it->c = c;
    it->value = c ? c->gflops : NAN;
    if (!c) {
        set(it, KB_CHECK_FAIL, "missing");
        snprintf(it->reason, sizeof it->reason, "missing: banded (bands file "
                 "line %ld), no record of it in this node's results", b->line);
        return;
    }
    /* Correctness first: a wrong or untrustworthy result fails even with
     * no band, and even inside one. */
    const char *why = *c->reason ? c->reason : "no reason given";
    if (strcmp(c->status, "FAILED") == 0) {
        set(it, KB_CHECK_FAIL, "validation failed");
        snprintf(it->reason, sizeof it->reason, "validation failed: %s", why);
    } else if (strcmp(c->status, "ERROR") == 0) {
        set(it, KB_CHECK_ERROR, "error");
        snprintf(it->reason, sizeof it->reason, "error: %s", why);
    } else if (strcmp(c->status, "MISTRUSTED") == 0) {
        set(it, KB_CHECK_FAIL, "mistrusted");
        snprintf(it->reason, sizeof it->reason, "mistrusted: %s", why);
    } else if (!b) {
        set(it, KB_CHECK_UNJUDGED, "no band");
        snprintf(it->reason, sizeof it->reason, "no band: %s, not judged",
                 c->status);
    } else if (strcmp(c->status, "SKIPPED") == 0) {
        /* It ran where the band was made; a node that cannot run it is
         * not an equal node. */
        set(it, KB_CHECK_FAIL, "skipped");
        snprintf(it->reason, sizeof it->reason, "skipped: %s", why);
    } else if (!kb_result_case_timed(c, false) || !isfinite(c->gflops)) {
        set(it, KB_CHECK_FAIL, "no figure");
        snprintf(it->reason, sizeof it->reason, "%s without a GFLOP/s figure "
                 "(no samples)", c->status);
    } else if (c->gflops < b->lower) {
        set(it, KB_CHECK_FAIL, "below band");
        snprintf(it->reason, sizeof it->reason, "below band: %.6g GFLOP/s < "
                 "lower bound %.6g (centre %.6g)", c->gflops, b->lower,
                 b->centre);
    } else if (c->gflops > b->upper) {
        set(it, KB_CHECK_PASS, "above band");
        snprintf(it->reason, sizeof it->reason, "above band: %.6g GFLOP/s > "
                 "upper bound %.6g (flagged, not failed)", c->gflops,
                 b->upper);
    } else {
        set(it, KB_CHECK_PASS, "within band");
        snprintf(it->reason, sizeof it->reason, "%.6g GFLOP/s >= lower bound "
                 "%.6g (centre %.6g)", c->gflops, b->lower, b->centre);
    }
}

/* A case of the node, found by key. */
typedef struct {
    char *key;
    size_t index;
    bool used;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The first of the sorted v[n] whose key is key, or n. */
static size_t lower_bound(const keyed *v, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void count(kb_check_node *n, const kb_check_item *it)
{
    switch (it->result) {
    case KB_CHECK_PASS: n->passed++; break;
    case KB_CHECK_FAIL: n->failed++; break;
    case KB_CHECK_ERROR: n->errors++; break;
    case KB_CHECK_UNJUDGED: n->unjudged++; break;
    }
}

int kb_check_node_judge(const kb_result_file *f, const kb_band_set *bands,
                        kb_check_node *n)
{
    memset(n, 0, sizeof *n);
    n->file = f;
    size_t nc = f->ncases;
    keyed *v = calloc(nc ? nc : 1, sizeof *v);
    size_t *at = malloc((nc ? nc : 1) * sizeof *at);   /* case -> v index */
    /* At most one item per band and one per case. */
    n->items = calloc(bands->nbands + nc + 1, sizeof *n->items);
    int rc = v && at && n->items ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < nc; i++) {
        v[i] = (keyed){kb_result_case_key_dup(&f->cases[i]), i, false};
        rc = v[i].key ? 0 : -1;
    }
    if (rc == 0) {
        qsort(v, nc, sizeof *v, cmp_keyed);
        for (size_t k = 0; k < nc; k++)
            at[v[k].index] = k;
    }
    for (size_t b = 0; rc == 0 && b < bands->nbands; b++) {
        const kb_band *band = &bands->bands[b];
        size_t i = lower_bound(v, nc, band->key), j = i;
        while (j < nc && strcmp(v[j].key, band->key) == 0)
            j++;
        if (i == j)
            kb_check_case(band, NULL, &n->items[n->nitems++]);
        for (size_t k = i; k < j; k++) {
            v[k].used = true;
            kb_check_item *it = &n->items[n->nitems++];
            kb_check_case(band, &f->cases[v[k].index], it);
            it->repeated = j - i > 1;
        }
    }
    /* The cases no band names, in file order. */
    for (size_t i = 0; rc == 0 && i < nc; i++) {
        size_t k = at[i];
        if (v[k].used)
            continue;
        kb_check_item *it = &n->items[n->nitems++];
        kb_check_case(NULL, &f->cases[i], it);
        it->repeated = (k > 0 && strcmp(v[k - 1].key, v[k].key) == 0) ||
                       (k + 1 < nc && strcmp(v[k + 1].key, v[k].key) == 0);
    }
    for (size_t i = 0; i < n->nitems; i++)
        count(n, &n->items[i]);
    for (size_t i = 0; v && i < nc; i++)
        free(v[i].key);
    free(v);
    free(at);
    if (rc)
        kb_check_node_free(n);
    return rc;
}

int kb_check_name_nodes(kb_check_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *host = nodes[i].file->host ? nodes[i].file->host : "";
        bool repeated = false;
        for (size_t j = 0; j < n && !repeated; j++)
            repeated = j != i && nodes[j].file->host &&
                       strcmp(nodes[j].file->host, host) == 0;
        free(nodes[i].name);
        int rc = !*host ? asprintf(&nodes[i].name, "%s", nodes[i].file->path)
                 : repeated ? asprintf(&nodes[i].name, "%s (%s)", host,
                                       nodes[i].file->path)
                            : asprintf(&nodes[i].name, "%s", host);
        if (rc < 0) {
            nodes[i].name = NULL;
            return -1;
        }
    }
    return 0;
}

bool kb_check_node_passed(const kb_check_node *n)
{
    return n->failed == 0 && n->errors == 0;
}

void kb_check_node_free(kb_check_node *n)
{
    free(n->items);
    free(n->name);
    memset(n, 0, sizeof *n);
}
