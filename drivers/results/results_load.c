/* results_load.c - the result files a verb judges or merges, loaded and
 * refused the same way for every verb (results.h). */
#define _GNU_SOURCE   /* strdup */
#include "drivers/results/results.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *kb_result_case_key_dup(const kb_result_case *c)
{
    char buf[KB_KEY_LEN];
    return strdup(kb_result_case_key(c, true, buf, sizeof buf));
}

/* 0 when f can be judged; else -1 with "PATH:LINE: why" in err. */
static int judgeable(const kb_result_file *f, char *err, size_t len)
{
    if (f->ncases == 0) {
        snprintf(err, len, "%s:1: a run record and no case record: an empty "
                 "run, nothing to judge", f->path);
        return -1;
    }
    if (!f->complete) {
        snprintf(err, len, "%s:%ld: ends after this case without the summary "
                 "record: truncated, or the run was killed before it finished",
                 f->path, f->cases[f->ncases - 1].line);
        return -1;
    }
    return 0;
}

/* 0 when no two of paths[n] are one file (by device and inode, so
 * "a.jsonl" and "./a.jsonl" are caught); else -1 with err set.  A path
 * that cannot be stat'ed is left for the reader to report. */
static int distinct(char **paths, int n, char *err, size_t len)
{
    struct stat *st = calloc((size_t)n, sizeof *st);
    bool *ok = calloc((size_t)n, sizeof *ok);
    int rc = st && ok ? 0 : -1;
    if (rc)
        snprintf(err, len, "out of memory for %d file names", n);
    for (int i = 0; rc == 0 && i < n; i++) {
        ok[i] = stat(paths[i], &st[i]) == 0;
        for (int j = 0; ok[i] && rc == 0 && j < i; j++)
            if (ok[j] && st[j].st_dev == st[i].st_dev &&
                st[j].st_ino == st[i].st_ino) {
                snprintf(err, len, "%s:1: the same file as %s, given twice: a "
                         "node counted twice", paths[i], paths[j]);
                rc = -1;
            }
    }
    free(st);
    free(ok);
    return rc;
}

int kb_result_files_load(const char *verb, char **paths, int n,
                         kb_result_file *files)
{
    char err[1024];
    if (distinct(paths, n, err, sizeof err) != 0) {
        fprintf(stderr, "kbench %s: %s\n", verb, err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int rc = kb_result_file_load(paths[i], &files[i], err, sizeof err);
        if (rc == 0 && judgeable(&files[i], err, sizeof err) != 0) {
            kb_result_file_free(&files[i]);
            rc = -1;
        }
        if (rc != 0) {
            fprintf(stderr, "kbench %s: %s\n", verb, err);
            kb_result_files_free(files, i);
            return -1;
        }
    }
    return 0;
}

void kb_result_files_free(kb_result_file *files, int n)
{
    for (int i = 0; i < n; i++)
        kb_result_file_free(&files[i]);
}
