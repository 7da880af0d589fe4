/* readers.c - what every reader engine shares: opening with O_DIRECT when
 * the filesystem accepts it, and latency records. */
#define _GNU_SOURCE   /* O_DIRECT */
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int kb_io_open(const char *path, int flags, bool *direct)
{
    if (*direct) {
        int fd = open(path, flags | O_DIRECT, 0644);
        if (fd >= 0 || errno != EINVAL)
            return fd;
        *direct = false;   /* e.g. tmpfs before Linux 6.6 */
    }
    return open(path, flags, 0644);
}

int kb_io_lat_add(kb_io_lat *l, double seconds)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        double *p = realloc(l->lat, cap * sizeof *p);
        if (!p)
            return KB_IO_ERROR;
        l->lat = p;
        l->cap = cap;
    }
    l->lat[l->n++] = seconds;
    return 0;
}
