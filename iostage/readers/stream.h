/* stream.h - a reader's pread thread (stream.c): it reads the files it is
 * handed, one after another, in requests of `chunk` bytes with one
 * request in flight (as fio's psync job), into a pool of reused buffers
 * that the reader's own thread takes, verifies and gives back.  The disk
 * is kept busy while that thread walks records, shuffles and delivers a
 * file, and a file's bytes pass through a few MiB that stay in cache
 * instead of a buffer the size of the file. */
#ifndef KB_IO_READERS_STREAM_H
#define KB_IO_READERS_STREAM_H

#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How far the pread thread may read ahead of its reader (bytes of chunk
 * buffers: at ~1 GB/s, a file's shuffle and delivery), and the room
 * before each buffer for a cut record. */
#define KB_IO_STREAM_AHEAD (64u << 20)
#define KB_IO_STREAM_ROOM (64u << 10)

typedef enum {
    KB_IO_CHUNK_DATA,      /* bytes of the file at `off` */
    KB_IO_CHUNK_RESTART,   /* O_DIRECT was refused at a read: the file is
                            * read again buffered from offset 0, forget
                            * what came of it */
    KB_IO_CHUNK_END,       /* the file is read whole: `off` is its size */
    KB_IO_CHUNK_ERROR      /* reading it failed: err; nothing follows */
} kb_io_chunk_kind;

typedef struct {
    kb_io_chunk_kind kind;
    int64_t tag;           /* the file, as the source named it */
    const char *path;
    uint64_t off;
    uint8_t *data;         /* DATA: n bytes, with `room` writable bytes
                            * before data (to join a record cut by the
                            * chunk boundary) */
    size_t n, room;
    bool direct;           /* END: it was read with O_DIRECT */
    char err[KB_IO_ERRLEN];
    unsigned slot;
} kb_io_chunk;

/* Where the files come from; called from the pread thread. */
typedef struct {
    /* The next file: false when there is none (or the run stops). */
    bool (*next)(void *ctx, int64_t *tag, const char **path);
    /* Whether reads still ask for O_DIRECT. */
    bool (*want_direct)(void *ctx);
    /* O_DIRECT was refused at "open" or "read" on path, for `why`. */
    void (*refused)(void *ctx, const char *at, const char *path,
                    const char *why);
    void *ctx;
} kb_io_stream_src;

typedef struct kb_io_stream kb_io_stream;

/* A pool of nslots buffers of chunk bytes (and `room` before each, a
 * multiple of KB_IO_ALIGN), kept from epoch to epoch.  NULL when out of
 * memory. */
kb_io_stream *kb_io_stream_new(size_t chunk, unsigned nslots, size_t room);
/* Start the pread thread over src; its request latencies and bytes go to
 * lat (read after kb_io_stream_join).  0 or KB_IO_ERROR. */
int kb_io_stream_start(kb_io_stream *s, const kb_io_stream_src *src,
                       kb_io_lat *lat);
/* The next chunk in order, or NULL when the thread has nothing more (no
 * file left, an error sent, or stopped).  Give every chunk back. */
kb_io_chunk *kb_io_stream_get(kb_io_stream *s);
void kb_io_stream_put(kb_io_stream *s, kb_io_chunk *c);
/* Stop the thread (it ends its request in flight) and wait for it. */
void kb_io_stream_join(kb_io_stream *s);
void kb_io_stream_free(kb_io_stream *s);

#endif
