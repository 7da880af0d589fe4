/* direct.h - how a request for O_DIRECT fared (direct.c). */
#ifndef KB_IO_READERS_DIRECT_H
#define KB_IO_READERS_DIRECT_H

#include "iostage/stage.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One per direction: the run's reads, the checkpoint's write and read.
 * Only the first refusal is kept: after it the direction is buffered. */
typedef struct {
    const char *at;         /* NULL, or where it was refused: "engine"
                             * (mmap), "open", "read" or "write" */
    const char *call;       /* the call that refused: "open", "pread",
                             * "io_uring read", "mmap", ... */
    char file[256];
    char reason[KB_IO_ERRLEN];
} kb_io_direct;

/* Record a refusal unless one is already recorded; returns whether this
 * one was the first.  Cannot fail (long strings are cut). */
bool kb_io_direct_refuse(kb_io_direct *d, const char *at, const char *call,
                         const char *file, const char *reason);
/* Add "<prefix>_refused" (bool) and "<prefix>_refused_at", "_call",
 * "_file", "_reason", "<prefix>_fallback" (null when not refused) to o;
 * `fallback` names what was done instead.  0, or -1 out of memory. */
struct cJSON;
int kb_io_direct_json(const kb_io_direct *d, const char *prefix,
                      const char *fallback, struct cJSON *o);
/* "O_DIRECT refused at read by pread (FILE: REASON)" into buf, for a d
 * that holds a refusal. */
void kb_io_direct_describe(const kb_io_direct *d, char *buf, size_t len);

#endif
