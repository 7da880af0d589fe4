/* fuzz_file.h - for the targets whose parser takes a path: the input
 * written to a memfd (no disk), named /proc/self/fd/N. */
#ifndef KB_FUZZ_FILE_H
#define KB_FUZZ_FILE_H

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The path of a file holding data[0, n): the same memfd each call.
 * Aborts when the memfd cannot be made or written. */
static inline const char *fuzz_file(const void *data, size_t n)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("kb_fuzz_input", 0);
        if (fd < 0) {
            perror("fuzz_file: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, n, 0) != (ssize_t)n)
        abort();
    return path;
}

#endif
