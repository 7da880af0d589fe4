/* history_db.c - the history database opened, created and checked
 * (history.h). */
#include "history/history.h"
#include "drivers/common/exit_codes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The tables.  A run is one results file, kept whole and deflated (zlib)
 * for export, its hash keeping it once; its cases hold the figures the
 * series follow (about 0.3 KiB a case with the file's share); events are
 * known changes of the system, for the whole site (node NULL) or one node
 * a row. */
static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS metadata(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, path TEXT NOT NULL,"
    " time TEXT NOT NULL, node TEXT NOT NULL, kbench_version TEXT,"
    " git_commit TEXT, note TEXT, added TEXT NOT NULL, file_bytes INTEGER NOT NULL,"
    " file_z BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS runs_time ON runs(time);"
    "CREATE TABLE IF NOT EXISTS tags("
    " run_id INTEGER NOT NULL REFERENCES runs(id), key TEXT NOT NULL,"
    " value TEXT NOT NULL, PRIMARY KEY(run_id, key));"
    "CREATE TABLE IF NOT EXISTS cases("
    " run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"
    " case_key TEXT NOT NULL, backend TEXT NOT NULL, model TEXT NOT NULL,"
    " status TEXT NOT NULL, median REAL, gflops REAL, pct_of_roof REAL,"
    " PRIMARY KEY(run_id, seq)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS cases_series ON cases(case_key, backend);"
    "CREATE TABLE IF NOT EXISTS events("
    " id INTEGER PRIMARY KEY, time TEXT NOT NULL, text TEXT NOT NULL, node TEXT);";

int kb_history_exec(const char *verb, sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    fprintf(stderr, "kbench %s: %s: %s\n", verb, sqlite3_db_filename(db, "main"),
            msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

/* The schema version the file holds: 0 for an empty file (no metadata
 * table yet), -1 after a message when it is not a kbench database. */
static long stored_version(const char *verb, const char *path, sqlite3 *db)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "kbench %s: %s: not a kbench history database (%s)\n",
                verb, path, sqlite3_errmsg(db));
        return -1;
    }
    rc = sqlite3_step(st);
    long tables = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    if (tables < 0) {
        fprintf(stderr, "kbench %s: %s: not a kbench history database (%s)\n",
                verb, path, sqlite3_errmsg(db));
        return -1;
    }
    if (tables == 0)
        return 0;
    rc = sqlite3_prepare_v2(db, "SELECT value FROM metadata WHERE key = 'schema_version'",
                            -1, &st, NULL);
    long version = -1;
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (version < 1)
        fprintf(stderr, "kbench %s: %s: not a kbench history database (no "
                        "schema_version in a metadata table)\n", verb, path);
    return version;
}

int kb_history_open(const char *verb, const char *path, bool create, sqlite3 **out)
{
    *out = NULL;
    sqlite3 *db;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        fprintf(stderr, "kbench %s: %s: cannot open (%s)\n", verb, path,
                db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return KB_EXIT_USAGE;
    }
    /* Writers on other nodes wait their turn rather than fail with
     * "database is locked". */
    sqlite3_busy_timeout(db, 60000);
    long version = stored_version(verb, path, db);
    int rc = KB_EXIT_USAGE;
    if (version < 0)
        goto err;
    if (version > KB_HISTORY_SCHEMA) {
        fprintf(stderr, "kbench %s: %s: schema version %ld was written by a "
                        "newer kbench; this one reads schema version %d\n",
                verb, path, version, KB_HISTORY_SCHEMA);
        goto err;
    }
    rc = KB_EXIT_RUNTIME;
    /* WAL lets readers go on while one node writes; where the filesystem
     * cannot share memory (some network filesystems) SQLite keeps its
     * rollback journal, which still locks correctly where locks work.
     * Switching a new file to WAL takes an exclusive lock that SQLite does
     * not wait for through the busy handler (16 adds creating one file at
     * once: "database is locked" in 2 of 30 tries), so it is retried
     * here, within the same minute. */
    int wal, waited_ms = 0;
    while ((wal = sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL)) ==
               SQLITE_BUSY && waited_ms < 60000) {
        sqlite3_sleep(10);
        waited_ms += 10;
    }
    if (wal != SQLITE_OK) {
        fprintf(stderr, "kbench %s: %s: %s\n", verb, path, sqlite3_errmsg(db));
        goto err;
    }
    if (version == 0) {
        char sql[sizeof schema_sql + 160];
        snprintf(sql, sizeof sql,
                 "BEGIN IMMEDIATE;%s"
                 "INSERT OR IGNORE INTO metadata VALUES('schema_version', '%d');"
                 "COMMIT;", schema_sql, KB_HISTORY_SCHEMA);
        if (kb_history_exec(verb, db, sql))
            goto err;
    }
    *out = db;
    return 0;
err:
    sqlite3_close(db);
    return rc;
}

/* Days in month m (1-12) of year y. */
static int month_days(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

int kb_history_time(const char *text, char iso[21])
{
    int y, mo, d, h = 0, mi = 0, s = 0, used = 0;
    if (!text || sscanf(text, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 || used != 10)
        return -1;
    const char *p = text + used;
    if (*p == 'T' || *p == ' ') {
        int n = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
            return -1;
        p += 1 + n;
        if (*p == ':') {
            if (sscanf(p + 1, "%2d%n", &s, &n) != 1 || n != 2)
                return -1;
            p += 1 + n;
        }
        if (*p == 'Z')
            p++;
    }
    if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) ||
        h > 23 || mi > 59 || s > 60 || h < 0 || mi < 0 || s < 0)
        return -1;
    /* every field is in range here, so the 20 characters fit */
    char buf[64];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, s);
    memcpy(iso, buf, 21);
    return 0;
}
