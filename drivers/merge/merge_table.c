/* merge_table.c - many result files as one node x case table: nodes
 * named, cases matched by their key and kept in order of first
 * appearance, a case recorded twice in one file noted (merge.h). */
#define _GNU_SOURCE   /* strdup, asprintf */
#include "drivers/merge/merge.h"

#include "drivers/results/results.h"

#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One case record of one file, for matching. */
typedef struct {
    char *key;
    size_t node, order;        /* order: position over all files */
    const kb_result_case *rc;
} entry;

static int by_key_then_order(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A run of entries with one key: [start, end) of the sorted entries. */
typedef struct {
    size_t start, end, first_order;
} group;

static int by_first_order(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return (x->first_order > y->first_order) - (x->first_order < y->first_order);
}

static const char *host_of(const kb_result_file *f)
{
    return f->host && f->host[0] ? f->host : f->path;
}

/* The file's name without its folders (basename may modify its input). */
static char *base_of(const char *path)
{
    char *copy = strdup(path);
    char *b = copy ? strdup(basename(copy)) : NULL;
    free(copy);
    return b;
}

/* Each node is its host; where hosts repeat, "host (file name)", and the
 * whole path where file names repeat too (paths are distinct: the verb
 * refuses a file given twice).  Returns 0, or -1 out of memory. */
static int name_nodes(kb_merge *m, const kb_result_file *files)
{
    for (size_t i = 0; i < m->nnodes; i++) {
        const char *host = host_of(&files[i]);
        char *base = base_of(files[i].path);
        bool host_repeats = false, base_repeats = false;
        for (size_t j = 0; base && j < m->nnodes; j++) {
            if (j == i || strcmp(host_of(&files[j]), host) != 0)
                continue;
            host_repeats = true;
            char *other = base_of(files[j].path);
            base_repeats |= !other || strcmp(other, base) == 0;
            free(other);
        }
        int n = !base ? -1
              : !host_repeats ? asprintf(&m->nodes[i].name, "%s", host)
              : asprintf(&m->nodes[i].name, "%s (%s)", host,
                         base_repeats ? files[i].path : base);
        free(base);
        if (n < 0) {
            m->nodes[i].name = NULL;
            return -1;
        }
        m->nodes[i].file = &files[i];
    }
    return 0;
}

/* The compact label at a level of detail: 0 model/layer/kernel/backend
 * (desc/kernel/backend without a model), 1 with dtype/layout/dir, 2 the
 * key itself.  NULL when out of memory. */
static char *make_label(const kb_merge_case *c, int detail)
{
    const kb_result_case *r = c->first;
    char *s = NULL;
    int n;
    if (detail >= 2)
        return strdup(c->key);
    if (r->model[0])
        n = asprintf(&s, "%s/%s/%s/%s", r->model, r->layer, r->kernel, r->backend);
    else
        n = asprintf(&s, "%s/%s/%s", r->desc, r->kernel, r->backend);
    if (n >= 0 && detail == 1) {
        char *t = NULL;
        n = asprintf(&t, "%s/%s/%s/%s", s, r->dtype, r->layout, r->dir);
        free(s);
        s = t;
    }
    return n < 0 ? NULL : s;
}

/* Labels as compact as keeps them distinct: a label two cases share gets
 * more detail, up to the key, which is unique.  Quadratic in the cases,
 * which are hundreds.  Returns 0, or -1 out of memory. */
static int label_cases(kb_merge *m)
{
    int *detail = calloc(m->ncases + 1, sizeof *detail);
    if (!detail)
        return -1;
    int rc = 0;
    for (bool changed = true; changed && rc == 0;) {
        changed = false;
        for (size_t i = 0; i < m->ncases && rc == 0; i++) {
            free(m->cases[i].label);
            if (!(m->cases[i].label = make_label(&m->cases[i], detail[i])))
                rc = -1;
        }
        for (size_t i = 0; i < m->ncases && rc == 0; i++)
            for (size_t j = i + 1; j < m->ncases; j++)
                if (strcmp(m->cases[i].label, m->cases[j].label) == 0) {
                    detail[i] = detail[i] < 2 ? detail[i] + 1 : 2;
                    detail[j] = detail[j] < 2 ? detail[j] + 1 : 2;
                    changed = true;
                }
    }
    free(detail);
    return rc;
}

/* Entries of every case record of every file, sorted by key.  Returns
 * the array (*nout entries), or NULL with *nout = 0 out of memory. */
static entry *collect(const kb_result_file *files, size_t n, size_t *nout)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += files[i].ncases;
    entry *e = calloc(total + 1, sizeof *e);
    *nout = 0;
    if (!e)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < files[i].ncases; j++, k++) {
            e[k] = (entry){kb_result_case_key_dup(&files[i].cases[j]), i, k, &files[i].cases[j]};
            if (!e[k].key)
                goto fail;
        }
    qsort(e, total, sizeof *e, by_key_then_order);
    *nout = total;
    return e;
fail:
    for (size_t q = 0; q < k; q++)
        free(e[q].key);
    free(e);
    return NULL;
}

/* Fill cases and cells from the groups of sorted entries; each case takes
 * the key of its first entry.  Returns 0, or -1 out of memory. */
static int fill(kb_merge *m, entry *e, group *g, size_t ngroups, size_t nentries)
{
    m->cases = calloc(ngroups + 1, sizeof *m->cases);
    m->cells = calloc(ngroups * m->nnodes + 1, sizeof *m->cells);
    m->dups = calloc(nentries + 1, sizeof *m->dups);
    if (!m->cases || !m->cells || !m->dups)
        return -1;
    for (size_t c = 0; c < ngroups; c++, m->ncases++) {
        entry *first = &e[g[c].start];
        m->cases[c] = (kb_merge_case){first->key, NULL, first->rc, 0, false, NAN, NAN};
        first->key = NULL;
        for (size_t k = g[c].start; k < g[c].end; k++) {
            kb_merge_cell *cell = kb_merge_cell_at(m, c, e[k].node);
            if (cell->rc)
                m->dups[m->ndups++] = (kb_merge_dup){e[k].rc, e[k].node};
            else
                *cell = (kb_merge_cell){e[k].rc, NAN, NAN, 0};
        }
    }
    return label_cases(m);
}

int kb_merge_build(kb_merge *m, const kb_result_file *files, size_t n, char *err,
                   size_t len)
{
    *m = (kb_merge){.nnodes = n, .zmax = KB_MERGE_Z_DEFAULT};
    size_t nentries = 0, ngroups = 0;
    m->nodes = calloc(n + 1, sizeof *m->nodes);
    entry *e = collect(files, n, &nentries);
    group *g = calloc(nentries + 1, sizeof *g);
    int rc = m->nodes && e && g && name_nodes(m, files) == 0 ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < nentries; k++)
        if (k == 0 || strcmp(e[k].key, e[k - 1].key) != 0) {
            g[ngroups++] = (group){k, k + 1, e[k].order};
        } else {
            g[ngroups - 1].end = k + 1;   /* sorted by order: first is first */
        }
    if (rc == 0) {
        qsort(g, ngroups, sizeof *g, by_first_order);
        rc = fill(m, e, g, ngroups, nentries);
    }
    for (size_t k = 0; k < nentries; k++)
        free(e[k].key);
    free(e);
    free(g);
    if (rc) {
        snprintf(err, len, "out of memory merging %zu files (%zu case records)", n,
                 nentries);
        kb_merge_free(m);
    }
    return rc;
}

void kb_merge_free(kb_merge *m)
{
    for (size_t i = 0; m->nodes && i < m->nnodes; i++)
        free(m->nodes[i].name);
    for (size_t c = 0; c < m->ncases; c++) {
        free(m->cases[c].key);
        free(m->cases[c].label);
    }
    free(m->nodes);
    free(m->cases);
    free(m->cells);
    free(m->dups);
    *m = (kb_merge){0};
}
