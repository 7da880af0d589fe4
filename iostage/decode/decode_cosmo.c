/* decode_cosmo.c - cosmoflow's decode: inflate the gzip volume, convert
 * int16 counts to float and apply log1p, as the reference pipeline does. */
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define LABELS_BYTES 16

static size_t cosmo_out_bytes(const kb_io_profile *p)
{
    return (size_t)kb_io_dims_product(p) * sizeof(float);
}

/* Inflate a gzip stream into exactly n bytes.  0 or KB_IO_CORRUPT. */
static int gunzip(const uint8_t *src, size_t slen, uint8_t *dst, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return KB_IO_ERROR;
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)slen;
    z.next_out = dst;
    z.avail_out = (uInt)n;
    int rc = inflate(&z, Z_FINISH);
    size_t got = z.total_out;
    inflateEnd(&z);
    return rc == Z_STREAM_END && got == n ? 0 : KB_IO_CORRUPT;
}

static int cosmo_decode(const kb_io_profile *p, const kb_io_sample *s,
                        uint64_t rng, void *out, kb_io_scratch *scratch,
                        char *err, size_t len)
{
    (void)rng;
    size_t count = (size_t)kb_io_dims_product(p);
    if (s->body_len < LABELS_BYTES || s->body_len > UINT32_MAX) {
        snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64 " has %zu "
                 "bytes, expected labels and a gzip volume", s->offset, s->id,
                 s->body_len);
        return KB_IO_CORRUPT;
    }
    if (kb_io_scratch_reserve(scratch, count * sizeof(int16_t))) {
        snprintf(err, len, "out of memory for a %zu-value volume", count);
        return KB_IO_ERROR;
    }
    int rc = gunzip(s->body + LABELS_BYTES, s->body_len - LABELS_BYTES,
                    scratch->p, count * sizeof(int16_t));
    if (rc) {
        snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64 ": gzip "
                 "volume does not inflate to %zu int16 values", s->offset,
                 s->id, count);
        return rc;
    }
    const int16_t *v = scratch->p;
    float *f = out;
    for (size_t i = 0; i < count; i++)
        f[i] = log1pf((float)v[i]);
    return 0;
}

const kb_io_decoder kb_io_decode_cosmo = {
    .name = "cosmo",
    .out_elem = KB_IO_ELEM_F32,
    .out_bytes = cosmo_out_bytes,
    .decode = cosmo_decode,
};
