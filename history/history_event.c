/* history_event.c - `kbench history event`: a known change of the system
 * (an upgrade, a BIOS or driver change), for the whole site or for the
 * nodes named, checked before anything is written. */
#include "history/history.h"
#include "drivers/common/exit_codes.h"

#include <stdio.h>

#define VERB "history event"

int kb_history_event(const kb_history_opts *o)
{
    char at[21];
    if (!o->at || kb_history_time(o->at, at)) {
        fprintf(stderr, "kbench " VERB ": --at '%s': expected an ISO 8601 UTC "
                        "time (2026-11-30T07:04:35Z, or a date)\n",
                o->at ? o->at : "");
        return KB_EXIT_USAGE;
    }
    if (!o->text || !o->text[0]) {
        fprintf(stderr, "kbench " VERB ": --text: the change is needed\n");
        return KB_EXIT_USAGE;
    }
    sqlite3 *db;
    int rc = kb_history_open(VERB, o->db, true, &db);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = KB_EXIT_RUNTIME;
    if (kb_history_exec(VERB, db, "BEGIN IMMEDIATE"))
        goto done;
    int sq = sqlite3_prepare_v2(db, "INSERT INTO events(time, text, node) VALUES(?,?,?)",
                                -1, &st, NULL);
    /* one row a node, or one with no node for the whole site */
    int rows = o->event_nodes.n ? o->event_nodes.n : 1;
    for (int i = 0; sq == SQLITE_OK && i < rows; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, at, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, o->text, -1, SQLITE_STATIC);
        if (o->event_nodes.n)
            sqlite3_bind_text(st, 3, o->event_nodes.v[i], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 3);
        sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    if (sq != SQLITE_OK) {
        fprintf(stderr, "kbench " VERB ": %s: %s\n", o->db, sqlite3_errmsg(db));
        kb_history_exec(VERB, db, "ROLLBACK");
        goto done;
    }
    if (kb_history_exec(VERB, db, "COMMIT"))
        goto done;
    rc = KB_EXIT_OK;
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}
