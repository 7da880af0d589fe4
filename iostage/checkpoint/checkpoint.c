/* checkpoint.c - `kbench io checkpoint`: write a model-sized checkpoint
 * through an engine, read it back (evicted from the page cache first),
 * verify every byte, and report GB/s both ways with the mode each
 * direction really ran in (direct, buffered, +fsync) and any fallback.
 * With a schedule the verb is ckpt_loop.c's training loop; both write and
 * read back through file.c. */
#include "iostage/checkpoint/checkpoint.h"
#include "iostage/checkpoint/file.h"
#include "iostage/checkpoint/loop.h"
#include "iostage/checkpoint/options.h"
#include "iostage/checkpoint/plan.h"
#include "iostage/metrics.h"
#include "iostage/readers/direct.h"
#include "iostage/stage.h"
#include "iostage/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

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
    cJSON *j = kb_io_record_new("io_checkpoint", o->prov);
    bool bad = !j || !cJSON_AddStringToObject(j, "engine", o->engine->name) ||
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
