/* writer_jsonl.c - results as JSON Lines (results/SCHEMA.md): a run
 * record, one case record per problem x backend, a summary; every line
 * is flushed as soon as it is complete, so an interrupted run leaves a
 * valid file. */
#include "drivers/record.h"
#include "drivers/training/passes.h"
#include "drivers/writer_file.h"

#include "backends/backend.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Numbers that JSON cannot hold (NaN, Inf) become null.  The cJSON Add
 * helpers return NULL on allocation failure; kb_writer_jsonl_object then
 * fails on the whole record, so they need no checks here. */
static void add_number(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* See record.h.  Out of memory (o NULL, or printing it fails) and I/O
 * errors are both reported. */
int kb_writer_jsonl_object(kb_writer *w, cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    int rc = 0;
    if (!text) {
        fprintf(stderr, "kbench: %s: out of memory formatting a record\n",
                kb_writer_file_path(w));
        rc = -1;
    } else {
        fprintf(w->out, "%s\n", text);
        rc = kb_writer_file_flush(w);
    }
    free(text);
    cJSON_Delete(o);
    return rc;
}

static cJSON *backends_object(void)
{
    cJSON *all = cJSON_CreateObject();
    for (int i = 0; all && i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        cJSON *o = cJSON_AddObjectToObject(all, b->name);
        if (!o)
            continue;
        cJSON_AddStringToObject(o, "kind", b->kind);
        cJSON_AddStringToObject(o, "device_kind", b->device);
        kb_info info = {0};
        if (b->describe)
            b->describe(&info);
        for (int j = 0; j < info.n; j++)
            cJSON_AddStringToObject(o, info.kv[j].key, info.kv[j].value);
        /* a GPU backend's describe() names its device ("0: NVIDIA H200"):
         * one "device" key, never two */
        if (!cJSON_GetObjectItemCaseSensitive(o, "device"))
            cJSON_AddStringToObject(o, "device", b->device);
    }
    return all;
}

static int jsonl_begin(kb_writer *w, const kb_provenance *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "run");
    cJSON_AddStringToObject(o, "schema", KB_SCHEMA_VERSION);
    if (o && kb_provenance_json(p, o)) {
        cJSON_Delete(o);
        o = NULL;   /* kb_writer_jsonl_object reports it */
    }
    cJSON_AddStringToObject(o, "fill", p->fill);
    cJSON_AddNumberToObject(o, "warmup", (double)p->warmup);
    cJSON_AddNumberToObject(o, "warmup_time_s", p->warmup_time);
    cJSON_AddNumberToObject(o, "reps", (double)p->reps);
    cJSON_AddNumberToObject(o, "min_time_s", p->min_time);
    cJSON_AddNumberToObject(o, "settle_max_s", p->settle_max);
    cJSON_AddNumberToObject(o, "max_reps", (double)p->max_reps);
    cJSON_AddItemToObject(o, "backends", backends_object());
    return kb_writer_jsonl_object(w, o);
}

static void add_timing(cJSON *o, const kb_case_record *r)
{
    cJSON *samples = cJSON_AddArrayToObject(o, "samples_s");
    for (int64_t i = 0; samples && i < r->nsamples; i++)
        cJSON_AddItemToArray(samples, isfinite(r->samples[i])
                                          ? cJSON_CreateNumber(r->samples[i])
                                          : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "warmup", (double)r->warmup);
    add_number(o, "settle_s", r->settle_s >= 0 ? r->settle_s : NAN);
    cJSON_AddStringToObject(o, "timer", r->backend_timed ? "backend" : "driver");
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    if (s) {
        add_number(s, "min", r->stats.min);
        add_number(s, "median", r->stats.median);
        add_number(s, "mean", r->stats.mean);
        add_number(s, "max", r->stats.max);
        add_number(s, "stddev", r->stats.stddev);
        add_number(s, "cv", r->stats.cv);
    }
    add_number(o, "gflops", r->gflops);
    add_number(o, "gbps", r->gbps);
}

static void add_validation(cJSON *o, const kb_validation *v)
{
    cJSON *val = cJSON_AddObjectToObject(o, "validation");
    if (!val)
        return;
    cJSON_AddStringToObject(val, "mode", kb_check_mode_name(v->mode));
    cJSON_AddNumberToObject(val, "points", (double)v->points);
    cJSON_AddNumberToObject(val, "checked", (double)v->checked);
    cJSON_AddNumberToObject(val, "mismatches", (double)v->mismatches);
    cJSON_AddNumberToObject(val, "nonfinite", (double)v->nonfinite);
    add_number(val, "max_abs_err", v->max_abs_err);
    add_number(val, "max_rel_err", v->max_rel_err);
    add_number(val, "tolerance", v->tolerance);
    cJSON_AddStringToObject(val, "first_mismatch", v->first_mismatch);
}

/* "roofline": the placement, or why there is none. */
static void add_roofline(cJSON *o, const kb_case_record *r)
{
    cJSON *roof = cJSON_AddObjectToObject(o, "roofline");
    if (!roof)
        return;
    cJSON_AddBoolToObject(roof, "placed", r->roof_placed);
    if (r->roof_placed) {
        const kb_placement *pl = &r->roof;
        add_number(roof, "attainable_gflops", pl->attainable);
        add_number(roof, "pct_of_attainable", pl->pct);
        cJSON_AddStringToObject(roof, "bound", kb_bound_name(pl->bound));
        cJSON_AddBoolToObject(roof, "above_roof", pl->above_roof);
        add_number(roof, "peak_gflops", pl->peak_gflops);
        add_number(roof, "bandwidth_gbps", pl->bw_gbps);
        if (pl->compute)
            cJSON_AddStringToObject(roof, "compute_ceiling", pl->compute->kernel);
        if (pl->memory) {
            cJSON_AddStringToObject(roof, "memory_ceiling", pl->memory->kernel);
            cJSON_AddStringToObject(roof, "memory_level", pl->memory->level);
        }
    }
    cJSON_AddStringToObject(roof, "note", r->roof_note);
}

/* "plan": the backend's facts of this case's plan (tuning, algorithm,
 * math mode, timing method), when it gives any. */
static void add_plan(cJSON *o, const kb_info *info)
{
    if (info->n == 0)
        return;
    cJSON *plan = cJSON_AddObjectToObject(o, "plan");
    for (int i = 0; plan && i < info->n; i++)
        cJSON_AddStringToObject(plan, info->kv[i].key, info->kv[i].value);
}

static int jsonl_case(kb_writer *w, const kb_case_record *r)
{
    const kb_problem *p = r->problem;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "case");
    cJSON_AddNumberToObject(o, "seq", (double)r->seq);
    cJSON_AddStringToObject(o, "desc", r->desc);
    cJSON_AddStringToObject(o, "model", r->model ? r->model : "");
    cJSON_AddStringToObject(o, "layer", p->name);
    cJSON_AddNumberToObject(o, "count", (double)p->count);
    cJSON_AddStringToObject(o, "kernel", kb_problem_kernel_name(p));
    cJSON_AddStringToObject(o, "backend", r->backend);
    const kb_backend *b = kb_backend_find(r->backend);
    if (b && b->correctness_only)   /* results_read.c leaves it out */
        cJSON_AddFalseToObject(o, "performance");
    char dts[32];
    kb_dts_format(&p->dt, dts, sizeof dts);
    cJSON_AddStringToObject(o, "dtype", dts);
    cJSON_AddStringToObject(o, "fpmath", kb_fpmath_name(p->fpmath));
    cJSON_AddStringToObject(o, "layout", kb_layout_name(p));
    cJSON_AddStringToObject(o, "dir", kb_dir_name(p->dir));
    cJSON_AddStringToObject(o, "pass", kb_dir_name(kb_training_pass(p)));
    int64_t mb = kb_problem_mb(p);
    if (mb >= 0)
        cJSON_AddNumberToObject(o, "mb", (double)mb);
    else
        cJSON_AddNullToObject(o, "mb");
    add_number(o, "flops", r->flops);
    add_number(o, "flops_dense", r->flops_dense);
    add_number(o, "bytes", r->bytes);
    add_number(o, "llc_bytes", r->llc_bytes > 0 ? r->llc_bytes : NAN);
    add_number(o, "ai", r->bytes > 0 ? r->flops / r->bytes : NAN);
    cJSON_AddNumberToObject(o, "workspace_bytes", (double)r->workspace_bytes);
    add_plan(o, &r->plan_info);
    if (kb_status_ran(r->status) && r->nsamples > 0) {
        add_timing(o, r);
        add_roofline(o, r);
    }
    if (r->validated) {
        add_validation(o, &r->validation);
        cJSON_AddBoolToObject(o, "last_rep_checked", r->last_checked);
    }
    cJSON_AddStringToObject(o, "status", kb_status_name(r->status));
    cJSON_AddStringToObject(o, "reason", r->reason);
    return kb_writer_jsonl_object(w, o);
}

static int jsonl_end(kb_writer *w, const kb_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "summary");
    cJSON_AddNumberToObject(o, "passed", (double)s->passed);
    cJSON_AddNumberToObject(o, "failed", (double)s->failed);
    cJSON_AddNumberToObject(o, "skipped", (double)s->skipped);
    cJSON_AddNumberToObject(o, "errors", (double)s->errors);
    cJSON_AddNumberToObject(o, "mistrusted", (double)s->mistrusted);
    cJSON_AddNumberToObject(o, "left_out", (double)s->left_out);
    cJSON *names = cJSON_AddArrayToObject(o, "left_out_backends");
    for (int i = 0; names && i < s->nleft_out_backends; i++)
        cJSON_AddItemToArray(names,
                             cJSON_CreateString(s->left_out_backends[i]->name));
    cJSON_AddBoolToObject(o, "interrupted", s->interrupted);
    return kb_writer_jsonl_object(w, o);
}

/* Returns the writer, or NULL with err naming the path and the reason
 * (cannot open, out of memory). */
kb_writer *kb_writer_jsonl(const char *path, char *err, size_t errlen)
{
    kb_writer *w = kb_writer_file_open(path, "JSON Lines", err, errlen);
    if (!w)
        return NULL;
    w->begin = jsonl_begin;
    w->write_case = jsonl_case;
    w->end = jsonl_end;
    w->close = kb_writer_file_close;
    return w;
}
