/* tfrecord.h - TFRecord framing (tfrecord.c). */
#ifndef KB_IO_FORMATS_TFRECORD_H
#define KB_IO_FORMATS_TFRECORD_H

#include "iostage/formats/format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TFRecord framing (tfrecord.c). */
uint32_t kb_io_tfrecord_mask(uint32_t crc);
#define KB_IO_TFRECORD_OVERHEAD 16
/* Frame data (n bytes) as a TFRecord at dst (n + 16 bytes).  Cannot fail. */
void kb_io_tfrecord_put(uint8_t *dst, const uint8_t *data, size_t n);
/* The framed record at *off of buf[0, n), both CRCs checked (unless
 * verify is KB_IO_VERIFY_NONE): its data
 * in *data and *dlen, *off past it.  1: a record; 0: the end, or (not
 * final) the next record has not fully arrived; KB_IO_CORRUPT with
 * "offset N: ..." (a truncation when final). */
int kb_io_tfrecord_next(const uint8_t *buf, size_t n, size_t *off,
                        bool final, kb_io_verify verify, const uint8_t **data,
                        uint64_t *dlen, char *err, size_t len);

#endif
