/* dlio_npz.c - DLIO's npz files: np.savez(x=records, y=labels) with
 * records (dim1, dim2, num_samples) uint8, samples along the last axis.
 * Reading walks the zip from its central directory (dlio_zip.c), checks
 * every member's CRC-32 and .npy header, and hands out sample k of x as
 * the whole array (x[..., k] is a strided view, as DLIO's reader takes
 * it).  Writing produces what numpy writes: stored members with zip64
 * extra fields in the local headers (force_zip64), .npy v1 headers. */
#include "iostage/stage.h"
#include "iostage/dlio/npy.h"
#include "iostage/dlio/zip.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/dlio/arrays.h"
#include "iostage/formats/write_full.h"
#include "iostage/checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the .npy header: a Python dict literal ---- */

typedef struct {
    const uint8_t *p;
    size_t i, n;
    uint64_t base;
    char *err;
    size_t len;
} cursor;

static int bad(cursor *c, const char *expected)
{
    snprintf(c->err, c->len, "offset %" PRIu64 ": .npy header has %s, "
             "expected %s", c->base + c->i,
             c->i < c->n ? "an unexpected character" : "no more text",
             expected);
    return KB_IO_CORRUPT;
}

static void skip_space(cursor *c)
{
    while (c->i < c->n && (c->p[c->i] == ' ' || c->p[c->i] == '\t' ||
                           c->p[c->i] == '\n' || c->p[c->i] == '\r'))
        c->i++;
}

static bool take(cursor *c, char ch)
{
    skip_space(c);
    if (c->i < c->n && c->p[c->i] == ch) {
        c->i++;
        return true;
    }
    return false;
}

/* A quoted string (no escapes: numpy's keys and dtypes have none). */
static int string(cursor *c, const uint8_t **s, size_t *n)
{
    skip_space(c);
    if (c->i >= c->n || (c->p[c->i] != '\'' && c->p[c->i] != '"'))
        return bad(c, "a quoted string");
    uint8_t q = c->p[c->i++];
    size_t start = c->i;
    while (c->i < c->n && c->p[c->i] != q)
        c->i++;
    if (c->i >= c->n)
        return bad(c, "the string's closing quote");
    *s = c->p + start;
    *n = c->i++ - start;
    return 0;
}

static bool is(const uint8_t *s, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(s, word, n) == 0;
}

/* descr: a plain numeric dtype, '<u1', '|u1', '<i8', '>f4'... (the body
 * is handed out as bytes, so the byte order does not matter). */
static int dtype(cursor *c, kb_npy *a)
{
    size_t at = c->i;
    const uint8_t *s;
    size_t n;
    int rc = string(c, &s, &n);
    if (rc)
        return rc;
    size_t size = 0;
    bool ok = n >= 3 && n <= 4 && memchr("<>|=", s[0], 4) &&
              memchr("biufc?", s[1], 6);
    for (size_t k = 2; ok && k < n; k++) {
        ok = s[k] >= '0' && s[k] <= '9';
        size = size * 10 + (size_t)(s[k] - '0');
    }
    if (!ok || size == 0) {
        c->i = at;
        return bad(c, "a plain numeric descr such as '|u1' or '<i8'");
    }
    a->itemsize = size;
    return 0;
}

/* shape: a tuple of non-negative integers, (), (n,), (a, b, c). */
static int shape(cursor *c, kb_npy *a)
{
    if (!take(c, '('))
        return bad(c, "the shape tuple's '('");
    a->ndim = 0;
    while (!take(c, ')')) {
        skip_space(c);
        uint64_t v = 0;
        size_t digits = 0;
        for (; c->i < c->n && c->p[c->i] >= '0' && c->p[c->i] <= '9';
             c->i++, digits++) {
            if (v > (UINT64_MAX - 9) / 10)
                return bad(c, "a dimension below 2^64");
            v = v * 10 + (uint64_t)(c->p[c->i] - '0');
        }
        if (!digits)
            return bad(c, "a dimension (digits) or ')'");
        if (a->ndim == KB_NPY_MAXDIM)
            return bad(c, "at most 32 dimensions");
        a->shape[a->ndim++] = v;
        if (!take(c, ',') && (skip_space(c), c->i >= c->n ||
                              c->p[c->i] != ')'))
            return bad(c, "',' or ')' in the shape");
    }
    return 0;
}

/* The dict: exactly 'descr', 'fortran_order' (False) and 'shape'. */
static int dict(cursor *c, kb_npy *a)
{
    int seen = 0;
    if (!take(c, '{'))
        return bad(c, "'{'");
    while (!take(c, '}')) {
        const uint8_t *k;
        size_t kn;
        int rc = string(c, &k, &kn);
        if (rc)
            return rc;
        if (!take(c, ':'))
            return bad(c, "':'");
        skip_space(c);
        if (is(k, kn, "descr") && !(seen & 1)) {
            rc = dtype(c, a);
            seen |= 1;
        } else if (is(k, kn, "fortran_order") && !(seen & 2)) {
            if (c->n - c->i < 5 || memcmp(c->p + c->i, "False", 5))
                return bad(c, "fortran_order False (C order)");
            c->i += 5;
            seen |= 2;
        } else if (is(k, kn, "shape") && !(seen & 4)) {
            rc = shape(c, a);
            seen |= 4;
        } else {
            c->i = (size_t)(k - c->p);
            return bad(c, "one each of the keys 'descr', 'fortran_order', "
                          "'shape'");
        }
        if (rc)
            return rc;
        if (!take(c, ',') && (skip_space(c), c->i >= c->n ||
                              c->p[c->i] != '}'))
            return bad(c, "',' or '}'");
    }
    if (seen != 7)
        return bad(c, "all of 'descr', 'fortran_order' and 'shape'");
    skip_space(c);
    return c->i == c->n ? 0 : bad(c, "only padding after the dict");
}

int kb_npy_parse(const uint8_t *p, size_t n, uint64_t base, kb_npy *a,
                 char *err, size_t len)
{
    memset(a, 0, sizeof *a);
    if (n < 12 || memcmp(p, "\x93NUMPY", 6) != 0) {
        snprintf(err, len, "offset %" PRIu64 ": member is not a .npy array "
                 "(expected the magic \\x93NUMPY)", base);
        return KB_IO_CORRUPT;
    }
    unsigned major = p[6], minor = p[7];
    if (major < 1 || major > 3 || minor != 0) {
        snprintf(err, len, "offset %" PRIu64 ": .npy version %u.%u, expected "
                 "1.0, 2.0 or 3.0", base + 6, major, minor);
        return KB_IO_CORRUPT;
    }
    size_t start = major == 1 ? 10 : 12;
    size_t hl = major == 1 ? (size_t)(p[8] | p[9] << 8)
                           : (size_t)(p[8] | p[9] << 8 | p[10] << 16 |
                                      (uint32_t)p[11] << 24);
    if (hl > KB_NPY_MAX_HEADER || hl > n - start) {
        snprintf(err, len, "offset %" PRIu64 ": .npy header of %zu bytes, "
                 "expected at most %zu (numpy's limit %d)", base + 8, hl,
                 n - start < KB_NPY_MAX_HEADER ? n - start
                                               : (size_t)KB_NPY_MAX_HEADER,
                 KB_NPY_MAX_HEADER);
        return KB_IO_CORRUPT;
    }
    cursor c = {p + start, 0, hl, base + start, err, len};
    int rc = dict(&c, a);
    if (rc)
        return rc;
    a->header_len = start + hl;
    uint64_t count = 1;
    for (int k = 0; k < a->ndim; k++)
        count = a->shape[k] && count > UINT64_MAX / a->shape[k]
                    ? UINT64_MAX : count * a->shape[k];
    a->data_len = count > UINT64_MAX / a->itemsize ? UINT64_MAX
                                                    : count * a->itemsize;
    return 0;
}

/* ---- reading ---- */

/* Check one member: CRC-32, .npy header, and that the header's shape
 * accounts for exactly the member's bytes. */
static int check_member(const kb_zip *z, const kb_zip_member *m,
                        kb_io_verify verify, kb_npy *a, char *err, size_t len)
{
    uint8_t head[KB_NPY_MAX_HEADER + 12];
    size_t got;
    int rc = kb_zip_verify(z, m, verify == KB_IO_VERIFY_CRC, head,
                           sizeof head, &got, err, len);
    uint64_t off = (uint64_t)(m->data - z->buf);
    if (!rc)
        rc = kb_npy_parse(head, got, off, a, err, len);
    if (rc)
        return rc;
    if (a->data_len != m->usize - a->header_len) {
        snprintf(err, len, "offset %" PRIu64 ": member %.*s holds %" PRIu64
                 " bytes of data, its .npy shape and dtype need %" PRIu64,
                 off, (int)m->name_len, m->name, m->usize - a->header_len,
                 a->data_len);
        return KB_IO_CORRUPT;
    }
    return 0;
}

static int dlio_npz_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                          kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    kb_zip z;
    kb_zip_member m, x = {0};
    kb_npy a, xa = {0};
    bool have_x = false;
    int rc = kb_zip_open(&z, buf, n, err, len);
    while (!rc && (rc = kb_zip_next(&z, &m, err, len)) == 1) {
        rc = check_member(&z, &m, verify, &a, err, len);
        if (rc || m.name_len != 5 || memcmp(m.name, "x.npy", 5))
            continue;
        if (have_x) {
            snprintf(err, len, "offset %" PRIu64 ": a second member x.npy, "
                     "expected one", m.header_off);
            return KB_IO_CORRUPT;
        }
        x = m, xa = a, have_x = true;
    }
    if (rc)
        return rc;
    if (!have_x) {
        snprintf(err, len, "offset %" PRIu64 ": no member x.npy, expected "
                 "DLIO's records (np.savez(x=records, y=labels))",
                 z.cd_start);
        return KB_IO_CORRUPT;
    }
    /* samples lie along the last axis; none of the others may be empty,
     * so the count is bounded by the bytes that were checked */
    uint64_t samples = xa.ndim ? xa.shape[xa.ndim - 1] : 0;
    if (!xa.ndim || (samples && !xa.data_len)) {
        snprintf(err, len, "offset %" PRIu64 ": x.npy has %s, expected "
                 "samples along the last axis of a non-empty array",
                 (uint64_t)(x.data - buf),
                 xa.ndim ? "an empty axis" : "no axes");
        return KB_IO_CORRUPT;
    }
    /* stored: the array itself; deflated: its compressed bytes (checked
     * above, inflated again by whoever decodes it) */
    kb_io_sample s = {0, x.data, x.csize, x.header_off};
    if (x.method == KB_ZIP_STORED)
        s.body += xa.header_len, s.body_len = xa.data_len;
    for (uint64_t k = 0; k < samples && !rc; k++) {
        s.id = k;
        rc = fn(ctx, &s);
    }
    return rc;
}

/* ---- writing, as numpy 1.24's savez does ---- */
#define ZIP64_LIMIT 0x7fffffffu     /* Python's zipfile.ZIP64_LIMIT */
#define DOS_DATE_1980 0x21          /* numpy dates its members 1980-01-01 */

typedef struct {
    uint8_t *p;
    size_t n;
} out;

static void put(out *o, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        o->p[o->n++] = (uint8_t)(v >> (8 * i));
}

static void put_str(out *o, const char *s, size_t n)
{
    memcpy(o->p + o->n, s, n);
    o->n += n;
}

typedef struct {
    const char *name;
    uint8_t npy[256];           /* the .npy header, a multiple of 64 */
    size_t npy_len;
    const uint8_t *data;
    uint64_t data_len, offset;
    uint32_t crc;
} member;

/* .npy v1 header of a C-order array. */
static void npy_header(member *m, const char *descr, const uint64_t *shape,
                       int ndim)
{
    char dict[160], dims[96] = "";
    size_t k = 0;
    for (int i = 0; i < ndim; i++)
        k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%" PRIu64,
                              i ? ", " : "", shape[i]);
    int d = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                     "False, 'shape': (%s%s), }", descr, dims,
                     ndim == 1 ? "," : "");
    /* numpy pads with 1..64 spaces before the newline to a multiple of 64 */
    m->npy_len = 10 + (size_t)d + 1 + (64 - (10 + (size_t)d + 1) % 64);
    memcpy(m->npy, "\x93NUMPY\x01\x00", 8);
    m->npy[8] = (uint8_t)(m->npy_len - 10);
    m->npy[9] = 0;
    memset(m->npy + 10, ' ', m->npy_len - 10);
    memcpy(m->npy + 10, dict, (size_t)d);
    m->npy[m->npy_len - 1] = '\n';
    m->crc = kb_io_crc32(kb_io_crc32(0, m->npy, m->npy_len), m->data,
                         m->data_len);
}

/* Local header with numpy's zip64 extra (both sizes), then the member. */
static int put_member(int fd, member *m, uint64_t offset, const char *path,
                      char *err, size_t len)
{
    uint8_t b[64];
    out o = {b, 0};
    uint64_t size = m->npy_len + m->data_len;
    bool big = size > ZIP64_LIMIT;
    m->offset = offset;
    put(&o, 0x04034b50u, 4);
    put(&o, big ? 45 : 20, 2);
    put(&o, 0, 2);                      /* flags */
    put(&o, 0, 2);                      /* stored */
    put(&o, 0, 2);
    put(&o, DOS_DATE_1980, 2);
    put(&o, m->crc, 4);
    put(&o, big ? 0xffffffffu : size, 4);
    put(&o, big ? 0xffffffffu : size, 4);
    put(&o, strlen(m->name), 2);
    put(&o, 20, 2);
    put_str(&o, m->name, strlen(m->name));
    put(&o, 1, 2);
    put(&o, 16, 2);
    put(&o, size, 8);
    put(&o, size, 8);
    int rc = kb_io_write_full(fd, b, o.n, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, m->npy, m->npy_len, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, m->data, m->data_len, path, err, len);
    return rc;
}

/* Central entry: zip64 fields only for what does not fit, as Python. */
static void put_central(out *o, const member *m)
{
    uint64_t size = m->npy_len + m->data_len;
    bool big = size > ZIP64_LIMIT, far = m->offset > ZIP64_LIMIT;
    int extra = 8 * (2 * big + far);
    put(o, 0x02014b50u, 4);
    put(o, 0x0300 | (extra ? 45 : 20), 2);  /* made by Unix */
    put(o, extra ? 45 : 20, 2);
    put(o, 0, 2);
    put(o, 0, 2);
    put(o, 0, 2);
    put(o, DOS_DATE_1980, 2);
    put(o, m->crc, 4);
    put(o, big ? 0xffffffffu : size, 4);
    put(o, big ? 0xffffffffu : size, 4);
    put(o, strlen(m->name), 2);
    put(o, extra ? 4 + extra : 0, 2);
    put(o, 0, 2);                       /* comment */
    put(o, 0, 2);                       /* disk */
    put(o, 0, 2);                       /* internal attributes */
    put(o, 0600u << 16, 4);             /* external: -rw------- */
    put(o, far ? 0xffffffffu : m->offset, 4);
    put_str(o, m->name, strlen(m->name));
    if (extra) {
        put(o, 1, 2);
        put(o, (uint64_t)extra, 2);
        if (big)
            put(o, size, 8), put(o, size, 8);
        if (far)
            put(o, m->offset, 8);
    }
}

/* Central directory and end records (zip64 ones when it lies past
 * Python's limit). */
static int put_directory(int fd, const member *m, int count, uint64_t start,
                         const char *path, char *err, size_t len)
{
    uint8_t b[512];
    out o = {b, 0};
    for (int i = 0; i < count; i++)
        put_central(&o, &m[i]);
    uint64_t size = o.n;
    if (start > ZIP64_LIMIT) {
        put(&o, 0x06064b50u, 4);
        put(&o, 44, 8);
        put(&o, 45, 2);
        put(&o, 45, 2);
        put(&o, 0, 4);
        put(&o, 0, 4);
        put(&o, (uint64_t)count, 8);
        put(&o, (uint64_t)count, 8);
        put(&o, size, 8);
        put(&o, start, 8);
        put(&o, 0x07064b50u, 4);
        put(&o, 0, 4);
        put(&o, start + size, 8);
        put(&o, 1, 4);
    }
    put(&o, 0x06054b50u, 4);
    put(&o, 0, 2);
    put(&o, 0, 2);
    put(&o, (uint64_t)count, 2);
    put(&o, (uint64_t)count, 2);
    put(&o, size, 4);
    put(&o, start > 0xffffffffu ? 0xffffffffu : start, 4);
    put(&o, 0, 2);
    return kb_io_write_full(fd, b, o.n, path, err, len);
}

static int dlio_npz_gen(const kb_io_profile *p, uint64_t seed,
                        int64_t file_index, const char *path, char *err,
                        size_t len)
{
    kb_io_dlio_arrays a;
    int rc = kb_io_dlio_arrays_make(p, seed, file_index, "npz", &a, err, len);
    if (rc)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    } else {
        member m[2] = {{.name = "x.npy", .data = a.x, .data_len = a.xn},
                       {.name = "y.npy", .data = (const uint8_t *)a.labels,
                        .data_len = a.ns * 8}};
        uint64_t xs[3] = {a.d1, a.d2, a.ns};
        npy_header(&m[0], "|u1", xs, 3);
        npy_header(&m[1], "<i8", &a.ns, 1);
        uint64_t off = 0;
        for (int i = 0; i < 2 && !rc; i++) {
            rc = put_member(fd, &m[i], off, path, err, len);
            off += 30 + strlen(m[i].name) + 20 + m[i].npy_len + m[i].data_len;
        }
        if (!rc)
            rc = put_directory(fd, m, 2, off, path, err, len);
    }
    if (fd >= 0 && close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    kb_io_dlio_arrays_free(&a);
    return rc;
}

const kb_io_format kb_io_format_dlio_npz = {
    .name = "dlio-npz",
    .ext = "npz",
    .positional_ids = true,
    .gen_file = dlio_npz_gen,
    .parse = dlio_npz_parse,
};
