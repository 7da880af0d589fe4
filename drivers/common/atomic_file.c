/* atomic_file.c - an output file written whole or not at all: a temporary
 * file beside it, flushed, then renamed over it (atomic_file.h). */
#define _GNU_SOURCE   /* fileno */
#include "drivers/common/atomic_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kb_write_atomic(const char *path, const char *data, size_t n, char *err,
                    size_t len)
{
    /* Same directory, so rename() never crosses a file system; the pid
     * keeps two concurrent writers from sharing one temporary. */
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) {
        snprintf(err, len, "%s: out of memory for a file name", path);
        return -1;
    }
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, len, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    bool ok = fwrite(data, 1, n, f) == n && fflush(f) == 0 &&
              fsync(fileno(f)) == 0;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}
