/* history_export.c - `kbench history export`: the whole database back out
 * as JSON Lines, so that nothing is locked in: a history_run record a run
 * (its file's run record, note and tags), then a history_case record for
 * each case record of its file and a history_record record for each other
 * record (summary, training steps), and a history_event record an event. */
#define _GNU_SOURCE   /* open_memstream */
#include "history/history.h"
#include "drivers/common/atomic_file.h"
#include "drivers/common/exit_codes.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* The run's file, inflated from columns (file_bytes, file_z) at i, into
 * new memory (NUL-ended); NULL when out of memory or it does not inflate
 * (a database edited by hand). */
static char *stored_file(sqlite3_stmt *st, int i)
{
    uLongf len = (uLongf)sqlite3_column_int64(st, i);
    char *text = malloc(len + 1);
    if (!text)
        return NULL;
    const void *z = sqlite3_column_blob(st, i + 1);
    if (uncompress((Bytef *)text, &len, z, (uLong)sqlite3_column_bytes(st, i + 1)) != Z_OK) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* A run: its history_run record (with the file's run record), then a
 * history_case record a case record of the file and a history_record
 * record for each other one (summary, training steps).  0, or -1. */
static int export_run(FILE *out, sqlite3_stmt *st, sqlite3_stmt *tags)
{
    static const char *const names[] = {"hash", "path", "time", "node", "note", "added"};
    sqlite3_int64 id = sqlite3_column_int64(st, 0);
    char *text = stored_file(st, 7);
    if (!text)
        return -1;
    cJSON *r = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "type", "history_run");
    cJSON_AddNumberToObject(r, "id", (double)id);
    for (int i = 0; i < 6; i++)
        cJSON_AddItemToObject(r, names[i], text_or_null(st, i + 1));
    sqlite3_reset(tags);
    sqlite3_bind_int64(tags, 1, id);
    while (sqlite3_step(tags) == SQLITE_ROW)
        cJSON_AddStringToObject(t, (const char *)sqlite3_column_text(tags, 0),
                                (const char *)sqlite3_column_text(tags, 1));
    cJSON_AddItemToObject(r, "tags", t);
    char *save, *line = strtok_r(text, "\n", &save);
    cJSON *run = line ? cJSON_Parse(line) : NULL;
    cJSON_AddItemToObject(r, "run", run ? run : cJSON_CreateNull());
    int rc = emit(out, r);
    while (rc == 0 && (line = strtok_r(NULL, "\n", &save))) {
        cJSON *rec = cJSON_Parse(line);
        if (!rec)
            continue;   /* the reader accepted only whole lines; none here */
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "type"));
        bool is_case = type && strcmp(type, "case") == 0;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "type", is_case ? "history_case" : "history_record");
        cJSON_AddNumberToObject(e, "run_id", (double)id);
        cJSON_AddItemToObject(e, is_case ? "case" : "record", rec);
        rc = emit(out, e);
    }
    free(text);
    return rc;
}

static int export_runs(sqlite3 *db, FILE *out)
{
    sqlite3_stmt *st, *tags;
    if (sqlite3_prepare_v2(db, "SELECT id, hash, path, time, node, note, added,"
                               " file_bytes, file_z FROM runs ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM tags WHERE run_id = ? ORDER BY key",
                           -1, &tags, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = export_run(out, st, tags);
    sqlite3_finalize(tags);
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
