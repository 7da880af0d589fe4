/* history_add.c - `kbench history add`: results files checked whole
 * first, then stored in one transaction, each once (by content hash). */
#define _GNU_SOURCE   /* strndup */
#include "history/history.h"
#include "history/sha256.h"
#include "drivers/common/clock.h"
#include "drivers/common/exit_codes.h"
#include "drivers/results/results.h"

#include <math.h>
#include <stdio.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>

#define VERB "history add"

/* A file as read for storing: its bytes deflated, its hash, its time. */
typedef struct {
    size_t len;           /* the file's bytes */
    unsigned char *z;     /* deflated */
    uLongf zlen;
    char hash[65];
    char time[21];
} raw_file;

/* Reads path whole into r, hashed and deflated (zlib's fastest level:
 * deflate was a quarter of add's time at level 6, and a case record still
 * takes about 0.2 KiB).  0, or -1 after a message. */
static int read_raw(const char *path, raw_file *r)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "kbench " VERB ": %s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *t = realloc(text, 2 * cap);
            if (!t)
                free(text);
            text = t;
            cap *= 2;
        }
    }
    bool bad = ferror(f) || !text;
    fclose(f);
    if (bad) {
        free(text);
        fprintf(stderr, "kbench " VERB ": %s: cannot read\n", path);
        return -1;
    }
    kb_sha256_hex(text, n, r->hash);
    r->len = n;
    r->zlen = compressBound(n);
    r->z = malloc(r->zlen);
    int zrc = r->z ? compress2(r->z, &r->zlen, (const Bytef *)text, n, Z_BEST_SPEED) : Z_MEM_ERROR;
    free(text);
    if (zrc != Z_OK) {
        fprintf(stderr, "kbench " VERB ": %s: deflate failed (zlib %d)\n", path, zrc);
        return -1;
    }
    return 0;
}

/* Every --tag is KEY=VALUE with a key.  0, or -1 after a message. */
static int check_tags(const kb_strlist *tags)
{
    for (int i = 0; i < tags->n; i++) {
        const char *eq = strchr(tags->v[i], '=');
        if (!eq || eq == tags->v[i]) {
            fprintf(stderr, "kbench " VERB ": --tag '%s': expected KEY=VALUE\n",
                    tags->v[i]);
            return -1;
        }
    }
    return 0;
}

/* A prepared statement's value: text, or NULL for NAN. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* The cases of run run_id.  SQLITE_DONE, or SQLite's error. */
static int store_cases(sqlite3 *db, sqlite3_int64 run_id, const kb_result_file *f)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
        "INSERT INTO cases(run_id, seq, case_key, backend, model, status, median,"
        " gflops, pct_of_roof) VALUES(?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = SQLITE_DONE;
    for (size_t i = 0; rc == SQLITE_DONE && i < f->ncases; i++) {
        const kb_result_case *c = &f->cases[i];
        char key[KB_KEY_LEN];
        bool timed = kb_result_case_timed(c, false);
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, c->seq);
        sqlite3_bind_text(st, 3, kb_result_case_key(c, false, key, sizeof key), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, c->backend, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, c->model, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, c->status, -1, SQLITE_STATIC);
        bind_real(st, 7, timed ? c->median_s : NAN);
        bind_real(st, 8, timed ? c->gflops : NAN);
        bind_real(st, 9, timed ? c->roof_pct : NAN);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The run of file f, its tags and cases; *stored false when a file of
 * the same content was stored before.  SQLITE_DONE, or SQLite's error. */
static int store_run(sqlite3 *db, const kb_history_opts *o, const kb_result_file *f,
                     const raw_file *r, const char *added, bool *stored)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
        "INSERT OR IGNORE INTO runs(hash, path, time, node, kbench_version,"
        " git_commit, note, added, file_bytes, file_z) VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(f->run, "kbench_version");
    const cJSON *git = cJSON_GetObjectItemCaseSensitive(f->run, "git_commit");
    sqlite3_bind_text(st, 1, r->hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->time, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, f->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, cJSON_GetStringValue(ver), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, cJSON_GetStringValue(git), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, o->note, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, added, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)r->len);
    sqlite3_bind_blob64(st, 10, r->z, r->zlen, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    *stored = rc == SQLITE_DONE && sqlite3_changes(db) == 1;
    if (!*stored)
        return rc;
    sqlite3_int64 run_id = sqlite3_last_insert_rowid(db);
    rc = sqlite3_prepare_v2(db, "INSERT INTO tags VALUES(?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = SQLITE_DONE;
    for (int i = 0; rc == SQLITE_DONE && i < o->tags.n; i++) {
        const char *kv = o->tags.v[i], *eq = strchr(kv, '=');
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, kv, (int)(eq - kv), SQLITE_STATIC);
        sqlite3_bind_text(st, 3, eq + 1, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? store_cases(db, run_id, f) : rc;
}

/* Each file's raw text and time, after the reader accepted it.  0, or -1
 * after a message naming the file. */
static int prepare(kb_result_file *files, raw_file *raw, int n)
{
    for (int i = 0; i < n; i++) {
        if (read_raw(files[i].path, &raw[i]))
            return -1;
        const cJSON *date = cJSON_GetObjectItemCaseSensitive(files[i].run, "date");
        if (kb_history_time(cJSON_GetStringValue(date), raw[i].time)) {
            fprintf(stderr, "kbench " VERB ": %s:1: run date '%s' is not an ISO "
                            "8601 UTC time\n", files[i].path,
                    cJSON_IsString(date) ? date->valuestring : "(none)");
            return -1;
        }
    }
    return 0;
}

int kb_history_add(const kb_history_opts *o, int argc, char **argv)
{
    if (check_tags(&o->tags))
        return KB_EXIT_USAGE;
    kb_result_file *files = calloc((size_t)argc, sizeof *files);
    raw_file *raw = calloc((size_t)argc, sizeof *raw);
    if (!files || !raw) {
        free(files);
        free(raw);
        fprintf(stderr, "kbench " VERB ": out of memory\n");
        return KB_EXIT_RUNTIME;
    }
    int rc = KB_EXIT_USAGE;
    sqlite3 *db = NULL;
    if (kb_result_files_load(VERB, argv, argc, files)) {
        free(files);
        free(raw);
        return KB_EXIT_USAGE;
    }
    /* Everything is checked before the database is opened: a bad file
     * leaves it as it was (or absent). */
    if (prepare(files, raw, argc))
        goto done;
    rc = kb_history_open(VERB, o->db, true, &db);
    if (rc)
        goto done;
    rc = KB_EXIT_RUNTIME;
    if (kb_history_exec(VERB, db, "BEGIN IMMEDIATE"))
        goto done;
    char added[32];
    kb_utc_date(added, sizeof added);
    int stored = 0;
    for (int i = 0; i < argc; i++) {
        bool new_run;
        int src = store_run(db, o, &files[i], &raw[i], added, &new_run);
        if (src != SQLITE_DONE) {
            fprintf(stderr, "kbench " VERB ": %s: storing %s: %s\n", o->db,
                    files[i].path, sqlite3_errmsg(db));
            kb_history_exec(VERB, db, "ROLLBACK");
            goto done;
        }
        stored += new_run;
        if (!new_run)
            printf("%s: already stored (same content), skipped\n", files[i].path);
    }
    if (kb_history_exec(VERB, db, "COMMIT"))
        goto done;
    printf("%d run(s) stored in %s\n", stored, o->db);
    rc = KB_EXIT_OK;
done:
    sqlite3_close(db);
    for (int i = 0; i < argc; i++)
        free(raw[i].z);
    kb_result_files_free(files, argc);
    free(files);
    free(raw);
    return rc;
}
