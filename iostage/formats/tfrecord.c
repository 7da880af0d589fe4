/* tfrecord.c - TFRecord framing (length, masked CRC32C of the length, data,
 * masked CRC32C of the data): writing files and verifying them.  The
 * CRCs are checksum.c's. */
#include "iostage/formats/body.h"
#include "iostage/formats/format.h"
#include "iostage/formats/tfrecord.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/formats/write_full.h"
#include "iostage/checksum.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

/* TFRecord stores CRCs rotated and offset so that a CRC of data containing
 * CRCs stays well distributed. */
uint32_t kb_io_tfrecord_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

void kb_io_tfrecord_put(uint8_t *dst, const uint8_t *data, size_t n)
{
    uint64_t len = n;
    uint8_t lb[8];
    for (int i = 0; i < 8; i++)
        lb[i] = (uint8_t)(len >> (8 * i));
    uint32_t lc = kb_io_tfrecord_mask(kb_io_crc32c(0, lb, 8));
    uint32_t dc = kb_io_tfrecord_mask(kb_io_crc32c(0, data, n));
    memcpy(dst, lb, 8);
    for (int i = 0; i < 4; i++)
        dst[8 + i] = (uint8_t)(lc >> (8 * i));
    memcpy(dst + 12, data, n);
    for (int i = 0; i < 4; i++)
        dst[12 + n + i] = (uint8_t)(dc >> (8 * i));
}

static uint32_t le32(const uint8_t *s)
{
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
           (uint32_t)s[3] << 24;
}

/* One file: samples [file_index * spf, +spf), each a TFRecord holding the
 * sample header and the body. */
static int tfrecord_gen(const kb_io_profile *p, uint64_t seed,
                        int64_t file_index, const char *path, char *err,
                        size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    int rc = 0;
    uint8_t *rec = NULL;
    for (int64_t k = 0; k < p->samples_per_file && !rc; k++) {
        uint64_t id = (uint64_t)(file_index * p->samples_per_file + k);
        uint8_t *body;
        size_t n;
        rc = kb_io_body_make(p, seed, id, &body, &n, err, len);
        if (rc)
            break;
        size_t data_len = KB_IO_HDR_BYTES + n;
        uint8_t *data = malloc(data_len);
        rec = malloc(data_len + KB_IO_TFRECORD_OVERHEAD);
        if (!data || !rec) {
            snprintf(err, len, "out of memory for a %zu-byte record", n);
            rc = KB_IO_ERROR;
        } else {
            kb_io_hdr h = {kb_io_crc32c(0, body, n), id, n};
            kb_io_hdr_put(data, &h);
            memcpy(data + KB_IO_HDR_BYTES, body, n);
            kb_io_tfrecord_put(rec, data, data_len);
            rc = kb_io_write_full(fd, rec, data_len + KB_IO_TFRECORD_OVERHEAD, path,
                            err, len);
        }
        free(body);
        free(data);
        free(rec);
        rec = NULL;
    }
    if (close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    return rc;
}

/* kb_io_tfrecord_next on a window of a file: buf[0] is the file's byte
 * `base`, and messages name file offsets. */
static int next_at(const uint8_t *buf, size_t n, uint64_t base, size_t *off,
                   bool final, kb_io_verify verify, const uint8_t **data,
                   uint64_t *dlen, char *err, size_t len)
{
    size_t o = *off;
    if (o >= n)
        return 0;
    if (n - o < 12) {
        if (!final)
            return 0;
        snprintf(err, len, "offset %" PRIu64 ": truncated record header "
                 "(%zu bytes left, expected 12)", base + o, n - o);
        return KB_IO_CORRUPT;
    }
    bool crc = verify == KB_IO_VERIFY_CRC;
    uint32_t lc = le32(buf + o + 8);
    if (crc && kb_io_tfrecord_mask(kb_io_crc32c(0, buf + o, 8)) != lc) {
        snprintf(err, len, "offset %" PRIu64 ": record length CRC mismatch",
                 base + o);
        return KB_IO_CORRUPT;
    }
    uint64_t dl = (uint64_t)le32(buf + o) | (uint64_t)le32(buf + o + 4) << 32;
    /* dl is checked against what is left before any arithmetic */
    if (dl > n - o - 12 || n - o - 12 - dl < 4) {
        if (!final)
            return 0;
        snprintf(err, len, "offset %" PRIu64 ": truncated record (length %"
                 PRIu64 ", %zu bytes left)", base + o, dl, n - o - 12);
        return KB_IO_CORRUPT;
    }
    const uint8_t *d = buf + o + 12;
    if (crc && kb_io_tfrecord_mask(kb_io_crc32c(0, d, dl)) != le32(d + dl)) {
        snprintf(err, len, "offset %" PRIu64 ": record data CRC mismatch",
                 base + o);
        return KB_IO_CORRUPT;
    }
    *data = d;
    *dlen = dl;
    *off = o + 12 + dl + 4;
    return 1;
}

int kb_io_tfrecord_next(const uint8_t *buf, size_t n, size_t *off,
                        bool final, kb_io_verify verify, const uint8_t **data,
                        uint64_t *dlen, char *err, size_t len)
{
    return next_at(buf, n, 0, off, final, verify, data, dlen, err, len);
}

/* Walk the complete records of buf[*off, n), buf[0] being the file's byte
 * `base`: every sample header checked, and with verify every length CRC,
 * data CRC and sample checksum.  Not final: stop before a record that has
 * not fully arrived; final: such a record is a truncation. */
static int tfrecord_parse_window(const uint8_t *buf, size_t n, uint64_t base,
                                 size_t *off, bool final, kb_io_verify verify,
                                 kb_io_sample_fn fn, void *ctx, char *err,
                                 size_t len)
{
    const uint8_t *data;
    uint64_t dlen;
    for (;;) {
        size_t o = *off;
        int rc = next_at(buf, n, base, off, final, verify, &data, &dlen, err,
                         len);
        if (rc <= 0)
            return rc;
        kb_io_hdr h;
        if (dlen < KB_IO_HDR_BYTES || kb_io_hdr_get(data, &h) ||
            h.body_len != dlen - KB_IO_HDR_BYTES) {
            snprintf(err, len, "offset %" PRIu64 ": bad sample header",
                     base + o);
            return KB_IO_CORRUPT;
        }
        const uint8_t *body = data + KB_IO_HDR_BYTES;
        if (verify == KB_IO_VERIFY_CRC &&
            kb_io_crc32c(0, body, h.body_len) != h.crc) {
            snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64
                     " checksum mismatch", base + o, h.id);
            return KB_IO_CORRUPT;
        }
        kb_io_sample s = {h.id, body, h.body_len, base + o};
        rc = fn(ctx, &s);
        if (rc)
            return rc;
    }
}

static int tfrecord_parse_part(const uint8_t *buf, size_t n, size_t *off,
                               bool final, kb_io_verify verify,
                               kb_io_sample_fn fn, void *ctx, char *err,
                               size_t len)
{
    return tfrecord_parse_window(buf, n, 0, off, final, verify, fn, ctx, err,
                                 len);
}

static int tfrecord_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                          kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    size_t off = 0;
    return tfrecord_parse_part(buf, n, &off, true, verify, fn, ctx, err,
                               len);
}

const kb_io_format kb_io_format_tfrecord = {
    .name = "tfrecord",
    .ext = "tfrecord",
    .gen_file = tfrecord_gen,
    .parse = tfrecord_parse,
    .parse_part = tfrecord_parse_part,
    .parse_window = tfrecord_parse_window,
};
