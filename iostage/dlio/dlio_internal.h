/* dlio_internal.h - the pieces behind DLIO's formats (dlio_*.c): a zip
 * reader that trusts nothing it reads (dlio_zip.c), the .npy header
 * (dlio_npz.c) and a protobuf walker for tf.train.Example (dlio_pb.c). */
#ifndef KB_IO_DLIO_INTERNAL_H
#define KB_IO_DLIO_INTERNAL_H

#include "iostage/io_internal.h"

/* ---- zip archives, read from the end (dlio_zip.c) ---- */
#define KB_ZIP_STORED 0
#define KB_ZIP_DEFLATE 8

/* One member, from its central directory entry (zip64 fields resolved)
 * and its local header; data[0, csize) lies inside the buffer. */
typedef struct {
    const char *name;           /* into the buffer, not NUL-terminated */
    size_t name_len;
    uint32_t method, crc;
    uint64_t csize, usize;
    uint64_t header_off;        /* of the local header, for messages */
    const uint8_t *data;
} kb_zip_member;

typedef struct {
    const uint8_t *buf;
    size_t n;
    uint64_t count;             /* entries the end record declares */
    uint64_t cd_start;          /* the central directory */
    uint64_t cd_end;            /* end of the central directory */
    uint64_t next;              /* offset of the next central entry */
    uint64_t index;             /* entries walked */
    uint64_t members_end;       /* end of the last member's data */
} kb_zip;

/* Find the end records (zip64 when present) and check that the central
 * directory lies inside buf.  0 or KB_IO_CORRUPT ("offset N: ..."). */
int kb_zip_open(kb_zip *z, const uint8_t *buf, size_t n, char *err,
                size_t len);
/* The next member, its local header checked against the central entry.
 * 1 with *m filled, 0 after the last, or KB_IO_CORRUPT. */
int kb_zip_next(kb_zip *z, kb_zip_member *m, char *err, size_t len);
/* Check m's CRC-32 over its uncompressed bytes (inflating a deflated
 * member in pieces, zlib) and its uncompressed size; the first `cap`
 * uncompressed bytes are copied to head (*got of them).  0 or
 * KB_IO_CORRUPT. */
int kb_zip_verify(const kb_zip *z, const kb_zip_member *m, uint8_t *head,
                  size_t cap, size_t *got, char *err, size_t len);

/* ---- .npy arrays (dlio_npz.c) ---- */
#define KB_NPY_MAXDIM 32
#define KB_NPY_MAX_HEADER 10000    /* numpy's own max_header_size */

typedef struct {
    size_t header_len;          /* bytes before the data */
    size_t itemsize;
    int ndim;
    uint64_t shape[KB_NPY_MAXDIM];
    uint64_t data_len;          /* product(shape) x itemsize */
} kb_npy;

/* Parse the .npy header in p[0, n) (n may be a prefix of the array);
 * offsets in messages are `base` + the position.  0 or KB_IO_CORRUPT. */
int kb_npy_parse(const uint8_t *p, size_t n, uint64_t base, kb_npy *a,
                 char *err, size_t len);

/* ---- tf.train.Example (dlio_pb.c) ---- */
typedef struct {
    const uint8_t *image;       /* features['image'].bytes_list.value[0] */
    size_t image_len;
    int64_t size;               /* features['size'].int64_list.value[0] */
} kb_example;

/* Walk the serialized Example p[0, n); offsets in messages are `base` +
 * the position.  Both features must be there with one value each.  0 or
 * KB_IO_CORRUPT. */
int kb_example_parse(const uint8_t *p, size_t n, uint64_t base,
                     kb_example *ex, char *err, size_t len);
/* Serialize {'image': bytes, 'size': int64} as TensorFlow does into dst
 * (NULL: only measure).  Returns the length.  Cannot fail. */
size_t kb_example_put(uint8_t *dst, const uint8_t *image, size_t image_len,
                      int64_t size);

/* ---- DLIO's sample shapes (dlio_layout.c) ---- */
/* dim1 x dim2 of file i as DLIO draws them: dimension =
 * int(sqrt(record_length)) (p->sample_bytes), stdev = record_length_stdev
 * / 2 / sqrt(record_length), each max(int(normal), 1); seeded per file
 * (kbench's own draw: DLIO's is numpy's). */
void kb_io_dlio_dims(const kb_io_profile *p, uint64_t seed, int64_t i,
                     uint64_t *dim1, uint64_t *dim2);
/* DLIO's dimension: int(sqrt(record_length)), at least 1. */
uint64_t kb_io_dlio_dimension(const kb_io_profile *p);

/* The arrays of file i as DLIO's npz and hdf5 generators make them: x,
 * samples_per_file samples of dim1 x dim2 random bytes (xn bytes), and
 * one 8-byte zero label a sample.  Both malloc'd.  0, or KB_IO_USAGE (too
 * large) / KB_IO_ERROR with a message naming `what` (the format). */
typedef struct {
    uint64_t d1, d2, ns;
    size_t xn;
    uint8_t *x;
    int64_t *labels;
} kb_io_dlio_arrays;
int kb_io_dlio_arrays_make(const kb_io_profile *p, uint64_t seed, int64_t i,
                           const char *what, kb_io_dlio_arrays *a, char *err,
                           size_t len);
void kb_io_dlio_arrays_free(kb_io_dlio_arrays *a);

#endif
