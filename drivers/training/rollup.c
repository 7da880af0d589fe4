/* rollup.c - the training-step roll-up (rollup.h): a writer that keeps
 * each case's median and, at the end, sums every (model, backend) step,
 * prints it after the table and records it as "training_step". */
#include "drivers/training/rollup.h"

#include "drivers/training/passes.h"
#include "kernels/kernel_table.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_LAYERS 5
#define MISSING_PRINTED 5

/* The phases of a step, the roll-up's passes: every forward direction is
 * FWD; conv BWD_W and BWD_WB and the GEMM BWD_W are all BWD_W. */
enum { PH_FWD, PH_BWD_D, PH_BWD_W, PH_BWD_DW, NPHASES };
static const char *const phase_names[NPHASES] = {"FWD", "BWD_D", "BWD_W",
                                                 "BWD_DW"};
/* The kernel kinds are the kernel table's rows, in its order. */
#define NKINDS KB_KERNEL_COUNT

static int phase_of(kb_dir pass)
{
    switch (pass) {
    case KB_BWD_D: return PH_BWD_D;
    case KB_BWD_W:
    case KB_BWD_WB: return PH_BWD_W;
    case KB_BWD_DW: return PH_BWD_DW;
    default: return PH_FWD;
    }
}

/* What one case left: a median when it ran, else why not. */
typedef struct {
    bool written;
    kb_status status;
    double median;
    char reason[256];
} entry;

typedef struct {
    const kb_run_opts *o;
    FILE *print;
    kb_writer *json;
    entry *e;                  /* problem i on backend j: e[i * nbackends + j] */
} rollup;

typedef struct {
    char name[KB_NAME_MAX];
    const char *kernel;
    double t;
} layer_cost;

/* One model's step on one backend. */
typedef struct {
    const char *model, *backend;
    int64_t mb;
    char dtype[32];
    size_t passes, measured, mistrusted;
    double total;              /* count x median over the measured passes */
    bool phase_in[NPHASES], kind_in[NKINDS];
    double phase_t[NPHASES], kind_t[NKINDS];
    layer_cost *layers;        /* by cost, highest first */
    size_t nlayers;
    size_t *missing;           /* problem indices */
    size_t nmissing;
    bool complete;
    bool interrupted;          /* why a case may never have been written */
} step;

/* ---- the writer's entry points ---- */

static int rollup_begin(kb_writer *w, const kb_provenance *p)
{
    (void)w, (void)p;
    return 0;
}

static int rollup_case(kb_writer *w, const kb_case_record *r)
{
    rollup *ru = w->state;
    const kb_run_opts *o = ru->o;
    size_t i = (size_t)(r->problem - o->problems.items);
    int j = 0;
    while (j < o->nbackends && strcmp(o->backends[j]->name, r->backend) != 0)
        j++;
    if (i >= o->problems.n || j == o->nbackends)
        return 0;   /* not one of the run's problems: no step holds it */
    entry *e = &ru->e[i * (size_t)o->nbackends + (size_t)j];
    e->written = true;
    e->status = r->status;
    e->median = kb_status_ran(r->status) && r->nsamples > 0 ? r->stats.median
                                                            : NAN;
    snprintf(e->reason, sizeof e->reason, "%s", r->reason);
    return 0;
}

/* ---- one step ---- */

static int by_cost(const void *a, const void *b)
{
    double x = ((const layer_cost *)a)->t, y = ((const layer_cost *)b)->t;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Adds t to the layer of p in s.  Can't fail: s->layers holds a slot per
 * pass. */
static void add_layer(step *s, const kb_problem *p, double t)
{
    char name[KB_NAME_MAX];
    kb_training_layer(p, name, sizeof name);
    size_t k = 0;
    while (k < s->nlayers && strcmp(s->layers[k].name, name) != 0)
        k++;
    if (k == s->nlayers) {
        snprintf(s->layers[k].name, sizeof s->layers[k].name, "%s", name);
        s->layers[k].kernel = kb_problem_kernel_name(p);
        s->layers[k].t = 0;
        s->nlayers++;
    }
    s->layers[k].t += t;
}

/* Works out model's step on backend j.  Returns 0, or -1 when out of
 * memory (s then holds nothing to free). */
static int make_step(const rollup *ru, const char *model, int j, bool interrupted,
                     step *s)
{
    const kb_run_opts *o = ru->o;
    memset(s, 0, sizeof *s);
    s->model = model;
    s->backend = o->backends[j]->name;
    s->mb = -1;
    s->interrupted = interrupted;
    s->layers = calloc(o->problems.n + 1, sizeof *s->layers);
    s->missing = calloc(o->problems.n + 1, sizeof *s->missing);
    if (!s->layers || !s->missing) {
        free(s->layers), free(s->missing);
        return -1;
    }
    for (size_t i = 0; i < o->problems.n; i++) {
        const kb_problem *p = &o->problems.items[i];
        entry *e = &ru->e[i * (size_t)o->nbackends + (size_t)j];
        if (strcmp(o->models[i], model) != 0)
            continue;
        if (s->passes++ == 0) {
            s->mb = kb_problem_mb(p);
            kb_dts_format(&p->dt, s->dtype, sizeof s->dtype);
        }
        int ph = phase_of(kb_training_pass(p));
        size_t kind = kb_kernel_of(p);
        s->phase_in[ph] = s->kind_in[kind] = true;
        bool ran = e->written && (e->status == KB_PASSED ||
                                  e->status == KB_MISTRUSTED) &&
                   isfinite(e->median);
        if (!ran) {
            s->missing[s->nmissing++] = i;
            continue;
        }
        double t = (double)p->count * e->median;
        s->measured++;
        s->mistrusted += e->status == KB_MISTRUSTED;
        s->total += t;
        s->phase_t[ph] += t;
        s->kind_t[kind] += t;
        add_layer(s, p, t);
    }
    qsort(s->layers, s->nlayers, sizeof *s->layers, by_cost);
    s->complete = s->nmissing == 0 && !o->training_filtered;
    return 0;
}

/* Why a pass of s is missing: its record's reason, or why it has none. */
static const char *missing_reason(const step *s, const entry *e)
{
    if (e->written)
        return e->reason;
    return s->interrupted ? "the run was interrupted"
                          : "the run stopped (an output failed)";
}

static void free_step(step *s)
{
    free(s->layers);
    free(s->missing);
}

static double share(const step *s, double t)
{
    return s->total > 0 ? t / s->total : NAN;
}

/* ---- printing ---- */

/* "conv1 BWD_W" for problem i. */
static const char *pass_label(const kb_run_opts *o, size_t i, char *buf,
                              size_t len)
{
    const kb_problem *p = &o->problems.items[i];
    char layer[KB_NAME_MAX];
    snprintf(buf, len, "%s %s", kb_training_layer(p, layer, sizeof layer),
             kb_dir_name(kb_training_pass(p)));
    return buf;
}

static void print_step(const rollup *ru, const step *s, int j, FILE *f)
{
    char label[KB_NAME_MAX + 16];
    fprintf(f, "training step: %s on %s, mb %" PRId64 ", %s: ", s->model,
            s->backend, s->mb, s->dtype);
    if (s->complete)
        fprintf(f, "%.6g s of kernel time per step (%zu passes)\n", s->total,
                s->passes);
    else
        fprintf(f, "INCOMPLETE, no step time: %zu of %zu passes missing%s; "
                "the %zu measured sum to %.6g s\n", s->nmissing, s->passes,
                ru->o->training_filtered ? " and --kernel/--layer left "
                "passes out" : "", s->measured, s->total);
    const char *of = s->complete ? "" : " (of the measured)";
    fprintf(f, "  by pass%s:", of);
    for (int k = 0; k < NPHASES; k++)
        if (s->phase_in[k])
            fprintf(f, " %s %.1f%%", phase_names[k],
                    100 * share(s, s->phase_t[k]));
    fprintf(f, "\n  by kind%s:", of);
    for (size_t k = 0; k < NKINDS; k++)
        if (s->kind_in[k])
            fprintf(f, " %s %.1f%%", kb_kernel_table[k].name, 100 * share(s, s->kind_t[k]));
    fprintf(f, "\n  costliest layers%s:", of);
    for (size_t k = 0; k < s->nlayers && k < TOP_LAYERS; k++)
        fprintf(f, "%s %s %.1f%% (%.3g s)", k ? "," : "", s->layers[k].name,
                100 * share(s, s->layers[k].t), s->layers[k].t);
    fputc('\n', f);
    for (size_t k = 0; k < s->nmissing && k < MISSING_PRINTED; k++) {
        size_t i = s->missing[k];
        const entry *e = &ru->e[i * (size_t)ru->o->nbackends + (size_t)j];
        const char *why = missing_reason(s, e);
        fprintf(f, "  missing: %s (%s%s%s)\n",
                pass_label(ru->o, i, label, sizeof label),
                e->written ? kb_status_name(e->status) : "NOT_RUN",
                why[0] ? ": " : "", why);
    }
    if (s->nmissing > MISSING_PRINTED)
        fprintf(f, "  ... and %zu more missing (all in the --json "
                "training_step record)\n", s->nmissing - MISSING_PRINTED);
}

/* ---- the record ---- */

static void add_share(cJSON *item, const char *key, const char *name,
                      const step *s, double t)
{
    cJSON_AddStringToObject(item, key, name);
    cJSON_AddNumberToObject(item, "time_s", t);
    if (s->total > 0)
        cJSON_AddNumberToObject(item, "share", t / s->total);
    else
        cJSON_AddNullToObject(item, "share");
}

static cJSON *step_json(const rollup *ru, const step *s, int j)
{
    const kb_run_opts *o = ru->o;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "type", "training_step");
    cJSON_AddStringToObject(r, "model", s->model);
    cJSON_AddStringToObject(r, "backend", s->backend);
    cJSON_AddNumberToObject(r, "mb", (double)s->mb);
    cJSON_AddStringToObject(r, "dtype", s->dtype);
    cJSON_AddBoolToObject(r, "complete", s->complete);
    if (s->complete)
        cJSON_AddNumberToObject(r, "step_s", s->total);
    else
        cJSON_AddNullToObject(r, "step_s");
    cJSON_AddNumberToObject(r, "measured_s", s->total);
    cJSON_AddNumberToObject(r, "passes", (double)s->passes);
    cJSON_AddNumberToObject(r, "measured_passes", (double)s->measured);
    cJSON_AddNumberToObject(r, "mistrusted_passes", (double)s->mistrusted);
    cJSON_AddBoolToObject(r, "filtered", o->training_filtered);
    cJSON *a = cJSON_AddArrayToObject(r, "by_pass");
    for (int k = 0; a && k < NPHASES; k++)
        if (s->phase_in[k]) {
            cJSON *it = cJSON_CreateObject();
            add_share(it, "pass", phase_names[k], s, s->phase_t[k]);
            cJSON_AddItemToArray(a, it);
        }
    a = cJSON_AddArrayToObject(r, "by_kind");
    for (size_t k = 0; a && k < NKINDS; k++)
        if (s->kind_in[k]) {
            cJSON *it = cJSON_CreateObject();
            add_share(it, "kind", kb_kernel_table[k].name, s, s->kind_t[k]);
            cJSON_AddItemToArray(a, it);
        }
    a = cJSON_AddArrayToObject(r, "top_layers");
    for (size_t k = 0; a && k < s->nlayers && k < TOP_LAYERS; k++) {
        cJSON *it = cJSON_CreateObject();
        add_share(it, "layer", s->layers[k].name, s, s->layers[k].t);
        cJSON_AddStringToObject(it, "kernel", s->layers[k].kernel);
        cJSON_AddItemToArray(a, it);
    }
    a = cJSON_AddArrayToObject(r, "missing");
    for (size_t k = 0; a && k < s->nmissing; k++) {
        size_t i = s->missing[k];
        const kb_problem *p = &o->problems.items[i];
        const entry *e = &ru->e[i * (size_t)o->nbackends + (size_t)j];
        char layer[KB_NAME_MAX], desc[256];
        cJSON *it = cJSON_CreateObject();
        kb_problem_format(p, desc, sizeof desc);
        cJSON_AddStringToObject(it, "layer", kb_training_layer(p, layer,
                                                               sizeof layer));
        cJSON_AddStringToObject(it, "pass", kb_dir_name(kb_training_pass(p)));
        cJSON_AddStringToObject(it, "kernel", kb_problem_kernel_name(p));
        cJSON_AddStringToObject(it, "desc", desc);
        cJSON_AddStringToObject(it, "status", e->written
                                ? kb_status_name(e->status) : "NOT_RUN");
        cJSON_AddStringToObject(it, "reason", missing_reason(s, e));
        cJSON_AddItemToArray(a, it);
    }
    return r;
}

/* Each model once, in run order, and every backend: print and record
 * its step.  Returns 0, or -1 when a record could not be written. */
static int rollup_end(kb_writer *w, const kb_summary *sum)
{
    rollup *ru = w->state;
    const kb_run_opts *o = ru->o;
    int rc = 0;
    for (size_t i = 0; i < o->problems.n; i++) {
        const char *model = o->models[i];
        size_t first = 0;
        while (strcmp(o->models[first], model) != 0)
            first++;
        if (first != i || !model[0])
            continue;   /* already rolled up, or not from a catalog */
        for (int j = 0; j < o->nbackends; j++) {
            step s;
            if (make_step(ru, model, j, sum->interrupted, &s) != 0) {
                fputs("kbench run: out of memory for the training roll-up\n",
                      stderr);
                return -1;
            }
            if (ru->print)
                print_step(ru, &s, j, ru->print);
            if (ru->json && kb_writer_jsonl_object(ru->json, step_json(ru, &s, j)) != 0)
                rc = -1;
            free_step(&s);
        }
    }
    if (ru->print && fflush(ru->print) != 0)
        rc = -1;
    return rc;
}

static void rollup_close(kb_writer *w)
{
    rollup *ru = w->state;
    free(ru->e);
    free(ru);
    free(w);
}

kb_writer *kb_writer_rollup(const kb_run_opts *o, FILE *print)
{
    kb_writer *w = calloc(1, sizeof *w);
    rollup *ru = calloc(1, sizeof *ru);
    /* problems.n x nbackends cannot overflow: both were allocated */
    entry *e = calloc(o->problems.n * (size_t)o->nbackends + 1, sizeof *e);
    if (!w || !ru || !e) {
        free(w), free(ru), free(e);
        return NULL;
    }
    ru->o = o;
    ru->print = print;
    ru->e = e;
    w->state = ru;
    w->out = print;
    w->begin = rollup_begin;
    w->write_case = rollup_case;
    w->end = rollup_end;
    w->close = rollup_close;
    return w;
}

void kb_writer_rollup_json(kb_writer *rollup_w, kb_writer *json)
{
    ((rollup *)rollup_w->state)->json = json;
}
