/* bitmap.h - delivered-sample bitmaps in records (bitmap.c). */
#ifndef KB_IO_BITMAP_H
#define KB_IO_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit i of `bits` is sample i.  The text form of ids [lo, hi) is the hex
 * of their bits' zlib stream: a full bitmap of a million samples is a few
 * hundred characters. */
/* malloc'd text, or NULL when out of memory. */
char *kb_io_bitmap_encode(const uint8_t *bits, int64_t lo, int64_t hi);
/* OR the bits of text (ids [lo, hi)) into bits (which holds at least hi
 * bits).  0, or KB_IO_CORRUPT with a message naming what is malformed. */
int kb_io_bitmap_decode(const char *text, int64_t lo, int64_t hi,
                        uint8_t *bits, char *err, size_t len);
/* Whether `copies` bitmaps of `total` samples fit in a quarter of the
 * physical memory: 0, or KB_IO_USAGE with the numbers, prefixed by what
 * (a file and line): a header field must not size an allocation alone. */
int kb_io_bitmap_room(int64_t total, int copies, const char *what, char *err,
                      size_t len);

#endif
