/* dlio_pb.c - the protobuf wire format of tf.train.Example, by hand for
 * the two features DLIO writes ('image' bytes, 'size' int64):
 *   Example  { Features features = 1; }
 *   Features { map<string, Feature> feature = 1; }  (entries: key 1, value 2)
 *   Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
 *                      Int64List int64_list = 3; } }
 *   BytesList { repeated bytes value = 1; }
 *   Int64List { repeated int64 value = 1 [packed]; }
 * Every length is checked against what is left of its message before
 * use; varints are at most 10 bytes; unknown fields are skipped by wire
 * type; groups (3, 4) and the unused wire types 6, 7 are errors. */
#include "iostage/dlio/example.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

typedef struct {
    const uint8_t *p;
    size_t i, n;
    uint64_t base;              /* file offset of p[0] */
    char *err;
    size_t len;
} pb;

static int fail(pb *b, size_t at, const char *found, const char *expected)
{
    snprintf(b->err, b->len, "offset %" PRIu64 ": %s, expected %s",
             b->base + at, found, expected);
    return KB_IO_CORRUPT;
}

static int varint(pb *b, uint64_t *v)
{
    size_t at = b->i;
    *v = 0;
    for (int k = 0; k < 10; k++) {
        if (b->i >= b->n)
            return fail(b, at, "a varint running past its message",
                        "its last byte (high bit clear)");
        uint8_t c = b->p[b->i++];
        if (k == 9 && c > 1)
            return fail(b, at, "a varint above 2^64", "at most 10 bytes");
        *v |= (uint64_t)(c & 0x7f) << (7 * k);
        if (!(c & 0x80))
            return 0;
    }
    return fail(b, at, "a varint longer than 10 bytes", "at most 10 bytes");
}

/* The next field's number and wire type. */
static int tag(pb *b, uint64_t *field, unsigned *wt)
{
    size_t at = b->i;
    uint64_t t;
    int rc = varint(b, &t);
    if (rc)
        return rc;
    *field = t >> 3;
    *wt = (unsigned)(t & 7);
    if (*field == 0 || *field > 0x1fffffff)
        return fail(b, at, "field number 0 or above 2^29-1",
                    "a protobuf field tag");
    if (*wt == 3 || *wt == 4 || *wt > 5) {
        char found[64];
        snprintf(found, sizeof found, "wire type %u (field %" PRIu64 ")",
                 *wt, *field);
        return fail(b, at, found, "0, 1, 2 or 5 (no groups in an Example)");
    }
    return 0;
}

/* A length-delimited payload as a sub-message cursor. */
static int payload(pb *b, pb *sub)
{
    size_t at = b->i;
    uint64_t n;
    int rc = varint(b, &n);
    if (rc)
        return rc;
    if (n > b->n - b->i) {
        char found[96];
        snprintf(found, sizeof found, "length %" PRIu64 " with %zu bytes "
                 "left in the message", n, b->n - b->i);
        return fail(b, at, found, "a length that fits");
    }
    *sub = (pb){b->p + b->i, 0, (size_t)n, b->base + b->i, b->err, b->len};
    b->i += (size_t)n;
    return 0;
}

static int skip(pb *b, unsigned wt)
{
    uint64_t v;
    pb sub;
    size_t need = wt == WT_I64 ? 8 : 4;
    switch (wt) {
    case WT_VARINT:
        return varint(b, &v);
    case WT_LEN:
        return payload(b, &sub);
    default:
        if (b->n - b->i < need)
            return fail(b, b->i, "a fixed-width field running past its "
                        "message", "4 or 8 bytes");
        b->i += need;
        return 0;
    }
}

/* A known field (all length-delimited here, or a packed list) with
 * another wire type. */
static int want_len(pb *b, size_t at, unsigned wt, const char *what)
{
    if (wt == WT_LEN)
        return 0;
    char found[96];
    snprintf(found, sizeof found, "%s with wire type %u", what, wt);
    return fail(b, at, found, "wire type 2");
}

/* The next field of b: one of fields [lo, hi], length-delimited, into
 * *sub with its number in *f; any other field skipped, *f = 0.  what[f -
 * lo] names the wanted field in an error about its wire type. */
static int next_len(pb *b, uint64_t lo, uint64_t hi,
                    const char *const *what, uint64_t *f, pb *sub)
{
    size_t at = b->i;
    unsigned wt;
    int rc = tag(b, f, &wt);
    if (rc)
        return rc;
    if (*f < lo || *f > hi) {
        *f = 0;
        return skip(b, wt);
    }
    rc = want_len(b, at, wt, what[*f - lo]);
    return rc ? rc : payload(b, sub);
}

/* What one feature's value lists hold: the first value and the count. */
typedef struct {
    unsigned kind;              /* 1 bytes_list, 2 float_list, 3 int64 */
    size_t at;                  /* offset of the Feature, for messages */
    uint64_t count;
    const uint8_t *bytes;
    size_t bytes_len;
    uint64_t i64;
} value;

/* BytesList or Int64List: count the values, keep the first. */
static int list(pb *b, value *v)
{
    while (b->i < b->n) {
        size_t at = b->i;
        uint64_t f;
        unsigned wt;
        int rc = tag(b, &f, &wt);
        if (rc)
            return rc;
        if (f != 1 || v->kind == 2) {
            rc = skip(b, wt);
        } else if (v->kind == 1) {
            pb s;
            rc = want_len(b, at, wt, "a bytes value");
            if (!rc)
                rc = payload(b, &s);
            if (!rc && v->count++ == 0)
                v->bytes = s.p, v->bytes_len = s.n;
        } else if (wt == WT_VARINT) {
            uint64_t x;
            rc = varint(b, &x);
            if (!rc && v->count++ == 0)
                v->i64 = x;
        } else {
            pb s;   /* packed: varints back to back */
            rc = want_len(b, at, wt, "an int64 value");
            if (!rc)
                rc = payload(b, &s);
            while (!rc && s.i < s.n) {
                uint64_t x;
                rc = varint(&s, &x);
                if (!rc && v->count++ == 0)
                    v->i64 = x;
            }
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Feature: the last of its oneof fields wins, as in protobuf. */
static int feature(pb *b, value *v)
{
    static const char *const what[] = {"a value list", "a value list",
                                       "a value list"};
    *v = (value){.at = (size_t)b->base};
    while (b->i < b->n) {
        uint64_t f;
        pb s;
        int rc = next_len(b, 1, 3, what, &f, &s);
        if (!rc && f) {
            *v = (value){.kind = (unsigned)f, .at = (size_t)b->base};
            rc = list(&s, v);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int found(pb *b, const value *v, unsigned kind, const char *name)
{
    static const char *const kinds[] = {"no value list", "a bytes_list",
                                        "a float_list", "an int64_list"};
    if (v->kind == kind && v->count == 1)
        return 0;
    char what[96], expected[64];
    if (v->kind != kind)
        snprintf(what, sizeof what, "feature '%s' holding %s", name,
                 kinds[v->kind]);
    else
        snprintf(what, sizeof what, "feature '%s' with %" PRIu64 " values",
                 name, v->count);
    snprintf(expected, sizeof expected, "%s of one value", kinds[kind]);
    return fail(b, v->at - (size_t)b->base, what, expected);
}

/* One map entry of Features: key 1, value 2, in either order; the last
 * entry of a key wins. */
static int entry(pb *b, value *image, value *size)
{
    const uint8_t *key = NULL;
    size_t key_len = 0;
    static const char *const what[] = {"a map key", "a map value"};
    pb val = {NULL, 0, 0, b->base, b->err, b->len};
    while (b->i < b->n) {
        uint64_t f;
        pb s;
        int rc = next_len(b, 1, 2, what, &f, &s);
        if (rc)
            return rc;
        if (f == 1)
            key = s.p, key_len = s.n;
        else if (f == 2)
            val = s;
    }
    value *v = key_len == 5 && !memcmp(key, "image", 5)  ? image
               : key_len == 4 && !memcmp(key, "size", 4) ? size
                                                          : NULL;
    return v ? feature(&val, v) : 0;
}

/* Features: its map entries (field 1). */
static int features(pb *b, value *image, value *size)
{
    static const char *const what[] = {"a feature map entry"};
    while (b->i < b->n) {
        uint64_t f;
        pb e;
        int rc = next_len(b, 1, 1, what, &f, &e);
        if (!rc && f)
            rc = entry(&e, image, size);
        if (rc)
            return rc;
    }
    return 0;
}

int kb_example_parse(const uint8_t *p, size_t n, uint64_t base,
                     kb_example *ex, char *err, size_t len)
{
    pb b = {p, 0, n, base, err, len};
    value image = {.at = (size_t)base}, size = {.at = (size_t)base};
    static const char *const what[] = {"Example.features"};
    while (b.i < b.n) {
        uint64_t f;
        pb feats;
        /* Example.features; a repeated one merges into the first */
        int rc = next_len(&b, 1, 1, what, &f, &feats);
        if (!rc && f)
            rc = features(&feats, &image, &size);
        if (rc)
            return rc;
    }
    int rc = found(&b, &image, 1, "image");
    if (!rc)
        rc = found(&b, &size, 3, "size");
    if (rc)
        return rc;
    ex->image = image.bytes;
    ex->image_len = image.bytes_len;
    ex->size = (int64_t)size.i64;
    return 0;
}

/* ---- writing ---- */

static size_t put_varint(uint8_t *d, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (d)
            d[n] = c | (v ? 0x80 : 0);
        n++;
    } while (v);
    return n;
}

/* A length-delimited field: tag, length, then (when data) the bytes. */
static size_t put_len(uint8_t *d, unsigned field, const uint8_t *data,
                      size_t n)
{
    size_t k = put_varint(d, (uint64_t)field << 3 | WT_LEN);
    k += put_varint(d ? d + k : NULL, n);
    if (d && data)
        memcpy(d + k, data, n);
    return k + n;
}

/* Map entry {key, value: Feature{kind: list}} around a list body of
 * `body` bytes that follows (written by the caller). */
static size_t put_entry_head(uint8_t *d, const char *key, unsigned kind,
                             size_t body)
{
    size_t klen = strlen(key);
    size_t list = put_len(NULL, 1, NULL, body);
    size_t feat = put_len(NULL, kind, NULL, list);
    size_t entry = put_len(NULL, 1, NULL, klen) + put_len(NULL, 2, NULL, feat);
    size_t k = put_varint(d, 1 << 3 | WT_LEN);              /* Features.feature */
    k += put_varint(d ? d + k : NULL, entry);
    k += put_len(d ? d + k : NULL, 1, (const uint8_t *)key, klen);
    k += put_len(d ? d + k : NULL, 2, NULL, feat) - feat;   /* value head */
    k += put_len(d ? d + k : NULL, kind, NULL, list) - list;
    k += put_len(d ? d + k : NULL, 1, NULL, body) - body;   /* value = 1 */
    return k;
}

size_t kb_example_put(uint8_t *dst, const uint8_t *image, size_t image_len,
                      int64_t size)
{
    size_t vlen = put_varint(NULL, (uint64_t)size);
    size_t feats = put_entry_head(NULL, "image", 1, image_len) + image_len +
                   put_entry_head(NULL, "size", 3, vlen) + vlen;
    size_t k = put_len(dst, 1, NULL, feats) - feats;        /* Example.features */
    k += put_entry_head(dst ? dst + k : NULL, "image", 1, image_len);
    if (dst)
        memcpy(dst + k, image, image_len);
    k += image_len;
    k += put_entry_head(dst ? dst + k : NULL, "size", 3, vlen);
    k += put_varint(dst ? dst + k : NULL, (uint64_t)size);
    return k;
}
