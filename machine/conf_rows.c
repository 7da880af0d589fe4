/* conf_rows.c - the row reader of kbench's whitespace tables (conf_rows.h). */
#include "machine/conf_rows.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Longest row a table may have (the tables' own rows are < 120). */
#define LINE_MAX_BYTES 512
#define COLS_MAX 32

int kb_conf_rows(const char *path, int max, kb_conf_row_fn row, void *ctx,
                 char *why, size_t len)
{
    if (max < 1 || max >= COLS_MAX) {
        snprintf(why, len, "%s: a table of %d columns (1 to %d)", path, max,
                 COLS_MAX - 1);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char line[LINE_MAX_BYTES], where[4200];
    char *col[COLS_MAX];
    int rc = 0;
    for (int lineno = 1; rc == 0 && fgets(line, sizeof line, f); lineno++) {
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        int n = 0;
        char *save = NULL;
        /* one past max, so that a row with too many columns is seen */
        for (char *t = strtok_r(s, " \t\n", &save); t && n <= max;
             t = strtok_r(NULL, " \t\n", &save))
            col[n++] = t;
        rc = row(col, n, where, ctx, why, len);
    }
    fclose(f);
    return rc;
}

void kb_conf_glob_name(const char *name, char *dst, size_t len)
{
    snprintf(dst, len, "%s", name);
    for (char *c = dst; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
}
