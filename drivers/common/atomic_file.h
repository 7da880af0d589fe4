/* atomic_file.h - an output file written whole or not at all, so that a
 * reader (a CI job, the next verb) never sees half of one. */
#ifndef KB_ATOMIC_FILE_H
#define KB_ATOMIC_FILE_H

#include <stddef.h>

/* Write data[n] to path through a temporary file in the same directory,
 * flushed to disk and renamed over path: readers see the old file or the
 * whole new one.  Returns 0, or -1 with err naming the file and the
 * reason; the temporary file is removed then. */
int kb_write_atomic(const char *path, const char *data, size_t n, char *err,
                    size_t len);

#endif
