/* history_changes.c - `kbench history changes`: the change points of
 * every series as a Markdown table (worst first) and as JSON, and the
 * exit code --fail-on asks for. */
#define _GNU_SOURCE   /* open_memstream */
#include "history/history.h"
#include "drivers/common/atomic_file.h"
#include "drivers/common/exit_codes.h"
#include "drivers/common/md_table.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERB "history changes"

/* "node / backend / case / metric": how a series is named everywhere. */
static void series_name(char *buf, size_t len, const kb_history_series *s,
                        const kb_history_opts *o)
{
    snprintf(buf, len, "%s / %s / %s / %s", s->node, s->backend, s->case_key,
             kb_history_metric_names[o->metric]);
}

static void print_table(FILE *f, const kb_history_analysis *a, const kb_history_opts *o)
{
    if (a->nchanges == 0) {
        fprintf(f, "No change points in %ld series (%s, p < %g).\n", a->nseries,
                kb_history_metric_names[o->metric], o->p);
        return;
    }
    static const char *const head[] = {"kind", "series", "run", "time", "before",
                                       "after", "change", "p", "event"};
    kb_md_table_head(f, head, 9, "llrlrrrrl");
    for (long i = 0; i < a->nchanges; i++) {
        const kb_history_change *c = &a->changes[i];
        const kb_history_series *s = c->series;
        char name[4096];
        series_name(name, sizeof name, s, o);
        kb_md_row_begin(f);
        kb_md_cellf(f, "%s", c->regression ? "**regression**" : "improvement");
        kb_md_cell(f, name);
        kb_md_cellf(f, "%lld", (long long)s->run[c->cp.index]);
        kb_md_cell(f, s->time[c->cp.index]);
        kb_md_cellf(f, "%.4g ± %.2g", c->cp.mean_before, c->cp.std_before);
        kb_md_cellf(f, "%.4g ± %.2g", c->cp.mean_after, c->cp.std_after);
        kb_md_cellf(f, "%+.1f%%", kb_change_forward_percent(&c->cp));
        kb_md_cellf(f, "%.2g", c->cp.pvalue);
        if (c->event_text) {
            char ev[4200];
            snprintf(ev, sizeof ev, "%s %s", c->event_time, c->event_text);
            kb_md_cell(f, ev);
        } else {
            kb_md_cell(f, "");
        }
        kb_md_row_end(f);
    }
}

/* The changes as a JSON array (docs/history.md); NULL when out of memory. */
static char *changes_json(const kb_history_analysis *a, const kb_history_opts *o)
{
    cJSON *arr = cJSON_CreateArray();
    for (long i = 0; arr && i < a->nchanges; i++) {
        const kb_history_change *c = &a->changes[i];
        const kb_history_series *s = c->series;
        char name[4096];
        series_name(name, sizeof name, s, o);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, j);
        cJSON_AddStringToObject(j, "series", name);
        cJSON_AddStringToObject(j, "node", s->node);
        cJSON_AddStringToObject(j, "backend", s->backend);
        cJSON_AddStringToObject(j, "case", s->case_key);
        cJSON_AddStringToObject(j, "metric", kb_history_metric_names[o->metric]);
        cJSON_AddNumberToObject(j, "run", (double)s->run[c->cp.index]);
        cJSON_AddStringToObject(j, "time", s->time[c->cp.index]);
        cJSON_AddNumberToObject(j, "index", (double)c->cp.index);
        cJSON_AddNumberToObject(j, "mean_before", c->cp.mean_before);
        cJSON_AddNumberToObject(j, "stddev_before", c->cp.std_before);
        cJSON_AddNumberToObject(j, "mean_after", c->cp.mean_after);
        cJSON_AddNumberToObject(j, "stddev_after", c->cp.std_after);
        cJSON_AddNumberToObject(j, "forward_change_percent",
                                kb_change_forward_percent(&c->cp));
        cJSON_AddNumberToObject(j, "magnitude", kb_change_magnitude(&c->cp));
        cJSON_AddNumberToObject(j, "pvalue", c->cp.pvalue);
        cJSON_AddStringToObject(j, "kind", c->regression ? "regression" : "improvement");
        if (c->event_text) {
            cJSON *e = cJSON_AddObjectToObject(j, "event");
            cJSON_AddStringToObject(e, "time", c->event_time);
            cJSON_AddStringToObject(e, "text", c->event_text);
        } else {
            cJSON_AddNullToObject(j, "event");
        }
    }
    char *s = arr ? cJSON_Print(arr) : NULL;
    cJSON_Delete(arr);
    return s;
}

int kb_history_changes(const kb_history_opts *o)
{
    sqlite3 *db;
    int rc = kb_history_open(VERB, o->db, false, &db);
    if (rc)
        return rc;
    kb_history_analysis a;
    rc = kb_history_analyse(VERB, db, o, &a);
    sqlite3_close(db);
    if (rc)
        return rc;
    print_table(stdout, &a, o);
    if (o->json) {
        char *s = changes_json(&a, o), err[1024];
        if (!s || kb_write_atomic(o->json, s, strlen(s), err, sizeof err)) {
            fprintf(stderr, "kbench " VERB ": %s\n", s ? err : "out of memory");
            free(s);
            kb_history_analysis_free(&a);
            return KB_EXIT_RUNTIME;
        }
        free(s);
    }
    bool regression = false;
    for (long i = 0; i < a.nchanges; i++)
        regression |= a.changes[i].regression;
    rc = (o->fail_on == KB_FAIL_ON_ANY && a.nchanges > 0) ||
                 (o->fail_on == KB_FAIL_ON_REGRESSION && regression)
             ? KB_EXIT_VALIDATION
             : KB_EXIT_OK;
    kb_history_analysis_free(&a);
    return rc;
}
