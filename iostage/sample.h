/* sample.h - the sample header every record carries, and random
 * sample bytes (sample.c). */
#ifndef KB_IO_SAMPLE_H
#define KB_IO_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* n random bytes from kernels/random.h's splitmix64.  Cannot fail. */
void kb_io_fill_random(uint8_t *dst, size_t n, uint64_t seed);

/* The sample header: 24 bytes, little-endian: "KBS2", CRC32C of the body, sample id, body
 * length.  CRC32C (checksum.h) because it is what the SIMD code computes
 * fastest: verifying every byte must not be what limits the raw read
 * path.  KB_IO_FORMAT, in the manifest, changes
 * whenever what gen writes does, so an older dataset is named as such
 * instead of failing as corrupt. */
#define KB_IO_FORMAT 2
#define KB_IO_HDR_BYTES 24
typedef struct {
    uint32_t crc;
    uint64_t id;
    uint64_t body_len;
} kb_io_hdr;

void kb_io_hdr_put(uint8_t *dst, const kb_io_hdr *h);
/* Returns 0, or KB_IO_CORRUPT on a bad magic. */
int kb_io_hdr_get(const uint8_t *src, kb_io_hdr *h);

/* One sample found in a file by a format's parser.  body points into the
 * file buffer; for HDF5 it is the whole file image. */
typedef struct {
    uint64_t id;
    const uint8_t *body;
    size_t body_len;
    uint64_t offset;        /* of the record in the file, for messages */
} kb_io_sample;
/* A DLIO npz file keeps its samples along the last axis of one array, so
 * a sample's body there is that whole array (x[..., k] is a strided view,
 * as in DLIO's reader) and its id is k. */

typedef int (*kb_io_sample_fn)(void *ctx, const kb_io_sample *s);

#endif
