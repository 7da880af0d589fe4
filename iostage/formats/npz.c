/* npz.c - kbench's NumPy .npz files (a zip archive of two stored .npy
 * members, as numpy.savez writes them): `kb.npy` holds the 24-byte sample
 * header and `x.npy` the sample as a 1-D uint8 array.  Written by the one
 * npz writer and read through the one zip reader (npz_archive.h, zip.h),
 * which walk the central directory and check every zip CRC-32; then the
 * header and the sample checksum.  A deflated member
 * (numpy.savez_compressed) is reported, not decoded: the sample is handed
 * out in place. */
#include "iostage/formats/body.h"
#include "iostage/formats/format.h"
#include "iostage/formats/npz_archive.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int npz_gen(const kb_io_profile *p, uint64_t seed, int64_t file_index,
                   const char *path, char *err, size_t len)
{
    if (p->samples_per_file != 1) {
        snprintf(err, len, "profile %s: npz holds one sample a file",
                 p->name);
        return KB_IO_USAGE;
    }
    uint64_t id = (uint64_t)file_index;
    uint8_t *body;
    size_t n;
    int rc = kb_io_body_make(p, seed, id, &body, &n, err, len);
    if (rc)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        free(body);
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    uint8_t hdr[KB_IO_HDR_BYTES];
    kb_io_hdr h = {kb_io_crc32c(0, body, n), id, n};
    kb_io_hdr_put(hdr, &h);
    /* no zip64 extras unless a member needs one: the files keep the
     * layout kbench has always written */
    kb_npz_array arr[2] = {
        {.name = "kb.npy", .descr = "|u1", .ndim = 1,
         .shape = {KB_IO_HDR_BYTES}, .data = hdr, .data_len = sizeof hdr},
        {.name = "x.npy", .descr = "|u1", .ndim = 1, .shape = {n},
         .data = body, .data_len = n}};
    rc = kb_npz_write(fd, arr, 2, false, path, err, len);
    free(body);
    if (close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    return rc;
}

/* The data of member m (kb.npy or x.npy) once checked: stored, and a 1-D
 * uint8 array.  0 or KB_IO_CORRUPT. */
static int get_array(const kb_zip *z, const kb_zip_member *m,
                     kb_io_verify verify, const uint8_t **data, size_t *dlen,
                     char *err, size_t len)
{
    if (m->method != KB_ZIP_STORED) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s is compressed "
                 "(method %u), expected it stored (method 0, numpy.savez)",
                 m->header_off, (int)m->name_len, m->name, m->method);
        return KB_IO_CORRUPT;
    }
    kb_npy a;
    int rc = kb_npz_member(z, m, verify == KB_IO_VERIFY_CRC, &a, err, len);
    if (rc)
        return rc;
    if (a.ndim != 1 || a.itemsize != 1) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s is a %d-D array "
                 "of %zu-byte items, expected a 1-D uint8 array",
                 (uint64_t)(m->data - z->buf), (int)m->name_len, m->name,
                 a.ndim, a.itemsize);
        return KB_IO_CORRUPT;
    }
    *data = m->data + a.header_len;
    *dlen = (size_t)a.data_len;
    return 0;
}

static int npz_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                     kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    kb_zip z;
    kb_zip_member m;
    const uint8_t *hdr = NULL, *body = NULL;
    size_t hlen = 0, blen = 0;
    int rc = kb_zip_open(&z, buf, n, err, len);
    while (!rc && (rc = kb_zip_next(&z, &m, err, len)) == 1) {
        bool is_hdr = kb_npz_member_is(&m, "kb.npy");
        if (!is_hdr && !kb_npz_member_is(&m, "x.npy")) {
            snprintf(err, len, "offset %" PRIu64 ": member %.*s, expected "
                     "only kb.npy and x.npy", m.header_off, (int)m.name_len,
                     m.name);
            return KB_IO_CORRUPT;
        }
        if (is_hdr ? hdr != NULL : body != NULL) {
            snprintf(err, len, "offset %" PRIu64 ": a second member %s, "
                     "expected one", m.header_off, is_hdr ? "kb.npy"
                                                          : "x.npy");
            return KB_IO_CORRUPT;
        }
        rc = is_hdr ? get_array(&z, &m, verify, &hdr, &hlen, err, len)
                    : get_array(&z, &m, verify, &body, &blen, err, len);
    }
    if (rc)
        return rc;
    if (!hdr || !body) {
        snprintf(err, len, "offset %" PRIu64 ": no member %s, expected "
                 "kb.npy (the sample header) and x.npy (the sample)",
                 z.cd_start, hdr ? "x.npy" : "kb.npy");
        return KB_IO_CORRUPT;
    }
    kb_io_hdr h;
    if (hlen != KB_IO_HDR_BYTES || kb_io_hdr_get(hdr, &h) ||
        h.body_len != blen ||
        (verify == KB_IO_VERIFY_CRC && kb_io_crc32c(0, body, blen) != h.crc)) {
        snprintf(err, len, "offset %zu: bad sample header or checksum "
                 "(expected a %d-byte kb.npy naming x.npy's %zu bytes and "
                 "their CRC32C)", (size_t)(body - buf), KB_IO_HDR_BYTES,
                 blen);
        return KB_IO_CORRUPT;
    }
    kb_io_sample s = {h.id, body, blen, 0};
    return fn(ctx, &s);
}

const kb_io_format kb_io_format_npz = {
    .name = "npz",
    .ext = "npz",
    .gen_file = npz_gen,
    .parse = npz_parse,
};
