/* arrays.h - DLIO's sample shapes and the arrays its npz and hdf5
 * generators fill (arrays.c). */
#ifndef KB_IO_DLIO_ARRAYS_H
#define KB_IO_DLIO_ARRAYS_H

#include "iostage/profile.h"

#include <stddef.h>
#include <stdint.h>

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

/* ---- DLIO's datasets and workload configs (dlio_layout.c,
 * dlio_config.c) ---- */

#endif
