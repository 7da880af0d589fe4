/* readers_pread.c - the portable engine: blocking pread/pwrite, one request
 * of `chunk` bytes at a time per thread. */
#include "drivers/common/clock.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int pread_open(void **state, unsigned depth, char *err, size_t len)
{
    (void)depth, (void)err, (void)len;
    *state = NULL;
    return 0;
}

static int pread_read(void *state, int fd, uint8_t *buf, size_t size,
                      size_t chunk, kb_io_lat *lat, const kb_io_progress *prog,
                      char *err, size_t len)
{
    (void)state;
    size_t off = 0;
    while (off < size) {
        /* request whole aligned chunks (O_DIRECT); the file end makes the
         * last one short */
        double t0 = kb_now();
        size_t left = (size - off + KB_IO_ALIGN - 1) / KB_IO_ALIGN * KB_IO_ALIGN;
        ssize_t r = pread(fd, buf + off, left < chunk ? left : chunk,
                          (off_t)off);
        double t1 = kb_now();
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            snprintf(err, len, "offset %zu: pread failed: %s", off,
                     r < 0 ? strerror(e) : "unexpected end of file");
            return -e;
        }
        if (kb_io_lat_add(lat, t1 - t0)) {
            snprintf(err, len, "out of memory for latencies");
            return -ENOMEM;
        }
        lat->bytes += (uint64_t)r;
        off += (size_t)r;
        if (prog)
            prog->fn(prog->ctx, off);
    }
    return 0;
}

static int pread_write(void *state, int fd, const uint8_t *buf, size_t size,
                       size_t chunk, char *err, size_t len)
{
    (void)state;
    size_t off = 0;
    while (off < size) {
        size_t n = size - off < chunk ? size - off : chunk;
        ssize_t w = pwrite(fd, buf + off, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            snprintf(err, len, "offset %zu: pwrite failed: %s", off,
                     strerror(e));
            return -e;
        }
        off += (size_t)w;
    }
    return 0;
}

static void pread_close(void *state) { (void)state; }

const kb_io_engine kb_io_engine_pread = {
    .name = "pread",
    .read_call = "pread",
    .write_call = "pwrite",
    .open = pread_open,
    .read = pread_read,
    .write = pread_write,
    .close = pread_close,
};
