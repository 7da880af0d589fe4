/* zip.c - reading a zip archive as numpy writes it (np.savez and
 * savez_compressed: zip64 extra fields in the local headers, stored or
 * deflated members) from its end: the end record, the zip64 end record
 * where there is one, the central directory, then each local header.
 * Every size and offset read from the file is checked against the buffer
 * before it is used; nothing is allocated from a header field. */
#include "iostage/formats/zip.h"
#include "iostage/stage.h"
#include "iostage/checksum.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define LOCAL_SIG 0x04034b50u
#define CENTRAL_SIG 0x02014b50u
#define END_SIG 0x06054b50u
#define END64_SIG 0x06064b50u
#define LOCATOR64_SIG 0x07064b50u
#define END_BYTES 22
#define END64_BYTES 56
#define LOCATOR64_BYTES 20
#define CENTRAL_BYTES 46
#define LOCAL_BYTES 30
#define MAX_COMMENT 65535
#define ZIP64_TAG 0x0001
#define U32_MARK 0xffffffffu

static uint32_t get16(const uint8_t *s) { return s[0] | (uint32_t)s[1] << 8; }
static uint32_t get32(const uint8_t *s) { return get16(s) | get16(s + 2) << 16; }
static uint64_t get64(const uint8_t *s)
{
    return get32(s) | (uint64_t)get32(s + 4) << 32;
}

/* The end record: the last PK\5\6 whose comment ends the file. */
static int find_end(const uint8_t *buf, size_t n, size_t *end, char *err,
                    size_t len)
{
    if (n < END_BYTES) {
        snprintf(err, len, "offset 0: %zu bytes, too short for a zip "
                 "archive (expected at least a %d-byte end record)", n,
                 END_BYTES);
        return KB_IO_CORRUPT;
    }
    size_t last = n - END_BYTES;
    size_t lo = last > MAX_COMMENT ? last - MAX_COMMENT : 0;
    for (size_t o = last + 1; o-- > lo;)
        if (get32(buf + o) == END_SIG &&
            get16(buf + o + 20) == n - END_BYTES - o) {
            *end = o;
            return 0;
        }
    snprintf(err, len, "offset %zu: no zip end-of-central-directory record "
             "(PK\\5\\6 with its comment ending the file) in the last %zu "
             "bytes", lo, n - lo);
    return KB_IO_CORRUPT;
}

/* The zip64 end record the locator before the end record points to. */
static int read_end64(kb_zip *z, size_t end, uint64_t *disk, uint64_t *count,
                      uint64_t *cd_size, uint64_t *cd_off, char *err,
                      size_t len)
{
    const uint8_t *loc = z->buf + end - LOCATOR64_BYTES;
    uint64_t rec = get64(loc + 8);
    size_t loc_off = end - LOCATOR64_BYTES;
    if (get32(loc + 4) != 0 || get32(loc + 16) != 1) {
        snprintf(err, len, "offset %zu: zip64 locator names disk %u of %u, "
                 "expected a single-disk archive", loc_off, get32(loc + 4),
                 get32(loc + 16));
        return KB_IO_CORRUPT;
    }
    if (rec > loc_off || loc_off - rec < END64_BYTES) {
        snprintf(err, len, "offset %zu: zip64 locator points to offset %"
                 PRIu64 ", expected a %d-byte zip64 end record before offset "
                 "%zu", loc_off + 8, rec, END64_BYTES, loc_off);
        return KB_IO_CORRUPT;
    }
    const uint8_t *r = z->buf + rec;
    if (get32(r) != END64_SIG) {
        snprintf(err, len, "offset %" PRIu64 ": signature %08x, expected the "
                 "zip64 end record's PK\\6\\6", rec, get32(r));
        return KB_IO_CORRUPT;
    }
    /* its size field counts what follows the first 12 bytes */
    if (get64(r + 4) != loc_off - rec - 12) {
        snprintf(err, len, "offset %" PRIu64 ": zip64 end record size %"
                 PRIu64 ", expected %" PRIu64 " (it ends at the locator)",
                 rec + 4, get64(r + 4), (uint64_t)(loc_off - rec - 12));
        return KB_IO_CORRUPT;
    }
    *disk = get32(r + 16) | (uint64_t)get32(r + 20) |
            (get64(r + 24) != get64(r + 32));
    *count = get64(r + 32);
    *cd_size = get64(r + 40);
    *cd_off = get64(r + 48);
    z->cd_end = rec;
    return 0;
}

int kb_zip_open(kb_zip *z, const uint8_t *buf, size_t n, char *err,
                size_t len)
{
    memset(z, 0, sizeof *z);
    z->buf = buf;
    z->n = n;
    size_t end;
    int rc = find_end(buf, n, &end, err, len);
    if (rc)
        return rc;
    const uint8_t *e = buf + end;
    uint64_t disk = get16(e + 4) | get16(e + 6) |
                    (get16(e + 8) != get16(e + 10));
    uint64_t count = get16(e + 10), cd_size = get32(e + 12),
             cd_off = get32(e + 16);
    z->cd_end = end;
    bool marked = count == 0xffff || cd_size == U32_MARK ||
                  cd_off == U32_MARK;
    if (end >= LOCATOR64_BYTES &&
        get32(buf + end - LOCATOR64_BYTES) == LOCATOR64_SIG) {
        rc = read_end64(z, end, &disk, &count, &cd_size, &cd_off, err, len);
        if (rc)
            return rc;
    } else if (marked) {
        snprintf(err, len, "offset %zu: end record holds zip64 markers "
                 "(0xffff...) but no zip64 locator precedes it", end);
        return KB_IO_CORRUPT;
    }
    if (disk) {
        snprintf(err, len, "offset %zu: multi-disk zip archive, expected "
                 "one disk holding every entry", end);
        return KB_IO_CORRUPT;
    }
    /* numpy's central directory runs up to the end records */
    if (cd_off > z->cd_end || cd_size != z->cd_end - cd_off) {
        snprintf(err, len, "offset %zu: central directory at %" PRIu64
                 " of %" PRIu64 " bytes, expected it to end at the end "
                 "records (offset %" PRIu64 ")", end, cd_off, cd_size,
                 z->cd_end);
        return KB_IO_CORRUPT;
    }
    if (count > cd_size / CENTRAL_BYTES) {
        snprintf(err, len, "offset %zu: %" PRIu64 " entries declared, the "
                 "%" PRIu64 "-byte central directory holds at most %" PRIu64,
                 end, count, cd_size, cd_size / CENTRAL_BYTES);
        return KB_IO_CORRUPT;
    }
    z->count = count;
    z->cd_start = cd_off;
    z->next = cd_off;
    return 0;
}

/* The zip64 extra field (tag 1) in buf[off, off + n): *field and *size,
 * or *field NULL when there is none.  0 or KB_IO_CORRUPT. */
static int find_zip64(const uint8_t *buf, uint64_t off, size_t n,
                      const uint8_t **field, size_t *size, char *err,
                      size_t len)
{
    *field = NULL;
    for (size_t e = 0; e < n;) {
        if (n - e < 4) {
            snprintf(err, len, "offset %" PRIu64 ": %zu stray bytes, "
                     "expected an extra field header (4 bytes)", off + e,
                     n - e);
            return KB_IO_CORRUPT;
        }
        size_t sz = get16(buf + off + e + 2);
        if (sz > n - e - 4) {
            snprintf(err, len, "offset %" PRIu64 ": extra field of %zu "
                     "bytes, only %zu left in the header's extra", off + e,
                     sz, n - e - 4);
            return KB_IO_CORRUPT;
        }
        if (get16(buf + off + e) == ZIP64_TAG) {
            *field = buf + off + e + 4;
            *size = sz;
        }
        e += 4 + sz;
    }
    return 0;
}

/* Replace each of the n values marked U32_MARK (in the order the zip64
 * field stores them) by its 64-bit value. */
static int resolve_zip64(const uint8_t *field, size_t size, uint64_t off,
                         uint64_t *v[], int n, const char *what, char *err,
                         size_t len)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        if (*v[i] != U32_MARK)
            continue;
        if (!field || size - at < 8) {
            snprintf(err, len, "offset %" PRIu64 ": %s field is 0xffffffff, "
                     "expected its value in a zip64 extra field (%s)", off,
                     what, field ? "too short" : "none");
            return KB_IO_CORRUPT;
        }
        *v[i] = get64(field + at);
        at += 8;
    }
    return 0;
}

/* Parse central entry at z->next into m (local header still unread). */
static int read_central(kb_zip *z, kb_zip_member *m, uint64_t *lho,
                        char *err, size_t len)
{
    uint64_t o = z->next, left = z->cd_end - o;
    const uint8_t *c = z->buf + o;
    if (left < CENTRAL_BYTES || get32(c) != CENTRAL_SIG) {
        snprintf(err, len, "offset %" PRIu64 ": expected central directory "
                 "entry %" PRIu64 " of %" PRIu64 " (PK\\1\\2, 46 bytes), "
                 "found %s", o, z->index + 1, z->count,
                 left < CENTRAL_BYTES ? "the directory's end" : "no signature");
        return KB_IO_CORRUPT;
    }
    size_t nlen = get16(c + 28), elen = get16(c + 30), clen = get16(c + 32);
    if (CENTRAL_BYTES + nlen + elen + clen > left) {
        snprintf(err, len, "offset %" PRIu64 ": central entry of %zu bytes, "
                 "only %" PRIu64 " left in the directory", o,
                 CENTRAL_BYTES + nlen + elen + clen, left);
        return KB_IO_CORRUPT;
    }
    m->name = (const char *)c + CENTRAL_BYTES;
    m->name_len = nlen;
    m->method = get16(c + 10);
    m->crc = get32(c + 16);
    m->csize = get32(c + 20);
    m->usize = get32(c + 24);
    *lho = get32(c + 42);
    uint32_t disk = get16(c + 34);
    const uint8_t *f;
    size_t fsize = 0;
    int rc = find_zip64(z->buf, o + CENTRAL_BYTES + nlen, elen, &f, &fsize,
                        err, len);
    uint64_t *v[] = {&m->usize, &m->csize, lho};
    if (!rc)
        rc = resolve_zip64(f, fsize, o + 20, v, 3, "a size or offset", err,
                           len);
    if (rc)
        return rc;
    if (get16(c + 8) & 1 || disk) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s is %s, expected "
                 "a plain member on disk 0", o, (int)nlen, m->name,
                 disk ? "on another disk" : "encrypted");
        return KB_IO_CORRUPT;
    }
    if (m->method != KB_ZIP_STORED && m->method != KB_ZIP_DEFLATE) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s has compression "
                 "method %u, expected 0 (stored) or 8 (deflate)", o + 10,
                 (int)nlen, m->name, m->method);
        return KB_IO_CORRUPT;
    }
    if (m->method == KB_ZIP_STORED && m->csize != m->usize) {
        snprintf(err, len, "offset %" PRIu64 ": stored member %.*s of %"
                 PRIu64 " bytes compressed, %" PRIu64 " uncompressed, "
                 "expected equal sizes", o + 20, (int)nlen, m->name,
                 m->csize, m->usize);
        return KB_IO_CORRUPT;
    }
    z->next = o + CENTRAL_BYTES + nlen + elen + clen;
    return 0;
}

/* A local header value that disagrees with the central directory. */
static int mismatch(const kb_zip_member *m, uint64_t off, const char *what,
                    uint64_t local, uint64_t central, char *err, size_t len)
{
    snprintf(err, len, "offset %" PRIu64 ": local header of %.*s gives %s %"
             PRIu64 ", the central directory %" PRIu64, off,
             (int)m->name_len, m->name, what, local, central);
    return KB_IO_CORRUPT;
}

/* The local header at lho must name the same member with the same method,
 * CRC and sizes (unless it defers them to a data descriptor, flag bit 3);
 * the data follows its own name and extra. */
static int read_local(kb_zip *z, kb_zip_member *m, uint64_t lho,
                      char *err, size_t len)
{
    if (lho > z->cd_start || z->cd_start - lho < LOCAL_BYTES ||
        get32(z->buf + lho) != LOCAL_SIG) {
        snprintf(err, len, "offset %" PRIu64 ": expected the local header "
                 "of %.*s (PK\\3\\4) before the central directory at %"
                 PRIu64, lho, (int)m->name_len, m->name, z->cd_start);
        return KB_IO_CORRUPT;
    }
    const uint8_t *l = z->buf + lho;
    size_t nlen = get16(l + 26), elen = get16(l + 28);
    uint64_t data = lho + LOCAL_BYTES + nlen + elen;
    if (data > z->cd_start || m->csize > z->cd_start - data) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s of %" PRIu64
                 " bytes from offset %" PRIu64 " runs past the central "
                 "directory at %" PRIu64, lho, (int)m->name_len, m->name,
                 m->csize, data, z->cd_start);
        return KB_IO_CORRUPT;
    }
    if (nlen != m->name_len || memcmp(l + LOCAL_BYTES, m->name, nlen)) {
        snprintf(err, len, "offset %" PRIu64 ": local header names %.*s, "
                 "the central directory %.*s", lho + LOCAL_BYTES, (int)nlen,
                 (const char *)l + LOCAL_BYTES, (int)m->name_len, m->name);
        return KB_IO_CORRUPT;
    }
    if (get16(l + 8) != m->method)
        return mismatch(m, lho + 8, "method", get16(l + 8), m->method, err,
                        len);
    /* members in file order, none inside another: every byte is checked
     * (CRC, inflate) once at most, whatever the directory claims */
    if (lho < z->members_end) {
        snprintf(err, len, "offset %" PRIu64 ": local header of %.*s inside "
                 "the previous member (which ends at %" PRIu64 "), expected "
                 "the members in file order", lho, (int)m->name_len, m->name,
                 z->members_end);
        return KB_IO_CORRUPT;
    }
    z->members_end = data + m->csize;
    m->header_off = lho;
    m->data = z->buf + data;
    const uint8_t *f;
    size_t fsize = 0;
    int rc = find_zip64(z->buf, lho + LOCAL_BYTES + nlen, elen, &f, &fsize,
                        err, len);
    if (rc || get16(l + 6) & 8)
        return rc;
    uint64_t usize = get32(l + 22), csize = get32(l + 18);
    uint64_t f_off = (uint64_t)((f ? f : l) - z->buf);
    /* numpy (force_zip64) writes both sizes in the field whatever they are */
    if (f && fsize >= 16) {
        if (get64(f) != m->usize)
            return mismatch(m, f_off, "zip64 uncompressed size", get64(f),
                            m->usize, err, len);
        if (get64(f + 8) != m->csize)
            return mismatch(m, f_off + 8, "zip64 compressed size",
                            get64(f + 8), m->csize, err, len);
    } else {
        uint64_t *v[] = {&usize, &csize};
        rc = resolve_zip64(f, fsize, lho + 18, v, 2, "a size", err, len);
        if (rc)
            return rc;
    }
    if (get32(l + 14) != m->crc)
        return mismatch(m, lho + 14, "CRC-32", get32(l + 14), m->crc, err,
                        len);
    if (usize != U32_MARK && usize != m->usize)
        return mismatch(m, lho + 22, "uncompressed size", usize, m->usize,
                        err, len);
    if (csize != U32_MARK && csize != m->csize)
        return mismatch(m, lho + 18, "compressed size", csize, m->csize, err,
                        len);
    return 0;
}

int kb_zip_next(kb_zip *z, kb_zip_member *m, char *err, size_t len)
{
    if (z->index == z->count) {
        if (z->next == z->cd_end)
            return 0;
        snprintf(err, len, "offset %" PRIu64 ": %" PRIu64 " bytes after the "
                 "%" PRIu64 " central entries the end record declares, "
                 "expected none", z->next, z->cd_end - z->next, z->count);
        return KB_IO_CORRUPT;
    }
    uint64_t lho;
    int rc = read_central(z, m, &lho, err, len);
    if (!rc)
        rc = read_local(z, m, lho, err, len);
    if (rc)
        return rc;
    z->index++;
    return 1;
}

/* Inflate a raw deflate stream in pieces: the size of the output and,
 * with crc_check, its CRC-32 in *crc; its first cap bytes kept. */
static int inflate_check(const kb_zip_member *m, uint64_t data_off,
                         bool crc_check, uint8_t *head, size_t cap,
                         size_t *got, uint32_t *crc, uint64_t *total,
                         char *err, size_t len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        snprintf(err, len, "zlib inflateInit2 failed");
        return KB_IO_ERROR;
    }
    uint8_t out[16384];
    const uint8_t *in = m->data;
    uint64_t in_left = m->csize;
    uint32_t c = 0;
    int zrc = Z_OK;
    while (zrc != Z_STREAM_END) {
        if (zs.avail_in == 0 && in_left) {
            zs.next_in = (Bytef *)in;
            zs.avail_in = in_left > (1u << 30) ? 1u << 30 : (uInt)in_left;
            in += zs.avail_in;
            in_left -= zs.avail_in;
        }
        zs.next_out = out;
        zs.avail_out = sizeof out;
        zrc = inflate(&zs, Z_NO_FLUSH);
        size_t have = sizeof out - zs.avail_out;
        if (*got < cap) {
            size_t k = have < cap - *got ? have : cap - *got;
            memcpy(head + *got, out, k);
            *got += k;
        }
        if (crc_check)
            c = kb_io_crc32(c, out, have);
        *total += have;
        bool stuck = zrc == Z_BUF_ERROR && zs.avail_in == 0 && !in_left;
        if ((zrc != Z_OK && zrc != Z_STREAM_END && zrc != Z_BUF_ERROR) ||
            stuck || *total > m->usize) {
            uint64_t at = data_off + (uint64_t)(in - m->data) - zs.avail_in;
            snprintf(err, len, "offset %" PRIu64 ": member %.*s: %s, "
                     "expected a deflate stream of %" PRIu64 " bytes "
                     "inflating to %" PRIu64, at, (int)m->name_len, m->name,
                     stuck ? "the deflate stream ends early"
                     : *total > m->usize ? "it inflates past its size"
                     : zs.msg ? zs.msg : "corrupt deflate data",
                     m->csize, m->usize);
            inflateEnd(&zs);
            return KB_IO_CORRUPT;
        }
    }
    uint64_t used = m->csize - in_left - zs.avail_in;
    inflateEnd(&zs);
    if (used != m->csize) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s: deflate stream "
                 "ends after %" PRIu64 " of its %" PRIu64 " bytes",
                 data_off + used, (int)m->name_len, m->name, used, m->csize);
        return KB_IO_CORRUPT;
    }
    if (crc_check)
        *crc = c;
    return 0;
}

int kb_zip_verify(const kb_zip *z, const kb_zip_member *m, bool crc_check,
                  uint8_t *head, size_t cap, size_t *got, char *err,
                  size_t len)
{
    uint64_t data_off = (uint64_t)(m->data - z->buf);
    uint32_t crc = m->crc;    /* unless computed below */
    uint64_t total = 0;
    *got = 0;
    if (m->method == KB_ZIP_STORED) {
        if (crc_check)
            crc = kb_io_crc32(0, m->data, m->csize);
        total = m->csize;
        *got = m->csize < cap ? m->csize : cap;
        memcpy(head, m->data, *got);
    } else {
        int rc = inflate_check(m, data_off, crc_check, head, cap, got, &crc,
                               &total, err, len);
        if (rc)
            return rc;
    }
    if (total != m->usize) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s inflates to %"
                 PRIu64 " bytes, expected %" PRIu64, data_off,
                 (int)m->name_len, m->name, total, m->usize);
        return KB_IO_CORRUPT;
    }
    if (crc != m->crc) {
        snprintf(err, len, "offset %" PRIu64 ": zip CRC-32 mismatch in "
                 "%.*s: %08x computed, expected %08x (its central "
                 "directory entry)", data_off, (int)m->name_len, m->name,
                 crc, m->crc);
        return KB_IO_CORRUPT;
    }
    return 0;
}
