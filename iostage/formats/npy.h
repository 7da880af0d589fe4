/* npy.h - reading the .npy array header (npy.c); npz_archive.c writes
 * it. */
#ifndef KB_IO_FORMATS_NPY_H
#define KB_IO_FORMATS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
