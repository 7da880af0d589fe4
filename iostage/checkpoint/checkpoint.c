/* checkpoint.c - `kbench io checkpoint`: write a model-sized checkpoint
 * through an engine, read it back (evicted from the page cache first),
 * verify every byte, and report GB/s both ways with the mode each
 * direction really ran in (direct, buffered, +fsync) and any fallback.
 * With a schedule the verb is ckpt_loop.c's training loop, which writes
 * and reads back through the functions here. */
#include "iostage/checkpoint/ckpt.h"

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

static const char *read_mode(const kb_io_ckpt_side *r)
{
    return r->direct ? "direct" : "buffered";
}

/* The result on stdout: figures with their modes, then each refusal. */
static void print_ckpt(const kb_io_ckpt_opts *o, size_t n,
                       const kb_io_ckpt_side *w, const kb_io_ckpt_side *r,
                       double resident)
{
    size_t pad = w->direct ? kb_io_ckpt_round_up(n) - n : 0;
    printf("checkpoint %zu bytes (%s): write %.3f GB/s (%.3f s, %s%s), "
           "read %.3f GB/s (%.3f s, %s), %.0f %% resident before the read, "
           "verified\n", n, o->engine->name, (double)n / w->seconds / 1e9,
           w->seconds, kb_io_ckpt_write_mode(w),
           w->synced || w->direct ? "" : ": page cache, write-back not timed",
           (double)n / r->seconds / 1e9, r->seconds, read_mode(r),
           resident < 0 ? 0 : 100 * resident);
    if (pad)
        printf("  write: the last block padded with %zu zero bytes for "
               "O_DIRECT, the file truncated back to %zu bytes\n", pad, n);
    char what[2 * KB_IO_ERRLEN];
    if (w->dio.at) {
        kb_io_direct_describe(&w->dio, what, sizeof what);
        printf("  write: %s; written buffered, fsync inside the window\n",
               what);
    }
    if (r->dio.at) {
        kb_io_direct_describe(&r->dio, what, sizeof what);
        printf("  read: %s; read buffered\n", what);
    }
}

/* One direction's fields, under "<side>_".  0, or -1 out of memory. */
static int side_json(cJSON *o, const char *side, const char *mode,
                     const kb_io_ckpt_side *s, size_t n, const char *fallback)
{
    char key[64], prefix[32];
    snprintf(key, sizeof key, "%s_mode", side);
    if (!cJSON_AddStringToObject(o, key, mode))
        return -1;
    snprintf(key, sizeof key, "%s_s", side);
    if (!cJSON_AddNumberToObject(o, key, s->seconds))
        return -1;
    snprintf(key, sizeof key, "%s_GB_per_second", side);
    if (!cJSON_AddNumberToObject(o, key, (double)n / s->seconds / 1e9))
        return -1;
    snprintf(prefix, sizeof prefix, "%s_direct", side);
    return kb_io_direct_json(&s->dio, prefix, fallback, o);
}

/* The io_checkpoint record into o->json.  0 or KB_IO_ERROR. */
static int write_json(const kb_io_ckpt_opts *o, size_t n,
                      const kb_io_ckpt_side *w, const kb_io_ckpt_side *r,
                      double resident, char *err, size_t len)
{
    size_t pad = kb_io_ckpt_round_up(n) - n;
    cJSON *j = cJSON_CreateObject();
    bool bad = !j || !cJSON_AddStringToObject(j, "record", "io_checkpoint") ||
               !cJSON_AddStringToObject(j, "engine", o->engine->name) ||
               !cJSON_AddNumberToObject(j, "bytes", (double)n) ||
               !cJSON_AddBoolToObject(j, "direct_asked", o->direct) ||
               !cJSON_AddBoolToObject(j, "fsync_asked", o->fsync) ||
               side_json(j, "write", kb_io_ckpt_write_mode(w), w, n,
                         "buffered+fsync") ||
               !cJSON_AddNumberToObject(j, "write_padded_bytes",
                                        w->direct ? (double)pad : 0) ||
               side_json(j, "read", read_mode(r), r, n, "buffered") ||
               !cJSON_AddNumberToObject(j, "read_resident_before",
                                        resident < 0 ? 0 : resident) ||
               !cJSON_AddBoolToObject(j, "verified", true);
    char *s = bad ? NULL : cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!s) {
        snprintf(err, len, "out of memory for a JSON record");
        return KB_IO_ERROR;
    }
    FILE *f = fopen(o->json, "w");
    bad = !f || fprintf(f, "%s\n", s) < 0;
    if (f && fclose(f) != 0)
        bad = true;
    cJSON_free(s);
    if (bad) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    return 0;
}

int kb_io_checkpoint(const kb_io_ckpt_opts *o, char *err, size_t len)
{
    if (o->plan.every_steps || o->plan.every_epochs)
        return kb_io_ckpt_loop(o, err, len);
    if (o->async || o->sharded) {
        snprintf(err, len, "--%s needs a schedule: --every-steps N or "
                 "--every-epochs N", o->async ? "async" : "sharded");
        return KB_IO_USAGE;
    }
    size_t n = (size_t)o->bytes;
    size_t cap = kb_io_ckpt_round_up(n);
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
    kb_io_ckpt_state_fill(src, n, o->seed, KB_IO_CKPT_MODEL, 0);
    memset(src + n, 0, cap - n);   /* O_DIRECT writes whole blocks */
    kb_io_ckpt_side w = {0}, r = {0};
    if (o->direct && o->engine->no_direct) {
        kb_io_direct_refuse(&w.dio, "engine", o->engine->name, path,
                            o->engine->no_direct);
        kb_io_direct_refuse(&r.dio, "engine", o->engine->name, path,
                            o->engine->no_direct);
    }
    if (o->engine->open(&eng, 8, err, len))
        goto out;
    rc = kb_io_ckpt_write_file(o, eng, path, src, n, &w, err, len);
    if (rc)
        goto out;
    char *one[1] = {path};
    /* read from the device, not the page cache, where the kernel allows */
    rc = kb_io_evict(one, 1, err, len);
    char emsg[KB_IO_ERRLEN];
    double resident = kb_io_residency(one, 1, emsg, sizeof emsg);
    if (!rc)
        rc = kb_io_ckpt_read_file(o, eng, path, dst, n, &r, err, len);
    if (!rc)
        rc = kb_io_ckpt_compare(path, dst, src, n, err, len);
    if (!rc)
        print_ckpt(o, n, &w, &r, resident);
    if (!rc && o->json)
        rc = write_json(o, n, &w, &r, resident, err, len);
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
