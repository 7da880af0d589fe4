/* npz_archive.h - the I/O stage's one npz writer and the member check
 * its readers share (npz_archive.c).  kbench's npz (npz.c) and DLIO's
 * (dlio/dlio_npz.c) both write through kb_npz_write and read through the
 * zip reader (zip.h) and kb_npz_member. */
#ifndef KB_IO_FORMATS_NPZ_ARCHIVE_H
#define KB_IO_FORMATS_NPZ_ARCHIVE_H

#include "iostage/formats/npy.h"
#include "iostage/formats/zip.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_NPZ_MAXDIM 4

/* One array to write: a C-order array of a plain numeric dtype. */
typedef struct {
    const char *name;           /* the member's name, "x.npy" */
    const char *descr;          /* numpy's dtype string, "|u1", "<i8" */
    int ndim;                   /* 1..KB_NPZ_MAXDIM */
    uint64_t shape[KB_NPZ_MAXDIM];
    const uint8_t *data;        /* data_len bytes */
    uint64_t data_len;
} kb_npz_array;

/* Write the arrays to fd (path for messages) as numpy's savez does:
 * stored members in order, each a .npy v1 header (padded with 1..64
 * spaces to a multiple of 64) and the data, dated 1980-01-01, -rw-------;
 * with force_zip64 (Python zipfile's, numpy passes it) every local header
 * carries a zip64 extra field with both sizes, else only a member over
 * 2 GiB - 1 does; zip64 central fields and end records only where they
 * are needed.  0, KB_IO_USAGE (more than 16 arrays, a name over 64
 * bytes, a descr over 8, a bad ndim) or KB_IO_ERROR naming path. */
int kb_npz_write(int fd, const kb_npz_array *arrays, int count,
                 bool force_zip64, const char *path, char *err, size_t len);

/* Check member m of z: its size and, with crc_check, its CRC-32
 * (inflating a deflated member in pieces), its .npy header (into *a),
 * and that the header's shape and dtype account for exactly the
 * member's bytes.  0 or KB_IO_CORRUPT ("offset N: ..."). */
int kb_npz_member(const kb_zip *z, const kb_zip_member *m, bool crc_check,
                  kb_npy *a, char *err, size_t len);

/* Whether m is named `name`. */
bool kb_npz_member_is(const kb_zip_member *m, const char *name);

#endif
