/* readers_mmap.c - the mmap engine: map the file and copy it out chunk by
 * chunk, so page faults are what is timed and every byte is touched. */
#include "drivers/common/clock.h"
#include "iostage/readers/engine.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int mmap_open(void **state, unsigned depth, char *err, size_t len)
{
    (void)depth, (void)err, (void)len;
    *state = NULL;
    return 0;
}

static int mmap_read(void *state, int fd, uint8_t *buf, size_t size,
                     size_t chunk, kb_io_lat *lat, const kb_io_progress *prog,
                     char *err, size_t len)
{
    (void)state;
    if (size == 0)
        return 0;
    uint8_t *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        snprintf(err, len, "mmap of %zu bytes failed: %s", size, strerror(e));
        return -e;
    }
    madvise(m, size, MADV_SEQUENTIAL);
    for (size_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        double t0 = kb_now();
        memcpy(buf + off, m + off, n);
        if (kb_io_lat_add(lat, kb_now() - t0)) {
            munmap(m, size);
            snprintf(err, len, "out of memory for latencies");
            return -ENOMEM;
        }
        lat->bytes += n;
        if (prog)
            prog->fn(prog->ctx, off + n);
    }
    munmap(m, size);
    return 0;
}

static int mmap_write(void *state, int fd, const uint8_t *buf, size_t size,
                      size_t chunk, char *err, size_t len)
{
    (void)state, (void)chunk;
    if (size == 0)
        return 0;
    if (ftruncate(fd, (off_t)size) < 0) {
        int e = errno;
        snprintf(err, len, "ftruncate to %zu bytes failed: %s", size,
                 strerror(e));
        return -e;
    }
    uint8_t *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        snprintf(err, len, "mmap of %zu bytes failed: %s", size, strerror(e));
        return -e;
    }
    memcpy(m, buf, size);
    int rc = msync(m, size, MS_ASYNC) < 0 ? -errno : 0;
    munmap(m, size);
    if (rc)
        snprintf(err, len, "msync failed: %s", strerror(-rc));
    return rc;
}

static void mmap_close(void *state) { (void)state; }

const kb_io_engine kb_io_engine_mmap = {
    .name = "mmap",
    /* page faults fill the page cache; O_DIRECT on the fd changes nothing */
    .no_direct = "mmap reads and writes through the page cache",
    .read_call = "mmap",
    .write_call = "mmap",
    .open = mmap_open,
    .read = mmap_read,
    .write = mmap_write,
    .close = mmap_close,
};
