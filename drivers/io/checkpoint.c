/* checkpoint.c - `kbench io checkpoint`: write a model-sized checkpoint
 * through an engine, read it back (evicted from the page cache first),
 * verify every byte, and report GB/s both ways. */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CKPT_CHUNK (4u << 20)

/* Pattern of the checkpoint: random words from the seed. */
static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    kb_io_fill_random(buf, n, kb_mix64(seed + 0xc4c4));
}

/* Write buf to path with the engine (+ fsync when asked).  Returns 0 or
 * KB_IO_ERROR with a message. */
static int write_ckpt(const kb_io_ckpt_opts *o, void *eng, const char *path,
                      const uint8_t *buf, size_t n, char *err, size_t len)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    char msg[KB_IO_ERRLEN];
    int rc = o->engine->write(eng, fd, buf, n, CKPT_CHUNK, msg, sizeof msg);
    if (rc)
        snprintf(err, len, "%s: %s", path, msg);
    else if (o->fsync && fsync(fd) < 0) {
        snprintf(err, len, "%s: fsync failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    if (close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    return rc ? KB_IO_ERROR : 0;
}

/* Read path back into buf and compare with want.  0, KB_IO_CORRUPT
 * naming the first differing offset, or KB_IO_ERROR. */
static int read_ckpt(const kb_io_ckpt_opts *o, void *eng, const char *path,
                     uint8_t *buf, const uint8_t *want, size_t n, char *err,
                     size_t len)
{
    bool direct = o->direct;
    int fd = kb_io_open_read(path, &direct);
    if (fd < 0) {
        snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    kb_io_lat lat = {0};
    char msg[KB_IO_ERRLEN];
    int rc = o->engine->read(eng, fd, buf, n, CKPT_CHUNK, &lat, NULL, msg,
                             sizeof msg);
    close(fd);
    free(lat.lat);
    if (rc == -EINVAL && direct) {
        /* O_DIRECT refused at transfer time: read buffered */
        kb_io_ckpt_opts buffered = *o;
        buffered.direct = false;
        return read_ckpt(&buffered, eng, path, buf, want, n, err, len);
    }
    if (rc) {
        snprintf(err, len, "%s: %s", path, msg);
        return KB_IO_ERROR;
    }
    if (lat.bytes != n) {
        snprintf(err, len, "%s: read %" PRIu64 " bytes, wrote %zu", path,
                 lat.bytes, n);
        return KB_IO_CORRUPT;
    }
    if (memcmp(buf, want, n) != 0) {
        size_t i = 0;
        while (buf[i] == want[i])
            i++;
        snprintf(err, len, "%s: offset %zu: read back differs from what was "
                 "written", path, i);
        return KB_IO_CORRUPT;
    }
    return 0;
}

int kb_io_checkpoint(const kb_io_ckpt_opts *o, char *err, size_t len)
{
    size_t n = (size_t)o->bytes;
    size_t cap = (n + KB_IO_ALIGN - 1) / KB_IO_ALIGN * KB_IO_ALIGN;
    size_t plen = strlen(o->dir) + 32;
    char *path = malloc(plen);
    uint8_t *src = aligned_alloc(KB_IO_ALIGN, cap);
    uint8_t *dst = aligned_alloc(KB_IO_ALIGN, cap);
    void *eng = NULL;
    int rc = KB_IO_ERROR;
    if (!path || !src || !dst) {
        snprintf(err, len, "out of memory for two %zu-byte checkpoint buffers",
                 n);
        goto out;
    }
    snprintf(path, plen, "%s/kbench-checkpoint.bin", o->dir);
    fill(src, n, o->seed);
    if (o->engine->open(&eng, 8, err, len))
        goto out;
    double t0 = kb_io_now();
    rc = write_ckpt(o, eng, path, src, n, err, len);
    double t1 = kb_io_now();
    if (rc)
        goto out;
    char *one[1] = {path};
    /* read from the device, not the page cache, where the kernel allows */
    rc = kb_io_evict(one, 1, err, len);
    char emsg[KB_IO_ERRLEN];
    double resident = kb_io_residency(one, 1, emsg, sizeof emsg);
    double t2 = kb_io_now();
    if (!rc)
        rc = read_ckpt(o, eng, path, dst, src, n, err, len);
    double t3 = kb_io_now();
    if (!rc)
        printf("checkpoint %zu bytes (%s%s%s): write %.3f GB/s (%.3f s), "
               "read %.3f GB/s (%.3f s), %.0f %% resident before the read, "
               "verified\n", n, o->engine->name, o->fsync ? ", fsync" : "",
               o->direct ? ", direct" : "", (double)n / (t1 - t0) / 1e9,
               t1 - t0, (double)n / (t3 - t2) / 1e9, t3 - t2,
               resident < 0 ? 0 : 100 * resident);
out:
    if (eng)
        o->engine->close(eng);
    if (path)
        unlink(path);
    free(path);
    free(src);
    free(dst);
    return rc;
}
