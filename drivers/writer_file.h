/* writer_file.h - helpers for writers that own a file (JSON Lines, CSV). */
#ifndef KB_WRITER_FILE_H
#define KB_WRITER_FILE_H

#include "drivers/record.h"

/* A writer with `path` open for writing and its entry points unset.
 * Returns NULL with err naming the path and the reason (cannot open, out
 * of memory; `what` names the writer in the latter). */
kb_writer *kb_writer_file_open(const char *path, const char *what, char *err,
                               size_t errlen);

/* The path given to kb_writer_file_open. */
const char *kb_writer_file_path(const kb_writer *w);

/* Flush.  Returns 0, or -1 after printing the path and errno's reason. */
int kb_writer_file_flush(kb_writer *w);

/* Close the file (reporting a failed close) and free w; NULL is fine. */
void kb_writer_file_close(kb_writer *w);

#endif
