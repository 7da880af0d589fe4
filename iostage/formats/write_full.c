/* write_full.c - a whole buffer written to a file descriptor, for the
 * dataset generators. */
#include "iostage/formats/write_full.h"
#include "iostage/stage.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int kb_io_write_full(int fd, const uint8_t *buf, size_t n, const char *path,
                     char *err, size_t len)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, len, "%s: write failed: %s", path,
                     w < 0 ? strerror(errno) : "no progress");
            return KB_IO_ERROR;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}
