/* history_series.c - the series a query selects read from the database,
 * and their change points judged and explained (history.h). */
#define _GNU_SOURCE   /* strdup */
#include "history/history.h"
#include "drivers/common/exit_codes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kb_history_metric_names[] = {"median", "gflops", "pct_of_roof", NULL};

/* The column of each metric, and whether a larger value is better. */
static const struct {
    const char *column;
    bool higher_better;
} metrics[] = {
    [KB_METRIC_MEDIAN] = {"median", false},
    [KB_METRIC_GFLOPS] = {"gflops", true},
    [KB_METRIC_PCT_OF_ROOF] = {"pct_of_roof", true},
};

static void series_free(kb_history_series *s)
{
    free(s->node);
    free(s->backend);
    free(s->case_key);
    free(s->model);
    free(s->run);
    free(s->time);
    free(s->value);
}

void kb_history_analysis_free(kb_history_analysis *a)
{
    for (long i = 0; i < a->nseries; i++)
        series_free(&a->series[i]);
    for (long i = 0; i < a->nchanges; i++)
        free(a->changes[i].event_text);
    free(a->series);
    free(a->changes);
    memset(a, 0, sizeof *a);
}

/* Appends a point; 0, or -1 when out of memory. */
static int push_point(kb_history_series *s, long *cap, sqlite3_int64 run,
                      const char *time, double v)
{
    if (s->n == *cap) {
        long nc = *cap ? 2 * *cap : 64;
        sqlite3_int64 *r = realloc(s->run, (size_t)nc * sizeof *r);
        if (r)
            s->run = r;
        char(*t)[21] = realloc(s->time, (size_t)nc * sizeof *t);
        if (t)
            s->time = t;
        double *x = realloc(s->value, (size_t)nc * sizeof *x);
        if (x)
            s->value = x;
        if (!r || !t || !x)
            return -1;
        *cap = nc;
    }
    s->run[s->n] = run;
    snprintf(s->time[s->n], 21, "%s", time);
    s->value[s->n++] = v;
    return 0;
}

/* The nearest event at or before the change's first run, for the whole
 * site or the series' node, and after the first run of the segment
 * before it (from), so that an event already followed by a change (or
 * older than the series) does not explain this one too. */
static void find_event(sqlite3 *db, kb_history_change *c, long from)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT time, text FROM events WHERE time <= ?1 AND"
                               " time > ?3 AND (node IS NULL OR node = ?2)"
                               " ORDER BY time DESC, id DESC LIMIT 1", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, c->series->time[c->cp.index], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, c->series->node, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, c->series->time[from], -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(c->event_time, sizeof c->event_time, "%s", sqlite3_column_text(st, 0));
        c->event_text = strdup((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
}

/* Worst first: regressions before improvements, then the larger change. */
static int worst_first(const void *pa, const void *pb)
{
    const kb_history_change *a = pa, *b = pb;
    if (a->regression != b->regression)
        return a->regression ? -1 : 1;
    double ma = kb_change_magnitude(&a->cp), mb = kb_change_magnitude(&b->cp);
    return ma > mb ? -1 : ma < mb;
}

/* The change points of every series into a->changes.  0, or -1 when out
 * of memory. */
static int find_changes(sqlite3 *db, const kb_history_opts *o, kb_history_analysis *a)
{
    long cap = 0;
    for (long i = 0; i < a->nseries; i++) {
        const kb_history_series *s = &a->series[i];
        kb_change_point *cp;
        long n = kb_edivisive_changes(s->value, s->n, (long)o->window, o->p,
                                      o->min_magnitude, &cp);
        if (n < 0)
            return -1;
        if (a->nchanges + n > cap) {
            cap = 2 * (a->nchanges + n);
            kb_history_change *c = realloc(a->changes, (size_t)cap * sizeof *c);
            if (!c) {
                free(cp);
                return -1;
            }
            a->changes = c;
        }
        for (long k = 0; k < n; k++) {
            kb_history_change *c = &a->changes[a->nchanges++];
            memset(c, 0, sizeof *c);
            c->series = s;
            c->cp = cp[k];
            bool up = cp[k].mean_after > cp[k].mean_before;
            c->regression = up != metrics[o->metric].higher_better;
            find_event(db, c, k ? cp[k - 1].index : 0);
        }
        free(cp);
    }
    if (a->nchanges)
        qsort(a->changes, (size_t)a->nchanges, sizeof *a->changes, worst_first);
    return 0;
}

/* The points of every selected series, in series then time order: a
 * run's several cases of one key (a layer repeated in a model) count as
 * one point, their mean. */
static int read_series(const char *verb, sqlite3 *db, const kb_history_opts *o,
                       const char *since, const char *until, kb_history_analysis *a)
{
    char sql[1024];
    const char *col = metrics[o->metric].column;
    snprintf(sql, sizeof sql,
             "SELECT r.node, c.backend, c.case_key, r.id, r.time, avg(c.%s), min(c.model)"
             " FROM cases c JOIN runs r ON r.id = c.run_id"
             " WHERE c.%s IS NOT NULL AND (?1 IS NULL OR r.time >= ?1)"
             " AND (?2 IS NULL OR r.time <= ?2) AND (?3 IS NULL OR r.node = ?3)"
             " AND (?4 IS NULL OR c.backend = ?4) AND (?5 IS NULL OR c.model = ?5)"
             " AND (?6 IS NULL OR c.case_key = ?6)"
             " GROUP BY r.node, c.backend, c.case_key, r.id"
             " ORDER BY r.node, c.backend, c.case_key, r.time, r.id", col, col);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "kbench %s: %s: %s\n", verb, o->db, sqlite3_errmsg(db));
        return KB_EXIT_RUNTIME;
    }
    const char *binds[] = {since, until, o->node, o->backend, o->model, o->case_key};
    for (int i = 0; i < 6; i++)
        sqlite3_bind_text(st, i + 1, binds[i], -1, SQLITE_STATIC);
    long scap = 0, pcap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *node = (const char *)sqlite3_column_text(st, 0);
        const char *backend = (const char *)sqlite3_column_text(st, 1);
        const char *key = (const char *)sqlite3_column_text(st, 2);
        kb_history_series *s = a->nseries ? &a->series[a->nseries - 1] : NULL;
        if (!s || strcmp(s->node, node) || strcmp(s->backend, backend) ||
            strcmp(s->case_key, key)) {
            if (a->nseries == scap) {
                scap = scap ? 2 * scap : 64;
                kb_history_series *ns = realloc(a->series, (size_t)scap * sizeof *ns);
                if (!ns) {
                    rc = -1;
                    break;
                }
                a->series = ns;
            }
            s = &a->series[a->nseries++];
            memset(s, 0, sizeof *s);
            pcap = 0;
            s->node = strdup(node);
            s->backend = strdup(backend);
            s->case_key = strdup(key);
            s->model = strdup((const char *)sqlite3_column_text(st, 6));
            if (!s->node || !s->backend || !s->case_key || !s->model) {
                rc = -1;
                break;
            }
        }
        rc = push_point(s, &pcap, sqlite3_column_int64(st, 3),
                        (const char *)sqlite3_column_text(st, 4),
                        sqlite3_column_double(st, 5));
    }
    sqlite3_finalize(st);
    if (rc) {
        fprintf(stderr, "kbench %s: out of memory reading the series\n", verb);
        return KB_EXIT_RUNTIME;
    }
    if (step != SQLITE_DONE) {
        fprintf(stderr, "kbench %s: %s: %s\n", verb, o->db, sqlite3_errmsg(db));
        return KB_EXIT_RUNTIME;
    }
    return 0;
}

int kb_history_analyse(const char *verb, sqlite3 *db, const kb_history_opts *o,
                       kb_history_analysis *a)
{
    memset(a, 0, sizeof *a);
    char since[21], until[21];
    if (o->since && kb_history_time(o->since, since)) {
        fprintf(stderr, "kbench %s: --since '%s': expected an ISO 8601 UTC time\n",
                verb, o->since);
        return KB_EXIT_USAGE;
    }
    if (o->until && kb_history_time(o->until, until)) {
        fprintf(stderr, "kbench %s: --until '%s': expected an ISO 8601 UTC time\n",
                verb, o->until);
        return KB_EXIT_USAGE;
    }
    /* one read transaction: the series and events of one moment */
    if (kb_history_exec(verb, db, "BEGIN"))
        return KB_EXIT_RUNTIME;
    int rc = read_series(verb, db, o, o->since ? since : NULL, o->until ? until : NULL, a);
    if (rc == 0 && find_changes(db, o, a)) {
        fprintf(stderr, "kbench %s: out of memory finding change points\n", verb);
        rc = KB_EXIT_RUNTIME;
    }
    kb_history_exec(verb, db, "COMMIT");
    if (rc)
        kb_history_analysis_free(a);
    return rc;
}
