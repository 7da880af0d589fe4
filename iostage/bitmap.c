/* bitmap.c - the delivered-sample bitmap of one rank's records as text
 * (hex of a zlib stream), so that `kbench io merge` can prove from the
 * JSON alone that every sample was delivered once across ranks. */
#include "iostage/bitmap.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Bits [lo, hi) of bits, repacked so that bit 0 is id lo. */
static uint8_t *extract(const uint8_t *bits, int64_t lo, int64_t hi,
                        size_t *n)
{
    *n = (size_t)((hi - lo + 7) / 8);
    uint8_t *out = calloc(*n ? *n : 1, 1);
    if (!out)
        return NULL;
    for (int64_t id = lo; id < hi; id++)
        if (bits[id / 8] & (1u << (id % 8)))
            out[(id - lo) / 8] |= (uint8_t)(1u << ((id - lo) % 8));
    return out;
}

char *kb_io_bitmap_encode(const uint8_t *bits, int64_t lo, int64_t hi)
{
    size_t n;
    uint8_t *raw = extract(bits, lo, hi, &n);
    uLongf zn = compressBound((uLong)n);
    uint8_t *z = raw ? malloc(zn) : NULL;
    char *text = NULL;
    if (z && compress2(z, &zn, raw, (uLong)n, 9) == Z_OK &&
        (text = malloc(2 * (size_t)zn + 1))) {
        static const char hex[] = "0123456789abcdef";
        for (uLongf i = 0; i < zn; i++) {
            text[2 * i] = hex[z[i] >> 4];
            text[2 * i + 1] = hex[z[i] & 15];
        }
        text[2 * zn] = '\0';
    }
    free(raw);
    free(z);
    return text;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int kb_io_bitmap_decode(const char *text, int64_t lo, int64_t hi,
                        uint8_t *bits, char *err, size_t len)
{
    size_t tn = strlen(text), zn = tn / 2;
    if (hi < lo || tn % 2) {
        snprintf(err, len, "bitmap of ids [%" PRId64 ", %" PRId64 "): %s",
                 lo, hi, hi < lo ? "empty range" : "odd number of hex digits");
        return KB_IO_CORRUPT;
    }
    /* one byte more than expected, so a longer stream is told apart */
    uLongf want = (uLongf)((hi - lo + 7) / 8), got = want + 1;
    /* deflate inflates 1032-fold at most: a range that the text cannot
     * fill is refused before its bitmap is allocated */
    if (want / 1032 > zn) {
        snprintf(err, len, "bitmap of ids [%" PRId64 ", %" PRId64 "): %zu "
                 "hex digits cannot inflate to %lu bytes", lo, hi, tn,
                 (unsigned long)want);
        return KB_IO_CORRUPT;
    }
    uint8_t *z = malloc(zn ? zn : 1);
    uint8_t *raw = z ? malloc(got) : NULL;
    int rc = 0;
    if (!raw) {
        snprintf(err, len, "out of memory for a %zu-byte bitmap", zn);
        rc = KB_IO_ERROR;
        goto out;
    }
    for (size_t i = 0; i < zn; i++) {
        int a = hex_digit(text[2 * i]), b = hex_digit(text[2 * i + 1]);
        if (a < 0 || b < 0) {
            snprintf(err, len, "bitmap: character %zu is not a lowercase hex "
                     "digit", a < 0 ? 2 * i : 2 * i + 1);
            rc = KB_IO_CORRUPT;
            goto out;
        }
        z[i] = (uint8_t)(a << 4 | b);
    }
    if (uncompress(raw, &got, z, (uLong)zn) != Z_OK || got != want) {
        snprintf(err, len, "bitmap of ids [%" PRId64 ", %" PRId64 "): not a "
                 "zlib stream of %lu bytes", lo, hi, (unsigned long)want);
        rc = KB_IO_CORRUPT;
        goto out;
    }
    for (int64_t i = 0; i < hi - lo; i++)
        if (raw[i / 8] & (1u << (i % 8)))
            bits[(lo + i) / 8] |= (uint8_t)(1u << ((lo + i) % 8));
out:
    free(z);
    free(raw);
    return rc;
}

int kb_io_bitmap_room(int64_t total, int copies, const char *what, char *err,
                      size_t len)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = (double)copies * (double)((total + 7) / 8);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    if (have == 0 || need <= have / 4)
        return 0;
    snprintf(err, len, "%s: %" PRId64 " samples need %d bitmap%s of %.0f MB, "
             "over a quarter of this machine's %.0f MB", what, total, copies,
             copies > 1 ? "s" : "", need / copies / 1e6, have / 1e6);
    return KB_IO_USAGE;
}
