/* dlio_tfrecord.c - DLIO's TFRecord files: the usual framing (tfrecord.c)
 * around a tf.train.Example {'image': dim1 x dim2 random bytes, 'size':
 * dimension} a record (dlio_pb.c walks it).  The records carry no ids:
 * record k of the file is sample k, and its body is the image. */
#include "iostage/dlio/example.h"
#include "iostage/formats/format.h"
#include "iostage/formats/tfrecord.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"
#include "iostage/dlio/arrays.h"
#include "iostage/formats/write_full.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t le64(const uint8_t *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)s[i] << (8 * i);
    return v;
}

/* parse_part is called again and again by one thread on the growing
 * prefix of one file, so the index where the last call stopped is kept
 * per thread; any other start counts the records before it from the
 * framing (their lengths only: earlier calls checked them). */
static _Thread_local struct {
    const uint8_t *buf;
    size_t off;
    uint64_t index;
} resume;

static int index_at(const uint8_t *buf, size_t n, size_t off, uint64_t *k,
                    char *err, size_t len)
{
    if (resume.buf == buf && resume.off == off) {
        *k = resume.index;
        return 0;
    }
    size_t o = 0;
    for (*k = 0; o < off && off <= n && off - o >= 16; ++*k) {
        uint64_t dl = le64(buf + o);
        if (dl > off - o - 16)
            break;
        o += 16 + (size_t)dl;
    }
    if (o != off) {
        snprintf(err, len, "offset %zu: not a record boundary (the framing "
                 "from offset 0 reaches %zu)", off, o);
        return KB_IO_CORRUPT;
    }
    return 0;
}

static int dlio_tfrecord_parse_part(const uint8_t *buf, size_t n,
                                    size_t *off, bool final,
                                    kb_io_verify verify, kb_io_sample_fn fn,
                                    void *ctx, char *err, size_t len)
{
    uint64_t k;
    int rc = index_at(buf, n, *off, &k, err, len);
    const uint8_t *data;
    uint64_t dlen;
    while (!rc) {
        size_t o = *off;
        rc = kb_io_tfrecord_next(buf, n, off, final, verify, &data, &dlen,
                                 err, len);
        if (rc <= 0)
            break;
        kb_example ex;
        rc = kb_example_parse(data, (size_t)dlen, o + 12, &ex, err, len);
        if (!rc) {
            kb_io_sample s = {k++, ex.image, ex.image_len, o};
            rc = fn(ctx, &s);
        }
    }
    resume.buf = buf;
    resume.off = *off;
    resume.index = k;
    return rc;
}

static int dlio_tfrecord_parse(const uint8_t *buf, size_t n,
                               kb_io_verify verify, kb_io_sample_fn fn,
                               void *ctx, char *err, size_t len)
{
    size_t off = 0;
    return dlio_tfrecord_parse_part(buf, n, &off, true, verify, fn, ctx, err,
                                    len);
}

/* One file: samples_per_file records of one dim1 x dim2 image size, as
 * DLIO's tf_generator writes them. */
static int dlio_tfrecord_gen(const kb_io_profile *p, uint64_t seed,
                             int64_t file_index, const char *path,
                             char *err, size_t len)
{
    uint64_t d1, d2;
    kb_io_dlio_dims(p, seed, file_index, &d1, &d2);
    if (d1 > (SIZE_MAX - 4096) / d2 / 2) {
        snprintf(err, len, "profile %s: a %" PRIu64 "x%" PRIu64 " image does "
                 "not fit in memory", p->name, d1, d2);
        return KB_IO_USAGE;
    }
    size_t img = (size_t)(d1 * d2);
    int64_t dim = (int64_t)kb_io_dlio_dimension(p);
    size_t ex_len = kb_example_put(NULL, NULL, img, dim);
    uint8_t *image = malloc(img), *ex = malloc(ex_len);
    uint8_t *rec = malloc(ex_len + KB_IO_TFRECORD_OVERHEAD);
    int fd = image && ex && rec ? open(path, O_WRONLY | O_CREAT | O_TRUNC,
                                       0644)
                                : -1;
    int rc = 0;
    if (!image || !ex || !rec) {
        snprintf(err, len, "out of memory for a %zu-byte record", ex_len);
        rc = KB_IO_ERROR;
    } else if (fd < 0) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    for (int64_t k = 0; !rc && k < p->samples_per_file; k++) {
        uint64_t id = (uint64_t)(file_index * p->samples_per_file + k);
        kb_io_fill_random(image, img, kb_mix64(seed) ^ kb_mix64(id));
        kb_example_put(ex, image, img, dim);
        kb_io_tfrecord_put(rec, ex, ex_len);
        rc = kb_io_write_full(fd, rec, ex_len + KB_IO_TFRECORD_OVERHEAD, path,
                              err, len);
    }
    if (fd >= 0 && close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    free(image);
    free(ex);
    free(rec);
    return rc;
}

const kb_io_format kb_io_format_dlio_tfrecord = {
    .name = "dlio-tfrecord",
    .ext = "tfrecord",
    .positional_ids = true,
    .gen_file = dlio_tfrecord_gen,
    .parse = dlio_tfrecord_parse,
    .parse_part = dlio_tfrecord_parse_part,
};
