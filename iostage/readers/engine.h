/* engine.h - reader engines (readers*.c): pread, mmap, io_uring, and
 * the open that asks for O_DIRECT. */
#ifndef KB_IO_READERS_ENGINE_H
#define KB_IO_READERS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    double *lat;            /* seconds per read request */
    size_t n, cap;
    uint64_t bytes;         /* bytes the reads returned */
} kb_io_lat;

/* Record one latency; returns 0 or KB_IO_ERROR when out of memory. */
int kb_io_lat_add(kb_io_lat *l, double seconds);

/* Told, as reads complete, how long the prefix of the buffer that has
 * fully arrived is: a reader verifies it while later requests (kernel
 * readahead, io_uring's queue) keep the device busy. */
typedef struct {
    void (*fn)(void *ctx, size_t ready);
    void *ctx;
} kb_io_progress;

typedef struct {
    const char *name;
    const char *missing;    /* why it is unavailable, or NULL */
    /* Why the engine cannot bypass the page cache whatever the open flags
     * (mmap), or NULL when O_DIRECT applies to its transfers. */
    const char *no_direct;
    /* The calls that move the data, named when one refuses O_DIRECT. */
    const char *read_call, *write_call;
    /* Per-thread state (an io_uring ring).  0 or KB_IO_ERROR. */
    int (*open)(void **state, unsigned depth, char *err, size_t len);
    /* Read bytes [0, size) of fd into buf (capacity size rounded up to
     * KB_IO_ALIGN), in requests of `chunk` bytes, reporting progress when
     * prog is not NULL.  Returns 0, or a negative errno (-EINVAL on an
     * O_DIRECT fd is the filesystem refusing O_DIRECT at transfer time:
     * the caller reads again buffered). */
    int (*read)(void *state, int fd, uint8_t *buf, size_t size, size_t chunk,
                kb_io_lat *lat, const kb_io_progress *prog, char *err,
                size_t len);
    /* Write buf[0, size) to fd from offset 0 (on an O_DIRECT fd, size a
     * multiple of KB_IO_ALIGN).  0 or a negative errno, -EINVAL as for
     * read. */
    int (*write)(void *state, int fd, const uint8_t *buf, size_t size,
                 size_t chunk, char *err, size_t len);
    void (*close)(void *state);
} kb_io_engine;

const kb_io_engine *kb_io_engine_find(const char *name);   /* NULL if none */
extern const kb_io_engine kb_io_engine_pread, kb_io_engine_mmap,
    kb_io_engine_uring;

/* Open path with `flags` (mode 0644 when creating), adding O_DIRECT when
 * *direct; a filesystem that refuses O_DIRECT at open (EINVAL, as tmpfs
 * before Linux 6.6) gets a buffered open and *direct cleared.  Returns
 * the fd or -1 with errno. */
int kb_io_open(const char *path, int flags, bool *direct);

#endif
