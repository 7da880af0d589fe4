/* format.h - container formats as a table (formats.c), each found by
 * name: kbench's tfrecord, npz, hdf5 and DLIO's. */
#ifndef KB_IO_FORMATS_FORMAT_H
#define KB_IO_FORMATS_FORMAT_H

#include "iostage/profile.h"
#include "iostage/sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether a parser checks the checksums the data carries (TFRecord CRC32Cs,
 * zip CRC-32s, kbench's sample checksums), `kbench io run --verify`.
 * Framing (magic, lengths, truncation, ids) is checked either way: NONE
 * computes no checksum, for a figure of the storage path alone. */
typedef enum { KB_IO_VERIFY_CRC, KB_IO_VERIFY_NONE } kb_io_verify;

typedef struct {
    const char *name;
    const char *ext;
    const char *missing;    /* why it is unavailable in this build, or NULL */
    /* The records carry no ids (DLIO's files): a parser numbers them 0, 1,
     * ... in file order and the pipeline names sample k of file f
     * f x samples_per_file + k.  Otherwise ids are global, from the
     * sample header. */
    bool positional_ids;
    /* Write file `file_index` of the dataset to `path`.  Returns 0,
     * KB_IO_ERROR with a message. */
    int (*gen_file)(const kb_io_profile *p, uint64_t seed, int64_t file_index,
                    const char *path, char *err, size_t len);
    /* Walk the samples of a file image, verifying framing, and checksums
     * unless verify is KB_IO_VERIFY_NONE,
     * calling fn for each.  Returns 0, KB_IO_CORRUPT with "offset N: ..."
     * in err, or fn's non-zero return. */
    int (*parse)(const uint8_t *buf, size_t n, kb_io_verify verify,
                 kb_io_sample_fn fn, void *ctx, char *err, size_t len);
    /* Streamable formats only (else NULL): the same walk over the
     * complete records of buf[*off, n), advancing *off past them, so a
     * reader can verify what has arrived while the rest is read.  With
     * `final`, n is the whole file and an incomplete record is an error.
     * parse(buf, n, v) == parse_part(buf, n, &zero, true, v). */
    int (*parse_part)(const uint8_t *buf, size_t n, size_t *off, bool final,
                      kb_io_verify verify, kb_io_sample_fn fn, void *ctx,
                      char *err, size_t len);
    /* Formats whose records carry their ids only (else NULL): parse_part
     * over a window of the file rather than its whole image, so a reader
     * can stream a file through small reused buffers.  buf[0] is the
     * file's byte `base`; *off is relative to buf; messages and the
     * samples' offsets are file offsets.  Nothing is kept from one call
     * to the next, and a sample's body is valid only inside fn.
     * parse_part(buf, n, off, ...) == parse_window(buf, n, 0, off, ...). */
    int (*parse_window)(const uint8_t *buf, size_t n, uint64_t base,
                        size_t *off, bool final, kb_io_verify verify,
                        kb_io_sample_fn fn, void *ctx, char *err, size_t len);
} kb_io_format;

/* NULL when the name is unknown. */
const kb_io_format *kb_io_format_find(const char *name);
extern const kb_io_format kb_io_format_tfrecord, kb_io_format_npz,
    kb_io_format_hdf5, kb_io_format_dlio_npz, kb_io_format_dlio_tfrecord,
    kb_io_format_dlio_hdf5;


#endif
