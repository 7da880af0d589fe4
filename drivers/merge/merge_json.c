/* merge_json.c - the merged table and its outlier flags as one JSON
 * document (results/SCHEMA.md, "kbench merge JSON"). */
#include "drivers/merge/merge.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

/* Numbers JSON cannot hold (NaN) become null.  The cJSON Add helpers
 * return NULL on allocation failure and do nothing on a NULL object, so
 * they need no checks here: complete() refuses a document missing a node,
 * case, cell or duplicate (a lost field inside one goes unseen, as in
 * writer_jsonl.c). */
static void add_number(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_flag(cJSON *o, kb_merge_flag flag)
{
    if (flag)
        cJSON_AddStringToObject(o, "outlier", kb_merge_flag_name(flag));
    else
        cJSON_AddNullToObject(o, "outlier");
}

/* An object appended to array; NULL when out of memory. */
static cJSON *append_object(cJSON *array)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddItemToArray(array, o)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *rule(const kb_merge *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "z_threshold", m->zmax);
    cJSON_AddNumberToObject(o, "mad_scale", 1.4826);
    cJSON_AddNumberToObject(o, "min_spread_fraction", KB_MERGE_MIN_SPREAD);
    cJSON_AddNumberToObject(o, "min_nodes", KB_MERGE_MIN_NODES);
    cJSON_AddStringToObject(o, "overall", "median of the node's per-case z");
    return o;
}

static void add_nodes(cJSON *doc, const kb_merge *m)
{
    cJSON *a = cJSON_AddArrayToObject(doc, "nodes");
    for (size_t i = 0; a && i < m->nnodes; i++) {
        const kb_merge_node *n = &m->nodes[i];
        cJSON *o = append_object(a);
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON_AddStringToObject(o, "host", n->file->host ? n->file->host : "");
        cJSON_AddStringToObject(o, "file", n->file->path);
        cJSON_AddNumberToObject(o, "cases", (double)n->file->ncases);
        cJSON_AddNumberToObject(o, "judged_cases", n->njudged);
        add_number(o, "relative", n->relative);
        add_number(o, "z", n->z);
        add_flag(o, n->flag);
    }
}

static void add_cells(cJSON *o, const kb_merge *m, size_t c)
{
    cJSON *a = cJSON_AddArrayToObject(o, "cells");
    for (size_t i = 0; a && i < m->nnodes; i++) {
        const kb_merge_cell *cl = kb_merge_cell_at(m, c, i);
        cJSON *e = append_object(a);
        cJSON_AddStringToObject(e, "status", cl->rc ? cl->rc->status : "missing");
        add_number(e, "line", cl->rc ? (double)cl->rc->line : NAN);
        add_number(e, "gflops", cl->gflops);
        add_number(e, "z", cl->z);
        add_flag(e, cl->flag);
    }
}

static void add_cases(cJSON *doc, const kb_merge *m)
{
    cJSON *a = cJSON_AddArrayToObject(doc, "cases");
    for (size_t c = 0; a && c < m->ncases; c++) {
        const kb_merge_case *k = &m->cases[c];
        const kb_result_case *r = k->first;
        cJSON *o = append_object(a);
        cJSON_AddStringToObject(o, "label", k->label);
        cJSON_AddStringToObject(o, "key", k->key);
        cJSON_AddStringToObject(o, "desc", r->desc);
        cJSON_AddStringToObject(o, "model", r->model);
        cJSON_AddStringToObject(o, "layer", r->layer);
        cJSON_AddStringToObject(o, "kernel", r->kernel);
        cJSON_AddStringToObject(o, "backend", r->backend);
        cJSON_AddStringToObject(o, "dtype", r->dtype);
        cJSON_AddStringToObject(o, "layout", r->layout);
        cJSON_AddStringToObject(o, "dir", r->dir);
        cJSON_AddNumberToObject(o, "timed_nodes", k->ntimed);
        cJSON_AddBoolToObject(o, "judged", k->judged);
        add_number(o, "median_gflops", k->median);
        add_number(o, "spread_gflops", k->judged ? k->spread : NAN);
        add_cells(o, m, c);
    }
}

static void add_dups(cJSON *doc, const kb_merge *m)
{
    cJSON *a = cJSON_AddArrayToObject(doc, "duplicates");
    for (size_t d = 0; a && d < m->ndups; d++) {
        const kb_merge_node *n = &m->nodes[m->dups[d].node];
        cJSON *o = append_object(a);
        cJSON_AddStringToObject(o, "node", n->name);
        cJSON_AddStringToObject(o, "file", n->file->path);
        cJSON_AddNumberToObject(o, "line", (double)m->dups[d].dup->line);
    }
}

/* True when every array holds all its items. */
static bool complete(const cJSON *doc, const kb_merge *m)
{
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    bool ok = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "nodes")) ==
                  (int)m->nnodes &&
              cJSON_GetArraySize(cases) == (int)m->ncases &&
              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "duplicates")) ==
                  (int)m->ndups;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
        ok &= cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "cells")) ==
              (int)m->nnodes;
    return ok;
}

int kb_merge_write_json(FILE *f, const kb_merge *m)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", KB_MERGE_SCHEMA);
    cJSON_AddItemToObject(doc, "rule", rule(m));
    add_nodes(doc, m);
    add_cases(doc, m);
    add_dups(doc, m);
    char *text = doc && complete(doc, m) ? cJSON_Print(doc) : NULL;
    int rc = text ? 0 : -1;
    if (text)
        fprintf(f, "%s\n", text);
    free(text);
    cJSON_Delete(doc);
    return rc || ferror(f) ? -1 : 0;
}
