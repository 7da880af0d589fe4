/* write_full.h - a whole buffer written to a file descriptor
 * (write_full.c). */
#ifndef KB_IO_FORMATS_WRITE_FULL_H
#define KB_IO_FORMATS_WRITE_FULL_H

#include <stddef.h>
#include <stdint.h>

/* Write all of buf to fd.  0, or KB_IO_ERROR naming path. */
int kb_io_write_full(int fd, const uint8_t *buf, size_t n, const char *path,
                     char *err, size_t len);

#endif
