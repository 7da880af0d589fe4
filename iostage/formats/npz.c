/* npz.c - NumPy .npz files (a zip archive of .npy members, stored, as
 * numpy.savez writes them): `x.npy` holds the sample as a uint8 array and
 * `kb.npy` the 24-byte sample header.  Reading checks every zip CRC-32, the
 * header and the sample checksum.  Only stored members are read; a
 * deflated member (numpy.savez_compressed) is reported, not decoded. */
#include "iostage/formats/body.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/formats/write_full.h"
#include "iostage/checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOCAL_SIG 0x04034b50u
#define CENTRAL_SIG 0x02014b50u
#define END_SIG 0x06054b50u
#define NPY_HEADER 128   /* fixed-size .npy header, a multiple of 64 */

static void put16(uint8_t *d, uint32_t v) { d[0] = (uint8_t)v; d[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *d, uint32_t v) { put16(d, v); put16(d + 2, v >> 16); }
static uint32_t get16(const uint8_t *s) { return s[0] | (uint32_t)s[1] << 8; }
static uint32_t get32(const uint8_t *s) { return get16(s) | get16(s + 2) << 16; }

/* A version 1.0 .npy header for a 1-D uint8 array of n elements. */
static void npy_header(uint8_t *d, size_t n)
{
    memset(d, ' ', NPY_HEADER);
    memcpy(d, "\x93NUMPY\x01\x00", 8);
    put16(d + 8, NPY_HEADER - 10);
    char dict[100];
    int k = snprintf(dict, sizeof dict,
                     "{'descr': '|u1', 'fortran_order': False, "
                     "'shape': (%zu,), }", n);
    memcpy(d + 10, dict, (size_t)k);
    d[NPY_HEADER - 1] = '\n';
}

typedef struct {
    const char *name;
    uint32_t crc, size, offset;
} member;

/* Local header + .npy header + data of one stored member. */
static int put_member(int fd, member *m, const uint8_t *data, size_t n,
                      uint32_t offset, const char *path, char *err, size_t len)
{
    uint8_t npy[NPY_HEADER], lh[30];
    npy_header(npy, n);
    uint32_t crc = kb_io_crc32(kb_io_crc32(0, npy, NPY_HEADER), data, n);
    size_t name_len = strlen(m->name);
    memset(lh, 0, sizeof lh);
    put32(lh, LOCAL_SIG);
    put16(lh + 4, 20);
    put32(lh + 14, crc);
    put32(lh + 18, (uint32_t)(n + NPY_HEADER));
    put32(lh + 22, (uint32_t)(n + NPY_HEADER));
    put16(lh + 26, (uint32_t)name_len);
    m->crc = crc;
    m->size = (uint32_t)(n + NPY_HEADER);
    m->offset = offset;
    int rc = kb_io_write_full(fd, lh, sizeof lh, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, (const uint8_t *)m->name, name_len, path,
                              err, len);
    if (!rc)
        rc = kb_io_write_full(fd, npy, NPY_HEADER, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, data, n, path, err, len);
    return rc;
}

/* Central directory and end record for the members. */
static int put_directory(int fd, const member *m, int n, uint32_t offset,
                         const char *path, char *err, size_t len)
{
    uint32_t dir_size = 0;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        uint8_t ch[46];
        size_t name_len = strlen(m[i].name);
        memset(ch, 0, sizeof ch);
        put32(ch, CENTRAL_SIG);
        put16(ch + 4, 20);
        put16(ch + 6, 20);
        put32(ch + 16, m[i].crc);
        put32(ch + 20, m[i].size);
        put32(ch + 24, m[i].size);
        put16(ch + 28, (uint32_t)name_len);
        put32(ch + 42, m[i].offset);
        rc = kb_io_write_full(fd, ch, sizeof ch, path, err, len);
        if (!rc)
            rc = kb_io_write_full(fd, (const uint8_t *)m[i].name, name_len,
                                  path, err, len);
        dir_size += (uint32_t)(sizeof ch + name_len);
    }
    uint8_t end[22];
    memset(end, 0, sizeof end);
    put32(end, END_SIG);
    put16(end + 8, (uint32_t)n);
    put16(end + 10, (uint32_t)n);
    put32(end + 12, dir_size);
    put32(end + 16, offset);
    return rc ? rc : kb_io_write_full(fd, end, sizeof end, path, err, len);
}

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
    /* without zip64 every size and offset must fit 32 bits */
    if (n > UINT32_MAX - 4096) {
        free(body);
        snprintf(err, len, "sample of %zu bytes too large for zip", n);
        return KB_IO_USAGE;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        free(body);
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    uint8_t hdr[KB_IO_HDR_BYTES];
    kb_io_hdr h = {kb_io_crc32c(0, body, n), id, n};
    kb_io_hdr_put(hdr, &h);
    member m[2] = {{.name = "kb.npy"}, {.name = "x.npy"}};
    uint32_t off2 = 30 + 6 + NPY_HEADER + KB_IO_HDR_BYTES;
    rc = put_member(fd, &m[0], hdr, sizeof hdr, 0, path, err, len);
    if (!rc)
        rc = put_member(fd, &m[1], body, n, off2, path, err, len);
    if (!rc)
        rc = put_directory(fd, m, 2, off2 + 30 + 5 + NPY_HEADER + (uint32_t)n,
                           path, err, len);
    free(body);
    if (close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    return rc;
}

/* Data of the member at off (past its .npy header) after checking its
 * local header and zip CRC.  Advances *off.  0 or KB_IO_CORRUPT. */
static int get_member(const uint8_t *buf, size_t n, size_t *off,
                      const char *want, kb_io_verify verify,
                      const uint8_t **data, size_t *dlen, char *err,
                      size_t len)
{
    size_t o = *off;
    if (n - o < 30 || get32(buf + o) != LOCAL_SIG) {
        snprintf(err, len, "offset %zu: expected a zip local header", o);
        return KB_IO_CORRUPT;
    }
    uint32_t method = get16(buf + o + 8), crc = get32(buf + o + 14);
    uint32_t csize = get32(buf + o + 18), name_len = get16(buf + o + 26);
    uint32_t extra = get16(buf + o + 28);
    if (method != 0) {
        snprintf(err, len, "offset %zu: zip compression method %u not "
                 "supported (only stored members)", o, method);
        return KB_IO_CORRUPT;
    }
    size_t start = o + 30 + name_len + extra;
    if (start > n || csize > n - start || csize < NPY_HEADER) {
        snprintf(err, len, "offset %zu: truncated zip member (%u bytes "
                 "declared, %zu left)", o, csize, n - (start < n ? start : n));
        return KB_IO_CORRUPT;
    }
    if (name_len != strlen(want) || memcmp(buf + o + 30, want, name_len)) {
        snprintf(err, len, "offset %zu: expected member %s", o, want);
        return KB_IO_CORRUPT;
    }
    if (verify == KB_IO_VERIFY_CRC && kb_io_crc32(0, buf + start, csize) != crc) {
        snprintf(err, len, "offset %zu: zip CRC-32 mismatch in %s", o, want);
        return KB_IO_CORRUPT;
    }
    if (memcmp(buf + start, "\x93NUMPY", 6) != 0) {
        snprintf(err, len, "offset %zu: %s is not a .npy array", start, want);
        return KB_IO_CORRUPT;
    }
    *data = buf + start + NPY_HEADER;
    *dlen = csize - NPY_HEADER;
    *off = start + csize;
    return 0;
}

static int npz_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                     kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    size_t off = 0, hlen, blen;
    const uint8_t *hdr, *body;
    int rc = get_member(buf, n, &off, "kb.npy", verify, &hdr, &hlen, err,
                        len);
    if (!rc)
        rc = get_member(buf, n, &off, "x.npy", verify, &body, &blen, err,
                        len);
    if (rc)
        return rc;
    kb_io_hdr h;
    if (hlen != KB_IO_HDR_BYTES || kb_io_hdr_get(hdr, &h) ||
        h.body_len != blen ||
        (verify == KB_IO_VERIFY_CRC && kb_io_crc32c(0, body, blen) != h.crc)) {
        snprintf(err, len, "offset %zu: bad sample header or checksum",
                 (size_t)(body - buf));
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
