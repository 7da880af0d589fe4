/* npy.c - the .npy array header as numpy writes it (a magic, a version,
 * a Python dict literal padded with spaces): parsed without trusting a
 * length or a dimension in it. */
#include "iostage/formats/npy.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
