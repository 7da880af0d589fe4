/* decoder.h - decoders of samples (decode_*.c) as a table. */
#ifndef KB_IO_DECODE_DECODER_H
#define KB_IO_DECODE_DECODER_H

#include "iostage/profile.h"
#include "iostage/sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *p;
    size_t n;
} kb_io_scratch;

/* Grow s to at least n bytes.  0 or KB_IO_ERROR. */
int kb_io_scratch_reserve(kb_io_scratch *s, size_t n);

/* Element type of a decoded sample: what --compute backend: feeds the
 * model's first layer with. */
typedef enum { KB_IO_ELEM_NONE, KB_IO_ELEM_U8, KB_IO_ELEM_F32 } kb_io_elem;

typedef struct {
    const char *name;
    const char *missing;
    kb_io_elem out_elem;
    /* decode never reads a sample's body (the parser verified it and
     * nothing is kept): the pipeline may stream a file through small
     * reused buffers, the bodies gone by the time it decodes. */
    bool body_unused;
    /* Bytes of one decoded sample (0: nothing kept). */
    size_t (*out_bytes)(const kb_io_profile *p);
    /* Decode s into out; rng seeds random crops.  0, KB_IO_CORRUPT or
     * KB_IO_ERROR with a message. */
    int (*decode)(const kb_io_profile *p, const kb_io_sample *s, uint64_t rng,
                  void *out, kb_io_scratch *scratch, char *err, size_t len);
} kb_io_decoder;

const kb_io_decoder *kb_io_decoder_find(const char *name);  /* NULL if none */
/* libhdf5 without thread safety (Debian's) must see one call at a time:
 * every caller in the stage holds this lock (decode_hdf5.c) around its
 * libhdf5 calls; returns whether it was taken, for the unlock.  Only in
 * builds with libhdf5 (KB_IO_HAVE_HDF5). */
bool kb_io_hdf5_lock(void);
void kb_io_hdf5_unlock(bool locked);
/* Open a file image read-only with libhdf5's core driver (a copy of buf);
 * the hid_t, or < 0.  Call it holding the lock. */
int64_t kb_io_hdf5_open_image(const uint8_t *buf, size_t n);
extern const kb_io_decoder kb_io_decode_jpeg, kb_io_decode_cosmo,
    kb_io_decode_hdf5, kb_io_decode_parse;

#endif
