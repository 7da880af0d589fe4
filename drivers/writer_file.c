/* writer_file.c - what the file-backed writers (JSON Lines, CSV) share:
 * opening the file, keeping its path for messages, flushing, closing. */
#include "drivers/writer_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

kb_writer *kb_writer_file_open(const char *path, const char *what, char *err,
                               size_t errlen)
{
    kb_writer *w = calloc(1, sizeof *w);
    char *copy = strdup(path);
    if (!w || !copy) {
        snprintf(err, errlen, "%s: out of memory for the %s writer", path, what);
        goto fail;
    }
    w->out = fopen(path, "w");
    if (!w->out) {
        snprintf(err, errlen, "cannot open %s for writing: %s", path, strerror(errno));
        goto fail;
    }
    w->state = copy;
    return w;
fail:
    free(copy);
    free(w);
    return NULL;
}

const char *kb_writer_file_path(const kb_writer *w)
{
    return w->state;
}

int kb_writer_file_flush(kb_writer *w)
{
    if (ferror(w->out) || fflush(w->out) != 0) {
        fprintf(stderr, "kbench: cannot write %s: %s\n", kb_writer_file_path(w),
                strerror(errno));
        return -1;
    }
    return 0;
}

void kb_writer_file_close(kb_writer *w)
{
    if (!w)
        return;
    if (w->out && fclose(w->out) != 0)
        fprintf(stderr, "kbench: closing %s: %s\n", kb_writer_file_path(w),
                strerror(errno));
    free(w->state);
    free(w);
}
