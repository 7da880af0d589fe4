/* history.h - `kbench history`: runs kept in one SQLite database
 * (docs/history.md), what its sub-verbs share: their options, the
 * database opened and checked, times in one form. */
#ifndef KB_HISTORY_H
#define KB_HISTORY_H

#include "drivers/common/options.h"
#include "history/edivisive.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

/* The database's layout (history_db.c); a database with a higher one was
 * written by a newer kbench and is refused. */
#define KB_HISTORY_SCHEMA 1

/* The figures a series can follow, and which way is better. */
typedef enum { KB_METRIC_MEDIAN, KB_METRIC_GFLOPS, KB_METRIC_PCT_OF_ROOF } kb_history_metric;
extern const char *const kb_history_metric_names[];   /* NULL-ended */

enum { KB_FAIL_ON_NONE, KB_FAIL_ON_REGRESSION, KB_FAIL_ON_ANY };

/* Every sub-verb's options, filled by the one parser (history_verb.c). */
typedef struct {
    const char *db;
    /* add */
    const char *note;
    kb_strlist tags;              /* KEY=VALUE */
    /* event */
    const char *at, *text;
    kb_strlist event_nodes;       /* none: the whole site */
    /* changes and show: which series */
    const char *since, *until, *node, *backend, *model, *case_key;
    int metric;                   /* kb_history_metric */
    double p;
    long long window;
    double min_magnitude;
    const char *json;
    int fail_on;
    /* export */
    const char *jsonl;
    /* show */
    const char *out;
} kb_history_opts;

/* Opens path for verb ("history add"): create makes the file and its
 * tables when missing; else a missing file is refused.  WAL journal where
 * the filesystem allows it and a busy timeout, so that many writers wait
 * for each other instead of failing.  A database whose schema is newer
 * than KB_HISTORY_SCHEMA is refused naming both.  Returns 0, or an exit
 * code (2: not a database, newer, missing; 3: SQLite failed) after a
 * message; *db is NULL then. */
int kb_history_open(const char *verb, const char *path, bool create, sqlite3 **db);

/* Runs sql (no results); 0, or -1 after "kbench VERB: PATH: sqlite's
 * message". */
int kb_history_exec(const char *verb, sqlite3 *db, const char *sql);

/* A time given on the command line or in a run record as ISO 8601 UTC
 * "YYYY-MM-DDTHH:MM:SSZ" into iso[21]: accepted are that form, without
 * the Z, with a space for the T, without seconds, or a date alone
 * (midnight).  Returns 0, or -1 when text is not such a time or names an
 * impossible date. */
int kb_history_time(const char *text, char iso[21]);

/* One series: a figure of one case on one backend of one node, a point a
 * run, in time order (history_series.c). */
typedef struct {
    char *node, *backend, *case_key, *model;
    long n;
    sqlite3_int64 *run;           /* the run of each point */
    char (*time)[21];             /* its time */
    double *value;                /* the figure */
} kb_history_series;

/* A change point of a series, judged for the metric's direction, with
 * the nearest earlier event (event_text NULL when none). */
typedef struct {
    const kb_history_series *series;
    kb_change_point cp;
    bool regression;
    char event_time[21];
    char *event_text;
} kb_history_change;

typedef struct {
    kb_history_series *series;
    long nseries;
    kb_history_change *changes;   /* worst first: regressions, then by
                                     magnitude, largest first */
    long nchanges;
} kb_history_analysis;

/* Every series o's filters select, and its change points (E-Divisive,
 * o->p, o->window, o->min_magnitude).  Returns 0, or an exit code after
 * a message (2: a malformed --since/--until). */
int kb_history_analyse(const char *verb, sqlite3 *db, const kb_history_opts *o,
                       kb_history_analysis *a);
void kb_history_analysis_free(kb_history_analysis *a);

/* The sub-verbs (history_add.c, history_event.c, history_export.c,
 * history_changes.c, history_show.c): an exit code, after a message when not 0. */
int kb_history_add(const kb_history_opts *o, int argc, char **argv);
int kb_history_event(const kb_history_opts *o);
int kb_history_export(const kb_history_opts *o);
int kb_history_changes(const kb_history_opts *o);
int kb_history_show(const kb_history_opts *o);

#endif
