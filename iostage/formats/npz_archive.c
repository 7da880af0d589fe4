/* npz_archive.c - npz archives (a zip of .npy members): the one writer,
 * laid out as numpy 1.24's savez writes them, and the check of one
 * member that kbench's and DLIO's npz readers share. */
#include "iostage/formats/npz_archive.h"
#include "iostage/checksum.h"
#include "iostage/formats/write_full.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */
#define ZIP64_LIMIT 0x7fffffffu     /* Python's zipfile.ZIP64_LIMIT */
#define DOS_DATE_1980 0x21          /* numpy dates its members 1980-01-01 */
#define MAX_ARRAYS 16
#define MAX_NAME 64
#define MAX_DESCR 8
#define LOCAL_BYTES 30
#define LOCAL_ZIP64 20              /* tag, size, both sizes */
#define CENTRAL_MAX (46 + MAX_NAME + 4 + 24)
#define END_MAX (56 + 20 + 22)

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

/* What the writer works out for one array before writing it. */
typedef struct {
    const kb_npz_array *a;
    uint8_t npy[384];           /* the .npy header, a multiple of 64 */
    size_t npy_len;
    uint64_t size, offset;      /* member bytes (header + data), where */
    uint32_t crc;
} member;

/* .npy v1 header of a C-order array (dict under 256 bytes: the caller
 * bounds descr and ndim), and the member's CRC-32. */
static void npy_header(member *m)
{
    const kb_npz_array *a = m->a;
    char dict[256], dims[KB_NPZ_MAXDIM * 22 + 1] = "";
    size_t k = 0;
    for (int i = 0; i < a->ndim; i++)
        k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%" PRIu64,
                              i ? ", " : "", a->shape[i]);
    int d = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                     "False, 'shape': (%s%s), }", a->descr, dims,
                     a->ndim == 1 ? "," : "");
    /* numpy pads with 1..64 spaces before the newline to a multiple of 64 */
    m->npy_len = 10 + (size_t)d + 1 + (64 - (10 + (size_t)d + 1) % 64);
    memcpy(m->npy, "\x93NUMPY\x01\x00", 8);
    m->npy[8] = (uint8_t)(m->npy_len - 10);
    m->npy[9] = (uint8_t)((m->npy_len - 10) >> 8);
    memset(m->npy + 10, ' ', m->npy_len - 10);
    memcpy(m->npy + 10, dict, (size_t)d);
    m->npy[m->npy_len - 1] = '\n';
    m->size = m->npy_len + a->data_len;
    m->crc = kb_io_crc32(kb_io_crc32(0, m->npy, m->npy_len), a->data,
                         a->data_len);
}

/* Local header (with a zip64 extra holding both sizes when asked or
 * needed), then the member.  Advances *offset past it. */
static int put_member(int fd, member *m, bool force_zip64, uint64_t *offset,
                      const char *path, char *err, size_t len)
{
    uint8_t b[LOCAL_BYTES + MAX_NAME + LOCAL_ZIP64];
    out o = {b, 0};
    size_t name_len = strlen(m->a->name);
    bool big = m->size > ZIP64_LIMIT, zip64 = force_zip64 || big;
    m->offset = *offset;
    put(&o, 0x04034b50u, 4);
    put(&o, big ? 45 : 20, 2);
    put(&o, 0, 2);                      /* flags */
    put(&o, 0, 2);                      /* stored */
    put(&o, 0, 2);
    put(&o, DOS_DATE_1980, 2);
    put(&o, m->crc, 4);
    put(&o, big ? 0xffffffffu : m->size, 4);
    put(&o, big ? 0xffffffffu : m->size, 4);
    put(&o, name_len, 2);
    put(&o, zip64 ? LOCAL_ZIP64 : 0, 2);
    put_str(&o, m->a->name, name_len);
    if (zip64) {
        put(&o, 1, 2);
        put(&o, 16, 2);
        put(&o, m->size, 8);
        put(&o, m->size, 8);
    }
    *offset += o.n + m->size;
    int rc = kb_io_write_full(fd, b, o.n, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, m->npy, m->npy_len, path, err, len);
    if (!rc)
        rc = kb_io_write_full(fd, m->a->data, m->a->data_len, path, err,
                              len);
    return rc;
}

/* Central entry: zip64 fields only for what does not fit, as Python. */
static void put_central(out *o, const member *m)
{
    size_t name_len = strlen(m->a->name);
    bool big = m->size > ZIP64_LIMIT, far = m->offset > ZIP64_LIMIT;
    int extra = 8 * (2 * big + far);
    put(o, 0x02014b50u, 4);
    put(o, 0x0300 | (extra ? 45 : 20), 2);  /* made by Unix */
    put(o, extra ? 45 : 20, 2);
    put(o, 0, 2);
    put(o, 0, 2);
    put(o, 0, 2);
    put(o, DOS_DATE_1980, 2);
    put(o, m->crc, 4);
    put(o, big ? 0xffffffffu : m->size, 4);
    put(o, big ? 0xffffffffu : m->size, 4);
    put(o, name_len, 2);
    put(o, extra ? 4 + extra : 0, 2);
    put(o, 0, 2);                       /* comment */
    put(o, 0, 2);                       /* disk */
    put(o, 0, 2);                       /* internal attributes */
    put(o, 0600u << 16, 4);             /* external: -rw------- */
    put(o, far ? 0xffffffffu : m->offset, 4);
    put_str(o, m->a->name, name_len);
    if (extra) {
        put(o, 1, 2);
        put(o, (uint64_t)extra, 2);
        if (big)
            put(o, m->size, 8), put(o, m->size, 8);
        if (far)
            put(o, m->offset, 8);
    }
}

/* Central directory and end records (zip64 ones when it lies past
 * Python's limit). */
static int put_directory(int fd, const member *m, int count, uint64_t start,
                         const char *path, char *err, size_t len)
{
    uint8_t b[MAX_ARRAYS * CENTRAL_MAX + END_MAX];
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

int kb_npz_write(int fd, const kb_npz_array *arrays, int count,
                 bool force_zip64, const char *path, char *err, size_t len)
{
    member m[MAX_ARRAYS];
    if (count < 1 || count > MAX_ARRAYS) {
        snprintf(err, len, "%s: %d arrays, expected 1 to %d", path, count,
                 MAX_ARRAYS);
        return KB_IO_USAGE;
    }
    for (int i = 0; i < count; i++) {
        const kb_npz_array *a = &arrays[i];
        if (strlen(a->name) > MAX_NAME || strlen(a->descr) > MAX_DESCR ||
            a->ndim < 1 || a->ndim > KB_NPZ_MAXDIM) {
            snprintf(err, len, "%s: array %s (descr %s, %d dimensions), "
                     "expected a name of at most %d bytes, a descr of at "
                     "most %d and 1 to %d dimensions", path, a->name,
                     a->descr, a->ndim, MAX_NAME, MAX_DESCR, KB_NPZ_MAXDIM);
            return KB_IO_USAGE;
        }
        m[i].a = a;
        npy_header(&m[i]);
    }
    uint64_t off = 0;
    int rc = 0;
    for (int i = 0; i < count && !rc; i++)
        rc = put_member(fd, &m[i], force_zip64, &off, path, err, len);
    return rc ? rc : put_directory(fd, m, count, off, path, err, len);
}

/* ---- reading ---- */

bool kb_npz_member_is(const kb_zip_member *m, const char *name)
{
    return m->name_len == strlen(name) &&
           memcmp(m->name, name, m->name_len) == 0;
}

int kb_npz_member(const kb_zip *z, const kb_zip_member *m, bool crc_check,
                  kb_npy *a, char *err, size_t len)
{
    uint8_t head[KB_NPY_MAX_HEADER + 12];
    size_t got;
    int rc = kb_zip_verify(z, m, crc_check, head, sizeof head, &got, err,
                           len);
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
