/* gen_cosmo.c - CosmoFlow samples: 4 float32 labels followed by a gzip
 * stream of a D x H x W x C int16 volume of sparse small counts (like
 * particle counts per voxel, which is what makes the real data compress
 * about 6:1). */
#include "iostage/formats/body.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LABELS_BYTES 16

/* Volume of n int16 counts: 12 five-bit draws per random word, 26 of 32
 * outcomes zero. */
static void fill_counts(int16_t *v, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n;) {
        uint64_t r = kb_splitmix64(&s);
        for (int k = 0; k < 12 && i < n; k++, i++, r >>= 5) {
            int x = (int)(r & 31);
            v[i] = (int16_t)(x < 26 ? 0 : x - 25);
        }
    }
}

/* gzip src into dst (capacity *dlen, updated).  0 or KB_IO_ERROR. */
static int gzip(const uint8_t *src, size_t n, uint8_t *dst, size_t *dlen,
                char *err, size_t elen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper, as in the real TFRecords; level 1
     * keeps generation fast */
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        snprintf(err, elen, "zlib: deflateInit2 failed");
        return KB_IO_ERROR;
    }
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)*dlen;
    int rc = deflate(&z, Z_FINISH);
    *dlen = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        snprintf(err, elen, "zlib: deflate of %zu bytes failed (%d)", n, rc);
        return KB_IO_ERROR;
    }
    return 0;
}

int kb_io_cosmo_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                     uint8_t **body, size_t *len, char *err, size_t elen)
{
    int64_t count = kb_io_dims_product(p);
    /* zlib takes uInt lengths: the raw volume must stay below 4 GiB */
    if (count > (int64_t)(UINT_MAX / 4)) {
        snprintf(err, elen, "profile %s: volume of %lld values too large",
                 p->name, (long long)count);
        return KB_IO_USAGE;
    }
    size_t raw = (size_t)count * 2;
    size_t cap = compressBound((uLong)raw) + 32;
    int16_t *vol = malloc(raw);
    uint8_t *out = malloc(LABELS_BYTES + cap);
    if (!vol || !out) {
        free(vol);
        free(out);
        snprintf(err, elen, "out of memory for a %zu-byte volume", raw);
        return KB_IO_ERROR;
    }
    uint64_t s = kb_mix64(seed) ^ kb_mix64(id);
    for (int i = 0; i < 4; i++) {
        float label = (float)(kb_splitmix64(&s) >> 40) / 16777216.0f;
        memcpy(out + 4 * i, &label, 4);
    }
    fill_counts(vol, (size_t)count, s);
    int rc = gzip((const uint8_t *)vol, raw, out + LABELS_BYTES, &cap, err,
                  elen);
    free(vol);
    if (rc) {
        free(out);
        return rc;
    }
    *body = out;
    *len = LABELS_BYTES + cap;
    return 0;
}
