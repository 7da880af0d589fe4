/* history_export.c - `kbench history export`: the whole database back out
 * as JSON Lines, so that nothing is locked in: a history_run record a run
 * (its run record as stored, note and tags), a history_case record a case
 * (its case record as stored), a history_event record an event. */
#define _GNU_SOURCE   /* open_memstream */
#include "drivers/history/history.h"
#include "drivers/common/atomic_file.h"
#include "drivers/common/exit_codes.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#define VERB "history export"

/* Column i as a JSON string, or null. */
static cJSON *text_or_null(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? cJSON_CreateString((const char *)t) : cJSON_CreateNull();
}

/* One line onto out: rec printed, then freed.  0, or -1 (out of memory). */
static int emit(FILE *out, cJSON *rec)
{
    char *s = rec ? cJSON_PrintUnformatted(rec) : NULL;
    cJSON_Delete(rec);
    if (!s)
        return -1;
    fprintf(out, "%s\n", s);
    free(s);
    return 0;
}

/* The stored JSON text of column i, parsed (null when it does not parse,
 * which only a database edited by hand can hold). */
static cJSON *stored_json(sqlite3_stmt *st, int i)
{
    cJSON *j = cJSON_Parse((const char *)sqlite3_column_text(st, i));
    return j ? j : cJSON_CreateNull();
}

static int export_runs(sqlite3 *db, FILE *out)
{
    sqlite3_stmt *st, *tags;
    if (sqlite3_prepare_v2(db, "SELECT id, hash, path, time, node, note, added, run_json"
                               " FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM tags WHERE run_id = ? ORDER BY key",
                           -1, &tags, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *r = cJSON_CreateObject(), *t = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "type", "history_run");
        cJSON_AddNumberToObject(r, "id", (double)sqlite3_column_int64(st, 0));
        static const char *const names[] = {"hash", "path", "time", "node", "note", "added"};
        for (int i = 0; i < 6; i++)
            cJSON_AddItemToObject(r, names[i], text_or_null(st, i + 1));
        sqlite3_reset(tags);
        sqlite3_bind_int64(tags, 1, sqlite3_column_int64(st, 0));
        while (sqlite3_step(tags) == SQLITE_ROW)
            cJSON_AddStringToObject(t, (const char *)sqlite3_column_text(tags, 0),
                                    (const char *)sqlite3_column_text(tags, 1));
        cJSON_AddItemToObject(r, "tags", t);
        cJSON_AddItemToObject(r, "run", stored_json(st, 7));
        rc = emit(out, r);
    }
    sqlite3_finalize(tags);
    sqlite3_finalize(st);
    if (rc || step != SQLITE_DONE)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT run_id, case_json FROM cases ORDER BY run_id, seq",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "type", "history_case");
        cJSON_AddNumberToObject(c, "run_id", (double)sqlite3_column_int64(st, 0));
        cJSON_AddItemToObject(c, "case", stored_json(st, 1));
        rc = emit(out, c);
    }
    sqlite3_finalize(st);
    return rc || step != SQLITE_DONE ? -1 : 0;
}

static int export_events(sqlite3 *db, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT time, text, node FROM events ORDER BY time, id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "type", "history_event");
        cJSON_AddItemToObject(e, "time", text_or_null(st, 0));
        cJSON_AddItemToObject(e, "text", text_or_null(st, 1));
        cJSON_AddItemToObject(e, "node", text_or_null(st, 2));
        rc = emit(out, e);
    }
    sqlite3_finalize(st);
    return rc || step != SQLITE_DONE ? -1 : 0;
}

int kb_history_export(const kb_history_opts *o)
{
    sqlite3 *db;
    int rc = kb_history_open(VERB, o->db, false, &db);
    if (rc)
        return rc;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    rc = KB_EXIT_RUNTIME;
    /* one read transaction: a consistent copy while others write */
    if (!out || kb_history_exec(VERB, db, "BEGIN"))
        goto done;
    if (export_runs(db, out) || export_events(db, out)) {
        fprintf(stderr, "kbench " VERB ": %s: %s\n", o->db, sqlite3_errmsg(db));
        goto done;
    }
    kb_history_exec(VERB, db, "COMMIT");
    fclose(out);
    out = NULL;
    char err[1024];
    if (kb_write_atomic(o->jsonl, buf, len, err, sizeof err)) {
        fprintf(stderr, "kbench " VERB ": %s\n", err);
        goto done;
    }
    rc = KB_EXIT_OK;
done:
    if (out)
        fclose(out);
    free(buf);
    sqlite3_close(db);
    return rc;
}
