/* compare_json.c - the compare report as one JSON document
 * (results/SCHEMA.md, "kbench compare JSON"). */
#include "drivers/compare/compare.h"

#include <math.h>
#include <stdlib.h>

/* A number JSON can hold, else null (NaN: not compared). */
static void add_number(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *side_object(const kb_result_file *f, const char *backend)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddStringToObject(o, "host", f->host);
    if (backend)
        cJSON_AddStringToObject(o, "backend", backend);
    static const char *const keys[] = {"git_commit", "compiler", "build_flags",
                                       "cpu_model", "date"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(
            cJSON_GetObjectItemCaseSensitive(f->run, keys[i]), true));
    return o;
}

static cJSON *case_side(const kb_result_case *rc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "line", (double)rc->line);
    cJSON_AddStringToObject(o, "backend", rc->backend);
    cJSON_AddStringToObject(o, "status", rc->status);
    cJSON_AddNumberToObject(o, "n", (double)rc->nsamples);
    add_number(o, "median_s", rc->median_s);
    add_number(o, "gflops", rc->gflops);
    return o;
}

/* The fields that identify a case, from its record. */
static void add_identity(cJSON *o, const kb_result_case *rc)
{
    cJSON_AddStringToObject(o, "desc", rc->desc);
    cJSON_AddStringToObject(o, "model", rc->model);
    cJSON_AddStringToObject(o, "layer", rc->layer);
    cJSON_AddStringToObject(o, "kernel", rc->kernel);
    cJSON_AddStringToObject(o, "dtype", rc->dtype);
    cJSON_AddStringToObject(o, "layout", rc->layout);
    cJSON_AddStringToObject(o, "dir", rc->dir);
}

static cJSON *row_object(const kb_cmp_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "label", r->label);
    add_identity(o, r->a);
    cJSON_AddItemToObject(o, "a", case_side(r->a));
    cJSON_AddItemToObject(o, "b", case_side(r->b));
    cJSON_AddStringToObject(o, "verdict", r->verdict);
    if (!r->compared) {
        cJSON_AddStringToObject(o, "why", r->why);
        return o;
    }
    add_number(o, "ratio", r->ratio);
    add_number(o, "ci_low", r->lo);
    add_number(o, "ci_high", r->hi);
    add_number(o, "ci_confidence", r->hl.confidence);
    cJSON_AddStringToObject(o, "ci_method", kb_mw_method_name(r->hl.method));
    add_number(o, "hl_ratio", r->hl_ratio);
    add_number(o, "u", r->mw.u);
    add_number(o, "p", r->mw.p);
    cJSON_AddStringToObject(o, "test", kb_mw_method_name(r->mw.method));
    cJSON_AddBoolToObject(o, "ties", r->mw.ties);
    cJSON_AddBoolToObject(o, "few_samples", r->few);
    cJSON_AddBoolToObject(o, "over_gate", r->gated);
    return o;
}

static cJSON *group_object(const kb_cmp_group *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", g->model);
    cJSON_AddNumberToObject(o, "cases", g->n);
    add_number(o, "geomean_ratio", g->geomean);
    return o;
}

static cJSON *unmatched_object(const kb_compare *c, const kb_cmp_unmatched *u)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "side", u->side == 'A' ? "a" : "b");
    cJSON_AddStringToObject(o, "path", (u->side == 'A' ? c->fa : c->fb)->path);
    cJSON_AddNumberToObject(o, "line", (double)u->c->line);
    add_identity(o, u->c);
    cJSON_AddStringToObject(o, "backend", u->c->backend);
    if (u->first_line)
        cJSON_AddNumberToObject(o, "repeats_line", (double)u->first_line);
    return o;
}

static cJSON *diff_object(const kb_cmp_diff *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", d->key);
    cJSON_AddStringToObject(o, "kind", d->kind);
    cJSON_AddStringToObject(o, "a", d->a);
    cJSON_AddStringToObject(o, "b", d->b);
    return o;
}

/* cJSON's Add helpers take a NULL item or parent without harm, so a
 * failed allocation cannot crash the build of the tree; as in
 * writer_jsonl.c it is not detected member by member, only when printing
 * fails (NULL). */
char *kb_compare_json(const kb_compare *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "schema", KB_COMPARE_SCHEMA);
    cJSON_AddStringToObject(o, "mode", c->backend_a ? "backends" : "files");
    cJSON_AddItemToObject(o, "a", side_object(c->fa, c->backend_a));
    cJSON_AddItemToObject(o, "b", side_object(c->fb, c->backend_b));
    cJSON_AddStringToObject(o, "ratio", "a median time / b median time: above 1, b is faster");
    cJSON_AddNumberToObject(o, "alpha", KB_COMPARE_ALPHA);
    cJSON_AddNumberToObject(o, "confidence", KB_HL_CONFIDENCE);
    cJSON_AddNumberToObject(o, "exact_max_samples", KB_MW_EXACT_MAX);
    cJSON_AddNumberToObject(o, "min_samples", KB_COMPARE_MIN_SAMPLES);
    cJSON *diffs = cJSON_AddArrayToObject(o, "provenance_differences");
    for (size_t i = 0; i < c->ndiffs; i++)
        cJSON_AddItemToArray(diffs, diff_object(&c->diffs[i]));
    cJSON *rows = cJSON_AddArrayToObject(o, "cases");
    for (size_t i = 0; i < c->nrows; i++)
        cJSON_AddItemToArray(rows, row_object(&c->rows[i]));
    cJSON *un = cJSON_AddArrayToObject(o, "unmatched");
    for (size_t i = 0; i < c->nunmatched; i++)
        cJSON_AddItemToArray(un, unmatched_object(c, &c->unmatched[i]));
    cJSON_AddNumberToObject(o, "other_backend_cases", (double)c->nother);
    cJSON *geo = cJSON_AddObjectToObject(o, "geomean");
    cJSON_AddItemToObject(geo, "overall", group_object(&c->overall));
    cJSON *models = cJSON_AddArrayToObject(geo, "models");
    for (size_t i = 0; i < c->ngroups; i++)
        cJSON_AddItemToArray(models, group_object(&c->groups[i]));
    if (!isnan(c->gate_pct)) {
        cJSON *g = cJSON_AddObjectToObject(o, "gate");
        cJSON_AddNumberToObject(g, "fail_if_slower_pct", c->gate_pct);
        cJSON_AddBoolToObject(g, "summary", c->gate_summary);
        cJSON_AddBoolToObject(g, "failed", c->gate_failed);
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}
