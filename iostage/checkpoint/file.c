/* file.c - one checkpoint file written or read back through an engine,
 * timed from open to close, O_DIRECT where the filesystem allows it and
 * the mode it really ran in recorded: the bottom of the checkpoint code. */
#include "drivers/common/clock.h"
#include "iostage/checkpoint/file.h"
#include "iostage/checkpoint/options.h"
#include "iostage/readers/direct.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#define CKPT_CHUNK (4u << 20)

size_t kb_io_ckpt_round_up(size_t n)
{
    return (n + KB_IO_ALIGN - 1) / KB_IO_ALIGN * KB_IO_ALIGN;
}

/* Write buf[0, n) to path, timed from the open to the close.  buf holds
 * kb_io_ckpt_round_up(n) bytes, zero past n: with O_DIRECT the whole
 * blocks are written and the file truncated back to n.  Where O_DIRECT is
 * refused (at open, or EINVAL from the write) the write is done again
 * buffered and fsync'd inside the window, so the figure is still the
 * device's.  With --fsync, fsync inside the window too.  0 or KB_IO_ERROR
 * with a message. */
int kb_io_ckpt_write_file(const kb_io_ckpt_opts *o, void *eng,
                          const char *path, const uint8_t *buf, size_t n,
                          kb_io_ckpt_side *w, char *err, size_t len)
{
    bool direct = o->direct && !o->engine->no_direct;
    for (;;) {
        bool asked = direct;
        double t0 = kb_now();
        int fd = kb_io_open(path, O_RDWR | O_CREAT | O_TRUNC, &direct);
        if (fd < 0) {
            snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
            return KB_IO_ERROR;
        }
        if (asked && !direct)
            kb_io_direct_refuse(&w->dio, "open", "open", path,
                                strerror(EINVAL));
        size_t size = direct ? kb_io_ckpt_round_up(n) : n;
        char msg[KB_IO_ERRLEN];
        int rc = o->engine->write(eng, fd, buf, size, CKPT_CHUNK, msg,
                                  sizeof msg);
        if (rc == -EINVAL && direct) {
            close(fd);
            kb_io_direct_refuse(&w->dio, "write", o->engine->write_call,
                                path, msg);
            direct = false;
            continue;
        }
        w->direct = direct;
        w->synced = o->fsync || (o->direct && !direct);
        if (rc) {
            snprintf(err, len, "%s: %s", path, msg);
        } else if (size != n && ftruncate(fd, (off_t)n) < 0) {
            snprintf(err, len, "%s: truncating the O_DIRECT padding to %zu "
                     "bytes failed: %s", path, n, strerror(errno));
            rc = KB_IO_ERROR;
        } else if (w->synced && fsync(fd) < 0) {
            snprintf(err, len, "%s: fsync failed: %s", path, strerror(errno));
            rc = KB_IO_ERROR;
        }
        if (close(fd) < 0 && !rc) {
            snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
            rc = KB_IO_ERROR;
        }
        w->seconds = kb_now() - t0;
        return rc ? KB_IO_ERROR : 0;
    }
}

/* Read the n bytes of path into buf (capacity kb_io_ckpt_round_up(n)),
 * timed from the open to the close, with O_DIRECT when asked; refused at
 * open or at transfer time (EINVAL from the read), it is read again
 * buffered.  0, KB_IO_CORRUPT (too short) or KB_IO_ERROR with a
 * message. */
int kb_io_ckpt_read_file(const kb_io_ckpt_opts *o, void *eng,
                         const char *path, uint8_t *buf, size_t n,
                         kb_io_ckpt_side *r, char *err, size_t len)
{
    bool direct = o->direct && !o->engine->no_direct;
    for (;;) {
        bool asked = direct;
        double t0 = kb_now();
        int fd = kb_io_open(path, O_RDONLY, &direct);
        if (fd < 0) {
            snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
            return KB_IO_ERROR;
        }
        if (asked && !direct)
            kb_io_direct_refuse(&r->dio, "open", "open", path,
                                strerror(EINVAL));
        kb_io_lat lat = {0};
        char msg[KB_IO_ERRLEN];
        int rc = o->engine->read(eng, fd, buf, n, CKPT_CHUNK, &lat, NULL, msg,
                                 sizeof msg);
        close(fd);
        double t1 = kb_now();
        free(lat.lat);
        if (rc == -EINVAL && direct) {
            kb_io_direct_refuse(&r->dio, "read", o->engine->read_call, path,
                                msg);
            direct = false;
            continue;
        }
        r->direct = direct;
        r->seconds = t1 - t0;
        if (rc) {
            snprintf(err, len, "%s: %s", path, msg);
            return KB_IO_ERROR;
        }
        if (lat.bytes != n) {
            snprintf(err, len, "%s: read %" PRIu64 " bytes, wrote %zu", path,
                     lat.bytes, n);
            return KB_IO_CORRUPT;
        }
        return 0;
    }
}

/* What was read against what was written, outside the timed windows.  0,
 * or KB_IO_CORRUPT naming the first differing offset. */
int kb_io_ckpt_compare(const char *path, const uint8_t *got,
                       const uint8_t *want, size_t n, char *err, size_t len)
{
    if (memcmp(got, want, n) == 0)
        return 0;
    size_t i = 0;
    while (got[i] == want[i])
        i++;
    snprintf(err, len, "%s: offset %zu: read back differs from what was "
             "written", path, i);
    return KB_IO_CORRUPT;
}

const char *kb_io_ckpt_write_mode(const kb_io_ckpt_side *w)
{
    return w->direct ? (w->synced ? "direct+fsync" : "direct")
                     : (w->synced ? "buffered+fsync" : "buffered");
}
